"""Extract (C = A(I, J)) and the region write of assign (C(I, J) = Z) on the GPU.

Rows are gathered by expanding the selected rows' lengths; columns are mapped arithmetically
for a range, through an inverse map for a list that repeats no column, and through a sorted
copy of the list otherwise (a list may repeat or reorder columns, after which the rows are
sorted again).  A list of distinct columns covering at least a quarter of them (a permutation:
A[p, p]) copies each row renamed and sorts it in place instead (no per-entry row ids, no sort
of all the entries).
"""

import cupy as cp
import numpy as np

from ...config import config
from ...dtypes import UINT64
from ..base import CSR, INT32_MAX, IndexArg, SparseVector, order_free_monoid
from . import arrays, blocks, jit, programs
from .blocks import I64, INDEX, i64
from .storage import as_row, coo_to_csr, from_row, transpose, vector_from_coo
from .vectors import BitmapVector, FullVector, counted_bitmap


def _index_array(index):
    """The indices an IndexArg names, as a device int64 array."""
    if index.kind == "list":
        return arrays.astype(cp.asarray(index.array), INDEX)
    if index.kind == "all":
        return arrays.arange(index.count, INDEX)
    return arrays.arange(index.count, INDEX, index.start, index.step)


def _gather_rows(A, rows):
    """(new row, source position) of every entry of A in the selected rows, in order."""
    if rows.kind == "all":
        return blocks.row_ids(A), None
    selected = _index_array(rows)
    starts = A.indptr[selected]
    deg = A.indptr[selected + 1] - starts
    scan = blocks.exclusive_scan(deg)
    count = blocks.total(scan)
    new_rows, occ = blocks.expand(scan, selected.shape[0], count)
    return new_rows, starts[new_rows] + occ


def extract_matrix(A, rows, cols):
    distinct_unknown = True
    if cols.kind == "list" and PERMUTE_SHARE * cols.count >= A.ncols:
        out = _extract_permuted_columns(A, rows, _index_array(cols))
        if out is not None:
            return out
        distinct_unknown = False  # the list repeats a column
    new_rows, pos = _gather_rows(A, rows)
    c = A.indices if pos is None else A.indices[pos]
    vals = A.values if pos is None else A.values[pos]
    nrows, ncols = rows.count, cols.count
    if cols.kind == "all":
        return CSR(nrows, ncols, A.dtype, blocks.indptr_from_sorted_rows(new_rows, nrows), c,
                   vals)
    if cols.kind == "range":
        d = c - I64(cols.start)
        q = d // I64(cols.step)
        keep = cp.flatnonzero((d % I64(cols.step) == 0) & (q >= 0) & (q < cols.count))
        new_rows, new_cols, vals = new_rows[keep], q[keep], vals[keep]
        if cols.step > 0:
            return CSR(nrows, ncols, A.dtype, blocks.indptr_from_sorted_rows(new_rows, nrows),
                       new_cols, vals)
    else:
        J = _index_array(cols)
        # an inverse map of A's columns where it is not much larger than the work (a
        # column of a matrix of 2**40 columns, A[:, j], stays O(entries))
        if distinct_unknown and A.ncols <= 4 * (c.shape[0] + J.shape[0]) + 1024:
            out = _extract_distinct_columns(A, J, new_rows, c, vals, nrows, ncols)
            if out is not None:
                return out
        order = cp.argsort(J)
        sorted_j = J[order]
        lo = cp.searchsorted(sorted_j, c, side="left")
        cnt = cp.searchsorted(sorted_j, c, side="right") - lo
        scan = blocks.exclusive_scan(cnt)
        count = blocks.total(scan)
        src, occ = blocks.expand(scan, c.shape[0], count)
        new_cols = order[lo[src] + occ]
        new_rows, vals = new_rows[src], vals[src]
    return coo_to_csr(nrows, ncols, A.dtype, new_rows, new_cols, vals, dup="error")


