"""How much memory is free, guards for row counts and estimates, and the host's
out-of-memory guard.

A CSR matrix needs ``8 * (nrows + 1)`` bytes of row pointers whatever its number of entries, so
a short file (or a call) that declares a billion rows would allocate gigabytes, or get the
process killed under memory overcommit.  Readers and the CPU backend call :func:`check_rows`
first and refuse, with a clear message, what cannot fit in memory.
"""

import functools
import os

import numpy as np

from .exceptions import OutOfMemory

__all__ = ["available_bytes", "check_fits", "check_rows", "host_guarded"]

_GIB = 2**30
#: Below this many bytes a check does not ask the system (the answer cannot matter).
ASK_ABOVE = 1 << 26


def _available_bytes():
    """Memory available to this process (Linux's MemAvailable), or None when unknown."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def available_bytes(xp=None):
    """Bytes that new arrays can take now: host memory (``xp`` None or NumPy; None when the
    platform does not tell), or on a GPU (``xp`` CuPy) the free device memory plus what
    CuPy's memory pool holds unused."""
    if xp is None or xp is np:
        return _available_bytes()
    free, _total = xp.cuda.runtime.memGetInfo()
    pool = xp.get_default_memory_pool()
    return free + pool.total_bytes() - pool.used_bytes()


def check_rows(nrows, where):
    """Raise OutOfMemory when the row pointers of an ``nrows``-row matrix cannot fit."""
    need = 8 * (int(nrows) + 1)
    if need < ASK_ABOVE:
        return
    available = _available_bytes()
    if available is not None and need > available // 2:
        raise OutOfMemory(f"{where}: a matrix with {nrows} rows needs {need / 2**30:.1f} GiB "
                          f"for its row pointers alone, and only {available / 2**30:.1f} GiB "
                          "of memory is available")


def check_fits(needed, available, where, what, advice):
    """Raise OutOfMemory, before anything is allocated, when an estimated ``needed`` bytes
    exceed the ``available`` bytes of ``where`` (None: unknown, nothing is refused)."""
    if available is not None and needed > available:
        raise OutOfMemory(f"{what} needs about {needed / _GIB:.1f} GiB but only "
                          f"{available / _GIB:.1f} GiB of {where} is available; {advice}.")


def _requested(error):
    """Bytes of the allocation that failed, when the error says (NumPy's does)."""
    size = getattr(error, "_total_size", None)
    return int(size) if isinstance(size, int) else None


def _host_message(error, what):
    requested = _requested(error)
    free = _available_bytes()
    asked = f"{requested:,} bytes" if requested is not None else "an allocation"
    text = f"host out of memory in {what} on cpu: requested {asked}"
    if free is not None:
        text += f", {free:,} bytes available"
    return (text + ". The objects involved are unchanged; free memory (del unused objects) or "
            "use smaller inputs, then retry.")


def host_guarded(fn, what=None):
    """``fn`` with a failed host allocation (NumPy's and SciPy's ``MemoryError``, which NumPy
    raises with the size it asked for) raised as OutOfMemory naming ``what``, the bytes
    asked for and the bytes available.  Every primitive of the CPU backend runs inside it,
    and so do the methods that copy an object to the host (``to_dense``, ``to_coo`` ...)."""
    what = what or fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except OutOfMemory:
            raise  # from a guarded call inside this one: already explained
        except MemoryError as error:
            message = _host_message(error, what)
        raise OutOfMemory(message)

    return wrapper
