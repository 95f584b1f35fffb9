"""Structural products over packed bits on the CPU: the CUDA backend's packed bitmaps
(backends/cuda/packed.py) in NumPy.

``C<M> = F (+.x) B`` for a pair product under ``any`` or ``lor`` with a BOOL result (a
multi-source BFS's step) has every entry True, so the ``ns`` rows of a column are
``W = ceil(ns / 64)`` 64-bit words: bit ``i % 64`` of word ``i // 64`` of column j holds
position (i, j).  Pull ORs the words of each column's in-neighbours (``bitwise_or.reduceat``
over B's columns), push ORs each nonzero frontier word into its out-neighbours' (sorted by
target, then ``reduceat``); the mask's words are applied after, and the words unpacked into
a CSR result with every value True.
"""

import numpy as np

from ...dtypes import BOOL
from ..base import CSR
from ._util import INDEX, coo_of


def _words(rows, cols, ncols, W):
    """(ncols, W) uint64: bit ``rows[e] % 64`` of word ``rows[e] // 64`` of column
    ``cols[e]`` set."""
    dense = np.zeros((ncols, W * 64), dtype=bool)
    dense[cols, rows] = True
    return np.packbits(dense, axis=1, bitorder="little").view("<u8").astype(np.uint64)


def _mask_words(mask, nrows, ncols, W):
    """The words whose bits the mask lets through (bits past ``nrows`` clear)."""
    rows, cols, vals = coo_of(mask.data)
    if not mask.structural:
        keep = vals != 0 if vals.dtype.kind != "b" else vals
        rows, cols = rows[keep], cols[keep]
    words = _words(rows, cols, ncols, W)
    if mask.complement:
        words = ~words
        tail = nrows - 64 * (W - 1)
        if tail < 64:
            words[:, W - 1] &= np.uint64((1 << tail) - 1)
    return words


# entries of B gathered at once (each a frontier word of 8 * W bytes)
_CHUNK = 1 << 22


def _spans(ptr, lo, hi):
    """[a, b) ranges covering rows lo..hi of the row pointers ``ptr``, each of at most
    _CHUNK entries (a longer row alone)."""
    while lo < hi:
        b = int(np.searchsorted(ptr, ptr[lo] + _CHUNK, side="right")) - 1
        b = min(max(b, lo + 1), hi)
        yield lo, b
        lo = b


def _pull(F, BT, ncols):
    """(ncols, W): column j the OR of F's words at the entries of row j of BT."""
    out = np.zeros((ncols, F.shape[1]), dtype=np.uint64)
    ptr = BT.indptr
    for a, b in _spans(ptr, 0, ncols):
        starts = ptr[a:b] - ptr[a]
        some = np.diff(ptr[a:b + 1]) > 0
        if some.any():
            G = F[BT.indices[ptr[a]:ptr[b]]]
            out[a:b][some] = np.bitwise_or.reduceat(G, starts[some], axis=0)
    return out


def _push(F, B, ncols):
    """(ncols, W): F's nonzero rows ORed into the words of their rows' columns in B."""
    out = np.zeros((ncols, F.shape[1]), dtype=np.uint64)
    ks = np.flatnonzero(F.any(axis=1))
    deg = B.indptr[ks + 1] - B.indptr[ks]
    cum = np.concatenate([[0], np.cumsum(deg)])
    for a, b in _spans(cum, 0, ks.shape[0]):
        d = deg[a:b]
        first = cum[a:b] - cum[a]
        e = (np.repeat(B.indptr[ks[a:b]] - first, d)
             + np.arange(int(cum[b] - cum[a]), dtype=INDEX))
        targets = B.indices[e]
        order = np.argsort(targets, kind="stable")
        targets = targets[order]
        if targets.shape[0] == 0:
            continue
        G = F[np.repeat(ks[a:b], d)[order]]
        heads = np.flatnonzero(np.r_[True, targets[1:] != targets[:-1]])
        out[targets[heads]] |= np.bitwise_or.reduceat(G, heads, axis=0)
    return out


def product(A, B, BT, choice, mask):
    """``C<M> = A any.pair B`` as CSR, by push along B's rows or pull along BT's."""
    nrows, ncols = A.nrows, B.ncols
    W = max(1, -(-nrows // 64))
    rows, cols, _ = coo_of(A)
    F = _words(rows, cols, A.ncols, W)
    out = _pull(F, BT, ncols) if choice == "pull" else _push(F, B, ncols)
    out &= _mask_words(mask, nrows, ncols, W)
    bits = np.unpackbits(out.astype("<u8").view(np.uint8), axis=1, bitorder="little")
    r, c = np.nonzero(bits[:, :nrows].T)
    indptr = np.zeros(nrows + 1, dtype=INDEX)
    np.cumsum(np.bincount(r, minlength=nrows), out=indptr[1:])
    return CSR(nrows, ncols, BOOL, indptr, c.astype(INDEX),
               np.ones(c.shape[0], dtype=bool))

