"""A guard for row counts.

A CSR matrix needs ``8 * (nrows + 1)`` bytes of row pointers whatever its number of entries, so
a short file (or a call) that declares a billion rows would allocate gigabytes, or get the
process killed under memory overcommit.  Readers and the CPU backend call :func:`check_rows`
first and refuse, with a clear message, what cannot fit in memory.
"""

import os

from .exceptions import OutOfMemory

__all__ = ["check_rows"]


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


def check_rows(nrows, where):
    """Raise OutOfMemory when the row pointers of an ``nrows``-row matrix cannot fit."""
    need = 8 * (int(nrows) + 1)
    if need < 1 << 26:  # small enough not to ask the system
        return
    available = _available_bytes()
    if available is not None and need > available // 2:
        raise OutOfMemory(f"{where}: a matrix with {nrows} rows needs {need / 2**30:.1f} GiB "
                          f"for its row pointers alone, and only {available / 2**30:.1f} GiB "
                          "of memory is available")
