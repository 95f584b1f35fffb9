"""graphblast: GraphBLAS for Python on NVIDIA GPUs, with a NumPy/SciPy CPU backend.

The API follows python-graphblas: ``Matrix``, ``Vector``, ``Scalar``, the operator namespaces
``unary``, ``binary``, ``monoid``, ``semiring``, ``indexunary``, ``select``, delayed expressions
evaluated by ``C(mask, accum, replace) << expr`` or ``expr.new()``.  graphblast adds ``device=``
on constructors and ``gb.config`` for the backend's knobs.
"""

from . import dtypes, exceptions
from .config import config
from . import ops as op
from .ops import binary, indexunary, monoid, select, semiring, unary


class _Replace:
    """``C(mask, replace) << expr``: the positional form of ``replace=True``."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "replace"


replace = _Replace()

MAX_SIZE = 2**60  # largest dimension of a Matrix or Vector


def init(backend="suitesparse", blocking=False):
    """Accepted for python-graphblas compatibility; graphblast needs no initialization."""

from .core.matrix import Matrix, TransposedMatrix  # noqa: E402
from .core.scalar import Scalar  # noqa: E402
from .core.vector import Vector  # noqa: E402
from .core.loop import repeat  # noqa: E402
from .core.ordering import pull_in_degree_order  # noqa: E402
from .backends import cuda_available, default_device  # noqa: E402


__version__ = "0.1.0"

__all__ = [
    "Matrix", "Vector", "Scalar", "TransposedMatrix", "binary", "unary", "monoid", "semiring",
    "indexunary", "select", "op", "dtypes", "exceptions", "config", "replace",
    "cuda_available", "default_device", "io", "generators", "algorithms", "init", "MAX_SIZE",
    "repeat", "pull_in_degree_order",
]


def __getattr__(name):
    # Subpackages that pull in more code are imported when first used.
    if name in ("io", "generators", "algorithms", "nx", "bench"):
        import importlib

        return importlib.import_module(f"graphblast.{name}")
    raise AttributeError(f"module 'graphblast' has no attribute {name!r}")
