"""GraphBLAS semantics, once for every backend.

Every operation follows the C API's steps: validate everything (shapes, types, devices,
operators) before touching any object; compute T from the inputs (the backend primitive, given
the mask so it may skip work); Z = accum(C, T) if an accumulator is given, else T cast to C's
type; finally write Z into C under the mask, keeping or clearing what the mask excludes
(``replace``).  Storage is immutable, so an output that is also an input or the mask sees the
same result as with copies.
"""

import operator
from types import FunctionType

import numpy as np

from ..backends.base import computed_under
from ..config import config
from ..dtypes import BOOL, INT64, unify
from ..exceptions import DeviceMismatch, DimensionMismatch, DomainMismatch, EmptyObject
from ..ops.base import (
    BinaryOp, IndexUnaryOp, Monoid, OpBase, Semiring, TypedBinaryOp, TypedIndexUnaryOp,
    TypedMonoid, TypedOpBase, TypedSemiring, TypedUnaryOp, UnaryOp, find_typed_op,
)
from ..ops.swapped import swap_semiring as _swap_semiring
from ._types import types as _types
from .expr import (InfixExpr, MatrixExpression, ScalarExpression, VectorExpression, _cast,
                   _is_matrix_data)
from .index import as_list
from .mask import Mask
from .target import AssignTarget

_REPLACE = None


def _replace_singleton():
    """``graphblast.replace``, looked up once (the package imports this module)."""
    global _REPLACE
    if _REPLACE is None:
        from .. import replace

        _REPLACE = replace
    return _REPLACE


# -- validation helpers ----------------------------------------------------------------------


def same_device(*objs):
    """The device and backend shared by the collections in ``objs``; raise if they differ."""
    # the common case first (every operation's path): collections all on the first's device
    try:
        device, backend = objs[0].device, objs[0]._backend
        if device is not None:
            for obj in objs:
                if obj.device != device:
                    break
            else:
                return device, backend
    except (AttributeError, IndexError):  # not all collections, or none: the general loop
        pass
    device = backend = None
    for obj in objs:
        d = getattr(obj, "device", None)
        if d is None or not hasattr(obj, "_backend"):
            continue
        if device is None:
            device, backend = d, obj._backend
        elif d != device:
            raise DeviceMismatch(
                f"Operands are on different devices ({device} and {d}); graphblast never moves "
                f"data silently. Move one with .to_device({device!r}) first.")
    return device, backend


def _resolve_op(op, namespace):
    """Accept a string where python-graphblas does (``"min_plus"``, ``"+"``)."""
    if isinstance(op, str):
        import importlib

        return importlib.import_module(f"graphblast.ops.{namespace}").from_string(op)
    if op is min or op is max or op is abs:  # Python's builtins stand for binary.min, ...
        from ..ops.base import _builtin_op

        return _builtin_op(op, namespace)
    if getattr(op, "kind_name", None) == "monoid":  # a ParameterizedMonoid: its defaults'
        return op()
    if isinstance(op, FunctionType) and namespace in ("unary", "binary", "indexunary"):
        from ..ops.user import from_function  # a user's function (python-graphblas's lambdas)

        return from_function(op, namespace)
    return op


_typed_semirings = {}  # (Semiring, type, type) -> TypedSemiring, found once


def typed_semiring(op, t1, t2):
    key = (op, t1, t2)
    found = _typed_semirings.get(key) if isinstance(op, (Semiring, TypedSemiring)) else None
    if found is not None:
        return found
    op = _resolve_op(op, "semiring")
    if isinstance(op, (Semiring, TypedSemiring)):
        found = find_typed_op(op, t1, t2)
        if key[0] is op:  # not a string: the key is the operator itself
            _typed_semirings[key] = found
        return found
    raise TypeError(f"Expected a Semiring, got {type(op).__name__} {op!r}; for example "
                    "semiring.plus_times or semiring.min_plus.")


def typed_binary(op, t1, t2=None, *, is_left_scalar=False, is_right_scalar=False,
                 for_add=True, method="ewise_add"):
    """A typed binary operator from a BinaryOp, Monoid or Semiring (its monoid for unions,
    its multiplication for intersections)."""
    op = _resolve_op(op, "binary")
    if isinstance(op, (Semiring, TypedSemiring)):
        raise TypeError(f"Bad type for argument `op` in {method}(...).\n"
                        "    - Expected type: BinaryOp, Monoid.\n"
                        f"    - Got: Semiring ({op!r}).\n"
                        f"Use {op!r}.binaryop or {op!r}.monoid")
    if isinstance(op, (Monoid, TypedMonoid, BinaryOp, TypedBinaryOp)):
        typed = find_typed_op(op, t1, t2, is_left_scalar=is_left_scalar,
                              is_right_scalar=is_right_scalar)
        return typed.binaryop if isinstance(typed, TypedMonoid) else typed
    raise TypeError(f"Bad type for argument `op` in {method}(...).\n"
                    "    - Expected type: BinaryOp, Monoid.\n"
                    f"    - Got: {type(op).__name__} ({op!r}).")


def typed_monoid(op, t, method="reduce_rowwise"):
    op = _resolve_op(op, "monoid")
    if isinstance(op, TypedBinaryOp) and op.parent.monoid is not None and op.monoid is None:
        raise TypeError(f"Bad type for argument `op` in {method}(...): {op!r} is not known to "
                        f"be part of a Monoid for {op.type} datatype")
    if isinstance(op, (BinaryOp, TypedBinaryOp)):
        parent = op if isinstance(op, BinaryOp) else op.parent
        if parent.monoid is None and method in ("reduce_scalar", "reduce"):
            raise TypeError(f"Bad type for argument `op` in {method}(...).\n"
                            "    - Expected type: Monoid.\n"
                            f"    - Got: BinaryOp ({op!r}), not known to be part of a Monoid; "
                            "use a Monoid such as monoid.plus")
        if parent.monoid is None:
            # python-graphblas passes row/column reductions by a BinaryOp to SuiteSparse
            from ..exceptions import NotImplementedException

            raise NotImplementedException(f"{op!r} has no equivalent monoid (no identity); "
                                          "reduce with a Monoid such as monoid.plus")
        # a typed operator keeps its type (w.reduce(binary.plus[int]) of a BOOL w is INT64)
        op = op.monoid if isinstance(op, TypedBinaryOp) else _resolve_op(parent.monoid,
                                                                        "monoid")
    if isinstance(op, (Monoid, TypedMonoid)):
        return find_typed_op(op, t)
    extra = (f"  Use {op!r}.monoid to get the Monoid of a Semiring"
             if isinstance(op, (Semiring, TypedSemiring)) else "")
    raise TypeError(f"Bad type for argument `op` in {method}(...).\n"
                    "    - Expected type: Monoid.\n"
                    f"    - Got: {type(op).__name__} ({op!r}); for example monoid.plus.{extra}")


def as_mask(mask):
    """``mask`` as a Mask: a BOOL Matrix or Vector is its value mask; anything else that is
    not a Mask is python-graphblas's TypeError."""
    if isinstance(mask, Mask):
        return mask
    Matrix, _, _, Vector = _types()
    if isinstance(mask, (Matrix, Vector)):
        if mask.dtype != BOOL:
            raise TypeError(f"Mask must be boolean objects (got {mask.dtype}) or indicate "
                            "values (M.V) or structure (M.S)")
        return mask.V
    raise TypeError(f"Invalid mask: {type(mask).__name__}; use M.S, M.V, ~M.S or ~M.V")


def check_mask(mask, output):
    """A Mask for ``output`` (a BOOL collection is taken as its value mask)."""
    if mask is None:
        return None
    if isinstance(mask, Mask):
        parent = mask.parent
        # the common case, checked first: a mask of the output's own kind, shape and device
        if (type(parent) is type(output) and parent.device == output.device
                and parent.shape == output.shape):
            return mask
    else:
        mask = as_mask(mask)
    parent = mask.parent
    if output._is_scalar:
        raise TypeError("Mask not allowed for Scalars")
    if isinstance(output, _RegionShape) and output.from_matrix and parent.ndim == 1:
        if output.ndim == 0:
            raise TypeError("Unable to use Vector mask on single element assignment to a "
                            "Matrix")
        if output.ndim == 2:
            raise TypeError("Unable to use Vector mask on Matrix assignment to a Matrix")
    if output.ndim == 2 and parent.ndim == 1:
        # a row or column assign (C(v.S)[i, J] << u) takes a Vector mask: checked there
        same_device(output, parent)
        return mask
    if output.ndim != parent.ndim:
        if isinstance(output, _RegionShape):
            if output.ndim == 0:
                raise TypeError("Single element assign does not accept a submask")
            if output.from_matrix and output.ndim == 1:
                raise TypeError("Indices for subassign imply Vector submask, but got "
                                f"{type(parent).__name__} mask instead")
        kind = ("Vector" if output.ndim == 1 else "Matrix") if isinstance(
            output, _RegionShape) else type(output).__name__
        raise TypeError(f"Mask object must be type {kind}; got {type(parent).__name__}")
    if parent.shape != output.shape:
        raise DimensionMismatch(f"Mask shape {parent.shape} does not match output shape "
                                f"{output.shape}")
    same_device(output, parent)
    return mask


