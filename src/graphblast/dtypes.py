"""GraphBLAS data types: python-graphblas's names, NumPy interop and result-type rules."""

import functools

import numpy as np

__all__ = [
    "DataType", "BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32",
    "UINT64", "FP32", "FP64", "lookup_dtype", "unify", "cast", "ALL_TYPES", "register_new",
    "register_anonymous",
]


# python-graphblas's flag for the complex types FC32 and FC64: graphblast has none
_supports_complex = False


def _order(dtype):
    """python-graphblas's order of types: by kind, then by width (INT8 before INT16)."""
    digits = "".join(c for c in dtype.name if c.isdigit())
    return dtype.name.rstrip("0123456789"), int(digits or 0)


class DataType:
    """One built-in GraphBLAS type: its name, NumPy dtype and C/CUDA type."""

    __slots__ = ("name", "np_type", "c_type", "gb_name", "_hash", "storage_type", "__weakref__")

    def __init__(self, name, np_type, c_type):
        self.name = name
        self.np_type = np.dtype(np_type)
        self.c_type = c_type
        self.gb_name = None if c_type is None else f"GrB_{name}"
        # the dtype of the arrays that hold values of this type: the type's own, or for a
        # user-defined type its values as raw bytes (``V<itemsize>``, one element per value)
        self.storage_type = (self.np_type if c_type is not None
                             else np.dtype((np.void, self.np_type.itemsize)))
        self._hash = hash(name) if c_type is not None else hash(self.np_type)

    def __repr__(self):
        return self.name

    def __str__(self):
        return self.name

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        if type(other) is DataType:
            return self is other
        try:
            return lookup_dtype(other) is self
        except (TypeError, ValueError):
            if other is None or isinstance(other, (str, type, np.dtype)):
                return False
            raise TypeError(f"Invalid or unknown datatype: {other!r}") from None

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        """Ordered by name (python-graphblas's order: sorted(types))."""
        if type(other) is not DataType:
            try:
                other = lookup_dtype(other)
            except (TypeError, ValueError):
                return NotImplemented
        if self._is_udt or other._is_udt:
            return (self._is_udt, self.name) < (other._is_udt, other.name)
        return _order(self) < _order(other)

    def __reduce__(self):
        if self._is_udt:
            return (_deserialize_udt, (self.name, self.np_type, self._is_anonymous))
        return (lookup_dtype, (self.name,))

    @property
    def _is_udt(self):
        """A user-defined type (``register_new``, ``register_anonymous``)."""
        return self.c_type is None

    @property
    def _is_anonymous(self):
        import graphblast.dtypes as module

        return getattr(module, self.name, None) is not self

    @property
    def is_bool(self):
        return self.np_type.kind == "b"

    @property
    def is_int(self):
        return self.np_type.kind in "iu"

    @property
    def is_signed(self):
        return self.np_type.kind in "if"

    @property
    def is_float(self):
        return self.np_type.kind == "f"

    @property
    def min(self):
        """Smallest value of the type (-inf for floats)."""
        if self.is_bool:
            return np.bool_(False)
        if self.is_float:
            return self.np_type.type(-np.inf)
        return self.np_type.type(np.iinfo(self.np_type).min)

    @property
    def max(self):
        """Largest value of the type (inf for floats)."""
        if self.is_bool:
            return np.bool_(True)
        if self.is_float:
            return self.np_type.type(np.inf)
        return self.np_type.type(np.iinfo(self.np_type).max)


BOOL = DataType("BOOL", np.bool_, "bool")
INT8 = DataType("INT8", np.int8, "int8_t")
INT16 = DataType("INT16", np.int16, "int16_t")
INT32 = DataType("INT32", np.int32, "int32_t")
INT64 = DataType("INT64", np.int64, "int64_t")
UINT8 = DataType("UINT8", np.uint8, "uint8_t")
UINT16 = DataType("UINT16", np.uint16, "uint16_t")
UINT32 = DataType("UINT32", np.uint32, "uint32_t")
UINT64 = DataType("UINT64", np.uint64, "uint64_t")
FP32 = DataType("FP32", np.float32, "float")
FP64 = DataType("FP64", np.float64, "double")

#: python-graphblas's name of GraphBLAS's index type (GrB_Index, an unsigned 64-bit integer)
_INDEX = UINT64

