"""Element-wise operations, apply, select, reductions and the masked write-back on N CPU
partitions against one CPU."""

import numpy as np
import pytest
from grouphelp import check, mask_of, matrix, output_args, vector

import graphblast as gb
from graphblast import binary, indexunary, monoid, select, unary

MASKS = ["none", "S", "V", "~S", "~V"]


def _operands(rng, container, dtype, transpose=False):
    """x, y of one shape (y stored transposed when ``transpose``), an output and a mask."""
    if container == "Matrix":
        n, m = (9, 9) if transpose else (8, 11)
        x = matrix(rng, n, m, 0.4, dtype)
        y = matrix(rng, m, n, 0.4, dtype) if transpose else matrix(rng, n, m, 0.4, dtype)
        return x, y, matrix(rng, n, m, 0.3, dtype), matrix(rng, n, m, 0.5, "INT64")
    n = 17
    return (vector(rng, n, 0.5, dtype), vector(rng, n, 0.5, dtype), vector(rng, n, 0.3, dtype),
            vector(rng, n, 0.5, "INT64"))


@pytest.mark.parametrize("container", ["Matrix", "Vector"])
@pytest.mark.parametrize("method", ["ewise_add", "ewise_mult", "ewise_union"])
@pytest.mark.parametrize("op, dtype", [("plus", "FP64"), ("minus", "INT64"), ("first", "INT32"),
                                       ("second", "FP32"), ("min", "INT64"), ("lor", "BOOL"),
                                       ("firsti", "INT64"), ("secondj", "INT64")])
def test_ewise(rng, parts, container, method, op, dtype):
    binop = getattr(binary, op)
    for mask_kind in MASKS:
        transpose = container == "Matrix" and bool(rng.integers(2))
        x, y, c, m = _operands(rng, container, dtype, transpose)
        accum = [None, binary.plus, binary.second][rng.integers(3)]
        replace = bool(rng.integers(2))

        def body(x, y, c, m):
            other = y.T if transpose else y
            if method == "ewise_union":
                expr = x.ewise_union(other, binop, 1, 2)
            else:
                expr = getattr(x, method)(other, binop)
            c(**output_args(mask_of(m, mask_kind), accum, replace)) << expr
            return c

        check(parts, body, x, y, c, m)


def test_ewise_of_separately_placed_operands(rng, parts):
    """Two matrices placed one after the other have their own row splits: the second is
    repartitioned to meet the first, and the answer is the same."""
    dense = matrix(rng, 14, 14, 0.9, "INT64")
    sparse = matrix(rng, 14, 14, 0.1, "INT64")
    skewed = matrix(rng, 14, 14, 0.0, "INT64")
    skewed[0, :] = 1  # all its entries in one row
    check(parts, lambda a, b, c: (a.ewise_add(b, binary.plus).new(),
                                  b.ewise_mult(c, binary.times).new(),
                                  c.mxv(b.reduce_rowwise(monoid.plus).new()).new()),
          dense, sparse, skewed)


APPLY_OPS = [
    ("unary", "ainv", None, None), ("unary", "abs", None, None),
    ("unary", "positioni", None, None), ("unary", "positionj1", None, None),
    ("binary", "minus", 2, "left"), ("binary", "times", 3, "right"),
    ("binary", "firsti", 1, "right"), ("binary", "secondj", 1, "left"),
    ("indexunary", "rowindex", 2, None), ("indexunary", "colindex", -1, None),
    ("indexunary", "diagindex", 1, None), ("indexunary", "tril", 0, None),
    ("indexunary", "valuegt", 0, None),
]


@pytest.mark.parametrize("container", ["Matrix", "Vector"])
@pytest.mark.parametrize("kind, name, scalar, side", APPLY_OPS)
def test_apply(rng, parts, container, kind, name, scalar, side):
    op = getattr({"unary": unary, "binary": binary, "indexunary": indexunary}[kind], name)
    for mask_kind in ["none", "V", "~S"]:
        x, _, c, m = _operands(rng, container, "INT64")

        def body(x, c, m):
            if kind == "unary":
                expr = x.apply(op)
            elif kind == "binary":
                expr = x.apply(op, left=scalar) if side == "left" else x.apply(op, right=scalar)
            else:
                expr = x.apply(op, scalar)
            c(**output_args(mask_of(m, mask_kind), None, False)) << expr
            return c

        check(parts, body, x, c, m)


@pytest.mark.parametrize("name, thunk", [("tril", 0), ("tril", -2), ("triu", 1), ("diag", 0),
                                         ("offdiag", 0), ("rowle", 4), ("rowgt", 2),
                                         ("colle", 3), ("colgt", 5), ("valuegt", 0),
                                         ("valueeq", 1), ("valuele", -1)])
def test_select(rng, parts, name, thunk):
    op = getattr(select, name)
    A = matrix(rng, 12, 9, 0.5, "INT64")
    v = vector(rng, 15, 0.6, "INT64")
    C = matrix(rng, 12, 9, 0.2, "INT64")
    M = matrix(rng, 12, 9, 0.5, "BOOL")
    vector_op = {"tril": None, "triu": None, "diag": None, "offdiag": None, "colle": None,
                 "colgt": None}.get(name, op)

    def body(A, v, C, M):
        C(M.V, binary.plus, replace=True) << A.select(op, thunk)
        out = [C]
        if vector_op is not None:
            out.append(v.select(vector_op, thunk).new())
        return out

    check(parts, body, A, v, C, M)


