"""Matrix products on the CPU: SpGEMM (mxm), SpMV/SpMSpV (mxv, vxm) and kronecker.

Every semiring goes through one vectorized scheme: expand the products, reduce equal output
positions with the monoid.  plus_times on numeric types takes SciPy's SpGEMM instead, with the
structure computed separately (SciPy drops entries whose sum is zero; GraphBLAS keeps them).
"""

import numpy as np
import scipy.sparse as sp

from ... import plan
from ...dtypes import cast
from ..base import CSR, SparseVector
from ._util import (
    INDEX, apply_binary, compressed_keys, keys_fit, linear_keys, mask_allowed, row_ids,
    segment_reduce, segment_starts,
)
from .storage import from_scipy_canonical, indptr_from_rows, to_scipy, transpose

# products expanded at once; bounds the working memory of the general SpGEMM
_CHUNK = 1 << 22


def _scipy_kind(semiring):
    """"times" or "pair" when SciPy's SpGEMM computes this semiring exactly, else None."""
    if semiring.monoid.parent.name != "plus" or semiring.return_type.is_bool:
        return None
    mult = semiring.binaryop
    if mult.parent.name == "times" and mult.type is mult.type2:
        return "times"  # commutative: also right for a swapped semiring
    if mult.parent.name in ("pair", "oneb"):
        return "pair"
    return None


def mxm(A, B, semiring, mask):
    # Under a plain mask, expanding only the products and dropping the masked-out ones before
    # sorting beats computing the whole product with SciPy and filtering it.
    kind = _scipy_kind(semiring) if mask is None or mask.complement else None
    if kind is not None:
        C = _mxm_scipy(A, B, semiring, kind)
        if mask is not None:
            C = _filter(C, mask)
        return C
    return _mxm_expand(A, B, semiring, mask)


def _filter(C, mask):
    rows = row_ids(C.indptr, C.nrows)
    keep = mask_allowed(mask, rows, C.indices, C.nrows, C.ncols)
    return CSR(C.nrows, C.ncols, C.dtype, indptr_from_rows(rows[keep], C.nrows),
               C.indices[keep], C.values[keep])


def _mxm_scipy(A, B, semiring, kind):
    dtype = semiring.return_type
    pattern = (_ones(A) @ _ones(B)).tocsr()
    pattern.sort_indices()
    if kind == "pair":
        numeric = (_ones(A, dtype) @ _ones(B, dtype)).tocsr()
    else:
        t = semiring.binaryop.type
        numeric = (to_scipy(A, t) @ to_scipy(B, t)).tocsr()
    numeric.sort_indices()
    result = from_scipy_canonical(pattern, dtype)
    vals = np.zeros(result.nvals, dtype=dtype.np_type)
    if numeric.nnz:
        num = from_scipy_canonical(numeric, dtype)
        pkeys, nkeys = compressed_keys(
            [row_ids(result.indptr, result.nrows), row_ids(num.indptr, num.nrows)],
            [result.indices, num.indices], result.nrows, result.ncols)
        pos = np.searchsorted(pkeys, nkeys)
        vals[pos] = num.values
    return CSR(result.nrows, result.ncols, dtype, result.indptr, result.indices, vals)


def _ones(A, dtype=None):
    """A's structure with values 1 (BOOL by default: SciPy sums booleans with OR, so no entry
    cancels and the product is the exact structure)."""
    np_type = bool if dtype is None else dtype.np_type
    return sp.csr_array((np.ones(A.nvals, dtype=np_type), A.indices, A.indptr),
                        shape=(A.nrows, A.ncols))


