"""NetworkX's ``jaccard_coefficient`` on graphblast (:func:`graphblast.algorithms.jaccard`:
sparse products with pair-selection matrices)."""

import networkx as nx

from graphblast import algorithms as gba

from .algorithms import _graph, _implements, _row_counts
from .convert import GraphblastGraph

__all__ = ["jaccard_coefficient"]


@_implements()
def jaccard_coefficient(G, ebunch=None):
    """(u, v, p) for each pair, in ebunch's order; every non-edge by default."""
    G = _graph(G)
    if ebunch is None:
        source = G.to_networkx() if isinstance(G, GraphblastGraph) else G
        pairs = list(nx.non_edges(source))
    else:
        pairs = list(ebunch)
        for u, v in pairs:
            if u not in G:
                raise nx.NodeNotFound(f"Node {u} not in G.")
            if v not in G:
                raise nx.NodeNotFound(f"Node {v} not in G.")
    if not pairs:
        return iter(())
    u, v = ([G.id_of(pair[k]) for pair in pairs] for k in (0, 1))
    p = gba.jaccard(G.matrix, u, v).to_dense().tolist()
    # NetworkX gives the int 0 where the union is empty (both nodes without neighbours)
    lonely = _row_counts(G.matrix) == 0
    return ((a, b, 0 if lonely[i] and lonely[j] else x)
            for (a, b), i, j, x in zip(pairs, u, v, p))
