"""NetworkX's shortest-path functions: the trees on the device, the paths on the host.

Unweighted paths follow a breadth-first tree in NetworkX's visiting order
(:func:`graphblast.nx.algorithms._ordered_layers`): a node's parent is the first node of the
previous layer that reaches it, exactly NetworkX's choice among equally short paths, and the
dicts come out in NetworkX's order.  ``bidirectional_shortest_path`` replays NetworkX's
alternating search layer by layer, so it meets where NetworkX meets.

Weighted paths start from the distances of ``graphblast.algorithms.sssp``; the tight edges
(``dist[u] + w(u, v) == dist[v]``, found by two products with ``diag(dist)``) are the
shortest-path DAG.  Where all weights are one positive number, NetworkX's Dijkstra and
Bellman-Ford (SPFA) both settle nodes in breadth-first order, so the breadth-first tree gives
their paths.  Otherwise Dijkstra's choice among equally short paths is replayed from the tight
edges (:func:`_settle`: the order NetworkX's heap settles the nodes in, and each node's first
settled tight predecessor).  Bellman-Ford's depends on its queue's history: where a node has
several tight predecessors the call raises NotImplementedError, which makes NetworkX run it.
"""

import networkx as nx
import numpy as np

from graphblast import Matrix, Vector, indexunary, monoid, select, semiring, unary
from graphblast import algorithms as gba
from graphblast.dtypes import INT64
from graphblast.exceptions import InvalidValue

from .algorithms import (_bfs_steps, _graph, _ids, _implements, _ordered_layers,
                         _weight_rule)

__all__ = []


# -- breadth-first trees --------------------------------------------------------------------
def _bfs_tree(G, source_id, steps=None, reverse=False):
    """``(order, parent, level)``: the ids in NetworkX's visiting order (the source first),
    each one's BFS parent (-1 for the source) and level, at most ``steps`` layers deep."""
    order, parents, levels = [np.array([source_id])], [np.array([-1])], [np.array([0])]
    for level, (layer, par) in enumerate(_ordered_layers(G, [source_id], steps, reverse), 1):
        order.append(layer)
        parents.append(par)
        levels.append(np.full(layer.size, level))
    return np.concatenate(order), np.concatenate(parents), np.concatenate(levels)


def _cutoff_steps(G, cutoff):
    """How many layers NetworkX's ``while nextlevel and cutoff > level`` expands."""
    return None if cutoff is None else _bfs_steps(G, cutoff)


def _paths(G, order, parent, backwards=False):
    """``{node: path}`` in ``order``: each path is its parent's path and the node (after it;
    before it when ``backwards``, for paths towards a target).  ``parent`` is aligned with
    ``order``; a parent may come after its child (equal distances, negative weights)."""
    order, parent = order.tolist(), parent.tolist()
    parent_of = dict(zip(order, parent))
    label_of = dict(zip(order, G.labels(order)))
    by_id = {}
    for v in order:
        chain = []
        while v not in by_id:
            chain.append(v)
            v = parent_of[v]
            if v < 0:
                break
        for u in reversed(chain):
            p = parent_of[u]
            label = label_of[u]
            if p < 0:
                by_id[u] = [label]
            else:
                by_id[u] = [label] + by_id[p] if backwards else by_id[p] + [label]
    return {label_of[v]: by_id[v] for v in order}


def _path_to(G, parent, source_id, target_id):
    """The path from ``source_id`` to ``target_id`` along ``parent`` (a NumPy array)."""
    ids = [target_id]
    while ids[-1] != source_id:
        ids.append(int(parent[ids[-1]]))
    return G.labels(ids[::-1])


def _source_check(G, source, message):
    if source not in G:
        raise nx.NodeNotFound(message.format(source))
    return G.id_of(source)


@_implements()
def single_source_shortest_path(G, source, cutoff=None):
    """Shortest paths from ``source`` (BFS tree in NetworkX's order)."""
    G = _graph(G)
    sid = _source_check(G, source, "Source {} not in G")
    order, parent, _ = _bfs_tree(G, sid, _cutoff_steps(G, cutoff))
    return _paths(G, order, parent)


