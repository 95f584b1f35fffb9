"""Turning Python indices (ints, slices, lists, arrays, ``...``) into :class:`IndexArg`."""

import numbers

import numpy as np

from ..backends.base import IndexArg
from ..exceptions import IndexOutOfBound


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


class VectorIndex:
    """graphblast's extension: a Vector ``I`` whose values are positions (SuiteSparse 10's
    ``GxB_Vector_extract_Vector`` / ``GxB_Vector_assign_Vector``).

    Entry ``i`` of ``I`` pairs position ``i`` of the index space (``I.size`` positions) with
    position ``I[i]`` of the indexed Vector (``size`` positions): ``u[I][i] = u[I[i]]`` and
    ``w[I] << u`` writes ``u[i]`` to ``w[I[i]]``.  The values must be integers in
    ``[0, size)``; that is checked here, before anything runs (the smallest and largest
    value of ``I``, read together).
    """

    kind = "vector"
    __slots__ = ("vector", "count", "size")

    def __init__(self, vector, size):
        if vector.dtype.np_type.kind not in "iu" or vector.dtype.name == "BOOL":
            raise TypeError(f"A Vector used as an index must hold integers, got {vector.dtype}; "
                            "cast it with I.apply(unary.identity[INT64])")
        extent = vector._backend.value_range(vector._data)  # one device read on a GPU
        if extent is not None:
            lo, hi = (int(x) for x in extent)
            if lo < 0 or hi >= size:
                bad = lo if lo < 0 else hi
                raise IndexOutOfBound(f"Index {bad} (a value of the index Vector "
                                      f"{vector.name}) out of range for dimension of size "
                                      f"{size}; valid positions are 0..{size - 1}")
        self.vector = vector
        self.count = vector.size
        self.size = size


def resolve(index, size, allow_vector=False, owner=None):
    """An int (returned as int), an :class:`IndexArg` or (for a Vector being indexed, with
    ``allow_vector``) a :class:`VectorIndex` for one dimension of ``size``; a Vector index
    must live on the device of ``owner`` (the collection indexed), when given."""
    if isinstance(index, numbers.Integral) or (isinstance(index, np.ndarray) and index.ndim == 0
                                               and index.dtype.kind in "iu"):
        return _scalar_index(index, size)
    if getattr(index, "_is_scalar", False) and hasattr(index, "_value_as"):
        if not index.dtype.is_int:
            raise TypeError(f"An integer is required for indexing; got a Scalar of "
                            f"{index.dtype}")
        return _scalar_index(index.__index__(), size)  # a Scalar of an integer type
    if isinstance(index, slice):
        start, stop, step = index.indices(size)
        count = len(range(start, stop, step))
        if step == 1 and start == 0 and count == size:
            return IndexArg("all", size, size)
        return IndexArg("range", count, size, start=start, stop=stop, step=step)
    if index is Ellipsis:
        return IndexArg("all", size, size)
    if isinstance(index, tuple):
        raise TypeError("Invalid type for index: tuple; use a list for several indices "
                        "(x[[0, 2]], not x[(0, 2)])")
    if isinstance(index, list) and any(getattr(i, "_is_scalar", False) for i in index):
        index = [i.__index__() if getattr(i, "_is_scalar", False) else i for i in index]
    if (isinstance(index, (list, np.ndarray)) or hasattr(index, "__array__")) and not hasattr(
            index, "_backend"):
        arr = np.asarray(index)
        if arr.ndim != 1:
            raise TypeError(f"Invalid number of dimensions for index: {arr.ndim}; an index "
                            f"array must be 1-D, got shape {arr.shape}")
        if arr.size == 0:
            return IndexArg("list", 0, size, array=np.zeros(0, dtype=np.int64))
        if arr.dtype.kind not in "iu":
            raise TypeError(f"Invalid dtype for index: {arr.dtype}; index arrays must hold "
                            "integers")
        if arr.min() < 0:  # negative indices count from the end, as in Python
            arr = np.where(arr < 0, arr + size, arr)
        if arr.min() < 0 or arr.max() >= size:
            bad = arr[(arr < 0) | (arr >= size)][0]
            raise IndexOutOfBound(f"Index {int(bad)} out of range for dimension of size {size}")
        return IndexArg("list", arr.shape[0], size, array=arr.astype(np.int64))
    from .vector import Vector

    if isinstance(index, Vector):
        if owner is not None:
            from .operations import same_device

            same_device(owner, index)
        checked = VectorIndex(index, size)
        return checked if allow_vector else _vector_list(checked)
    raise TypeError(f"Invalid type for index: {type(index).__name__}; use an int, a slice, a list "
                    "or an array of ints")


def _vector_list(checked):
    """A Vector of positions indexing a Matrix dimension (SuiteSparse 10's
    ``GxB_Matrix_extract_Vector``): the list of its values in the order of its entries, kept
    where the Vector lives (a GPU index list is not copied through the host)."""
    values = checked.vector._data.values
    cast = getattr(checked.vector._backend.xp, "cast_array", None)  # the GPU's own kernels
    values = cast(values, np.int64) if cast else values.astype(np.int64)  # a copy: I may change
    return IndexArg("list", int(values.shape[0]), checked.size, array=values)


def host_list(index, backend):
    """``index`` with a list held on the device (from a Vector of positions) brought to the
    host, for the paths that read the list there (assign)."""
    if getattr(index, "kind", None) != "list" or isinstance(index.array, np.ndarray):
        return index
    return IndexArg("list", index.count, index.size,
                    array=np.asarray(backend.to_host(index.array), dtype=np.int64))


def resolve_all(indices, shape, owner=None):
    """Resolve an index tuple for an object of ``shape`` (1 or 2 dimensions), ``owner``
    (when given) the collection indexed."""
    if not isinstance(indices, tuple):
        indices = (indices,)
    if Ellipsis in [i for i in indices if i is Ellipsis]:
        if len(indices) == 1:
            indices = (slice(None),) * len(shape)
    if len(indices) != len(shape):
        raise TypeError(f"Expected {len(shape)} indices for an object of {len(shape)} "
                        f"dimension(s), got {len(indices)}")
    return tuple(resolve(i, n, len(shape) == 1, owner) for i, n in zip(indices, shape))


def as_list(index):
    """An IndexArg for a single int index (a 1-element list)."""
    return IndexArg("list", 1, None, array=np.array([index], dtype=np.int64))
