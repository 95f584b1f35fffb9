"""Built-in binary operators: ``z = f(x, y)``, python-graphblas's names, SuiteSparse's semantics.

Every operator of ``graphblas.binary`` (and ``graphblas.binary.ss``) for the real types is here,
with the types python-graphblas gives it.  Each typed operator has a NumPy function (the CPU
backend) and a CUDA expression in ``x`` and ``y`` (compiled by ``backends/cuda/codegen.py``
with the helpers of ``backends/cuda/kernels/operators.cuh``).

The corners follow SuiteSparse:GraphBLAS 9, bit for bit:

- integer arithmetic wraps (two's complement); ``cdiv``/``rdiv`` truncate toward zero and
  define division by zero: ``0/0 = 0``, ``x/0`` is the type's max for ``x > 0`` and its min for
  ``x < 0`` (0 and max for unsigned types); ``MIN / -1`` wraps to ``MIN``;
- on BOOL, ``plus``/``max``/``lor`` are or, ``times``/``min``/``land`` are and, ``minus``,
  ``rminus`` and ``ne`` are xor, ``cdiv`` is ``first``, ``rdiv`` is ``second``, ``pow`` is
  ``x or not y``;
- float ``min``/``max`` ignore NaN (C's ``fmin``/``fmax``);
- ``pow`` is NaN when an operand is NaN, else 1 when ``y == 0``, else C's ``pow``; on integers
  it is computed in double and cast back with saturation (NaN becomes 0);
- ``lor``/``land``/``lxor`` and ``iseq`` ... ``isle`` on non-BOOL types give 1 or 0 in that
  type; ``eq`` ... ``le`` give BOOL;
- ``any`` returns ``y`` (as SuiteSparse does), ``pair`` returns 1;
- ``bshift`` takes its shift as int8 (a UINT8 ``y`` of 255 shifts right by one), shifts right
  arithmetically for signed types, and is 0 (or -1 for a negative signed ``x`` shifted right)
  once the shift reaches the width; ``bget``/``bset``/``bclr`` number bits from 1 and leave
  ``x`` alone (``bget``: 0) for a bit position outside ``1..width``;
- ``ldexp`` converts its float exponent like x86's ``(int)`` cast: truncation, and INT_MIN for
  NaN or a value outside the int range (SuiteSparse's own behaviour on x86-64).

python-graphblas adds ``truediv``/``rtruediv`` (always floating point), ``floordiv``/
``rfloordiv``, ``rpow``, ``absfirst``/``abssecond``, ``binom`` and the parameterized
``isclose(rel_tol=1e-7, abs_tol=0.0)`` as numba functions; their
semantics here are those of that numba code where it is defined.  Where it is not (numba raises
on integer ``floordiv`` by zero and leaves the output undefined), graphblast defines it:
``floordiv(x, 0)`` on integers is ``cdiv(x, 0)`` (0, max or min), ``MIN // -1`` wraps to
``MIN`` on every width, ``rpow`` of an integer zero base and a negative exponent is 0, and
integer ``rpow`` is exact for every exponent: modular exponentiation for a non-negative one,
0 for a negative one except for the bases 1 and -1 (numba switches to a float computation
beyond an exponent of 65536 in magnitude, whose integer conversion is undefined).

Positional operators (``firsti`` ... ``secondj1``) return an index of an entry: ``position`` is
``(side, axis, offset)``; their NumPy function is never called (the backend computes the index)
and their CUDA expression is in ``ai, aj`` (row and column of the first operand's entry) and
``bi, bj`` (of the second's): in ``mxm`` ``A(i,k) * B(k,j)`` is ``(i, k, k, j)``, in an
element-wise operation ``(i, j, i, j)``.
"""

import functools
from types import SimpleNamespace

import numpy as np

from ..dtypes import (
    ALL_TYPES, BOOL, FLOAT_TYPES, FP32, FP64, INT8, INT16, INT32, INT64, INT_TYPES, REAL_TYPES,
    UINT8, UINT16, UINT32, UINT64, cast,
)
from .base import BinaryOp, PerType, TypedBinaryOp, parse_op_string

