"""python-graphblas's ``graphblas.core.operator``: the operator classes, by its names."""

from ..ops.base import (  # noqa: F401
    BinaryOp, IndexUnaryOp, Monoid, OpBase, Semiring, SelectOp, TypedBinaryOp, TypedIndexUnaryOp,
    TypedMonoid, TypedOpBase, TypedSemiring, TypedUnaryOp, UnaryOp, find_typed_op,
)
from ..ops.semiring import get_semiring  # noqa: F401

get_typed_op = find_typed_op

try:  # operators made from a function of parameters: user-defined operators (ops/)
    from ..ops.base import (  # noqa: F401
        ParameterizedBinaryOp, ParameterizedMonoid, ParameterizedSemiring, ParameterizedUdf,
        ParameterizedUnaryOp,
    )
except ImportError:
    # none exist without user-defined operators: nothing is an instance of these
    ParameterizedUdf = ParameterizedUnaryOp = ParameterizedBinaryOp = ()
    ParameterizedMonoid = ParameterizedSemiring = ()
