"""The operator catalogue against python-graphblas (SuiteSparse:GraphBLAS) as the reference.

Names and types of every namespace must be python-graphblas's for the real types; every typed
operator's NumPy function must give SuiteSparse's values on the corner values of its type
(bit for bit on integers and BOOL, NaN-aware equality or a few ulps on floats where the math
libraries differ); monoid identities, terminals and idempotence, semiring structure, the
positional operators' ``position`` and ``from_string`` must agree.
"""

import itertools
import warnings

import numpy as np
import pytest

from graphblast.dtypes import ALL_TYPES, cast, lookup_dtype
from graphblast.ops import binary, indexunary, monoid, select, semiring, unary
from graphblast import ops

gb = pytest.importorskip("graphblas")
from graphblas.core.operator.base import OpBase as GbOpBase  # noqa: E402

REAL = {t.name for t in ALL_TYPES}
NAMESPACES = {"unary": unary, "binary": binary, "monoid": monoid, "semiring": semiring,
              "indexunary": indexunary, "select": select}
# Not operators of the real types: complex-only operators and complex results.  (``isclose``
# is a ParameterizedBinaryOp there, not an operator object: see test_isclose.)
NOT_OURS = {"carg", "cimag", "conj", "creal", "cmplx"}
PARAMETERIZED = {"binary": {"isclose"}}


def _gb_ops(namespace):
    """``{name: op}`` of python-graphblas's namespace, ``ss`` included, real types only."""
    module = getattr(gb, namespace)
    found = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the top-level ss names
        for source in (module, getattr(module, "ss", None)):
            for name in dir(source):
                if name.startswith("_") or name in NOT_OURS:
                    continue
                obj = getattr(source, name)
                if not isinstance(obj, GbOpBase):
                    continue
                if any(k.name in REAL for k in obj.types):
                    found[name] = obj
    return found


GB_OPS = {ns: _gb_ops(ns) for ns in NAMESPACES}


def _ours(namespace, name):
    return getattr(NAMESPACES[namespace], name)


def _real_types(gbop):
    return [t.name for t in gbop.types if t.name in REAL]


def _plain(name):
    return name[3:] if name.startswith("ss.") else name


# ---------------------------------------------------------------------------------------------
# names and types
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("namespace", list(NAMESPACES))
def test_names(namespace):
    ours = {name for name in NAMESPACES[namespace].__all__}
    assert ours == set(GB_OPS[namespace]) | PARAMETERIZED.get(namespace, set())
    # the SuiteSparse-specific operators are also under ``ss``
    gb_ss = {n for n in dir(getattr(gb, namespace).ss) if n in GB_OPS[namespace]}
    assert set(vars(NAMESPACES[namespace].ss)) == gb_ss


@pytest.mark.parametrize("namespace", list(NAMESPACES))
def test_types_and_coercions(namespace):
    for name, gbop in GB_OPS[namespace].items():
        ours = _ours(namespace, name)
        assert ours.types.keys() == {lookup_dtype(t) for t in _real_types(gbop)}, name
        assert bool(ours.is_positional) == bool(gbop.is_positional), name
        for t in _real_types(gbop):
            mine, theirs = ours[t], gbop[t]
            # A coerced type maps to the same variant as in python-graphblas.
            assert (mine.type.name, mine.return_type.name) == (
                theirs.type.name, theirs.return_type.name), (name, t)
            assert _plain(mine.name) == _plain(theirs.name), (name, t)


def test_positional_lookup_of_any_type():
    for name in ("tril", "rowindex", "colle"):
        for t in ("FP64", "INT8"):
            ours = indexunary.__dict__[name][t]
            assert ours.type.name == getattr(gb.indexunary, name)[t].type.name
    with pytest.raises(KeyError, match="diagindex does not work with FP64"):
        indexunary.diagindex["FP64"]
    with pytest.raises(KeyError, match="bshift does not work with FP32"):
        binary.bshift["FP32"]


