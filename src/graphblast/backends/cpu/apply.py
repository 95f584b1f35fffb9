"""apply, select and the reductions on the CPU."""

import numpy as np

from ...dtypes import cast
from ..base import CSR, RANGE_SELECTS, SparseVector
from ._util import INDEX, apply_binary, coo_of, positions, segment_reduce
from .ewise import _rebuild
from .storage import with_values


def apply(A, op, left=None, right=None, thunk=None):
    rows, cols, vals = coo_of(A)
    rows, cols = positions(A, rows, cols)
    kind = op.opclass
    if kind == "UnaryOp":
        if op.position is not None:
            axis, offset = op.position
            z = (rows if axis == "i" else cols).astype(INDEX) + offset
            z = cast(z, op.return_type)
        else:
            with np.errstate(all="ignore"):  # IEEE results (log(-1) = nan) are not warnings
                z = op.np_func(cast(vals, op.type))
    elif kind == "BinaryOp":
        n = vals.shape[0]
        if left is not None:
            z = apply_binary(op, np.full(n, left), vals, rows, cols, rows, cols)
        else:
            z = apply_binary(op, vals, np.full(n, right), rows, cols, rows, cols)
    else:  # IndexUnaryOp
        z = _index_unary(op, vals, rows, cols, thunk)
    return with_values(A, z, op.return_type)


def _index_unary(op, vals, rows, cols, thunk):
    x = cast(vals, op.type) if op.uses_value else vals
    with np.errstate(all="ignore"):
        return op.np_func(x, rows.astype(INDEX, copy=False), cols.astype(INDEX, copy=False),
                          thunk)


def select(A, op, thunk):
    if op.parent.builtin_name in RANGE_SELECTS and isinstance(A, CSR):
        return _select_columns(A, op.name, int(thunk))
    rows, cols, vals = coo_of(A)
    i, j = positions(A, rows, cols)
    keep = _index_unary(op, vals, i, j, thunk)
    keep = keep if keep.dtype == np.bool_ else keep != 0
    return _rebuild(A, rows[keep], cols[keep], vals[keep], A.dtype)


def _select_columns(A, name, k):
    """select.colle, colgt, tril or triu read from the stored column indices, so that a
    compact matrix stays compact: 32-bit indices, and a pattern (iso) keeps no value array
    (connected components' sample of a graph, triangle counting's L)."""
    col = A.stored_indices
    low, first_cut, row_step = RANGE_SELECTS[name]
    cut = min(max(first_cut(k), -A.nrows), A.ncols)  # every row's cut stays within int64
    if row_step:
        cut = cut + np.repeat(np.arange(A.nrows, dtype=INDEX), np.diff(A.indptr))
    keep = col < cut if low else col >= cut
    scan = np.zeros(keep.shape[0] + 1, dtype=INDEX)
    np.cumsum(keep, out=scan[1:])
    iso = A.pattern_value
    vals = None if iso is not None else A.values[keep]
    return CSR(A.nrows, A.ncols, A.dtype, scan[A.indptr], col[keep], vals, iso_value=iso)


def reduce_rowwise(A, monoid):
    counts = np.diff(A.indptr)
    nonempty = np.flatnonzero(counts)
    vals = cast(A.values, monoid.type)
    out = segment_reduce(vals, A.indptr[nonempty], monoid)
    return SparseVector(A.nrows, monoid.return_type, nonempty.astype(INDEX), out)


def reduce_scalar(A, monoid):
    vals = cast(A.values, monoid.type)
    if vals.shape[0] == 0:
        return None
    return segment_reduce(vals, np.zeros(1, dtype=INDEX), monoid)[0]
