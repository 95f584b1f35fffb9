"""Element-wise operations and the masked write-back, on CSR matrices and sparse vectors.

Both operands are in row-major order, so their (row, col) keys are sorted: union and
intersection are merges by binary search, not hash tables.
"""

import numpy as np

from ...dtypes import cast
from ..base import CSR, SparseVector
from ._util import (
    INDEX, apply_binary, compressed_keys, coo_of, mask_allowed, positions, shape_of,
)
from .storage import indptr_from_rows


def _rebuild(like, rows, cols, vals, dtype):
    if isinstance(like, SparseVector):
        return SparseVector(like.size, dtype, cols, vals)
    return CSR(like.nrows, like.ncols, dtype, indptr_from_rows(rows, like.nrows), cols, vals)


def _match(A, B):
    """COO of A and B, plus where A's keys occur in B: (inb, posb)."""
    nrows, ncols = shape_of(A)
    ar, ac, av = coo_of(A)
    br, bc, bv = coo_of(B)
    ka, kb = compressed_keys([ar, br], [ac, bc], nrows, ncols)
    if kb.shape[0] == 0 or ka.shape[0] == 0:
        inb = np.zeros(ka.shape[0], dtype=bool)
        posb = np.zeros(ka.shape[0], dtype=INDEX)
    else:
        posb = np.searchsorted(kb, ka)
        posb[posb == kb.shape[0]] = 0
        inb = kb[posb] == ka
    return (ar, ac, av, ka), (br, bc, bv, kb), inb, posb


def _complete(X):
    """Whether X is a vector with an entry at every position (its values are dense)."""
    return isinstance(X, SparseVector) and X.indices.shape[0] == X.size


def _dense_union(A, B, op, dtype, left_default, right_default):
    """The union of two vectors of which one is complete: one pass over the positions (the
    result is complete), no matching.  None when neither is complete."""
    a_full, b_full = _complete(A), _complete(B)
    if not (a_full or b_full):
        return None
    n = A.size
    idx = np.arange(n, dtype=INDEX)
    zero = np.zeros(n, dtype=INDEX)
    if a_full and b_full:
        z = cast(apply_binary(op, A.values, B.values, idx, zero, idx, zero), dtype)
        return SparseVector(n, dtype, idx, z)
    F, P = (A, B) if a_full else (B, A)
    p = P.indices
    pz = zero[:p.shape[0]]
    if left_default is None:
        z = cast(F.values, dtype)  # an entry of one operand only is copied
    elif a_full:
        z = cast(apply_binary(op, A.values, np.full(n, right_default), idx, zero, idx, zero),
                 dtype)
    else:
        z = cast(apply_binary(op, np.full(n, left_default), B.values, idx, zero, idx, zero),
                 dtype)
    z = np.array(z, copy=True)  # written below; cast and first/second may return an input
    if a_full:
        z[p] = cast(apply_binary(op, A.values[p], B.values, p, pz, p, pz), dtype)
    else:
        z[p] = cast(apply_binary(op, A.values, B.values[p], p, pz, p, pz), dtype)
    return SparseVector(n, dtype, idx, z)


def ewise_mult(A, B, op):
    if _complete(A) and _complete(B):
        n = A.size
        idx = np.arange(n, dtype=INDEX)
        zero = np.zeros(n, dtype=INDEX)
        return SparseVector(n, op.return_type, idx,
                            apply_binary(op, A.values, B.values, idx, zero, idx, zero))
    (ar, ac, av, _), (br, bc, bv, _), inb, posb = _match(A, B)
    ia = np.flatnonzero(inb)
    ib = posb[ia]
    ai, aj = positions(A, ar, ac)
    bi, bj = positions(B, br, bc)
    z = apply_binary(op, av[ia], bv[ib], ai[ia], aj[ia], bi[ib], bj[ib])
    return _rebuild(A, ar[ia], ac[ia], z, op.return_type)


def ewise_add(A, B, op, out_dtype=None):
    """Union; ``op`` where both have an entry.  Entries of one operand only are cast to the
    result type (``out_dtype`` or op's return type).  Positional operators take the position of
    the entry for the operand that is present (as SuiteSparse)."""
    dtype = out_dtype or op.return_type
    return _union(A, B, op, dtype, None, None)


def ewise_union(A, B, op, left_default, right_default):
    """Union where a missing entry takes the operand's default scalar before ``op``."""
    return _union(A, B, op, op.return_type, left_default, right_default)


def _union(A, B, op, dtype, left_default, right_default):
    dense = _dense_union(A, B, op, dtype, left_default, right_default)
    if dense is not None:
        return dense
    (ar, ac, av, ka), (br, bc, bv, kb), inb, posb = _match(A, B)
    both_a = np.flatnonzero(inb)
    both_b = posb[both_a]
    only_a = np.flatnonzero(~inb)
    in_a = np.zeros(kb.shape[0], dtype=bool)
    in_a[both_b] = True
    only_b = np.flatnonzero(~in_a)

    ai, aj = positions(A, ar, ac)
    bi, bj = positions(B, br, bc)
    z_both = cast(apply_binary(op, av[both_a], bv[both_b], ai[both_a], aj[both_a], bi[both_b],
                               bj[both_b]), dtype)
    if left_default is None:
        # an entry in one operand only is copied (its value, also for positional operators)
        z_a = cast(av[only_a], dtype)
        z_b = cast(bv[only_b], dtype)
    else:
        na, nb = only_a.shape[0], only_b.shape[0]
        z_a = cast(apply_binary(op, av[only_a], np.full(na, right_default), ai[only_a],
                                aj[only_a], ai[only_a], aj[only_a]), dtype)
        z_b = cast(apply_binary(op, np.full(nb, left_default), bv[only_b], bi[only_b],
                                bj[only_b], bi[only_b], bj[only_b]), dtype)
    keys = np.concatenate([ka[both_a], ka[only_a], kb[only_b]])
    order = np.argsort(keys, kind="stable")
    rows = np.concatenate([ar[both_a], ar[only_a], br[only_b]])[order]
    cols = np.concatenate([ac[both_a], ac[only_a], bc[only_b]])[order]
    vals = np.concatenate([z_both, z_a, z_b])[order]
    return _rebuild(A, rows, cols, vals, dtype)


def mask_write(C, Z, mask, replace):
    """``C<mask, replace> = Z``: Z where the mask allows, C elsewhere unless ``replace``."""
    if mask is None:
        return Z
    nrows, ncols = shape_of(C)
    zr, zc, zv = coo_of(Z)
    keep_z = mask_allowed(mask, zr, zc, nrows, ncols)
    if replace:
        return _rebuild(C, zr[keep_z], zc[keep_z], zv[keep_z], C.dtype)
    cr, cc, cv = coo_of(C)
    keep_c = ~mask_allowed(mask, cr, cc, nrows, ncols)
    rows = np.concatenate([zr[keep_z], cr[keep_c]])
    cols = np.concatenate([zc[keep_z], cc[keep_c]])
    vals = np.concatenate([zv[keep_z], cv[keep_c]])
    (keys,) = compressed_keys([rows], [cols], nrows, ncols)
    order = np.argsort(keys, kind="stable")
    return _rebuild(C, rows[order], cols[order], vals[order], C.dtype)