def test_semiring_structure():
    for name, gbop in GB_OPS["semiring"].items():
        ours = semiring.__dict__[name]
        for t in _real_types(gbop):
            mine, theirs = ours[t], gbop[t]
            assert _plain(mine.monoid.parent.name) == _plain(theirs.monoid.parent.name), (name, t)
            assert mine.monoid.type.name == theirs.monoid.type.name, (name, t)
            assert _plain(mine.binaryop.parent.name) == _plain(theirs.binaryop.name), (name, t)
            assert mine.binaryop.type.name == theirs.binaryop.type.name, (name, t)


def _gb_terminal(typed):
    from suitesparse_graphblas import ffi, lib

    has = ffi.new("bool*")
    value = ffi.new(f"{typed.type.c_type}*")
    assert lib.GxB_Monoid_terminal(has, value, typed.gb_obj) == 0
    return value[0] if has[0] else None


def test_monoid_identities_and_terminals():
    for name, gbop in GB_OPS["monoid"].items():
        ours = monoid.__dict__[name]
        assert ours.is_idempotent == gbop.is_idempotent, name
        for t in _real_types(gbop):
            mine, theirs = ours[t], gbop[t]
            assert mine.identity == theirs.identity, (name, t)
            assert type(mine.identity) is mine.return_type.np_type.type, (name, t)
            assert mine.terminal == _gb_terminal(theirs), (name, t)
            assert _plain(mine.binaryop.parent.name) == _plain(theirs.binaryop.name), (name, t)
            assert mine.binaryop.type.name == theirs.binaryop.type.name, (name, t)


def test_binaryop_monoid_link():
    for name, gbop in GB_OPS["binary"].items():
        ours = binary.__dict__[name]
        gbm = gbop.monoid
        assert (ours.monoid is None) == (gbm is None), name
        if gbm is not None:
            assert ours.monoid.name == gbm.name, name
        gbc = gbop.commutes_to
        assert (None if ours.commutes_to is None else ours.commutes_to.name) == (
            None if gbc is None else _plain(gbc.name)), name


# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------

def corner_values(t):
    """The corner values of type ``t``: zero, one, minus one, limits, NaN, infinities, ..."""
    t = lookup_dtype(t)
    if t.is_bool:
        return np.array([False, True])
    if t.is_float:
        fi = np.finfo(t.np_type)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.0, 3.0, 7.0, -7.0, 1 / 3, 100.5,
                1e-5, 1e10, -1e10, 40.0, np.nan, np.inf, -np.inf, fi.max, -fi.max,
                fi.tiny, fi.smallest_subnormal, 0.49999997, -171.5, 200.0]
        return np.array(vals, t.np_type)
    info = np.iinfo(t.np_type)
    bits = t.np_type.itemsize * 8
    # 9, 22, 27, 39: 100**9, 7**22, 5**27, 3**39 lie between 2**53 and 2**63 (pow rounds)
    vals = {0, 1, 2, 3, 5, 7, 9, 22, 27, 39, 100, bits - 1, bits, bits + 1, info.max,
            info.max - 1, info.max // 2, info.max // 2 + 1}
    if t.is_signed:
        vals |= {-1, -2, -3, -5, -7, -bits, info.min, info.min + 1}
    return np.array(sorted(v for v in vals if info.min <= v <= info.max), t.np_type)


def _gb_vector(values, t):
    return gb.Vector.from_coo(np.arange(len(values)), values, dtype=t, size=len(values))


def _dense(v, dtype):
    idx, vals = v.to_coo()
    assert len(idx) == v.size  # full in, full out
    return vals.astype(dtype.np_type, copy=False)


def _ulp_diff(a, b):
    """Distance in units in the last place between float arrays of the same type."""
    bits = a.dtype.itemsize * 8
    signed, unsigned = {32: (np.int32, np.uint32), 64: (np.int64, np.uint64)}[bits]
    magnitude = (1 << (bits - 1)) - 1

    def ordered(f):
        # Sign-magnitude bit patterns on a monotonic line: -x maps to -(bits of x).
        i = f.view(signed)
        return np.where(i < 0, -(i & magnitude), i).astype(signed).view(unsigned)

    d = ordered(a) - ordered(b)  # modular: exact while the true distance is below 2**(bits-1)
    return np.minimum(d, -d)


def assert_same(ours, theirs, ulps=0, what=""):
    """Exact equality (NaN equals NaN, -0.0 equals 0.0), or ``ulps`` on finite floats."""
    assert ours.dtype == theirs.dtype, what
    if ours.dtype.kind != "f" or ulps == 0:
        np.testing.assert_array_equal(ours, theirs, err_msg=what)
        return
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg=what)
    np.testing.assert_array_equal(np.isinf(ours) * np.sign(ours),
                                  np.isinf(theirs) * np.sign(theirs), err_msg=what)
    fin = np.isfinite(ours) & np.isfinite(theirs)
    o, t = ours[fin], theirs[fin]
    # -0.0 and 0.0 are the same value
    o = np.where(o == 0, 0, o).astype(ours.dtype)
    t = np.where(t == 0, 0, t).astype(ours.dtype)
    diff = _ulp_diff(o, t)
    assert diff.max(initial=0) <= ulps, (what, o[diff > ulps], t[diff > ulps])


