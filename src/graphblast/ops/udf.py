"""User-defined operators: a Python function translated to a CUDA expression and to NumPy.

A user's function (``unary.register_new("plus_one", lambda x: x + 1)``) becomes a typed operator
for every input type where it is defined, exactly like a built-in operator: a CUDA C++
expression (compiled into the operator's functor and from there into graphblast's own kernels:
mxv, vxm, mxm, element-wise, apply, select, reductions; never a separate pass) and a vectorized
NumPy function for the CPU backend.  :func:`translate` reads the function's syntax tree, infers
the type of every subexpression with numba's rules (what python-graphblas compiles the function
with, so that result types and values agree with it) and writes both.

The subset of Python translated (both devices):

- the arguments, numeric constants (``1``, ``2.5``, ``True``), numbers captured from the
  enclosing scope or the module (closures of parameterized operators), ``math.pi``, ``math.e``,
  ``math.inf``, ``math.nan``, ``math.tau`` and NumPy's ``np.pi`` ...;
- ``+ - * / // % **``, unary ``- + ~``, ``& | ^ << >>`` (integers and BOOL), comparisons (also
  chained), ``and``, ``or``, ``not``, conditional expressions ``a if c else b``;
- ``abs``, ``min``, ``max`` (two or more arguments), ``round(x)``, the casts ``float(x)``,
  ``int(x)``, ``bool(x)`` and ``np.float32(x)``, ``np.int8(x)``, ... (every GraphBLAS type);
- the functions of ``math`` (``sqrt exp expm1 log log1p log2 log10 sin cos tan asin acos atan
  sinh cosh tanh asinh acosh atanh erf erfc gamma lgamma fabs floor ceil trunc isnan isinf
  isfinite atan2 hypot pow copysign fmod degrees radians``) and NumPy's ufuncs of the same
  names (``np.sqrt``, ``np.abs``, ``np.floor``, ...);
- in a ``def``: a docstring, assignments to local names (``t = x * y``, ``t += 1``), ``if`` /
  ``elif`` / ``else`` whose branches assign or return, and ``return``.

Semantics are numba's (python-graphblas's): integer arithmetic is done in 64 bits (int64, or
uint64 when both operands are unsigned) and wraps, ``/`` is true division, ``//`` and ``%``
floor as in Python (the sign of ``%`` follows the divisor), integer ``**`` wraps and a negative
exponent gives 0 (1 or -1 for the bases 1 and -1); the function's result is then cast to the
operator's return type, found by python-graphblas's rule (an integer result on an integer input
keeps the input's type, a float result on a float input likewise).  Where numba's result is
undefined or raises, this defines it, as NumPy does: integer ``x // 0`` and ``x % 0`` are 0,
float division by zero is IEEE's, shifts by 64 or more give 0 (or -1 shifting a negative
number right), and ``int(x)`` of a float saturates at the type's limits with NaN giving 0
(GraphBLAS's casts).

On the CPU a function outside the subset is compiled by numba where it is installed (as
python-graphblas does); on the GPU it raises :class:`UdfParseError` naming the construct.
"""

import ast
import builtins
import dis
import inspect
import math
import numbers
import textwrap
import types

import numpy as np

from ..dtypes import (
    ALL_TYPES, BOOL, FP32, FP64, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, cast,
    lookup_dtype,
)
from ..exceptions import UdfParseError

__all__ = ["translate", "Translation", "SUPPORTED", "infer_return_type"]

SUPPORTED = (
    "arguments, numeric constants and numbers from the enclosing scope; + - * / // % ** and "
    "unary - + ~; & | ^ << >> on integers; comparisons; and, or, not; a if c else b; abs, min, "
    "max, round(x), float(x), int(x), bool(x), np.<type>(x); math.<function> and np.<ufunc> "
    "(sqrt, exp, log, sin, floor, isnan, ...); in a def: local assignments, if/elif/else and "
    "return"
)

# -- types: numba's rules ----------------------------------------------------------------------

_UNSIGNED = (UINT8, UINT16, UINT32, UINT64)
# The integer types that numba combines with FP32 into FP32 (others give FP64).
_FP32_PARTNERS = (BOOL, INT8, INT16, UINT8)


def _is_int(t):
    return t.is_int or t.is_bool


def _int_result(a, b):
    """numba's integer arithmetic: uint64 when both are unsigned, else int64."""
    return UINT64 if (a in _UNSIGNED and b in _UNSIGNED) else INT64


def _float_result(a, b):
    if FP64 in (a, b):
        return FP64
    other = b if a is FP32 else a
    return FP32 if (other is FP32 or other in _FP32_PARTNERS) else FP64


def _arith_type(a, b):
    if _is_int(a) and _is_int(b):
        return _int_result(a, b)
    return _float_result(a, b)


def unify(a, b):
    """The type of a value that may be either (a conditional, min, max): NumPy's promotion."""
    return lookup_dtype(np.promote_types(a.np_type, b.np_type))


def _float_of(t):
    """The float type numba's math functions return for an argument of type ``t``."""
    return FP32 if t is FP32 else FP64


