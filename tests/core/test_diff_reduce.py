"""reduce_rowwise, reduce_columnwise, reduce_scalar and Vector.reduce against python-graphblas:
every monoid (and binary operators that have one), every type, mask kind, accumulator,
replace, transposed inputs, empty and 0-sized inputs, special values and Scalar outputs."""

import numpy as np
import pytest
from diffharness import (ALL_TYPES, MASK_KINDS, MATRIX_CASES, VECTOR_CASES, ScalarData,
                         VectorData, any_candidates, catalogue, mask_of, op_types, output_args,
                         resolve_op, special_values)
import graphblas

METHODS = ["reduce_rowwise", "reduce_columnwise", "reduce_scalar", "Vector.reduce"]
ACCUMS = [None, "plus", "min", "second"]
COMMON_MONOIDS = ["plus", "min", "max", "times", "lor", "land", "lxor"]



def _run(diff, method, path, dtype, *, mask_kind, accum, replace, transpose, form,
         kind="monoid"):
    """One reduction by ``kind.path`` of random ``dtype`` input into a random output."""
    result_dtype = resolve_op(graphblas, kind, path)[dtype].return_type.name
    if method == "Vector.reduce":
        x = diff.vector(dtype, diff.choice([8, 12]), 0.5)
    else:
        nrows, ncols = diff.choice([(6, 7), (7, 5), (5, 5)])
        x = diff.matrix(dtype, *((ncols, nrows) if transpose else (nrows, ncols)), 0.45)
    if method in ("reduce_scalar", "Vector.reduce"):
        c = diff.scalar(result_dtype, empty=diff.choice([False, True]))
        m = None
    else:
        size = nrows if method == "reduce_rowwise" else ncols
        c = diff.vector(result_dtype, size, 0.4)
        m = diff.vector(diff.choice(ALL_TYPES), size, 0.5)
    print(f"{method} {kind}.{path}[{dtype}] mask={mask_kind} accum={accum} replace={replace} "
          f"T={transpose} form={form} out:{result_dtype} x={x}")

    def body(gb, x, c, m):
        op = gb.op(kind, path)
        src = x.T if transpose else x
        if method == "Vector.reduce":
            expr = src.reduce(op)
        else:
            expr = getattr(src, method)(op)
        mask = None if m is None else mask_of(m, mask_kind)
        if form == "new":
            return expr.new(**({} if mask is None else {"mask": mask}))
        acc = None if accum is None else getattr(gb.binary, accum)
        c(**output_args(mask, acc, replace)) << expr
        return c

    candidates = None
    if path == "any" and accum is None:
        candidates = any_candidates(method, transpose)
    diff.check(body, x, c, m, candidates=candidates)


@pytest.mark.parametrize("path", catalogue("monoid"))
@pytest.mark.parametrize("method", METHODS)
def test_monoid_catalogue(diff, method, path):
    """Every monoid of python-graphblas, on a random supported type and setting."""
    _run(diff, method, path, diff.choice(op_types("monoid", path)),
         mask_kind=diff.choice(MASK_KINDS),
         accum=None if path == "any" else diff.choice(ACCUMS),
         replace=diff.choice([False, True]),
         transpose=method not in ("Vector.reduce",) and diff.choice([False, True]),
         form=diff.choice(["update", "new"]))


BINARY_WITH_MONOID = ["plus", "times", "min", "max", "lor", "land", "lxor", "eq", "any", "band",
                      "bor", "bxor", "bxnor", "lxnor"]


@pytest.mark.parametrize("path", BINARY_WITH_MONOID)
@pytest.mark.parametrize("method", METHODS)
def test_binary_operator_with_monoid(diff, method, path):
    """A binary operator that has a monoid reduces like the monoid."""
    types = [t for t in op_types("binary", path) if t in op_types("monoid", path)]
    _run(diff, method, path, diff.choice(types), mask_kind="none", accum=None, replace=False,
         transpose=False, form="new", kind="binary")


@pytest.mark.parametrize("replace", [False, True], ids=["keep", "replace"])
@pytest.mark.parametrize("accum", [None, "plus", "second"], ids=lambda a: f"accum={a}")
@pytest.mark.parametrize("mask_kind", MASK_KINDS, ids=lambda k: f"mask={k}")
@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("method", ["reduce_rowwise", "reduce_columnwise"])
def test_combinations(diff, method, dtype, mask_kind, accum, replace):
    """Every type x mask kind x accumulator x replace, with a common monoid."""
    path = diff.choice([p for p in COMMON_MONOIDS if dtype in op_types("monoid", p)])
    _run(diff, method, path, dtype, mask_kind=mask_kind, accum=accum, replace=replace,
         transpose=diff.choice([False, True]), form="update")


@pytest.mark.parametrize("accum", [None, "plus", "max", "second"], ids=lambda a: f"accum={a}")
@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("method", ["reduce_scalar", "Vector.reduce"])
def test_scalar_combinations(diff, method, dtype, accum):
    """Reductions to a Scalar, into an empty or a full Scalar, with and without accumulator."""
    path = diff.choice([p for p in COMMON_MONOIDS if dtype in op_types("monoid", p)])
    _run(diff, method, path, dtype, mask_kind="none", accum=accum, replace=False,
         transpose=method == "reduce_scalar" and diff.choice([False, True]), form="update")


