"""The NetworkX functions the graphblast backend implements.

Each function has NetworkX's name, signature, results (same keys, value types and order where
NetworkX defines one) and exceptions; the dispatcher hands it a :class:`GraphblastGraph`
(a plain NetworkX graph is converted on the spot when a function is called directly).  The
work is graphblast matrix and vector operations; only the final mapping of matrix indices back
to node labels is Python, since the results are Python dicts, sets and lists.

An argument graphblast cannot honour (a callable ``weight``, ``sort_neighbors``, ...) is
reported by the function's ``can_run`` rule, so that NetworkX runs the call itself; a property
of the data found only while running (negative weights for Dijkstra) raises
NotImplementedError, which makes NetworkX fall back the same way.

The per-node triangle counts behind ``triangles`` and ``clustering`` come from two masked
products of the strictly lower and upper triangles ``L`` and ``U = L'`` of the structure::

    C<L> = L plus.pair U        # C[i, j]: triangles k < j < i on the edge (i, j)
    D<U> = U plus.pair L        # D[k, j]: triangles k < j < i on the edge (k, j)
    t    = rowsum(C) + colsum(C) + rowsum(D)   # v largest, v middle, v smallest

Clustering of a node subset, weighted clustering and directed clustering count closed walks
of length 3 from each node instead, ``diag(S^3)`` for the right ``S``, as
``rowsum((S[v, :] plus.times S) .* S[v, :])`` over the rows asked for only.
"""

import math
import numbers

import networkx as nx
import numpy as np

from graphblast import Vector, binary, monoid, select, semiring, unary
from graphblast import algorithms as gba
from graphblast.dtypes import BOOL, FP64, INT64
from graphblast.exceptions import InvalidValue

from .convert import GraphblastGraph, convert_from_nx

# name -> the function, and name -> its can_run rule (bound arguments -> True or a reason)
IMPLEMENTATIONS = {}
CAN_RUN_RULES = {}


def _implements(can_run=None):
    """Register a function under its own name, with an optional ``can_run`` rule."""

    def register(func):
        IMPLEMENTATIONS[func.__name__] = func
        if can_run is not None:
            CAN_RUN_RULES[func.__name__] = can_run
        return func

    return register


# -- can_run rules --------------------------------------------------------------------------
def _weight_rule(arguments):
    weight = arguments.get("weight")
    if callable(weight):
        return ("weight is a function; graphblast reads weights from an edge attribute only "
                "(pass the attribute's name)")
    G = arguments.get("G")
    if isinstance(G, GraphblastGraph) and not G.has_edge_attribute(weight):
        return (f"this graphblast graph was converted without the edge attribute {weight!r}; "
                f"convert it with edge_attrs={{{weight!r}: 1}}")
    return True


def _traversal_rule(arguments):
    if arguments.get("sort_neighbors") is not None:
        return ("sort_neighbors is an arbitrary function of NetworkX neighbour iterators; "
                "graphblast visits neighbours in the graph's own order only")
    return True


# -- helpers --------------------------------------------------------------------------------
def _graph(G, weight=None):
    """The GraphblastGraph to compute on; a NetworkX graph (a direct call) is converted."""
    if isinstance(G, GraphblastGraph):
        return G
    edge_attrs = None if weight is None else {weight: 1}
    return convert_from_nx(G, edge_attrs=edge_attrs)


def _ids(vector):
    """Indices and values of a Vector's entries as NumPy arrays (indices as intp)."""
    idx, vals = vector.to_coo()
    return idx.astype(np.intp), vals


