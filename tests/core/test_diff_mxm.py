"""mxm, mxv, vxm and ``@`` against python-graphblas: every semiring, type, mask kind,
accumulator, ``replace``, transposed inputs, output casting and aliasing.

The catalogue tests run every semiring once per method with a combination drawn from the
test's seeded generator (printed with the seed on failure); the combination tests run every
type x mask kind x accumulator x replace with a semiring drawn from a short list.
"""

import graphblas
import numpy as np
import pytest
from diffharness import (ALL_TYPES, MASK_KINDS, MXM_SHAPES, MatrixData, T_if, catalogue,
                         keep_axis, mask_of,
                         needs_nonzero, op_types, output_args, resolve_op, semiring_candidates,
                         semiring_parts, vector_as_matrix)

METHODS = ["mxm", "mxv", "vxm"]
ACCUMS = [None, "plus", "min", "second"]
# Semirings for the combination tests; each test uses one that is defined for its type.
COMMON_SEMIRINGS = ["plus_times", "min_plus", "max_times", "lor_land", "any_pair", "plus_pair",
                    "min_second", "max_first", "land_lor", "max_min"]


def _operand_data(diff, method, dtype, shape, ta, tb, density=0.4, nonzero=False):
    """Inputs of ``method`` for output shape (m, n) and inner size k, pre-transposed so that
    ``T_if(x, flag)`` gives the operand the method expects."""
    m, k, n = shape
    kw = {"nonzero": nonzero}
    if method == "mxm":
        a = diff.matrix(dtype, *((k, m) if ta else (m, k)), density, **kw)
        b = diff.matrix(dtype, *((n, k) if tb else (k, n)), density, **kw)
        return a, b, (m, n)
    if method == "mxv":
        a = diff.matrix(dtype, *((k, m) if ta else (m, k)), density, **kw)
        return a, diff.vector(dtype, k, density, **kw), (m,)
    a = diff.matrix(dtype, *((n, k) if tb else (k, n)), density, **kw)
    return diff.vector(dtype, k, density, **kw), a, (n,)


def _output_data(diff, dtype, out_shape, density=0.3):
    if len(out_shape) == 2:
        return diff.matrix(dtype, *out_shape, density)
    return diff.vector(dtype, out_shape[0], density)


def _expression(method, x, y, op, ta, tb):
    if method == "mxm":
        return T_if(x, ta).mxm(T_if(y, tb), op)
    if method == "mxv":
        return T_if(x, ta).mxv(y, op)
    return x.vxm(T_if(y, tb), op)


def _materialize(x, transpose):
    return x.T.new() if transpose else x


def _candidates(method, path, dtype, ta, tb):
    """Candidate builder for an ``any_*`` semiring (see Differ.check)."""
    typed = resolve_op(graphblas, "semiring", path)[dtype]

    def candidates(gb, x, y, *rest):
        if method == "mxm":
            a, b = _materialize(x, ta), _materialize(y, tb)
            return [semiring_candidates(gb, typed, a, b)]
        if method == "mxv":
            column = vector_as_matrix(gb, y, column=True)
            return [keep_axis(semiring_candidates(gb, typed, _materialize(x, ta), column), 0)]
        row = vector_as_matrix(gb, x, column=False)
        return [keep_axis(semiring_candidates(gb, typed, row, _materialize(y, tb)), 1)]

    return candidates


