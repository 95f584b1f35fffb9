"""The operator algebra: ``unary``, ``binary``, ``monoid``, ``semiring``, ``indexunary``,
``select``.

This package is also python-graphblas's combined ``op`` namespace: every unary operator,
binary operator and semiring by its name (``ops.plus`` is ``binary.plus``, ``ops.abs`` is
``unary.abs``, ``ops.min_plus`` is ``semiring.min_plus``), the SuiteSparse-specific ones also
under ``ops.ss``, and :func:`from_string` reads any operator string.
"""

from types import SimpleNamespace

from . import binary, indexunary, monoid, select, semiring, unary
from . import numpy_names  # noqa: F401  (unary.numpy, binary.numpy, ...: NumPy's names)
from .base import OpBase

for _module in (unary, binary, semiring):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)

ss = SimpleNamespace(**vars(unary.ss), **vars(binary.ss), **vars(semiring.ss))
del _module, _name
_deprecated = {}  # python-graphblas's deprecated names and delayed operators: none here
_delayed = {}


def from_string(string):
    """The operator named by ``string``, tried as a unary operator, binary operator, monoid,
    semiring, index-unary operator and select operator, in that order (python-graphblas's
    ``op.from_string``): ``"abs"``, ``"+"`` (``binary.plus``), ``"min.plus"``, ``"tril"``.

    Raises
    ------
    ValueError
        If no namespace knows the string.
    """
    for module in (unary, binary, monoid, semiring, indexunary, select):
        try:
            return module.from_string(string)
        except (ValueError, KeyError, TypeError):
            pass
    from .. import agg  # python-graphblas's op.from_string knows aggregators too

    try:
        return agg.from_string(string)
    except (ValueError, KeyError, TypeError):
        pass
    raise ValueError(f"Unknown op string: {string!r}.  Example usage: 'abs[int]'")


__all__ = ["unary", "binary", "monoid", "semiring", "indexunary", "select", "from_string",
           "ss", "OpBase"] + sorted(unary.__all__ + binary.__all__ + semiring.__all__)

# User-defined operators: ``unary.register_new(name, func)`` and friends (ops/user.py).
from . import base, user  # noqa: E402

for _kind, _module in (("unary", unary), ("binary", binary), ("indexunary", indexunary),
                       ("select", select), ("monoid", monoid), ("semiring", semiring)):
    _module.register_new, _module.register_anonymous = user.namespace_functions(_kind)
for _cls, _module in ((base.UnaryOp, unary), (base.BinaryOp, binary),
                      (base.IndexUnaryOp, indexunary), (base.SelectOp, select),
                      (base.Monoid, monoid), (base.Semiring, semiring)):
    _cls.register_new = staticmethod(_module.register_new)
    _cls.register_anonymous = staticmethod(_module.register_anonymous)
    _cls._initialize = classmethod(lambda cls: None)  # python-graphblas's; nothing to do here
del _kind, _module, _cls
