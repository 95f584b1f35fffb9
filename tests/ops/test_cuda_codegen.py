"""The CUDA functors of the operator catalogue: generation, compilation, and (on a GPU) values.

Without a GPU: ``catalogue_source()`` plus a tiny kernel per functor kind, explicitly
instantiated for every functor, must compile with ``nvcc -arch=sm_90 -std=c++17 --ptx``; any
expression that does not compile fails the test.  With the ``cuda`` device: the same source
compiles under NVRTC (CuPy's RawModule) and every functor computes what the NumPy function of
its operator computes, on the corner values of its type.
"""

import re
import shutil
import subprocess

import numpy as np
import pytest

from graphblast.backends.cuda import codegen
from graphblast.dtypes import cast
from opsharness import floats_to_compare
from graphblast.ops import binary, indexunary, monoid, semiring, unary
from graphblast.ops.base import (
    TypedBinaryOp, TypedIndexUnaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp,
)

KERNELS = r"""
template <class F>
__global__ void gb_test_unary(const typename F::X* x, typename F::Z* z, long long n) {
    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k < n) z[k] = F()(x[k], (int64_t)k, (int64_t)(k % 3));
}

template <class F>
__global__ void gb_test_binary(const typename F::X* x, const typename F::Y* y,
                               typename F::Z* z, long long n) {
    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k < n) z[k] = F()(x[k], y[k], (int64_t)k, (int64_t)1, (int64_t)2, (int64_t)k);
}

template <class M>
__global__ void gb_test_monoid(const typename M::Z* x, typename M::Z* z, long long n) {
    // a sequential reduction with early exit: exercises identity, terminal and the flags
    typename M::Z acc = M::identity();
    for (long long k = 0; k < n; ++k) {
        acc = M()(acc, x[k]);
        if (M::is_any || (M::has_terminal && acc == M::terminal())) break;
    }
    *z = acc;
}

template <class S>
__global__ void gb_test_semiring(const typename S::X* x, const typename S::Y* y,
                                 typename S::Z* z, long long n) {
    typename S::Z acc = S::Add::identity();
    for (long long k = 0; k < n; ++k) {
        acc = typename S::Add()(acc, typename S::Mult()(x[k], y[k], 0, k, k, 0));
    }
    *z = acc;
}

template <class F>
__global__ void gb_test_indexunary(const typename F::X* x, typename F::Thunk thunk,
                                   typename F::Z* z, long long n) {
    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k < n) z[k] = F()(x[k], (int64_t)(k / 4), (int64_t)(k % 4), thunk);
}
"""

_KIND = [(TypedSemiring, "semiring"), (TypedMonoid, "monoid"), (TypedBinaryOp, "binary"),
         (TypedUnaryOp, "unary"), (TypedIndexUnaryOp, "indexunary")]


def _kind(typed):
    return next(kind for cls, kind in _KIND if isinstance(typed, cls))


def _kernel_name(typed):
    return f"gb_test_{_kind(typed)}<{codegen.functor_name(typed)}>"


def _instantiation(typed):
    f = codegen.functor_name(typed)
    kind = _kind(typed)
    params = {
        "unary": f"const {f}::X*, {f}::Z*, long long",
        "binary": f"const {f}::X*, const {f}::Y*, {f}::Z*, long long",
        "monoid": f"const {f}::Z*, {f}::Z*, long long",
        "semiring": f"const {f}::X*, const {f}::Y*, {f}::Z*, long long",
        "indexunary": f"const {f}::X*, {f}::Thunk, {f}::Z*, long long",
    }[kind]
    return f"template __global__ void gb_test_{kind}<{f}>({params});"


# ---------------------------------------------------------------------------------------------
# generation (no compiler needed)
# ---------------------------------------------------------------------------------------------

