"""Building blocks shared by the CUDA primitives: scans, row ids, compaction, casts, mask
lookups, matching of two sorted structures, and the marks of results computed under a mask.

Every function works on the current device and stream.  Those that size an output return it
and say so: their one host synchronization (reading the length) is the only one they make.
"""

import threading

import cupy as cp
import numpy as np

from ..base import CSR, SparseVector
from . import arrays, jit, programs
from .memory import empty_pinned

INDEX = np.int64
I64 = np.int64


class MaskedVector(SparseVector):
    """A result computed under a mask that the kernel applied exactly: the write-back with
    ``replace`` has nothing left to do.  ``_under_mask`` is a weak reference to that MaskArg
    (the core makes one per operation), so a stored result never keeps old masks alive."""

    __slots__ = ("_under_mask",)


class MaskedCSR(CSR):
    """The matrix counterpart of :class:`MaskedVector`."""

    __slots__ = ("_under_mask",)


def under_mask(data, mask_ref):
    """``data`` marked as computed exactly under the mask ``mask_ref`` (a weak reference)."""
    if mask_ref is None:
        return data
    if isinstance(data, SparseVector):
        out = MaskedVector(data.size, data.dtype, data.indices, data.values)
    else:
        out = MaskedCSR(data.nrows, data.ncols, data.dtype, data.indptr, data.indices,
                        data.values)
    out._under_mask = mask_ref
    return out


def i64(x):
    """An int64 kernel argument."""
    return I64(x)


def _fn(program, *args):
    """The single kernel of ``program(*args)``."""
    return jit.compiled(program, *args).fns[0]


# -- scans and structure ---------------------------------------------------------------------

def exclusive_scan(x):
    """``out[0] = 0, out[k + 1] = x[0] + ... + x[k]`` as int64 (length ``len(x) + 1``)."""
    out = cp.zeros(x.shape[0] + 1, dtype=INDEX)
    if x.shape[0]:  # a cast or a copy, then CUB's scan in place (nothing compiled by CuPy)
        arrays.inclusive_scan_(arrays.convert_into(x, out[1:]))
    return out


_read_total = 0


def host_reads():
    """How many times the backend has waited for the GPU to read a count or a size (the
    synchronizations the engine documents; tests assert them)."""
    return _read_total


def count_host_read():
    global _read_total
    _read_total += 1


_staging = None  # page-locked host bytes for small reads, grown as needed
_staging_lock = threading.Lock()  # the copy releases the GIL while it waits


def read_small(arr):
    """A small device array's values on the host (a NumPy copy), through a reused
    page-locked buffer: a copy into pageable memory is staged by the driver and costs
    several microseconds more.  One synchronization, counted."""
    global _staging
    nbytes = arr.nbytes
    with _staging_lock:
        if _staging is None or _staging.nbytes < nbytes:
            _staging = empty_pinned(max(nbytes, 256), np.uint8)
        host = _staging[:nbytes].view(arr.dtype)
        arr.get(out=host)
        out = host.copy()
    count_host_read()
    return out


def total(scan):
    """The last element of a scan, on the host: one synchronization, sizing an output."""
    return int(read_small(scan[-1:])[0])


def expand(scan, n, count, want_occ=True):
    """For ``count`` outputs described by the exclusive scan ``scan`` of ``n`` counts: the source
    of each output and (``want_occ``) its rank within its source."""
    src = cp.empty(count, dtype=INDEX)
    occ = cp.empty(count, dtype=INDEX) if want_occ else None
    if count:
        jit.launch(_fn(programs.structure, "gbk_expand"), count,
                   (i64(count), i64(n), scan, src, occ))
    return src, occ


def row_ids(A):
    """The row of every entry of a CSR matrix."""
    rows, _ = expand(A.indptr, A.nrows, A.nvals, want_occ=False)
    return rows


_NO_BOUND = np.iinfo(np.int64).max


