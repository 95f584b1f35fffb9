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
from .base import TypedBinaryOp, TypedIndexUnaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp


class _UdtBinary(TypedBinaryOp):
    __slots__ = ("cuda_error",)

    @property
    def commutes_to(self):
        """The operator with the arguments swapped, for the swapped types, or None."""
        other = self.parent.commutes_to
        return None if other is None else typed_for_udt(other, self.type2, self.type)


class _UdtUnary(TypedUnaryOp):
    __slots__ = ("cuda_error",)


class _UdtMonoid(TypedMonoid):
    __slots__ = ("cuda_error",)


class _UdtIndexUnary(TypedIndexUnaryOp):
    __slots__ = ("cuda_error",)


class _UdtSemiring(TypedSemiring):
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
    from .base import BinaryOp, Monoid, Semiring, UnaryOp, find_typed_op

    t1 = lookup_dtype(t1)
    t2 = t1 if t2 is None else lookup_dtype(t2)
    key = (t1, t2)
    cache = op.__dict__.setdefault("_udt_typed", {})
    if key in cache:
        return cache[key]
    name = op.builtin_name
    typed = None
    if isinstance(op, Semiring):
        mult = op.binaryop[t1] if t1 is t2 else find_typed_op(op.binaryop, t1, t2)
        add = op.monoid[mult.return_type]
        typed = _UdtSemiring(op, add, mult)
    elif isinstance(op, Monoid) and op.is_udf:
        bop = op.binaryop[t1] if t1 is t2 else None
        spec = op.__dict__.get("_identity_spec")
        if bop is not None and bop.return_type is t1 and spec is not None:
            from ..dtypes import udt_scalar

            typed = _UdtMonoid(op, bop, udt_scalar(spec, t1), None, None)
    elif op.is_udf and getattr(op, "orig_func", None) is not None:
        typed = _udf_for_udt(op, t1, t2)
    elif isinstance(op, Monoid):
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


# -- a user's operators on user-defined types (numba, CPU) ------------------------------------

def _udf_for_udt(op, t1, t2):
    """A user's function typed for a user-defined type (python-graphblas's ``is_udt``): numba
    compiles it for the record (reading its fields, ``val["x"]``); CPU only.  None where numba
    is missing or cannot type it."""
    from .user import _numba

    numba = _numba()
    njit = op._numba_func if numba is not None else None
    if njit is None or t1.np_type.subdtype is not None or t2.np_type.subdtype is not None:
        return None
    from ..dtypes import UINT64

    kind = op.opclass
    if kind not in ("UnaryOp", "BinaryOp"):
        t2 = t1  # the thunk of a user's index-unary operator has the value's type
    argtypes = {"UnaryOp": (t1,), "BinaryOp": (t1, t2)}.get(kind, (t1, UINT64, UINT64, t2))
    sig = tuple(numba.from_dtype(a.np_type) for a in argtypes)
    try:
        njit.compile(sig)
        rt = njit.overloads[sig].signature.return_type
        ret = lookup_dtype(rt.dtype if isinstance(rt, numba.core.types.Record)
                           else numba.np.numpy_support.as_dtype(rt))
    except Exception:  # numba's typing errors, or a result that is no GraphBLAS type
        return None
    func = _RecordLoop(numba, njit, argtypes, ret)
    if kind == "UnaryOp":
        typed = _UdtUnary(op, t1, ret, func, None)
    elif kind == "BinaryOp":
        typed = _UdtBinary(op, t1, ret, func, None)
        typed.type2 = t2
    else:
        typed = _UdtIndexUnary(op, t1, ret, func, None, uses_value=True, thunk_type=t2)
    return typed


class _RecordLoop:
    """A numba-compiled function applied to each element: records are viewed from their
    bytes, and a record result is written back as bytes."""

    def __init__(self, numba, njit, argtypes, ret):
        self.argtypes, self.ret = argtypes, ret
        f = njit
        if len(argtypes) == 1:
            def loop(a, out):
                for k in range(out.shape[0]):
                    out[k] = f(a[k])
        elif len(argtypes) == 2:
            def loop(a, b, out):
                for k in range(out.shape[0]):
                    out[k] = f(a[k], b[k])
        else:
            def loop(a, i, j, t, out):
                for k in range(out.shape[0]):
                    out[k] = f(a[k], i[k], j[k], t[0])
        self.loop = numba.njit(loop)

    def __call__(self, *args):
        arrays = []
        for a, t in zip(args, self.argtypes):
            a = np.asarray(a)
            if a.ndim == 0:
                a = a.reshape(1)
            arrays.append(a.view(t.np_type) if t._is_udt else a.astype(t.np_type, copy=False))
        n = max(a.shape[0] for a in arrays[:1])
        out = np.zeros(n, self.ret.np_type)
        self.loop(*arrays, out)
        return out.view(self.ret.storage_type) if self.ret._is_udt else out
