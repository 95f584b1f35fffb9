"""NetworkX's own tests for the dispatched functions, run through the graphblast backend.

NetworkX's test configuration (``networkx/conftest.py``) reads ``NETWORKX_TEST_BACKEND``: every
dispatchable call in its tests then converts the input graphs to the backend, runs the
backend's function and checks the result's types; with ``NETWORKX_FALLBACK_TO_NX=True`` a call
the backend declines (``can_run`` False, or NotImplementedError) runs in NetworkX instead.  A
pytest plugin written next to the run counts the calls that reached graphblast, so that the
test also fails if everything quietly fell back.
"""

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points

import pytest

pytest.importorskip("networkx")

from graphblast.nx import algorithms

# The test modules of the functions graphblast implements (about 10 s on two cores).
MODULES = [
    "networkx.algorithms.link_analysis.tests.test_pagerank",
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.shortest_paths.tests.test_weighted",
    "networkx.algorithms.shortest_paths.tests.test_generic",
    "networkx.algorithms.components.tests.test_connected",
    "networkx.algorithms.components.tests.test_weakly_connected",
    "networkx.algorithms.tests.test_cluster",
    "networkx.tests.test_convert_scipy",
    "networkx.algorithms.tests.test_core",
    "networkx.algorithms.link_analysis.tests.test_hits",
    "networkx.algorithms.centrality.tests.test_katz_centrality",
    "networkx.algorithms.centrality.tests.test_eigenvector_centrality",
    "networkx.algorithms.components.tests.test_strongly_connected",
    "networkx.algorithms.tests.test_mis",
    "networkx.algorithms.tests.test_link_prediction",
    "networkx.algorithms.community.tests.test_louvain",
    "networkx.algorithms.community.tests.test_leiden",
]

# NetworkX's tests that assert the exact answer of one seeded random run (its own order of
# node visits), where graphblast, which moves all nodes at once, gives another valid answer:
# module -> test names.  They run in NetworkX's own suite, not here.
SEEDED = {
    "test_louvain": ["test_karate_club_partition", "test_undirected_selfloops",
                     "test_none_weight_param", "test_max_level"],
    "test_mis": ["test_random_seed"],
}
# A -k expression that leaves them out (a test module's name is one of its tests' keywords).
DESELECT = "not (" + " or ".join(f"({module} and ({' or '.join(names)}))"
                                 for module, names in SEEDED.items()) + ")"

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "src"))

# Wraps every function of the backend to count the calls that reach it; the counts go to the
# file named by GRAPHBLAST_NX_CALLS when the run ends.
COUNTING_PLUGIN = '''
import collections, json, os

calls = collections.Counter()


def pytest_configure(config):
    from graphblast.nx import algorithms
    from graphblast.nx.backend import BackendInterface

    for name, func in algorithms.IMPLEMENTATIONS.items():
        def counted(*args, _func=func, _name=name, **kwargs):
            calls[_name] += 1
            return _func(*args, **kwargs)

        setattr(BackendInterface, name, staticmethod(counted))


def pytest_unconfigure(config):
    with open(os.environ["GRAPHBLAST_NX_CALLS"], "w") as f:
        json.dump(dict(calls), f)
'''

# Entry points for a checkout that is not pip-installed: importlib.metadata finds any
# *.dist-info directory on sys.path.
ENTRY_POINTS = '''[networkx.backends]
graphblast = graphblast.nx.backend:BackendInterface

[networkx.backend_info]
graphblast = graphblast.nx._info:get_info
'''


def _registered():
    return any(ep.name == "graphblast" for ep in entry_points(group="networkx.backends"))


def test_networkx_suite_through_graphblast(tmp_path, device):
    (tmp_path / "graphblast_nx_calls.py").write_text(COUNTING_PLUGIN)
    if not _registered():
        dist = tmp_path / "graphblast_nx_test_entry-0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: graphblast-nx-test-entry\nVersion: 0\n")
        (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    calls_file = tmp_path / "calls.json"
    env = dict(os.environ)
    env.update({
        "NETWORKX_TEST_BACKEND": "graphblast",
        "NETWORKX_FALLBACK_TO_NX": "True",
        "GRAPHBLAST_DEVICE": device,
        "GRAPHBLAST_NX_CALLS": str(calls_file),
        "PYTHONPATH": os.pathsep.join(filter(None, [SRC, str(tmp_path),
                                                    env.get("PYTHONPATH")])),
    })
    command = [sys.executable, "-m", "pytest", "-p", "graphblast_nx_calls", "-p",
               "no:cacheprovider", "-q", "-k", DESELECT, "--pyargs", *MODULES]
    try:
        result = subprocess.run(command, cwd=tmp_path, env=env, check=False, capture_output=True,
                                text=True, timeout=400)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"NetworkX's tests did not finish in {exc.timeout} s:\n"
                    f"{(exc.stdout or '')[-3000:]}")
    output = result.stdout[-6000:] + result.stderr[-3000:]
    assert result.returncode == 0, output
    assert " passed" in result.stdout and " failed" not in result.stdout, output
    calls = json.loads(calls_file.read_text())
    never = sorted(set(algorithms.IMPLEMENTATIONS) - set(calls))
    assert not never, f"NetworkX's tests never reached graphblast for {never}:\n{output}"
