"""Edge chunks to a CSR graph, with self-loops and duplicates removed, in bounded memory.

This is GAP's ``MakeCSR`` followed by ``SquishCSR`` (builder.h), done with array operations on
``xp`` and planned so that a graph of billions of edges never needs more than its raw CSR
(the entries before duplicates are removed, a few percent above the final ones) plus a
workspace of ``budget`` entries:

1. Count.  The edge source is run once; each chunk's self-loops are dropped and the degree
   of every endpoint counted.  This gives the raw row offsets.  While the chunks seen so far
   fit in the workspace they are kept, so a graph that fits is generated only once.
2. Scatter (only for graphs larger than the workspace).  The source is run again and every
   entry is written into its row's segment of the raw buffer.
3. Squish.  Ranges of rows whose raw entries fit in the workspace are sorted by
   ``(row, column, weight)`` packed into one uint64 key, duplicates dropped (keeping the
   smallest weight, as ``std::unique`` after GAP's sort by ``(v, w)`` does) and the result
   compacted towards the front of the same buffer.

The edge source is a callable returning an iterator of ``(u, v, w)`` chunks (``w`` is
``None`` for unweighted graphs); calling it twice must give the same chunks.
"""

import numpy as np

from ._device import CSR

# Weights are packed below the column in the sort key; the builder's weights are small
# non-negative integers (GAP's 1..255).
WEIGHT_BITS = 8


def _bits(x):
    """Bits needed to hold the values 0..x-1 (at least 1)."""
    return max(1, (int(x) - 1).bit_length())


def _row_ranges(xp, indptr, nrows, budget, max_span):
    """Consecutive row ranges, each with at most ``budget`` raw entries (or a single row)."""
    ranges = []
    start = 0
    while start < nrows:
        limit = xp.asarray([int(indptr[start]) + budget], dtype=indptr.dtype)
        end = int(xp.searchsorted(indptr, limit, side="right")[0]) - 1
        end = min(max(end, start + 1), start + max_span, nrows)
        ranges.append((start, end))
        start = end
    return ranges


def _pack(xp, out, rows, cols, weights, col_bits):
    """Write the sort keys ``row | column | weight`` (high to low bits) into ``out``.

    The int32 inputs are non-negative, so their uint32 views carry the same bits and the
    keys are built in place, without widened copies.
    """
    out[...] = rows.view(xp.uint32)
    if weights is None:
        out <<= xp.uint64(col_bits)
        out |= cols.view(xp.uint32)
    else:
        out <<= xp.uint64(col_bits)
        out |= cols.view(xp.uint32)
        out <<= xp.uint64(WEIGHT_BITS)
        out |= weights.view(xp.uint32)


def _squish(xp, keys, span, col_bits, weighted):
    """Sort one row range's packed keys and drop duplicates; rows are local (0..span-1).

    Returns ``(counts, cols, weights)``: the entries left per row and the sorted columns
    (with the smallest weight of each duplicate group, the first after sorting).
    """
    keys.sort()
    wbits = xp.uint64(WEIGHT_BITS if weighted else 0)
    first = xp.empty(keys.shape[0], dtype=bool)
    first[:1] = True
    if weighted:
        xp.not_equal(keys[1:] >> wbits, keys[:-1] >> wbits, out=first[1:])
    else:
        xp.not_equal(keys[1:], keys[:-1], out=first[1:])
    keys = keys[first]
    del first
    shift = xp.uint64(col_bits + (WEIGHT_BITS if weighted else 0))
    # Rows are far below 2^63, so the shifted keys can be read as int64 without a copy.
    counts = xp.bincount((keys >> shift).view(xp.int64), minlength=span)
    col_mask = xp.uint64((1 << col_bits) - 1)
    if not weighted:
        return counts, (keys & col_mask).astype(xp.int32), None
    out_cols = ((keys >> wbits) & col_mask).astype(xp.int32)
    out_w = (keys & xp.uint64((1 << WEIGHT_BITS) - 1)).astype(xp.int32)
    return counts, out_cols, out_w


def _directed(xp, u, v, w, symmetrize):
    """Rows, columns and weights of the entries a chunk of edges makes."""
    if not symmetrize:
        return u, v, w
    return (xp.concatenate([u, v]), xp.concatenate([v, u]),
            None if w is None else xp.concatenate([w, w]))


