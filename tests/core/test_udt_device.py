"""User-defined types on a GPU (backends/udt_device.py): their values are raw bytes on the
device, structural operations run there over INT64 handles, value computations on the host.

The routes are the same on any backend, so on a machine without a GPU they run against a
stand-in device: a second CPU backend object, named like the CUDA one, whose "device arrays"
are NumPy's; every result must equal the CPU backend's.  With the ``cuda`` device, the same
checks run on the GPU itself.
"""

import numpy as np
import pytest

from graphblast import Matrix, Scalar, Vector, binary, dtypes, monoid, select, semiring, unary
from graphblast.backends.cpu import CPUBackend
from graphblast.core import base as core_base


class _DeviceArrays:
    """NumPy with the GPU's comparisons of entries (``xp.entries_equal``, ``count_unequal``),
    whose kernels know the built-in types only."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def entries_equal(mine, theirs, np_type):
        dtypes.lookup_dtype(np.dtype(np_type))  # raw bytes of a user-defined type: refused
        return all(np.array_equal(x, y) for x, y in zip(mine, theirs))

    @staticmethod
    def count_unequal(bits_a, bits_b, a, b, np_type):
        dtypes.lookup_dtype(np.dtype(np_type))
        present = np.ones(a.shape[0], bool) if bits_a is None else bits_a != 0
        other = np.ones(b.shape[0], bool) if bits_b is None else bits_b != 0
        return int(np.count_nonzero((present != other) | (present & (a != b))))


class CUDABackend(CPUBackend):
    """The stand-in device: the CPU backend under the CUDA backend's class name, with the
    GPU's comparisons of entries."""

    name = "cuda:0"
    xp = _DeviceArrays()


@pytest.fixture
def gpu(monkeypatch, device):
    """The device a user-defined type's collections are placed on (a name for ``device=``),
    the CPU being the reference: the GPU itself with the ``cuda`` device, the stand-in with
    the ``cpu`` device."""
    if device != "cpu":
        return device
    fake = CUDABackend()
    real = core_base.get_backend
    monkeypatch.setattr(core_base, "get_backend",
                        lambda dev: fake if dev.startswith("cuda") else real(dev))
    monkeypatch.setattr(core_base, "_resolved", {})
    return "cuda"


# packed (9 bytes), not aligned: its own type object, apart from test_udt.py's aligned record
RECORD = np.dtype([("x", np.bool_), ("y", np.float64)])


def _udt(name):
    return dtypes.register_anonymous(RECORD, name)


def _both(gpu, build):
    """``build(device)`` on the CPU and on the GPU."""
    return build("cpu"), build(gpu)


def _same(cpu, dev):
    """A CPU result and a device result hold the same entries (and are where they belong)."""
    if isinstance(cpu, Scalar):
        assert cpu.isequal(dev) or (cpu.is_empty and dev.is_empty)
        return
    assert dev.device != "cpu"
    assert cpu.isequal(dev.to_device("cpu"), check_dtype=True), (cpu, dev)


def test_storage_is_bytes_on_the_device(gpu):
    udt = _udt("DevRecord")
    v = Vector(udt, size=4, device=gpu)
    assert v.device != "cpu"
    v[1] = (True, 2.5)
    v[[0, 3]] = [(False, 1.0), (True, -1.0)]
    raw = v._data.values
    assert raw.ndim == 3 and raw.shape[1:] == (1, RECORD.itemsize) and raw.dtype == np.uint8
    idx, vals = v.to_coo()
    assert idx.tolist() == [0, 1, 3]
    assert vals.dtype == RECORD
    assert vals["y"].tolist() == [1.0, 2.5, -1.0] and vals["x"].tolist() == [False, True, True]
    assert v[1].new().value.tolist() == (True, 2.5)
    back = v.to_device("cpu")
    assert back.device == "cpu"
    assert back.isequal(Vector.from_coo(idx, vals, size=4, device="cpu"))
    assert back.to_device(gpu).isequal(v)


def test_isequal_on_the_device(gpu):
    """Two collections of a user-defined type compared where they are: equal bytes, sparse
    and dense, with and without the type's check."""
    udt = _udt("DevRecordEq")
    vals = np.array([(True, 2.5), (False, 1.0), (True, -4.0)], dtype=RECORD)
    v = Vector.from_coo([0, 1, 3], vals, size=4, dtype=udt, device=gpu)
    assert v.isequal(Vector.from_coo([0, 1, 3], vals, size=4, dtype=udt, device=gpu),
                     check_dtype=True)
    assert not v.isequal(Vector.from_coo([0, 1, 3], vals[::-1], size=4, dtype=udt,
                                         device=gpu))
    assert not v.isequal(Vector.from_coo([0, 1, 2], vals, size=4, dtype=udt, device=gpu))
    full = Vector.from_scalar((True, 1.5), size=5, dtype=udt, device=gpu)
    assert full.isequal(Vector.from_coo(np.arange(5), np.array([(True, 1.5)] * 5, RECORD),
                                        dtype=udt, device=gpu))
    A = Matrix.from_coo([0, 1], [1, 0], vals[:2], nrows=2, ncols=2, dtype=udt, device=gpu)
    assert A.isequal(A.T.new().T.new()) and not A.isequal(A.T.new())
    sub = np.arange(12, dtype=np.uint16).reshape(2, 2, 3)
    S = Matrix.from_dense(sub, device=gpu)
    assert S.isequal(Matrix.from_dense(sub.copy(), device=gpu))
    sub[1, 1, 2] += 1
    assert not S.isequal(Matrix.from_dense(sub, device=gpu))


