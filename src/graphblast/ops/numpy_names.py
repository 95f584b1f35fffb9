"""python-graphblas's ``unary.numpy``, ``binary.numpy``, ``monoid.numpy``, ``semiring.numpy``
and ``op.numpy``: operators that compute NumPy's ufuncs (``binary.numpy.hypot``,
``unary.numpy.fabs``, ``monoid.numpy.gcd``, ``semiring.numpy.logaddexp_add``, ...).

As in python-graphblas (with numba, its default), every name is an operator of its own,
``numpy.<name>``, made on first use: ``binary.numpy.add`` is not ``binary.plus`` (it is
defined for BOOL, where it is ``or``, as ``np.add`` is).  Each operator is typed for the
GraphBLAS types where the ufunc has a loop, chosen as numba chooses it (the first of the
ufunc's loops that takes the type without loss, leaving out float16), with
python-graphblas's return-type rule for user-defined functions.  The CPU runs the ufunc itself
on that loop's types; the GPU runs a CUDA expression of the same definition
(``kernels/operators.cuh`` has the helpers: ``gb_np_gcd``, ``gb_np_logaddexp``, ...).
"""

import itertools
import math
import sys
import types

import numpy as np

from ..dtypes import ALL_TYPES, BOOL, lookup_dtype
from . import binary, monoid, semiring, unary
from .udf import TYPE_ORDER, infer_return_type

_unary_names = {
    "negative", "abs", "absolute", "cbrt", "fabs", "rint", "sign", "exp", "exp2", "log", "log2",
    "log10", "expm1", "log1p", "positive", "sqrt", "square", "reciprocal", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "deg2rad", "rad2deg", "degrees", "radians", "bitwise_not", "invert", "logical_not",
    "isfinite", "isinf", "isnan", "signbit", "floor", "ceil", "trunc", "spacing",
}
_binary_names = {
    "add", "subtract", "multiply", "divide", "logaddexp", "logaddexp2", "true_divide",
    "floor_divide", "power", "float_power", "remainder", "mod", "fmod", "gcd", "lcm", "arctan2",
    "hypot", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "greater",
    "greater_equal", "less", "less_equal", "not_equal", "equal", "logical_and", "logical_or",
    "logical_xor", "maximum", "minimum", "fmax", "fmin", "copysign", "nextafter", "ldexp",
}
_FLOATS = ("FP32", "FP64")
_INTS = ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64")


#: python-graphblas's identities of the monoids (by type name where they depend on the type)
_monoid_identities = {
    "add": 0,
    "multiply": 1,
    "logaddexp": dict.fromkeys(_FLOATS, -np.inf),
    "logaddexp2": dict.fromkeys(_FLOATS, -np.inf),
    "gcd": dict.fromkeys(_INTS, 0),
    "hypot": dict.fromkeys(_FLOATS, 0.0),
    "bitwise_and": {name: True if name == "BOOL" else -1 for name in _INTS + ("BOOL",)},
    "bitwise_or": dict.fromkeys(_INTS + ("BOOL",), 0),
    "bitwise_xor": dict.fromkeys(_INTS + ("BOOL",), 0),
    "equal": {"BOOL": True},
    "logical_and": {"BOOL": True},
    "logical_or": {"BOOL": False},
    "logical_xor": {"BOOL": False},
    "maximum": {t.name: (False if t is BOOL else t.min) for t in ALL_TYPES},
    "minimum": {t.name: (True if t is BOOL else t.max) for t in ALL_TYPES},
    "fmax": {t.name: (False if t is BOOL else t.min) for t in ALL_TYPES},
    "fmin": {t.name: (True if t is BOOL else t.max) for t in ALL_TYPES},
}
# reduced left to right on every device (floating-point results depend on the order)
_IN_ORDER = {"logaddexp", "logaddexp2", "hypot"}
# True where ``monoid(x, x) == x``
_idempotent = {"bitwise_and", "bitwise_or", "fmax", "fmin", "gcd", "logical_and", "logical_or",
               "maximum", "minimum"}
_commutative = {"add", "bitwise_and", "bitwise_or", "bitwise_xor", "equal", "fmax", "fmin", "gcd",
                "hypot", "lcm", "logaddexp", "logaddexp2", "logical_and", "logical_or",
                "logical_xor", "maximum", "minimum", "multiply", "not_equal"}
