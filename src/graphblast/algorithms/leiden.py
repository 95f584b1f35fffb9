"""Leiden modularity communities: parallel moves, a refinement that keeps every community
connected, and aggregation of the refined partition."""

from graphblast import Matrix, binary, indexunary, monoid, select, semiring
from graphblast.dtypes import BOOL, FP64, INT64

from . import _modularity, _moves, _rows
from .connected_components import connected_components

__all__ = ["leiden"]


def leiden(A, *, resolution=1.0, threshold=1e-7, max_level=None, max_iter=100,
           weighted=True):
    """Communities of the undirected graph ``A`` by the Leiden method (Traag, Waltman and
    van Eck), each of them connected.

    Definition: the partition sought maximizes Newman's modularity with resolution ``g``
    (see ``louvain``).  Each level moves vertices as Louvain does (all at once, with the
    up/down guard), then refines: inside each community every vertex joins the neighbour
    (in the same community) of largest positive gain ``A[i, j] - g k_i k_j / 2m``, and the
    connected pieces of those joins are the refined communities; the refined communities
    become the next level's vertices, starting in the community they were refined from::

        E = edges of offdiag(A) inside a community
        join[i] = argmax_j (E - g k k' / 2m)[i, j], where positive
        refined = connected_components(i -- join[i])
        A = P_r' A P_r;  start = comm of each refined community

    A refined community is connected and lies inside one community; a final split of every
    community into its connected pieces (never lowering modularity) makes each returned
    community connected, as Leiden guarantees.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix with a symmetric structure; values are the edge weights.
    resolution, threshold, max_level, max_iter, weighted
        As for ``louvain``.

    Returns
    -------
    Vector
        INT64 community of every vertex (full), labelled by its smallest vertex id.

    Notes
    -----
    Cost per level: Louvain's moving steps, plus the refinement (two ``O(m)`` products
    for ``E``, the gains, a row argmax, connected components of the joins) and the
    aggregation; the final split is one connected-components run over the edges inside
    communities.
    """
    n, W, two_m, resolution, threshold, max_iter = _modularity.arguments(
        A, resolution, threshold, max_iter, weighted, "leiden")
    member = start = _modularity.ids(n, A.device)
    if not two_m:
        return member
    last = _modularity.modularity(W, start, resolution, two_m)
    for _ in range(max_level or n):
        comm, q = _moves.move(W, start, resolution, threshold, max_iter, two_m)
        if q - last < threshold:
            break
        last, k = q, W.reduce_rowwise(monoid.plus[FP64]).new()
        E = _same_ends(select.offdiag(W).new(), comm)
        cost = Matrix.from_diag(k.apply(binary.times, right=resolution / two_m).new()).mxm(
            E, semiring.max_first).new().ewise_mult(
            E.mxm(Matrix.from_diag(k), semiring.max_second).new(), binary.times).new()
        gain = E.ewise_mult(cost, binary.minus).new().select(select.valuegt, 0.0).new()
        join, _ = _rows.argmax(gain)
        refined = connected_components(Matrix.from_coo(
            join.apply(indexunary.rowindex).new(), join, True, BOOL, nrows=W.nrows,
            ncols=W.nrows))
        W, new, S = _modularity.contract(W, refined)
        first = _modularity.membership(comm, new).reduce_columnwise(monoid.min).new()
        start = first[comm].new().vxm(S, semiring.min_first[INT64]).new()
        member = new[member].new()
    final = start[member].new()
    return connected_components(_same_ends(A.dup(BOOL), final))


def _same_ends(A, comm):
    """The edges of ``A`` whose two ends have the same ``comm``."""
    D = Matrix.from_diag(comm)
    E = D.mxm(A, semiring.max_first).new().ewise_mult(
        A.mxm(D, semiring.max_second).new(), binary.eq).new()
    return A.dup(mask=E.select(select.valueeq, True).new().S)