def _nbunch_ids(G, nbunch):
    """Matrix ids of the nodes of ``nbunch``, as ``G.nbunch_iter`` yields them, duplicates
    dropped (the results are dicts keyed by node)."""
    if nbunch is None:
        return np.arange(len(G), dtype=np.intp)
    if nbunch in G:
        return np.array([G.id_of(nbunch)], dtype=np.intp)
    ids = []
    node = None
    key_to_id = G.key_to_id
    try:
        for node in nbunch:
            # A plain dict lookup, so that an unhashable node is a TypeError, as in NetworkX.
            if node in key_to_id:
                ids.append(key_to_id[node])
    except TypeError as err:
        # nx.Graph.nbunch_iter's messages for the same mistakes (the last match wins there).
        message = str(err.args[0]) if err.args else ""
        if "hashable" in message:
            raise nx.NetworkXError(
                f"Node {node} in sequence nbunch is not a valid node.") from err
        if "object is not iterable" in message:
            raise nx.NetworkXError(f"Node {nbunch} is not in the graph.") from err
        if "iter" in message:
            raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from err
        raise
    ids = np.asarray(ids, dtype=np.intp)
    _, first = np.unique(ids, return_index=True)
    return ids[np.sort(first)]


def _dense(vector, ids=None):
    """The vector's values at ``ids`` (all positions by default) as a NumPy array, 0 where
    it has no entry."""
    values = vector.to_dense(fill_value=0)
    return values if ids is None else values[ids]


def _as_python(values, zero_where):
    """A list of Python numbers: ``values``, with the int 0 where ``zero_where`` holds.

    NetworkX writes ``0 if t == 0 else t / d``, so a node without triangles gets the int 0.
    """
    out = values.astype(object)
    out[zero_where] = 0
    return out.tolist()


def _single_or_dict(G, nodes, ids, values):
    """NetworkX's convention: a single node gives its value, else a dict keyed by node."""
    if nodes is not None and nodes in G:
        return values[0]
    return dict(zip(G.labels(ids), values))


def _offdiag(G):
    """The structure without self-loops (BOOL), which every triangle count ignores."""
    return G.derived("offdiag", lambda: select.offdiag(G.matrix).new())


def _row_counts(M):
    """The number of entries in each row of ``M``, as an INT64 NumPy array."""
    ones = M.apply(unary.one[INT64]).new()
    return _dense(ones.reduce_rowwise(monoid.plus[INT64]).new())


# -- breadth-first traversals ---------------------------------------------------------------
def _levels(G, source_id, keep_going):
    """BFS levels from one source: an INT64 Vector, expanding while ``keep_going(level)``.

    ``frontier<!levels> = frontier any.pair A`` per step, the backend choosing push or pull.
    """
    n = len(G)
    A = G.matrix
    levels = Vector(INT64, n, device=G.device)
    frontier = Vector.from_coo([source_id], True, BOOL, size=n, device=G.device)
    levels(frontier.S) << 0
    level = 0
    while frontier.nvals and keep_going(level):
        level += 1
        frontier(~levels.S, replace=True) << frontier.vxm(A, semiring.any_pair)
        levels(frontier.S) << level
    return levels


# Graphs with at most this many stored node pairs traverse on the host (below).
HOST_TRAVERSAL_MAX_PAIRS = 4096


