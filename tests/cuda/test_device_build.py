"""Building on the GPU from CuPy arrays: the arrays are validated where they are, canonical CSR
is wrapped without a copy, and results and errors are those of the same NumPy arrays on the
CPU.  Runs where CuPy and a GPU are usable."""

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import graphblast as gb  # noqa: E402
from graphblast.backends import cuda_available  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no usable GPU")

INDEX_TYPES = [np.int32, np.int64]


def _gpu(arrays):
    return [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in arrays]


def _same(x, y):
    assert x.shape == y.shape and x.dtype == y.dtype
    for a, b in zip(x.to_coo(), y.to_coo()):
        np.testing.assert_array_equal(a, b)


def _same_as_numpy(build, *arrays, **kwargs):
    """``build`` on CuPy arrays on the GPU equals ``build`` on the NumPy arrays on the CPU."""
    expected = build(*arrays, device="cpu", **kwargs)
    got = build(*_gpu(arrays), device="cuda", **kwargs)
    assert got.device == "cuda:0"
    _same(got, expected)
    return got


def _error(build, *arrays, device, **kwargs):
    with pytest.raises(Exception) as info:
        build(*arrays, device=device, **kwargs)
    return type(info.value), str(info.value)


def _same_error(build, *arrays, **kwargs):
    """``build`` on CuPy arrays raises what it raises on the NumPy arrays on the CPU."""
    expected = _error(build, *arrays, device="cpu", **kwargs)
    assert _error(build, *_gpu(arrays), device="cuda", **kwargs) == expected


# -- from_coo ----------------------------------------------------------------------------------

ROWS = np.array([0, 0, 1, 3, 3, 4])
COLS = np.array([1, 4, 0, 0, 2, 4])
VALS = np.arange(1.0, 7.0)
SHUFFLE = np.array([4, 1, 5, 0, 3, 2])


@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_from_coo_sorted_and_unsorted(itype):
    r, c = ROWS.astype(itype), COLS.astype(itype)
    _same_as_numpy(gb.Matrix.from_coo, r, c, VALS)
    _same_as_numpy(gb.Matrix.from_coo, r[SHUFFLE], c[SHUFFLE], VALS[SHUFFLE])
    _same_as_numpy(gb.Matrix.from_coo, r, c, VALS.astype(np.float32), nrows=7, ncols=9)
    _same_as_numpy(gb.Matrix.from_coo, r[SHUFFLE], c[SHUFFLE])  # a scalar value


def test_from_coo_integral_floats_and_empty():
    _same_as_numpy(gb.Matrix.from_coo, ROWS.astype(np.float64), COLS.astype(np.float32), VALS)
    # no indices: nothing to infer the shape from, so it is given
    _same_as_numpy(gb.Matrix.from_coo, np.zeros(0), np.zeros(0, dtype=np.int32), np.zeros(0),
                   nrows=3, ncols=4)


@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_from_coo_duplicates(itype):
    r = np.array([2, 0, 2, 1, 2], dtype=itype)
    c = np.array([1, 3, 1, 0, 1], dtype=itype)
    v = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    _same_error(gb.Matrix.from_coo, r, c, v)
    _same_as_numpy(gb.Matrix.from_coo, r, c, v, dup_op=gb.binary.plus)
    _same_as_numpy(gb.Matrix.from_coo, r, c, v, dup_op=gb.binary.minus)  # in input order


@pytest.mark.parametrize("rows, kwargs", [
    (np.array([0, 5, 9]), {"nrows": 3, "ncols": 3}),  # the first index out of range is named
    (np.array([0, -1, -4]), {}),
    (np.array([0.0, 1.5, 2.0]), {}),
    (np.array([0.0, np.nan, 2.0]), {}),
    (np.array([True, False, True]), {}),
    (np.zeros((3, 1), dtype=np.int64), {}),
    (np.array([0, 1]), {}),  # not as many rows as columns
])
def test_from_coo_errors(rows, kwargs):
    _same_error(gb.Matrix.from_coo, rows, np.array([1, 0, 2]), np.arange(3.0), **kwargs)


def test_from_coo_on_the_cpu_copies_cupy_indices_to_the_host():
    A = gb.Matrix.from_coo(cupy.asarray(ROWS), cupy.asarray(COLS), VALS, device="cpu")
    assert isinstance(A._csr().indices, np.ndarray)
    _same(A, gb.Matrix.from_coo(ROWS, COLS, VALS, device="cpu"))


# -- from_csr ----------------------------------------------------------------------------------

# Canonical, with an empty row and rows whose first column is not above the last one before.
INDPTR = np.array([0, 2, 3, 3, 6])
INDICES = np.array([1, 3, 0, 0, 2, 3])


@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_from_csr_canonical(itype):
    _same_as_numpy(gb.Matrix.from_csr, INDPTR.astype(itype), INDICES.astype(itype), VALS)
    _same_as_numpy(gb.Matrix.from_csr, INDPTR.astype(itype), INDICES.astype(itype), 2,
                   ncols=8)


