"""Matrix-matrix products on the GPU: mxm (expand-sort-compress SpGEMM for any semiring, a
hash SpGEMM for rows of few products where the monoid's fold does not depend on their order,
masked dot products) and kronecker.  mxv/vxm are in ``mxv.py``.

Every product takes the mask: a plain mask turns mxm into dot products over the mask's
entries only, a complemented one drops excluded products before the sort.  Such results
are marked (blocks.under_mask) so that the write-back with ``replace`` costs nothing.
"""

import weakref

import cupy as cp
import numpy as np

from ... import plan
from ...config import config
from ..base import CSR
from . import arrays, blocks, jit, programs
from .apply import reduce_segments
from .blocks import INDEX, i64
from .storage import empty_matrix, transpose

# Products expanded at once by the general SpGEMM (keys and values: about 40 bytes each with
# the sort's scratch space).
CHUNK = 1 << 24


# -- matrix-matrix ---------------------------------------------------------------------------

def mxm(A, B, semiring, mask):
    """C = A (+.x) B.  A plain (not complemented) mask computes only its entries, by dot
    products against B'; otherwise every product is expanded, sorted and reduced, except that
    plus_times on FP32/FP64 without a mask goes to cuSPARSE and rows of few products, for a
    monoid whose fold does not depend on their order, to the hash SpGEMM (_mxm_hash)."""
    if mask is not None and not mask.complement:
        return mxm_bt(A, transpose(B, config["transpose_cache"]), semiring, mask)
    if mask is None and _cusparse_applies(A, B, semiring):
        return _mxm_cusparse(A, B, semiring)
    C = _mxm_expand(A, B, semiring, mask)
    return C if mask is None else blocks.under_mask(C, weakref.ref(mask))


_INT32_MAX = 2**31 - 1


def _cusparse_applies(A, B, semiring):
    mult, add = semiring.binaryop, semiring.monoid
    t = add.return_type
    return (add.parent.name == "plus" and mult.parent.name == "times" and t.is_float
            and mult.type is t and mult.type2 is t and A.dtype is t and B.dtype is t
            and max(A.nrows, A.ncols, B.ncols, A.nvals, B.nvals) <= _INT32_MAX)


def _cusparse(A, values):
    from cupyx.scipy import sparse

    return sparse.csr_matrix((values, A.indices.astype(np.int32), A.indptr.astype(np.int32)),
                             shape=(A.nrows, A.ncols))


def _mxm_cusparse(A, B, semiring):
    """plus_times on floats by cuSPARSE.  cuSPARSE may drop entries whose sum cancels to zero,
    which GraphBLAS keeps, so the structure comes from the product of the patterns (all ones:
    nothing cancels) and the numeric product's values are placed into it."""
    t = semiring.monoid.return_type
    ones_a = cp.ones(A.nvals, dtype=t.np_type)
    ones_b = cp.ones(B.nvals, dtype=t.np_type)
    P = _cusparse(A, ones_a) @ _cusparse(B, ones_b)
    N = _cusparse(A, A.values) @ _cusparse(B, B.values)
    P.sort_indices()
    N.sort_indices()
    indptr = P.indptr.astype(INDEX)
    indices = P.indices.astype(INDEX)
    C = CSR(A.nrows, B.ncols, t, indptr, indices, None)
    if N.nnz == P.nnz:
        C.values = N.data
        return C
    vals = cp.zeros(P.nnz, dtype=t.np_type)
    if N.nnz:
        numeric = CSR(A.nrows, B.ncols, t, N.indptr.astype(INDEX), N.indices.astype(INDEX),
                      N.data)
        pos, _ = blocks.match(numeric, C)
        vals[pos] = numeric.values
    C.values = vals
    return C


# A mask entry whose intersection walks more than this many entries of its shorter list
# is taken by a warp (gbk_mxm_dot_warp) instead of a thread.
DOT_WARP_MIN_WORK = 32


def mxm_bt(A, BT, semiring, mask):
    """C = A (+.x) BT': under a plain mask the dot product reads BT's rows as they are (no
    transpose is built for ``mxm(A, M.T)``: triangle counting's ``L @ L'``)."""
    if mask is not None and not mask.complement:
        return blocks.under_mask(_mxm_dot(A, BT, semiring, mask), weakref.ref(mask))
    return mxm(A, transpose(BT, config["transpose_cache"]), semiring, mask)


