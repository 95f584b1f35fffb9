"""Extract (C = A(I, J)) and the region write of assign (C(I, J) = Z) on the CPU."""

import numpy as np

from ...config import config
from ...dtypes import UINT64
from ..base import CSR, IndexArg, SparseVector, order_free_monoid
from ._util import INDEX, compressed_keys, coo_of, member
from .storage import as_row, from_row, indptr_from_rows, transpose


def index_array(index):
    """The indices an IndexArg names, as an int64 array."""
    if index.kind == "list":
        return index.array
    if index.kind == "all":
        return np.arange(index.count, dtype=INDEX)
    return index.start + index.step * np.arange(index.count, dtype=INDEX)


def _map_positions(values, index):
    """For each old index in ``values``: the entry positions ``src`` that survive and their
    new indices ``new`` (an old index listed twice in a list index appears twice)."""
    if index.kind == "all":
        return np.arange(values.shape[0], dtype=INDEX), values
    if index.kind == "range":
        d = values - index.start
        new = d // index.step
        ok = (d % index.step == 0) & (new >= 0) & (new < index.count)
        src = np.flatnonzero(ok)
        return src, new[src]
    J = index.array
    size = index.size
    if size is None:
        size = int(max(values.max(initial=-1), J.max(initial=-1))) + 1
    if size <= 4 * (values.shape[0] + J.shape[0]) + 1024:
        # a dense inverse map (a permutation's, say): one gather, when J has no repeats
        inv = np.full(size, -1, dtype=INDEX)
        inv[J] = np.arange(J.shape[0], dtype=INDEX)
        if np.array_equal(inv[J], np.arange(J.shape[0], dtype=INDEX)):
            new = inv[values]
            src = np.flatnonzero(new >= 0)
            return src, new[src]
    order = np.argsort(J, kind="stable")
    sorted_idx = J[order]
    lo = np.searchsorted(sorted_idx, values, side="left")
    hi = np.searchsorted(sorted_idx, values, side="right")
    cnt = hi - lo
    src = np.repeat(np.arange(values.shape[0], dtype=INDEX), cnt)
    first = np.cumsum(cnt) - cnt
    offs = np.arange(src.shape[0], dtype=INDEX) - np.repeat(first, cnt)
    return src, order[np.repeat(lo, cnt) + offs].astype(INDEX)


def extract_matrix(A, rows, cols):
    I = index_array(rows)
    starts = A.indptr[I]
    deg = A.indptr[I + 1] - starts
    total = int(deg.sum())
    first = np.cumsum(deg) - deg
    pos = np.repeat(starts - first, deg) + np.arange(total, dtype=INDEX)
    new_rows = np.repeat(np.arange(I.shape[0], dtype=INDEX), deg)
    src, new_cols = _map_positions(A.indices[pos], cols)
    new_rows = new_rows[src]
    vals = A.values[pos[src]]
    indptr = indptr_from_rows(new_rows, rows.count)  # rows come in I's order: sorted
    if cols.kind == "list" or cols.step < 0:
        new_cols, vals = _sort_within_rows(indptr, new_cols, vals, rows.count, cols.count)
    return CSR(rows.count, cols.count, A.dtype, indptr, new_cols, vals)


def _sort_within_rows(indptr, cols, vals, nrows, ncols):
    """Each row's (distinct) columns sorted, by SciPy's compiled in-place sort (``cols`` and
    ``vals`` are the caller's fresh arrays)."""
    import scipy.sparse as sp

    raw = vals if vals.dtype.kind == "V" else None  # a user-defined type: move positions
    S = sp.csr_array((vals if raw is None else np.arange(vals.shape[0]), cols, indptr),
                     shape=(nrows, ncols))
    S.has_sorted_indices = False
    S.sort_indices()
    return S.indices.astype(INDEX, copy=False), S.data if raw is None else raw[S.data]


def extract_vector(u, index):
    one = IndexArg("all", 1, 1)
    return from_row(extract_matrix(as_row(u), one, index))


