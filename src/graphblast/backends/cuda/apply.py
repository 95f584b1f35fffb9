"""apply, select and the reductions on the GPU (kernels/apply.cuh, kernels/reduce.cuh)."""

import cupy as cp
import numpy as np

from ...dtypes import INT64
from ..base import CSR, RANGE_SELECTS, SparseVector
from . import arrays, blocks, jit, programs, recording
from .blocks import INDEX, i64
from .vectors import Counters, ListVector


def _map(A, op, extra, param):
    """op applied to every stored value of A (matrix or vector), as an array of its result."""
    vec = isinstance(A, SparseVector)
    (fn,) = jit.compiled(programs.map_op, op, A.dtype, extra, vec).fns
    n = A.indices.shape[0]
    z = cp.empty(n, dtype=op.return_type.np_type)
    if n:
        jit.launch(fn, n, (i64(n), blocks.indptr_or_none(A), i64(blocks.nrows_of(A)), A.indices,
                           A.values, z, param))
    return z


def thunk_param(op, thunk):
    """An index-unary operator's thunk as ``(extra, kernel argument)`` (jit.bound): a value of
    the operator's type left on the device goes by pointer; a positional operator's thunk
    (an index) is an INT64 on the host."""
    if op.uses_value:
        return jit.bound("thunk", thunk, op.type)
    return "thunk", jit.scalar(thunk, INT64)


def apply(A, op, left=None, right=None, thunk=None):
    """A unary op; a binary op with a bound ``left`` or ``right`` scalar; or an index-unary op
    with ``thunk``.  For a Vector, an entry's position is (index, 0)."""
    kind = op.opclass
    if kind == "UnaryOp":
        z = _map(A, op, None, np.int8(0))
    elif kind == "BinaryOp":
        if left is not None:
            z = _map(A, op, *jit.bound("left", left, op.type))
        else:
            z = _map(A, op, *jit.bound("right", right, op.type2))
    else:
        z = _map(A, op, *thunk_param(op, thunk))
    return blocks.with_values(A, z, op.return_type)


def select(A, op, thunk):
    """The entries for which an index-unary predicate is true."""
    if isinstance(A, CSR):
        if op.parent.builtin_name in RANGE_SELECTS:
            return _select_columns(A, op.name, int(thunk))
        if op.parent.builtin_name == "diag":
            # column i + k of each row i: the range j >= i + k, then of it j <= i + k.  Two
            # range selects keep a compact matrix compact, where a flag per entry would read
            # (and for an iso matrix first make) a value per entry of the whole matrix
            k = int(thunk)
            return _select_columns(_select_columns(A, "triu", k), "tril", k)
    keep = _map(A, op, *thunk_param(op, thunk))
    return blocks.compact_entries(A, keep)


# Rows whose kept range is longer than this are copied by a block each, not a warp.
LONG_RANGE = 4096


