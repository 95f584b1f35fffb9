"""NetworkX's own tests for the dispatched functions, run through the graphblast backend.

NetworkX's documented way of testing a backend: ``NETWORKX_TEST_BACKEND=graphblast`` with
``NETWORKX_FALLBACK_TO_NX`` unset.  Every dispatchable call in NetworkX's tests then converts
its graphs to graphblast, runs graphblast's function and checks the result's types (and
compares returned graphs with NetworkX's); a call graphblast cannot run (a function it does
not implement, or arguments it declines) marks the test xfail instead of running NetworkX.

Calls of functions graphblast does not implement run in NetworkX (a plugin sees to it):
otherwise a utility in a test's setup (``convert_node_labels_to_integers``) would xfail every
test of its class, hiding the tests of the dispatched functions.

The test modules come from the dispatched function names (:data:`TEST_MODULES`), so a
function added to the registry brings its NetworkX tests with it.  A plugin written next to
the run records, per test, its outcome, the xfail reason and which graphblast functions it
reached.  The run must then show:

- no failure and no error outside :data:`EXCEPTIONS`;
- no test xfailed (graphblast declined the arguments of one of its functions) outside
  :data:`EXCEPTIONS`;
- every entry of :data:`EXCEPTIONS` still an exception (an entry that passes is stale), and
  at most 5% of the tests that reach graphblast listed;
- every dispatched function reached by some test, but those of :data:`NOT_REACHED`.
"""

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points

import pytest

pytest.importorskip("networkx")

import graphblast.nx.backend  # noqa: F401  (registers every module's functions)
from graphblast.nx import algorithms

_A = "networkx.algorithms."

