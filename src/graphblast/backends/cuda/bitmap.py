"""Bitmap matrices by column on the GPU (``bitmapc``, SuiteSparse's and python-graphblas's
name): a presence byte and a value for every position, position (i, j) at ``j * nrows + i``.

A batched traversal's state (the frontiers, the visited set, the levels or path counts of
``ns`` sources over ``n`` vertices) is dense-ish and rewritten every step; as CSR every step
would sort and compact ``ns x n`` entries.  As bitmaps by column the masked product
``C<!M> = F (+.x) B`` reads F and M and writes C in place of their positions
(mxm_bitmap.cuh): the ``ns`` sources of a vertex sit side by side, so a warp tests 32 of them
in one read.  A product under a complemented mask makes a bitmap where its pull would lay the
frontier out densely anyway (``mxm.py``), and a scalar assigned under a bitmap mask, or a
bitmap accumulated into a matrix, updates its bitmap target in place (the levels, the path
counts).

A :class:`BitmapMatrix` is a :class:`CSR` to the rest of the backend: reading ``indptr``,
``indices`` or ``values`` builds the sorted lists once (a compaction) and caches them, so
every primitive that knows only CSR stays correct.  Its entry count, and the degree sum of
its entries over the row pointers ``deg_of`` (the direction rule's push work), live in a
counter slot on the device (vectors.Counters), added by the kernel that made it.
"""

import weakref

import cupy as cp
import numpy as np

from ..base import CSR
from . import arrays, blocks, jit, programs
from .blocks import INDEX, i64
from .vectors import BitmapVector, Counters, FullVector

_SHARED = object()


class BitmapMatrix(CSR):
    """``nrows x ncols``: ``bits`` (uint8) and ``vals``, by column (position (i, j) at
    ``j * nrows + i``), or by row where ``by_row`` (at ``i * ncols + j``: the transpose of
    one by column, sharing its arrays).  ``iso_bits``: every entry is True and ``vals`` is
    ``bits`` itself (a BOOL result of a pair product)."""

    __slots__ = ("bits", "vals", "counters", "deg_of", "iso_bits", "by_row", "_owner",
                 "_lists", "_under_mask", "packed")

    def __init__(self, nrows, ncols, dtype, bits, vals, counters, deg_of=None, iso_bits=False,
                 by_row=False):
        self.nrows, self.ncols, self.dtype = nrows, ncols, dtype
        self.bits, self.vals, self.counters = bits, vals, counters
        self.deg_of, self.iso_bits, self.by_row = deg_of, iso_bits, by_row
        self._owner = self._lists = self._under_mask = None
        self.packed = None  # its structure packed a bit a position (packed.py), once made
        self.iso_value = self._wide = self._transpose = None
        self._view = self._stats = self._plans = None
        self.symmetric = False

    # -- the CSR view -----------------------------------------------------------------------
    def _sorted_lists(self):
        if self._lists is None:
            self._lists = _to_lists(self)
        return self._lists

    @property
    def indptr(self):
        return self._sorted_lists()[0]

    @property
    def _indices(self):
        return self._sorted_lists()[1]

    @property
    def _values(self):
        return self._sorted_lists()[2]

    @property
    def nvals(self):
        return self.counters.values()[0]

    def known_nvals(self):
        found = self.counters.peek()
        return None if found is None else found[0]

    def degree_sum(self, ptr):
        """The degree sum of the entries' columns over the row pointers ``ptr``, or None."""
        return self.counters.values()[1] if self.deg_of is ptr else None

    def arrays(self):
        return [self.bits] if self.iso_bits else [self.bits, self.vals]

    def changed(self):
        """After an in-place update."""
        self.counters.touch()
        self._lists = self.deg_of = self.packed = None
        self._transpose = self._view = self._stats = self._plans = None

    @property
    def format(self):
        """python-graphblas's name of the format: "bitmapc" or "bitmapr"."""
        return "bitmapr" if self.by_row else "bitmapc"

    @property
    def strides(self):
        """(row stride, column stride) of the positions."""
        return (self.ncols, 1) if self.by_row else (1, self.nrows)

    def __repr__(self):
        return f"BitmapMatrix({self.nrows}x{self.ncols}, {self.dtype}, {self.format})"


