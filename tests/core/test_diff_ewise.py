"""ewise_add, ewise_mult, ewise_union and the infix operators against python-graphblas.

Every binary operator and monoid runs once per method with a combination (Matrix or Vector,
type, mask kind, accumulator, replace, transposes, ``<<`` or ``.new``) drawn from the test's
seeded generator; every type x mask kind x accumulator x replace runs with a common operator.
"""

import numpy as np
import pytest
from diffharness import (ALL_TYPES, MASK_KINDS, MATRIX_CASES, VECTOR_CASES, T_if, VectorData,
                         catalogue, mask_of, needs_nonzero, op_types, output_args, resolve_op,
                         special_values)
import graphblas

METHODS = ["ewise_add", "ewise_mult", "ewise_union"]
ACCUMS = [None, "plus", "min", "second"]
COMMON_BINARY = ["plus", "times", "minus", "min", "max", "first", "second", "lor", "land",
                 "eq", "lt", "pair"]


def _default(diff, dtype, form):
    """An ewise_union default of the input's type: a Python value, a NumPy scalar or a Scalar.

    A Python int with UINT64 unifies to FP64 (NumPy's rules), where bitwise operators do not
    exist: UINT64 gets typed defaults only.
    """
    s = diff.scalar(dtype, nonzero=True)
    if form == "Scalar":
        return s
    if form == "numpy" or dtype == "UINT64":
        return np.dtype(graphblas.dtypes.lookup_dtype(dtype).np_type).type(s.value)
    return s.value


def _result_type(kind, path, dtype):
    return resolve_op(graphblas, kind, path)[dtype].return_type.name


def _run(diff, method, kind, path, dtype, *, container, mask_kind, accum, replace, ta=False,
         tb=False, form="update"):
    """One ``method`` with operator ``kind.path`` on random ``dtype`` operands."""
    nonzero = needs_nonzero(path)
    if container == "Matrix":
        nrows, ncols = diff.choice([(6, 6), (5, 7)])
        if ta or tb:
            nrows = ncols  # a transposed operand needs a square shape to match the other one
        x = diff.matrix(dtype, *((ncols, nrows) if ta else (nrows, ncols)), 0.5, nonzero=nonzero)
        y = diff.matrix(dtype, *((ncols, nrows) if tb else (nrows, ncols)), 0.5, nonzero=nonzero)
        c = diff.matrix(_result_type(kind, path, dtype), nrows, ncols, 0.3)
        m = diff.matrix(diff.choice(ALL_TYPES), nrows, ncols, 0.5)
    else:
        size = diff.choice([7, 10])
        x = diff.vector(dtype, size, 0.5, nonzero=nonzero)
        y = diff.vector(dtype, size, 0.5, nonzero=nonzero)
        c = diff.vector(_result_type(kind, path, dtype), size, 0.3)
        m = diff.vector(diff.choice(ALL_TYPES), size, 0.5)
    form_of_defaults = diff.choice(["python", "numpy", "Scalar"])
    left = _default(diff, dtype, form_of_defaults)
    right = _default(diff, dtype, form_of_defaults)
    print(f"{container}.{method} {kind}.{path}[{dtype}] mask={mask_kind} accum={accum} "
          f"replace={replace} ta={ta} tb={tb} form={form} C:{c.dtype} M:{m.dtype} "
          f"defaults={left!r},{right!r}")

    def body(gb, x, y, c, m, left, right, op_kind):
        op = gb.op(op_kind, path)
        x, y = T_if(x, ta), T_if(y, tb)
        if method == "ewise_union":
            expr = x.ewise_union(y, op, left, right)
        else:
            expr = getattr(x, method)(y, op)
        mask = mask_of(m, mask_kind)
        if form == "new":
            return expr.new(**({} if mask is None else {"mask": mask}))
        acc = None if accum is None else getattr(gb.binary, accum)
        c(**output_args(mask, acc, replace)) << expr
        return c

    def any_candidates(gb, x, y, c, m, left, right, op_kind):
        """binary.any/monoid.any may pick either operand where both are present: the results
        with first and with second (each into its own copy of the output)."""
        return [_with_op(body, alt)(gb, x, y, c.dup(), m, left, right, op_kind)
                for alt in ("first", "second")]

    candidates = any_candidates if path == "any" and accum is None else None
    diff.check(body, x, y, c, m, left, right, kind, candidates=candidates)


