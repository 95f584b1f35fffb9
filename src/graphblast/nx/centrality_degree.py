"""NetworkX's degree centralities: each node's degree over ``n - 1``, the degrees summed
over the rows (and columns) of the graphblast adjacency, parallel edges counted."""

from .algorithms import _graph, _implements
from .structure import _degrees

__all__ = []


def _centrality(G, direction):
    G = _graph(G)
    n = len(G)
    if n <= 1:
        return dict.fromkeys(G.nodes, 1)
    s = 1.0 / (n - 1.0)
    return dict(zip(G.nodes, (_degrees(G, direction) * s).tolist()))


@_implements()
def degree_centrality(G):
    """``G.degree(v) / (n - 1)`` for every node."""
    return _centrality(G, "all")


@_implements()
def in_degree_centrality(G):
    """``G.in_degree(v) / (n - 1)`` for every node of a directed graph."""
    return _centrality(G, "in")


@_implements()
def out_degree_centrality(G):
    """``G.out_degree(v) / (n - 1)`` for every node of a directed graph."""
    return _centrality(G, "out")
