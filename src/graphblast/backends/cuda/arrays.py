"""Array steps that compile nothing at run time: the catalogue's kernels of ``arrays.cuh``,
CUB's precompiled scan, and plain memory copies and sets.

CuPy compiles its element-wise and reduction kernels (``astype``, ``copy``, ``full``,
``arange``, ``count_nonzero``, ``flatnonzero``, fancy indexing, ``cumsum`` with a cast, ...) on
their first use in a process, about 0.3 s each on an empty cache: a user's first call would
wait for them.  The backend's paths take these steps here instead.  Every function works on
1-D contiguous arrays on the current device and stream, like the CuPy call it replaces.
"""

import cupy as cp
import numpy as np

from ...dtypes import lookup_dtype
from . import jit, programs

INDEX = np.int64
_CUMSUM = None


def _fn(name, *dtypes):
    return jit.compiled(programs.array_kernel, name,
                        *(lookup_dtype(np.dtype(d)) for d in dtypes)).fns[0]


def _n(n):
    return np.int64(n)


def copy(x):
    """A copy of ``x`` (a device-to-device memcpy; CuPy's own copy of a strided view)."""
    if not x.flags.c_contiguous:
        return x.copy()
    out = cp.empty_like(x)
    if x.size:
        out.data.copy_from_device_async(x.data, x.nbytes)
    return out


def copy_into(x, out):
    """``out[...] = x`` for arrays of one type and shape (a memcpy where both are
    contiguous)."""
    if x.flags.c_contiguous and out.flags.c_contiguous and x.dtype == out.dtype:
        if x.size:
            out.data.copy_from_device_async(x.data, x.nbytes)
    else:
        out[...] = x
    return out


def astype(x, dtype, copy_same=False):
    """``x.astype(dtype, copy=copy_same)`` with GraphBLAS's casts (to bool is ``!= 0``; a
    float to an integer saturates, NaN to 0)."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return copy(x) if copy_same else x
    out = cp.empty(x.shape, dtype=dtype)
    if x.size:
        jit.launch(_fn("convert", x.dtype, dtype), x.size, (_n(x.size), x, out))
    return out


def convert_into(x, out):
    """``out[...] = x`` cast to ``out``'s type (both contiguous, of one length)."""
    if x.dtype == out.dtype:
        if x.size:
            out.data.copy_from_device_async(x.data, x.nbytes)
    elif x.size:
        jit.launch(_fn("convert", x.dtype, out.dtype), x.size, (_n(x.size), x, out))
    return out


def full(n, value, dtype):
    """``cp.full(n, value, dtype)``; zeros by a memset."""
    dtype = np.dtype(dtype)
    value = np.asarray(value).astype(dtype)[()]
    if not any(value.tobytes()):  # all bits zero (not -0.0)
        return cp.zeros(n, dtype=dtype)
    out = cp.empty(n, dtype=dtype)
    if n:
        jit.launch(_fn("fill", dtype), n, (_n(n), value, out))
    return out


def broadcast(n, value):
    """``n`` copies of the one-element device array ``value`` (no read of it)."""
    out = cp.empty(n, dtype=value.dtype)
    if n:
        jit.launch(_fn("broadcast", value.dtype), n, (_n(n), value, out))
    return out


def arange(n, dtype=INDEX, start=0, step=1):
    """``start + step * cp.arange(n)`` of ``dtype``."""
    dtype = np.dtype(dtype)
    out = cp.empty(n, dtype=dtype)
    if n:
        cast = dtype.type
        jit.launch(_fn("iota", dtype), n, (_n(n), cast(start), cast(step), out))
    return out


def count_nonzero(x, out=None, other_than=0):
    """The number of nonzero entries of ``x`` (of entries other than ``other_than``) as a
    one-element uint64 device array (``out`` where given: a contiguous one-element uint64
    view); no synchronization here."""
    if out is None:
        out = cp.zeros(1, dtype=np.uint64)
    else:
        out.data.memset_async(0, out.nbytes)
    if x.size:
        jit.launch(_fn("count_nonzero", x.dtype), x.size,
                   (_n(x.size), x, x.dtype.type(other_than), out))
    return out


def inclusive_scan_(x):
    """Prefix sums of ``x`` in place (CUB's device scan, compiled into CuPy)."""
    global _CUMSUM
    if _CUMSUM is None:
        from cupy.cuda import cub

        _CUMSUM = (cub.device_scan, cub.CUPY_CUB_CUMSUM)
    if x.size:
        _CUMSUM[0](x, _CUMSUM[1])
    return x


def flatnonzero(x):
    """``cp.flatnonzero(x)``: the positions of the nonzero entries of ``x``, in order, as
    int64 (one host synchronization: reading the count)."""
    n = x.size
    if not n:
        return cp.empty(0, dtype=INDEX)
    flags = cp.empty(n, dtype=INDEX)
    jit.launch(_fn("nonzero_flags", x.dtype), n, (_n(n), x, flags))
    return positions_of_flags(flags)


