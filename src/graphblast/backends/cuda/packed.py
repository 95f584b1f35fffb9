"""Packed bitmaps by column: a BOOL batch of traversals, one bit a position (MS-BFS, Then et
al., VLDB 2015; SuiteSparse's and LAGraph's boolean batches).

A multi-source BFS step ``frontier<!levels, replace> = frontier any.pair A`` over the byte
bitmaps of bitmap.py reads a presence byte for each of the ``ns`` sources at every entry of
A it visits.  Its result is structural (every entry True), so 64 sources fit one 64-bit word
a vertex: position (i, j) is bit ``i % 64`` of word ``j * W + i // 64``, ``W = ceil(ns /
64)``.  Pull ORs the words of a vertex's in-neighbours, stopping once every bit the mask
allows is found; push ORs a frontier word into its out-neighbours' words (mxm_packed.cuh).
Each visited entry costs one 8-byte word for 64 sources instead of 64 bytes.

A :class:`PackedBitmap` is a :class:`bitmap.BitmapMatrix` (and so a CSR) to the rest of the
backend: reading ``bits`` or ``vals`` unpacks it into a byte a position once (cached), so
every primitive that knows only byte bitmaps or lists stays correct; the product, the
scalar assign under its structure (``levels(frontier.S) << depth``) and the next product
read its words.  It is never updated in place.  Its counters hold its entry count and the
degree sum, over the next product's row pointers, of its nonzero words: a packed push walks
a row once for all 64 bits of a word.
"""

import cupy as cp
import numpy as np

from ... import plan
from ...config import config
from ...dtypes import BOOL
from . import bitmap, blocks, jit, programs
from .bitmap import BitmapMatrix
from .blocks import i64
from .vectors import Counters


class PackedBitmap(BitmapMatrix):
    """``nrows x ncols`` BOOL, every entry True: ``words`` (uint64, ``ncols * W``), the bits
    of column j's rows at ``[j * W, (j + 1) * W)``, bits past ``nrows`` zero."""

    __slots__ = ("words", "word_deg_of", "_bytes")

    def __init__(self, nrows, ncols, words, counters, word_deg_of=None):
        self.nrows, self.ncols, self.dtype = nrows, ncols, BOOL
        self.words, self.counters, self.word_deg_of = words, counters, word_deg_of
        self.deg_of, self.iso_bits, self.by_row = None, True, False
        self.packed = words
        self._owner = self._lists = self._under_mask = self._bytes = None
        self.iso_value = self._wide = self._transpose = None
        self._view = self._stats = self._plans = None
        self.symmetric = False

    @property
    def bits(self):
        """A presence byte a position (unpacked once)."""
        if self._bytes is None:
            self._bytes = _unpack(self)
        return self._bytes

    @property
    def vals(self):
        return self.bits.view(cp.bool_)

    def arrays(self):
        return [self.words]

    def changed(self):
        raise AssertionError("a packed bitmap is never updated in place")

    def degree_sum(self, ptr):
        """None: the counters hold the degrees of the words, not of the entries."""
        return None

    def word_degree_sum(self, ptr):
        """The degree sum of the nonzero words' columns over ``ptr``, or None."""
        return self.counters.values()[1] if self.word_deg_of is ptr else None

    @property
    def format(self):
        return "bitmapc"

    def __repr__(self):
        return f"PackedBitmap({self.nrows}x{self.ncols}, BOOL, {width(self.nrows)} words)"