def _mxm_expand(A, B, semiring, mask):
    """General SpGEMM: per chunk of A's rows, expand every product A(i,k) * B(k,j), drop those
    the mask excludes, sort by (i, j) and reduce runs with the monoid."""
    mult, add = semiring.binaryop, semiring.monoid
    nrows, ncols = A.nrows, B.ncols
    bdeg = np.diff(B.indptr)
    work = bdeg[A.indices]  # products made by each entry of A
    arows = row_ids(A.indptr, A.nrows)
    row_work = np.zeros(nrows + 1, dtype=INDEX)
    np.cumsum(np.bincount(arows, weights=work, minlength=nrows).astype(INDEX), out=row_work[1:])
    out_rows, out_cols, out_vals = [], [], []
    r0 = 0
    while r0 < nrows:
        r1 = int(np.searchsorted(row_work, row_work[r0] + _CHUNK, side="right")) - 1
        r1 = min(max(r1, r0 + 1), nrows)
        e0, e1 = int(A.indptr[r0]), int(A.indptr[r1])
        r0 = r1
        d = work[e0:e1]
        total = int(d.sum())
        if total == 0:
            continue
        a_idx = np.repeat(np.arange(e0, e1, dtype=INDEX), d)
        first = np.cumsum(d) - d
        b_idx = np.repeat(B.indptr[A.indices[e0:e1]] - first, d) + np.arange(total, dtype=INDEX)
        rows = arows[a_idx]
        cols = B.indices[b_idx]
        if mask is not None:
            keep = mask_allowed(mask, rows, cols, nrows, ncols)
            a_idx, b_idx, rows, cols = a_idx[keep], b_idx[keep], rows[keep], cols[keep]
            if rows.shape[0] == 0:
                continue
        ks = A.indices[a_idx]
        z = apply_binary(mult, A.values[a_idx], B.values[b_idx], rows, ks, ks, cols)
        z = cast(z, add.type)
        if keys_fit(nrows, ncols):
            order = np.argsort(linear_keys(rows, cols, ncols), kind="stable")
        else:
            order = np.lexsort((cols, rows))
        rows, cols, z = rows[order], cols[order], z[order]
        starts = segment_starts(linear_keys(rows, cols, ncols)) if keys_fit(nrows, ncols) else \
            _run_starts(rows, cols)
        out_rows.append(rows[starts])
        out_cols.append(cols[starts])
        out_vals.append(segment_reduce(z, starts, add))
    dtype = semiring.return_type
    if not out_rows:
        return CSR(nrows, ncols, dtype, np.zeros(nrows + 1, dtype=INDEX), np.zeros(0, INDEX),
                   np.zeros(0, dtype.np_type))
    rows = np.concatenate(out_rows)
    return CSR(nrows, ncols, dtype, indptr_from_rows(rows, nrows), np.concatenate(out_cols),
               np.concatenate(out_vals))