# NetworkX function -> the NetworkX test modules that test it.
TEST_MODULES = {
    "all_pairs_bellman_ford_path": [_A + "shortest_paths.tests.test_weighted"],
    "all_pairs_bellman_ford_path_length": [_A + "shortest_paths.tests.test_weighted"],
    "all_pairs_dijkstra": [_A + "shortest_paths.tests.test_weighted"],
    "all_pairs_dijkstra_path": [_A + "shortest_paths.tests.test_weighted"],
    "all_pairs_dijkstra_path_length": [_A + "shortest_paths.tests.test_weighted"],
    "all_pairs_shortest_path": [_A + "shortest_paths.tests.test_unweighted"],
    "all_pairs_shortest_path_length": [_A + "shortest_paths.tests.test_unweighted"],
    "ancestors": [_A + "tests.test_dag"],
    "average_clustering": [_A + "tests.test_cluster"],
    "bellman_ford_path": [_A + "shortest_paths.tests.test_weighted"],
    "bellman_ford_path_length": [_A + "shortest_paths.tests.test_weighted"],
    "betweenness_centrality": [_A + "centrality.tests.test_betweenness_centrality"],
    "bfs_edges": [_A + "traversal.tests.test_bfs"],
    "bfs_layers": [_A + "traversal.tests.test_bfs"],
    "bfs_predecessors": [_A + "traversal.tests.test_bfs"],
    "bfs_successors": [_A + "traversal.tests.test_bfs"],
    "bfs_tree": [_A + "traversal.tests.test_bfs"],
    "bidirectional_shortest_path": [_A + "shortest_paths.tests.test_unweighted"],
    "bipartite_betweenness_centrality": [_A + "bipartite.tests.test_centrality"],
    "clustering": [_A + "tests.test_cluster"],
    "connected_components": [_A + "components.tests.test_connected"],
    "core_number": [_A + "tests.test_core"],
    "degree_centrality": [_A + "centrality.tests.test_degree_centrality"],
    "descendants": [_A + "tests.test_dag"],
    "descendants_at_distance": [_A + "traversal.tests.test_bfs"],
    "dijkstra_path": [_A + "shortest_paths.tests.test_weighted"],
    "dijkstra_path_length": [_A + "shortest_paths.tests.test_weighted"],
    "edge_betweenness_centrality": [_A + "centrality.tests.test_betweenness_centrality"],
    "ego_graph": ["networkx.generators.tests.test_ego"],
    "eigenvector_centrality": [_A + "centrality.tests.test_eigenvector_centrality"],
    "generic_bfs_edges": [_A + "traversal.tests.test_bfs"],
    "has_path": [_A + "shortest_paths.tests.test_generic"],
    "hits": [_A + "link_analysis.tests.test_hits"],
    "in_degree_centrality": [_A + "centrality.tests.test_degree_centrality"],
    "is_arborescence": [_A + "tree.tests.test_recognition"],
    "is_branching": [_A + "tree.tests.test_recognition"],
    "is_connected": [_A + "components.tests.test_connected"],
    "is_forest": [_A + "tree.tests.test_recognition"],
    "is_isolate": [_A + "tests.test_isolate"],
    "is_negatively_weighted": ["networkx.classes.tests.test_function"],
    "is_strongly_connected": [_A + "components.tests.test_strongly_connected"],
    "is_tree": [_A + "tree.tests.test_recognition"],
    "is_weakly_connected": [_A + "components.tests.test_weakly_connected"],
    "isolates": [_A + "tests.test_isolate"],
    "jaccard_coefficient": [_A + "tests.test_link_prediction"],
    "k_truss": [_A + "tests.test_core"],
    "katz_centrality": [_A + "centrality.tests.test_katz_centrality"],
    "label_propagation_communities": [_A + "community.tests.test_label_propagation"],
    "leiden_communities": [_A + "community.tests.test_leiden"],
    "louvain_communities": [_A + "community.tests.test_louvain"],
    "lowest_common_ancestor": [_A + "tests.test_lowest_common_ancestors"],
    "maximal_independent_set": [_A + "tests.test_mis"],
    "node_connected_component": [_A + "components.tests.test_connected"],
    "number_connected_components": [_A + "components.tests.test_connected"],
    "number_of_isolates": [_A + "tests.test_isolate"],
    "number_of_selfloops": ["networkx.classes.tests.test_function"],
    "number_strongly_connected_components": [
        _A + "components.tests.test_strongly_connected"],
    "number_weakly_connected_components": [_A + "components.tests.test_weakly_connected"],
    "out_degree_centrality": [_A + "centrality.tests.test_degree_centrality"],
    "overall_reciprocity": [_A + "tests.test_reciprocity"],
    "pagerank": [_A + "link_analysis.tests.test_pagerank"],
    "reciprocity": [_A + "tests.test_reciprocity"],
    "shortest_path": [_A + "shortest_paths.tests.test_generic"],
    "shortest_path_length": [_A + "shortest_paths.tests.test_generic"],
    "single_source_bellman_ford": [_A + "shortest_paths.tests.test_weighted"],
    "single_source_bellman_ford_path": [_A + "shortest_paths.tests.test_weighted"],
    "single_source_bellman_ford_path_length": [_A + "shortest_paths.tests.test_weighted"],
    "single_source_dijkstra": [_A + "shortest_paths.tests.test_weighted"],
    "single_source_dijkstra_path": [_A + "shortest_paths.tests.test_weighted"],
    "single_source_dijkstra_path_length": [_A + "shortest_paths.tests.test_weighted"],
    "single_source_shortest_path": [_A + "shortest_paths.tests.test_unweighted"],
    "single_source_shortest_path_length": [_A + "shortest_paths.tests.test_unweighted"],
    "single_target_shortest_path": [_A + "shortest_paths.tests.test_unweighted"],
    "single_target_shortest_path_length": [_A + "shortest_paths.tests.test_unweighted"],
    "strongly_connected_components": [_A + "components.tests.test_strongly_connected"],
    "to_scipy_sparse_array": ["networkx.tests.test_convert_scipy"],
    "transitivity": [_A + "tests.test_cluster"],
    "triangles": [_A + "tests.test_cluster"],
    "weakly_connected_components": [_A + "components.tests.test_weakly_connected"],
}

# NetworkX test id -> why it does not pass through graphblast.  Only tests of functions
# graphblast implements: a failure, an error, or an xfail because graphblast declined the
# call's arguments.
_W = "networkx.algorithms.shortest_paths.tests.test_weighted::"
_CALLABLE = "weight is a function: graphblast reads weights from an edge attribute"
_QUEUE = ("Bellman-Ford on a graph with several equally short paths: NetworkX's choice "
          "depends on the history of its queue (SPFA), which graphblast does not replay")
_NEGATIVE = ("Dijkstra with negative weights: NetworkX raises ValueError or returns the "
             "distances its heap happens to settle, depending on the order it visits; "
             "graphblast declines")
_L = "networkx.algorithms.community.tests.test_louvain::"
_SEEDED = ("asserts the exact answer of one seeded random run (NetworkX's order of node "
           "visits); graphblast moves all nodes at once and gives another valid answer, "
           "checked for validity and quality in tests/nx and tests/algorithms")
_DIRECTED = ("Louvain on a directed graph (directed modularity): graphblast's louvain is for "
             "undirected graphs and declines")