def build_csr(xp, edge_source, n, *, symmetrize=True, weighted=False, budget,
              nrows_from_max_id=False):
    """The CSR graph of an edge source, without self-loops or duplicate entries.

    Parameters
    ----------
    xp : module
        NumPy or CuPy; the chunks and the result live there.
    edge_source : callable
        Returns an iterator of ``(u, v, w)`` chunks: int32 endpoint arrays below ``n`` and an
        int32 weight array in ``[0, 256)`` (or ``None`` when unweighted).
    n : int
        Vertex count bound: every endpoint is below it.
    symmetrize : bool
        Store both directions of every edge (an undirected graph).
    weighted : bool
        Keep weights; a duplicated entry keeps its smallest weight.
    budget : int
        Workspace size, in entries, of one sort (and of the chunks kept between passes).
    nrows_from_max_id : bool
        Size the graph to the largest endpoint seen plus one, as GAP's builder does
        (``FindMaxNodeID``); otherwise the graph has ``n`` vertices.

    Returns
    -------
    CSR
        int64 ``indptr``, int32 sorted ``indices``, int32 ``values`` (or ``None``).
    """
    if xp is not np:
        found = _build_on_device(xp, edge_source, n, symmetrize, weighted, budget,
                                 nrows_from_max_id)
        if found is not None:
            return found
    counts = xp.zeros(n, dtype=xp.int64)
    max_id = 0
    kept, kept_edges, keeping = [], 0, True
    for u, v, w in edge_source():
        if u.size:
            max_id = max(max_id, int(u.max()), int(v.max()))
        loop = u == v
        if bool(loop.any()):
            keep = ~loop
            u, v = u[keep], v[keep]
            w = None if w is None else w[keep]
        counts += xp.bincount(u, minlength=n)
        if symmetrize:
            counts += xp.bincount(v, minlength=n)
        if keeping:
            kept_edges += u.size * (2 if symmetrize else 1)
            if kept_edges <= budget:
                kept.append((u, v, w))
            else:
                kept, keeping = [], False
        del u, v, w, loop

    nrows = max_id + 1 if nrows_from_max_id else n
    counts = counts[:nrows]
    indptr = xp.zeros(nrows + 1, dtype=xp.int64)
    xp.cumsum(counts, out=indptr[1:])
    col_bits = _bits(n)
    max_span = 1 << min(40, 64 - col_bits - (WEIGHT_BITS if weighted else 0))
    ranges = _row_ranges(xp, indptr, nrows, budget, max_span)

    if keeping and len(ranges) == 1:
        # Everything fits in one sort: no raw buffer, no second pass.
        keys = xp.empty(int(indptr[-1]), dtype=xp.uint64)
        at = 0
        for u, v, w in kept:
            _pack(xp, keys[at:at + u.shape[0]], u, v, w, col_bits)
            at += u.shape[0]
            if symmetrize:
                _pack(xp, keys[at:at + u.shape[0]], v, u, w, col_bits)
                at += u.shape[0]
        del kept
        new_counts, indices, values = _squish(xp, keys, nrows, col_bits, weighted)
        del keys
        xp.cumsum(new_counts, out=indptr[1:])
        return CSR(indptr, indices, values, nrows, nrows)

    raw_total = int(indptr[-1])
    cols_buf = xp.empty(raw_total, dtype=xp.int32)
    w_buf = xp.empty(raw_total, dtype=xp.int32) if weighted else None
    _scatter(xp, kept if keeping else None, edge_source, indptr, nrows, symmetrize,
             cols_buf, w_buf)
    del kept

    new_counts = xp.zeros(nrows, dtype=xp.int64)
    write = 0
    for r0, r1 in ranges:
        lo, hi = int(indptr[r0]), int(indptr[r1])
        if hi == lo:
            continue
        local_rows = xp.searchsorted(indptr[r0:r1 + 1], xp.arange(lo, hi), side="right")
        local_rows -= 1
        keys = xp.empty(hi - lo, dtype=xp.uint64)
        _pack(xp, keys, local_rows.astype(xp.int32), cols_buf[lo:hi],
              None if w_buf is None else w_buf[lo:hi], col_bits)
        del local_rows
        c, cols, wts = _squish(xp, keys, r1 - r0, col_bits, weighted)
        del keys
        k = cols.shape[0]
        # The write position never passes this range's start, whose entries are already
        # copied into the sort keys, so compacting in place is safe.
        cols_buf[write:write + k] = cols
        if w_buf is not None:
            w_buf[write:write + k] = wts
        new_counts[r0:r1] = c
        write += k
        del c, cols, wts
    xp.cumsum(new_counts, out=indptr[1:])
    indices, values = cols_buf[:write], None if w_buf is None else w_buf[:write]
    if write < raw_total - raw_total // 16:
        # Much was removed: give the slack back rather than keep it behind a view.
        indices = indices.copy()
        values = None if values is None else values.copy()
    return CSR(indptr, indices, values, nrows, nrows)


