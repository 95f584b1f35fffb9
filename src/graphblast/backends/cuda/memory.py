"""GPU memory: CuPy's default memory pool, and the backend's entry-point guard.

Every primitive runs inside :func:`guarded`: on the backend's device, and with any library's
out-of-memory error (CuPy's pool, CUB/Thrust's ``std::bad_alloc``, cuSPARSE, the CUDA
runtime) turned into :class:`graphblast.exceptions.OutOfMemory` saying what was asked for and
what was free.  Storage is immutable, so a failed primitive has changed nothing;
the guard raises only after the failed call's frames (and the GPU arrays they held) are gone,
so the memory is back in the pool for the next call.
"""

import functools

import cupy as cp
import numpy as np

from ...exceptions import OutOfMemory


def empty_pinned(size, dtype):
    """A page-locked host array (``cupyx.empty_pinned``'s allocation without importing
    ``cupyx``, whose import pulls in SciPy's sparse package: half a second of a first call)."""
    dtype = np.dtype(dtype)
    memory = cp.cuda.alloc_pinned_memory(size * dtype.itemsize)
    return np.frombuffer(memory, dtype, size)


def memory_status():
    """(bytes free on the device plus cached by the pool, pool limit or 0, bytes in use)."""
    pool = cp.get_default_memory_pool()
    free_device, _ = cp.cuda.runtime.memGetInfo()
    return free_device + pool.free_bytes(), pool.get_limit(), pool.used_bytes()


def _message(error, what, device_id):
    requested = getattr(error, "_size", None)
    free, limit, used = memory_status()
    if limit:
        free = min(free, max(limit - used, 0))
    asked = f"{requested:,} bytes" if requested is not None else "an allocation"
    text = (f"GPU out of memory in {what} on cuda:{device_id}: requested {asked}, "
            f"{free:,} bytes free")
    if limit:
        text += f" under the memory pool limit of {limit:,} bytes"
    return (text + ". The objects involved are unchanged; free memory (del unused objects, or "
            "raise cupy.get_default_memory_pool().set_limit) or use smaller inputs, then "
            "retry.")


# What libraries other than CuPy's pool say when they run out of device memory: cuSPARSE and
# cuBLAS status codes, the CUDA runtime and driver errors of a raw allocation.
_OOM_WORDS = ("INSUFFICIENT_RESOURCES", "ALLOC_FAILED", "cudaErrorMemoryAllocation",
              "CUDA_ERROR_OUT_OF_MEMORY")


def is_out_of_memory(error):
    """Whether ``error`` says the GPU ran out of memory, whichever library raised it: CuPy's
    pool (OutOfMemoryError), CUB and Thrust (``MemoryError: std::bad_alloc``), cuSPARSE,
    cuBLAS or the CUDA runtime (a status code in the message)."""
    if isinstance(error, (cp.cuda.memory.OutOfMemoryError, MemoryError)):
        return True
    text = str(error)
    return any(word in text for word in _OOM_WORDS)


# The engine's caches that hold device memory from call to call (push's claim stamps, the
# list-mask marks: up to tens of MiB per output size): emptied when a call runs out of
# memory, with the pool's cached blocks, and made again by the next call that needs them.
_caches = []


def dropped_on_oom(cache):
    """``cache`` (a dict of device arrays) registered to be emptied on out-of-memory."""
    _caches.append(cache)
    return cache


def guarded(fn, device_id, what=None):
    """``fn`` run on cuda:``device_id``, with out-of-memory errors of any source as
    OutOfMemory.  The engine's caches and the pool's cached blocks are released before it is
    raised, so that the next call starts from all the memory there is."""
    what = what or fn.__name__
    get_device = cp.cuda.runtime.getDevice

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            if get_device() == device_id:
                return fn(*args, **kwargs)
            with cp.cuda.Device(device_id):
                return fn(*args, **kwargs)
        except OutOfMemory:
            raise  # from a guarded call inside this one: already explained
        except Exception as error:  # noqa: BLE001 - only out-of-memory errors are translated
            if not is_out_of_memory(error):
                raise
            message = _message(error, what, device_id)
        for cache in _caches:
            cache.clear()
        cp.get_default_memory_pool().free_all_blocks()
        raise OutOfMemory(message)

    return wrapper