def _mxm_dot(A, BT, semiring, mask):
    """C<M> = A (+.x) B on the mask's entries only, each the sorted intersection of row i of A
    and row j of B' (given as BT).  The entries are binned by their work
    min(|A(i,:)|, |B'(j,:)|): a thread each up to DOT_WARP_MIN_WORK, a warp each above (skewed
    graphs: a few entries hold most of the work), in two passes over the mask's rows
    (gbk_dot_bin_*).  Column indices are read as int32 where the dimension fits; a structural
    mask's values are not read (an iso mask's are never made).  One synchronization for the
    bin's size, one for the result's."""
    M = mask.data
    t = semiring.monoid.return_type
    idx32 = max(A.ncols, BT.ncols) <= _INT32_MAX
    k_thread, k_warp = jit.compiled(programs.dot, semiring, A.dtype, BT.dtype, idx32).fns
    nm = M.nvals
    vals = cp.empty(nm, dtype=t.np_type)
    flags = cp.empty(nm, dtype=cp.uint8)
    if nm:
        a_idx = _narrow_indices(A) if idx32 else A.indices
        bt_idx = a_idx if BT is A else (_narrow_indices(BT) if idx32 else BT.indices)
        m_idx = M.indices
        # each entry's row given, not searched (a binary search over the row pointers per
        # entry was ~log2(n) dependent loads before any work), and the long entries counted
        # in the same pass
        k_count, k_fill = jit.compiled(programs.dot_bins).fns
        mrows = cp.empty(nm, dtype=INDEX)
        counts = cp.zeros(2, dtype=cp.uint64)  # the long entries, then the fill's cursor
        bins = (i64(M.nrows), M.indptr, m_idx, A.indptr, BT.indptr, i64(DOT_WARP_MIN_WORK))
        jit.launch_warps(k_count, M.nrows, bins + (mrows, counts[:1]))
        mkind = programs.mask_kind(mask)
        common = (mrows, m_idx, None if mkind == 0 else M.values, np.int32(mkind), A.indptr,
                  a_idx, A.values, BT.indptr, bt_idx, BT.values, vals, flags)
        jit.launch(k_thread, nm, (i64(nm),) + common + (i64(DOT_WARP_MIN_WORK),))
        nlong = int(blocks.read_small(counts[:1])[0])  # (the thread kernel runs meanwhile)
        if nlong:
            long_e = cp.empty(nlong, dtype=INDEX)
            jit.launch_warps(k_fill, M.nrows, bins + (counts[1:], long_e))
            jit.launch_warps(k_warp, nlong, (i64(nlong), long_e) + common)
    return blocks.compact_entries(M, flags, dtype=t, values=vals)


def _narrow_indices(A):
    """A's column indices as int32 (a compact matrix's as stored; else a copy for this call,
    half the bytes each binary search of the dot product reads)."""
    stored = A.stored_indices
    return arrays.astype(stored, np.int32)  # no copy when stored so


