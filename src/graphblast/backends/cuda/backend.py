"""The CUDA backend object: every primitive of ``backends/base.py`` on one GPU."""

import cupy as cp
import numpy as np

from ...config import config
from ..base import Backend
from . import apply as _apply
from . import bitmap as _bitmap
from . import blocks as _blocks
from . import dense as _dense
from . import ewise as _ewise
from . import extract as _extract
from . import loops as _loops
from . import mxm as _mxm
from . import mxv as _mxv
from . import storage as _storage
from . import vectors as _vectors
from .memory import guarded


def _dense_first(dense_fn, list_fn):
    """A format's own kernel where it applies (dense.py's vectors, bitmap.py's matrices),
    else ``list_fn``."""
    def primitive(*args, **kwargs):
        out = dense_fn(*args, **kwargs)
        return list_fn(*args, **kwargs) if out is NotImplemented else out
    primitive.__name__ = list_fn.__name__
    return primitive


def _accum_into(owner, C, T, accum):
    out = _bitmap.accum_into(owner, C, T, accum)
    return _dense.accum_into(owner, C, T, accum) if out is NotImplemented else out


def _adopt(data, owner):
    if isinstance(data, _bitmap.BitmapMatrix):
        return _bitmap.adopt(data, owner)
    return _vectors.adopt(data, owner)


def _bitmap_ewise(kind):
    return lambda A, B, op, *args, **kwargs: _bitmap.ewise(kind, A, B, op, *args, **kwargs)


def _bitmap_union(A, B, op, left_default, right_default):
    return _bitmap.ewise("union", A, B, op, None, left_default, right_default)


def _mask_write_into(owner, C, Z, mask, replace):
    out = _bitmap.mask_write(C, Z, mask, replace)
    if out is not NotImplemented:
        return out
    out = _dense.mask_write_into(owner, C, Z, mask, replace)
    return _ewise.mask_write(C, Z, mask, replace) if out is NotImplemented else out


# name -> implementation; each is wrapped per device by memory.guarded
_PRIMITIVES = {
    "matrix_empty": _storage.empty_matrix,
    "vector_empty": _storage.empty_vector,
    "matrix_from_coo": _storage.matrix_from_coo,
    "matrix_from_csr": _storage.matrix_from_csr,
    "vector_from_coo": _storage.vector_from_coo,
    "matrix_to_coo": _storage.to_coo,
    "cast_matrix": _storage.cast_data,
    "cast_vector": _dense_first(_dense.cast_vector, _storage.cast_data),
    "vector_as_row": _storage.as_row,
    "vector_as_column": _storage.vector_as_column,
    "matrix_row_as_vector": _storage.from_row,
    "matrix_column_as_vector": _storage.matrix_column_as_vector,
    "full_like_pattern": _storage.full_like_pattern,
    "vector_full": _storage.vector_full,
    "assign_scalar": _dense.assign_scalar,
    "mask_write_into": _mask_write_into,
    "accum_into": _accum_into,
    "assign_scalar_matrix": _bitmap.assign_scalar,
    "select_masked": _dense.select_masked,
    "matrix_full": _storage.matrix_full,
    "mxm": _mxm.mxm,
    "mxm_bt": _mxm.mxm_bt,
    "mxv": _mxv.mxv,
    "vxm": _mxv.vxm,
    "kronecker": _mxm.kronecker,
    "ewise_add": _dense_first(_bitmap_ewise("add"),
                              _dense_first(_dense.ewise_add, _ewise.ewise_add)),
    "ewise_mult": _dense_first(_bitmap_ewise("mult"),
                               _dense_first(_dense.ewise_mult, _ewise.ewise_mult)),
    "ewise_union": _dense_first(_bitmap_union,
                                _dense_first(_dense.ewise_union, _ewise.ewise_union)),
    "mask_write": _dense_first(_bitmap.mask_write,
                               _dense_first(_dense.mask_write, _ewise.mask_write)),
    "apply": _dense_first(_bitmap.apply, _dense_first(_dense.apply, _apply.apply)),
    "select": _dense_first(_dense.select, _apply.select),
    "reduce_rowwise": _dense_first(_bitmap.reduce_rowwise, _apply.reduce_rowwise),
    "reduce_scalar": _dense_first(_dense.reduce_scalar, _apply.reduce_scalar),
    "value_range": _dense.value_range,
    "extract_matrix": _extract.extract_matrix,
    "extract_vector": _extract.extract_vector,
    "assign_region": _extract.assign_region,
    "gather_vector": _extract.gather_vector,
    "scatter_vector": _extract.scatter_vector,
    "sort_vector": _extract.sort_vector,
    "pull_in_degree_order": _extract.pull_in_degree_order,
}