UNSIGNED_TYPES = (UINT8, UINT16, UINT32, UINT64)
# python-graphblas computes the float functions of small integer types in FP32, else in FP64.
TO_FP32_TYPES = (BOOL, INT8, INT16, UINT8, UINT16)
TO_FP64_TYPES = (INT32, INT64, UINT32, UINT64)
# Types that python-graphblas maps to the INT64 variant of a positional operator.
POSITION_COERCED_TYPES = (BOOL, FP32, FP64, INT8, INT16, UINT8, UINT16, UINT32, UINT64)


# ---------------------------------------------------------------------------------------------
# NumPy kernels shared by the catalogue (unary.py imports some of them).
# All take arrays (or NumPy scalars) of the operator's input type and broadcast like ufuncs.
# ---------------------------------------------------------------------------------------------

def quiet(func):
    """Run ``func`` with NumPy's floating-point and overflow warnings off.

    Overflow, division by zero and NaN are defined results of GraphBLAS operators, not errors.
    """
    @functools.wraps(func)
    def wrapper(*args):
        with np.errstate(all="ignore"):
            return func(*args)
    return wrapper


def full_like_broadcast(x, y, value, dtype):
    """An array of ``value`` with the broadcast shape of ``x`` and ``y``."""
    return np.full(np.broadcast_shapes(np.shape(x), np.shape(y)), value, dtype=dtype)


def _broadcast_first(x, y):
    """``x`` with the broadcast shape of ``x`` and ``y`` (a writeable array, not a view, when
    ``x`` is the scalar side)."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    return x if np.shape(x) == shape else np.broadcast_to(x, shape).copy()


def idiv(x, y, dtype):
    """Integer division with SuiteSparse's rules: truncation toward zero, ``x/0`` saturates
    (``0/0 = 0``), ``MIN / -1`` wraps to ``MIN``."""
    x = np.asarray(x, dtype.np_type)
    y = np.asarray(y, dtype.np_type)
    zero = y == 0
    if dtype.is_signed:
        minus_one = y == -1
        safe = np.where(zero | minus_one, 1, y).astype(dtype.np_type)
        # x - fmod(x, y) is an exact multiple of y, so floor division of it truncates.
        q = np.floor_divide(x - np.fmod(x, safe), safe)
        q = np.where(minus_one, np.negative(x), q)
        by_zero = np.where(x > 0, dtype.max, np.where(x < 0, dtype.min, 0))
    else:
        safe = np.where(zero, 1, y).astype(dtype.np_type)
        q = np.floor_divide(x, safe)
        by_zero = np.where(x > 0, dtype.max, 0)
    return np.where(zero, by_zero, q).astype(dtype.np_type, copy=False)


def ifloordiv(x, y, dtype):
    """Floor division of integers (Python's ``//``), with ``x // 0`` defined as ``cdiv``'s."""
    x = np.asarray(x, dtype.np_type)
    y = np.asarray(y, dtype.np_type)
    q = idiv(x, y, dtype)
    if dtype.is_signed:
        # Truncation differs from floor when the division is inexact and the signs differ.
        safe = np.where((y == 0) | (y == -1), 1, y).astype(dtype.np_type)
        inexact = (np.fmod(x, safe) != 0) & ((x < 0) != (y < 0)) & (y != 0)
        q = np.where(inexact, q - np.asarray(1, dtype.np_type), q)
    return q.astype(dtype.np_type, copy=False)


def gb_pow(x, y):
    """SuiteSparse's ``GB_pow``: NaN if an operand is NaN, else 1 if ``y == 0``, else C pow."""
    z = np.power(x, y)
    z = np.where(y == 0, np.asarray(1, z.dtype), z)
    return np.where(np.isnan(x) | np.isnan(y), np.asarray(np.nan, z.dtype), z)


def int_pow(x, y, dtype):
    """``pow`` on integers as SuiteSparse defines it: ``pow((double) x, (double) y)`` cast back
    with saturation.  NumPy's float64 power is the C library's, as SuiteSparse's is, so this is
    bit-exact with it; the CUDA helper ``gb_int_pow_*`` computes exactly instead (CUDA's pow is
    only faithful), which differs only where an integer power above 2**53 falls exactly halfway
    between two doubles and the C library rounds it the other way."""
    return cast(gb_pow(np.asarray(x, np.float64), np.asarray(y, np.float64)), dtype)


def wrapping_pow(base, exponent, dtype):
    """``base ** exponent`` in the integer type's wrapping arithmetic (numba's integer power).

    A negative exponent gives 0, except for a base of 1 (1) or -1 (+-1 by parity).
    """
    base = np.asarray(base, dtype.np_type)
    exponent = np.asarray(exponent, dtype.np_type)
    base, exponent = np.broadcast_arrays(base, exponent)
    # Multiplication modulo 2**64 commutes with truncation to the type, so square and multiply
    # in uint64 and truncate at the end.
    b = base.astype(np.int64).astype(np.uint64) if dtype.is_signed else base.astype(np.uint64)
    e = np.where(exponent > 0, exponent, 0).astype(np.uint64)
    z = np.ones(b.shape, np.uint64)
    one = np.uint64(1)
    while np.any(e):
        z = np.where((e & one) == one, z * b, z)
        b = b * b
        e = e >> one
    z = z.astype(dtype.np_type)
    if dtype.is_signed:
        negative = exponent < 0
        odd = (exponent & 1) == 1
        by_sign = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0))
        z = np.where(negative, by_sign, z).astype(dtype.np_type)
    return z