def _mask_arg(mask):
    return None if mask is None else mask._arg()


# -- evaluation ------------------------------------------------------------------------------


def evaluate(target, expr, mask=None, accum=None, replace=False):
    """``target(mask, accum, replace) << expr`` for a computed expression."""
    if target.shape != expr.shape:
        raise DimensionMismatch(f"Output shape {target.shape} does not match the expression's "
                                f"{expr.shape} ({expr!r})")
    if expr.device is not None and expr.device != target.device:
        raise DeviceMismatch(f"The expression is on {expr.device} but the output on "
                             f"{target.device}; move one with .to_device().")
    backend = target._backend
    maskarg = None
    if mask is not None:
        if mask.parent.ndim != target.ndim:
            raise TypeError(f"Mask object must be type {type(target).__name__}; got "
                            f"{type(mask.parent).__name__} (a Vector mask only goes with a row "
                            "or column assign, C(mask)[i, :] << v)")
        maskarg = mask._arg()
    if accum is not None:
        accum = typed_accum(accum, target.dtype)
    T = expr._compute(maskarg)
    C = target._data
    if accum is not None:
        # without a mask the backend may fold T into C in place (O(T's entries))
        Z = NotImplemented if maskarg is not None else backend.accum_into(target, C, T, accum)
        if Z is NotImplemented:
            Z = backend.ewise_add(C, T, accum, out_dtype=target.dtype)
    else:
        Z = T if T.dtype is target.dtype else _cast(backend, T, target.dtype)
    # Z is the result as it is without a mask, or when replaced under the very mask it was
    # computed under (a primitive may keep a weak reference to its MaskArg: MaskArg's
    # docstring): then no write-back, and no call into the backend (the per-call path)
    if maskarg is None or (replace and computed_under(Z, maskarg)):
        target._set_data(Z)
    else:
        target._set_data(backend.mask_write_into(target, C, Z, maskarg, replace))


def typed_accum(accum, dtype):
    if accum is None:
        return None
    accum = _resolve_op(accum, "binary")
    if isinstance(accum, (Monoid, TypedMonoid)):
        accum = find_typed_op(accum, dtype)
        return accum.binaryop
    if isinstance(accum, (BinaryOp, TypedBinaryOp)):
        return find_typed_op(accum, dtype)
    raise TypeError(f"Bad type for keyword argument `accum=` in __call__(...).\n"
                    "    - Expected type: BinaryOp (or Monoid).\n"
                    f"    - Got: {type(accum).__name__} ({accum!r}).")


def update(target, value, mask=None, accum=None, replace=False):
    """``target(mask, accum, replace) << value`` for anything python-graphblas accepts."""
    if target._is_scalar:
        return _update_scalar(target, value, accum)
    if type(value) is VectorExpression or type(value) is MatrixExpression:  # the common case
        return evaluate(target, value, mask, accum, replace)
    Matrix, TransposedMatrix, Scalar, Vector = _types()
    if isinstance(value, InfixExpr):
        value = value._to_expr()
    if isinstance(value, Indexed):
        if value.is_element:
            raise TypeError("Cannot assign a single element to a Matrix or Vector; use "
                            "C[...] << value to assign")
        value = value._extract_expr()
    if isinstance(value, (MatrixExpression, VectorExpression)):
        return evaluate(target, value, mask, accum, replace)
    if isinstance(value, ScalarExpression):  # a Scalar's value everywhere, if autocompute
        value = computed(value, ("Scalar",), f"{type(target).__name__}.update", "value")
    if isinstance(value, (Matrix, Vector, TransposedMatrix)):
        if type(value) is TransposedMatrix and isinstance(target, Matrix):
            return evaluate(target, value._as_expr(), mask, accum, replace)
        if target.ndim != value.ndim:
            raise TypeError(f"Cannot assign a {type(value).__name__} to a "
                            f"{type(target).__name__}")
        return evaluate(target, value._as_expr(), mask, accum, replace)
    if target.dtype._is_udt and isinstance(value, (tuple, list, np.ndarray, np.void)):
        value = Scalar.from_value(value, target.dtype)  # one value of the user-defined type
    if isinstance(value, Scalar) or np.isscalar(value) or _is_0d(value):
        if _assign_scalar_fast(target, value, mask, accum, replace):
            return None
        indices = (slice(None),) * target.ndim
        return assign(target, value, indices, mask, accum, replace, subassign=False)
    raise TypeError(f"Assignment value must be a valid expression type, not "
                    f"{type(value).__name__}: an expression, Matrix, Vector or scalar"
                    + ("; C(mask)[I] is an assignment target (C(mask)[I] << value), not a "
                       "value" if isinstance(value, Assigner) else ""))


def _assign_scalar_fast(target, value, mask, accum, replace):
    """``v(mask, accum, replace) << scalar`` by the backend's own kernel where it has one
    (the GPU updates a bitmap in place at the mask's entries); False to take the general
    assign.  ``mask`` was checked when the output's arguments were parsed."""
    fast = getattr(target._backend,
                   "assign_scalar" if target.ndim == 1 else "assign_scalar_matrix", None)
    if fast is None:
        return False
    Scalar = _types()[2]
    if isinstance(value, Scalar):
        if value.is_empty:
            return False
        typed = bound_value(value, target._backend, target.dtype)
    else:
        typed = Scalar._cast_value(value, target.dtype)
    accum_op = typed_accum(accum, target.dtype)
    new = fast(target, target._data, typed, _mask_arg(mask), accum_op, replace)
    if new is None:
        return False
    target._set_data(new)
    return True


def _is_0d(value):
    return isinstance(value, np.ndarray) and value.ndim == 0


def _update_scalar(target, value, accum):
    from .scalar import DeviceValue, Scalar

    if isinstance(value, InfixExpr):
        value = value._to_expr()
    if isinstance(value, Indexed):
        if not value.is_element:
            raise TypeError("Cannot assign a Matrix or Vector extract to a Scalar")
        if accum is not None and not config.lookup("autocompute"):
            # accumulating reads the element's value: python-graphblas's autocompute TypeError
            value._get_value("Accumulation into a Scalar")
        value = value._element_scalar()
    if isinstance(value, ScalarExpression):
        result = value.compute(None)
    elif isinstance(value, Scalar):
        result = value._held  # a value left on a device stays there
    elif value is None:
        result = None
    elif isinstance(value, (MatrixExpression, VectorExpression)) or hasattr(value, "_data"):
        raise TypeError(f"Cannot assign a {type(value).__name__} to a Scalar")
    else:
        result = Scalar.from_value(value)._value
    if accum is not None:
        op = typed_accum(accum, target.dtype)
        if result is None:
            return
        if type(result) is DeviceValue:
            result = result.get()
        if target._value is not None:
            from ..dtypes import cast

            result = op.np_func(cast(np.asarray([target._value]), op.type),
                                cast(np.asarray([result]), op.type2))[0]
    target._set_value(result)


# -- expression builders ---------------------------------------------------------------------


def _default_semiring(op):
    if op is None:
        from ..ops import semiring

        return semiring.plus_times
    return op


def _default_times(op):
    if op is None:
        from ..ops import binary

        return binary.times
    return op


def mxm(A, B, op=None):
    from .matrix import Matrix, TransposedMatrix

    if not isinstance(B, (Matrix, TransposedMatrix)):
        B = _as_matrix_operand(B, "mxm")
    device, backend = same_device(A, B)
    if A.ncols != B.nrows:
        raise DimensionMismatch(f"Dimensions not compatible for mxm: {A.shape} and {B.shape} "
                                f"(A.ncols={A.ncols} must equal B.nrows={B.nrows})")
    semi = typed_semiring(_default_semiring(op), A.dtype, B.dtype)

    def compute(mask):
        if type(B) is TransposedMatrix:  # B' read as stored: the backend transposes if needed
            return backend.mxm_bt(A._csr(), B._matrix._data, semi, mask)
        return backend.mxm(A._csr(), B._csr(), semi, mask)

    return MatrixExpression("mxm", [A, B], semi, semi.return_type, (A.nrows, B.ncols), backend,
                            device, compute)


