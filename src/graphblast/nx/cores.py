"""NetworkX's k-core functions on graphblast: ``core_number`` and ``k_truss``.

Both reject self-loops as NetworkX does; the work is :func:`graphblast.algorithms.core_number`
(peeling by masked products) and :func:`graphblast.algorithms.k_truss` (LAGraph's masked
support counts).
"""

import numbers

import networkx as nx
import numpy as np

from graphblast import algorithms as gba
from graphblast import select

from .algorithms import _graph, _implements
from .convert import GraphblastGraph

__all__ = ["core_number", "k_truss"]

_SELF_LOOPS = ("Input graph has self loops which is not permitted; "
               "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")


def _no_self_loops(G):
    if select.diag(G.matrix).new().nvals:
        raise nx.NetworkXNotImplemented(_SELF_LOOPS)


@_implements()
def core_number(G):
    """Core numbers by peeling: a directed graph counts in- plus out-degree, as NetworkX."""
    G = _graph(G)
    if len(G) == 0:
        return {}
    _no_self_loops(G)
    core = gba.core_number(G.matrix, directed=G.is_directed())
    return dict(zip(G.nodes, core.to_dense().tolist()))


def _k_truss_rule(arguments):
    k = arguments.get("k")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        return f"k = {k!r} is not an integer; graphblast's k_truss takes integers"
    return True


@_implements(can_run=_k_truss_rule)
def k_truss(G, k):
    """The k-truss as a new graph of G's class: G's nodes with an edge left, the edges left,
    with the attributes that were converted (NetworkX copies ``G`` and removes the rest)."""
    G = _graph(G)
    _no_self_loops(G)
    source = G.to_networkx() if isinstance(G, GraphblastGraph) else G
    H = source.__class__()
    H.graph.update(source.graph)
    if len(G) == 0:
        return H
    rows, cols, _ = gba.k_truss(G.matrix, max(int(k), 1)).to_coo()
    rows, cols = rows.astype(np.intp), cols.astype(np.intp)
    keep = rows < cols
    kept = np.zeros(len(G), dtype=bool)
    kept[rows] = True
    H.add_nodes_from((v, source.nodes[v]) for v in G.labels(np.flatnonzero(kept)))
    H.add_edges_from((u, v, source.edges[u, v]) for u, v in
                     zip(G.labels(rows[keep]), G.labels(cols[keep])))
    return H