def _with_op(body, alt):
    """``body`` with binary op ``alt`` in place of ``any`` (the candidates of an any result)."""
    def alternative(gb, x, y, c, m, left, right, op_kind):
        return body(_Renamed(gb, alt), x, y, c, m, left, right, "binary")
    return alternative


class _Renamed:
    """A library handle whose ``op(...)`` always answers binary op ``alt``."""

    def __init__(self, gb, alt):
        self._gb = gb
        self._alt = alt

    def __getattr__(self, name):
        return getattr(self._gb, name)

    def op(self, kind, path):
        return self._gb.op("binary", self._alt)


def _sample(diff, kind, path, method):
    dtype = diff.choice(op_types(kind, path))
    container = diff.choice(["Matrix", "Vector"])
    transposes = container == "Matrix" and diff.choice([False, True])
    _run(diff, method, kind, path, dtype, container=container,
         mask_kind=diff.choice(MASK_KINDS),
         accum=None if path == "any" else diff.choice(ACCUMS),
         replace=diff.choice([False, True]),
         ta=transposes and diff.choice([False, True]), tb=transposes and diff.choice([False, True]),
         form=diff.choice(["update", "update", "new"]))


@pytest.mark.parametrize("path", catalogue("binary"))
@pytest.mark.parametrize("method", METHODS)
def test_binary_catalogue(diff, method, path):
    """Every binary operator of python-graphblas, on a random supported type and setting."""
    _sample(diff, "binary", path, method)


@pytest.mark.parametrize("path,dtype", [(p, t) for p in catalogue("binary")
                                        for t in op_types("binary", p) if p != "any"])
def test_binary_special_values(diff, path, dtype):
    """Each binary operator on every pair of its type's edge values (limits, 0, -1, NaN,
    infinities, -0.0): integer division by zero, overflow, shifts past the width, NaN
    propagation of min/max, casts of float results to integers, as SuiteSparse defines them.

    python-graphblas implements a few operators (floordiv, rpow, binom, ...) as numba
    functions, which raise inside the kernel on integer overflow and leave an undefined value:
    for those, integer inputs stay clear of the type's limits.
    """
    vals = special_values(dtype)
    udf = type(resolve_op(graphblas, "binary", path)[dtype]).__name__.startswith("TypedUser")
    if udf and vals.dtype.kind in "iu":
        vals = vals[np.abs(vals.astype(np.float64)) < 100]
    x = np.repeat(vals, len(vals))
    y = np.tile(vals, len(vals))
    if needs_nonzero(path):
        keep = (x != 0) & (y != 0)
        x, y = x[keep], y[keep]
    n = len(x)
    u = VectorData(dtype, n, np.arange(n), x)
    v = VectorData(dtype, n, np.arange(n), y)
    diff.check(lambda gb, u, v: u.ewise_mult(v, gb.op("binary", path)).new(), u, v)


@pytest.mark.parametrize("path", catalogue("monoid"))
@pytest.mark.parametrize("method", ["ewise_add", "ewise_mult"])
def test_monoid_catalogue(diff, method, path):
    """Every monoid as the operator of ewise_add/ewise_mult."""
    _sample(diff, "monoid", path, method)


@pytest.mark.parametrize("replace", [False, True], ids=["keep", "replace"])
@pytest.mark.parametrize("accum", [None, "plus", "second"], ids=lambda a: f"accum={a}")
@pytest.mark.parametrize("mask_kind", MASK_KINDS, ids=lambda k: f"mask={k}")
@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("method", METHODS)
def test_combinations_matrix(diff, method, dtype, mask_kind, accum, replace):
    """Every type x mask kind x accumulator x replace, with a common operator."""
    path = diff.choice([p for p in COMMON_BINARY if dtype in op_types("binary", p)])
    _run(diff, method, "binary", path, dtype, container="Matrix", mask_kind=mask_kind,
         accum=accum, replace=replace)


@pytest.mark.parametrize("mask_kind", MASK_KINDS, ids=lambda k: f"mask={k}")
@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("method", METHODS)
def test_combinations_vector(diff, method, dtype, mask_kind):
    path = diff.choice([p for p in COMMON_BINARY if dtype in op_types("binary", p)])
    _run(diff, method, "binary", path, dtype, container="Vector", mask_kind=mask_kind,
         accum=diff.choice(ACCUMS), replace=diff.choice([False, True]))


