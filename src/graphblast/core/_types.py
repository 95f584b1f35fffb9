"""The collection classes, imported once for the modules they import (operations, expr):
an import inside a hot function costs half a microsecond a call."""

_TYPES = None


def types():
    """(Matrix, TransposedMatrix, Scalar, Vector)."""
    global _TYPES
    if _TYPES is None:
        from .matrix import Matrix, TransposedMatrix
        from .scalar import Scalar
        from .vector import Vector

        _TYPES = (Matrix, TransposedMatrix, Scalar, Vector)
    return _TYPES