def _ordered_layers(G, first, max_steps=None, reverse=False):
    """Breadth-first layers in NetworkX's visiting order, with each node's BFS parent.

    ``first`` is the first layer (matrix ids, in order).  NetworkX visits the children of the
    layer's nodes in layer order, each node's neighbours in adjacency order, and a node's
    parent is the first layer node that reaches it.  With ``pos(u)`` the position of ``u`` in
    its layer, ``K`` more than any degree and ``R[u, v]`` the rank of ``v`` among ``u``'s
    neighbours, the key ``pos(u) * K + R[u, v]`` orders exactly that way, and its minimum over
    ``u`` is one (min, +) product masked to the unvisited nodes::

        key<!visited> = (pos * K) min.plus R

    so ``key // K`` names the parent and sorting by ``key`` gives the next layer.  With
    ``reverse=True`` the search follows the edges backwards, visiting each node's
    predecessors in ``G.pred``'s order (the ranks of :meth:`GraphblastGraph.reverse_rank_matrix`).

    A graph of at most :data:`HOST_TRAVERSAL_MAX_PAIRS` stored pairs traverses the
    conversion's host arrays instead, the same keys in NumPy: each graphblast operation has
    a fixed cost (tens of microseconds on the CPU backend, a kernel launch and a
    synchronisation on a GPU) that a graph this small does not amortise.

    Yields
    ------
    (layer, parents) : (ndarray, ndarray)
        The ids of each new layer in order and their parents' ids; at most ``max_steps``
        layers after ``first``.
    """
    layer = np.asarray(first, dtype=np.int64)
    if G._cols.size <= HOST_TRAVERSAL_MAX_PAIRS:
        yield from _host_layers(*G.adjacency(reverse), layer, max_steps)
        return
    n = len(G)
    if reverse:
        R, K = G.reverse_rank_matrix(), n + 1
    else:
        R, K = G.rank_matrix(), G.max_degree() + 1
    min_plus = semiring.min_plus[INT64]
    visited = Vector.from_coo(layer, 0, INT64, size=n, device=G.device)
    steps = 0
    while layer.size and (max_steps is None or steps < max_steps):
        frontier = Vector.from_coo(layer, np.arange(layer.size, dtype=np.int64) * K, INT64,
                                   size=n, device=G.device)
        reached = frontier.vxm(R, min_plus).new(mask=~visited.S)
        ids, keys = _ids(reached)
        order = np.argsort(keys, kind="stable")
        parents = layer[keys[order] // K]
        layer = ids[order].astype(np.int64)
        if not layer.size:
            return
        yield layer, parents
        steps += 1
        # (an element-wise union costs a third of an assignment under a mask here)
        visited = visited.ewise_add(reached, binary.first).new()


def _host_layers(indptr, cols, layer, max_steps):
    """:func:`_ordered_layers` on host CSR arrays: the neighbours of a layer, concatenated
    in (position, rank) order, keep their first unvisited occurrences."""
    n = indptr.size - 1
    visited = np.zeros(n, dtype=bool)
    visited[layer] = True
    where = np.empty(n, dtype=np.int64)  # scratch: first position of each node reached
    steps = 0
    while layer.size and (max_steps is None or steps < max_steps):
        starts = indptr[layer]
        ends = np.cumsum(indptr[layer + 1] - starts)
        counts = indptr[layer + 1] - starts
        index = np.arange(int(ends[-1])) + np.repeat(starts + counts - ends, counts)
        reached = cols[index]
        positions = np.flatnonzero(~visited[reached])
        reached = reached[positions]
        # the first occurrence wins: write the positions backwards
        where[reached[::-1]] = positions[::-1]
        first = positions[where[reached] == positions]
        if not first.size:
            return
        parents = layer[np.searchsorted(ends, first, side="right")]
        layer = cols[index[first]]
        visited[layer] = True
        yield layer, parents
        steps += 1


def _bfs_steps(G, depth_limit):
    """How many layers ``generic_bfs_edges`` expands for ``depth_limit``."""
    if depth_limit is None:
        return len(G)
    # NetworkX loops "while depth < depth_limit" with depth = 0, 1, 2, ...
    return max(0, math.ceil(depth_limit)) if depth_limit < math.inf else None


def _check_bfs_source(G, source):
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")


@_implements(can_run=_traversal_rule)
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """Edges of a breadth-first search from ``source``, in NetworkX's order."""
    G = _graph(G)
    reverse = bool(reverse) and G.is_directed()
    if reverse:
        G.reverse_rank_matrix()  # may decline (NotImplementedError): before iterating
    return _bfs_edges(G, source, reverse, depth_limit)


def _bfs_edges(G, source, reverse, depth_limit):
    _check_bfs_source(G, source)
    steps = _bfs_steps(G, depth_limit)
    for layer, parents in _ordered_layers(G, [G.id_of(source)], steps, reverse):
        yield from zip(G.labels(parents), G.labels(layer))


@_implements(can_run=_traversal_rule)
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """``(node, predecessor)`` pairs of a breadth-first search, in NetworkX's order."""
    for parent, child in bfs_edges(G, source, depth_limit=depth_limit):
        yield (child, parent)


@_implements(can_run=_traversal_rule)
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """``(node, [successors])`` of a breadth-first search, in NetworkX's order."""
    G = _graph(G)
    _check_bfs_source(G, source)
    steps = _bfs_steps(G, depth_limit)
    yielded = False
    for layer, parents in _ordered_layers(G, [G.id_of(source)], steps):
        # Children of one parent are contiguous within a layer; cut where the parent changes.
        cuts = np.flatnonzero(np.diff(parents)) + 1
        starts = np.concatenate(([0], cuts))
        for parent, children in zip(G.labels(parents[starts]), np.split(layer, cuts)):
            yielded = True
            yield (parent, G.labels(children))
    if not yielded:
        yield (source, [])


@_implements()
def bfs_layers(G, sources):
    """Lists of nodes at distance 0, 1, 2, ... from ``sources``, in NetworkX's order."""
    G = _graph(G)
    if sources in G:
        sources = [sources]
    # NetworkX's first layer is list(set(sources)); the rest follows from its order.
    current_layer = list(set(sources))
    for source in current_layer:
        if source not in G:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not current_layer:
        return
    yield current_layer
    for layer, _ in _ordered_layers(G, [G.id_of(v) for v in current_layer]):
        yield G.labels(layer)


@_implements()
def descendants_at_distance(G, source, distance):
    """The set of nodes at exactly ``distance`` hops from ``source``."""
    G = _graph(G)
    _check_bfs_source(G, source)
    if not isinstance(distance, numbers.Real):
        return set()  # NetworkX compares layer numbers with it: nothing is equal
    levels = _levels(G, G.id_of(source), lambda level: level < distance)
    ids, lv = _ids(levels)
    return set(G.labels(ids[lv == distance]))


@_implements()
def single_source_shortest_path_length(G, source, cutoff=None):
    """Hop counts from ``source``, in NetworkX's visiting order."""
    G = _graph(G)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    lengths = {source: 0}
    steps = None if cutoff is None else _bfs_steps(G, cutoff)
    for level, (layer, _) in enumerate(_ordered_layers(G, [G.id_of(source)], steps), 1):
        lengths.update(dict.fromkeys(G.labels(layer), level))
    return lengths


# -- weighted shortest paths ----------------------------------------------------------------
def _distances(G, source_id, W, cutoff=None):
    """``{node: distance}`` from ``sssp`` ordered by distance; ``cutoff`` keeps <= cutoff."""
    try:
        dist = gba.sssp(W, source_id, negative_weights=True)
    except gba.NegativeCycle:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from None
    except InvalidValue as err:
        # NaN weights, which have no order: let NetworkX decide what they mean.
        raise NotImplementedError(f"the graph has NaN edge weights ({err})") from err
    ids, d = _ids(dist)
    if cutoff is not None:
        keep = (d <= cutoff) | (ids == source_id)
        ids, d = ids[keep], d[keep]
    order = np.argsort(d, kind="stable")
    return dict(zip(G.labels(ids[order]), d[order].tolist()))


@_implements(can_run=_weight_rule)
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """Weighted distances from ``source``; a missing weight counts as 1."""
    G = _graph(G, weight)
    hash(source)  # NetworkX builds {source}: an unhashable source is a TypeError
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    W = G.edge_matrix(weight, 1, "min")
    if W.nvals and W.reduce_scalar(monoid.min).new().value < 0:
        raise NotImplementedError(
            "the graph has negative edge weights, for which Dijkstra's distances are not "
            "defined; use single_source_bellman_ford_path_length")
    return _distances(G, G.id_of(source), W, cutoff)


@_implements(can_run=_weight_rule)
def single_source_bellman_ford_path_length(G, source, weight="weight"):
    """Weighted distances from ``source``, negative weights allowed."""
    G = _graph(G, weight)
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    return _distances(G, G.id_of(source), G.edge_matrix(weight, 1, "min"))


# -- PageRank -------------------------------------------------------------------------------
def _node_vector(G, mapping):
    """``mapping.get(node, 0)`` for every node, as NetworkX builds it."""
    return np.array([mapping.get(v, 0) for v in G.nodes], dtype=float)


@_implements(can_run=_weight_rule)
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None):
    """PageRank by NetworkX's power iteration, each step one vector-matrix product.

    ``x' = alpha * (x @ Q + sum(x[dangling]) * d) + (1 - alpha) * p`` with ``Q`` the weights
    scaled to row sums of 1, stopping when ``sum |x' - x| < N * tol``.
    """
    G = _graph(G, weight)
    N = len(G)
    if N == 0:
        return {}
    device = G.device
    W = G.edge_matrix(weight, 1, "sum").dup(dtype=FP64)
    out_weight = W.reduce_rowwise(monoid.plus[FP64]).new()
    # 1 / out-weight of the non-dangling nodes; a dangling node (no out-weight) has no entry.
    inverse = out_weight.select(select.valuene, 0).new().apply(unary.minv).new()

    if nstart is None:
        x = np.repeat(1.0 / N, N)
    else:
        x = _node_vector(G, nstart)
        x /= x.sum()
    if personalization is None:
        p = np.repeat(1.0 / N, N)
    else:
        p = _node_vector(G, personalization)
        if p.sum() == 0:
            raise ZeroDivisionError
        p /= p.sum()
    if dangling is None:
        dangling_weights = p
    else:
        dangling_weights = _node_vector(G, dangling)
        dangling_weights /= dangling_weights.sum()

    x = Vector.from_dense(x, device=device)
    teleport = Vector.from_dense((1 - alpha) * p, device=device)
    dangling_weights = Vector.from_dense(dangling_weights, device=device)
    spread = semiring.plus_times[FP64]
    for _ in range(max_iter):
        xlast = x
        lost = xlast.dup(mask=~inverse.S).reduce(monoid.plus[FP64]).new().value or 0.0
        walk = dangling_weights.apply(binary.times, right=lost).new()
        walk(binary.plus) << xlast.ewise_mult(inverse, binary.times).new().vxm(W, spread)
        x = walk.apply(binary.times, right=alpha).new()
        x(binary.plus) << teleport
        err = x.ewise_mult(xlast, binary.minus).new().apply(unary.abs).new()
        if err.reduce(monoid.plus[FP64]).new().value < N * tol:
            return dict(zip(G.nodes, _dense(x).tolist()))
    raise nx.PowerIterationFailedConvergence(max_iter)


