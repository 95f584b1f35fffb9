"""Matrix-vector products on the GPU: mxv/vxm by pull (SpMV over the allowed rows) or push
(SpMSpV from the vector's entries), as the planner chooses.

Every product takes the mask and skips the outputs it excludes; such results are marked
(blocks.under_mask) so that the write-back with ``replace`` costs nothing.
"""

import weakref

import cupy as cp
import numpy as np

from ... import plan
from ...config import config
from ..base import SparseVector
from . import blocks, jit, programs
from .blocks import INDEX, i64
from .storage import transpose

# mxv/vxm with both dimensions of the matrix at most this go to the one-block kernel
# (GBK_SMALL_N in spmv.cuh).
SMALL = 1024

# -- matrix-vector ---------------------------------------------------------------------------

def mxv(A, u, semiring, mask):
    """w = A (+.x) u: pull over A's rows, or push from u's entries over A', as the planner
    estimates cheaper.  The estimate of push's work is u's share of A's entries (exact degree
    sums would cost a synchronization per call)."""
    push_work = int(A.nvals * (u.nvals / max(A.ncols, 1)))
    choice, _ = plan.direction(push_work, A.nvals)
    if choice == "push":
        return _mv(transpose(A, config["transpose_cache"]), u, semiring, mask, False, True)
    return _mv(A, u, semiring, mask, False, False)


def vxm(u, A, semiring, mask):
    """w = u' (+.x) A: push from u's entries over A's rows, or pull over A'."""
    push_work = int(A.nvals * (u.nvals / max(A.nrows, 1)))
    choice, _ = plan.direction(push_work, A.nvals)
    if choice == "push":
        return _mv(A, u, semiring, mask, True, True)
    return _mv(transpose(A, config["transpose_cache"]), u, semiring, mask, True, False)


def _mv_kernels(kind, semiring, M, u, vfirst, push):
    return jit.kernels(*programs.mv(kind, semiring, M.dtype, u.dtype, vfirst, push)).fns


def _mask_args(mask):
    """(nvals, indices, values, kind, complement) of a vector mask for the kernels."""
    if mask is None:
        return i64(0), None, None, np.int32(0), np.int32(0)
    m = mask.data
    return (i64(m.indices.shape[0]), m.indices, m.values, np.int32(programs.mask_kind(mask)),
            np.int32(mask.complement))


def _mv(M, u, semiring, mask, vfirst, push):
    """The product of CSR M with vector u: pull gives one output per row of M, push one per
    column.  ``vfirst``: the vector is the multiply's first operand (vxm)."""
    n_out = M.ncols if push else M.nrows
    n_in = M.nrows if push else M.ncols
    t = semiring.monoid.return_type
    ref = None if mask is None else weakref.ref(mask)
    if n_out <= SMALL and n_in <= SMALL:
        return _mv_small(M, u, semiring, mask, vfirst, push, n_out, n_in, t, ref)
    ks = _mv_kernels("general", semiring, M, u, vfirst, push)
    allowed = None
    if mask is not None:
        allowed = (cp.ones if mask.complement else cp.zeros)(n_out, dtype=cp.uint8)
        nm, m_idx, m_vals, kind, complement = _mask_args(mask)
        if nm:
            jit.launch(ks[-1], int(nm), (nm, m_idx, m_vals, kind, complement, allowed))
    nu = u.nvals
    flags = cp.zeros(n_out, dtype=cp.uint8)
    if push:
        vals = cp.empty(n_out, dtype=t.np_type)
        if semiring.monoid.parent.name == "any":
            win = cp.full(n_out, np.iinfo(np.int64).max, dtype=np.int64)
            if nu:
                jit.launch_warps(ks[0], nu, (i64(nu), u.indices, M.indptr, M.indices, allowed,
                                             win))
                jit.launch_warps(ks[1], nu, (i64(nu), u.indices, u.values, M.indptr, M.indices,
                                             M.values, allowed, win, vals, flags))
        elif nu:
            jit.launch(ks[0], n_out, (i64(n_out), vals))
            jit.launch_warps(ks[1], nu, (i64(nu), u.indices, u.values, M.indptr, M.indices,
                                         M.values, allowed, vals, flags))
    else:
        udense = cp.empty(n_in, dtype=u.dtype.np_type)
        upresent = cp.zeros(n_in, dtype=cp.uint8)
        if nu:
            jit.launch(ks[0], nu, (i64(nu), u.indices, u.values, udense, upresent))
        vals = cp.empty(n_out, dtype=t.np_type)
        if n_out:
            jit.launch_warps(ks[1], n_out, (i64(n_out), M.indptr, M.indices, M.values, udense,
                                            upresent, allowed, vals, flags))
    return blocks.under_mask(blocks.compact_dense(flags, vals, n_out, t), ref)


def _mv_small(M, u, semiring, mask, vfirst, push, n_out, n_in, t, ref):
    """The whole product in one block (gbk_mv_small): one launch, one 8-byte copy back."""
    (fn,) = _mv_kernels("small", semiring, M, u, vfirst, push)
    buf = cp.empty(n_out + 1, dtype=INDEX)  # output indices, then the count
    count = buf[n_out:]
    vals = cp.empty(n_out, dtype=t.np_type)
    nm, m_idx, m_vals, kind, complement = _mask_args(mask)
    fn((1,), (256,), (i64(n_out), i64(n_in), M.indptr, M.indices, M.values, i64(u.nvals),
                      u.indices, u.values, np.int32(mask is not None), nm, m_idx, m_vals, kind,
                      complement, buf, vals, count))
    k = int(count.get()[0])
    if ref is None:
        return SparseVector(n_out, t, buf[:k], vals[:k])
    out = blocks.MaskedVector(n_out, t, buf[:k], vals[:k])
    out._under_mask = ref
    return out
