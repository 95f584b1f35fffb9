"""Matrix products on the CPU: SpGEMM (mxm), SpMV/SpMSpV (mxv, vxm) and kronecker.

Every semiring goes through one vectorized scheme: expand the products, reduce equal output
positions with the monoid.  plus_times on numeric types takes SciPy's SpGEMM instead, with the
structure computed separately (SciPy drops entries whose sum is zero; GraphBLAS keeps them).
"""

import weakref

import numpy as np

from ... import plan
from ...config import config
from ...dtypes import cast
from ..base import CSR, SparseVector
from . import packed
from ._util import (
    INDEX, apply_binary, compressed_keys, coo_of, keys_fit, linear_keys, mask_allowed, row_ids,
    segment_reduce, segment_starts,
)
from .storage import from_scipy_canonical, indptr_from_rows, to_scipy
from .storage import transpose as _transpose

# products expanded at once; bounds the working memory of the general SpGEMM
_CHUNK = 1 << 22

try:  # the compiled sorted-row intersection (setup.py; optional)
    from . import _intersect
except ImportError:  # pragma: no cover - a build without a C compiler
    _intersect = None


def _transposed(A):
    """A', cached on A when ``gb.config["transpose_cache"]`` allows (as Backend.transpose)."""
    return _transpose(A, cache=config["transpose_cache"])


def _scipy_kind(semiring):
    """"times" or "pair" when SciPy's SpGEMM computes this semiring exactly, else None."""
    if semiring.monoid.parent.builtin_name != "plus" or semiring.return_type.is_bool:
        return None
    mult = semiring.binaryop
    if mult.parent.builtin_name == "times" and mult.type is mult.type2:
        return "times"  # commutative: also right for a swapped semiring
    if mult.parent.builtin_name in ("pair", "oneb"):
        return "pair"
    return None


def mxm(A, B, semiring, mask):
    # With a mask, push (expand A's products, drop those the mask excludes before the sort)
    # or pull (each output the mask allows gathers along B's column: dot products under a
    # plain mask, a gather against the dense frontier under a complemented one), as
    # plan.mxm_direction chooses from the same work counts as the GPU backend's.
    if mask is not None and keys_fit(max(A.nrows, B.ncols), A.ncols) and (
            not mask.complement or A.nrows * B.ncols <= _PULL_POSITIONS):
        BT = _transposed(B)
        choice = mxm_direction(A, B, BT, semiring, mask)
        if _packed_applies(semiring):  # a structural product: a bit a position
            return packed.product(A, B, BT, choice, mask)
        if choice == "pull":
            if not mask.complement and not _dense_pull(A):
                return _mxm_dot(A, BT, semiring, mask)
            return _mxm_pull(A, BT, semiring, mask)
        return _mxm_expand(A, B, semiring, mask)
    if mask is None and at_most_one_per_row(B):
        return _mxm_gather(A, B, semiring)
    kind = _scipy_kind(semiring) if mask is None else None
    if kind is not None:
        C = _mxm_scipy(A, B, semiring, kind)
        if mask is not None:
            C = _filter(C, mask)
        return C
    return _mxm_expand(A, B, semiring, mask)


def mxm_bt(A, BT, semiring, mask):
    """C = A (+.x) BT': the masked dot product reads BT's rows as they are (no transpose is
    built for ``mxm(A, M.T)`` under a plain mask: triangle counting's ``L @ L'``, unless the
    direction rule finds push cheaper; it is asked only where B' is already at hand)."""
    if _dot_applies(A, BT.nrows, mask):
        B = BT._transpose if not BT.symmetric else BT
        if B is None or mxm_direction(A, B, BT, semiring, mask) == "pull":
            if _dense_pull(A):
                return _mxm_pull(A, BT, semiring, mask)
            return _mxm_dot(A, BT, semiring, mask)
        return _mxm_expand(A, B, semiring, mask)
    return mxm(A, _transposed(BT), semiring, mask)


