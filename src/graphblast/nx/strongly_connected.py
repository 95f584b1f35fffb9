"""NetworkX's strongly connected components on graphblast: trimming, forward coloring and
a backward search per round (:func:`graphblast.algorithms.strongly_connected_components`)."""

import networkx as nx
import numpy as np

from graphblast import Matrix, Vector, select, semiring
from graphblast import algorithms as gba
from graphblast.dtypes import INT64

from .algorithms import _graph, _implements

__all__ = ["strongly_connected_components", "number_strongly_connected_components",
           "is_strongly_connected"]


def _labels(G):
    return G.derived("scc", lambda: gba.strongly_connected_components(G.matrix)).to_dense()


def _heights(G, labels):
    """Each component's height in the condensation (0 for a component no edge leaves, else
    one more than the highest it reaches), as a NumPy array indexed by label: sinks are
    peeled off the condensation ``C = P' A P`` one layer per round."""
    n = len(G)
    P = Matrix.from_coo(np.arange(n), labels, True, nrows=n, ncols=n, device=G.device)
    C = P.T.mxm(G.matrix.mxm(P, semiring.any_pair).new(), semiring.any_pair).new()
    C = select.offdiag(C).new()
    left = Vector.from_coo(np.unique(labels), True, size=n, device=G.device)
    height, level = Vector(INT64, n, device=G.device), 0
    while left.nvals:
        sinks = left.dup(mask=~C.mxv(left, semiring.any_pair).new().S)
        height(sinks.S) << level
        left, level = left.dup(mask=~sinks.S), level + 1
    return height.to_dense(fill_value=0)


@_implements()
def strongly_connected_components(G):
    """The components as sets, sinks of the condensation first (a reverse topological order,
    as Tarjan's algorithm, NetworkX's, yields them), then by first node."""
    G = _graph(G)
    if len(G) == 0:
        return iter(())
    labels = _labels(G)
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    height = _heights(G, labels)
    groups = sorted(np.split(order, bounds), key=lambda g: (height[labels[g[0]]], g[0]))
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
