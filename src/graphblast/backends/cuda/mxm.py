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
from . import arrays, bitmap, blocks, jit, packed, programs
from .apply import reduce_segments
from .blocks import INDEX, i64
from .storage import empty_matrix, transpose
from .vectors import Counters

# Products expanded at once by the general SpGEMM (keys and values: about 40 bytes each with
# the sort's scratch space).
CHUNK = 1 << 24


# -- matrix-matrix ---------------------------------------------------------------------------

def mxm(A, B, semiring, mask):
    """C = A (+.x) B.  With a mask, push or pull as :func:`mxm_direction` chooses: push
    expands every product, drops those the mask excludes and sorts and reduces the rest; pull
    computes only the outputs the mask allows (a plain mask: dot products against B'; a
    complemented one: :func:`_mxm_pull`'s gather against the dense frontier).  Without a
    mask: a B of at most one entry per row whose A has short rows is a gather
    (:func:`_mxm_gather`); plus_times on FP32/FP64 goes to cuSPARSE and rows of few
    products, for a monoid
    whose fold does not depend on their order, to the hash SpGEMM (_mxm_hash); the rest is
    expanded, sorted and reduced."""
    if mask is not None and mask.complement and A.nrows * B.ncols <= BITMAP_POSITIONS:
        out = _batched(A, B, semiring, mask)
        if out is not None:
            return out
    if _bitmap_gather(A, B.ncols, mask):
        return _bitmap_masked(A, B, transpose(B, config["transpose_cache"]), semiring, mask)
    if mask is not None and (not mask.complement or A.nrows * B.ncols <= PULL_POSITIONS):
        BT = transpose(B, config["transpose_cache"])
        if mxm_direction(A, B, BT, semiring, mask) == "pull":
            return blocks.under_mask(_masked_pull(A, BT, semiring, mask), weakref.ref(mask))
    if mask is None and _gather_applies(A, B):
        return _mxm_gather(A, B, semiring)
    if mask is None and _cusparse_applies(A, B, semiring):
        return _mxm_cusparse(A, B, semiring)
    C = _mxm_expand(A, B, semiring, mask)
    return C if mask is None else blocks.under_mask(C, weakref.ref(mask))


_INT32_MAX = 2**31 - 1

# A product under a complemented mask of at most this many outputs is computed over bitmaps
# by column (bitmap.py) where it pulls, or where its frontier or mask is one already.
BITMAP_POSITIONS = plan.MATRIX_BITMAP_POSITIONS


def _batched(A, B, semiring, mask):
    """C<!M> = A (+.x) B over bitmaps by column (bitmap.py), or the expand-sort SpGEMM's list
    where a list frontier under a list mask pushes few products (plan.MXM_LIST_PUSH_SHARE of
    the positions) or a push the bitmaps do not take.  The direction is
    plan.mxm_bitmap_direction's, from exact counts where the host has them: push's products
    (the degree sum over B of A's entries: a bitmap's counters, added by the kernel that
    made it; a list's, one gather), pull's visits (the outputs the mask allows, each
    scanning B's column until its first product for an "any" monoid, or the whole
    column).  A structural product (packed.applies) is computed over packed bitmaps instead
    (:func:`_packed`), or as a list where plan.mxm_packed_list_push finds that cheaper."""
    dense_in = bitmap.is_bitmap(A) or bitmap.is_bitmap(mask.data)
    BT = transpose(B, config["transpose_cache"])
    positions = A.nrows * B.ncols
    if packed.applies(semiring, A.nrows, B.ncols):  # structural: a bit a position
        listed = None if dense_in else _degree_sum(A.indices, B.indptr)
        if (listed is not None and config["direction"] != "pull"
                and plan.mxm_packed_list_push(listed, B.ncols * packed.width(A.nrows))):
            return blocks.under_mask(_mxm_expand(A, B, semiring, mask), weakref.ref(mask))
        return _packed(A, B, BT, mask, listed)
    choice, push_work = _bitmap_direction(A, B, semiring,
                                          lambda: max(positions - mask.data.nvals, 0))
    if choice == "push" and not dense_in and (
            push_work <= positions * plan.MXM_LIST_PUSH_SHARE
            or not bitmap.push_applies(semiring)):
        return blocks.under_mask(_mxm_expand(A, B, semiring, mask), weakref.ref(mask))
    if choice == "push" and bitmap.push_applies(semiring):
        C = bitmap.push(A, B, semiring, mask)
    else:
        C = bitmap.pull(A, BT, B.indptr, semiring, mask)
    C._under_mask = weakref.ref(mask)
    return C


