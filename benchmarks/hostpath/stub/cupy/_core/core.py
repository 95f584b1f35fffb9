"""The base class of CuPy's arrays (what the compiled launcher is told to accept)."""

from cupy import ndarray as _ndarray_base  # noqa: F401
