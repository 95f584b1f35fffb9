"""The kernel catalogue (backends/cuda/catalogue.py): built with the package, complete for
the algorithms, and enough for their first calls to compile nothing.

Without a GPU (CI): the package's catalogue was built by the install (``make test`` installs
the package, which compiles the catalogue with NVRTC), every problem key of the manifest and
every enumerated family is in its index, each kernel's lowered name is a symbol of its unit's
cubins and PTX, and the manifest's lines round-trip through the recorder's text form.  On a
GPU: the five algorithms run in a fresh process with an empty CuPy cache, and nothing is
compiled while they run.
"""

import json
import lzma
import os
import subprocess
import sys
import tempfile

import pytest

from graphblast.backends.cuda import catalogue, catalogue_build, jit, nvrtc, programs
from graphblast.dtypes import FP64


def _index():
    if not os.path.exists(catalogue.INDEX):
        pytest.fail(f"the kernel catalogue is not built ({catalogue.INDEX} is missing): "
                    "install the package (pip install -e .) or run "
                    "`python setup.py build_ext --inplace`, with NVRTC "
                    "(pip install nvidia-cuda-nvrtc)")
    with open(catalogue.INDEX, encoding="utf-8") as f:
        return json.load(f)


def test_manifest_lines_round_trip():
    specs = catalogue_build.manifest_specs()
    for line in specs:
        fn, args = catalogue.parse(line)
        assert catalogue.spec(fn, args) == line, line
    for fn, args in catalogue_build.enumerated():
        text = catalogue.spec(fn, args)
        assert text is not None, (fn.__name__, args)
        again, again_args = catalogue.parse(text)
        assert again is fn and catalogue._same(again_args, args)


def test_every_needed_key_is_in_the_built_catalogue():
    index = _index()
    assert index["targets"] == list(catalogue_build.TARGETS)
    assert index["options"] == list(jit.OPTIONS + catalogue.CUPY_OPTIONS)
    missing = [text for h, (text, _) in catalogue_build.collect().items()
               if h not in index["programs"]]
    assert not missing, (f"{len(missing)} programs are not in the built catalogue (a kernel "
                         f"header changed since it was built?), e.g. {missing[:5]}")


def test_lowered_names_are_symbols_of_the_shipped_binaries():
    index = _index()
    by_unit = {}
    for unit, lowered in index["programs"].values():
        by_unit.setdefault(unit, set()).update(lowered)
    for unit, names in sorted(by_unit.items())[:4] + sorted(by_unit.items())[-2:]:
        for target in index["targets"]:
            with open(os.path.join(catalogue.FOLDER, catalogue.unit_file(unit, target)),
                      "rb") as f:
                data = lzma.decompress(f.read())
            for name in names:
                needle = (b".entry " + name.encode()) if target.startswith("compute_") else (
                    name.encode() + b"\0")
                assert needle in data, (unit, target, name)


def test_the_catalogue_keeps_the_package_small():
    index = _index()
    total = sum(os.path.getsize(os.path.join(catalogue.FOLDER, name))
                for name in os.listdir(catalogue.FOLDER))
    assert total < 40 * 2**20, f"the catalogue takes {total / 2**20:.1f} MiB"
    assert len(index["programs"]) >= len(catalogue_build.manifest_specs())


def test_nvrtc_gives_the_symbol_of_a_template_instance():
    compiler = nvrtc.find()
    assert compiler is not None, "NVRTC not found (pip install nvidia-cuda-nvrtc)"
    _, build = programs.vector_kernel("list_copy", FP64)
    program = build()
    cubin, lowered = compiler.compile(program.source(), "one", ["-std=c++17"],
                                      program.kernels, "sm_90")
    (name,) = lowered.values()
    assert name.startswith("_Z") and name.encode() in cubin


def test_unreadable_manifest_line_is_named(tmp_path):
    bad = tmp_path / "keys.txt"
    bad.write_text("pull(semiring.no_such[BOOL], BOOL, BOOL, False, True)\n")
    with pytest.raises(ValueError, match="no_such"):
        catalogue_build.collect(str(bad))


# The counting every fresh-process script starts with: compiled(step, at) prints the kernels
# compiled since ``at`` (CuPy's cache files, graphblast programs missing from the catalogue).
_COUNTING = r"""
import os
from graphblast.backends.cuda import jit

cache = os.environ["CUPY_CACHE_DIR"]
files = lambda: sum(len(f) for _, _, f in os.walk(cache))
def compiled(what, before):
    print("COMPILED", what, files() - before[0], jit.runtime_compiles - before[1])
    return files(), jit.runtime_compiles
at = (files(), jit.runtime_compiles)
"""

