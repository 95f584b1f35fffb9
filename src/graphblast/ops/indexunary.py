"""Built-in index-unary operators: ``z = f(x, i, j, thunk)`` (GraphBLAS C API 2.0).

``i`` and ``j`` are the row and column of the entry (int64; ``j`` is 0 for a Vector), ``x`` its
value and ``thunk`` a scalar argument.  The operators and their types are python-graphblas's:

==========================  ===========================  ==================================
operator                    z                            types (input -> result)
==========================  ===========================  ==================================
rowindex (alias ``index``)  ``i + thunk``                INT32, INT64; UINT64 -> INT64
colindex                    ``j + thunk``                INT32, INT64; UINT64 -> INT64
diagindex                   ``j - (i + thunk)``          INT32, INT64
tril, triu                  ``j <= i + thunk``, ``>=``   BOOL; UINT64 -> BOOL
diag, offdiag               ``j == i + thunk``, ``!=``   BOOL; UINT64 -> BOOL
colle, colgt                ``j <= thunk``, ``>``        BOOL; UINT64 -> BOOL
rowle, rowgt (``indexle``,  ``i <= thunk``, ``>``        BOOL; UINT64 -> BOOL
``indexgt``)
valueeq ... valuele         ``x == thunk`` ...           every type -> BOOL
==========================  ===========================  ==================================

The positional operators ignore ``x``: any input type finds them (``tril["FP64"]`` is
``tril[BOOL]``), their thunk is INT64 (``rowindex[INT32]`` and ``diagindex[INT32]`` take an INT32
thunk and compute in int64 before casting, as SuiteSparse), and integer arithmetic wraps.  For
``value*`` the thunk has the value's type.  The CUDA expressions are in ``x``, ``i``, ``j``
(int64_t) and ``thunk``.
"""

from types import SimpleNamespace

import numpy as np

from ..dtypes import ALL_TYPES, BOOL, INT32, INT64, UINT64
from .base import IndexUnaryOp, PerType, parse_op_string
from .binary import quiet


def _index(v):
    return np.asarray(v, np.int64)


def _define(name, np_factory, cuda_factory, types, return_type=None, uses_value=True,
            thunk_type=None, is_positional=False):
    return IndexUnaryOp.define(
        name, PerType(lambda t: quiet(np_factory(t))), PerType(cuda_factory), types=types,
        return_type=return_type, uses_value=uses_value, thunk_type=thunk_type,
        is_positional=is_positional)


# ----- index values -----

def _index_op(name, formula, c_formula, is_positional):
    """``rowindex``-like operators: an int64 formula of i, j and the thunk, cast to the type."""
    def np_factory(t):
        def f(x, i, j, thunk):
            k = np.asarray(thunk).astype(t.np_type).astype(np.int64)
            return formula(_index(i), _index(j), k).astype(t.np_type)
        return f

    def cuda_factory(t):
        return c_formula.format(thunk="(int64_t)thunk")

    op = _define(name, np_factory, cuda_factory, [INT32, INT64], uses_value=False,
                 is_positional=is_positional)
    if is_positional:
        op._coerce([UINT64], INT64)
    return op


rowindex = _index_op("rowindex", lambda i, j, k: i + k, "i + {thunk}", True)
colindex = _index_op("colindex", lambda i, j, k: j + k, "j + {thunk}", True)
# python-graphblas does not mark diagindex positional: it has only its INT32 and INT64 types.
diagindex = _index_op("diagindex", lambda i, j, k: j - (i + k), "j - (i + {thunk})", False)


# ----- positional predicates -----

def _predicate(name, formula, c_expr):
    def np_factory(t):
        return lambda x, i, j, thunk: formula(_index(i), _index(j), np.int64(thunk))

    op = _define(name, np_factory, lambda t: c_expr, [BOOL], return_type=BOOL,
                 uses_value=False, thunk_type=INT64, is_positional=True)
    op._coerce([UINT64], BOOL)
    return op


tril = _predicate("tril", lambda i, j, k: j <= i + k, "j <= i + thunk")
triu = _predicate("triu", lambda i, j, k: j >= i + k, "j >= i + thunk")
diag = _predicate("diag", lambda i, j, k: j == i + k, "j == i + thunk")
offdiag = _predicate("offdiag", lambda i, j, k: j != i + k, "j != i + thunk")
colle = _predicate("colle", lambda i, j, k: j <= k, "j <= thunk")
colgt = _predicate("colgt", lambda i, j, k: j > k, "j > thunk")
rowle = _predicate("rowle", lambda i, j, k: i <= k, "i <= thunk")
rowgt = _predicate("rowgt", lambda i, j, k: i > k, "i > thunk")

# python-graphblas's aliases that read better for Vectors.
index = rowindex
indexle = rowle
indexgt = rowgt


# ----- value predicates -----

def _value_predicate(name, ufunc, symbol):
    def np_factory(t):
        return lambda x, i, j, thunk: ufunc(x, np.asarray(thunk).astype(t.np_type))

    return _define(name, np_factory, lambda t: f"x {symbol} thunk", ALL_TYPES,
                   return_type=BOOL)


valueeq = _value_predicate("valueeq", np.equal, "==")
valuene = _value_predicate("valuene", np.not_equal, "!=")
valuegt = _value_predicate("valuegt", np.greater, ">")
valuege = _value_predicate("valuege", np.greater_equal, ">=")
valuelt = _value_predicate("valuelt", np.less, "<")
valuele = _value_predicate("valuele", np.less_equal, "<=")

#: python-graphblas has no SuiteSparse-specific index-unary operators.
ss = SimpleNamespace()


def from_string(string):
    """The index-unary operator named by ``string`` (``"tril"``, ``"rowindex[INT32]"``).

    As in python-graphblas, the symbols (``"<"``, ``"row<="``, ...) give the select operators
    of ``graphblast.ops.select``, which are index-unary operators too.

    Raises
    ------
    ValueError
        If the string names no index-unary operator.
    """
    from .select import _STRINGS

    return parse_op_string(string, "indexunary", _STRINGS, _namespace_lookup, "row_index")


def _namespace_lookup(name):
    op = globals().get(name)
    return op if isinstance(op, IndexUnaryOp) else None


__all__ = sorted(name for name, obj in globals().items() if isinstance(obj, IndexUnaryOp))
