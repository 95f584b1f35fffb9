"""Built-in select operators: the index-unary operators that return BOOL, used by ``select``.

``select.tril``, ``select.valuegt``, ... share their typed variants with
``graphblast.ops.indexunary`` (``select.tril["FP64"] is indexunary.tril["FP64"]``); calling one
selects instead of applying.  ``indexle``/``indexgt`` are ``rowle``/``rowgt`` (for Vectors).
"""

from types import SimpleNamespace

from . import binary, indexunary
from .base import SelectOp, parse_op_string

_from = SelectOp.from_indexunary
tril = _from(indexunary.tril)
triu = _from(indexunary.triu)
diag = _from(indexunary.diag)
offdiag = _from(indexunary.offdiag)
colle = _from(indexunary.colle)
colgt = _from(indexunary.colgt)
rowle = _from(indexunary.rowle)
rowgt = _from(indexunary.rowgt)
indexle = rowle
indexgt = rowgt
valueeq = _from(indexunary.valueeq)
valuene = _from(indexunary.valuene)
valuegt = _from(indexunary.valuegt)
valuege = _from(indexunary.valuege)
valuelt = _from(indexunary.valuelt)
valuele = _from(indexunary.valuele)
del _from

#: The select operator that keeps the entries where ``binop(x, thunk)`` is true, for the
#: comparison operators (python-graphblas rewrites ``A.select(A > 0)`` with it).
FROM_BINARY = {
    binary.eq: valueeq, binary.ne: valuene, binary.le: valuele, binary.lt: valuelt,
    binary.ge: valuege, binary.gt: valuegt, binary.iseq: valueeq, binary.isne: valuene,
    binary.isle: valuele, binary.islt: valuelt, binary.isge: valuege, binary.isgt: valuegt,
}

# ----- python-graphblas's comparison helpers: select.value(A > 0), select.row(A < 3) -----

def _dispatch(expr, callname, prefix):
    """Select with the operator that ``expr`` (a comparison of a Matrix or Vector with a
    scalar, ``A > 0``) spells: ``<prefix><comparison>`` with the scalar as thunk.  The C API has
    only the ``le`` and ``gt`` forms of the index selectors, so ``< k`` becomes ``<= k - 1``
    and ``>= k`` becomes ``> k - 1``, as python-graphblas does."""
    from ..core.expr import MatrixExpression, VectorExpression
    from .base import TypedBinaryOp

    from ..core.expr import ScalarExpression

    if not (isinstance(expr, (MatrixExpression, VectorExpression, ScalarExpression))
            and expr.method_name == "apply" and len(expr.args) == 2
            and isinstance(expr.op, TypedBinaryOp)):
        raise TypeError(
            f"Expected a comparison of a Matrix or Vector with a scalar, found "
            f"{type(expr).__name__}\nTypical usage: select.{callname}(x <= 5)")
    tensor, thunk = expr.args
    comparison = expr.op.parent.name
    op = _SELECTORS.get(f"{prefix}{comparison}")
    if op is None and comparison in ("lt", "ge"):
        value = thunk.value
        thunk = getattr(value, "item", lambda: value)() - 1  # a Python number: no wrap-around
        op = _SELECTORS.get(f"{prefix}{'le' if comparison == 'lt' else 'gt'}")
    if op is None:
        raise ValueError(f"select.{callname} cannot select with {expr.op.parent!r}; use one of "
                         "<, <=, >, >= (and ==, != for select.value)")
    return op(tensor, thunk)


def value(expr):
    """Select by value comparison: ``select.value(A > 0)`` is ``select.valuegt(A, 0)``."""
    return _dispatch(expr, "value", "value")


def row(expr):
    """Select by row index: ``select.row(A <= 5)`` is ``select.rowle(A, 5)``."""
    return _dispatch(expr, "row", "row")


def column(expr):
    """Select by column index: ``select.column(A <= 5)`` is ``select.colle(A, 5)``."""
    return _dispatch(expr, "column", "col")


def index(expr):
    """Select by Vector index: ``select.index(v <= 5)`` is ``select.indexle(v, 5)``."""
    return _dispatch(expr, "index", "index")


#: python-graphblas has no SuiteSparse-specific select operators.
ss = SimpleNamespace()

_STRINGS = {
    "<": valuelt, ">": valuegt, "<=": valuele, ">=": valuege, "!=": valuene, "==": valueeq,
    "col<=": colle, "col>": colgt, "row<=": rowle, "row>": rowgt, "index<=": indexle,
    "index>": indexgt,
}


def from_string(string):
    """The select operator named by ``string`` (``"tril"``, ``">"``, ``"row<="``,
    ``"valuegt[FP32]"``).

    Raises
    ------
    ValueError
        If the string names no select operator.
    """
    return parse_op_string(string, "select", _STRINGS, _namespace_lookup, "tril")


def _namespace_lookup(name):
    op = globals().get(name)
    return op if isinstance(op, SelectOp) else None


_SELECTORS = {name: obj for name, obj in globals().items() if isinstance(obj, SelectOp)}
__all__ = sorted(_SELECTORS)
