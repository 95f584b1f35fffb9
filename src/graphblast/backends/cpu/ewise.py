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
    """COO of A and B, plus where A's keys occur in B: (inb, posb; posb only where inb).
    Each operand's keys are sorted and distinct, so the shorter one is searched in the
    longer: an accumulation of a few entries into many (SSSP's distances) costs the few."""
    nrows, ncols = shape_of(A)
    ar, ac, av = coo_of(A)
    br, bc, bv = coo_of(B)
    ka, kb = compressed_keys([ar, br], [ac, bc], nrows, ncols)
    na, nb = ka.shape[0], kb.shape[0]
    inb = np.zeros(na, dtype=bool)
    posb = np.zeros(na, dtype=INDEX)
    if na and nb:
        if nb <= na:
            at = np.minimum(np.searchsorted(ka, kb), na - 1)
            found = ka[at] == kb
            inb[at[found]] = True
            posb[at[found]] = np.flatnonzero(found)
        else:
            posb = np.searchsorted(kb, ka)
            posb[posb == nb] = 0
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
    in_a = np.zeros(kb.shape[0], dtype=bool)
    in_a[both_b] = True
    only_b = np.flatnonzero(~in_a)

    ai, aj = positions(A, ar, ac)
    bi, bj = positions(B, br, bc)
    z_both = cast(apply_binary(op, av[both_a], bv[both_b], ai[both_a], aj[both_a], bi[both_b],
                               bj[both_b]), dtype)
    if left_default is None:
        # an entry in one operand only is copied (its value, also for positional operators)
        z_a = cast(av, dtype)  # A's values, op's written below where B has one too
        if z_a is av:  # cast to its own type returns the array: A's storage is not ours
            z_a = av.copy()
        z_b = cast(bv[only_b], dtype)
    else:
        only_a = np.flatnonzero(~inb)
        nb = only_b.shape[0]
        z_a = np.empty(ka.shape[0], dtype=z_both.dtype)
        z_a[only_a] = cast(apply_binary(op, av[only_a], np.full(only_a.shape[0], right_default),
                                        ai[only_a], aj[only_a], ai[only_a], aj[only_a]), dtype)
        z_b = cast(apply_binary(op, np.full(nb, left_default), bv[only_b], bi[only_b],
                                bj[only_b], bi[only_b], bj[only_b]), dtype)
    z_a[both_a] = z_both
    if not only_b.shape[0]:  # A's keys are the result's
        return _rebuild(A, ar, ac, z_a, dtype)
    # A's keys merged with B's others, two sorted runs: B's key goes before the A entry
    # where a search of A's keys puts it, so its place is that plus its rank in its run
    at_b = np.searchsorted(ka, kb[only_b]) + np.arange(only_b.shape[0], dtype=INDEX)
    from_b = np.zeros(ka.shape[0] + only_b.shape[0], dtype=bool)
    from_b[at_b] = True
    from_a = ~from_b

    def merged(a, b, dtype):
        out = np.empty(from_b.shape[0], dtype=dtype)
        out[from_a], out[at_b] = a, b
        return out

    rows = None if isinstance(A, SparseVector) else merged(ar, br[only_b], ar.dtype)
    return _rebuild(A, rows, merged(ac, bc[only_b], ac.dtype),
                    merged(z_a, z_b, np.result_type(z_a, z_b)), dtype)


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
