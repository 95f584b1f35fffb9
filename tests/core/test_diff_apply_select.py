"""apply (unary, bound binary on either side, monoid, index-unary) and select against
python-graphblas: every operator of each kind, every type, mask kind, accumulator, replace,
transposed input, the infix forms, special values and aliasing."""

import numpy as np
import pytest
from diffharness import (ALL_TYPES, MASK_KINDS, MATRIX_CASES, VECTOR_CASES, T_if, catalogue,
                         mask_of, needs_nonzero, op_types, output_args, resolve_op,
                         special_values, ScalarData, VectorData)
import graphblas

ACCUMS = [None, "plus", "min", "second"]


def _np_type(dtype):
    return np.dtype(graphblas.dtypes.lookup_dtype(dtype).np_type).type


def _operands(diff, container, dtype, transpose, result_dtype, nonzero=False):
    """Input, output and mask data: a Matrix (maybe stored transposed) or a Vector."""
    if container == "Matrix":
        nrows, ncols = diff.choice([(6, 6), (5, 7), (7, 4)])
        x = diff.matrix(dtype, *((ncols, nrows) if transpose else (nrows, ncols)), 0.5,
                        nonzero=nonzero)
        c = diff.matrix(result_dtype, nrows, ncols, 0.3)
        m = diff.matrix(diff.choice(ALL_TYPES), nrows, ncols, 0.5)
    else:
        size = diff.choice([7, 11])
        x = diff.vector(dtype, size, 0.5, nonzero=nonzero)
        c = diff.vector(result_dtype, size, 0.3)
        m = diff.vector(diff.choice(ALL_TYPES), size, 0.5)
    return x, c, m


def _thunk(diff, dtype, form):
    """A bound value or thunk of ``dtype`` as a Python value, NumPy scalar or Scalar.

    UINT64 gets typed values only: a Python int unifies with it to FP64 (NumPy's rules).
    """
    s = diff.scalar(dtype)
    if form == "Scalar":
        return s
    if form == "numpy" or dtype == "UINT64":
        return _np_type(dtype)(s.value)
    return s.value


def _run(diff, make_expr, *, container, dtype, result_dtype, mask_kind, accum, replace,
         transpose, form, extra=(), nonzero=False, describe="", candidates_of=None):
    """``C(mask, accum, replace) << make_expr(gb, x, *extra)`` (or ``.new``) on both sides."""
    x, c, m = _operands(diff, container, dtype, transpose, result_dtype, nonzero)
    print(f"{describe} {container}[{dtype}] mask={mask_kind} accum={accum} replace={replace} "
          f"T={transpose} form={form} C:{c.dtype} M:{m.dtype} extra={extra!r}")

    def body(gb, x, c, m, *extra):
        expr = make_expr(gb, T_if(x, transpose), *extra)
        mask = mask_of(m, mask_kind)
        if form == "new":
            return expr.new(**({} if mask is None else {"mask": mask}))
        acc = None if accum is None else getattr(gb.binary, accum)
        c(**output_args(mask, acc, replace)) << expr
        return c

    def candidates(gb, x, c, m, *extra):
        return candidates_of(gb, T_if(x, transpose), *extra)

    diff.check(body, x, c, m, *extra, candidates=None if candidates_of is None else candidates)


def _sampled(diff, kind, path, make_expr, *, result_dtype=None, extra_of=None, **fixed):
    """Run ``make_expr`` with a setting drawn from the seeded generator."""
    dtype = diff.choice(op_types(kind, path))
    container = diff.choice(["Matrix", "Vector"])
    op = resolve_op(graphblas, kind, path)
    if result_dtype is None:
        result_dtype = op[dtype].return_type.name if kind != "select" else dtype
    settings = {
        "container": container, "dtype": dtype, "result_dtype": result_dtype,
        "mask_kind": diff.choice(MASK_KINDS), "accum": diff.choice(ACCUMS),
        "replace": diff.choice([False, True]),
        "transpose": container == "Matrix" and diff.choice([False, True]),
        "form": diff.choice(["update", "update", "new"]),
        "nonzero": needs_nonzero(path), "describe": f"{kind}.{path}",
    }
    if extra_of is not None:
        settings["extra"] = extra_of(dtype)
    settings.update(fixed)
    _run(diff, make_expr, **settings)