def test_canonical_csr_is_copied_not_shared():
    """The Matrix owns its arrays, as on the CPU: a later write by the caller changes nothing."""
    indptr, indices, values = cupy.asarray(INDPTR), cupy.asarray(INDICES), cupy.asarray(VALS)
    A = gb.Matrix.from_csr(indptr, indices, values, device="cuda")
    data = A._csr()
    assert data.indptr.data.ptr != indptr.data.ptr
    assert data.indices.data.ptr != indices.data.ptr
    assert data.values.data.ptr != values.data.ptr
    indices[0], values[0] = 3, -1.0
    _same(A, gb.Matrix.from_csr(INDPTR, INDICES, VALS, device="cpu"))


@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_from_csr_unsorted_rows_are_sorted(itype):
    indices = np.array([3, 1, 0, 2, 0, 3], dtype=itype)
    A = _same_as_numpy(gb.Matrix.from_csr, INDPTR.astype(itype), indices, VALS)
    np.testing.assert_array_equal(A.to_csr()[1], [1, 3, 0, 0, 2, 3])


@pytest.mark.parametrize("itype", INDEX_TYPES)
@pytest.mark.parametrize("indptr, indices, kwargs", [
    (INDPTR, np.array([1, 1, 0, 0, 2, 3]), {}),  # a duplicate in a row
    (INDPTR, np.array([1, 3, 0, 2, 0, 2]), {}),  # unsorted, and a duplicate
    (np.array([1, 2, 3, 3, 6]), INDICES, {}),  # does not start at 0
    (np.array([0, 3, 2, 3, 6]), INDICES, {}),  # decreases
    (np.array([0, 2, 3, 3, 5]), INDICES, {}),  # ends before the last index
    (np.array([0, 2, 3, 3, 7]), INDICES, {}),  # ends after it
    (np.array([0, -2, 3, 3, 6]), INDICES, {}),
    (INDPTR, np.array([1, 3, 0, 7, 2, 9]), {"ncols": 4}),
    (INDPTR, np.array([1, 3, 0, -7, 2, 3]), {}),
    (INDPTR, INDICES, {"nrows": 3}),
    (np.zeros(0), INDICES, {}),
])
def test_from_csr_errors(itype, indptr, indices, kwargs):
    _same_error(gb.Matrix.from_csr, indptr.astype(itype), indices.astype(itype), VALS, **kwargs)


def test_from_csr_empty():
    _same_as_numpy(gb.Matrix.from_csr, np.zeros(4, dtype=np.int64), np.zeros(0, np.int64),
                   np.zeros(0), ncols=5)
    _same_as_numpy(gb.Matrix.from_csr, np.zeros(1, dtype=np.int64), np.zeros(0, np.int64),
                   np.zeros(0))


def _random_csr(rng, nrows, ncols, nnz):
    A = gb.Matrix.from_coo(rng.integers(0, nrows, nnz), rng.integers(0, ncols, nnz), 1.0,
                           nrows=nrows, ncols=ncols, device="cpu")  # duplicates dropped
    indptr, indices, _ = A.to_csr()
    return indptr.astype(np.int64), indices.astype(np.int64)


@pytest.mark.parametrize("shape", [(200_000, 50_000), (3, 3_000_000)])  # many rows; a long row
def test_from_csr_large(rng, shape):
    """More entries than one grid covers, so the canonical check loops grid-stride."""
    indptr, indices = _random_csr(rng, *shape, 2_500_000)
    values = rng.random(indices.shape[0])
    d_indices = cupy.asarray(indices)
    A = gb.Matrix.from_csr(cupy.asarray(indptr), d_indices, cupy.asarray(values),
                           ncols=shape[1], device="cuda")
    d_indices[:] = 0  # the Matrix holds its own copy
    _same(A, gb.Matrix.from_csr(indptr, indices, values, ncols=shape[1], device="cpu"))
    # one pair swapped inside the longest row, far from the start
    row = int(np.argmax(np.diff(indptr)))
    k = int(indptr[row + 1]) - 1
    indices[[k - 1, k]] = indices[[k, k - 1]]
    _same_as_numpy(gb.Matrix.from_csr, indptr, indices, values, ncols=shape[1])
    indices[k - 1] = indices[k]
    _same_error(gb.Matrix.from_csr, indptr, indices, values, ncols=shape[1])


# -- Vector.from_coo ---------------------------------------------------------------------------

@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_vector_from_coo(itype):
    idx = np.array([4, 0, 7, 2], dtype=itype)
    vals = np.array([1.0, 2.0, 3.0, 4.0])
    _same_as_numpy(gb.Vector.from_coo, idx, vals)
    _same_as_numpy(gb.Vector.from_coo, np.sort(idx), vals, size=10)
    _same_as_numpy(gb.Vector.from_coo, idx)
    dup = np.array([3, 1, 3], dtype=itype)
    _same_error(gb.Vector.from_coo, dup, vals[:3])
    _same_as_numpy(gb.Vector.from_coo, dup, vals[:3], dup_op=gb.binary.plus)
    _same_error(gb.Vector.from_coo, idx, vals, size=5)
    _same_error(gb.Vector.from_coo, np.array([1, -3, 2, 0], dtype=itype), vals)
