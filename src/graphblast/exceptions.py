"""Exceptions, with the class names of python-graphblas (and the GraphBLAS C API).

Every argument error is raised before any object is changed; messages say what to do.
"""


class GraphblasException(Exception):
    """Base class of every graphblast error."""


class NoValue(GraphblasException):
    """An element or Scalar has no value."""


class UninitializedObject(GraphblasException):
    pass


class InvalidObject(GraphblasException):
    """An object is in an invalid state."""


class NullPointer(GraphblasException):
    pass


class InvalidValue(GraphblasException, ValueError):
    """An argument has a value that is not allowed (bad file contents, bad option, ...)."""


class InvalidIndex(GraphblasException):
    """An index specifies a location outside the dimensions of the object."""


class DomainMismatch(GraphblasException):
    """The data types of the inputs or outputs are incompatible for the operation."""


class DimensionMismatch(GraphblasException):
    """The shapes of the inputs or outputs are not compatible."""


class OutputNotEmpty(GraphblasException):
    """The output must be empty for this operation (for example ``build``)."""


class OutOfMemory(GraphblasException, MemoryError):
    """The device ran out of memory; objects involved are unchanged."""


class InsufficientSpace(GraphblasException):
    pass


class IndexOutOfBound(GraphblasException, IndexError):
    """An index falls outside the dimensions of the object."""


class Panic(GraphblasException):
    """Unknown internal error."""


class EmptyObject(GraphblasException):
    """A Scalar is empty but a value is required (for example a bound ``apply`` argument)."""


class NotImplementedException(GraphblasException):
    """The backend does not implement the operation for these inputs."""


class UdfParseError(GraphblasException):
    """A user-defined function could not be turned into an operator."""


class DeviceMismatch(GraphblasException, ValueError):
    """Operands live on different devices; graphblast never moves data silently."""


__all__ = [name for name, obj in list(globals().items()) if isinstance(obj, type)]
