"""The traversal, shortest-path, structure and degree-centrality functions of the NetworkX
backend (graphblast.nx.traversal, shortest_paths, structure, centrality_degree) against
NetworkX, on the zoo of test_nx_backend and on graphs built to have many equally short paths;
and the conversion of every kind of NetworkX graph view.
"""

import random

import pytest  # noqa: I001

nx = pytest.importorskip("networkx")
if "graphblast" not in nx.utils.backends.backends:
    pytest.skip("graphblast's NetworkX entry points are not installed; install the project "
                "(pip install -e .) to register the backend", allow_module_level=True)

def _zoo():
    """test_nx_backend's graph zoo and result comparison (tests/ is not a package)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).with_name("test_nx_backend.py")
    spec = importlib.util.spec_from_file_location("graphblast_nx_zoo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_ZOO = _zoo()
GRAPHS, _assert_same, _first = _ZOO.GRAPHS, _ZOO._assert_same, _ZOO._first

from graphblast.nx import algorithms, centrality_degree, shortest_paths, structure, traversal
from graphblast.nx.backend import BackendInterface
from graphblast.nx.convert import convert_from_nx

MODULES = {m.__name__ for m in (centrality_degree, shortest_paths, structure, traversal)}


@pytest.fixture(autouse=True)
def graphblast_device(device):
    with nx.config.backends.graphblast(device=device), \
            nx.config(warnings_to_ignore={"cache"}):
        yield device


@pytest.fixture(params=["host", "matrices"])
def traversal(request, monkeypatch):
    """Breadth-first layers on the host arrays (small graphs) or by graphblast products."""
    if request.param == "matrices":
        monkeypatch.setattr(algorithms, "HOST_TRAVERSAL_MAX_PAIRS", -1)
    return request.param


def _last(G):
    return list(G)[-1] if len(G) else "not-a-node"


def _second(G):
    return list(G)[1] if len(G) > 1 else _first(G)


# (function, arguments from the graph, keyword arguments from the graph, order matters)
SPECS = [
    ("bfs_tree", lambda G: (_first(G),), lambda G: {}, True),
    ("bfs_tree", lambda G: (_first(G),), lambda G: {"reverse": True, "depth_limit": 2}, True),
    ("generic_bfs_edges", lambda G: (_first(G),), lambda G: {}, True),
    ("generic_bfs_edges", lambda G: (_first(G),), lambda G: {"depth_limit": 1}, True),
    ("ancestors", lambda G: (_last(G),), lambda G: {}, False),
    ("descendants", lambda G: (_first(G),), lambda G: {}, False),
    ("has_path", lambda G: (_first(G), _last(G)), lambda G: {}, False),
    ("ego_graph", lambda G: (_first(G),), lambda G: {}, True),
    ("ego_graph", lambda G: (_first(G),), lambda G: {"radius": 2, "center": False}, True),
    ("ego_graph", lambda G: (_first(G),), lambda G: {"radius": 2, "undirected": True}, True),
    ("ego_graph", lambda G: (_first(G),), lambda G: {"radius": 3.0, "distance": "weight"},
     True),
    ("lowest_common_ancestor", lambda G: (_first(G), _last(G)), lambda G: {}, False),
    ("single_source_shortest_path", lambda G: (_first(G),), lambda G: {}, True),
    ("single_source_shortest_path", lambda G: (_first(G),), lambda G: {"cutoff": 2}, True),
    ("single_target_shortest_path", lambda G: (_last(G),), lambda G: {}, True),
    ("single_target_shortest_path_length", lambda G: (_last(G),), lambda G: {"cutoff": 2},
     True),
    ("bidirectional_shortest_path", lambda G: (_first(G), _last(G)), lambda G: {}, True),
    ("bidirectional_shortest_path", lambda G: (_second(G), _last(G)), lambda G: {}, True),
    ("shortest_path", lambda G: (), lambda G: {"source": _first(G)}, True),
    ("shortest_path", lambda G: (), lambda G: {"target": _last(G)}, True),
    ("shortest_path", lambda G: (), lambda G: {"source": _first(G), "target": _last(G),
                                              "weight": "weight"}, True),
    ("shortest_path", lambda G: (), lambda G: {"weight": "weight", "method": "bellman-ford"},
     False),
    ("shortest_path_length", lambda G: (), lambda G: {}, True),
    ("shortest_path_length", lambda G: (), lambda G: {"source": _first(G), "target": _last(G),
                                                     "weight": "weight"}, False),
    ("shortest_path_length", lambda G: (), lambda G: {"target": _last(G), "weight": "weight"},
     False),
    ("all_pairs_shortest_path", lambda G: (), lambda G: {"cutoff": 2}, True),
    ("all_pairs_shortest_path_length", lambda G: (), lambda G: {}, True),
    ("dijkstra_path", lambda G: (_first(G), _last(G)), lambda G: {}, False),
    ("dijkstra_path_length", lambda G: (_first(G), _last(G)), lambda G: {}, False),
    ("single_source_dijkstra", lambda G: (_first(G),), lambda G: {}, False),
    ("single_source_dijkstra", lambda G: (_first(G),), lambda G: {"target": _last(G),
                                                                   "cutoff": 4}, False),
    ("single_source_dijkstra_path", lambda G: (_first(G),), lambda G: {"weight": None}, False),
    ("all_pairs_dijkstra", lambda G: (), lambda G: {"cutoff": 3}, False),
    ("all_pairs_dijkstra_path", lambda G: (), lambda G: {}, False),
    ("all_pairs_dijkstra_path_length", lambda G: (), lambda G: {}, False),
    ("bellman_ford_path", lambda G: (_first(G), _last(G)), lambda G: {}, False),
    ("bellman_ford_path_length", lambda G: (_first(G), _last(G)), lambda G: {}, False),
    ("single_source_bellman_ford", lambda G: (_first(G),), lambda G: {}, False),
    ("single_source_bellman_ford_path", lambda G: (_first(G),), lambda G: {}, False),
    ("all_pairs_bellman_ford_path", lambda G: (), lambda G: {}, False),
    ("all_pairs_bellman_ford_path_length", lambda G: (), lambda G: {}, False),
    ("is_negatively_weighted", lambda G: (), lambda G: {}, False),
    ("is_negatively_weighted", lambda G: (), lambda G: {"edge": next(iter(G.edges), (0, 1))},
     False),
    ("degree_centrality", lambda G: (), lambda G: {}, True),
    ("in_degree_centrality", lambda G: (), lambda G: {}, True),
    ("out_degree_centrality", lambda G: (), lambda G: {}, True),
    ("is_tree", lambda G: (), lambda G: {}, False),
    ("is_forest", lambda G: (), lambda G: {}, False),
    ("is_branching", lambda G: (), lambda G: {}, False),
    ("is_arborescence", lambda G: (), lambda G: {}, False),
    ("isolates", lambda G: (), lambda G: {}, True),
    ("is_isolate", lambda G: (_last(G),), lambda G: {}, False),
    ("number_of_isolates", lambda G: (), lambda G: {}, False),
    ("number_of_selfloops", lambda G: (), lambda G: {}, False),
    ("reciprocity", lambda G: (), lambda G: {}, False),
    ("reciprocity", lambda G: (), lambda G: {"nodes": list(G)[:4]}, True),
    ("reciprocity", lambda G: (_first(G),), lambda G: {}, False),
    ("overall_reciprocity", lambda G: (), lambda G: {}, False),
]


def _comparable(result):
    """A returned graph as its class, nodes (in order), adjacency with data and attributes."""
    if isinstance(result, nx.Graph):
        return (type(result).__name__, list(result.nodes(data=True)),
                {u: dict(nbrs) for u, nbrs in result.adj.items()}, result.graph)
    return result


def _outcome(name, G, args, kwargs, backend):
    """test_nx_backend's outcome, a returned graph made comparable."""
    kind, value = _ZOO._outcome(name, G, args, kwargs, backend)
    return kind, _comparable(value) if kind == "returns" else value


