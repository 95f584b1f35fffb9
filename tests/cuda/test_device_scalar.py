"""Scalars left on the GPU (core/scalar.py): a reduction whose result is known to exist keeps
it in device memory; an apply's bound scalar, a value-testing thunk (select, apply), a scalar
assigned and ewise_union's defaults on the same GPU bind it by pointer, and only reading the
value waits for the device.  Each case against the CPU backend, with the host reads counted (the
synchronizations the engine documents).  Runs where CuPy and a GPU are usable."""

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from graphblast import Matrix, Vector, binary, monoid  # noqa: E402
from graphblast.backends import cuda_available  # noqa: E402
from graphblast.backends.cuda import blocks  # noqa: E402
from graphblast.core.scalar import DeviceValue  # noqa: E402
from graphblast.dtypes import BOOL, FP32, FP64, INT32, INT64  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no usable GPU")

N = 5000


def _full(rng, dtype, n=N):
    vals = rng.integers(-50, 50, n).astype(dtype.np_type)
    return (Vector.from_dense(vals, dtype=dtype, device="cpu"),
            Vector.from_dense(vals, dtype=dtype, device="cuda"))


def _in_format(rng, fmt, dtype, n=N):
    """A GPU vector in ``fmt`` (full, bitmap, sorted) and its CPU twin."""
    if fmt == "full":
        return _full(rng, dtype, n)
    idx = np.sort(rng.choice(n, 300, replace=False))
    vals = rng.integers(-50, 50, 300).astype(dtype.np_type)
    cpu = Vector.from_coo(idx, vals, dtype, size=n, device="cpu")
    gpu = Vector.from_coo(idx, vals, dtype, size=n, device="cuda")
    if fmt == "bitmap":
        # a full vector under a value mask, replaced: a bitmap of the same entries
        whole = Vector.from_scalar(0, n, dtype, device="cuda")
        whole(binary.second) << gpu
        gpu = whole.dup(mask=gpu.S)
    return cpu, gpu


@pytest.mark.parametrize("dtype", [FP64, FP32, INT64, INT32])
@pytest.mark.parametrize("op", ["plus", "min", "max", "any"])
def test_a_full_vectors_reduction_stays_on_the_device(rng, dtype, op):
    cpu, gpu = _full(rng, dtype)
    m = getattr(monoid, op)
    gpu.reduce(m).new()  # compiles
    r0 = blocks.host_reads()
    s = gpu.reduce(m).new()
    assert type(s._held) is DeviceValue and not s.is_empty
    assert blocks.host_reads() == r0
    want = cpu.reduce(m).new()
    if op == "any":  # any value of the vector
        assert s.value in set(cpu.to_coo()[1].tolist())
    elif dtype.is_float:
        assert s.value == pytest.approx(want.value, rel=1e-5)
    else:
        assert s.value == want.value
    assert blocks.host_reads() == r0 + 1
    s.value
    assert blocks.host_reads() == r0 + 1  # read once


def test_an_inner_product_of_full_vectors_stays_on_the_device(rng):
    from graphblast import semiring

    cu, gu = _full(rng, FP64)
    cv, gv = _full(rng, FP64)
    gu.inner(gv, semiring.plus_times).new()  # compiles
    r0 = blocks.host_reads()
    s = gu.inner(gv, semiring.plus_times).new()
    assert type(s._held) is DeviceValue and blocks.host_reads() == r0
    assert s.value == cu.inner(cv, semiring.plus_times).new().value


@pytest.mark.parametrize("formats", [("full", "full"), ("full", "bitmap"),
                                     ("bitmap", "bitmap"), ("sorted", "full")])
@pytest.mark.parametrize("ring", ["plus_times", "min_plus", "max_first", "plus_pair",
                                  "any_times", "min_second"])
@pytest.mark.parametrize("dtypes", [(FP64, FP64), (INT32, INT64), (FP32, INT32)])
def test_inner_products_in_every_format_agree_with_the_cpu(rng, formats, ring, dtypes):
    """Dense operands (full, bitmap) are folded in one pass with no products' vector
    (dense.inner), a list through ewise_mult: each as the CPU backend reads it; the one-pass
    kernel keeps the value on the GPU only where both are full."""
    from graphblast import semiring

    (cu, gu), (cv, gv) = (_in_format(rng, f, t, 4000) for f, t in zip(formats, dtypes))
    sr = getattr(semiring, ring)
    gu.inner(gv, sr).new()  # compiles
    r0 = blocks.host_reads()
    s = gu.inner(gv, sr).new()
    if "sorted" not in formats:  # the one-pass kernel: a bitmap's result is read with its flag
        both_full = formats == ("full", "full")
        assert (type(s._held) is DeviceValue) == both_full
        assert blocks.host_reads() == r0 + (0 if both_full else 1)
    else:  # ewise_mult's list, then its reduction: one read at most (the list's count)
        assert blocks.host_reads() <= r0 + 1
    want = cu.inner(cv, sr).new()
    assert s.is_empty == want.is_empty and s.dtype == want.dtype
    if ring == "any_times":  # one of the products
        assert s.value in set(cu.ewise_mult(cv, binary.times).new().to_coo()[1].tolist())
    elif not want.is_empty:
        assert s.value == pytest.approx(want.value, rel=1e-6)