# -- connected components -------------------------------------------------------------------
def _component_labels(G):
    """Every node's component as the smallest id in it (FastSV, on A + A' if directed)."""
    return _dense(gba.connected_components(G.matrix))


def _components(G):
    labels = _component_labels(G)
    if labels.size == 0:
        return
    # Sorting by the smallest id puts components in the order of their first node, as
    # NetworkX finds them.
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    for members in np.split(order, cuts):
        yield set(G.labels(members))


def _count_components(G):
    labels = _component_labels(G)
    return int(np.count_nonzero(labels == np.arange(labels.size)))


def _connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return bool(np.all(_component_labels(G) == 0))


@_implements()
def connected_components(G):
    """Sets of nodes, one per connected component, in the order of their first node."""
    G = _graph(G)
    yield from _components(G)


@_implements()
def number_connected_components(G):
    """The number of connected components."""
    return _count_components(_graph(G))


@_implements()
def is_connected(G):
    """Whether the graph is connected; the null graph raises NetworkXPointlessConcept."""
    return _connected(_graph(G))


@_implements()
def node_connected_component(G, n):
    """The set of nodes in the component of ``n``."""
    G = _graph(G)
    if n not in G:
        raise KeyError(n)  # what NetworkX's own search raises
    ids, _ = _ids(_levels(G, G.id_of(n), lambda level: True))
    return set(G.labels(ids))