@pytest.mark.parametrize("graph_name", GRAPHS)
@pytest.mark.parametrize("spec", range(len(SPECS)),
                         ids=[f"{s[0]}-{i}" for i, s in enumerate(SPECS)])
def test_same_outcome_as_networkx(graph_name, spec, traversal):
    name, args_of, kwargs_of, ordered = SPECS[spec]
    G = GRAPHS[graph_name]()
    args, kwargs = args_of(G), kwargs_of(G)
    expected = _outcome(name, G, args, kwargs, "networkx")
    if BackendInterface.can_run(name, (G, *args), kwargs) is not True:
        return  # declined before running (test_declines_say_why checks the reasons)
    got = _outcome(name, G, args, kwargs, "graphblast")
    where = f"{name}({graph_name}, {args}, {kwargs})"
    if got == ("raises", NotImplementedError):
        # declined while running: automatic dispatch then runs NetworkX, with its answer
        with nx.config(backend_priority={"algos": ["graphblast"]}), \
                nx.config.backends.graphblast(min_edges=0):
            assert _outcome(name, G, args, kwargs, None) == expected, where
        return
    assert got[0] == expected[0], f"{where}: networkx {expected}, graphblast {got}"
    if expected[0] == "raises":
        assert got[1] is expected[1], where
    else:
        _assert_same(expected[1], got[1], ordered, where)


