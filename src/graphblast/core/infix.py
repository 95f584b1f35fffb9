"""Python operators on collections, as python-graphblas defines them.

Between two collections: ``+`` and ``^`` are unions (ewise_add), ``-`` is a union with 0 for a
missing operand (ewise_union), the others are intersections (ewise_mult).  With a scalar, the
operator is applied with the scalar bound (``A + 1`` is ``A.apply(binary.plus, right=1)``).
``-A``, ``abs(A)`` and ``~A`` (BOOL only) apply ainv, abs and lnot.  ``A += B`` accumulates.
"""

from ..dtypes import BOOL


def _is_collection(x):
    """A Matrix, TransposedMatrix or Vector, or an expression that computes one (as
    python-graphblas's ``output_type``)."""
    if hasattr(x, "_data") or hasattr(x, "_matrix"):
        return True
    kind = getattr(type(x), "output_type", None)
    if kind is None:
        return False
    kind = x.output_type
    return getattr(kind, "ndim", None) is not None and kind.__name__ != "Scalar"


def _operand(x):
    """An extract ``A[0, [1, 2]]`` as its expression; anything else as it is."""
    from .operations import Indexed

    if isinstance(x, Indexed) and not x.is_element:
        return x._extract_expr()
    return x


def _binary(name):
    from ..ops import binary

    op = binary
    for part in name.split("."):  # "numpy.mod"
        op = getattr(op, part)
    return op


def call_op(left, right, opname, *, outer=False, union=False):
    op = _binary(opname)
    left, right = _operand(left), _operand(right)
    if _is_collection(left) and _is_collection(right):
        if outer:
            return left.ewise_add(right, op)
        if union:
            return left.ewise_union(right, op, False, False)
        return left.ewise_mult(right, op)
    if _is_collection(left):
        return left.apply(op, right=right)
    if _is_collection(right):
        return right.apply(op, left=left)
    return NotImplemented


def _make(opname, outer=False, union=False):
    def forward(self, other):
        return call_op(self, other, opname, outer=outer, union=union)

    def reverse(self, other):
        return call_op(other, self, opname, outer=outer, union=union)

    def inplace(self, other):
        other = _operand(other)
        if _is_collection(other) and other.ndim > self.ndim:
            raise TypeError(f"In-place `{opname}` of a {type(self).__name__} with a "
                            f"{type(other).__name__} would change its shape; use "
                            "new = x + y instead")
        if _is_collection(other) and other.ndim == self.ndim:
            self(_binary(opname)) << other
        else:
            self << call_op(self, other, opname, outer=outer, union=union)
        return self

    return forward, reverse, inplace


_ARITHMETIC = {
    "add": ("plus", True, False),
    "sub": ("minus", False, True),
    "mul": ("times", False, False),
    "truediv": ("truediv", False, False),
    "floordiv": ("floordiv", False, False),
    "pow": ("pow", False, False),
    "mod": ("numpy.mod", False, False),  # python-graphblas's: NumPy's (Python's) modulo
}
_COMPARISONS = {"eq": "eq", "ne": "ne", "gt": "gt", "ge": "ge", "lt": "lt", "le": "le"}


def _xor(self, other):
    expr = call_op(self, other, "lxor", outer=True)
    if expr is not NotImplemented and expr.dtype != BOOL:
        raise TypeError(f"`x ^ y` is only supported for BOOL (got {expr.dtype}); use "
                        "x.ewise_add(y, binary.bxor) for integers")
    return expr


def _ixor(self, other):
    """``x ^= y``: x becomes ``x ^ y`` (the union with lxor), BOOL only."""
    if _is_collection(other) and other.ndim == self.ndim:
        if other.dtype != BOOL:
            raise TypeError(f"`x ^= y` is only supported for BOOL (got {other.dtype}); use "
                            "x(binary.bxor) << y for integers")
        self(_binary("lxor")) << other
    else:
        self << _xor(self, other)
    return self


