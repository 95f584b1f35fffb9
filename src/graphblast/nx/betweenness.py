"""NetworkX's ``betweenness_centrality`` and ``edge_betweenness_centrality`` on graphblast's
batched Brandes sweeps (``graphblast.algorithms.betweenness_centrality``).

The sources are NetworkX's: every node, or ``seed.sample(list(G), k)`` with the
``random.Random`` NetworkX's ``py_random_state`` made of ``seed``, so that a seeded call picks
the same nodes as NetworkX.  graphblast sums the dependencies over those sources (ordered
pairs); the endpoints' counts come from one multi-source BFS over the same sources, and the
scaling is NetworkX's ``_rescale``, step for step.  Weighted betweenness (Dijkstra's paths)
and the edge betweenness of a multigraph (NetworkX divides each edge's value among its
parallel edges) run in NetworkX.
"""

import math

import numpy as np

from graphblast import algorithms as gba
from graphblast import binary
from graphblast.dtypes import FP64

from .algorithms import _graph, _implements

__all__ = ["betweenness_centrality", "edge_betweenness_centrality"]


def _unweighted_rule(arguments):
    if arguments.get("weight") is not None:
        return ("weighted betweenness follows Dijkstra's shortest paths; graphblast's "
                "counts hops only (weight=None)")
    return True


def _edge_rule(arguments):
    rule = _unweighted_rule(arguments)
    G = arguments.get("G")
    if rule is True and G is not None and G.is_multigraph():
        return ("a multigraph's edge betweenness is divided among its parallel edges by "
                "their weights; graphblast merges parallel edges")
    return rule


def _sources(G, k, seed):
    """Matrix ids of NetworkX's sources (None: every node) and whether they were sampled."""
    if k is None:
        return None
    if not hasattr(seed, "sample"):  # a direct call: make the Random py_random_state makes
        import networkx as nx

        seed = nx.utils.create_py_random_state(seed)
    return [G.id_of(v) for v in seed.sample(list(G), k)]


def _rescale(values, n, *, normalized, directed, endpoints, sampled):
    """NetworkX's ``_rescale`` on an array: ``sampled`` the sources' ids, or None."""
    N = n if endpoints else n - 1
    if N < 2:
        return values
    k = None if sampled is None else len(sampled)
    K = N if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * correction)
        return values * scale if scale != 1 else values
    if normalized:
        source, other = (1 / ((K - 1) * (N - 1)) if K > 1 else math.nan), 1 / (K * (N - 1))
    else:
        source = N / ((K - 1) * correction) if K > 1 else math.nan
        other = N / (K * correction)
    scale = np.full(n, other)
    scale[np.asarray(sampled, dtype=np.intp)] = source
    return values * scale


def _endpoint_counts(A, sources, n):
    """NetworkX's endpoint terms: each source adds the nodes it reaches (itself excluded) to
    its own value, and 1 to each of them."""
    ids = list(range(n)) if sources is None else sources
    rows, cols, _ = (np.asarray(x) for x in gba.bfs(A, ids).to_coo())
    counts = np.bincount(cols, minlength=n).astype(np.float64)
    np.subtract.at(counts, np.asarray(ids, dtype=np.intp), 1.0)
    np.add.at(counts, np.asarray(ids, dtype=np.intp), np.bincount(rows, minlength=len(ids)) - 1)
    return counts


@_implements(can_run=_unweighted_rule)
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    """Shortest-path betweenness centrality of every node, as NetworkX defines it."""
    G = _graph(G)
    n = len(G)
    if k == n:
        k = None  # as NetworkX: every node, the same result
    sources = _sources(G, k, seed)
    if n == 0:
        return {}
    A = G.matrix
    values = np.zeros(n)
    if sources != []:  # k=0: no sources, and NetworkX's scaling divides by zero
        values = np.asarray(gba.betweenness_centrality(A, sources, normalized=False)
                            .to_dense(fill_value=0.0), dtype=np.float64)
    if endpoints and sources != []:
        values = values + _endpoint_counts(A, sources, n)
    values = _rescale(values, n, normalized=normalized, directed=G.is_directed(),
                      endpoints=endpoints, sampled=sources)
    return dict(zip(G.labels(np.arange(n)), values.tolist()))


@_implements(can_run=_edge_rule)
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """Shortest-path betweenness centrality of every edge, as NetworkX defines it."""
    G = _graph(G)
    n = len(G)
    sources = _sources(G, k, seed)
    if n == 0:
        return {}
    E = G.matrix.apply(binary.second[FP64], right=0.0).new()
    if sources != []:  # k=0: no sources, and NetworkX's scaling divides by zero
        E = gba.edge_betweenness_centrality(G.matrix, sources, normalized=False)
    rows, cols, vals = (np.asarray(x) for x in E.to_coo())
    if not G.is_directed():  # one value per edge, both directions' paths, keyed (u, v) u <= v
        forward = {(i, j): x for i, j, x in zip(rows.tolist(), cols.tolist(), vals.tolist())}
        keep = rows <= cols
        rows, cols = rows[keep], cols[keep]
        vals = np.array([forward[i, j] + (forward[j, i] if i != j else 0.0)
                         for i, j in zip(rows.tolist(), cols.tolist())], dtype=np.float64)
    vals = _rescale(vals, n, normalized=normalized, directed=G.is_directed(), endpoints=True,
                    sampled=sources)
    return dict(zip(zip(G.labels(rows), G.labels(cols)), vals.tolist()))
