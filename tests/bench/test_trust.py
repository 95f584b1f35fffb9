"""The benchmark as an instrument to trust (issue 13), on the CPU with tiny graphs:

warm pilots (a slow first call does not cause a skip), failing peers (an exception, out of
memory, a wrong answer) as notes while the run goes on, results.json written as the run goes
(and kept after a crash; ``--resume`` finishes it), ``--deadline``, ``--merge``, figures not
measured as null with a reason, the first call measured in a fresh process, and the README
section generated from a record.  No timing is asserted.
"""

import io
import json
import os
import time

import numpy as np
import pytest

import graphblast.bench as bench
from graphblast.bench import check, graphs, main, primitives, report, runner
from graphblast.bench.peers import AlgorithmParams
from graphblast.bench.peers.scipy_csgraph import SciPy
from graphblast.exceptions import OutOfMemory


def _load(out, name="results.json"):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


class SlowFirst(SciPy):
    """SciPy, whose first call on each graph is slow (as a first call that compiles)."""

    name = "slowfirst"
    first_delay = 1.5

    def task(self, algorithm, native, graph, params):
        inner = super().task(algorithm, native, graph, params)
        calls = []

        def fn():
            if not calls:
                time.sleep(self.first_delay)
            calls.append(1)
            return inner()
        return fn


class Raiser(SciPy):
    name = "raiser"

    def task(self, algorithm, native, graph, params):
        def fn():
            raise RuntimeError("cuSPARSE: CUSPARSE_STATUS_INSUFFICIENT_RESOURCES")
        return fn


class Oom(SciPy):
    name = "oom"

    def task(self, algorithm, native, graph, params):
        def fn():
            raise OutOfMemory("pretend the device is full")
        return fn


class Wrong(SciPy):
    name = "wrong"

    def answer(self, algorithm, raw, graph):
        good = super().answer(algorithm, raw, graph)
        return good + 1 if algorithm != "tc" else good + 1


class Crash(SciPy):
    """Stops the process (as a kill would) when it reaches connected components."""

    name = "crash"

    def task(self, algorithm, native, graph, params):
        if algorithm == "cc":
            def fn():
                raise KeyboardInterrupt("simulated kill")
            return fn
        return super().task(algorithm, native, graph, params)


FAKES = {c.name: c for c in (SlowFirst, Raiser, Oom, Wrong, Crash)}


@pytest.fixture
def fake_peers(monkeypatch):
    """Lets ``--peers`` name the fake peers above (next to the real ones)."""
    real = runner.make_peer
    monkeypatch.setattr(bench, "PEER_NAMES", bench.PEER_NAMES + tuple(FAKES))
    monkeypatch.setattr(runner, "make_peer",
                        lambda name, device: FAKES[name]() if name in FAKES
                        else real(name, device))


def _suite(specs, algorithms, peers, device, **kw):
    progress = runner.Progress(1, stream=io.StringIO())
    args = dict(repeat=1, warmup=1, time_limit=30.0, data_dir=None,
                params=AlgorithmParams(), progress=progress)
    args.update(kw)
    return runner.Suite(specs, algorithms, peers, device, **args)


# Warm pilots ---------------------------------------------------------------------------------

def test_a_slow_first_call_does_not_cause_a_skip(fake_peers, monkeypatch):
    monkeypatch.setattr(runner, "PILOT_MIN_EDGES", 1000)
    # One warm run is far below the limit; the first call alone (1.5 s) is above it.
    suite = _suite([graphs.GraphSpec("grid", 64)], ["bfs"], ["slowfirst"], "cpu",
                   time_limit=1.0, budget=5.0, fallback_check=False)
    _, results = suite.run()
    entry = results[0]["participants"]["slowfirst"]
    assert entry["status"] == "ok", entry
    assert "warm pilot" in entry["estimate"]["basis"]
    assert entry["estimate"]["seconds"] < 1.0
    # The measurement's own warm-up paid the first call: it is not among the timed runs.
    assert entry["timing"]["warmup_s"][0] >= SlowFirst.first_delay


def test_a_cold_pilot_would_have_skipped(fake_peers, monkeypatch):
    """The same case, predicted from the pilot's first call, is over the limit: what the
    warm pilot prevents."""
    monkeypatch.setattr(runner, "PILOT_MIN_EDGES", 1000)
    suite = _suite([], ["bfs"], ["slowfirst"], "cpu", time_limit=1.0)
    peer = suite.peers[0]
    pilot = graphs.build(graphs.GraphSpec("grid", 16), "cpu")
    fn = peer.task("bfs", peer.prepare(pilot, False), pilot, suite.params)
    cold, _ = runner._timed_once(fn, None)
    assert cold * 16128 / pilot.nedges > 1.0


