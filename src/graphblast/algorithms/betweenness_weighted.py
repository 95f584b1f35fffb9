"""Weighted betweenness centrality: Brandes' dependencies over Dijkstra's shortest paths
(NetworkX's weighted betweenness), many sources at once, in the edge space of ``A``."""

import numpy as np

from graphblast import Matrix, binary, select, semiring, unary
from graphblast.dtypes import FP64

from . import _validate

__all__ = ["dependencies", "sweeps"]


def sweeps(A, sources, size, algorithm):
    """Brandes' sweeps over the shortest paths by weight, ``A[u, v]`` the weight (> 0) of
    the edge ``u -> v``, for ``sources`` ``size`` at a time: yields, per batch, the
    incidence matrices ``out`` and ``head`` and the batch's ``X``, ``sigma``, ``acc`` and
    sources ``start`` (a batch x n matrix of zeros on them), defined below.

    The shortest-path DAG of a source differs from source to source, so the sweeps run over
    ``batch x m`` matrices, one column an edge ``e = (u, v)``, through the incidence matrices
    ``out[u, e] = w(e)`` and ``head[v, e] = 1``:

    - distances ``D`` (``batch x n``), Bellman-Ford's rounds for all the batch's sources:
      ``T = F min.+ A``, ``F = T<!(T >= D)>``, ``D(min) << T``;
    - the DAG's edges ``tight = (D min.+ out) == (D min.first head)``: ``d(u) + w(e) ==
      d(v)``, the sum taken as the relaxation took it (exact, as NetworkX's own test of
      equal paths ``dist + w == seen[v]``);
    - path counts ``sigma`` in topological waves (Kahn's): the vertices whose DAG in-edges
      have all been counted push ``sigma`` along their tight out-edges;
    - the waves backwards: ``W = 1 / sigma + acc`` on a wave, ``X<tight>(+) = W plus.first
      head`` (each tight edge's head value), ``acc(+) << X_wave plus.first out'``.  A
      vertex's dependency is ``sigma .* acc`` (``delta(v)``), an edge's ``sigma(u) X(e)``.
    """
    _validate.positive_weights(A, algorithm)
    rows, cols, w = A.to_coo(FP64)
    n, m = A.nrows, len(w)
    out = Matrix.from_coo(rows, np.arange(m), w, FP64, nrows=n, ncols=m, device=A.device)
    head = Matrix.from_coo(cols, np.arange(m), 1.0, FP64, nrows=n, ncols=m, device=A.device)
    for first in range(0, len(sources), size):
        yield (out, head) + _sweep(A, sources[first:first + size], out, head)


def dependencies(A, sources, size):
    """Each batch's vertex dependencies ``sigma .* acc`` (the sources' own left out)."""
    for _, _, _, sigma, acc, start in sweeps(A, sources, size, "betweenness_centrality"):
        yield sigma.ewise_mult(acc, binary.times).new(mask=~start.S)


def _sweep(A, batch, out, head):
    """One batch: ``X``, ``sigma``, ``acc`` and the sources."""
    ns, n, plus_first, plus_pair = len(batch), A.nrows, semiring.plus_first, semiring.plus_pair
    start = Matrix.from_coo(range(ns), batch, 0.0, FP64, nrows=ns, ncols=n, device=A.device)
    D = frontier = start
    while frontier.nvals:  # Bellman-Ford
        T = frontier.mxm(A, semiring.min_plus[FP64]).new()
        frontier = T.dup(mask=~T.ewise_mult(D, binary.ge).new().V)
        D = D.ewise_add(T, binary.min).new()
    tight = D.mxm(out, semiring.min_plus).new().ewise_mult(
        D.mxm(head, semiring.min_first).new(), binary.eq).new().select(select.valueeq, True).new()
    left = tight.mxm(head.T, plus_pair[FP64]).new()  # DAG in-edges not counted yet
    sigma = frontier = start.apply(unary.one).new()
    waves = []
    while frontier.nvals:  # Kahn's waves
        P = frontier.mxm(out, plus_first).new(mask=tight.S)  # sigma(u) on the wave's edges
        sigma(binary.plus) << P.mxm(head.T, plus_first)
        counted = P.mxm(head.T, plus_pair[FP64]).new()
        left(binary.minus) << counted
        frontier = sigma.dup(mask=left.select(select.valueeq, 0).new(mask=counted.S).S)
        waves.append(frontier)
    acc, X = Matrix(FP64, ns, n, device=A.device), Matrix(FP64, ns, out.ncols, device=A.device)
    for wave in reversed(waves):
        W = acc.ewise_add(wave.apply(unary.minv), binary.plus).new(mask=wave.S)
        Xw = W.mxm(head, plus_first).new(mask=tight.S)
        acc(binary.plus) << Xw.mxm(out.T, plus_first)
        X(binary.plus) << Xw
    return X, sigma, acc, start