def degree_classes(indptr, n, bounds, also=_NO_BOUND):
    """The rows of a CSR structure by degree class: class c holds the rows whose degree is in
    [bounds[c], bounds[c + 1]) (c = 0..3; a bound of None is no bound), each class in
    increasing row order, all in one array.  Returns (that array, the four classes' sizes,
    the number of rows of degree >= ``also``).  Two passes over the row pointers
    (gbk_degree_classes_*), a scan of the per-window counts, one synchronization."""
    bounds = [i64(_NO_BOUND if b is None else b) for b in bounds]
    nwin = (n + 31) // 32
    wcount = cp.empty((nwin, 4), dtype=INDEX)
    big = cp.zeros(1, dtype=cp.uint64)
    if n:
        jit.launch_warps(_fn(programs.structure, "gbk_degree_classes_count"), nwin,
                         (i64(n), indptr, *bounds, i64(also), wcount, big))
    # the columns' scans, totals and offsets by catalogue kernels (arrays.cuh): CuPy's
    # cumsum along an axis and its arithmetic compile on first use
    inclusive = cp.empty((nwin, 4), dtype=INDEX)
    totals = cp.zeros(5, dtype=INDEX)
    if nwin:
        jit.run(_fn(programs.array_kernel, "scan_columns4"), 1, 1024,
                (i64(nwin), wcount, inclusive))
        arrays.copy_into(inclusive[-1], totals[:4])
    arrays.copy_into(big.view(INDEX), totals[4:])
    host = read_small(totals)
    sizes = [int(x) for x in host[:4]]
    starts = np.concatenate([[0], np.cumsum(sizes[:3])]).astype(np.int64)
    classes = cp.empty(sum(sizes), dtype=INDEX)
    if classes.shape[0]:
        offsets = cp.empty((nwin, 4), dtype=INDEX)  # each window's place in its class
        jit.launch(_fn(programs.array_kernel, "window_offsets4"), 4 * nwin,
                   (i64(nwin), inclusive, wcount, *(i64(s) for s in starts), offsets))
        jit.launch_warps(_fn(programs.structure, "gbk_degree_classes_fill"), nwin,
                         (i64(n), indptr, *bounds, offsets, classes))
    return classes, sizes, int(host[4])


def indptr_from_sorted_rows(rows, nrows):
    """CSR row pointers from the (sorted) row of every entry: the length of each row's run,
    written where the run ends (gbk_row_run_firsts / gbk_row_run_lengths), then scanned."""
    indptr = cp.zeros(nrows + 1, dtype=INDEX)
    n = rows.shape[0]
    if n:
        rows = arrays.astype(rows, INDEX)
        first = cp.empty(nrows, dtype=INDEX)
        count = cp.zeros(nrows, dtype=INDEX)
        jit.launch(_fn(programs.structure, "gbk_row_run_firsts"), n, (i64(n), rows, first))
        jit.launch(_fn(programs.structure, "gbk_row_run_lengths"), n,
                   (i64(n), rows, first, count))
        arrays.convert_into(arrays.inclusive_scan_(count), indptr[1:])
    return indptr


def pair_flags(kernel_name, rows, cols):
    """Run starts ("gbk_pair_run_starts") or ends ("gbk_pair_run_ends") of sorted pairs."""
    n = rows.shape[0]
    flags = cp.empty(n, dtype=cp.uint8)
    if n:
        jit.launch(_fn(programs.structure, kernel_name), n, (i64(n), rows, cols, flags))
    return flags


def rows_strictly_increasing(indptr, indices, nrows):
    """Whether the column indices of every row of CSR arrays strictly increase (sorted, no
    duplicates), without a per-entry row array.  One synchronization (the answer)."""
    n = indices.shape[0]
    if n == 0:
        return True
    unsorted = cp.zeros(1, dtype=cp.uint8)
    jit.launch(_fn(programs.structure, "gbk_csr_unsorted"), n,
               (i64(n), i64(nrows), indptr, indices, unsorted))
    return not int(unsorted[0])