@_implements()
def single_target_shortest_path(G, target, cutoff=None):
    """Shortest paths to ``target`` (BFS over predecessors in ``G.pred``'s order)."""
    G = _graph(G)
    tid = _source_check(G, target, "Target {} not in G")
    order, parent, _ = _bfs_tree(G, tid, _cutoff_steps(G, cutoff), reverse=True)
    return _paths(G, order, parent, backwards=True)


@_implements()
def single_target_shortest_path_length(G, target, cutoff=None):
    """Hop counts to ``target``, in NetworkX's visiting order."""
    G = _graph(G)
    tid = _source_check(G, target, "Target {} is not in G")
    order, _, level = _bfs_tree(G, tid, _cutoff_steps(G, cutoff), reverse=True)
    return dict(zip(G.labels(order), level.tolist()))


@_implements()
def all_pairs_shortest_path(G, cutoff=None):
    """``(node, {target: path})`` for every node, one BFS tree each."""
    G = _graph(G)
    for node in G.nodes:
        yield (node, single_source_shortest_path(G, node, cutoff=cutoff))


@_implements()
def all_pairs_shortest_path_length(G, cutoff=None):
    """``(node, {target: hops})`` for every node, one BFS each."""
    from .algorithms import single_source_shortest_path_length

    G = _graph(G)
    for node in G.nodes:
        yield (node, single_source_shortest_path_length(G, node, cutoff=cutoff))