# The longest row gbk_permute_rows_block sorts in shared memory (gbk::permute_block), for
# 32-bit and 64-bit column names.
PERMUTE_BLOCK_MAX = {True: 8192, False: 4096}
# A column list of at least this share of the columns is extracted by renaming each row in
# place: its inverse map (one name per column of A) is then at most 4 names per listed column.
PERMUTE_SHARE = 4


def _extract_permuted_columns(A, rows, J):
    """A[I, J] for J a list of distinct columns (a permutation of all of them: triangle
    counting's A[p, p]; or a share of them: its vertices with an edge), or None when J
    repeats a column.  The new rows are the source rows, copied with their columns renamed
    through the inverse of J (those not in J dropped) and sorted again where they are: a
    warp per row of up to 32 entries, a block per row of up to PERMUTE_BLOCK_MAX
    (gbk_permute_rows_*), one radix sort of the entries of the longer rows.  Nothing is made
    per entry but the result: no (row, column) key, no sort of all the entries, no row id; a
    compact matrix's 32-bit indices are read as stored and an iso matrix stays iso (its
    value array is never made).  Where J leaves columns out, one more pass counts each new
    row's kept entries first.  Two synchronizations (the rows' classes; the result's size
    and whether J repeats), and one more where rows are longer than PERMUTE_BLOCK_MAX."""
    nrows, ncols = rows.count, J.shape[0]
    src = None if rows.kind == "all" else _index_array(rows)
    # the new rows' pointers as the source rows have them: A's own when every row is taken
    in_ptr = A.indptr if src is None else blocks.exclusive_scan(
        arrays.lengths_of_rows(A.indptr, src))
    idx32_out = ncols <= INT32_MAX
    name_type = cp.int32 if idx32_out else INDEX
    inv = arrays.put(arrays.full(A.ncols, -1, name_type), J, arrays.arange(ncols, name_type))
    col = A.stored_indices
    word = A.dtype.np_type.itemsize
    fn_warp, fn_block, fn_kept = jit.compiled(programs.permute_rows, 
        col.dtype == np.int32, idx32_out, word).fns
    out_ptr = in_ptr
    if ncols < A.ncols and nrows:  # a distinct J leaves columns out: count what each row keeps
        kept = cp.empty(nrows, dtype=INDEX)
        jit.launch_warps(fn_kept, nrows, (i64(nrows), src, A.indptr, col, inv, kept))
        out_ptr = blocks.exclusive_scan(kept)
    # the result's size and whether J repeats a column (one write wins, another is unmapped),
    # read with the rows' classes (by source length): up to 32, up to PERMUTE_BLOCK_MAX, more
    check = arrays.pack(out_ptr[-1], arrays.count_unmapped(inv, J))
    classes, (n_short, n_block, n_long, _), _ = blocks.degree_classes(
        in_ptr, nrows, [1, 33, PERMUTE_BLOCK_MAX[idx32_out] + 1, None, None])
    total, repeats = (int(x) for x in blocks.read_small(check))
    if repeats:
        return None
    iso = A.pattern_value
    vals = None if iso is not None else A.values
    out_col = cp.empty(total, dtype=name_type)
    out_vals = None if vals is None else cp.empty(total, dtype=vals.dtype)
    if total:
        words = (lambda v: None if v is None else v.view(f"u{word}"))
        tail = (src, A.indptr, col, words(vals), inv, out_ptr, out_col, words(out_vals))
        if n_short:
            jit.launch_warps(fn_warp, n_short, (i64(n_short), classes[:n_short], *tail))
        if n_block:
            jit.run(fn_block, min(n_block, jit.MAX_GRID), jit.BLOCK,
                    (i64(n_block), classes[n_short:n_short + n_block], *tail))
        if n_long:
            _permute_long_rows(A, classes[n_short + n_block:], src, inv, ncols, in_ptr,
                               out_ptr, vals, out_col, out_vals)
    return CSR(nrows, ncols, A.dtype, out_ptr, out_col, out_vals, iso_value=iso)