_commutes_to = {"greater": "less", "greater_equal": "less_equal", "less": "greater",
                "less_equal": "greater_equal"}

# -- typing: numba's choice of a ufunc's loop -------------------------------------------------

_SKIP = set("eOgGFDmMSUVa")  # float16, objects, long double, complex, times, strings


def _loop(ufunc, t):
    """(input dtypes, output dtype) of the loop numba uses for inputs of type ``t``, or None."""
    for sig in ufunc.types:
        ins, out = sig.split("->")
        if set(sig) & _SKIP or len(out) != 1:
            continue
        in_types = [np.dtype(c) for c in ins]
        if all(np.can_cast(t.np_type, d, "safe") for d in in_types):
            try:
                with np.errstate(all="ignore"):
                    ufunc(*(np.ones(1, d) for d in in_types))
            except (TypeError, ValueError):
                continue
            try:
                return in_types, lookup_dtype(np.dtype(out))
            except ValueError:
                return None
    return None


def _typing(name, nin):
    """``{input type: (loop input dtypes, loop output type, return type)}`` in
    python-graphblas's order."""
    ufunc = getattr(np, name)
    found, earlier = {}, {}
    for t in TYPE_ORDER:
        loop = _loop(ufunc, t)
        if loop is None:
            continue
        ins, out = loop
        ret = earlier[t] = infer_return_type(out, t, earlier)
        found[t] = (ins, out, ret)
    if name == "reciprocal":  # python-graphblas: 1 if x else 0 on BOOL (numba differs)
        found[BOOL] = ([np.dtype(bool)], BOOL, BOOL)
    return found


# -- CUDA expressions ---------------------------------------------------------------------------

_FLOAT_UNARY = {
    "cbrt": "cbrt", "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2",
    "log10": "log10", "expm1": "expm1", "log1p": "log1p", "sqrt": "sqrt", "sin": "sin",
    "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "fabs": "fabs", "rint": "rint",
}
_COMPARE = {"greater": ">", "greater_equal": ">=", "less": "<", "less_equal": "<=",
            "not_equal": "!=", "equal": "=="}
_ARITH = {"add": "+", "subtract": "-", "multiply": "*", "bitwise_and": "&", "bitwise_or": "|",
          "bitwise_xor": "^"}


_WRAPPING = {"add": "gb_add", "subtract": "gb_sub", "multiply": "gb_mul"}


def _c(dt):
    return lookup_dtype(dt).c_type


def _cuda_unary(name, ins, out, x="x"):
    """The CUDA expression of ``np.<name>`` on the loop ``ins -> out`` of the C expression
    ``x`` (the functor's argument, or a subexpression of a user's function), or None."""
    X, R = f"(({_c(ins[0])}){x})", out.c_type
    flt = ins[0].kind == "f"
    if name == "reciprocal" and out is BOOL:
        return x
    if name in _FLOAT_UNARY:
        return f"(({R}){_FLOAT_UNARY[name]}({X}))" if flt else \
            (f"(({R})({X} < 0 ? -{X} : {X}))" if name == "fabs" else None)
    if name in ("abs", "absolute"):
        return f"(({R})fabs({X}))" if flt else f"(({R})({X} < 0 ? -{X} : {X}))"
    if name == "negative":
        return f"(({R})gb_neg<{_c(ins[0])}>({X}))" if ins[0].kind == "i" else f"(({R})(-{X}))"
    if name == "positive":
        return f"(({R}){X})"
    if name == "square":
        return f"(({R})({X} * {X}))"
    if name == "sign":
        sign = f"(({R})(({X} > 0) - ({X} < 0)))"
        return f"({X} != {X} ? ({R}){X} : {sign})" if flt else sign
    if name == "reciprocal":  # of integer 0: 0 (NumPy's is undefined)
        return f"(({R})1 / {X})" if flt else f"({X} == 0 ? ({R})0 : ({R})(1 / {X}))"
    if name in ("deg2rad", "radians"):
        return f"(({R})({X} * ({R}){math.pi / 180!r}))"
    if name in ("rad2deg", "degrees"):
        return f"(({R})({X} * ({R}){180 / math.pi!r}))"
    if name in ("bitwise_not", "invert"):
        return f"(!{X})" if out is BOOL else f"(({R})(~{X}))"
    if name == "logical_not":
        return f"(({R})(!{X}))"
    if name in ("isfinite", "isinf", "isnan"):
        if flt:
            return f"((bool){name}({X}))"
        return "true" if name == "isfinite" else "false"
    if name == "signbit":
        return f"((bool)signbit({X}))" if flt else f"({X} < 0)"
    if name in ("floor", "ceil", "trunc"):
        return f"(({R}){name}({X}))" if flt else f"(({R}){X})"
    if name == "spacing":
        if ins[0] == np.float32:
            return f"gb_np_spacingf({X})"
        # NVRTC has no math.h macros (INFINITY): gb_inf; spacing(-0.0) is positive, as NumPy's
        return (f"({X} == 0 ? nextafter(({R})0, ({R})1) : "
                f"(({R})(nextafter({X}, copysign(gb_inf({X}), {X})) - {X})))") if flt else None
    return None


