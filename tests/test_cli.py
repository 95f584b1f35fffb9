"""The ``graphblast`` command line, through Typer's CliRunner and as a real process."""

import io as _io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

typer = pytest.importorskip("typer")
pytest.importorskip("rich")

from typer.testing import CliRunner

from graphblast import algorithms, cli, generators, io

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "src"))


def invoke(*args):
    return CliRunner().invoke(cli.app, [str(a) for a in args])


def run_json(*args):
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def assert_user_error(result, *fragments):
    """Exit status 1, one line starting with "error:", no traceback."""
    assert result.exit_code == 1, result.output
    text = result.output.strip()
    assert text.startswith("error:") and "\n" not in text, text
    assert "Traceback" not in text
    for fragment in fragments:
        assert fragment in text, text


def test_help_lists_the_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("info", "run", "generate", "convert", "bench"):
        assert command in result.output


def test_info():
    result = invoke("info")
    assert result.exit_code == 0, result.output
    assert "default device" in result.output and "numpy" in result.output
    report = run_json("info")
    assert report["versions"]["graphblast"]
    assert report["default_device"] in ("cpu", "cuda:0") or report["default_device"].startswith(
        "cuda")
    assert "available" in report["cuda"]
    if not report["cuda"]["available"]:
        assert report["cuda"]["reason"]
    for gpu in report["cuda"].get("devices", []):
        assert gpu["memory_total"] >= gpu["memory_free"] > 0


# -- run -------------------------------------------------------------------------------------
def test_run_bfs_matches_the_algorithm(device):
    report = run_json("run", "bfs", "kron:8", "--device", device, "--source", 3)
    A = generators.kron(8, device=device)
    levels = algorithms.bfs(A, 3)
    assert report["result"]["reached"] == levels.nvals
    assert report["result"]["largest"] == int(levels.to_coo()[1].max())
    assert report["vertices"] == A.nrows and report["stored_edges"] == A.nvals
    assert report["device"].startswith(device) and report["seconds"] > 0


def test_run_each_algorithm(device):
    A = generators.kron(7, device=device)
    tc = run_json("run", "tc", "kron:7", "--device", device)
    assert tc["result"]["triangles"] == algorithms.triangle_count(A)
    cc = run_json("run", "cc", "kron:7", "--device", device)
    labels = algorithms.connected_components(A).to_coo()[1]
    assert cc["result"]["components"] == np.unique(labels).size
    pr = run_json("run", "pagerank", "kron:7", "--device", device)
    assert pr["result"]["sum"] == pytest.approx(1.0)
    sssp = run_json("run", "sssp", "grid:6x7", "--weighted", "--device", device)
    assert sssp["result"]["reached"] == 42
    aliases = run_json("run", "triangle_count", "kron:7", "--device", device)
    assert aliases["algorithm"] == "tc"


def test_run_default_source_skips_isolated_vertices(device):
    A = generators.kron(6, device=device)
    report = run_json("run", "bfs", "kron:6", "--device", device)
    source = report["result"]["source"]
    assert algorithms.bfs(A, source).nvals == report["result"]["reached"] > 1


def test_run_table_output():
    result = invoke("run", "bfs", "kron:6", "--repeat", 2)
    assert result.exit_code == 0, result.output
    assert "reached vertices" in result.output and "median of 2" in result.output
    assert "\x1b" not in result.output   # not a terminal: no colours, no progress bars


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".tsv", ".mtx", ".gbl"])
def test_run_writes_the_result(tmp_path, suffix, device):
    out = tmp_path / f"levels{suffix}"
    result = invoke("run", "bfs", "kron:7", "--source", 1, "--out", out, "--device", device)
    assert result.exit_code == 0, result.output
    expected = algorithms.bfs(generators.kron(7, device="cpu"), 1)
    idx, values = expected.to_coo()
    if suffix == ".gbl":
        got = io.load(out, device="cpu")
        assert got.isequal(expected)
    elif suffix == ".mtx":
        got = io.mmread(out, device="cpu")
        assert got.shape == (expected.size, 1)
        r, _, v = got.to_coo()
        np.testing.assert_array_equal(r, idx)
        np.testing.assert_array_equal(v, values)
    else:
        delimiter = {".csv": ",", ".tsv": "\t"}.get(suffix)
        skip = 1
        data = np.loadtxt(out, delimiter=delimiter, skiprows=skip, dtype=np.int64)
        np.testing.assert_array_equal(data[:, 0], idx)
        np.testing.assert_array_equal(data[:, 1], values)