def computed(x, expected, within, argname="other"):
    """``x``, or the value of an expression whose result is one of the ``expected`` class
    names (python-graphblas's ``_expect_type``): computed when ``config["autocompute"]`` is
    on, else a TypeError saying so; any other type is a TypeError."""
    if isinstance(x, (MatrixExpression, VectorExpression, ScalarExpression, InfixExpr)):
        out = x.output_type.__name__
        if out in expected:
            if config.lookup("autocompute"):
                return x._get_value() if not isinstance(x, InfixExpr) else x._to_expr().new()
            raise TypeError(
                f"Bad type for argument `{argname}` in {within}(...).\n"
                f"    - Expected type: {', '.join(expected)}.\n    - Got: {type(x)}.\n\n"
                "Hint: use `graphblas.config.set(autocompute=True)` to automatically compute "
                "arguments that are expressions (or call .new() on the argument).")
    if type(x).__name__ in expected:
        return x
    raise TypeError(f"Bad type for argument `{argname}` in {within}(...).\n"
                    f"    - Expected type: {', '.join(expected)}.\n    - Got: {type(x)}.")


def _as_matrix_operand(x, method):
    Vector = _types()[3]

    if isinstance(x, Vector):
        raise TypeError(f"Bad type for argument `other` in {method}(...).\n"
                        "    - Expected type: Matrix, TransposedMatrix.\n"
                        f"    - Got: {type(x)}.  Use mxv/vxm for a Vector")
    return computed(x, ("Matrix", "TransposedMatrix"), method)


def _as_vector_operand(x, method):
    Vector = _types()[3]

    if isinstance(x, Vector):
        return x
    return computed(x, ("Vector",), method)


def mxv(A, v, op=None):
    TransposedMatrix = _types()[1]

    v = _as_vector_operand(v, "mxv")
    device, backend = same_device(A, v)
    if A.ncols != v.size:
        raise DimensionMismatch(f"Dimensions not compatible for mxv: matrix {A.shape} and "
                                f"vector of size {v.size}")
    semi = typed_semiring(_default_semiring(op), A.dtype, v.dtype)
    if isinstance(A, TransposedMatrix):
        parent = A._matrix

        def compute(mask):  # A' v is v' A: no transpose needed
            return backend.vxm(v._data, parent._data, _swap_semiring(semi), mask)
    else:
        def compute(mask):
            return backend.mxv(A._data, v._data, semi, mask)

    return VectorExpression("mxv", [A, v], semi, semi.return_type, (A.nrows,), backend, device,
                            compute)


def vxm(v, A, op=None):
    Matrix, TransposedMatrix, _, _ = _types()

    if not isinstance(A, (Matrix, TransposedMatrix)):
        A = _as_matrix_operand(A, "vxm")
    device, backend = same_device(v, A)
    if v.size != A.nrows:
        raise DimensionMismatch(f"Dimensions not compatible for vxm: vector of size {v.size} and "
                                f"matrix {A.shape}")
    semi = typed_semiring(_default_semiring(op), v.dtype, A.dtype)
    if isinstance(A, TransposedMatrix):
        parent = A._matrix

        def compute(mask):  # v' A' is (A v)'
            return backend.mxv(parent._data, v._data, _swap_semiring(semi), mask)
    else:
        def compute(mask):
            return backend.vxm(v._data, A._data, semi, mask)

    return VectorExpression("vxm", [v, A], semi, semi.return_type, (A.ncols,), backend, device,
                            compute)


def ewise(kind, A, B, op, left_default=None, right_default=None):
    """ewise_add ("add"), ewise_mult ("mult") or ewise_union ("union") of two collections."""
    if not hasattr(B, "_data") and not hasattr(B, "_csr"):
        B = computed(B, ("Matrix", "TransposedMatrix", "Vector"), f"ewise_{kind}")
    if A.ndim != B.ndim:
        A, B = _broadcast(kind, A, B, op)
    device, backend = same_device(A, B)
    if A.shape != B.shape:
        raise DimensionMismatch(f"Shapes differ for ewise_{kind}: {A.shape} and {B.shape}")
    method = f"ewise_{kind}"
    typed = typed_binary(op, A.dtype, B.dtype, for_add=kind != "mult", method=method)
    expr_cls = MatrixExpression if A.ndim == 2 else VectorExpression
    if kind == "union":
        ld = _scalar_arg(left_default, "left_default")
        rd = _scalar_arg(right_default, "right_default")
        typed = typed_binary(op, unify(A.dtype, ld.dtype), unify(B.dtype, rd.dtype),
                             method=method)
        lval = bound_value(ld, backend, typed.type)
        rval = bound_value(rd, backend, typed.type2)

        def compute(mask):
            return backend.ewise_union(_data(A), _data(B), typed, lval, rval)
    elif kind == "add":
        def compute(mask):
            return backend.ewise_add(_data(A), _data(B), typed)
    else:
        def compute(mask):
            return backend.ewise_mult(_data(A), _data(B), typed)

    return expr_cls(method, [A, B], typed, typed.return_type, A.shape, backend, device, compute)


def _broadcast(kind, A, B, op):
    """python-graphblas's Matrix-Vector broadcasting: a Vector on the left is a column
    (``v[i]`` stands at every ``(i, j)``), on the right a row (``v[j]`` at every ``(i, j)``).
    Returns two Matrices: for an intersection the Vector's values on the Matrix's structure
    (``D @ pattern``, D the Vector's diagonal), for a union its dense rows or columns."""
    from ..ops import binary, semiring
    Matrix, TransposedMatrix, _, Vector = _types()

    left_vector = A.ndim == 1
    v, M = (A, B) if left_vector else (B, A)
    n = M.nrows if left_vector else M.ncols
    if v.size != n:
        raise DimensionMismatch(f"ewise_{kind} broadcasts a Vector of size {v.size} along "
                                f"the {'rows' if left_vector else 'columns'} of a Matrix of "
                                f"shape {M.shape}; the sizes must match")
    if kind == "mult":
        pattern = M.apply(binary.pair[BOOL], right=True).new() if M.dtype != BOOL else M
        spread = (semiring.any_first(v.diag() @ pattern) if left_vector
                  else semiring.any_second(pattern @ v.diag())).new()
    else:
        ones = Vector.from_scalar(True, M.ncols if left_vector else M.nrows, device=M.device)
        spread = (v.outer(ones, binary.first) if left_vector
                  else ones.outer(v, binary.second)).new()
    if isinstance(M, TransposedMatrix):
        M = M.new()
    return (spread, M) if left_vector else (M, spread)


def _data(x):
    """Storage of a collection in its visible orientation (transposes are materialized)."""
    return x._csr() if hasattr(x, "_csr") else x._data


def scalar_of(value, argname, within, dtype=None):
    """``value`` as a Scalar: a Scalar, a computed ScalarExpression, an element ``A[i, j]``,
    or a Python or NumPy number; anything else is python-graphblas's TypeError."""
    Scalar = _types()[2]
    if isinstance(value, Scalar):
        return value
    if isinstance(value, Indexed) and value.is_element:
        return value._get_value()
    if isinstance(value, (ScalarExpression, InfixExpr)) and value.output_type is Scalar:
        return computed(value, ("Scalar",), within, argname)
    try:
        return Scalar.from_value(value, dtype)
    except TypeError:
        arg = f"argument `{argname}`" if argname == "value" else \
            f"keyword argument `{argname}=`"
        raise TypeError(f"Bad type for {arg} in {within}(...).\n"
                        f"    - Expected type: Scalar.\n    - Got: {type(value)}.\n"
                        "Literal scalars also accepted.") from None


def _udt_region_value(value, dtype, shape, backend, device):
    """A value assigned to a region of a user-defined type: one value (a Scalar), or values of
    the region's shape (a Vector or Matrix), as python-graphblas reads them: a tuple is one
    record, and a subarray type's values carry its shape last."""
    Matrix, _, Scalar, Vector = _types()
    from ..dtypes import udt_array

    npdt = dtype.np_type
    if npdt.subdtype is not None:
        base, sub = npdt.subdtype
        arr = np.asarray(value, dtype=base)
        if arr.ndim == 0 or arr.shape == sub:
            return Scalar.from_value(value, dtype)
        lead = arr.shape[:-len(sub)] if arr.shape[-len(sub):] == sub else arr.shape
    else:
        arr = np.asarray(value, dtype=npdt)
        if arr.ndim == 0:
            return Scalar.from_value(value, dtype)
        lead = arr.shape
    if lead != tuple(shape):
        extra = (f" (this is assigning to a matrix with sub-array dtype ({dtype}), so array "
                 "shape should include dtype shape)" if npdt.subdtype is not None else "")
        raise ValueError(f"shape mismatch: value array of shape {lead} does not match "
                         f"indexing of shape {tuple(shape)}{extra}")
    raw = udt_array(arr, dtype)
    if len(lead) == 1:
        return Vector.from_coo(np.arange(lead[0]), raw, dtype, size=lead[0], device=device)
    k = np.arange(raw.shape[0])
    return Matrix.from_coo(k // lead[1], k % lead[1], raw, dtype, nrows=lead[0], ncols=lead[1],
                           device=device)