@pytest.mark.parametrize("path", catalogue("unary"))
def test_unary_catalogue(diff, path):
    """Every unary operator (positional ones too), on a random supported type and setting."""
    _sampled(diff, "unary", path, lambda gb, x: x.apply(gb.op("unary", path)))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("path", catalogue("binary"))
def test_binary_bound_catalogue(diff, path, side):
    """Every binary operator with a bound value on either side: ``apply(op, left=s)``."""
    def make(gb, x, s):
        return x.apply(gb.op("binary", path), **{side: s})

    form = diff.choice(["python", "numpy", "Scalar"])
    nonzero = needs_nonzero(path)
    _sampled(diff, "binary", path, make,
             extra_of=lambda dt: (_thunk_nonzero(diff, dt, form) if nonzero
                                  else _thunk(diff, dt, form),),
             **_any_settings(path))


def _bound_any_candidates(gb, x, s):
    """``apply(any, left=s)`` may give either the entry's value or the bound value."""
    pos_and_values = x.to_coo()
    pos, values = pos_and_values[:-1], pos_and_values[-1]
    bound = s.value if hasattr(s, "value") else s
    return [(pos, values), (pos, np.full(len(values), bound))]


def _any_settings(path):
    """No accumulator for ``any`` (its result is only known up to the candidates)."""
    if path != "any":
        return {}
    return {"accum": None, "candidates_of": _bound_any_candidates}


def _thunk_nonzero(diff, dtype, form):
    s = diff.scalar(dtype, nonzero=True)
    if form == "Scalar":
        return s
    return _np_type(dtype)(s.value) if form == "numpy" or dtype == "UINT64" else s.value


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("path", catalogue("monoid"))
def test_monoid_bound_catalogue(diff, path, side):
    """Every monoid with a bound value: python-graphblas applies its binary operator."""
    def make(gb, x, s):
        return x.apply(gb.op("monoid", path), **{side: s})

    # Typed values only: a Python int would unify UINT16 to INT64, where monoid.band is not.
    form = diff.choice(["numpy", "Scalar"])
    _sampled(diff, "monoid", path, make, extra_of=lambda dt: (_thunk(diff, dt, form),),
             **_any_settings(path))


def _indexunary_thunk(diff, path, dtype):
    """A thunk for ``path``: an offset for positional operators; for value operators a value
    of the input's own type (see test_select_thunk_types for thunks of other types)."""
    name = path.split(".")[-1]
    if name.startswith("value"):
        return _np_type(dtype)(diff.scalar(dtype).value)
    return int(diff.rng.integers(-3, 4))


@pytest.mark.parametrize("path", catalogue("indexunary"))
def test_indexunary_catalogue(diff, path):
    """Every index-unary operator through ``apply(op, thunk)``."""
    def make(gb, x, thunk):
        return x.apply(gb.op("indexunary", path), thunk)

    _sampled(diff, "indexunary", path, make,
             extra_of=lambda dt: (_indexunary_thunk(diff, path, dt),))


@pytest.mark.parametrize("path", catalogue("select"))
def test_select_catalogue(diff, path):
    """Every select operator through ``select(op, thunk)``, on Matrix and Vector."""
    def make(gb, x, thunk):
        return x.select(gb.op("select", path), thunk)

    _sampled(diff, "select", path, make, extra_of=lambda dt: (_indexunary_thunk(diff, path, dt),))


@pytest.mark.parametrize("thunk", [-7, -2, -1, 0, 1, 2, 3, 9])
@pytest.mark.parametrize("path", ["tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle",
                                  "colgt"])
def test_select_positional_thunks(diff, path, thunk):
    """Positional selects over the whole range of offsets, rectangular and square."""
    a = diff.matrix("INT32", 6, 9, 0.6)
    b = diff.matrix("FP64", 8, 5, 0.6)

    def body(gb, a, b):
        op = getattr(gb.select, path)
        return a.select(op, thunk).new(), b.select(op, thunk).new(), a.T.select(op, thunk).new()

    diff.check(body, a, b)


