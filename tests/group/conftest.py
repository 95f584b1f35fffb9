"""Helpers of the device-group tests: every operation runs on plain CPU objects and on copies
placed on N CPU partitions (``"cpu:0-{N-1}"``; N = 1 is the plain CPU device, a group of one),
and the answers must agree.

On a machine with several GPUs, ``GRAPHBLAST_GROUP_KIND=cuda`` places the copies on GPU groups
instead (``"cuda:0-{N-1}"``: the CUDA backend on each GPU, the NCCL communicator), N = 2, 3 and
4 as far as there are GPUs (``GRAPHBLAST_GROUP_PARTS="2,4"`` picks others; N = 1 is then the
single GPU ``cuda:0``), still against the CPU's answers.  Tests of CPU partitions as such
(placement, traffic counts) keep their ``cpu:`` groups.

:func:`check` is the harness: it copies the inputs to the group, runs the body on both sets,
and compares the results and the inputs afterwards (bodies update their inputs in place).
Integers and booleans must be equal; floats agree to a relative ``1e-9``, since a group sums
partial results in another order.
"""

import os
import sys

import numpy as np
import pytest

import graphblast as gb
from graphblast import Matrix, Scalar, Vector
from graphblast.backends import get_backend
from graphblast.backends.group.storage import PartitionedCSR, PartitionedVector

# The test modules import these helpers as ``grouphelp``: pytest imports every folder's
# conftest.py as ``conftest``, so its own name is not stable.
sys.modules.setdefault("grouphelp", sys.modules[__name__])

REL = 1e-9

KIND = os.environ.get("GRAPHBLAST_GROUP_KIND", "cpu").strip().lower() or "cpu"


def _gpu_count():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no GPU: none usable
        return 0


def _parts():
    chosen = os.environ.get("GRAPHBLAST_GROUP_PARTS", "").strip()
    wanted = [int(x) for x in chosen.split(",")] if chosen else None
    if KIND == "cpu":
        return wanted or [1, 2, 3, 4]
    if KIND != "cuda":
        raise pytest.UsageError(f"GRAPHBLAST_GROUP_KIND must be cpu or cuda, not {KIND!r}")
    gpus = _gpu_count()
    if gpus < 2:
        raise pytest.UsageError(f"GRAPHBLAST_GROUP_KIND=cuda needs at least 2 GPUs; "
                                f"{gpus} usable here")
    parts = [p for p in (wanted or [2, 3, 4]) if p <= gpus]
    if not parts:
        raise pytest.UsageError(f"GRAPHBLAST_GROUP_PARTS={chosen} asks for more than the "
                                f"{gpus} GPUs here")
    return parts


PARTS = _parts()
GPU_GROUPS = KIND == "cuda"


def group_of(parts):
    if KIND == "cuda":
        return "cuda:0" if parts == 1 else f"cuda:0-{parts - 1}"
    return "cpu" if parts == 1 else f"cpu:0-{parts - 1}"


@pytest.fixture(autouse=True)
def _objects_on_the_cpu():
    """The reference objects are made on the CPU even where a GPU makes CUDA the default
    device (the comparisons below need them there)."""
    with gb.config.set(device="cpu"):
        yield


@pytest.fixture(params=PARTS, ids=lambda p: f"N{p}")
def parts(request):
    return request.param


def matrix(rng, nrows, ncols, density=0.3, dtype="FP64", low=-3, high=4):
    """A random Matrix on the CPU: about ``density`` of the positions, values in [low, high)
    (zeros included, for value masks), booleans at random."""
    count = int(rng.binomial(nrows * ncols, density)) if nrows * ncols else 0
    flat = rng.choice(nrows * ncols, size=count, replace=False) if count else np.zeros(0, int)
    return Matrix.from_coo(flat // max(ncols, 1), flat % max(ncols, 1),
                           _values(rng, count, dtype, low, high), dtype, nrows=nrows,
                           ncols=ncols)