def test_an_inner_product_of_disjoint_bitmaps_is_empty(rng):
    from graphblast import semiring

    u = Vector.from_scalar(1.0, 100, device="cuda")
    v = u.dup(mask=Vector.from_coo([1, 2], True, size=100, device="cuda").S)
    w = u.dup(mask=Vector.from_coo([3, 4], True, size=100, device="cuda").S)
    assert v.inner(w, semiring.plus_times).new().is_empty
    assert v.inner(v, semiring.plus_times).new().value == 2.0


def test_an_empty_or_maybe_empty_reduction_is_read():
    assert Vector(FP64, 10, device="cuda").reduce(monoid.plus).new().is_empty
    v = Vector.from_coo([3], [2.0], size=10, device="cuda")
    bitmap = Vector.from_scalar(0.0, 10, device="cuda")
    bitmap(binary.second) << v
    bitmap = bitmap.dup(mask=v.S)  # whether it has an entry may be known on the device only
    assert bitmap.reduce(monoid.plus).new().value == 2.0
    none = bitmap.dup(mask=Vector(BOOL, 10, device="cuda").S)
    assert none.reduce(monoid.plus).new().is_empty


@pytest.mark.parametrize("fmt", ["full", "bitmap", "sorted"])
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("op", ["minus", "plus", "max", "first", "second"])
def test_apply_binds_a_device_value_without_a_read(rng, fmt, side, op):
    dtype = FP64
    bound_cpu, bound_gpu = _full(rng, dtype, 64)
    s = bound_gpu.reduce(monoid.plus).new()
    s_cpu = bound_cpu.reduce(monoid.plus).new()
    u, du = _in_format(rng, fmt, dtype)
    binop = getattr(binary, op)
    du.apply(binop, **{side: s}).new()  # compiles
    r0 = blocks.host_reads()
    got = du.apply(binop, **{side: s}).new()
    if fmt in ("full", "sorted"):
        assert blocks.host_reads() == r0
    assert type(s._held) is DeviceValue
    want = u.apply(binop, **{side: s_cpu}).new()
    assert got.isequal(want.to_device("cuda"), check_dtype=True)


def test_apply_on_a_matrix_binds_it_too(rng):
    n = 300
    rows, cols = rng.integers(0, n, 2000), rng.integers(0, n, 2000)
    vals = rng.random(2000)
    A = Matrix.from_coo(rows, cols, vals, FP64, nrows=n, ncols=n, dup_op=binary.plus,
                        device="cpu")
    dA = A.to_device("cuda")
    bound_cpu, bound_gpu = _full(rng, FP64, 100)
    s = bound_gpu.reduce(monoid.max).new()
    got = dA.apply(binary.times, right=s).new()
    assert type(s._held) is DeviceValue
    want = A.apply(binary.times, right=bound_cpu.reduce(monoid.max).new()).new()
    assert got.isclose(want.to_device("cuda"), rel_tol=1e-12)
    # a matrix's own reduction stays on the device as well (its entry count is known)
    r0 = blocks.host_reads()
    m = dA.reduce_scalar(monoid.max).new()
    assert type(m._held) is DeviceValue and blocks.host_reads() == r0
    assert m.value == A.reduce_scalar(monoid.max).new().value


def test_from_scalar_fills_with_a_device_value_without_a_read(rng):
    cpu, gpu = _full(rng, FP64, 100)
    s = gpu.reduce(monoid.plus).new()
    r0 = blocks.host_reads()
    v = Vector.from_scalar(s, 1000, device="cuda")
    M = Matrix.from_scalar(s, 3, 4, device="cuda")
    assert blocks.host_reads() == r0 and type(s._held) is DeviceValue
    total = cpu.reduce(monoid.plus).new().value
    assert v.to_coo()[1].tolist() == [total] * 1000
    assert M.to_coo()[2].tolist() == [total] * 12
    # another type: read and cast
    assert Vector.from_scalar(s, 5, FP32, device="cuda").to_coo()[1].tolist() == \
        [np.float32(total)] * 5