_B = "networkx.algorithms.centrality.tests.test_betweenness_centrality::"
_MULTI_EDGE_BC = ("a multigraph's edge betweenness is divided among its lightest parallel edges, "
                  "keyed by edge keys, which graphblast's converted graph does not keep")
EXCEPTIONS = {
    _W + "TestWeightedPath::test_weight_function": _CALLABLE,
    _W + "TestWeightedPath::test_weight_functions": _CALLABLE,
    _W + "TestDijkstraPathLength::test_weight_function": _CALLABLE,
    "networkx.algorithms.traversal.tests.test_bfs::TestBFS::test_bfs_edges_sorting":
        "sort_neighbors is an arbitrary function of NetworkX's neighbour iterators",
    _W + "TestBellmanFordAndGoldbergRadzik::test_multigraph": _QUEUE,
    "networkx.algorithms.shortest_paths.tests.test_generic::TestGenericPath::"
    "test_sentinel_trick_all_algorithms": _QUEUE,
    _W + "TestWeightedPath::test_negative_edge_cycle": _NEGATIVE,
    _W + "TestBellmanFordAndGoldbergRadzik::test_zero_cycle_smoke": _NEGATIVE,
    _L + "test_karate_club_partition": _SEEDED,
    _L + "test_undirected_selfloops": _SEEDED,
    _L + "test_none_weight_param": _SEEDED,
    _L + "test_max_level": _SEEDED,
    "networkx.algorithms.tests.test_mis::test_random_seed": _SEEDED,
    _L + "test_valid_partition": _DIRECTED,
    _L + "test_directed_selfloops": _DIRECTED,
    _L + "test_directed_partition": _DIRECTED,
    _L + "test_quality": _DIRECTED,
    _B + "TestWeightedEdgeBetweennessCentrality::test_weighted_multigraph": _MULTI_EDGE_BC,
    _B + "TestWeightedEdgeBetweennessCentrality::test_normalized_weighted_multigraph": _MULTI_EDGE_BC,
}

# Dispatched functions NetworkX's tests never call with arguments graphblast runs (their
# own zoo in tests/nx covers them).
NOT_REACHED = {
    "generic_bfs_edges": "NetworkX's tests call it only from bfs_beam_edges, with a "
                         "neighbors function, which graphblast declines",
}

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "src"))

# Records each test's outcome, its xfail reason and the graphblast functions it reached;
# the records go to the file named by GRAPHBLAST_NX_OUTCOMES when the run ends.
RECORDING_PLUGIN = '''
import json, os

import pytest

records = {}
reached = set()


def pytest_configure(config):
    import graphblast.nx.backend
    from graphblast.nx import algorithms
    from graphblast.nx.backend import BackendInterface
    from networkx.utils.backends import _dispatchable

    # Functions graphblast does not implement (graph utilities such as
    # convert_node_labels_to_integers in a test's setup) run in NetworkX, as they do for a
    # user; graphblast's own functions never fall back (NETWORKX_FALLBACK_TO_NX is unset).
    convert_and_call = _dispatchable._convert_and_call_for_tests

    def only_graphblast_functions(self, backend_name, args, kwargs, **options):
        if self.name not in algorithms.IMPLEMENTATIONS:
            return self.orig_func(*args, **kwargs)
        return convert_and_call(self, backend_name, args, kwargs, **options)

    _dispatchable._convert_and_call_for_tests = only_graphblast_functions

    for name, func in algorithms.IMPLEMENTATIONS.items():
        def counted(*args, _func=func, _name=name, **kwargs):
            reached.add(_name)
            return _func(*args, **kwargs)

        setattr(BackendInterface, name, staticmethod(counted))


def _test_id(item):
    # "module::Class::test[params]", the module by its dotted name (--pyargs)
    return "::".join([item.module.__name__] + item.nodeid.split("::")[1:])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    reached.clear()
    yield
    records.setdefault(_test_id(item), {})["reached"] = sorted(reached)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    report.graphblast_test_id = _test_id(item)


def pytest_runtest_logreport(report):
    record = records.setdefault(report.graphblast_test_id, {})
    if report.when == "call" or report.outcome != "passed":
        if hasattr(report, "wasxfail"):
            record["outcome"], record["reason"] = "xfailed", report.wasxfail
        elif report.when != "call" and report.outcome == "failed":
            record["outcome"] = "error"
        elif "outcome" not in record or record["outcome"] == "passed":
            record["outcome"] = report.outcome


def pytest_unconfigure(config):
    with open(os.environ["GRAPHBLAST_NX_OUTCOMES"], "w") as f:
        json.dump(records, f)
'''