def _packed(A, B, BT, mask, push=None):
    """C<M> = A (+.x) B for a structural semiring over packed bitmaps (packed.py), pushed or
    pulled as packed.direction chooses (``push``: A's degree sum where already counted)."""
    C = packed.product(A, B, BT, packed.direction(A, B, BT, mask, push), mask)
    C._under_mask = weakref.ref(mask)
    return C


def _cusparse_applies(A, B, semiring):
    mult, add = semiring.binaryop, semiring.monoid
    t = add.return_type
    return (add.parent.builtin_name == "plus" and mult.parent.builtin_name == "times"
            and t.is_float
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
    if _bitmap_gather(A, BT.nrows, mask):
        return _bitmap_masked(A, BT if BT.symmetric else BT._transpose, BT, semiring, mask)
    if mask is not None and not mask.complement:
        B = BT if BT.symmetric else BT._transpose  # push is weighed only where B is at hand
        if B is None or mxm_direction(A, B, BT, semiring, mask) == "pull":
            return blocks.under_mask(_masked_pull(A, BT, semiring, mask), weakref.ref(mask))
        return blocks.under_mask(_mxm_expand(A, B, semiring, mask), weakref.ref(mask))
    return mxm(A, transpose(BT, config["transpose_cache"]), semiring, mask)


# A complemented product of more outputs than this always pushes (pull lays them out densely);
# pull works on chunks of A's rows of at most PULL_CHUNK positions (about 18 bytes each).
PULL_POSITIONS = 1 << 40
PULL_CHUNK = 1 << 28
# A row of B' longer than this is walked by a warp per output (gbk_mxm_pull_warp).
PULL_WARP_MIN = 32
# Under a plain mask, pull gathers against A laid out densely (gbk_mxm_pull_entries) where that
# layout is one chunk and A holds at least 1 / DENSE_PULL_SPARSITY of it; otherwise each mask
# entry is a dot product (the sparse rows of triangle counting).
DENSE_PULL_SPARSITY = 64
# the direction of the last masked product over each right-hand matrix (the hysteresis)
_last_direction = weakref.WeakKeyDictionary()
_ANY_MONOIDS = ("any", "lor")


def mxm_direction(A, B, BT, semiring, mask):
    """Push or pull for C<M> = A (+.x) B (plan.mxm_direction), from exact work counts summed
    on the device: push's products (B's degrees over A's entries, one read), then, unless
    they settle it (plan.mxm_push_settled), pull's visits (the B' rows of the outputs the
    mask allows; under a plain mask with A too sparse to lay out densely, the dot products'
    shorter lists; a second read).  Each is a gather over the entries it counts, never a pass
    over all n vertices."""
    if config["direction"] != "auto":
        return plan.mxm_direction(0, 0, 0)[0]
    M = mask.data
    previous = _last_direction.get(B)
    positions = A.nrows * B.ncols if mask.complement else M.nvals
    push_work = _degree_sum(A.indices, B.indptr)
    if plan.mxm_push_settled(push_work, positions, previous):
        choice = plan.mxm_direction(push_work, None, positions, previous=previous)[0]
        _last_direction[B] = choice
        return choice
    if mask.complement and plan.mxm_pull_settled(push_work, A.nrows * B.nvals, positions,
                                                 previous):
        choice = plan.mxm_direction(push_work, A.nrows * B.nvals, positions,
                                    previous=previous)[0]
        _last_direction[B] = choice
        return choice
    if mask.complement or _dense_pull(A):
        mask_work = _degree_sum(M.indices, BT.indptr)
    elif M.nvals:
        cols, rows = M.indices, blocks.row_ids(M)
        shorter = cp.minimum(A.indptr[rows + 1] - A.indptr[rows],
                             BT.indptr[cols + 1] - BT.indptr[cols])
        mask_work = int(blocks.read_small(shorter.sum(dtype=INDEX, keepdims=True))[0])
    else:
        mask_work = 0
    if mask.complement:
        allowed, pull_work = positions - M.nvals, A.nrows * B.nvals - mask_work
    else:
        allowed, pull_work = M.nvals, mask_work
    any_monoid = semiring.monoid.parent.name in _ANY_MONOIDS
    choice, _ = plan.mxm_direction(
        push_work, pull_work, positions, first_hit_rows=allowed if any_monoid else None,
        nvals=B.nvals, rows=A.nrows, previous=previous)
    _last_direction[B] = choice
    return choice


def _bitmap_gather(A, ncols, mask):
    """Whether C<M> = A (+.x) B under a plain mask is computed over bitmaps
    (:func:`_bitmap_masked`): A or the mask is a bitmap by column (a batch's state:
    betweenness centrality's backward sweep gathers the dependencies of one level into the
    level below it)."""
    return (mask is not None and not mask.complement and A.nrows * ncols <= BITMAP_POSITIONS
            and (bitmap.is_bitmap(A) or bitmap.is_bitmap(mask.data)))


def _bitmap_masked(A, B, BT, semiring, mask):
    """C<M> = A (+.x) B under a plain mask where A or the mask is a bitmap by column: push
    along B's rows or pull along its columns (BT's rows), by :func:`_bitmap_direction` with
    the mask's entries as the outputs pull visits; pull where B is not at hand (``mxm_bt``
    without a cached transpose) or push does not fold the monoid."""
    if B is not None and packed.applies(semiring, A.nrows, B.ncols):
        return _packed(A, B, BT, mask)
    choice = "pull"
    if B is not None and bitmap.push_applies(semiring):
        choice = _bitmap_direction(A, B, semiring, lambda: mask.data.nvals)[0]
    C = (bitmap.push(A, B, semiring, mask) if choice == "push"
         else bitmap.pull(A, BT, None, semiring, mask))
    C._under_mask = weakref.ref(mask)
    return C


def _bitmap_direction(A, B, semiring, allowed):
    """(plan.mxm_bitmap_direction's choice, push's products) for A (+.x) B over bitmaps:
    push's products, the degree sum over B of A's entries (a bitmap's counters, added by the
    kernel that made it, or its count times B's average degree; a list's, one gather);
    pull's visits, ``allowed()`` outputs each scanning B's column (until its first product
    for an "any" monoid)."""
    if bitmap.is_bitmap(A):
        push_work = A.degree_sum(B.indptr)
        if push_work is None:  # made over other row pointers: the average degree
            push_work = A.nvals * B.nvals // max(B.nrows, 1)
    else:
        push_work = _degree_sum(A.indices, B.indptr)
    if config["direction"] != "auto":
        return plan.mxm_bitmap_direction(0, 0, 0)[0], push_work
    outputs = allowed()
    visits = outputs * B.nvals / max(B.ncols, 1)
    if semiring.monoid.parent.name in _ANY_MONOIDS:
        visits = plan.first_hit_work(visits, push_work / max(A.nrows, 1), B.nvals, outputs)
    choice = plan.mxm_bitmap_direction(push_work, visits, A.nrows * B.ncols,
                                       previous=_last_direction.get(B))[0]
    _last_direction[B] = choice
    return choice, push_work


def _degree_sum(indices, indptr):
    """The sum of the degrees (by the row pointers ``indptr``) at ``indices``: one kernel
    (gbk_list_degrees) and one read."""
    n = indices.shape[0]
    if n == 0:
        return 0
    counters = Counters()
    (fn,) = jit.compiled(programs.list_degrees).fns
    jit.launch(fn, n, (i64(n), None, indices, indptr, counters.array))
    counters.touch()
    return int(counters.values()[1])


def _dense_pull(A):
    """Whether a pull under a plain mask gathers against A laid out densely."""
    size = A.nrows * A.ncols
    return size <= PULL_CHUNK and A.nvals * DENSE_PULL_SPARSITY >= size


def _masked_pull(A, BT, semiring, mask):
    """Pull: the tiled gather against the dense frontier (:func:`_mxm_pull_tiled`) under a
    complemented mask, and under a plain one where A is dense enough; else dot products.
    With TILED_PULL off, the thread-per-output kernels (:func:`_mxm_pull`,
    :func:`_mxm_pull_entries`) instead."""
    if mask.complement or _dense_pull(A):
        if TILED_PULL:
            return _mxm_pull_tiled(A, BT, semiring, mask)
        if mask.complement:
            return _mxm_pull(A, BT, semiring, mask)
        return _mxm_pull_entries(A, BT, semiring, mask)
    return _mxm_dot(A, BT, semiring, mask)


# The tiled pull (gbk_mxm_pull_tiled): coalesced reads of 32 frontier rows a column of B';
# columns whose row of B' is longer than TILED_HEAVY go to a warp per (row, column) instead.
TILED_PULL = True
TILED_HEAVY = 1024


def _mxm_pull_tiled(A, BT, semiring, mask):
    """C<M> = A (+.x) B by the tiled pull (mxm_pull.cuh), on chunks of A's rows: the chunk's
    frontier laid out column-major, the outputs the mask allows marked (a complemented mask:
    all but its entries; a plain one: its entries), then a warp per output column and 32
    frontier rows (a warp per output for the heavy columns); the outputs found compacted in
    order.  One synchronization a chunk (its entry count), and one for the heavy columns."""
    t = semiring.monoid.return_type
    nrows, ncols, inner = A.nrows, BT.nrows, A.ncols
    if nrows == 0 or ncols == 0 or A.nvals == 0:
        return empty_matrix(nrows, ncols, t)
    fns, bt_idx = _pull_kernels(A, BT, semiring)
    k_front, k_mask, k_compact, k_tiled, k_heavy = fns[0], fns[1], fns[4], fns[7], fns[8]
    M = mask.data
    mkind = programs.mask_kind(mask)
    bt_vals = BT.values
    heavy_j = arrays.positions_at_least(arrays.adjacent_diff(BT.indptr), TILED_HEAVY + 1)
    nheavy = int(heavy_j.shape[0])
    a_rows, m_rows = blocks.row_ids(A), blocks.row_ids(M)
    a_ptr, m_ptr = A.indptr.get(), M.indptr.get()
    step = max(1, PULL_CHUNK // max(ncols, inner, 1))
    parts = []
    for r0 in range(0, nrows, step):
        r1 = min(nrows, r0 + step)
        rows = r1 - r0
        present, dense = _lay_out(A, k_front, a_rows, r0, r1, int(a_ptr[r0]), int(a_ptr[r1]),
                                  column_major=True)
        total = rows * ncols
        allow = arrays.full(total, 1 if mask.complement else 0, np.uint8)
        e0, e1 = int(m_ptr[r0]), int(m_ptr[r1])
        if e1 > e0:
            jit.launch(k_mask, e1 - e0, (i64(e1 - e0), i64(e0), m_rows, M.indices,
                                         None if mkind == 0 else M.values, np.int32(mkind),
                                         i64(1), i64(rows), i64(r0),
                                         np.int32(not mask.complement), allow))
        out = cp.empty(total, dtype=t.np_type)
        flag = cp.empty(total, dtype=cp.uint8)
        common = (i64(ncols), i64(r0), allow, present, dense, BT.indptr, bt_idx, bt_vals)
        jit.launch_warps(k_tiled, -(-rows // 32) * ncols,
                         (i64(rows),) + common + (i64(TILED_HEAVY), out, flag))
        if nheavy:
            jit.launch_warps(k_heavy, rows * nheavy,
                             (i64(rows), i64(nheavy), heavy_j) + common + (out, flag))
        del present, dense, allow
        parts.append(_compacted(k_compact, flag, out, ncols, t))
    return _joined(parts, nrows, ncols, t)


def _pull_kernels(A, BT, semiring):
    idx32 = max(A.ncols, BT.nrows) <= _INT32_MAX
    fns = jit.compiled(programs.mxm_pull, semiring, A.dtype, BT.dtype, idx32).fns
    return fns, (_narrow_indices(BT) if idx32 else BT.indices)


def _lay_out(A, k_front, a_rows, r0, r1, e0, e1, column_major=False):
    """Rows [r0, r1) of A (its entries [e0, e1)) densely: a presence byte and a value a
    position, row-major (entry (i, k) at (i - r0) * ncols + k) or column-major (at
    k * (r1 - r0) + i - r0)."""
    inner = A.ncols
    present = cp.zeros((r1 - r0) * inner, dtype=cp.uint8)
    dense = cp.empty((r1 - r0) * inner, dtype=A.dtype.np_type)
    strides = (1, r1 - r0) if column_major else (inner, 1)
    if e1 > e0:
        jit.launch(k_front, e1 - e0, (i64(e1 - e0), i64(e0), a_rows, A.indices, A.values,
                                      i64(strides[0]), i64(strides[1]), i64(r0), present,
                                      dense))
    return present, dense


def _mxm_pull_entries(A, BT, semiring, mask):
    """C<M> = A (+.x) B by pull over the entries of a plain mask: A laid out densely, a
    thread per entry whose row of B' is short and a warp per entry whose row is long, each
    walking that row against A's dense row (no search, unlike a dot product); one
    synchronization (the long entries' count) and the compaction's."""
    t = semiring.monoid.return_type
    M = mask.data
    nm = M.nvals
    vals = cp.empty(nm, dtype=t.np_type)
    flags = cp.zeros(nm, dtype=cp.uint8)
    if nm and A.nvals:
        fns, bt_idx = _pull_kernels(A, BT, semiring)
        k_front, k_entries, k_warp = fns[0], fns[5], fns[6]
        present, dense = _lay_out(A, k_front, blocks.row_ids(A), 0, A.nrows, 0, A.nvals)
        m_rows = blocks.row_ids(M)
        mkind = programs.mask_kind(mask)
        m_vals = None if mkind == 0 else M.values
        common = (m_rows, M.indices, m_vals, np.int32(mkind), i64(A.ncols), present, dense,
                  BT.indptr, bt_idx, BT.values)
        jit.launch(k_entries, nm, (i64(nm),) + common + (i64(PULL_WARP_MIN), vals, flags))
        indeg = arrays.adjacent_diff(BT.indptr)
        long_e = arrays.positions_at_least(arrays.take(indeg, M.indices), PULL_WARP_MIN + 1)
        if long_e.shape[0]:
            jit.launch_warps(k_warp, long_e.shape[0],
                             (i64(long_e.shape[0]), long_e) + common + (vals, flags))
    return blocks.compact_entries(M, flags, dtype=t, values=vals)


def _mxm_pull(A, BT, semiring, mask):
    """C<!M> = A (+.x) B by pull (mxm_pull.cuh), on chunks of A's rows: the chunk's frontier
    and mask laid out densely, then a thread per output whose row of B' is short and a warp
    per output whose row is long, each walking that row against the frontier and stopping at
    the monoid's terminal; the outputs found compacted in order.  One synchronization a
    chunk (its entry count)."""
    t = semiring.monoid.return_type
    nrows, ncols, inner = A.nrows, BT.nrows, A.ncols
    if nrows == 0 or ncols == 0 or A.nvals == 0:
        return empty_matrix(nrows, ncols, t)
    fns, bt_idx = _pull_kernels(A, BT, semiring)
    k_front, k_mask, k_pull, k_warp, k_compact = fns[:5]
    M = mask.data
    mkind = programs.mask_kind(mask)
    bt_vals = BT.values
    long_j = arrays.positions_at_least(arrays.adjacent_diff(BT.indptr), PULL_WARP_MIN + 1)
    nlong = int(long_j.shape[0])
    a_rows, m_rows = blocks.row_ids(A), blocks.row_ids(M)
    a_ptr, m_ptr = A.indptr.get(), M.indptr.get()
    step = max(1, PULL_CHUNK // max(ncols, inner, 1))
    parts = []
    for r0 in range(0, nrows, step):
        r1 = min(nrows, r0 + step)
        rows = r1 - r0
        present, dense = _lay_out(A, k_front, a_rows, r0, r1, int(a_ptr[r0]), int(a_ptr[r1]))
        blocked = cp.zeros(rows * ncols, dtype=cp.uint8)
        e0, e1 = int(m_ptr[r0]), int(m_ptr[r1])
        if e1 > e0:
            jit.launch(k_mask, e1 - e0, (i64(e1 - e0), i64(e0), m_rows, M.indices,
                                         None if mkind == 0 else M.values, np.int32(mkind),
                                         i64(ncols), i64(1), i64(r0), np.int32(1), blocked))
        total = rows * ncols
        out = cp.empty(total, dtype=t.np_type)
        flag = cp.empty(total, dtype=cp.uint8)
        common = (i64(ncols), i64(inner), i64(r0), blocked, present, dense, BT.indptr, bt_idx,
                  bt_vals)
        jit.launch(k_pull, total, (i64(rows),) + common + (i64(PULL_WARP_MIN), out, flag))
        if nlong:
            jit.launch_warps(k_warp, rows * nlong,
                             (i64(rows), i64(nlong), long_j) + common + (out, flag))
        parts.append(_compacted(k_compact, flag, out, ncols, t))
    return _joined(parts, nrows, ncols, t)


def _compacted(k_compact, flag, out, ncols, t):
    """A chunk's found outputs (flag, out: row-major) in order: (its row pointers from 0,
    indices, values); one synchronization (the count)."""
    total = flag.shape[0]
    scan = blocks.exclusive_scan(flag)
    count = blocks.total(scan)
    c_idx = cp.empty(count, dtype=INDEX)
    c_vals = cp.empty(count, dtype=t.np_type)
    if count:
        jit.launch(k_compact, total, (i64(total), i64(ncols), flag, scan, out, c_idx, c_vals))
    # the chunk's rows' lengths (scan[(i + 1) * ncols] - scan[i * ncols]), not a view of the
    # whole scan
    rows = total // max(ncols, 1)
    lengths = arrays.adjacent_diff(arrays.take(scan, arrays.arange(rows + 1, INDEX, 0, ncols)))
    return lengths, c_idx, c_vals


def _joined(parts, nrows, ncols, t):
    """One CSR from the chunks' (row lengths, indices, values), in order."""
    indptr = blocks.exclusive_scan(arrays.concatenate([p[0] for p in parts]))
    indices = arrays.concatenate([p[1] for p in parts])
    values = arrays.concatenate([p[2] for p in parts])
    return CSR(nrows, ncols, t, indptr, indices, values)


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
    row_work = arrays.take(wscan, A.indptr).get()
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
            semiring.monoid.parent.builtin_name, t.np_type.kind in "iu",
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
        order = arrays.argsort(keys, consume=True)  # keys sorted in place
        vals = arrays.take(vals, order)
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
    rows, cols, vals = (arrays.concatenate(p) for p in (out_rows, out_cols, out_vals))
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
    count, fill = jit.compiled(programs.spgemm_hash, semiring, A.dtype, B.dtype).fns
    return _count_and_fill(count, fill, HASH_WARPS, A, B, semiring.monoid.return_type)


def _count_and_fill(count, fill, warps, A, B, t):
    """C = A (+.x) B by a pair of kernels that take a warp per row of A (the hash SpGEMM, the
    gather): ``count`` writes each row's entry count, a scan makes C's row pointers (one
    read: C's size), ``fill`` writes each row's entries at its pointer."""
    n = A.nrows
    counts = cp.empty(n, dtype=INDEX)
    grid = max(1, min(jit.MAX_GRID, -(-n // warps)))
    operands = (i64(n), A.indptr, A.indices, A.values, B.indptr, B.indices, B.values)
    jit.run(count, grid, 32 * warps, operands + (counts, None, None, None))
    indptr = blocks.exclusive_scan(counts)
    nnz = blocks.total(indptr)
    indices = cp.empty(nnz, dtype=INDEX)
    values = cp.empty(nnz, dtype=t.np_type)
    if nnz:
        jit.run(fill, grid, 32 * warps, operands + (None, indptr, indices, values))
    return CSR(n, B.ncols, t, indptr, indices, values)


# Warps a block of the hash SpGEMM (GBK_HASH_WARPS in spgemm.cuh).
HASH_WARPS = 4
# The longest row of A the gather takes, and its warps a block (GBK_GATHER_ROW and
# GBK_GATHER_WARPS in spgemm.cuh).
GATHER_ROW = 256
GATHER_WARPS = 4


def _gather_applies(A, B):
    """Whether ``A (+.x) B`` is a gather (:func:`_mxm_gather`): every row of B holds at most
    one entry (a membership or selection matrix, a diagonal) and no row of A holds more than
    GATHER_ROW entries.  The longest rows are read once per matrix and kept with it
    (mxv.row_stats); the check reads nothing when B has more entries than rows."""
    from .mxv import row_stats

    return (B.nvals <= B.nrows and A.nvals > 0 and row_stats(B)[0] <= 1
            and row_stats(A)[0] <= GATHER_ROW)


def _mxm_gather(A, B, semiring):
    """C = A (+.x) B where each row of B holds at most one entry: a warp per row of A gathers
    the row's products (one per entry of A) and reduces those that land on one column, in
    A's order, for any monoid (gbk_spgemm_gather): a count pass, a scan, a fill pass; one read
    (C's size).  Louvain's ``A P`` and products with a diagonal take it: no expansion, no
    sort, and one product where cuSPARSE makes two (structure and values)."""
    count, fill = jit.compiled(programs.spgemm_gather, semiring, A.dtype, B.dtype).fns
    return _count_and_fill(count, fill, GATHER_WARPS, A, B, semiring.monoid.return_type)


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