def _ufunc_float_of(t):
    """The float type of NumPy's float ufuncs (``np.sqrt``) under numba (no float16)."""
    if t.is_float:
        return t
    return FP32 if t in (BOOL, INT8, INT16, UINT8, UINT16) else FP64


# -- values ------------------------------------------------------------------------------------

class _V:
    """A translated subexpression: C++ text, NumPy text (a Python expression over arrays), and
    its static type.  Both texts evaluate to a value of exactly that type."""

    __slots__ = ("c", "np", "t", "weak")

    def __init__(self, c, np_text, t, weak=False):
        self.c = c
        self.np = np_text
        self.t = t
        self.weak = weak  # a Python number written in the function (NumPy's weak scalars)


class _Unsupported(Exception):
    """The function uses a construct outside the subset (message: the construct)."""


class _NotForType(Exception):
    """The function is not defined for this input type (numba would fail to type it)."""


def _c_literal(value, t):
    from ..backends.cuda.codegen import c_literal

    return c_literal(value, t)


def _ct(t):
    return t.c_type


def _conv(v, t):
    """``v`` converted to type ``t`` (GraphBLAS's casts: floats to integers saturate)."""
    if v.t is t:
        return v
    if t is BOOL:
        return _V(f"(({v.c}) != 0)", f"({v.np} != 0)", BOOL)
    if v.t.is_float and t.is_int:
        return _V(f"gb_cast_f64<{_ct(t)}>((double)({v.c}))", f"_cast({v.np}, '{t.name}')", t)
    return _V(f"(({_ct(t)})({v.c}))", f"_as({v.np}, '{t.name}')", t)


def _truth(v):
    return v if v.t is BOOL else _V(f"(({v.c}) != 0)", f"({v.np} != 0)", BOOL)


def _const(value):
    if isinstance(value, (bool, np.bool_)):
        t = BOOL
    elif isinstance(value, np.generic):
        t = lookup_dtype(value.dtype)
    elif isinstance(value, numbers.Integral):
        value = int(value)
        t = INT64 if -2**63 <= value < 2**63 else UINT64
        if not 0 <= value < 2**64 and t is UINT64:
            raise _Unsupported(f"the integer constant {value} (outside the 64-bit range)")
    elif isinstance(value, numbers.Real):
        t = FP64
        value = float(value)
    else:
        raise _Unsupported(f"a constant of type {type(value).__name__} ({value!r})")
    if t.is_float:
        npv = f"_np.{t.np_type.name}({float(value)!r})"
    elif t is BOOL:
        npv = f"_np.bool_({bool(value)})"
    else:
        npv = f"_np.{t.np_type.name}({int(value)})"
    return _V(_c_literal(value, t), npv, t, weak=not isinstance(value, np.generic))


def _category(t):
    return 0 if t is BOOL else 2 if t.is_float else 1


def _ufunc_unify(a, b):
    """The type of a NumPy ufunc of ``a`` and ``b`` under numba: a number written in the
    function of a lower kind (bool < integer < float) than the other operand takes that
    operand's type (``np.maximum(float32, 2)`` is float32), else NumPy's promotion
    (``np.maximum(int8, 2)`` is int64, ``np.fmin(float32, 1.5)`` float64)."""
    for weak, other in ((a, b), (b, a)):
        if weak.weak and not other.weak and _category(weak.t) < _category(other.t):
            return other.t
    return unify(a.t, b.t)


# -- operators ---------------------------------------------------------------------------------