def _cuda_binary(name, ins, out, x="x", y="y"):
    """:func:`_cuda_unary` of a binary ufunc, of the C expressions ``x`` and ``y``."""
    ct = [_c(d) for d in ins]
    X, Y, R = f"(({ct[0]}){x})", f"(({ct[1]}){y})", out.c_type
    flt = ins[0].kind == "f"
    signed = ins[0].kind == "i"
    if name in _WRAPPING and ins[0].kind in "iu":
        # NumPy's integers wrap; C++'s signed overflow (uint16 * uint16 too, computed in int)
        # is undefined
        return f"(({R}){_WRAPPING[name]}<{ct[0]}>({X}, {Y}))"
    if name in _ARITH:
        return f"(({R})({X} {_ARITH[name]} {Y}))"
    if name in _COMPARE:
        return f"({X} {_COMPARE[name]} {Y})"
    if name in ("divide", "true_divide"):
        return f"(({R})({X} / {Y}))"
    if name == "floor_divide":
        if flt:
            return f"gb_floordiv_f<{ct[0]}>({X}, {Y})"
        kind = "s" if signed else "u"
        return f"(({R})gb_udf_floordiv_{kind}<{ct[0]}>({X}, {Y}))"
    if name in ("remainder", "mod"):
        if flt:
            return f"gb_udf_mod_f<{ct[0]}>({X}, {Y})"
        return f"(({R})gb_udf_mod_{'s' if signed else 'u'}<{ct[0]}>({X}, {Y}))"
    if name == "fmod":
        if flt:
            return f"fmod({X}, {Y})"
        # by 0: 0, as NumPy; by -1: 0 (the minimum's remainder overflows in C++)
        zero = f"{Y} == 0 || {Y} == -1" if signed else f"{Y} == 0"
        return f"(({zero}) ? ({R})0 : ({R})({X} % {Y}))"
    if name in ("power", "float_power"):
        if flt:
            return f"(({R})pow({X}, {Y}))"
        return f"(({R})gb_wrapping_pow_{'s' if signed else 'u'}<{ct[0]}>({X}, {Y}))"
    if name in ("gcd", "lcm"):
        return f"(({R})gb_np_{name}<{ct[0]}>({X}, {Y}))"
    if name in ("logaddexp", "logaddexp2"):
        return f"gb_np_{name}<{ct[0]}>({X}, {Y})"
    if name == "nextafter" and ins[0] == np.float32:
        return f"gb_np_nextafterf({X}, {Y})"
    if name == "hypot":
        return f"gb_np_hypot<{ct[0]}>({X}, {Y})"
    if name in ("arctan2", "copysign", "nextafter"):
        func = "atan2" if name == "arctan2" else name
        return f"(({R}){func}({X}, {Y}))"
    if name == "ldexp":
        return (f"(({R})ldexp({X}, (int)({Y} > 4000 ? 4000 : ({Y} < -4000 ? -4000 : {Y}))))")
    if name in ("left_shift", "right_shift"):
        wide = "int64_t" if signed else "uint64_t"
        helper = "gb_udf_shl" if name == "left_shift" else "gb_udf_shr"
        return f"(({R}){helper}<{wide}>(({wide}){X}, (int64_t){Y}))"
    if name == "logical_and":
        return f"(({R})((bool){X} && (bool){Y}))"
    if name == "logical_or":
        return f"(({R})((bool){X} || (bool){Y}))"
    if name == "logical_xor":
        return f"(({R})((bool){X} != (bool){Y}))"
    if name in ("maximum", "minimum"):
        # NaN from either; of equal values the second (NumPy: maximum(0.0, -0.0) is -0.0)
        cmp = ">" if name == "maximum" else "<"
        return f"(({X} {cmp} {Y} || {X} != {X}) ? ({R}){X} : ({R}){Y})"
    if name in ("fmax", "fmin"):
        if flt:
            return f"(({R}){name}({X}, {Y}))"
        cmp = ">" if name == "fmax" else "<"
        return f"(({X} {cmp} {Y}) ? ({R}){X} : ({R}){Y})"
    return None


