"""Betweenness centrality of edges, from the same batched Brandes sweeps as the vertices'."""

from graphblast import Vector, binary, semiring
from graphblast.dtypes import FP64

from . import betweenness, betweenness_weighted

__all__ = ["edge_betweenness_centrality"]


def edge_betweenness_centrality(A, sources=None, *, k=None, normalized=True, batch=None,
                                seed=None, weighted=False):
    """Betweenness centrality of every edge ``A[u, v]``: ``sum over s in S, t != s of
    sigma_st(u -> v) / sigma_st`` (the sources as in :func:`betweenness_centrality`), each
    direction of an undirected edge on its own; ``normalized=True`` divides by
    ``len(S) (n - 1)`` (NetworkX's rule for edges).  From the same sweeps: the edges from
    level ``d - 1`` to level ``d`` gain ``sigma' (+.x) W`` under the structure of ``A``.
    ``weighted=True``: over the shortest paths by weight, ``A``'s values (> 0), as
    :func:`betweenness_centrality`'s; an edge ``e = (u, v)`` gains ``sigma(u) X(e)`` of
    :func:`betweenness_weighted.sweeps`, moved from the edge space to ``A``'s entries by
    ``out plus.second diag(e) plus.first head'``.
    Returns an FP64 Matrix of ``A``'s structure."""
    n, sources, size = betweenness._arguments(A, sources, k, batch, seed,
                                              "edge_betweenness_centrality", weighted)
    E = A.apply(binary.second[FP64], right=0.0).new()
    if weighted:  # the edges' values in the edge space first, over every batch
        e = Vector(FP64, A.nvals, device=A.device)
        for out, head, X, sigma, _, _ in betweenness_weighted.sweeps(
                A, sources, size, "edge_betweenness_centrality"):
            X << X.ewise_mult(sigma.mxm(out, semiring.plus_first).new(mask=X.S), binary.times)
            e(binary.plus) << X.reduce_columnwise()
        E(binary.plus) << out.mxm(e.diag(), semiring.plus_second).new().mxm(
            head.T, semiring.plus_first)
    else:
        for first in range(0, len(sources), size):
            for _, W, sigma in betweenness._sweeps(A, sources[first:first + size], n):
                E(binary.plus) << sigma.T.mxm(W, semiring.plus_times[FP64]).new(mask=A.S)
    if normalized and n > 1:
        E << E.apply(binary.truediv, right=float(len(sources) * (n - 1)))
    return E