def vector(rng, size, density=0.4, dtype="FP64", low=-3, high=4):
    count = int(rng.binomial(size, density))
    idx = np.sort(rng.choice(size, size=count, replace=False))
    return Vector.from_coo(idx, _values(rng, count, dtype, low, high), dtype, size=size)


def _values(rng, count, dtype, low, high):
    if dtype == "BOOL":
        return rng.random(count) < 0.6
    if dtype.startswith("FP"):
        return rng.uniform(low, high, count).round(2)
    return rng.integers(low, high, count)


def graph(rng, n, m, weighted=False, symmetric=True, dtype="INT64"):
    """A random graph on ``n`` vertices with about ``m`` edges (no repeats; symmetric unless
    asked), weights 1..9."""
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    if symmetric:
        rows, cols = np.r_[rows, cols], np.r_[cols, rows]
    if not weighted:  # one value for every entry: repeated pairs are dropped
        return Matrix.from_coo(rows, cols, 1, dtype, nrows=n, ncols=n)
    values = rng.integers(1, 10, rows.shape[0])
    return Matrix.from_coo(rows, cols, values, dtype, nrows=n, ncols=n, dup_op=gb.binary.min)


def place(x, parts):
    """A copy of x on the group of ``parts`` members (to_device gives x itself on its own
    device)."""
    if not isinstance(x, (Matrix, Vector)):
        return x
    device = group_of(parts)
    return x.dup() if device == x.device else x.to_device(device)


def assert_same(expected, got, parts, rel=REL):
    """``got`` (computed on the group) holds what ``expected`` (on the CPU) holds."""
    if isinstance(expected, (Matrix, Vector)):
        assert type(got) is type(expected)
        assert got.device == group_of(parts)
        if parts > 1:
            kind = PartitionedCSR if isinstance(got, Matrix) else PartitionedVector
            assert isinstance(got._data, kind)
        local = got.to_device("cpu")
        assert local.dtype == expected.dtype, (local.dtype, expected.dtype)
        assert local.shape == expected.shape
        e_coo, g_coo = expected.to_coo(), local.to_coo()
        for e, g in zip(e_coo[:-1], g_coo[:-1]):
            np.testing.assert_array_equal(g, e, err_msg="structure differs")
        _values_match(e_coo[-1], g_coo[-1], rel)
    elif isinstance(expected, Scalar):
        assert got.dtype == expected.dtype
        assert got.is_empty == expected.is_empty
        if not expected.is_empty:
            _values_match(np.asarray([expected.value]), np.asarray([got.value]), rel)
    elif isinstance(expected, (tuple, list)):
        assert len(expected) == len(got)
        for e, g in zip(expected, got):
            assert_same(e, g, parts, rel)
    elif isinstance(expected, float):
        _values_match(np.asarray([expected]), np.asarray([got]), rel)
    else:
        assert got == expected


def _values_match(expected, got, rel):
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=rel, atol=rel, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def check(parts, body, *inputs, rel=REL):
    """``body(*inputs)`` on the CPU and on the group copies of the inputs: the results, and
    every input afterwards, must agree.  Exceptions must be of one class."""
    placed = [place(x, parts) for x in inputs]
    try:
        expected = body(*inputs)
    except Exception as error:  # noqa: BLE001 - the group must raise the same class
        with pytest.raises(type(error)):
            body(*placed)
        for e, g in zip(inputs, placed):
            assert_same(e, g, parts, rel)
        return error
    got = body(*placed)
    assert_same(expected, got, parts, rel)
    for e, g in zip(inputs, placed):
        assert_same(e, g, parts, rel)
    return got


def mask_of(x, kind):
    """None, x.S, x.V, ~x.S or ~x.V."""
    return {"none": None, "S": x.S, "V": x.V, "~S": ~x.S, "~V": ~x.V}[kind]


def output_args(mask, accum, replace):
    args = {}
    if mask is not None:
        args["mask"] = mask
        args["replace"] = replace
    if accum is not None:
        args["accum"] = accum
    return args


def traffic(device):
    """What the group's primitives have moved since the last reset."""
    return get_backend(device).comm.traffic()


def reset_traffic(device):
    get_backend(device).comm.reset()
