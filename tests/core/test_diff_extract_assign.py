"""Extract, assign and subassign against python-graphblas: indices as integers (negative too),
slices (any step), lists, NumPy arrays and empty; masks on the whole output
(``C(M)[I, J] << B``, GrB_assign) and on the region (``C[I, J](m) << B``, GxB_subassign);
accumulators and replace; scalar and row/column assignment; element get, set and delete;
transposed sources and aliasing."""

import numpy as np
import pytest
from diffharness import (ALL_TYPES, MASK_KINDS, ScalarData, mask_of, output_args)

INDEX_KINDS = ["int", "negint", "slice", "revslice", "list", "array", "all", "empty"]
ACCUMS = [None, "plus", "min", "second"]


def make_index(rng, n, kind, *, unique):
    """An index into a dimension of size ``n`` and the positions it selects (None for a
    scalar index, which drops the dimension).  ``unique`` forbids repeated positions, which
    assignment leaves undefined."""
    if n == 0 and kind in ("int", "negint"):
        kind = "empty"
    if kind == "int":
        i = int(rng.integers(n))
        return i, None
    if kind == "negint":
        i = -int(rng.integers(1, n + 1))
        return i, None
    if kind == "all":
        return slice(None), np.arange(n)
    if kind in ("slice", "revslice"):
        start = int(rng.integers(-n, n + 1)) if rng.random() < 0.8 else None
        stop = int(rng.integers(-n, n + 1)) if rng.random() < 0.8 else None
        step = int(rng.integers(1, 3)) * (-1 if kind == "revslice" else 1)
        if rng.random() < 0.3:
            step = None if kind == "slice" else -1
        index = slice(start, stop, step)
        return index, np.arange(n)[index]
    if kind == "empty":
        return np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    count = int(rng.integers(1, max(n, 1) + 1)) if n else 0
    if unique:
        positions = rng.permutation(n)[:count]
    else:
        positions = rng.integers(0, n, count) if n else np.array([], dtype=np.int64)
    if kind == "list":
        return [int(p) for p in positions], positions
    dtype = (np.int64, np.int32, np.uint64)[int(rng.integers(3))]
    return np.asarray(positions, dtype=dtype), np.asarray(positions)


def _shape_of(n_sel):
    return tuple(len(s) for s in n_sel if s is not None)


def _data(diff, dtype, shape, density):
    if len(shape) == 2:
        return diff.matrix(dtype, *shape, density)
    if len(shape) == 1:
        return diff.vector(dtype, shape[0], density)
    return ScalarData(dtype, None if diff.rng.random() < 0.2 else diff.scalar(dtype).value)


# ---------------------------------------------------------------------------------------------
# extract
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("col_kind", INDEX_KINDS)
@pytest.mark.parametrize("row_kind", INDEX_KINDS)
def test_matrix_extract(diff, row_kind, col_kind):
    """``A[I, J]`` (or ``A.T[I, J]``) into a masked, accumulated output, or ``.new``."""
    dtype = diff.choice(ALL_TYPES)
    transpose = diff.choice([False, True])
    nrows, ncols = diff.choice([(6, 7), (7, 5), (1, 4), (5, 5)])
    a = diff.matrix(dtype, *((ncols, nrows) if transpose else (nrows, ncols)), 0.5)
    rows, rsel = make_index(diff.rng, nrows, row_kind, unique=False)
    cols, csel = make_index(diff.rng, ncols, col_kind, unique=False)
    out_shape = _shape_of([rsel, csel])
    c = _data(diff, dtype, out_shape, 0.3)
    m = _data(diff, diff.choice(ALL_TYPES), out_shape, 0.5) if out_shape else None
    mask_kind = diff.choice(MASK_KINDS) if out_shape else "none"
    accum = diff.choice(ACCUMS)
    replace = diff.choice([False, True])
    form = diff.choice(["update", "new"])
    print(f"A{'.T' if transpose else ''}[{rows!r}, {cols!r}] {dtype} mask={mask_kind} "
          f"accum={accum} replace={replace} form={form}")

    def body(gb, a, c, m):
        expr = (a.T if transpose else a)[rows, cols]
        mask = None if m is None else mask_of(m, mask_kind)
        if form == "new":
            return expr.new(**({} if mask is None else {"mask": mask}))
        acc = None if accum is None else getattr(gb.binary, accum)
        c(**output_args(mask, acc, replace)) << expr
        return c

    diff.check(body, a, c, m)


