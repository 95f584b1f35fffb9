"""Built-in monoids: python-graphblas's names, SuiteSparse's identities and terminal values.

A typed monoid carries its binary operator, its ``identity``, its ``terminal`` value (None if
it has none; a reduction may stop once it reaches it) and ``np_ufunc``, a NumPy ufunc with the
monoid's exact semantics on that type for ``ufunc.reduceat(values, starts, dtype=values.dtype)``
(None where no ufunc has them).  Integer ``np.add``/``np.multiply`` wrap like C, also when
NumPy widens the accumulator, because arithmetic modulo ``2**n`` commutes with truncation.

As in python-graphblas, BOOL ``max`` and ``min`` and ``times`` are ``lor``, ``land`` and
``land`` (``monoid.max["BOOL"]`` is ``monoid.lor[BOOL]``), there is no BOOL ``plus``, the
logical monoids take every type and reduce it as BOOL (``monoid.lor["FP32"]`` is
``monoid.lor[BOOL]``), the bitwise monoids exist for the unsigned types only, and ``eq`` is the
BOOL monoid of ``binary.eq`` (equal to ``lxnor``).

=========  ======================  =================================  ======================
monoid     identity                terminal                           np_ufunc
=========  ======================  =================================  ======================
plus       0                       none                               add
times      1                       0 for integers, none for floats    multiply
min        max of type (+inf)      min of type (none for floats)      minimum (fmin)
max        min of type (-inf)      max of type (none for floats)      maximum (fmax)
any        0                       0 (any value ends the reduction)   none
lor        False                   True                               logical_or
land       True                    False                              logical_and
lxor       False                   none                               logical_xor
lxnor, eq  True                    none                               equal
bor        0                       all bits set                       bitwise_or
band       all bits set            0                                  bitwise_and
bxor       0                       none                               bitwise_xor
bxnor      all bits set            none                               none
=========  ======================  =================================  ======================
"""

from types import SimpleNamespace

import numpy as np

from ..dtypes import ALL_TYPES, BOOL, REAL_TYPES
from . import binary
from .base import Monoid, PerType, parse_op_string
from .binary import UNSIGNED_TYPES

_IMPORTS = frozenset(globals())  # this module's imports: no operators, left out of dir()


def _float_or_int(float_value, int_value):
    return PerType(lambda t: float_value if t.is_float else int_value)


def _int_limit(which):
    """The type's min or max for integer types, None (no terminal) for floats."""
    return PerType(lambda t: None if t.is_float else getattr(t, which))


plus = Monoid.define("plus", binary.plus, 0, None, np.add, types=REAL_TYPES)
times = Monoid.define("times", binary.times, 1, PerType(lambda t: None if t.is_float else 0),
                      np.multiply, types=REAL_TYPES)
# SuiteSparse gives float min/max no terminal value (only integers stop early).
min = Monoid.define("min", binary.min, PerType(lambda t: t.max), _int_limit("min"),
                    _float_or_int(np.fmin, np.minimum), types=REAL_TYPES, is_idempotent=True)
max = Monoid.define("max", binary.max, PerType(lambda t: t.min), _int_limit("max"),
                    _float_or_int(np.fmax, np.maximum), types=REAL_TYPES, is_idempotent=True)
# ``any`` may return any of its inputs; the CPU backend takes the first of each segment.
any = Monoid.define("any", binary.any, 0, 0, None, types=ALL_TYPES, is_idempotent=True)

lor = Monoid.define("lor", binary.lor, False, True, np.logical_or, types=[BOOL],
                    is_idempotent=True)
land = Monoid.define("land", binary.land, True, False, np.logical_and, types=[BOOL],
                     is_idempotent=True)
lxor = Monoid.define("lxor", binary.lxor, False, None, np.logical_xor, types=[BOOL])
lxnor = Monoid.define("lxnor", binary.lxnor, True, None, np.equal, types=[BOOL])
eq = Monoid.define("eq", binary.eq, True, None, np.equal, types=[BOOL])

bor = Monoid.define("bor", binary.bor, 0, PerType(lambda t: t.max), np.bitwise_or,
                    types=UNSIGNED_TYPES, is_idempotent=True)
band = Monoid.define("band", binary.band, PerType(lambda t: t.max), 0, np.bitwise_and,
                     types=UNSIGNED_TYPES, is_idempotent=True)
bxor = Monoid.define("bxor", binary.bxor, 0, None, np.bitwise_xor, types=UNSIGNED_TYPES)
bxnor = Monoid.define("bxnor", binary.bxnor, PerType(lambda t: t.max), None, None,
                      types=UNSIGNED_TYPES)

# python-graphblas's coercions: BOOL max/min/times are the logical monoids, and the logical
# monoids reduce every other type as BOOL.
max._typed[BOOL] = lor[BOOL]
min._typed[BOOL] = land[BOOL]
times._typed[BOOL] = land[BOOL]
for _op in (max, min, times):
    _op.coercions[BOOL] = BOOL
for _op in (lor, land, lxnor, lxor):
    _op._coerce(REAL_TYPES, BOOL)
del _op

#: python-graphblas has no SuiteSparse-specific monoids; kept for symmetry with ``binary.ss``.
ss = SimpleNamespace()

_STRINGS = {"==": eq, "+": plus, "*": times, "&": land, "|": lor, "^": lxor}


def from_string(string):
    """The monoid named by ``string`` (``"plus"``, ``"+"``, ``"min[FP32]"``).

    Raises
    ------
    ValueError
        If the string names no monoid.
    """
    return parse_op_string(string, "monoid", _STRINGS, _namespace_lookup, "+[int]")


def _namespace_lookup(name):
    op = globals().get(name)
    return op if isinstance(op, Monoid) else None


__all__ = sorted(name for name, obj in globals().items() if isinstance(obj, Monoid))


def __dir__():
    """The monoids and the namespaces (numpy, ss, register_new, ...), as python-graphblas
    lists them: every monoid name is also a binary operator's."""
    return sorted(name for name in globals() if name not in _IMPORTS)

# python-graphblas's maps of deprecated names and of operators built on first use: graphblast
# has neither (every operator is built at import)
_deprecated = {}
_delayed = {}