def _bidirectional(G, sid, tid):
    """NetworkX's ``_bidirectional_pred_succ``, a layer per step: the path's node ids.

    NetworkX expands the smaller fringe (the forward one on a tie), its nodes in order and
    each one's neighbours in adjacency order, and stops at the first node the other search
    has reached; that node is the first in the new layer's order that the other side knows.
    """
    if sid == tid:
        return [sid]
    n = len(G)
    K = n + 1
    min_plus = semiring.min_plus[INT64]
    # per side: its rank matrix, parents (host, -1 unknown), reached flags and fringe
    sides = [[G.rank_matrix(), np.full(n, -1), np.zeros(n, bool), np.array([sid])],
             [G.reverse_rank_matrix(), np.full(n, -1), np.zeros(n, bool), np.array([tid])]]
    sides[0][2][sid] = sides[1][2][tid] = True
    while sides[0][3].size and sides[1][3].size:
        this, other = sides if sides[0][3].size <= sides[1][3].size else sides[::-1]
        R, parent, seen, fringe = this
        frontier = Vector.from_coo(fringe, np.arange(fringe.size, dtype=np.int64) * K, INT64,
                                   size=n, device=G.device)
        ids, keys = _ids(frontier.vxm(R, min_plus).new())
        new = ~seen[ids]
        ids, keys = ids[new], keys[new]
        order = np.argsort(keys, kind="stable")
        ids = ids[order]
        parent[ids] = fringe[keys[order] // K]
        seen[ids] = True
        this[3] = ids
        met = np.flatnonzero(other[2][ids])
        if met.size:
            w = int(ids[met[0]])
            path = [w]
            for side in sides:
                half = [w]
                while side[1][half[-1]] >= 0:
                    half.append(int(side[1][half[-1]]))
                path = half[::-1] if side is sides[0] else path[:-1] + half
            return path
    return None


@_implements()
def bidirectional_shortest_path(G, source, target):
    """A shortest path from ``source`` to ``target``: the one NetworkX's search finds."""
    G = _graph(G)
    sid = _source_check(G, source, "Source {} is not in G")
    tid = _source_check(G, target, "Target {} is not in G")
    path = _bidirectional(G, sid, tid)
    if path is None:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return G.labels(path)


# -- weighted trees -------------------------------------------------------------------------
class _Tree:
    """Shortest paths from one source: ``order`` (reached ids, NetworkX's order where it is
    known, else by distance then id), ``dist`` (Python numbers, by position in ``order``),
    ``parent`` (NumPy, by id, -1 none) and ``ties`` (by id: tight predecessors beyond one)."""

    def __init__(self, order, dist, parent, ties):
        self.order, self.dist, self.parent, self.ties = order, dist, parent, ties

    def check(self, ids, what):
        """Raise NotImplementedError if a node of ``ids`` has several shortest-path parents."""
        if self.ties is not None and np.any(self.ties[np.asarray(ids, dtype=np.intp)]):
            raise NotImplementedError(
                f"{what}: some node has several shortest paths of the same length, and "
                "NetworkX's choice among them depends on the order its search settles "
                "nodes in; NetworkX runs this call")


def _sssp(W, source_id):
    try:
        return gba.sssp(W, source_id, negative_weights=True)
    except gba.NegativeCycle:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from None
    except InvalidValue as err:
        # NaN weights, which have no order: let NetworkX decide what they mean.
        raise NotImplementedError(f"the graph has NaN edge weights ({err})") from err


def _uniform(W):
    """The weight every edge has, if they all have the same positive one, else None."""
    if not W.nvals:
        return 1
    low = W.reduce_scalar(monoid.min).new().value
    high = W.reduce_scalar(monoid.max).new().value
    return getattr(low, "item", lambda: low)() if low == high and low > 0 else None


def _weighted_tree(G, source_id, weight, cutoff=None, dijkstra=True, reverse=False):
    """The :class:`_Tree` from ``source_id`` under the edge attribute ``weight`` (following
    the edges backwards, predecessors in ``G.pred``'s order, with ``reverse``)."""
    W = G.edge_matrix(weight, 1, "min")
    reverse = reverse and G.is_directed()
    if reverse:
        W = G.derived(("transpose", weight), lambda: W.T.new())
    if dijkstra and W.nvals and W.reduce_scalar(monoid.min).new().value < 0:
        raise NotImplementedError(
            "the graph has negative edge weights, for which Dijkstra's distances are not "
            "defined; use the Bellman-Ford functions")
    step = _uniform(W)
    if step is not None:
        # NetworkX settles nodes in breadth-first order: its paths are the BFS tree's, its
        # distances sums of `step` in path order.
        order, parent_of, level = _bfs_tree(G, source_id, reverse=reverse)
        sums = [0]
        for _ in range(int(level.max())):
            sums.append(sums[-1] + step)
        sums = np.array(sums, dtype=object)
        dist = sums[level]
        if cutoff is not None:
            keep = np.array([d <= cutoff for d in dist], dtype=bool)
            keep[0] = True
            order, parent_of, dist = order[keep], parent_of[keep], dist[keep]
        parent = np.full(len(G), -1)
        parent[order] = parent_of
        return _Tree(order, dist.tolist(), parent, None)
    dvec = _sssp(W, source_id)
    ids, d = _ids(dvec)
    # tight edges, the shortest-path DAG: dist[u] + w(u, v) - dist[v] == 0
    D = Matrix.from_diag(dvec)
    dtype = dvec.dtype
    slack = D.mxm(W, semiring.min_plus[dtype]).new().mxm(D, semiring.min_minus[dtype]).new()
    tight = select.offdiag(slack.select(select.valueeq, 0).new()).new()
    if dijkstra:
        # NetworkX's settling order, and each node's first settled tight predecessor; the
        # tight edges with the ranks of their heads in their tails' adjacency
        R = G.reverse_rank_matrix() if reverse else G.rank_matrix()
        tv, tu, rank = (x.astype(np.int64) for x in R.dup(mask=tight.S).to_coo())
        settled = _settle(len(G), source_id, ids, d, tv, tu, rank)
        order = np.argsort(settled[ids], kind="stable")
        parent = _first_parents(len(G), settled, tv, tu)
        ties = None
    else:
        # a parent where it is the only tight predecessor; ties otherwise
        counts = tight.apply(unary.one[INT64]).new().reduce_columnwise(
            monoid.plus[INT64]).new()
        parents = tight.apply(indexunary.rowindex[INT64]).new().reduce_columnwise(
            monoid.min[INT64]).new()
        parent = np.full(len(G), -1)
        pid, pval = _ids(parents)
        parent[pid] = pval
        ties = np.zeros(len(G), bool)
        cid, cval = _ids(counts)
        ties[cid] = cval > 1
        ties[source_id] = False
        order = np.lexsort((ids, d))
    parent[source_id] = -1
    ids, d = ids[order], d[order]
    if cutoff is not None:
        keep = (d <= cutoff) | (ids == source_id)
        ids, d = ids[keep], d[keep]
    dist = d.tolist()
    # NetworkX's distance of the source is the int 0 whatever the weights' type
    dist[int(np.flatnonzero(ids == source_id)[0])] = 0
    return _Tree(ids, dist, parent, ties)


def _first_parents(n, settled, tv, tu):
    """Each node's tight predecessor settled first (its parent in NetworkX's Dijkstra)."""
    parent = np.full(n, -1)
    order = np.lexsort((settled[tv], tu))
    heads, first = np.unique(tu[order], return_index=True)
    parent[heads] = tv[order][first]
    return parent


def _settle(n, source_id, ids, d, tv, tu, rank):
    """The order NetworkX's Dijkstra settles (pops) the nodes in, from the distances and the
    tight edges ``tv -> tu`` (``rank``: the position of ``tu`` among ``tv``'s neighbours).

    Its heap pops by distance, then by the push counter, so a distance only one node has
    places it at once.  A node's entry at its final
    distance is pushed when its first settled tight predecessor ``p`` relaxes it, so among
    equal distances the nodes come out by ``(settled[p], rank(p, node))``.  With positive
    weights every tight predecessor has a smaller distance and each distance's nodes sort at
    once (a Python step per distance several nodes share); zero-weight edges inside a
    distance are replayed with a heap over that distance.
    """
    settled = np.full(n, -1, dtype=np.int64)
    dist = np.full(n, np.nan)
    dist[ids] = d
    K = n + 1
    by_distance = np.argsort(d, kind="stable")
    nodes, values = ids[by_distance], d[by_distance]
    values, starts, sizes = np.unique(values, return_index=True, return_counts=True)
    # a distance only one node has: its place is known at once
    alone = sizes == 1
    settled[nodes[starts[alone]]] = starts[alone]
    by_head = np.argsort(dist[tu], kind="stable")
    tv, tu, rank = tv[by_head], tu[by_head], rank[by_head]
    head_dist = dist[tu]
    for g in np.flatnonzero(~alone).tolist():
        members = nodes[starts[g]:starts[g] + sizes[g]]
        lo = np.searchsorted(head_dist, values[g], "left")
        hi = np.searchsorted(head_dist, values[g], "right")
        ev, eu, er = tv[lo:hi], tu[lo:hi], rank[lo:hi]
        inside = dist[ev] == values[g]
        key = np.where(inside, -1, settled[ev] * K + er)
        if inside.any():
            _settle_with_zero_weights(settled, int(starts[g]), members, source_id, ev, eu, er,
                                      inside, key)
            continue
        # each member's smallest key (the source, without tight predecessors, first)
        by = np.lexsort((key, eu))
        heads, first = np.unique(eu[by], return_index=True)
        where = np.minimum(np.searchsorted(heads, members), max(heads.size - 1, 0))
        keys = np.full(members.size, -1)
        if heads.size:
            found = heads[where] == members
            keys[found] = key[by][first][where[found]]
        settled[members[np.argsort(keys, kind="stable")]] = np.arange(
            starts[g], starts[g] + sizes[g])
    return settled


def _settle_with_zero_weights(settled, count, members, source_id, ev, eu, er, inside, key):
    """One distance's nodes with zero-weight tight edges among them, NetworkX's heap replayed:
    entries pushed from earlier distances first (by their keys), then each settled node
    pushes its zero-weight heads not yet pushed, in adjacency order."""
    import heapq

    heap = []
    pushed = set()
    outside = ~inside
    for u in members.tolist():
        if u == source_id:
            heap.append(((0, -1, 0), u))
            pushed.add(u)
    firsts = {}
    for k, u in zip(key[outside].tolist(), eu[outside].tolist()):
        if u not in firsts or k < firsts[u]:
            firsts[u] = k
    for u, k in firsts.items():
        heap.append(((0, k, 0), u))
        pushed.add(u)
    heapq.heapify(heap)
    zero = {}
    for v, u, r in sorted(zip(ev[inside].tolist(), eu[inside].tolist(), er[inside].tolist()),
                          key=lambda e: (e[0], e[2])):
        zero.setdefault(v, []).append((r, u))
    while heap:
        _, u = heapq.heappop(heap)
        if settled[u] >= 0:
            continue
        settled[u] = count
        count += 1
        for r, x in zero.get(u, ()):
            if x not in pushed:
                pushed.add(x)
                heapq.heappush(heap, ((1, settled[u], r), x))
    return count


def _weighted_source(G, source, message):
    hash(source)  # NetworkX puts the source in a set or dict: unhashable is a TypeError
    return _source_check(G, source, message)


def _single_source(G, source, target, cutoff, weight, dijkstra, source_message):
    """NetworkX's ``(dist, paths)`` or, with a target, ``(dist[target], path)``."""
    G = _graph(G, weight)
    sid = _weighted_source(G, source, source_message)
    if target is not None and target == source:
        return 0, [source]
    tree = _weighted_tree(G, sid, weight, cutoff, dijkstra)
    if target is None:
        tree.check(tree.order, "single-source shortest paths")
        return dict(zip(G.labels(tree.order), tree.dist)), _paths(G, tree.order,
                                                                   tree.parent[tree.order])
    where = np.flatnonzero(tree.order == G.id_of(target)) if target in G else []
    if not len(where):
        raise nx.NetworkXNoPath(f"No path to {target}." if dijkstra else
                                f"Node {target} not reachable from {source}")
    path = _path_to(G, tree.parent, sid, G.id_of(target))
    tree.check([G.id_of(v) for v in path], "a shortest path")
    return tree.dist[int(where[0])], path


@_implements(can_run=_weight_rule)
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    """Weighted distances and shortest paths from ``source`` (or to ``target``)."""
    return _single_source(G, source, target, cutoff, weight, True,
                          "Node {} not found in graph")


@_implements(can_run=_weight_rule)
def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    """Weighted shortest paths from ``source``."""
    return single_source_dijkstra(G, source, cutoff=cutoff, weight=weight)[1]


@_implements(can_run=_weight_rule)
def dijkstra_path(G, source, target, weight="weight"):
    """A weighted shortest path from ``source`` to ``target``."""
    return single_source_dijkstra(G, source, target=target, weight=weight)[1]


def _length_to(G, source, target, weight, dijkstra, source_message, no_path):
    """The weighted distance from ``source`` to ``target`` (no path needed, so no ties)."""
    G = _graph(G, weight)
    sid = _weighted_source(G, source, source_message)
    if source == target:
        return 0
    W = G.edge_matrix(weight, 1, "min")
    if dijkstra and W.nvals and W.reduce_scalar(monoid.min).new().value < 0:
        raise NotImplementedError(
            "the graph has negative edge weights, for which Dijkstra's distances are not "
            "defined; use bellman_ford_path_length")
    if target not in G:
        raise nx.NetworkXNoPath(no_path)
    value = _sssp(W, sid).get(G.id_of(target))
    if value is None:
        raise nx.NetworkXNoPath(no_path)
    return value


@_implements(can_run=_weight_rule)
def dijkstra_path_length(G, source, target, weight="weight"):
    """The weighted distance from ``source`` to ``target``."""
    return _length_to(G, source, target, weight, True, "Node {} not found in graph",
                      f"Node {target} not reachable from {source}")


def _each_source(G, single, **kwargs):
    """``(node, single(G, node, **kwargs))`` for every node, lazily, as NetworkX's all-pairs
    functions yield them.  A source graphblast declines while running (equally short paths
    NetworkX chooses among by its queue, negative weights for Dijkstra) is answered by
    NetworkX's function of the same name on the NetworkX graph: a generator already handed
    out cannot fall back as a whole."""
    for node in G.nodes:
        try:
            result = single(G, node, **kwargs)
        except NotImplementedError:
            source = G.networkx_graph()
            if source is None:
                raise
            result = getattr(nx, single.__name__)(source, node, backend="networkx", **kwargs)
        yield (node, result)


@_implements(can_run=_weight_rule)
def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    """``(node, (dist, paths))`` for every node."""
    yield from _each_source(_graph(G, weight), single_source_dijkstra, cutoff=cutoff,
                            weight=weight)


@_implements(can_run=_weight_rule)
def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    """``(node, paths)`` for every node."""
    yield from _each_source(_graph(G, weight), single_source_dijkstra_path, cutoff=cutoff,
                            weight=weight)


@_implements(can_run=_weight_rule)
def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    """``(node, {target: distance})`` for every node."""
    from .algorithms import single_source_dijkstra_path_length

    yield from _each_source(_graph(G, weight), single_source_dijkstra_path_length,
                            cutoff=cutoff, weight=weight)


# -- Bellman-Ford ---------------------------------------------------------------------------
@_implements(can_run=_weight_rule)
def single_source_bellman_ford(G, source, target=None, weight="weight"):
    """Weighted distances and shortest paths from ``source``; negative weights allowed."""
    G = _graph(G, weight)
    if target is not None and source == target:
        _weighted_source(G, source, "Node {} is not found in the graph")
        return 0, [source]
    return _single_source(G, source, target, None, weight, False, "Source {} not in G")


@_implements(can_run=_weight_rule)
def single_source_bellman_ford_path(G, source, weight="weight"):
    """Weighted shortest paths from ``source``; negative weights allowed."""
    return single_source_bellman_ford(G, source, weight=weight)[1]


@_implements(can_run=_weight_rule)
def bellman_ford_path(G, source, target, weight="weight"):
    """A weighted shortest path from ``source`` to ``target``; negative weights allowed."""
    return single_source_bellman_ford(G, source, target=target, weight=weight)[1]


@_implements(can_run=_weight_rule)
def bellman_ford_path_length(G, source, target, weight="weight"):
    """The weighted distance from ``source`` to ``target``; negative weights allowed."""
    G = _graph(G, weight)
    if source == target:
        _weighted_source(G, source, "Node {} not found in graph")
        return 0
    return _length_to(G, source, target, weight, False, "Source {} not in G",
                      f"node {target} not reachable from {source}")


@_implements(can_run=_weight_rule)
def all_pairs_bellman_ford_path(G, weight="weight"):
    """``(node, paths)`` for every node; negative weights allowed."""
    yield from _each_source(_graph(G, weight), single_source_bellman_ford_path,
                            weight=weight)


@_implements(can_run=_weight_rule)
def all_pairs_bellman_ford_path_length(G, weight="weight"):
    """``(node, {target: distance})`` for every node; negative weights allowed."""
    from .algorithms import single_source_bellman_ford_path_length

    yield from _each_source(_graph(G, weight), single_source_bellman_ford_path_length,
                            weight=weight)


def _negatively_weighted_rule(arguments):
    edge = arguments.get("edge")
    if edge is not None and arguments["G"].is_multigraph():
        return ("edge= on a multigraph names a key dict, which graphblast does not keep; "
                "NetworkX answers it")
    return _weight_rule(arguments)


@_implements(can_run=_negatively_weighted_rule)
def is_negatively_weighted(G, edge=None, weight="weight"):
    """Whether some edge (or ``edge``) has a negative ``weight``."""
    G = _graph(G, weight)
    W = G.edge_matrix(weight, None, "min")
    if edge is None:
        return bool(W.select(select.valuelt, 0).new().nvals)
    u, v = edge
    if u not in G or v not in G or G.matrix.get(G.id_of(u), G.id_of(v)) is None:
        raise nx.NetworkXError(f"Edge {edge!r} does not exist.")
    value = W.get(G.id_of(u), G.id_of(v))
    return value is not None and bool(value < 0)


# -- the generic front doors ----------------------------------------------------------------
def _method(method, weight):
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    return "unweighted" if weight is None else method


def _to_target(G, target, weight, method):
    """The shortest-path tree to ``target``: NetworkX searches from it on ``G.reverse()``."""
    message = "Node {} not found in graph" if method == "dijkstra" else "Source {} not in G"
    tid = _weighted_source(G, target, message)
    return _weighted_tree(G, tid, weight, dijkstra=method == "dijkstra", reverse=True)


@_implements(can_run=_weight_rule)
def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    """NetworkX's ``shortest_path``: the function it calls for these arguments, here."""
    method = _method(method, weight)
    G = _graph(G, weight)
    if source is None and target is None:
        return {"unweighted": all_pairs_shortest_path, "dijkstra": all_pairs_dijkstra_path,
                "bellman-ford": all_pairs_bellman_ford_path}[method](
            G, **({} if method == "unweighted" else {"weight": weight}))
    if source is None:
        if method == "unweighted":
            return single_target_shortest_path(G, target)
        tree = _to_target(G, target, weight, method)
        tree.check(tree.order, "shortest paths to a target")
        return _paths(G, tree.order, tree.parent[tree.order], backwards=True)
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path(G, source)
        single = (single_source_dijkstra_path if method == "dijkstra"
                  else single_source_bellman_ford_path)
        return single(G, source, weight=weight)
    if method == "unweighted":
        return bidirectional_shortest_path(G, source, target)
    if method == "dijkstra":
        return _bidirectional_dijkstra_path(G, source, target, weight)
    return bellman_ford_path(G, source, target, weight=weight)


def _bidirectional_dijkstra_path(G, source, target, weight):
    """A weighted shortest path where NetworkX runs ``bidirectional_dijkstra``: Dijkstra's
    path (NetworkX's ``dijkstra_path``).  Where several paths are shortest, NetworkX's
    bidirectional search may meet on another one; it documents no choice."""
    sid = _weighted_source(G, source, "Source {} is not in G")
    tid = _weighted_source(G, target, "Target {} is not in G")
    if sid == tid:
        return [source]
    tree = _weighted_tree(G, sid, weight, dijkstra=True)
    if not np.any(tree.order == tid):
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return _path_to(G, tree.parent, sid, tid)


@_implements(can_run=_weight_rule)
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """NetworkX's ``shortest_path_length``: the function it calls for these arguments."""
    from .algorithms import (single_source_bellman_ford_path_length,
                             single_source_dijkstra_path_length,
                             single_source_shortest_path_length)

    method = _method(method, weight)
    G = _graph(G, weight)
    kw = {} if method == "unweighted" else {"weight": weight}
    if source is None and target is None:
        return {"unweighted": all_pairs_shortest_path_length,
                "dijkstra": all_pairs_dijkstra_path_length,
                "bellman-ford": all_pairs_bellman_ford_path_length}[method](G, **kw)
    single = {"unweighted": single_source_shortest_path_length,
              "dijkstra": single_source_dijkstra_path_length,
              "bellman-ford": single_source_bellman_ford_path_length}[method]
    if source is None:
        if method == "unweighted":
            return single_target_shortest_path_length(G, target)
        tree = _to_target(G, target, weight, method)
        return dict(zip(G.labels(tree.order), tree.dist))
    if target is None:
        return single(G, source, **kw)
    if method == "unweighted":
        return len(bidirectional_shortest_path(G, source, target)) - 1
    if method == "dijkstra":
        return dijkstra_path_length(G, source, target, weight=weight)
    return bellman_ford_path_length(G, source, target, weight=weight)


@_implements()
def has_path(G, source, target):
    """Whether ``target`` is reachable from ``source``."""
    G = _graph(G)
    sid = _source_check(G, source, "Source {} is not in G")
    tid = _source_check(G, target, "Target {} is not in G")
    return _bidirectional(G, sid, tid) is not None