# Entry points for a checkout that is not pip-installed: importlib.metadata finds any
# *.dist-info directory on sys.path.
ENTRY_POINTS = '''[networkx.backends]
graphblast = graphblast.nx.backend:BackendInterface

[networkx.backend_info]
graphblast = graphblast.nx._info:get_info
'''


def test_every_dispatched_function_has_test_modules():
    missing = sorted(set(algorithms.IMPLEMENTATIONS) - set(TEST_MODULES))
    assert not missing, f"add NetworkX's test modules of {missing} to TEST_MODULES"


def _modules():
    return sorted({module for name in algorithms.IMPLEMENTATIONS
                   for module in TEST_MODULES.get(name, ())})


def _registered():
    return any(ep.name == "graphblast" for ep in entry_points(group="networkx.backends"))


def _implemented_but_declined(reason):
    """Whether an xfail reason says graphblast declined a function it implements."""
    if " not implemented by graphblast" in reason:
        return reason.endswith("with the given arguments")
    return True  # a NotImplementedError raised by graphblast itself while running


def run_networkx_suite(tmp_path, device):
    """Run NetworkX's test modules through graphblast; the per-test records."""
    (tmp_path / "graphblast_nx_record.py").write_text(RECORDING_PLUGIN)
    if not _registered():
        dist = tmp_path / "graphblast_nx_test_entry-0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: graphblast-nx-test-entry\nVersion: 0\n")
        (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    outcomes = tmp_path / "outcomes.json"
    env = {k: v for k, v in os.environ.items() if k != "NETWORKX_FALLBACK_TO_NX"}
    env.update({
        "NETWORKX_TEST_BACKEND": "graphblast",
        "GRAPHBLAST_DEVICE": device,
        "GRAPHBLAST_NX_OUTCOMES": str(outcomes),
        "PYTHONPATH": os.pathsep.join(filter(None, [SRC, str(tmp_path),
                                                    env.get("PYTHONPATH")])),
    })
    command = [sys.executable, "-m", "pytest", "-p", "graphblast_nx_record", "-p",
               "no:cacheprovider", "-q", "-rN", "--pyargs", *_modules()]
    try:
        result = subprocess.run(command, cwd=tmp_path, env=env, check=False,
                                capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"NetworkX's tests did not finish in {exc.timeout} s:\n"
                    f"{(exc.stdout or '')[-3000:]}")
    output = result.stdout[-4000:] + result.stderr[-3000:]
    assert outcomes.exists(), output
    return json.loads(outcomes.read_text()), output


def summarize(records):
    """Counts of the outcomes and the tests that are exceptions (failed, errors, declined)."""
    counts = {}
    problems = {}
    for nodeid, record in records.items():
        outcome = record.get("outcome", "passed")
        if outcome == "xfailed" and not _implemented_but_declined(record["reason"]):
            outcome = "xfailed (functions graphblast does not implement)"
        elif outcome == "xfailed":
            outcome = "xfailed (declined by graphblast)"
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome in ("failed", "error", "xfailed (declined by graphblast)"):
            problems[nodeid] = record.get("reason", outcome)
    reaching = sum(1 for record in records.values() if record.get("reached"))
    return counts, problems, reaching


def test_networkx_suite_through_graphblast(tmp_path, device):
    records, output = run_networkx_suite(tmp_path, device)
    counts, problems, reaching = summarize(records)
    print(f"NetworkX's tests through graphblast: {counts}; {reaching} reached graphblast")
    unexpected = {k: v for k, v in problems.items() if k not in EXCEPTIONS}
    assert not unexpected, (
        f"{len(unexpected)} NetworkX tests fail or are declined through graphblast "
        f"(outcomes {counts}):\n" + "\n".join(f"{k}: {v}" for k, v in unexpected.items())
        + "\n" + output)
    stale = sorted(set(EXCEPTIONS) - set(problems))
    assert not stale, f"these tests of EXCEPTIONS pass now; remove them: {stale}"
    assert len(EXCEPTIONS) <= 0.05 * reaching, (len(EXCEPTIONS), reaching)
    reached = set().union(*(record.get("reached", ()) for record in records.values()))
    never = sorted(set(algorithms.IMPLEMENTATIONS) - reached - set(NOT_REACHED))
    assert not never, f"NetworkX's tests never reached graphblast for {never}:\n{output}"
