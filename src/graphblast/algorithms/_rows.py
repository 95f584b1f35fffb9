"""A reduction by row that python-graphblas lacks, written with its operations: the argmax."""

import math

from graphblast import Matrix, binary, indexunary, monoid, select, semiring
from graphblast.dtypes import INT64

__all__ = ["argmax", "quantum"]

# Integer keys value * ncols - column must stay below this (INT64, with room to spare).
KEY_LIMIT = 1 << 62


def quantum(ncols, bound):
    """``1 / s``: the step of the one-pass keys of :func:`argmax` for floats bounded by
    ``bound`` in ``ncols`` columns (each value becomes ``floor(value * s)``)."""
    return 2.0 ** -math.floor(math.log2(KEY_LIMIT / ((ncols + 1) * (bound + 1))))


def argmax(C, bound=None, *, top=True):
    """Per row of ``C``, the smallest column holding the row's largest value.

    Returns ``(column, top)``: INT64 and ``C``'s type, with entries at the rows of ``C`` that
    hold one (``top`` is None where ``top=False`` asks only for the columns).  With a
    ``bound`` on ``|C|`` (where the caller knows one), one pass: each entry
    becomes the key ``q * ncols - j`` of its value ``q`` and column ``j``, which orders by
    value and then by smaller column, and one max by row finds both.  Integers are their own
    ``q`` (exact); a float becomes ``floor(C * s)`` with the largest power of two ``s`` that
    keeps every key in INT64, so values closer than ``bound * ncols / 2^62`` (relative) count
    as a tie and go to the smaller column, and ``top`` is the exact row maximum.  Without a
    bound, four passes, as LAGraph writes it: the row maxima, spread along each row by a
    product with their diagonal, compared with the entries, and the columns of the equal ones
    reduced by min::

        top = max(C, rows);  at_top = C == (diag(top) max.first C)
        column = min(colindex(select(at_top)), rows)
    """
    n, integer = C.ncols, C.dtype.np_type.kind in "iu"
    if bound is not None and (not integer or (bound + 1) * (n + 1) < KEY_LIMIT):
        q = C if integer else C.apply(binary.floordiv, right=quantum(n, bound)).new(INT64)
        key = q.apply(binary.times, right=n).new(INT64)
        key(binary.minus) << C.apply(indexunary.colindex).new(INT64)
        key = key.reduce_rowwise(monoid.max).new()       # q * n - column, 0 <= column < n
        best = key.apply(binary.plus, right=n - 1).new().apply(binary.floordiv, right=n).new()
        column = best.apply(binary.times, right=n).new().ewise_mult(key, binary.minus).new()
        if not top:
            return column, None
        return column, best if integer else C.reduce_rowwise(monoid.max).new()
    top = C.reduce_rowwise(monoid.max).new()
    spread = Matrix.from_diag(top).mxm(C, semiring.max_first).new()
    at_top = C.ewise_mult(spread, binary.eq).new().select(select.valueeq, True).new()
    column = at_top.apply(indexunary.colindex).new(INT64).reduce_rowwise(monoid.min).new()
    return column, top
