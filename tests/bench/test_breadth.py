"""The breadth benchmark: every algorithm runs, the deterministic answers agree with the
peers that have them, the summary keys come out, and a peer past its limit is stopped and
recorded as such."""

import pytest

from graphblast.bench import breadth, graphs


@pytest.fixture(scope="module")
def run(request):
    # one run, on the GPU with --device cuda, else on the CPU (the run is the costly part)
    device = "cuda" if request.config.getoption("--device") == "cuda" else "cpu"
    specs = graphs.parse_graphs("kron-8,rgg-9", smoke=True)
    # limits far above what these graphs need: every peer finishes on a busy machine
    return breadth.run_breadth(specs, device, repeat=1, warmup=1, peer_factor=1e6,
                               peer_cap=120.0)


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


def test_a_peer_past_its_limit_is_stopped_and_recorded():
    specs = graphs.parse_graphs("kron-8", smoke=True)
    run = breadth.run_breadth(specs, "cpu", repeat=1, warmup=0, peers=("networkx",),
                              algorithms=("louvain", "katz"), peer_cap=1e-3)
    for entry in run["results"]:
        assert entry["peer_limit_s"] == 1e-3
        peer = entry["peers"]["networkx"]
        assert peer["timed_out"] == "run" and peer["limit_s"] == 1e-3, peer
        assert not peer["checked"] and "ran out" in peer["note"]
        # no peer finished: graphblast is faster than the limit says, and no more is known
        assert entry["speedup_is_lower_bound"]
        assert entry["speedup"] == pytest.approx(1e-3 / entry["graphblast"]["median_s"])
    assert "lower bound" in run["summary_notes"]["breadth_min_speedup_vs_best_peer"]


def test_a_peer_past_its_setup_limit_is_recorded_without_a_speedup():
    specs = graphs.parse_graphs("kron-8", smoke=True)
    run = breadth.run_breadth(specs, "cpu", repeat=1, warmup=0, peers=("networkit",),
                              algorithms=("core_number",), setup_limit=1e-3)
    (entry,) = run["results"]
    assert entry["peers"]["networkit"]["timed_out"] == "setup"
    assert "speedup" not in entry
    assert run["summary"]["breadth_min_speedup_vs_best_peer"] is None
    assert "no checked peer: core_number on kron-8" in \
        run["summary_notes"]["breadth_min_speedup_vs_best_peer"]


def test_the_deadline_leaves_algorithms_out_by_name():
    specs = graphs.parse_graphs("kron-8", smoke=True)
    run = breadth.run_breadth(specs, "cpu", repeat=1, warmup=0, peers=(),
                              algorithms=("core_number", "katz"), deadline=0.0)
    assert run["results"] == [] and run["not_run"] == ["kron-8"]


def test_runs_merge_by_entry_and_the_summary_is_computed_again(tmp_path):
    import json

    from graphblast.bench import merge

    specs = graphs.parse_graphs("kron-8", smoke=True)
    saved = []
    first = breadth.run_breadth(specs, "cpu", repeat=1, warmup=0, peers=("scipy",),
                                algorithms=("katz", "scc"), on_entry=saved.append)
    assert [d["complete"] for d in saved] == [False, False] and first["complete"]
    assert [len(d["results"]) for d in saved] == [1, 2]
    second = breadth.run_breadth(specs, "cpu", repeat=1, warmup=0, peers=("scipy",),
                                 algorithms=("scc", "label_propagation"))
    paths = []
    for i, doc in enumerate((first, second)):
        paths.append(str(tmp_path / f"run{i}" / "breadth.json"))
        (tmp_path / f"run{i}").mkdir()
        with open(paths[-1], "w") as f:
            json.dump(doc, f)
    wide = merge._merge_breadth(paths, str(tmp_path))
    assert [(r["algorithm"], r["graph"]) for r in wide["results"]] == [
        ("katz", "kron-8"), ("scc", "kron-8"), ("label_propagation", "kron-8")]
    # the later run's entry wins
    assert wide["results"][1] == second["results"][0]
    assert wide["summary"]["breadth_min_speedup_vs_best_peer"] == min(
        r["speedup"] for r in wide["results"])
    with open(tmp_path / "breadth.json") as f:
        assert json.load(f)["summary"] == wide["summary"]


def test_the_command_line_picks_breadth_algorithms_in_their_order():
    from graphblast.bench import _breadth_algorithms
    from graphblast.exceptions import InvalidValue

    assert _breadth_algorithms(None, smoke=False) == []
    assert _breadth_algorithms(None, smoke=True) == list(breadth.ALGORITHMS)
    assert _breadth_algorithms("all", smoke=False) == list(breadth.ALGORITHMS)
    assert _breadth_algorithms("scc,louvain", smoke=False) == ["louvain", "scc"]
    with pytest.raises(InvalidValue, match="unknown breadth algorithm 'pagerank'"):
        _breadth_algorithms("pagerank", smoke=False)


def test_a_worker_reports_what_it_lacks_and_what_fails_and_goes_on(tmp_path):
    import numpy as np

    from graphblast.bench.breadth_peers import PeerWorker, write_graph

    indptr, indices = np.array([0, 1, 2, 2]), np.array([1, 0])    # 0 - 1, and 2 alone
    write_graph(str(tmp_path), 3, indptr, indices, (np.array([0]), np.array([1])))
    worker = PeerWorker("scipy", str(tmp_path), setup_limit=60)
    try:
        assert worker.run("core_number", 0.5, limit=60) == {"absent": True}
        failed = worker.run("katz", "not a number", limit=60)
        assert "TypeError" in failed["error"]
        done = worker.run("scc", 0.5, limit=60)       # the same worker, after the failure
        assert len(set(done["answer"].tolist())) == 3     # 0 -> 1 only: three components
        assert done["seconds"] >= 0 and done["setup_s"] >= 0
    finally:
        worker.close()