def _run(diff, method, path, dtype, *, mask_kind, accum, replace, ta=False, tb=False,
         shape=None, form="update"):
    """One masked/accumulated ``method`` with semiring ``path`` on random ``dtype`` inputs."""
    shape = shape or diff.choice(MXM_SHAPES.values())
    x, y, out_shape = _operand_data(diff, method, dtype, shape, ta, tb,
                                    nonzero=needs_nonzero(path))
    result_type = resolve_op(graphblas, "semiring", path)[dtype].return_type.name
    c = _output_data(diff, result_type, out_shape)
    m = _output_data(diff, diff.choice(ALL_TYPES), out_shape, 0.5)
    is_any = semiring_parts(path)[0] == "any"
    print(f"{method} {path}[{dtype}] shape={shape} mask={mask_kind} accum={accum} "
          f"replace={replace} ta={ta} tb={tb} form={form} C:{c.dtype} M:{m.dtype}")

    def body(gb, x, y, c, m):
        op = gb.op("semiring", path)
        expr = _expression(method, x, y, op, ta, tb)
        mask = mask_of(m, mask_kind)
        if form == "new":
            kwargs = {} if mask is None else {"mask": mask}
            return expr.new(**kwargs)
        acc = None if accum is None else getattr(gb.binary, accum)
        c(**output_args(mask, acc, replace)) << expr
        return c

    candidates = None
    if is_any and accum is None:
        candidates = _candidates(method, path, dtype, ta, tb)
    diff.check(body, x, y, c, m, candidates=candidates)


@pytest.mark.parametrize("path", catalogue("semiring"))
@pytest.mark.parametrize("method", METHODS)
def test_semiring_catalogue(diff, method, path):
    """Every semiring of python-graphblas, on a random supported type and setting."""
    dtype = diff.choice(op_types("semiring", path))
    is_any = semiring_parts(path)[0] == "any"
    _run(diff, method, path, dtype,
         mask_kind=diff.choice(MASK_KINDS),
         accum=None if is_any else diff.choice(ACCUMS),
         replace=diff.choice([False, True]),
         ta=method != "vxm" and diff.choice([False, True]),
         tb=method != "mxv" and diff.choice([False, True]),
         form=diff.choice(["update", "update", "new"]))


def _common_semiring(diff, dtype):
    return diff.choice([p for p in COMMON_SEMIRINGS if dtype in op_types("semiring", p)])


@pytest.mark.parametrize("replace", [False, True], ids=["keep", "replace"])
@pytest.mark.parametrize("accum", [None, "plus", "second"], ids=lambda a: f"accum={a}")
@pytest.mark.parametrize("mask_kind", MASK_KINDS, ids=lambda k: f"mask={k}")
@pytest.mark.parametrize("dtype", ALL_TYPES)
@pytest.mark.parametrize("method", METHODS)
def test_combinations(diff, method, dtype, mask_kind, accum, replace):
    """Every type x mask kind x accumulator x replace, with a common semiring."""
    path = _common_semiring(diff, dtype)
    _run(diff, method, path, dtype, mask_kind=mask_kind,
         accum=None if path.startswith("any") else accum, replace=replace,
         shape=diff.choice([MXM_SHAPES["small"], MXM_SHAPES["square"]]))


TRANSPOSES = [pytest.param("mxm", False, False, id="mxm-AB"),
              pytest.param("mxm", True, False, id="mxm-ATB"),
              pytest.param("mxm", False, True, id="mxm-ABT"),
              pytest.param("mxm", True, True, id="mxm-ATBT"),
              pytest.param("mxv", True, False, id="mxv-ATv"),
              pytest.param("vxm", False, True, id="vxm-uAT")]


@pytest.mark.parametrize("dtype", ["BOOL", "INT32", "UINT8", "FP32", "FP64"])
@pytest.mark.parametrize("method,ta,tb", TRANSPOSES)
def test_transposed_inputs(diff, method, ta, tb, dtype):
    path = _common_semiring(diff, dtype)
    _run(diff, method, path, dtype, mask_kind=diff.choice(MASK_KINDS), accum=None,
         replace=diff.choice([False, True]), ta=ta, tb=tb,
         shape=diff.choice([MXM_SHAPES["small"], MXM_SHAPES["square"]]))