def _to_lists(B):
    """(indptr, indices, values) of B in row order: its presence bytes read row by row."""
    n, m = B.nrows, B.ncols
    if n == 0 or m == 0:
        return cp.zeros(n + 1, dtype=INDEX), cp.empty(0, INDEX), cp.empty(0, B.dtype.np_type)
    by_row = B.bits if B.by_row else cp.ascontiguousarray(B.bits.reshape(m, n).T).reshape(-1)
    pos = arrays.flatnonzero(by_row)
    rows = pos // m
    cols = pos - rows * m
    at = pos if B.by_row else cols * n + rows
    vals = B.vals[at].astype(B.dtype.np_type, copy=False)
    return blocks.indptr_from_sorted_rows(rows, n), cols, vals


def is_bitmap(data):
    """Whether ``data`` is a bitmap by column (what the products read)."""
    return isinstance(data, BitmapMatrix) and not data.by_row


def transposed(B):
    """B' sharing B's arrays (a bitmap by column becomes one by row, and back); neither is
    ever updated in place."""
    B._owner = _SHARED
    T = BitmapMatrix(B.ncols, B.nrows, B.dtype, B.bits, B.vals, B.counters,
                     iso_bits=B.iso_bits, by_row=not B.by_row)
    T._owner = _SHARED
    return T


# -- ownership (as vectors.adopt: only a bitmap that one Matrix holds is updated in place) ----

def adopt(data, owner):
    if data._owner is not _SHARED:
        if data._owner is None:
            data._owner = weakref.ref(owner)
        elif data._owner() is not owner:
            data._owner = _SHARED
    return data


def _owned_by(data, owner):
    return (isinstance(data, BitmapMatrix) and data._owner is not None
            and data._owner is not _SHARED and data._owner() is owner and not data.iso_bits)


# -- making bitmaps ------------------------------------------------------------------------

def from_csr(A, by_row=False):
    """A CSR matrix as a new bitmap (by column, or by row); a bitmap copied as it is."""
    t = A.dtype
    total = A.nrows * A.ncols
    if isinstance(A, BitmapMatrix):
        bits = A.bits.copy()
        vals = bits.astype(t.np_type) if A.iso_bits else A.vals.copy()
        return BitmapMatrix(A.nrows, A.ncols, t, bits, vals, Counters(known=(A.nvals, 0)),
                            by_row=A.by_row)
    bits = cp.zeros(total, dtype=cp.uint8)
    vals = cp.empty(total, dtype=t.np_type)
    ne = A.nvals
    if ne:
        strides = (A.ncols, 1) if by_row else (1, A.nrows)
        k_scatter = jit.compiled(programs.bitmap_make, t).fns[0]
        jit.launch(k_scatter, ne, (i64(ne), blocks.row_ids(A), A.indices, A.values,
                                   i64(strides[0]), i64(strides[1]), bits, vals))
    return BitmapMatrix(A.nrows, A.ncols, t, bits, vals, Counters(known=(ne, 0)),
                        by_row=by_row)


def mask_bits(mask, nrows, ncols):
    """(bits, values or None, mkind) of a MaskArg's matrix as a bitmap by column: a bitmap's
    own arrays, a CSR mask's allowed entries scattered into a new byte a position."""
    M = mask.data
    mkind = programs.mask_kind(mask)
    if is_bitmap(M):
        return M.bits, (None if mkind == 0 else M.vals), mkind
    bits = cp.zeros(nrows * ncols, dtype=cp.uint8)
    ne = M.nvals
    if ne:
        k_mask = jit.compiled(programs.bitmap_make, M.dtype).fns[1]
        jit.launch(k_mask, ne, (i64(ne), blocks.row_ids(M), M.indices,
                                None if mkind == 0 else M.values, np.int32(mkind),
                                i64(1), i64(nrows), bits))
    return bits, None, 0


# -- in-place updates ----------------------------------------------------------------------

def _writable(owner, C):
    """C as a bitmap this call may update in place: C itself where ``owner`` alone holds it,
    else a new bitmap with C's entries."""
    if _owned_by(C, owner) and not C.by_row:
        return C
    return from_csr(_by_column_or_csr(C))