def ieee_remainder(x, y):
    """C's ``remainder``: ``x - n*y`` with ``n`` the integer nearest ``x/y`` (ties to even).

    NumPy's ``remainder`` is Python's modulo, not this.  Computed exactly from ``fmod``.
    """
    x = np.asarray(x)
    y = np.asarray(y, x.dtype)
    p = np.abs(y)
    finfo = np.finfo(x.dtype)
    # Reduce modulo 2p first (exact), which keeps the parity of the quotient.
    two_p = p + p
    r = np.where(np.isfinite(two_p), np.fmod(x, np.where(np.isfinite(two_p), two_p, 1)), x)
    a = np.abs(r)
    tiny = p < 2 * finfo.tiny  # p/2 would lose bits: compare 2a with p instead
    half = 0.5 * p
    over = np.where(tiny, a + a > p, a > half)
    a = np.where(over, a - p, a)
    over2 = over & np.where(tiny, a + a >= p, a >= half)
    a = np.where(over2, a - p, a)
    z = np.where(np.signbit(x), -a, a)
    z = np.where(np.isinf(y) & np.isfinite(x), x, z)
    bad = np.isnan(x) | np.isnan(y) | np.isinf(x) | (y == 0)
    return np.where(bad, np.asarray(np.nan, x.dtype), z).astype(x.dtype, copy=False)


def x86_int_exponent(y):
    """The int32 that x86's ``(int) y`` gives: truncation, INT_MIN for NaN or out of range."""
    y = np.asarray(y)
    ok = (y > -2147483649.0) & (y < 2147483648.0)
    return np.where(ok, np.trunc(np.where(ok, y, 0)), -2147483648).astype(np.int32)


def _bshift(x, y, dtype):
    bits = dtype.np_type.itemsize * 8
    x = np.asarray(x, dtype.np_type)
    k = np.asarray(y).astype(np.int8)  # SuiteSparse's shift operand is int8 (wraps)
    kk = np.clip(k, -(bits - 1), bits - 1).astype(dtype.np_type)
    left = np.left_shift(x, np.where(k > 0, kk, 0).astype(dtype.np_type))
    right = np.right_shift(x, np.where(k < 0, -kk, 0).astype(dtype.np_type))
    z = np.where(k > 0, left, right)
    if dtype.is_signed:
        beyond_right = np.where(x < 0, -1, 0).astype(dtype.np_type)
    else:
        beyond_right = np.zeros((), dtype.np_type)
    z = np.where(k >= bits, 0, np.where(k <= -bits, beyond_right, z))
    return z.astype(dtype.np_type, copy=False)


def _bit_mask(y, dtype):
    """``(1 << (y - 1), in range)`` for SuiteSparse's 1-based bit positions."""
    bits = dtype.np_type.itemsize * 8
    y = np.asarray(y, dtype.np_type)
    ok = (y >= 1) & (y <= bits)
    shift = np.where(ok, y - np.asarray(1, dtype.np_type), 0).astype(dtype.np_type)
    return np.left_shift(np.asarray(1, dtype.np_type), shift), ok


def _bget(x, y, dtype):
    mask, ok = _bit_mask(y, dtype)
    return np.where(ok & ((x & mask) != 0), 1, 0).astype(dtype.np_type)


def _bset(x, y, dtype):
    mask, ok = _bit_mask(y, dtype)
    return np.where(ok, x | mask, x).astype(dtype.np_type)