def test_names_are_unique_and_readable():
    names = [codegen.functor_name(t) for t in codegen.catalogue_typed_ops()]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"gb_[a-z0-9_]+_(BOOL|U?INT(8|16|32|64)|FP32|FP64)", n)
               for n in names)
    assert codegen.functor_name(binary.plus["FP32"]) == "gb_plus_FP32"
    assert codegen.functor_name(semiring.plus_times["FP32"]) == "gb_plus_times_FP32"
    assert codegen.functor_name(monoid.plus["FP32"]) == "gb_plus_monoid_FP32"
    assert codegen.functor_name(unary.acos["INT8"]) == "gb_acos_FP32"  # coerced to FP32
    loose, default = binary.isclose(0.5, 0.25)["FP64"], binary.isclose["FP64"]
    assert codegen.functor_name(loose) != codegen.functor_name(default)
    assert "0.5, 0.25" in codegen.functor_source(loose)


def test_source_is_deterministic():
    assert codegen.catalogue_source() == codegen.catalogue_source()


def test_functor_source_shapes():
    src = codegen.functor_source(binary.plus["FP32"])
    assert src == (
        "struct gb_plus_FP32 {\n"
        "    typedef float X;\n"
        "    typedef float Y;\n"
        "    typedef float Z;\n"
        "    static constexpr bool positional = false;\n"
        "    __device__ __forceinline__ Z operator()(X x, Y y) const { return (Z)(x + y); }\n"
        "    __device__ __forceinline__ Z operator()(X x, Y y, int64_t, int64_t, int64_t, "
        "int64_t) const { return (*this)(x, y); }\n"
        "};\n")
    # a semiring brings its monoid, the monoid's operator and the multiplier, each once
    src = codegen.functor_source(semiring.plus_plus["INT8"])
    assert src.count("struct gb_plus_INT8 ") == 1
    assert src.index("struct gb_plus_INT8 ") < src.index("struct gb_plus_monoid_INT8 ") \
        < src.index("struct gb_plus_plus_INT8 ")
    assert "typedef gb_plus_monoid_INT8 Add;" in src and "typedef gb_plus_INT8 Mult;" in src
    src = codegen.functor_source(monoid.min["INT64"])
    assert "has_terminal = true" in src and "(-9223372036854775807LL - 1)" in src
    src = codegen.functor_source(monoid.max["FP32"])
    assert "has_terminal = false" in src and "-__int_as_float(0x7f800000)" in src
    assert "is_any = true" in codegen.functor_source(monoid.any["BOOL"])
    assert "typedef int64_t Thunk;" in codegen.functor_source(indexunary.tril["FP64"])


def test_c_literals():
    from graphblast.dtypes import FP32, FP64, INT8, UINT64

    assert codegen.c_literal(-128, INT8) == "((int8_t)(-127 - 1))"
    assert codegen.c_literal(2**64 - 1, UINT64) == "((uint64_t)18446744073709551615ULL)"
    assert codegen.c_literal(0.1, FP64) == "0.1"
    assert codegen.c_literal(np.float32(0.1), FP32) == f"{float(np.float32(0.1))!r}f"
    assert codegen.c_literal(float("-inf"), FP64) == "-__longlong_as_double(0x7ff0000000000000LL)"


def test_functor_name_rejects_untyped():
    with pytest.raises(TypeError, match="typed operator"):
        codegen.functor_name(binary.plus)