# the most outputs a pull lays out densely (a larger complemented product always pushes)
_PULL_POSITIONS = 1 << 31
# under a plain mask, pull gathers against A laid out densely where that takes at most
# _DENSE_PULL_SIZE positions and A holds at least 1 / _DENSE_PULL_SPARSITY of them (as the
# GPU backend's pull); otherwise each mask entry is a dot product
_DENSE_PULL_SIZE = 1 << 26
_DENSE_PULL_SPARSITY = 64


def _dense_pull(A):
    size = A.nrows * A.ncols
    return size <= _DENSE_PULL_SIZE and A.nvals * _DENSE_PULL_SPARSITY >= size
# the direction of the last masked product over each right-hand matrix (the hysteresis)
_last_direction = weakref.WeakKeyDictionary()


def mxm_direction(A, B, BT, semiring, mask):
    """Push or pull for C<M> = A (+.x) B (plan.mxm_direction) from exact work counts, as the
    GPU backend counts them: push's products (B's degrees over A's entries), then, unless
    they settle it (plan.mxm_push_settled), pull's visits (B' rows of the outputs the mask
    allows; under a plain mask with A too sparse to lay out densely, the dot products'
    shorter lists)."""
    push_work = int((B.indptr[A.indices + 1] - B.indptr[A.indices]).sum())
    m = mask.data
    previous = _last_direction.get(B)
    positions = A.nrows * B.ncols if mask.complement else m.nvals
    auto = config["direction"] == "auto"
    if auto and plan.mxm_push_settled(push_work, positions, previous):
        choice, _ = plan.mxm_direction(push_work, None, positions, previous=previous)
        _last_direction[B] = choice
        return choice
    if auto and mask.complement and plan.mxm_pull_settled(push_work, A.nrows * B.nvals,
                                                          positions, previous):
        choice, _ = plan.mxm_direction(push_work, A.nrows * B.nvals, positions,
                                       previous=previous)
        _last_direction[B] = choice
        return choice
    indeg = np.diff(BT.indptr)
    mrows, mcols = row_ids(m.indptr, m.nrows), m.indices
    mask_work = int(indeg[mcols].sum())
    any_monoid = semiring.monoid.parent.name in ("any", "lor")
    if mask.complement:
        allowed, pull_work = positions - m.nvals, A.nrows * B.nvals - mask_work
    elif _dense_pull(A):
        allowed, pull_work = m.nvals, mask_work
    else:
        allowed = m.nvals
        pull_work = int(np.minimum(np.diff(A.indptr)[mrows], indeg[mcols]).sum())
    choice, _ = plan.mxm_direction(
        push_work, pull_work, positions, first_hit_rows=allowed if any_monoid else None,
        nvals=B.nvals, rows=A.nrows, previous=previous)
    _last_direction[B] = choice
    return choice


def _packed_applies(semiring):
    """Whether the product is structural: a BOOL result of a pair product under any or lor
    (every entry True), computed over packed words (packed.py) as the GPU computes it."""
    mult, add = semiring.binaryop, semiring.monoid
    return (add.return_type.is_bool and add.parent.name in ("any", "lor")
            and mult.parent.builtin_name in ("pair", "oneb"))


