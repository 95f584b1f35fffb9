"""Scalar: a value that may be empty, with a GraphBLAS type.

A Scalar's value lives on the host, except the result of a reduction on a GPU: that stays in
device memory (a :class:`DeviceValue`) until Python reads it, and an apply on the same GPU
binds it by pointer, so a loop that reduces a vector and applies the result to another
queues both without waiting for the device (PageRank's sinks' mass, every step).
"""

import numpy as np

from ..dtypes import FP64, cast, lookup_dtype, udt_scalar, udt_values, unify
from ..exceptions import EmptyObject
from . import operations as ops
from .base import next_name, on_gpu
from .expr import ScalarExpression


def _infer_scalar_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return lookup_dtype("BOOL")
    if isinstance(value, np.generic):
        return lookup_dtype(value.dtype)
    if isinstance(value, int):
        arr = np.array(value)
        if arr.dtype.kind == "O":
            raise OverflowError(f"{value} does not fit in a 64-bit integer type")
        return lookup_dtype(arr.dtype)
    if isinstance(value, float):
        return lookup_dtype("FP64")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return lookup_dtype(value.dtype)
    if isinstance(value, complex):
        raise TypeError("Complex values are not supported by graphblast")
    raise TypeError(f"Cannot make a Scalar from {type(value).__name__} {value!r}")


class DeviceValue:
    """A non-empty value that a backend computed and left on its device: a one-element device
    array of type ``dtype``.  ``get()`` reads it (one synchronization, counted by the backend);
    until then the only way to use it without a read is to bind it, on the same backend, as
    apply's ``left=`` or ``right=`` (``Scalar._on_device``)."""

    __slots__ = ("array", "dtype", "backend")

    def __init__(self, array, dtype, backend):
        self.array, self.dtype, self.backend = array, dtype, backend

    def get(self):
        """The value as a NumPy scalar of ``dtype``, read from the device."""
        return self.backend.read_scalar(self.array)

    def __copy__(self):
        return self  # nothing writes its array again: copies of a Scalar may share it

    def __deepcopy__(self, memo):
        return self


def _unpickle(dtype, value, is_cscalar, name):
    out = Scalar(dtype, is_cscalar=is_cscalar, name=name)
    out._set_value(value)
    return out