@pytest.mark.parametrize("density", [0.0, 0.3, 1.0], ids=["empty", "sparse", "full"])
@pytest.mark.parametrize("shape", MXM_SHAPES.values(), ids=MXM_SHAPES.keys())
@pytest.mark.parametrize("method", METHODS)
def test_shapes(diff, method, shape, density):
    """0-sized, 1 x 1, empty and full operands."""
    dtype = diff.choice(["INT64", "FP64", "BOOL"])
    path = "lor_land" if dtype == "BOOL" else diff.choice(["plus_times", "min_plus"])
    x, y, out_shape = _operand_data(diff, method, dtype, shape, False, False, density)
    m = _output_data(diff, "BOOL", out_shape, 0.5)
    mask_kind = diff.choice(MASK_KINDS)

    def body(gb, x, y, m):
        expr = _expression(method, x, y, gb.op("semiring", path), False, False)
        plain = expr.new()
        masked = _expression(method, x, y, gb.op("semiring", path), False, False).new(
            **({} if mask_kind == "none" else {"mask": mask_of(m, mask_kind)}))
        return plain, masked

    diff.check(body, x, y, m)


@pytest.mark.parametrize("out_dtype", ALL_TYPES)
@pytest.mark.parametrize("in_dtype", ["BOOL", "INT16", "UINT32", "FP32", "FP64"])
def test_output_dtype(diff, in_dtype, out_dtype):
    """The product is cast to the output's type, by ``C << expr`` and by ``.new(dtype=)``."""
    path = "lor_land" if in_dtype == "BOOL" else "plus_times"
    a = diff.matrix(in_dtype, 5, 6, 0.5)
    b = diff.matrix(in_dtype, 6, 4, 0.5)
    c = diff.matrix(out_dtype, 5, 4, 0.3)

    def body(gb, a, b, c):
        op = gb.op("semiring", path)
        c(accum=gb.binary.plus) << a.mxm(b, op)
        return c, a.mxm(b, op).new(dtype=out_dtype), a.mxm(b, op).new(out_dtype)

    diff.check(body, a, b, c)


MIXED = [("INT8", "FP32"), ("UINT8", "INT8"), ("BOOL", "INT64"), ("UINT64", "INT64"),
         ("INT32", "FP64"), ("FP32", "FP64"), ("UINT16", "BOOL"), ("INT64", "UINT32")]


@pytest.mark.parametrize("path", ["plus_times", "min_plus", "max_second", "plus_pair"])
@pytest.mark.parametrize("ta,tb", MIXED, ids=[f"{a}-{b}" for a, b in MIXED])
def test_mixed_input_types(diff, ta, tb, path):
    """Operands of different types: python-graphblas's type unification picks the semiring."""
    a = diff.matrix(ta, 5, 6, 0.5)
    b = diff.matrix(tb, 6, 4, 0.5)
    u = diff.vector(ta, 6, 0.6)
    v = diff.vector(tb, 6, 0.6)

    def body(gb, a, b, u, v):
        op = gb.op("semiring", path)
        return a.mxm(b, op).new(), a.mxv(v, op).new(), u.vxm(b, op).new()

    diff.check(body, a, b, u, v)


INFIX = {
    "A@B": lambda gb, a, b, v, u: (a @ b).new(),
    "min_plus(A@B)": lambda gb, a, b, v, u: gb.semiring.min_plus(a @ b).new(),
    "A@v": lambda gb, a, b, v, u: (a @ v).new(),
    "u@A": lambda gb, a, b, v, u: (u @ a).new(),
    "max_plus(u@A)": lambda gb, a, b, v, u: gb.semiring.max_plus(u @ a).new(),
    "A.T@u": lambda gb, a, b, v, u: (a.T @ u).new(),
    "C<<A@B": lambda gb, a, b, v, u: _update(gb.Matrix(a.dtype, a.nrows, b.ncols), a @ b),
    "C(A@B.S)<<A@B": lambda gb, a, b, v, u: _masked_square(gb, a, b),
}


def _update(c, expr):
    c << expr
    return c


def _masked_square(gb, a, b):
    ab = (a @ b).new()
    c = gb.Matrix(ab.dtype, ab.nrows, ab.ncols)
    c(ab.S) << gb.semiring.plus_pair(a @ b)
    return c


@pytest.mark.parametrize("dtype", ["INT64", "FP32", "FP64"])
@pytest.mark.parametrize("case", INFIX.keys())
def test_matmul_infix(diff, case, dtype):
    a = diff.matrix(dtype, 5, 6, 0.4)
    b = diff.matrix(dtype, 6, 4, 0.4)
    v = diff.vector(dtype, 6, 0.5)
    u = diff.vector(dtype, 5, 0.5)
    diff.check(INFIX[case], a, b, v, u)