def width(nrows):
    """Words a column of ``nrows`` rows."""
    return -(-nrows // 64)


# Words of at most this many bytes are taken whatever the batch's size; beyond, only where
# they are no larger than a byte a position (a batch of fewer than 8 rows over a huge graph
# keeps byte bitmaps: 8 bytes a column would be more).
PACKED_ANY_BYTES = 1 << 26


def applies(semiring, nrows, ncols):
    """Whether ``C<M> = F (+.x) B`` (``nrows x ncols``) is computed over packed bitmaps: a
    structural product, a BOOL result of a pair product under ``any`` or ``lor`` (every
    entry True; F's and B's values never read), whose words are not larger than bytes."""
    words = ncols * width(nrows) * 8
    return bitmap._iso(semiring) and (words <= PACKED_ANY_BYTES or words <= nrows * ncols)


def _kernels(idx32=True):
    return jit.compiled(programs.mxm_packed, idx32).fns


def _unpack(P):
    total = P.nrows * P.ncols
    out = cp.empty(total, dtype=cp.uint8)
    if total:
        jit.launch(_kernels()[2], total,
                   (i64(P.nrows), i64(total), i64(width(P.nrows)), P.words, out))
    return out


def _pack(X, m_vals, mkind):
    """The words of X (a packed bitmap's as they are; a byte bitmap by column or a CSR
    matrix packed, its entries counted by ``mkind``, a mask's kind, reading ``m_vals``).  A
    byte bitmap keeps its structure's words (``packed``) until it changes: the visited set
    of a multi-source BFS is packed once, then kept up to date by :func:`assign_scalar`."""
    if bitmap.is_bitmap(X) and mkind == 0 and X.packed is not None:
        return X.packed
    W = width(X.nrows)
    fns = _kernels()
    if bitmap.is_bitmap(X):
        words = cp.empty(X.ncols * W, dtype=cp.uint64)
        if words.shape[0]:
            jit.launch_warps(fns[1], words.shape[0],
                             (i64(X.nrows), i64(X.ncols), i64(W), X.bits, m_vals,
                              np.int32(mkind), words))
        if mkind == 0:
            X.packed = words
        return words
    X = bitmap._by_column_or_csr(X)
    words = cp.zeros(X.ncols * W, dtype=cp.uint64)
    ne = X.nvals
    if ne:
        jit.launch(fns[0], ne, (i64(ne), blocks.row_ids(X), X.indices, m_vals,
                                np.int32(mkind), i64(W), words))
    return words


def _mask_words(mask):
    M = mask.data
    mkind = 0 if isinstance(M, PackedBitmap) else programs.mask_kind(mask)
    return _pack(M, None if mkind == 0 else (M.vals if bitmap.is_bitmap(M) else M.values),
                 mkind)


def direction(A, B, BT, mask, push=None):
    """plan.mxm_packed_direction's choice for ``C<M> = A any.pair B``: push's entries, the
    degree sum of A's nonzero words (counted by the kernel that made a packed A; for another
    A, the degree sum of its entries, at most 64 times as many, or ``push`` where the caller
    has it); pull's, the words with an allowed bit (at most the allowed positions) times the
    average degree of B's columns with an entry (under a complemented mask, the positions of
    the columns without one are taken out of the allowed: pull never scans them); and the
    frontier's density among the allowed positions (A's entries and the mask's, counts the
    loop has read)."""
    from .mxm import _degree_sum, _last_direction
    from .mxv import row_stats

    positions = A.nrows * B.ncols
    if config["direction"] != "auto":
        return plan.mxm_packed_direction(0, 0, positions)[0]
    if push is None and isinstance(A, PackedBitmap):
        push = A.word_degree_sum(B.indptr)
    if push is None and bitmap.is_bitmap(A):
        push = A.degree_sum(B.indptr)
    if push is None:
        push = (_degree_sum(A.indices, B.indptr) if not bitmap.is_bitmap(A)
                else A.nvals * B.nvals // max(B.nrows, 1))
    columns = row_stats(BT)[1]  # B's columns with an entry
    if mask.complement:
        allowed = max(A.nrows * columns - mask.data.nvals, 0)
    else:
        allowed = mask.data.nvals
    words = B.ncols * width(A.nrows)
    pull = min(columns * width(A.nrows), allowed) * B.nvals / max(columns, 1)
    choice = plan.mxm_packed_direction(push, pull, positions, frontier=A.nvals,
                                       allowed=allowed, words=words,
                                       previous=_last_direction.get(B))[0]
    _last_direction[B] = choice
    return choice


def product(A, B, BT, choice, mask):
    """``C<M> = A any.pair B`` (any structural semiring, :func:`applies`) as a packed bitmap,
    by push (along B's rows) or pull (along BT's rows, B's columns); the result's entries and
    its nonzero words' degrees over B's row pointers (a square B) counted."""
    nrows, ncols = A.nrows, B.ncols
    W = width(nrows)
    total = ncols * W
    f_words = _pack(A, None, 0)
    m_words = _mask_words(mask)
    comp = np.int32(mask.complement)
    counters = Counters()
    deg = B.indptr if B.nrows == B.ncols else None
    if choice == "push":
        idx32, b_idx = bitmap._idx(B)
        fns = _kernels(idx32)
        out = cp.zeros(total, dtype=cp.uint64)
        if B.nrows * W and B.nvals:
            jit.launch(fns[5], B.nrows * W, (i64(B.nrows), i64(W), f_words, B.indptr, b_idx,
                                             i64(bitmap.PUSH_HEAVY), out))
            chunk_k, chunk_lo, nchunks = bitmap._chunks(B)
            if nchunks:
                jit.launch_warps(fns[6], nchunks * W,
                                 (i64(W), i64(nchunks), chunk_k, chunk_lo,
                                  i64(bitmap.PUSH_CHUNK), f_words, B.indptr, b_idx, out))
    else:
        idx32, bt_idx = bitmap._idx(BT)
        fns = _kernels(idx32)
        out = cp.empty(total, dtype=cp.uint64)
        if total:
            jit.launch(fns[3], total, (i64(nrows), i64(ncols), i64(W), m_words, comp, f_words,
                                       BT.indptr, bt_idx, i64(bitmap.PUSH_HEAVY), out))
            chunk_j, chunk_lo, nchunks = bitmap._chunks(BT)
            if nchunks:
                jit.launch_warps(fns[4], nchunks * W,
                                 (i64(nrows), i64(W), i64(nchunks), chunk_j, chunk_lo,
                                  i64(bitmap.PUSH_CHUNK), m_words, comp, f_words, BT.indptr,
                                  bt_idx, out))
    if total:
        jit.launch(fns[7], total, (i64(nrows), i64(ncols), i64(W), m_words, comp, deg, out,
                                   counters.array))
    counters.touch()
    return PackedBitmap(nrows, ncols, out, counters, word_deg_of=deg)


def assign_scalar(owner, C, value, mask):
    """``C(M.S) << value`` (or ``M.V``: every entry of a packed bitmap is True) for a packed
    mask M of C's shape, into C as a byte bitmap by column, in place where ``owner`` alone
    holds it (bitmap._writable): a pass over the mask's words, 64 positions written side by
    side for each nonzero one.  C's structure is kept packed with it (made once: from C's
    entries where C is a list, the levels of a multi-source BFS before its first step), so
    the pass ORs the mask's words into it and counts the new positions from the words
    alone, and the next product's mask ``~C.S`` is those words."""
    M = mask.data
    out = bitmap._writable(owner, C)
    words = out.packed
    if words is None:  # new words: from C's entries, or from the bytes of the bitmap written
        words = _pack(out if isinstance(C, BitmapMatrix) else C, None, 0)
    total = C.ncols * width(C.nrows)
    if total:
        (fn,) = jit.compiled(programs.packed_assign, C.dtype).fns
        jit.launch(fn, total, (i64(C.nrows), i64(C.ncols), i64(width(C.nrows)), M.words,
                               out.bits, out.vals, jit.scalar(value, C.dtype), words,
                               out.counters.array))
    out.changed()
    out.packed = words
    return out
