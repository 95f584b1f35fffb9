"""Products by propagation blocking (kernels/binned.cuh): for many products over one matrix
with a full vector (PageRank), where a pull's random reads of the vector overflow the L2.

``binned(A, itemsize)`` lays the matrix's entries out once into bins of output positions and
returns a :class:`BinnedCSR`: A itself (its arrays shared, not copied) with that layout.
``vxm(u, B)`` (and so ``B.T.mxv(u)``) with a full ``u``, no mask and a monoid of
``itemsize``-byte values then streams (``product``); every other operation on B sees A.

Memory: per entry a 4-byte slot, a 2-byte offset and one value of scratch (``layout_bytes``;
about 59 GB for kron-27's 4.2 billion entries in FP64, beside its 17 GB graph).  Two
synchronizations to lay out (the bins' statistics, the outputs' count), none a product.
A product's fold in shared memory is by atomics: the order in which a position's values are
added varies from run to run (as in a pushed product), so floating-point sums may differ in
their last bits between runs.
"""

import cupy as cp
import numpy as np

from ..base import CSR
from . import blocks, jit, mxv, programs, recording
from .blocks import i64
from .vectors import BitmapVector, Counters, FullVector

BITS = programs.BINNED_BITS  # a bin's positions, as the width of their offsets
CHUNK = 1 << 20  # GBK_BINNED_CHUNK: a bin's entries folded by one block at a time
_SLOT_MAX = 2**32 - 1  # slots are 32-bit: no bin may hold more entries
FOLD_BY_WARP = True  # the fold's lanes of one position combined before its atomic


class BinnedCSR(CSR):
    """A CSR matrix that shares another's arrays and adds the layout of binned products."""

    __slots__ = ("binned",)


class Layout:
    """Each entry's slot in the bin of its column, the bins' starts and chunks, the columns
    that have an entry (the products' presence bytes and count), and the scratch values."""

    __slots__ = ("bits", "itemsize", "bin_start", "slot", "dst", "obits", "count",
                 "chunk_bins", "chunk_occ", "nchunks", "long_bins", "nlong", "scratch")

    def arrays(self):
        return [self.bin_start, self.slot, self.dst, self.obits, self.chunk_bins,
                self.chunk_occ, self.long_bins, self.scratch]


def layout_bytes(A, itemsize):
    """The bytes ``binned(A, itemsize)`` adds to A, about."""
    nbins = (A.ncols >> BITS.get(itemsize, 12)) + 1
    return A.nvals * (4 + 2 + itemsize) + A.ncols * (1 + itemsize) + nbins * 40


def binned(A, itemsize):
    """A with the layout of binned products whose monoid has ``itemsize``-byte values, or None
    where they cannot be made (another value width, or a bin of 2^32 entries or more)."""
    bits = BITS.get(itemsize)
    if bits is None or A.nvals == 0:
        return None
    n_out, nnz = A.ncols, A.nvals
    nbins = (n_out + (1 << bits) - 1) >> bits
    v = mxv.view(A)
    count_fn, *slots_fns = jit.compiled(programs.binned_layout, v.idx32).fns
    counts = cp.zeros(nbins, dtype=cp.uint64)
    jit.launch(count_fn, nnz, (i64(nnz), v.col, np.int32(bits), counts))
    bin_start = blocks.exclusive_scan(counts)
    per_bin = (counts + np.uint64(CHUNK - 1)) // np.uint64(CHUNK)
    chunk_scan = blocks.exclusive_scan(per_bin)
    longest, nchunks, nlong = (int(x) for x in blocks.read_small(cp.stack([
        counts.max(), chunk_scan[-1].astype(cp.uint64),
        cp.count_nonzero(per_bin > 1).astype(cp.uint64)])))
    if longest > _SLOT_MAX:
        return None
    lay = Layout()
    lay.bits, lay.itemsize, lay.bin_start = bits, itemsize, bin_start
    lay.slot = cp.empty(nnz, dtype=cp.uint32)
    lay.dst = cp.empty(nnz, dtype=cp.uint16)
    lay.obits = cp.zeros(n_out, dtype=cp.uint8)
    cursor = counts
    cursor.fill(0)
    _walk(A, v, slots_fns, (np.int32(bits), bin_start, cursor, lay.slot, lay.dst, lay.obits))
    del cursor, counts
    lay.chunk_bins, lay.chunk_occ = blocks.expand(chunk_scan, nbins, nchunks)
    lay.nchunks, lay.nlong = nchunks, nlong
    lay.long_bins = cp.flatnonzero(per_bin > 1)
    lay.scratch = cp.empty(nnz * itemsize, dtype=cp.uint8)
    lay.count = int(blocks.read_small(cp.count_nonzero(lay.obits).reshape(1))[0])
    B = BinnedCSR(A.nrows, A.ncols, A.dtype, A.indptr, A.stored_indices, A._values,
                  iso_value=A.iso_value)
    B.symmetric = A.symmetric
    B._transpose, B._view, B._stats = A._transpose, A._view, A._stats
    B.binned = lay
    return B