def _transpose(A):
    if isinstance(A, _bitmap.BitmapMatrix):
        return _bitmap.transposed(A)
    return _storage.transpose(A, cache=config["transpose_cache"])


class _ArrayModule:
    """CuPy, as ``backend.xp``; its ``searchsorted`` also takes a host scalar, as NumPy's does
    (``Vector._get_element`` looks an index up that way)."""

    def __getattr__(self, name):
        return getattr(cp, name)

    @staticmethod
    def cast_array(x, np_type, copy=True):
        """``x.astype(np_type, copy=copy)`` by a catalogue kernel (arrays.py)."""
        from . import arrays

        return arrays.astype(x, np_type, copy_same=copy)

    @staticmethod
    def count_unequal(bits_a, bits_b, a, b, np_type):
        """Where two dense vectors differ (core/base.py's isequal): one catalogue kernel,
        where CuPy's comparisons and reductions would be compiled on first use."""
        from . import arrays

        return arrays.count_unequal(bits_a, bits_b, a, b, np_type)

    @staticmethod
    def entries_equal(mine, theirs, np_type):
        """core/base.py's isequal of two objects' entries (structure arrays, then values)
        without a tolerance: the structure arrays equal as int64, the values in ``np_type``
        (NaN equals nothing), by the catalogue's gbk_count_unequal, one read an array; CuPy's
        comparisons and reductions would be compiled on first use (``A.isequal(A.T)``:
        connected components and triangle counting on a directed graph)."""
        from . import arrays

        def flat(x):  # an iso matrix's values are a broadcast of its one value
            return x if x.flags.c_contiguous else arrays.broadcast(x.size, x[:1])

        *structure, a = mine
        *theirs_structure, b = theirs
        pairs = [(x, y, np.int64) for x, y in zip(structure, theirs_structure)]
        return all(arrays.count_unequal(None, None, flat(x), flat(y), t) == 0
                   for x, y, t in pairs + [(a, b, np_type)])

    @staticmethod
    def searchsorted(a, v, side="left", sorter=None):
        """Sorted int32/int64 keys by a catalogue kernel (an element read, the first of a
        process included, compiles nothing), other arrays by CuPy's."""
        if not isinstance(v, cp.ndarray):
            v = cp.asarray(np.asarray(v, dtype=a.dtype))  # cast on the host
        if (sorter is None and a.ndim == 1 and v.ndim == 1 and a.dtype == v.dtype
                and a.dtype in (np.int32, np.int64) and a.flags.c_contiguous
                and v.flags.c_contiguous and side in ("left", "right")):
            from . import arrays

            return arrays.search_sorted(a, v, side)
        return cp.searchsorted(a, v, side=side, sorter=sorter)


class CUDABackend(Backend):
    """The primitives on cuda:``device_id``.

    Work is queued on CuPy's current stream; a primitive synchronizes with the host only where
    it must know the size of an output.  Out-of-memory errors become
    :class:`graphblast.exceptions.OutOfMemory` (see ``memory.py``).
    """

    xp = _ArrayModule()

    def __init__(self, device_id):
        self.device_id = device_id
        self.name = f"cuda:{device_id}"
        for name, fn in _PRIMITIVES.items():
            setattr(self, name, guarded(fn, device_id, name))
        self.transpose = guarded(_transpose, device_id, "transpose")
        self._inner_dense = guarded(_dense.inner, device_id, "inner")
        self.repeat = guarded(_loops.repeat, device_id, "repeat")
        self.from_host = guarded(cp.asarray, device_id, "from_host")

    def __repr__(self):
        return f"CUDABackend({self.name})"

    adopt = staticmethod(_adopt)

    @staticmethod
    def to_host(array):
        """A NumPy array with the contents of a device (or host) array."""
        return cp.asnumpy(array)

    def reduce_scalar_kept(self, A, monoid):
        """:meth:`reduce_scalar` with a non-empty A's value left on the device."""
        return self.reduce_scalar(A, monoid, keep=True)

    def inner_kept(self, u, v, semiring):
        """:meth:`Backend.inner_kept`, in one pass with no products' vector where both are
        dense (two full vectors' value left on the device)."""
        out = self._inner_dense(u, v, semiring, keep=True)
        return super().inner_kept(u, v, semiring) if out is NotImplemented else out

    @staticmethod
    def read_scalar(array):
        """A one-element device array's value: one synchronization, counted."""
        return _blocks.read_small(array)[0]

    def synchronize(self):
        """Wait for the work queued on this device's current stream (no device switch when
        it is the current device already: this wait ends every timed call)."""
        if cp.cuda.runtime.getDevice() == self.device_id:
            cp.cuda.get_current_stream().synchronize()
            return
        with cp.cuda.Device(self.device_id):
            cp.cuda.get_current_stream().synchronize()
