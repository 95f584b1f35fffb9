"""What Matrix and Vector share: the output syntax ``C(mask, accum, replace) << expr``, masks,
element-wise methods, comparison, naming and devices."""

import itertools

import numpy as np

from ..backends import base as backend_base
from ..backends import default_device, get_backend, parse_device
from ..dtypes import lookup_dtype, unify
from ..exceptions import DimensionMismatch
from . import operations as ops
from .expr import InfixExpr
from .infix import install as install_infix
from .mask import Mask, StructuralMask, ValueMask
from .target import AssignTarget

_name_counter = itertools.count()


def next_name(prefix):
    return f"{prefix}_{next(_name_counter)}"


_resolved = {}  # a device string as given -> (normalized device, backend)


def resolve_device(device):
    """A normalized device and its backend; None means the default device (read from the
    configuration each time, as it may change).  A device named by a string is resolved
    once per process: every new collection resolves its device, and the output of each
    ``.new()`` is one."""
    if isinstance(device, str):
        found = _resolved.get(device)
        if found is None:
            dev = parse_device(device)
            found = _resolved[device] = (dev, get_backend(dev))
        return found
    dev = default_device() if device is None else parse_device(device)
    return dev, get_backend(dev)


def place(device, dtype):
    """:func:`resolve_device` for a new collection of ``dtype``.  A user-defined type's
    collections live on a GPU as raw bytes (backends/udt_device.py, installed on that GPU's
    backend when the first one is placed there); on a group of devices they are kept in host
    memory (the CPU backend), and naming a group for one raises.

    Raises
    ------
    ValueError
        If ``device`` names a group of devices and ``dtype`` is a user-defined type.
    """
    dev, backend = resolve_device(device)
    if dtype is None or dtype.c_type is not None or dev == "cpu":
        return dev, backend
    if type(backend).__name__ == "CUDABackend":
        from ..backends.udt_device import install

        install(backend, resolve_device("cpu")[1])
        return dev, backend
    if device is not None:
        raise ValueError(f"{dtype.name} is a user-defined type, whose collections graphblast "
                         f"keeps in host memory on a group of devices; use one device "
                         f"(device='cuda' or 'cpu'), not {device!r}")
    return resolve_device("cpu")


class Updater(AssignTarget):
    """``C(mask, accum, replace)``: the target of ``<<`` and of ``[indices] <<``."""

    __slots__ = ("parent", "mask", "accum", "replace")

    def __init__(self, parent, mask, accum, replace):
        self.parent = parent
        self.mask = mask
        self.accum = accum
        self.replace = replace

    def __lshift__(self, value):
        # update's body, not a call of it: one frame less on every masked call's path
        ops.update(self.parent, value, self.mask, self.accum, self.replace)

    def update(self, value):
        ops.update(self.parent, value, self.mask, self.accum, self.replace)

    def _not_scalar(self):
        if self.parent._is_scalar:
            raise TypeError("Indexing not supported for Scalars")

    def __delitem__(self, indices):
        """``del C(mask)[I, J]``: the region's entries that the mask lets through are
        deleted (an empty Scalar assigned, as python-graphblas)."""
        from .scalar import Scalar

        self._not_scalar()
        ops.assign(self.parent, Scalar(self.parent.dtype), indices, self.mask, self.accum,
                   self.replace, subassign=False)

    def __getitem__(self, indices):
        """``C(mask)[I, J] << B``: assign with a mask of C's shape."""
        from .index import resolve_all

        self._not_scalar()
        res = resolve_all(indices, self.parent.shape, self.parent)
        return ops.Assigner(self.parent, res, self.mask, self.accum, self.replace,
                            subassign=False)

    def __setitem__(self, indices, value):
        self._not_scalar()
        ops.assign(self.parent, value, indices, self.mask, self.accum, self.replace,
                   subassign=False)

    def __repr__(self):
        return (f"{self.parent.name}(mask={self.mask!r}, accum={self.accum!r}, "
                f"replace={self.replace})")


class _InputMaskUpdater(Updater):
    """``C(input_mask=M) << A[I, J]``: the extract masked by M at the same indices."""

    __slots__ = ()

    def __lshift__(self, value):
        self.update(value)

    def update(self, value):
        if not isinstance(value, ops.Indexed) or value.is_element:
            raise TypeError("`input_mask` argument may only be used for extract")
        mask = ops.check_mask(value._input_mask_to_mask(self.mask), self.parent)
        ops.update(self.parent, value, mask, self.accum, self.replace)

    def __getitem__(self, *args):
        raise TypeError("`input_mask` argument may only be used for extract")

    __setitem__ = __getitem__