def test_another_type_is_read_and_cast(rng):
    """An FP32 sum bound to an INT64 apply: the operator's type differs, so the value is
    read and cast on the host, as for any host scalar."""
    cpu32, gpu32 = _full(rng, FP32, 100)
    s = gpu32.reduce(monoid.plus).new()
    u, du = _full(rng, INT64)
    r0 = blocks.host_reads()
    got = du.apply(binary.plus, right=s).new()
    assert blocks.host_reads() == r0 + 1
    want = u.apply(binary.plus, right=cpu32.reduce(monoid.plus).new()).new()
    assert got.isequal(want.to_device("cuda"), check_dtype=True)


def test_a_kept_value_does_not_follow_its_vector():
    """A list's "any" is its first value: kept as a copy, not a view of the vector's values,
    which an in-place assign may change later."""
    v = Vector.from_coo([2, 5], [7.0, 9.0], size=10, device="cuda")
    s = v.reduce(monoid.any).new()
    want = s._held.get() if type(s._held) is DeviceValue else s.value
    v[2] << 100.0
    v[5] << 100.0
    assert s.value == want and want in (7.0, 9.0)


def test_a_later_change_of_the_scalar_does_not_reach_a_queued_apply(rng):
    """The value is bound by pointer to the DeviceValue's own array, which nothing writes
    again: a new value for the Scalar is a new array."""
    cpu, gpu = _full(rng, FP64, 64)
    s = gpu.reduce(monoid.plus).new()
    first = s.value
    s2 = gpu.reduce(monoid.plus).new()
    v = Vector.from_scalar(1.0, N, FP64, device="cuda")
    out = v.apply(binary.plus, right=s2).new()
    s2 << 1000.0
    assert out.reduce(monoid.min).new().value == pytest.approx(1.0 + first)


def test_pagerank_steps_do_not_wait_for_the_host():
    """PageRank with its sinks' mass spread (dangling="uniform") and a fixed step count reads
    the device a fixed number of times whatever the count: the sinks' mass stays on the GPU."""
    from graphblast import algorithms, generators

    A = generators.kron(12, seed=3, device="cuda")  # isolated vertices: sinks
    assert A.reduce_rowwise(monoid.lor).new().nvals < A.nrows
    reads = []
    for steps in (3, 9):
        algorithms.pagerank(A, tol=None, max_iter=steps)  # compiles
        r0 = blocks.host_reads()
        got = algorithms.pagerank(A, tol=None, max_iter=steps)
        reads.append(blocks.host_reads() - r0)
        want = algorithms.pagerank(A.to_device("cpu"), tol=None, max_iter=steps)
        assert got.to_device("cpu").isclose(want, rel_tol=1e-9, abs_tol=1e-15)
    assert reads[0] == reads[1], reads


def _mean_like(rng, dtype):
    """A Scalar of ``dtype`` left on the GPU, inside the range of _in_format's values (the
    sum of a full vector of four small values), and the same value on the CPU."""
    vals = rng.integers(-5, 5, 4).astype(dtype.np_type)
    gpu = Vector.from_dense(vals, dtype=dtype, device="cuda").reduce(monoid.plus).new()
    assert type(gpu._held) is DeviceValue and gpu.dtype == dtype
    return gpu, Vector.from_dense(vals, dtype=dtype, device="cpu").reduce(monoid.plus).new()


@pytest.mark.parametrize("fmt", ["full", "bitmap", "sorted"])
@pytest.mark.parametrize("dtype", [FP64, INT32])
@pytest.mark.parametrize("op", ["valuegt", "valuele", "valueeq"])
def test_select_binds_a_device_thunk_without_a_read(rng, fmt, dtype, op):
    from graphblast import select

    s, s_cpu = _mean_like(rng, dtype)
    u, du = _in_format(rng, fmt, dtype)
    sel = getattr(select, op)
    du.select(sel, s).new()  # compiles
    r0 = blocks.host_reads()
    got = du.select(sel, s).new()
    assert blocks.host_reads() == r0  # a list or a dense vector: no count read either
    assert type(s._held) is DeviceValue
    want = u.select(sel, s_cpu).new()
    assert got.isequal(want.to_device("cuda"), check_dtype=True)
    # under a mask, in the select's own kernel for a list (select_masked)
    m_cpu, m_gpu = _in_format(rng, "sorted", BOOL)
    got = du.select(sel, s).new(mask=m_gpu.S)
    assert got.isequal(u.select(sel, s_cpu).new(mask=m_cpu.S).to_device("cuda"))