BFS_SPECS = [("bfs_edges", {}), ("bfs_edges", {"reverse": True, "depth_limit": 2}),
             ("bfs_predecessors", {}), ("bfs_successors", {"depth_limit": 1}),
             ("single_source_shortest_path_length", {"cutoff": 2})]


@pytest.mark.parametrize("graph_name", GRAPHS)
def test_breadth_first_functions_on_both_paths(graph_name, traversal):
    G = GRAPHS[graph_name]()
    for name, kwargs in BFS_SPECS:
        expected = _outcome(name, G, (_first(G),), kwargs, "networkx")
        assert _outcome(name, G, (_first(G),), kwargs, "graphblast") == expected, name
    layers = list(nx.bfs_layers(G, list(G)[:2]))
    assert list(nx.bfs_layers(G, list(G)[:2], backend="graphblast")) == layers


def test_every_function_is_in_the_zoo():
    import graphblast.nx.backend  # noqa: F401  (registers every module's functions)

    ours = {name for name, func in algorithms.IMPLEMENTATIONS.items()
            if func.__module__ in MODULES}
    assert {s[0] for s in SPECS} == ours
    # every registered function is in this zoo or in test_nx_backend's
    zoos = {s[0] for s in SPECS} | {s[0] for s in _ZOO.SPECS}
    assert zoos == set(algorithms.IMPLEMENTATIONS)


def test_declines_say_why():
    G = nx.path_graph(4)
    D = nx.DiGraph([(0, 1)])
    M = nx.MultiDiGraph([(0, 1), (1, 0)])
    for name, args, kwargs in [
        ("dijkstra_path", (G, 0, 3), {"weight": lambda u, v, d: 1}),
        ("generic_bfs_edges", (G, 0), {"neighbors": G.neighbors}),
        ("bfs_tree", (G, 0), {"sort_neighbors": sorted}),
        ("ego_graph", (D, 0), {"undirected": True, "distance": "weight"}),
        ("reciprocity", (M,), {}),
        ("is_negatively_weighted", (nx.MultiGraph(G),), {"edge": (0, 1)}),
    ]:
        reason = BackendInterface.can_run(name, args, kwargs)
        assert isinstance(reason, str) and reason, name


# -- paths NetworkX chooses among equally short ones ----------------------------------------
def _random_weighted(seed, zeros):
    rnd = random.Random(seed)
    G = nx.gnp_random_graph(rnd.randint(5, 40), 0.15, seed=seed, directed=seed % 2 == 0)
    if seed % 3 == 0:
        G = nx.MultiDiGraph(G) if G.is_directed() else nx.MultiGraph(G)
        G.add_edges_from(list(G.edges())[::3])
    edges = G.edges(keys=True) if G.is_multigraph() else G.edges
    for e in edges:
        G.edges[e]["weight"] = rnd.choice([0, 1, 1, 2, 3] if zeros else [1, 2, 2, 3])
    return G


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("zeros", [False, True])
def test_dijkstra_breaks_ties_as_networkx(seed, zeros, traversal):
    G = _random_weighted(seed, zeros)
    for source in list(G)[:3]:
        expected = nx.single_source_dijkstra(G, source)
        got = nx.single_source_dijkstra(G, source, backend="graphblast")
        assert got == expected
        if len(set(expected[0].values())) < len(expected[0]):  # ties: the settling order
            assert list(got[0]) == list(expected[0])
        target = list(G)[-1]
        if target in expected[0]:
            assert (nx.dijkstra_path(G, source, target, backend="graphblast")
                    == nx.dijkstra_path(G, source, target))