def _scalar_arg(value, name):
    if value is None:
        raise TypeError(f"{name} is required (a scalar used where an operand has no entry)")
    s = scalar_of(value, name, "apply" if name in ("left", "right") else "ewise_union")
    if s.is_empty:
        raise EmptyObject(f"{name} is an empty Scalar; give it a value")
    return s


def bound_value(s, backend, dtype):
    """A scalar operand for ``backend`` (apply's bound scalar, a value-testing thunk, a
    scalar assigned, ewise_union's defaults, a fill value): the device array of a value that
    a reduction on the same backend left there (read there; no synchronization), else the
    value as a NumPy scalar of ``dtype``."""
    held = s._on_device(backend, dtype)
    return held.array if held is not None else s._value_as(dtype)


def apply(A, op, right=None, left=None):
    """apply with a unary op, a binary op with a bound scalar, or an index-unary op + thunk."""
    from .scalar import Scalar

    device, backend = same_device(A)
    op = _resolve_apply_op(op)
    expr_cls = MatrixExpression if A.ndim == 2 else VectorExpression
    if isinstance(op, (UnaryOp, TypedUnaryOp)):
        if left is not None or right is not None:
            raise TypeError(f"A unary operator takes no scalar: remove left=/right= ({op!r})")
        typed = find_typed_op(op, A.dtype)

        def compute(mask):
            return backend.apply(_data(A), typed)
        return expr_cls("apply", [A], typed, typed.return_type, A.shape, backend, device,
                        compute)
    if isinstance(op, (IndexUnaryOp, TypedIndexUnaryOp)):
        if left is not None:
            raise TypeError("An index-unary operator takes its thunk as right=, not left=")
        if A.dtype._is_udt and isinstance(right, (tuple, list, np.ndarray, np.void)):
            right = Scalar.from_value(right, A.dtype)  # a value of the user-defined type
        thunk = Scalar.from_value(0 if right is None else right) if not isinstance(
            right, Scalar) else right
        if thunk.is_empty:
            raise EmptyObject("The thunk is an empty Scalar; give it a value")
        typed = _typed_indexunary(op, A.dtype, thunk)
        tval = _thunk_value(typed, thunk, backend)

        def compute(mask):
            return backend.apply(_data(A), typed, thunk=tval)
        return expr_cls("apply", [A, thunk], typed, typed.return_type, A.shape, backend, device,
                        compute)
    if isinstance(op, (BinaryOp, TypedBinaryOp, Monoid, TypedMonoid)):
        if (left is None) == (right is None):
            raise TypeError("Cannot provide both `left=` and `right=` to apply"
                            if left is not None else
                            "A binary operator in apply needs exactly one bound scalar: "
                            "left= or right=")
        if A.dtype._is_udt:  # a tuple or record bound to a user-defined type is one value
            left, right = (Scalar.from_value(x, A.dtype)
                           if isinstance(x, (tuple, list, np.ndarray, np.void)) else x
                           for x in (left, right))
        if left is not None:
            s = _scalar_arg(left, "left")
            typed = typed_binary(op, s.dtype, A.dtype, is_left_scalar=True, method="apply")
            lval = bound_value(s, backend, typed.type)

            def compute(mask):
                return backend.apply(_data(A), typed, left=lval)
            args = [s, A]
        else:
            s = _scalar_arg(right, "right")
            typed = typed_binary(op, A.dtype, s.dtype, is_right_scalar=True, method="apply")
            rval = bound_value(s, backend, typed.type2)

            def compute(mask):
                return backend.apply(_data(A), typed, right=rval)
            args = [A, s]
        return expr_cls("apply", args, typed, typed.return_type, A.shape, backend, device,
                        compute)
    raise TypeError(f"apply only accepts UnaryOp with no scalars or BinaryOp with `left` or "
                    f"`right` scalar (or a Monoid or IndexUnaryOp), got "
                    f"{type(op).__name__} {op!r}")


def _resolve_apply_op(op):
    if isinstance(op, str):
        from ..ops import from_string

        return from_string(op)
    if isinstance(op, FunctionType):
        from ..ops.user import from_function  # by its arity: unary, binary, index-unary

        return from_function(op)
    return op


def _typed_indexunary(op, dtype, thunk):
    return find_typed_op(op, dtype, thunk.dtype, is_right_scalar=True)


def _thunk_value(typed, thunk, backend):
    """The thunk for ``backend``: compared with values, it may stay on the device
    (bound_value); a positional operator's thunk is an index, read as INT64."""
    if typed.uses_value:
        return bound_value(thunk, backend, typed.type)
    return thunk._value_as(INT64)


# (index-unary operator, operand type, thunk type) -> the typed operator, for select's
# common case: an operator of the namespace and a Python number (the thunk of every select
# of a loop: a Scalar made for it, and the operator resolved again, cost more than the launch)
_select_typed = {}
_PLAIN_THUNKS = (int, float, bool)


def _plain_thunk(op, dtype, thunk):
    """(typed operator, thunk value) for a Python number and an untyped operator, as
    Scalar.from_value, _typed_indexunary and _thunk_value would find them; None otherwise."""
    if type(thunk) not in _PLAIN_THUNKS or not isinstance(op, IndexUnaryOp):
        return None
    Scalar = _types()[2]
    own = Scalar._dtype_of(thunk)
    key = (op, dtype, own)
    typed = _select_typed.get(key)
    if typed is None:
        typed = find_typed_op(op, dtype, own, is_right_scalar=True)
        if len(_select_typed) >= 1024:
            _select_typed.clear()
        _select_typed[key] = typed
    return typed, Scalar._cast_value(thunk, typed.type if typed.uses_value else INT64)


def select(A, op, thunk=None):
    device, backend = same_device(A)
    plain = _plain_thunk(op, A.dtype, 0 if thunk is None else thunk)
    if plain is not None:
        typed, tval = plain
        if typed.return_type is not BOOL:
            raise DomainMismatch(f"select needs an operator returning BOOL; {typed!r} returns "
                                 f"{typed.return_type}")
        return _select_expr(A, typed, tval, device, backend)
    Scalar = _types()[2]
    masked = _select_by_mask(A, op, thunk)
    if masked is not None:
        return masked
    if isinstance(op, (MatrixExpression, VectorExpression)):
        if thunk is not None:
            raise TypeError(f"select with a comparison ({op.method_name} of {A.name}) takes no "
                            "thunk: the comparison's scalar is the thunk")
        op, thunk = _select_from_expr(A, op)
    if isinstance(op, str):
        from ..ops import select as select_ns

        op = select_ns.from_string(op)
    if isinstance(op, TypedOpBase):
        opclass = op.parent.opclass
    else:
        opclass = getattr(op, "opclass", None)
    if opclass not in ("SelectOp", "IndexUnaryOp"):
        raise TypeError(f"select expects a SelectOp or IndexUnaryOp, got {type(op).__name__} "
                        f"{op!r}; for example select.tril or select.valuegt")
    thunk = scalar_of(0 if thunk is None else thunk, "thunk", "select")
    if thunk.is_empty:
        raise EmptyObject("The thunk is an empty Scalar; give it a value")
    typed = _typed_indexunary(op, A.dtype, thunk)
    if typed.return_type is not BOOL:
        raise DomainMismatch(f"select needs an operator returning BOOL; {typed!r} returns "
                  f"{typed.return_type}")
    return _select_expr(A, typed, _thunk_value(typed, thunk, backend), device, backend)


def _select_by_mask(A, op, thunk):
    """``A.select(M.S)``, ``A.select(M.V)``, ``A.select(B)`` (B BOOL, an expression too):
    the entries of A the mask lets through (python-graphblas's select with a mask), or None
    when ``op`` is no mask."""
    Matrix, TransposedMatrix, _, Vector = _types()
    if isinstance(op, (MatrixExpression, VectorExpression)) and op.dtype == BOOL and not (
            op.method_name == "apply" and getattr(op.op, "opclass", "") == "BinaryOp"
            and op.args and op.args[0] is A):
        op = op.new()
    if isinstance(op, (Matrix, Vector)) and op.dtype == BOOL:
        op = op.V
    if not isinstance(op, Mask):
        return None
    if thunk is not None:
        raise TypeError("thunk is not used when selecting with a mask: A.select(M.V)")
    if op.parent.ndim != A.ndim:
        raise TypeError(f"Mask object must be type {'Matrix' if A.ndim == 2 else 'Vector'} to "
                        f"select from a {type(A).__name__}; got {type(op.parent).__name__}")
    mask = check_mask(op, A if not isinstance(A, TransposedMatrix) else A.new())
    device, backend = same_device(A)
    expr_cls = MatrixExpression if A.ndim == 2 else VectorExpression

    def compute(mask_arg):
        out = (A.new() if isinstance(A, TransposedMatrix) else A).dup(clear=True)
        out(mask=mask) << A
        return out._data

    return expr_cls("select", [A, op], None, A.dtype, A.shape, backend, device, compute)