def _in_index(values, index):
    """Which ``values`` are among the indices an IndexArg names."""
    if index.kind == "all":
        return np.ones(values.shape[0], dtype=bool)
    if index.kind == "range":
        d = values - index.start
        new = d // index.step
        return (d % index.step == 0) & (new >= 0) & (new < index.count)
    return member(values, np.unique(index.array))


def assign_region(C, Z, rows, cols):
    """C with its region rows x cols replaced by Z; where an index repeats, the last wins."""
    if isinstance(C, SparseVector):
        one = IndexArg("all", 1, 1)
        return from_row(assign_region(as_row(C), as_row(Z), one, cols))
    cr, cc, cv = coo_of(C)
    inside = _in_index(cr, rows) & _in_index(cc, cols)
    keep = ~inside
    zr, zc, zv = coo_of(Z)
    I, J = index_array(rows), index_array(cols)
    new_r = I[zr]
    new_c = J[zc] if cols.kind != "all" else zc
    r = np.concatenate([cr[keep], new_r])
    c = np.concatenate([cc[keep], new_c])
    v = np.concatenate([cv[keep], zv.astype(C.dtype.storage_type, copy=False)])
    (keys,) = compressed_keys([r], [c], C.nrows, C.ncols)
    order = np.argsort(keys, kind="stable")
    keys, r, c, v = keys[order], r[order], c[order], v[order]
    if keys.shape[0] > 1:
        last = np.ones(keys.shape[0], dtype=bool)
        last[:-1] = keys[1:] != keys[:-1]
        if not last.all():
            r, c, v = r[last], c[last], v[last]
    return CSR(C.nrows, C.ncols, C.dtype, indptr_from_rows(r, C.nrows), c, v)



# -- graphblast's gather and scatter with a Vector of positions -----------------------------

def _positions(I):
    return I.values.astype(INDEX, copy=False)


def gather_vector(u, I):
    """w[i] = u[I[i]] for the entries i of I whose position u holds; w has I's size.  I's
    values are in range (the core checked them)."""
    pos = _positions(I)
    if u.nvals == u.size:  # full: position p is entry p
        return SparseVector(I.size, u.dtype, I.indices, u.values[pos])
    if u.nvals == 0:
        return SparseVector(I.size, u.dtype, I.indices[:0], u.values[:0])
    at = np.minimum(np.searchsorted(u.indices, pos), u.nvals - 1)
    found = u.indices[at] == pos
    return SparseVector(I.size, u.dtype, I.indices[found], u.values[at[found]])


def _pairs(I, u):
    """(target position, value) of every i where both I and u have an entry, in order of i."""
    if I.nvals == I.size and u.nvals == u.size:
        return _positions(I), u.values
    if u.nvals == u.size:
        return _positions(I), u.values[I.indices]
    if I.nvals == 0 or u.nvals == 0:
        return _positions(I)[:0], u.values[:0]
    at = np.minimum(np.searchsorted(u.indices, I.indices), u.nvals - 1)
    found = u.indices[at] == I.indices
    return _positions(I)[found], u.values[at[found]]


_IDEMPOTENT = frozenset({"min", "max", "lor", "land", "bor", "band"})


def _order_free_monoid(dup_op, dtype):
    """An order-free monoid (backends.base) that NumPy has a ufunc for, or None."""
    monoid = order_free_monoid(dup_op, dtype)
    return monoid if monoid is not None and monoid.np_ufunc is not None else None


def scatter_vector(I, u, size, dtype, dup_op):
    """T of ``size``: T[I[i]] = u[i] (cast to ``dtype``) for the i where I and u have entries;
    repeated positions folded left to right (in order of i) by ``dup_op``, or InvalidValue
    when it is None.  An order-free monoid with pairs numbering at least size / 8 combines
    them in a dense array (``ufunc.at``); otherwise they are sorted stably and folded."""
    from ...dtypes import cast
    from .storage import vector_from_coo

    targets, vals = _pairs(I, u)
    monoid = _order_free_monoid(dup_op, dtype)
    n = targets.shape[0]
    if monoid is None or n == 0 or size > 8 * n:
        return vector_from_coo(size, dtype, targets, vals, dup_op)
    vals = cast(vals, dtype)
    acc = np.zeros(size, dtype=dtype.storage_type)
    present = np.zeros(size, dtype=bool)
    present[targets] = True
    if monoid.parent.builtin_name in _IDEMPOTENT:
        acc[targets] = vals  # each position starts from one of its own values (a lone NaN stays)
    else:
        acc[:] = monoid.identity
    with np.errstate(all="ignore"):
        monoid.np_ufunc.at(acc, targets, vals)
    where = np.flatnonzero(present)
    return SparseVector(size, dtype, where, acc[where])


