"""Betweenness centrality of edges, from the same batched Brandes sweeps as the vertices'."""

from graphblast import binary, semiring
from graphblast.dtypes import FP64

from . import betweenness

__all__ = ["edge_betweenness_centrality"]


def edge_betweenness_centrality(A, sources=None, *, k=None, normalized=True, batch=None,
                                seed=None):
    """Betweenness centrality of every edge ``A[u, v]``: ``sum over s in S, t != s of
    sigma_st(u -> v) / sigma_st`` (the sources as in :func:`betweenness_centrality`), each
    direction of an undirected edge on its own; ``normalized=True`` divides by
    ``len(S) (n - 1)`` (NetworkX's rule for edges).  From the same sweeps: the edges from
    level ``d - 1`` to level ``d`` gain ``sigma' (+.x) W`` under the structure of ``A``.
    Returns an FP64 Matrix of ``A``'s structure."""
    n, sources, size = betweenness._arguments(A, sources, k, batch, seed,
                                              "edge_betweenness_centrality")
    E = A.apply(binary.second[FP64], right=0.0).new()
    for first in range(0, len(sources), size):
        for _, W, sigma in betweenness._sweeps(A, sources[first:first + size], n):
            E(binary.plus) << sigma.T.mxm(W, semiring.plus_times[FP64]).new(mask=A.S)
    if normalized and n > 1:
        E << E.apply(binary.truediv, right=float(len(sources) * (n - 1)))
    return E