def test_vector_matmul_vector(diff):
    """``u @ v`` and ``u.inner(v)`` give a Scalar (empty when no index is shared)."""
    u = diff.vector("FP64", 8, 0.5)
    v = diff.vector("FP64", 8, 0.5)
    w = diff.vector("FP64", 8, 0.0)

    def body(gb, u, v, w):
        return ((u @ v).new(), gb.semiring.min_plus(u @ v).new(), (u @ w).new(),
                u.inner(v, gb.semiring.max_times).new())

    diff.check(body, u, v, w)


def test_typed_and_string_semirings(diff):
    """``op["FP32"]``, ``op[int]`` and ``from_string`` name the same semirings."""
    a = diff.matrix("INT32", 6, 5, 0.5)
    b = diff.matrix("INT32", 5, 6, 0.5)

    def body(gb, a, b):
        return (a.mxm(b, gb.semiring.plus_times["FP32"]).new(),
                a.mxm(b, gb.semiring.min_plus[int]).new(),
                a.mxm(b, gb.semiring.from_string("max.times")).new(),
                a.mxm(b, gb.semiring.plus_times[float]).new(),
                a.mxm(b, gb.semiring.min_plus["INT8"]).new())

    diff.check(body, a, b)


def _alias_cases():
    def c_s_c_c(gb, a, c, v):
        c(c.S) << c.mxm(c)
        return c

    def c_c_ct(gb, a, c, v):
        c << c.mxm(c.T)
        return c

    def c_accum(gb, a, c, v):
        c(accum=gb.binary.plus) << c @ a
        return c

    def mask_is_output(gb, a, c, v):
        c(c.V, replace=True) << a.mxm(a, gb.semiring.min_plus)
        return c

    def complement_self(gb, a, c, v):
        c(~c.S) << c.mxm(a, gb.semiring.max_plus)
        return c

    def ct_c(gb, a, c, v):
        c(c.S, accum=gb.binary.min) << c.T.mxm(c, gb.semiring.plus_times)
        return c

    def v_vxm(gb, a, c, v):
        v(v.S) << v.vxm(a, gb.semiring.plus_times)
        return v

    def v_mxv(gb, a, c, v):
        v << a.mxv(v, gb.semiring.min_plus)
        return v

    def v_accum(gb, a, c, v):
        v(accum=gb.binary.min) << a.T.mxv(v, gb.semiring.min_plus)
        return v

    def bfs_step(gb, a, c, v):
        v(~v.S, replace=True) << v.vxm(a, gb.semiring.any_pair)
        return v

    def v_mask_value(gb, a, c, v):
        v(v.V, accum=gb.binary.plus, replace=True) << v.vxm(c, gb.semiring.max_times)
        return v

    return {f.__name__: f for f in (c_s_c_c, c_c_ct, c_accum, mask_is_output, complement_self,
                                    ct_c, v_vxm, v_mxv, v_accum, bfs_step, v_mask_value)}


ALIAS = _alias_cases()


@pytest.mark.parametrize("dtype", ["INT64", "FP64", "UINT8"])
@pytest.mark.parametrize("case", ALIAS.keys())
def test_aliasing(diff, case, dtype):
    """The output is also an input or the mask: the result is as with copies."""
    a = diff.matrix(dtype, 7, 7, 0.35)
    c = diff.matrix(dtype, 7, 7, 0.35)
    v = diff.vector(dtype, 7, 0.4)
    diff.check(ALIAS[case], a, c, v)


def test_positional_mask_accum_arguments(diff):
    """``C(mask, accum)`` positional form and ``C(M.S, binary.plus, replace=True)``."""
    a = diff.matrix("FP64", 6, 6, 0.4)
    c = diff.matrix("FP64", 6, 6, 0.4)
    m = diff.matrix("INT8", 6, 6, 0.5)

    def body(gb, a, c, m):
        c2 = c.dup()
        c(m.V, gb.binary.plus) << a @ a
        c2(gb.binary.max, m.S, replace=True) << a @ a
        return c, c2

    diff.check(body, a, c, m)


