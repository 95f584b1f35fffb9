"""The logic of the GPU's functors, run on a machine without a GPU: the CUDA expressions of
``unary.numpy``/``binary.numpy`` and of user-defined functions (the translator's), compiled as
host C++ (g++, ``__device__`` defined away, CUDA's bit casts by memcpy), must compute what the
CPU computes on the corner values of each type.  The host's C library stands in for CUDA's
math functions (within a few ulps of it), so this checks the expressions - wrapping, division
by zero, NaN and signed zeros, gcd/lcm, shifts - not CUDA's accuracy (tests/ops on the cuda
device does that).  Integer faults that a GPU ignores (x86 traps on INT_MIN % -1) show here
as a crash of the test process, which is why the expressions guard them."""

import ctypes
import importlib.util
import os
import shutil
import subprocess

import numpy as np
import pytest

from graphblast import binary, unary
from graphblast.backends.cuda import codegen
from graphblast.dtypes import ALL_TYPES, lookup_dtype
from graphblast.ops import numpy_names



def _module(name):
    """A test module of this folder, by its path (test modules are not a package)."""
    spec = importlib.util.spec_from_file_location(
        f"_host_{name}", os.path.join(os.path.dirname(__file__), f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NP = _module("test_numpy_names")  # its values, expectations and comparison
UDF = _module("test_udf")  # its functions of every construct, samples and defined ranges

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")

_PRELUDE = r"""
#include <cstdint>
#include <cmath>
#include <cstring>
#define __device__
#define __forceinline__ inline
static inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline int __float_as_int(float f) { int x; std::memcpy(&x, &f, 4); return x; }
static inline double __longlong_as_double(long long x) {
    double f; std::memcpy(&f, &x, 8); return f; }
static inline long long __double_as_longlong(double f) {
    long long x; std::memcpy(&x, &f, 8); return x; }
using std::isnan; using std::isinf; using std::isfinite; using std::signbit;
"""


def _library(tmp_path, typed_ops):
    """The functors of ``typed_ops`` compiled into a host library: ``f<k>(x[, y], z, n)``
    applies the k-th to n values."""
    seen, parts, fns = {}, [], []
    for k, typed in enumerate(typed_ops):
        parts += codegen._join(codegen._sources(typed), seen)
        f = codegen.functor_name(typed)
        if typed.opclass == "UnaryOp":
            fns.append(f'extern "C" void f{k}(const {f}::X* x, {f}::Z* z, long n) '
                       f'{{ for (long i = 0; i < n; ++i) z[i] = {f}()(x[i]); }}')
        else:
            fns.append(f'extern "C" void f{k}(const {f}::X* x, const {f}::Y* y, {f}::Z* z, '
                       f'long n) {{ for (long i = 0; i < n; ++i) z[i] = {f}()(x[i], y[i]); }}')
    source = tmp_path / "functors.cpp"
    source.write_text(_PRELUDE + codegen.operators_header() + "\n" + "\n".join(parts) + "\n"
                      + "\n".join(fns) + "\n")
    lib = tmp_path / "functors.so"
    proc = subprocess.run(["g++", "-std=c++17", "-O1", "-w", "-fpermissive", "-shared", "-fPIC",
                           str(source), "-o", str(lib)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return ctypes.CDLL(str(lib))


def _run(lib, k, typed, *args):
    arrays = [np.ascontiguousarray(np.asarray(a).astype(t.np_type))
              for a, t in zip(args, (typed.type, typed.type2))]
    z = np.zeros(len(args[0]), typed.return_type.np_type)
    ptrs = [a.ctypes.data_as(ctypes.c_void_p) for a in arrays + [z]]
    getattr(lib, f"f{k}")(*ptrs, ctypes.c_long(len(z)))
    return z


def test_numpy_functors_compute_numpy(tmp_path):
    cases = []
    for kind, names, ns in (("u", numpy_names._unary_names, unary.numpy),
                            ("b", numpy_names._binary_names, binary.numpy)):
        for name in sorted(names):
            op = getattr(ns, name)
            for tname in NP.TYPES:
                t = lookup_dtype(tname)
                if t in op and op[t].cuda:
                    cases.append((kind, name, t, op[t]))
    lib = _library(tmp_path, [c[3] for c in cases])
    for k, (kind, name, t, typed) in enumerate(cases):
        x = NP.values(t)
        if kind == "u":
            got, expected = _run(lib, k, typed, x), NP.expected_unary(name, t, x)
        else:
            y = np.roll(x, 3)
            if name in ("power", "left_shift", "right_shift", "ldexp") and t.is_int:
                y = np.abs(y % 9).astype(t.np_type)
            got, expected = _run(lib, k, typed, x, y), NP.expected_binary(name, t, x, y)
        NP.assert_close(got, expected, f"{kind} numpy.{name}[{t}]")


def test_user_functions_compute_their_numpy_translation(tmp_path):
    """Every construct the translator knows (test_udf's functions), on every type: its CUDA
    expression computes what its NumPy translation does."""
    cases = []
    for k, func in enumerate(UDF.UNARY_FUNCS):
        op = unary.register_anonymous(func)
        cases += [(k, t, op[t]) for t in ALL_TYPES if t in op]
    lib = _library(tmp_path, [c[2] for c in cases])
    for i, (k, t, typed) in enumerate(cases):
        xs = UDF._samples(t)
        xs = xs[UDF._defined(k, t, xs)]
        if not len(xs):
            continue
        got = _run(lib, i, typed, xs)
        with np.errstate(all="ignore"):
            expected = np.asarray(typed.np_func(xs)).astype(typed.return_type.np_type)
        if typed.return_type.is_float:
            same = (got == expected) | (np.isnan(got) & np.isnan(expected)) | np.isclose(
                got, expected, rtol=1e-6)
        else:
            same = got == expected
        assert same.all(), (k, t, xs[~same], got[~same], expected[~same])