def _binop(op, a, b):
    kind = type(op)
    if kind in (ast.Add, ast.Sub, ast.Mult):
        r = _arith_type(a.t, b.t)
        a, b = _conv(a, r), _conv(b, r)
        sym, ufunc, helper = {ast.Add: ("+", "add", "gb_add"),
                              ast.Sub: ("-", "subtract", "gb_sub"),
                              ast.Mult: ("*", "multiply", "gb_mul")}[kind]
        c = (f"({a.c} {sym} {b.c})" if r.is_float else f"{helper}<{_ct(r)}>({a.c}, {b.c})")
        return _V(c, f"_np.{ufunc}({a.np}, {b.np})", r)
    if kind is ast.Div:
        r = FP64 if (_is_int(a.t) and _is_int(b.t)) else _float_result(a.t, b.t)
        a, b = _conv(a, r), _conv(b, r)
        return _V(f"({a.c} / {b.c})", f"_np.divide({a.np}, {b.np})", r)
    if kind in (ast.FloorDiv, ast.Mod):
        r = _arith_type(a.t, b.t)
        a, b = _conv(a, r), _conv(b, r)
        name = "floordiv" if kind is ast.FloorDiv else "mod"
        ufunc = "floor_divide" if kind is ast.FloorDiv else "remainder"
        if r.is_float:
            c = (f"gb_floordiv({a.c}, {b.c})" if kind is ast.FloorDiv
                 else f"gb_udf_mod_f<{_ct(r)}>({a.c}, {b.c})")
        else:
            c = f"gb_udf_{name}_{'u' if r is UINT64 else 's'}<{_ct(r)}>({a.c}, {b.c})"
        return _V(c, f"_np.{ufunc}({a.np}, {b.np})", r)
    if kind is ast.Pow:
        if _is_int(a.t) and _is_int(b.t):
            r = _int_result(a.t, b.t)
            a, b = _conv(a, r), _conv(b, r)
            c = f"gb_wrapping_pow_{'u' if r is UINT64 else 's'}<{_ct(r)}>({a.c}, {b.c})"
            return _V(c, f"_wrapping_pow({a.np}, {b.np}, '{r.name}')", r)
        if a.t is FP32 and _is_int(b.t):
            r = FP32  # numba: float32 ** integer stays float32
        else:
            r = _float_result(a.t, b.t)
        a, b = _conv(a, r), _conv(b, r)
        fn = "powf" if r is FP32 else "pow"
        return _V(f"{fn}({a.c}, {b.c})", f"_np.power({a.np}, {b.np})", r)
    if kind in (ast.BitAnd, ast.BitOr, ast.BitXor):
        if not (_is_int(a.t) and _is_int(b.t)):
            raise _NotForType("bitwise operators need integers")
        sym, ufunc = {ast.BitAnd: ("&", "bitwise_and"), ast.BitOr: ("|", "bitwise_or"),
                      ast.BitXor: ("^", "bitwise_xor")}[kind]
        r = BOOL if (a.t is BOOL and b.t is BOOL) else _int_result(a.t, b.t)
        a, b = _conv(a, r), _conv(b, r)
        if r is BOOL:
            c = {"&": f"({a.c} && {b.c})", "|": f"({a.c} || {b.c})",
                 "^": f"({a.c} != {b.c})"}[sym]
        else:
            c = f"(({_ct(r)})({a.c} {sym} {b.c}))"
        return _V(c, f"_np.{ufunc}({a.np}, {b.np})", r)
    if kind in (ast.LShift, ast.RShift):
        if not (_is_int(a.t) and _is_int(b.t)):
            raise _NotForType("shifts need integers")
        r = UINT64 if a.t in _UNSIGNED else INT64
        a, b = _conv(a, r), _conv(b, INT64)
        name = "shl" if kind is ast.LShift else "shr"
        return _V(f"gb_udf_{name}<{_ct(r)}>({a.c}, {b.c})",
                  f"_shift_{name}({a.np}, {b.np})", r)
    raise _Unsupported(f"the operator {type(op).__name__}")


_COMPARE = {ast.Eq: ("==", "equal"), ast.NotEq: ("!=", "not_equal"), ast.Lt: ("<", "less"),
            ast.LtE: ("<=", "less_equal"), ast.Gt: (">", "greater"),
            ast.GtE: (">=", "greater_equal")}


def _compare(op, a, b):
    if type(op) not in _COMPARE:
        raise _Unsupported(f"the comparison {type(op).__name__} (is, in)")
    sym, ufunc = _COMPARE[type(op)]
    # numba compares in NumPy's common type (uint64 with int64: float64), not in the 64-bit
    # type its arithmetic uses
    r = unify(a.t, b.t)
    a, b = _conv(a, r), _conv(b, r)
    return _V(f"({a.c} {sym} {b.c})", f"_np.{ufunc}({a.np}, {b.np})", BOOL)


def _select(cond, a, b):
    """``a if cond else b``."""
    r = unify(a.t, b.t)
    a, b = _conv(a, r), _conv(b, r)
    cond = _truth(cond)
    return _V(f"(({cond.c}) ? ({a.c}) : ({b.c}))", f"_where({cond.np}, {a.np}, {b.np})", r)


def _unaryop(op, v):
    kind = type(op)
    if kind is ast.Not:
        t = _truth(v)
        return _V(f"(!{t.c})", f"_np.logical_not({t.np})", BOOL)
    if kind in (ast.USub, ast.UAdd):
        if v.t.is_float:
            return v if kind is ast.UAdd else _V(f"(-{v.c})", f"_np.negative({v.np})", v.t)
        r = UINT64 if v.t in _UNSIGNED else INT64
        if kind is ast.UAdd or v.t is BOOL:
            v = _conv(v, r)
            return v if kind is ast.UAdd else _V(f"gb_neg<{_ct(r)}>({v.c})",
                                                 f"_np.negative({v.np})", r)
        # numba negates in the operand's own type (wrapping) and then widens
        return _conv(_V(f"gb_neg<{_ct(v.t)}>({v.c})", f"_np.negative({v.np})", v.t), r)
    if kind is ast.Invert:
        if v.t is BOOL:
            return _V(f"(!{v.c})", f"_np.logical_not({v.np})", BOOL)
        if not v.t.is_int:
            raise _NotForType("~ needs an integer")
        r = UINT64 if v.t in _UNSIGNED else INT64
        inverted = _V(f"(({_ct(v.t)})~{v.c})", f"_np.invert({v.np})", v.t)
        return _conv(inverted, r)  # in the operand's type, then widened (numba)
    raise _Unsupported(f"the unary operator {kind.__name__}")


# -- functions ---------------------------------------------------------------------------------

