"""Building, converting and transposing CPU storage."""

import numpy as np
import scipy.sparse as sp

from ..._memory import check_rows
from ...dtypes import cast
from ...exceptions import IndexOutOfBound, InvalidIndex, InvalidValue
from ..base import CSR, SparseVector, cast_csr
from ._util import INDEX, compressed_keys, left_fold, row_ids, segment_starts, tree_reduce

_MAX_DIM = 2**60


def empty_matrix(nrows, ncols, dtype):
    check_rows(nrows, "Matrix")
    return CSR(nrows, ncols, dtype, np.zeros(nrows + 1, dtype=INDEX), np.zeros(0, dtype=INDEX),
               np.zeros(0, dtype=dtype.storage_type))


def empty_vector(size, dtype):
    return SparseVector(size, dtype, np.zeros(0, dtype=INDEX), np.zeros(0, dtype=dtype.storage_type))


def as_row(v):
    """A vector seen as a 1 x n CSR matrix (no copy)."""
    return CSR(1, v.size, v.dtype, np.array([0, v.nvals], dtype=INDEX), v.indices, v.values)


def from_row(A):
    return SparseVector(A.ncols, A.dtype, A.indices, A.values)


def _check_indices(name, idx, bound):
    if idx.shape[0] and (int(idx.min()) < 0 or int(idx.max()) >= bound):
        bad = idx[(idx < 0) | (idx >= bound)][0]
        raise IndexOutOfBound(f"{name} index {int(bad)} is out of range for dimension of size "
                              f"{bound}; indices must be in [0, {bound}).")


