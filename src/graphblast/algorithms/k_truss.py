"""The k-truss of an undirected graph by masked support counts (LAGraph's LAGraph_KTruss)."""

from graphblast import binary, select, semiring
from graphblast.dtypes import INT64

from . import _validate

__all__ = ["k_truss"]


def k_truss(A, k, *, symmetrize=False):
    """The edges of the k-truss of the undirected graph ``A``, with their support.

    Definition: the k-truss is the largest subgraph in which every edge lies in at least
    ``k - 2`` triangles of the subgraph (NetworkX's and LAGraph's definition).  The support
    of an edge is the number of those triangles.  Self-loops are ignored; every edge of the
    graph is in the 2-truss (and the 1-truss).

    LAGraph's loop: the support of every remaining edge is a product masked by the edges
    themselves, and the edges short of ``k - 2`` leave, until none does; the product is
    masked by the lower triangle only (each edge once, half the intersections), and the
    edges kept are mirrored::

        C = offdiag(A)
        repeat:  L<tril(C)> = C plus.pair C;  L = select(L >= k - 2);  C = L + L'
        until nvals(C) is unchanged

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix with a symmetric structure; values are ignored.
    k : int
        At least 1.
    symmetrize : bool, default False
        Use ``A + A'`` (the undirected graph under a directed ``A``) instead of rejecting a
        non-symmetric structure.

    Returns
    -------
    Matrix
        INT64, symmetric: ``C[i, j]`` is the support of the edge ``{i, j}`` of the k-truss;
        an edge outside the k-truss has no entry.  Vertices left without an edge are not in
        the k-truss (NetworkX's ``k_truss`` drops them).

    Raises
    ------
    TypeError, DimensionMismatch, InvalidValue
        For a non-Matrix or non-square ``A``, a bad ``k``, or a non-symmetric structure
        without ``symmetrize=True``.

    Notes
    -----
    Cost: each round is one masked product, an intersection of two sorted rows per remaining
    edge (``O(m sqrt(m))`` at most), a select and a transpose of the edges kept; the rounds
    stop as soon as one removes nothing, and each round after the first removes at least
    one edge.
    """
    _validate.square_matrix(A, "k_truss")
    k = _validate.positive_int(k, "k", "k_truss")
    symmetrize = _validate.flag(symmetrize, "symmetrize", "k_truss")
    S = _validate.undirected(A) if symmetrize else _validate.symmetric(A, "k_truss")
    C = select.offdiag(S).new(INT64)
    count = C.nvals
    while True:
        L = select.tril(C, -1).new()
        support = C.mxm(C, semiring.plus_pair[INT64]).new(mask=L.S)
        if k <= 2:  # no edge leaves; one with no triangle has support 0, not no entry
            support = L.apply(binary.times, 0).new().ewise_add(support, binary.plus).new()
        L = support.select(select.valuege, k - 2).new()
        C = L.ewise_add(L.T, binary.first).new()
        if C.nvals == count:
            return C
        count = C.nvals