def test_run_tc_result_file(tmp_path):
    out = tmp_path / "tc.txt"
    assert invoke("run", "tc", "kron:7", "--out", out).exit_code == 0
    count = algorithms.triangle_count(generators.kron(7, device="cpu"))
    assert out.read_text().split() == ["#", "triangles", str(count)]
    assert_user_error(invoke("run", "tc", "kron:7", "--out", tmp_path / "tc.mtx"),
                      "single number")


# -- generate and convert --------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["kron:7", "urand:7:4", "g500:7", "rgg:7", "grid:5x9",
                                  "grid:6"])
def test_generate_matches_the_generators(tmp_path, spec):
    out = tmp_path / "g.gbl"
    result = invoke("generate", spec, out, "--seed", 5)
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output
    family, args = spec.split(":", 1)
    expected = {
        "kron": lambda: generators.kron(7, seed=5, device="cpu"),
        "urand": lambda: generators.urand(7, 4, seed=5, device="cpu"),
        "g500": lambda: generators.graph500(7, seed=5, device="cpu"),
        "rgg": lambda: generators.rgg(2**7, seed=5, device="cpu"),
        "grid": lambda: generators.grid2d(*(map(int, args.split("x")) if "x" in args
                                            else (int(args), int(args))), device="cpu"),
    }[family]()
    assert io.load(out, device="cpu").isequal(expected)


def test_generate_weighted(tmp_path):
    out = tmp_path / "w.mtx"
    assert invoke("generate", "kron:6", out, "--weighted").exit_code == 0
    expected = generators.kron(6, weighted=True, device="cpu")
    got = io.mmread(out, device="cpu")
    assert got.isequal(expected)
    assert_user_error(invoke("generate", "g500:6", tmp_path / "x.gbl", "--weighted"),
                      "no weights")


@pytest.mark.parametrize("target", ["g.mtx", "g.mtx.gz", "g.el", "g.csv", "g.tsv.bz2",
                                    "g.gbl"])
def test_convert_round_trip(tmp_path, target):
    source = tmp_path / "source.gbl"
    assert invoke("generate", "grid:4x5", source, "--weighted").exit_code == 0
    original = io.load(source, device="cpu")
    out = tmp_path / target
    result = invoke("convert", source, out)
    assert result.exit_code == 0, result.output
    back = tmp_path / "back.gbl"
    assert invoke("convert", out, back).exit_code == 0
    got = io.load(back, device="cpu")
    r0, c0, v0 = original.to_coo()
    r1, c1, v1 = got.to_coo()
    np.testing.assert_array_equal(r0, r1)
    np.testing.assert_array_equal(c0, c1)
    np.testing.assert_array_equal(v0.astype(np.float64), v1.astype(np.float64))


def test_edge_list_ids_are_indices(tmp_path):
    path = tmp_path / "e.el"
    path.write_text("# a comment\n5 7\n7 9\n")
    report = run_json("run", "bfs", path, "--source", 5)
    assert report["vertices"] == 10 and report["result"]["reached"] == 3
    relabelled = run_json("run", "bfs", path, "--source", 0, "--relabel")
    assert relabelled["vertices"] == 3 and relabelled["result"]["reached"] == 3
    undirected = run_json("run", "bfs", path, "--source", 9, "--undirected")
    assert undirected["result"]["reached"] == 3