# -- NumPy functions ------------------------------------------------------------------------------

def _np_unary(ufunc, ins, out, name):
    if name == "reciprocal" and out is BOOL:
        return lambda x: np.asarray(x).astype(bool)
    d = ins[0]
    if name == "reciprocal" and d.kind in "iu":
        # of 0: 0, as on the GPU (NumPy's is undefined: 0 or the type's minimum)
        def reciprocal(x):
            x = np.asarray(x).astype(d, copy=False)
            with np.errstate(all="ignore"):
                return np.where(x == 0, d.type(0), np.reciprocal(np.where(x == 0, 1, x)))
        return reciprocal

    def func(x):
        with np.errstate(all="ignore"):
            return ufunc(np.asarray(x).astype(d, copy=False))
    return func


def _np_binary(ufunc, ins):
    d1, d2 = ins

    def func(x, y):
        with np.errstate(all="ignore"):
            return ufunc(np.asarray(x).astype(d1, copy=False),
                         np.asarray(y).astype(d2, copy=False))
    return func


# -- the operators ---------------------------------------------------------------------------------

def _make_unary(name):
    from .user import TypedUserUnaryOp, UserUnaryOp, _c_name, _place

    op = UserUnaryOp(f"numpy.{name}")
    ufunc = getattr(np, name)
    op.orig_func = ufunc
    for t, (ins, out, ret) in _typing(name, 1).items():
        typed = TypedUserUnaryOp(op, t, ret, _np_unary(ufunc, ins, out, name),
                                 _cuda_unary(name, ins, out))
        typed.cuda_error = None if typed.cuda else f"numpy.{name} has no CUDA expression for {t}"
        op._add(typed)
    op.c_name = _c_name(op.name, "numpy", name)
    _place("unary", op.name, op)
    return op


def _make_binary(name):
    from .user import TypedUserBinaryOp, UserBinaryOp, _c_name, _place

    op = UserBinaryOp(f"numpy.{name}", is_commutative=name in _commutative)
    ufunc = getattr(np, name)
    op.orig_func = ufunc
    for t, (ins, out, ret) in _typing(name, 2).items():
        typed = TypedUserBinaryOp(op, t, ret, _np_binary(ufunc, ins), _cuda_binary(name, ins, out))
        typed.cuda_error = None if typed.cuda else f"numpy.{name} has no CUDA expression for {t}"
        op._add(typed)
    op.c_name = _c_name(op.name, "numpy", name)
    if name in _commutes_to:
        other = _commutes_to[name]
        partner = vars(_binary_ns).get(other)
        if partner is not None:
            op.commutes_to, partner.commutes_to = partner, op
    _place("binary", op.name, op)
    if name in _monoid_identities:  # its monoid now, so that binary.numpy.add.monoid is it
        _make_monoid(name, op)
    return op


def _make_monoid(name, bop=None):
    from .user import _build_monoid, _place

    if bop is None:
        bop = getattr(_binary_ns, name)
        found = vars(_monoid_ns).get(name)
        if found is not None:  # made with its binary operator
            return found
    identity = _monoid_identities[name]
    if isinstance(identity, dict):
        identity = {lookup_dtype(k): v for k, v in identity.items()}
    else:
        identity = dict.fromkeys(bop._typed, identity)
    identity = {t: v for t, v in identity.items()
                if t in bop._typed and bop[t].type is t and bop[t].return_type is t}
    op = _build_monoid(f"numpy.{name}", bop, identity, name in _idempotent, False)
    # not exactly associative in floating point: reduced in NumPy's order (a left fold) on
    # every device, as python-graphblas's results are compared with ``ufunc.reduce``'s
    op.in_order = name in _IN_ORDER
    ufunc = getattr(np, name)
    loops = _typing(name, 2)
    for t, typed in op._typed.items():
        ins, out, _ = loops[t]
        if all(d == t.np_type for d in ins) and out is t:
            typed.np_ufunc = ufunc  # reduceat and at fold in NumPy's order
    _place("monoid", op.name, op)
    return op