def test_update_method(diff):
    """``C.update(expr)`` and ``C(mask).update(expr)`` equal ``<<``."""
    a = diff.matrix("INT32", 6, 6, 0.4)
    c = diff.matrix("INT32", 6, 6, 0.4)

    def body(gb, a, c):
        d = c.dup()
        c.update(a @ a)
        d(d.S, accum=gb.binary.plus).update(a.mxm(a.T, gb.semiring.plus_times))
        return c, d

    diff.check(body, a, c)


@pytest.mark.parametrize("dtype", ["INT8", "UINT16", "INT64", "FP32", "FP64"])
@pytest.mark.parametrize("mask_kind", ["S", "V"])
@pytest.mark.parametrize("path", ["plus_pair"])
def test_masked_count_products(diff, path, dtype, mask_kind):
    """Masked plus_pair products (the CPU computes them with a compiled merge of sorted rows
    when it was built), with skewed rows and counts past the type's range."""
    n = 300
    x = diff.matrix(dtype, n, n, 0.05)
    # a dense first row and column: long rows against short ones (the galloping search),
    # and counts of up to n past INT8's range
    pos = np.arange(n)
    x = MatrixData(x.dtype, n, n, np.r_[x.rows, np.zeros(n, dtype=np.int64), pos],
                   np.r_[x.cols, pos, np.zeros(n, dtype=np.int64)],
                   np.r_[x.values, np.ones(2 * n, dtype=x.values.dtype)])
    x = MatrixData(x.dtype, n, n, *_dedup(x.rows, x.cols, x.values, n))
    m = diff.matrix(diff.choice(["BOOL", "INT8"]), n, n, 0.3)

    def body(gb, x, m):
        op = getattr(gb.semiring, path)
        mask = m.S if mask_kind == "S" else m.V
        return x.mxm(x.T, op).new(mask=mask)

    diff.check(body, x, m)


def _dedup(rows, cols, values, n):
    """The first of each repeated position, in row-major order."""
    keys = rows * n + cols
    _, first = np.unique(keys, return_index=True)
    return rows[first], cols[first], values[first]


def test_compiled_and_numpy_counts_agree(monkeypatch):
    """The CPU's compiled intersection (when built) and its NumPy path give the same masked
    product, and triangle counting the same count."""
    import graphblast as gb
    from graphblast.backends.cpu import mxm as cpu_mxm

    A = gb.generators.kron(9, device="cpu")
    L = gb.select.tril(A, -1).new()
    runs = []
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(cpu_mxm, "_intersect", None)
        C = L.mxm(L.T, gb.semiring.plus_pair["INT64"]).new(mask=L.S)
        runs.append((C, gb.algorithms.triangle_count(A)))
    assert runs[0][0].isequal(runs[1][0]) and runs[0][1] == runs[1][1]


def test_intersection_is_built_where_a_compiler_is():
    import shutil

    from graphblast.backends.cpu import mxm as cpu_mxm

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler on this machine")
    assert cpu_mxm._intersect is not None, (
        "a C compiler is present but graphblast.backends.cpu._intersect was not built; "
        "reinstall (pip install -e .) and read the build's output")


def _three_and_a_transpose(device, seed, n, nvals):
    """Three random INT64 n x n matrices A, B, M and B' built apart from B (building it from
    B would cache it on B)."""
    import graphblast as gb

    rng = np.random.default_rng(seed)
    A, B, M = (gb.Matrix.from_coo(rng.integers(0, n, nvals), rng.integers(0, n, nvals),
                                  rng.integers(1, 5, nvals), "INT64", nrows=n, ncols=n,
                                  dup_op=gb.binary.plus, device=device) for _ in range(3))
    rows, cols, vals = B.to_coo()
    Bt = gb.Matrix.from_coo(cols, rows, vals, "INT64", nrows=n, ncols=n, device=device)
    return A, B, M, Bt


