"""Betweenness centrality of vertices by batched Brandes sweeps (LAGraph's LAGr_Betweenness):
many sources at once, one masked matrix product a level."""

from graphblast import Matrix, Vector, binary, monoid, semiring, unary
from graphblast.dtypes import BOOL, FP64

from . import _sources, _validate, betweenness_weighted

__all__ = ["betweenness_centrality"]


def betweenness_centrality(A, sources=None, *, k=None, normalized=True, batch=None,
                           seed=None, weighted=False):
    """Betweenness centrality of every vertex, exact or from sampled sources.

    Definition: for the sources ``S`` (every vertex, the ``sources`` given, or ``k``
    vertices sampled as NetworkX samples them: ``random.Random(seed).sample(range(n), k)``),
    ``bc(v) = sum over s in S, t != s, v of sigma_st(v) / sigma_st``, where ``sigma_st`` is
    the number of shortest paths from ``s`` to ``t`` and ``sigma_st(v)`` those through ``v``
    (Brandes' dependencies ``delta_s(v)``, summed).  Paths are counted over ordered pairs, so
    an undirected graph's (symmetric ``A``) raw values are twice NetworkX's unnormalized
    ones.  ``normalized=True`` divides ``bc(v)`` by ``(n - 2)`` times the number of sources
    other than ``v`` (``(n - 1)(n - 2)`` when exact): NetworkX's normalization, exact or
    sampled.  By default the graph is unweighted: ``A``'s values are ignored.

    ``weighted=True``: shortest paths by weight, NetworkX's ``weight=`` betweenness (Brandes
    with Dijkstra), ``A[u, v]`` the weight of the edge ``u -> v``; weights must be positive
    and finite (InvalidValue otherwise) and are summed in FP64; two paths are equally
    short when their sums are equal, compared exactly, as NetworkX compares them.  The
    sweeps run over ``batch x m`` matrices (:func:`betweenness_weighted.sweeps`), so the
    default batch keeps ``batch * max(n, m)`` within the batch budget.

    Each batch of sources (``batch`` at a time) runs two sweeps over ns x n matrices:
    forward, the path counts of each level, ``frontier<!visited, replace> = frontier
    plus.first A`` (``visited``: the pairs reached, a structure); backward, level by level,
    ``W = (1 + delta) / sigma`` on level ``d`` and
    ``delta<level d-1> = (W plus.first A') .* sigma``, computed as ``P = W plus.first A'``
    under level d-1, ``delta = P .* sigma`` and the next ``W = P + 1 / sigma``.  The
    backend chooses push or pull for each product (``plan.mxm_direction``;
    ``plan.mxm_bitmap_direction`` over a GPU's bitmaps).

    Returns an FP64 Vector with an entry for every vertex.  Raises IndexOutOfBound for a
    source outside ``0 .. n-1`` and InvalidValue for an empty source list, ``k`` outside
    ``1 .. n`` or, weighted, a weight that is not > 0.
    """
    n, sources, size = _arguments(A, sources, k, batch, seed, "betweenness_centrality", weighted)
    bc = Vector.from_scalar(0.0, n, FP64, device=A.device)
    deltas = (betweenness_weighted.dependencies(A, sources, size) if weighted else
              (delta for first in range(0, len(sources), size)
               for delta, _, _ in _sweeps(A, sources[first:first + size], n) if delta is not None))
    for delta in deltas:
        bc(binary.plus) << delta.reduce_columnwise(monoid.plus)
    if normalized and n > 2:
        repeats = Vector.from_coo(sources, [1.0] * len(sources), FP64, size=n,
                                  dup_op=binary.plus, device=A.device)
        others = Vector.from_scalar(float(len(sources)), n, FP64, device=A.device)
        others(binary.minus) << repeats
        bc << bc.ewise_mult(others.apply(binary.times, right=float(n - 2)), binary.truediv)
    return bc


def _arguments(A, sources, k, batch, seed, name, weighted):
    """``n``, the sources and the batch size (a weighted batch's matrices are batch x m)."""
    n = _validate.square_matrix(A, name)
    sources = _sources.sampled_sources(sources, k, seed, n, name)
    width = max(n, A.nvals) if _validate.flag(weighted, "weighted", name) else n
    return n, sources, _sources.batch_size(batch, len(sources), width, name)


def _sweeps(A, batch, n):
    """For one batch of sources, deepest level first: (delta on level d-1, W on level d,
    sigma on level d-1), level -1 being the sources themselves (delta None there).  With
    ``P = W plus.first A'`` on level d-1, ``delta = P .* sigma`` there and the next ``W =
    (1 + delta) / sigma = P + 1 / sigma``: three passes over the batch a level besides the
    product."""
    ns, plus_first = len(batch), semiring.plus_first[FP64]
    frontier = Matrix.from_coo(range(ns), batch, 1.0, FP64, nrows=ns, ncols=n,
                               device=A.device)
    # the pairs reached so far, a structure (the path counts are sigmas' levels)
    visited, sigmas = frontier.apply(unary.one[BOOL]).new(), [frontier]
    while frontier.nvals:
        frontier = frontier.mxm(A, plus_first).new(mask=~visited.S)  # a new level's matrix
        visited(frontier.S) << True
        sigmas.append(frontier)
    P = None
    for d in range(len(sigmas) - 2, 0, -1):
        W = sigmas[d].apply(unary.minv).new()
        if P is not None:
            W(binary.plus) << P
        delta = None
        if d > 1:  # the sources' own dependencies are not counted
            P = W.mxm(A.T, plus_first).new(mask=sigmas[d - 1].S)
            delta = P.ewise_mult(sigmas[d - 1], binary.times).new()
        yield delta, W, sigmas[d - 1]