# -- SuiteSparse's GxB_Vector_sort (python-graphblas's v.ss.sort) -----------------------------

def sort_vector(v, descending):
    """(values, permutation): v's values sorted, ascending or ``descending``, equal values in
    increasing index order, at positions 0..nvals-1 of two vectors of v's size; entry k of
    the permutation (UINT64) is the index in v of the k-th value.  NaN sorts above every
    number (NumPy's order): last ascending, first descending."""
    vals = v.values
    n = vals.shape[0]
    if descending:
        # A stable sort of the reversed values puts equal values in decreasing index order;
        # read backwards, that is decreasing values with equal ones by increasing index.
        order = (n - 1) - np.argsort(vals[::-1], kind="stable")[::-1]
    else:
        order = np.argsort(vals, kind="stable")
    pos = np.arange(n, dtype=INDEX)
    return (SparseVector(v.size, v.dtype, pos, vals[order]),
            SparseVector(v.size, UINT64, pos, v.indices[order].astype(np.uint64)))


# -- PageRank's pull in degree order ------------------------------------------------------------

def pull_in_degree_order(A, min_hub_share, values=True):
    """(B, P, R) for a pull over A' in decreasing-degree order, or None when A's most-connected
    1 % of vertices hold less than ``min_hub_share`` of its entries: the CUDA backend's
    primitive (see its docstring: the vertices without an edge last, the first of them kept
    for all), with B's rows sorted here (a canonical matrix; the GPU's is not, which a pull
    does not need)."""
    n = A.nrows
    if n == 0:
        return None
    degrees = np.diff(A.indptr)
    order = np.argsort(-degrees, kind="stable")  # equal degrees by increasing id
    if degrees[order[:max(1, n // 100)]].sum() < min_hub_share * A.nvals:
        return None
    S = transpose(A, cache=config["transpose_cache"])  # A itself when symmetric
    has_edge = degrees != 0
    if S is not A:  # the vertices with in-edges only before those with no edge
        has_in = np.diff(S.indptr) != 0
        order = np.argsort(-(2 * degrees + has_in), kind="stable")
        has_edge |= has_in
    active = int(np.count_nonzero(has_edge))
    k = n if active == n else active + 1
    rank = np.empty(n, dtype=INDEX)
    rank[order] = np.minimum(np.arange(n, dtype=INDEX), k - 1)
    kept = order[:k]
    lengths = (degrees if S is A else np.diff(S.indptr))[kept]
    out_ptr = np.zeros(k + 1, dtype=INDEX)
    np.cumsum(lengths, out=out_ptr[1:])
    # entry e of new row r comes from S's row kept[r], at the same offset in the row
    rows = np.repeat(np.arange(k, dtype=INDEX), lengths)
    src = S.indptr[kept][rows] + (np.arange(out_ptr[-1], dtype=INDEX) - out_ptr[rows])
    cols = rank[S.indices[src]]
    keep = np.lexsort((cols, rows))  # each row sorted by its new column names
    B = CSR(k, k, S.dtype, out_ptr, cols[keep],
            S.values[src[keep]] if values else np.ones(keep.shape[0], dtype=S.dtype.storage_type))
    return (B, SparseVector(k, UINT64, np.arange(k, dtype=INDEX), kept.astype(np.uint64)),
            SparseVector(n, UINT64, np.arange(n, dtype=INDEX), rank.astype(np.uint64)))