def note_made(collection):
    """Register a new Matrix or Vector with a recording backend, if one is recording
    (backends/base.py, ``made_while_recording``)."""
    made = backend_base.made_while_recording
    if made is not None:
        made.add(id(collection))


class Collection:
    """Base of Matrix and Vector."""

    __slots__ = ("_data", "_backend", "device", "name", "__weakref__")
    _is_scalar = False
    ndim = None

    def _set_data(self, data):
        self._data = self._backend.adopt(data, self)

    def __reduce__(self):
        """Pickled as its entries (host arrays), shape, type, name and device; unpickled on
        that device, so a GPU object's values go back to the GPU they came from."""
        return (_unpickle, (type(self), self.shape, self.dtype, self._coo_host(), self.name,
                            self.device))

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def nvals(self):
        """The number of stored entries (explicit zeros included)."""
        return self._data.nvals

    # -- output syntax -------------------------------------------------------------------
    def __call__(self, *args, mask=None, accum=None, replace=False, input_mask=None, **opts):
        if input_mask is not None:
            if mask is not None or any(isinstance(a, Mask) or _is_collection(a) for a in args):
                raise TypeError("mask and input_mask arguments cannot both be given")
            mask, accum, replace = ops.parse_output_args(self, args, None, accum, replace)
            return _InputMaskUpdater(self, ops.as_mask(input_mask), accum, replace)
        mask, accum, replace = ops.parse_output_args(self, args, mask, accum, replace)
        return Updater(self, mask, accum, replace)

    def __lshift__(self, value):
        ops.update(self, value)  # update's body, not a call of it: one frame less a call

    def update(self, value):
        """``self << value``: compute an expression into self, or copy/assign a value."""
        ops.update(self, value)

    # -- masks ---------------------------------------------------------------------------
    @property
    def S(self):
        """The structural mask: where self has an entry."""
        return StructuralMask(self)

    @property
    def V(self):
        """The value mask: where self has an entry whose value is true (nonzero)."""
        return ValueMask(self)

    # -- element-wise ----------------------------------------------------------------------
    def ewise_add(self, other, op=None):
        """Union: ``op`` where both have an entry, the entry itself where one has."""
        if op is None:
            from ..ops import monoid

            op = monoid.plus
        return ops.ewise("add", self, other, op)

    def ewise_mult(self, other, op=None):
        """Intersection: ``op`` where both have an entry."""
        if op is None:
            from ..ops import binary

            op = binary.times
        return ops.ewise("mult", self, other, op)

    def ewise_union(self, other, op, left_default, right_default):
        """Union where a missing entry is replaced by the operand's default before ``op``."""
        return ops.ewise("union", self, other, op, left_default, right_default)

    def __or__(self, other):
        return _infix_operand(self, other, "add", "__or__") or InfixExpr(self, other, "add")

    def __ror__(self, other):
        return _infix_operand(self, other, "add", "__ror__") or InfixExpr(other, self, "add")

    def __and__(self, other):
        return _infix_operand(self, other, "mult", "__and__") or InfixExpr(self, other, "mult")

    def __rand__(self, other):
        return _infix_operand(self, other, "mult", "__rand__") or InfixExpr(other, self, "mult")

    def apply(self, op, right=None, *, left=None):
        """Apply a unary op, a binary op with one bound scalar, or an index-unary op."""
        return ops.apply(self, op, right=right, left=left)

    def select(self, op, thunk=None):
        """Keep the entries for which an index-unary op (``select.tril``, ``"valuegt"``...) is
        true."""
        return ops.select(self, op, thunk)

    # -- comparison ----------------------------------------------------------------------
    def _coo_host(self):
        raise NotImplementedError

    def _entries(self):
        """The arrays that fix the structure, then the values, on this object's device, in a
        canonical order (two objects with the same entries have equal arrays)."""
        raise NotImplementedError

    def isequal(self, other, *, check_dtype=False):
        """Same shape, structure and values (values compared in the unified type)."""
        return self._compare(other, check_dtype, "isequal", None)

    def isclose(self, other, *, rel_tol=1e-7, abs_tol=0.0, check_dtype=False):
        """Like :meth:`isequal`, with values within ``rel_tol``/``abs_tol`` (as math.isclose)."""
        return self._compare(other, check_dtype, "isclose", (rel_tol, abs_tol))

    def _compare(self, other, check_dtype, method, tolerance):
        """Compared where the data lives: on a GPU, one synchronization (the answer)."""
        if not _is_collection(other):
            kinds = ("Matrix", "TransposedMatrix") if self.ndim == 2 else ("Vector",)
            other = ops.computed(other, kinds, f"{type(self).__name__}.{method}")
        if other.ndim != self.ndim:
            raise TypeError(f"Bad type for argument `other` in {type(self).__name__}.{method}"
                            f"(...): expected a {type(self).__name__}, got "
                            f"{type(other).__name__}")
        if check_dtype and self.dtype != other.dtype:
            return False
        if self.shape != other.shape or self.nvals != other.nvals:
            return False
        ops.same_device(self, other)
        dtype = unify(self.dtype, other.dtype)
        by_partition = getattr(self._backend, "compare_partitions", None)
        if by_partition is not None:  # a device group: each partition compared where it lives
            return by_partition(ops._data(self), ops._data(other),
                                lambda xp, mine, theirs: entries_match(xp, mine, theirs, dtype,
                                                                       tolerance))
        dense = getattr(ops._data(self), "dense_entries", None)
        if dense is not None and dense() is not None:
            theirs = getattr(ops._data(other), "dense_entries", lambda: None)()
            if theirs is not None:
                return dense_entries_match(self._backend.xp, dense(), theirs, dtype, tolerance)
        return entries_match(self._backend.xp, self._entries(), other._entries(), dtype,
                             tolerance)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"{type(self).__name__} can't be directly converted to a numpy array; "
                        "use .to_dense() (or .to_coo())")

    def __bool__(self):
        raise TypeError(f"__bool__ not defined for objects of type {type(self)}: a "
                        f"{type(self).__name__} has no truth value; test .nvals instead")

    # -- lifetime ------------------------------------------------------------------------
    def wait(self, how="materialize"):
        """Finish pending work (graphblast computes eagerly; on a GPU, this synchronizes)."""
        if how not in ("materialize", "complete"):
            raise ValueError(f'`how` argument must be "materialize" or "complete"; got {how!r}')
        sync = getattr(self._backend, "synchronize", None)
        if sync is not None:
            sync()
        return self

    def clear(self):
        """Remove every entry, keeping shape and type."""
        self._set_data(self._empty_data(self.dtype))

    def memory_usage(self):
        """Bytes of memory this object occupies on its device (GPU memory for a GPU object):
        its arrays, and for a Matrix also the transpose and the traversal form cached with
        it (``gb.config.set(transpose_cache=False)`` keeps no transpose).  A matrix known to
        be symmetric is its own transpose and costs no second copy."""
        from ..backends.base import storage_bytes

        return storage_bytes(self._data)

    def __sizeof__(self):
        total = object.__sizeof__(self)
        for arr in self._data.arrays():
            if arr is not None:
                total += int(arr.nbytes)
        return total

    def _check_same_kind(self, other, method):
        if not isinstance(other, type(self)):
            raise TypeError(f"{method} expects a {type(self).__name__}")
        if other.shape != self.shape:
            raise DimensionMismatch(f"{method}: shapes {self.shape} and {other.shape} differ")


