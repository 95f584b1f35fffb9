"""The CUDA kernels compile, on a machine without a GPU (CI): with nvcc -arch=sm_90 --ptx,
and with NVRTC, the compiler CuPy uses at run time (from the nvidia-cuda-nvrtc wheel of the
test extra; no driver needed).  NVRTC sees no host headers, so code that nvcc accepts can
fail there (a macro such as INFINITY from <math.h>): only the second test catches that.

Runs without CuPy.  The sources are built by the same functions the CUDA backend uses at run
time (``backends/cuda/programs.py`` and ``jit.py``), in two parts:

- every operator of the built-in catalogue, through every adapter the kernels call it with:
  each typed semiring as a multiply cast to its monoid's type plus its monoid, each typed
  binary operator as an element-wise operator (intersection, union with and without defaults),
  bound to a scalar on either side, as a plain and a swapped multiply, each unary and
  index-unary operator as an apply map, and every cast between two types; check kernels call
  each adapter once, so the compiler type-checks and generates every operator's code;
- every kernel template, instantiated for every typed monoid (the products and reductions,
  whose code depends on the monoid: ``any``, terminal values, atomics of 1- to 8-byte types)
  and for every type (maps, element-wise kernels, the write-back, SpGEMM, kronecker, build).

The sources go into as many translation units as there are cores (3 and 2 at least, 16 at
most), compiled in parallel (NVRTC's calls run concurrently from threads): smaller units take
no more compiler time in all (about four minutes of CPU for the two tests), so a larger machine
spreads it over every core rather than waiting on one large unit.
"""

import ctypes
import glob
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")

# Adapter calls per check kernel: small enough functions for the optimizer, few launches of
# the compiler.
CHECKS_PER_KERNEL = 250
CORES = min(16, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 2)
OPERATOR_UNITS = max(3, CORES)
TEMPLATE_UNITS = max(2, CORES)


def _catalogue():
    from graphblast.backends.cuda import codegen
    from graphblast.ops.base import (
        TypedBinaryOp, TypedIndexUnaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp,
    )

    kinds = {"unary": [], "indexunary": [], "binary": [], "monoid": [], "semiring": []}
    for op in codegen.catalogue_typed_ops():
        if isinstance(op, TypedSemiring):
            kinds["semiring"].append(op)
        elif isinstance(op, TypedMonoid):
            kinds["monoid"].append(op)
        elif isinstance(op, TypedBinaryOp):
            kinds["binary"].append(op)
        elif isinstance(op, TypedIndexUnaryOp):
            kinds["indexunary"].append(op)
        elif isinstance(op, TypedUnaryOp):
            kinds["unary"].append(op)
    return kinds


def _operator_checks(kinds):
    """[(adapter, C++ statement that calls it)] for every operator of the catalogue."""
    from graphblast.backends.cuda import jit
    from graphblast.ops.swapped import SwappedBinaryOp
    from graphblast.dtypes import ALL_TYPES

    def c(t):
        return f"{t.c_type}()"

    checks = []

    def mult(ad, a, b):
        checks.append((ad, f"{{ {ad.name} f(0); sink(f({c(a)}, {c(b)}, 1, 2, 3, 4)); }}"))

    def mapped(ad, a):
        checks.append((ad, f"{{ {ad.name} f{{{ad.name}::param_t()}}; sink(f({c(a)}, 1, 2)); }}"))

    def zipped(ad, a, b):
        checks.append((ad, f"{{ {ad.name} f{{{ad.name}::param_t(), {ad.name}::param2_t()}}; "
                           f"sink(f.both({c(a)}, {c(b)}, 1, 2)); sink(f.only_a({c(a)}, 1, 2)); "
                           f"sink(f.only_b({c(b)}, 1, 2)); }}"))

    def monoid(ad):
        checks.append((ad, f"{{ typedef {ad.name} M; sink(M::combine(M::identity(), "
                           "M::terminal())); sink(M::is_empty(M::empty())); }"))

    for op in kinds["semiring"]:
        mult(jit.mult_adapter(op.binaryop, op.type, op.type2, op.monoid.return_type),
             op.type, op.type2)
        monoid(jit.monoid_adapter(op.monoid))
    for op in kinds["monoid"]:
        monoid(jit.monoid_adapter(op))
    for op in kinds["binary"]:
        x, y, z = op.type, op.type2, op.return_type
        mult(jit.mult_adapter(op, x, y, z), x, y)
        mult(jit.mult_adapter(SwappedBinaryOp(op), y, x, z), y, x)
        for kind in ("mult", "add", "union"):
            zipped(jit.zip_adapter(kind, op, x, y, z), x, y)
        mapped(jit.map_adapter(op, y, "left"), y)
        mapped(jit.map_adapter(op, x, "right"), x)
    for op in kinds["unary"] + kinds["indexunary"]:
        mapped(jit.map_adapter(op, op.type), op.type)
    for a in ALL_TYPES:
        for z in ALL_TYPES:
            mapped(jit.map_adapter(None, a, z), a)
    return checks