def find_sorted(keys, queries):
    """``(at, keep)``: for each query its position in the sorted, distinct ``keys``
    (clamped to the last), and the queries found there, in order (``cp.searchsorted``, then
    a compaction: one host synchronization, reading the count)."""
    n = queries.size
    at = cp.empty(n, dtype=INDEX)
    flags = cp.empty(n, dtype=INDEX)
    if n:
        jit.launch(_fn("find_sorted", keys.dtype, queries.dtype), n,
                   (_n(n), keys, _n(keys.size), queries, at, flags))
    return at, positions_of_flags(flags)


def search_sorted(keys, queries, side="left"):
    """``cp.searchsorted(keys, queries, side)`` for 1-D contiguous keys and queries of one
    integer type (int32 or int64), as int64."""
    n = queries.size
    out = cp.empty(n, dtype=INDEX)
    if n:
        jit.launch(_fn("search_sorted", keys.dtype), n,
                   (_n(n), keys, _n(keys.size), queries, np.int32(side == "right"), out))
    return out


def positions_of_flags(flags):
    """The positions where the int64 0/1 ``flags`` are 1, in order (scanned in place)."""
    n = flags.size
    if not n:
        return cp.empty(0, dtype=INDEX)
    inclusive_scan_(flags)
    from . import blocks

    blocks.count_host_read()
    count = int(flags[-1].get())
    out = cp.empty(count, dtype=INDEX)
    if count:
        jit.launch(jit.compiled(programs.array_kernel, "compact_positions").fns[0], n,
                   (_n(n), flags, out))
    return out


def pair_key(rows, cols, ncols):
    """``rows * ncols + cols`` as int64 (the row-major sort key of coordinates)."""
    n = rows.size
    out = cp.empty(n, dtype=INDEX)
    if n:
        jit.launch(_fn("pair_key", rows.dtype, cols.dtype), n,
                   (_n(n), rows, cols, _n(ncols), out))
    return out


def indptr_union(a, b, s):
    """``a + b - s[a]``: the row pointers of a union (arrays of int64)."""
    out = cp.empty(a.size, dtype=INDEX)
    if a.size:
        jit.launch(jit.compiled(programs.array_kernel, "indptr_union").fns[0], a.size,
                   (_n(a.size), a, b, s, out))
    return out


def indptr_kept(s, a, t, c):
    """``s[a] + t[c]``: the row pointers of the kept entries of two matrices (int64)."""
    out = cp.empty(a.size, dtype=INDEX)
    if a.size:
        jit.launch(jit.compiled(programs.array_kernel, "indptr_kept").fns[0], a.size,
                   (_n(a.size), s, a, t, c, out))
    return out


def count_unmapped(inv, J):
    """The number of i with ``inv[J[i]] != i`` (one-element uint64 device array)."""
    out = cp.zeros(1, dtype=np.uint64)
    if J.size:
        jit.launch(_fn("count_unmapped", inv.dtype), J.size, (_n(J.size), inv, J, out))
    return out


def descending_key(x):
    """An integer or bool array whose ascending order is ``x``'s descending order (``~x``;
    a bool array as uint8), for a stable descending sort."""
    if x.dtype == np.bool_:
        x = x.view(np.uint8)
    out = cp.empty_like(x)
    if x.size:
        jit.launch(_fn("bitnot", x.dtype), x.size, (_n(x.size), x, out))
    return out


def chunks_of_rows(indptr, rows, chunk):
    """``ceil((indptr[rows + 1] - indptr[rows]) / chunk)``: each listed row's chunks."""
    out = cp.empty(rows.size, dtype=INDEX)
    if rows.size:
        jit.launch(jit.compiled(programs.array_kernel, "chunks_of_rows").fns[0], rows.size,
                   (_n(rows.size), indptr, rows, _n(chunk), out))
    return out


def chunk_starts(indptr, rows, src, occ, chunk):
    """``(rows[src], indptr[rows[src]] + occ * chunk)``: each chunk's row and first entry."""
    n = src.size
    out_rows, starts = cp.empty(n, dtype=INDEX), cp.empty(n, dtype=INDEX)
    if n:
        jit.launch(jit.compiled(programs.array_kernel, "chunk_starts").fns[0], n,
                   (_n(n), indptr, rows, src, occ, _n(chunk), out_rows, starts))
    return out_rows, starts


def count_unequal(bits_a, bits_b, a, b, dtype):
    """The positions where two dense vectors differ, their values compared in ``dtype``
    (see gbk_count_unequal), as a Python int (one host read)."""
    a, b = astype(a, dtype), astype(b, dtype)
    out = cp.zeros(1, dtype=np.uint64)
    if a.size:
        jit.launch(_fn("count_unequal", a.dtype), a.size,
                   (_n(a.size), bits_a, bits_b, a, b, out))
    return int(out.get()[0])


