"""Local clustering coefficient, LDBC Graphalytics' definition (LAGraph's LAGraph_lcc)."""

from graphblast import Vector, binary, monoid, select, semiring
from graphblast.dtypes import FP64

from . import _validate
from .triangle_count import _degree_order

__all__ = ["local_clustering_coefficient"]


def local_clustering_coefficient(A):
    """LDBC Graphalytics' local clustering coefficient (LCC) of every vertex.

    Definition (LDBC Graphalytics, section 2.3.5): the neighbours ``N(v)`` of ``v`` are its
    in- and out-neighbours other than ``v``, ``k = |N(v)|``; the LCC is the number of edges
    ``u -> w`` with ``u`` and ``w`` in ``N(v)``, divided by ``k (k - 1)``, and 0 when
    ``k < 2``.  A symmetric ``A`` is an undirected graph, where each edge counts in both
    directions: the usual ``2 t / (k (k - 1))`` with ``t`` the triangles at ``v``
    (NetworkX's ``clustering``).  Self-loops are ignored; values are never read.

    With ``S`` the structure of ``A + A'`` and ``D`` that of ``A``, both without the
    diagonal, the edges among ``N(v)`` ending at ``w`` are ``(S D)[v, w]``, needed only where
    ``w`` is in ``N(v)``: one product masked by ``S`` (LAGraph's formulation)::

        T<S> = S plus.pair D;   lcc = rowsum(T) / (k (k - 1)),   k = rowcount(S)

    On an undirected graph (``A`` symmetric) ``rowsum(T)`` is twice the triangles at ``v``,
    counted from the strictly lower and upper triangles ``L`` and ``U`` of the graph
    renumbered by decreasing degree (``triangle_count``'s rule and permutation ``p``: rows
    of ``L`` then hold at most ``sqrt(2m)`` entries), each triangle ``k < j < i`` once::

        C<L> = L plus.pair L'     # C[i, j]: common neighbours below both: for i and j
        M<U> = U plus.pair L'     # M[k, i]: common neighbours between: for k
        t = rowsum(C) + colsum(C) + rowsum(M), scattered back to A's numbering by p

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix, ``A[i, j]`` the edge ``i -> j``.

    Returns
    -------
    Vector
        FP64 coefficient of every vertex (full).

    Notes
    -----
    Cost: the masked products compute one sorted intersection of two rows per mask entry:
    on an undirected graph ``m / 2`` over rows of ``L`` and ``m / 2`` of a row of ``U`` with
    one of ``L`` (twice the work of counting the triangles), plus ``O(m)`` for ``S``, ``L``,
    ``U``, the permutation and the column sums (a transpose of ``C``); on a directed one,
    ``m`` over full rows.
    """
    n = _validate.square_matrix(A, "local_clustering_coefficient")
    D = select.offdiag(A).new(FP64).apply(binary.second, 1.0).new()
    S = _validate.undirected(D)
    if S is D:  # undirected: 2 t(v), each triangle k < j < i of the ordered graph at its corners
        p = _degree_order(S, n) if n else None
        P = S if p is None else S[p, p].new()
        L, U = select.tril(P, -1).new(), select.triu(P, 1).new()
        C = L.mxm(L.T, semiring.plus_pair[FP64]).new(mask=L.S)
        t = C.reduce_rowwise(monoid.plus[FP64]).new()                   # for i
        t(binary.plus) << C.reduce_columnwise(monoid.plus[FP64])        # for j
        t(binary.plus) << U.mxm(L.T, semiring.plus_pair[FP64]).new(mask=U.S).reduce_rowwise(
            monoid.plus[FP64])                                          # for k
        closed = t if p is None else Vector(FP64, n, device=A.device)
        if p is not None:  # back to A's numbering: t's entry r belongs to vertex p[r]
            closed(binary.plus)[p[:t.size].new()] << t
        closed = closed.apply(binary.times, right=2.0).new()
    else:
        T = S.mxm(D, semiring.plus_pair[FP64]).new(mask=S.S)
        closed = T.reduce_rowwise(monoid.plus[FP64]).new()
    k = S.reduce_rowwise(monoid.plus[FP64]).new()
    pairs = k.ewise_mult(k.apply(binary.minus, right=1.0).new(), binary.times).new()
    lcc = Vector.from_scalar(0.0, n, FP64, device=A.device)
    lcc(closed.S) << closed.ewise_mult(pairs, binary.truediv)
    return lcc
