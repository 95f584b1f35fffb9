"""Built-in semirings: every semiring python-graphblas offers for the real types.

A semiring ``<add>_<mult>`` multiplies with the binary operator ``mult`` and adds with the
monoid ``add``; a typed semiring is indexed by the multiplier's input type and returns the
monoid's type.  The set is SuiteSparse:GraphBLAS's built-in semirings as python-graphblas
exposes them:

- ``min``, ``max``, ``plus``, ``times``, ``any`` over ``first second pair min max plus minus
  rminus times cdiv rdiv iseq isne isgt islt isge isle lor land lxor``, for the ten non-BOOL
  types;
- ``lor``, ``land``, ``lxor``, ``eq`` (the BOOL monoid ``lxnor``), ``any`` over the comparisons
  ``eq ne gt lt ge le`` (non-BOOL inputs, BOOL result) and over ``first second pair lor land
  lxor eq gt lt ge le`` for BOOL; and ``lxnor_lor`` for BOOL;
- ``bor``, ``band``, ``bxor``, ``bxnor`` over each other for the unsigned types;
- the positional semirings (``any_secondi``, ``min_firsti``, ... also in ``semiring.ss``) for
  INT32 and INT64;
- python-graphblas's additions: ``*_truediv``, ``*_rtruediv``, ``*_floordiv``, ``*_rfloordiv``
  for the five arithmetic monoids, ``plus_pow``, ``plus_rpow``, ``plus_absfirst``,
  ``plus_abssecond``, ``max_absfirst``, ``max_abssecond``;

with python-graphblas's coercions (``semiring.lor_land["FP32"]`` is ``semiring.lor_land[BOOL]``,
``semiring.max_first["BOOL"]`` is ``semiring.lor_first[BOOL]``, ``semiring.bor_band["INT8"]`` is
``semiring.bor_band[UINT16]``, any type of a positional semiring maps to its INT64 variant).
"""

import itertools
from types import SimpleNamespace

from ..dtypes import BOOL, INT8, INT16, INT32, INT64, REAL_TYPES, UINT16, UINT32, UINT64
from . import binary, monoid
from .base import BinaryOp, Monoid, Semiring, TypedBinaryOp, TypedMonoid, parse_op_string
from .binary import POSITION_COERCED_TYPES, UNSIGNED_TYPES

_IMPORTS = frozenset(globals())  # this module's imports: no operators, left out of dir()

_ARITH_MONOIDS = ("min", "max", "plus", "times", "any")
_ARITH_MULTS = ("first", "second", "pair", "min", "max", "plus", "minus", "rminus", "times",
                "cdiv", "rdiv", "iseq", "isne", "isgt", "islt", "isge", "isle", "lor", "land",
                "lxor")
_LOGICAL_MONOIDS = ("lor", "land", "lxor", "eq", "any")
_COMPARE_MULTS = ("eq", "ne", "gt", "lt", "ge", "le")
_BOOL_MULTS = ("first", "second", "pair", "lor", "land", "lxor", "eq", "gt", "lt", "ge", "le")
_BITWISE = ("bor", "band", "bxor", "bxnor")
_POSITIONAL = ("firsti", "firsti1", "firstj", "firstj1", "secondi", "secondi1", "secondj",
               "secondj1")


def _plan():
    """``{name: (monoid, binary, types)}`` of the built-in semirings; types None means every
    input type of the multiplier whose result type the monoid has."""
    plan = {}

    def add(add_name, mult_name, types):
        name = f"{add_name}_{mult_name}"
        if name in plan and types is not None:
            types = plan[name][2] + tuple(types)
        plan[name] = (add_name, mult_name, None if types is None else tuple(types))

    for a, m in itertools.product(_ARITH_MONOIDS, _ARITH_MULTS):
        add(a, m, REAL_TYPES)
    for a, m in itertools.product(_LOGICAL_MONOIDS, _COMPARE_MULTS):
        add(a, m, REAL_TYPES)
    for a, m in itertools.product(_LOGICAL_MONOIDS, _BOOL_MULTS):
        add(a, m, [BOOL])
    add("lxnor", "lor", [BOOL])
    for a, m in itertools.product(_BITWISE, _BITWISE):
        add(a, m, UNSIGNED_TYPES)
    for a, m in itertools.product(_ARITH_MONOIDS, _POSITIONAL):
        add(a, m, [INT32, INT64])
    for a, m in itertools.product(_ARITH_MONOIDS, ("truediv", "rtruediv", "floordiv",
                                                   "rfloordiv")):
        add(a, m, None)
    for a, m in [("plus", "pow"), ("plus", "rpow"), ("plus", "absfirst"), ("max", "absfirst"),
                 ("plus", "abssecond"), ("max", "abssecond")]:
        add(a, m, None)
    return plan


def _build(name, add_name, mult_name, types):
    add_op = getattr(monoid, add_name)
    mult_op = getattr(binary, mult_name)
    op = Semiring.define(name, add_op, mult_op, types=types)
    missing = [t for t in (types or ()) if t not in op._typed]
    if missing:  # a catalogue error, caught at import
        raise AssertionError(f"semiring.{name} lacks {missing}")
    return op


for _name, (_add, _mult, _types) in _plan().items():
    globals()[_name] = _build(_name, _add, _mult, _types)


def _has(name):
    return isinstance(globals().get(name), Semiring)


# python-graphblas's coercions, in its order.
for _add in ("any", "eq", "land", "lor", "lxnor", "lxor"):
    # BOOL ``ne`` is ``lxor``.
    if _has(f"{_add}_ne") and BOOL not in globals()[f"{_add}_ne"]._typed:
        _target = globals()[f"{_add}_ne"]
        _target._typed[BOOL] = globals()[f"{_add}_lxor"][BOOL]
        _target.coercions[BOOL] = BOOL