ALL_TYPES = (BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FP32, FP64)
INT_TYPES = (INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64)
FLOAT_TYPES = (FP32, FP64)
REAL_TYPES = INT_TYPES + FLOAT_TYPES

_registry = {}
for _t in ALL_TYPES:
    _registry[_t.name] = _t
    _registry[_t.name.lower()] = _t
    _registry[_t.np_type] = _t
    _registry[_t.np_type.name] = _t
    _registry[_t.np_type.type] = _t
    _registry[_t.c_type] = _t
_registry.update({bool: BOOL, int: INT64, float: FP64, "float": FP64, "int": INT64,
                  "double": FP64, "bool_": BOOL})


def lookup_dtype(key, value=None):
    """Return the DataType named by ``key``.

    Accepts a DataType, a name (``"FP32"``, ``"float32"``, ``"int64_t"``), a NumPy dtype or
    scalar type, or the Python types ``bool``, ``int`` and ``float``.
    """
    if type(key) is DataType:
        return key
    try:
        return _registry[key]
    except (KeyError, TypeError):
        pass
    if value is not None and hasattr(value, "dtype") and value.dtype in _registry:
        return _registry[value.dtype]
    if key is None:
        raise TypeError("Bad dtype: None.  A valid dtype must be provided.")
    try:
        npdt = np.dtype(key)
    except (TypeError, ValueError):
        npdt = None
    if npdt is not None and npdt in _registry:
        return _registry[npdt]
    if npdt is not None and (npdt.names is not None or npdt.subdtype is not None) or \
            isinstance(key, dict) or (isinstance(key, str) and key.endswith("]")):
        # a record or subarray dtype, a dict of fields or "INT64[2]": registered on first use
        return register_anonymous(key)
    if npdt is not None and npdt.kind == "c":
        raise ValueError(
            f"Unknown dtype: {key}. Complex types are not supported by graphblast; "
            "use FP32 or FP64 for the real part."
        )
    names = ", ".join(t.name for t in ALL_TYPES)
    raise ValueError(f"Unknown dtype: {key!r} of type {type(key).__name__}. Use one of: {names}.")


def unify(type1, type2, *, is_left_scalar=False, is_right_scalar=False):
    """Return a type that can hold both ``type1`` and ``type2`` (NumPy's promotion rules).

    A scalar operand follows NumPy's rules for a 0-d array, as python-graphblas does.
    """
    if type1 is type2:
        return type1
    if is_left_scalar:
        if not is_right_scalar:
            return lookup_dtype(np.result_type(np.array(0, type1.np_type), type2.np_type))
    elif is_right_scalar:
        return lookup_dtype(np.result_type(type1.np_type, np.array(0, type2.np_type)))
    return lookup_dtype(np.promote_types(type1.np_type, type2.np_type))


def cast(values, dtype, xp=np):
    """Cast an array to ``dtype`` with GraphBLAS (C) rules, on NumPy or CuPy.

    Floats to integers saturate at the type's limits and NaN becomes 0, as in
    SuiteSparse:GraphBLAS; anything to BOOL is ``x != 0``.
    """
    dtype = lookup_dtype(dtype)
    if dtype.c_type is None:
        return udt_array(values, dtype)
    if values.dtype.kind == "V":
        raise TypeError(f"Values of a user-defined type cannot be cast to {dtype.name}")
    target = dtype.np_type
    if values.dtype == target:
        return values
    if dtype.is_bool:
        return values != 0
    if values.dtype.kind == "f" and dtype.is_int:
        info = np.iinfo(target)
        lo = float(info.min)
        hi = float(info.max)
        out = xp.where(values != values, 0, values)  # NaN -> 0
        below = out <= lo
        above = out >= hi
        clipped = xp.clip(out, lo, hi)
        with np.errstate(invalid="ignore", over="ignore"):
            res = clipped.astype(target)
        # float(info.max) rounds up for 64-bit types; set the limits exactly.
        res = xp.where(below, target.type(info.min), res)
        res = xp.where(above, target.type(info.max), res)
        return res
    with np.errstate(invalid="ignore", over="ignore"):
        return values.astype(target)


# -- user-defined types ---------------------------------------------------------------------