# name: (C function of double, NumPy function); the float32 C function adds "f".
_FLOAT_FUNCS = {
    "sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p",
    "log2": "log2", "log10": "log10", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin",
    "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "erf": "erf", "erfc": "erfc",
    "gamma": "tgamma", "lgamma": "lgamma", "fabs": "fabs", "cbrt": "cbrt", "exp2": "exp2",
}
_NP_OF_MATH = {
    "sqrt": "_np.sqrt", "exp": "_np.exp", "expm1": "_np.expm1", "log": "_np.log",
    "log1p": "_np.log1p", "log2": "_np.log2", "log10": "_np.log10", "sin": "_np.sin",
    "cos": "_np.cos", "tan": "_np.tan", "asin": "_np.arcsin", "acos": "_np.arccos",
    "atan": "_np.arctan", "sinh": "_np.sinh", "cosh": "_np.cosh", "tanh": "_np.tanh",
    "asinh": "_np.arcsinh", "acosh": "_np.arccosh", "atanh": "_np.arctanh", "erf": "_erf",
    "erfc": "_erfc", "gamma": "_tgamma", "lgamma": "_lgamma", "fabs": "_np.fabs",
    "cbrt": "_np.cbrt", "exp2": "_np.exp2",
}
_FLOAT_FUNCS2 = {"atan2": ("atan2", "_np.arctan2"), "hypot": ("hypot", "_np.hypot"),
                 "pow": ("pow", "_np.power"), "copysign": ("copysign", "_np.copysign"),
                 "fmod": ("fmod", "_np.fmod")}
# NumPy's names of the same functions (np.arcsin is math.asin).
_NP_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
               "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2", "absolute": "abs",
               "fabs": "fabs"}
_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}
_TYPE_NAMES = {t.np_type.name: t for t in ALL_TYPES}
_TYPE_NAMES.update({"bool_": BOOL, "float_": FP64, "double": FP64, "single": FP32})


def _cfn(name, t):
    return f"{name}f" if t is FP32 else name


def _float_call(name, args, numpy_rules):
    (v,) = args
    r = _ufunc_float_of(v.t) if numpy_rules else _float_of(v.t)
    v = _conv(v, r)
    return _V(f"{_cfn(_FLOAT_FUNCS[name], r)}({v.c})", f"{_NP_OF_MATH[name]}({v.np})", r)


def _rounding(name, v, numpy_rules):
    """floor, ceil, trunc: math's return an integer (int64, uint64 from unsigned), NumPy's
    keep the type."""
    if numpy_rules:
        if not v.t.is_float:
            return v
        return _V(f"{_cfn(name, v.t)}({v.c})", f"_np.{name}({v.np})", v.t)
    if not v.t.is_float:
        return _conv(v, UINT64 if v.t in _UNSIGNED else INT64)
    f = _V(f"{_cfn(name, v.t)}({v.c})", f"_np.{name}({v.np})", v.t)
    return _conv(f, INT64)


def _classify(name, v):
    if not v.t.is_float:
        value = name == "isfinite"
        return _V("true" if value else "false", f"_np.full(_np.shape({v.np}), {value})", BOOL)
    return _V(f"gb_{name}({v.c})", f"_np.{name}({v.np})", BOOL)


def _minmax(name, args):
    if len(args) < 2:
        raise _Unsupported(f"{name}() of fewer than two arguments (of an iterable)")
    acc = args[0]
    for b in args[1:]:
        r = unify(acc.t, b.t)
        a, b = _conv(acc, r), _conv(b, r)
        # Python: the first of equal candidates, replaced only by a strictly smaller (larger)
        sym = "<" if name == "min" else ">"
        acc = _V(f"(({b.c} {sym} {a.c}) ? ({b.c}) : ({a.c}))",
                 f"_where({b.np} {sym} {a.np}, {b.np}, {a.np})", r)
    return acc


def _abs(v):
    if v.t is BOOL:
        return _conv(v, INT8)
    if v.t.is_float:
        return _V(f"{_cfn('fabs', v.t)}({v.c})", f"_np.abs({v.np})", v.t)
    if v.t in _UNSIGNED:
        return v
    return _V(f"gb_abs<{_ct(v.t)}>({v.c})", f"_np.abs({v.np})", v.t)


def _call_builtin(name, args):
    if name == "abs" and len(args) == 1:
        return _abs(args[0])
    if name in ("min", "max"):
        return _minmax(name, args)
    if len(args) != 1:
        raise _Unsupported(f"{name}() with {len(args)} arguments")
    (v,) = args
    if name == "float":
        if v.t is BOOL:
            raise _NotForType("float() of a bool")
        return _conv(v, FP32 if v.t is FP32 else FP64)
    if name == "int":
        return _conv(v, v.t if v.t.is_int else INT64)
    if name == "bool":
        return _truth(v)
    if name == "round":
        if not v.t.is_float:
            return _conv(v, INT64)
        f = _V(f"{_cfn('rint', v.t)}({v.c})", f"_np.rint({v.np})", v.t)
        return _conv(f, INT64)
    raise _Unsupported(f"the built-in function {name}()")