def test_structural_operations_match_the_cpu(gpu):
    udt = _udt("DevRecord2")
    rows, cols = [0, 0, 1, 2, 2, 3], [1, 3, 2, 0, 3, 1]
    vals = np.array([(k % 2, k * 1.5) for k in range(6)], dtype=RECORD)
    A_cpu, A = _both(gpu, lambda d: Matrix.from_coo(rows, cols, vals, nrows=4, ncols=4,
                                                    dtype=udt, device=d))
    _same(A_cpu, A)
    u_cpu, u = _both(gpu, lambda d: Vector.from_coo([0, 2, 3], vals[:3], size=4, dtype=udt,
                                                    device=d))
    w_cpu, w = _both(gpu, lambda d: Vector.from_coo([1, 2], vals[3:5], size=4, dtype=udt,
                                                    device=d))
    cases = [
        lambda A, u, w: A.T.new(),
        lambda A, u, w: A[[3, 0, 2], :].new(),
        lambda A, u, w: A[1:, [1, 3]].new(),
        lambda A, u, w: u[[3, 3, 0]].new(),
        lambda A, u, w: A.select(select.tril).new(),
        lambda A, u, w: A.select(select.rowle, 1).new(),
        lambda A, u, w: u.ewise_add(w, binary.first).new(),
        lambda A, u, w: u.ewise_add(w, binary.second).new(),
        lambda A, u, w: u.ewise_mult(w, binary.any).new(),
        lambda A, u, w: u.ewise_mult(w, binary.pair).new(),
        lambda A, u, w: u.ewise_mult(w, binary.eq).new(),  # compares bytes: on the host
        lambda A, u, w: u.ewise_mult(w, binary.ne).new(),
        lambda A, u, w: A.apply(unary.identity).new(),
        lambda A, u, w: A.apply(unary.one).new(),
        lambda A, u, w: A.apply(unary.positioni).new(),
        lambda A, u, w: A.reduce_rowwise(monoid.any).new(),
        lambda A, u, w: A.mxv(u, semiring.any_first).new(),
        lambda A, u, w: A.mxv(u, semiring.any_second).new(),
        lambda A, u, w: A.mxv(u, semiring.plus_pair).new(),
        lambda A, u, w: u.reduce(monoid.any).new(),
        lambda A, u, w: A.reduce_scalar(monoid.any).new(),
    ]
    for k, case in enumerate(cases):
        cpu, dev = case(A_cpu, u_cpu, w_cpu), case(A, u, w)
        _same(cpu, dev)


def test_assign_masks_and_updates_match_the_cpu(gpu):
    udt = _udt("DevRecord3")

    def scenario(d):
        out = []
        v = Vector(udt, size=5, device=d)
        v[0] = np.zeros(1, dtype=RECORD)[0]
        v[1] = (1, 2)
        out.append(v.dup())
        v[:] = 0
        v(v.S)[[1, 3]] = 1
        out.append(v.dup())
        s = Scalar(udt)
        s.value = (1, 1)
        v(v.S)[:] << s
        out.append(v.dup())
        w = Vector.from_coo([0, 4], np.array([(1, 7.0), (0, -2.0)], RECORD), size=5,
                            dtype=udt, device=d)
        v(~w.S, replace=True) << w
        out.append(v.dup())
        v(accum=binary.first) << w
        out.append(v.dup())
        v << binary.first(s, v)
        out.append(v.dup())
        v << binary.second(v, (0, 3.5))
        out.append(v.dup())
        del v[2]
        out.append(v.dup())
        v.clear()
        v[[0, 1]] = [(1, 3.0), (0, 4.0)]
        out.append(v.dup())
        A = Matrix(udt, nrows=3, ncols=3, device=d)
        A[[0, 1], 1] = [(1, 2.0), (1, 3.0)]
        A[2, :] = (0, 9.0)
        out.append(A.dup())
        return out

    for cpu, dev in zip(*_both(gpu, scenario)):
        _same(cpu, dev)


def test_subarray_type_on_the_device(gpu):
    udt = dtypes.register_anonymous("UINT16[3]")
    v = Vector(udt, size=2, device=gpu)
    w = Vector(udt, size=2, device=gpu)
    v[0] = 0
    w[0] = (0, 0, 0)
    assert v.isequal(w)
    assert v.ewise_mult(w, binary.eq).new().reduce(monoid.land).new()
    w[0] = np.array([0, 0, 1], dtype=np.uint8)
    assert not v.isequal(w)
    assert v.ewise_mult(w, binary.ne).new().reduce(monoid.land).new()
    v[:] = 0
    v << (1, 1, 1)
    idx, vals = v.to_coo()
    np.testing.assert_array_equal(vals, np.ones((2, 3), dtype=np.uint16))
    assert v.isequal(Vector.from_coo(idx, vals, dtype=udt, device=gpu))


def test_user_function_of_a_record_runs_on_the_host(gpu):
    """numba compiles a function of a record's fields for the CPU: on the GPU's collections
    the host computes it (a copy each way), with the CPU's result."""
    pytest.importorskip("numba")
    udt = _udt("DevRecord4")

    def getx(val):
        return val["x"]

    op = unary.register_anonymous(getx, "getx_dev", is_udt=True)
    vals = np.array([(1, 2.0), (0, 3.0), (1, -1.0)], RECORD)
    cpu, dev = _both(gpu, lambda d: Vector.from_coo([0, 1, 2], vals, dtype=udt, device=d))
    got = dev.apply(op).new()
    assert got.device == dev.device
    _same(cpu.apply(op).new(), got)
    assert got.isequal(Vector.from_coo([0, 1, 2], [True, False, True], device=gpu))