# Failing peers -------------------------------------------------------------------------------

def test_failing_peers_are_notes_and_the_run_goes_on(fake_peers, device, tmp_path, capfd):
    status = main(["--graphs", "grid-8,kron-6", "--algorithms", "bfs,cc",
                   "--peers", "raiser,oom,wrong,scipy", "--device", device, "--repeat", "1",
                   "--first-call", "none", "--out", str(tmp_path)])
    capfd.readouterr()
    assert status == 0          # graphblast's answers are all right
    doc = _load(tmp_path)
    assert doc["complete"]
    assert {(r["algorithm"], r["graph"]) for r in doc["results"]} == {
        (a, g) for a in ("bfs", "cc") for g in ("grid-8", "kron-6")}
    for rec in doc["results"]:
        p = rec["participants"]
        assert p["graphblast"]["status"] == "ok" and p["scipy"]["status"] == "ok"
        assert p["raiser"]["status"] == "error"
        assert "INSUFFICIENT_RESOURCES" in p["raiser"]["reason"]
        assert p["raiser"]["failure"] == "out_of_memory"
        assert p["oom"] == {"status": "error", "failure": "out_of_memory",
                            "reason": "OutOfMemory: pretend the device is full"}
        assert p["wrong"]["status"] == "mismatch"
        assert "speedup" not in p["wrong"] and "speedup" in p["scipy"]
    text = (tmp_path / "results.md").read_text()
    assert "out of memory" in text and "WRONG ANSWER" in text


def test_graphblast_failing_on_one_graph_is_a_note(device, tmp_path, monkeypatch, capfd):
    from graphblast.bench.peers import Graphblast

    real = Graphblast.task

    def task(self, algorithm, native, graph, params):
        if graph.name == "grid-8":
            def fn():
                raise MemoryError("std::bad_alloc")
            return fn
        return real(self, algorithm, native, graph, params)

    monkeypatch.setattr(Graphblast, "task", task)
    status = main(["--graphs", "grid-8,kron-6", "--algorithms", "bfs", "--peers", "scipy",
                   "--device", device, "--repeat", "1", "--first-call", "none",
                   "--out", str(tmp_path)])
    capfd.readouterr()
    assert status == 1          # a graphblast failure is reported in the exit status
    doc = _load(tmp_path)
    by_graph = {r["graph"]: r["participants"]["graphblast"] for r in doc["results"]}
    assert by_graph["grid-8"]["status"] == "error"
    assert by_graph["grid-8"]["failure"] == "out_of_memory"
    assert by_graph["kron-6"]["status"] == "ok"


def test_describe_failure_kinds():
    assert runner.describe_failure(MemoryError())["failure"] == "out_of_memory"
    assert runner.describe_failure(OutOfMemory("x"))["failure"] == "out_of_memory"

    class OutOfMemoryError(Exception):        # CuPy's name
        pass

    assert runner.describe_failure(OutOfMemoryError("y"))["failure"] == "out_of_memory"
    got = runner.describe_failure(ValueError("z" * 5000))
    assert got["failure"] == "exception" and len(got["reason"]) < 1000


def test_cusparse_spgemm_failing_falls_back_to_a_smaller_graph():
    """cuSPARSE's SpGEMM raising on the larger graphs is noted; the ratio comes from the
    largest graph it could do."""
    import scipy.sparse as sp

    class FakeCuSparse:
        cupy = None

        def sync(self):
            pass

        def csr(self, indptr, indices, values):
            n = len(indptr) - 1
            return sp.csr_array((values, indices, indptr), shape=(n, n))

        def spgemm_then_mask_task(self, L, mask):
            if L.shape[0] > 256:
                def fail():
                    raise RuntimeError("CUSPARSE_STATUS_INSUFFICIENT_RESOURCES")
                return fail
            LT = L.T.tocsr()
            return lambda: (L @ LT).multiply(mask)

    graph = graphs.build(graphs.GraphSpec("kron", 10), "cpu")
    timer = primitives._Timer(None, 1, 0, 10.0)
    details, notes = {}, {}
    summary = primitives._masked_spgemm(graph, None, timer, FakeCuSparse(),
                                        runner.Progress(1, stream=io.StringIO()), details,
                                        notes)
    d = details["masked_spgemm"]
    assert [f["graph"] for f in d["cusparse_failures"]] == ["kron-10", "kron-9"]
    assert d["graph"] == "kron-8" and d["cusparse_agrees"]
    # a speed: the baseline's time over graphblast's (above 1: graphblast faster)
    assert summary["masked_spgemm_vs_cusparse"] == pytest.approx(
        d["cusparse_then_mask_s"] / d["masked_s"])
    assert "kron-8" in notes["masked_spgemm_vs_cusparse"]


