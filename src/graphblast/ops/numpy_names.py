"""python-graphblas's ``unary.numpy``, ``binary.numpy``, ``monoid.numpy`` and ``semiring.numpy``:
operators by the names of NumPy's ufuncs (``binary.numpy.add`` is ``binary.plus``,
``semiring.numpy.add_multiply`` is ``semiring.plus_times``).

Each name here is a built-in operator, so it runs on every device.  python-graphblas makes
the ufuncs that have no built-in operator (``binary.numpy.hypot``, ``unary.numpy.fabs``, ...)
into user-defined operators; those come with graphblast's user-defined operators, and until
then asking for one says so.
"""

import sys
import types

from . import binary, monoid, semiring, unary

UNARY = {
    "abs": "abs", "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin",
    "arcsinh": "asinh", "arctan": "atan", "arctanh": "atanh", "bitwise_not": "bnot",
    "cbrt": "cbrt", "ceil": "ceil", "cos": "cos", "cosh": "cosh", "exp": "exp", "exp2": "exp2",
    "expm1": "expm1", "floor": "floor", "invert": "bnot", "isfinite": "isfinite",
    "isinf": "isinf", "isnan": "isnan", "log": "log", "log10": "log10", "log1p": "log1p",
    "log2": "log2", "logical_not": "lnot", "negative": "ainv", "positive": "identity",
    "rint": "round", "sin": "sin", "sinh": "sinh", "sqrt": "sqrt", "tan": "tan", "tanh": "tanh",
    "trunc": "trunc",
}
BINARY = {
    "add": "plus", "bitwise_and": "band", "bitwise_or": "bor", "bitwise_xor": "bxor",
    "equal": "eq", "fmax": "max", "fmin": "min", "logical_and": "land", "logical_or": "lor",
    "logical_xor": "lxor", "multiply": "times", "arctan2": "atan2", "copysign": "copysign",
    "divide": "truediv", "greater": "gt", "greater_equal": "ge", "ldexp": "ldexp", "less": "lt",
    "less_equal": "le", "not_equal": "ne", "power": "pow", "subtract": "minus",
    "true_divide": "truediv",
}
MONOID = {
    "add": "plus", "bitwise_and": "band", "bitwise_or": "bor", "bitwise_xor": "bxor",
    "equal": "eq", "fmax": "max", "fmin": "min", "logical_and": "land", "logical_or": "lor",
    "logical_xor": "lxor", "multiply": "times",
}


def _namespace(kind, parent, table, lookup, lazy=False):
    """The module ``<parent>.numpy``; with ``lazy``, an operator is looked up (a semiring
    built) when first asked for."""
    name = f"{parent.__name__}.numpy"
    module = types.ModuleType(name, f"``{kind}.numpy``: {kind} operators by NumPy's names.")
    for np_name, gb_name in ({} if lazy else table).items():
        op = lookup(gb_name)
        if op is not None:
            setattr(module, np_name, op)

    def __getattr__(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        op = lookup(table[attr]) if lazy and attr in table else None
        if op is not None:
            setattr(module, attr, op)
            return op
        raise AttributeError(
            f"module {name!r} has no attribute {attr!r}: NumPy's {attr!r} has no built-in "
            f"{kind} operator; python-graphblas makes it a user-defined operator")

    module.__getattr__ = __getattr__
    module.__dir__ = lambda: sorted(set(table) if lazy else
                                    (k for k in vars(module) if not k.startswith("_")))
    sys.modules[name] = module
    parent.numpy = module
    parent.__path__ = []  # ``import graphblast.binary.numpy`` finds it in sys.modules
    return module


def _build():
    _namespace("unary", unary, UNARY, lambda n: getattr(unary, n, None))
    _namespace("binary", binary, BINARY, lambda n: getattr(binary, n, None))
    _namespace("monoid", monoid, MONOID, lambda n: getattr(monoid, n, None))
    pairs = {f"{m}_{b}": (MONOID[m], BINARY[b]) for m in MONOID for b in BINARY}

    def lookup(pair):
        add, mult = pair
        m, b = getattr(monoid, add, None), getattr(binary, mult, None)
        if m is None or b is None:
            return None
        try:
            op = semiring.get_semiring(m, b)
        except (TypeError, KeyError, ValueError):
            return None
        return op if op._typed else None

    _namespace("semiring", semiring, pairs, lookup, lazy=True)


_build()