def _select_expr(A, typed, tval, device, backend):
    expr_cls = MatrixExpression if A.ndim == 2 else VectorExpression

    def compute(mask):
        if mask is not None and A.ndim == 1:  # a backend may apply it as it selects
            out = backend.select_masked(_data(A), typed, tval, mask)
            if out is not NotImplemented:
                return out
        return backend.select(_data(A), typed, tval)

    return expr_cls("select", [A], typed, A.dtype, A.shape, backend, device, compute)


_COMPARE_TO_SELECT = {"gt": "valuegt", "ge": "valuege", "lt": "valuelt", "le": "valuele",
                      "eq": "valueeq", "ne": "valuene"}


def _select_from_expr(A, expr):
    """``A.select(A < 5)``: a comparison of A with a bound scalar becomes ``valuelt``."""
    from ..ops import select as select_ns

    args = expr.args
    name = getattr(getattr(expr.op, "parent", None), "name", None)
    if (expr.method_name == "apply" and len(args) == 2 and args[0] is A
            and getattr(args[1], "_is_scalar", False) and name in _COMPARE_TO_SELECT):
        return getattr(select_ns, _COMPARE_TO_SELECT[name]), args[1]
    raise TypeError(f"select needs an operator, or a comparison of {A.name} with a scalar such "
                    f"as {A.name}.select({A.name} > 0); got {expr!r}")


def _aggregator(op, dtype):
    """The typed aggregator ``op`` stands for (``agg.count``, ``agg.sum[FP32]``), or None."""
    if getattr(op, "opclass", None) != "Aggregator":
        return None
    from ..agg import Aggregator

    return op.typed_for(dtype) if isinstance(op, Aggregator) else op


def deferred(A, method, op, dtype, shape, make):
    """A Matrix or Vector expression whose value is ``make()`` (a recipe of operations on
    ``A``'s device, run when the expression is computed)."""
    device, backend = same_device(A)
    cls = MatrixExpression if len(shape) == 2 else VectorExpression

    def compute(mask):
        out = make()
        return (out if out.dtype == dtype else out.dup(dtype))._data

    return cls(method, [A], op, dtype, shape, backend, device, compute)


def _aggregate(A, typed, method, shape, device, backend):
    """The expression of reducing ``A`` with a typed aggregator (graphblast/agg.py: a recipe
    of operations, run when the expression is computed)."""
    from .. import agg

    if method in ("reduce_rowwise", "reduce_columnwise"):
        return deferred(A, method, typed, typed.return_type, shape,
                        lambda: agg.compute(typed, A, method))

    def compute(mask):
        w = agg.compute(typed, A, method)
        w = w if w.dtype == typed.return_type else w.dup(typed.return_type)
        any_ = find_typed_op(_ANY_MONOID(), w.dtype)
        return _kept_value(backend, backend.reduce_scalar_kept(w._data, any_), w.dtype)

    return ScalarExpression(method, [A], typed, typed.return_type, (), backend, device, compute)


def _ANY_MONOID():
    from ..ops import monoid

    return monoid.any


def reduce_rowwise(A, op, columnwise=False):
    device, backend = same_device(A)
    aggregator = _aggregator(op, A.dtype)
    if aggregator is not None:
        method = "reduce_columnwise" if columnwise else "reduce_rowwise"
        return _aggregate(A, aggregator, method, (A.ncols if columnwise else A.nrows,),
                          device, backend)
    typed = typed_monoid(op, A.dtype)
    n = A.ncols if columnwise else A.nrows

    def compute(mask):
        M = A._csr()
        if columnwise:
            M = backend.transpose(M)
        return backend.reduce_rowwise(M, typed)

    name = "reduce_columnwise" if columnwise else "reduce_rowwise"
    return VectorExpression(name, [A], typed, typed.return_type, (n,), backend, device, compute)


def _kept_value(backend, value, dtype):
    """A value as ``backend.reduce_scalar_kept`` or ``inner_kept`` gives it (None, a host
    value, or the backend's one-element device array) as a Scalar holds it: a device array
    becomes a DeviceValue of ``dtype`` (core/scalar.py)."""
    from .base import on_gpu
    from .scalar import DeviceValue

    return DeviceValue(value, dtype, backend) if on_gpu(value) else value


def reduce_scalar(A, op, allow_empty=True):
    device, backend = same_device(A)
    aggregator = _aggregator(op, A.dtype)
    if aggregator is not None:
        method = "reduce_scalar" if A.ndim == 2 else "reduce"
        if method == "reduce_scalar" and aggregator.name in (
                "argmin", "argmax", "first_index", "last_index"):
            raise ValueError(f"Aggregator {aggregator.name} may not be used with "
                             "Matrix.reduce_scalar.")
        if not allow_empty:
            if aggregator.parent._monoid is None:
                raise ValueError("allow_empty=False not allowed when using Aggregators")
            op = aggregator.parent._monoid[aggregator.type]
        else:
            return _aggregate(A, aggregator, method, (), device, backend)
    typed = typed_monoid(op, A.dtype, "reduce_scalar" if A.ndim == 2 else "reduce")

    def compute(mask):
        value = _kept_value(backend, backend.reduce_scalar_kept(_data(A), typed),
                            typed.return_type)
        if value is None and not allow_empty:
            return typed.identity
        return value

    return ScalarExpression("reduce_scalar" if A.ndim == 2 else "reduce", [A], typed,
                            typed.return_type, (), backend, device, compute)


def kronecker(A, B, op=None):
    from .matrix import Matrix, TransposedMatrix

    if not isinstance(B, (Matrix, TransposedMatrix)):
        B = _as_matrix_operand(B, "kronecker")
    device, backend = same_device(A, B)
    typed = typed_binary(_default_times(op), A.dtype, B.dtype, for_add=False,
                         method="kronecker")

    def compute(mask):
        return backend.kronecker(A._csr(), B._csr(), typed)

    return MatrixExpression("kronecker", [A, B], typed, typed.return_type,
                            (A.nrows * B.nrows, A.ncols * B.ncols), backend, device, compute)


def inner(u, v, op=None):
    v = _as_vector_operand(v, "inner")
    device, backend = same_device(u, v)
    if u.size != v.size:
        raise DimensionMismatch(f"Sizes differ for inner: {u.size} and {v.size}")
    semi = typed_semiring(_default_semiring(op), u.dtype, v.dtype)

    def compute(mask):
        return _kept_value(backend, backend.inner_kept(u._data, v._data, semi),
                           semi.return_type)

    return ScalarExpression("inner", [u, v], semi, semi.return_type, (), backend, device,
                            compute)


def outer(u, v, op=None):
    v = _as_vector_operand(v, "outer")
    device, backend = same_device(u, v)
    typed = typed_binary(_default_times(op), u.dtype, v.dtype, for_add=False, method="outer")

    def compute(mask):
        return backend.kronecker(backend.vector_as_column(u._data),
                                 backend.vector_as_row(v._data), typed)

    return MatrixExpression("outer", [u, v], typed, typed.return_type, (u.size, v.size),
                            backend, device, compute)


def transpose_expr(A):
    """C << A.T"""
    device, backend = same_device(A)

    def compute(mask):
        return A._csr()

    return MatrixExpression("transpose", [A], None, A.dtype, A.shape, backend, device, compute)


def identity_expr(x):
    """C << A (a copy, cast to C's type on write)."""
    device, backend = same_device(x)

    def compute(mask):
        return _data(x)

    cls = MatrixExpression if x.ndim == 2 else VectorExpression
    return cls("dup", [x], None, x.dtype, x.shape, backend, device, compute)


# -- extract and assign ----------------------------------------------------------------------


