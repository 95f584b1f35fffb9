"""NetworkX's ``maximal_independent_set`` on graphblast (Luby's rounds,
:func:`graphblast.algorithms.maximal_independent_set`).

NetworkX adds random available nodes one at a time; graphblast adds every node whose random
score beats its neighbours' at once.  The first node is drawn as NetworkX draws it (when
``nodes`` is not given), and the scores come from ``seed`` too, so a seed gives the same set
every time; the set is a maximal independent set holding ``nodes``, which is NetworkX's
contract, though not the set NetworkX's own order would give.
"""

import random

import networkx as nx

from graphblast import Vector, semiring
from graphblast import algorithms as gba

from .algorithms import _graph, _implements

__all__ = ["maximal_independent_set"]


@_implements()
def maximal_independent_set(G, nodes=None, seed=None):
    """A maximal independent set holding ``nodes`` (a random node when not given)."""
    G = _graph(G)
    seed = seed if isinstance(seed, random.Random) else random.Random(seed)
    nodes = {seed.choice(list(G.nodes))} if not nodes else set(nodes)
    if not all(v in G for v in nodes):
        raise nx.NetworkXUnfeasible(f"{nodes} is not a subset of the nodes of G")
    ids = [G.id_of(v) for v in nodes]
    A = G.matrix
    around = A.mxv(Vector.from_coo(ids, True, size=len(G), device=G.device),
                   semiring.any_pair).new()
    if any(around.get(i) is not None for i in ids):  # a self-loop counts, as in NetworkX
        raise nx.NetworkXUnfeasible(f"{nodes} is not an independent set of G")
    include = Vector.from_coo(ids, True, size=len(G), device=G.device)
    chosen = gba.maximal_independent_set(A, seed=seed.getrandbits(32), include=include)
    first = list(nodes)
    rest = set(G.labels(chosen.to_coo()[0].astype(int))) - nodes
    return first + sorted(rest, key=G.id_of)
