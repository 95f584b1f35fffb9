"""``unary.numpy``, ``binary.numpy``, ``monoid.numpy``, ``semiring.numpy`` and ``op.numpy``
(ops/numpy_names.py): every operator computes its NumPy ufunc on the loop numba would choose,
on each device; the CUDA expressions all compile under nvcc; the namespaces answer and refuse
names as python-graphblas's do."""

import pickle
import shutil
import subprocess

import numpy as np
import pytest

import graphblast as gb
from graphblast import Vector, binary, monoid, op, semiring, unary
from graphblast.backends.cuda import codegen
from graphblast.ops import numpy_names
from opsharness import floats_to_compare

# a signed and an unsigned integer type of each width class, the floats and BOOL
TYPES = ("INT8", "UINT16", "INT64", "UINT64", "FP32", "FP64", "BOOL")
# CUDA's math functions are within a few ulps of the C library's
ULPS = {"FP32": 4, "FP64": 4}


def values(t):
    t = gb.dtypes.lookup_dtype(t)
    if t.is_bool:
        return np.array([False, True, True, False, True])
    if t.is_float:
        return np.array([0.0, -0.0, 1.0, -1.5, 2.5, 0.25, 7.0, -3.0, 1e3, np.inf, -np.inf,
                         np.nan], t.np_type)
    info = np.iinfo(t.np_type)
    vals = [0, 1, 2, 3, 7, 9, 30, info.max, info.max - 1]
    if t.is_signed:
        vals += [-1, -2, -7, info.min, info.min + 1]
    return np.array(vals, t.np_type)


def expected_unary(name, t, x):
    ins, out, ret = numpy_names._typing(name, 1)[t]
    if name == "reciprocal" and t.is_bool:
        return x.copy()
    with np.errstate(all="ignore"):
        z = getattr(np, name)(x.astype(ins[0]))
    if name == "reciprocal" and ins[0].kind in "iu":
        z = np.where(x == 0, 0, z)  # graphblast's definition; NumPy's is undefined there
    return np.asarray(z).astype(ret.np_type)


def expected_binary(name, t, x, y):
    ins, out, ret = numpy_names._typing(name, 2)[t]
    with np.errstate(all="ignore"):
        z = getattr(np, name)(x.astype(ins[0]), y.astype(ins[1]))
    return np.asarray(z).astype(ret.np_type)


def assert_close(got, expected, what):
    pair = floats_to_compare(got, expected, what)
    if pair is not None:
        np.testing.assert_allclose(*pair, rtol=8 * np.finfo(got.dtype).eps, atol=0,
                                   err_msg=what)


@pytest.mark.parametrize("name", sorted(numpy_names._unary_names))
def test_unary_computes_numpy(device, name):
    operator = getattr(unary.numpy, name)
    assert operator.name == f"numpy.{name}"
    for tname in TYPES:
        t = gb.dtypes.lookup_dtype(tname)
        if t not in operator:
            continue
        x = values(t)
        v = Vector.from_coo(np.arange(len(x)), x, dtype=t, device=device)
        got = v.apply(operator).new()
        assert got.nvals == len(x)
        assert_close(got.to_coo()[1], expected_unary(name, t, x), f"unary.numpy.{name}[{t}]")


@pytest.mark.parametrize("name", sorted(numpy_names._binary_names))
def test_binary_computes_numpy(device, name):
    operator = getattr(binary.numpy, name)
    for tname in TYPES:
        t = gb.dtypes.lookup_dtype(tname)
        if t not in operator:
            continue
        x = values(t)
        y = np.roll(x, 3)
        if name in ("power", "left_shift", "right_shift", "ldexp") and t.is_int:
            y = np.abs(y % 9).astype(t.np_type)  # NumPy refuses negative integer powers
        u = Vector.from_coo(np.arange(len(x)), x, dtype=t, device=device)
        w = Vector.from_coo(np.arange(len(y)), y, dtype=t, device=device)
        got = u.ewise_mult(w, operator).new()
        assert_close(got.to_coo()[1], expected_binary(name, t, x, y),
                     f"binary.numpy.{name}[{t}]")


def test_bool_add_is_or(device):
    """``np.add`` of two BOOL is ``or``, so ``binary.numpy.add`` is no ``binary.plus``."""
    a = Vector.from_coo([0, 1, 2, 3], [True, False, True, False], device=device)
    b = Vector.from_coo([0, 1, 2, 3], [True, True, False, False], device=device)
    z = a.ewise_mult(b, monoid.numpy.add).new()
    assert z.dtype == "BOOL"
    np.testing.assert_array_equal(z.to_coo()[1], [True, True, True, False])
    assert binary.numpy.add is not binary.plus
    with pytest.raises(KeyError, match="plus does not work with BOOL"):
        monoid.plus["BOOL"]


@pytest.mark.parametrize("name", ["gcd", "maximum", "fmin", "logaddexp", "hypot", "add",
                                  "bitwise_xor", "logical_or"])
def test_monoid_reduce(device, name):
    m = getattr(monoid.numpy, name)
    assert m.binaryop is getattr(binary.numpy, name)
    assert m.is_idempotent == (name in numpy_names._idempotent)
    for t in m.types:
        x = values(t)
        if t.is_float:
            x = x[np.isfinite(x)]
        v = Vector.from_coo(np.arange(len(x)), x, dtype=t, device=device)
        got = v.reduce(m).new().value
        with np.errstate(all="ignore"):
            expected = getattr(np, name).reduce(x, dtype=t.np_type)
        if t.is_float:
            assert got == pytest.approx(expected, rel=1e-6), (name, t)
        else:
            assert got == expected, (name, t)
        assert m[t].identity == m.identities[t]


