"""User-defined types on a device whose kernels know only the built-in types (the GPU).

A user-defined type's values live on the device as raw bytes: an ``(n, 1, itemsize)`` uint8
array, one value a row (the middle axis tells such an array from any 2-D one, a dense UINT8
matrix's).  A backend's primitives take them through :func:`install`, which puts a
dispatcher in front of each primitive of the backend object.  A call that involves no
user-defined type (no such storage, type, value or typed operator among its arguments) goes
straight to the primitive; one that does takes one of two routes:

- **On the device, over handles**, when its operators only move, count or position values:
  ``first``, ``second``, ``any``, ``pair``, ``oneb``, ``identity``, ``one``, ``monoid.any``
  and semirings of them, the positional operators, or no operator at all (build, extract,
  assign, transpose, select by position, masks by structure, the masked write-back).  Each
  operand's values are replaced by the numbers of its entries (INT64 handles: 0..n-1 for the
  first operand, the next numbers for the next, a scalar value one more), the operators by
  their INT64 variants, and the primitive itself runs with its own kernels; the handles of
  the result are then gathered from the operands' bytes.  So every structural operation runs
  on the device as fast as on INT64 values, with no kernel of its own.
- **On the host**, when an operator computes with the values (``eq`` and ``ne``, which compare
  bytes; a user's function of the record's fields, which numba compiles for the CPU), or a
  mask reads a user-defined type's values: the operands are copied to host memory, the CPU
  backend computes, and the result is copied back to the device (one transfer each way,
  documented in the user guide).
"""

import numpy as np

from ..dtypes import INT64, DataType
from .base import CSR, IndexArg, MaskArg, SparseVector

# built-in operators that do not look inside a value
_MOVING_BINARY = frozenset({"first", "second", "any", "pair", "oneb"})
_MOVING_UNARY = frozenset({"identity", "one"})
# primitives that update a collection's storage in place where they can: for a user-defined
# type, the answer that sends the core to the general path
_DECLINED = {"assign_scalar": None, "accum_into": NotImplemented,
             "select_masked": NotImplemented}
# primitives that order or compare values: the host computes them
_ON_HOST = frozenset({"sort_vector", "value_range"})


def device_bytes(values, xp):
    """Host values of a user-defined type (``storage_type``, one raw value each) as the
    device's ``(n, 1, itemsize)`` uint8 array."""
    values = np.ascontiguousarray(values)
    size = values.dtype.itemsize
    return xp.asarray(values.view(np.uint8).reshape(-1, 1, size))


def host_values(array):
    """A host copy of a device array as the host keeps it: raw bytes of a user-defined type
    (``(n, 1, itemsize)`` uint8) become one ``V<itemsize>`` value each; any other array is
    returned as it is."""
    if getattr(array, "ndim", 0) == 3 and array.dtype == np.uint8:
        n, _, size = array.shape
        return np.ascontiguousarray(array).reshape(n, size).view(
            np.dtype((np.void, size))).reshape(n)
    return array


def _udt_type(t):
    return isinstance(t, DataType) and t._is_udt


def _involves(a):
    if a is None or isinstance(a, (bool, int, float, str)):
        return False
    dt = getattr(a, "dtype", None)
    if isinstance(dt, DataType):  # storage and collections
        return dt._is_udt
    if isinstance(a, DataType):
        return a._is_udt
    if isinstance(a, (np.ndarray, np.void)):
        return a.dtype.kind == "V"
    if isinstance(a, MaskArg):
        return _involves(a.data)
    return any(_udt_type(getattr(a, attr, None)) for attr in ("type", "type2", "return_type"))


def involves_udt(args, kwargs):
    """Whether a primitive's arguments involve a user-defined type."""
    return any(_involves(a) for a in args) or any(_involves(a) for a in kwargs.values())


def _lowered(typed):
    """The INT64 variant of a typed operator on a user-defined type that only moves values,
    or None where it computes with them (then the host computes)."""
    from ..ops.base import TypedBinaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp, find_typed_op

    if not any(_udt_type(getattr(typed, a, None)) for a in ("type", "type2", "return_type")):
        return typed
    parent = typed.parent
    if parent.is_udf:
        return None
    name = parent.builtin_name
    low = [INT64 if _udt_type(t) else t for t in (typed.type, typed.type2)]
    if isinstance(typed, TypedSemiring):
        mult = _lowered(typed.binaryop)
        if mult is None or (_udt_type(typed.monoid.return_type)
                            and typed.monoid.parent.builtin_name != "any"):
            return None
    elif isinstance(typed, TypedMonoid):
        if name != "any":
            return None
        return parent[INT64]
    elif isinstance(typed, TypedBinaryOp):
        if name not in _MOVING_BINARY and not parent.is_positional:
            return None
    elif isinstance(typed, TypedUnaryOp):
        if name not in _MOVING_UNARY and not parent.is_positional:
            return None
    elif not parent.is_positional:
        return None
    return find_typed_op(parent, *low) if low[0] is not low[1] else parent[low[0]]