@pytest.mark.parametrize("name, dtype", [("plus", "INT64"), ("plus", "FP64"), ("min", "FP64"),
                                         ("max", "INT32"), ("times", "INT64"), ("lor", "BOOL"),
                                         ("land", "BOOL")])
def test_reductions(rng, parts, name, dtype):
    mon = getattr(monoid, name)
    A = matrix(rng, 10, 13, 0.3, dtype, low=1, high=4)
    v = vector(rng, 23, 0.4, dtype, low=1, high=4)
    w = vector(rng, 10, 0.5, dtype)
    m = vector(rng, 10, 0.5, "BOOL")

    def body(A, v, w, m):
        w(m.V, binary.plus) << A.reduce_rowwise(mon)
        return (w, A.reduce_columnwise(mon).new(), A.T.reduce_rowwise(mon).new(),
                A.reduce_scalar(mon).new(), v.reduce(mon).new())

    check(parts, body, A, v, w, m)


def test_reductions_of_nothing(rng, parts):
    A = matrix(rng, 6, 5, 0.0, "FP64")
    v = vector(rng, 9, 0.0, "INT64")
    check(parts, lambda A, v: (A.reduce_scalar(monoid.plus).new(),
                               A.reduce_scalar(monoid.min, allow_empty=False).new(),
                               v.reduce(monoid.max).new(), A.reduce_rowwise().new()), A, v)


@pytest.mark.parametrize("container", ["Matrix", "Vector"])
@pytest.mark.parametrize("mask_kind", MASKS[1:])
def test_write_back(rng, parts, container, mask_kind):
    """C(mask, accum, replace) << A for copies, casts and scalars."""
    for replace in (False, True):
        x, _, c, m = _operands(rng, container, "INT64")

        def body(x, c, m):
            c(mask_of(m, mask_kind), replace=replace) << x
            d = x.dup(dtype="FP32", mask=mask_of(m, mask_kind))
            e = x.dup()
            e(mask_of(m, mask_kind), binary.minus) << 7
            return c, d, e

        check(parts, body, x, c, m)


def test_comparisons_and_reads(rng, parts):
    """isequal/isclose (partition by partition), nvals, get, to_dense, iteration."""
    A = matrix(rng, 9, 9, 0.4, "FP64")
    v = vector(rng, 12, 0.5, "INT64")

    def body(A, v):
        B = A.dup()
        C = A.apply(binary.plus, right=1e-12).new()
        return (A.isequal(B), A.isequal(A.T), A.isclose(C), A.isequal(C),
                v.isequal(v.apply(unary.identity).new()), A.nvals, v.nvals, A.get(2, 3),
                v.get(4), (3, 1) in A, 5 in v, A.to_dense(fill_value=0).tolist(),
                sorted(v), A.is_symmetric)

    check(parts, body, A, v)


def test_scalar_expressions(rng, parts):
    u, v = vector(rng, 14, 0.6, "INT64"), vector(rng, 14, 0.6, "INT64")
    check(parts, lambda u, v: (u.inner(v).new(), u.inner(v, gb.semiring.min_plus).new()), u, v)


def test_element_updates(rng, parts):
    A = matrix(rng, 8, 8, 0.4, "INT64")
    v = vector(rng, 10, 0.5, "INT64")

    def body(A, v):
        A[3, 4] = 9
        v[7] = -1
        del A[1, 1]
        del v[2]
        A.resize(10, 6)
        v.resize(13)
        A.setdiag(5)
        return A, v, A.diag(1), v.diag(-2)

    check(parts, body, A, v)


def test_dense_operands(rng, parts):
    """Complete vectors (the CPU backend's one-pass paths) stay complete per partition."""
    n = 20
    u = gb.Vector.from_dense(np.arange(n, dtype=np.float64))
    v = vector(rng, n, 0.5, "FP64")
    check(parts, lambda u, v: (u.ewise_add(v, binary.plus).new(), u.ewise_mult(u).new(),
                               u.apply(unary.sqrt).new(), u.reduce().new()), u, v)


@pytest.mark.parametrize("nrows, ncols", [(0, 0), (1, 5), (5, 1), (2, 2), (3, 0)])
def test_fewer_rows_than_members(rng, parts, nrows, ncols):
    """Objects with fewer rows (or positions) than members: some blocks are empty."""
    A = matrix(rng, nrows, ncols, 0.7, "INT64")
    B = matrix(rng, ncols, nrows, 0.7, "INT64")
    u, v = vector(rng, ncols, 0.7, "INT64"), vector(rng, nrows, 0.7, "INT64")

    def body(A, B, u, v):
        w = A.mxv(u).new()
        w(v.S, binary.plus) << v.vxm(B.T)
        return (w, v.vxm(A).new(), A.mxm(B).new(), A.T.new(), A.ewise_add(B.T).new(),
                A.apply(indexunary.rowindex, 1).new(), A.reduce_rowwise().new(),
                A.reduce_scalar().new(), v[::-1].new(), A[::-1, :].new(),
                u.apply(indexunary.index).new())

    check(parts, body, A, B, u, v)
