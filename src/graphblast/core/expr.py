"""Delayed expressions: ``A.mxm(B)``, ``v.vxm(A)``, ``A @ B``, ``A | B`` ... are built here and
computed only when assigned (``C << expr``, ``C(mask) << expr``) or materialized (``.new()``)."""

from ..backends.base import CSR
from ..config import config
from ..dtypes import lookup_dtype
from ._types import types

_HINT = ("\n\nHint: use `graphblas.config.set(autocompute=True)` to enable automatic "
         "computation of expressions.")

class _AllIndices:
    """python-graphblas's marker of a whole dimension as an index (``v[:]``); pickled by
    name, so that it stays one object."""

    __slots__ = ()

    def __reduce__(self):
        return "_ALL_INDICES"

    def __repr__(self):
        return "_ALL_INDICES"


_ALL_INDICES = _AllIndices()

# The operators an expression answers as its value does, when computed on the spot
_FORWARDED = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__pow__",
              "__rpow__", "__xor__", "__rxor__", "__lt__", "__le__", "__gt__", "__ge__",
              "__ne__", "__eq__", "__neg__", "__abs__", "__invert__", "__iter__",
              "__contains__", "__getitem__", "__array__")


def _forward(name):
    def method(self, *args):
        # an expression on the other side is computed too (``(3 * x) & y``)
        args = [a._get_value() if isinstance(a, _AS_VALUE) else a for a in args]
        return self._get_value(name)(*args)

    method.__name__ = name
    return method


class Expression:
    """A delayed GraphBLAS operation.

    ``compute(mask_arg)`` returns backend storage of the result (before accumulation and
    masking), of type ``dtype``; a mask argument lets the backend skip masked-out work.
    """

    __slots__ = ("method_name", "args", "op", "dtype", "shape", "backend", "device",
                 "_compute", "_repr_args", "_value", "__weakref__")

    def __init__(self, method_name, args, op, dtype, shape, backend, device, compute):
        self._value = None
        self.method_name = method_name
        self.args = args
        self.op = op
        self.dtype = dtype
        self.shape = shape
        self.backend = backend
        self.device = device
        self._compute = compute

    def compute(self, mask_arg=None):
        return self._compute(mask_arg)

    def _get_value(self, attr=None):
        """The computed value (or its attribute ``attr``), as python-graphblas's autocompute:
        computed once when ``config["autocompute"]`` is on, else a TypeError."""
        if config.lookup("autocompute"):
            if self._value is None:
                self._value = self.new()
            return self._value if attr is None else getattr(self._value, attr)
        raise TypeError(f"{attr} not enabled for objects of type {type(self)}.  Use `.new()` to "
                        f"create a new {self.output_type.__name__}.{_HINT}")

    def __getattr__(self, item):
        # An attribute of the result (``(A @ B).nvals``): the value is computed for it
        if item.startswith("_") or not hasattr(self.output_type, item):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {item!r}")
        return self._get_value(item)

    __hash__ = None

    def __repr__(self):
        parts = [getattr(a, "name", repr(a)) for a in self.args[1:]]
        if self.op is not None:
            parts.append(repr(self.op))
        first = getattr(self.args[0], "name", repr(self.args[0])) if self.args else ""
        return (f"{type(self).__name__}: {first}.{self.method_name}({', '.join(parts)}) -> "
                f"{self.output_type.__name__} {self.dtype} {self.shape}")

    def _repr_html_(self):
        import html

        return f"<pre>{html.escape(repr(self))}</pre>"

    def __bool__(self):
        raise TypeError(f"__bool__ not defined for objects of type {type(self)}: an "
                        f"expression has no truth value; compute it first with .new() "
                        f"({self!r})")

    def new(self, dtype=None, *, mask=None, name=None, **opts):
        """Compute into a new object (of ``dtype``, under ``mask`` if given)."""
        if mask is None and self.device is not None:
            # no mask, no accumulator, nothing in the output: the result is the computed
            # storage cast to the type, without an empty output made first and written into
            # (``out << expr`` for a new out; every ``.new()`` of an algorithm's loop)
            out_dtype = self.dtype if dtype is None else lookup_dtype(dtype)
            data = _cast(self.backend, self.compute(None), out_dtype)
            return self.output_type._from_data(data, self.backend, self.device, name)
        out = self._empty_output(dtype, name)
        if mask is None:
            out.update(self)
        else:
            out(mask=mask) << self
        return out

    def dup(self, dtype=None, *, clear=False, mask=None, name=None, **opts):
        """The computed value (``clear=True``: an empty object of its shape and type)."""
        if clear:
            return self._empty_output(dtype, name)
        return self.new(dtype, mask=mask, name=name)

    def _empty_output(self, dtype, name):
        raise NotImplementedError

    @property
    def ndim(self):
        return len(self.shape)


