"""Built-in unary operators: ``z = f(x)``, python-graphblas's names, SuiteSparse's semantics.

Every operator of ``graphblas.unary`` (and ``graphblas.unary.ss``) for the real types, with the
types python-graphblas gives it.  The float functions (``sqrt``, ``exp``, ``sin``, ...) exist
for FP32 and FP64; python-graphblas maps BOOL, INT8, INT16, UINT8 and UINT16 inputs to the FP32
variant and the wider integers to the FP64 one (``unary.sqrt["INT8"]`` is
``unary.sqrt[FP32]``; the backend casts the input to the operator's ``type``).

Corners, as SuiteSparse:GraphBLAS 9:

- ``ainv`` and ``abs`` wrap on integers (``abs(INT8 -128)`` is -128; both are the identity on
  unsigned types and BOOL); ``minv`` on integers is ``cdiv(1, x)`` (``1/0`` is the max of the
  type), and on BOOL it is always true;
- ``lnot`` on non-BOOL types is 1 where ``x == 0`` else 0, in the type;
- ``round`` rounds half away from zero (C's ``round``, not NumPy's half-to-even);
- ``signum`` is -1, 0 or 1 (``+0`` for ``-0.0``) and NaN for NaN;
- ``frexpx``/``frexpe`` are the mantissa and exponent of C's ``frexp`` (the exponent as a float;
  0 for zero, infinity and NaN);
- ``lgamma`` is ``log|gamma(x)|`` (+inf at the poles and at both infinities).

The positional operators (``positioni``, ``positioni1``, ``positionj``, ``positionj1``) give the
row or column index of each entry: ``position`` is ``(axis, offset)``, the backend computes
the index and their CUDA expression is in ``i`` and ``j`` (int64).
"""

from types import SimpleNamespace

import numpy as np

from ..dtypes import ALL_TYPES, BOOL, FLOAT_TYPES, FP32, FP64, INT32, INT64, INT_TYPES
from .base import PerType, UnaryOp, parse_op_string
from .binary import (
    POSITION_COERCED_TYPES, TO_FP32_TYPES, TO_FP64_TYPES, idiv, quiet,
)


def _c(t):
    return t.c_type


def _float_fn(name, t):
    return f"{name}f" if t is FP32 else name


def _define(name, np_factory, cuda_factory, types, return_type=None, position=None):
    """Define ``unary.<name>`` from per-type factories of the NumPy function and expression."""
    return UnaryOp.define(name, PerType(lambda t: quiet(np_factory(t))), PerType(cuda_factory),
                          types=types, return_type=return_type, position=position)


def _round(x):
    """C's ``round``: half away from zero; exact (``x - trunc(x)`` has no rounding error)."""
    r = np.trunc(x)
    frac = x - r  # NaN for +-inf: the comparison below is then False and r stays inf
    return np.where(np.abs(frac) >= 0.5, r + np.copysign(np.asarray(1, x.dtype), x), r)


def _signum(x):
    z = (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)  # +0 for -0.0, as SuiteSparse
    return np.where(np.isnan(x), x, z)


def _lgamma(x):
    from scipy.special import gammaln

    # C's lgamma is +inf at -inf (SciPy's gammaln: -inf), and -log|x| for tiny x, where
    # SciPy overflows on subnormals (1/x): the next term, -0.577 x, is below an ulp there.
    tiny = np.abs(x) < 2.0**-60
    z = np.where(tiny, -np.log(np.abs(np.where(tiny, x, 1))), gammaln(x))
    return np.where(np.isinf(x), np.asarray(np.inf, x.dtype), z).astype(x.dtype)


