"""Building, converting and transposing GPU storage.

Storage is the backend-neutral :class:`CSR`/:class:`SparseVector` with CuPy arrays: int64
indices and offsets, values always present.  Input is validated where it already is: host
arrays on the host with the CPU backend's checks, device arrays on the GPU with reductions
fetched in one small transfer; both raise the CPU backend's errors.  It is sorted on the GPU
when it is not in row-major order already.
"""

import cupy as cp
import numpy as np

from ...dtypes import cast
from ...exceptions import IndexOutOfBound, InvalidValue
from ..base import CSR, SparseVector, cast_csr
from ..cpu import storage as host
from . import arrays, blocks, jit, programs, recording
from .blocks import I64, INDEX, i64
from .vectors import FullVector


def empty_matrix(nrows, ncols, dtype):
    return CSR(nrows, ncols, dtype, cp.zeros(nrows + 1, dtype=INDEX), cp.zeros(0, dtype=INDEX),
               cp.zeros(0, dtype=dtype.np_type))


_no_entries = {}  # (device id, NumPy dtype) -> a zero-length array


def _none_of(np_type):
    """A zero-length device array of ``np_type``, one per device and type: every empty
    vector shares it (nothing can be written into it), so that the empty output each
    ``.new()`` starts from costs no allocation and no memset."""
    key = (cp.cuda.runtime.getDevice(), np_type)
    found = _no_entries.get(key)
    if found is None:
        found = _no_entries[key] = cp.zeros(0, dtype=np_type)
    return found


def empty_vector(size, dtype):
    return SparseVector(size, dtype, _none_of(INDEX), _none_of(dtype.np_type))


def _on_device(x):
    return hasattr(x, "__cuda_array_interface__")


def _out_of_range(name, idx, bound):
    """The CPU backend's error for device indices of which some are outside [0, bound): it
    names the first such index, so this looks it up (on the error path only)."""
    bad = int(idx[cp.flatnonzero((idx < 0) | (idx >= bound))[0]])
    return IndexOutOfBound(f"{name} index {bad} is out of range for dimension of size "
                           f"{bound}; indices must be in [0, {bound}).")