@pytest.mark.parametrize("seed", range(8))
def test_unweighted_paths_break_ties_as_networkx(seed, traversal):
    G = nx.gnp_random_graph(30, 0.12, seed=seed, directed=seed % 2 == 1)
    G.add_edges_from((v, u) for u, v in list(G.edges)[::4])  # pred order != succ order
    for u, v in [(0, 29), (3, 17), (5, 5)]:
        for name in ("bidirectional_shortest_path", "has_path"):
            expected = _outcome(name, G, (u, v), {}, "networkx")
            assert _outcome(name, G, (u, v), {}, "graphblast") == expected, (name, u, v)
    for name in ("single_source_shortest_path", "single_target_shortest_path"):
        expected = getattr(nx, name)(G, 2)
        got = getattr(nx, name)(G, 2, backend="graphblast")
        assert got == expected and list(got) == list(expected)


def test_grid_paths_follow_networkx(traversal):
    G = nx.grid_2d_graph(6, 6)
    for name, args in [("bidirectional_shortest_path", ((0, 0), (5, 5))),
                       ("dijkstra_path", ((0, 0), (5, 5))),
                       ("single_source_shortest_path", ((2, 3),))]:
        assert getattr(nx, name)(G, *args, backend="graphblast") == getattr(nx, name)(G, *args)


def test_bellman_ford_ties_fall_back():
    G = nx.grid_2d_graph(3, 3)
    nx.set_edge_attributes(G, {e: w for e, w in zip(G.edges, [1, 2] * 10)}, "weight")
    with pytest.raises(NotImplementedError):
        nx.single_source_bellman_ford_path(G, (0, 0), backend="graphblast")
    with nx.config(backend_priority={"algos": ["graphblast"]}), \
            nx.config.backends.graphblast(min_edges=0):
        assert (nx.single_source_bellman_ford_path(G, (0, 0))
                == nx.single_source_bellman_ford_path(G, (0, 0), backend="networkx"))


def test_negative_weights():
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 4), (0, 2, 1), (2, 1, -2), (1, 3, 1), (3, 4, -1)])
    for name, args in [("bellman_ford_path", (0, 4)), ("bellman_ford_path_length", (0, 4)),
                       ("single_source_bellman_ford", (0,)),
                       ("is_negatively_weighted", ())]:
        assert (getattr(nx, name)(G, *args, backend="graphblast")
                == getattr(nx, name)(G, *args))
    assert nx.is_negatively_weighted(G, edge=(2, 1), backend="graphblast")
    with pytest.raises(nx.NetworkXError):
        nx.is_negatively_weighted(G, edge=(4, 0), backend="graphblast")
    with pytest.raises(NotImplementedError):
        nx.dijkstra_path(G, 0, 4, backend="graphblast")
    G.add_edge(4, 2, weight=-5)
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford(G, 0, backend="graphblast")


def test_lowest_common_ancestor_follows_networkx():
    G = nx.DiGraph([(0, 2), (1, 2), (0, 3), (1, 3), (2, 4), (3, 4), (5, 6)])
    for pair in [(2, 3), (4, 4), (2, 1), (4, 6), (3, 0)]:
        assert (nx.lowest_common_ancestor(G, *pair, backend="graphblast")
                == nx.lowest_common_ancestor(G, *pair)), pair
    G.add_edge(4, 0)
    with pytest.raises(nx.NetworkXError, match="acyclic"):
        nx.lowest_common_ancestor(G, 2, 3, backend="graphblast")
    with pytest.raises(nx.NodeNotFound):
        nx.lowest_common_ancestor(nx.DiGraph([(0, 1)]), 0, 7, backend="graphblast")


def test_predecessor_order_needs_the_networkx_graph(device):
    G = nx.DiGraph([(0, 1), (2, 1)])
    H = convert_from_nx(G, device=device)
    assert nx.single_target_shortest_path(H, 1) == nx.single_target_shortest_path(G, 1)
    H = convert_from_nx(nx.DiGraph([(0, 1), (2, 1)]), device=device)  # the graph is gone
    with pytest.raises(NotImplementedError, match="no longer exists"):
        shortest_paths.single_target_shortest_path(H, 1)


