"""The benchmark harness: ``--smoke`` end to end on the CPU, and its parts on their own.

The end-to-end run (``--smoke --primitives``, every installed peer) takes most of this
file's time; it runs once per device and every output test reads it.
"""

import io
import json
import os

import numpy as np
import pytest

from graphblast.bench import check, graphs, main, primitives, report, runner
from graphblast.bench.peers import AlgorithmParams, PeerUnavailable
from graphblast.bench.peers.scipy_csgraph import SciPy
from graphblast.exceptions import InvalidValue

_RUNS = {}


@pytest.fixture
def smoke(device, data_dir, tmp_path_factory, capfd):
    """``(exit status, out dir, stdout)`` of one ``--smoke --primitives`` run per device."""
    if device not in _RUNS:
        out = tmp_path_factory.mktemp(f"bench-{device.replace(':', '-')}")
        status = main(["--smoke", "--primitives", "--device", device, "--data", data_dir,
                       "--out", str(out)])
        stdout, _ = capfd.readouterr()
        _RUNS[device] = (status, out, stdout)
    return _RUNS[device]


def _load(out, name="results.json"):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


# End to end ---------------------------------------------------------------------------------

def test_smoke_runs_and_writes_every_output(smoke):
    status, out, _ = smoke
    assert status == 0
    for name in ("results.json", "results.md", "primitives.json"):
        assert os.path.getsize(os.path.join(out, name)) > 0
    pytest.importorskip("matplotlib")
    for name in ("speedup.png", "gteps.png"):
        with open(os.path.join(out, name), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_stdout_holds_only_the_table(smoke):
    _, out, stdout = smoke
    with open(os.path.join(out, "results.md")) as f:
        assert stdout == f.read()


def test_every_graphblast_answer_is_checked_and_timed(smoke):
    doc = _load(smoke[1])
    expected = {(a, g) for a in check.ALGORITHMS for g in doc["options"]["graphs"]}
    assert {(r["algorithm"], r["graph"]) for r in doc["results"]} == expected
    for rec in doc["results"]:
        ours = rec["participants"]["graphblast"]
        assert ours["status"] == "ok", (rec["algorithm"], rec["graph"], ours)
        t = ours["timing"]
        assert t["runs"] >= 1 and t["min_s"] <= t["median_s"] <= t["max_s"]
        assert ours["gteps"] == pytest.approx(rec["stored_edges"] / t["median_s"] / 1e9)
        # SciPy is always installed and is the oracle of four algorithms.
        if rec["algorithm"] != "tc":
            assert rec["participants"]["scipy"]["status"] == "ok"
        for name, entry in rec["participants"].items():
            if entry["status"] == "ok" and name != "graphblast":
                assert entry["speedup"] == pytest.approx(
                    entry["timing"]["median_s"] / t["median_s"])


def test_peers_are_reported_installed_or_not(smoke):
    doc = _load(smoke[1])
    assert set(doc["peers"]) == {"suitesparse", "networkit", "igraph", "scipy", "networkx",
                                 "cusparse"}
    for name, peer in doc["peers"].items():
        if not peer["available"]:
            assert peer["note"]
            for rec in doc["results"]:
                entry = rec["participants"].get(name)
                assert entry is None or entry["status"] == "unavailable"
    if doc["peers"]["suitesparse"]["available"]:
        assert doc["peers"]["suitesparse"]["nthreads"] == os.cpu_count()
        tc = [r for r in doc["results"] if r["algorithm"] == "tc"]
        assert all(r["participants"]["suitesparse"]["status"] == "ok" for r in tc)


def test_summary_has_exactly_the_issue_keys(smoke):
    doc = _load(smoke[1])
    assert list(doc["summary"]) == list(report.SUMMARY_KEYS)
    for key, value in doc["summary"].items():
        if value is None:
            assert doc["summary_notes"][key]
    # Smoke scales: the default-scale keys are not measured, and say so.
    assert doc["summary"]["bfs_kron_22_ms"] is None
    assert "kron-22" in doc["summary_notes"]["bfs_kron_22_ms"]
    if doc["peers"]["suitesparse"]["available"]:
        assert doc["summary"]["geomean_speedup_vs_suitesparse"] > 0
    assert doc["complete"] is True


def test_first_call_of_every_algorithm(smoke):
    doc = _load(smoke[1])
    assert set(doc["first_call"]) == set(check.ALGORITHMS)
    for r in doc["first_call"].values():
        assert "error" not in r, r
        assert r["graph"] == doc["options"]["graphs"][0]
        assert r["first_call_s"] == pytest.approx(r["first_s"] - r["warm_median_s"])


def test_machine_versions_and_bound(smoke):
    doc = _load(smoke[1])
    m = doc["machine"]
    assert m["cpu_cores"] >= 1 and m["cpu_model"]
    assert doc["versions"]["numpy"] and doc["versions"]["graphblast"]
    assert doc["copy_bandwidth"]["bytes_per_s"] > 0
    # the host's yardstick at the start and at the end of the run, in its header too
    host = doc["host_reference"]
    assert host["start_us"] > 0 and host["end_us"] > 0 and host["steps"] > 0
    with open(os.path.join(smoke[1], "results.md")) as f:
        assert f"Host reference (a {host['steps']:,}-step Python loop" in f.read()
    for rec in doc["results"]:
        if rec["algorithm"] == "pagerank":
            per = rec["per_iteration"]
            expected = per["ms_per_iteration"] / per["bound_ms_per_iteration"]
            assert per["vs_bound"] == pytest.approx(expected)
            assert per["bytes_per_iteration"] == runner.pagerank_bytes_per_iteration(
                rec["vertices"], rec["stored_edges"])
        if rec["algorithm"] == "bfs" and rec["graph"] == "grid-32":
            assert rec["levels"] == 63      # corner to corner of a 32 x 32 grid, plus one
    assert doc["per_call_overhead"]["median_us"] > 0


def test_markdown_tables(smoke):
    with open(os.path.join(smoke[1], "results.md")) as f:
        text = f.read()
    for algorithm in check.ALGORITHMS:
        assert f"## {algorithm}" in text
    assert "| kron-10 |" in text and "`geomean_speedup_vs_suitesparse`" in text


def test_primitives_summary(smoke):
    prim = _load(smoke[1], "primitives.json")
    assert list(prim["summary"]) == list(primitives.SUMMARY_KEYS)
    spmv = prim["details"]["spmv"]
    # a speed, as the engine issue's target (>= 0.95) reads it: plus.times' time over min.plus's
    assert prim["summary"]["spmv_min_plus_fp32_vs_plus_times"] == pytest.approx(
        spmv["plus_times_s"] / spmv["min_plus_s"])
    assert prim["summary"]["auto_direction_worst_level_ratio"] > 0
    details = prim["details"]
    # a user-defined plus.times semiring's SpMV over the built-in one's
    assert details["udf_mxv"]["agrees"]
    assert prim["summary"]["udf_mxv_vs_builtin"] == pytest.approx(
        details["udf_mxv"]["udf_vs_builtin"])
    assert details["spmv"]["scipy_agrees"] and details["spmv"]["min_plus_agrees"]
    # the SpMV over a matrix with a value array too, beside the iso cast's
    assert details["spmv"]["valued_agrees"] and details["spmv"]["plus_times_valued_s"] > 0
    # the reference product: cuSPARSE's where CuPy has it (the GPU), else SciPy's
    spgemm = details["masked_spgemm"]
    assert spgemm["cusparse_agrees" if "cusparse_then_mask_s" in spgemm else "scipy_agrees"]
    assert all(r["agrees"] for r in details["masked_spmv"] + details["direction_sweep"])
    levels = details["bfs_levels"]["levels"]
    assert all(r["agrees"] for r in levels)
    assert all(r["auto_chose"] in ("push", "pull", "not logged") for r in levels)
    for key, value in prim["summary"].items():
        if value is None:
            assert prim["summary_notes"][key]


def test_primitives_selected_by_name(tmp_path):
    main(["--smoke", "--device", "cpu", "--algorithms", "none", "--peers", "none",
          "--first-call", "none", "--primitives", "udf", "--out", str(tmp_path)])
    prim = _load(str(tmp_path), "primitives.json")
    assert prim["details"]["udf_mxv"]["agrees"] and prim["summary"]["udf_mxv_vs_builtin"] > 0
    assert set(prim["details"]) == {"udf_mxv"}
    for key in ("spmv_min_plus_fp32_vs_plus_times", "bfs_vs_naive_min"):
        assert prim["summary"][key] is None
        assert prim["summary_notes"][key] == "not measured in this run (--primitives udf)"


# The command line -------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--graphs", "bogus"], "unknown graph"),
    (["--algorithms", "dfs"], "unknown algorithm"),
    (["--peers", "gunrock"], "unknown peer"),
    (["--algorithms", "none"], "nothing to run"),
    (["--repeat", "0"], "at least 1"),
    (["--time-limit", "-1"], "positive"),
    (["--graphs", "kron-40"], "between 1 and 30"),
    (["--primitives", "spmv,fft"], "unknown primitive 'fft'"),
])
def test_bad_arguments_exit_2(args, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(args + ["--out", str(tmp_path)])
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_cuda_without_a_gpu_is_a_usage_error(tmp_path, capsys):
    from graphblast.backends import cuda_available

    if cuda_available():
        pytest.skip("this machine has a usable GPU")
    with pytest.raises(SystemExit) as e:
        main(["--device", "cuda", "--out", str(tmp_path)])
    assert e.value.code == 2 and "--device cpu" in capsys.readouterr().err


def test_python_dash_m_entry_point():
    import subprocess
    import sys

    import graphblast

    src = os.path.dirname(os.path.dirname(graphblast.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "graphblast.bench", "--help"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and "--primitives" in done.stdout


def test_missing_peer_is_skipped_with_a_note(device, tmp_path, monkeypatch, capfd):
    def refuse(self):
        raise PeerUnavailable("pretend SciPy is missing")

    monkeypatch.setattr(SciPy, "load", refuse)
    status = main(["--graphs", "grid-8", "--algorithms", "bfs,tc", "--peers", "scipy",
                   "--device", device, "--repeat", "1", "--out", str(tmp_path)])
    capfd.readouterr()
    assert status == 0
    doc = _load(tmp_path)
    assert doc["peers"]["scipy"] == {"available": False, "note": "pretend SciPy is missing",
                                     "description": SciPy.description}
    bfs = next(r for r in doc["results"] if r["algorithm"] == "bfs")
    assert bfs["participants"]["scipy"] == {"status": "unavailable",
                                            "reason": "pretend SciPy is missing"}
    # No peer answer: the SciPy oracle checks graphblast on the same (small) graph.
    ours = bfs["participants"]["graphblast"]
    assert ours["status"] == "ok"
    assert ours["check"]["oracle"] == "scipy" and ours["check"]["same_graph"]
    tc = next(r for r in doc["results"] if r["algorithm"] == "tc")
    assert tc["participants"]["graphblast"]["check"]["oracle"] == "scipy-triangles"
    assert "not installed" in (tmp_path / "results.md").read_text()


# The parts ------------------------------------------------------------------------------------

def test_parse_graphs_sizes_and_offsets():
    specs = graphs.parse_graphs(None)
    assert [s.name for s in specs] == ["kron-22", "g500-21", "urand-22", "rgg-22", "grid-2048"]
    specs = graphs.parse_graphs("kron,grid,kron-12", scale_offset=-2)
    assert [s.name for s in specs] == ["kron-20", "grid-1024", "kron-12"]
    assert [s.name for s in graphs.parse_graphs(None, smoke=True)][-1] == "karate"
    assert {s.name for s in graphs.parse_graphs("real")} == set(graphs.REAL)
    with pytest.raises(InvalidValue, match="positive integer"):
        graphs.parse_graphs("grid-x")


def test_hash_weights_are_symmetric_and_in_range():
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, 1 << 20, 1000), rng.integers(0, 1 << 20, 1000)
    w = graphs.hash_weights(u, v)
    assert np.array_equal(w, graphs.hash_weights(v, u))
    assert w.min() >= 1 and w.max() <= 255 and w.dtype == np.int32


def test_levels_from_tree():
    # 0 -> 1 -> 2 -> 3, 0 -> 4; 5 unreached (SciPy marks no parent with -9999)
    pred = np.array([-9999, 0, 1, 2, 0, -9999])
    assert check.levels_from_tree(pred, 0).tolist() == [0, 1, 2, 3, 1, -1]


def test_canonical_labels_name_components_by_smallest_vertex():
    assert check.canonical_labels([7, 3, 7, 9, 3]).tolist() == [0, 1, 0, 3, 1]


def test_judge_majority_and_mismatch():
    good = np.array([0, 1, 2, -1])
    bad = np.array([0, 1, 1, -1])
    verdicts = check.judge("bfs", {"scipy": good, "networkx": good, "graphblast": bad})
    assert verdicts["scipy"].status == verdicts["networkx"].status == "ok"
    assert verdicts["graphblast"].status == "mismatch"
    assert "differs from scipy" in verdicts["graphblast"].detail
    # Two against one: the majority wins even against the first oracle.
    verdicts = check.judge("bfs", {"scipy": bad, "networkx": good, "graphblast": good})
    assert verdicts["scipy"].status == "mismatch" and verdicts["graphblast"].status == "ok"
    assert check.judge("tc", {"graphblast": 3})["graphblast"].status == "unchecked"
    assert check.judge("tc", {}) == {}


def test_compare_pagerank_and_sssp_tolerances():
    a = np.full(4, 0.25)
    assert check.compare("pagerank", a, a + 1e-6)[0]
    assert not check.compare("pagerank", a, a + 1e-3)[0]
    d = np.array([0.0, 3.0, np.inf])
    assert check.compare("sssp", d, d.copy())[0]
    assert not check.compare("sssp", d, np.array([0.0, 3.0, 5.0]))[0]


def test_time_call_respects_the_time_limit():
    import time

    def slow():
        time.sleep(0.03)
        return 1

    timing, result = runner.time_call(slow, warmup=1, repeat=10, time_limit=0.1)
    assert result == 1 and 1 <= timing.to_dict()["runs"] <= 3
    assert "time limit" in timing.note
    timing, _ = runner.time_call(slow, warmup=1, repeat=5, time_limit=0.01)
    assert timing.to_dict()["runs"] == 1 and "without warm-up" in timing.note


def test_estimate_runs_a_pilot_and_skips_what_will_not_fit(device, monkeypatch):
    monkeypatch.setattr(runner, "PILOT_MIN_EDGES", 1000)
    progress = runner.Progress(1, stream=io.StringIO())
    suite = runner.Suite([], ["bfs"], [], device, repeat=1, warmup=0, time_limit=1e-9,
                         data_dir=None, params=AlgorithmParams(), progress=progress)
    spec = graphs.GraphSpec("grid", 64)
    seconds, basis = suite.estimate(suite.ours, "bfs", spec, 16128)
    assert seconds > 0 and "grid graph of" in basis
    # The pilot was the 16x smaller grid; its time now predicts, without another pilot.
    assert suite.estimator.predict("graphblast", "bfs", "grid", 16128)[0] == seconds
    entry = {}
    graph = graphs.build(spec, device)
    assert "over the time limit" in suite._too_slow(suite.ours, "bfs", graph, entry)
    assert entry["estimate"]["seconds"] == pytest.approx(seconds)
    progress.close()


def test_directions_timed_interleaved():
    """The BFS levels' push, pull and auto runs alternate, each round in another order (a
    host that drifts during a block of one direction's runs would bias the ratio); each
    timed run follows an untimed one of the same direction (not the cache state another
    left), and each direction's time is the median of its own timed runs."""
    import graphblast as gb

    seen, clock = [], iter(range(1000))
    timer = primitives._Timer(None, repeat=4, warmup=1, time_limit=float("inf"))

    def op():
        seen.append(gb.config["direction"])
        return len(seen)

    real = runner._timed_once
    runner._timed_once = lambda fn, sync: (float(next(clock)), fn())
    try:
        got = primitives._interleaved(op, timer, ("push", "pull", "auto"))
    finally:
        runner._timed_once = real
    assert seen[0::2] == seen[1::2]  # every run follows an untimed one of its direction
    runs = seen[0::2]
    assert runs[:3] == ["push", "pull", "auto"]  # the warm-up round
    rounds = [runs[k:k + 3] for k in range(3, len(runs), 3)]
    assert len(rounds) >= 4 and all(sorted(r) == ["auto", "pull", "push"] for r in rounds)
    assert rounds[0] == ["push", "pull", "auto"] and rounds[1] == ["pull", "auto", "push"]
    # the clock ticks once a run, untimed ones included: the timed run of pair j reads 2j + 1
    times = {m: [2 * (3 + 3 * r + rounds[r].index(m)) + 1 for r in range(len(rounds))]
             for m in ("push", "pull", "auto")}
    assert {m: got[m][0] for m in got} == {m: float(np.median(t)) for m, t in times.items()}
    assert got["auto"][1] == len(seen) - seen[::-1].index("auto")  # its last run's answer
