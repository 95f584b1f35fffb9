"""Host memory: the CPU backend's entry-point guard.

Every primitive runs inside :func:`guarded`: an allocation that fails (NumPy's and SciPy's
``MemoryError``, which NumPy raises with the shape and type it asked for) becomes
:class:`graphblast.exceptions.OutOfMemory` naming the operation, the bytes asked for and the
bytes available.  Storage is immutable, so a failed primitive has changed nothing, and the
failed call's arrays are gone by the time the error reaches the caller.
"""

import functools

from ..._memory import available_bytes
from ...exceptions import OutOfMemory


def _requested(error):
    """Bytes of the allocation that failed, when the error says (NumPy's does)."""
    size = getattr(error, "_total_size", None)
    return int(size) if isinstance(size, int) else None


def _message(error, what):
    requested = _requested(error)
    free = available_bytes()
    asked = f"{requested:,} bytes" if requested is not None else "an allocation"
    text = f"host out of memory in {what} on cpu: requested {asked}"
    if free is not None:
        text += f", {free:,} bytes available"
    return (text + ". The objects involved are unchanged; free memory (del unused objects) or "
            "use smaller inputs, then retry.")


def guarded(fn, what):
    """``fn`` with a failed host allocation raised as OutOfMemory."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except OutOfMemory:
            raise  # from a guarded call inside this one: already explained
        except MemoryError as error:
            message = _message(error, what)
        raise OutOfMemory(message)

    return wrapper