@_implements()
def weakly_connected_components(G):
    """Sets of nodes, one per weakly connected component, in the order of their first node."""
    G = _graph(G)
    yield from _components(G)


@_implements()
def number_weakly_connected_components(G):
    """The number of weakly connected components."""
    return _count_components(_graph(G))


@_implements()
def is_weakly_connected(G):
    """Whether the directed graph is weakly connected."""
    return _connected(_graph(G))


# -- triangles and clustering ---------------------------------------------------------------
def _not_for_multigraphs(G):
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


def _triangles_all(G):
    """Triangles through every node of an undirected graph (INT64 NumPy array)."""
    B = _offdiag(G)
    L = select.tril(B, -1).new()
    U = select.triu(B, 1).new()
    plus_pair = semiring.plus_pair[INT64]
    C = L.mxm(U, plus_pair).new(mask=L.S)
    D = U.mxm(L, plus_pair).new(mask=U.S)
    return (_dense(C.reduce_rowwise(monoid.plus[INT64]).new())
            + _dense(C.reduce_columnwise(monoid.plus[INT64]).new())
            + _dense(D.reduce_rowwise(monoid.plus[INT64]).new()))


def _closed_walks(S, ids, dtype):
    """``diag(S^3)[ids]`` for a symmetric ``S``, computing only the rows ``ids``::

        C<Sv> = Sv plus.times S,   walks = rowsum(C .* Sv)   with Sv = S[ids, :]
    """
    Sv = S[ids, :].new()
    C = Sv.mxm(S, semiring.plus_times[dtype]).new(mask=Sv.S)
    return _dense(C.ewise_mult(Sv, binary.times).new().reduce_rowwise(monoid.plus[dtype]).new())