class MatrixExpression(Expression):
    __slots__ = ()

    @property
    def nrows(self):
        return self.shape[0]

    @property
    def ncols(self):
        return self.shape[1]

    @property
    def output_type(self):
        return types()[0]

    def _empty_output(self, dtype, name):
        Matrix = types()[0]
        return Matrix(dtype or self.dtype, self.shape[0], self.shape[1], name=name,
                      device=self.device)



class VectorExpression(Expression):
    __slots__ = ()

    @property
    def size(self):
        return self.shape[0]

    @property
    def output_type(self):
        return types()[3]

    def _empty_output(self, dtype, name):
        Vector = types()[3]
        return Vector(dtype or self.dtype, self.shape[0], name=name, device=self.device)



class ScalarExpression(Expression):
    """Computes to a NumPy scalar, or None for an empty result."""

    __slots__ = ()

    def _empty_output(self, dtype, name):
        Scalar = types()[2]
        return Scalar(dtype or self.dtype, name=name)

    def new(self, dtype=None, *, name=None, is_cscalar=None, **opts):
        out = self._empty_output(dtype, name)
        out.update(self)
        return out

    @property
    def output_type(self):
        return types()[2]

    @property
    def value(self):
        return self._get_value("value")

    def __eq__(self, other):
        return self._get_value("__eq__")(other)

    def __ne__(self, other):
        return self._get_value("__ne__")(other)

    def __hash__(self):
        raise TypeError("An expression is not hashable")

    def __float__(self):
        return float(self._get_value())

    def __int__(self):
        return int(self._get_value())

    def __index__(self):
        return self._get_value().__index__()

    def __bool__(self):
        return bool(self._get_value("__bool__")())

    def get(self, default=None):
        return self._get_value().get(default)

    @property
    def is_empty(self):
        return self._get_value("is_empty")


for _name in _FORWARDED + ("__and__", "__rand__", "__or__", "__ror__", "__mod__", "__rmod__",
                          "__divmod__", "__rdivmod__"):
    for _cls in (MatrixExpression, VectorExpression, ScalarExpression):
        if _name not in _cls.__dict__:
            setattr(_cls, _name, _forward(_name))
del _name, _cls
_AS_VALUE = (MatrixExpression, VectorExpression, ScalarExpression)