def test_select_and_apply_on_a_matrix_bind_the_thunk(rng):
    from graphblast import indexunary, select

    n = 300
    rows, cols = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    vals = rng.integers(-50, 50, 3000)
    A = Matrix.from_coo(rows, cols, vals, INT64, nrows=n, ncols=n, dup_op=binary.plus,
                        device="cpu")
    dA = A.to_device("cuda")
    s, s_cpu = _mean_like(rng, INT64)
    got = dA.select(select.valuege, s).new()
    assert type(s._held) is DeviceValue
    assert got.isequal(A.select(select.valuege, s_cpu).new().to_device("cuda"))
    got = dA.apply(indexunary.valuelt, right=s).new()
    assert type(s._held) is DeviceValue
    assert got.isequal(A.apply(indexunary.valuelt, right=s_cpu).new().to_device("cuda"))
    # a positional operator's thunk is an index: read on the host
    k = Vector.from_dense(np.array([3, 7]), dtype=INT64, device="cuda").reduce(
        monoid.max).new()
    got = dA.select(select.tril, k).new()
    assert got.isequal(A.select(select.tril, 7).new().to_device("cuda"))


@pytest.mark.parametrize("target", ["full", "bitmap", "empty"])
@pytest.mark.parametrize("mask", [None, "list", "bitmap", "complement"])
@pytest.mark.parametrize("accum", [None, "plus"])
def test_scalar_assign_binds_a_device_value_without_a_read(rng, target, mask, accum):
    dtype = FP64
    s, s_cpu = _mean_like(rng, dtype)
    if target == "empty":
        c_cpu, c_gpu = Vector(dtype, N, device="cpu"), Vector(dtype, N, device="cuda")
    else:
        c_cpu, c_gpu = _in_format(rng, target, dtype)
    m_cpu = m_gpu = None
    if mask is not None:
        m_cpu, m_gpu = _in_format(rng, "sorted" if mask == "list" else "bitmap", BOOL)
        m_cpu, m_gpu = (~m_cpu.S, ~m_gpu.S) if mask == "complement" else (m_cpu.S, m_gpu.S)
    acc = None if accum is None else getattr(binary, accum)
    warm = c_gpu.dup()
    warm(mask=m_gpu, accum=acc) << s  # compiles
    r0 = blocks.host_reads()
    c_gpu(mask=m_gpu, accum=acc) << s
    if target != "empty" or mask is None:  # the in-place kernels (an empty list: the region)
        assert blocks.host_reads() == r0
    assert type(s._held) is DeviceValue
    c_cpu(mask=m_cpu, accum=acc) << s_cpu
    assert c_gpu.isequal(c_cpu.to_device("cuda"), check_dtype=True)


def test_a_scalar_assigned_through_indices_is_bound_too(rng):
    s, s_cpu = _mean_like(rng, FP64)
    idx = [1, 5, 9]
    v_cpu, v_gpu = Vector(FP64, 20, device="cpu"), Vector(FP64, 20, device="cuda")
    v_gpu[idx] << s
    v_cpu[idx] << s_cpu
    assert type(s._held) is DeviceValue
    assert v_gpu.isequal(v_cpu.to_device("cuda"))
    M_cpu, M_gpu = Matrix(FP64, 4, 5, device="cpu"), Matrix(FP64, 4, 5, device="cuda")
    M_gpu[1:3, [0, 4]] << s
    M_cpu[1:3, [0, 4]] << s_cpu
    assert type(s._held) is DeviceValue
    assert M_gpu.isequal(M_cpu.to_device("cuda"))


@pytest.mark.parametrize("formats", [("full", "bitmap"), ("bitmap", "bitmap"),
                                     ("sorted", "sorted"), ("sorted", "full")])
@pytest.mark.parametrize("side", ["left", "right", "both"])
def test_ewise_union_binds_device_defaults(rng, formats, side):
    dtype = FP64
    s, s_cpu = _mean_like(rng, dtype)
    (a, da), (b, db) = (_in_format(rng, f, dtype) for f in formats)
    left, left_cpu = (s, s_cpu) if side in ("left", "both") else (2.5, 2.5)
    right, right_cpu = (s, s_cpu) if side in ("right", "both") else (-1.0, -1.0)
    da.ewise_union(db, binary.minus, left, right).new()  # compiles
    r0 = blocks.host_reads()
    got = da.ewise_union(db, binary.minus, left, right).new()
    if "sorted" not in formats:  # dense operands: no count to read
        assert blocks.host_reads() == r0
    assert type(s._held) is DeviceValue
    want = a.ewise_union(b, binary.minus, left_cpu, right_cpu).new()
    assert got.isequal(want.to_device("cuda"), check_dtype=True)