def product(A, u, semiring, mask):
    """``u' A`` by the layout of ``A.binned``, as a bitmap, for a full ``u`` and no mask
    (outside a recorded loop body); None where the layout does not serve: then the product
    is an ordinary one over A.  Not for an ``any`` monoid, whose pick a fold would not keep,
    nor for values of another width than the layout's."""
    lay = A.binned
    t = semiring.monoid.return_type
    if (mask is not None or not isinstance(u, FullVector) or recording.thread.rec is not None
            or t.np_type.itemsize != lay.itemsize or semiring.monoid.parent.name == "any"):
        return None
    v = mxv.view(A)
    fns = jit.compiled(programs.binned, semiring, A.dtype, u.dtype, v.idx32, lay.bits).fns
    mvalues = mxv.matrix_values(A, v, semiring, True)
    _walk(A, v, fns[:2], (np.int32(lay.bits), lay.bin_start, lay.slot, *mvalues, u.vals,
                          lay.scratch.view(t.np_type)))
    n_out = A.ncols
    out = cp.empty(n_out, dtype=t.np_type)
    if lay.nlong:
        jit.launch(fns[2], lay.nlong << lay.bits, (i64(lay.nlong), lay.long_bins, i64(n_out),
                                                   out))
    jit.run(fns[3 if FOLD_BY_WARP else 4], min(lay.nchunks, jit.MAX_GRID), 512, (
        i64(lay.nchunks), lay.chunk_bins, lay.chunk_occ, lay.bin_start, lay.dst,
        lay.scratch.view(t.np_type), i64(n_out), out))
    result = BitmapVector(n_out, t, lay.obits.copy(), out, Counters((lay.count, 0)))
    result.made_by = "binned"
    return result


def _walk(A, v, fns, rest):
    """The walk of A's entries that a product's scatter takes and the layout's slots follow
    (``fns``: the rows' kernel and the heavy rows' chunks' kernel, with ``rest`` after the
    walk's own arguments): the light rows by the traversal view's degree bins (or ``width``
    lanes a row), then the heavy rows in chunks."""
    heavy = i64(mxv.HEAVY if v.nheavy else mxv.NO_HEAVY)
    if v.bins:
        for rows, nrows, lanes in v.bins:
            jit.launch(fns[0], nrows * lanes, (i64(nrows), rows, A.indptr, v.col,
                                               np.int32(lanes), heavy, *rest))
    elif A.nrows:
        jit.launch(fns[0], A.nrows * v.width, (i64(A.nrows), None, A.indptr, v.col,
                                               np.int32(v.width), heavy, *rest))
    if v.nheavy:
        chunk_rows, chunk_starts, nchunks = v.heavy_chunks(A)
        jit.run(fns[1], min(nchunks, jit.MAX_GRID), 256, (
            i64(nchunks), chunk_rows, chunk_starts, A.indptr, v.col, *rest))