def _row_chunks(A, wscan, total_work, ncols):
    """Row ranges [r0, r1) whose products number at most CHUNK (a row with more is a chunk of
    its own) and whose keys (row - r0) * ncols + col fit in int64."""
    max_rows = max(1, (2**62) // max(ncols, 1))
    if total_work <= CHUNK and A.nrows <= max_rows:
        return [(0, A.nrows, 0, A.nvals, total_work)]
    indptr = A.indptr.get()
    row_work = wscan[A.indptr].get()
    chunks = []
    r0 = 0
    while r0 < A.nrows:
        r1 = int(np.searchsorted(row_work, row_work[r0] + CHUNK, side="right")) - 1
        r1 = min(max(r1, r0 + 1), A.nrows, r0 + max_rows)
        chunks.append((r0, r1, int(indptr[r0]), int(indptr[r1]),
                       int(row_work[r1] - row_work[r0])))
        r0 = r1
    return chunks


def _mxm_expand(A, B, semiring, mask):
    """Expand-sort-compress SpGEMM; a (complemented) mask drops products before the sort."""
    t = semiring.monoid.return_type
    nrows, ncols = A.nrows, B.ncols
    if A.nvals == 0 or B.nvals == 0:
        return empty_matrix(nrows, ncols, t)
    k_work, k_expand, k_starts, k_offsets = jit.compiled(programs.spgemm, 
        semiring, A.dtype, B.dtype).fns
    na = A.nvals
    work = cp.empty(na, dtype=INDEX)
    jit.launch(k_work, na, (i64(na), A.indices, B.indptr, work))
    wscan = blocks.exclusive_scan(work)
    total_work = blocks.total(wscan)
    if total_work == 0:
        return empty_matrix(nrows, ncols, t)
    if mask is None and _hash_fits(semiring, ncols) and plan.spgemm_method(
            semiring.monoid.parent.name, t.np_type.kind in "iu",
            _longest_row_products(A, wscan))[0] == "hash":
        return _mxm_hash(A, B, semiring)
    m = mask.data if mask is not None else None
    kind = np.int32(0 if mask is None else programs.mask_kind(mask))
    complement = np.int32(0 if mask is None else mask.complement)
    out_rows, out_cols, out_vals = [], [], []
    for r0, r1, e0, e1, nprod in _row_chunks(A, wscan, total_work, ncols):
        if nprod == 0:
            continue
        keys = cp.empty(nprod, dtype=INDEX)
        vals = cp.empty(nprod, dtype=t.np_type)
        jit.launch(k_expand, nprod, (
            i64(nprod), i64(e0), i64(e1), wscan, A.indptr, i64(nrows), A.indices, A.values,
            B.indptr, B.indices, B.values, i64(ncols), i64(r0),
            None if m is None else m.indptr, None if m is None else m.indices,
            None if m is None else m.values, kind, complement, keys, vals))
        order = cp.argsort(keys)
        keys = keys[order]
        vals = vals[order]
        flags = cp.empty(nprod, dtype=cp.uint8)
        jit.launch(k_starts, nprod, (i64(nprod), keys, flags))
        scan = blocks.exclusive_scan(flags)
        nruns = blocks.total(scan)
        if nruns == 0:
            continue
        offsets = cp.empty(nruns + 1, dtype=INDEX)
        rows = cp.empty(nruns, dtype=INDEX)
        cols = cp.empty(nruns, dtype=INDEX)
        jit.launch(k_offsets, nprod, (i64(nprod), keys, flags, scan, i64(ncols), i64(r0),
                                      offsets, rows, cols))
        out_rows.append(rows)
        out_cols.append(cols)
        out_vals.append(reduce_segments(vals, t, offsets, None, nruns, nprod,
                                        semiring.monoid))
    if not out_rows:
        return empty_matrix(nrows, ncols, t)
    rows = out_rows[0] if len(out_rows) == 1 else cp.concatenate(out_rows)
    cols = out_cols[0] if len(out_cols) == 1 else cp.concatenate(out_cols)
    vals = out_vals[0] if len(out_vals) == 1 else cp.concatenate(out_vals)
    return CSR(nrows, ncols, t, blocks.indptr_from_sorted_rows(rows, nrows), cols, vals)


def _hash_fits(semiring, ncols):
    """Whether the hash SpGEMM can hold the product at all: 32-bit column keys, and values of
    4 or 8 bytes (the width its shared-memory atomics fold)."""
    return ncols <= _INT32_MAX and semiring.monoid.return_type.np_type.itemsize in (4, 8)


def _longest_row_products(A, wscan):
    """The most products a row of A makes (one read)."""
    if A.nrows == 0:
        return 0
    per_row = arrays.row_sums_of_scan(A.indptr, wscan)
    return int(blocks.read_small(per_row.max(keepdims=True))[0])


def _mxm_hash(A, B, semiring):
    """C = A (+.x) B by the hash SpGEMM (spgemm.cuh), every row of at most
    plan.HASH_ROW_PRODUCTS products: a count pass, a scan, a fill pass; one read (C's size)."""
    t = semiring.monoid.return_type
    count, fill = jit.compiled(programs.spgemm_hash, semiring, A.dtype, B.dtype).fns
    n = A.nrows
    counts = cp.empty(n, dtype=INDEX)
    grid = max(1, min(jit.MAX_GRID, -(-n // HASH_WARPS)))
    operands = (i64(n), A.indptr, A.indices, A.values, B.indptr, B.indices, B.values)
    jit.run(count, grid, 32 * HASH_WARPS, operands + (counts, None, None, None))
    indptr = blocks.exclusive_scan(counts)
    nnz = blocks.total(indptr)
    indices = cp.empty(nnz, dtype=INDEX)
    values = cp.empty(nnz, dtype=t.np_type)
    if nnz:
        jit.run(fill, grid, 32 * HASH_WARPS, operands + (None, indptr, indices, values))
    return CSR(n, B.ncols, t, indptr, indices, values)


# Warps a block of the hash SpGEMM (GBK_HASH_WARPS in spgemm.cuh).
HASH_WARPS = 4


# -- kronecker -------------------------------------------------------------------------------

def kronecker(A, B, op):
    """C(iA*mB + iB, jA*nB + jB) = op(A(iA, jA), B(iB, jB)), in row-major order directly."""
    nrows, ncols = A.nrows * B.nrows, A.ncols * B.ncols
    t = op.return_type
    nnz = A.nvals * B.nvals
    if nnz == 0:
        return empty_matrix(nrows, ncols, t)
    k_counts, k_kron = jit.compiled(programs.kron, op, A.dtype, B.dtype).fns
    counts = cp.empty(nrows, dtype=INDEX)
    jit.launch(k_counts, nrows, (i64(nrows), A.indptr, B.indptr, i64(B.nrows), counts))
    indptr = blocks.exclusive_scan(counts)
    out_idx = cp.empty(nnz, dtype=INDEX)
    out_vals = cp.empty(nnz, dtype=t.np_type)
    jit.launch(k_kron, nnz, (i64(nnz), indptr, i64(nrows), A.indptr, A.indices, A.values,
                             B.indptr, B.indices, B.values, i64(B.nrows), i64(B.ncols),
                             out_idx, out_vals))
    return CSR(nrows, ncols, t, indptr, out_idx, out_vals)