def _by_column_or_csr(A):
    """A bitmap by column or a CSR matrix with A's entries (a bitmap by row read as lists)."""
    if isinstance(A, BitmapMatrix) and A.by_row:
        return CSR(A.nrows, A.ncols, A.dtype, A.indptr, A.indices, A.values)
    return A


def assign_scalar(owner, C, value, mask, accum, replace):
    """``C(mask) << value`` for a whole matrix, in place, under a plain mask of C's shape
    where the mask or C is a bitmap by column (a batched traversal's state): one pass over
    the positions under a bitmap mask, the mask's entries under a list one; None otherwise
    (the general assign: a list target stays a list)."""
    if (mask is None or mask.complement or replace or accum is not None
            or jit.is_device_value(value) or C.nrows * C.ncols == 0):
        return None
    M = mask.data
    from .packed import PackedBitmap, assign_scalar as packed_assign

    if isinstance(M, PackedBitmap):  # a multi-source BFS's frontier
        return packed_assign(owner, C, value, mask)
    if not is_bitmap(M) and not is_bitmap(C):
        return None
    W = _writable(owner, C)
    kernels = jit.compiled(programs.bitmap_make, C.dtype).fns
    mkind = programs.mask_kind(mask)
    if is_bitmap(M):
        total = C.nrows * C.ncols
        jit.launch(kernels[2], total, (i64(total), M.bits, None if mkind == 0 else M.vals,
                                       np.int32(mkind), W.bits, W.vals,
                                       jit.scalar(value, C.dtype), W.counters.array))
    else:
        ne = M.nvals
        if ne:
            jit.launch(kernels[3], ne, (i64(ne), blocks.row_ids(M), M.indices,
                                        None if mkind == 0 else M.values, np.int32(mkind),
                                        i64(C.nrows), W.bits, W.vals,
                                        jit.scalar(value, C.dtype), W.counters.array))
    W.changed()
    return W


def accum_into(owner, C, T, accum):
    """``C(accum) << T`` without a mask for a bitmap T of C's shape and type, in place (one
    pass); NotImplemented otherwise."""
    if (not is_bitmap(T) or T.dtype is not C.dtype or T.iso_bits or accum.is_positional
            or (isinstance(C, BitmapMatrix) and C.by_row)
            or accum.type is not C.dtype or accum.type2 is not C.dtype
            or accum.return_type is not C.dtype or T.nrows != C.nrows or T.ncols != C.ncols):
        return NotImplemented
    W = _writable(owner, C)
    total = C.nrows * C.ncols
    (k_accum,) = jit.compiled(programs.bitmap_accum, accum, C.dtype).fns
    jit.launch(k_accum, total, (i64(total), T.bits, T.vals, W.bits, W.vals, W.counters.array))
    W.changed()
    return W


# -- C<M> = F (+.x) B ----------------------------------------------------------------------

# A column of B' (pull) longer than PULL_HEAVY entries is cut into chunks of PULL_CHUNK
# entries, a warp each for 32 rows, their partial results folded in order by a second kernel
# (kron-22's hubs hold over a third of its entries); a row of B (push) longer than
# PUSH_HEAVY is walked by several warps, PUSH_CHUNK entries each.
PULL_HEAVY = 1024
PULL_CHUNK = 1024
PUSH_HEAVY = 256
PUSH_CHUNK = 256
# Rows of B (or chunks) a push's warp item takes: GBK_PUSH_GROUP of mxm_bitmap.cuh, whose
# kernels count their items themselves (here only the launch's size).
PUSH_GROUP = 8
_pull_chunks = weakref.WeakKeyDictionary()    # BT -> _Chunks
_heavy_chunks = weakref.WeakKeyDictionary()   # B -> (chunk rows, chunk starts, count)


def push_applies(semiring):
    """Whether push folds this monoid's products in any order to one result: every monoid
    but ``any``, whose first product (the smallest k) pull keeps; ``any`` where every product
    has the same value (pair)."""
    return semiring.monoid.parent.name != "any" or jit.constant_product(semiring.binaryop)


def _iso(semiring):
    """Whether every entry of the result is True: a BOOL pair product under any or lor."""
    from ...dtypes import BOOL

    return (semiring.monoid.return_type is BOOL and jit.constant_product(semiring.binaryop)
            and semiring.monoid.parent.name in ("any", "lor"))