def _bclr(x, y, dtype):
    mask, ok = _bit_mask(y, dtype)
    return np.where(ok, x & ~mask, x).astype(dtype.np_type)


_INT64_MAX = np.iinfo(np.int64).max


def _binom(n, k):
    """python-graphblas's ``binom``: C(n, k) in int64, 0 when ``k`` is outside ``0..n`` or the
    computation overflows."""
    n, k = np.broadcast_arrays(np.asarray(n, np.int64), np.asarray(k, np.int64))
    valid = (k >= 0) & (k <= n)
    steps = np.where(valid, np.minimum(k, n - k), 0)
    val = np.ones(n.shape, np.int64)
    i = 0
    # Each step multiplies by (n - i) and divides by (i + 1), so val never shrinks below 1 and
    # the overflow test ends the loop after at most about 64 steps.
    active = valid & (steps > i)
    while np.any(active):
        factor = np.where(active, n - i, 1)
        overflow = active & (val > _INT64_MAX // factor)
        valid &= ~overflow
        active &= ~overflow
        val = np.where(active, val * factor // (i + 1), val)
        i += 1
        active = valid & (steps > i)
    return np.where(valid, val, 0)


def _abs(x, dtype):
    return x if (dtype.is_bool or not dtype.is_signed) else np.abs(x)


def _positional_np_func(name):
    def np_func(x, y):
        raise TypeError(
            f"binary.{name} is positional: its value is an index of the entry, which the "
            "backend computes from the operator's `position`; it has no value function."
        )
    return np_func


# ---------------------------------------------------------------------------------------------
# CUDA expressions: strings in x and y, cast to the return type by the generated functor.
# ---------------------------------------------------------------------------------------------

def _c(t):
    return t.c_type


def _float_fn(name, t):
    """The C math function ``name`` for the float type ``t`` (``sinf`` or ``sin``)."""
    return f"{name}f" if t is FP32 else name


def _define(name, np_factory, cuda_factory, types, return_type=None, is_commutative=False,
            position=None):
    """Define ``binary.<name>`` from per-type factories of the NumPy function and expression."""
    return BinaryOp.define(
        name,
        PerType(lambda t: quiet(np_factory(t))),
        PerType(cuda_factory),
        types=types,
        return_type=return_type,
        position=position,
        is_commutative=is_commutative,
    )


def _arith(name, bool_np, bool_c, int_np, int_c, float_np, float_c, is_commutative=False,
           types=ALL_TYPES):
    """An operator whose definition differs between BOOL, integers and floats."""
    def np_factory(t):
        return bool_np if t.is_bool else int_np(t) if t.is_int else float_np(t)

    def cuda_factory(t):
        return bool_c if t.is_bool else int_c(t) if t.is_int else float_c(t)

    return _define(name, np_factory, cuda_factory, types, is_commutative=is_commutative)


# ----- selection and constants -----

first = _define("first", lambda t: _broadcast_first, lambda t: "x", ALL_TYPES)
second = _define("second", lambda t: lambda x, y: _broadcast_first(y, x), lambda t: "y",
                 ALL_TYPES)
# SuiteSparse's ANY returns y; any value of the two would be correct.
any = _define("any", lambda t: lambda x, y: _broadcast_first(y, x), lambda t: "y", ALL_TYPES,
              is_commutative=True)
pair = _define("pair", lambda t: lambda x, y: full_like_broadcast(x, y, 1, t.np_type),
               lambda t: "1", ALL_TYPES, is_commutative=True)
# python-graphblas: pair of two different types is INT64.
pair.custom_dtype = lambda op, type1, type2: op[INT64]

# ----- min, max and arithmetic -----

min = _arith(
    "min", np.logical_and, "x && y",
    lambda t: np.minimum, lambda t: "(x < y) ? x : y",
    lambda t: np.fmin, lambda t: _float_fn("fmin", t) + "(x, y)", is_commutative=True)
max = _arith(
    "max", np.logical_or, "x || y",
    lambda t: np.maximum, lambda t: "(x > y) ? x : y",
    lambda t: np.fmax, lambda t: _float_fn("fmax", t) + "(x, y)", is_commutative=True)
plus = _arith(
    "plus", np.logical_or, "x || y",
    lambda t: np.add, lambda t: f"gb_add<{_c(t)}>(x, y)",
    lambda t: np.add, lambda t: "x + y", is_commutative=True)
minus = _arith(
    "minus", np.not_equal, "x != y",
    lambda t: np.subtract, lambda t: f"gb_sub<{_c(t)}>(x, y)",
    lambda t: np.subtract, lambda t: "x - y")
rminus = _arith(
    "rminus", np.not_equal, "x != y",
    lambda t: lambda x, y: np.subtract(y, x), lambda t: f"gb_sub<{_c(t)}>(y, x)",
    lambda t: lambda x, y: np.subtract(y, x), lambda t: "y - x")
times = _arith(
    "times", np.logical_and, "x && y",
    lambda t: np.multiply, lambda t: f"gb_mul<{_c(t)}>(x, y)",
    lambda t: np.multiply, lambda t: "x * y", is_commutative=True)


def _idiv_c(t, a, b):
    return f"gb_idiv_{'s' if t.is_signed else 'u'}<{_c(t)}>({a}, {b})"


cdiv = _arith(
    "cdiv", _broadcast_first, "x",
    lambda t: lambda x, y: idiv(x, y, t), lambda t: _idiv_c(t, "x", "y"),
    lambda t: np.divide, lambda t: "x / y")
rdiv = _arith(
    "rdiv", lambda x, y: _broadcast_first(y, x), "y",
    lambda t: lambda x, y: idiv(y, x, t), lambda t: _idiv_c(t, "y", "x"),
    lambda t: lambda x, y: np.divide(y, x), lambda t: "y / x")


def _truediv_type(t):
    return FP32 if t is FP32 else FP64


def _truediv_np(t, swap):
    ft = _truediv_type(t).np_type

    def truediv(x, y):
        a = np.asarray(x, ft)
        b = np.asarray(y, ft)
        return np.divide(b, a) if swap else np.divide(a, b)
    return truediv


def _truediv_c(t, swap):
    ct = _c(_truediv_type(t))
    a, b = ("y", "x") if swap else ("x", "y")
    return f"({ct}){a} / ({ct}){b}"


# python-graphblas: always floating point (FP32 stays FP32, everything else is done in FP64).
truediv = _define("truediv", lambda t: _truediv_np(t, False), lambda t: _truediv_c(t, False),
                  ALL_TYPES, return_type=_truediv_type)
rtruediv = _define("rtruediv", lambda t: _truediv_np(t, True), lambda t: _truediv_c(t, True),
                   ALL_TYPES, return_type=_truediv_type)


def _floordiv_np(t, swap):
    def order(f):
        return (lambda x, y: f(y, x)) if swap else f
    if t.is_bool:
        # numba computes BOOL // BOOL in int8, and python-graphblas keeps INT8.
        return order(lambda x, y: ifloordiv(np.asarray(x, np.int8), np.asarray(y, np.int8),
                                            INT8))
    if t.is_int:
        return order(lambda x, y: ifloordiv(x, y, t))
    return order(np.floor_divide)


def _floordiv_c(t, swap):
    a, b = ("y", "x") if swap else ("x", "y")
    if t.is_bool:
        return f"gb_floordiv_s<int8_t>((int8_t){a}, (int8_t){b})"
    if t.is_int:
        return f"gb_floordiv_{'s' if t.is_signed else 'u'}<{_c(t)}>({a}, {b})"
    return f"gb_floordiv({a}, {b})"


def _floordiv_type(t):
    return INT8 if t.is_bool else t


floordiv = _define("floordiv", lambda t: _floordiv_np(t, False),
                   lambda t: _floordiv_c(t, False), ALL_TYPES, return_type=_floordiv_type)
rfloordiv = _define("rfloordiv", lambda t: _floordiv_np(t, True),
                    lambda t: _floordiv_c(t, True), ALL_TYPES, return_type=_floordiv_type)

# ----- comparisons -----

def _is_compare_np(ufunc, t):
    return lambda x, y: ufunc(x, y).astype(t.np_type)


def _comparison(name, ufunc, symbol, is_commutative=False):
    """``name`` (a BOOL result) and ``is<name>`` (1 or 0 in the operands' type)."""
    as_bool = _define(name, lambda t: ufunc, lambda t: f"x {symbol} y", ALL_TYPES,
                      return_type=BOOL, is_commutative=is_commutative)
    in_type = _define(f"is{name}", lambda t: _is_compare_np(ufunc, t),
                      lambda t: f"x {symbol} y", ALL_TYPES, is_commutative=is_commutative)
    return as_bool, in_type


eq, iseq = _comparison("eq", np.equal, "==", is_commutative=True)
ne, isne = _comparison("ne", np.not_equal, "!=", is_commutative=True)
gt, isgt = _comparison("gt", np.greater, ">")
lt, islt = _comparison("lt", np.less, "<")
ge, isge = _comparison("ge", np.greater_equal, ">=")
le, isle = _comparison("le", np.less_equal, "<=")

# ----- logical -----


def _logical_np(ufunc, t):
    if t.is_bool:
        return ufunc
    return lambda x, y: ufunc(x != 0, y != 0).astype(t.np_type)


def _logical_c(expr_bool, expr_other, t):
    return expr_bool if t.is_bool else expr_other


lor = _define("lor", lambda t: _logical_np(np.logical_or, t),
              lambda t: _logical_c("x || y", "(x != 0) || (y != 0)", t), ALL_TYPES,
              is_commutative=True)
land = _define("land", lambda t: _logical_np(np.logical_and, t),
               lambda t: _logical_c("x && y", "(x != 0) && (y != 0)", t), ALL_TYPES,
               is_commutative=True)
lxor = _define("lxor", lambda t: _logical_np(np.logical_xor, t),
               lambda t: _logical_c("x != y", "(x != 0) != (y != 0)", t), ALL_TYPES,
               is_commutative=True)
# SuiteSparse has LXNOR for BOOL only; python-graphblas maps every other type to it.
lxnor = _define("lxnor", lambda t: np.equal, lambda t: "x == y", [BOOL], is_commutative=True)
lxnor._coerce(REAL_TYPES, BOOL)

# ----- powers -----

pow = _arith(
    "pow", lambda x, y: np.logical_or(x, np.logical_not(y)), "x || !y",
    lambda t: lambda x, y: int_pow(x, y, t),
    lambda t: f"gb_int_pow_{'s' if t.is_signed else 'u'}<{_c(t)}>(x, y)",
    lambda t: gb_pow, lambda t: f"{'gb_powf' if t is FP32 else 'gb_pow'}(x, y)")


def _rpow_np(t):
    if t.is_bool:
        return lambda x, y: wrapping_pow(np.asarray(y, np.int8), np.asarray(x, np.int8), INT8)
    if t.is_int:
        return lambda x, y: wrapping_pow(y, x, t)
    # numba's float power is C's pow (pow(1, NaN) is 1), unlike SuiteSparse's pow.
    return lambda x, y: np.power(y, x)


def _rpow_c(t):
    if t.is_bool:
        return "gb_wrapping_pow_s<int8_t>((int8_t)y, (int8_t)x)"
    if t.is_int:
        return f"gb_wrapping_pow_{'s' if t.is_signed else 'u'}<{_c(t)}>(y, x)"
    return f"{_float_fn('pow', t)}(y, x)"


rpow = _define("rpow", _rpow_np, _rpow_c, ALL_TYPES, return_type=_floordiv_type)

# ----- float functions of two arguments (integers are computed in FP32 or FP64) -----


def _float_binary(name, np_func, c_name):
    op = _define(name, lambda t: np_func, lambda t: f"{_float_fn(c_name, t)}(x, y)",
                 FLOAT_TYPES)
    op._coerce(TO_FP32_TYPES, FP32)
    op._coerce(TO_FP64_TYPES, FP64)
    return op


atan2 = _float_binary("atan2", np.arctan2, "atan2")
copysign = _float_binary("copysign", np.copysign, "copysign")
fmod = _float_binary("fmod", np.fmod, "fmod")
hypot = _define("hypot", lambda t: np.hypot, lambda t: f"gb_hypot<{_c(t)}>(x, y)", FLOAT_TYPES,
                is_commutative=True)
hypot._coerce(TO_FP32_TYPES, FP32)
hypot._coerce(TO_FP64_TYPES, FP64)
remainder = _float_binary("remainder", ieee_remainder, "remainder")
ldexp = _define("ldexp", lambda t: lambda x, y: np.ldexp(x, x86_int_exponent(y)),
                lambda t: "gb_ldexp(x, y)", FLOAT_TYPES)
ldexp._coerce(TO_FP32_TYPES, FP32)
ldexp._coerce(TO_FP64_TYPES, FP64)
# python-graphblas offers ldexp for integer and BOOL inputs only.
ldexp._remove(FLOAT_TYPES)

# ----- bitwise (integers) -----

bor = _define("bor", lambda t: np.bitwise_or, lambda t: "x | y", INT_TYPES, is_commutative=True)
band = _define("band", lambda t: np.bitwise_and, lambda t: "x & y", INT_TYPES,
               is_commutative=True)
bxor = _define("bxor", lambda t: np.bitwise_xor, lambda t: "x ^ y", INT_TYPES,
               is_commutative=True)
bxnor = _define("bxnor", lambda t: lambda x, y: np.invert(np.bitwise_xor(x, y)),
                lambda t: "~(x ^ y)", INT_TYPES, is_commutative=True)
bget = _define("bget", lambda t: lambda x, y: _bget(x, y, t),
               lambda t: f"gb_bget<{_c(t)}>(x, y)", INT_TYPES)
bset = _define("bset", lambda t: lambda x, y: _bset(x, y, t),
               lambda t: f"gb_bset<{_c(t)}>(x, y)", INT_TYPES)
bclr = _define("bclr", lambda t: lambda x, y: _bclr(x, y, t),
               lambda t: f"gb_bclr<{_c(t)}>(x, y)", INT_TYPES)
bshift = _define("bshift", lambda t: lambda x, y: _bshift(x, y, t),
                 lambda t: f"gb_bshift<{_c(t)}>(x, (int8_t)y)", INT_TYPES)

# ----- python-graphblas's additions -----

def _abs_c(t, v):
    if t.is_float:
        return f"{_float_fn('fabs', t)}({v})"
    return v if (t.is_bool or not t.is_signed) else f"gb_abs<{_c(t)}>({v})"


absfirst = _define("absfirst", lambda t: lambda x, y: _broadcast_first(_abs(x, t), y),
                   lambda t: _abs_c(t, "x"), ALL_TYPES)
abssecond = _define("abssecond", lambda t: lambda x, y: _broadcast_first(_abs(y, t), x),
                    lambda t: _abs_c(t, "y"), ALL_TYPES)
binom = _define("binom", lambda t: _binom, lambda t: "gb_binom(x, y)", [INT64])
binom._coerce(INT_TYPES, INT64)

# ----- isclose: python-graphblas's parameterized operator -----

def _isclose_np(t, rel_tol, abs_tol):
    """numba's ``x == y or abs(x - y) <= max(rel_tol * max(abs(x), abs(y)), abs_tol)``:
    signed integers and BOOL in wrapping int64, unsigned ones in wrapping uint64 (so 1 - 2 is
    far from 0), floats in their own type, the tolerance in float64.  As there,
    ``isclose(inf, 1)`` is true and NaN is close to nothing.  (Where the int64 difference
    overflows, numba's result is undefined; here it wraps.)"""
    def isclose(x, y):
        if t.is_float:
            a, b = np.asarray(x, t.np_type), np.asarray(y, t.np_type)
        else:
            wide = np.int64 if (t.is_signed or t.is_bool) else np.uint64
            a, b = np.asarray(x).astype(wide), np.asarray(y).astype(wide)
        diff = np.abs(a - b)
        scale = np.maximum(np.abs(a), np.abs(b))
        tol = np.maximum(rel_tol * scale.astype(np.float64), abs_tol)
        return (a == b) | (diff.astype(np.float64) <= tol)
    return isclose


def _isclose_c(t, rel_tol, abs_tol):
    kind = "f" if t.is_float else "i64" if (t.is_signed or t.is_bool) else "u64"
    return f"gb_isclose_{kind}(x, y, {float(rel_tol)!r}, {float(abs_tol)!r})"


class IsClose(BinaryOp):
    """python-graphblas's parameterized ``binary.isclose``.

    ``binary.isclose`` compares with the default tolerances (``rel_tol=1e-7``,
    ``abs_tol=0.0``); ``binary.isclose(rel_tol, abs_tol)`` is the operator with others (one
    object per pair of tolerances).  The result is BOOL for every input type.
    """

    _made = {}

    def __init__(self, rel_tol=1e-7, abs_tol=0.0):
        super().__init__("isclose", is_commutative=True)
        self.parameters = (float(rel_tol), float(abs_tol))
        for t in ALL_TYPES:
            self._add(TypedBinaryOp(self, t, BOOL, quiet(_isclose_np(t, *self.parameters)),
                                    _isclose_c(t, *self.parameters)))

    def __call__(self, rel_tol=1e-7, abs_tol=0.0):
        for name, value in (("rel_tol", rel_tol), ("abs_tol", abs_tol)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float,
                                                                            np.number)):
                raise TypeError(f"binary.isclose({name}=...) takes a number, got "
                                f"{type(value).__name__}; compare collections with "
                                "x.ewise_mult(y, binary.isclose(rel_tol, abs_tol))")
        key = (float(rel_tol), float(abs_tol))
        if key == self.parameters:
            return self
        if key not in IsClose._made:
            IsClose._made[key] = IsClose(*key)
        return IsClose._made[key]

    def __repr__(self):
        if self.parameters == (1e-7, 0.0):
            return "binary.isclose"
        return f"binary.isclose(rel_tol={self.parameters[0]!r}, abs_tol={self.parameters[1]!r})"

    def __reduce__(self):
        return (_isclose, self.parameters)


def _isclose(rel_tol, abs_tol):
    return isclose(rel_tol, abs_tol)


isclose = IsClose()

# ----- positional (SuiteSparse; also in ``binary.ss``) -----

_POSITIONAL = {
    "firsti": ("first", "i", 0, "ai"), "firsti1": ("first", "i", 1, "ai + 1"),
    "firstj": ("first", "j", 0, "aj"), "firstj1": ("first", "j", 1, "aj + 1"),
    "secondi": ("second", "i", 0, "bi"), "secondi1": ("second", "i", 1, "bi + 1"),
    "secondj": ("second", "j", 0, "bj"), "secondj1": ("second", "j", 1, "bj + 1"),
}
for _name, (_side, _axis, _offset, _expr) in _POSITIONAL.items():
    _op = _define(_name, lambda t, n=_name: _positional_np_func(n), lambda t, e=_expr: e,
                  [INT32, INT64], position=(_side, _axis, _offset))
    _op._coerce(POSITION_COERCED_TYPES, INT64)
    globals()[_name] = _op

# ----- argument swaps (python-graphblas's ``commutes_to``) -----

for _left, _right in [("cdiv", "rdiv"), ("first", "second"), ("ge", "le"), ("gt", "lt"),
                      ("isge", "isle"), ("isgt", "islt"), ("minus", "rminus"),
                      ("pow", "rpow"), ("truediv", "rtruediv"), ("floordiv", "rfloordiv"),
                      ("absfirst", "abssecond"), ("firsti", "secondi"),
                      ("firsti1", "secondi1"), ("firstj", "secondj"),
                      ("firstj1", "secondj1")]:
    globals()[_left].commutes_to = globals()[_right]
    globals()[_right].commutes_to = globals()[_left]

del _name, _side, _axis, _offset, _expr, _op, _left, _right

#: SuiteSparse-specific operators, also at the top level (python-graphblas's ``binary.ss``).
ss = SimpleNamespace(**{name: globals()[name] for name in _POSITIONAL})

#: python-graphblas's short spellings for ``from_string``.
_STRINGS = {
    "<": lt, ">": gt, "<=": le, ">=": ge, "!=": ne, "==": eq, "+": plus, "-": minus,
    "*": times, "/": truediv, "//": floordiv, "**": pow, "&": land, "|": lor, "^": lxor,
}
#: symbols and names that python-graphblas reads as NumPy's operators (made on first use)
_NUMPY_STRINGS = {"%": "mod"}



def from_string(string):
    """The binary operator named by ``string``: a name (``"plus"``), a symbol (``"+"``,
    ``"//"``), either optionally typed (``"plus[FP32]"``, ``"+[int]"``).

    Raises
    ------
    ValueError
        If the string names no binary operator.
    """
    return parse_op_string(string, "binary", _STRINGS, _namespace_lookup, "+[int]")


def _namespace_lookup(name):
    op = globals().get(name)
    if isinstance(op, BinaryOp):
        return op
    if name in _NUMPY_STRINGS or name in numpy._binary_names:
        return getattr(numpy, _NUMPY_STRINGS.get(name, name))
    if name.startswith("ss.") and hasattr(ss, name[3:]):
        return getattr(ss, name[3:])
    return None


__all__ = sorted(name for name, obj in globals().items() if isinstance(obj, BinaryOp))

# python-graphblas's maps of deprecated names and of operators built on first use: graphblast
# has neither (every operator is built at import)
_deprecated = {}
_delayed = {}
