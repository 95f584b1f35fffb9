"""Exact triangle count of an undirected graph by a masked sparse matrix product."""

from graphblast import binary, monoid, select, semiring
from graphblast.dtypes import INT64
from graphblast.exceptions import InvalidValue

from . import _validate

__all__ = ["triangle_count"]


def triangle_count(A, *, symmetrize=False):
    """Number of triangles of the undirected graph ``A``.

    Definition: a triangle is a set of three distinct vertices ``{i, j, k}`` joined pairwise
    by edges.  An edge is a stored entry of ``A``, an explicit zero included; self-loops are
    ignored and values never read.

    With ``L`` the strictly lower triangle of ``A``, every triangle ``k < j < i`` is counted
    once, at the edge ``(i, j)`` of ``L``, by the common lower neighbour ``k`` of ``i`` and
    ``j``: a masked product of ``L`` with ``L'`` (the Sandia "LL'" variant of
    LAGr_TriangleCount)::

        C<L> = L plus.pair L'          # C[i, j] = |row i of L  intersect  row j of L|
        ntri = sum(C)

    Only the entries of the mask are computed: each is a sorted intersection of two rows.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix with a symmetric structure (``A[i, j]`` stored exactly when
        ``A[j, i]`` is).
    symmetrize : bool, default False
        Count the triangles of ``A + A'`` instead (the undirected graph underlying a directed
        ``A``) rather than rejecting a non-symmetric structure.

    Returns
    -------
    int
        The exact count, a Python ``int``.

    Raises
    ------
    TypeError, DimensionMismatch
        For a non-Matrix or a non-square ``A``.
    InvalidValue
        If the structure of ``A`` is not symmetric and ``symmetrize`` is False.

    Notes
    -----
    Cost: ``sum over the edges (i, j) of L of min(deg_L(i), deg_L(j))`` comparisons with a
    merge intersection (at most ``O(m^1.5)``), plus ``O(m)`` for the symmetry check and ``L``.

    Examples
    --------
    >>> from graphblast import Matrix
    >>> rows, cols = [0, 1, 1, 2, 2, 0, 2, 3], [1, 0, 2, 1, 0, 2, 3, 2]
    >>> triangle_count(Matrix.from_coo(rows, cols, True, nrows=4, ncols=4))
    1
    """
    n = _validate.square_matrix(A, "triangle_count")
    symmetrize = _validate.flag(symmetrize, "symmetrize", "triangle_count")
    if symmetrize:
        A = A.ewise_add(A.T, binary.first).new()
    elif A.ewise_mult(A.T, binary.first).new().nvals != A.nvals:
        raise InvalidValue(
            f"triangle_count needs an undirected graph, but the structure of this {n} x {n} "
            "matrix is not symmetric (some A[i, j] is stored without A[j, i]); pass "
            "symmetrize=True to count the triangles of A + A'"
        )
    L = select.tril(A, -1).new()
    C = L.mxm(L.T, semiring.plus_pair[INT64]).new(mask=L.S)
    total = C.reduce_scalar(monoid.plus[INT64]).new().value
    return 0 if total is None else int(total)
