"""NetworkX's ``betweenness_centrality``, ``edge_betweenness_centrality`` and
``bipartite.betweenness_centrality`` on graphblast's batched Brandes sweeps
(``graphblast.algorithms.betweenness_centrality``).

The sources are NetworkX's: every node, or ``seed.sample(list(G), k)`` with the
``random.Random`` NetworkX's ``py_random_state`` made of ``seed``, so that a seeded call picks
the same nodes as NetworkX.  graphblast sums the dependencies over those sources (ordered
pairs); the endpoints' counts come from one multi-source BFS over the same sources, and the
scaling is NetworkX's ``_rescale``, step for step.

``weight="attr"`` runs graphblast's weighted sweeps (``weighted=True``: Brandes over
Dijkstra's shortest paths, equal sums compared exactly as NetworkX compares them) on
``G.edge_matrix(attr, 1, "min")``: an edge without the attribute weighs 1 and parallel edges
of a multigraph count once, at their smallest weight, as in NetworkX's Dijkstra.  The
endpoints' counts are the BFS's (a positive weight changes no reachability).  Run in NetworkX
instead: a callable ``weight``; weights that are not all > 0 (with zero-weight edges
NetworkX's counts depend on its heap's order of equal distances); the edge betweenness of a
multigraph (NetworkX divides each edge's value among its lightest parallel edges, keyed by
edge keys, which the converted graph does not keep).
"""

import math

import numpy as np

from graphblast import algorithms as gba
from graphblast import binary
from graphblast.dtypes import FP64
from graphblast.exceptions import InvalidValue

from .algorithms import _graph, _implements, _weight_rule

__all__ = ["betweenness_centrality", "bipartite_betweenness_centrality",
           "edge_betweenness_centrality"]


def _edge_rule(arguments):
    rule = _weight_rule(arguments)
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


def _matrix(G, weight):
    """The structure (weight None) or the weights of the edges, parallel edges at their
    smallest weight, as NetworkX's Dijkstra reads them."""
    return G.matrix if weight is None else G.edge_matrix(weight, 1, "min")


def _weighted_call(algorithm, W, sources, weight):
    """``algorithm`` (weighted when ``weight`` is given) on every source or ``sources``;
    weights that are not all > 0 make NetworkX run the call (NotImplementedError)."""
    try:
        return algorithm(W, sources, normalized=False, weighted=weight is not None)
    except InvalidValue as err:
        raise NotImplementedError(f"betweenness with weight={weight!r}: {err}") from err


@_implements(can_run=_weight_rule)
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    """Shortest-path betweenness centrality of every node, as NetworkX defines it."""
    G = _graph(G, weight)
    n = len(G)
    if k == n:
        k = None  # as NetworkX: every node, the same result
    sources = _sources(G, k, seed)
    if n == 0:
        return {}
    A = G.matrix
    values = np.zeros(n)
    if sources != []:  # k=0: no sources, and NetworkX's scaling divides by zero
        values = np.asarray(_weighted_call(gba.betweenness_centrality, _matrix(G, weight),
                                           sources, weight).to_dense(fill_value=0.0),
                            dtype=np.float64)
    if endpoints and sources != []:
        values = values + _endpoint_counts(A, sources, n)
    values = _rescale(values, n, normalized=normalized, directed=G.is_directed(),
                      endpoints=endpoints, sampled=sources)
    return dict(zip(G.labels(np.arange(n)), values.tolist()))


@_implements(can_run=_edge_rule)
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """Shortest-path betweenness centrality of every edge, as NetworkX defines it."""
    G = _graph(G, weight)
    n = len(G)
    sources = _sources(G, k, seed)
    if n == 0:
        return {}
    E = G.matrix.apply(binary.second[FP64], right=0.0).new()
    if sources != []:  # k=0: no sources, and NetworkX's scaling divides by zero
        E = _weighted_call(gba.edge_betweenness_centrality, _matrix(G, weight), sources,
                           weight)
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


@_implements()
def bipartite_betweenness_centrality(G, nodes):
    """Betweenness of a bipartite graph, each side scaled by its largest possible value, as
    ``networkx.bipartite.betweenness_centrality`` (unweighted betweenness from every node,
    then NetworkX's formulas for the two sides' maxima)."""
    G = _graph(G)
    top = set(nodes)
    bottom = set(G) - top
    n, m = len(top), len(bottom)
    s, t = divmod(n - 1, m)
    bet_max_top = ((m ** 2) * ((s + 1) ** 2) + m * (s + 1) * (2 * t - s - 1)
                   - t * ((2 * s) - t + 3)) / 2.0
    p, r = divmod(m - 1, n)
    bet_max_bot = ((n ** 2) * ((p + 1) ** 2) + n * (p + 1) * (2 * r - p - 1)
                   - r * ((2 * p) - r + 3)) / 2.0
    betweenness = betweenness_centrality(G, normalized=False, weight=None)
    for node in top:
        betweenness[node] /= bet_max_top
    for node in bottom:
        betweenness[node] /= bet_max_bot
    return betweenness
