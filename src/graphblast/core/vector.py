"""Vector."""

import numpy as np

from .._memory import host_guarded
from ..dtypes import FP64, lookup_dtype, user_values
from ..exceptions import OutputNotEmpty
from . import operations as ops
from .base import (
    Collection, as_values, dense_dtype, dense_fill, infer_dtype, next_name, note_made, place,
    rows_equal,
)
from .formatting import html_repr, vector_repr
from .index import resolve_all
from .matrix import (Matrix, _array_module, _check_dim, _diag_offset, _index, _inferred_dim,
                     _iso_dup, _length, _typed_dup)
from .ss import VectorSS

_INDEX_OUT = np.uint64


class Vector(Collection):
    """A sparse vector of one type on one device.

    Parameters
    ----------
    dtype : DataType, str or NumPy dtype, default FP64
    size : int
    name : str, optional
    device : "cpu", "cuda" or "cuda:N", optional
    """

    __slots__ = ()
    ndim = 1

    def __init__(self, dtype=FP64, size=0, *, name=None, device=None):
        dtype = lookup_dtype(dtype)
        size = _check_dim("size", size)
        self.device, self._backend = place(device, dtype)
        self._data = self._backend.vector_empty(size, dtype)
        self.name = name if name is not None else next_name("v")
        note_made(self)

    @classmethod
    def _from_data(cls, data, backend, device, name=None):
        obj = cls.__new__(cls)
        note_made(obj)
        obj._data = backend.adopt(data, obj)
        obj._backend = backend
        obj.device = device
        obj.name = name if name is not None else next_name("v")
        return obj

    def _empty_data(self, dtype):
        return self._backend.vector_empty(self.size, dtype)

    @property
    def size(self):
        return self._data.size

    @property
    def shape(self):
        return (self._data.size,)

    @property
    def ss(self):
        """SuiteSparse extensions python-graphblas exposes under ``.ss``: ``v.ss.sort``."""
        return VectorSS(self)

    # -- constructors --------------------------------------------------------------------
    @classmethod
    def from_coo(cls, indices, values=1.0, dtype=None, *, size=None, dup_op=None, name=None,
                 device=None):
        """A Vector from indices and values; duplicates raise unless ``dup_op`` is given."""
        dtype = infer_dtype(values, dtype)
        device, backend = place(device, dtype)
        indices, end = _index(indices, "indices", device)
        # (a user-defined type's one value may be a record or a tuple: as_values checks it)
        nv = _length(values) if dtype.c_type is not None else None
        if nv not in (None, indices.shape[0]):
            from ..exceptions import InvalidValue

            raise InvalidValue(f"`indices` and `values` lengths must match: "
                               f"{indices.shape[0]}, {nv}")
        vals = as_values(values, indices.shape[0], dtype, _array_module(indices, backend))
        size = _inferred_dim("size", size, indices, end)
        data = backend.vector_from_coo(size, dtype, indices, vals,
                                       _typed_dup(_iso_dup(values, dup_op), dtype))
        return cls._from_data(data, backend, device, name)

    @classmethod
    def from_dense(cls, values, missing_value=None, *, dtype=None, name=None, device=None):
        """A Vector from a 1-D array; entries equal to ``missing_value`` are left out."""
        arr = np.asarray(values)
        if arr.ndim == 0:
            raise TypeError("values must be an array or list, not a scalar.  To create a "
                            "dense Vector from a scalar, use `Vector.from_scalar`.")
        dt = dense_dtype(arr, dtype, 1)
        if dt is not None and dt.np_type.subdtype is not None:
            if arr.ndim == 1:
                raise ValueError("A >1d array is required to create a dense Vector with "
                                 f"subdtype {dt}")
            idx = np.arange(arr.shape[0])
            if missing_value is not None:
                idx = idx[~rows_equal(arr, missing_value)]
            return cls.from_coo(idx, arr[idx], dt, size=arr.shape[0], name=name,
                                device=device)
        if arr.ndim != 1:
            raise ValueError(f"values must be 1d to create a dense Vector, got {arr.ndim}-D")
        if missing_value is None:
            idx = np.arange(arr.shape[0])
        elif isinstance(missing_value, float) and np.isnan(missing_value):
            idx = np.flatnonzero(~np.isnan(arr))
        else:
            idx = np.flatnonzero(arr != missing_value)
        return cls.from_coo(idx, arr[idx], dtype, size=arr.shape[0], name=name, device=device)

    @classmethod
    def from_scalar(cls, value, size, dtype=None, *, name=None, device=None):
        """A full Vector with every entry ``value``."""
        from .scalar import Scalar

        s = ops.scalar_of(value, "value", "Vector.from_scalar", dtype)
        dtype = lookup_dtype(dtype) if dtype is not None else s.dtype
        if s.is_empty:
            return cls(dtype, size, name=name, device=device)
        device, backend = place(device, dtype)
        # a value a reduction left on this device is copied there, not read
        data = backend.vector_full(_check_dim("size", size), ops.bound_value(s, backend, dtype),
                                   dtype)
        return cls._from_data(data, backend, device, name)

    @classmethod
    def from_dict(cls, d, dtype=None, *, size=None, name=None, device=None):
        """A Vector from ``{index: value}``."""
        idx = np.array(list(d.keys()), dtype=np.int64)
        vals = np.array(list(d.values())) if d else np.zeros(0)
        if size is None and not d:
            size = 0
        return cls.from_coo(idx, vals, dtype, size=size, name=name, device=device)

    @host_guarded
    def to_dict(self):
        """``{index: value}``."""
        idx, vals = self._coo_host()
        return dict(zip(idx.tolist(), user_values(vals, self.dtype).tolist()))

    def reposition(self, offset, *, size=None):
        """Entries shifted by ``offset`` in a Vector of ``size`` (default the same); entries
        that fall outside are dropped."""
        size = self.size if size is None else _check_dim("size", size)
        idx, vals = self._coo_host()
        idx = idx.astype(np.int64) + int(offset)
        keep = (idx >= 0) & (idx < size)
        out = Vector.from_coo(idx[keep], vals[keep], self.dtype, size=size, device=self.device)
        return ops.identity_expr(out)

    @classmethod
    def from_pairs(cls, pairs, dtype=None, *, size=None, dup_op=None, name=None, device=None):
        """A Vector from (index, value) pairs."""
        if isinstance(pairs, np.ndarray):
            raise TypeError("pairs as a NumPy array would lose the values' type to the "
                            "indices'; use `Vector.from_coo` with the two columns")
        pairs = list(pairs)
        if any(len(p) != 2 for p in pairs):
            raise ValueError("Each item in the pairs must be an (index, value) pair of "
                             "length 2")
        if not pairs and size is None:
            raise ValueError("No pairs provided. Unable to infer size; give size=")
        idx = np.array([p[0] for p in pairs], dtype=np.int64)
        vals = np.array([p[1] for p in pairs]) if pairs else np.zeros(0)
        return cls.from_coo(idx, vals, dtype, size=size, dup_op=dup_op, name=name,
                            device=device)

    # -- conversion ----------------------------------------------------------------------
    def _entries(self):
        return self._data.indices, self._data.values

    def _coo_host(self):
        b = self._backend
        return b.to_host(self._data.indices), b.to_host(self._data.values)

    @host_guarded
    def to_coo(self, dtype=None, *, indices=True, values=True, sort=True):
        """(indices, values) NumPy arrays, indices ascending (uint64 as in python-graphblas)."""
        idx, vals = self._coo_host()
        if dtype is not None:
            from ..dtypes import cast

            vals = cast(vals, lookup_dtype(dtype))
        vals = user_values(vals, self.dtype if dtype is None else lookup_dtype(dtype))
        return (idx.astype(_INDEX_OUT) if indices else None, vals.copy() if values else None)

    @host_guarded
    def to_dense(self, fill_value=None, dtype=None):
        """A 1-D NumPy array; missing entries take ``fill_value`` (required unless full)."""
        idx, vals = self._coo_host()
        dt, fill = dense_fill(self, fill_value, dtype)
        from ..dtypes import cast

        out = np.zeros(self.size, dtype=dt.np_type)
        if fill is not None:
            out[...] = fill
        out[idx] = user_values(cast(vals, dt), dt)
        return out

    def _as_expr(self):
        return ops.identity_expr(self)

    def to_device(self, device):
        """A copy of this Vector on ``device`` (itself if already there)."""
        dev, backend = place(device, self.dtype)
        if dev == self.device:
            return self
        idx, vals = self._coo_host()
        data = backend.vector_from_coo(self.size, self.dtype, idx, vals, None)
        return Vector._from_data(data, backend, dev, self.name)

    # -- operations ----------------------------------------------------------------------
    def vxm(self, other, op=None):
        """Vector-matrix product ``v' (+.x) A`` (default plus_times)."""
        return ops.vxm(self, other, op)

    def inner(self, other, op=None):
        """Dot product over a semiring: a Scalar expression."""
        return ops.inner(self, other, op)

    def outer(self, other, op=None):
        """Outer product ``C(i, j) = op(u(i), v(j))``: a Matrix expression."""
        return ops.outer(self, other, op)

    def reduce(self, op=None, *, allow_empty=True):
        """A Scalar: every entry reduced with a monoid (default plus)."""
        if op is None:
            from ..ops import monoid

            op = monoid.plus
        return ops.reduce_scalar(self, op, allow_empty)

    def diag(self, k=0, *, name=None):
        """A square Matrix with this Vector on its k-th diagonal (k > 0 above the main
        diagonal, k < 0 below), built where the Vector is: entry ``i`` goes to row
        ``i + max(-k, 0)`` and column ``i + max(k, 0)``, positions made by
        ``indexunary.rowindex`` and read by ``Matrix.from_coo`` from Vectors."""
        from ..ops import indexunary

        k = _diag_offset(k)
        n = _check_dim("nrows", self.size + abs(k))
        rows = self.apply(indexunary.rowindex, max(-k, 0)).new()
        cols = rows if k == 0 else self.apply(indexunary.rowindex, max(k, 0)).new()
        return Matrix.from_coo(rows, cols, self, self.dtype, nrows=n, ncols=n, name=name)

    # -- in-place ------------------------------------------------------------------------
    def build(self, indices, values, *, dup_op=None, clear=False, size=None):
        """Fill an empty Vector (``clear=True`` empties it first)."""
        if self.nvals and not clear:
            raise OutputNotEmpty(f"{self.name} already has {self.nvals} entries; use "
                                 "clear=True to replace them")
        size = self.size if size is None else size
        new = Vector.from_coo(indices, values, self.dtype, size=size, dup_op=dup_op,
                              device=self.device)
        self._set_data(new._data)

    def dup(self, dtype=None, *, clear=False, mask=None, name=None, **opts):
        """A copy (optionally cast, emptied, or under a mask)."""
        dtype = self.dtype if dtype is None else lookup_dtype(dtype)
        if clear:
            return Vector(dtype, self.size, name=name, device=self.device)
        if mask is None and dtype is self.dtype:
            return Vector._from_data(self._data, self._backend, self.device, name)
        return self._as_expr().new(dtype, mask=mask, name=name)

    def resize(self, size):
        """Change the size; entries past the new size are dropped."""
        size = _check_dim("size", size)
        idx, vals = self._coo_host()
        keep = idx < size
        self._set_data(self._backend.vector_from_coo(size, self.dtype, idx[keep], vals[keep],
                                                     None))

    def get(self, index, default=None):
        """The value at ``index``, or ``default`` when there is none."""
        res = resolve_all(index, self.shape)
        if not isinstance(res[0], int):
            raise ValueError(f"Bad index in Vector.get: {index!r}; get reads one element")
        v = self._get_element(res)
        return default if v is None else v.item()

    def _get_element(self, resolved):
        (i,) = resolved
        b = self._backend
        idx = self._data.indices
        key = b.xp.asarray([i], dtype=idx.dtype)  # CuPy's searchsorted takes arrays only
        pos = int(b.to_host(b.xp.searchsorted(idx, key))[0])
        if pos < self._data.nvals and int(b.to_host(idx[pos:pos + 1])[0]) == i:
            return b.to_host(self._data.values[pos:pos + 1])[0]
        return None

    def __getitem__(self, index):
        return ops.Indexed(self, index, resolve_all(index, self.shape))

    def __setitem__(self, index, value):
        ops.assign(self, value, index, None, None, False, subassign=True)

    def __delitem__(self, index):
        res = resolve_all(index, self.shape)
        from .scalar import Scalar

        ops.assign(self, Scalar(self.dtype), res, None, None, False, subassign=True,
                   resolved=True)

    def __contains__(self, index):
        if isinstance(index, (tuple, list)):
            raise TypeError(f"Use i in v with one index, not {type(index).__name__}")
        return self._get_element(resolve_all(index, self.shape)) is not None

    def __iter__(self):
        idx, _ = self._coo_host()
        return iter(idx.tolist())

    def __repr__(self):
        return vector_repr(self)

    def _repr_html_(self):
        return html_repr(self)
