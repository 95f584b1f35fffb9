"""A reduction by row that python-graphblas lacks, written with its operations: the argmax."""

from graphblast import Matrix, binary, indexunary, monoid, select, semiring
from graphblast.dtypes import INT64

__all__ = ["argmax"]

# Integer keys count * ncols - column must stay below this (INT64, with room to spare).
KEY_LIMIT = 1 << 62


def argmax(C, bound=None):
    """Per row of ``C``, the smallest column holding the row's largest value.

    Returns ``(column, top)``: INT64 and ``C``'s type, with entries at the rows of ``C`` that
    hold one.  In general four passes over the entries, as LAGraph writes it: the row maxima,
    spread along each row by a product with their diagonal, compared with the entries, and
    the columns of the equal ones reduced by min::

        top = max(C, rows);  at_top = C == (diag(top) any.first C)
        column = min(colindex(select(at_top)), rows)

    For non-negative integers below ``bound`` (given where the caller knows one), one key per
    entry, ``C[i, j] * ncols - j``, orders by value and then by smaller column, so a single
    max by row finds both; it is used where ``bound * ncols`` fits in INT64.
    """
    n = C.ncols
    if bound is not None and C.dtype.np_type.kind in "iu" and (bound + 1) * (n + 1) < KEY_LIMIT:
        key = C.apply(binary.times, right=n).new(INT64)
        key(binary.minus) << C.apply(indexunary.colindex).new(INT64)
        key = key.reduce_rowwise(monoid.max).new()       # top * n - column, 0 <= column < n
        top = key.apply(binary.plus, right=n - 1).new().apply(binary.floordiv, right=n).new()
        column = top.apply(binary.times, right=n).new().ewise_mult(key, binary.minus).new()
        return column, top
    top = C.reduce_rowwise(monoid.max).new()
    spread = Matrix.from_diag(top).mxm(C, semiring.any_first).new()
    at_top = C.ewise_mult(spread, binary.eq).new().select(select.valueeq, True).new()
    column = at_top.apply(indexunary.colindex).new(INT64).reduce_rowwise(monoid.min).new()
    return column, top