def _semiring_names():
    """The pairs ``<monoid>_<binary>`` whose semiring has a type: a binary operator's return
    type that the monoid has."""
    global _SEMIRING_NAMES
    if _SEMIRING_NAMES is None:
        names = set()
        monoid_types = {}
        for m in _monoid_identities:
            bop_types = _types_of(m, 2)
            ident = _monoid_identities[m]
            keys = [lookup_dtype(k) for k in ident] if isinstance(ident, dict) else list(bop_types)
            monoid_types[m] = {t for t in keys if bop_types.get(t) is t}
        for m, b in itertools.product(_monoid_identities, _binary_names):
            if set(_types_of(b, 2).values()) & monoid_types[m]:
                names.add(f"{m}_{b}")
        _SEMIRING_NAMES = names
    return _SEMIRING_NAMES


_SEMIRING_NAMES = None
_TYPES = {}


def _types_of(name, nin):
    if name not in _TYPES:
        _TYPES[name] = {t: ret for t, (ins, out, ret) in _typing(name, nin).items()}
    return _TYPES[name]


def _make_semiring(name):
    from .semiring import get_semiring

    for i in range(1, name.count("_") + 1):
        words = name.split("_")
        m, b = "_".join(words[:i]), "_".join(words[i:])
        if m in _monoid_identities and b in _binary_names:
            break
    op = get_semiring(getattr(_monoid_ns, m), getattr(_binary_ns, b), name=f"numpy.{name}")
    op._anonymous = False  # found again by its name (pickle)
    return op


# -- the namespaces -------------------------------------------------------------------------------

def _module(parent, kind, names, make):
    modname = f"{parent.__name__}.numpy"
    module = types.ModuleType(modname, f"``{kind}.numpy``: {kind} operators computing NumPy's "
                                       "ufuncs (see graphblast.ops.numpy_names).")

    def __getattr__(attr):
        if attr in names():
            op = make(attr)
            setattr(module, attr, op)
            return op
        raise AttributeError(f"module {modname!r} has no attribute {attr!r}")

    def __dir__():
        return set(names()) | {k for k in vars(module) if not k.startswith("_")}

    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
    sys.modules[modname] = module
    parent.numpy = module
    parent.__path__ = []  # ``import graphblast.binary.numpy`` finds it in sys.modules
    return module


_unary_ns = _module(unary, "unary", lambda: _unary_names, _make_unary)
_binary_ns = _module(binary, "binary", lambda: _binary_names, _make_binary)
_monoid_ns = _module(monoid, "monoid", lambda: _monoid_identities, _make_monoid)
_semiring_ns = _module(semiring, "semiring", _semiring_names, _make_semiring)
_unary_ns._unary_names = _unary_names
_binary_ns._binary_names = _binary_names
_monoid_ns._monoid_identities = _monoid_identities


def _op_namespace(ops_module):
    """``op.numpy``: the unary, binary and semiring operators of NumPy's names together."""
    modname = "graphblast.op.numpy"
    module = types.ModuleType(modname, "``op.numpy``: unary.numpy, binary.numpy and "
                                       "semiring.numpy together.")

    def where(attr):
        for ns, names in ((_unary_ns, lambda: _unary_names), (_binary_ns, lambda: _binary_names),
                          (_semiring_ns, _semiring_names)):
            if attr in names() or attr in vars(ns):
                return ns
        return None

    def __getattr__(attr):
        ns = None if attr.startswith("__") else where(attr)
        if ns is None:
            # python-graphblas's message (its tests match it)
            raise AttributeError(f"module 'graphblas.op.numpy' has no attribute {attr!r}")
        op = getattr(ns, attr)
        setattr(module, attr, op)
        return op

    def __dir__():
        return (_unary_names | _binary_names | _semiring_names()
                | {k for k in vars(module) if not k.startswith("_")})

    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
    sys.modules[modname] = module
    sys.modules["graphblast.ops.numpy"] = module
    ops_module.numpy = module
    return module


_op_namespace(sys.modules[__package__])