def _call_math(name, args, numpy_rules):
    module = "np" if numpy_rules else "math"
    name = _NP_ALIASES.get(name, name) if numpy_rules else name
    if numpy_rules and name in _TYPE_NAMES and len(args) == 1:
        return _conv(args[0], _TYPE_NAMES[name])
    if numpy_rules and name == "abs" and len(args) == 1:
        return args[0] if args[0].t is BOOL else _abs(args[0])
    if numpy_rules and name in ("minimum", "maximum", "fmin", "fmax") and len(args) == 2:
        a, b = args
        r = _ufunc_unify(a, b)
        a, b = _conv(a, r), _conv(b, r)
        if r.is_float and name.startswith("f"):
            return _V(f"{_cfn(name, r)}({a.c}, {b.c})", f"_np.{name}({a.np}, {b.np})", r)
        sym = "<" if "min" in name else ">"
        if r.is_float:  # np.minimum propagates NaN
            return _V(f"(({a.c} != {a.c}) ? {a.c} : (({b.c} {sym} {a.c}) || ({b.c} != {b.c})) ? "
                      f"{b.c} : {a.c})", f"_np.{name}({a.np}, {b.np})", r)
        return _V(f"(({b.c} {sym} {a.c}) ? {b.c} : {a.c})", f"_np.{name}({a.np}, {b.np})", r)
    if name in _FLOAT_FUNCS and len(args) == 1:
        return _float_call(name, args, numpy_rules)
    if name in ("floor", "ceil", "trunc") and len(args) == 1:
        return _rounding(name, args[0], numpy_rules)
    if name in ("isnan", "isinf", "isfinite") and len(args) == 1:
        return _classify(name, args[0])
    if name in _FLOAT_FUNCS2 and len(args) == 2:
        a, b = args
        if numpy_rules:
            r = _ufunc_float_of(_ufunc_unify(a, b))
        else:
            r = FP32 if (a.t is FP32 and b.t is FP32) else FP64
        cname, npname = _FLOAT_FUNCS2[name]
        a, b = _conv(a, r), _conv(b, r)
        return _V(f"{_cfn(cname, r)}({a.c}, {b.c})", f"{npname}({a.np}, {b.np})", r)
    if name in ("degrees", "radians") and len(args) == 1:
        v = args[0]
        r = _ufunc_float_of(v.t) if numpy_rules else _float_of(v.t)
        v = _conv(v, r)
        factor = 180.0 / math.pi if name == "degrees" else math.pi / 180.0
        k = _c_literal(factor, r)
        return _V(f"({v.c} * {k})", f"({v.np} * _np.{r.np_type.name}({factor!r}))", r)
    raise _Unsupported(f"{module}.{name}() with {len(args)} argument(s)")


# -- the function's syntax tree ----------------------------------------------------------------