install_infix(Collection)


def _unpickle(cls, shape, dtype, arrays, name, device):
    """A pickled Matrix or Vector, rebuilt on its device (``Collection.__reduce__``)."""
    if len(shape) == 2:
        return cls.from_coo(*arrays, dtype, nrows=shape[0], ncols=shape[1], name=name,
                            device=device)
    return cls.from_coo(*arrays, dtype, size=shape[0], name=name, device=device)


def entries_match(xp, mine, theirs, dtype, tolerance):
    """Whether two objects' entries (as ``_entries()`` gives them: the structure arrays, then
    the values) are equal, values compared in ``dtype`` - or, with ``tolerance`` (rel_tol,
    abs_tol) and a float ``dtype``, within it.  One read of the answer from the device (a GPU
    reads one an array, from its own kernels: ``xp.entries_equal``)."""
    entries_equal = getattr(xp, "entries_equal", None)
    # the GPU: its own kernels, which know the built-in types (a user-defined type's values
    # are raw bytes there, compared below as on the host)
    if tolerance is None and entries_equal is not None and not dtype._is_udt:
        return entries_equal(mine, theirs, dtype.storage_type)
    *mine, a = mine
    *theirs, b = theirs
    same = xp.asarray(True)
    for m, t in zip(mine, theirs):
        same &= xp.array_equal(m, t)
    same &= xp.all(_values_equal(xp, a, b, dtype, tolerance))
    return bool(same)