def _build_on_device(cp, edge_source, n, symmetrize, weighted, budget, nrows_from_max_id):
    """:func:`build_csr` on a GPU for a graph whose raw entries fit in one workspace (the
    common case: ``budget`` is 2^28 entries there): the chunks packed into sort keys, sorted
    (Thrust, compiled into CuPy), the first of each (row, column) kept where it is no
    self-loop, and written out, by kernels of the catalogue (``kernels/generators.cuh``), so
    that nothing is compiled at run time.  The same graph as the general path, bit for bit.
    None (the general path runs the source again) when the entries do not fit."""
    from cupy.cuda import thrust

    from ..backends.cuda import arrays, jit, programs

    def kernel(name):
        return jit.compiled(programs.generator_kernel, name).fns[0]

    chunks, total = [], 0
    for u, v, w in edge_source():
        total += u.size * (2 if symmetrize else 1)
        if total > budget or (u.size and (not u.flags.c_contiguous or
                                          not v.flags.c_contiguous)):
            return None
        chunks.append((u, v, w))
    col_bits = _bits(n)
    wbits = WEIGHT_BITS if weighted else 0
    if total == 0:  # no edge: the general path's answer, without its CuPy steps
        nrows = 1 if nrows_from_max_id else n
        return CSR(cp.zeros(nrows + 1, dtype=cp.int64), cp.empty(0, dtype=cp.int32),
                   cp.empty(0, dtype=cp.int32) if weighted else None, nrows, nrows)
    if 2 * col_bits + wbits > 64:
        return None
    keys = cp.empty(total, dtype=cp.uint64)
    max_id = cp.zeros(1, dtype=cp.int32)
    at = 0
    for u, v, w in chunks:
        k = u.size
        if k:
            w = None if w is None else arrays.astype(w, cp.int32)
            jit.launch(kernel("gen_keys"), k,
                       (np.int64(k), u, v, w, np.int32(col_bits), np.int32(wbits),
                        np.int32(symmetrize), keys[at:], max_id))
        at += k * (2 if symmetrize else 1)
    del chunks
    if total:
        thrust.sort(keys.dtype, keys.data.ptr, 0, (total,))
    flags = cp.empty(total, dtype=cp.int64)
    jit.launch(kernel("gen_firsts"), total,
               (np.int64(total), keys, np.int32(col_bits), np.int32(wbits), flags))
    arrays.inclusive_scan_(flags)
    kept, top = (int(x) for x in arrays.pack(flags[-1], max_id).get())
    nrows = top + 1 if nrows_from_max_id else n
    cols = cp.empty(kept, dtype=cp.int32)
    values = cp.empty(kept, dtype=cp.int32) if weighted else None
    counts = cp.zeros(n, dtype=cp.int64)
    jit.launch(kernel("gen_compact"), total,
               (np.int64(total), keys, flags, np.int32(col_bits), np.int32(wbits), cols,
                values, counts))
    del keys, flags
    indptr = cp.zeros(nrows + 1, dtype=cp.int64)
    arrays.inclusive_scan_(arrays.convert_into(counts[:nrows], indptr[1:]))
    return CSR(indptr, cols, values, nrows, nrows)


def _scatter(xp, kept, edge_source, indptr, nrows, symmetrize, cols_buf, w_buf):
    """Write every entry into its row's segment of the raw buffers (pass 2)."""
    fill = indptr[:-1].copy()
    chunks = kept if kept is not None else edge_source()
    for u, v, w in chunks:
        if kept is None:
            keep = u != v
            u, v = u[keep], v[keep]
            w = None if w is None else w[keep]
        rows, cols, wts = _directed(xp, u, v, w, symmetrize)
        del u, v, w
        order = xp.argsort(rows)
        rows, cols = rows[order], cols[order]
        wts = None if wts is None else wts[order]
        del order
        # Entries of one row are consecutive now; each goes to its row's fill pointer plus
        # its rank among them.
        rank = xp.arange(rows.shape[0], dtype=xp.int64)
        rank -= xp.searchsorted(rows, rows, side="left")
        pos = fill[rows] + rank
        cols_buf[pos] = cols
        if w_buf is not None:
            w_buf[pos] = wts
        fill += xp.bincount(rows, minlength=nrows)
        del rows, cols, wts, rank, pos