# Where the C math libraries may round differently (glibc vs NumPy/SciPy implementations).
UNARY_ULPS = {"erf": 2, "erfc": 4, "lgamma": 8, "tgamma": 16, "cbrt": 2, "exp": 2, "exp2": 2,
              "expm1": 2, "log": 2, "log10": 2, "log1p": 2, "log2": 2, "sin": 2, "cos": 2,
              "tan": 2, "sinh": 2, "cosh": 2, "tanh": 2, "asin": 2, "acos": 2, "atan": 2,
              "asinh": 2, "acosh": 2, "atanh": 2}
BINARY_ULPS = {"atan2": 2, "pow": 1, "rpow": 1, "hypot": 1}

UNARY_NAMES = [n for n, op in GB_OPS["unary"].items() if not op.is_positional]
BINARY_NAMES = [n for n, op in GB_OPS["binary"].items() if not op.is_positional]


@pytest.mark.parametrize("name", UNARY_NAMES)
def test_unary_values(name):
    gbop = GB_OPS["unary"][name]
    ours = unary.__dict__[name]
    for t in _real_types(gbop):
        x = corner_values(t)
        typed = ours[t]
        expected = _dense(_gb_vector(x, t).apply(gbop[t]).new(), typed.return_type)
        got = typed.np_func(cast(x, typed.type))
        assert_same(got, expected, UNARY_ULPS.get(name, 0), f"unary.{name}[{t}]")


def _defined_pairs(name, t, x, y):
    """Pairs where python-graphblas's result is defined (its numba operators raise or fall
    back to undefined float conversions at a few corners; graphblast defines those)."""
    keep = np.ones(x.shape, bool)
    t = lookup_dtype(t)
    if name in ("floordiv", "rfloordiv"):
        divisor = y if name == "floordiv" else x
        keep &= divisor != 0
        if t.is_int:
            dividend = x if name == "floordiv" else y
            # numba: int64 MIN // -1 is 0; UINT64 // goes through float64 above 2**53
            if t.is_signed:
                keep &= ~((dividend == np.iinfo(t.np_type).min) & (divisor == -1))
            if t.name == "UINT64":
                keep &= (x < 2**53) & (y < 2**53)
    if name == "rpow" and (t.is_int or t.is_bool):
        base, exponent = y.astype(np.float64), x.astype(np.float64)
        keep &= ~((base == 0) & (exponent < 0)) & (np.abs(exponent) <= 65536)
    return keep