# Results written as the run goes ------------------------------------------------------------

def test_results_survive_a_crash_and_resume_finishes(fake_peers, device, tmp_path, capfd):
    args = ["--graphs", "grid-8", "--algorithms", "bfs,sssp,cc", "--device", device,
            "--repeat", "1", "--first-call", "none", "--out", str(tmp_path)]
    with pytest.raises(KeyboardInterrupt):
        main(args + ["--peers", "crash"])
    capfd.readouterr()
    doc = _load(tmp_path)
    assert doc["complete"] is False
    done = {r["algorithm"]: r for r in doc["results"]}
    assert runner.record_complete(done["bfs"]) and runner.record_complete(done["sssp"])
    assert done["bfs"]["participants"]["graphblast"]["status"] == "ok"
    assert "cc" not in done or not runner.record_complete(done["cc"])
    kept = done["bfs"]["participants"]["graphblast"]["timing"]
    # --resume keeps what was measured and measures the rest.
    status = main(args + ["--peers", "scipy", "--resume"])
    capfd.readouterr()
    assert status == 0
    doc = _load(tmp_path)
    assert doc["complete"] and doc["resumed_from"]["file"].endswith("results.json")
    again = {r["algorithm"]: r for r in doc["results"]}
    assert again["bfs"]["participants"]["graphblast"]["timing"] == kept
    assert again["cc"]["participants"]["graphblast"]["status"] == "ok"


def test_refresh_measures_graphblast_again_and_keeps_the_peers(device, tmp_path, capfd,
                                                                monkeypatch):
    algorithms = "bfs,sssp,pagerank,cc,tc"
    args = ["--graphs", "kron-8", "--algorithms", algorithms, "--device", device,
            "--repeat", "1", "--first-call", "none", "--peers", "scipy,networkx",
            "--out", str(tmp_path)]
    assert main(args) == 0
    capfd.readouterr()
    first_doc = _load(tmp_path)
    first = {r["algorithm"]: r for r in first_doc["results"]}
    for rec in first.values():   # two answers agreed: a reference is recorded
        assert rec["reference"]["agreed"], rec["algorithm"]
    status = main(args + ["--resume", "--refresh"])
    capfd.readouterr()
    assert status == 0
    again_doc = _load(tmp_path)
    assert again_doc["per_call_overhead"] != first_doc["per_call_overhead"]  # measured again
    again = {r["algorithm"]: r for r in again_doc["results"]}
    for name, rec in again.items():
        ours, before = rec["participants"]["graphblast"], first[name]["participants"]
        assert ours["timing"] != before["graphblast"]["timing"]             # measured again
        assert ours["status"] == "ok" and "reference answer" in ours["check"]["detail"]
        for peer in ("scipy", "networkx"):
            if peer in before:                                                # kept as it was
                kept = dict(rec["participants"][peer])
                assert kept.pop("kept_from")
                kept.pop("speedup", None)
                assert kept == {k: v for k, v in before[peer].items() if k != "speedup"}
    # A wrong answer is caught against the reference alone.
    from graphblast.bench import peers as peers_mod

    real = peers_mod.Graphblast.answer

    def wrong(self, algorithm, raw, graph):
        out = real(self, algorithm, raw, graph)
        return out + 1 if algorithm == "tc" else out
    monkeypatch.setattr(peers_mod.Graphblast, "answer", wrong)
    status = main(args + ["--resume", "--refresh", "--algorithms", "tc"])
    capfd.readouterr()
    assert status == 1
    tc = _load(tmp_path)["results"][0]["participants"]["graphblast"]
    assert tc["status"] == "mismatch" and "reference" in tc["check"]["detail"]