def _source_tree(func):
    """The ``ast.Lambda`` or ``ast.FunctionDef`` of ``func``."""
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise _Unsupported(
            "a function whose source is not available (typed at Python's interactive "
            "prompt, read from standard input, or made by exec); define it in a file, a "
            "module or a notebook cell") from exc
    code = func.__code__
    argnames = list(code.co_varnames[:code.co_argcount])
    if func.__name__ != "<lambda>":
        source = textwrap.dedent("".join(lines))
        for node in ast.walk(_parse(source, "def")):
            if isinstance(node, ast.FunctionDef) and node.name == func.__name__ and \
                    [a.arg for a in node.args.args] == argnames:
                return node
        raise _Unsupported(f"the definition of {func.__name__} could not be read")
    # A lambda: among the lambdas of its lines with its arguments, the one that compiles to
    # the same instructions (any Python version); where several do (identical lambdas on one
    # line, which translate alike), the first.  Where none does (a compiler's corner), the
    # one whose body starts where the code's instructions say (co_positions, 3.11+).
    text = "".join(lines)
    candidates = []
    for start in _find_all(text, "lambda"):
        tree = _parse_prefix(text[start:])
        nodes = [] if tree is None else [
            n for n in ast.walk(tree)
            if isinstance(n, ast.Lambda) and n.lineno == 1 and n.col_offset == 0]
        if nodes and [a.arg for a in nodes[0].args.args] == argnames:
            candidates.append((start, nodes[0]))
    wanted = _code_signature(code)
    same = [node for _, node in candidates if _lambda_signature(node) == wanted]
    if same:
        return same[0]
    found = [node for start, node in candidates if _body_starts_at(node, start, text, first, code)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise _Unsupported("a lambda whose source could not be read")
    raise _Unsupported("a lambda that could not be told apart from another on its line "
                       "(define it with def)")


# instructions that differ between a lambda compiled in its place and alone (cells, frees)
_SCAFFOLD = frozenset({"RESUME", "COPY_FREE_VARS", "MAKE_CELL", "NOP", "CACHE", "PUSH_NULL",
                       "EXTENDED_ARG"})
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
_LOADS = {"LOAD_GLOBAL": "LOAD", "LOAD_DEREF": "LOAD", "LOAD_NAME": "LOAD",
          "LOAD_CLASSDEREF": "LOAD", "LOAD_FROM_DICT_OR_DEREF": "LOAD",
          "LOAD_FROM_DICT_OR_GLOBALS": "LOAD"}
_RENAMED = {"LOAD_METHOD": "LOAD_ATTR"}  # 3.11 reads a global's method either way


def _code_signature(code):
    """What a lambda's code computes, without where its free names live (a global alone, a
    closure's cell in place): its arguments and its instructions with their operands."""
    ops = []
    for ins in dis.get_instructions(code):
        if ins.opname in _SCAFFOLD:
            continue
        arg = ins.argval
        if ins.opcode in _JUMPS:
            arg = None  # a target offset: it moves with the scaffolding
        elif isinstance(arg, types.CodeType):
            arg = _code_signature(arg)
        elif ins.opname in _LOADS or ins.opname.startswith("LOAD_GLOBAL"):
            arg = str(arg).split(" + ")[-1]  # "NULL + len" (3.11+) is len
        elif isinstance(arg, (int, float, complex, str, bytes, bool, tuple, frozenset)) \
                or arg is None:
            arg = (type(arg).__name__, repr(arg))
        else:
            arg = None  # any other operand object: its instruction alone is compared
        ops.append((_LOADS.get(ins.opname) or _RENAMED.get(ins.opname, ins.opname), arg))
    return code.co_varnames[:code.co_argcount], tuple(ops)


def _lambda_signature(node):
    try:
        expr = compile(ast.fix_missing_locations(ast.Expression(body=node)), "<udf>", "eval")
    except (SyntaxError, ValueError):
        return None
    lambdas = [c for c in expr.co_consts if isinstance(c, types.CodeType)]
    return _code_signature(lambdas[0]) if lambdas else None


def _body_starts_at(node, start, text, first, code):
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return False
    positions = {(p[0], p[2]) for p in positions() if p[0] is not None}
    line = first + text.count("\n", 0, start)
    col = start - (text.rfind("\n", 0, start) + 1)
    body = node.body
    body_line = line + body.lineno - 1
    body_col = col + body.col_offset if body.lineno == 1 else body.col_offset
    return (body_line, body_col) in positions


def _find_all(text, word):
    i = text.find(word)
    while i >= 0:
        yield i
        i = text.find(word, i + 1)


def _parse(source, what):
    try:
        return ast.parse(source)
    except SyntaxError as exc:
        raise _Unsupported(f"a {what} whose source could not be parsed") from exc


def _parse_prefix(text):
    """The longest prefix of ``text`` that parses as an expression (a lambda inside a call)."""
    for end in range(len(text), 0, -1):
        if not text[end - 1].strip() and end < len(text):
            continue
        try:
            return ast.parse(text[:end], mode="eval")
        except SyntaxError:
            continue
    return None


class _Translator:
    def __init__(self, func, argtypes, argnames):
        self.func = func
        self.argtypes = argtypes
        self.argnames = argnames
        closure = inspect.getclosurevars(func)
        self.scope = dict(closure.builtins)
        self.scope.update(closure.globals)
        self.scope.update(closure.nonlocals)

    def run(self, tree):
        env = {}
        params = [a.arg for a in tree.args.args]
        if len(params) != len(self.argtypes):
            raise _Unsupported(f"{len(params)} arguments where {len(self.argtypes)} are passed")
        for k, (name, arg, t) in enumerate(zip(params, self.argnames, self.argtypes)):
            env[name] = _V(arg, f"_a{k}", t)
        if tree.args.vararg or tree.args.kwarg or tree.args.kwonlyargs:
            raise _Unsupported("*args, **kwargs or keyword-only arguments")
        if isinstance(tree, ast.Lambda):
            return self.expr(tree.body, env)
        body = tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        result = self.block(body, env)
        if result is None:
            raise _Unsupported("a function that does not return a value on every path")
        return result

    # statements: returns the value returned, or None where the block falls through.  ``rest``
    # is what follows the block in the enclosing ones (a branch that does not return goes on
    # with it).
    def block(self, stmts, env, rest=()):
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Return):
                if stmt.value is None:
                    raise _Unsupported("return without a value")
                return self.expr(stmt.value, env)
            if isinstance(stmt, ast.Assign):
                if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                    raise _Unsupported("an assignment to anything but one local name")
                env[stmt.targets[0].id] = self.expr(stmt.value, env)
            elif isinstance(stmt, ast.AugAssign):
                if not isinstance(stmt.target, ast.Name):
                    raise _Unsupported("an augmented assignment to anything but a local name")
                env[stmt.target.id] = _binop(stmt.op, self.expr(stmt.target, env),
                                             self.expr(stmt.value, env))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                    and stmt.value is not None:
                env[stmt.target.id] = self.expr(stmt.value, env)
            elif isinstance(stmt, ast.If):
                cond = self.expr(stmt.test, env)
                if _has_return(stmt.body) or _has_return(stmt.orelse):
                    after = list(stmts[k + 1:]) + list(rest)
                    ra = self.block(stmt.body, dict(env), after)
                    rb = self.block(stmt.orelse, dict(env), after)
                    if ra is None or rb is None:
                        return None
                    return _select(cond, ra, rb)
                env_a, env_b = dict(env), dict(env)
                self.block(stmt.body, env_a)
                self.block(stmt.orelse, env_b)
                for name in set(env_a) | set(env_b):
                    if env_a.get(name) is env_b.get(name):
                        continue
                    if name not in env_a or name not in env_b:
                        # assigned on one path only: not defined after the if
                        env.pop(name, None)
                        continue
                    env[name] = _select(cond, env_a[name], env_b[name])
            elif isinstance(stmt, ast.Pass):
                continue
            else:
                raise _Unsupported(f"the statement {type(stmt).__name__} "
                                   f"(line {getattr(stmt, 'lineno', '?')} of the function)")
        if rest:
            return self.block(list(rest), env)
        return None

    def expr(self, node, env):
        kind = type(node)
        if kind is ast.Constant:
            if isinstance(node.value, (bool, int, float)):
                return _const(node.value)
            raise _Unsupported(f"the constant {node.value!r}")
        if kind is ast.Name:
            if node.id in env:
                return env[node.id]
            if node.id in self.scope:
                return _const_or_fail(node.id, self.scope[node.id])
            raise _Unsupported(f"the undefined name {node.id!r}")
        if kind is ast.BinOp:
            return _binop(node.op, self.expr(node.left, env), self.expr(node.right, env))
        if kind is ast.UnaryOp:
            return _unaryop(node.op, self.expr(node.operand, env))
        if kind is ast.Compare:
            left = self.expr(node.left, env)
            result = None
            for op, right_node in zip(node.ops, node.comparators):
                right = self.expr(right_node, env)
                c = _compare(op, left, right)
                result = c if result is None else _V(f"({result.c} && {c.c})",
                                                     f"_np.logical_and({result.np}, {c.np})",
                                                     BOOL)
                left = right
            return result
        if kind is ast.BoolOp:
            values = [self.expr(v, env) for v in node.values]
            acc = values[0]
            for v in values[1:]:
                if acc.t is BOOL and v.t is BOOL:
                    sym, ufunc = ("&&", "logical_and") if isinstance(node.op, ast.And) else \
                        ("||", "logical_or")
                    acc = _V(f"({acc.c} {sym} {v.c})", f"_np.{ufunc}({acc.np}, {v.np})", BOOL)
                elif isinstance(node.op, ast.And):  # a and b: b where a is true, else a
                    acc = _select(acc, v, acc)
                else:
                    acc = _select(acc, acc, v)
            return acc
        if kind is ast.IfExp:
            return _select(self.expr(node.test, env), self.expr(node.body, env),
                           self.expr(node.orelse, env))
        if kind is ast.Attribute:
            module = self._module_of(node.value)
            if module is not None and node.attr in _CONSTANTS:
                return _const(_CONSTANTS[node.attr])
            if module == "np" and node.attr in ("e", "pi", "inf", "nan"):
                return _const(float(getattr(np, node.attr)))
            raise _Unsupported(f"the attribute {ast.unparse(node)}")
        if kind is ast.Call:
            if node.keywords:
                raise _Unsupported(f"keyword arguments in {ast.unparse(node)}")
            args = [self.expr(a, env) for a in node.args]
            f = node.func
            if isinstance(f, ast.Name):
                target = env.get(f.id, self.scope.get(f.id))
                if target in (builtins.abs, builtins.min, builtins.max, builtins.float,
                              builtins.int, builtins.bool, builtins.round):
                    return _call_builtin(target.__name__, args)
                name = _math_name(target)
                if name is not None:
                    return _call_math(name[1], args, name[0] == "np")
                raise _Unsupported(f"a call of {f.id}()")
            if isinstance(f, ast.Attribute):
                module = self._module_of(f.value)
                if module is not None:
                    return _call_math(f.attr, args, module == "np")
            raise _Unsupported(f"the call {ast.unparse(node)}")
        raise _Unsupported(f"the expression {ast.unparse(node)} ({kind.__name__})")

    def _module_of(self, node):
        if isinstance(node, ast.Name):
            value = self.scope.get(node.id)
            if value is math:
                return "math"
            if value is np:
                return "np"
        return None