class _Handles:
    """One call's operands as handles: each value a number, its bytes a row of the table."""

    def __init__(self, xp, udt):
        self.xp = xp
        self.udt = udt  # the type of the call's values given as host values or a scalar
        self.parts = []
        self.count = 0

    def _add(self, rows):
        start = self.count
        self.parts.append(rows)
        self.count += rows.shape[0]
        return start

    def storage(self, data):
        vals = data.values
        start = self._add(vals)
        h = self.xp.arange(start, start + vals.shape[0], dtype=np.int64)
        if isinstance(data, CSR):
            return CSR(data.nrows, data.ncols, INT64, data.indptr, data.stored_indices, h)
        return SparseVector(data.size, INT64, data.indices, h)

    def host_array(self, values):
        start = self._add(device_bytes(values, self.xp))
        return np.arange(start, start + values.shape[0], dtype=np.int64)

    def value(self, value):
        one = np.asarray([value], dtype=self.udt.storage_type)
        return np.int64(self._add(device_bytes(one, self.xp)))

    def table(self, dtype):
        """Every operand's bytes in handle order (``dtype``'s empty table when none)."""
        if not self.parts:
            return self.xp.zeros((0, 1, dtype.np_type.itemsize), dtype=np.uint8)
        return self.parts[0] if len(self.parts) == 1 else self.xp.concatenate(self.parts)


class _HostRoute(Exception):
    """The call computes with a user-defined type's values: the host computes it."""


def _lower_arg(a, handles):
    if a is None or isinstance(a, (bool, int, float, str)):
        return a
    if isinstance(a, (CSR, SparseVector)):
        return handles.storage(a) if _udt_type(a.dtype) else a
    if isinstance(a, DataType):
        return INT64 if a._is_udt else a
    if isinstance(a, np.void):
        return handles.value(a)
    if isinstance(a, np.ndarray) and a.dtype.kind == "V":
        return handles.host_array(a)
    if isinstance(a, MaskArg):
        if a.data is not None and _udt_type(a.data.dtype) and not a.structural:
            raise _HostRoute  # a value mask reads the values
        return MaskArg(_lower_arg(a.data, handles), a.structural, a.complement)
    if hasattr(a, "parent") and hasattr(a, "return_type"):  # a typed operator
        low = _lowered(a)
        if low is None:
            raise _HostRoute
        return low
    return a


def _result_type(name, args, kwargs):
    """The type of a primitive's result: its operator's return type (a select's: its
    input's), else a type it was given, else the type of its (first) user-defined operand."""
    if name in ("select", "select_masked"):
        return args[0].dtype
    for a in list(args) + list(kwargs.values()):
        if hasattr(a, "parent") and isinstance(getattr(a, "return_type", None), DataType):
            return a.return_type
    if isinstance(kwargs.get("out_dtype"), DataType):
        return kwargs["out_dtype"]
    for a in args:
        if isinstance(a, DataType):
            return a
    for a in args:
        dt = getattr(a, "dtype", None)
        if isinstance(dt, DataType) and dt._is_udt:
            return dt
    return None


class _Dispatcher:
    def __init__(self, name, fn, backend, host, originals):
        self.name, self.fn, self.backend, self.host = name, fn, backend, host
        self.originals = originals

    def __call__(self, *args, **kwargs):
        if not involves_udt(args, kwargs):
            return self.fn(*args, **kwargs)
        if self.name in _DECLINED:
            return _DECLINED[self.name]
        if self.name == "adopt":
            return args[0]
        if self.name == "mask_write_into":  # (owner, C, Z, mask, replace): no in-place update
            return self.backend.mask_write(*args[1:], **kwargs)
        if self.name == "reduce_scalar_kept":  # a host value (a Scalar of the type holds one)
            return self.backend.reduce_scalar(*args, **kwargs)
        try:
            if self.name in _ON_HOST:
                raise _HostRoute
            return self._on_device(args, kwargs)
        except _HostRoute:
            return self._on_host(args, kwargs)

    def _on_device(self, args, kwargs):
        want = _result_type(self.name, args, kwargs)
        udt = want if _udt_type(want) else next(
            (t for t in [getattr(a, "dtype", None) for a in args] + list(args)
             if _udt_type(t)), None)
        handles = _Handles(self.backend.xp, udt)
        if self.name in ("cast_matrix", "cast_vector") and args[0].dtype is args[1]:
            return args[0]
        low_args = [_lower_arg(a, handles) for a in args]
        low_kwargs = {k: _lower_arg(v, handles) for k, v in kwargs.items()}
        if want is not None and want._is_udt and not handles.parts:
            # the values come from no value of the type (a number cast to it, an empty
            # collection): the host makes them
            raise _HostRoute
        out = self.fn(*low_args, **low_kwargs)
        return self._raise(out, want, handles)

    def _raise(self, out, want, handles):
        """The lowered primitive's result with the user-defined type's values gathered back
        from the handles (or cast to the built-in type the operator returns)."""
        xp = self.backend.xp
        if out is None or out is NotImplemented:
            return out
        if isinstance(out, tuple):  # matrix_to_coo: (rows, cols, values)
            *structure, vals = out
            if want is not None and want._is_udt:
                vals = handles.table(want)[vals]
            return (*structure, vals)
        if isinstance(out, CSR):
            if want is not None and want._is_udt:
                return CSR(out.nrows, out.ncols, want, out.indptr, out.stored_indices,
                           handles.table(want)[out.values])
            if want is not None and out.dtype is not want:
                return self.originals["cast_matrix"](out, want)
            return out
        if isinstance(out, SparseVector):
            if want is not None and want._is_udt:
                return SparseVector(out.size, want, xp.asarray(out.indices),
                                    handles.table(want)[out.values])
            if want is not None and out.dtype is not want:
                return self.originals["cast_vector"](out, want)
            return out
        if want is not None and want._is_udt:  # reduce_scalar: one handle
            if not isinstance(out, (np.generic, int)):
                out = self.backend.to_host(out).reshape(-1)[0]
            row = handles.table(want)[int(out):int(out) + 1]
            return host_values(self.backend.to_host(row))[0]
        return out

    def _on_host(self, args, kwargs):
        kwargs = {k: v for k, v in kwargs.items() if k != "keep"}
        host_args = [_to_host(a, self.backend) for a in args]
        host_kwargs = {k: _to_host(v, self.backend) for k, v in kwargs.items()}
        out = getattr(self.host, self.name)(*host_args, **host_kwargs)
        return _to_device(out, self.backend)