def _operator_units(checks):
    """Translation units of check kernels, the functors and adapters they need first."""
    from graphblast.backends.cuda import jit

    seen = set()
    unique = []
    for ad, call in checks:
        if (ad.name, call) not in seen:
            seen.add((ad.name, call))
            unique.append((ad, call))
    per_unit = -(-len(unique) // OPERATOR_UNITS)
    sink = ("template <class T> __device__ __forceinline__ void sink_into(unsigned long long* s, "
            "T v) { *s += gbk::cast<unsigned long long>(v); }\n"
            "#define sink(v) sink_into(out, v)\n")
    units = []
    for u in range(OPERATOR_UNITS):
        part = unique[u * per_unit:(u + 1) * per_unit]
        program = jit.Program(["common.cuh"], [ad for ad, _ in part], [])
        body = [jit.translation_unit([program]), sink]
        for k in range(0, len(part), CHECKS_PER_KERNEL):
            calls = "\n    ".join(call for _, call in part[k:k + CHECKS_PER_KERNEL])
            body.append(f"__global__ void gbk_check_{u}_{k}(unsigned long long* out) {{\n"
                        f"    {calls}\n}}\n")
        units.append((f"operators_{u}", "\n".join(body)))
    return units


def _template_programs(kinds):
    """Every kernel template, for every typed monoid and every type."""
    from graphblast.backends.cuda import programs
    from graphblast.dtypes import ALL_TYPES
    from graphblast.dtypes import BOOL, FP64, INT64
    from graphblast.ops import binary, monoid, semiring
    from graphblast.ops import select as select_ops

    select_ge = select_ops.valuene

    progs = []
    by_monoid = {}
    for s in kinds["semiring"]:
        by_monoid.setdefault(s.monoid, s)
    for m in kinds["monoid"]:
        s = by_monoid.get(m) or SimpleNamespace(monoid=m, binaryop=binary.first[m.type])
        t = s.binaryop.type
        t2 = s.binaryop.type2
        mode = (programs.PUSH_FOLD if m.parent.name != "any" else programs.PUSH_SMALLEST)
        progs += [
            programs.pull(s, t, t2, False, True)[1](),
            programs.pull(s, t2, t, True, False)[1](),
            programs.push(s, t2, t, True, True, mode)[1](),
            programs.push(s, t, t2, False, False, mode)[1](),
            programs.spgemm_hash(s, t, t2)[1](),
            programs.spgemm_gather(s, t, t2)[1](),
            programs.mv_small(s, t2, t, True, False)[1](),
            programs.mv_small(s, t, t2, False, True)[1](),
            programs.dot(s, t, t2, True)[1](),
            programs.dot(s, t, t2, False)[1](),
            programs.mxm_pull(s, t, t2, True)[1](),
            programs.mxm_pull(s, t, t2, False)[1](),
            programs.mxm_bitmap(s, t, t2, True)[1](),
            programs.mxm_bitmap(s, t, t2, False)[1](),
            programs.reduce_segments(m, m.type, True)[1](),
            programs.reduce_segments(m, m.type, False)[1](),
            programs.reduce_all(m, m.type)[1](),
            programs.reduce_list(m, m.type)[1](),
            programs.bitmap_reduce_rows(m, m.type)[1](),
            programs.inner_dense(s, t, t2)[1](),
            programs.scatter_atomic(m)[1](),
        ]
    for t in ALL_TYPES:
        plus = binary.plus[t] if t in binary.plus else binary.lor[t]
        for vec in (False, True):
            progs += [programs.match(vec)[1](), programs.mask_allows(vec)[1](),
                      programs.ewise("mult", plus, t, t, plus.return_type, vec)[1](),
                      programs.ewise("add", plus, t, t, plus.return_type, vec)[1](),
                      programs.ewise("union", plus, t, t, plus.return_type, vec)[1](),
                      programs.ewise("union", plus, t, t, plus.return_type, vec,
                                     (True, False))[1](),
                      programs.map_op(binary.first[t], t, "right", vec)[1](),
                      programs.map_op(binary.first[t], t, "right_device", vec)[1](),
                      programs.map_op(select_ge[t], t, "thunk_device", vec)[1]()]
        progs += [programs.vector_kernel(name, t)[1]() for name in (
            "list_to_bitmap", "dense_to_list", "write_list", "write_dense", "filter_list",
            "list_copy")]
        progs += [programs.loop_next(t)[1](), programs.loop_next(BOOL, t)[1](),
                  programs.loop_next(t, INT64)[1]()]
        progs += [programs.bitmap_make(t)[1](), programs.bitmap_accum(plus, t)[1](),
                  programs.packed_assign(t)[1]()]
        progs += [programs.assign_scalar("list", t, None)[1](),
                  programs.assign_scalar("dense", t, plus)[1](),
                  programs.assign_scalar("list", t, plus, True)[1](),
                  programs.assign_scalar("dense", t, None, True)[1](),
                  programs.accum_list(t, FP64, plus)[1](),
                  programs.ewise_dense("mult", plus, t, t, plus.return_type)[1](),
                  programs.ewise_dense("union", plus, t, t, plus.return_type)[1](),
                  programs.ewise_dense("union", plus, t, t, plus.return_type,
                                       (False, True))[1](),
                  programs.ewise_list_dense(plus, t, t, plus.return_type, True)[1](),
                  programs.union_lists(plus, t)[1](),
                  programs.ewise_list_dense(binary.ge[t], t, t, BOOL, False)[1](),
                  programs.map_dense(binary.first[t], t, "right")[1](),
                  programs.map_dense(binary.minus[t] if t in binary.minus else plus, t,
                                     "left_device")[1](),
                  programs.select_dense(select_ge[t], t, "thunk")[1](),
                  programs.select_dense(select_ge[t], t, "thunk_device")[1](),
                  programs.select_list(select_ge[t], t, "thunk")[1](),
                  programs.select_list(select_ge[t], t, "thunk_device")[1](),
                  # a captured loop round's fused kernels (fusion.py, loops.py)
                  programs.select_pair(select_ge[t], select_ops.valueeq[t], t, "thunk",
                                       "thunk_device")[1](),
                  programs.union_lists_loop(plus, t)[1]()]
        if t in binary.min:
            low = monoid.min[t] if t in monoid.min else monoid.lor[t]
            progs += [programs.relax_list(low, binary.ge[t], binary.min[t], t, BOOL)[1](),
                      programs.ewise_reduce_list(plus, t, t, plus.return_type, True,
                                                 low)[1]()]
        progs += [programs.merge_kept(t)[1](),
                  programs.fold(binary.first[t], t)[1](), programs.kron(plus, t, t)[1]()]
        progs.append(programs.spgemm(semiring.plus_pair[t] if t in semiring.plus_pair
                                     else semiring.any_pair[t], t, t)[1]())
    progs += [programs.value_range(t)[1]() for t in ALL_TYPES
              if t.np_type.kind in "iu" and t.name != "BOOL"]
    for name in ("gbk_expand", "gbk_pair_run_starts", "gbk_pair_run_ends", "gbk_csr_unsorted",
                 "gbk_row_run_firsts", "gbk_row_run_lengths", "gbk_degree_classes_count",
                 "gbk_degree_classes_fill"):
        progs.append(programs.structure(name)[1]())
    progs.append(programs.list_degrees()[1]())
    progs += [programs.mxm_packed(idx32)[1]() for idx32 in (True, False)]
    progs.append(programs.list_unmark()[1]())
    progs.append(programs.list_unclaim()[1]())
    progs.append(programs.dot_bins()[1]())
    progs += [programs.column_select(idx32, word)[1]()
              for idx32 in (True, False) for word in (1, 2, 4, 8)]
    progs += [programs.permute_rows(idx32_in, idx32_out, word)[1]()
              for idx32_in in (True, False) for idx32_out in (True, False)
              for word in (1, 2, 4, 8)]
    progs += [programs.renumber_rows(idx32_in, idx32_out, word)[1]()
              for idx32_in in (True, False) for idx32_out in (True, False)
              for word in (1, 2, 4, 8)]
    # the any_pair push (a constant product): BFS's step
    progs.append(programs.push(semiring.any_pair[BOOL], BOOL, BOOL, True, True,
                               programs.PUSH_FIRST)[1]())
    # BFS's level as one kernel of a device loop, with and without the levels' assign
    for c in (None, INT64):
        progs.append(programs.push_loop(semiring.any_pair[BOOL], BOOL, BOOL, True, True,
                                        c)[1]())
    return progs


def _template_units(progs, count=TEMPLATE_UNITS):
    from graphblast.backends.cuda import jit

    per = -(-len(progs) // count)
    return [(f"templates_{k}",
             jit.translation_unit(progs[k * per:(k + 1) * per], instantiate=True))
            for k in range(count)]


def _nvcc(path):
    out = path[:-3] + ".ptx"
    cmd = [NVCC, "-arch=sm_90", "-std=c++17", "--ptx", "-diag-suppress", "177", "-o", out,
           path]
    return cmd, subprocess.run(cmd, capture_output=True, text=True)


def test_every_kernel_compiles(tmp_path):
    had_cupy = "cupy" in sys.modules
    kinds = _catalogue()
    units = _operator_units(_operator_checks(kinds)) + _template_units(
        _template_programs(kinds))
    assert had_cupy or "cupy" not in sys.modules, "building the sources imported CuPy"
    paths = []
    for name, text in units:
        path = os.path.join(tmp_path, f"{name}.cu")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(path)
    with ThreadPoolExecutor(max_workers=max(2, CORES)) as pool:
        results = list(pool.map(_nvcc, paths))
    failures = [(cmd, r) for cmd, r in results if r.returncode != 0]
    assert not failures, "\n\n".join(
        f"{' '.join(cmd)}\n{r.stderr[-4000:]}" for cmd, r in failures)
    for path in paths:
        with open(path[:-3] + ".ptx", encoding="utf-8") as f:
            assert ".entry" in f.read(), f"no kernel in the PTX of {path}"


def _libnvrtc():
    """NVRTC from the nvidia-cuda-nvrtc wheel (or $CUDA_PATH), its builtins loaded first so
    that it finds them; None when it is not installed."""
    candidates = []
    for base in sys.path + [os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"))]:
        for sub in ("nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", "lib64"):
            candidates += sorted(glob.glob(os.path.join(base, sub, "libnvrtc.so*")))
    for path in candidates:
        folder = os.path.dirname(path)
        try:
            for builtins in sorted(glob.glob(os.path.join(folder, "libnvrtc-builtins.so*"))):
                ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def _nvrtc_compile(lib, name, source, kernels):
    """(status, log) of compiling ``source`` as CuPy does, ``kernels`` as name expressions."""
    prog = ctypes.c_void_p()
    status = lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), f"{name}.cu".encode(),
                                    0, None, None)
    if status:
        return status, "nvrtcCreateProgram failed"
    for kernel in kernels:
        lib.nvrtcAddNameExpression(prog, kernel.encode())
    options = [b"-std=c++17", b"-arch=compute_90", b"-diag-suppress=177"]
    status = lib.nvrtcCompileProgram(prog, len(options), (ctypes.c_char_p * len(options))(
        *options))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return status, log.value.decode(errors="replace")


def test_every_kernel_compiles_with_nvrtc():
    from graphblast.backends.cuda import jit

    lib = _libnvrtc()
    if lib is None:
        if os.environ.get("CI"):
            pytest.fail("NVRTC is not installed: the test extra's nvidia-cuda-nvrtc is missing")
        pytest.skip("NVRTC is not installed (pip install nvidia-cuda-nvrtc)")
    kinds = _catalogue()
    progs = _template_programs(kinds)
    per = -(-len(progs) // TEMPLATE_UNITS)
    units = [(name, text, []) for name, text in _operator_units(_operator_checks(kinds))]
    for k in range(TEMPLATE_UNITS):
        part = progs[k * per:(k + 1) * per]
        kernels = sorted({name for program in part for name in program.kernels})
        units.append((f"templates_{k}", jit.translation_unit(part), kernels))
    with ThreadPoolExecutor(max_workers=max(2, CORES)) as pool:
        results = list(pool.map(lambda u: (u[0], *_nvrtc_compile(lib, *u)), units))
    failures = [(name, log) for name, status, log in results if status != 0]
    assert not failures, "\n\n".join(f"{name}:\n{log[-4000:]}" for name, log in failures)