def test_refresh_without_a_reference_runs_a_peer_again_as_the_checker(device, tmp_path,
                                                                       capfd):
    args = ["--graphs", "grid-8", "--algorithms", "bfs,cc", "--device", device, "--repeat",
            "1", "--first-call", "none", "--peers", "scipy", "--out", str(tmp_path)]
    assert main(args) == 0
    capfd.readouterr()
    path = os.path.join(tmp_path, "results.json")
    doc = _load(tmp_path)
    for rec in doc["results"]:      # a record made before references existed
        del rec["reference"]
    with open(path, "w") as f:
        json.dump(doc, f)
    before = {r["algorithm"]: r["participants"]["scipy"]["timing"] for r in doc["results"]}
    assert main(args + ["--resume", "--refresh"]) == 0
    capfd.readouterr()
    for rec in _load(tmp_path)["results"]:
        scipy, ours = rec["participants"]["scipy"], rec["participants"]["graphblast"]
        assert "kept_from" not in scipy and scipy["timing"] != before[rec["algorithm"]]
        assert ours["status"] == "ok" and "scipy" in ours["check"]["detail"]
        assert rec["reference"]["agreed"]   # recorded again


def test_fingerprints_agree_with_compare():
    rng = np.random.default_rng(5)
    ranks = rng.random(10_000)
    ranks /= ranks.sum()
    fp = check.fingerprint("pagerank", ranks)
    assert check.matches_fingerprint("pagerank", fp, ranks + 1e-10)[0]
    assert not check.matches_fingerprint("pagerank", fp, ranks * 1.5)[0]
    levels = rng.integers(-1, 9, 1000)
    assert check.matches_fingerprint("bfs", check.fingerprint("bfs", levels), levels.copy())[0]
    bumped = levels.copy()
    bumped[3] += 1
    assert not check.matches_fingerprint("bfs", check.fingerprint("bfs", levels), bumped)[0]
    dist = np.where(levels < 0, np.inf, levels.astype(np.float64))
    assert check.matches_fingerprint("sssp", check.fingerprint("sssp", dist), dist.copy())[0]
    assert check.matches_fingerprint("tc", check.fingerprint("tc", 7), 7)[0]
    assert not check.matches_fingerprint("tc", check.fingerprint("tc", 7), 8)[0]


def test_a_deadline_ends_the_run_with_its_outputs(device, tmp_path, capfd):
    args = ["--graphs", "grid-8,kron-6", "--algorithms", "bfs", "--peers", "scipy",
            "--device", device, "--repeat", "1", "--first-call", "none",
            "--out", str(tmp_path)]
    status = main(args + ["--deadline", "1e-9"])
    capfd.readouterr()
    assert status == 1
    doc = _load(tmp_path)
    assert not doc["complete"] and doc["stopped"]["graphs_not_run"] == ["grid-8", "kron-6"]
    assert "Incomplete" in (tmp_path / "results.md").read_text()
    assert main(args + ["--resume"]) == 0
    capfd.readouterr()
    assert _load(tmp_path)["complete"]


def test_merge_combines_stages(device, tmp_path, capfd):
    common = ["--algorithms", "bfs,cc", "--peers", "scipy", "--device", device,
              "--repeat", "1", "--first-call", "none", "--no-plots"]
    assert main(common + ["--graphs", "grid-8", "--out", str(tmp_path / "a")]) == 0
    assert main(common + ["--graphs", "kron-6", "--out", str(tmp_path / "b")]) == 0
    status = main(["--out", str(tmp_path / "m"), "--merge", str(tmp_path / "a" / "results.json"),
                   str(tmp_path / "b")])
    capfd.readouterr()
    assert status == 0
    doc = _load(tmp_path / "m")
    assert doc["options"]["graphs"] == ["grid-8", "kron-6"]
    assert len(doc["results"]) == 4 and len(doc["parts"]) == 2
    assert list(doc["summary"]) == list(report.SUMMARY_KEYS)
    text = (tmp_path / "m" / "results.md").read_text()
    assert "Merged from these runs" in text
    # each run's host yardstick is listed with it (host-bound figures move with the host)
    assert all(p["host_reference"]["start_us"] > 0 for p in doc["parts"])
    assert text.count("host reference") == 2
    # merged and written into a README in one call: the section shows the merged record
    readme = tmp_path / "README.md"
    readme.write_text(report.README_BEGIN + "\nold\n" + report.README_END + "\n")
    status = main(["--out", str(tmp_path / "m2"), "--merge", str(tmp_path / "a"),
                   str(tmp_path / "b"), "--report-readme", str(readme)])
    capfd.readouterr()
    assert status == 0
    text = readme.read_text()
    assert "old" not in text and "grid-8" in text and "kron-6" in text


# Figures not measured are null, with a reason -------------------------------------------------

def _entry(ms, status="ok", **kw):
    e = {"status": status, "timing": {"median_s": ms / 1e3}}
    e.update(kw)
    return e


