"""The CUDA backend: CuPy arrays and CUDA C++ kernel templates compiled at run time.

:func:`get_cuda_backend` returns one :class:`CUDABackend` per device.  CuPy is imported only
when a backend is first made, so importing graphblast (or ``graphblast.backends.cuda.jit``, as
the CPU-only kernel compile test does) never needs CuPy or a GPU.
"""

import functools

__all__ = ["get_cuda_backend"]


@functools.lru_cache(maxsize=None)
def get_cuda_backend(device_id=0):
    """The backend of cuda:``device_id`` (one object per device)."""
    from .backend import CUDABackend

    return CUDABackend(int(device_id))