@pytest.mark.parametrize("kind", INDEX_KINDS)
def test_vector_extract(diff, kind):
    dtype = diff.choice(ALL_TYPES)
    size = diff.choice([1, 6, 9])
    v = diff.vector(dtype, size, 0.5)
    index, sel = make_index(diff.rng, size, kind, unique=False)
    out_shape = _shape_of([sel])
    c = _data(diff, dtype, out_shape, 0.3)
    m = _data(diff, diff.choice(ALL_TYPES), out_shape, 0.5) if out_shape else None
    mask_kind = diff.choice(MASK_KINDS) if out_shape else "none"
    accum = diff.choice(ACCUMS)
    replace = diff.choice([False, True])
    print(f"v[{index!r}] {dtype} mask={mask_kind} accum={accum} replace={replace}")

    def body(gb, v, c, m):
        mask = None if m is None else mask_of(m, mask_kind)
        acc = None if accum is None else getattr(gb.binary, accum)
        c(**output_args(mask, acc, replace)) << v[index]
        return c, v[index].new()

    diff.check(body, v, c, m)


@pytest.mark.parametrize("replace", [False, True], ids=["keep", "replace"])
@pytest.mark.parametrize("accum", [None, "plus"], ids=lambda a: f"accum={a}")
@pytest.mark.parametrize("mask_kind", MASK_KINDS, ids=lambda k: f"mask={k}")
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_extract_combinations(diff, dtype, mask_kind, accum, replace):
    """Every type x mask kind x accumulator x replace for a submatrix extract."""
    a = diff.matrix(dtype, 8, 7, 0.5)
    rows, rsel = make_index(diff.rng, 8, diff.choice(["list", "slice", "array"]), unique=False)
    cols, csel = make_index(diff.rng, 7, diff.choice(["list", "revslice", "all"]), unique=False)
    c = diff.matrix(diff.choice([dtype, "FP64", "INT8"]), len(rsel), len(csel), 0.3)
    m = diff.matrix(diff.choice(ALL_TYPES), len(rsel), len(csel), 0.5)

    def body(gb, a, c, m):
        acc = None if accum is None else getattr(gb.binary, accum)
        c(**output_args(mask_of(m, mask_kind), acc, replace)) << a[rows, cols]
        return c

    diff.check(body, a, c, m)


# ---------------------------------------------------------------------------------------------
# assign and subassign
# ---------------------------------------------------------------------------------------------

STYLES = ["plain", "assign", "subassign"]


def _assign_case(diff, dtype, nrows, ncols, row_kind, col_kind, style, source_kind):
    """Data for one assignment: C, its index, a source, a mask for the chosen style."""
    c = diff.matrix(dtype, nrows, ncols, 0.4)
    rows, rsel = make_index(diff.rng, nrows, row_kind, unique=True)
    cols, csel = make_index(diff.rng, ncols, col_kind, unique=True)
    region = _shape_of([rsel, csel])
    src_dtype = diff.choice([dtype, dtype, "FP64", "INT32", "BOOL"])
    transposed_source = False
    if source_kind == "scalar" or not region:
        source = diff.choice([ScalarData(src_dtype, diff.scalar(src_dtype).value),
                              ScalarData(src_dtype, None), diff.scalar(src_dtype).value])
    elif len(region) == 2 and diff.rng.random() < 0.3:
        source = diff.matrix(src_dtype, region[1], region[0], 0.5)
        transposed_source = True
    else:
        source = _data(diff, src_dtype, region, 0.5)
    if style == "assign":
        mask = diff.matrix(diff.choice(ALL_TYPES), nrows, ncols, 0.5)
        if len(region) == 1:
            # Row/column assignment takes a mask of the row's/column's size.
            mask = diff.vector(mask.dtype, ncols if rsel is None else nrows, 0.5)
        if not region:
            style = "plain"  # an element assignment takes no mask
    elif style == "subassign" and region:
        mask = _data(diff, diff.choice(ALL_TYPES), region, 0.5)
    else:
        style, mask = "plain", None
    return c, rows, cols, source, transposed_source, style, mask


