"""Turning Python indices (ints, slices, lists, arrays, ``...``) into :class:`IndexArg`."""

import numbers

import numpy as np

from ..backends.base import IndexArg
from ..exceptions import IndexOutOfBound, InvalidIndex


def _scalar_index(i, size):
    if isinstance(i, (bool, np.bool_)):
        raise TypeError(f"An index must be an integer, not {type(i).__name__}")
    i = int(i)
    if i < 0:
        i += size
        if i < 0:
            raise IndexOutOfBound(f"Index {i - size} out of range for dimension of size {size}")
    if i >= size:
        raise IndexOutOfBound(f"Index {i} out of range for dimension of size {size}; valid "
                              f"indices are 0..{size - 1}")
    return i


def resolve(index, size):
    """An int (returned as int) or an :class:`IndexArg` for one dimension of ``size``."""
    if isinstance(index, numbers.Integral) or (isinstance(index, np.ndarray) and index.ndim == 0
                                               and index.dtype.kind in "iu"):
        return _scalar_index(index, size)
    if isinstance(index, slice):
        start, stop, step = index.indices(size)
        count = len(range(start, stop, step))
        if step == 1 and start == 0 and count == size:
            return IndexArg("all", size, size)
        return IndexArg("range", count, size, start=start, stop=stop, step=step)
    if index is Ellipsis:
        return IndexArg("all", size, size)
    if isinstance(index, (list, tuple, np.ndarray)) or hasattr(index, "__array__"):
        arr = np.asarray(index)
        if arr.ndim != 1:
            raise InvalidIndex(f"An index array must be 1-D, got shape {arr.shape}")
        if arr.size == 0:
            return IndexArg("list", 0, size, array=np.zeros(0, dtype=np.int64))
        if arr.dtype.kind not in "iu":
            raise TypeError(f"Index arrays must hold integers, got dtype {arr.dtype}")
        if arr.min() < 0 or arr.max() >= size:
            bad = arr[(arr < 0) | (arr >= size)][0]
            raise IndexOutOfBound(f"Index {int(bad)} out of range for dimension of size {size}")
        return IndexArg("list", arr.shape[0], size, array=arr.astype(np.int64))
    from .vector import Vector

    if isinstance(index, Vector):
        raise TypeError("Use an array of indices (v.to_coo()[0]), not a Vector, as an index")
    raise TypeError(f"Invalid index of type {type(index).__name__}: use an int, a slice, a list "
                    "or an array of ints")


def resolve_all(indices, shape):
    """Resolve an index tuple for an object of ``shape`` (1 or 2 dimensions)."""
    if not isinstance(indices, tuple):
        indices = (indices,)
    if Ellipsis in [i for i in indices if i is Ellipsis]:
        if len(indices) == 1:
            indices = (slice(None),) * len(shape)
    if len(indices) != len(shape):
        raise TypeError(f"Expected {len(shape)} indices for an object of {len(shape)} "
                        f"dimension(s), got {len(indices)}")
    return tuple(resolve(i, n) for i, n in zip(indices, shape))


def as_list(index):
    """An IndexArg for a single int index (a 1-element list)."""
    return IndexArg("list", 1, None, array=np.array([index], dtype=np.int64))