def test_semiring(device):
    A = gb.Matrix.from_coo([0, 0, 1, 2], [0, 2, 1, 0], [1.0, 2.0, 3.0, 4.0], device=device)
    v = Vector.from_coo([0, 1, 2], [0.5, -1.0, 2.0], device=device)
    got = A.mxv(v, semiring.numpy.logaddexp_add).new().to_coo()[1]
    Ad = np.array([[1.0, 0, 2.0], [0, 3.0, 0], [4.0, 0, 0]])
    mask = Ad != 0
    vd = np.array([0.5, -1.0, 2.0])
    expected = [np.logaddexp.reduce((Ad[i] + vd)[mask[i]]) for i in range(3)]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_every_semiring_name_has_types():
    names = dir(semiring.numpy)
    assert "add_add" in names and "logaddexp_multiply" in names
    assert "gcd_arctan2" not in names  # gcd is integer-only, arctan2's results are floats
    for name in ("add_add", "maximum_minimum", "gcd_lcm", "hypot_hypot"):
        assert getattr(semiring.numpy, name).types, name
    with pytest.raises(AttributeError, match="gcd_arctan2"):
        semiring.numpy.gcd_arctan2


def test_namespaces_refuse_unknown_names():
    with pytest.raises(AttributeError, match="has no attribute 'nonexistent'"):
        binary.numpy.nonexistent
    with pytest.raises(AttributeError, match="subtract"):
        monoid.numpy.subtract  # no monoid: NumPy's subtract is not associative
    with pytest.raises(AttributeError, match="gcd"):
        unary.numpy.gcd
    with pytest.raises(AttributeError, match="module 'graphblas.op.numpy' has no attribute"):
        op.numpy.bad_attr
    with pytest.raises(KeyError, match="numpy.gcd does not work with FP64"):
        binary.numpy.gcd["FP64"]  # NumPy's gcd has integer loops only


def test_op_numpy_and_strings():
    assert op.numpy.fabs is unary.numpy.fabs
    assert op.numpy.add is binary.numpy.add
    assert op.numpy.add_add is semiring.numpy.add_add
    assert binary.from_string("%") is binary.numpy.mod
    assert binary.from_string("true_divide") is binary.numpy.true_divide
    assert op.from_string("numpy.hypot") is binary.numpy.hypot


def test_pickle_round_trip():
    for obj in (unary.numpy.spacing, binary.numpy.gcd, monoid.numpy.logaddexp,
                semiring.numpy.logaddexp2_hypot, binary.numpy.gcd["INT64"]):
        assert pickle.loads(pickle.dumps(obj)) is obj


def test_infix_mod_and_divmod():
    A = gb.Matrix.from_coo([0, 1, 2], [0, 1, 2], [-7, 5, 9])
    assert (A % 3).new().isequal(binary.numpy.mod(A, 3).new())
    q, r = divmod(A, 3)
    np.testing.assert_array_equal(q.new().to_coo()[2], [-3, 1, 3])
    np.testing.assert_array_equal(r.new().to_coo()[2], [2, 2, 0])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
def test_functors_compile_with_nvcc(tmp_path):
    """Every typed operator of the NumPy namespaces, instantiated in a kernel, compiles."""
    typed_ops = []
    for name in sorted(numpy_names._unary_names):
        typed_ops += getattr(unary.numpy, name)._typed.values()
    for name in sorted(numpy_names._binary_names):
        typed_ops += getattr(binary.numpy, name)._typed.values()
    for name in sorted(numpy_names._monoid_identities):
        typed_ops += getattr(monoid.numpy, name)._typed.values()
    seen, parts, inst = {}, [], []
    for typed in typed_ops:
        parts += codegen._join(codegen._sources(typed), seen)
        f = codegen.functor_name(typed)
        kind = {"UnaryOp": "unary", "BinaryOp": "binary", "Monoid": "monoid"}[typed.opclass]
        params = {"unary": f"const {f}::X*, {f}::Z*, long long",
                  "binary": f"const {f}::X*, const {f}::Y*, {f}::Z*, long long",
                  "monoid": f"const {f}::Z*, {f}::Z*, long long"}[kind]
        inst.append(f"template __global__ void gb_test_{kind}<{f}>({params});")
    source = tmp_path / "numpy_names.cu"
    source.write_text(codegen.operators_header() + "\n" + "\n".join(parts) + _KERNELS
                      + "\n".join(inst) + "\n")
    proc = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "--ptx", str(source), "-o",
                           str(tmp_path / "numpy_names.ptx")], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-20000:]
    assert (tmp_path / "numpy_names.ptx").read_text().count(".entry ") == len(inst)


_KERNELS = r"""
template <class F>
__global__ void gb_test_unary(const typename F::X* x, typename F::Z* z, long long n) {
    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k < n) z[k] = F()(x[k]);
}
template <class F>
__global__ void gb_test_binary(const typename F::X* x, const typename F::Y* y,
                               typename F::Z* z, long long n) {
    long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k < n) z[k] = F()(x[k], y[k]);
}
template <class M>
__global__ void gb_test_monoid(const typename M::Z* x, typename M::Z* z, long long n) {
    typename M::Z acc = M::identity();
    for (long long k = 0; k < n; ++k) acc = M()(acc, x[k]);
    *z = acc;
}
"""