@pytest.mark.parametrize("name", BINARY_NAMES)
def test_binary_values(name):
    gbop = GB_OPS["binary"][name]
    ours = binary.__dict__[name]
    for t in _real_types(gbop):
        c = corner_values(t)
        x, y = (a.ravel() for a in np.meshgrid(c, c))
        keep = _defined_pairs(name, t, x, y)
        x, y = x[keep], y[keep]
        typed = ours[t]
        expected = _dense(_gb_vector(x, t).ewise_mult(_gb_vector(y, t), gbop[t]).new(),
                          typed.return_type)
        got = typed.np_func(cast(x, typed.type), cast(y, typed.type2))
        assert_same(got, expected, BINARY_ULPS.get(name, 0), f"binary.{name}[{t}]")


@pytest.mark.parametrize("name", list(GB_OPS["monoid"]))
def test_monoid_values(name):
    gbop = GB_OPS["monoid"][name]
    ours = monoid.__dict__[name]
    for t in _real_types(gbop):
        typed = ours[t]
        x = cast(corner_values(t), typed.type)
        for values in (x, x[::-1], x[: len(x) // 2]):
            expected = _gb_vector(values, typed.type.name).reduce(gbop[t]).new().value
            # a left fold with np_func, and the ufunc's reduceat where there is one
            acc = np.asarray([typed.identity])
            for v in values:
                acc = typed.np_func(acc, np.asarray([v]))
            if name == "any":
                assert expected in values or (np.isnan(expected) and np.isnan(values).any())
                continue
            assert_same(acc, np.asarray([expected], typed.return_type.np_type),
                        what=f"monoid.{name}[{t}] fold")
            if typed.np_ufunc is not None:
                with np.errstate(all="ignore"):  # inf - inf and the like are values here
                    red = typed.np_ufunc.reduceat(values, np.array([0]), dtype=values.dtype)
                assert_same(red, np.asarray([expected], typed.return_type.np_type),
                            what=f"monoid.{name}[{t}] np_ufunc")


def test_semiring_values(rng):
    """Every typed semiring on a small inner product: the monoid reduction of the products."""
    for name, gbop in GB_OPS["semiring"].items():
        ours = semiring.__dict__[name]
        if gbop.is_positional:
            continue  # see test_positional_semirings
        for t in _real_types(gbop):
            typed = ours[t]
            dt = lookup_dtype(t)
            # Small integer values keep float sums exact, whatever the order.
            if dt.is_bool:
                u, v = rng.integers(0, 2, (2, 6)).astype(bool)
            else:
                lo = 0 if (dt.is_int and not dt.is_signed) else -3
                u, v = rng.integers(lo, 4, (2, 6)).astype(dt.np_type)
            # python-graphblas's numba floordiv raises on a zero divisor; rpow on a zero base
            # with a negative exponent: keep those operands nonzero.
            if "floordiv" in name or "rpow" in name:
                u[u == 0] = 1
                v[v == 0] = 1
            expected = _gb_vector(u, t).inner(_gb_vector(v, t), gbop[t]).new().value
            products = typed.binaryop.np_func(cast(u, typed.binaryop.type),
                                              cast(v, typed.binaryop.type2))
            if typed.monoid.parent.name == "any":
                assert expected in products or np.isnan(expected), (name, t)
                continue
            acc = np.asarray([typed.monoid.identity])
            for p in products:
                acc = typed.monoid.np_func(acc, np.asarray([p]))
            assert_same(acc, np.asarray([expected], typed.return_type.np_type),
                        what=f"semiring.{name}[{t}]")


# ---------------------------------------------------------------------------------------------
# positional operators
# ---------------------------------------------------------------------------------------------

def _coords(m):
    r, c, _ = m.to_coo()
    return r, c


def _pattern(nrows, ncols, density, rng):
    a = rng.random((nrows, ncols)) < density
    r, c = np.nonzero(a)
    return gb.Matrix.from_coo(r, c, np.ones(len(r)), nrows=nrows, ncols=ncols), a


def _position_value(position, ai, aj, bi, bj):
    side, axis, offset = position
    if side == "first":
        return (ai if axis == "i" else aj) + offset
    return (bi if axis == "i" else bj) + offset


def test_positional_unary(rng):
    A, _ = _pattern(5, 7, 0.5, rng)
    r, c = _coords(A)
    for name, gbop in GB_OPS["unary"].items():
        if not gbop.is_positional:
            continue
        for t in ("INT32", "INT64", "FP64"):
            typed = unary.__dict__[name][t]
            expected = A.apply(gbop[t]).new()
            axis, offset = typed.position
            ours = (r if axis == "i" else c) + offset
            assert expected.dtype.name == typed.return_type.name
            np.testing.assert_array_equal(ours, expected.to_coo()[2], err_msg=name)


def test_positional_binary_ewise(rng):
    A, _ = _pattern(5, 7, 0.6, rng)
    B, _ = _pattern(5, 7, 0.6, rng)
    for name, gbop in GB_OPS["binary"].items():
        if not gbop.is_positional:
            continue
        typed = binary.__dict__[name]["INT64"]
        expected = A.ewise_mult(B, gbop["INT64"]).new()
        r, c, vals = expected.to_coo()
        np.testing.assert_array_equal(_position_value(typed.position, r, c, r, c), vals,
                                      err_msg=name)


def test_positional_semirings(rng):
    """``mxm`` with A(i,k) * B(k,j): first* index A's entry (i, k), second* B's (k, j)."""
    A, a = _pattern(4, 6, 0.5, rng)
    B, b = _pattern(6, 5, 0.5, rng)
    i, k, j = np.meshgrid(np.arange(4), np.arange(6), np.arange(5), indexing="ij")
    both = a[i, k] & b[k, j]
    for name, gbop in GB_OPS["semiring"].items():
        if not gbop.is_positional:
            continue
        typed = semiring.__dict__[name]["INT64"]
        value = _position_value(typed.binaryop.position, i, k, k, j)
        expected = A.mxm(B, gbop["INT64"]).new()
        er, ec, ev = expected.to_coo()
        assert np.array_equal(np.nonzero(both.any(axis=1)), (er, ec)), name
        ufunc = {"min": np.minimum, "max": np.maximum, "plus": np.add, "times": np.multiply,
                 "any": None}[typed.monoid.parent.name]
        for row, col, val in zip(er, ec, ev, strict=True):
            candidates = value[row, both[row, :, col], col]
            if ufunc is None:
                assert val in candidates, name
            else:
                assert ufunc.reduce(candidates) == val, name


# ---------------------------------------------------------------------------------------------
# index-unary and select
# ---------------------------------------------------------------------------------------------

THUNKS = (-2, -1, 0, 1, 3)


def test_indexunary_values(rng):
    nrows, ncols = 4, 6
    r, c = (a.ravel() for a in np.meshgrid(np.arange(nrows), np.arange(ncols), indexing="ij"))
    for name, gbop in GB_OPS["indexunary"].items():
        ours = indexunary.__dict__[name]
        for t in _real_types(gbop):
            typed = ours[t]
            dt = lookup_dtype(t)
            x = np.resize(corner_values(dt), len(r))
            A = gb.Matrix.from_coo(r, c, x, dtype=dt.name, nrows=nrows, ncols=ncols)
            thunks = x[[0, 3, 5, -1]] if typed.uses_value else THUNKS
            for thunk in thunks:
                s = gb.Scalar.from_value(thunk, dtype=typed.thunk_type.name)
                expected = A.apply(gbop[t], s).new()
                assert expected.dtype.name == typed.return_type.name, (name, t)
                tval = cast(np.asarray([thunk]), typed.thunk_type)[0]
                got = typed.np_func(cast(x, typed.type), r, c, tval)
                assert_same(got, expected.to_coo()[2].astype(typed.return_type.np_type),
                            what=f"indexunary.{name}[{t}] thunk={thunk}")


def test_select_matches_indexunary(rng):
    nrows, ncols = 5, 4
    r, c = (a.ravel() for a in np.meshgrid(np.arange(nrows), np.arange(ncols), indexing="ij"))
    vals = rng.integers(-3, 4, len(r)).astype(np.float64)
    A = gb.Matrix.from_coo(r, c, vals, nrows=nrows, ncols=ncols)
    for name, gbop in GB_OPS["select"].items():
        typed = select.__dict__[name]["FP64"]
        assert typed is indexunary.__dict__[name]["FP64"]
        for thunk in (-1, 0, 2):
            kept = A.select(gbop, thunk).new()
            tval = cast(np.asarray([thunk]), typed.thunk_type)[0]
            mask = typed.np_func(vals, r, c, tval)
            kr, kc, _ = kept.to_coo()
            np.testing.assert_array_equal(kr, r[mask], err_msg=name)
            np.testing.assert_array_equal(kc, c[mask], err_msg=name)


def test_vector_j_is_zero():
    """For a Vector, index-unary operators see j = 0 (python-graphblas's convention)."""
    v = gb.Vector.from_coo([0, 2, 5], [1.0, 2.0, 3.0], size=6)
    got = indexunary.colindex["INT64"].np_func(np.ones(3), np.array([0, 2, 5]), np.zeros(3), 4)
    np.testing.assert_array_equal(got, v.apply(gb.indexunary.colindex, 4).new().to_coo()[1])


# ---------------------------------------------------------------------------------------------
# from_string
# ---------------------------------------------------------------------------------------------

GOOD_STRINGS = {
    "unary": ["abs", "-", "~", "abs[int]", " ABS[FP32] ", "sqrt[INT8]", "positioni",
              "ss.positioni", "frexpe"],
    "binary": ["plus", "+", "-", "*", "/", "//", "**", "&", "|", "^", "<", ">", "<=", ">=",
               "!=", "==", "+[int]", "firsti", "ss.secondj1", "PLUS[float]", "pow[UINT8]"],
    "monoid": ["plus", "+", "*", "&", "|", "^", "==", "min[FP32]", "lxnor", "eq[BOOL]"],
    "semiring": ["min_plus", "min.plus", "min.+", "+.*", "plus_times[INT8]", "min.+[FP32]",
                 "any.secondi", "any_pair", "lor.land", "|.&", "MAX.FIRST[bool]",
                 "any_secondi[INT32]"],
    "indexunary": ["tril", "rowindex", "index", "rowindex[INT32]", "<", "row<=", "valueeq"],
    "select": ["tril", "<", ">", "<=", ">=", "!=", "==", "col<=", "col>", "row<=", "row>",
               "index<=", "index>", "valuegt[FP32]"],
}
BAD_STRINGS = ["nope", "plus[", "plus]", "plus[int][int]", "", "min..plus", "min.nope"]


def _describe(op):
    return _plain(getattr(op, "name", None) or ""), getattr(getattr(op, "type", None), "name",
                                                            None)


@pytest.mark.parametrize("namespace", list(NAMESPACES))
def test_from_string(namespace):
    ours_ns, gb_ns = NAMESPACES[namespace], getattr(gb, namespace)
    for s in GOOD_STRINGS[namespace]:
        mine, theirs = ours_ns.from_string(s), gb_ns.from_string(s)
        assert _describe(mine) == _describe(theirs), (namespace, s)
        if not hasattr(theirs, "opclass"):  # untyped (typed select variants are shared with
            # indexunary here, so their opclass is IndexUnaryOp)
            assert type(mine).__name__ == type(theirs).__name__, (namespace, s)
    for s in BAD_STRINGS:
        with pytest.raises(ValueError):
            gb_ns.from_string(s)
        with pytest.raises(ValueError):
            ours_ns.from_string(s)


def test_combined_namespace():
    for s in ["abs", "+", "min.plus", "tril", "<", "plus[INT8]", "positioni", "any_secondi"]:
        assert _describe(ops.from_string(s)) == _describe(gb.op.from_string(s)), s
    with pytest.raises(ValueError, match="Unknown op string"):
        ops.from_string("nope")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        gb_names = {n for n in dir(gb.op) if not n.startswith("_") and n not in NOT_OURS
                    and isinstance(getattr(gb.op, n, None), GbOpBase)
                    and any(k.name in REAL for k in getattr(gb.op, n).types)}
    ours = {n for n in dir(ops) if isinstance(getattr(ops, n), ops.OpBase)}
    assert ours == gb_names | {"isclose"}
    assert ops.plus is binary.plus and ops.abs is unary.abs and ops.min_plus is semiring.min_plus
    assert ops.ss.any_secondi is semiring.any_secondi and ops.ss.firsti is binary.firsti


def test_get_semiring_builds_new_combinations():
    s = semiring.get_semiring(monoid.max, binary.pow)
    assert s is semiring.from_string("max.pow") and s is semiring.max_pow
    assert s["INT8"].monoid is monoid.max["INT8"] and s["INT8"].binaryop is binary.pow["INT8"]
    assert semiring.get_semiring(monoid.min, binary.plus["FP32"]) is semiring.min_plus["FP32"]
    # python-graphblas is forgiving: a binary operator with a monoid, a monoid as multiplier
    assert semiring.get_semiring(monoid.plus, monoid.times) is semiring.plus_times
    assert semiring.get_semiring(binary.plus, binary.times) is semiring.plus_times
    with pytest.raises(TypeError, match="Expected a Monoid"):
        semiring.get_semiring(binary.minus, binary.times)
    with pytest.raises(TypeError, match="switched"):
        semiring.get_semiring(binary.plus, monoid.times)


def test_unknown_type_errors():
    with pytest.raises(KeyError, match="plus does not work with BOOL"):
        monoid.plus["BOOL"]
    with pytest.raises(ValueError, match="Unknown dtype"):
        binary.plus["complex128"]


def test_pickle_round_trip():
    import pickle

    for op in [binary.plus, binary.plus["INT8"], unary.acos["INT8"], binary.ldexp["INT8"],
               monoid.max["BOOL"], semiring.min_plus["FP32"], select.tril, indexunary.tril["FP64"]]:
        assert pickle.loads(pickle.dumps(op)) is op


def test_positional_np_func_raises():
    with pytest.raises(TypeError, match="positional"):
        binary.firsti["INT64"].np_func(np.zeros(1), np.zeros(1))
    with pytest.raises(TypeError, match="positional"):
        unary.positioni["INT64"].np_func(np.zeros(1))


def test_broadcasting_with_scalars():
    """np_func accepts a scalar on either side (bound arguments of ``apply``)."""
    v = np.array([1, 2, 3], np.int8)
    for op in (binary.first, binary.second, binary.pair, binary.any, binary.absfirst):
        assert op["INT8"].np_func(v, np.int8(5)).shape == (3,)
        assert op["INT8"].np_func(np.int8(5), v).shape == (3,)
    np.testing.assert_array_equal(binary.cdiv["INT8"].np_func(v, np.int8(0)), [127] * 3)
    np.testing.assert_array_equal(binary.bshift["UINT8"].np_func(np.uint8(1), v), [2, 4, 8])




def test_find_typed_op_matches_python_graphblas():
    """Operand types to typed operator, python-graphblas's rules (``pair`` is INT64)."""
    from graphblas.core.operator.utils import get_typed_op

    from graphblast.ops.base import find_typed_op

    pairs = [("INT8", "INT8"), ("INT8", "FP32"), ("BOOL", "INT64"), ("UINT8", "INT8"),
             ("FP32", "FP64"), ("UINT16", "INT16"), ("BOOL", "BOOL")]
    cases = [("binary", "pair"), ("binary", "first"), ("binary", "plus"), ("binary", "eq"),
             ("semiring", "plus_pair"), ("semiring", "any_pair"), ("semiring", "min_plus"),
             ("semiring", "lor_land"), ("monoid", "plus"), ("monoid", "lor")]
    for (namespace, name), (t1, t2), right_scalar in itertools.product(
            cases, pairs, (False, True)):
        try:
            theirs = get_typed_op(getattr(getattr(gb, namespace), name), gb.dtypes.lookup_dtype(t1),
                                  gb.dtypes.lookup_dtype(t2), is_right_scalar=right_scalar)
        except KeyError:
            with pytest.raises(KeyError):
                find_typed_op(_ours(namespace, name), lookup_dtype(t1), lookup_dtype(t2),
                              is_right_scalar=right_scalar)
            continue
        mine = find_typed_op(_ours(namespace, name), lookup_dtype(t1), lookup_dtype(t2),
                             is_right_scalar=right_scalar)
        assert _describe(mine) == _describe(theirs), (namespace, name, t1, t2, right_scalar)


def test_find_typed_op_strings_and_builtins():
    from graphblast.ops.base import find_typed_op

    f = lookup_dtype("FP32")
    assert find_typed_op("min.plus", f, f, kind="semiring") is semiring.min_plus["FP32"]
    assert find_typed_op("+[INT8]", f, kind="binary") is binary.plus["INT8"]
    assert find_typed_op(abs, f, kind="unary") is unary.abs["FP32"]
    assert find_typed_op(max, f, f, kind="binary") is binary.max["FP32"]
    with pytest.raises(ValueError, match="kind="):
        find_typed_op("plus", f)


@pytest.mark.parametrize("params", [(), (1e-12, 0), (0.5, 0.25), (0.0, 2.0)])
def test_isclose(params):
    """The parameterized ``binary.isclose`` against python-graphblas's numba function."""
    ours, theirs = binary.isclose(*params), gb.binary.isclose(*params)
    assert set(ours.types) == {lookup_dtype(t) for t in _real_types(theirs)}
    for t in _real_types(theirs):
        c = corner_values(t)
        x, y = (a.ravel() for a in np.meshgrid(c, c))
        if t == "INT64":
            # numba's int64 ``abs(x - y)`` is undefined where x - y or abs overflows (LLVM may
            # assume it does not): leave out MIN and pairs whose difference overflows.
            lo = np.iinfo(np.int64).min
            with np.errstate(over="ignore"):
                wraps = (x - y < 0) != (x < y)
            keep = (x != lo) & (y != lo) & ~wraps
            x, y = x[keep], y[keep]
        expected = _dense(_gb_vector(x, t).ewise_mult(_gb_vector(y, t), theirs[t]).new(),
                          lookup_dtype("BOOL"))
        assert_same(ours[t].np_func(x, y), expected, what=f"isclose{params}[{t}]")
    assert binary.isclose(*params) is ours
    with pytest.raises(TypeError, match="takes a number"):
        binary.isclose("tight")


def test_select_comparison_helpers(device):
    """``select.value/row/column/index`` read a comparison expression, as python-graphblas."""
    import graphblast

    r, c = np.array([0, 1, 2, 3, 3]), np.array([3, 0, 2, 1, 3])
    vals = np.array([-2.0, 0.5, 3.0, 1.0, -1.0])
    A = graphblast.Matrix.from_coo(r, c, vals, nrows=4, ncols=4, device=device)
    P = gb.Matrix.from_coo(r, c, vals, nrows=4, ncols=4)
    v = graphblast.Vector.from_coo([0, 2, 5], [1, 2, 3], size=6, device=device)
    w = gb.Vector.from_coo([0, 2, 5], [1, 2, 3], size=6)
    cases = [
        (select.value(A > 0), gb.select.value(P > 0)),
        (select.value(A == 1), gb.select.value(P == 1)),
        (select.row(A < 2), gb.select.row(P < 2)),
        (select.row(A >= 3), gb.select.row(P >= 3)),
        (select.column(A <= 1), gb.select.column(P <= 1)),
        (select.index(v < 3), gb.select.index(w < 3)),
    ]
    for mine, theirs in cases:
        for a, b in zip(mine.new().to_coo(), theirs.new().to_coo(), strict=True):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="Typical usage: select.value"):
        select.value(A)
    with pytest.raises(ValueError, match="cannot select with binary.eq"):
        select.row(A == 1)