# -- user errors -----------------------------------------------------------------------------
@pytest.mark.parametrize("args, fragment", [
    (("run", "bfs", "kron:x"), "SCALE must be an integer"),
    (("run", "bfs", "kron:8:2:1"), "too many"),
    (("run", "bfs", "grid:axb"), "grid:ROWSxCOLS"),
    (("run", "bfs", "missing.mtx"), "no such file"),
    (("run", "walk", "kron:6"), "unknown algorithm 'walk'"),
    (("run", "bfs", "kron:6", "--device", "tpu"), "Unknown device 'tpu'"),
    (("run", "bfs", "kron:6", "--source", 10**6), "out of range"),
    (("run", "pagerank", "kron:6", "--source", 1), "--source applies to bfs and sssp"),
    (("generate", "kron6", "x.gbl"), "bad graph spec"),
    (("generate", "kron:6", "graph.xyz"), "cannot tell which format"),
    (("run", "bfs", "kron:6", "--out", "levels.xyz"), "cannot tell which format"),
])
def test_user_errors_are_one_line(tmp_path, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    assert_user_error(invoke(*args), fragment)


def test_bad_files_are_one_line(tmp_path):
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 x 2.0\n")
    assert_user_error(invoke("run", "bfs", bad), "bad.mtx")
    unknown = tmp_path / "graph.dat"
    unknown.write_text("0 1\n")
    assert_user_error(invoke("run", "bfs", unknown), "cannot tell the format")
    assert_user_error(invoke("run", "bfs", tmp_path), "is a directory")
    corrupt = tmp_path / "c.gbl"
    assert invoke("generate", "kron:5", corrupt).exit_code == 0
    corrupt.write_bytes(corrupt.read_bytes()[:-200])             # truncated
    assert_user_error(invoke("convert", corrupt, tmp_path / "x.mtx"), "c.gbl")
    vector = tmp_path / "v.gbl"
    assert invoke("run", "bfs", "kron:5", "--out", vector).exit_code == 0
    assert_user_error(invoke("run", "bfs", vector), "not a graph")


def test_usage_errors_exit_2():
    result = invoke("run", "bfs")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


# -- bench -----------------------------------------------------------------------------------
def test_bench_passes_arguments_through(monkeypatch):
    try:
        from graphblast import bench
    except ImportError:
        pytest.skip("graphblast.bench is not importable")
    seen = []
    monkeypatch.setattr(bench, "main", lambda argv: seen.append(argv) or 3)
    result = invoke("bench", "--smoke", "--out", "somewhere", "-h")
    assert seen == [["--smoke", "--out", "somewhere", "-h"]]
    assert result.exit_code == 3


def test_bench_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphblast.bench", None)   # import now fails
    assert_user_error(invoke("bench", "--smoke"), "graphblast bench is not available")


# -- the real entry point --------------------------------------------------------------------
def _cli(*args, **env):
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [SRC, os.environ.get("PYTHONPATH")])), **env)
    return subprocess.run(
        [sys.executable, "-c", "from graphblast.cli import main; main()", *map(str, args)],
        check=False, capture_output=True, text=True, env=full_env, timeout=300)


def test_entry_point_in_a_pipe():
    ok = _cli("run", "cc", "kron:6", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["result"]["components"] >= 1
    assert "\x1b" not in ok.stdout + ok.stderr       # quiet: stdout is not a terminal
    bad = _cli("run", "bfs", "urand:nope")
    assert bad.returncode == 1
    assert bad.stderr.strip().startswith("error:") and "Traceback" not in bad.stderr


def test_progress_only_on_terminals_and_after_a_second(monkeypatch):
    from rich.console import Console

    output = cli._Output()
    buffer = _io.StringIO()
    output.err = Console(file=buffer, force_terminal=True, width=80)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert output.show_progress
    with output.step("quick step"):
        pass
    assert "quick step" not in buffer.getvalue()
    import time

    with output.step("slow step"):
        time.sleep(1.5)
    assert "slow step" in buffer.getvalue()
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    assert not output.show_progress


def test_info_reports_a_graphs_memory():
    report = run_json("info", "kron:8", "--device", "cpu")
    g = report["graph"]
    assert g["nrows"] == 256 and g["device"] == "cpu" and g["symmetric"] is True
    assert g["memory_bytes"] == 8 * (g["nrows"] + 1) + 8 * g["nvals"] + g["nvals"]
    result = invoke("info", "kron:8", "--device", "cpu")
    assert result.exit_code == 0 and "graph memory" in result.stdout