def sort_pairs(rows, cols, nrows, ncols):
    """The stable permutation that sorts (rows, cols) in row-major order.

    One radix sort of ``row * ncols + col`` when that fits in int64, else two stable sorts
    (by column, then by row)."""
    if nrows * ncols < 2**62:
        return arrays.argsort(arrays.pair_key(rows, cols, ncols), consume=True)
    order = arrays.argsort(cols)
    return arrays.take(order, arrays.argsort(arrays.take(rows, order), consume=True))


def cast_values(values, from_type, to_type):
    """``values`` cast with GraphBLAS rules (one kernel)."""
    if from_type is to_type:
        return values
    n = values.shape[0]
    out = cp.empty(n, dtype=to_type.np_type)
    if n:
        jit.launch(_fn(programs.cast, from_type, to_type), n,
                   (i64(n), None, i64(0), None, values, out, np.int8(0)))
    return out


def with_values(like, values, dtype):
    """The structure of ``like`` with new values (a mask mark is kept: the structure is)."""
    if isinstance(like, SparseVector):
        out = SparseVector(like.size, dtype, like.indices, values)
    else:
        out = CSR(like.nrows, like.ncols, dtype, like.indptr, like.indices, values)
    return under_mask(out, getattr(like, "_under_mask", None))


def compact_entries(like, flags, dtype=None, values=None):
    """The entries of ``like`` (CSR or vector) whose flag is set, in order; ``values``
    replaces like's values.  One synchronization (the number kept)."""
    values = like.values if values is None else values
    dtype = like.dtype if dtype is None else dtype
    scan = exclusive_scan(flags)
    count = total(scan)
    out_idx = cp.empty(count, dtype=INDEX)
    out_vals = cp.empty(count, dtype=dtype.np_type)
    n = like.indices.shape[0]
    if count:
        jit.launch(_fn(programs.merge_kept, dtype), n,
                   (i64(n), like.indices, values, flags, scan, None, None, out_idx, out_vals))
    if isinstance(like, SparseVector):
        return SparseVector(like.size, dtype, out_idx, out_vals)
    return CSR(like.nrows, like.ncols, dtype, arrays.take(scan, like.indptr), out_idx,
               out_vals)


def indptr_or_none(data):
    return None if isinstance(data, SparseVector) else data.indptr


def nrows_of(data):
    return 1 if isinstance(data, SparseVector) else data.nrows


def mask_allows(mask, X, invert=False):
    """Whether ``mask`` (a MaskArg of X's shape) lets each entry of X be written, as uint8
    (``invert``: whether it does not)."""
    M = mask.data
    vec = isinstance(X, SparseVector)
    n = X.indices.shape[0]
    allowed = cp.empty(n, dtype=cp.uint8)
    if n:
        jit.launch(_fn(programs.mask_allows, vec), n,
                   (i64(n), indptr_or_none(X), i64(nrows_of(X)), X.indices, indptr_or_none(M),
                    i64(M.indices.shape[0]), M.indices,
                    M.values if programs.mask_kind(mask) else None,  # read for value masks only
                    np.int32(programs.mask_kind(mask)),
                    np.int32(1 if mask.complement != invert else 0), allowed))
    return allowed


def match(X, Y):
    """For each entry of X: its lower-bound position in Y within the same row, and whether Y
    has that position (X and Y are CSR matrices of one shape, or vectors of one size)."""
    vec = isinstance(X, SparseVector)
    n = X.indices.shape[0]
    pos = cp.empty(n, dtype=INDEX)
    found = cp.empty(n, dtype=cp.uint8)
    if n:
        jit.launch(_fn(programs.match, vec), n,
                   (i64(n), indptr_or_none(X), i64(nrows_of(X)), X.indices, indptr_or_none(Y),
                    i64(Y.indices.shape[0]), Y.indices, pos, found))
    return pos, found
