"""Element-wise operations and the masked write-back on the GPU (see kernels/ewise.cuh).

Both operands are in row-major order: each entry finds its partner in the other operand by a
binary search within its row, and exclusive scans place every output entry, so the only host
synchronization is the one that sizes the result.
"""

import cupy as cp
import numpy as np

from ..base import CSR, SparseVector, computed_under
from . import arrays, blocks, jit, programs
from .blocks import INDEX, i64


def _zip_kernels(kind, op, a_type, b_type, z_type, vec, on_device=(False, False)):
    return jit.compiled(programs.ewise, kind, op, a_type, b_type, z_type, vec, on_device).fns


def _param(value, dtype):
    """A union default as a kernel argument (jit.scalar_arg), or a placeholder for none."""
    return np.int8(0) if value is None else jit.scalar_arg(value, dtype)


def _result(like, indptr, indices, values, dtype):
    if isinstance(like, SparseVector):
        return SparseVector(like.size, dtype, indices, values)
    return CSR(like.nrows, like.ncols, dtype, indptr, indices, values)


def ewise_mult(A, B, op):
    """Intersection: ``op(a, b)`` where both have an entry."""
    vec = isinstance(A, SparseVector)
    dtype = op.return_type
    pos, found = blocks.match(A, B)
    scan = blocks.exclusive_scan(found)
    count = blocks.total(scan)
    out_idx = cp.empty(count, dtype=INDEX)
    out_vals = cp.empty(count, dtype=dtype.np_type)
    na = A.indices.shape[0]
    if count:
        (fn,) = _zip_kernels("mult", op, A.dtype, B.dtype, dtype, vec)
        jit.launch(fn, na, (i64(na), blocks.indptr_or_none(A), i64(blocks.nrows_of(A)),
                            A.indices, A.values, B.values, pos, found, scan, out_idx, out_vals,
                            np.int8(0)))
    indptr = None if vec else arrays.take(scan, A.indptr)
    return _result(A, indptr, out_idx, out_vals, dtype)


def ewise_add(A, B, op, out_dtype=None):
    """Union; ``op`` where both have an entry, the entry cast to the result type where one
    has (its value, also for a positional operator)."""
    return _union("add", A, B, op, out_dtype or op.return_type, None, None)


def ewise_union(A, B, op, left_default, right_default):
    """Union where a missing operand takes its default before ``op``."""
    return _union("union", A, B, op, op.return_type, left_default, right_default)


def _union(kind, A, B, op, dtype, left_default, right_default):
    vec = isinstance(A, SparseVector)
    pos_a, found_a = blocks.match(A, B)
    pos_b, found_b = blocks.match(B, A)
    scan_a = blocks.exclusive_scan(found_a)
    scan_b = blocks.exclusive_scan(found_b)
    na, nb = A.indices.shape[0], B.indices.shape[0]
    if na and nb:
        matched = blocks.total(scan_a)
    else:
        matched = 0
    count = na + nb - matched
    out_idx = cp.empty(count, dtype=INDEX)
    out_vals = cp.empty(count, dtype=dtype.np_type)
    if count:
        on_device = (jit.is_device_value(left_default), jit.is_device_value(right_default))
        fa, fb = _zip_kernels(kind, op, A.dtype, B.dtype, dtype, vec, on_device)
        p1 = _param(left_default, op.type)
        p2 = _param(right_default, op.type2)
        nrows = i64(blocks.nrows_of(A))
        if na:
            jit.launch(fa, na, (i64(na), blocks.indptr_or_none(A), nrows, A.indices, A.values,
                                B.values, pos_a, found_a, scan_a, out_idx, out_vals, p1, p2))
        if nb:
            jit.launch(fb, nb, (i64(nb), blocks.indptr_or_none(B), nrows, B.indices, B.values,
                                pos_b, found_b, scan_b, out_idx, out_vals, p1, p2))
    indptr = None if vec else arrays.indptr_union(A.indptr, B.indptr, scan_a)
    return _result(A, indptr, out_idx, out_vals, dtype)


def mask_write(C, Z, mask, replace):
    """``C<mask, replace> = Z``: Z where the mask allows, C elsewhere unless ``replace``.

    When Z was computed under this very mask (the products pass the mask to the primitive, and
    the GPU kernels apply it exactly), Z already holds only allowed entries: with ``replace``,
    or into an empty C (``expr.new(mask=M)``: triangle counting's C<L> = L L'), it is the
    result as it is.
    """
    if mask is None:
        return Z
    if computed_under(Z, mask) and (replace or C.nvals == 0):
        return Z
    keep_z = blocks.mask_allows(mask, Z)
    if replace:
        return blocks.compact_entries(Z, keep_z)
    keep_c = blocks.mask_allows(mask, C, invert=True)
    pos_zc, _ = blocks.match(Z, C)
    pos_cz, _ = blocks.match(C, Z)
    scan_z = blocks.exclusive_scan(keep_z)
    scan_c = blocks.exclusive_scan(keep_c)
    nz, nc = Z.indices.shape[0], C.indices.shape[0]
    count = (blocks.total(scan_z) if nz else 0) + (blocks.total(scan_c) if nc else 0)
    dtype = C.dtype
    out_idx = cp.empty(count, dtype=INDEX)
    out_vals = cp.empty(count, dtype=dtype.np_type)
    if count:
        merge = jit.compiled(programs.merge_kept, dtype).fns[0]
        if nz:
            jit.launch(merge, nz, (i64(nz), Z.indices, Z.values, keep_z, scan_z, pos_zc, scan_c,
                                   out_idx, out_vals))
        if nc:
            jit.launch(merge, nc, (i64(nc), C.indices, C.values, keep_c, scan_c, pos_cz, scan_z,
                                   out_idx, out_vals))
    vec = isinstance(C, SparseVector)
    indptr = None if vec else arrays.indptr_kept(scan_z, Z.indptr, scan_c, C.indptr)
    return _result(C, indptr, out_idx, out_vals, dtype)