@pytest.mark.parametrize("case", MATRIX_CASES.keys())
@pytest.mark.parametrize("method", ["reduce_rowwise", "reduce_columnwise", "reduce_scalar"])
def test_matrix_shapes(diff, method, case):
    """Empty and 0-sized matrices: empty results (or the identity with allow_empty=False)."""
    nrows, ncols, density = MATRIX_CASES[case]
    dtype = diff.choice(["INT32", "FP64", "UINT8"])
    x = diff.matrix(dtype, nrows, ncols, density)

    def body(gb, x):
        out = [getattr(x, method)(gb.monoid.max).new(), getattr(x, method)().new(),
               getattr(x.T, method)(gb.monoid.plus).new()]
        if method == "reduce_scalar":
            out += [x.reduce_scalar(gb.monoid.times, allow_empty=False).new(),
                    x.reduce_scalar(gb.monoid.min, allow_empty=True).new()]
        return out

    diff.check(body, x)


@pytest.mark.parametrize("case", VECTOR_CASES.keys())
def test_vector_shapes(diff, case):
    size, density = VECTOR_CASES[case]
    x = diff.vector("INT64", size, density)

    def body(gb, x):
        return (x.reduce().new(), x.reduce(gb.monoid.min).new(),
                x.reduce(gb.monoid.max, allow_empty=False).new(),
                x.reduce(gb.monoid.plus, allow_empty=False).new())

    diff.check(body, x)


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_default_monoid(diff, dtype):
    """``reduce_*()`` with no operator is plus; python-graphblas has no plus for BOOL and
    raises KeyError there."""
    x = diff.matrix(dtype, 6, 5, 0.6)
    v = diff.vector(dtype, 9, 0.6)
    raises = "KeyError" if dtype == "BOOL" else None
    for reduction in ("reduce_rowwise", "reduce_columnwise", "reduce_scalar"):
        diff.check(lambda gb, x: getattr(x, reduction)().new(), x, raises=raises)
    diff.check(lambda gb, v: v.reduce().new(), v, raises=raises)


@pytest.mark.parametrize("path,dtype", [(p, t) for p in catalogue("monoid")
                                        for t in op_types("monoid", p) if p != "any"])
def test_special_values(diff, path, dtype):
    """Every monoid on each type's edge values: overflow wraps, NaN, infinities, -0.0."""
    vals = special_values(dtype)
    v = VectorData(dtype, len(vals), np.arange(len(vals)), vals)
    # Reduce the edge values two at a time too (pairs of neighbours), rowwise.
    n = len(vals)
    rows = np.repeat(np.arange(n - 1), 2)
    cols = np.tile([0, 1], n - 1)
    pairs = np.stack([vals[:-1], vals[1:]], axis=1).ravel()

    def body(gb, v):
        a = gb.Matrix.from_coo(rows, cols, pairs, dtype=dtype, nrows=n - 1, ncols=2)
        op = gb.op("monoid", path)
        return v.reduce(op).new(), a.reduce_rowwise(op).new(), a.reduce_columnwise(op).new()

    diff.check(body, v)


@pytest.mark.parametrize("out_dtype", ALL_TYPES)
@pytest.mark.parametrize("in_dtype", ["BOOL", "INT8", "UINT16", "FP32", "FP64"])
def test_output_dtype(diff, in_dtype, out_dtype):
    """Reductions cast to the output's type: ``.new(dtype=)``, ``w << ...``, ``s << ...``."""
    x = diff.matrix(in_dtype, 6, 5, 0.6)
    w = diff.vector(out_dtype, 6, 0.5)
    s = ScalarData(out_dtype, None)
    op = "lor" if in_dtype == "BOOL" else "plus"

    def body(gb, x, w, s):
        monoid = getattr(gb.monoid, op)
        w(accum=gb.binary.plus) << x.reduce_rowwise(monoid)
        s << x.reduce_scalar(monoid)
        return (w, s, x.reduce_columnwise(monoid).new(dtype=out_dtype),
                x.reduce_scalar(monoid).new(dtype=out_dtype))

    diff.check(body, x, w, s)


def test_string_and_typed_monoids(diff):
    x = diff.matrix("INT16", 6, 6, 0.6)

    def body(gb, x):
        return (x.reduce_rowwise("plus").new(), x.reduce_columnwise("max").new(),
                x.reduce_scalar("min").new(), x.reduce_rowwise(gb.monoid.plus["FP32"]).new(),
                x.reduce_scalar(gb.monoid.times[int]).new(),
                x.reduce_rowwise(gb.monoid.from_string("min")).new())

    diff.check(body, x)


def test_mask_is_output(diff):
    """The output vector is also the mask."""
    x = diff.matrix("FP64", 7, 7, 0.5)
    w = diff.vector("FP64", 7, 0.5)

    def body(gb, x, w):
        w(w.S, accum=gb.binary.plus) << x.reduce_rowwise(gb.monoid.max)
        w(~w.V, replace=True) << x.T.reduce_rowwise(gb.monoid.min)
        return w

    diff.check(body, x, w)


def test_scalar_accumulate_into_empty_and_full(diff):
    """Accumulating a reduction into an empty Scalar stores the reduction; an empty reduction
    leaves the Scalar as it was."""
    x = diff.matrix("INT32", 5, 5, 0.6)
    e = diff.matrix("INT32", 5, 5, 0.0)
    s = ScalarData("INT32", None)
    t = ScalarData("INT32", 10)

    def body(gb, x, e, s, t):
        s(accum=gb.binary.plus) << x.reduce_scalar()
        t(accum=gb.binary.plus) << e.reduce_scalar()
        u = gb.Scalar.from_value(5, dtype="INT32")
        u << e.reduce_scalar()
        return s, t, u

    diff.check(body, x, e, s, t)