@pytest.mark.parametrize("replace", [False, True], ids=["keep", "replace"])
@pytest.mark.parametrize("accum", [None, "plus", "second"], ids=lambda a: f"accum={a}")
@pytest.mark.parametrize("mask_kind", MASK_KINDS, ids=lambda k: f"mask={k}")
@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("what", ["unary", "bound", "select", "indexunary"])
def test_combinations(diff, what, dtype, mask_kind, accum, replace):
    """Every type x mask kind x accumulator x replace for each flavour of apply/select."""
    if what == "unary":
        path = diff.choice(["identity", "ainv", "abs", "one"] if dtype != "BOOL"
                           else ["identity", "lnot", "one"])
        make, result, extra = (lambda gb, x: x.apply(getattr(gb.unary, path))), \
            resolve_op(graphblas, "unary", path)[dtype].return_type.name, ()
    elif what == "bound":
        path = diff.choice(["plus", "minus", "times", "max", "first", "second", "lt"])
        side = diff.choice(["left", "right"])
        make = lambda gb, x, s: x.apply(getattr(gb.binary, path), **{side: s})  # noqa: E731
        result = resolve_op(graphblas, "binary", path)[dtype].return_type.name
        extra = (ScalarData(dtype, diff.scalar(dtype).value),)
    elif what == "select":
        path = diff.choice(["tril", "triu", "valuene", "valuegt", "offdiag"])
        make = lambda gb, x, t: x.select(getattr(gb.select, path), t)  # noqa: E731
        result = dtype
        extra = (_indexunary_thunk(diff, path, dtype) if path.startswith("value") else
                 int(diff.rng.integers(-1, 2)),)
    else:
        path = diff.choice(["rowindex", "colindex", "index", "valuele"])
        make = lambda gb, x, t: x.apply(getattr(gb.indexunary, path), t)  # noqa: E731
        result = resolve_op(graphblas, "indexunary", path)[
            dtype if path == "valuele" else "INT64"].return_type.name
        extra = (ScalarData(dtype, diff.scalar(dtype).value) if path == "valuele"
                 else int(diff.rng.integers(-2, 3)),)
    _run(diff, make, container=diff.choice(["Matrix", "Vector"]), dtype=dtype,
         result_dtype=result, mask_kind=mask_kind, accum=accum, replace=replace,
         transpose=False, form="update", extra=extra, describe=f"{what} {path}")


@pytest.mark.parametrize("dtype", ["BOOL", "INT8", "UINT32", "FP32", "FP64"])
@pytest.mark.parametrize("what", ["unary", "bound-left", "bound-right", "select", "indexunary"])
def test_transposed_input(diff, what, dtype):
    a = diff.matrix(dtype, 5, 8, 0.5)
    m = diff.matrix("BOOL", 8, 5, 0.5)

    def body(gb, a, m):
        exprs = {
            "unary": lambda: a.T.apply(gb.unary.one),
            "bound-left": lambda: a.T.apply(gb.binary.minus, left=1),
            "bound-right": lambda: a.T.apply(gb.binary.first, right=1),
            "select": lambda: a.T.select(gb.select.triu, 1),
            "indexunary": lambda: a.T.apply(gb.indexunary.colindex, 0),
        }
        c = exprs[what]().new()
        c(m.V, accum=gb.binary.plus) << exprs[what]()
        return exprs[what]().new(), c

    diff.check(body, a, m)


@pytest.mark.parametrize("out_dtype", ALL_TYPES)
@pytest.mark.parametrize("in_dtype", ["BOOL", "INT8", "UINT16", "FP32", "FP64"])
def test_output_dtype(diff, in_dtype, out_dtype):
    """apply and select results cast to the output's type (``C << ...``, ``.new(dtype=)``)."""
    a = diff.matrix(in_dtype, 6, 5, 0.6)
    c = diff.matrix(out_dtype, 6, 5, 0.4)
    d = diff.matrix(out_dtype, 6, 5, 0.4)

    def body(gb, a, c, d):
        c(accum=gb.binary.second) << a.apply(gb.unary.identity)
        d << a.select(gb.select.triu, 0)
        return (c, d, a.apply(gb.binary.times, right=a.dtype.np_type.type(3)).new(dtype=out_dtype),
                a.select(gb.select.offdiag).new(dtype=out_dtype),
                a.apply(gb.indexunary.colindex, 1).new(dtype=out_dtype))

    diff.check(body, a, c, d)


