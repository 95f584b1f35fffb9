"""Vectorized building blocks of the CPU backend: keys, segmented reductions, positions."""

import numpy as np

from ...dtypes import cast

INDEX = np.int64
_KEY_LIMIT = 2**62


def row_ids(indptr, nrows=None):
    """The row of every entry of a CSR structure."""
    if nrows is None:
        nrows = indptr.shape[0] - 1
    counts = np.diff(indptr)
    return np.repeat(np.arange(nrows, dtype=INDEX), counts)


def linear_keys(rows, cols, ncols):
    """Row-major keys ``row * ncols + col`` (sorted when the entries are in CSR order)."""
    return rows.astype(INDEX, copy=False) * INDEX(ncols) + cols.astype(INDEX, copy=False)


def keys_fit(nrows, ncols):
    """Whether row-major int64 keys cannot overflow for this shape."""
    return nrows * ncols < _KEY_LIMIT


def compressed_keys(rows_list, cols_list, nrows, ncols):
    """Row-major keys for several COO sets of one shape, comparable with each other.

    Uses ``row * ncols + col`` when that fits in int64, else ranks the columns that occur (a
    matrix too wide for linear keys still has few distinct columns).
    """
    if nrows == 1:  # a row (a vector's storage): its columns are its keys
        return [c.astype(INDEX, copy=False) for c in cols_list]
    if keys_fit(nrows, ncols):
        return [linear_keys(r, c, ncols) for r, c in zip(rows_list, cols_list)]
    allcols = np.concatenate(cols_list)
    uniq, inverse = np.unique(allcols, return_inverse=True)
    width = INDEX(max(len(uniq), 1))
    out, start = [], 0
    for r, c in zip(rows_list, cols_list):
        out.append(r.astype(INDEX) * width + inverse[start:start + len(c)])
        start += len(c)
    return out


def member(keys, sorted_keys):
    """Boolean array: which ``keys`` occur in ``sorted_keys`` (sorted, unique)."""
    if sorted_keys.shape[0] == 0 or keys.shape[0] == 0:
        return np.zeros(keys.shape[0], dtype=bool)
    pos = np.searchsorted(sorted_keys, keys)
    pos[pos == sorted_keys.shape[0]] = 0
    return sorted_keys[pos] == keys


def segment_starts(sorted_keys):
    """Start offsets of the runs of equal values in a sorted array."""
    n = sorted_keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=INDEX)
    flags = np.empty(n, dtype=bool)
    flags[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=flags[1:])
    return np.flatnonzero(flags)


def segment_reduce(values, starts, monoid):
    """Reduce each segment ``values[starts[k]:starts[k+1]]`` with a typed monoid.

    ``values`` must already have the monoid's type.  Uses the monoid's NumPy ufunc
    (``reduceat``) where it has one, the first element for ``any``, and otherwise a pairwise
    tree of ``np_func`` calls (log2 of the longest segment steps, each vectorized).
    """
    if starts.shape[0] == 0:
        return values[:0]
    if monoid.parent.builtin_name == "any":
        return values[starts]
    ufunc = monoid.np_ufunc
    # IEEE results (inf - inf = nan, overflow to inf) are GraphBLAS's, not warnings
    with np.errstate(all="ignore"):
        if ufunc is not None:
            return ufunc.reduceat(values, starts, dtype=values.dtype)
        return tree_reduce(values, starts, monoid.np_func)


def tree_reduce(values, starts, func):
    """Segmented reduction of an associative ``func`` by pairwise halving."""
    n = values.shape[0]
    seg_len = np.diff(np.append(starts, n))
    seg_id = np.repeat(np.arange(starts.shape[0]), seg_len)
    pos = np.arange(n) - np.repeat(starts, seg_len)  # position within the segment
    vals = values
    length = seg_len
    while True:
        longest = int(length.max()) if length.shape[0] else 0
        if longest <= 1:
            break
        # pair element 2p with 2p+1 inside each segment
        even = (pos % 2 == 0)
        partner = np.flatnonzero(even) + 1
        has_partner = np.zeros(n, dtype=bool)
        ok = partner < n
        idx_even = np.flatnonzero(even)
        ok &= seg_id[np.minimum(partner, n - 1)] == seg_id[idx_even]
        has_partner[idx_even[ok]] = True
        combined = vals[idx_even].copy()
        if ok.any():
            combined[ok] = func(vals[idx_even[ok]], vals[partner[ok]])
        vals = combined
        seg_id = seg_id[idx_even]
        pos = pos[idx_even] // 2
        n = vals.shape[0]
        length = (length + 1) // 2
    return vals


def left_fold(values, starts, func):
    """Segmented left fold ``f(f(f(v0, v1), v2), ...)`` in input order, for operators that are
    not associative (build's ``dup_op``).  Loops over the largest multiplicity only."""
    n = values.shape[0]
    seg_len = np.diff(np.append(starts, n))
    acc = values[starts].copy()
    longest = int(seg_len.max()) if seg_len.shape[0] else 0
    for k in range(1, longest):
        sel = np.flatnonzero(seg_len > k)
        acc[sel] = func(acc[sel], values[starts[sel] + k])
    return acc


def typed_values(values, dtype):
    """``values`` cast to ``dtype`` with GraphBLAS rules."""
    return cast(values, dtype)


def position_values(position, rows_first, cols_first, rows_second, cols_second):
    """The index a positional binary operator returns, as INT64.

    ``position`` is (side, axis, offset); the four arrays give row/column of the first and
    second operand of each product."""
    side, axis, offset = position
    if side == "first":
        arr = rows_first if axis == "i" else cols_first
    else:
        arr = rows_second if axis == "i" else cols_second
    out = arr.astype(INDEX, copy=True)
    if offset:
        out += offset
    return out


def apply_binary(op, x, y, rows_x=None, cols_x=None, rows_y=None, cols_y=None):
    """``op(x, y)`` for a typed binary operator, positional operators included."""
    if op.position is not None:
        return position_values(op.position, rows_x, cols_x, rows_y, cols_y).astype(
            op.return_type.storage_type, copy=False)
    with np.errstate(all="ignore"):
        return op.np_func(cast(x, op.type), cast(y, op.type2))


def mask_allowed(mask, rows, cols, nrows, ncols):
    """For entries at (rows, cols), whether a mask (:class:`MaskArg`) lets them be written."""
    data = mask.data
    mrows, mcols, mvals = coo_of(data)
    if not mask.structural:
        keep = mvals != 0 if mvals.dtype.kind != "b" else mvals
        mrows, mcols = mrows[keep], mcols[keep]
    mkeys, keys = compressed_keys([mrows, rows], [mcols, cols], nrows, ncols)
    inside = member(keys, mkeys)
    return ~inside if mask.complement else inside


def coo_of(data):
    """(rows, cols, values) of a CSR or SparseVector (rows are 0 for a vector)."""
    if hasattr(data, "indptr"):
        return row_ids(data.indptr, data.nrows), data.indices, data.values
    return np.zeros(data.nvals, dtype=INDEX), data.indices, data.values


def positions(data, rows, cols):
    """(i, j) of entries for positional operators: a vector is a column (i = index, j = 0),
    while its storage keys (``coo_of``) treat it as a row."""
    if hasattr(data, "indptr"):
        return rows, cols
    return cols, rows


def shape_of(data):
    if hasattr(data, "indptr"):
        return data.nrows, data.ncols
    return 1, data.size