class Scalar:
    """A GraphBLAS scalar: a typed value, or empty.

    Parameters
    ----------
    dtype : DataType, str or NumPy dtype, default FP64
    is_cscalar : bool
        Accepted for python-graphblas compatibility; it changes nothing here (a C scalar and
        a GrB_Scalar behave alike: host values, or a GPU reduction's value left there until
        read).
    name : str, optional
    """

    # _held: None (empty), a NumPy scalar of dtype, or a DeviceValue of dtype (read into a
    # NumPy scalar the first time the value is needed on the host; see _value)
    __slots__ = ("_held", "dtype", "name", "_is_cscalar", "__weakref__")
    _is_scalar = True
    ndim = 0
    shape = ()
    device = None

    def __init__(self, dtype=FP64, *, is_cscalar=False, name=None):
        self.dtype = lookup_dtype(dtype)
        self._held = None
        self._is_cscalar = bool(is_cscalar)
        self.name = name if name is not None else next_name("s")

    def __reduce__(self):
        """Pickled as its type, value and name: a value a GPU left on the device is read
        (a Scalar's value is a host value; the device copy only saves a read)."""
        return (_unpickle, (self.dtype, self._value, self._is_cscalar, self.name))

    def __copy__(self):
        """A copy sharing the value, a device one included (nothing writes it again)."""
        out = Scalar(self.dtype, is_cscalar=self._is_cscalar, name=self.name)
        out._held = self._held
        return out

    def __deepcopy__(self, memo):
        return self.__copy__()

    @classmethod
    def from_value(cls, value, dtype=None, *, is_cscalar=False, name=None):
        """A Scalar holding ``value`` (None gives an empty Scalar)."""
        if isinstance(value, Scalar):
            out = cls(dtype or value.dtype, is_cscalar=is_cscalar, name=name)
            out._set_value(value._held)
            return out
        if value is None:
            if dtype is None:
                raise TypeError("dtype is required to make an empty Scalar from None")
            return cls(dtype, is_cscalar=is_cscalar, name=name)
        if on_gpu(value):
            value = value.get()[()] if hasattr(value, "get") else value
        if dtype is None:
            dtype = _infer_scalar_dtype(value)
        out = cls(dtype, is_cscalar=is_cscalar, name=name)
        out._set_value(value)
        return out

    # -- value ---------------------------------------------------------------------------
    _dtype_of = staticmethod(_infer_scalar_dtype)  # for operations (no circular import)

    @staticmethod
    def _cast_value(value, dtype):
        """``Scalar.from_value(value)._value_as(dtype)`` without making the Scalar: a Python
        or NumPy scalar in the type it infers, then cast to ``dtype`` (a traversal assigns
        one scalar per level, and the Scalar object cost more than the assign's launch)."""
        dtype = lookup_dtype(dtype)
        if dtype._is_udt:
            return udt_scalar(value, dtype)
        own = _infer_scalar_dtype(value)
        return cast(cast(np.asarray(value).reshape(1), own), dtype)[0]

    @property
    def _value(self):
        """The value as a NumPy scalar, or None when empty (a value left on a device is read
        here, once)."""
        held = self._held
        if type(held) is DeviceValue:
            held = self._held = held.get()
        return held

    def _on_device(self, backend, dtype):
        """The DeviceValue to bind by pointer in an operation of ``backend`` that takes a
        ``dtype`` scalar, or None when the value is on the host, on another backend or of
        another type (the operation then takes ``_value_as(dtype)``)."""
        held = self._held
        if type(held) is DeviceValue and held.backend is backend and held.dtype == dtype:
            return held
        return None

    def _set_value(self, value):
        if value is None:
            self._held = None
            return
        if type(value) is DeviceValue:
            if value.dtype == self.dtype:
                self._held = value  # stays on the device until read
                return
            value = value.get()
        if self.dtype._is_udt:
            self._held = udt_scalar(value, self.dtype)
            return
        arr = np.asarray(value)
        if arr.dtype.kind == "O":
            raise TypeError(f"Cannot store {type(value).__name__} in a {self.dtype} Scalar")
        if arr.dtype.kind == "c":
            raise TypeError("Complex values are not supported by graphblast")
        self._held = cast(arr.reshape(1), self.dtype)[0]

    def _value_as(self, dtype):
        """The value cast to ``dtype`` (a NumPy scalar); raises if empty."""
        if self._value is None:
            raise EmptyObject(f"Scalar {self.name} is empty; give it a value")
        dtype = lookup_dtype(dtype)
        if dtype._is_udt:
            return udt_scalar(self.value if self.dtype._is_udt else self._value, dtype)
        return cast(np.asarray([self._value]), dtype)[0]

    @property
    def value(self):
        """The value as a Python object, or None when empty (a user-defined type's: a NumPy
        record, or an array for a subarray type)."""
        if self._value is None:
            return None
        if self.dtype._is_udt:
            return udt_values(np.asarray([self._value]), self.dtype)[0]
        return self._value.item()

    @value.setter
    def value(self, val):
        if isinstance(val, Scalar):
            val = val._held
        self._set_value(val)

    @property
    def is_empty(self):
        return self._held is None  # a DeviceValue is never empty: no read

    @property
    def nvals(self):
        return 0 if self._held is None else 1

    @property
    def is_cscalar(self):
        return self._is_cscalar

    @property
    def is_grbscalar(self):
        return not self._is_cscalar

    def get(self, default=None):
        return default if self._value is None else self._value.item()

    def clear(self):
        self._held = None

    def dup(self, dtype=None, *, clear=False, is_cscalar=None, name=None, **opts):
        out = Scalar(dtype or self.dtype,
                     is_cscalar=self._is_cscalar if is_cscalar is None else is_cscalar,
                     name=name)
        if not clear:
            out._set_value(self._held)
        return out

    def wait(self, how="materialize"):
        if how not in ("materialize", "complete"):
            raise ValueError(f'`how` argument must be "materialize" or "complete"; got {how!r}')
        return self

    # -- output syntax -------------------------------------------------------------------
    def __call__(self, *args, mask=None, accum=None, replace=False, input_mask=None, **opts):
        if input_mask is not None:
            raise TypeError("input_mask not allowed for Scalars")
        mask, accum, replace = ops.parse_output_args(self, args, mask, accum, replace)
        from .base import Updater

        return Updater(self, mask, accum, replace)

    def __lshift__(self, value):
        self.update(value)

    def update(self, value):
        ops.update(self, value)

    # -- comparisons and conversions -----------------------------------------------------
    def _other(self, other, method):
        """``other`` as a Scalar, and whether it was a Python value (whose type, not given,
        check_dtype does not check, as in python-graphblas)."""
        if isinstance(other, Scalar):
            return other, False
        if hasattr(other, "output_type"):
            return ops.computed(other, ("Scalar",), f"Scalar.{method}"), False
        if other is None:
            return Scalar(self.dtype), True
        if self.dtype._is_udt:  # a tuple, record or row: a value of this type
            return Scalar.from_value(other, self.dtype), True
        return Scalar.from_value(other), True

    def isequal(self, other, *, check_dtype=False):
        other, literal = self._other(other, "isequal")
        if check_dtype and not literal and self.dtype != other.dtype:
            return False
        if self._value is None or other._value is None:
            return self._value is None and other._value is None
        if self.dtype._is_udt or other.dtype._is_udt:
            # equal bytes, in the user-defined type (a number fills each field and element)
            t = self.dtype if self.dtype._is_udt else other.dtype
            return bool(self._value_as(t) == other._value_as(t))
        t = unify(self.dtype, other.dtype)
        return bool(self._value_as(t) == other._value_as(t))

    def isclose(self, other, *, rel_tol=1e-7, abs_tol=0.0, check_dtype=False):
        other, literal = self._other(other, "isclose")
        if check_dtype and not literal and self.dtype != other.dtype:
            return False
        if self._value is None or other._value is None:
            return self._value is None and other._value is None
        a, b = float(self._value), float(other._value)
        return a == b or abs(a - b) <= max(rel_tol * max(abs(a), abs(b)), abs_tol)

    def __eq__(self, other):
        if isinstance(other, Scalar):
            return self.isequal(other)
        if other is None:
            return self._held is None
        if self._value is None:
            return False
        if self.dtype._is_udt:
            return self.isequal(other)
        return bool(self._value == other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __bool__(self):
        return False if self._value is None else bool(self._value)

    def __int__(self):
        return int(self._value_as(self.dtype))

    def __float__(self):
        return float(self._value_as(self.dtype))

    def __complex__(self):
        return complex(self._value_as(self.dtype))

    def __index__(self):
        if not (self.dtype.is_int or self.dtype.is_bool):
            raise AttributeError(f"Scalar of type {self.dtype} only has __index__ for integral "
                                 "dtypes: a FP Scalar cannot be used as an index")
        return int(self._value_as(self.dtype))

    def __neg__(self):
        from ..ops import unary

        return self.apply(unary.ainv).new()

    # -- infix: ``s1 | s2`` and ``s1 & s2`` await an operator; ``s + 1``, ``s < 10`` are
    # ScalarExpressions (python-graphblas's)
    def __or__(self, other):
        return self._infix(other, "add", False)

    def __ror__(self, other):
        return self._infix(other, "add", True)

    def __and__(self, other):
        return self._infix(other, "mult", False)

    def __rand__(self, other):
        return self._infix(other, "mult", True)

    def _infix(self, other, kind, reverse):
        from .expr import InfixExpr

        if isinstance(other, InfixExpr) and other.kind not in (kind, "matmul"):
            raise TypeError(f"Mixed `|` and `&` in one infix expression is ambiguous; compute "
                            f"one part first (got {self.name} and {other!r})")
        if not _is_scalar_like(other):
            if hasattr(other, "_data") or hasattr(other, "_matrix"):
                raise TypeError(f"Bad type for argument `other` in Scalar infix: a Scalar "
                                f"and a {type(other).__name__} cannot be combined with | or &; "
                                "bind the scalar: binary.plus(x, s)")
            return NotImplemented
        return InfixExpr(other, self, kind) if reverse else InfixExpr(self, other, kind)

    def __matmul__(self, other):
        raise TypeError("Bad type for argument `other` in `@`: a Scalar has no matrix product; "
                        "use * for a product of scalars")

    __rmatmul__ = __matmul__

    def __imatmul__(self, other):
        raise TypeError("In-place `@=` is not supported for a Scalar (it has no matrix "
                        "product)")

    def __invert__(self):
        from ..ops import unary

        if not self.dtype.is_bool:
            raise TypeError(f"The invert operator, `~`, is only supported for BOOL, not "
                            f"{self.dtype}")
        return self.apply(unary.lnot).new()

    def __array__(self, dtype=None, copy=None):
        arr = np.array(self._value if self._value is not None else np.nan)
        return arr if dtype is None else arr.astype(dtype)

    # -- scalar operations (computed on the host) -----------------------------------------
    def apply(self, op, right=None, *, left=None):
        """apply on a Scalar: a Scalar expression."""
        from .vector import Vector

        v = self._as_vector()
        expr = Vector.apply(v, op, right=right, left=left)
        bound = right if right is not None else left
        args = [self] if bound is None else [self, _as_scalar(bound)]
        return _scalar_from_vector_expr(expr, "apply", self, args)

    def select(self, op, thunk=None):
        """select on a Scalar: a Scalar expression, the value kept where ``op`` is true."""
        from .vector import Vector

        expr = Vector.select(self._as_vector(), op, thunk)
        return _scalar_from_vector_expr(expr, "select", self)

    def ewise_add(self, other, op=None):
        from ..ops import monoid

        other = ops.scalar_of(other, "other", "Scalar.ewise_add")
        expr = self._as_vector().ewise_add(other._as_vector(), op or monoid.plus)
        return _scalar_from_vector_expr(expr, "ewise_add", self)

    def ewise_mult(self, other, op=None):
        from ..ops import binary

        other = ops.scalar_of(other, "other", "Scalar.ewise_mult")
        expr = self._as_vector().ewise_mult(other._as_vector(), op or binary.times)
        return _scalar_from_vector_expr(expr, "ewise_mult", self)

    def ewise_union(self, other, op, left_default, right_default):
        other = ops.scalar_of(other, "other", "Scalar.ewise_union")
        expr = self._as_vector().ewise_union(other._as_vector(), op, left_default,
                                             right_default)
        return _scalar_from_vector_expr(expr, "ewise_union", self)

    def _as_vector(self):
        from .vector import Vector

        if self._value is None:
            return Vector(self.dtype, 1, device="cpu")
        return Vector.from_coo([0], np.asarray([self._value]), self.dtype, size=1, device="cpu")

    def __repr__(self):
        from .formatting import scalar_repr

        return scalar_repr(self)

    def _repr_html_(self):
        from .formatting import html_repr

        return html_repr(self)


def _is_scalar_like(x):
    """A Scalar, an expression computing one, or a Python or NumPy number."""
    from .expr import InfixExpr, ScalarExpression

    if isinstance(x, (Scalar, ScalarExpression)):
        return True
    if isinstance(x, InfixExpr):
        return x.ndim == 0
    return isinstance(x, (bool, int, float, np.number, np.bool_))


def _arith(opname, reverse=False):
    def method(self, other):
        from ..ops import binary

        if not _is_scalar_like(other):
            return NotImplemented
        op = getattr(binary, opname)
        if not isinstance(other, Scalar) and not hasattr(other, "new"):
            # a number: bound, so the expression reads as select's comparisons do (s < 10)
            return self.apply(op, left=other) if reverse else self.apply(op, right=other)
        left, right = (other, self) if reverse else (self, other)
        return _as_scalar(left).ewise_mult(_as_scalar(right), op)

    return method


for _name, _op in [("add", "plus"), ("sub", "minus"), ("mul", "times"), ("truediv", "truediv"),
                   ("floordiv", "floordiv"), ("pow", "pow"), ("mod", "remainder")]:
    setattr(Scalar, f"__{_name}__", _arith(_op))
    setattr(Scalar, f"__r{_name}__", _arith(_op, reverse=True))
for _name in ("lt", "le", "gt", "ge"):
    setattr(Scalar, f"__{_name}__", _arith(_name))
del _name, _op


def _as_scalar(x):
    if isinstance(x, Scalar):
        return x
    if hasattr(x, "new"):  # an expression computing a Scalar
        return x.new()
    return Scalar.from_value(x)


def _scalar_from_vector_expr(expr, name, parent, args=None):
    def compute(mask):
        data = expr.compute(None)
        return None if data.nvals == 0 else data.values[0]

    return ScalarExpression(name, args or [parent], expr.op, expr.dtype, (), None, None,
                            compute)