class InfixExpr:
    """``A | B`` (union), ``A & B`` (intersection) or ``A @ B`` (product) before an operator is
    chosen: ``monoid.plus(A | B)``, ``semiring.min_plus(A @ B)``, or ``.new()`` with the
    default (lor/land for BOOL, plus_times for ``@``).  Chains (``u | v | w``) apply the
    operator at each step.  Operands may be Matrices, Vectors, Scalars or, beside a Scalar,
    Python numbers.  Used as a value, it is computed as python-graphblas's autocompute says."""

    __slots__ = ("left", "right", "kind", "_expr", "__weakref__")
    _SYMBOLS = {"add": "|", "mult": "&", "matmul": "@"}

    def __init__(self, left, right, kind):
        self.left = left
        self.right = right
        self.kind = kind
        self._expr = None

    def __repr__(self):
        return (f"{getattr(self.left, 'name', self.left)} {self._SYMBOLS[self.kind]} "
                f"{getattr(self.right, 'name', self.right)}")

    @staticmethod
    def _operand(x, op, left_default=None, right_default=None):
        """A chained operand computed with the same operator (and defaults)."""
        if isinstance(x, InfixExpr):
            return x._to_expr(op, left_default, right_default).new()
        if isinstance(x, Expression):
            return x.new()
        return x

    def _to_expr(self, op=None, left_default=None, right_default=None):
        from ..dtypes import BOOL

        if op is None and left_default is None and self._expr is not None:
            return self._expr
        left = self._operand(self.left, op, left_default, right_default)
        right = self._operand(self.right, op, left_default, right_default)
        Scalar = types()[2]
        if not hasattr(left, "ewise_add"):  # a Python number beside a Scalar
            left = Scalar.from_value(left)
        if not hasattr(right, "ewise_add"):
            right = Scalar.from_value(right)
        if self.kind == "matmul":
            from ..ops import semiring

            return _matmul(left, right, op if op is not None else semiring.plus_times)
        if left_default is not None or right_default is not None:
            return left.ewise_union(right, op, left_default, right_default)
        cache = op is None
        if op is None:
            if left.dtype == BOOL and right.dtype == BOOL:
                from ..ops import monoid

                op = monoid.lor if self.kind == "add" else monoid.land
            else:
                sym = self._SYMBOLS[self.kind]
                method = "ewise_add" if self.kind == "add" else "ewise_mult"
                raise TypeError(
                    f"Bad dtypes for `x {sym} y`!  Automatic computation of `x {sym} y` infix "
                    f"expressions is only valid for BOOL dtypes (got {left.dtype} and "
                    f"{right.dtype}).  Give an operator, such as `monoid.plus(x {sym} y)`, or "
                    f"call x.{method}(y, op).")
        expr = left.ewise_add(right, op) if self.kind == "add" else left.ewise_mult(right, op)
        if cache:
            self._expr = expr
        return expr

    def new(self, dtype=None, *, mask=None, name=None, **opts):
        expr = self._to_expr()
        if isinstance(expr, ScalarExpression):
            return expr.new(dtype, name=name, **opts)
        return expr.new(dtype, mask=mask, name=name)

    def dup(self, dtype=None, *, clear=False, mask=None, name=None, **opts):
        expr = self._to_expr()
        if isinstance(expr, ScalarExpression):
            return expr.dup(dtype, clear=clear, name=name, **opts)
        return expr.dup(dtype, clear=clear, mask=mask, name=name, **opts)

    def _get_value(self, attr=None):
        return self._to_expr()._get_value(attr)

    def __getattr__(self, item):
        if item.startswith("_") or not hasattr(self.output_type, item):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {item!r}")
        return self._get_value(item)

    # -- what is known without computing -------------------------------------------------
    @property
    def output_type(self):
        Matrix, TransposedMatrix, Scalar, Vector = types()
        ndim = self.ndim
        return Scalar if ndim == 0 else Vector if ndim == 1 else Matrix

    @property
    def ndim(self):
        dims = [getattr(x, "ndim", 0) for x in (self.left, self.right)]
        if self.kind == "matmul":
            return max(dims[0] + dims[1] - 2, 0)
        return max(dims)

    @property
    def shape(self):
        left, right = (getattr(x, "shape", ()) for x in (self.left, self.right))
        if self.kind == "matmul":
            return left[:-1] + right[1:]
        return left if len(left) >= len(right) else right

    @property
    def size(self):
        if self.ndim != 1:
            raise AttributeError("size is the length of a Vector result; use .shape")
        return self.shape[0]

    nrows = MatrixExpression.nrows
    ncols = MatrixExpression.ncols

    @property
    def dtype(self):
        return self._to_expr().dtype

    # -- chains and values ----------------------------------------------------------------
    def _chain(self, other, kind, reverse=False):
        kinds = {kind, self.kind, getattr(other, "kind", kind)}
        if "matmul" not in kinds and len(kinds) > 1:
            raise TypeError(f"Mixed `|` and `&` in one infix expression is ambiguous; "
                            f"compute one part first (got {self!r} {self._SYMBOLS[kind]} ...)")
        return InfixExpr(other, self, kind) if reverse else InfixExpr(self, other, kind)

    def __or__(self, other):
        return self._chain(other, "add")

    def __ror__(self, other):
        return self._chain(other, "add", reverse=True)

    def __and__(self, other):
        return self._chain(other, "mult")

    def __rand__(self, other):
        return self._chain(other, "mult", reverse=True)

    def __matmul__(self, other):
        return InfixExpr(self, other, "matmul")

    def __rmatmul__(self, other):
        return InfixExpr(other, self, "matmul")

    def __bool__(self):
        if self.ndim == 0:
            return bool(self._get_value("__bool__")())
        raise TypeError("An infix expression has no truth value; compute it with .new()")

    @property
    def value(self):
        return self._get_value("value")

    __hash__ = None


def _no_inplace(self, other):
    raise TypeError(f"In-place operators are not supported on {type(self).__name__} (an "
                    "expression has no storage to update); compute it first with .new()")


for _cls in (InfixExpr, MatrixExpression, VectorExpression, ScalarExpression):
    for _name in ("__ior__", "__iand__", "__imatmul__", "__iadd__", "__isub__", "__imul__",
                  "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__ixor__"):
        setattr(_cls, _name, _no_inplace)
del _cls, _name

for _name in _FORWARDED:
    if _name not in InfixExpr.__dict__:
        setattr(InfixExpr, _name, _forward(_name))
del _name


def _matmul(left, right, op):
    from .matrix import Matrix, TransposedMatrix
    from .vector import Vector

    if isinstance(left, (Matrix, TransposedMatrix)):
        if isinstance(right, Vector):
            return left.mxv(right, op)
        return left.mxm(right, op)
    if isinstance(right, Vector):
        return left.inner(right, op)
    return left.vxm(right, op)


def _cast(backend, data, dtype):
    """Storage ``data`` in ``dtype`` (itself when it has that type already)."""
    if data.dtype is dtype:
        return data
    return backend.cast_matrix(data, dtype) if _is_matrix_data(data) else \
        backend.cast_vector(data, dtype)


def _is_matrix_data(data):
    """Whether storage is a matrix's: told by its class, since reading the arrays of a device
    group's storage would gather them."""
    return isinstance(data, CSR)

from .base import Updater  # noqa: E402,F401  (python-graphblas's graphblas.core.expr.Updater)