def _mxm_pull(A, BT, semiring, mask):
    """C<M> = A (+.x) B by pull: every output (i, j) the mask allows (a complemented mask:
    all but its entries; a plain one: its entries) gathers A(i, k) * B(k, j) over the entries
    k of row j of B' whose A(i, k) is present (A laid out densely), in increasing k (``any``
    takes the smallest, as push does)."""
    mult, add = semiring.binaryop, semiring.monoid
    nrows, ncols, inner, t = A.nrows, BT.nrows, A.ncols, semiring.return_type
    arows = row_ids(A.indptr, nrows)
    present = np.zeros(nrows * inner, dtype=bool)
    present[linear_keys(arows, A.indices, inner)] = True
    avals = np.zeros(nrows * inner, dtype=A.values.dtype)
    avals[linear_keys(arows, A.indices, inner)] = A.values
    mrows, mcols, mvals = coo_of(mask.data)
    if not mask.structural:
        keep = mvals != 0 if mvals.dtype.kind != "b" else mvals
        mrows, mcols = mrows[keep], mcols[keep]
    if mask.complement:
        blocked = np.zeros(nrows * ncols, dtype=bool)
        blocked[linear_keys(mrows, mcols, ncols)] = True
        pos = np.flatnonzero(~blocked)
    else:
        pos = linear_keys(mrows, mcols, ncols)  # row-major, as CSR stores them
    deg = (BT.indptr[1:] - BT.indptr[:-1])[pos % ncols]
    bounds = np.cumsum(deg)
    out_pos, out_vals = [], []
    p0 = 0
    while p0 < pos.shape[0]:
        base = bounds[p0 - 1] if p0 else 0
        p1 = min(max(int(np.searchsorted(bounds, base + _CHUNK, side="right")), p0 + 1),
                 pos.shape[0])
        d, i, j = deg[p0:p1], pos[p0:p1] // ncols, pos[p0:p1] % ncols
        total = int(d.sum())
        p0 = p1
        if total == 0:
            continue
        e = np.repeat(np.arange(d.shape[0], dtype=INDEX), d)
        first = np.cumsum(d) - d
        b_idx = np.repeat(BT.indptr[j] - first, d) + np.arange(total, dtype=INDEX)
        a_key = i[e] * inner + BT.indices[b_idx]
        hit = np.flatnonzero(present[a_key])
        if hit.shape[0] == 0:
            continue
        e, b_idx, a_key = e[hit], b_idx[hit], a_key[hit]
        ks = BT.indices[b_idx]
        z = cast(apply_binary(mult, avals[a_key], BT.values[b_idx], i[e], ks, ks, j[e]),
                 add.type)
        starts = segment_starts(e)
        out_pos.append(i[e[starts]] * ncols + j[e[starts]])
        out_vals.append(segment_reduce(z, starts, add))
    if not out_pos:
        return CSR(nrows, ncols, t, np.zeros(nrows + 1, dtype=INDEX), np.zeros(0, INDEX),
                   np.zeros(0, t.storage_type))
    keys = np.concatenate(out_pos)
    return CSR(nrows, ncols, t, indptr_from_rows(keys // ncols, nrows), keys % ncols,
               np.concatenate(out_vals))


def _dot_applies(A, ncols, mask):
    return (mask is not None and not mask.complement
            and keys_fit(max(A.nrows, ncols), A.ncols))


def _mxm_dot(A, BT, semiring, mask):
    """C<M> = A (+.x) B over the entries (i, j) of M only: row i of A against row j of B',
    given as BT.

    For each mask entry the shorter of the two rows is expanded and each of its columns k
    looked up in the other row by binary search over row-major keys, so the work is the sum
    over the mask of min(|A(i,:)|, |B'(j,:)|) searches, never the products outside the mask.
    Matches are reduced per mask entry in order of k (``any`` takes the smallest k)."""
    mult, add = semiring.binaryop, semiring.monoid
    nrows, ncols, t = A.nrows, BT.nrows, semiring.return_type
    M = mask.data
    mrows, mcols = row_ids(M.indptr, M.nrows), M.indices
    if not mask.structural:
        keep = M.values != 0 if M.values.dtype.kind != "b" else M.values
        mrows, mcols = mrows[keep], mcols[keep]
    if _intersect is not None and _scipy_kind(semiring) == "pair":
        return _mxm_count(A, BT, mrows, mcols, t)
    inner = A.ncols
    adeg, bdeg = np.diff(A.indptr), np.diff(BT.indptr)
    la, lb = adeg[mrows], bdeg[mcols]
    a_short = la <= lb
    work = np.where(a_short, la, lb)
    a_keys = linear_keys(row_ids(A.indptr, nrows), A.indices, inner)
    b_keys = linear_keys(row_ids(BT.indptr, ncols), BT.indices, inner)
    out_e, out_v = [], []
    bounds = np.cumsum(work)
    e0 = 0
    while e0 < mrows.shape[0]:
        base = bounds[e0 - 1] if e0 else 0
        e1 = max(int(np.searchsorted(bounds, base + _CHUNK, side="right")), e0 + 1)
        e1 = min(e1, mrows.shape[0])
        pairs = [_dot_pairs(np.flatnonzero(a_short[e0:e1]) + e0, mrows, mcols, work, A,
                            BT, b_keys, inner, swap=False),
                 _dot_pairs(np.flatnonzero(~a_short[e0:e1]) + e0, mcols, mrows, work, BT,
                            A, a_keys, inner, swap=True)]
        e = np.concatenate([p[0] for p in pairs])
        pa = np.concatenate([p[1] for p in pairs])
        pb = np.concatenate([p[2] for p in pairs])
        e0 = e1
        if e.shape[0] == 0:
            continue
        k = A.indices[pa]
        order = np.lexsort((k, e))
        e, pa, pb, k = e[order], pa[order], pb[order], k[order]
        rows, cols = mrows[e], mcols[e]
        z = cast(apply_binary(mult, A.values[pa], BT.values[pb], rows, k, k, cols), add.type)
        starts = segment_starts(e)
        out_e.append(e[starts])
        out_v.append(segment_reduce(z, starts, add))
    if not out_e:
        return CSR(nrows, ncols, t, np.zeros(nrows + 1, dtype=INDEX), np.zeros(0, INDEX),
                   np.zeros(0, t.storage_type))
    e = np.concatenate(out_e)
    return CSR(nrows, ncols, t, indptr_from_rows(mrows[e], nrows), mcols[e],
               np.concatenate(out_v))


def _mxm_count(A, BT, mrows, mcols, t):
    """C<M> = A plus.pair B' by the compiled merge of sorted rows (``_intersect``): each mask
    entry's value is the number of common columns, and an entry with none has no value."""
    counts = np.empty(mrows.shape[0], dtype=np.int64)
    _intersect.count(A.indptr.astype(INDEX, copy=False), A.indices.astype(INDEX, copy=False),
                     BT.indptr.astype(INDEX, copy=False), BT.indices.astype(INDEX, copy=False),
                     np.ascontiguousarray(mrows, dtype=INDEX),
                     np.ascontiguousarray(mcols, dtype=INDEX), counts)
    keep = counts > 0
    return CSR(A.nrows, BT.nrows, t, indptr_from_rows(mrows[keep], A.nrows), mcols[keep],
               cast(counts[keep], t))


def _dot_pairs(es, short_rows, long_rows, work, S, L, l_keys, inner, swap):
    """For mask entries ``es``: (entry, position in A, position in B') of every match, found
    by expanding row short_rows[e] of S and searching row long_rows[e] of L."""
    d = work[es]
    total = int(d.sum())
    if total == 0:
        z = np.zeros(0, dtype=INDEX)
        return z, z, z
    e = np.repeat(es, d)
    first = np.cumsum(d) - d
    ps = np.repeat(S.indptr[short_rows[es]] - first, d) + np.arange(total, dtype=INDEX)
    keys = long_rows[e].astype(INDEX) * INDEX(inner) + S.indices[ps]
    pl = np.searchsorted(l_keys, keys)
    pl_c = np.minimum(pl, max(l_keys.shape[0] - 1, 0))
    hit = np.flatnonzero(l_keys[pl_c] == keys) if l_keys.shape[0] else np.zeros(0, INDEX)
    e, ps, pl = e[hit], ps[hit], pl_c[hit]
    return (e, pl, ps) if swap else (e, ps, pl)


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
    vals = np.zeros(result.nvals, dtype=dtype.storage_type)
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
    import scipy.sparse as sp  # here: a GPU process imports this backend without SciPy

    np_type = bool if dtype is None else dtype.storage_type
    return sp.csr_array((np.ones(A.nvals, dtype=np_type), A.indices, A.indptr),
                        shape=(A.nrows, A.ncols))


def at_most_one_per_row(B):
    """Whether every row of ``B`` holds at most one entry (a membership or selection matrix,
    a diagonal): then ``A (+.x) B`` is a gather, :func:`_mxm_gather`."""
    return B.nvals <= B.nrows and (B.nrows == 0 or int(np.diff(B.indptr).max()) <= 1)


def _mxm_gather(A, B, semiring):
    """C = A (+.x) B where each row of B holds at most one entry: each entry A(i, k) makes
    the one product A(i, k) * B(k, col(k)), gathered at B's row k, and the products of a row
    that land on one column are reduced by key within the row (SciPy's per-row
    sort-and-sum for plus on numbers; a sort of the keys for the other monoids).  No
    expansion, and no second product for the structure."""
    mult, add = semiring.binaryop, semiring.monoid
    dtype = semiring.return_type
    start = B.indptr[A.indices]
    keep = np.flatnonzero(start < B.indptr[A.indices + 1])
    arows = row_ids(A.indptr, A.nrows)[keep]
    ks, b_idx = A.indices[keep], start[keep]
    cols = B.indices[b_idx]
    z = cast(apply_binary(mult, A.values[keep], B.values[b_idx], arows, ks, ks, cols),
             add.type)
    indptr = indptr_from_rows(arows, A.nrows)
    if (add.parent.builtin_name == "plus" and not dtype.is_bool and z.dtype.kind in "iuf"
            and A.nrows < 2**31 and B.ncols < 2**31):
        import scipy.sparse as sp

        S = sp.csr_matrix((z, cols, indptr), shape=(A.nrows, B.ncols))
        S.sum_duplicates()  # sorts each row and sums repeated columns, zeros kept
        return CSR(A.nrows, B.ncols, dtype, S.indptr.astype(INDEX), S.indices.astype(INDEX),
                   S.data.astype(dtype.np_type, copy=False))
    if keys_fit(A.nrows, B.ncols):
        keys = linear_keys(arows, cols, B.ncols)
        order = np.argsort(keys, kind="stable")
        starts = segment_starts(keys[order])
    else:
        order = np.lexsort((cols, arows))
        starts = _run_starts(arows[order], cols[order])
    rows = arows[order][starts]
    return CSR(A.nrows, B.ncols, dtype, indptr_from_rows(rows, A.nrows), cols[order][starts],
               segment_reduce(z[order], starts, add))


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
                   np.zeros(0, dtype.storage_type))
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
    push_work = _degree_sum(_transposed(A), u) if A._transpose is not None else \
        _degree_sum_cols(A, u)
    choice, _ = plan.direction(push_work, A.nvals)
    if choice == "push":
        return _push(_transposed(A), u, semiring, mask, vector_first=False)
    return _pull(A, u, semiring, mask, vector_first=False)


