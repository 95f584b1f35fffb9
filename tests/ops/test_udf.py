"""The translator of user-defined functions (ops/udf.py) and the registration functions
(ops/user.py): types inferred as numba infers them, values of the NumPy translation against
numba's compiled function, the source forms it reads, and the errors."""

import math

import numpy as np
import pytest

import graphblast as gb
from graphblast.dtypes import ALL_TYPES, BOOL, FP32, FP64, INT8, INT64, UINT64
from graphblast.exceptions import DomainMismatch, UdfParseError
from graphblast.ops import binary, indexunary, monoid, select, semiring, udf, unary

numba = pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def _namespaces_restored():
    """Names registered by a test are removed after it (other tests compare the namespaces
    with python-graphblas's)."""
    from graphblast import ops

    modules = (unary, binary, indexunary, select, monoid, semiring, ops)
    before = [set(vars(m)) for m in modules]
    yield
    for module, names in zip(modules, before):
        for name in set(vars(module)) - names:
            delattr(module, name)

# One function per construct (and its typing rule); each of one argument, run on every type.
UNARY_FUNCS = [
    lambda x: x + 1, lambda x: x - 2.5, lambda x: x * x, lambda x: x / 3, lambda x: x // 2,
    lambda x: x % 3, lambda x: x ** 2, lambda x: 2 ** x, lambda x: x ** 0.5, lambda x: -x,
    lambda x: +x, lambda x: ~x, lambda x: not x, lambda x: abs(x), lambda x: x > 1,
    lambda x: 0 < x <= 5, lambda x: x & 6, lambda x: x | 1, lambda x: x ^ 3,
    lambda x: x << 2, lambda x: x >> 1, lambda x: x if x > 0 else 0.5,
    lambda x: x and 3, lambda x: x or 2.0, lambda x: min(x, 3), lambda x: max(x, 2.5, -1),
    lambda x: float(x), lambda x: int(x), lambda x: bool(x), lambda x: round(x),
    lambda x: math.sqrt(x), lambda x: math.floor(x), lambda x: math.ceil(x),
    lambda x: math.trunc(x), lambda x: math.exp(x), lambda x: math.log1p(x),
    lambda x: math.isnan(x), lambda x: math.isinf(x), lambda x: math.fabs(x),
    lambda x: math.atan2(x, 2), lambda x: math.pow(x, 2), lambda x: math.hypot(x, x),
    lambda x: math.copysign(3, x), lambda x: math.degrees(x), lambda x: math.erf(x),
    lambda x: np.sqrt(x), lambda x: np.floor(x), lambda x: np.abs(x), lambda x: np.exp(x),
    lambda x: np.float32(x), lambda x: np.int16(x), lambda x: np.uint8(x),
    lambda x: np.maximum(x, 2), lambda x: np.fmin(x, 1.5), lambda x: math.pi * x,
    lambda x: x * np.e, lambda x: x + True, lambda x: (x > 0) + (x < 2),
    lambda x: -x > 0, lambda x: ~x + 1, lambda x: np.maximum(x, 2.5), lambda x: np.fmax(x, x),
    # NumPy's ufuncs beyond math's names: numba's loop for the argument types, NumPy's values
    lambda x: np.add(x, x), lambda x: np.add(x, 1), lambda x: np.subtract(x, 2),
    lambda x: np.multiply(x, x), lambda x: np.negative(x), lambda x: np.square(x),
    lambda x: np.true_divide(x, 2), lambda x: np.floor_divide(x, 3),
    lambda x: np.remainder(x, -3), lambda x: np.power(x, 2), lambda x: np.fmod(x, 3),
    lambda x: np.logaddexp(x, x), lambda x: np.sign(x), lambda x: np.bitwise_xor(x, 3),
    lambda x: np.greater(x, 1.5), lambda x: np.logical_or(x, False), lambda x: np.rint(x),
    lambda x: np.arctan2(x, 2), lambda x: np.hypot(x, 3.0), lambda x: np.left_shift(x, 2),
    lambda x: np.reciprocal(x), lambda x: np.maximum(np.add(x, x), np.square(x)),
]
_pow_of_x = UNARY_FUNCS[7]
_NP_FLOOR_DIVIDE, _NP_POWER, _NP_FMOD, _NP_SIGN, _NP_RECIPROCAL = (
    UNARY_FUNCS[k] for k in (69, 71, 72, 74, 82))
