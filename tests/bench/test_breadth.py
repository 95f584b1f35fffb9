"""The breadth benchmark: every algorithm runs, the deterministic answers agree with the
peers that have them, and the summary keys come out."""

import pytest

from graphblast.bench import breadth, graphs


@pytest.fixture(scope="module")
def run(request):
    device = "cpu"
    specs = graphs.parse_graphs("kron-8,rgg-9", smoke=True)
    return breadth.run_breadth(specs, device, repeat=1, warmup=1)


def test_every_algorithm_runs_and_is_checked(run):
    assert {(r["graph"], r["algorithm"]) for r in run["results"]} == {
        (g, a) for g in ("kron-8", "rgg-9") for a in breadth.ALGORITHMS}
    for r in run["results"]:
        assert "median_s" in r["graphblast"], r
        peers = r["peers"]
        errors = {k: v["error"] for k, v in peers.items() if "error" in v}
        assert not errors, (r["graph"], r["algorithm"], errors)
        # the answers that have one right value agree with every peer computing it
        exact = {"core_number": ("networkit", "igraph", "networkx"),
                 "k_truss": ("suitesparse", "networkx"), "label_propagation": ("scipy",),
                 "lcc": ("networkit", "igraph", "networkx"), "katz": ("networkx", "scipy"),
                 "eigenvector": ("scipy",),
                 "scc": ("networkit", "igraph", "scipy")}.get(r["algorithm"], ())
        for name in exact:
            if name in peers:
                assert peers[name]["checked"], (r["graph"], r["algorithm"], name, peers[name])
        if r["algorithm"] in ("louvain", "leiden"):
            assert r["graphblast"]["modularity"] > 0.5 * max(
                p["modularity"] for p in peers.values())


def test_summary(run):
    assert list(run["summary"]) == list(breadth.SUMMARY_KEYS)
    assert run["summary"]["breadth_min_speedup_vs_best_peer"] > 0
    assert run["summary"]["louvain_modularity_vs_networkit"] > 0.5
    assert run["summary"]["louvain_rgg_22_s"] is None
    assert run["summary_notes"]["louvain_rgg_22_s"]