# ---------------------------------------------------------------------------------------------
# nvcc (CI): everything compiles
# ---------------------------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
def test_catalogue_compiles_with_nvcc(tmp_path):
    """Every functor, instantiated in its kernel, compiles without a warning.

    Two translation units (half of the instantiations each) compile side by side.
    """
    typed_ops = codegen.catalogue_typed_ops()
    base = codegen.catalogue_source() + KERNELS
    halves = [typed_ops[: len(typed_ops) // 2], typed_ops[len(typed_ops) // 2:]]
    procs = []
    for k, part in enumerate(halves):
        source = tmp_path / f"catalogue{k}.cu"
        source.write_text(base + "\n".join(_instantiation(t) for t in part) + "\n")
        procs.append(subprocess.Popen(
            ["nvcc", "-arch=sm_90", "-std=c++17", "--ptx", "-Werror", "all-warnings",
             str(source), "-o", str(tmp_path / f"catalogue{k}.ptx")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for k, proc in enumerate(procs):
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-20000:]
        # every instantiated kernel made it into the PTX
        ptx = (tmp_path / f"catalogue{k}.ptx").read_text()
        assert ptx.count(".entry ") == len(halves[k])


# ---------------------------------------------------------------------------------------------
# NVRTC and values (GPU)
# ---------------------------------------------------------------------------------------------

def corner_values(t):
    """Corner values of type ``t`` (zero, one, limits, NaN, infinities, ...).

    CuPy compiles every kernel with ``-ftz=true`` (appended unconditionally in
    ``cupy.cuda.compiler``), so FP32 subnormal inputs are flushed on the GPU: FP32 leaves them
    out, FP64 keeps them.
    """
    if t.is_bool:
        return np.array([False, True])
    if t.is_float:
        fi = np.finfo(t.np_type)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.0, 3.0, 7.0, -7.0, 1 / 3, 100.5,
                1e-5, 1e10, -1e10, 40.0, np.nan, np.inf, -np.inf, fi.max, -fi.max, fi.tiny]
        if t.np_type == np.float64:
            vals.append(fi.smallest_subnormal)
        return np.array(vals, t.np_type)
    info = np.iinfo(t.np_type)
    bits = t.np_type.itemsize * 8
    vals = {0, 1, 2, 3, 5, 7, 9, 22, 27, 39, 100, bits - 1, bits, bits + 1, info.max,
            info.max - 1, info.max // 2}
    if t.is_signed:
        vals |= {-1, -2, -3, -7, -bits, info.min, info.min + 1}
    return np.array(sorted(v for v in vals if info.min <= v <= info.max), t.np_type)


# CUDA's math functions are within a few ulps of the C library's (CUDA Programming Guide,
# "Mathematical Functions"); everything else must agree exactly.
CUDA_ULPS = {"acos": 4, "acosh": 4, "asin": 4, "asinh": 4, "atan": 4, "atanh": 4, "cbrt": 2,
             "cos": 4, "cosh": 4, "erf": 4, "erfc": 8, "exp": 4, "exp2": 4, "expm1": 4,
             "lgamma": 8, "log": 4, "log10": 4, "log1p": 4, "log2": 4, "sin": 4, "sinh": 4,
             "tan": 4, "tanh": 4, "tgamma": 16, "atan2": 4, "hypot": 4, "pow": 8, "rpow": 8}


def _ulps(a, b):
    bits = a.dtype.itemsize * 8
    signed, unsigned = {32: (np.int32, np.uint32), 64: (np.int64, np.uint64)}[bits]
    magnitude = (1 << (bits - 1)) - 1

    def ordered(f):
        i = f.view(signed)
        return np.where(i < 0, -(i & magnitude), i).astype(signed).view(unsigned)

    d = ordered(a) - ordered(b)
    return np.minimum(d, -d)


def assert_close(got, expected, ulps, what):
    pair = floats_to_compare(got, expected, what)
    if pair is None:
        return
    g, e = (np.where(x == 0, 0, x).astype(got.dtype) for x in pair)  # -0.0 is 0.0
    d = _ulps(g, e)
    bad = d > ulps
    assert not bad.any(), (what, g[bad], e[bad])


# Semiring functors only name a monoid and a multiplier, both value-checked on their own and
# all instantiated by the nvcc test; on the GPU (NVRTC compiles about 30 ms per kernel) one
# signed integer, unsigned, float and BOOL variant of each semiring suffices.
_GPU_SEMIRING_TYPES = {"INT64", "UINT64", "FP64", "BOOL"}


def _gpu_typed_ops():
    return [t for t in codegen.catalogue_typed_ops()
            if not isinstance(t, TypedSemiring) or t.type.name in _GPU_SEMIRING_TYPES]


@pytest.fixture(scope="module")
def cuda_module():
    """The catalogue (all of it) and the test kernels compiled by NVRTC (CuPy RawModule)."""
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except cp.cuda.runtime.CUDARuntimeError:
        pytest.skip("no usable CUDA device")
    module = cp.RawModule(code=codegen.catalogue_source() + KERNELS,
                          options=("-std=c++17",),
                          name_expressions=[_kernel_name(t) for t in _gpu_typed_ops()])
    module.compile()
    return cp, module


def _accept_correctly_rounded_pow(got, expected, x, y, dtype):
    """Integer pow on the GPU is exact and rounded to double once; the C library (the CPU
    reference) may round an exact halfway power above 2**53 the other way (63**9): accept the
    correctly rounded value where the two differ."""
    info = np.iinfo(dtype.np_type)
    ok = np.zeros(got.shape, bool)
    for k in np.flatnonzero(got != expected):
        power = int(x[k]) ** int(y[k]) if int(y[k]) >= 2 else None
        if power is None or not 2**53 < abs(power) < 2**64:
            continue
        rounded = float(power)  # Python rounds an int to the nearest double, ties to even
        ok[k] = info.min <= rounded <= info.max and int(rounded) == int(got[k])
    return np.where(ok, got, expected)


def _accept_lgamma_near_roots(got, expected, x):
    """CUDA's lgamma has no ulp bound on (-11.0001, -2.2637) (near the roots of lgamma):
    accept a small absolute error there."""
    inside = (x > -11.0001) & (x < -2.2637)
    tol = 1e-6 if x.dtype == np.float32 else 1e-14
    with np.errstate(invalid="ignore"):  # inf - inf outside the interval
        ok = inside & (np.abs(got.astype(np.float64) - expected) <= tol)
    return np.where(ok, got, expected)


class _Failures(list):
    """Mismatches of one test, reported together (one GPU run shows them all)."""

    def check(self, got, expected, ulps, what):
        try:
            assert_close(got, expected, ulps, what)
        except AssertionError as e:
            self.append(str(e)[:500])

    def raise_any(self):
        assert not self, f"{len(self)} mismatches:\n" + "\n".join(self[:60])


def _launch(cp, module, typed, args, n):
    kernel = module.get_function(_kernel_name(typed))
    kernel(((n + 127) // 128,), (128,), args)


def _position_value(position, ai, aj, bi, bj, n):
    side, axis, offset = position
    if side == "first":
        value = (ai if axis == "i" else aj) + offset
    else:
        value = (bi if axis == "i" else bj) + offset
    return np.broadcast_to(np.asarray(value, np.int64), (n,))


def test_cuda_unary_and_binary(device, request):
    if device != "cuda":
        pytest.skip("GPU values are checked on the cuda device")
    cp, module = request.getfixturevalue("cuda_module")
    failures = _Failures()
    for typed in _gpu_typed_ops():
        name = typed.parent.name
        if isinstance(typed, TypedUnaryOp):
            x = corner_values(typed.type)
            n = len(x)
            z = cp.empty(n, typed.return_type.np_type)
            _launch(cp, module, typed, (cp.asarray(x), z, np.int64(n)), n)
            k = np.arange(n)
            if typed.position is not None:
                axis, offset = typed.position
                expected = ((k if axis == "i" else k % 3) + offset).astype(z.dtype)
            else:
                expected = typed.np_func(x)
            got = z.get()
            if name == "lgamma":
                expected = _accept_lgamma_near_roots(got, expected, x)
            failures.check(got, expected, CUDA_ULPS.get(name, 0), f"unary.{name}[{typed.type}]")
        elif isinstance(typed, TypedBinaryOp):
            c = corner_values(typed.type)
            x, y = (a.ravel() for a in np.meshgrid(c, c))
            y = cast(y, typed.type2)
            n = len(x)
            z = cp.empty(n, typed.return_type.np_type)
            _launch(cp, module, typed, (cp.asarray(x), cp.asarray(y), z, np.int64(n)), n)
            k = np.arange(n)
            if typed.position is not None:
                expected = _position_value(typed.position, k, 1, 2, k, n).astype(z.dtype)
            else:
                expected = typed.np_func(x, y)
            got = z.get()
            if name == "pow" and typed.type.is_int:
                expected = _accept_correctly_rounded_pow(got, expected, x, y, typed.type)
            failures.check(got, expected, CUDA_ULPS.get(name, 0),
                           f"binary.{name}[{typed.type}]")
    failures.raise_any()


def test_cuda_monoids_and_semirings(device, request, rng):
    if device != "cuda":
        pytest.skip("GPU values are checked on the cuda device")
    cp, module = request.getfixturevalue("cuda_module")
    failures = _Failures()
    for typed in _gpu_typed_ops():
        if isinstance(typed, TypedMonoid):
            x = corner_values(typed.type)
            if typed.type.is_float:
                x = x[~np.isnan(x)]  # NaN makes plus/times order-free comparisons moot
            z = cp.empty(1, typed.return_type.np_type)
            _launch(cp, module, typed, (cp.asarray(x), z, np.int64(len(x))), 1)
            if typed.parent.name == "any":
                expected = x[:1]
            else:
                expected = np.asarray([typed.identity])
                for v in x:
                    expected = typed.np_func(expected, np.asarray([v]))
            failures.check(z.get(), expected, 0, f"monoid.{typed.parent.name}[{typed.type}]")
        elif isinstance(typed, TypedSemiring):
            mult = typed.binaryop
            dt = mult.type
            if dt.is_bool:
                u, v = rng.integers(0, 2, (2, 8)).astype(bool)
            else:
                lo = 0 if (dt.is_int and not dt.is_signed) else -3
                u, v = rng.integers(lo, 4, (2, 8)).astype(dt.np_type)
            v = cast(v, mult.type2)
            z = cp.empty(1, typed.return_type.np_type)
            _launch(cp, module, typed, (cp.asarray(u), cp.asarray(v), z, np.int64(8)), 1)
            k = np.arange(8)
            if mult.position is not None:
                products = _position_value(mult.position, 0, k, k, 0, 8).astype(
                    mult.return_type.np_type)
            else:
                products = mult.np_func(u, v)
            expected = np.asarray([typed.monoid.identity])
            for p in products:
                expected = typed.monoid.np_func(expected, np.asarray([p]))
            failures.check(z.get(), expected, 0, f"semiring.{typed.parent.name}[{dt}]")
    failures.raise_any()


def test_cuda_indexunary(device, request):
    if device != "cuda":
        pytest.skip("GPU values are checked on the cuda device")
    cp, module = request.getfixturevalue("cuda_module")
    failures = _Failures()
    for typed in _gpu_typed_ops():
        if not isinstance(typed, TypedIndexUnaryOp):
            continue
        x = np.resize(corner_values(typed.type), 24)
        k = np.arange(24)
        thunks = (corner_values(typed.thunk_type)[[0, 1, -1]] if typed.uses_value
                  else np.array([-2, 0, 1, 3], typed.thunk_type.np_type))
        for thunk in thunks:
            z = cp.empty(24, typed.return_type.np_type)
            _launch(cp, module, typed, (cp.asarray(x), typed.thunk_type.np_type.type(thunk), z,
                                        np.int64(24)), 24)
            expected = typed.np_func(x, k // 4, k % 4, thunk)
            failures.check(z.get(), expected, 0,
                           f"indexunary.{typed.parent.name}[{typed.type}]")
    failures.raise_any()