def _result(nrows, ncols, semiring, zeroed):
    t = semiring.monoid.return_type
    total = nrows * ncols
    bits = (cp.zeros if zeroed else cp.empty)(total, dtype=cp.uint8)
    iso = _iso(semiring)
    vals = bits.view(cp.bool_) if iso else cp.empty(total, dtype=t.np_type)
    return bits, vals, iso


def _idx(BT):
    idx32 = BT.ncols <= 2**31 - 1 and BT.nrows <= 2**31 - 1
    return idx32, (arrays_as_int32(BT) if idx32 else BT.indices)


def arrays_as_int32(A):
    return arrays.astype(A.stored_indices, np.int32)


def pull(A, BT, B_indptr, semiring, mask):
    """C<M> = A (+.x) B by pull over bitmaps (gbk_bitmapc_pull, and its heavy columns'
    chunks); ``B_indptr``: the row pointers of a square B, whose degrees over the result's
    columns its counters sum (None: no sum)."""
    nrows, ncols = A.nrows, BT.nrows
    if B_indptr is not None and B_indptr.shape[0] != ncols + 1:
        B_indptr = None
    F = A if is_bitmap(A) else from_csr(_by_column_or_csr(A))
    m_bits, m_vals, mkind = mask_bits(mask, nrows, ncols)
    idx32, bt_idx = _idx(BT)
    fns = jit.compiled(programs.mxm_bitmap, semiring, F.dtype, BT.dtype, idx32).fns
    bits, vals, iso = _result(nrows, ncols, semiring, zeroed=False)
    counters = Counters()
    common = (m_bits, m_vals, np.int32(mkind), np.int32(mask.complement), F.bits, F.vals,
              BT.indptr, bt_idx, BT.values)
    if nrows and ncols:
        jit.launch_warps(fns[0], -(-nrows // 32) * ncols,
                         (i64(nrows), i64(ncols)) + common
                         + (i64(PULL_HEAVY), B_indptr, bits, vals, np.int32(not iso),
                            counters.array))
        _pull_heavy(fns, nrows, common, _pull_chunks_of(BT), ncols,
                    (B_indptr, bits, vals, np.int32(not iso), counters.array))
    counters.touch()
    return BitmapMatrix(nrows, ncols, semiring.monoid.return_type, bits, vals, counters,
                        deg_of=B_indptr, iso_bits=iso)


def _pull_heavy(fns, nrows, common, chunks, budget, tail):
    """Pull's heavy columns (gbk_bitmapc_pull_chunks, then gbk_bitmapc_pull_combine): their
    partial results held for as many columns at a time as keep them within ``budget`` chunks
    (the result's column count: the partials never outgrow the result)."""
    first = chunks.first
    h0 = 0
    while h0 < chunks.nheavy:
        c0 = int(first[h0])
        h1 = max(h0 + 1, int(np.searchsorted(first, c0 + budget, side="right")) - 1)
        h1 = min(h1, chunks.nheavy)
        nc = int(first[h1]) - c0
        part_bits = cp.empty(nc * nrows, dtype=cp.uint8)
        part_vals = cp.empty(nc * nrows, dtype=tail[2].dtype)
        jit.launch_warps(fns[1], -(-nrows // 32) * nc,
                         (i64(nrows), i64(nc), chunks.j[c0:c0 + nc], chunks.lo[c0:c0 + nc],
                          i64(PULL_CHUNK)) + common + (part_bits, part_vals))
        jit.launch_warps(fns[5], -(-nrows // 32) * (h1 - h0),
                         (i64(nrows), i64(h1 - h0), chunks.ids[h0:h1],
                          chunks.first_d[h0:h1 + 1], i64(c0), part_bits, part_vals) + tail)
        h0 = h1


def push(A, B, semiring, mask):
    """C<M> = A (+.x) B by push over bitmaps (gbk_bitmapc_push and its heavy rows' chunks):
    the result's bytes zeroed, its values filled with the monoid's empty mark where they are
    folded by atomics."""
    nrows, ncols = A.nrows, B.ncols
    F = A if is_bitmap(A) else from_csr(_by_column_or_csr(A))
    m_bits, m_vals, mkind = mask_bits(mask, nrows, ncols)
    idx32, b_idx = _idx(B)
    fns = jit.compiled(programs.mxm_bitmap, semiring, F.dtype, B.dtype, idx32).fns
    bits, vals, iso = _result(nrows, ncols, semiring, zeroed=True)
    any_monoid = semiring.monoid.parent.name == "any"
    if not iso and not any_monoid and vals.shape[0]:
        jit.launch(fns[4], vals.shape[0], (i64(vals.shape[0]), vals))
    counters = Counters()
    common = (m_bits, m_vals, np.int32(mkind), np.int32(mask.complement))
    deg = B.indptr if B.nrows == B.ncols else None  # the result's columns are B's rows
    tail = (deg, bits, vals, np.int32(not iso), counters.array)
    if nrows and B.nrows:
        jit.launch_warps(fns[2], -(-nrows // 32) * -(-B.nrows // PUSH_GROUP),
                         (i64(nrows), i64(B.nrows), F.bits, F.vals, B.indptr, b_idx, B.values)
                         + common + (i64(PUSH_HEAVY),) + tail)
        chunk_k, chunk_lo, nchunks = _chunks(B)
        if nchunks:
            jit.launch_warps(fns[3], -(-nrows // 32) * -(-nchunks // PUSH_GROUP),
                             (i64(nrows), i64(nchunks), chunk_k, chunk_lo, i64(PUSH_CHUNK),
                              F.bits, F.vals, B.indptr, b_idx, B.values) + common + tail)
    counters.touch()
    return BitmapMatrix(nrows, ncols, semiring.monoid.return_type, bits, vals, counters,
                        deg_of=deg, iso_bits=iso)


class _Chunks:
    """The rows of a matrix longer than a length cut into chunks of a size: ``ids`` the long
    rows, ``first`` (on the host) and ``first_d`` (on the device) each long row's first chunk
    and one more at the end, ``j`` and ``lo`` each chunk's row and first entry (int64 on the
    device)."""

    __slots__ = ("ids", "first", "first_d", "j", "lo", "nheavy", "count")

    def __init__(self, ptr, longer_than, size):
        long_rows = arrays.flatnonzero(ptr[1:] - ptr[:-1] > longer_than)
        start, end = ptr[long_rows].get(), ptr[long_rows + 1].get()
        per = (end - start + size - 1) // size
        self.first = np.concatenate([[0], np.cumsum(per)]).astype(np.int64)
        self.count, self.nheavy = int(self.first[-1]), int(long_rows.shape[0])
        within = np.arange(self.count) - np.repeat(self.first[:-1], per)
        self.ids = long_rows.astype(np.int64)
        self.first_d = cp.asarray(self.first)
        self.j = cp.asarray(np.repeat(long_rows.get(), per).astype(np.int64))
        self.lo = cp.asarray((np.repeat(start, per) + within * size).astype(np.int64))


def _pull_chunks_of(BT):
    """BT's rows longer than PULL_HEAVY in chunks of PULL_CHUNK, found once per matrix."""
    found = _pull_chunks.get(BT)
    if found is None:
        found = _pull_chunks[BT] = _Chunks(BT.indptr, PULL_HEAVY, PULL_CHUNK)
    return found


def _chunks(B):
    """(rows, starts, count) of the PUSH_CHUNK-entry chunks of B's rows longer than
    PUSH_HEAVY, found once per matrix."""
    found = _heavy_chunks.get(B)
    if found is None:
        c = _Chunks(B.indptr, PUSH_HEAVY, PUSH_CHUNK)
        found = _heavy_chunks[B] = (c.j, c.lo, c.count) if c.count else (None, None, 0)
    return found


# -- element-wise operations, apply, the masked write-back, row reductions --------------------
#
# A bitmap matrix's positions are a bitmap vector's (the same bytes and values): the vector
# kernels of dense.py compute these, for operators that do not read the positions.

def _vector(B):
    return BitmapVector(B.nrows * B.ncols, B.dtype, B.bits, B.vals, B.counters)


def _matrix(v, like):
    """The vector result ``v`` of a dense.py kernel as a bitmap shaped and laid out as
    ``like``."""
    if isinstance(v, FullVector):
        bits = arrays.full(v.size, 1, cp.uint8)  # a catalogue kernel (cp.ones compiles)
        return BitmapMatrix(like.nrows, like.ncols, v.dtype, bits, v.vals,
                            Counters(known=(v.size, 0)), by_row=like.by_row)
    return BitmapMatrix(like.nrows, like.ncols, v.dtype, v.bits, v.vals, v.counters,
                        by_row=like.by_row)


def _positional(op):
    return getattr(op, "is_positional", True) or getattr(op, "opclass", "") == "IndexUnaryOp"


def _operands(A, B):
    """(A, B) as bitmaps of one layout where one of them is a bitmap and both are matrices of
    one shape (the other, a CSR matrix, laid out the same way), else None."""
    if not (isinstance(A, CSR) and isinstance(B, CSR)) or A.shape != B.shape:
        return None
    bm = A if isinstance(A, BitmapMatrix) else B if isinstance(B, BitmapMatrix) else None
    if bm is None:
        return None
    by_row = bm.by_row
    pair = []
    for X in (A, B):
        if not isinstance(X, BitmapMatrix) or X.by_row != by_row:
            X = from_csr(X if not isinstance(X, BitmapMatrix) else _by_column_or_csr(X),
                         by_row=by_row)
        pair.append(X)
    return pair


def ewise(kind, A, B, op, out_dtype=None, left=None, right=None):
    """ewise_add ("add"), ewise_mult ("mult") or ewise_union ("union") where an operand is a
    bitmap matrix (dense.py's kernels over the positions), else NotImplemented."""
    from . import dense

    pair = _operands(A, B)
    if pair is None or _positional(op):
        return NotImplemented
    X, Y = pair
    v = dense._ewise(kind, _vector(X), _vector(Y), op, out_dtype or op.return_type, left,
                     right)
    return _matrix(v, X)


def apply(A, op, left=None, right=None, thunk=None):
    """apply over a bitmap matrix's positions (an operator that does not read them), else
    NotImplemented."""
    from . import dense

    if not isinstance(A, BitmapMatrix) or thunk is not None or _positional(op):
        return NotImplemented
    return _matrix(dense.apply(_vector(A), op, left, right), A)


def mask_write(C, Z, mask, replace):
    """``C<mask, replace> = Z`` into a new matrix where C, Z or the mask is a bitmap
    (dense.py's write-back over the positions), else NotImplemented."""
    from . import dense
    from ..base import MaskArg, computed_under

    if mask is None:
        return Z
    M = mask.data
    if not any(isinstance(X, BitmapMatrix) for X in (C, Z, M)):
        return NotImplemented
    if computed_under(Z, mask) and (replace or C.nvals == 0):
        return Z
    like = next(X for X in (Z, C, M) if isinstance(X, BitmapMatrix))
    by_row = like.by_row
    views = []
    for X in (C, Z, M):
        if not isinstance(X, BitmapMatrix) or X.by_row != by_row:
            X = from_csr(_by_column_or_csr(X), by_row=by_row)
        views.append(X)
    Cv, Zv, Mv = (_vector(X) for X in views)
    out = dense.mask_write_into(None, Cv, Zv, MaskArg(Mv, mask.structural, mask.complement),
                                replace)
    return _matrix(out, views[0])


def reduce_rowwise(A, monoid):
    """Each row of a bitmap by row (the transpose of one by column: reduce_columnwise) folded
    by ``monoid`` (not ``any``, whose first entry the lists keep), a bitmap vector; else
    NotImplemented."""
    if not isinstance(A, BitmapMatrix) or not A.by_row or monoid.parent.name == "any":
        return NotImplemented
    t = monoid.return_type
    (fn,) = jit.compiled(programs.bitmap_reduce_rows, monoid, A.dtype).fns
    bits = cp.empty(A.nrows, dtype=cp.uint8)
    out = cp.empty(A.nrows, dtype=t.np_type)
    counters = Counters()
    if A.nrows:
        jit.launch_warps(fn, A.nrows, (i64(A.nrows), i64(A.ncols), A.bits, A.vals, bits, out,
                                       counters.array))
    counters.touch()
    return BitmapVector(A.nrows, t, bits, out, counters)
