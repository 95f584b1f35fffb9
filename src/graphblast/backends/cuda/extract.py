"""Extract (C = A(I, J)) and the region write of assign (C(I, J) = Z) on the GPU.

Rows are gathered by expanding the selected rows' lengths; columns are mapped arithmetically
for a range and through a sorted copy of the list otherwise (a list may repeat or reorder
columns, after which the rows are sorted again).
"""

import cupy as cp

from ..base import CSR, IndexArg, SparseVector
from . import blocks
from .blocks import I64, INDEX
from .storage import as_row, coo_to_csr, from_row


def _index_array(index):
    """The indices an IndexArg names, as a device int64 array."""
    if index.kind == "list":
        return cp.asarray(index.array, dtype=INDEX)
    if index.kind == "all":
        return cp.arange(index.count, dtype=INDEX)
    return I64(index.start) + I64(index.step) * cp.arange(index.count, dtype=INDEX)


def _gather_rows(A, rows):
    """(new row, source position) of every entry of A in the selected rows, in order."""
    if rows.kind == "all":
        return blocks.row_ids(A), None
    selected = _index_array(rows)
    starts = A.indptr[selected]
    deg = A.indptr[selected + 1] - starts
    scan = blocks.exclusive_scan(deg)
    count = blocks.total(scan)
    new_rows, occ = blocks.expand(scan, selected.shape[0], count)
    return new_rows, starts[new_rows] + occ


def extract_matrix(A, rows, cols):
    new_rows, pos = _gather_rows(A, rows)
    c = A.indices if pos is None else A.indices[pos]
    vals = A.values if pos is None else A.values[pos]
    nrows, ncols = rows.count, cols.count
    if cols.kind == "all":
        return CSR(nrows, ncols, A.dtype, blocks.indptr_from_sorted_rows(new_rows, nrows), c,
                   vals)
    if cols.kind == "range":
        d = c - I64(cols.start)
        q = d // I64(cols.step)
        keep = cp.flatnonzero((d % I64(cols.step) == 0) & (q >= 0) & (q < cols.count))
        new_rows, new_cols, vals = new_rows[keep], q[keep], vals[keep]
        if cols.step > 0:
            return CSR(nrows, ncols, A.dtype, blocks.indptr_from_sorted_rows(new_rows, nrows),
                       new_cols, vals)
    else:
        J = _index_array(cols)
        order = cp.argsort(J)
        sorted_j = J[order]
        lo = cp.searchsorted(sorted_j, c, side="left")
        cnt = cp.searchsorted(sorted_j, c, side="right") - lo
        scan = blocks.exclusive_scan(cnt)
        count = blocks.total(scan)
        src, occ = blocks.expand(scan, c.shape[0], count)
        new_cols = order[lo[src] + occ]
        new_rows, vals = new_rows[src], vals[src]
    return coo_to_csr(nrows, ncols, A.dtype, new_rows, new_cols, vals, dup="error")


def extract_vector(u, index):
    one = IndexArg("all", 1, 1)
    return from_row(extract_matrix(as_row(u), one, index))


def _in_index(values, index, size):
    """Which ``values`` are among the indices an IndexArg names (over a dimension of size)."""
    if index.kind == "all":
        return None
    if index.kind == "range":
        d = values - I64(index.start)
        q = d // I64(index.step)
        return (d % I64(index.step) == 0) & (q >= 0) & (q < index.count)
    marks = cp.zeros(size, dtype=cp.bool_)
    marks[_index_array(index)] = True
    return marks[values]


def assign_region(C, Z, rows, cols):
    """C with its region rows x cols replaced by Z; where an index repeats, the last wins."""
    if isinstance(C, SparseVector):
        one = IndexArg("all", 1, 1)
        return from_row(assign_region(as_row(C), as_row(Z), one, cols))
    cr = blocks.row_ids(C)
    cc = C.indices
    in_r = _in_index(cr, rows, C.nrows)
    in_c = _in_index(cc, cols, C.ncols)
    if in_r is None and in_c is None:
        keep = None  # the region is all of C
    elif in_r is None:
        keep = cp.flatnonzero(~in_c)
    elif in_c is None:
        keep = cp.flatnonzero(~in_r)
    else:
        keep = cp.flatnonzero(~(in_r & in_c))
    zr = blocks.row_ids(Z)
    new_r = zr if rows.kind == "all" else _index_array(rows)[zr]
    new_c = Z.indices if cols.kind == "all" else _index_array(cols)[Z.indices]
    zv = blocks.cast_values(Z.values, Z.dtype, C.dtype)
    if keep is None:
        r, c, v = new_r, new_c, zv
    else:
        r = cp.concatenate([cr[keep], new_r])
        c = cp.concatenate([cc[keep], new_c])
        v = cp.concatenate([C.values[keep], zv])
    return coo_to_csr(C.nrows, C.ncols, C.dtype, r, c, v, dup="last")
