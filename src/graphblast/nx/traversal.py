"""NetworkX's traversal functions beyond the BFS edges: trees, reachability, ego graphs and
lowest common ancestors, on breadth-first searches of graphblast matrices.

``bfs_tree`` and the reverse traversals visit in NetworkX's order (see
:func:`graphblast.nx.algorithms._ordered_layers`); the sets (``descendants``, ``ancestors``)
come from ``graphblast.algorithms.bfs``.  A DAG is recognised by peeling its sources: each
round removes the nodes without remaining in-edges, ``indeg -= frontier plus.pair A``, and the
graph is acyclic when every node is removed.
"""

import networkx as nx
import numpy as np

from graphblast import Vector, binary, monoid, select, semiring, unary
from graphblast import algorithms as gba
from graphblast.dtypes import INT64

from . import algorithms
from .algorithms import (_bfs_steps, _check_bfs_source, _graph, _host_layers, _ids,
                         _implements, _ordered_layers, _traversal_rule, bfs_edges)
from .convert import convert_from_nx
from .shortest_paths import _bfs_tree, _weighted_tree

__all__ = []


@_implements(can_run=_traversal_rule)
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """The breadth-first tree from ``source`` as a DiGraph, built in NetworkX's order."""
    G = _graph(G)
    _check_bfs_source(G, source)
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse=reverse, depth_limit=depth_limit))
    return T


def _generic_rule(arguments):
    if arguments.get("neighbors") is not None:
        return ("neighbors is an arbitrary function of a node; graphblast visits neighbours "
                "in the graph's own order only")
    return True


@_implements(can_run=_generic_rule)
def generic_bfs_edges(G, source, neighbors=None, depth_limit=None):
    """Edges of a breadth-first search with NetworkX's default neighbours, in its order."""
    G = _graph(G)
    _check_bfs_source(G, source)
    for layer, parents in _ordered_layers(G, [G.id_of(source)], _bfs_steps(G, depth_limit)):
        yield from zip(G.labels(parents), G.labels(layer))


def _transpose(G):
    return G.derived("transpose", lambda: G.matrix.T.new())


def _reached(G, source, backwards):
    """The labels of the nodes a BFS from ``source`` reaches (following the edges backwards
    with ``backwards``), the source left out: ``graphblast.algorithms.bfs``, or the host
    layers for a small graph (see ``_ordered_layers``)."""
    _check_bfs_source(G, source)
    sid = G.id_of(source)
    if G._cols.size <= algorithms.HOST_TRAVERSAL_MAX_PAIRS:
        indptr, cols = G.adjacency()
        if backwards:  # any order will do: the transposed arrays
            order = np.argsort(cols, kind="stable")
            rows = np.repeat(np.arange(len(G)), np.diff(indptr))
            indptr = np.concatenate(([0], np.cumsum(np.bincount(cols, minlength=len(G)))))
            cols = rows[order]
        layers = [layer for layer, _ in _host_layers(indptr, cols, np.array([sid]), None)]
        return set(G.labels(np.concatenate(layers))) if layers else set()
    ids, _ = _ids(gba.bfs(_transpose(G) if backwards else G.matrix, sid))
    return set(G.labels(ids[ids != sid]))


@_implements()
def descendants(G, source):
    """The nodes reachable from ``source``."""
    return _reached(_graph(G), source, False)


@_implements()
def ancestors(G, source):
    """The nodes from which ``source`` is reachable."""
    G = _graph(G)
    return _reached(G, source, G.is_directed())


