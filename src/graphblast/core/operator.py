"""python-graphblas's ``graphblas.core.operator``: the operator classes, by its names."""

from ..ops.base import (  # noqa: F401
    BinaryOp, IndexUnaryOp, Monoid, OpBase, Semiring, SelectOp, TypedBinaryOp, TypedIndexUnaryOp,
    TypedMonoid, TypedOpBase, TypedSemiring, TypedUnaryOp, UnaryOp, find_typed_op,
)
from ..ops.semiring import get_semiring  # noqa: F401

get_typed_op = find_typed_op

# operators made from a function of parameters, and the folders of nested operator names
from ..ops.user import (  # noqa: E402, F401
    _PARAMETERIZED, OpPath, ParameterizedMonoid, ParameterizedSemiring, ParameterizedUdf,
)

ParameterizedUnaryOp = _PARAMETERIZED["unary"]
ParameterizedBinaryOp = _PARAMETERIZED["binary"]
ParameterizedIndexUnaryOp = _PARAMETERIZED["indexunary"]
ParameterizedSelectOp = _PARAMETERIZED["select"]