def _to_host(a, backend):
    if isinstance(a, CSR):
        return CSR(a.nrows, a.ncols, a.dtype, backend.to_host(a.indptr),
                   backend.to_host(a.stored_indices), host_values(backend.to_host(a.values)))
    if isinstance(a, SparseVector):
        return SparseVector(a.size, a.dtype, backend.to_host(a.indices),
                            host_values(backend.to_host(a.values)))
    if isinstance(a, MaskArg):
        return MaskArg(_to_host(a.data, backend), a.structural, a.complement)
    if isinstance(a, IndexArg) and a.array is not None and not isinstance(a.array, np.ndarray):
        return IndexArg(a.kind, a.count, a.size, a.start, a.stop, a.step,
                        backend.to_host(a.array))
    if hasattr(a, "__cuda_array_interface__"):
        return host_values(backend.to_host(a))
    return a


def _device_values(values, dtype, xp):
    return device_bytes(values, xp) if dtype._is_udt else xp.asarray(values)


def _to_device(out, backend):
    xp = backend.xp
    if isinstance(out, CSR):
        return CSR(out.nrows, out.ncols, out.dtype, xp.asarray(out.indptr),
                   xp.asarray(out.stored_indices), _device_values(out.values, out.dtype, xp))
    if isinstance(out, SparseVector):
        return SparseVector(out.size, out.dtype, xp.asarray(out.indices),
                            _device_values(out.values, out.dtype, xp))
    if isinstance(out, tuple):
        return tuple(_to_device(o, backend) for o in out)
    if isinstance(out, np.ndarray):
        return device_bytes(out, xp) if out.dtype.kind == "V" else xp.asarray(out)
    return out


#: the backend methods a dispatcher stands in front of (those taking storage or types)
PRIMITIVES = (
    "matrix_empty", "vector_empty", "matrix_from_coo", "matrix_from_csr", "vector_from_coo",
    "matrix_to_coo", "cast_matrix", "cast_vector", "vector_as_row", "vector_as_column",
    "matrix_row_as_vector", "matrix_column_as_vector", "full_like_pattern", "vector_full",
    "assign_scalar", "mask_write_into", "accum_into", "select_masked", "matrix_full", "mxm",
    "mxm_bt", "mxv", "vxm", "kronecker", "ewise_add", "ewise_mult", "ewise_union",
    "mask_write", "apply", "select", "reduce_rowwise", "reduce_scalar", "reduce_scalar_kept",
    "value_range", "extract_matrix", "extract_vector", "assign_region", "gather_vector",
    "scatter_vector", "sort_vector", "transpose", "adopt",
)


def install(backend, host):
    """Put the dispatchers in front of ``backend``'s primitives (once): from then on its
    primitives take user-defined types, ``host`` (the CPU backend) computing what the device
    cannot.  Before the first collection of a user-defined type is placed on the device,
    nothing is installed, so no other call pays for the check."""
    if getattr(backend, "_udt_installed", False):
        return
    originals = {}
    for name in PRIMITIVES:
        fn = getattr(backend, name, None)
        if fn is None:
            continue
        originals[name] = fn
    for name, fn in originals.items():
        setattr(backend, name, _Dispatcher(name, fn, backend, host, originals))
    to_host = backend.to_host
    backend.to_host = lambda array: host_values(to_host(array))
    backend._udt_installed = True
