"""Built-in operators on user-defined types (``dtypes.register_new``): those that do not look
inside a value, as python-graphblas has them.

A user-defined type's values are raw bytes (``DataType.storage_type``), so the operators that
only move, compare or count values apply to it, made on first use for each type (or pair of
types): ``binary.first``, ``second``, ``any``, ``pair``/``oneb``, ``eq``, ``ne`` (equal bytes),
``unary.identity``, ``one``, ``monoid.any``, and the positional operators (which ignore the
value; they work already).  ``first`` of a UDT and another type returns the first's type, as
python-graphblas.  The CPU runs them; on the GPU a user-defined type has no CUDA type, so
they carry no CUDA expression and raise there, naming the type.
"""

import numpy as np

from ..dtypes import BOOL, INT64, lookup_dtype
from .base import TypedBinaryOp, TypedMonoid, TypedUnaryOp


class _UdtBinary(TypedBinaryOp):
    __slots__ = ("cuda_error",)


class _UdtUnary(TypedUnaryOp):
    __slots__ = ("cuda_error",)


class _UdtMonoid(TypedMonoid):
    __slots__ = ("cuda_error",)


def _first(x, y):
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    return x if np.shape(x) == shape else np.broadcast_to(x, shape).copy()


_BINARY = {
    # name: (function of x and y, return type given (type1, type2))
    "first": (_first, lambda t1, t2: t1),
    "second": (lambda x, y: _first(y, x), lambda t1, t2: t2),
    "any": (lambda x, y: _first(y, x), lambda t1, t2: t2),
    "pair": (lambda x, y: np.ones(np.broadcast_shapes(np.shape(x), np.shape(y)), np.int64),
             lambda t1, t2: INT64),
    "oneb": (lambda x, y: np.ones(np.broadcast_shapes(np.shape(x), np.shape(y)), np.int64),
             lambda t1, t2: INT64),
    "eq": (lambda x, y: np.asarray(x == y), lambda t1, t2: BOOL),
    "ne": (lambda x, y: np.asarray(x != y), lambda t1, t2: BOOL),
}
_UNARY = {
    "identity": (lambda x: x, lambda t: t),
    "one": (lambda x: np.ones(np.shape(x), np.int64), lambda t: INT64),
}


def _no_cuda(t):
    return (f"{t.name} is a user-defined type: the GPU runs no operator on it (graphblast keeps "
            "its values as raw bytes); compute on the CPU (device='cpu')")


def typed_for_udt(op, t1, t2=None):
    """The typed variant of the built-in ``op`` for the user-defined type(s), made once, or
    None where the operator looks inside values."""
    from .base import BinaryOp, Monoid, UnaryOp

    t1 = lookup_dtype(t1)
    t2 = t1 if t2 is None else lookup_dtype(t2)
    key = (t1, t2)
    cache = op.__dict__.setdefault("_udt_typed", {})
    if key in cache:
        return cache[key]
    name = op.builtin_name
    typed = None
    if isinstance(op, Monoid):
        if name == "any" and t1 is t2:
            bop = typed_for_udt(op.binaryop, t1, t1)
            zero = np.zeros(1, t1.storage_type)[0]
            typed = _UdtMonoid(op, bop, zero, None, None)
    elif isinstance(op, BinaryOp) and name in _BINARY:
        func, ret = _BINARY[name]
        typed = _UdtBinary(op, t1, ret(t1, t2), func, None)
        typed.type2 = t2
    elif isinstance(op, UnaryOp) and name in _UNARY and t1 is t2:
        func, ret = _UNARY[name]
        typed = _UdtUnary(op, t1, ret(t1), func, None)
    if typed is not None:
        typed.cuda_error = _no_cuda(t1 if t1._is_udt else t2)
        cache[key] = typed
    return typed