def test_summary_nulls_have_reasons_and_new_keys_are_computed():
    results = [
        {"algorithm": "cc", "graph": g, "participants": {
            "graphblast": _entry(10.0),
            "suitesparse": _entry(10.0 * x, speedup=x)}}
        for g, x in (("kron-22", 3.0), ("urand-22", 2.0), ("grid-2048", 0.5))]
    results.append({"algorithm": "tc", "graph": "g500-21", "participants": {
        "graphblast": _entry(3390.0, status="unchecked"),
        "suitesparse": {"status": "skipped", "reason": "too slow"}}})
    results.append({"algorithm": "bfs", "graph": "grid-2048", "levels": 4095,
                    "participants": {"graphblast": _entry(409.5)}})
    results.append({"algorithm": "bfs", "graph": "kron-27",
                    "participants": {"graphblast": _entry(100.0)}})
    doc = {"options": {"device": "cuda:0"}, "results": results,
           "graphs": [{"name": "kron-27", "stored_edges": 4, "device_bytes": 3 * 2**30}],
           "per_call_overhead": {"error": "karate not found"},
           "first_call": {"bfs": {"graph": "kron-22", "first_s": 2.5, "warm_median_s": 0.5,
                                  "first_call_s": 2.0, "kernels_compiled": 7}},
           "copy_bandwidth": {"GBps": 4000.0}}
    summary, notes = report.summarize(doc)
    assert list(summary) == list(report.SUMMARY_KEYS)
    for key, value in summary.items():
        if value is None:
            assert notes[key], key
    # three of the five default graphs: a minimum over them only bounds the figure
    assert summary["cc_min_speedup_vs_suitesparse"] is None
    assert "at most 0.5" in notes["cc_min_speedup_vs_suitesparse"]
    assert "grid-2048" in notes["cc_min_speedup_vs_suitesparse"]
    assert "g500-21" in notes["cc_min_speedup_vs_suitesparse"]     # a default graph absent
    assert summary["tc_g500_21_ms"] is None and "no peer" in notes["tc_g500_21_ms"]
    assert summary["bfs_grid_2048_us_per_level"] == pytest.approx(100.0)
    assert summary["first_call_bfs_s"] == 2.0
    assert summary["per_call_overhead_us"] is None
    assert notes["per_call_overhead_us"] == "karate not found"
    assert summary["bfs_gap_kron_27_ms"] == pytest.approx(100.0)
    assert "309" in notes["bfs_gap_kron_27_ms"]
    assert summary["gap_kron_27_graph_gib"] == 3.0
    assert summary["cc_gap_kron_27_ms"] is None and "kron-27" in notes["cc_gap_kron_27_ms"]
    # On the CPU the absolute figures are null, and say why.
    doc["options"]["device"] = "cpu"
    summary, notes = report.summarize(doc)
    assert summary["first_call_bfs_s"] is None and "GPU" in notes["first_call_bfs_s"]
    assert summary["cc_min_speedup_vs_suitesparse"] is None     # still three of five
    for g, x in (("g500-21", 4.0), ("rgg-22", 0.25)):
        results.append({"algorithm": "cc", "graph": g, "participants": {
            "graphblast": _entry(10.0), "suitesparse": _entry(10.0 * x, speedup=x)}})
    summary, notes = report.summarize(doc)
    assert summary["cc_min_speedup_vs_suitesparse"] == 0.25     # a ratio: any device
    assert notes["cc_min_speedup_vs_suitesparse"].startswith("on rgg-22")


def test_an_answer_no_peer_checks_is_certified_or_checked_on_a_smaller_graph(device,
                                                                              monkeypatch):
    """Too large for the oracle: BFS, SSSP, PageRank and components are certified on the
    graph itself; the triangle count (no certificate) is checked on a smaller graph."""
    monkeypatch.setattr(runner, "FALLBACK_MAX_EDGES", 2000)
    suite = _suite([graphs.GraphSpec("kron", 9)], ["bfs", "sssp", "pagerank", "cc", "tc"],
                   [], device)
    _, results = suite.run()
    assert len(results) == 5
    for rec in results:
        ours = rec["participants"]["graphblast"]
        assert ours["status"] == "ok", ours
        if rec["algorithm"] == "tc":
            assert ours["check"]["graph"] == "kron-5" and not ours["check"]["same_graph"]
            assert "smaller graph of the same family" in ours["check"]["detail"]
        else:
            assert ours["check"]["oracle"] == "certificate" and ours["check"]["same_graph"]
            assert "certified on the graph itself" in ours["check"]["detail"]