class Indexed:
    """``x[indices]``: an extract when read (``.new()``, ``C << A[I, J]``), an assign target
    when written (``A[I, J] << B``); ``A[I, J](mask)`` is an :class:`Assigner`."""

    __slots__ = ("parent", "raw", "resolved")

    def __init__(self, parent, raw, resolved):
        self.parent = parent
        self.raw = raw
        self.resolved = resolved

    @property
    def is_element(self):
        return all(isinstance(r, int) for r in self.resolved)

    @property
    def shape(self):
        return tuple(r.count for r in self.resolved if not isinstance(r, int))

    @property
    def dtype(self):
        return self.parent.dtype

    def __repr__(self):
        return f"{self.parent.name}[{self.raw!r}]"

    # reading
    def _element_scalar(self):
        from .scalar import Scalar

        s = Scalar(self.parent.dtype)
        s._set_value(self.parent._get_element(self.resolved))
        return s

    def _extract_expr(self):
        return extract(self.parent, self.resolved)

    def new(self, dtype=None, *, mask=None, input_mask=None, name=None, **opts):
        if self.is_element and mask is not None:
            raise ValueError("mask is not a descriptor option of an element extract: A[i, j] "
                             "is a Scalar, which takes no mask")
        if self.is_element and input_mask is not None:
            raise ValueError("input_mask is for extracting a Vector or Matrix; an element "
                             "A[i, j] is a Scalar, and its value needs no mask")
        if self.is_element:
            s = self._element_scalar()
            return s.dup(dtype=dtype, name=name) if dtype is not None or name else s
        if input_mask is not None:
            if mask is not None:
                raise TypeError("mask and input_mask arguments cannot both be given")
            mask = self._input_mask_to_mask(input_mask)
        return self._extract_expr().new(dtype, mask=mask, name=name)

    def _input_mask_to_mask(self, input_mask):
        """python-graphblas's ``input_mask``: a mask of the input's shape, applied to the
        extract as the same mask extracted at the same indices."""
        input_mask = as_mask(input_mask)
        source = input_mask.parent
        if self.parent.ndim == 1 and source.ndim != 1:
            raise TypeError(f"Mask object must be type Vector; got {type(source)} (an "
                            "input_mask has the shape of the extract's input)")
        if source.ndim == 1 and self.parent.ndim == 2:
            lines = [r for r in self.resolved if not isinstance(r, int)]
            if len(lines) != 1:
                raise TypeError("Got Vector `input_mask` when extracting a submatrix from a "
                                "Matrix.  Vector `input_mask` with a Matrix (or "
                                "TransposedMatrix) input is only valid when extracting from a "
                                "single row or column.")
            axis = 1 if isinstance(self.resolved[0], int) else 0
            if source.size != self.parent.shape[axis]:
                raise ValueError("Size of `input_mask` Vector does not match "
                                 f"{'ncols' if axis else 'nrows'} of Matrix")
            picked = extract(source, (lines[0],)).new()
        else:
            if source.shape != self.parent.shape:
                what = "Size" if source.ndim == 1 else "Shape"
                raise ValueError(f"{what} of `input_mask` does not match {what.lower()} of "
                                 f"input: {source.shape} != {self.parent.shape}")
            picked = extract(source, self.resolved).new()
        return type(input_mask)(picked)

    def _get_value(self, attr=None):
        """The extract's (or element's) value, computed as python-graphblas's autocompute
        says."""
        if not config.lookup("autocompute"):
            kind = "Scalar" if self.is_element else ("Matrix" if len(self.shape) == 2
                                                     else "Vector")
            raise TypeError(f"{attr} not enabled for objects of type {type(self)}.  Use "
                            f"`.new()` to create a new {kind}.\n\nHint: use "
                            "`graphblas.config.set(autocompute=True)` to enable automatic "
                            "computation of expressions.")
        value = self.new()
        return value if attr is None else getattr(value, attr)

    @property
    def value(self):
        if not self.is_element:
            raise AttributeError("'Indexed' object has no attribute 'value': only a single "
                                 "element has a .value; extract with .new()")
        if not config.lookup("autocompute"):
            return self._get_value("value")
        v = self.parent._get_element(self.resolved)
        return None if v is None else v.item()

    def get(self, default=None):
        if not self.is_element:
            raise AttributeError("'Indexed' object has no attribute 'get': only a single "
                                 "element has .get(); extract with .new()")
        v = self.parent._get_element(self.resolved)
        return default if v is None else v.item()

    def __bool__(self):
        return bool(self._get_value("__bool__")())

    def __float__(self):
        return float(self._get_value())

    def __int__(self):
        return int(self._get_value())

    def __index__(self):
        return operator.index(self._get_value())  # TypeError for an extract of many elements

    def __eq__(self, other):
        return self._get_value("__eq__")(other)

    def __ne__(self, other):
        return self._get_value("__ne__")(other)

    __hash__ = None

    # writing
    def __call__(self, *args, mask=None, accum=None, replace=False, **opts):
        """``C[I, J](mask, accum, replace) << value``: subassign (the mask has the region's
        shape)."""
        if type(self.parent) is _types()[1]:
            raise TypeError("A[I, J](...) of a 'TransposedMatrix' is not callable: a "
                            "transpose cannot be assigned to")
        # as python-graphblas, the mask is checked against the region when assigned to
        mask, accum, replace = parse_output_args(self._region_like(), args, mask, accum,
                                                 replace, check=False)
        return Assigner(self.parent, self.resolved, mask, accum, replace, subassign=True)

    def _region_like(self):
        return _RegionShape(self.shape, self.parent)

    def update(self, value):
        Assigner(self.parent, self.resolved, None, None, False, subassign=True).update(value)

    def __lshift__(self, value):
        self.update(value)

    def __getattr__(self, item):
        Matrix, _, Scalar, Vector = _types()
        kind = Scalar if self.is_element else (Matrix if len(self.shape) == 2 else Vector)
        if item.startswith("_") or not hasattr(kind, item):
            extra = ("; only a single element has a .value or .get(); extract with .new()"
                     if item in ("value", "get") else "")
            raise AttributeError(f"'Indexed' object has no attribute {item!r}{extra}")
        return self._get_value(item)


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__lt__", "__le__", "__gt__",
              "__ge__", "__neg__", "__abs__", "__invert__", "__iter__", "__contains__",
              "__or__", "__ror__", "__and__", "__rand__", "__matmul__", "__rmatmul__",
              "__getitem__"):
    setattr(Indexed, _name, (lambda name: lambda self, *args: self._get_value(name)(*args))(
        _name))
del _name


class Assigner(AssignTarget):
    """``C(mask, accum, replace)[I, J]`` (assign: the mask has C's shape) or
    ``C[I, J](mask, accum, replace)`` (subassign: the mask has the region's shape): as
    python-graphblas's Assigner, only a target of ``<<``; it has no value to read, call or
    index."""

    __slots__ = ("parent", "resolved", "mask", "accum", "replace", "subassign")

    def __init__(self, parent, resolved, mask, accum, replace, *, subassign):
        self.parent = parent
        self.resolved = resolved
        self.mask = mask
        self.accum = accum
        self.replace = replace
        self.subassign = subassign

    def __repr__(self):
        return f"Assigner({self.parent.name}, mask={self.mask!r}, accum={self.accum!r})"

    def update(self, value):
        if type(self.parent) is _types()[1]:
            raise TypeError("'TransposedMatrix' object does not support item assignment")
        mask = self.mask
        if self.subassign and mask is not None:
            shape = tuple(r.count for r in self.resolved if not isinstance(r, int))
            mask = check_mask(mask, _RegionShape(shape, self.parent))
        assign(self.parent, value, self.resolved, mask, self.accum, self.replace,
               subassign=self.subassign, resolved=True)

    def __lshift__(self, value):
        self.update(value)


class _RegionShape:
    """Stands in for the output of a subassign when its mask is checked."""

    _is_scalar = False

    def __init__(self, shape, parent):
        self.shape = shape
        self.ndim = len(shape)
        self.from_matrix = parent.ndim == 2
        self.device = parent.device
        self._backend = parent._backend
        self.dtype = parent.dtype


def extract(parent, resolved):
    """The expression for ``parent[resolved]`` with at least one non-scalar index."""
    device, backend = same_device(parent)
    if parent.ndim == 1:
        (index,) = resolved
        if index.kind == "vector":
            return gather(parent, index.vector)

        def compute(mask):
            return backend.extract_vector(parent._data, index)
        return VectorExpression("extract", [parent], None, parent.dtype, (index.count,),
                                backend, device, compute)
    rows, cols = resolved
    if isinstance(rows, int) or isinstance(cols, int):
        row_mode = isinstance(rows, int)
        r = as_list(rows) if row_mode else rows
        c = as_list(cols) if not row_mode else cols
        size = c.count if row_mode else r.count

        def compute(mask):
            M = backend.extract_matrix(parent._csr(), r, c)
            return backend.matrix_row_as_vector(M) if row_mode else \
                backend.matrix_column_as_vector(M)
        return VectorExpression("extract", [parent], None, parent.dtype, (size,), backend,
                                device, compute)

    def compute(mask):
        return backend.extract_matrix(parent._csr(), rows, cols)

    return MatrixExpression("extract", [parent], None, parent.dtype, (rows.count, cols.count),
                            backend, device, compute)


def gather(u, I):
    """``u[I]``, graphblast's gather (SuiteSparse 10's ``GxB_Vector_extract_Vector`` with the
    result kept at I's positions): ``w[i] = u[I[i]]`` for every entry ``i`` of ``I`` whose
    position ``I[i]`` holds an entry of ``u``; ``w`` has I's size.  I's values were checked."""
    device, backend = same_device(u, I)

    def compute(mask):
        return backend.gather_vector(u._data, I._data)

    return VectorExpression("gather", [u, I], None, u.dtype, (I.size,), backend, device,
                            compute)


