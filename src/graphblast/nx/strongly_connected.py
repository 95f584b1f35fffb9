"""NetworkX's strongly connected components on graphblast: trimming, forward coloring and
a backward search per round (:func:`graphblast.algorithms.strongly_connected_components`)."""

import networkx as nx
import numpy as np

from graphblast import algorithms as gba

from .algorithms import _graph, _implements

__all__ = ["strongly_connected_components", "number_strongly_connected_components",
           "is_strongly_connected"]


def _labels(G):
    return G.derived("scc", lambda: gba.strongly_connected_components(G.matrix)).to_dense()


@_implements()
def strongly_connected_components(G):
    """The components as sets, in the order of their first node (NetworkX promises no
    order)."""
    G = _graph(G)
    labels = _labels(G)
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    groups = sorted(np.split(order, bounds), key=lambda g: g[0]) if len(G) else []
    return (set(G.labels(group)) for group in groups)


@_implements()
def number_strongly_connected_components(G):
    G = _graph(G)
    labels = _labels(G)
    return int(np.count_nonzero(labels == np.arange(labels.size)))


@_implements()
def is_strongly_connected(G):
    G = _graph(G)
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept(
            """Connectivity is undefined for the null graph.""")
    return bool((_labels(G) == 0).all())