_FRESH = _COUNTING + r"""
import graphblast as gb
from graphblast import algorithms, generators

graphs = [(generators.kron(10, device="cuda"), generators.kron(10, weighted=True,
                                                                device="cuda")),
          (generators.grid2d(32, 32, device="cuda"),
           generators.grid2d(32, 32, weights="random", device="cuda"))]
others = [generators.urand(10, weighted=True, device="cuda"),
          generators.graph500(10, device="cuda"),
          generators.grid2d(9, 7, weights=(0.5, 1.5), device="cuda"),
          generators.rgg(2000, device="cuda"),
          generators.erdos_renyi(500, m=3000, device="cuda"),
          generators.erdos_renyi(60, 0.9, directed=True, device="cuda"),
          generators.erdos_renyi(60, 0.9, device="cuda")]
for M in others:
    M.wait()
at = compiled("generators", at)
for A, W in graphs:
    for result in (algorithms.bfs(A, 0), algorithms.sssp(W, 0), algorithms.pagerank(A),
                   algorithms.connected_components(A), algorithms.triangle_count(A)):
        getattr(result, "wait", lambda: None)()
# triangle counting on a small dense graph: its masked product gathers against L laid out
# densely (mxm's tiled pull); an element read (a binary search of the vector's indices)
algorithms.triangle_count(others[-1])
assert algorithms.bfs(graphs[0][0], 0).get(0) == 0
# PageRank's pull in degree order (taken by itself on graphs of a million vertices or more),
# the same ranks as in the stored order
with gb.config.set(pagerank_order="degree"):
    ordered = algorithms.pagerank(graphs[0][0])
stored = algorithms.pagerank(graphs[0][0])
stored.wait()
at = compiled("algorithms", at)
assert abs(ordered.to_dense() - stored.to_dense()).max() < 1e-12, "the order changed the ranks"
# cupyx's package pulls in SciPy's sparse package, half a second of a user's first call (its
# name alone may be there: cupy.random puts a lazy module in sys.modules)
import sys
assert "cupyx.linalg" not in sys.modules, "the five algorithms ran cupyx's package"
"""

# The benchmark's first calls (graphblast.bench.first_call): its kron-22 graph and weights,
# then each of the five algorithms as its task calls it.
_BENCH = _COUNTING + r"""
from graphblast.bench import graphs
from graphblast.bench.peers import AlgorithmParams, Graphblast

graph = graphs.build(graphs.parse_graphs("kron-22")[0], "cuda:0")
ours = Graphblast("cuda:0")
tasks = [(a, ours.task(a, ours.prepare(graph, a == "sssp"), graph, AlgorithmParams()))
         for a in ("bfs", "sssp", "pagerank", "cc", "tc")]
ours.sync()
at = compiled("generators", at)
for name, task in tasks:
    task()
    ours.sync()
    at = compiled(name, at)
"""


# Directed graphs, as a user meets them: a generated one and weighted ones built from host
# arrays in no order (FP64 and INT64 weights); their pulls run over transposes, which a
# symmetric graph never builds.
_DIRECTED = _COUNTING + r"""
import numpy as np
import graphblast as gb
from graphblast import algorithms, generators

n, m = 3000, 24000
rng = np.random.default_rng(7)
keys = rng.permutation(np.unique(rng.integers(0, n * n, 2 * m))[:m])  # unsorted: built by a sort
rows, cols = keys // n, keys % n
D = generators.erdos_renyi(n, m=m, directed=True, device="cuda")
weighted = [gb.Matrix.from_coo(rows, cols, w, nrows=n, ncols=n, device="cuda")
            for w in (rng.random(rows.shape[0]), rng.integers(1, 100, rows.shape[0]))]
for M in (D, *weighted):
    M.wait()
at = compiled("graphs", at)
for result in (algorithms.bfs(D, 0), algorithms.pagerank(D),
               algorithms.connected_components(D), algorithms.triangle_count(D, symmetrize=True),
               *(algorithms.sssp(W, 0) for W in weighted)):
    getattr(result, "wait", lambda: None)()
at = compiled("algorithms", at)
"""


def _compiled_in_a_fresh_process(code):
    """{step: (kernels CuPy compiled into the empty cache, graphblast programs missing from
    the catalogue)} of ``code`` run in a new process whose CuPy cache is an empty folder."""
    cupy = pytest.importorskip("cupy")
    from graphblast.backends import cuda_available

    if not cuda_available():
        pytest.skip("no usable GPU")
    del cupy
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, CUPY_CACHE_DIR=cache)
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return {line.split()[1]: tuple(map(int, line.split()[2:]))
            for line in done.stdout.splitlines() if line.startswith("COMPILED")}


def test_five_algorithms_compile_nothing_in_a_fresh_process():
    found = _compiled_in_a_fresh_process(_FRESH)
    assert found == {"generators": (0, 0), "algorithms": (0, 0)}, (
        f"kernels compiled at run time (CuPy's cache files, graphblast programs missing from "
        f"the catalogue): {found}")


def test_benchmark_first_calls_compile_nothing():
    found = _compiled_in_a_fresh_process(_BENCH)
    steps = ("generators", "bfs", "sssp", "pagerank", "cc", "tc")
    assert found == {step: (0, 0) for step in steps}, (
        f"kernels compiled at run time on kron-22 (CuPy's cache files, graphblast programs "
        f"missing from the catalogue): {found}")


def test_directed_graphs_compile_nothing_in_a_fresh_process():
    found = _compiled_in_a_fresh_process(_DIRECTED)
    assert found == {"graphs": (0, 0), "algorithms": (0, 0)}, (
        f"kernels compiled at run time on directed graphs (CuPy's cache files, graphblast "
        f"programs missing from the catalogue): {found}")
