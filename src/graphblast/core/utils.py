"""python-graphblas's ``graphblas.core.utils`` helpers that libraries built on it use."""

import numpy as np

_NP2 = np.__version__.split(".")[0] >= "2"  # NumPy 2's rules (python-graphblas's flag)


def output_type(x):
    """The type ``x`` is or computes to: Matrix for a Matrix expression, int for an int."""
    out = getattr(x, "output_type", None)
    return out if isinstance(out, type) else type(x)


def ensure_type(x, types):
    """``x`` if it is an instance of ``types`` (a type or a tuple of types), else ``x``
    computed (``x.new()``) when it is an expression whose result is; else TypeError.
    Computes whatever ``config["autocompute"]`` says."""
    if isinstance(x, types):
        return x
    wanted = types if isinstance(types, tuple) else (types,)
    if output_type(x) in wanted and hasattr(x, "new"):
        return x.new()
    raise TypeError(f"{type(x).__name__!r} object is not of type {types}")