def _matmul(left, right):
    """``A @ B``, ``A @ v``, ``v @ A``, ``u @ v``: a product awaiting its semiring
    (``semiring.min_plus(A @ B)``; plus_times when computed directly)."""
    from .expr import InfixExpr

    if isinstance(left, InfixExpr) or isinstance(right, InfixExpr):
        return InfixExpr(left, right, "matmul")
    if not (_is_collection(left) and _is_collection(right)):
        other = right if _is_collection(left) else left
        raise TypeError(f"Bad type for argument in `@`: {type(other).__name__}; a matrix "
                        "product takes a Matrix, TransposedMatrix or Vector on each side")
    if left.shape[-1] != right.shape[0]:
        from ..exceptions import DimensionMismatch

        raise DimensionMismatch(f"Dimensions not compatible for `@`: {left.shape} and "
                                f"{right.shape}")
    return InfixExpr(left, right, "matmul")


def _neg(self):
    from ..ops import unary

    return self.apply(unary.ainv)


def _abs(self):
    from ..ops import unary

    return self.apply(unary.abs)


def _invert(self):
    from ..ops import unary

    if self.dtype != BOOL:
        raise TypeError(f"The invert operator, `~`, is only supported for BOOL, not "
                        f"{self.dtype}. For masks, complement the mask: ~M.S or ~M.V")
    return self.apply(unary.lnot)


def _inplace(name):
    """``x @= A``, ``x |= y``, ``x &= y``: x becomes the computed result (``|`` and ``&``
    need BOOL, as their default operators are lor and land; a scalar ``y`` is bound, as
    ``x.apply(binary.lor, right=y)``)."""
    symbol = {"__or__": "|", "__and__": "&"}.get(name)

    def method(self, other):
        other = _operand(other)
        if symbol is not None and not _is_collection(other):
            if self.dtype != BOOL:
                raise TypeError(f"The {name.replace('__', '__i', 1)} infix operator, "
                                f"`x {symbol}= y`, is not supported for {self.dtype} dtype.  "
                                "It is only supported for BOOL dtype; give an operator: "
                                "x << x.apply(op, right=y)")
            self << call_op(self, other, "lor" if symbol == "|" else "land",
                            outer=symbol == "|")
            return self
        result = getattr(self, name)(other)
        if result is NotImplemented:
            return NotImplemented
        if symbol is not None and (self.dtype != BOOL or other.dtype != BOOL):
            raise TypeError(f"In-place `{symbol}=` is not supported for "
                            f"{self.dtype if self.dtype != BOOL else other.dtype}; it is only "
                            "supported for BOOL dtype; give an operator: "
                            "x(op) << x.ewise_add(y, op)")
        self << result
        return self

    return method


def install(cls):
    """Add the Python operators to a collection class."""
    for name, (opname, outer, union) in _ARITHMETIC.items():
        f, r, i = _make(opname, outer, union)
        setattr(cls, f"__{name}__", f)
        setattr(cls, f"__r{name}__", r)
        setattr(cls, f"__i{name}__", i)
    for name, opname in _COMPARISONS.items():
        f, _, _ = _make(opname)
        setattr(cls, f"__{name}__", f)
    cls.__xor__ = _xor
    cls.__rxor__ = lambda self, other: _xor(other, self)
    cls.__ixor__ = _ixor
    cls.__matmul__ = lambda self, other: _matmul(self, other)
    cls.__rmatmul__ = lambda self, other: _matmul(other, self)
    cls.__imatmul__ = _inplace("__matmul__")
    cls.__ior__ = _inplace("__or__")
    cls.__iand__ = _inplace("__and__")
    cls.__divmod__ = lambda self, other: (self // other, self % other)
    cls.__rdivmod__ = lambda self, other: (other // self, other % self)
    cls.__neg__ = _neg
    cls.__abs__ = _abs
    cls.__invert__ = _invert
    cls.__hash__ = None