def _assign_body(rows, cols, style, mask_kind, accum, replace, transposed_source):
    def body(gb, c, source, m):
        src = source.T if transposed_source else source
        acc = None if accum is None else getattr(gb.binary, accum)
        if style == "plain":
            if acc is None:
                c[rows, cols] << src
            else:
                c(accum=acc)[rows, cols] << src
        elif style == "assign":
            c(**output_args(mask_of(m, mask_kind), acc, replace))[rows, cols] << src
        else:
            c[rows, cols](**output_args(mask_of(m, mask_kind), acc, replace)) << src
        return c
    return body


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("col_kind", INDEX_KINDS)
@pytest.mark.parametrize("row_kind", INDEX_KINDS)
def test_matrix_assign(diff, row_kind, col_kind, style):
    """``C[I, J] << B``, ``C(M)[I, J] << B`` and ``C[I, J](m) << B`` with matrix, vector (row
    or column) and scalar sources."""
    dtype = diff.choice(ALL_TYPES)
    nrows, ncols = diff.choice([(6, 7), (7, 5), (5, 5), (1, 6)])
    source_kind = diff.choice(["object", "object", "scalar"])
    c, rows, cols, source, ts, style, m = _assign_case(diff, dtype, nrows, ncols, row_kind,
                                                       col_kind, style, source_kind)
    mask_kind = diff.choice(MASK_KINDS[1:]) if m is not None else "none"
    accum = diff.choice(ACCUMS)
    replace = diff.choice([False, True])
    print(f"C[{rows!r}, {cols!r}] {style} << {source!r}{'.T' if ts else ''} C:{dtype} "
          f"mask={mask_kind} accum={accum} replace={replace}")
    diff.check(_assign_body(rows, cols, style, mask_kind, accum, replace, ts), c, source, m)


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("kind", INDEX_KINDS)
def test_vector_assign(diff, kind, style):
    dtype = diff.choice(ALL_TYPES)
    size = diff.choice([1, 7, 10])
    w = diff.vector(dtype, size, 0.4)
    index, sel = make_index(diff.rng, size, kind, unique=True)
    src_dtype = diff.choice([dtype, "FP32", "UINT8"])
    if sel is None or diff.rng.random() < 0.3:
        source = diff.choice([ScalarData(src_dtype, diff.scalar(src_dtype).value),
                              ScalarData(src_dtype, None), diff.scalar(src_dtype).value])
    else:
        source = diff.vector(src_dtype, len(sel), 0.5)
    if sel is None:
        style = "plain"
    m = {"plain": None, "assign": diff.vector(diff.choice(ALL_TYPES), size, 0.5),
         "subassign": None if sel is None else diff.vector("INT8", len(sel), 0.5)}[style]
    mask_kind = diff.choice(MASK_KINDS[1:]) if m is not None else "none"
    accum = diff.choice(ACCUMS)
    replace = diff.choice([False, True])
    print(f"w[{index!r}] {style} << {source!r} w:{dtype} mask={mask_kind} accum={accum} "
          f"replace={replace}")

    def body(gb, w, source, m):
        acc = None if accum is None else getattr(gb.binary, accum)
        if style == "plain":
            w(**output_args(None, acc, False))[index] << source
        elif style == "assign":
            w(**output_args(mask_of(m, mask_kind), acc, replace))[index] << source
        else:
            w[index](**output_args(mask_of(m, mask_kind), acc, replace)) << source
        return w

    diff.check(body, w, source, m)


@pytest.mark.parametrize("replace", [False, True], ids=["keep", "replace"])
@pytest.mark.parametrize("accum", [None, "plus", "second"], ids=lambda a: f"accum={a}")
@pytest.mark.parametrize("mask_kind", MASK_KINDS[1:], ids=lambda k: f"mask={k}")
@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("style", ["assign", "subassign"])
def test_assign_combinations(diff, style, dtype, mask_kind, accum, replace):
    """Every type x mask kind x accumulator x replace, for GrB_assign and GxB_subassign."""
    c, rows, cols, source, ts, style, m = _assign_case(
        diff, dtype, 8, 7, diff.choice(["list", "slice", "array"]),
        diff.choice(["list", "revslice", "all"]), style, diff.choice(["object", "scalar"]))
    print(f"C[{rows!r}, {cols!r}] {style} << {source!r} mask={mask_kind}")
    diff.check(_assign_body(rows, cols, style, mask_kind, accum, replace, ts), c, source, m)


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_scalar_assign_everywhere(diff, dtype):
    """``C[:, :] << s``, ``C(M.S)[:, :] << s`` and ``C(~M.V, replace=True)[:, :] << s``: scalar
    assignment through a mask fills the masked positions."""
    c = diff.matrix(dtype, 6, 6, 0.4)
    m = diff.matrix(diff.choice(ALL_TYPES), 6, 6, 0.5)
    s = ScalarData(dtype, diff.scalar(dtype).value)

    def body(gb, c, m, s):
        c2, c3 = c.dup(), c.dup()
        c[:, :] << s
        c2(m.S)[:, :] << s
        c3(~m.V, replace=True)[:, :] << s
        return c, c2, c3

    diff.check(body, c, m, s)