def pull_in_degree_order(A, min_hub_share, values=True):
    """(B, P, R) for a pull over A' in decreasing-degree order, or None when A's most-connected
    1 % of vertices hold less than ``min_hub_share`` of its entries (core/ordering.py: even
    degrees gain nothing from the order, and a graph whose ids follow its geometry would lose
    its locality).  The order lists the vertices by decreasing out-degree (the number of times
    a pull over A' reads each one's value), then those with an in-edge before those with none,
    then by id, so the vertices without any edge come last.  Only the first k are kept: k = n,
    or where some vertices have no edge, the number that have one plus one, the first without
    standing for all of them.  P (UINT64, full, size k) lists the kept vertices in order; R
    (UINT64, full, size n) gives each vertex its place, k - 1 for every vertex without an edge
    past the stand-in; B (k x k) = P A' P' (row r is the row of A' for vertex P[r], each column
    c renamed R[c]; without ``values`` a pattern), made by one kernel with each row's entries
    left in their stored order: **B is not a canonical matrix** (its rows are not sorted),
    for a pull with a full vector (mxv) and nothing else.  One synchronization (the hubs'
    share and the vertices with an edge), two for a matrix that is not symmetric."""
    n = A.nrows
    if n == 0:
        return None
    # sorted by ~key, the key decreasing; the sort is stable: equal keys by increasing id.
    # 32-bit keys where they fit halve the radix sort's passes (kron-27: 134 million keys).
    # The steps are the catalogue's kernels (arrays.py): CuPy's would compile on first use.
    key_type = cp.int32 if 2 * n + 1 <= INT32_MAX else INDEX
    degrees = arrays.adjacent_diff(A.indptr)
    order = arrays.argsort(arrays.degree_key(A.indptr, None, key_type), consume=True)
    held, active = (int(x) for x in blocks.read_small(arrays.pack(
        arrays.take(degrees, order[:max(1, n // 100)]).sum(),
        arrays.count_nonzero(degrees))))
    if held < min_hub_share * A.nvals:
        return None
    S = transpose(A, cache=config["transpose_cache"])  # A itself when symmetric
    if S is not A:
        # the vertices with in-edges only go before those with no edge (a stable sort of
        # twice the degree plus one for an in-edge keeps the degrees' order otherwise)
        key = arrays.degree_key(A.indptr, S.indptr, key_type)
        order = arrays.argsort(key)
        # a vertex without an edge has the key ~0 = -1
        active = int(blocks.read_small(arrays.count_nonzero(key, other_than=-1))[0])
    k = n if active == n else active + 1
    idx32_out = n <= INT32_MAX
    name_type = cp.int32 if idx32_out else INDEX
    rank = arrays.rank_of_order(order, k - 1, name_type)
    kept = order[:k]
    # the new rows' lengths: A's own degrees where A is its own transpose (no second gather)
    lengths = arrays.take(degrees, kept) if S is A else arrays.lengths_of_rows(S.indptr, kept)
    out_ptr = blocks.exclusive_scan(lengths)
    col = S.stored_indices
    iso = S.pattern_value if values else S.dtype.np_type.type(1)
    vals = None if iso is not None else S.values
    word = S.dtype.np_type.itemsize
    out_col = cp.empty(S.nvals, dtype=name_type)
    out_vals = None if vals is None else cp.empty(S.nvals, dtype=vals.dtype)
    (fn,) = jit.compiled(programs.renumber_rows, col.dtype == np.int32, idx32_out, word).fns
    words = (lambda v: None if v is None else v.view(f"u{word}"))
    jit.launch_warps(fn, k, (i64(k), kept, S.indptr, col, words(vals), rank, out_ptr,
                             out_col, words(out_vals)))
    B = CSR(k, k, S.dtype, out_ptr, out_col, out_vals, iso_value=iso)
    return (B, FullVector(k, UINT64, arrays.astype(kept, cp.uint64)),
            FullVector(n, UINT64, arrays.astype(rank, cp.uint64)))


def _permute_long_rows(A, long_rows, src, inv, ncols, in_ptr, out_ptr, vals, out_col,
                       out_vals):
    """The rows of _extract_permuted_columns longer than a block sorts: their entries renamed
    (those J drops left out) and sorted by (row, new column) in one radix sort, then written
    to their rows (sorting keeps each row's entries where they were, so entry e of the sorted
    order goes where entry e of the unsorted order was); ``ncols``: the names' range.  One
    synchronization (their entry count)."""
    take = arrays.take  # (arrays.py's steps: nothing compiled by CuPy at run time)
    nlong = long_rows.shape[0]
    lscan = blocks.exclusive_scan(arrays.lengths_of_rows(in_ptr, long_rows))
    count = blocks.total(lscan)
    k, occ = blocks.expand(lscan, nlong, count)
    source = long_rows if src is None else take(src, long_rows)
    _, pos = arrays.chunk_starts(A.indptr, source, k, occ, 1)  # A.indptr[source[k]] + occ
    names = arrays.astype(take(inv, take(A.stored_indices, pos)), INDEX)
    dst_starts = take(out_ptr, long_rows)
    if out_ptr is not in_ptr:  # J drops columns: the kept entries' places in their rows
        keep = arrays.positions_at_least(names, 0)
        k, pos, names = take(k, keep), take(pos, keep), take(names, keep)
        kscan = blocks.exclusive_scan(arrays.lengths_of_rows(out_ptr, long_rows))
        occ = arrays.rank_in_group(k, kscan)
    order = blocks.sort_pairs(k, names, nlong, ncols)
    _, dst = arrays.chunk_starts(dst_starts, arrays.arange(nlong, INDEX), k, occ, 1)
    arrays.put(out_col, dst, arrays.astype(take(names, order), out_col.dtype))
    if vals is not None:
        arrays.put(out_vals, dst, take(vals, take(pos, order)))


def _extract_distinct_columns(A, J, new_rows, c, vals, nrows, ncols):
    """The columns of a list that repeats none (a subset of the columns, in any order), or
    None when J repeats one.  Each stored column maps to at most one new column through an
    inverse map of A's columns, instead of two binary searches per entry and an expansion;
    the rows, gathered in order, are sorted within by one radix sort of (row, column) unless
    J ascends, and no duplicate can arise.  One read (whether J repeats, whether it
    ascends)."""
    positions = cp.arange(J.shape[0], dtype=INDEX)
    inv = cp.full(A.ncols, -1, dtype=INDEX)
    inv[J] = positions
    # a repeated column leaves one of its positions unmapped (one write wins)
    repeats = (inv[J] != positions).any()
    ascends = (J[1:] > J[:-1]).all()
    repeats, ascends = blocks.read_small(cp.stack([repeats, ascends]))
    if repeats:
        return None
    new_cols = inv[c]
    if J.shape[0] < A.ncols:  # a column outside the list drops its entries
        keep = cp.flatnonzero(new_cols >= 0)
        new_rows, new_cols, vals = new_rows[keep], new_cols[keep], vals[keep]
    if not ascends:
        order = blocks.sort_pairs(new_rows, new_cols, nrows, ncols)
        new_rows, new_cols, vals = new_rows[order], new_cols[order], vals[order]
    return CSR(nrows, ncols, A.dtype, blocks.indptr_from_sorted_rows(new_rows, nrows),
               new_cols, vals)


def extract_vector(u, index):
    one = IndexArg("all", 1, 1)
    return from_row(extract_matrix(as_row(u), one, index))


def _in_index(values, index, size):
    """Which ``values`` are among the indices an IndexArg names (over a dimension of size)."""
    if index.kind == "all":
        return None
    if index.kind == "range":
        d = values - I64(index.start)
        q = d // I64(index.step)
        return (d % I64(index.step) == 0) & (q >= 0) & (q < index.count)
    marks = cp.zeros(size, dtype=cp.bool_)
    marks[_index_array(index)] = True
    return marks[values]


def assign_region(C, Z, rows, cols):
    """C with its region rows x cols replaced by Z; where an index repeats, the last wins."""
    if isinstance(C, SparseVector):
        one = IndexArg("all", 1, 1)
        return from_row(assign_region(as_row(C), as_row(Z), one, cols))
    cr = blocks.row_ids(C)
    cc = C.indices
    in_r = _in_index(cr, rows, C.nrows)
    in_c = _in_index(cc, cols, C.ncols)
    if in_r is None and in_c is None:
        keep = None  # the region is all of C
    elif in_r is None:
        keep = cp.flatnonzero(~in_c)
    elif in_c is None:
        keep = cp.flatnonzero(~in_r)
    else:
        keep = cp.flatnonzero(~(in_r & in_c))
    zr = blocks.row_ids(Z)
    new_r = zr if rows.kind == "all" else _index_array(rows)[zr]
    new_c = Z.indices if cols.kind == "all" else _index_array(cols)[Z.indices]
    zv = blocks.cast_values(Z.values, Z.dtype, C.dtype)
    if keep is None:
        r, c, v = new_r, new_c, zv
    else:
        r = cp.concatenate([cr[keep], new_r])
        c = cp.concatenate([cc[keep], new_c])
        v = cp.concatenate([C.values[keep], zv])
    return coo_to_csr(C.nrows, C.ncols, C.dtype, r, c, v, dup="last")


# -- graphblast's gather and scatter with a Vector of positions -----------------------------

def _positions(I):
    return arrays.astype(I.values, INDEX)


def gather_vector(u, I):
    """w[i] = u[I[i]] for the entries i of I whose position u holds; w has I's size.  A full
    u is one gather (no search); otherwise each position is found by binary search in u's
    indices.  I's values are in range (the core checked them)."""
    pos = _positions(I)
    take = arrays.take
    if u.nvals == u.size:
        if isinstance(I, FullVector):  # a full result, kept full (no index array)
            return FullVector(I.size, u.dtype, take(u.values, pos))
        return SparseVector(I.size, u.dtype, I.indices, take(u.values, pos))
    if u.nvals == 0 or I.nvals == 0:
        return SparseVector(I.size, u.dtype, I.indices[:0], u.values[:0])
    if isinstance(I, FullVector) and isinstance(u, BitmapVector):
        # every i, from a bitmap: its presence bytes and values gathered, kept a bitmap (a
        # compaction of u and a binary search per i took 13.5 ms on kron-27's 134 million,
        # PageRank's degrees into its order)
        return counted_bitmap(I.size, u.dtype, take(u.bits, pos), take(u.vals, pos))
    at, keep = arrays.find_sorted(u.indices, pos)
    return SparseVector(I.size, u.dtype, take(I.indices, keep),
                        take(u.values, take(at, keep)))


def _pairs(I, u):
    """(target position, value) of every i where both I and u have an entry, in order of i."""
    take = arrays.take
    if u.nvals == u.size:
        vals = u.values if I.nvals == I.size else take(u.values, I.indices)
        return _positions(I), vals
    if I.nvals == 0 or u.nvals == 0:
        return _positions(I)[:0], u.values[:0]
    if I.nvals == I.size:  # every i: u's own entries, in order (no search of u per i)
        return take(_positions(I), u.indices), u.values
    at, keep = arrays.find_sorted(u.indices, I.indices)
    return take(_positions(I), keep), take(u.values, take(at, keep))


def scatter_vector(I, u, size, dtype, dup_op):
    """T of ``size``: T[I[i]] = u[i] (cast to ``dtype``) for the i where I and u have entries;
    repeated positions combined by ``dup_op``, or InvalidValue when it is None.

    With an order-free atomic monoid and pairs numbering at least size / 8, the pairs combine
    into a dense accumulator (one pass, no sort); otherwise they are sorted stably by position
    and each run folded left to right (build's path), in order of i."""
    pos, vals = _pairs(I, u)
    vals = blocks.cast_values(vals, u.dtype, dtype)
    n = pos.shape[0]
    monoid = order_free_monoid(dup_op, dtype)  # exact and order-free atomics
    if monoid is None or n == 0 or size > 8 * n:
        return vector_from_coo(size, dtype, pos, vals, dup_op)
    k_fill, k_scatter = jit.compiled(programs.scatter_atomic, monoid).fns
    acc = cp.empty(size, dtype=dtype.np_type)
    flags = cp.zeros(size, dtype=cp.uint8)
    jit.launch(k_fill, size, (I64(size), acc))
    jit.launch(k_scatter, n, (I64(n), pos, vals, acc, flags))
    # kept as a bitmap, its count reduced on the device: a compaction to a list (a scan of
    # every position, 1.5-2.5 ms on kron-27's 134 million) would be undone by the dense
    # write that follows (connected components' hooking)
    return counted_bitmap(size, dtype, flags, acc)


# -- SuiteSparse's GxB_Vector_sort (python-graphblas's v.ss.sort) -----------------------------

def sort_vector(v, descending):
    """(values, permutation): v's values sorted, ascending or ``descending``, equal values in
    increasing index order, at positions 0..nvals-1 of two vectors of v's size; entry k of
    the permutation (UINT64) is the index in v of the k-th value.  NaN sorts above every
    number (NumPy's order): last ascending, first descending.

    Any format: its entries in index order (a list's cached sorted copy, a bitmap's
    compaction, a full vector's values as they are), then one stable radix sort of the
    values by CuPy (``cupy.argsort`` is stable), all on the device; a list's or bitmap's
    count is read to size the results (one synchronization)."""
    vals = v.values
    keys = vals
    if v.dtype.is_float:
        # The radix sort orders floats by their bits: a NaN with its sign bit set (x86's
        # default NaN, from host data) comes before -inf (seen with CuPy 14 on the H200), and
        # CUB releases without its -0.0 handling put -0.0 before 0.0.  As one positive NaN
        # and 0.0 they sort as NumPy sorts them: NaN last, -0.0 equal to 0.0.
        keys = cp.where(cp.isnan(vals), vals.dtype.type("nan"), vals + vals.dtype.type(0))
    n = keys.shape[0]
    if not v.dtype.is_float:
        # integers (and bools): ~x sorts ascending as x descending, so one stable sort
        # keeps equal values in increasing index order either way (Thrust's sort, no
        # kernel compiled at run time; triangle counting's degree order)
        order = (arrays.argsort(arrays.descending_key(keys), consume=True) if descending
                 else arrays.argsort(keys))
    elif descending:
        # A stable sort of the reversed values puts equal values in decreasing index order;
        # read backwards, that is decreasing values with equal ones by increasing index.
        order = I64(n - 1) - cp.argsort(keys[::-1])[::-1]
    else:
        order = cp.argsort(keys)
    # a full vector's indices are its positions: no index array is made
    perm = arrays.astype(order if isinstance(v, FullVector) else arrays.take(v.indices, order),
                         cp.uint64)
    sorted_vals = arrays.take(vals, order)
    if n == v.size:  # every position holds an entry: full results, no index array
        return FullVector(v.size, v.dtype, sorted_vals), FullVector(v.size, UINT64, perm)
    pos = arrays.arange(n, INDEX)
    return SparseVector(v.size, v.dtype, pos, sorted_vals), SparseVector(v.size, UINT64, pos,
                                                                         perm)