_THROUGH_FLOAT = {29, 31, 32, 33}  # round, math.floor, math.ceil, math.trunc
_CASTS = {27, 50, 51}  # int(x), np.int16(x), np.uint8(x)
_UNSIGNED_CASTS = {51}


# Functions whose numba value is undefined for some inputs (LLVM's poison or a float detour):
# their values are compared only where it is defined.
_BIG = 2.0**53


def _defined(k, t, xs):
    if k == UNARY_FUNCS.index(_pow_of_x):  # numba's integer power goes through floats
        return np.abs(xs.astype(np.float64)) <= 62
    if k in _THROUGH_FLOAT:  # round/floor/...: an integer via a double, a float to int64
        return np.abs(xs.astype(np.float64)) < (_BIG if t.is_int else 2.0**62)
    if k == 41 and t is UINT64:  # numba's math.hypot reads a uint64 as an int64
        return xs < 2**63
    # where numba's NumPy functions differ from NumPy's, graphblast computes NumPy's (as
    # binary.numpy does): numba's floor_divide(inf, 3) is inf (NumPy: NaN), its integer power
    # goes through floats, its integer fmod and sign read a negative or unsigned value in
    # the other signedness, and its integer reciprocal of 0 is undefined
    func = UNARY_FUNCS[k]
    if func is _NP_FLOOR_DIVIDE and t.is_float:
        return ~np.isinf(xs)
    if func is _NP_POWER and t.is_int:
        return np.abs(xs.astype(np.float64)) < 2**26
    if func in (_NP_FMOD, _NP_SIGN) and t.is_int:
        return (xs >= 0) & (xs.astype(np.float64) < 2**(8 * t.np_type.itemsize - 1))
    if func is _NP_RECIPROCAL:
        return xs != 0
    if k in _CASTS and t.is_float:  # float to integer: undefined outside the range
        return (xs > -1) & (xs < 256) if k in _UNSIGNED_CASTS else np.abs(xs) < 2**31
    return np.ones(len(xs), bool)


def _numba_type(func, argtypes):
    nb = numba.njit(func)
    sig = tuple(numba.from_dtype(t.np_type) for t in argtypes)
    try:
        nb.compile(sig)
    except Exception:  # numba cannot type it: neither should the translator
        return None, None
    rt = nb.overloads[sig].signature.return_type
    return gb.dtypes.lookup_dtype(numba.np.numpy_support.as_dtype(rt)), nb


@pytest.mark.parametrize("k", range(len(UNARY_FUNCS)))
def test_types_and_values_match_numba(k):
    """For every type: the translator types the function as numba does (or, where numba
    cannot type it, leaves the type out), and its NumPy translation computes numba's values
    (python-graphblas's definition) where numba's are defined."""
    func = UNARY_FUNCS[k]
    for t in ALL_TYPES:
        expected, nb = _numba_type(func, [t])
        tr = udf.translate(func, [t], ["x"])
        if expected is None:
            assert tr is None, f"{t}: numba cannot type it, the translation gives {tr.type}"
            continue
        assert tr is not None and tr.type is expected, (t, expected, tr and tr.type)
        xs = _samples(t)
        xs = xs[_defined(k, t, xs)]
        with np.errstate(all="ignore"):
            want = np.array([nb(v) for v in xs], dtype=expected.np_type)
        got = np.asarray(tr.np_func(xs)).astype(expected.np_type)
        ok = np.isnan(want) & np.isnan(got) if expected.is_float else np.zeros(len(xs), bool)
        close = np.isclose(got, want, rtol=1e-6) if expected.is_float else got == want
        assert np.all(close | ok), (t, xs, got, want)


def _samples(t):
    if t is BOOL:
        return np.array([True, False])
    if t.is_float:
        return np.array([-2.5, -1.0, 0.0, 0.5, 1.0, 3.0, 7.25, 1e10, -0.0, np.inf, np.nan],
                        dtype=t.np_type)
    info = np.iinfo(t.np_type)
    values = [info.min, info.min + 1, -3, -1, 0, 1, 2, 5, 100, info.max - 1, info.max]
    return np.array(sorted({v for v in values if info.min <= v <= info.max}), dtype=t.np_type)


