"""User-defined operators against python-graphblas (its UDFs compiled by numba): the types and
return types each function gets, and the results of every operation kind (apply, select,
ewise_add/mult/union, reductions with a user's monoid, mxv/vxm/mxm with a user's semiring) on
random inputs of several types.  graphblast translates the functions (ops/udf.py); on the GPU
they run inside its kernels."""

import math

import numpy as np
import pytest
from diffharness import ALL_TYPES, VectorData  # noqa: F401  (VectorData: the data classes)

graphblas = pytest.importorskip("graphblas")
pytest.importorskip("numba")


# -- the functions (module level: the translator reads their source) -------------------------

def u_plus_one(x):
    return x + 1


def u_poly(x):
    return x * x - 3 * x + 1


def u_floor_mod(x):
    return x // 3 + x % 3


def u_neg_abs(x):
    return -abs(x)


def u_positive(x):
    return x > 0


def u_sqrt(x):
    return math.sqrt(abs(x))


def u_branch(x):
    """A branch with a local assignment."""
    y = x * 2
    if y > 4:
        y = y - 10
    return y if x != 1 else 7


def u_minmax(x):
    # (min and max themselves: test_minmax_builtins; python-graphblas fails to register
    # them, lowering min of its complex types)
    return -2 if x < -2 else (x if x < 5 else 5)


def u_square(x):
    return x ** 2


def u_half(x):
    return x / 2


UNARY = [u_plus_one, u_poly, u_floor_mod, u_neg_abs, u_positive, u_sqrt, u_branch, u_minmax,
         u_square, u_half]


def b_add(x, y):
    return x + y


def b_times_minus_sum(x, y):
    return x * y - (x + y)


def b_floordiv(x, y):
    return x // y


def b_mod(x, y):
    return x % y


def b_truediv(x, y):
    return x / y


def b_max(x, y):
    return x if x >= y else y


def b_logic(x, y):
    return x > y and y > 0


def b_cond(x, y):
    if x > y:
        return x - y
    elif x == y:
        return 0
    return y * 2


def b_hypot(x, y):
    return math.sqrt(x * x + y * y)


def b_pow(x, y):
    return x ** 2 + y


BINARY = [b_add, b_times_minus_sum, b_floordiv, b_mod, b_truediv, b_max, b_logic, b_cond,
          b_hypot, b_pow]
# Functions whose divisor must not be 0 (numba raises there; its result is undefined).
DIVIDES = {b_floordiv, b_mod, b_truediv}


def i_shift(x, row, col, thunk):
    return x + row - col * thunk


def i_band(x, row, col, thunk):
    return (row + col) // 2 >= thunk


INDEXUNARY = [i_shift, i_band]


def m_plus_plus_one(x, y):
    return x + y + 1


def m_min(x, y):
    return x if x < y else y


def s_times(x, y):
    return x * y


def s_plus(x, y):
    return x + y


TYPES = ["BOOL", "INT8", "INT32", "UINT8", "UINT64", "INT64", "FP32", "FP64"]

_made = {}


def _cached(key, make):
    if key not in _made:
        _made[key] = make()
    return _made[key]


def _op(gb, kind, func):
    """The operator of ``func`` in library ``gb`` (made once per library)."""
    return _cached((gb.name, kind, func),
                   lambda: getattr(gb, kind).register_anonymous(func))


def _binop(gb, func):
    return _op(gb, "binary", func)


def _monoid(gb, func, identity):
    return _cached((gb.name, "monoid", func, repr(identity)),
                   lambda: gb.monoid.register_anonymous(_binop(gb, func), identity))


def _semiring(gb, add, identity, mult):
    return _cached((gb.name, "semiring", add, repr(identity), mult),
                   lambda: gb.semiring.register_anonymous(_monoid(gb, add, identity),
                                                          _binop(gb, mult)))


# -- types ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, func", [("unary", f) for f in UNARY]
                         + [("binary", f) for f in BINARY]
                         + [("indexunary", f) for f in INDEXUNARY])
