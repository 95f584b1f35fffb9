"""A reduction by row that python-graphblas lacks, written with its operations: the argmax."""

from graphblast import Matrix, binary, indexunary, monoid, select, semiring
from graphblast.dtypes import INT64

__all__ = ["argmax"]


def argmax(C):
    """Per row of ``C``, the smallest column holding the row's largest value.

    Returns ``(column, top)``: INT64 and ``C``'s type, with entries at the rows of ``C`` that
    hold one.  Four passes over the entries, as LAGraph writes it: the row maxima, spread
    along each row by a product with their diagonal, compared with the entries, and the
    columns of the equal ones reduced by min::

        top = max(C, rows);  at_top = C == (diag(top) any.first C)
        column = min(colindex(select(at_top)), rows)
    """
    top = C.reduce_rowwise(monoid.max).new()
    spread = Matrix.from_diag(top).mxm(C, semiring.any_first).new()
    at_top = C.ewise_mult(spread, binary.eq).new().select(select.valueeq, True).new()
    column = at_top.apply(indexunary.colindex).new(INT64).reduce_rowwise(monoid.min).new()
    return column, top