def scatter(target, value, I, mask, accum, replace, subassign):
    """``w(mask, accum, replace)[I] << u``, graphblast's scatter (``GxB_Vector_assign_Vector``):
    ``w[I[i]] = u[i]`` for every entry ``i`` of ``I`` (``u`` has I's size, or is a scalar).

    The region is the set of positions I's values name; as in every assign, without an
    accumulator a position of the region that receives no value loses its entry.  Positions
    named more than once are combined by the accumulator, folded left to right in the order
    of ``i`` and then accumulated into ``w``: ``w[t] = accum(w[t], u[i1] (+) u[i2] (+) ...)``
    for ``i1 < i2 < ...`` (for an associative ``accum`` - min, max, plus, first, ... - this is
    ``w[t] = accum(accum(w[t], u[i1]), u[i2])``, the sequential definition).  Without an
    accumulator repeated positions raise ``InvalidValue``, except for a scalar value (every
    write is the same).  Everything is checked before ``w`` changes.
    """
    from ..backends.base import MaskArg
    from ..exceptions import InvalidValue
    from .matrix import Matrix, TransposedMatrix
    from .scalar import Scalar
    from .vector import Vector

    backend = target._backend
    same_device(target, I)
    if subassign and mask is not None:
        raise TypeError("A scatter with a Vector index takes the output's mask: write "
                        "w(mask)[I] << u, not w[I](mask) << u")
    accum_op = typed_accum(accum, target.dtype)
    if isinstance(value, InfixExpr):
        value = value._to_expr()
    if isinstance(value, Indexed):
        value = value._element_scalar() if value.is_element else value._extract_expr()
    if isinstance(value, (MatrixExpression, VectorExpression, ScalarExpression)):
        value = value.new()
    if isinstance(value, (Matrix, TransposedMatrix)):
        raise TypeError("Cannot scatter a Matrix into a Vector")
    dup = accum_op
    if isinstance(value, Vector):
        same_device(target, value)
        if value.size != I.size:
            raise DimensionMismatch(f"The scattered Vector has size {value.size} but the index "
                                    f"Vector {I.name} has size {I.size}; they must match")
        u = value._data
    else:
        s = scalar_of(value, "value", "assign")
        if s.is_empty:
            u = backend.vector_empty(I.size, s.dtype)
        else:
            u = backend.full_like_pattern(I._data, bound_value(s, backend, s.dtype), s.dtype)
        if dup is None:  # one value everywhere: repeated positions are harmless
            from ..ops import binary

            dup = binary.first[target.dtype]
    C = target._data
    try:
        T = backend.scatter_vector(I._data, u, target.size, target.dtype, dup)
        if accum_op is not None:
            Z = backend.ewise_add(C, T, accum_op, out_dtype=target.dtype)
        else:
            R = backend.scatter_vector(I._data, backend.full_like_pattern(I._data, True, BOOL),
                                       target.size, BOOL, dup)
            # inside the region: T's entries (none where T has none); outside: C's
            Z = backend.mask_write(C, T, MaskArg(R, True, False), False)
    except InvalidValue as e:
        if dup is not None or "Duplicate" not in str(e):
            raise
        raise InvalidValue(f"The index Vector {I.name} names a position more than once, and "
                           "without an accumulator the result would depend on the order; "
                           "pass one (w(binary.min)[I] << u) to combine the values") from None
    target._set_data(backend.mask_write(C, Z, _mask_arg(mask), replace))


def assign(target, value, indices, mask, accum, replace, *, subassign, resolved=False):
    """``target(mask, accum, replace)[indices] << value`` (GrB_assign) or, with ``subassign``,
    ``target[indices](mask, accum, replace) << value`` (GxB_subassign)."""
    from .index import host_list, resolve_all
    from .matrix import Matrix, TransposedMatrix
    from .scalar import Scalar
    from .vector import Vector

    backend = target._backend
    res = indices if resolved else resolve_all(indices, target.shape, target)
    if isinstance(value, (list, np.ndarray)) and np.ndim(value) >= 1 and not all(
            isinstance(r, int) for r in res) and not target.dtype._is_udt:
        # a list (or array) of values for the region: as python-graphblas, a dense
        # Vector (1-D) or Matrix (2-D) of them, of the region's shape
        region = tuple(r.count for r in res if not isinstance(r, int))
        try:
            arr = np.asarray(value)
        except ValueError:
            raise ValueError(f"shape mismatch: the values do not form the region's shape "
                             f"{region}") from None
        if arr.shape != region:
            raise ValueError(f"shape mismatch: values of shape {arr.shape} for a region of "
                             f"shape {region}")
        if arr.dtype.kind == "O":
            raise TypeError("Bad type for argument `value`: the list holds objects that are "
                            "not numbers")
        value = (Vector if arr.ndim == 1 else Matrix).from_dense(arr, device=target.device)
    if target.ndim == 1 and getattr(res[0], "kind", None) == "vector":
        return scatter(target, value, res[0].vector, mask, accum, replace, subassign)
    res = tuple(host_list(r, backend) for r in res)  # a Matrix's Vector of positions
    # A scalar index in a matrix assign selects a row or column: treat it as a length-1 list.
    dims = [as_list(r) if isinstance(r, int) else r for r in res]
    region_shape = tuple(d.count for d in dims)
    visible_shape = tuple(r.count for r in res if not isinstance(r, int))
    accum_op = typed_accum(accum, target.dtype)

    if isinstance(value, InfixExpr):
        value = value._to_expr()
    if isinstance(value, Indexed):
        value = value._element_scalar() if value.is_element else value._extract_expr()
    if isinstance(value, (MatrixExpression, VectorExpression)):
        value = value.new()
    if isinstance(value, ScalarExpression):
        value = value.new()
    if target.dtype._is_udt and not isinstance(value, (Matrix, Vector, TransposedMatrix)) \
            and not isinstance(value, _types()[2]):
        value = _udt_region_value(value, target.dtype, visible_shape, backend, target.device)
    is_scalar = not isinstance(value, (Matrix, Vector, TransposedMatrix))
    if is_scalar:
        s = scalar_of(value, "value", "assign")
        if s.is_empty:
            # assigning an empty scalar deletes the region's entries (SuiteSparse)
            A_region = _empty_region(backend, target, region_shape, target.dtype)
        else:
            A_region = _scalar_region(backend, target, s, dims, region_shape, mask, subassign)
    else:
        same_device(target, value)
        if value.ndim != len(visible_shape):
            # python-graphblas's TypeError: the region's kind decides the value's type
            kinds = {0: "Scalar", 1: "Scalar, Vector"}.get(len(visible_shape),
                                                          "Scalar, Matrix, TransposedMatrix")
            raise TypeError(f"Bad type for argument `value` in {type(target).__name__}."
                            f"__setitem__(...).\n    - Expected type: {kinds}.\n"
                            f"    - Got: {type(value)}.\nLiteral scalars also accepted "
                            f"(the assigned region has shape {visible_shape}).")
        if value.shape != visible_shape:
            raise DimensionMismatch(f"Shape of value {value.shape} does not match the assigned "
                                    f"region {visible_shape}")
        A_region = _region_data(backend, value, region_shape, res)
    if mask is not None and subassign and mask.parent.shape != visible_shape:
        raise DimensionMismatch(f"Mask shape {mask.parent.shape} does not match the region "
                                f"{visible_shape}")
    line = _check_line_mask(target, res, mask) if not subassign else None

    C = target._data
    if target.ndim == 1:
        (index,) = dims
        S = backend.extract_vector(C, index)
    else:
        S = backend.extract_matrix(C, dims[0], dims[1])
    if accum_op is not None:
        Zs = backend.ewise_add(S, A_region, accum_op, out_dtype=target.dtype)
    else:
        Zs = _cast(backend, A_region, target.dtype)
    if target.ndim == 1:
        region_rows, region_cols = None, dims[0]
    else:
        region_rows, region_cols = dims
    if subassign:
        maskarg = None
        if mask is not None:
            maskarg = _region_mask(backend, mask, S, region_shape)
        Zs = backend.mask_write(S, Zs, maskarg, replace)
        new = backend.assign_region(C, Zs, region_rows, region_cols)
    elif line is not None:
        new = _line_assign(backend, C, Zs, res, line, mask, replace)
    else:
        Z = backend.assign_region(C, Zs, region_rows, region_cols)
        new = backend.mask_write(C, Z, _mask_arg(mask), replace)
    target._set_data(new)