def test_graphs_with_conversions_pickle(device):
    import copy
    import pickle

    G = nx.DiGraph([(0, 1), (2, 1), (1, 3)])
    assert nx.single_target_shortest_path(G, 3, backend="graphblast")
    for H in (pickle.loads(pickle.dumps(G)), copy.deepcopy(G)):
        assert nx.single_target_shortest_path(H, 3) == nx.single_target_shortest_path(G, 3)
    converted = pickle.loads(pickle.dumps(convert_from_nx(G, device=device)))
    assert nx.descendants(converted, 0) == {1, 3}


# -- views ----------------------------------------------------------------------------------
def _base(kind):
    G = kind()
    G.add_edges_from([(0, 1), (1, 2), (2, 3), (3, 0), (3, 4), (4, 4), (5, 6)])
    if G.is_multigraph():
        G.add_edges_from([(0, 1), (2, 3), (2, 3), (4, 5)])
    for i, e in enumerate(G.edges(keys=True) if G.is_multigraph() else G.edges):
        G.edges[e]["weight"] = 1 + i % 3
    return G


def _views(G):
    """Every kind of NetworkX view of ``G`` (a name and the view)."""
    edges = list(G.edges(keys=True) if G.is_multigraph() else G.edges)
    yield "subgraph", G.subgraph([0, 1, 2, 3, 4])
    yield "edge_subgraph", G.edge_subgraph(edges[::2])
    yield "restricted_view", nx.restricted_view(G, [6], edges[1::3])
    if G.is_multigraph():
        yield "filter_edge", nx.subgraph_view(G, filter_edge=lambda u, v, k: k == 0)
    else:
        yield "filter_edge", nx.subgraph_view(G, filter_edge=lambda u, v: (u + v) % 3 != 0)
    yield "filter_node", nx.subgraph_view(G, filter_node=lambda v: v != 2)
    if G.is_directed():
        yield "reverse_view", nx.reverse_view(G)
        yield "to_undirected", G.to_undirected(as_view=True)
        yield "restricted_reverse", nx.reverse_view(nx.restricted_view(G, [], edges[:2]))
    else:
        yield "to_directed", G.to_directed(as_view=True)


KINDS = [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_views_convert_like_their_copies(kind, device):
    for view_name, view in _views(_base(kind)):
        copy = view.copy()
        H = convert_from_nx(view, edge_attrs={"weight": 1}, device=device)
        K = convert_from_nx(copy, edge_attrs={"weight": 1}, device=device)
        assert H.number_of_edges() == view.number_of_edges() == K.number_of_edges(), view_name
        assert H.nodes == list(view) == K.nodes
        assert (H.edge_matrix("weight").to_coo()[2].tolist()
                == K.edge_matrix("weight").to_coo()[2].tolist()), view_name
        for name, args, kwargs in [
            ("connected_components" if not view.is_directed() else
             "weakly_connected_components", (), {}),
            ("single_source_shortest_path", (0,), {}),
            ("single_source_dijkstra", (0,), {}),
            ("bfs_edges", (0,), {}),
            ("number_of_selfloops", (), {}),
            ("degree_centrality", (), {}),
            ("is_forest", (), {}),
        ]:
            if 0 not in view and args:
                continue
            expected = _outcome(name, view, args, kwargs, "networkx")
            assert _outcome(name, view, args, kwargs, "graphblast") == expected, \
                (view_name, name)



# -- docs -----------------------------------------------------------------------------------
def test_docs_list_every_function_with_its_parameters():
    """docs/networkx.md's table has a row per registered function, naming all its
    parameters (NetworkX's, besides G)."""
    import inspect
    import pathlib
    import re

    import graphblast.nx.backend  # noqa: F401  (registers every module's functions)

    doc = pathlib.Path(__file__).parents[2] / "docs" / "networkx.md"
    section = doc.read_text().split("## What it implements", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = set(re.findall(r"`(\w+)`", cells[1]))
    assert set(rows) == set(algorithms.IMPLEMENTATIONS)
    for name, func in algorithms.IMPLEMENTATIONS.items():
        params = set(inspect.signature(func).parameters) - {"G"}
        assert params <= rows[name], (name, params - rows[name])