def test_semantics_where_numba_is_undefined():
    """Division by zero and big shifts are defined as NumPy defines them; int() saturates."""
    div = udf.translate(lambda x, y: x // y, [INT64, INT64], ["x", "y"]).np_func
    mod = udf.translate(lambda x, y: x % y, [INT64, INT64], ["x", "y"]).np_func
    assert div(np.array([7, -7, 0]), np.array([0, 0, 0])).tolist() == [0, 0, 0]
    assert mod(np.array([7, -7]), np.array([0, 0])).tolist() == [0, 0]
    assert div(np.array([-7, 7]), np.array([2, -2])).tolist() == [-4, -4]
    assert mod(np.array([-7, 7]), np.array([2, -2])).tolist() == [1, -1]
    shl = udf.translate(lambda x, y: x << y, [INT64, INT64], ["x", "y"]).np_func
    shr = udf.translate(lambda x, y: x >> y, [INT64, INT64], ["x", "y"]).np_func
    assert shl(np.array([1, 1, 1]), np.array([3, 64, -1])).tolist() == [8, 0, 0]
    assert shr(np.array([-8, -8, 8]), np.array([1, 70, 70])).tolist() == [-4, -1, 0]
    to_int = udf.translate(lambda x: int(x), [FP64], ["x"]).np_func
    assert to_int(np.array([np.nan, 1e300, -1e300, -2.7])).tolist() == [
        0, 2**63 - 1, -2**63, -2]


def test_functions_and_statements():
    def branches(x, y):
        """A docstring."""
        t = x * y
        if t > 10:
            t -= 10
        elif t < 0:
            return -t
        else:
            t = t + 1
        u: float = t / 2
        return u if x != 3 else 0

    op = binary.register_anonymous(branches)
    got = op["INT64"].np_func(np.array([4, -2, 3, 1]), np.array([5, 3, 5, 2]))
    assert got.tolist() == [branches(4, 5), branches(-2, 3), branches(3, 5), branches(1, 2)]
    assert op["INT64"].return_type is FP64


def test_closures_and_globals_are_constants():
    k = 3

    def add_k(x):
        return x + k * SCALE

    op = unary.register_anonymous(add_k)
    assert op["INT32"].np_func(np.array([1, 2], np.int32)).tolist() == [61, 62]
    assert "20" in op["INT32"].cuda


SCALE = 20


def test_lambda_sources():
    """A lambda is found in its line among others (different arguments), in a call split over
    lines, and by its free names."""
    ops = [unary.register_anonymous(lambda x: x * 2), binary.register_anonymous(lambda a, b:
                                                                               a - b)]
    assert ops[0]["INT8"].np_func(np.array([3], np.int8)).tolist() == [6]
    assert ops[1]["INT8"].np_func(np.array([3], np.int8), np.array([1], np.int8)).tolist() == [2]
    pair = [lambda x: x + 1, lambda x: x - 1]  # told apart by the columns of their code
    op = unary.register_anonymous(pair[1])
    assert op["INT8"].np_func(np.array([3], np.int8)).tolist() == [2]
    assert "gb_sub" in op["INT8"].cuda


def test_errors():
    with pytest.raises(TypeError, match="UDF argument must be a function"):
        unary.register_new("not_a_function", object())
    assert not hasattr(unary, "not_a_function")
    v = gb.Vector.from_coo([0], [1])
    with pytest.raises(UdfParseError, match="Unable to parse function using Numba"):
        unary.register_anonymous(lambda x: v)
    with pytest.raises(AttributeError, match="unary.abs is already defined"):
        unary.register_new("abs", lambda x: x)
    with pytest.raises(ValueError, match="SelectOp must have BOOL return type"):
        select.register_anonymous(lambda x, i, j, t: x + t)
    bop = binary.register_anonymous(lambda x, y: x + y + 1)
    with pytest.raises(DomainMismatch):
        monoid.register_anonymous(bop, {"BOOL": True})
    with pytest.raises(TypeError, match="binaryop must be a BinaryOp"):
        monoid.register_anonymous(monoid.plus, 0)
    with pytest.raises(TypeError, match="monoid must be a Monoid"):
        semiring.register_anonymous(binary.plus, binary.plus)


def test_untranslatable_messages_name_the_construct():
    cases = [
        (lambda x: "a", "the constant 'a'"),
        (lambda x: x.real, "the attribute x.real"),
        (lambda x: len(x), "a call of len()"),
        (lambda x: [x][0], "[x][0] (Subscript)"),
        (lambda x: x is x, "the comparison Is"),
    ]
    for func, construct in cases:
        with pytest.raises(UdfParseError) as info:
            udf.translate(func, [INT8], ["x"])
        message = str(info.value)
        assert construct in message and "Supported:" in message, message


def test_typed_ops_behave_like_builtins():
    op = unary.register_new("udf_test_plus_one", lambda x: x + 1)
    assert unary.udf_test_plus_one is op and gb.op.udf_test_plus_one is op
    assert op.types[INT8] is INT8 and op.types[BOOL] is INT8 and op.types[UINT64] is UINT64
    assert op[int].orig_func is op.orig_func and op["FP32"].return_type is FP32
    del op["INT8"]
    assert "INT8" not in op
    nested = unary.register_new("udf_test.inner.plus_two", lambda x: x + 2)
    assert unary.udf_test.inner.plus_two is nested
    with pytest.raises(AttributeError, match="already defined"):
        unary.register_new("udf_test.inner.plus_two", lambda x: x)
    assert unary.register_new("udf_test_lazy", lambda x: x * 3, lazy=True) is None
    assert "udf_test_lazy" in dir(unary)
    assert unary.udf_test_lazy[INT64].np_func(np.array([2])).tolist() == [6]


def test_indexunary_arguments():
    iu = indexunary.register_anonymous(lambda x, row, col, thunk: x + row * 10 + col - thunk)
    A = gb.Matrix.from_coo([0, 1, 2], [2, 0, 1], [1, 2, 3], dtype="INT32")
    got = A.apply(iu, 5).new()
    assert got.to_coo()[2].tolist() == [1 + 0 + 2 - 5, 2 + 10 + 0 - 5, 3 + 20 + 1 - 5]
    # row and col are uint64 in numba, so x + row is int64: the INT32 type stays (downcast)
    assert iu.types[gb.dtypes.INT32].name == "INT32"


def test_parameterized():
    def plus_k(k=0):
        def inner(x, y):
            return x + y + k
        return inner

    op = binary.register_anonymous(plus_k, parameterized=True)
    mon = monoid.register_anonymous(op, lambda k=0: -k)
    assert op(2).monoid is mon(2) and op(2) is op(2) and op(2) is not op(3)
    v = gb.Vector.from_coo([0, 1], [1, 2])
    assert v.ewise_mult(v, op(1)).new().to_coo()[1].tolist() == [3, 5]
    assert v.reduce(mon(1)).new().value == 4
    assert v.apply(op, right=1).new().to_coo()[1].tolist() == [2, 3]


def _pickled_double(x):
    return x * 2


def _pickled_add(x, y):
    return x + y


def _pickled_add_k(k=0):
    def inner(x, y):
        return x + y + k
    return inner


def test_pickle():
    import pickle

    un = unary.register_anonymous(_pickled_double)
    named = binary.register_new("udf_test_pickled_add", _pickled_add)
    mon = monoid.register_anonymous(named, 0)
    sr = semiring.register_anonymous(mon, named)
    par = binary.register_anonymous(_pickled_add_k, parameterized=True)
    for op in (un, mon, sr, un["INT8"], sr["FP32"], par(3)):
        back = pickle.loads(pickle.dumps(op))
        assert type(back) is type(op) and repr(back) == repr(op)
    assert pickle.loads(pickle.dumps(named)) is named
    back = pickle.loads(pickle.dumps(par(3)))
    assert back["INT64"].np_func(np.array([1]), np.array([2])).tolist() == [6]
    assert pickle.loads(pickle.dumps(mon))["INT32"].identity == 0


def test_pickle_parameterized():
    import pickle

    par = binary.register_anonymous(_pickled_add_k, parameterized=True)
    mon = monoid.register_anonymous(par, 0, is_idempotent=False)
    sr = semiring.register_anonymous(mon, par)
    for op in (par, mon, sr, mon(2), sr(1)):
        back = pickle.loads(pickle.dumps(op))
        assert type(back) is type(op) and back.name == op.name
    assert pickle.loads(pickle.dumps(sr(1)))["INT64"].monoid.identity == 0