def _check_line_mask(target, res, mask):
    """For GrB_Row_assign/GrB_Col_assign (a Matrix output with a Vector mask): "row" or
    "col", after checking that the index and the mask's size fit; None otherwise."""
    if mask is None or target.ndim != 2 or mask.parent.ndim != 1:
        return None
    if isinstance(res[0], int) and not isinstance(res[1], int):
        line, size = "row", target.ncols
    elif isinstance(res[1], int) and not isinstance(res[0], int):
        line, size = "col", target.nrows
    else:
        raise TypeError("A Vector mask on a Matrix needs a row or column assign: "
                        "C(mask)[i, J] << v or C(mask)[I, j] << v")
    if mask.parent.size != size:
        raise DimensionMismatch(f"The mask of a {line} assign must have size {size}, got "
                                f"{mask.parent.size}")
    return line


def _line_assign(backend, C, Zs, res, line, mask, replace):
    """C<mask>(i, J) = Zs: the mask covers row i (or column j) only, so only that line of C
    changes, replace included."""
    from ..backends.base import IndexArg, MaskArg

    if line == "row":
        i, J = res
        line_dims = (as_list(i), IndexArg("all", C.ncols, C.ncols))
        inner = (IndexArg("all", 1, 1), J)
        mdata = backend.vector_as_row(mask.parent._data)
    else:
        I, j = res
        line_dims = (IndexArg("all", C.nrows, C.nrows), as_list(j))
        inner = (I, IndexArg("all", 1, 1))
        mdata = backend.vector_as_column(mask.parent._data)
    S_line = backend.extract_matrix(C, *line_dims)
    Z_line = backend.assign_region(S_line, Zs, *inner)
    marg = MaskArg(mdata, mask.structure, mask.complement)
    new_line = backend.mask_write(S_line, Z_line, marg, replace)
    return backend.assign_region(C, new_line, *line_dims)


def _region_mask(backend, mask, S, region_shape):
    """A subassign mask in the storage shape of the region (a row/column Vector mask of a
    matrix region becomes a 1 x n or n x 1 matrix mask)."""
    arg = mask._arg()
    if _is_matrix_data(S) and not _is_matrix_data(arg.data):
        data = backend.vector_as_row(arg.data) if region_shape[0] == 1 else \
            backend.vector_as_column(arg.data)
        from ..backends.base import MaskArg

        return MaskArg(data, arg.structural, arg.complement)
    return arg


def _empty_region(backend, target, shape, dtype):
    if target.ndim == 1:
        return backend.vector_empty(shape[0], dtype)
    return backend.matrix_empty(shape[0], shape[1], dtype)


def _scalar_region(backend, target, s, dims, shape, mask, subassign):
    """The region filled with a scalar; under a plain (not complemented) mask, only where the
    mask has entries, since nothing else can be written."""
    dtype = s.dtype
    val = bound_value(s, backend, dtype)
    if mask is not None and not mask.complement:
        if subassign:
            return backend.full_like_pattern(_region_mask(backend, mask, _empty_region(
                backend, target, shape, dtype), shape).data, val, dtype)
        if all(d.kind == "all" for d in dims) and mask.parent.ndim == target.ndim:
            return backend.full_like_pattern(mask.parent._data, val, dtype)
    if target.ndim == 1:
        return backend.vector_full(shape[0], val, dtype)
    return backend.matrix_full(shape[0], shape[1], val, dtype)


def _region_data(backend, value, region_shape, res):
    from .vector import Vector

    if isinstance(value, Vector):
        if len(region_shape) == 1:
            return value._data
        # a row (C[i, J] << v) or a column (C[I, j] << v)
        if isinstance(res[0], int):
            return backend.vector_as_row(value._data)
        return backend.vector_as_column(value._data)
    return value._csr()


def parse_output_args(target, args, mask, accum, replace, *, check=True):
    """Positional ``C(mask, accum, replace)`` arguments, as python-graphblas parses them
    (``check=False``: the mask is checked against the target later, by ``check_mask``)."""
    mask_arg = accum_arg = None
    replace_arg = _replace_singleton() if args else None
    for arg in args:
        if arg is replace_arg:
            replace = True
        elif (isinstance(arg, (Mask, _types()[2])) or hasattr(arg, "_data")
              or hasattr(arg, "_matrix")
              or isinstance(arg, (MatrixExpression, VectorExpression, InfixExpr))):
            if isinstance(arg, (MatrixExpression, VectorExpression, InfixExpr)):
                arg = computed(arg, ("Matrix", "Vector"), "__call__", "mask")
            if target._is_scalar:
                raise TypeError("Mask not allowed for Scalars")
            if mask_arg is not None:
                raise TypeError("Got multiple values for argument 'mask'")
            mask_arg = arg
        elif isinstance(arg, (OpBase, TypedOpBase, str)) or arg is min or arg is max:
            if accum_arg is not None:
                raise TypeError("Got multiple values for argument 'accum'")
            accum_arg = arg
        else:
            raise TypeError(f"Invalid item found in output params: {type(arg).__name__}")
    if mask_arg is not None:
        if mask is not None:
            raise TypeError("Got multiple values for argument 'mask'")
        mask = mask_arg
    if accum_arg is not None:
        if accum is not None:
            raise TypeError("Got multiple values for argument 'accum'")
        accum = accum_arg
    if mask is None:
        if replace:
            if target._is_scalar:
                raise TypeError("'replace' argument may not be True for Scalar (replace may "
                                "only be True when a mask is provided, and masks aren't allowed "
                                "for Scalars).")
            raise TypeError("'replace' argument may only be True if a mask is provided")
    else:
        if target._is_scalar:
            raise TypeError("Mask not allowed for Scalars")
        if check:
            mask = check_mask(mask, target)
    if accum is not None:
        typed_accum(accum, target.dtype)  # validate now, before anything runs
    return mask, accum, replace


# -- operators called on objects (binary.plus(A | B), unary.abs(v), ...) --------------------


def call_unary(op, val):
    if hasattr(val, "apply"):
        return val.apply(op)
    from .scalar import Scalar

    return Scalar.from_value(val).apply(op)


def call_binary(op, left, right=None, *, left_default=None, right_default=None):
    if isinstance(left, InfixExpr) and right is None:
        if left.kind == "matmul":
            raise TypeError(f"{op!r} cannot compute `x @ y`; use a Semiring")
        if left_default is not None or right_default is not None:
            if left.kind != "add":
                raise TypeError(f"left_default and right_default are for a union: "
                                f"{op!r}(x | y, left_default=..., right_default=...), not x & y")
            return left._to_expr(op, left_default, right_default)
        return left._to_expr(op)
    if right is not None:
        # a computed expression as an operand (``binary.floordiv(-A, 3)``): its value, under
        # autocompute (else the expression's TypeError says so)
        from .expr import Expression

        left, right = (x._get_value() if isinstance(x, Expression) else x
                       for x in (left, right))
    if right is None:
        raise TypeError(f"Bad type when calling {op!r}: it takes an infix expression "
                        f"({op!r}(x | y) or {op!r}(x & y)) or two arguments, got one "
                        f"{type(left).__name__}")
    Scalar = _types()[2]
    if not _is_collection_like(left) and not _is_collection_like(right):
        # two scalars: a ScalarExpression (``binary.plus(5, 2)``)
        from .scalar import _as_scalar

        return _as_scalar(left).ewise_mult(_as_scalar(right), op)
    if isinstance(left, Scalar) and _is_collection_like(right):
        return right.apply(op, left=left)
    if hasattr(left, "_data") or hasattr(left, "_matrix"):
        if hasattr(right, "_data") or hasattr(right, "_matrix"):
            raise TypeError(f"Bad type for keyword argument `right=`: {op!r}(x, y) with two "
                            f"collections is ambiguous: use {op!r}(x | y) or {op!r}(x & y)")
        return left.apply(op, right=right)
    if hasattr(right, "_data") or hasattr(right, "_matrix"):
        return right.apply(op, left=left)
    raise TypeError(f"{op!r} needs a Matrix or Vector operand")


def _is_collection_like(x):
    return hasattr(x, "_data") or hasattr(x, "_matrix") or (
        isinstance(x, (MatrixExpression, VectorExpression)))


def call_semiring(op, expr):
    if isinstance(expr, InfixExpr) and expr.kind == "matmul":
        return expr._to_expr(op)
    raise TypeError(f"Bad type when calling {op!r}: it takes a matrix product expression, "
                    f"such as {op!r}(A @ B); got {type(expr).__name__}")


def call_indexunary(op, val, thunk=None):
    if not hasattr(val, "apply"):
        val = _types()[2].from_value(val)
    return val.apply(op, thunk)


def call_select(op, val, thunk=None):
    if not hasattr(val, "select"):
        val = _types()[2].from_value(val)
    return val.select(op, thunk)


__all__ = ["evaluate", "update", "assign", "extract", "Indexed"]
