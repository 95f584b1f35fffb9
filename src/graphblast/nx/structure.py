"""NetworkX's structure tests and counts: trees and forests, isolates, self-loops and
reciprocity, from degrees and connected components of the graphblast matrices.

Degrees count parallel edges (the multiplicities the conversion keeps) and, in an undirected
graph, a self-loop twice, as ``G.degree`` does.  A forest is a graph whose every (weakly)
connected component has one edge fewer than nodes: the edges are counted per component
label (FastSV) on the host, from the stored entries.
"""

import networkx as nx
import numpy as np

from graphblast import binary, monoid, select, unary
from graphblast.dtypes import INT64

from .algorithms import _component_labels, _dense, _graph, _implements, _nbunch_ids

__all__ = []


def _degrees(G, direction="all"):
    """``G.degree`` (``G.in_degree``, ``G.out_degree``) of every node, as an INT64 array."""
    ones = G.edge_matrix(None, 1, "sum")  # an entry per node pair: its number of edges
    plus = monoid.plus[INT64]
    out = _dense(ones.reduce_rowwise(plus).new()) if direction != "in" else 0
    if not G.is_directed():
        # a self-loop adds 2 to its node's degree; the row sum counted it once
        return out + _dense(select.diag(ones).new().reduce_rowwise(plus).new())
    inn = _dense(ones.reduce_columnwise(plus).new()) if direction != "out" else 0
    return out + inn


def _not_empty(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")


@_implements()
def is_tree(G):
    """Whether the graph is connected (weakly, if directed) with one edge fewer than nodes."""
    G = _graph(G)
    _not_empty(G)
    return len(G) - 1 == G.number_of_edges() and bool(np.all(_component_labels(G) == 0))


def _forest(G):
    _not_empty(G)
    labels = _component_labels(G)
    rows, cols = G._entry_rows(), G._entry_cols()
    entries = np.bincount(labels[rows], minlength=len(G))
    if not G.is_directed():
        # an undirected edge is stored in both directions, a self-loop once
        entries = (entries + np.bincount(labels[rows[rows == cols]], minlength=len(G))) // 2
    nodes = np.bincount(labels, minlength=len(G))
    present = nodes > 0
    return bool(np.all(nodes[present] - 1 == entries[present]))


@_implements()
def is_forest(G):
    """Whether every (weakly) connected component is a tree."""
    return _forest(_graph(G))


@_implements()
def is_branching(G):
    """Whether the directed graph is a forest with in-degrees at most 1."""
    G = _graph(G)
    return _forest(G) and int(_degrees(G, "in").max()) <= 1


@_implements()
def is_arborescence(G):
    """Whether the directed graph is a tree with in-degrees at most 1."""
    G = _graph(G)
    return is_tree(G) and int(_degrees(G, "in").max()) <= 1


@_implements()
def isolates(G):
    """The nodes without edges, in node order (an iterator)."""
    G = _graph(G)
    return iter(G.labels(np.flatnonzero(_degrees(G) == 0)))


@_implements()
def is_isolate(G, n):
    """Whether ``n`` has no edges."""
    G = _graph(G)
    if n not in G:
        # NetworkX's G.degree(n) is then the degree view of the nodes n iterates over (an
        # error if n is not iterable), never equal to 0
        _nbunch_ids(G, n)
        return False
    return bool(_degrees(G)[G.id_of(n)] == 0)


@_implements()
def number_of_isolates(G):
    """The number of nodes without edges."""
    return int(np.count_nonzero(_degrees(_graph(G)) == 0))


@_implements()
def number_of_selfloops(G):
    """The number of self-loops (parallel ones each)."""
    G = _graph(G)
    loops = select.diag(G.edge_matrix(None, 1, "sum")).new()
    return int(loops.reduce_scalar(monoid.plus[INT64]).new().value or 0)


def _mutual(G):
    """The structure's entries whose reverse is an entry too (a self-loop included)."""
    A = G.matrix
    return A.ewise_mult(A.T, binary.pair).new()


def _reciprocity_rule(arguments):
    G = arguments["G"]
    if G.is_multigraph():
        return ("NetworkX counts a multigraph's reciprocity on its own conversion to an "
                "undirected multigraph; it runs this call")
    if not G.is_directed() and arguments.get("nodes") is not None:
        return "reciprocity of nodes needs predecessors: NetworkX answers undirected graphs"
    return True


@_implements(can_run=_reciprocity_rule)
def reciprocity(G, nodes=None):
    """Reciprocity of the graph, of one node, or ``{node: reciprocity}`` for ``nodes``."""
    G = _graph(G)
    if nodes is None:
        return overall_reciprocity(G)
    single = nodes in G
    ids = _nbunch_ids(G, [nodes] if single else nodes)
    A = G.matrix.apply(unary.one[INT64]).new()
    plus = monoid.plus[INT64]
    total = (_dense(A.reduce_rowwise(plus).new(), ids)
             + _dense(A.reduce_columnwise(plus).new(), ids))
    both = _dense(_mutual(G).apply(unary.one[INT64]).new().reduce_rowwise(plus).new(), ids)
    values = [None if t == 0 else 2 * b / t for b, t in zip(both.tolist(), total.tolist())]
    if single:
        if values[0] is None:
            raise nx.NetworkXError("Not defined for isolated nodes.")
        return values[0]
    return dict(zip(G.labels(ids), values))


@_implements(can_run=_reciprocity_rule)
def overall_reciprocity(G):
    """The fraction of edges whose reverse is an edge too (0 for an undirected graph, whose
    ``to_undirected()`` has all its edges)."""
    G = _graph(G)
    edges = G.number_of_edges()
    if edges == 0:
        raise nx.NetworkXError("Not defined for empty graphs")
    if not G.is_directed():
        return 0 / edges
    return select.offdiag(_mutual(G)).new().nvals / edges