@pytest.mark.parametrize("case", MATRIX_CASES.keys())
def test_matrix_shapes(diff, case):
    nrows, ncols, density = MATRIX_CASES[case]
    a = diff.matrix("FP64", nrows, ncols, density)

    def body(gb, a):
        return (a.apply(gb.unary.ainv).new(), a.apply(gb.binary.times, right=2).new(),
                a.select(gb.select.tril, 0).new(), a.select(gb.select.valuegt, 0).new(),
                a.apply(gb.indexunary.rowindex, 1).new(), a.T.apply(gb.unary.abs).new())

    diff.check(body, a)


@pytest.mark.parametrize("case", VECTOR_CASES.keys())
def test_vector_shapes(diff, case):
    size, density = VECTOR_CASES[case]
    v = diff.vector("INT16", size, density)

    def body(gb, v):
        return (v.apply(gb.unary.ainv).new(), v.apply(gb.binary.minus, left=3).new(),
                v.select(gb.select.valuene, 0).new(), v.select(gb.select.indexle, 2).new(),
                v.apply(gb.indexunary.index, -1).new())

    diff.check(body, v)


@pytest.mark.parametrize("path,dtype", [(p, t) for p in catalogue("unary")
                                        for t in op_types("unary", p)])
def test_unary_special_values(diff, path, dtype):
    """Each unary operator on the edge values of each type it supports (limits, 0, NaN,
    infinities, -0.0): SuiteSparse's definitions (integer minv, abs of the minimum, casts of
    NaN results) must hold."""
    vals = special_values(dtype)
    v = VectorData(dtype, len(vals), np.arange(len(vals)), vals)
    diff.check(lambda gb, v: v.apply(gb.op("unary", path)).new(), v)


def _infix_cases():
    return {
        "-A": lambda gb, a: (-a).new(),
        "abs(A)": lambda gb, a: abs(a).new(),
        "A+1": lambda gb, a: (a + 1).new(),
        "2+A": lambda gb, a: (2 + a).new(),
        "A-1": lambda gb, a: (a - 1).new(),
        "3-A": lambda gb, a: (3 - a).new(),
        "A*2": lambda gb, a: (a * 2).new(),
        "A/2": lambda gb, a: (a / 2).new(),
        "1/A": lambda gb, a: (1 / a).new(),
        "A**2": lambda gb, a: (a ** 2).new(),
        "A>0": lambda gb, a: (a > 0).new(),
        "A>=1": lambda gb, a: (a >= 1).new(),
        "A<0": lambda gb, a: (a < 0).new(),
        "A<=1": lambda gb, a: (a <= 1).new(),
        "A==1": lambda gb, a: (a == 1).new(),
        "A!=0": lambda gb, a: (a != 0).new(),
        "A+1.5": lambda gb, a: (a + 1.5).new(),
        "unary(A)": lambda gb, a: gb.unary.abs(a).new(),
        "binary(A,1)": lambda gb, a: gb.binary.minus(a, 1).new(),
        "binary(1,A)": lambda gb, a: gb.binary.minus(1, a).new(),
        "select.value(A>0)": lambda gb, a: gb.select.value(a > 0).new(),
        "select.value(A==1)": lambda gb, a: gb.select.value(a == 1).new(),
        "select.tril(A)": lambda gb, a: gb.select.tril(a).new() if a.ndim == 2
        else gb.select.valuene(a, 0).new(),
        "select.valuegt(A,1)": lambda gb, a: gb.select.valuegt(a, 1).new(),
        "apply('abs')": lambda gb, a: a.apply("abs").new(),
        "apply('+',right=1)": lambda gb, a: a.apply("+", right=1).new(),
        "select('>',0)": lambda gb, a: a.select(">", 0).new(),
        "select('==',1)": lambda gb, a: a.select("==", 1).new(),
        "select('valuele',0)": lambda gb, a: a.select("valuele", 0).new(),
    }


INFIX = _infix_cases()


@pytest.mark.parametrize("dtype", ["INT32", "UINT8", "FP64"])
@pytest.mark.parametrize("container", ["Matrix", "Vector"])
@pytest.mark.parametrize("case", INFIX.keys())
def test_infix_and_call_forms(diff, case, container, dtype):
    """Infix arithmetic/comparison with a scalar, operators called on objects, string ops."""
    x = diff.matrix(dtype, 6, 5, 0.5) if container == "Matrix" else diff.vector(dtype, 9, 0.6)
    diff.check(INFIX[case], x)


