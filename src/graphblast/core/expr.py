"""Delayed expressions: ``A.mxm(B)``, ``v.vxm(A)``, ``A @ B``, ``A | B`` ... are built here and
computed only when assigned (``C << expr``, ``C(mask) << expr``) or materialized (``.new()``)."""

from ..backends.base import CSR
from ..dtypes import lookup_dtype
from ._types import types


class Expression:
    """A delayed GraphBLAS operation.

    ``compute(mask_arg)`` returns backend storage of the result (before accumulation and
    masking), of type ``dtype``; a mask argument lets the backend skip masked-out work.
    """

    __slots__ = ("method_name", "args", "op", "dtype", "shape", "backend", "device",
                 "_compute", "_repr_args")

    def __init__(self, method_name, args, op, dtype, shape, backend, device, compute):
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
        raise TypeError(f"An expression has no truth value; compute it first with .new() "
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

    dup = new

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

    # Expressions are accepted where a Matrix is: they are computed first.
    def __getattr__(self, item):
        if item.startswith("_"):
            raise AttributeError(item)
        return getattr(self.new(), item)


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

    def __getattr__(self, item):
        if item.startswith("_"):
            raise AttributeError(item)
        return getattr(self.new(), item)


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
        return self.new().value

    def __eq__(self, other):
        return self.new() == other

    def __hash__(self):
        raise TypeError("An expression is not hashable")

    def __float__(self):
        return float(self.new())

    def __int__(self):
        return int(self.new())

    def __index__(self):
        return self.new().__index__()

    def __bool__(self):
        return bool(self.new())

    def get(self, default=None):
        return self.new().get(default)

    @property
    def is_empty(self):
        return self.new().is_empty


class InfixExpr:
    """``A | B`` (union), ``A & B`` (intersection) or ``A @ B`` (product) before an operator is
    chosen: ``monoid.plus(A | B)``, ``semiring.min_plus(A @ B)``, or ``.new()`` with the
    default (lor/land for BOOL, plus_times for ``@``)."""

    __slots__ = ("left", "right", "kind")

    def __init__(self, left, right, kind):
        self.left = left
        self.right = right
        self.kind = kind

    def __repr__(self):
        sym = {"add": "|", "mult": "&", "matmul": "@"}[self.kind]
        return f"{getattr(self.left, 'name', self.left)} {sym} {getattr(self.right, 'name', self.right)}"

    def _to_expr(self, op=None):
        from ..dtypes import BOOL

        left, right = self.left, self.right
        if self.kind == "matmul":
            from ..ops import semiring

            op = op if op is not None else semiring.plus_times
            return _matmul(left, right, op)
        if op is None:
            if left.dtype == BOOL and right.dtype == BOOL:
                from ..ops import monoid

                op = monoid.lor if self.kind == "add" else monoid.land
            else:
                sym = "|" if self.kind == "add" else "&"
                method = "ewise_add" if self.kind == "add" else "ewise_mult"
                raise TypeError(
                    f"Bad dtypes for `x {sym} y`: automatic computation is only valid for BOOL "
                    f"(got {left.dtype} and {right.dtype}). Give an operator, such as "
                    f"`monoid.plus(x {sym} y)`, or call x.{method}(y, op).")
        if self.kind == "add":
            return left.ewise_add(right, op)
        return left.ewise_mult(right, op)

    def new(self, dtype=None, *, mask=None, name=None, **opts):
        return self._to_expr().new(dtype, mask=mask, name=name)

    @property
    def dtype(self):
        return self._to_expr().dtype

    @property
    def shape(self):
        return self._to_expr().shape

    def __bool__(self):
        raise TypeError("An infix expression has no truth value; compute it with .new()")

    @property
    def value(self):
        return self._to_expr().value


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