def dense_entries_match(xp, mine, theirs, dtype, tolerance):
    """``entries_match`` for two vectors stored densely, ``(presence or None, values)`` each
    (None: every position present), compared in place: no compaction to indices.  The
    caller has checked that the entry counts are equal, so a full vector against a bitmap
    only needs the values."""
    (bits_a, a), (bits_b, b) = mine, theirs
    count_unequal = getattr(xp, "count_unequal", None)
    # the GPU: one kernel, one read (built-in types; a user-defined type's bytes below)
    if tolerance is None and count_unequal is not None and not dtype._is_udt:
        return count_unequal(bits_a, bits_b, a, b, dtype.storage_type) == 0
    same = _values_equal(xp, a, b, dtype, tolerance)
    if bits_a is not None and bits_b is not None:
        present = bits_a != 0
        return bool(xp.array_equal(present, bits_b != 0) & xp.all(same | ~present))
    return bool(xp.all(same))


def _values_equal(xp, a, b, dtype, tolerance):
    """Elementwise: ``a`` and ``b`` equal in ``dtype`` (NaN equals nothing), or within
    ``tolerance`` (rel_tol, abs_tol) for a float ``dtype``."""
    if tolerance is not None and dtype.is_float:
        a, b = a.astype(np.float64, copy=False), b.astype(np.float64, copy=False)
        rel_tol, abs_tol = tolerance
        with np.errstate(invalid="ignore", over="ignore"):
            scale = xp.maximum(xp.abs(a), xp.abs(b)) * rel_tol
            return (a == b) | (xp.abs(a - b) <= xp.maximum(scale, abs_tol))
    if dtype._is_udt:  # equal bytes: raw values on the host, (n, 1, itemsize) on a GPU
        same = a == b
        return same.all(axis=tuple(range(1, same.ndim))) if same.ndim > 1 else same
    with np.errstate(invalid="ignore"):  # (no copy where the values are in dtype already)
        return a.astype(dtype.storage_type, copy=False) == b.astype(dtype.storage_type, copy=False)


def _check_shapes(a, b, method):
    """Shapes that ``|`` and ``&`` can combine: equal, or a Vector along a Matrix's rows or
    columns (python-graphblas checks this when the infix is written)."""
    if a.ndim == b.ndim:
        if a.shape != b.shape:
            raise DimensionMismatch(f"{method}: shapes {a.shape} and {b.shape} differ")
        return
    vector, matrix = (a, b) if a.ndim == 1 else (b, a)
    n = matrix.shape[0] if a is vector else matrix.shape[1]
    if vector.shape[0] != n:
        raise DimensionMismatch(f"{method}: a Vector of size {vector.shape[0]} cannot be "
                                f"broadcast along a Matrix of shape {matrix.shape}")


def _infix_operand(self, other, kind, method):
    """None when ``other`` may stand beside a collection in ``|``, ``&``; NotImplemented for
    what answers the operator itself (a mask); else python-graphblas's TypeError."""
    if isinstance(other, InfixExpr) and other.kind not in (kind, "matmul"):
        raise TypeError(f"Mixed `|` and `&` in one infix expression is ambiguous; compute one "
                        f"part first (got {type(self).__name__} {method} {other!r})")
    if _is_collection(other):
        _check_shapes(self, other, method)
        return None
    if isinstance(other, InfixExpr):
        return None
    if isinstance(other, Mask) or (hasattr(other, "output_type") and hasattr(other, "shape")
                                   and len(other.shape) >= 1):
        return NotImplemented if isinstance(other, Mask) else None
    raise TypeError(f"Bad type for argument `other` in {type(self).__name__}.{method}(...).\n"
                    "    - Expected type: Matrix, TransposedMatrix, Vector.\n"
                    f"    - Got: {type(other)}.  Apply an operator with a scalar bound: "
                    f"binary.plus(x, 1) or x.apply(op, right=1)")


def _is_collection(x):
    return isinstance(x, Collection) or hasattr(x, "_matrix")


