"""NetworkX graphs to graphblast matrices and back.

A NetworkX graph is a dict of dicts; graphblast computes on sparse matrices.  Converting reads
the adjacency once (``O(n + m)`` Python work, unavoidable for a dict of dicts, done with
C-level iteration: ``itertools.chain``, ``map`` and ``np.fromiter``) and keeps, in NumPy arrays
on the host:

- the node labels, in ``G``'s order; node ``i`` of every matrix is ``nodes[i]``;
- the neighbour lists in ``G``'s adjacency order (``indptr``, ``cols``), because NetworkX's
  traversal order (``bfs_edges``, ``bfs_layers``) is defined by that order and a matrix
  sorts it away;
- the values of each edge attribute asked for, with a mask of the edges that have it.

The matrices (the structure, each attribute's values, the adjacency ranks) are built from
those arrays on the configured device the first time an algorithm needs them, and kept.

NetworkX 3.4+ caches the converted graph itself, in ``G.__networkx_cache__["backends"]
["graphblast"]``, keyed by the edge and node attributes converted; changing ``G`` through its
methods clears the cache.  :class:`GraphblastGraph` is immutable, so reusing it is safe.
"""

import itertools
import operator
import weakref

import networkx as nx
import numpy as np

__all__ = ["GraphblastGraph", "convert_from_nx", "convert_to_nx"]

# Stands for "the edge has no such attribute"; None cannot, since it is a legal value.
_MISSING = object()