@pytest.mark.parametrize("dtype", ["BOOL", "INT8", "UINT16", "FP32", "FP64"])
@pytest.mark.parametrize("ta,tb", [(True, False), (False, True), (True, True)],
                         ids=["AT-B", "A-BT", "AT-BT"])
@pytest.mark.parametrize("method", METHODS)
def test_transposed_inputs(diff, method, ta, tb, dtype):
    path = diff.choice([p for p in COMMON_BINARY if dtype in op_types("binary", p)])
    _run(diff, method, "binary", path, dtype, container="Matrix",
         mask_kind=diff.choice(MASK_KINDS), accum=diff.choice(ACCUMS),
         replace=diff.choice([False, True]), ta=ta, tb=tb)


@pytest.mark.parametrize("case", MATRIX_CASES.keys())
@pytest.mark.parametrize("method", METHODS)
def test_matrix_shapes(diff, method, case):
    """Empty, 0-sized, 1 x 1, full and dense operands (one of them maybe empty)."""
    nrows, ncols, density = MATRIX_CASES[case]
    dtype = diff.choice(["INT32", "FP64", "BOOL"])
    x = diff.matrix(dtype, nrows, ncols, density)
    y = diff.matrix(dtype, nrows, ncols, diff.choice([0.0, density, 1.0]))

    def body(gb, x, y):
        op = gb.binary.max if dtype != "BOOL" else gb.binary.lxor
        if method == "ewise_union":
            return x.ewise_union(y, op, True if dtype == "BOOL" else 3, False).new()
        return getattr(x, method)(y, op).new(), getattr(y, method)(x, op).new()

    diff.check(body, x, y)


@pytest.mark.parametrize("case", VECTOR_CASES.keys())
@pytest.mark.parametrize("method", METHODS)
def test_vector_shapes(diff, method, case):
    size, density = VECTOR_CASES[case]
    x = diff.vector("FP32", size, density)
    y = diff.vector("FP32", size, diff.choice([0.0, density, 1.0]))

    def body(gb, x, y):
        if method == "ewise_union":
            return x.ewise_union(y, gb.binary.minus, 1.5, -2.0).new()
        return getattr(x, method)(y, gb.binary.minus).new()

    diff.check(body, x, y)


@pytest.mark.parametrize("out_dtype", ALL_TYPES)
@pytest.mark.parametrize("in_dtype", ["BOOL", "INT8", "UINT64", "FP32", "FP64"])
def test_output_dtype(diff, in_dtype, out_dtype):
    """Results are cast to the output type (floats to integers truncate, to BOOL are != 0)."""
    x = diff.matrix(in_dtype, 6, 5, 0.5)
    y = diff.matrix(in_dtype, 6, 5, 0.5)
    c = diff.matrix(out_dtype, 6, 5, 0.4)
    op = "lor" if in_dtype == "BOOL" else "minus"

    def body(gb, x, y, c):
        c(accum=gb.binary.second) << x.ewise_add(y, getattr(gb.binary, op))
        return c, x.ewise_mult(y, getattr(gb.binary, op)).new(dtype=out_dtype)

    diff.check(body, x, y, c)


MIXED = [("INT8", "FP32"), ("UINT8", "INT8"), ("BOOL", "INT64"), ("UINT64", "INT64"),
         ("INT32", "FP64"), ("FP32", "FP64"), ("UINT16", "BOOL"), ("UINT32", "INT16")]


@pytest.mark.parametrize("path", ["plus", "minus", "truediv", "lt", "first", "max"])
@pytest.mark.parametrize("ta,tb", MIXED, ids=[f"{a}-{b}" for a, b in MIXED])
def test_mixed_input_types(diff, ta, tb, path):
    """Operands of different types: the unified type picks the typed operator."""
    x = diff.vector(ta, 9, 0.6)
    y = diff.vector(tb, 9, 0.6)

    def body(gb, x, y):
        op = getattr(gb.binary, path)
        return (x.ewise_add(y, op).new(), x.ewise_mult(y, op).new(),
                x.ewise_union(y, op, 2, 3).new())

    diff.check(body, x, y)