def row_sums_of_scan(indptr, scan):
    """``scan[indptr[1:]] - scan[indptr[:-1]]`` (int64)."""
    n = indptr.size - 1
    out = cp.empty(max(n, 0), dtype=INDEX)
    if n > 0:
        jit.launch(jit.compiled(programs.array_kernel, "row_sums_of_scan").fns[0], n,
                   (_n(n), indptr, scan, out))
    return out


def positions_at_least(x, lo):
    """The positions of ``x >= lo``, in order (one host synchronization)."""
    flags = cp.empty(x.size, dtype=INDEX)
    if x.size:
        jit.launch(_fn("flags_at_least", x.dtype), x.size,
                   (_n(x.size), x, x.dtype.type(lo), flags))
    return positions_of_flags(flags)


def rank_in_group(group, scan):
    """``arange(n) - scan[group]``: each item's rank in its group."""
    out = cp.empty(group.size, dtype=INDEX)
    if group.size:
        jit.launch(jit.compiled(programs.array_kernel, "rank_in_group").fns[0], group.size,
                   (_n(group.size), group, scan, out))
    return out


def concatenate(parts):
    """``cp.concatenate(parts)`` of 1-D arrays of one type (a memcpy each into the result;
    CuPy's concatenate is an element-wise kernel)."""
    if len(parts) == 1:
        return parts[0]
    out = cp.empty(sum(p.size for p in parts), dtype=parts[0].dtype)
    at = 0
    for p in parts:
        copy_into(p, out[at:at + p.size])
        at += p.size
    return out


def take(x, index):
    """``x[index]`` for an integer index array (no bounds check: callers pass valid ones)."""
    out = cp.empty(index.size, dtype=x.dtype)
    if index.size:
        jit.launch(_fn("gather", x.dtype, index.dtype), index.size,
                   (_n(index.size), x, index, out))
    return out


def put(out, index, values):
    """``out[index] = values`` for distinct integer indices."""
    if index.size:
        jit.launch(_fn("scatter", values.dtype, index.dtype), index.size,
                   (_n(index.size), values, index, out))
    return out


def adjacent_diff(x):
    """``x[1:] - x[:-1]`` (row lengths from row pointers)."""
    n = max(0, x.size - 1)
    out = cp.empty(n, dtype=x.dtype)
    if n:
        jit.launch(_fn("adjacent_diff", x.dtype), n, (_n(n), x, out))
    return out


def pack(*xs):
    """One int64 device array of the one-element integer device arrays ``xs`` (64-bit each),
    for one host read of several counts (the copies are device-to-device memcpys)."""
    out = cp.empty(len(xs), dtype=INDEX)
    for k, x in enumerate(xs):
        if x.dtype.itemsize != 8 or x.dtype.kind not in "iu":
            x = astype(x.reshape(1), INDEX)
        out[k:k + 1].data.copy_from_device_async(x.data, 8)
    return out


def degree_key(indptr, indptr_t, key_type):
    """The sort key of the degree order (gbk_degree_key): ``~degree``, or with the
    transpose's row pointers ``~(2 * degree + has an in-edge)``."""
    n = indptr.size - 1
    out = cp.empty(n, dtype=key_type)
    if n:
        jit.launch(_fn("degree_key", key_type), n, (_n(n), indptr, indptr_t, out))
    return out


def rank_of_order(order, last, dtype):
    """``rank[order[i]] = min(i, last)`` for a permutation ``order``."""
    n = order.size
    rank = cp.empty(n, dtype=dtype)
    if n:
        jit.launch(_fn("rank_of_order", dtype), n, (_n(n), order, _n(last), rank))
    return rank


def lengths_of_rows(indptr, rows):
    """``indptr[rows + 1] - indptr[rows]``."""
    out = cp.empty(rows.size, dtype=INDEX)
    if rows.size:
        jit.launch(jit.compiled(programs.array_kernel, "lengths_of_rows").fns[0], rows.size,
                   (_n(rows.size), indptr, rows, out))
    return out


def argsort(x, consume=False):
    """``cp.argsort(x)`` of a 1-D array (Thrust's stable sort, compiled into CuPy; CuPy's own
    argsort first copies ``x`` with an element-wise kernel).  With ``consume``, ``x`` itself
    is sorted in place (the caller has no further use for it)."""
    from cupy.cuda import thrust

    data = x if consume else copy(x)
    idx = cp.empty(x.size, dtype=np.intp)
    if x.size:
        thrust.argsort(x.dtype, idx.data.ptr, data.data.ptr, 0, (x.size,))
    return idx