def _has_return(stmts):
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _math_name(target):
    """("math" | "np", name) for a function imported from math or NumPy (``from math import
    sqrt``), else None."""
    for module, prefix in ((math, "math"), (np, "np")):
        name = getattr(target, "__name__", None)
        if name is not None and getattr(module, name, None) is target:
            return prefix, name
    return None


def _const_or_fail(name, value):
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return _const(value)
    raise _Unsupported(f"the name {name!r}, a {type(value).__name__} (only numbers can be "
                       "used from outside the function)")


# -- NumPy helpers of the generated functions ------------------------------------------------

def _as(v, name):
    return np.asarray(v).astype(_NP_TYPES[name], copy=False)


def _cast_helper(v, name):
    return cast(np.asarray(v), name)


def _where(c, a, b):
    return np.where(c, a, b)


def _wrapping_pow_helper(a, b, name):
    from .binary import wrapping_pow

    return wrapping_pow(a, b, lookup_dtype(name))


def _shift_shl(a, b):
    a = np.asarray(a)
    b = np.asarray(b, np.int64)
    ok = (b >= 0) & (b < 64)
    z = np.left_shift(a, np.where(ok, b, 0).astype(a.dtype))
    return np.where(ok, z, np.zeros((), a.dtype))


def _shift_shr(a, b):
    a = np.asarray(a)
    b = np.asarray(b, np.int64)
    ok = (b >= 0) & (b < 64)
    z = np.right_shift(a, np.where(ok, b, 0).astype(a.dtype))
    fill = np.where(a < 0, np.asarray(-1).astype(a.dtype), np.zeros((), a.dtype)) \
        if a.dtype.kind == "i" else np.zeros((), a.dtype)
    return np.where(ok, z, fill)