def _udt_dtype(dtype):
    """The NumPy dtype of a user-defined type given as a dtype, a dict of fields
    (``{"x": int, "y": float}``, aligned) or a string ``"INT64[3]"``, ``"FP64[2, 2]"``."""
    if isinstance(dtype, dict):
        return np.dtype([(key, lookup_dtype(val).np_type) for key, val in dtype.items()],
                        align=True)
    if isinstance(dtype, str) and "[" in dtype and dtype.endswith("]"):
        from ast import literal_eval

        base, shape = dtype.split("[", 1)
        try:
            shape = literal_eval(f"[{shape}")
        except (ValueError, SyntaxError):
            raise ValueError(f"Unknown dtype: {dtype!r}: expected a type and a shape such as "
                             "'INT64[3]' or 'FP64[2, 2]'") from None
        return np.dtype((lookup_dtype(base.strip()).np_type, tuple(shape)))
    if type(dtype) is DataType:
        return dtype.np_type
    return np.dtype(dtype)


def register_anonymous(dtype, name=None):
    """A user-defined type of the NumPy dtype ``dtype`` (a record, a subarray dtype such as
    ``"(3,)uint16"``, a dict of fields, or ``"UINT16[3]"``), not placed in ``dtypes``; one
    object per dtype (a later ``name`` renames it).  python-graphblas's
    ``dtypes.register_anonymous``.

    Raises
    ------
    ValueError
        If the dtype holds Python objects, or ``name`` is given for a built-in type.
    """
    try:
        npdt = _udt_dtype(dtype)
    except TypeError:
        raise ValueError(f"Unknown dtype: {dtype!r} of type {type(dtype).__name__}") from None
    found = _registry.get(npdt)
    if found is not None:
        if name is not None:
            if not found._is_udt and name != found.name:
                raise ValueError("dtype must not be a builtin type")
            found.name = name
        return found
    if npdt.hasobject:
        raise ValueError("dtype must not allow Python objects")
    if npdt.kind == "c":
        raise ValueError(f"Unknown dtype: {dtype}. Complex types are not supported by "
                         "graphblast; use FP32 or FP64 for the real part.")
    if npdt.names is None and npdt.subdtype is None:
        raise ValueError(f"Unknown dtype: {dtype!r}: a user-defined type is a record or a "
                         "subarray dtype (np.dtype([('x', int), ('y', float)]), '(3,)uint16')")
    udt = DataType(_default_name(npdt) if name is None else name, npdt, None)
    _registry[npdt] = udt
    return udt


def register_new(name, dtype):
    """Register a user-defined type as ``dtypes.<name>`` (python-graphblas's
    ``dtypes.register_new``); see :func:`register_anonymous`.

    Raises
    ------
    ValueError
        If ``name`` is not an identifier or is taken, or ``dtype`` is a built-in type.
    """
    import graphblast.dtypes as module

    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"`name` argument must be a valid Python identifier; got: {name!r}")
    if name in _registry or hasattr(module, name):
        raise ValueError(f"{name!r} name for dtype is unavailable")
    udt = register_anonymous(dtype, name)
    _registry[name] = udt
    setattr(module, name, udt)
    return udt


def _deserialize_udt(name, np_type, is_anonymous):
    if is_anonymous:
        return register_anonymous(np_type, name)
    if name in _registry:
        return _registry[name]
    return register_new(name, np_type)


def _default_name(dtype):
    """python-graphblas's name of a dtype: ``"{'x': INT32, 'y': FP64}"``, ``"UINT8[29]"``."""
    found = _registry.get(dtype)
    if found is not None and not found._is_udt:
        return found.name
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        return f"{_default_name(base)}[{', '.join(map(str, shape))}]"
    if dtype.names:
        fields = ", ".join(f"{field!r}: {_default_name(dtype.fields[field][0])}"
                           for field in dtype.names)
        return f"{{{fields}}}"
    return repr(dtype)


def __dir__():
    # python-graphblas lists ``ss`` (SuiteSparse's types), which raises without SuiteSparse
    return sorted(set(globals()) | {"ss"})