def _is_dag(G):
    """Whether the directed graph has no cycle: peel the nodes without in-edges."""
    A = G.matrix
    n = len(G)
    if select.diag(A).new().nvals:
        return False
    indeg = A.apply(unary.one[INT64]).new().reduce_columnwise(monoid.plus[INT64]).new()
    sources = np.setdiff1d(np.arange(n), _ids(indeg)[0])
    frontier = Vector.from_coo(sources, 1, INT64, size=n, device=G.device)
    while frontier.nvals and indeg.nvals:
        # every node reached still has an entry: its in-edges were not all removed yet
        indeg(binary.minus) << frontier.vxm(A, semiring.plus_pair[INT64])
        frontier = indeg.select(select.valueeq, 0).new()
        indeg = indeg.select(select.valuene, 0).new()
    return not indeg.nvals


def _ancestor_set(G, node):
    """``nx.ancestors(G, node) | {node}`` built in NetworkX's insertion order, so that the set
    iterates as NetworkX's does (lowest_common_ancestor takes its first element)."""
    order, _, _ = _bfs_tree(G, G.id_of(node), reverse=True)
    found = set(G.labels(order[1:]))
    found.add(node)
    return found


@_implements()
def lowest_common_ancestor(G, node1, node2, default=None):
    """The lowest common ancestor of two nodes of a DAG (NetworkX's choice among several)."""
    G = _graph(G)
    if not _is_dag(G):
        raise nx.NetworkXError("LCA only defined on directed acyclic graphs.")
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("LCA meaningless on null graphs.")
    pair = (node1, node2)
    missing = set(pair) - set(G.nodes)
    if missing:
        raise nx.NodeNotFound(f"Node(s) {missing} from pair {pair} not in G.")
    first = _ancestor_set(G, node1)
    common = first & (first if node2 == node1 else _ancestor_set(G, node2))
    if not common:
        return default
    indptr, cols = G._indptr, G._cols
    current = next(iter(common))
    while True:
        cid = G.id_of(current)
        lower = next((v for v in G.labels(cols[indptr[cid]:indptr[cid + 1]]) if v in common),
                     None)
        if lower is None:
            return current
        current = lower


def _ego_rule(arguments):
    G = arguments.get("G")
    if (arguments.get("undirected") and arguments.get("distance") is not None
            and G.is_directed()):
        return ("undirected=True with distance on a directed graph takes the weights of "
                "G.to_undirected(), whose choice between u->v and v->u is NetworkX's")
    if callable(arguments.get("distance")):
        return "distance is a function; graphblast reads weights from an edge attribute only"
    return True


@_implements(can_run=_ego_rule)
def ego_graph(G, n, radius=1, center=True, undirected=False, distance=None):
    """The subgraph of the nodes within ``radius`` of ``n``, with their data."""
    G = _graph(G, distance)
    source_graph = G.networkx_graph()
    if source_graph is None:
        raise NotImplementedError(
            "ego_graph copies the NetworkX graph's data, and the graph this one was converted "
            "from no longer exists")
    if distance is not None and not G.has_edge_attribute(distance):
        # converted with every attribute, none of them this one: no edge has it (weight 1)
        G = convert_from_nx(source_graph, edge_attrs={distance: 1}, device=G.device)
    if distance is not None:
        if n not in G:
            raise nx.NodeNotFound(f"Node {n} not found in graph")
        tree = _weighted_tree(G, G.id_of(n), distance, radius)
        nodes = G.labels(tree.order)
    else:
        if n not in G:
            raise nx.NodeNotFound(f"Source {n} is not in G")
        steps = _bfs_steps(G, radius)
        if undirected and G.is_directed():
            A = G.derived("symmetric",
                          lambda: G.matrix.ewise_add(_transpose(G), binary.lor).new())
            ids, level = _ids(gba.bfs(A, G.id_of(n)))
            keep = level <= steps if steps is not None else slice(None)
            ids, level = ids[keep], level[keep]
            nodes = G.labels(ids[np.lexsort((ids, level))])
        else:
            nodes = G.labels(_bfs_tree(G, G.id_of(n), steps)[0])
    H = source_graph.subgraph(dict.fromkeys(nodes)).copy()
    if not center:
        H.remove_node(n)
    return H