def vxm(u, A, semiring, mask):
    """w = u' (+.x) A: push from u's entries over A's rows, or pull over A'."""
    choice, _ = plan.direction(_degree_sum(A, u), A.nvals)
    if choice == "push":
        return _push(A, u, semiring, mask, vector_first=True)
    return _pull(_transposed(A), u, semiring, mask, vector_first=True)


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
    if u.nvals == M.ncols and mask is None:  # a full vector: every entry, nothing to select
        ks, mvals, vvals = M.indices, M.values, u.values[M.indices]
        # the rows' own runs: no row id per entry unless a positional multiply reads it
        nonempty = np.flatnonzero(M.indptr[1:] > M.indptr[:-1])
        rows = row_ids(M.indptr, n) if mult.position is not None else None
        z = _pull_products(mult, mvals, vvals, rows, ks, vector_first)
        return SparseVector(n, semiring.return_type, nonempty.astype(INDEX, copy=False),
                            segment_reduce(cast(z, add.type), M.indptr[nonempty], add))
    rows = row_ids(M.indptr, n)
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
    z = cast(_pull_products(mult, mvals, vvals, rows, ks, vector_first), add.type)
    starts = segment_starts(rows)
    return SparseVector(n, semiring.return_type, rows[starts], segment_reduce(z, starts, add))


def _pull_products(mult, mvals, vvals, rows, ks, vector_first):
    """The products of a pull: mult(u(k), A(k, i)) when ``vector_first`` (u is 1 x n at row
    0; A's entry at (k, i)), else mult(A(i, k), u(k)) (u is n x 1 at column 0).  ``rows`` is
    read only by a positional multiply."""
    zeros = np.zeros_like(ks) if mult.position is not None else None
    if vector_first:
        return apply_binary(mult, vvals, mvals, zeros, ks, ks, rows)
    return apply_binary(mult, mvals, vvals, rows, ks, ks, zeros)


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
                            np.zeros(0, semiring.return_type.storage_type))
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