def _run_starts(rows, cols):
    n = rows.shape[0]
    flags = np.ones(n, dtype=bool)
    flags[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    return np.flatnonzero(flags)


# -- matrix-vector ---------------------------------------------------------------------------

def mxv(A, u, semiring, mask):
    """w = A (+.x) u: pull over A's rows, or push over A' from u's entries, whichever the
    planner estimates cheaper."""
    push_work = _degree_sum(transpose(A), u) if A._transpose is not None else \
        _degree_sum_cols(A, u)
    choice, _ = plan.direction(push_work, A.nvals)
    if choice == "push":
        return _push(transpose(A), u, semiring, mask, vector_first=False)
    return _pull(A, u, semiring, mask, vector_first=False)


def vxm(u, A, semiring, mask):
    """w = u' (+.x) A: push from u's entries over A's rows, or pull over A'."""
    choice, _ = plan.direction(_degree_sum(A, u), A.nvals)
    if choice == "push":
        return _push(A, u, semiring, mask, vector_first=True)
    return _pull(transpose(A), u, semiring, mask, vector_first=True)


def _degree_sum(A, u):
    """Products that push over A's rows at u's indices makes."""
    if u.nvals == 0:
        return 0
    return int((A.indptr[u.indices + 1] - A.indptr[u.indices]).sum())


def _degree_sum_cols(A, u):
    """Estimate of the same over A' without building it: u's share of A's entries."""
    return int(A.nvals * (u.nvals / max(A.ncols, 1)))


def _pull(M, u, semiring, mask, vector_first):
    """w(i) = (+) over k of M(i, k) * u(k), visiting M's entries whose column u holds.

    ``vector_first`` says the product is mult(u(k), M(i,k)) - the case of vxm pulling over A'.
    """
    mult, add = semiring.binaryop, semiring.monoid
    n = M.nrows
    rows = row_ids(M.indptr, n)
    if u.nvals == M.ncols and mask is None:  # a full vector: every entry, nothing to select
        ks, mvals, vvals = M.indices, M.values, u.values[M.indices]
    else:
        present = np.zeros(M.ncols, dtype=bool)
        present[u.indices] = True
        keep = present[M.indices]
        if mask is not None:
            keep &= _rows_allowed(mask, n)[rows]
        sel = np.flatnonzero(keep)
        rows, ks = rows[sel], M.indices[sel]
        uvals = np.zeros(M.ncols, dtype=u.values.dtype)
        uvals[u.indices] = u.values
        mvals, vvals = M.values[sel], uvals[ks]
    zeros = np.zeros_like(rows) if mult.position is not None else None
    if vector_first:  # mult(u(k), A(k, i)): u is 1 x n at row 0; A entry at (k, i)
        z = apply_binary(mult, vvals, mvals, zeros, ks, ks, rows)
    else:  # mult(A(i, k), u(k)): u is n x 1 at column 0
        z = apply_binary(mult, mvals, vvals, rows, ks, ks, zeros)
    z = cast(z, add.type)
    starts = segment_starts(rows)
    return SparseVector(n, semiring.return_type, rows[starts], segment_reduce(z, starts, add))


def _rows_allowed(mask, n):
    """Dense boolean of the output positions a vector mask allows."""
    allowed = np.zeros(n, dtype=bool)
    data = mask.data
    if mask.structural:
        allowed[data.indices] = True
    else:
        allowed[data.indices[data.values != 0]] = True
    return ~allowed if mask.complement else allowed


def _push(M, u, semiring, mask, vector_first):
    """w(j) = (+) over k in u of u(k) * M(k, j): expand the rows of M that u selects.

    ``vector_first`` False means the product is mult(M(k, j), u(k)) - mxv pushing over A'."""
    mult, add = semiring.binaryop, semiring.monoid
    n = M.ncols
    starts_k = M.indptr[u.indices]
    d = M.indptr[u.indices + 1] - starts_k
    total = int(d.sum())
    if total == 0:
        return SparseVector(n, semiring.return_type, np.zeros(0, INDEX),
                            np.zeros(0, semiring.return_type.np_type))
    u_idx = np.repeat(np.arange(u.nvals, dtype=INDEX), d)
    first = np.cumsum(d) - d
    m_idx = np.repeat(starts_k - first, d) + np.arange(total, dtype=INDEX)
    cols = M.indices[m_idx]
    if mask is not None:
        keep = _rows_allowed(mask, n)[cols]
        u_idx, m_idx, cols = u_idx[keep], m_idx[keep], cols[keep]
    ks = u.indices[u_idx]
    zeros = np.zeros_like(cols)
    if vector_first:  # mult(u(k), A(k, j)), u is a row vector at row 0
        z = apply_binary(mult, u.values[u_idx], M.values[m_idx], zeros, ks, ks, cols)
    else:  # mult(A(j, k), u(k)) with M = A': entry M(k, j) is A(j, k)
        z = apply_binary(mult, M.values[m_idx], u.values[u_idx], cols, ks, ks, zeros)
    z = cast(z, add.type)
    order = np.argsort(cols, kind="stable")
    cols, z = cols[order], z[order]
    starts = segment_starts(cols)
    return SparseVector(n, semiring.return_type, cols[starts], segment_reduce(z, starts, add))


# -- kronecker -------------------------------------------------------------------------------

def kronecker(A, B, op):
    """C(iA*mB + iB, jA*nB + jB) = op(A(iA, jA), B(iB, jB))."""
    nrows, ncols = A.nrows * B.nrows, A.ncols * B.ncols
    arows, brows = row_ids(A.indptr, A.nrows), row_ids(B.indptr, B.nrows)
    na, nb = A.nvals, B.nvals
    ai = np.repeat(np.arange(na, dtype=INDEX), nb)
    bi = np.tile(np.arange(nb, dtype=INDEX), na)
    rows = arows[ai] * B.nrows + brows[bi]
    cols = A.indices[ai] * B.ncols + B.indices[bi]
    z = apply_binary(op, A.values[ai], B.values[bi], arows[ai], A.indices[ai], brows[bi],
                     B.indices[bi])
    order = np.lexsort((cols, rows))
    rows, cols, z = rows[order], cols[order], z[order]
    return CSR(nrows, ncols, op.return_type, indptr_from_rows(rows, nrows), cols, z)