def _numeric(values, attr):
    """``values`` (a list) as a NumPy array of a real or boolean type.

    Raises NotImplementedError otherwise, so that NetworkX runs the call itself (and reports
    whatever its own algorithm makes of such values) instead of failing in the conversion.
    """
    # No values at all: int64, so that a default of 1 fills in ints, as NetworkX adds them.
    arr = np.asarray(values) if values else np.zeros(0, np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "biuf":
        example = next((v for v in values if not isinstance(v, (bool, int, float))), None)
        raise NotImplementedError(
            f"edge attribute {attr!r} holds values graphblast cannot store as numbers "
            f"(for example {example!r} of type {type(example).__name__}); only int, float "
            "and bool edge values are converted"
        )
    return arr


class _Attribute:
    """The values of one edge attribute over the stored entries, in adjacency order.

    ``present`` is None when every entry has the attribute, else a boolean mask; entries
    without it hold 0 in ``values``.  ``default`` is the value the conversion was asked to
    give them (None: none was).
    """

    __slots__ = ("default", "present", "values")

    def __init__(self, values, present, default):
        self.values = values
        self.present = present
        self.default = default


class GraphblastGraph:
    """A NetworkX graph converted for the graphblast backend.

    Made by :func:`convert_from_nx` (NetworkX calls it when dispatching), it holds the graph
    as graphblast matrices on one device and maps node labels to matrix indices: node ``i``
    of every matrix is ``nodes[i]``, ``G``'s ``i``-th node.  It is read-only; build a new one
    after changing the NetworkX graph.

    NetworkX functions the backend implements accept it in place of ``G`` and run without
    converting again; with ``nx.config.fallback_to_nx = True`` the others convert it back
    with :meth:`to_networkx` and run in NetworkX.

    Attributes
    ----------
    nodes : list
        The node labels, index ``i`` first.
    graph : dict
        The graph attributes (``G.graph``) when they were converted.
    """

    __networkx_backend__ = "graphblast"

    def __init__(self, *, nodes, key_to_id, indptr, cols, multiplicity, attributes,
                 directed, multigraph, device, graph=None, node_data=None, source=None,
                 every_attribute=False, non_numeric=()):
        self.nodes = nodes
        self.graph = {} if graph is None else graph
        self._key_to_id = key_to_id
        self._indptr = indptr
        self._cols = cols
        self._multiplicity = multiplicity
        self._attributes = attributes
        self._directed = directed
        self._multigraph = multigraph
        self._device = device
        self._node_data = node_data
        # Converted with every edge attribute (preserve_edge_attrs): an attribute not in
        # `attributes` is then on no edge, unless it was skipped as non-numeric.
        self._every_attribute = every_attribute
        self._non_numeric = frozenset(non_numeric)
        # The NetworkX graph converted (a weak reference): read again only for what the
        # conversion does not keep and few calls need (predecessor order, ego_graph's data).
        self._source = None if source is None else weakref.ref(source)
        self._labels = None
        self._pred = None
        self._matrices = {}
        # NetworkX caches conversions of this graph back to NetworkX here.
        self.__networkx_cache__ = {}

    def __getstate__(self):
        # A weak reference does not pickle; NetworkX pickles a graph with its cache of
        # conversions.  Unpickled, the graph reads nothing more from a NetworkX graph (the
        # calls that would need to run in NetworkX).
        state = dict(self.__dict__)
        state["_source"] = None
        return state

    # -- what NetworkX and its decorators ask of a graph -----------------------------------
    def is_directed(self):
        """Whether the graph is directed."""
        return self._directed

    def is_multigraph(self):
        """Whether the graph came from a MultiGraph or MultiDiGraph (parallel edges merged)."""
        return self._multigraph

    def number_of_nodes(self):
        """The number of nodes."""
        return len(self.nodes)

    def __len__(self):
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node):
        # As nx.Graph.__contains__: an unhashable object is simply not a node.
        try:
            return node in self._key_to_id
        except TypeError:
            return False

    def number_of_edges(self):
        """The number of edges, as ``G.number_of_edges()`` counts them."""
        rows = self._entry_rows()
        loops = int(np.count_nonzero(rows == self._entry_cols()))
        if self._directed:
            return int(rows.size)
        return (int(rows.size) + loops) // 2

    @property
    def device(self):
        """The device the matrices live on."""
        return self._device

    def __repr__(self):
        kind = ("Multi" if self._multigraph else "") + ("DiGraph" if self._directed else "Graph")
        return (f"<GraphblastGraph ({kind}) with {len(self.nodes)} nodes and "
                f"{self.number_of_edges()} edges on {self._device}>")

    # -- labels and ids ----------------------------------------------------------------------
    @property
    def key_to_id(self):
        """The dict from node label to matrix index (read it, do not change it)."""
        return self._key_to_id

    def id_of(self, node):
        """The matrix index of ``node``; raises KeyError for a node not in the graph."""
        return self._key_to_id[node]

    def labels(self, ids):
        """The node labels of the integer array ``ids``, as a list of the original objects."""
        if self._labels is None:
            # fromiter keeps tuples and other sequences whole, where np.array would unpack them.
            self._labels = np.fromiter(self.nodes, dtype=object, count=len(self.nodes))
        return self._labels[np.asarray(ids, dtype=np.intp)].tolist()

    # -- the stored entries ------------------------------------------------------------------
    def _pair_rows(self):
        return np.repeat(np.arange(len(self.nodes), dtype=np.int64), np.diff(self._indptr))

    def _entry_rows(self):
        """Row of every stored entry (parallel edges of a multigraph one entry each)."""
        rows = self._pair_rows()
        return rows if self._multiplicity is None else np.repeat(rows, self._multiplicity)

    def _entry_cols(self):
        cols = self._cols
        return cols if self._multiplicity is None else np.repeat(cols, self._multiplicity)

    def has_edge_attribute(self, attr):
        """Whether the edge attribute ``attr`` was converted (None, "no attribute", always is)."""
        return attr is None or attr in self._attributes or (
            self._every_attribute and attr not in self._non_numeric)

    def _stored(self, attr):
        """The converted values of ``attr`` (an :class:`_Attribute`)."""
        if attr in self._attributes:
            return self._attributes[attr]
        if attr in self._non_numeric:
            raise NotImplementedError(
                f"edge attribute {attr!r} holds values graphblast cannot store as numbers; "
                "only int, float and bool edge values are converted")
        if not self._every_attribute:
            raise KeyError(
                f"edge attribute {attr!r} was not converted; convert the graph with "
                f"edge_attrs={{{attr!r}: 1}} (NetworkX does this when dispatching)")
        # every attribute was converted and no edge has this one
        entries = self._entry_rows().size
        return _Attribute(np.zeros(entries, np.int64), np.zeros(entries, bool), None)

    # -- matrices ----------------------------------------------------------------------------
    def _build(self, rows, cols, values, dtype=None, dup_op=None):
        from graphblast import Matrix

        n = len(self.nodes)
        return Matrix.from_coo(rows, cols, values, dtype, nrows=n, ncols=n, dup_op=dup_op,
                               device=self._device)

    @property
    def matrix(self):
        """The adjacency structure: a BOOL Matrix, ``A[i, j]`` True for each edge ``i -> j``.

        An undirected graph stores both directions of each edge; parallel edges are one entry.
        """
        if "structure" not in self._matrices:
            self._matrices["structure"] = self._build(self._pair_rows(), self._cols, True,
                                                      "BOOL")
        return self._matrices["structure"]

    def edge_matrix(self, attr=None, default=1, combine="sum"):
        """The edge values of attribute ``attr`` as a Matrix.

        Parameters
        ----------
        attr : str or None
            The edge attribute; None gives 1 for every edge (INT64), as NetworkX's
            ``weight=None`` does.
        default : number or None, default 1
            The value of edges without the attribute (NetworkX's algorithms count them as 1);
            None leaves them out of the matrix.  A default given to the conversion
            (``edge_attrs={attr: default}``) takes precedence: the graph was made with it.
        combine : {"sum", "min"}
            How parallel edges of a multigraph combine: "sum" as ``to_scipy_sparse_array``
            and PageRank do, "min" as the shortest-path functions do.

        Returns
        -------
        Matrix

        Raises
        ------
        KeyError
            If ``attr`` was not converted (pass it in ``edge_attrs`` to convert_from_nx).
        """
        from graphblast import binary

        key = (attr, default, combine)
        if key in self._matrices:
            return self._matrices[key]
        rows, cols = self._entry_rows(), self._entry_cols()
        if attr is None:
            values = np.ones(rows.size, np.int64)
        else:
            stored = self._stored(attr)
            if stored.default is not None:
                default = stored.default
            values = stored.values
            if stored.present is not None:
                if default is None:
                    rows, cols = rows[stored.present], cols[stored.present]
                    values = values[stored.present]
                else:
                    values = np.where(stored.present, values, default)
        if values.dtype == np.bool_:
            # NetworkX adds True and True to 2, so booleans count as the integers 0 and 1.
            values = values.astype(np.int64)
        dup_op = None
        if self._multigraph:
            dup_op = binary.plus if combine == "sum" else binary.min
        self._matrices[key] = matrix = self._build(rows, cols, values, dup_op=dup_op)
        return matrix

    def derived(self, key, build):
        """The matrix ``build()`` returns, computed once per graph and kept under ``key``.

        For matrices an algorithm derives from the graph's own (the structure without
        self-loops, ...); the graph never changes, so they never go stale.
        """
        if key not in self._matrices:
            self._matrices[key] = build()
        return self._matrices[key]

    def rank_matrix(self):
        """INT64 Matrix ``R``: ``R[i, j]`` is the position of ``j`` among ``i``'s neighbours.

        The position is in NetworkX's adjacency order (``list(G[i])``); breadth-first
        traversals use it to visit children in the order NetworkX does.
        """
        if "rank" not in self._matrices:
            rows = self._pair_rows()
            rank = np.arange(rows.size, dtype=np.int64) - self._indptr[rows]
            self._matrices["rank"] = self._build(rows, self._cols, rank, "INT64")
        return self._matrices["rank"]

    def networkx_graph(self):
        """The NetworkX graph this one was converted from, or None if it no longer exists."""
        return None if self._source is None else self._source()

    def adjacency(self, reverse=False):
        """The neighbour lists as host CSR arrays ``(indptr, cols)`` in NetworkX's order.

        ``reverse=True`` gives each node's predecessors in ``G.pred``'s order (for an
        undirected graph, the neighbours again).  The conversion does not keep that order, so
        it is read from the NetworkX graph the first time it is asked for.

        Raises
        ------
        NotImplementedError
            If the predecessors are asked for and the NetworkX graph no longer exists or no
            longer has the converted edges (NetworkX then runs the call itself).
        """
        if not reverse or not self._directed:
            return self._indptr, self._cols
        if self._pred is None:
            G = self.networkx_graph()
            if G is None:
                raise NotImplementedError(
                    "the NetworkX graph this graph was converted from no longer exists, and "
                    "the order of its predecessors is needed; convert it again")
            pred = G._pred
            lists = [pred[u] for u in self.nodes] if type(pred) is dict else [
                list(pred[u]) for u in self.nodes]
            indptr, cols = _neighbour_arrays(lists, self.nodes, self._key_to_id)
            if cols.size != self._cols.size:
                raise NotImplementedError(
                    "the NetworkX graph changed since it was converted; convert it again")
            self._pred = indptr, cols
        return self._pred

    def reverse_rank_matrix(self):
        """INT64 Matrix ``P``: ``P[i, j]`` is the position of ``j`` among ``i``'s predecessors.

        The position is in ``G.pred``'s order, by which NetworkX's reverse traversals
        (``single_target_shortest_path``, ``ancestors``, ...) visit; for an undirected graph
        it is :meth:`rank_matrix`.  Raises NotImplementedError as :meth:`adjacency` does.
        """
        if not self._directed:
            return self.rank_matrix()
        if "reverse rank" not in self._matrices:
            indptr, cols = self.adjacency(reverse=True)
            rows = np.repeat(np.arange(len(self.nodes), dtype=np.int64), np.diff(indptr))
            rank = np.arange(rows.size, dtype=np.int64) - indptr[rows]
            self._matrices["reverse rank"] = self._build(rows, cols, rank, "INT64")
        return self._matrices["reverse rank"]

    def max_degree(self):
        """The largest number of distinct neighbours of a node (0 for an empty graph)."""
        counts = np.diff(self._indptr)
        return int(counts.max()) if counts.size else 0

    # -- back to NetworkX --------------------------------------------------------------------
    def to_networkx(self):
        """A NetworkX graph with the same nodes, edges and converted attributes.

        Parallel edges of a multigraph come back as parallel edges with keys 0, 1, ...; only
        the attributes that were converted come back.
        """
        cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
               (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
        G = cls[(self._directed, self._multigraph)]()
        G.graph.update(self.graph)
        if self._node_data is None:
            G.add_nodes_from(self.nodes)
        else:
            G.add_nodes_from((v, dict(self._node_data.get(v, ()))) for v in self.nodes)
        rows, cols = self._entry_rows(), self._entry_cols()
        # An undirected graph stores each edge twice; keep one direction.
        keep = slice(None) if self._directed else rows <= cols
        rows, cols = rows[keep], cols[keep]
        data = [{} for _ in range(rows.size)]
        for attr, stored in self._attributes.items():
            values = stored.values[keep].tolist()
            present = (range(len(values)) if stored.present is None
                       else np.flatnonzero(stored.present[keep]).tolist())
            for i in present:
                data[i][attr] = values[i]
        G.add_edges_from(zip(self.labels(rows), self.labels(cols), data))
        return G


def _graph_device():
    """The device for newly converted graphs: the backend's config, else graphblast's."""
    backends = getattr(nx.config, "backends", None)
    cfg = getattr(backends, "graphblast", None) if backends is not None else None
    return getattr(cfg, "device", None)


def _attribute(data_dicts, attr, count, default):
    """Collect ``attr`` from every edge data dict (an iterable of ``count`` dicts)."""
    raw = list(map(operator.methodcaller("get", attr, _MISSING), data_dicts))
    missing = raw.count(_MISSING)
    if missing == 0:
        return _Attribute(_numeric(raw, attr), None, default)
    present = np.fromiter((v is not _MISSING for v in raw), dtype=bool, count=count)
    numbers = _numeric([v for v in raw if v is not _MISSING], attr)
    values = np.zeros(count, dtype=numbers.dtype)
    values[present] = numbers
    return _Attribute(values, present, default)


def _neighbour_dicts(adj, nodes, multigraph):
    """``[adj[u] for u in nodes]``, copied into plain dicts where ``adj`` is a view.

    A graph's own dicts report their length exactly; a view's may not: a filtered multigraph
    view's ``len(G._adj[u])`` counts the neighbours its edge filter hides, while iterating
    skips them.  A view's dicts are therefore read once by iterating, as NetworkX does.
    """
    nbr_dicts = [adj[u] for u in nodes]
    if type(adj) is dict:
        return nbr_dicts
    if multigraph:
        return [{v: dict(keys) for v, keys in d.items()} for d in nbr_dicts]
    return [dict(d) for d in nbr_dicts]


def _neighbour_arrays(nbr_lists, nodes, key_to_id):
    """CSR arrays ``(indptr, cols)`` of the neighbours ``nbr_lists[i]`` of ``nodes[i]``
    (sized iterables of node labels), in their order."""
    n = len(nodes)
    counts = np.fromiter(map(len, nbr_lists), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    m = int(indptr[-1])
    neighbours = itertools.chain.from_iterable(nbr_lists)
    if nodes == list(range(n)):
        # Labels 0..n-1 in order are their own ids: skip the dict lookups.
        cols = np.fromiter(neighbours, dtype=np.int64, count=m)
    else:
        cols = np.fromiter(map(key_to_id.__getitem__, neighbours), dtype=np.int64, count=m)
    return indptr, cols


def convert_from_nx(graph, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None, *, device=None):
    """Convert a NetworkX graph to a :class:`GraphblastGraph` (the dispatch protocol's hook).

    Parameters
    ----------
    graph : networkx.Graph
        Any Graph, DiGraph, MultiGraph or MultiDiGraph (or a view or subclass of one).
    edge_attrs : dict or None
        ``{attribute: default}``: the edge attributes to convert.  An edge without the
        attribute takes ``default``; a default of None leaves it without a value.
    node_attrs : dict or None
        ``{attribute: default}`` for node attributes (kept only for :meth:`to_networkx`).
    preserve_edge_attrs, preserve_node_attrs, preserve_graph_attrs : bool
        Convert every edge attribute (numeric ones; see Raises), node attribute or the
        graph attributes.
    name, graph_name : str, optional
        The dispatched function and argument, for messages.
    device : str, optional
        Where to build the matrices; default ``nx.config.backends.graphblast.device``, then
        graphblast's default device.

    Returns
    -------
    GraphblastGraph

    Raises
    ------
    TypeError
        If ``graph`` is not a NetworkX graph.
    NotImplementedError
        If an edge attribute asked for by name holds non-numeric values (NetworkX then runs
        the function itself).  With ``preserve_edge_attrs=True``, non-numeric attributes
        are skipped instead.
    """
    if not isinstance(graph, nx.Graph):
        where = f" for argument {graph_name!r} of {name}" if name else ""
        raise TypeError(
            f"graphblast can only convert NetworkX graphs{where}, got "
            f"{type(graph).__module__}.{type(graph).__qualname__}"
        )
    from graphblast.backends import parse_device

    device = device if device is not None else _graph_device()
    if device is None:
        from graphblast import default_device

        device = default_device()
    device = parse_device(device)

    nodes = list(graph)
    n = len(nodes)
    key_to_id = dict(zip(nodes, range(n)))
    multigraph = graph.is_multigraph()
    nbr_dicts = _neighbour_dicts(graph._adj, nodes, multigraph)
    indptr, cols = _neighbour_arrays(nbr_dicts, nodes, key_to_id)
    m = cols.size
    values_of = operator.methodcaller("values")
    if multigraph:
        # adj[u][v] is {key: data}: one entry per parallel edge, in key order.
        keydicts = list(itertools.chain.from_iterable(map(values_of, nbr_dicts)))
        multiplicity = np.fromiter(map(len, keydicts), dtype=np.int64, count=m)
        entries = int(multiplicity.sum())

        def data_dicts():
            return itertools.chain.from_iterable(map(values_of, keydicts))
    else:
        multiplicity = None
        entries = m

        def data_dicts():
            return itertools.chain.from_iterable(map(values_of, nbr_dicts))

    non_numeric = []
    if preserve_edge_attrs:
        names = set(itertools.chain.from_iterable(data_dicts()))
        attributes = {}
        for attr in names:
            try:
                attributes[attr] = _attribute(data_dicts(), attr, entries, None)
            except NotImplementedError:
                non_numeric.append(attr)  # a label, colour...: nothing computes on it
    else:
        # Defaults are applied when a matrix is built (edge_matrix), from the mask of the
        # edges that have the attribute.
        attributes = {attr: _attribute(data_dicts(), attr, entries, default)
                      for attr, default in (edge_attrs or {}).items()}

    node_data = None
    if preserve_node_attrs:
        node_data = {v: dict(d) for v, d in graph._node.items()}
    elif node_attrs:
        node_data = {
            v: {attr: d.get(attr, default) for attr, default in node_attrs.items()
                if default is not None or attr in d}
            for v, d in graph._node.items()
        }

    return GraphblastGraph(
        nodes=nodes, key_to_id=key_to_id, indptr=indptr, cols=cols, multiplicity=multiplicity,
        attributes=attributes, directed=graph.is_directed(), multigraph=multigraph,
        device=device, graph=dict(graph.graph) if preserve_graph_attrs else None,
        node_data=node_data, source=graph, every_attribute=bool(preserve_edge_attrs),
        non_numeric=non_numeric,
    )


def convert_to_nx(obj, *, name=None):
    """Results to NetworkX types: a :class:`GraphblastGraph` becomes a NetworkX graph.

    Every other result (dicts, numbers, iterators, SciPy arrays) is already what NetworkX
    returns and passes through unchanged.
    """
    if isinstance(obj, GraphblastGraph):
        return obj.to_networkx()
    return obj