def _normalized_cbrt(G, W):
    """``cbrt(W / max(W))`` without self-loops: NetworkX's geometric-mean edge factors.

    The maximum includes self-loops, as NetworkX takes it over all edges.
    """
    max_weight = W.reduce_scalar(monoid.max).new().value if G.number_of_edges() else 1
    Woff = select.offdiag(W).new(dtype=FP64)
    if max_weight == 0 and Woff.nvals:
        raise ZeroDivisionError("float division by zero: the largest edge weight is 0")
    return Woff.apply(binary.truediv, right=float(max_weight)).new().apply(unary.cbrt).new()


def _clustering(G, nodes, weight):
    """Node ids and their clustering coefficients (Python numbers), as NetworkX defines them."""
    _not_for_multigraphs(G)
    ids = _nbunch_ids(G, nodes)
    B = _offdiag(G)
    if G.is_directed():
        ones = B.apply(unary.one[INT64]).new()
        # S = A + A' without self-loops: S[i, j] counts the edges between i and j (0, 1, 2).
        S = ones.ewise_add(ones.T, binary.plus).new()
        total = _dense(S.reduce_rowwise(monoid.plus[INT64]).new(), ids)
        both = _row_counts(S.select(select.valueeq, 2).new())[ids]
        if weight is None:
            walks = _closed_walks(S, ids, INT64)
        else:
            W = _normalized_cbrt(G, G.edge_matrix(weight, 1))
            walks = _closed_walks(W.ewise_add(W.T, binary.plus).new(), ids, FP64)
        denominator = (total * (total - 1) - 2 * both) * 2
    else:
        degree = _row_counts(B)[ids]
        if weight is not None:
            W = _normalized_cbrt(G, G.edge_matrix(weight, 1))
            walks = _closed_walks(W, ids, FP64)
        elif nodes is None:
            walks = 2 * _triangles_all(G)
        else:
            walks = _closed_walks(B.apply(unary.one[INT64]).new(), ids, INT64)
        denominator = degree * (degree - 1)
    zero = walks == 0
    values = np.divide(walks, denominator, out=np.zeros(walks.shape, np.float64),
                       where=~zero)
    return ids, _as_python(values, zero)