def _tgamma(x):
    from scipy.special import gamma

    x = np.asarray(x)
    z = np.asarray(gamma(x)).astype(x.dtype)
    # Below about -170.6, Gamma(1 - x) overflows a double and SciPy's reflection formula gives
    # 0, while C's tgamma still has (subnormal) values: compute pi / (sin(pi x) Gamma(1 - x))
    # dividing by the factors of Gamma(1 - x) one at a time, so nothing overflows.
    far = (x < -170.5) & (x != np.round(x)) & np.isfinite(x)
    if np.any(far):
        xf = x[far].astype(np.float64)
        n = np.round(xf)
        sin_pi_x = np.sin(np.pi * (xf - n)) * np.where(n % 2 == 0, 1.0, -1.0)
        y = 1.0 - xf  # exact: x has no bits below 2**-45 here
        steps = np.ceil(y - 170.0)
        y0 = y - steps  # in (169, 170]: Gamma(y0) is finite
        zf = np.pi / sin_pi_x / gamma(y0)
        for i in range(int(steps.max())):
            zf = np.where(i < steps, zf / (y0 + i), zf)
        z[far] = zf
    return z


def _erf(x):
    from scipy.special import erf

    return erf(x).astype(x.dtype, copy=False)


def _erfc(x):
    from scipy.special import erfc, erfcx

    x = np.asarray(x)
    z = np.asarray(erfc(x)).astype(x.dtype)
    # SciPy's erfc underflows to 0 where C's still has subnormal values (FP64, x in about
    # 26.6..27.3): there use the scaled erfcx, exp(log(erfcx(x)) - x*x), whose one rounding
    # is far below the subnormal spacing.
    small = (z < np.finfo(x.dtype).tiny) & (x > 0)
    if np.any(small):
        xd = x[small].astype(np.float64)
        z[small] = np.exp(np.log(erfcx(xd)) - xd * xd).astype(x.dtype)
    return z


# ----- value and sign -----

identity = _define("identity", lambda t: lambda x: x, lambda t: "x", ALL_TYPES)
one = _define("one", lambda t: lambda x: np.ones(np.shape(x), t.np_type), lambda t: "1",
              ALL_TYPES)
abs = _define(
    "abs",
    lambda t: np.abs if (t.is_signed and not t.is_bool) else (lambda x: x),
    lambda t: (_float_fn("fabs", t) + "(x)" if t.is_float
               else f"gb_abs<{_c(t)}>(x)" if t.is_signed and not t.is_bool else "x"),
    ALL_TYPES)
ainv = _define(
    "ainv",
    lambda t: (lambda x: x) if t.is_bool else np.negative,
    lambda t: "x" if t.is_bool else "-x" if t.is_float else f"gb_neg<{_c(t)}>(x)",
    ALL_TYPES)
minv = _define(
    "minv",
    lambda t: (lambda x: np.ones(np.shape(x), bool)) if t.is_bool
    else (lambda x: idiv(1, x, t)) if t.is_int
    else (lambda x: np.divide(1, x, dtype=t.np_type)),
    lambda t: "true" if t.is_bool
    else f"gb_idiv_{'s' if t.is_signed else 'u'}<{_c(t)}>(1, x)" if t.is_int
    else f"({_c(t)})1 / x",
    ALL_TYPES)
lnot = _define(
    "lnot",
    lambda t: np.logical_not if t.is_bool else (lambda x: (x == 0).astype(t.np_type)),
    lambda t: "!x" if t.is_bool else "x == 0",
    ALL_TYPES)
bnot = _define("bnot", lambda t: np.invert, lambda t: "~x", INT_TYPES)

# ----- float functions (integers and BOOL computed in FP32 or FP64) -----