_NP_TYPES = {t.name: t.np_type for t in ALL_TYPES}


def _namespace():
    from . import unary

    return {
        "_np": np, "_as": _as, "_cast": _cast_helper, "_where": _where,
        "_wrapping_pow": _wrapping_pow_helper, "_shift_shl": _shift_shl,
        "_shift_shr": _shift_shr, "_erf": unary._erf, "_erfc": unary._erfc,
        "_tgamma": unary._tgamma, "_lgamma": unary._lgamma,
    }


# -- the public entry points ---------------------------------------------------------------------

class Translation:
    """A function translated for one tuple of argument types: ``cuda`` (a C++ expression in
    the functor's argument names), ``np_func`` (vectorized) and ``type`` (the static type of
    the function's value, before the operator's return type is applied)."""

    __slots__ = ("cuda", "np_func", "type", "np_source")

    def __init__(self, cuda, np_func, type_, np_source):
        self.cuda = cuda
        self.np_func = np_func
        self.type = type_
        self.np_source = np_source


def _check_function(func):
    if not inspect.isfunction(func):
        raise TypeError(f"UDF argument must be a function, not {type(func)}")


def translate(func, argtypes, argnames):
    """Translate ``func`` for arguments of ``argtypes`` called ``argnames`` in C++.

    Returns a :class:`Translation`, or None where the function is not defined for these types
    (numba would not type it: ``float(x)`` of a bool, a bit operation on a float).

    Raises
    ------
    UdfParseError
        If the function uses a construct outside the supported subset; the message names it.
    """
    _check_function(func)
    tree = _tree_of(func)
    translator = _Translator(func, argtypes, argnames)
    try:
        with np.errstate(all="ignore"):
            value = translator.run(tree)
    except _NotForType:
        return None
    except _Unsupported as exc:
        raise UdfParseError(unsupported_message(func, str(exc))) from None
    params = ", ".join(f"_a{k}" for k in range(len(argnames)))
    converts = "".join(f"    _a{k} = _as(_a{k}, '{t.name}')\n" for k, t in enumerate(argtypes))
    source = f"def _udf({params}):\n{converts}    return {value.np}\n"
    namespace = _namespace()
    exec(compile(source, f"<udf {getattr(func, '__name__', '?')}>", "exec"), namespace)
    return Translation(value.c, _quiet(namespace["_udf"]), value.t, source)


def _tree_of(func):
    cached = getattr(func, "__graphblast_ast__", None)
    if cached is not None:
        return cached
    try:
        tree = _source_tree(func)
    except _Unsupported as exc:
        raise UdfParseError(unsupported_message(func, str(exc))) from None
    try:
        func.__graphblast_ast__ = tree
    except AttributeError:
        pass
    return tree


def check_translatable(func):
    """Raise UdfParseError if ``func`` cannot be translated for any argument type."""
    _tree_of(func)


def unsupported_message(func, construct):
    name = getattr(func, "__name__", "the function")
    return (f"Cannot translate the user-defined function {name!r} for the GPU: it uses "
            f"{construct}.  Supported: {SUPPORTED}.  On the CPU such a function runs "
            "with numba (pip install graphblast[udf]).")


def _quiet(f):
    def np_func(*args):
        with np.errstate(all="ignore"):
            return f(*args)
    np_func.__name__ = f.__name__
    return np_func


def infer_return_type(static, in_type, earlier):
    """python-graphblas's rule for a UDF's return type from numba's type of its value.

    ``earlier`` maps the input types already typed (in python-graphblas's order) to their
    return types."""
    ret = static
    if ret is not in_type and (
        ("INT" in ret.name and "INT" in in_type.name)
        or ("FP" in ret.name and "FP" in in_type.name)
        or (in_type is UINT64 and ret is FP64 and earlier.get(INT64) is INT64)
    ):
        return in_type
    if in_type is BOOL and ret is INT64 and earlier.get(INT8) is INT8:
        return INT8
    return ret


#: python-graphblas's order of the types it compiles a UDF for (its ``_sample_values``).
TYPE_ORDER = (INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64, FP32, FP64, BOOL)