def test_matrix_row_column_selects(diff):
    """``select.row``/``select.column``/``select.index`` helpers and ``~`` on BOOL."""
    a = diff.matrix("FP32", 7, 6, 0.5)
    b = diff.matrix("BOOL", 7, 6, 0.5)
    v = diff.vector("INT64", 10, 0.6)

    def body(gb, a, b, v):
        return (gb.select.row(a < 3).new(), gb.select.row(a >= 2).new(),
                gb.select.column(a <= 1).new(), gb.select.column(a > 4).new(),
                gb.select.index(v < 5).new(), gb.select.index(v >= 3).new(),
                (~b).new(), b.select("tril", -1).new())

    diff.check(body, a, b, v)


THUNK_CASES = [
    ("INT8", "valuegt", 1.5), ("INT8", "valuegt", -1.5), ("FP32", "valuele", 1),
    ("UINT8", "valuelt", -1), ("UINT16", "valueeq", 3.0), ("BOOL", "valueeq", 1),
    ("INT64", "valuene", True), ("FP64", "valuege", np.float32(0.25)),
    ("UINT64", "valuegt", np.uint64(3)), ("INT32", "tril", np.int8(1)),
    ("FP64", "rowle", 2.0),
]


@pytest.mark.parametrize("dtype,path,thunk", THUNK_CASES,
                         ids=[f"{d}-{p}-{t!r}" for d, p, t in THUNK_CASES])
def test_select_thunk_types(diff, dtype, path, thunk):
    """A thunk of another type than the matrix: the operator is typed by the unified type
    and the values are cast to it.

    python-graphblas 2025.2.0 on SuiteSparse 9.4.5 gets ``select`` wrong when the value
    operator's type is a float type other than the matrix's (``valuegt[FP64]`` on FP32 keeps
    entries as if the thunk were 0), while ``apply`` with the same index-unary operator is
    right; so its answer is computed here as the entries where ``apply`` gives True.
    """
    a = diff.matrix(dtype, 6, 6, 0.6)

    def body(gb, a):
        if gb.name == "graphblas" and path.startswith("value"):
            keep = a.apply(getattr(gb.indexunary, path), thunk).new()
            return a.dup(mask=keep.V)
        return a.select(getattr(gb.select, path), thunk).new()

    diff.check(body, a)


BOUND_CASES = [("INT8", "plus", 1.5), ("UINT8", "minus", -1), ("BOOL", "plus", 2),
               ("FP32", "times", np.float64(0.1)), ("INT16", "truediv", 3),
               ("UINT32", "max", np.int8(-4)), ("INT64", "first", 2.5), ("FP64", "lt", True)]


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype,path,value", BOUND_CASES,
                         ids=[f"{d}-{p}-{v!r}" for d, p, v in BOUND_CASES])
def test_bound_value_types(diff, dtype, path, value, side):
    """A bound value of another type: the unified type selects the typed operator."""
    a = diff.vector(dtype, 9, 0.6)

    def body(gb, a):
        return a.apply(getattr(gb.binary, path), **{side: value}).new()

    diff.check(body, a)


def _alias_cases():
    def self_apply(gb, a, v):
        a << a.apply(gb.unary.ainv)
        return a

    def self_transpose_apply(gb, a, v):
        a(accum=gb.binary.plus) << a.T.apply(gb.binary.times, right=2)
        return a

    def mask_is_output(gb, a, v):
        a(a.V, replace=True) << a.apply(gb.unary.identity)
        return a

    def select_self(gb, a, v):
        a << a.select(gb.select.triu, 0)
        return a

    def select_masked_self(gb, a, v):
        a(~a.S) << a.T.select(gb.select.tril, -1)
        return a

    def vector_bound_self(gb, a, v):
        v(v.S, accum=gb.binary.max) << v.apply(gb.binary.minus, left=1)
        return v

    def indexunary_self(gb, a, v):
        v(v.V) << v.apply(gb.indexunary.index, 0)
        return v

    return {f.__name__: f for f in (self_apply, self_transpose_apply, mask_is_output,
                                    select_self, select_masked_self, vector_bound_self,
                                    indexunary_self)}


ALIAS = _alias_cases()


@pytest.mark.parametrize("dtype", ["INT32", "FP64"])
@pytest.mark.parametrize("case", ALIAS.keys())
def test_aliasing(diff, case, dtype):
    a = diff.matrix(dtype, 7, 7, 0.5)
    v = diff.vector(dtype, 9, 0.5)
    diff.check(ALIAS[case], a, v)
