"""A Scalar holding a value left on a device (core/scalar.py's DeviceValue): when it is read,
what keeps it there, and where it may be bound without a read.  A stand-in backend counts
the reads, so this runs on any machine; tests/cuda/test_device_scalar.py checks the same on
a GPU, with the kernels that bind it."""

import numpy as np
import pytest

from graphblast import Scalar, binary
from graphblast.core.scalar import DeviceValue
from graphblast.dtypes import FP32, FP64, INT64


class Reads:
    """A backend's read of a one-element array, counted."""

    def __init__(self):
        self.count = 0

    def read_scalar(self, array):
        self.count += 1
        return array[0]


def _held(value=2.5, dtype=FP64, backend=None):
    backend = backend or Reads()
    s = Scalar(dtype)
    s._set_value(DeviceValue(np.array([value], dtype=dtype.np_type), dtype, backend))
    return s, backend


def test_a_device_value_is_read_once_and_only_when_needed():
    s, dev = _held(2.5)
    # known non-empty without a read
    assert not s.is_empty and s.nvals == 1 and s != None  # noqa: E711
    assert dev.count == 0
    assert s.value == 2.5 and dev.count == 1
    assert s.value == 2.5 and float(s) == 2.5 and dev.count == 1  # kept on the host now
    assert s._on_device(dev, FP64) is None


def test_copies_keep_it_on_the_device():
    s, dev = _held(4.0)
    t = s.dup()
    u = Scalar(FP64)
    u << s
    v = Scalar.from_value(s)
    assert dev.count == 0
    for x in (t, u, v):
        assert x._on_device(dev, FP64) is not None
    assert t.value == u.value == v.value == 4.0


def test_it_is_bound_only_on_its_backend_and_in_its_type():
    s, dev = _held(1.5)
    assert s._on_device(dev, FP64) is not None
    assert s._on_device(Reads(), FP64) is None
    assert s._on_device(dev, FP32) is None
    assert dev.count == 0


def test_another_type_or_an_accumulation_reads_it():
    s, dev = _held(3.0, FP64)
    f = Scalar(FP32)
    f << s
    assert dev.count == 1 and f._on_device(dev, FP64) is None and f.value == 3.0
    s2, dev2 = _held(3.0, INT64)
    acc = Scalar.from_value(10, INT64)
    acc(binary.plus) << s2
    assert dev2.count == 1 and acc.value == 13


def test_clear_and_reassign_drop_it():
    s, dev = _held(7.0)
    s.clear()
    assert s.is_empty and s.value is None and dev.count == 0
    s, dev = _held(7.0)
    s.value = 1.0
    assert s.value == 1.0 and dev.count == 0


def test_on_the_cpu_a_reduction_is_a_host_value():
    from graphblast import Vector, monoid

    v = Vector.from_coo([0, 3], [1.0, 2.0], size=5, device="cpu")
    s = v.reduce(monoid.plus).new()
    assert type(s._held) is not DeviceValue and s.value == 3.0
    assert Vector(FP64, 4, device="cpu").reduce(monoid.plus).new().is_empty


@pytest.mark.parametrize("side", ["left", "right"])
def test_apply_takes_a_host_value_on_the_cpu(side):
    from graphblast import Vector

    s, dev = _held(2.0)
    v = Vector.from_coo([1, 2], [3.0, 5.0], size=4, device="cpu")
    got = v.apply(binary.minus, **{side: s}).new()
    want = [-1.0, -3.0] if side == "left" else [1.0, 3.0]
    assert got.to_coo()[1].tolist() == want
    assert dev.count == 1  # another backend than the value's: read, then bound by value


def test_from_scalar_on_another_backend_reads_it():
    from graphblast import Matrix, Vector

    s, dev = _held(2.0)
    assert Vector.from_scalar(s, 3, device="cpu").to_coo()[1].tolist() == [2.0] * 3
    assert Matrix.from_scalar(s, 2, 2, device="cpu").nvals == 4
    assert dev.count == 1


def test_copies_of_the_scalar_share_the_value_without_reading_it():
    import copy

    s, dev = _held(5.0)
    for c in (copy.copy(s), copy.deepcopy(s)):
        assert c._on_device(dev, FP64) is s._on_device(dev, FP64)
    assert dev.count == 0 and copy.deepcopy(s).value == 5.0
