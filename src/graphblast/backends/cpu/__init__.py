"""The CPU backend: NumPy and SciPy, vectorized; the reference for every other backend."""

import numpy as np

from ..._memory import host_guarded
from ...config import config
from ..base import Backend
from . import apply as _apply
from . import ewise as _ewise
from . import extract as _extract
from . import mxm as _mxm
from . import storage as _storage


class CPUBackend(Backend):
    name = "cpu"
    xp = np

    matrix_empty = staticmethod(_storage.empty_matrix)
    vector_empty = staticmethod(_storage.empty_vector)
    matrix_from_coo = staticmethod(_storage.matrix_from_coo)
    matrix_from_csr = staticmethod(_storage.matrix_from_csr)
    vector_from_coo = staticmethod(_storage.vector_from_coo)
    matrix_to_coo = staticmethod(_storage.to_coo)
    cast_matrix = staticmethod(_storage.cast_data)
    cast_vector = staticmethod(_storage.cast_data)
    vector_as_row = staticmethod(_storage.as_row)
    vector_as_column = staticmethod(_storage.vector_as_column)
    matrix_row_as_vector = staticmethod(_storage.from_row)
    matrix_column_as_vector = staticmethod(_storage.matrix_column_as_vector)
    full_like_pattern = staticmethod(_storage.full_like_pattern)
    vector_full = staticmethod(_storage.vector_full)
    matrix_full = staticmethod(_storage.matrix_full)

    mxm = staticmethod(_mxm.mxm)
    mxm_bt = staticmethod(_mxm.mxm_bt)
    mxv = staticmethod(_mxm.mxv)
    vxm = staticmethod(_mxm.vxm)
    kronecker = staticmethod(_mxm.kronecker)
    ewise_add = staticmethod(_ewise.ewise_add)
    ewise_mult = staticmethod(_ewise.ewise_mult)
    ewise_union = staticmethod(_ewise.ewise_union)
    mask_write = staticmethod(_ewise.mask_write)
    apply = staticmethod(_apply.apply)
    select = staticmethod(_apply.select)
    reduce_rowwise = staticmethod(_apply.reduce_rowwise)
    reduce_scalar = staticmethod(_apply.reduce_scalar)
    extract_matrix = staticmethod(_extract.extract_matrix)
    extract_vector = staticmethod(_extract.extract_vector)
    assign_region = staticmethod(_extract.assign_region)
    gather_vector = staticmethod(_extract.gather_vector)
    scatter_vector = staticmethod(_extract.scatter_vector)
    sort_vector = staticmethod(_extract.sort_vector)
    pull_in_degree_order = staticmethod(_extract.pull_in_degree_order)

    @staticmethod
    def transpose(A):
        return _storage.transpose(A, cache=config["transpose_cache"])

    @staticmethod
    def to_host(array):
        return np.asarray(array)

    @staticmethod
    def from_host(array):
        return np.asarray(array)

    @staticmethod
    def synchronize():
        pass


# Every primitive raises a failed allocation as OutOfMemory (_memory.host_guarded).
for _name in ("matrix_empty", "vector_empty", "matrix_from_coo", "matrix_from_csr",
              "vector_from_coo", "matrix_to_coo", "cast_matrix", "cast_vector", "vector_as_row",
              "vector_as_column", "matrix_row_as_vector", "matrix_column_as_vector",
              "full_like_pattern", "vector_full", "matrix_full", "mxm", "mxm_bt", "mxv", "vxm",
              "kronecker", "ewise_add", "ewise_mult", "ewise_union", "mask_write", "apply",
              "select", "reduce_rowwise", "reduce_scalar", "extract_matrix", "extract_vector",
              "assign_region", "gather_vector", "scatter_vector", "sort_vector",
              "pull_in_degree_order", "transpose"):
    setattr(CPUBackend, _name, staticmethod(host_guarded(getattr(CPUBackend, _name), _name)))
del _name

backend = CPUBackend()
