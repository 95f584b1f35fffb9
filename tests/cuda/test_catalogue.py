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


_FRESH = r"""
import os, sys
import graphblast as gb
from graphblast import algorithms, generators
from graphblast.backends.cuda import jit

cache = os.environ["CUPY_CACHE_DIR"]
files = lambda: sum(len(f) for _, _, f in os.walk(cache))
graphs = [(generators.kron(10, device="cuda"), generators.kron(10, weighted=True,
                                                                device="cuda")),
          (generators.grid2d(32, 32, device="cuda"),
           generators.grid2d(32, 32, weights="random", device="cuda"))]
before, nvrtc_before = files(), jit.runtime_compiles
for A, W in graphs:
    for result in (algorithms.bfs(A, 0), algorithms.sssp(W, 0), algorithms.pagerank(A),
                   algorithms.connected_components(A), algorithms.triangle_count(A)):
        getattr(result, "wait", lambda: None)()
print("COMPILED", files() - before, jit.runtime_compiles - nvrtc_before)
"""


def test_five_algorithms_compile_nothing_in_a_fresh_process():
    cupy = pytest.importorskip("cupy")
    from graphblast.backends import cuda_available

    if not cuda_available():
        pytest.skip("no usable GPU")
    del cupy
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, CUPY_CACHE_DIR=cache)
        done = subprocess.run([sys.executable, "-c", _FRESH], env=env, capture_output=True,
                              text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    line = [x for x in done.stdout.splitlines() if x.startswith("COMPILED")][-1]
    cupy_files, nvrtc_programs = map(int, line.split()[1:])
    assert (cupy_files, nvrtc_programs) == (0, 0), (
        f"the five algorithms compiled {cupy_files} kernels at run time "
        f"({nvrtc_programs} graphblast programs missing from the catalogue)")