# ---------------------------------------------------------------------------------------------
# elements
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value_kind", ["python-int", "python-float", "bool", "numpy", "Scalar",
                                        "empty-Scalar"])
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_matrix_elements(diff, dtype, value_kind):
    """Element get/set/delete: ``C[i, j] = x``, ``C[i, j] << x``, ``del C[i, j]``,
    ``C[i, j].value``, ``C[i, j].new()``; negative indices; values cast to the matrix type."""
    c = diff.matrix(dtype, 5, 6, 0.5)
    rng = diff.rng
    value = {"python-int": int(rng.integers(-300, 300)),
             "python-float": float(rng.integers(-40, 40) / 4 + 0.1),
             "bool": bool(rng.random() < 0.5),
             "numpy": np.float32(rng.integers(-9, 9) / 2),
             "Scalar": ScalarData(diff.choice(ALL_TYPES), None),
             "empty-Scalar": ScalarData(dtype, None)}[value_kind]
    if value_kind == "Scalar":
        value = ScalarData(value.dtype, diff.scalar(value.dtype).value)
    positions = [(int(rng.integers(5)), int(rng.integers(6))) for _ in range(4)]
    neg = (-int(rng.integers(1, 6)), -int(rng.integers(1, 7)))

    def body(gb, c, value):
        got = []
        for i, j in positions:
            got.append(c[i, j].value)
            got.append(c[i, j].new())
        i, j = positions[0]
        c[i, j] = value
        got.append(c[i, j].new())
        i, j = positions[1]
        c[i, j] << value
        del c[positions[2]]
        del c[positions[2]]  # deleting a missing element is no error
        got.append(c[neg].new())
        c[neg] = value
        got.append(c[positions[3]].new(dtype="FP64"))
        return c, got

    diff.check(body, c, value)


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_vector_elements(diff, dtype):
    v = diff.vector(dtype, 8, 0.5)
    rng = diff.rng
    idx = [int(i) for i in rng.integers(0, 8, 4)]
    val = diff.scalar(dtype).value

    def body(gb, v):
        got = [v[i].value for i in idx] + [v[-1].new(), v[idx[0]].new(dtype="INT64")]
        v[idx[0]] = val
        v[idx[1]] << gb.Scalar.from_value(val, dtype=dtype)
        del v[idx[2]]
        v[-2] = 1
        del v[-3]
        got.append(v[idx[0]].new())
        return v, got

    diff.check(body, v)


# ---------------------------------------------------------------------------------------------
# casting and aliasing
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("src_dtype", ["BOOL", "INT64", "UINT8", "FP32", "FP64"])
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_assign_casts(diff, dtype, src_dtype):
    """Sources of another type are cast to the output's type."""
    c = diff.matrix(dtype, 6, 6, 0.4)
    b = diff.matrix(src_dtype, 3, 4, 0.6)
    s = diff.scalar(src_dtype)

    def body(gb, c, b, s):
        c[[4, 0, 2], 1:5] << b
        c(accum=gb.binary.plus)[0:3, [5, 0, 3, 2]] << b
        c[5, :] << s
        return c

    diff.check(body, c, b, ScalarData(src_dtype, s.value))


def _alias_cases():
    def block_from_self(gb, c, v):
        c[0:3, 0:3] << c[2:5, 1:4]
        return c

    def transpose_into_self(gb, c, v):
        c(c.S)[:, :] << c.T
        return c

    def row_from_own_column(gb, c, v):
        c[1, :] << c[:, 2]
        return c

    def subassign_self_mask(gb, c, v):
        c[0:4, 0:4](c[0:4, 0:4].new().V, accum=gb.binary.plus) << c[3:7, 3:7]
        return c

    def assign_mask_is_output(gb, c, v):
        c(~c.S)[[1, 3, 5], :] << c[[0, 2, 4], :]
        return c

    def vector_from_self(gb, c, v):
        v[[0, 2, 4]] << v[[5, 1, 3]]
        return v

    def vector_mask_self(gb, c, v):
        v(v.V, replace=True)[:] << v[::-1]
        return v

    def extract_into_self_mask(gb, c, v):
        v(v.S, accum=gb.binary.max) << c[2, :]
        return v

    return {f.__name__: f for f in (block_from_self, transpose_into_self, row_from_own_column,
                                    subassign_self_mask, assign_mask_is_output,
                                    vector_from_self, vector_mask_self,
                                    extract_into_self_mask)}


ALIAS = _alias_cases()


@pytest.mark.parametrize("dtype", ["INT16", "FP64", "BOOL"])
@pytest.mark.parametrize("case", ALIAS.keys())
def test_aliasing(diff, case, dtype):
    c = diff.matrix(dtype, 7, 7, 0.5)
    v = diff.vector(dtype, 7, 0.5)
    diff.check(ALIAS[case], c, v)