def test_a_masked_product_with_a_transposed_operand_builds_no_transpose(device):
    """``C<M> = A @ B'`` under a plain mask is a dot product of rows of A and rows of B: B's
    transpose is never built (triangle counting's ``L @ L'``); a complemented mask, which
    expands products, still gets the right answer."""
    import graphblast as gb

    A, B, M, Bt = _three_and_a_transpose(device, 7, 40, 300)
    assert B._data._transpose is None
    got = A.mxm(B.T, gb.semiring.plus_times).new(mask=M.S)
    assert B._data._transpose is None
    assert got.isequal(A.mxm(Bt, gb.semiring.plus_times).new(mask=M.S))
    got = A.mxm(B.T, gb.semiring.min_plus).new(mask=~M.S)
    assert got.isequal(A.mxm(Bt, gb.semiring.min_plus).new(mask=~M.S))


@pytest.mark.parametrize("mask", ["none", "complement", "structure"])
def test_a_transposed_operand_leaves_no_transpose_without_the_cache(device, mask):
    """With ``transpose_cache=False`` a product with ``B.T`` keeps no transpose on B, whichever
    path the product takes."""
    import graphblast as gb

    A, B, M, Bt = _three_and_a_transpose(device, 3, 30, 200)
    masks = {"none": None, "complement": ~M.S, "structure": M.S}
    with gb.config.set(transpose_cache=False):
        got = A.mxm(B.T, gb.semiring.plus_times).new(mask=masks[mask])
    assert B._data._transpose is None
    assert got.isequal(A.mxm(Bt, gb.semiring.plus_times).new(mask=masks[mask]))


ONE_PER_ROW_SEMIRINGS = [("plus_times", "FP64"), ("plus_times", "FP32"),
                         ("plus_times", "INT32"), ("min_plus", "INT64"),
                         ("max_second", "FP64"), ("plus_first", "FP64"),
                         ("plus_pair", "INT64"), ("lor_land", "BOOL"), ("min_first", "UINT8"),
                         ("min_secondj", "INT64"), ("plus_firsti", "INT64")]


@pytest.mark.parametrize("path, dtype", ONE_PER_ROW_SEMIRINGS,
                         ids=[f"{p}-{t}" for p, t in ONE_PER_ROW_SEMIRINGS])
def test_right_operand_with_one_entry_per_row(diff, path, dtype):
    """``A (+.x) B`` where every row of B holds at most one entry (a membership matrix with
    empty rows, a diagonal): the gather the engine takes for it (``y``: every row short enough
    for the GPU's warp a row), and, for ``x``, with one row longer than that (the other
    paths), against python-graphblas, with products that land on one column."""
    n, groups = 400, 37
    y = diff.matrix(dtype, n, n, 0.05)
    x = diff.matrix(dtype, n, n, 0.02)
    pos = np.arange(n)
    # a dense first row and column: one row of n products (past the GPU's hash rows)
    x = MatrixData(x.dtype, n, n, np.r_[x.rows, np.zeros(n, dtype=np.int64), pos],
                   np.r_[x.cols, pos, np.zeros(n, dtype=np.int64)],
                   np.r_[x.values, x.values[:1].repeat(2 * n)])
    x = MatrixData(x.dtype, n, n, *_dedup(x.rows, x.cols, x.values, n))
    keep = diff.rng.random(n) < 0.9                   # some rows of the membership empty
    member = (pos * 7) % groups
    values = diff.matrix(dtype, 1, n, 1.0).values
    p = MatrixData(dtype, n, groups, pos[keep], member[keep], values[keep])
    d = MatrixData(dtype, n, n, pos[keep], pos[keep], values[keep])

    def body(gb, x, y, p, d):
        op = gb.op("semiring", path)
        return (y.mxm(p, op).new(), y.T.mxm(p, op).new(), y.mxm(d, op).new(),
                x.mxm(p, op).new(), x.T.mxm(p, op).new(), x.mxm(d, op).new())

    diff.check(body, x, y, p, d)