@_implements()
def triangles(G, nodes=None):
    """Triangles through each node (a count for a single node)."""
    G = _graph(G)
    if nodes is None:
        return dict(zip(G.nodes, _triangles_all(G).tolist()))
    _not_for_multigraphs(G)
    ids = _nbunch_ids(G, nodes)
    counts = _closed_walks(_offdiag(G).apply(unary.one[INT64]).new(), ids, INT64) // 2
    return _single_or_dict(G, nodes, ids, counts.tolist())


@_implements(can_run=_weight_rule)
def clustering(G, nodes=None, weight=None):
    """Clustering coefficient of each node (a number for a single node)."""
    G = _graph(G, weight)
    ids, values = _clustering(G, nodes, weight)
    return _single_or_dict(G, nodes, ids, values)


@_implements(can_run=_weight_rule)
def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """The mean clustering coefficient over ``nodes``."""
    G = _graph(G, weight)
    if nodes is not None and nodes in G:
        # NetworkX calls .values() on the number clustering returns for a single node.
        raise AttributeError("'float' object has no attribute 'values'")
    _, values = _clustering(G, nodes, weight)
    if not count_zeros:
        values = [v for v in values if abs(v) > 0]
    return sum(values) / len(values)


@_implements()
def transitivity(G):
    """3 * triangles / connected triples; 0 for a graph without triangles."""
    G = _graph(G)
    _not_for_multigraphs(G)
    if len(G) == 0:
        return 0
    B = _offdiag(G)
    degree = _row_counts(B)
    if G.is_directed():
        # t(v) = sum over successors w of |succ(v) & succ(w)|, NetworkX's count on a DiGraph.
        C = B.mxm(B.T, semiring.plus_pair[INT64]).new(mask=B.S)
        closed = int(C.reduce_scalar(monoid.plus[INT64]).new().value or 0)
    else:
        closed = 6 * gba.triangle_count(B)
    if closed == 0:
        return 0
    return closed / int(np.sum(degree * (degree - 1)))


# -- conversion -----------------------------------------------------------------------------

@_implements(can_run=_weight_rule)
def to_scipy_sparse_array(G, nodelist=None, dtype=None, weight="weight", format="csr"):
    """The weighted adjacency matrix as a SciPy sparse array, rows in ``nodelist`` order."""
    import scipy.sparse

    G = _graph(G, weight)
    if len(G) == 0:
        raise nx.NetworkXError("Graph has no nodes or edges")
    W = G.edge_matrix(weight, 1, "sum")
    if nodelist is None:
        nlen = len(G)
    else:
        nlen = len(nodelist)
        if nlen == 0:
            raise nx.NetworkXError("nodelist has no nodes")
        # NetworkX's checks, in its order: G.nbunch_iter(nodelist) first.
        if nlen != len(_nbunch_ids(G, nodelist)):
            for v in nodelist:
                if v not in G:
                    raise nx.NetworkXError(f"Node {v} in nodelist is not in G")
            raise nx.NetworkXError("nodelist contains duplicates.")
        ids = np.array([G.id_of(v) for v in nodelist], dtype=np.intp)
        W = W[ids, ids].new()
    rows, cols, values = W.to_coo()
    if dtype is None and not values.size:
        dtype = np.float64  # what SciPy makes of NetworkX's empty list of weights
    A = scipy.sparse.coo_array((values, (rows.astype(np.intp), cols.astype(np.intp))),
                               shape=(nlen, nlen), dtype=dtype)
    try:
        return A.asformat(format)
    except ValueError as err:
        raise nx.NetworkXError(f"Unknown sparse matrix format: {format}") from err