def as_index_array(name, idx):
    """A host int64 array of indices; floats with integral values are refused, as are
    non-integers (python-graphblas accepts only integer arrays)."""
    arr = np.asarray(idx)
    if arr.ndim != 1:
        arr = arr.reshape(-1) if arr.ndim == 0 or arr.size == 0 else arr
        if arr.ndim != 1:
            raise InvalidValue(f"{name} must be a 1-D array of indices, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        if arr.size == 0:
            return np.zeros(0, dtype=INDEX)
        if arr.dtype.kind == "b" or arr.dtype.kind not in "f":
            raise InvalidIndex(f"{name} must be integers, got array of dtype {arr.dtype}")
        as_int = arr.astype(INDEX)
        if not np.array_equal(as_int, arr):
            raise InvalidIndex(f"{name} must be integers, not {arr.dtype}: got non-integral "
                               "values")
        arr = as_int
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(INDEX).max:
        raise IndexOutOfBound(f"{name} index {int(arr.max())} is too large")
    return arr.astype(INDEX, copy=False)


def _owned(array, given):
    """``array`` as storage may hold it: contiguous, and a copy where it shares memory with
    the caller's ``given`` (storage is immutable: the caller's later writes must not reach
    it)."""
    if isinstance(given, np.ndarray) and np.may_share_memory(array, given):
        return np.array(array, order="C", copy=True)
    return np.ascontiguousarray(array)


def matrix_from_coo(nrows, ncols, dtype, rows, cols, values, dup_op):
    """CSR from COO arrays (validated), combining duplicates with ``dup_op``.  The storage
    never shares the caller's arrays."""
    given_cols, given_values = cols, values
    rows = as_index_array("row", rows)
    cols = as_index_array("column", cols)
    n = rows.shape[0]
    if cols.shape[0] != n or values.shape[0] != n:
        raise InvalidValue(f"rows, columns and values must have the same length, got {n}, "
                           f"{cols.shape[0]} and {values.shape[0]}")
    _check_indices("row", rows, nrows)
    _check_indices("column", cols, ncols)
    values = cast(values, dtype)
    (keys,) = compressed_keys([rows], [cols], nrows, ncols)
    if n and not np.all(keys[1:] > keys[:-1]):
        canonical = _canonical_csr(nrows, ncols, rows, cols, values)
        if canonical is not None:
            return CSR(nrows, ncols, dtype, *canonical)
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        rows = rows[order]
        cols = cols[order]
        values = values[order]
    starts = segment_starts(keys)
    if starts.shape[0] != n:
        if dup_op is None:
            dup = np.flatnonzero(keys[1:] == keys[:-1])[0]
            raise InvalidValue(
                f"Duplicate indices found, for example at row {int(rows[dup + 1])}, column "
                f"{int(cols[dup + 1])}; pass dup_op=binary.plus (or another operator) to combine "
                "duplicates.")
        values = _combine_duplicates(values, starts, dup_op, dtype)
        rows = rows[starts]
        cols = cols[starts]
    return CSR(nrows, ncols, dtype, indptr_from_rows(rows, nrows), _owned(cols, given_cols),
               _owned(values, given_values))


def _canonical_csr(nrows, ncols, rows, cols, values):
    """CSR arrays of unsorted COO input without duplicates, in linear time; None if the input
    has duplicates.

    SciPy's COO -> CSR is a counting sort by row that keeps the input order within a row, and
    sorts a row's columns only when they are out of order: column-major input (the usual
    order of Matrix Market files) costs a pass, where sorting the keys costs O(n log n).  It
    sums duplicates, which is not ``dup_op``'s rule, so input with duplicates is left to the
    caller.
    """
    check_rows(nrows, "Matrix")
    raw = values if values.dtype.kind == "V" else None  # a user-defined type: positions
    S = sp.coo_array((values if raw is None else np.arange(1, rows.shape[0] + 1),
                      (rows, cols)), shape=(nrows, ncols)).tocsr()
    if S.nnz != rows.shape[0]:
        return None
    return (S.indptr.astype(INDEX, copy=False), S.indices.astype(INDEX, copy=False),
            S.data if raw is None else raw[S.data - 1])


def indptr_from_rows(rows, nrows):
    """CSR row pointers from the (sorted) row of each entry."""
    check_rows(nrows, "Matrix")
    indptr = np.zeros(nrows + 1, dtype=INDEX)
    if rows.shape[0]:
        indptr[1:] = np.bincount(rows, minlength=nrows)
        np.cumsum(indptr, out=indptr)
    return indptr


def _combine_duplicates(values, starts, dup_op, dtype):
    func = dup_op.np_func
    vals = cast(values, dup_op.type)
    if dup_op.monoid is not None:
        out = tree_reduce(vals, starts, func)
    else:
        out = left_fold(vals, starts, func)
    return cast(out, dtype)


def vector_from_coo(size, dtype, indices, values, dup_op):
    A = matrix_from_coo(1, size, dtype, np.zeros(len(indices), dtype=INDEX), indices, values,
                        dup_op)
    return from_row(A)


def matrix_from_csr(nrows, ncols, dtype, indptr, indices, values):
    """CSR from user CSR arrays: validated, rows sorted, duplicates refused."""
    indptr = as_index_array("indptr", indptr)
    indices = as_index_array("column", indices)
    if indptr.shape[0] != nrows + 1:
        raise InvalidValue(f"indptr must have nrows + 1 = {nrows + 1} entries, got "
                           f"{indptr.shape[0]}")
    if indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != indices.shape[0]:
        raise InvalidValue("indptr must start at 0, never decrease, and end at the number of "
                           f"column indices ({indices.shape[0]})")
    if values.shape[0] != indices.shape[0]:
        raise InvalidValue(f"values must have one entry per column index: got "
                           f"{values.shape[0]} values for {indices.shape[0]} indices")
    _check_indices("column", indices, ncols)
    rows = row_ids(indptr, nrows)
    return matrix_from_coo(nrows, ncols, dtype, rows, indices, values, None)


def to_coo(A):
    return row_ids(A.indptr, A.nrows), A.indices, A.values


def cast_data(data, dtype):
    if data.dtype is dtype:
        return data
    if isinstance(data, SparseVector):
        return SparseVector(data.size, dtype, data.indices, cast(data.values, dtype))
    return cast_csr(data, dtype, lambda values: cast(values, dtype))


def with_values(data, values, dtype):
    """Same structure, new values."""
    if isinstance(data, SparseVector):
        return SparseVector(data.size, dtype, data.indices, values)
    return CSR(data.nrows, data.ncols, dtype, data.indptr, data.indices, values)


def transpose(A, cache=True):
    """A' in CSR form, by SciPy's linear-time CSR -> CSC conversion; cached on A."""
    if A.symmetric:
        return A
    if A._transpose is not None:
        return A._transpose
    if A.nvals == 0:
        T = empty_matrix(A.ncols, A.nrows, A.dtype)
    else:
        raw = A.values if A.values.dtype.kind == "V" else None  # user-defined type
        S = sp.csr_array((A.values if raw is None else np.arange(1, A.nvals + 1), A.indices,
                          A.indptr), shape=(A.nrows, A.ncols))
        C = S.tocsc()
        T = CSR(A.ncols, A.nrows, A.dtype, C.indptr.astype(INDEX, copy=False),
                C.indices.astype(INDEX, copy=False),
                C.data if raw is None else raw[C.data - 1])
    if cache:
        A._transpose = T
        T._transpose = A
    return T


def to_scipy(A, dtype=None):
    """A SciPy CSR array sharing A's arrays (values cast when ``dtype`` differs)."""
    vals = A.values if dtype is None else cast(A.values, dtype)
    return sp.csr_array((vals, A.indices, A.indptr), shape=(A.nrows, A.ncols))


def from_scipy_canonical(S, dtype):
    """CSR from a SciPy CSR array whose rows are sorted and duplicate-free."""
    return CSR(S.shape[0], S.shape[1], dtype, S.indptr.astype(INDEX, copy=False),
               S.indices.astype(INDEX, copy=False), cast(S.data, dtype))


def check_dims(nrows, ncols=None):
    for d in (nrows,) if ncols is None else (nrows, ncols):
        if d > _MAX_DIM:
            raise InvalidValue(f"dimension {d} is too large; the maximum is 2**60")


def vector_as_column(v):
    """A vector as an n x 1 CSR matrix."""
    indptr = np.zeros(v.size + 1, dtype=INDEX)
    indptr[v.indices + 1] = 1
    np.cumsum(indptr, out=indptr)
    return CSR(v.size, 1, v.dtype, indptr, np.zeros(v.nvals, dtype=INDEX), v.values)


def matrix_column_as_vector(A):
    """An n x 1 CSR matrix as a vector."""
    return SparseVector(A.nrows, A.dtype, row_ids(A.indptr, A.nrows), A.values)


def full_like_pattern(data, value, dtype):
    """``data``'s structure with every value set to ``value``."""
    return with_values(data, np.full(data.nvals, value, dtype=dtype.storage_type), dtype)


def vector_full(size, value, dtype):
    return SparseVector(size, dtype, np.arange(size, dtype=INDEX),
                        np.full(size, value, dtype=dtype.storage_type))


def matrix_full(nrows, ncols, value, dtype):
    indptr = np.arange(nrows + 1, dtype=INDEX) * INDEX(ncols)
    indices = np.tile(np.arange(ncols, dtype=INDEX), nrows)
    return CSR(nrows, ncols, dtype, indptr, indices,
               np.full(nrows * ncols, value, dtype=dtype.storage_type))