def _infix_cases():
    cases = {
        "plus(A|B)": lambda gb, a, b: gb.binary.plus(a | b).new(),
        "max(A|B)": lambda gb, a, b: gb.monoid.max(a | b).new(),
        "minus(A&B)": lambda gb, a, b: gb.binary.minus(a & b).new(),
        "union(A|B)": lambda gb, a, b: gb.binary.minus(a | b, left_default=1,
                                                       right_default=2).new(),
        "A+B": lambda gb, a, b: (a + b).new(),
        "A-B": lambda gb, a, b: (a - b).new(),
        "A*B": lambda gb, a, b: (a * b).new(),
        "A/B": lambda gb, a, b: (a / b).new(),
        "A<B": lambda gb, a, b: (a < b).new(),
        "A<=B": lambda gb, a, b: (a <= b).new(),
        "A>B": lambda gb, a, b: (a > b).new(),
        "A>=B": lambda gb, a, b: (a >= b).new(),
        "A==B": lambda gb, a, b: (a == b).new(),
        "A!=B": lambda gb, a, b: (a != b).new(),
        "C<<A+B": lambda gb, a, b: _update(a.dup(), a + b),
    }
    return cases


def _update(c, expr):
    c << expr
    return c


INFIX = _infix_cases()


@pytest.mark.parametrize("dtype", ["INT64", "FP64", "UINT8"])
@pytest.mark.parametrize("container", ["Matrix", "Vector"])
@pytest.mark.parametrize("case", INFIX.keys())
def test_infix(diff, case, container, dtype):
    """python-graphblas's infix forms of the element-wise operations."""
    if container == "Matrix":
        a, b = diff.matrix(dtype, 6, 6, 0.5), diff.matrix(dtype, 6, 6, 0.5)
    else:
        a, b = diff.vector(dtype, 9, 0.5), diff.vector(dtype, 9, 0.5)
    diff.check(INFIX[case], a, b)


def test_infix_transposed(diff):
    a, b = diff.matrix("FP64", 5, 7, 0.5), diff.matrix("FP64", 7, 5, 0.5)

    def body(gb, a, b):
        return (gb.binary.second(a.T | b).new(), gb.binary.minus(a & b.T).new(),
                (a.T + b).new(), (a < b.T).new())

    diff.check(body, a, b)


BOOL_INFIX = {
    "A|B": lambda gb, a, b: (a | b).new(),
    "A&B": lambda gb, a, b: (a & b).new(),
    "A^B": lambda gb, a, b: (a ^ b).new(),
    "C(A.V)<<A|B": lambda gb, a, b: _masked(gb, a, a | b),
}


def _masked(gb, m, expr):
    c = expr.new()
    c(m.V, replace=True) << expr
    return c


@pytest.mark.parametrize("container", ["Matrix", "Vector"])
@pytest.mark.parametrize("case", BOOL_INFIX.keys())
def test_bool_infix(diff, case, container):
    """For BOOL, ``|``, ``&`` and ``^`` compute lor/land/lxor with no operator given."""
    if container == "Matrix":
        a, b = diff.matrix("BOOL", 6, 6, 0.5), diff.matrix("BOOL", 6, 6, 0.5)
    else:
        a, b = diff.vector("BOOL", 9, 0.5), diff.vector("BOOL", 9, 0.5)
    diff.check(BOOL_INFIX[case], a, b)


@pytest.mark.parametrize("dtype", ["INT64", "FP32", "BOOL"])
def test_union_defaults(diff, dtype):
    """ewise_union with Python, NumPy and Scalar defaults of several types."""
    x = diff.vector(dtype, 10, 0.5)
    y = diff.vector(dtype, 10, 0.5)
    s = diff.scalar(dtype, nonzero=True)

    def body(gb, x, y, s):
        op = gb.binary.plus if dtype != "BOOL" else gb.binary.lor
        return (x.ewise_union(y, op, s, s).new(),
                x.ewise_union(y, op, left_default=1, right_default=0).new(),
                x.ewise_union(y, gb.binary.first, 1.5, 2).new(),
                x.ewise_union(y, op, True, False).new(),
                x.ewise_union(y, gb.binary.minus, gb.Scalar.from_value(7, dtype="INT8"),
                              -1).new())

    diff.check(body, x, y, s)