def test_a_failing_certificate_falls_back_to_a_smaller_graph(device, monkeypatch):
    """A certificate that cannot run (here: made to raise) leaves the smaller graph's oracle
    to check the answer, as before certificates existed."""
    from graphblast.bench import certify

    def broken(*args):
        raise RuntimeError("no scatter on this device")

    monkeypatch.setattr(runner, "FALLBACK_MAX_EDGES", 2000)
    monkeypatch.setattr(certify, "certify", broken)
    suite = _suite([graphs.GraphSpec("kron", 9)], ["bfs"], [], device)
    _, results = suite.run()
    ours = results[0]["participants"]["graphblast"]
    assert ours["status"] == "ok", ours
    assert ours["check"]["graph"] == "kron-5" and not ours["check"]["same_graph"]


# The first call ---------------------------------------------------------------------------

def test_first_call_is_measured_in_a_fresh_process(tmp_path):
    got = bench.first_call.measure("grid-8", "bfs", "cpu")
    assert "error" not in got, got
    assert got["first_call_s"] == pytest.approx(got["first_s"] - got["warm_median_s"])
    assert "CUPY_CACHE_DIR" in got["method"] and got["kernels_compiled"] == 0
    bad = bench.first_call.measure("nosuch", "bfs", "cpu")
    assert "error" in bad


# The README section ---------------------------------------------------------------------------

def test_readme_section_is_generated_from_the_record(device, tmp_path, capfd):
    out = tmp_path / "record"
    assert main(["--graphs", "grid-8,kron-6", "--algorithms", "bfs,cc", "--peers",
                 "scipy", "--device", device, "--repeat", "1", "--first-call", "none",
                 "--out", str(out)]) == 0
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n## Performance\n\nintro\n\n" + report.README_BEGIN +
                      "\nplaceholder\n" + report.README_END + "\n\n## Next\n")
    assert main(["--out", str(out), "--report-readme", str(readme)]) == 0
    capfd.readouterr()
    text = readme.read_text()
    assert "placeholder" not in text and text.endswith("\n\n## Next\n")
    assert "| bfs |" in text and "Where graphblast is slower" in text
    assert "record/results.md" in text
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "none"), "--report-readme", str(readme)])
    capfd.readouterr()


def test_a_cpu_peer_that_cannot_fit_is_skipped_with_a_note(device, monkeypatch):
    monkeypatch.setattr(runner, "available_bytes", lambda xp=None: 1000)
    suite = _suite([graphs.GraphSpec("grid", 8)], ["bfs"], ["scipy"], device)
    _, results = suite.run()
    p = results[0]["participants"]
    assert p["scipy"]["status"] == "skipped"
    assert "cannot fit in host memory" in p["scipy"]["reason"]
    assert p["graphblast"]["status"] == "ok"         # the oracle still checks it


def test_min_speedup_vs_best_peer_takes_the_fastest_peer_of_every_pair():
    """The smallest, over the 25 (algorithm, graph) pairs of the default graphs, of the
    fastest checked peer's time over graphblast's; a figure only once every pair has one."""
    graphs = ("kron-22", "urand-22", "g500-21", "grid-2048", "rgg-22")
    algorithms = ("bfs", "sssp", "pagerank", "cc", "tc")
    results = []
    for a in algorithms:
        for g in graphs:
            slow, fast = (4.0, 0.26) if (a, g) == ("bfs", "grid-2048") else (9.0, 3.0)
            results.append({"algorithm": a, "graph": g, "participants": {
                "graphblast": _entry(10.0),
                "scipy": _entry(10.0 * fast, speedup=fast),
                "suitesparse": _entry(10.0 * slow, speedup=slow),
                "networkx": {"status": "skipped", "reason": "too slow"}}, "levels": 8})
    doc = {"options": {"device": "cuda:0"}, "results": results, "graphs": []}
    summary, notes = report.summarize(doc)
    assert summary["min_speedup_vs_best_peer"] == pytest.approx(0.26)
    assert "bfs grid-2048" in notes["min_speedup_vs_best_peer"]
    assert "scipy" in notes["min_speedup_vs_best_peer"]
    doc["results"] = results[1:]  # a pair missing: the minimum only bounds the figure
    summary, notes = report.summarize(doc)
    assert summary["min_speedup_vs_best_peer"] is None
    assert "24 of 25" in notes["min_speedup_vs_best_peer"]