def dense_fill(obj, fill_value, dtype):
    """(dtype, fill value) of ``to_dense``: the object's type unified with the fill value's,
    as python-graphblas; a fill value is required when entries are missing."""
    from ..dtypes import cast

    n = int(np.prod(obj.shape)) if obj.shape else 1
    if fill_value is None:
        if obj.nvals != n:
            raise TypeError("fill_value must be given in `to_dense` when there are missing "
                            "values")
        return (lookup_dtype(dtype) if dtype is not None else obj.dtype), None
    if obj.dtype._is_udt and (dtype is None or lookup_dtype(dtype) is obj.dtype):
        from ..dtypes import udt_scalar, udt_values

        if hasattr(fill_value, "_value"):
            fill_value = fill_value.value
        fill = udt_scalar(fill_value, obj.dtype)
        return obj.dtype, udt_values(np.array([fill]), obj.dtype)[0]
    if dtype is None:
        from .scalar import Scalar

        fill_dtype = fill_value.dtype if isinstance(fill_value, Scalar) else \
            ops.scalar_of(fill_value, "fill_value", "to_dense").dtype
        dt = unify(obj.dtype, fill_dtype)
    else:
        dt = lookup_dtype(dtype)
    if hasattr(fill_value, "_value"):
        fill_value = fill_value._value
    return dt, cast(np.asarray([fill_value]), dt)[0]


def on_gpu(x):
    """Whether ``x`` is a GPU array (CuPy's, or any with ``__cuda_array_interface__``)."""
    return hasattr(x, "__cuda_array_interface__")


def infer_dtype(values, dtype):
    """The dtype for new data: explicit ``dtype``, else the values' NumPy dtype."""
    if dtype is not None:
        return lookup_dtype(dtype)
    if getattr(values, "_is_scalar", False):  # a Scalar: its type
        return values.dtype
    # a GPU array's own dtype: NumPy cannot convert one (CuPy refuses the implicit copy)
    arr = values if on_gpu(values) else np.asarray(values)
    if arr.dtype.kind == "O":
        raise ValueError("object dtype for values is not allowed: the values must be numbers "
                         "(Python objects give NumPy an object array)")
    if arr.ndim > 1:  # a row per entry: python-graphblas's subarray type ("INT64[2]")
        return lookup_dtype(np.dtype((arr.dtype, arr.shape[1:])))
    return lookup_dtype(arr.dtype)


def _udt_entries(values, n, dtype):
    """Values of a user-defined type for n entries: one value (a record, a tuple, a number,
    a subarray type's row) repeated, or n values."""
    from ..dtypes import udt_array, udt_scalar

    npdt = dtype.np_type
    if isinstance(values, np.ndarray) and values.dtype == dtype.storage_type:
        return values
    base = npdt.subdtype[0] if npdt.subdtype is not None else npdt
    probe = np.asarray(values, dtype=base) if not isinstance(values, np.void) else values
    one = (np.ndim(probe) == 0 if npdt.subdtype is None
           else np.shape(probe) == npdt.subdtype[1] or np.ndim(probe) == 0)
    if one:
        return np.full(n, udt_scalar(values, dtype), dtype=dtype.storage_type)
    return udt_array(probe, dtype)


def as_values(values, n, dtype, xp=np):
    """Values for ``n`` entries: a scalar is repeated, an array checked for length.

    ``xp`` is where the entries are built: GPU values for a CPU object are copied to the
    host."""
    if on_gpu(values) and xp is np:
        values = values.get()
    if getattr(values, "_is_scalar", False):  # a Scalar: its value for every entry
        values = values._value_as(dtype)
    if dtype._is_udt:
        values = _udt_entries(values, n, dtype)
    arr = values if on_gpu(values) else np.asarray(values)
    if getattr(arr, "ndim", 0) == 0:
        return np.full(n, arr, dtype=dtype.storage_type) if xp is np else \
            xp.full(n, arr.item() if hasattr(arr, "item") else arr, dtype=dtype.storage_type)
    if arr.ndim != 1:
        raise ValueError(f"values must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != n:
        from ..exceptions import InvalidValue

        raise InvalidValue(f"values must have one entry per index: got {arr.shape[0]} values "
                           f"for {n} indices")
    if arr.dtype.kind == "c":
        raise TypeError("Complex values are not supported; take .real or .imag first")
    return arr


def dense_dtype(arr, dtype, ndim):
    """The type of a dense array's values: ``dtype``, or for an array of more than ``ndim``
    dimensions a subarray type of the trailing ones (python-graphblas's), else None."""
    if dtype is not None:
        return lookup_dtype(dtype)
    if arr.ndim > ndim:
        return lookup_dtype(np.dtype((arr.dtype, arr.shape[ndim:])))
    return None


def rows_equal(arr, missing_value):
    """Which values (trailing dimensions of a subarray type) equal ``missing_value``."""
    eq = arr == np.asarray(missing_value)
    return eq.reshape(eq.shape[0], -1).all(axis=1) if eq.ndim > 1 else eq