_NOT_BOOL = REAL_TYPES  # the ten types other than BOOL
for _adds, _mults, _rules in [
    (_ARITH_MONOIDS, _POSITIONAL, [(POSITION_COERCED_TYPES, INT64)]),
    (("eq", "land", "lor", "lxnor", "lxor"), ("first", "pair", "second"), [(_NOT_BOOL, BOOL)]),
    (_BITWISE, _BITWISE, [([INT8], UINT16), ([INT16], UINT32), ([INT32], UINT64),
                          ([INT64], UINT64)]),
    (("any", "eq", "land", "lor", "lxnor", "lxor"), ("eq", "land", "lor", "lxnor", "lxor", "ne"),
     [(_NOT_BOOL, BOOL)]),
]:
    for _add, _mult in itertools.product(_adds, _mults):
        if _has(f"{_add}_{_mult}"):
            for _from, _to in _rules:
                globals()[f"{_add}_{_mult}"]._coerce(_from, _to)

# BOOL max/min are lor/land, so e.g. ``max_first[BOOL]`` is ``lor_first[BOOL]``.
for _add, _target in [("max", "lor"), ("min", "land")]:
    for _mult in ("first", "second", "land", "lor", "lxor"):
        _op = globals()[f"{_add}_{_mult}"]
        _op._typed[BOOL] = globals()[f"{_target}_{_mult}"][BOOL]
        _op.coercions[BOOL] = BOOL

del _name, _add, _mult, _types, _target, _adds, _mults, _rules, _from, _to, _op

#: SuiteSparse's positional semirings, also at the top level (python-graphblas's
#: ``semiring.ss``).
ss = SimpleNamespace(**{f"{a}_{m}": globals()[f"{a}_{m}"]
                        for a, m in itertools.product(_ARITH_MONOIDS, _POSITIONAL)})

# Semirings that ``get_semiring`` builds on request (``semiring.from_string("max.pow")``);
# reachable as module attributes once built, as in python-graphblas.
_built = {}


def __getattr__(name):
    try:
        return _built[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def get_semiring(add, mult, name=None):
    """The semiring of the monoid ``add`` and the binary operator ``mult``.

    Returns the built-in semiring ``<add>_<mult>`` where there is one, else builds it (once).
    If ``mult`` (or else ``add``) is typed, returns the typed semiring of that type.

    Raises
    ------
    TypeError
        If ``add`` is not a Monoid or ``mult`` not a BinaryOp.
    """
    add_type = mult_type = None
    if isinstance(add, TypedMonoid):
        add, add_type = add.parent, add.type
    if isinstance(mult, TypedBinaryOp):
        mult, mult_type = mult.parent, mult.type
    elif isinstance(mult, TypedMonoid):
        mult, mult_type = mult.parent, mult.type
    switched = False
    if isinstance(add, BinaryOp) and add.monoid is not None:
        # python-graphblas is forgiving: a binary operator with a monoid stands for it
        add, switched = add.monoid, True
    if not isinstance(add, Monoid):
        raise TypeError(f"Expected a Monoid for the monoid argument.  Got type: {type(add)}")
    if isinstance(mult, Monoid):
        if switched:
            raise TypeError(
                "Got a BinaryOp for the monoid argument and a Monoid for the binaryop argument.  "
                "Are the arguments switched?  Hint: you can do `mymonoid.binaryop` to get the "
                "binaryop from a monoid.")
        mult = mult.binaryop
    if not isinstance(mult, BinaryOp):
        raise TypeError(
            f"Expected a BinaryOp for the binaryop argument.  Got type: {type(mult)}")
    canonical = f"{add.name}_{mult.name}".replace(".", "_")
    op = globals().get(canonical) if _has(canonical) else _built.get(canonical)
    if op is None or op.monoid is not add or op.binaryop is not mult:
        if add.is_udf or mult.is_udf:
            from .user import _build_semiring

            built = _build_semiring(name or canonical, add, mult, True)
        else:
            built = Semiring.define(name or canonical, add, mult)
        op = _built[canonical] = built
    if mult_type is not None:
        return op[mult_type]
    if add_type is not None:
        return op[add_type]
    return op


def from_string(string):
    """The semiring named by ``string``: ``"min_plus"``, or a monoid and a binary operator
    separated by one period (``"min.plus"``, ``"+.*"``, ``"min.+[FP32]"``).

    Raises
    ------
    ValueError
        If the string names no semiring.
    """
    if not isinstance(string, str):
        raise TypeError(f"Expected a str naming a semiring, got {type(string).__name__}")
    split = string.split(".")
    if len(split) == 1:
        try:
            return parse_op_string(string, "semiring", {}, _namespace_lookup, "min.+[int]")
        except (ValueError, KeyError):
            pass
    if len(split) != 2:
        raise ValueError(
            f"Bad semiring string: {string!r}.  The monoid and binaryop should be separated by "
            'exactly one period, ".".  Example usage: min.+[int]')
    return get_semiring(monoid.from_string(split[0]), binary.from_string(split[1]))


def _namespace_lookup(name):
    op = globals().get(name)
    if isinstance(op, Semiring):
        return op
    return _built.get(name)


__all__ = sorted(name for name, obj in globals().items() if isinstance(obj, Semiring))


def __dir__():
    """The semirings and the namespaces, as python-graphblas lists them (not the imports)."""
    return sorted(name for name in globals() if name not in _IMPORTS)

# python-graphblas's maps of deprecated names and of operators built on first use: graphblast
# has neither (every operator is built at import)
_deprecated = {}
_delayed = {}