def _indices(name, idx, bound):
    """Validated int64 indices on the device (host arrays are checked on the host)."""
    if not _on_device(idx):
        arr = host.as_index_array(name, idx)
        host._check_indices(name, arr, bound)
        return arr
    # The catalogue's array kernels read contiguous memory; a strided view (one column of
    # cp.nonzero's result on a 2-D array) is copied once here.
    arr = cp.ascontiguousarray(cp.asarray(idx))
    if arr.ndim != 1:
        raise InvalidValue(f"{name} must be a 1-D array of indices, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise InvalidValue(f"{name} indices must be integers, got dtype {arr.dtype}")
    if arr.shape[0]:
        lo, hi = (int(v) for v in arrays.pack(arr.min(), arr.max()).get())
        if lo < 0 or hi >= bound:
            raise _out_of_range(name, arr, bound)
    return arrays.astype(arr, INDEX)


def _values(values, dtype):
    """Values cast to ``dtype`` where they are, then on the device."""
    if _on_device(values):
        return cast(cp.ascontiguousarray(cp.asarray(values)), dtype, xp=cp)
    return cp.asarray(cast(np.asarray(values), dtype))


def _strictly_increasing_on_host(rows, cols, nrows, ncols):
    """Whether host COO arrays are already sorted and free of duplicates (then no GPU sort)."""
    if rows.shape[0] < 2:
        return True
    (keys,) = host.compressed_keys([rows], [cols], nrows, ncols)
    return bool(np.all(keys[1:] > keys[:-1]))


def matrix_from_coo(nrows, ncols, dtype, rows, cols, values, dup_op):
    """CSR from COO arrays (host or device), duplicates combined in order by ``dup_op``."""
    rows = _indices("row", rows, nrows)
    cols = _indices("column", cols, ncols)
    n = rows.shape[0]
    if cols.shape[0] != n or values.shape[0] != n:
        raise InvalidValue(f"rows, columns and values must have the same length, got {n}, "
                           f"{cols.shape[0]} and {values.shape[0]}")
    if not _on_device(rows) and not _on_device(cols) and _strictly_increasing_on_host(
            rows, cols, nrows, ncols):
        r = cp.asarray(rows)
        return CSR(nrows, ncols, dtype, blocks.indptr_from_sorted_rows(r, nrows),
                   cp.asarray(cols), _values(values, dtype))
    rows, cols = cp.asarray(rows), cp.asarray(cols)
    if _rows_strictly_increase(rows):  # at most one entry a row, in order: nothing to sort
        return CSR(nrows, ncols, dtype, blocks.indptr_from_sorted_rows(rows, nrows), cols,
                   _values(values, dtype))
    return coo_to_csr(nrows, ncols, dtype, rows, cols,
                      _values(values, dtype), dup="error" if dup_op is None else dup_op)


def coo_to_csr(nrows, ncols, dtype, rows, cols, vals, dup):
    """CSR from device COO arrays in any order.

    ``dup`` says what equal positions do: "error" raises InvalidValue naming one, "last" keeps
    the last in input order (assign's rule), or a typed binary operator folds them in input
    order (build's ``dup_op``; the sort is stable, so the order is the input's)."""
    n = rows.shape[0]
    if n == 0:
        return empty_matrix(nrows, ncols, dtype)
    order = blocks.sort_pairs(rows, cols, nrows, ncols)
    take = arrays.take
    rows, cols, vals = take(rows, order), take(cols, order), take(vals, order)
    flags = blocks.pair_flags("gbk_pair_run_ends" if dup == "last" else "gbk_pair_run_starts",
                              rows, cols)
    scan = blocks.exclusive_scan(flags)
    nuniq = blocks.total(scan)
    if nuniq != n:
        if dup == "error":
            first = int(cp.flatnonzero(flags == 0)[0])
            r, c = (int(v) for v in cp.stack([rows[first], cols[first]]).get())
            raise InvalidValue(
                f"Duplicate indices found, for example at row {r}, column {c}; pass "
                "dup_op=binary.plus (or another operator) to combine duplicates.")
        keep = arrays.flatnonzero(flags)
        if dup == "last":
            rows, cols, vals = take(rows, keep), take(cols, keep), take(vals, keep)
        else:
            offsets = cp.empty(nuniq + 1, dtype=INDEX)
            arrays.copy_into(keep, offsets[:nuniq])
            offsets[nuniq:].set(np.array([n], dtype=INDEX))
            vals = _fold_duplicates(vals, offsets, nuniq, dup, dtype)
            rows, cols = take(rows, keep), take(cols, keep)
    return CSR(nrows, ncols, dtype, blocks.indptr_from_sorted_rows(rows, nrows), cols, vals)


def _rows_strictly_increase(rows):
    """Whether every row index is larger than the one before (a membership or selection
    matrix built from Vectors, ``Matrix.from_coo(ids, labels, 1)``): one pass and one read,
    against the sort it saves."""
    if rows.shape[0] < 2:
        return rows.shape[0] == 1
    step = arrays.adjacent_diff(rows)
    return int(blocks.read_small(arrays.pack(step.min()))[0]) > 0


def _fold_duplicates(vals, offsets, nseg, dup_op, dtype):
    """Each run of equal positions folded left to right with ``dup_op``, cast to ``dtype``."""
    x = dup_op.type
    vx = blocks.cast_values(vals, dtype, x)
    (fn,) = jit.compiled(programs.fold, dup_op, dtype).fns
    out = cp.empty(nseg, dtype=dtype.np_type)
    jit.launch(fn, nseg, (i64(nseg), offsets, vx, out))
    return out


def vector_from_coo(size, dtype, indices, values, dup_op):
    """A vector as the one row of a matrix, validated there (errors name the index a column,
    as on the CPU); the zero row ids are made where the indices are.  Host indices already
    strictly increasing (a vector built from sorted positions) are checked on the host and
    copied as they are: no row ids, no sort; when they name every position (``from_dense``
    of a whole array) the vector is stored full, without its indices: as a list of every
    position, each element-wise operation on it took the general path of two lists (an
    ewise_mult of two such 4-million-entry vectors 0.34 ms on the H200, against a pass over
    two full ones)."""
    if not _on_device(indices) and not _on_device(values):
        idx = _indices("column", indices, size)
        values = np.asarray(values)
        if values.shape[0] == idx.shape[0] and (
                idx.shape[0] < 2 or bool(np.all(idx[1:] > idx[:-1]))):
            vals = _values(values, dtype)
            if 0 < idx.shape[0] == size:  # strictly increasing in [0, size): all of them
                return FullVector(size, dtype, vals)
            return SparseVector(size, dtype, cp.asarray(idx, dtype=INDEX), vals)
    xp = cp if _on_device(indices) else np
    A = matrix_from_coo(1, size, dtype, xp.zeros(indices.shape[0], dtype=INDEX), indices,
                        values, dup_op)
    return SparseVector(size, dtype, A.indices, A.values)


def matrix_from_csr(nrows, ncols, dtype, indptr, indices, values):
    """CSR from user CSR arrays: validated (host arrays on the host, as the CPU backend does,
    device arrays on the device), rows sorted, duplicates refused."""
    if _on_device(indptr) or _on_device(indices):
        return _matrix_from_device_csr(nrows, ncols, dtype, indptr, indices, values)
    if _on_device(values):
        values = cp.asnumpy(values)
    indptr = host.as_index_array("indptr", indptr)
    indices = host.as_index_array("column", indices)
    if indptr.shape[0] != nrows + 1:
        raise InvalidValue(f"indptr must have nrows + 1 = {nrows + 1} entries, got "
                           f"{indptr.shape[0]}")
    if indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != indices.shape[0]:
        raise InvalidValue("indptr must start at 0, never decrease, and end at the number of "
                           f"column indices ({indices.shape[0]})")
    values = np.asarray(values)
    if values.shape[0] != indices.shape[0]:
        raise InvalidValue(f"values must have one entry per column index: got "
                           f"{values.shape[0]} values for {indices.shape[0]} indices")
    host._check_indices("column", indices, ncols)
    rows = host.row_ids(indptr, nrows)
    return matrix_from_coo(nrows, ncols, dtype, rows, indices, values, None)


def _matrix_from_device_csr(nrows, ncols, dtype, indptr, indices, values):
    """matrix_from_csr where the index arrays are on the GPU (a host one is copied there).

    The checks are the host path's, with its errors, from one transfer of a few reductions.
    Arrays already canonical (every row strictly increasing) are kept (copied where they are
    the caller's device arrays); others are sorted by coo_to_csr, which refuses
    duplicates."""
    # The core has made both 1-D integer arrays; int64 ones are read as they are.
    indptr_in, indices_in = indptr, indices
    indptr = cp.asarray(indptr).astype(INDEX, copy=False)
    indices = cp.asarray(indices).astype(INDEX, copy=False)
    nnz = indices.shape[0]
    if indptr.shape[0] != nrows + 1:
        raise InvalidValue(f"indptr must have nrows + 1 = {nrows + 1} entries, got "
                           f"{indptr.shape[0]}")
    stats = [indptr[0], indptr[-1], (indptr[1:] < indptr[:-1]).any().astype(INDEX)]
    if nnz:
        stats += [indices.min(), indices.max()]
    first, last, decreases, *bounds = cp.stack(stats).get().tolist()
    if first != 0 or decreases or last != nnz:
        raise InvalidValue("indptr must start at 0, never decrease, and end at the number of "
                           f"column indices ({nnz})")
    if values.shape[0] != nnz:
        raise InvalidValue(f"values must have one entry per column index: got "
                           f"{values.shape[0]} values for {nnz} indices")
    if bounds and (bounds[0] < 0 or bounds[1] >= ncols):
        raise _out_of_range("column", indices, ncols)
    given = (indptr_in, indices_in, values)
    values = _values(values, dtype)
    if blocks.rows_strictly_increasing(indptr, indices, nrows):
        # wrapped, but never the caller's own arrays (storage is immutable)
        return CSR(nrows, ncols, dtype, *(
            cp.array(x, copy=True) if _on_device(g) and cp.may_share_memory(x, g) else x
            for x, g in zip((indptr, indices, values), given)))
    rows, _ = blocks.expand(indptr, nrows, nnz, want_occ=False)
    return coo_to_csr(nrows, ncols, dtype, rows, indices, values, dup="error")


def to_coo(A):
    return blocks.row_ids(A), A.indices, A.values


def cast_data(data, dtype):
    if data.dtype is dtype:
        return data
    if isinstance(data, CSR):
        return cast_csr(data, dtype, lambda values: blocks.cast_values(values, data.dtype, dtype))
    return blocks.with_values(data, blocks.cast_values(data.values, data.dtype, dtype), dtype)


def transpose(A, cache=True):
    """A' by a stable radix sort of the column indices (entries of one column keep their row
    order, so the result's rows are sorted); cached on A."""
    if A.symmetric:
        return A
    if A._transpose is not None:
        return A._transpose
    if cache:
        recording.refuse("a matrix's transpose")
    if A.nvals == 0:
        T = empty_matrix(A.ncols, A.nrows, A.dtype)
    else:
        order = cp.argsort(A.indices)
        rows = blocks.row_ids(A)
        T = CSR(A.ncols, A.nrows, A.dtype, blocks.indptr_from_sorted_rows(A.indices[order],
                                                                          A.ncols),
                rows[order], A.values[order])
    if cache:
        A._transpose = T
        T._transpose = A
    return T


def as_row(v):
    """A vector seen as a 1 x n CSR matrix (no copy of its arrays)."""
    indptr = cp.asarray(np.array([0, v.nvals], dtype=INDEX))  # a copy, no kernel
    return CSR(1, v.size, v.dtype, indptr, v.indices, v.values)


def from_row(A):
    return SparseVector(A.ncols, A.dtype, A.indices, A.values)


def vector_as_column(v):
    """A vector as an n x 1 CSR matrix."""
    marks = cp.zeros(v.size, dtype=INDEX)
    marks[v.indices] = 1
    return CSR(v.size, 1, v.dtype, blocks.exclusive_scan(marks),
               cp.zeros(v.nvals, dtype=INDEX), v.values)


def matrix_column_as_vector(A):
    return SparseVector(A.nrows, A.dtype, blocks.row_ids(A), A.values)


def _filled(n, value, dtype):
    """``n`` copies of ``value``: a host scalar, or a value a reduction left on the device (a
    one-element array of ``dtype``, broadcast by a copy kernel: no read)."""
    if jit.is_device_value(value):
        value = cp.asarray(value).reshape(1)
        if value.dtype != dtype.np_type:
            value = arrays.astype(value, dtype.np_type)
        return arrays.broadcast(n, value)
    return arrays.full(n, jit.scalar(value, dtype), dtype.np_type)


def full_like_pattern(data, value, dtype):
    return blocks.with_values(data, _filled(data.nvals, value, dtype), dtype)


def vector_full(size, value, dtype):
    return FullVector(size, dtype, _filled(size, value, dtype))


def matrix_full(nrows, ncols, value, dtype):
    n = nrows * ncols
    return CSR(nrows, ncols, dtype, cp.arange(0, n + 1, max(ncols, 1), dtype=INDEX)[:nrows + 1]
               if ncols else cp.zeros(nrows + 1, dtype=INDEX),
               cp.arange(n, dtype=INDEX) % I64(max(ncols, 1)), _filled(n, value, dtype))