def test_types(kind, func):
    """Every function is typed for the same types, with the same return types."""
    import graphblast

    ours = getattr(graphblast, kind).register_anonymous(func)
    theirs = getattr(graphblas, kind).register_anonymous(func)
    got = {t.name: r.name for t, r in ours.types.items()}
    exp = {str(t): str(r) for t, r in theirs.types.items() if str(t) in set(ALL_TYPES)}
    assert got == exp


# -- operations ------------------------------------------------------------------------------------

@pytest.mark.parametrize("func", UNARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", TYPES)
def test_apply_unary(diff, func, dtype):
    if dtype not in {t.name for t in _op(diff.tgt, "unary", func).types}:
        pytest.fail(f"{func.__name__} lacks {dtype}")
    A = diff.matrix(dtype, 6, 5, 0.5)
    v = diff.vector(dtype, 9, 0.6)
    diff.check(lambda gb, A: A.apply(_op(gb, "unary", func)).new(), A)
    diff.check(lambda gb, v: v.apply(_op(gb, "unary", func)).new(), v)


@pytest.mark.parametrize("func", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", TYPES)
def test_ewise(diff, func, dtype):
    nonzero = func in DIVIDES
    if nonzero and dtype == "BOOL":
        return  # BOOL's only nonzero value is True: covered by the other types
    A = diff.matrix(dtype, 6, 5, 0.5, nonzero=nonzero)
    B = diff.matrix(dtype, 6, 5, 0.5, nonzero=nonzero)
    u = diff.vector(dtype, 9, 0.6, nonzero=nonzero)
    w = diff.vector(dtype, 9, 0.6, nonzero=nonzero)
    diff.check(lambda gb, A, B: A.ewise_mult(B, _binop(gb, func)).new(), A, B)
    diff.check(lambda gb, A, B: A.ewise_add(B, _binop(gb, func)).new(), A, B)
    diff.check(lambda gb, u, w: u.ewise_mult(w, _binop(gb, func)).new(), u, w)
    diff.check(lambda gb, u, w: u.ewise_union(w, _binop(gb, func), 1, 2).new(), u, w)
    # bound to a scalar on either side
    diff.check(lambda gb, A: A.apply(_binop(gb, func), right=3).new(), A)
    diff.check(lambda gb, u: u.apply(_binop(gb, func), left=2).new(), u)


@pytest.mark.parametrize("func", INDEXUNARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["INT8", "INT64", "UINT32", "FP32", "FP64"])
def test_indexunary_and_select(diff, func, dtype):
    A = diff.matrix(dtype, 7, 6, 0.5)
    v = diff.vector(dtype, 9, 0.6)
    diff.check(lambda gb, A: A.apply(_op(gb, "indexunary", func), 2).new(), A)
    diff.check(lambda gb, v: v.apply(_op(gb, "indexunary", func), 1).new(), v)
    if func is i_band:
        diff.check(lambda gb, A: A.select(_op(gb, "select", func), 3).new(), A)
        diff.check(lambda gb, v: v.select(_op(gb, "select", func), 2).new(), v)


@pytest.mark.parametrize("dtype", ["INT8", "INT32", "UINT16", "INT64", "FP32", "FP64"])
@pytest.mark.parametrize("add, identity", [(m_plus_plus_one, -1), (m_min, None)])
def test_reduce(diff, dtype, add, identity):
    if identity is None:
        info = np.iinfo(dtype.lower()) if not dtype.startswith("FP") else None
        identity = {dtype: np.inf if info is None else info.max}
    A = diff.matrix(dtype, 7, 6, 0.5)
    v = diff.vector(dtype, 11, 0.6)
    diff.check(lambda gb, A: A.reduce_rowwise(_monoid(gb, add, identity)).new(), A)
    diff.check(lambda gb, A: A.reduce_columnwise(_monoid(gb, add, identity)).new(), A)
    diff.check(lambda gb, v: v.reduce(_monoid(gb, add, identity)).new(), v)
    diff.check(lambda gb, A: A.reduce_scalar(_monoid(gb, add, identity)).new(), A)
    diff.check(lambda gb, A, B: A.ewise_add(B, _monoid(gb, add, identity)).new(), A,
               diff.matrix(dtype, 7, 6, 0.5))


SEMIRINGS = [(s_plus, 0, s_times), (m_min, None, s_plus), (m_plus_plus_one, -1, s_times)]


@pytest.mark.parametrize("dtype", ["INT8", "INT32", "UINT64", "FP32", "FP64"])
@pytest.mark.parametrize("parts", SEMIRINGS, ids=["plus_times", "min_plus", "pp1_times"])
def test_semiring_products(diff, dtype, parts):
    add, identity, mult = parts
    if identity is None:
        identity = {dtype: np.inf if dtype.startswith("FP") else np.iinfo(dtype.lower()).max}
    A = diff.matrix(dtype, 8, 7, 0.4)
    B = diff.matrix(dtype, 7, 6, 0.4)
    u = diff.vector(dtype, 7, 0.6)
    w = diff.vector(dtype, 8, 0.6)

    def sr(gb):
        return _semiring(gb, add, identity, mult)

    diff.check(lambda gb, A, u: A.mxv(u, sr(gb)).new(), A, u)
    diff.check(lambda gb, A, w: w.vxm(A, sr(gb)).new(), A, w)
    diff.check(lambda gb, A, B: A.mxm(B, sr(gb)).new(), A, B)
    diff.check(lambda gb, A, B: A.T.mxm(A, sr(gb)).new(), A, B)


# -- integer corners: 64-bit arithmetic, wrapping, floor division and modulo signs ------------

def c_overflow_compare(x, y):
    return x + y > 0  # in 64 bits: 100 + 100 > 0 even for INT8


def c_wrap(x, y):
    return x * y - x - y


def c_floordiv_mod(x, y):
    return (x // y) * 10 + x % y


def c_cube(x, y):
    return x ** 3 - y


def c_neg_abs(x, y):
    return -x + abs(y)


def c_mixed(x, y):
    return x / y + (x // 2) * 0.5


CORNERS = [c_overflow_compare, c_wrap, c_floordiv_mod, c_cube, c_neg_abs, c_mixed]


def _extremes(dtype):
    info = np.iinfo(dtype.lower()) if not dtype.startswith("FP") else None
    if info is None:
        return np.array([-7.5, -1.0, 0.5, 3.0, 1e30, -2.5e-3],
                        dtype={"FP32": np.float32, "FP64": np.float64}[dtype])
    values = [info.min, info.min + 1, -7, -1, 1, 3, 7, info.max - 1, info.max]
    # no 0: numba raises dividing by it, and python-graphblas's result is then undefined
    return np.array(sorted({v for v in values if info.min <= v <= info.max and v != 0}),
                    dtype=dtype.lower())


@pytest.mark.parametrize("func", CORNERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["INT8", "INT16", "INT32", "INT64", "UINT8", "UINT32",
                                   "UINT64", "FP32", "FP64"])
def test_integer_corners(diff, func, dtype):
    """Every pair of the type's extreme values (divisors never 0): Python's floor division
    and modulo, 64-bit intermediate results, wrapping on the way back to the type."""
    from diffharness import VectorData

    if func is c_overflow_compare and dtype == "INT64":
        return  # numba's signed 64-bit overflow is undefined (LLVM's nsw): no reference
    vals = _extremes(dtype)
    x = np.repeat(vals, len(vals))
    y = np.tile(vals, len(vals))
    n = len(x)
    u = VectorData(dtype, n, np.arange(n), x)
    w = VectorData(dtype, n, np.arange(n), y)
    diff.check(lambda gb, u, w: u.ewise_mult(w, _binop(gb, func)).new(), u, w)