def udt_array(values, dtype):
    """``values`` (n values of the user-defined type ``dtype``: records, tuples, rows of a
    subarray type, or numbers that fill every field and element) as its storage: a 1-D array
    of n raw values (``dtype.storage_type``), padding bytes zero."""
    st = dtype.storage_type
    if isinstance(values, np.ndarray) and values.dtype == st:
        return values
    if hasattr(values, "get") and not isinstance(values, (np.ndarray, dict)):
        values = values.get()  # a device array
    npdt = dtype.np_type
    if npdt.subdtype is not None:
        base, shape = npdt.subdtype
        arr = np.asarray(values)
        if arr.dtype.kind == "V":
            arr = arr.view(base) if arr.dtype.names is None else arr
        arr = np.asarray(arr, dtype=base)
        k = len(shape)
        if arr.shape[arr.ndim - k:] != shape:  # numbers: each fills a whole value
            arr = np.broadcast_to(arr.reshape(arr.shape + (1,) * k), arr.shape + shape)
        lead = arr.shape[:arr.ndim - k]
        if len(lead) != 1:
            lead = (int(np.prod(lead)),)
        out = np.ascontiguousarray(arr).reshape(lead + (-1,)).view(st)
        if _padding(npdt).any():  # records inside: a copy of the user's array, padding zero
            out = _zero_padding(out.copy(), npdt)
        return out.reshape(lead)
    arr = np.asarray(values, dtype=npdt) if not (isinstance(values, np.ndarray)
                                                 and values.dtype.names is None
                                                 and values.dtype.kind != "V") \
        else values.astype(npdt)
    arr = arr.reshape(-1)
    out = np.empty(arr.shape[0], npdt)
    out[...] = arr  # a copy of one record type to itself copies its padding bytes too
    return _zero_padding(out, npdt).view(st)


@functools.lru_cache(maxsize=None)
def _padding(npdt):
    """The bytes of one ``npdt`` value that belong to no field (a record's alignment
    padding, nested records' and subarrays' included), as a boolean mask."""
    if npdt.subdtype is not None:
        base, shape = npdt.subdtype
        return np.tile(_padding(base), int(np.prod(shape)))
    if npdt.names is None:
        return np.zeros(npdt.itemsize, bool)
    pad = np.ones(npdt.itemsize, bool)
    for name in npdt.names:
        field, offset = npdt.fields[name][:2]
        pad[offset:offset + field.itemsize] = _padding(field)
    return pad


def _zero_padding(values, npdt):
    """``values`` (a contiguous array of ``npdt`` values, or of their raw storage) with
    their padding bytes zeroed in place: where values are compared as bytes (on a GPU, and
    ``binary.eq`` of raw values), equal records must have equal bytes, and NumPy leaves
    padding as it finds it (``np.ones`` of a record type, a copy from such an array)."""
    pad = _padding(npdt)
    if pad.any() and values.size:
        values.view(np.uint8).reshape(-1, npdt.itemsize)[:, pad] = 0
    return values


def udt_scalar(value, dtype):
    """One value of the user-defined type ``dtype`` (a record, a tuple, a sequence for a
    subarray type, or a number for every field) as its storage scalar."""
    npdt = dtype.np_type
    if isinstance(value, np.void) and value.dtype == dtype.storage_type:
        return value
    if npdt.subdtype is not None:
        base, shape = npdt.subdtype
        arr = np.asarray(value)
        if arr.dtype.kind == "V" and arr.dtype.names is None:
            arr = arr.view(base)
        arr = np.broadcast_to(np.asarray(arr, dtype=base), shape)
        return udt_array(arr.reshape((1,) + shape), dtype)[0]
    one = np.zeros((), npdt)
    one[()] = _record(value, npdt) if isinstance(value, dict) else value
    return udt_array(one.reshape(1), dtype)[0]


def _record(value, npdt):
    """A dict of a record's fields (nested for nested records) as a tuple."""
    if npdt.names is None or not isinstance(value, dict):
        return value
    missing = [name for name in npdt.names if name not in value]
    if missing or len(value) != len(npdt.names):
        raise ValueError(f"A record of fields {list(npdt.names)} was given the keys "
                         f"{list(value)}")
    return tuple(_record(value[name], npdt.fields[name][0]) for name in npdt.names)


def udt_values(raw, dtype):
    """Storage of a user-defined type as the user sees it: records (a record dtype) or an
    array of n rows (a subarray dtype)."""
    return np.ascontiguousarray(raw).view(dtype.np_type)


def user_values(values, dtype):
    """Values as the user sees them: a user-defined type's storage as :func:`udt_values`,
    anything else as it is."""
    if dtype.c_type is None and values.dtype.kind == "V" and values.dtype.names is None:
        return udt_values(values, dtype)
    return values