def _select_columns(A, name, k):
    """select.colle, colgt, tril or triu of a CSR matrix: each sorted row keeps one
    contiguous range, found by a binary search, so no flag per entry is made; the column
    indices keep their stored width and an iso matrix stays iso (a graph's sample costs its
    kept entries, and triangle counting's L a copy of half the graph, not a widened copy of
    the whole).  One synchronization (the entry count and the number of long rows, read
    together)."""
    n = A.nrows
    low, first_cut, row_step = RANGE_SELECTS[name]
    # clamped so that every row's cut, the base plus at most n, stays far inside int64
    cut = min(max(first_cut(k), -n), A.ncols)
    col = A.stored_indices
    iso = A.pattern_value
    vals = None if iso is not None else A.values
    word = np.dtype(A.dtype.np_type).itemsize
    fn_cut, fn_copy = jit.compiled(programs.column_select, col.dtype == np.int32, word).fns
    first = cp.empty(n, dtype=INDEX)
    count = cp.empty(n, dtype=INDEX)
    # the rows keeping more than LONG_RANGE entries: at most this many
    long_rows = cp.empty(A.nvals // (LONG_RANGE + 1) + 1, dtype=INDEX)
    nlong = cp.zeros(1, dtype=cp.uint64)
    if n:
        jit.launch(fn_cut, n, (i64(n), A.indptr, col, i64(cut), i64(row_step), np.int32(low),
                               i64(LONG_RANGE), first, count, long_rows, nlong))
    out_ptr = blocks.exclusive_scan(count)
    total, nlong = (int(x) for x in blocks.read_small(arrays.pack(out_ptr[-1], nlong)))
    out_col = cp.empty(total, dtype=col.dtype)
    out_vals = None if vals is None else cp.empty(total, dtype=vals.dtype)
    if total:
        words = (lambda v: None if v is None else v.view(f"u{word}"))
        tail = (first, out_ptr, col, words(vals), i64(LONG_RANGE), out_col, words(out_vals))
        jit.launch_warps(fn_copy, (n + 31) // 32, (i64(n), None, *tail))
        if nlong:
            jit.run(fn_copy, min(nlong, jit.MAX_GRID), 256, (i64(nlong), long_rows, *tail))
    return CSR(n, A.ncols, A.dtype, out_ptr, out_col, out_vals, iso_value=iso)


# Average segment length from which a warp per segment beats a thread per segment.
WARP_SEGMENT = 8


def reduce_segments(values, a_type, offsets, seg_ids, nseg, nvals, monoid):
    """The monoid over each non-empty segment ``offsets[k] : offsets[k + 1]``, k = seg_ids[s]
    (or s when seg_ids is None)."""
    if nseg and getattr(monoid.parent, "in_order", False):
        if seg_ids is not None:  # the non-empty segments' ranges are adjacent, and the
            # last one ends where the last segment does (the empty ones after it end there)
            offsets = arrays.concatenate([arrays.take(offsets, seg_ids), offsets[-1:]])
        return _fold(values, a_type, offsets, nseg, monoid)
    out = cp.empty(nseg, dtype=monoid.return_type.np_type)
    if nseg:
        warp = nvals >= WARP_SEGMENT * nseg
        (fn,) = jit.compiled(programs.reduce_segments, monoid, a_type, warp).fns
        args = (i64(nseg), offsets, seg_ids, values, out)
        if warp:
            jit.launch_warps(fn, nseg, args)
        else:
            jit.launch(fn, nseg, args)
    return out


def _fold(values, a_type, offsets, nseg, monoid):
    """Each segment folded left to right, one thread a segment: the reductions of a monoid
    that is not exactly associative in floating point and reduces in NumPy's order
    (``monoid.numpy.logaddexp``, ``hypot``: python-graphblas compares with NumPy's
    ``ufunc.reduce``, a left fold)."""
    t = monoid.return_type
    vals = blocks.cast_values(values, a_type, t)
    (fn,) = jit.compiled(programs.fold, monoid.binaryop, t).fns
    out = cp.empty(nseg, dtype=t.np_type)
    jit.launch(fn, nseg, (i64(nseg), offsets, vals, out))
    return out


def reduce_rowwise(A, monoid):
    """Each non-empty row reduced with the monoid.  One synchronization (the rows that have
    entries)."""
    rows = arrays.flatnonzero(arrays.adjacent_diff(A.indptr))
    out = reduce_segments(A.values, A.dtype, A.indptr, rows, rows.shape[0], A.nvals, monoid)
    return SparseVector(A.nrows, monoid.return_type, rows, out)


def reduce_scalar(A, monoid, keep=False):
    """A NumPy scalar, or None when A has no entries.  ``keep``: the value of a non-empty A
    stays on the device, a one-element array of the monoid's type (no synchronization)."""
    rec = recording.thread.rec
    if keep and rec is not None and isinstance(A, ListVector) \
            and not getattr(monoid.parent, "in_order", False):
        # a dry round reads the count, as a round issued from Python would: an empty list
        # has no value (and launches nothing, so that no capture is made of that round)
        if not rec.capturing and A.nvals == 0:
            return None
        return _reduce_list(A, monoid)
    n = A.nvals
    if n == 0:
        return None
    t = monoid.return_type
    if monoid.parent.builtin_name == "any":
        first = blocks.cast_values(A.values[:1], A.dtype, t)
        if not keep:
            return first.get()[0]
        # kept: its own copy, not a view of A's values (A may change in place later)
        return arrays.copy(first) if A.dtype is t else first
    if getattr(monoid.parent, "in_order", False):
        out = _fold(A.values, A.dtype, cp.asarray(np.array([0, n], dtype=INDEX)), 1, monoid)
        return out if keep else out.get()[0]
    return reduce_values(A.values, A.dtype, None, monoid, keep)


def _reduce_list(A, monoid):
    """A kept reduction of a non-empty list in a loop's dry rounds, and of a list in its
    captured round (the same kernel, gbk_reduce_list, whose last block folds the partials):
    its count is read on the device, never by the host, so a replay whose list is empty
    gives the monoid's identity rather than no value."""
    cap = A.idx.shape[0]
    t = monoid.return_type
    nblocks, part, part_have, result = partials(t, cap)
    ticket = Counters()  # a zeroed word (the graph's while capturing), left zeroed
    (fn,) = jit.compiled(programs.reduce_list, monoid, A.dtype).fns
    value = result[:t.np_type.itemsize].view(t.np_type)
    jit.run(fn, nblocks, jit.BLOCK, (i64(cap), A.counters.array, A.vals, part, part_have,
                                     ticket.array, value, result[8:]))
    return value


def reduce_values(values, a_type, present, monoid, keep=False):
    """The monoid over ``values`` (only where ``present``, when given) as a NumPy scalar, or
    None when nothing is present: two passes of gbk_reduce_all, and one transfer (the value
    and whether there is one, read together).  ``keep``, where every one of the (at least
    one) values is present: no transfer, the value as a one-element device array."""
    n = values.shape[0]
    nblocks, part, part_have, result = partials(monoid.return_type, n)
    (fn,) = jit.compiled(programs.reduce_all, monoid, a_type).fns
    jit.run(fn, nblocks, jit.BLOCK, (i64(n), values, present, part, part_have))
    return finish_reduction(monoid, nblocks, part, part_have, result,
                            keep and present is None and n)


def partials(t, n):
    """(blocks, partials, their flags, result) for a whole-array reduction of ``n`` entries
    into type ``t``, in one allocation: each block's partial value and whether it had an
    entry, and the 9-byte result (an 8-byte slot for the value, then whether there is one)."""
    nblocks = jit.grid_for(n)
    size = t.np_type.itemsize
    at = -(-nblocks * size // 8) * 8  # the result's value slot, 8-byte aligned
    buf = cp.empty(at + 9 + nblocks, dtype=cp.uint8)
    return (nblocks, buf[:nblocks * size].view(t.np_type), buf[at + 9:], buf[at:at + 9])


def finish_reduction(monoid, nblocks, part, part_have, result, keep):
    """The partials of a whole-array reduction (:func:`partials`) folded by one block: the
    value as a NumPy scalar, None when no block had an entry (one transfer), or, with
    ``keep`` (the caller knows there is one), a one-element device array (no transfer)."""
    t = monoid.return_type
    value = result[:t.np_type.itemsize].view(t.np_type)
    (fin,) = jit.compiled(programs.reduce_all, monoid, t).fns
    jit.run(fin, 1, jit.BLOCK, (i64(nblocks), part, part_have, value, result[8:]))
    if keep:
        return value
    host = blocks.read_small(result)
    return host[:t.np_type.itemsize].view(t.np_type)[0] if host[8] else None


def value_range(values, a_type, present):
    """(smallest, largest) of integer ``values`` (only where ``present``, when given) as
    NumPy scalars, or None when nothing is present: one pass of gbk_value_range over the
    values, one over its partials, and one transfer."""
    n = values.shape[0]
    nblocks = jit.grid_for(n)
    t = a_type.np_type
    lo, hi = cp.empty(nblocks, dtype=t), cp.empty(nblocks, dtype=t)
    have = cp.empty(nblocks, dtype=cp.uint8)
    result = cp.empty(17, dtype=cp.uint8)  # two 8-byte slots, then "have"
    out_lo, out_hi = (result[at:at + t.itemsize].view(t) for at in (0, 8))
    (fn,) = jit.compiled(programs.value_range, a_type).fns
    jit.run(fn, nblocks, jit.BLOCK, (i64(n), values, values, present, lo, hi, have))
    jit.run(fn, 1, jit.BLOCK, (i64(nblocks), lo, hi, have, out_lo, out_hi, result[16:]))
    host = blocks.read_small(result)
    if not host[16]:
        return None
    return host[:t.itemsize].view(t)[0], host[8:8 + t.itemsize].view(t)[0]