_FLOAT_FUNCTIONS = {
    # name: (NumPy function, C function)
    "acos": (np.arccos, "acos"), "acosh": (np.arccosh, "acosh"),
    "asin": (np.arcsin, "asin"), "asinh": (np.arcsinh, "asinh"),
    "atan": (np.arctan, "atan"), "atanh": (np.arctanh, "atanh"),
    "cbrt": (np.cbrt, "cbrt"), "ceil": (np.ceil, "ceil"), "cos": (np.cos, "cos"),
    "cosh": (np.cosh, "cosh"), "erf": (_erf, "erf"), "erfc": (_erfc, "erfc"),
    "exp": (np.exp, "exp"), "exp2": (np.exp2, "exp2"), "expm1": (np.expm1, "expm1"),
    "floor": (np.floor, "floor"), "lgamma": (_lgamma, "lgamma"), "log": (np.log, "log"),
    "log10": (np.log10, "log10"), "log1p": (np.log1p, "log1p"), "log2": (np.log2, "log2"),
    "round": (_round, "round"), "signum": (_signum, None), "sin": (np.sin, "sin"),
    "sinh": (np.sinh, "sinh"), "sqrt": (np.sqrt, "sqrt"), "tan": (np.tan, "tan"),
    "tanh": (np.tanh, "tanh"), "tgamma": (_tgamma, "tgamma"), "trunc": (np.trunc, "trunc"),
}
for _name, (_np, _cname) in _FLOAT_FUNCTIONS.items():
    _op = _define(
        _name, lambda t, f=_np: f,
        lambda t, c=_cname: f"{_float_fn(c, t)}(x)" if c else "gb_signum(x)",
        FLOAT_TYPES)
    _op._coerce(TO_FP32_TYPES, FP32)
    _op._coerce(TO_FP64_TYPES, FP64)
    globals()[_name] = _op

frexpx = _define("frexpx", lambda t: lambda x: np.frexp(x)[0], lambda t: "gb_frexpx(x)",
                 FLOAT_TYPES)
frexpe = _define("frexpe", lambda t: lambda x: np.frexp(x)[1].astype(t.np_type),
                 lambda t: "gb_frexpe(x)", FLOAT_TYPES)
isinf = _define("isinf", lambda t: np.isinf, lambda t: "gb_isinf(x)", FLOAT_TYPES,
                return_type=BOOL)
isnan = _define("isnan", lambda t: np.isnan, lambda t: "gb_isnan(x)", FLOAT_TYPES,
                return_type=BOOL)
isfinite = _define("isfinite", lambda t: np.isfinite, lambda t: "gb_isfinite(x)", FLOAT_TYPES,
                   return_type=BOOL)


# ----- positional (SuiteSparse; also in ``unary.ss``) -----

def _positional_np_func(name):
    def np_func(x):
        raise TypeError(
            f"unary.{name} is positional: its value is an index of the entry, which the "
            "backend computes from the operator's `position`; it has no value function."
        )
    return np_func


_POSITIONAL = {
    "positioni": ("i", 0, "i"), "positioni1": ("i", 1, "i + 1"),
    "positionj": ("j", 0, "j"), "positionj1": ("j", 1, "j + 1"),
}
for _name, (_axis, _offset, _expr) in _POSITIONAL.items():
    _op = _define(_name, lambda t, n=_name: _positional_np_func(n), lambda t, e=_expr: e,
                  [INT32, INT64], position=(_axis, _offset))
    _op._coerce(POSITION_COERCED_TYPES, INT64)
    globals()[_name] = _op

del _name, _np, _cname, _op, _axis, _offset, _expr

#: SuiteSparse-specific operators, also at the top level (python-graphblas's ``unary.ss``).
ss = SimpleNamespace(**{name: globals()[name] for name in (
    "erf", "erfc", "frexpe", "frexpx", "lgamma", "positioni", "positioni1", "positionj",
    "positionj1", "tgamma")})

_STRINGS = {"-": ainv, "~": lnot}


def from_string(string):
    """The unary operator named by ``string`` (``"abs"``, ``"-"``, ``"abs[int]"``).

    Raises
    ------
    ValueError
        If the string names no unary operator.
    """
    return parse_op_string(string, "unary", _STRINGS, _namespace_lookup, "abs[int]")


def _namespace_lookup(name):
    op = globals().get(name)
    if isinstance(op, UnaryOp):
        return op
    if name.startswith("ss.") and hasattr(ss, name[3:]):
        return getattr(ss, name[3:])
    return None


__all__ = sorted(name for name, obj in globals().items() if isinstance(obj, UnaryOp))

# python-graphblas's maps of deprecated names and of operators built on first use: graphblast
# has neither (every operator is built at import)
_deprecated = {}
_delayed = {}