def test_isclose_operator(diff):
    """The parameterized ``binary.isclose(rel_tol, abs_tol)``."""
    x = diff.vector("FP64", 12, 0.8)
    y = diff.vector("FP64", 12, 0.8)

    def body(gb, x, y):
        y2 = x.apply(gb.binary.plus, right=1e-9).new()
        return (x.ewise_mult(y2, gb.binary.isclose).new(),
                x.ewise_mult(y2, gb.binary.isclose(1e-12, 0)).new(),
                x.ewise_mult(y, gb.binary.isclose(0.5, 0.25)).new())

    diff.check(body, x, y)


def _alias_cases():
    def self_add(gb, a, b):
        a << a.ewise_add(a, gb.binary.plus)
        return a

    def self_transpose(gb, a, b):
        a << a.ewise_add(a.T, gb.binary.minus)
        return a

    def mask_is_output(gb, a, b):
        a(a.S) << a.ewise_mult(b, gb.binary.times)
        return a

    def value_mask_is_input(gb, a, b):
        b(a.V, replace=True) << a.ewise_union(b, gb.binary.max, 0, 0)
        return b

    def accum_self(gb, a, b):
        a(accum=gb.binary.plus) << a.ewise_mult(b, gb.binary.first)
        return a

    def complement_self(gb, a, b):
        a(~a.S) << b.ewise_add(a.T, gb.binary.second)
        return a

    def union_self_mask(gb, a, b):
        a(a.V, accum=gb.binary.min, replace=True) << a.ewise_union(b.T, gb.binary.plus, 1, 1)
        return a

    return {f.__name__: f for f in (self_add, self_transpose, mask_is_output,
                                    value_mask_is_input, accum_self, complement_self,
                                    union_self_mask)}


ALIAS = _alias_cases()


@pytest.mark.parametrize("dtype", ["INT16", "FP64", "BOOL"])
@pytest.mark.parametrize("case", ALIAS.keys())
def test_aliasing(diff, case, dtype):
    """The output is also an input or the mask: the result is as with copies."""
    a = diff.matrix(dtype, 7, 7, 0.4)
    b = diff.matrix(dtype, 7, 7, 0.4)
    diff.check(ALIAS[case], a, b)


def test_vector_aliasing(diff):
    v = diff.vector("INT32", 11, 0.5)
    w = diff.vector("INT32", 11, 0.5)

    def body(gb, v, w):
        v(v.S, accum=gb.binary.plus) << v.ewise_add(w, gb.monoid.max)
        w(~v.S, replace=True) << w.ewise_union(v, gb.binary.minus, 0, 10)
        return v, w

    diff.check(body, v, w)


def test_typed_and_string_operators(diff):
    """Typed operators (``op["INT8"]``, ``op[float]``) and ``from_string``."""
    x = diff.matrix("INT32", 6, 6, 0.5)
    y = diff.matrix("INT32", 6, 6, 0.5)

    def body(gb, x, y):
        return (x.ewise_add(y, gb.binary.plus["INT8"]).new(),
                x.ewise_mult(y, gb.binary.truediv[float]).new(),
                x.ewise_add(y, gb.monoid.max["FP32"]).new(),
                x.ewise_mult(y, gb.binary.from_string("minus")).new(),
                x.ewise_add(y, gb.monoid.from_string("min")).new(),
                x.ewise_add(y, "plus").new(),
                x.ewise_mult(y, "times").new())

    diff.check(body, x, y)


@pytest.mark.parametrize("which", ["both", "left", "right"])
@pytest.mark.parametrize("op", ["first", "second", "minus", "min", "firsti", "secondi"])
@pytest.mark.parametrize("method", METHODS)
def test_complete_vectors(diff, method, op, which):
    """A vector with every entry (the fast path of the element-wise kernels) against one with
    some or all: positional operators and first/second must not alias the operands."""
    x = diff.vector("INT64", 40, 1.0 if which in ("both", "left") else 0.4)
    y = diff.vector("INT64", 40, 1.0 if which in ("both", "right") else 0.4)

    def body(gb, x, y):
        f = getattr(gb.binary, op)
        if method == "ewise_union":
            out = x.ewise_union(y, f, 5, -7).new()
        else:
            out = getattr(x, method)(y, f).new()
        return out, x, y  # the operands are unchanged

    diff.check(body, x, y)
