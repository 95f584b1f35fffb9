"""graphblast's gather ``u[I]`` and scatter ``w(mask, accum, replace)[I] << u`` with a Vector of
positions ``I`` (SuiteSparse 10's GxB_Vector_extract_Vector / GxB_Vector_assign_Vector; see
docs/algorithms.md, "Gather and scatter"), against a NumPy model, on every device, every type.

The model holds a vector as (values, present) dense arrays and follows the definition
literally: a gather reads u at I's values; a scatter pairs the entries i of I and u, folds the
values of a repeated position left to right in order of i with the accumulator and then
accumulates into w; without an accumulator the region (I's values) is replaced.
"""

import numpy as np
import pytest

import graphblast as gb
from graphblast import Vector, binary
from graphblast.exceptions import (
    DeviceMismatch, DimensionMismatch, IndexOutOfBound, InvalidValue,
)

TYPES = ["BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
         "FP32", "FP64"]
INDEX_TYPES = ["INT8", "INT32", "INT64", "UINT16", "UINT64"]
MASKS = ["none", "S", "V", "~S", "~V"]

_NP_OPS = {"min": np.minimum, "max": np.maximum, "plus": np.add, "second": lambda a, b: b,
           "minus": np.subtract, "times": np.multiply}


def _values(rng, n, dtype):
    np_type = np.dtype(gb.dtypes.lookup_dtype(dtype).np_type)
    if np_type == np.bool_:
        return rng.random(n) < 0.5
    return rng.integers(0, 50, n).astype(np_type)


def _random(rng, size, density, dtype):
    present = rng.random(size) < density
    vals = _values(rng, size, dtype)
    return vals, present


def _vec(vals, present, dtype, device):
    idx = np.flatnonzero(present)
    return Vector.from_coo(idx, vals[idx], dtype, size=vals.shape[0], device=device)


def _positions(rng, isize, target, density, dtype, *, unique=False):
    """An index Vector's dense model: values in [0, target)."""
    present = rng.random(isize) < density
    if unique:
        pos = rng.permutation(max(target, isize))[:isize] % max(target, 1)
        if isize > target:
            present[:] = False
            present[rng.permutation(isize)[:target]] = True
            pos[present] = rng.permutation(target)[:present.sum()]
    else:
        pos = rng.integers(0, target, isize)
    np_type = np.dtype(gb.dtypes.lookup_dtype(dtype).np_type)
    return pos.astype(np_type), present


def _dense(v):
    idx, vals = v.to_coo()
    present = np.zeros(v.size, dtype=bool)
    present[idx.astype(np.int64)] = True
    out = np.zeros(v.size, dtype=vals.dtype)
    out[idx.astype(np.int64)] = vals
    return out, present


def _assert_equal(v, vals, present):
    got, gpresent = _dense(v)
    np.testing.assert_array_equal(gpresent, present)
    np.testing.assert_array_equal(got[present], vals[present])


def _model_scatter(w, I, u, accum, mask, replace):
    wv, wp = w
    iv, ip = I
    uv, up = u
    op = _NP_OPS[accum] if accum else None
    tv = np.zeros_like(wv)
    tp = np.zeros_like(wp)
    region = np.zeros_like(wp)
    with np.errstate(all="ignore"):
        for i in range(iv.shape[0]):
            if not ip[i]:
                continue
            t = int(iv[i])
            if region[t] and op is None:
                return "dup"
            region[t] = True
            if not up[i]:
                continue
            x = uv[i].astype(wv.dtype)
            tv[t] = op(tv[t], x) if tp[t] else x
            tp[t] = True
        if op is not None:
            zv = np.where(wp & tp, op(wv, tv), np.where(tp, tv, wv)).astype(wv.dtype)
            zp = wp | tp
        else:
            zv = np.where(region, tv, wv)
            zp = np.where(region, tp, wp)
    allowed = _allowed(mask, wp.shape[0])
    out_p = np.where(allowed, zp, wp & (not replace))
    out_v = np.where(allowed, zv, wv)
    return out_v, out_p


def _allowed(mask, n):
    if mask is None:
        return np.ones(n, dtype=bool)
    kind, (mv, mp) = mask
    a = mp if "S" in kind else mp & (mv != 0)
    return ~a if kind.startswith("~") else a


def _mask_arg(kind, mvec):
    m = mvec.S if "S" in kind else mvec.V
    return ~m if kind.startswith("~") else m


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("itype", ["INT64", "UINT32"])
@pytest.mark.parametrize("usize,isize,density", [(30, 40, 0.8), (30, 40, 1.0), (1, 5, 1.0),
                                                  (200, 10, 0.5), (0, 0, 1.0), (5, 0, 1.0)])
def test_gather(device, rng, dtype, itype, usize, isize, density):
    uv, up = _random(rng, usize, 1.0 if density == 1.0 else 0.6, dtype)
    iv, ip = _positions(rng, isize, max(usize, 1), density, itype)
    if usize == 0:
        ip[:] = False
    u = _vec(uv, up, dtype, device)
    I = _vec(iv, ip, itype, device)
    w = u[I].new()
    assert (w.size, w.dtype.name, w.device) == (isize, dtype, u.device)
    pos = iv.astype(np.int64)
    present = ip & up[np.minimum(pos, max(usize - 1, 0))] if usize else ip
    _assert_equal(w, uv[np.minimum(pos, max(usize - 1, 0))] if usize else uv[:0], present)


@pytest.mark.parametrize("dtype", TYPES)
def test_gather_self_and_masked(device, rng, dtype):
    """f[f] (an index Vector gathering itself) and a gather under a mask with an accumulator."""
    n = 50
    f = rng.integers(0, n, n)
    F = Vector.from_coo(np.arange(n), f, size=n, device=device)
    _assert_equal(F[F].new(), f[f], np.ones(n, dtype=bool))
    uv, up = _random(rng, n, 0.7, dtype)
    wv, wp = _random(rng, n, 0.5, dtype)
    mv, mp = _random(rng, n, 0.5, "INT8")
    u, w, m = (_vec(uv, up, dtype, device), _vec(wv, wp, dtype, device),
               _vec(mv, mp, "INT8", device))
    w(m.V, binary.max) << u[F]
    tp = up[f]
    tv = uv[f]
    allowed = mp & (mv != 0)
    zp = wp | tp
    zv = np.where(wp & tp, np.maximum(wv, tv), np.where(tp, tv, wv))
    _assert_equal(w, np.where(allowed, zv, wv), np.where(allowed, zp, wp))


CASES = [
    # (wsize, isize, index density, u density): dense and sparse pairs take both GPU paths
    (40, 60, 1.0, 1.0),
    (40, 60, 0.7, 0.8),
    (1000, 20, 0.9, 1.0),
    (7, 3, 1.0, 1.0),
]


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("accum", [None, "min", "max", "plus", "second"])
@pytest.mark.parametrize("case", CASES)
def test_scatter_accum(device, rng, dtype, accum, case):
    wsize, isize, idens, udens = case
    if accum == "plus" and dtype == "BOOL":
        pytest.skip("plus on BOOL is python-graphblas's lor; covered by max")
    unique = accum is None
    iv, ip = _positions(rng, isize, wsize, idens, "INT64", unique=unique)
    uv, up = _random(rng, isize, udens, dtype)
    wv, wp = _random(rng, wsize, 0.5, dtype)
    w, I, u = _vec(wv, wp, dtype, device), _vec(iv, ip, "INT64", device), \
        _vec(uv, up, dtype, device)
    expected = _model_scatter((wv, wp), (iv, ip), (uv, up), accum, None, False)
    assert expected != "dup"
    if accum is None:
        w[I] << u
    else:
        w(getattr(binary, accum))[I] << u
    _assert_equal(w, *expected)


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("accum", [None, "min"])
def test_scatter_mask_replace(device, rng, dtype, mask, replace, accum):
    if mask == "none" and replace:
        pytest.skip("replace needs a mask")
    wsize, isize = 60, 80
    iv, ip = _positions(rng, isize, wsize, 0.7, "INT32", unique=accum is None)
    uv, up = _random(rng, isize, 0.8, dtype)
    wv, wp = _random(rng, wsize, 0.5, dtype)
    mv, mp = _random(rng, wsize, 0.6, "UINT8")
    w, I, u = _vec(wv, wp, dtype, device), _vec(iv, ip, "INT32", device), \
        _vec(uv, up, dtype, device)
    m = _vec(mv, mp, "UINT8", device)
    maskm = None if mask == "none" else (mask, (mv, mp))
    expected = _model_scatter((wv, wp), (iv, ip), (uv, up), accum, maskm, replace)
    args = [] if mask == "none" else [_mask_arg(mask, m)]
    if accum:
        args.append(binary.min)
    w(*args, replace=replace)[I] << u
    _assert_equal(w, *expected)


@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_scatter_index_types_and_cast(device, rng, itype):
    """Positions of any integer type; u's values cast to w's type (INT16 into FP64)."""
    iv, ip = _positions(rng, 30, 20, 0.9, itype)
    uv, up = _random(rng, 30, 0.9, "INT16")
    wv, wp = _random(rng, 20, 0.4, "FP64")
    w, I, u = _vec(wv, wp, "FP64", device), _vec(iv, ip, itype, device), \
        _vec(uv, up, "INT16", device)
    w(binary.plus)[I] << u
    _assert_equal(w, *_model_scatter((wv, wp), (iv, ip), (uv, up), "plus", None, False))


@pytest.mark.parametrize("dtype", ["INT64", "FP64", "INT8"])
def test_scatter_noncommutative_order(device, dtype):
    """minus is neither commutative nor associative: the repeated values fold left to right in
    order of i, then accumulate: w[t] = w[t] - (u[i1] - u[i2] - ...)."""
    I = Vector.from_coo([0, 1, 2, 3], [2, 2, 0, 2], size=4, device=device)
    u = Vector.from_coo([0, 1, 2, 3], [5, 1, 2, 7], dtype, size=4, device=device)
    w = Vector.from_coo([0, 2], [10, 100], dtype, size=3, device=device)
    w(binary.minus)[I] << u
    assert w.to_dict() == {0: 8, 2: 100 - (5 - 1 - 7)}
    w = Vector.from_coo([0, 2], [10, 100], dtype, size=3, device=device)
    w(binary.second)[I] << u
    assert w.to_dict() == {0: 2, 2: 7}


def test_scatter_scalar(device):
    """A scalar goes to every position I names; with plus and 1 it counts them."""
    I = Vector.from_coo([0, 1, 2, 4, 5], [3, 1, 3, 3, 0], size=6, device=device)
    w = Vector(gb.dtypes.INT64, 5, device=device)
    w(binary.plus)[I] << 1
    assert w.to_dict() == {0: 1, 1: 1, 3: 3}
    w[I] << 7  # repeated positions are harmless without an accumulator: one value
    assert w.to_dict() == {0: 7, 1: 7, 3: 7}
    w = Vector.from_coo([0, 2, 4], [1, 2, 3], size=5, device=device)
    w[I] << gb.Scalar(gb.dtypes.INT64)  # an empty scalar deletes the region
    assert w.to_dict() == {2: 2, 4: 3}


def test_scatter_setitem_and_aliasing(device, rng):
    """w[I] = u as __setitem__; f(min)[f] << g with f both the output and the index."""
    n = 40
    f = rng.integers(0, n, n)
    g = rng.integers(0, n, n)
    F = Vector.from_coo(np.arange(n), f, size=n, device=device)
    G = Vector.from_coo(np.arange(n), g, size=n, device=device)
    expected = f.copy()
    for i in range(n):
        expected[f[i]] = min(expected[f[i]], g[i])
    F(binary.min)[F] << G
    _assert_equal(F, expected, np.ones(n, dtype=bool))
    w = Vector(gb.dtypes.INT64, n, device=device)
    perm = rng.permutation(n)
    w[Vector.from_coo(np.arange(n), perm, device=device)] = G
    _assert_equal(w, np.where(True, g[np.argsort(perm)], 0), np.ones(n, dtype=bool))


def test_errors_leave_output_unchanged(device):
    w = Vector.from_coo([1, 2], [5, 6], size=4, device=device)
    before = w.to_dict()
    u = Vector.from_coo([0, 1, 2], [1, 2, 3], size=3, device=device)
    dup = Vector.from_coo([0, 1, 2], [1, 1, 3], size=3, device=device)
    with pytest.raises(InvalidValue, match="more than once"):
        w[dup] << u
    for bad in ([0, 4, 1], [0, -1, 1]):
        I = Vector.from_coo([0, 1, 2], bad, size=3, device=device)
        with pytest.raises(IndexOutOfBound):
            w(binary.plus)[I] << u
        with pytest.raises(IndexOutOfBound):
            w[I].new()
    with pytest.raises(TypeError, match="integers"):
        w[Vector.from_coo([0], [1.0], size=3, device=device)] << u
    with pytest.raises(DimensionMismatch):
        w(binary.plus)[Vector.from_coo([0], [1], size=2, device=device)] << u
    with pytest.raises(TypeError, match="w\\(mask\\)"):
        w[Vector.from_coo([0], [1], size=3, device=device)](u.S) << u
    assert w.to_dict() == before


def test_lists_and_arrays_unchanged(device):
    """python-graphblas's indices keep their meaning next to the Vector index."""
    u = Vector.from_coo([0, 2, 3], [10, 20, 30], size=5, device=device)
    assert u[[3, 0, 3]].new().to_dict() == {0: 30, 1: 10, 2: 30}
    assert u[np.array([2, 1])].new().to_dict() == {0: 20}
    w = Vector(gb.dtypes.INT64, 5, device=device)
    w[[4, 1]] << Vector.from_coo([0, 1], [7, 8], size=2, device=device)
    assert w.to_dict() == {1: 8, 4: 7}


# -- a Matrix indexed by Vectors of positions (GxB_Matrix_extract_Vector) ------------------------

def _matrix(rng, nrows, ncols, density, dtype, device):
    present = rng.random((nrows, ncols)) < density
    vals = _values(rng, nrows * ncols, dtype).reshape(nrows, ncols)
    r, c = np.nonzero(present)
    return gb.Matrix.from_coo(r, c, vals[r, c], dtype, nrows=nrows, ncols=ncols,
                              device=device), vals, present


@pytest.mark.parametrize("itype", INDEX_TYPES)
@pytest.mark.parametrize("dtype", ["BOOL", "INT32", "FP64"])
@pytest.mark.parametrize("kind", ["full", "sparse", "distinct", "empty"])
def test_matrix_extract_with_vector_indices(device, rng, dtype, itype, kind):
    """``A[I, J]`` with Vectors of positions: the lists are their values in the order of
    their entries (a sparse I lists only its entries), exactly as the same arrays would."""
    A, vals, present = _matrix(rng, 30, 40, 0.3, dtype, device)
    index_lists = []
    for target, isize in ((30, 25), (40, 50)):
        if kind == "distinct":
            pos, here = rng.permutation(target).astype(np.int64), np.ones(target, dtype=bool)
        else:
            pos, here = _positions(rng, isize, target, {"full": 1.0, "sparse": 0.4,
                                                         "empty": 0.0}[kind], itype)
            pos = pos.astype(np.int64)
        I = _vec(pos.astype(gb.dtypes.lookup_dtype(itype).np_type), here, itype, device)
        index_lists.append((I, pos[here]))
    (I, rows), (J, cols) = index_lists
    got = A[I, J].new()
    want = A[rows, cols].new()
    assert got.shape == (rows.shape[0], cols.shape[0])
    assert got.isequal(want, check_dtype=True)
    r, c, v = got.to_coo()
    assert np.all(present[rows[r], cols[c]])
    np.testing.assert_array_equal(v, vals[rows[r], cols[c]])
    # a row or a column of it, with an int on the other side
    assert A[3, J].new().isequal(A[3, cols].new())
    assert A[I, 5].new().isequal(A[rows, 5].new())


def test_matrix_assign_with_vector_indices(device, rng):
    """``C[I, J] << B`` and ``C(accum)[I, J] << B`` with Vectors of positions write the same
    region as the arrays of their values."""
    I = Vector.from_coo([0, 1, 2], [4, 0, 2], size=3, device=device)
    J = Vector.from_coo([0, 1], [1, 3], size=2, device=device)
    B = gb.Matrix.from_coo([0, 1, 2], [0, 1, 0], [1, 2, 3], gb.dtypes.INT64, nrows=3, ncols=2,
                           device=device)
    for accum in (None, binary.plus):
        C, D = (gb.Matrix.from_coo([4, 0], [1, 0], [10, 20], gb.dtypes.INT64, nrows=5, ncols=4,
                                   device=device) for _ in range(2))
        C(accum=accum)[I, J] << B
        D(accum=accum)[[4, 0, 2], [1, 3]] << B
        assert C.isequal(D)
    C = gb.Matrix(gb.dtypes.INT64, 5, 4, device=device)
    C[I, J] << 7
    assert C.to_dicts() == {0: {1: 7, 3: 7}, 2: {1: 7, 3: 7}, 4: {1: 7, 3: 7}}


def test_matrix_vector_index_errors(device):
    A = gb.Matrix.from_coo([0, 1], [1, 2], [1, 2], nrows=3, ncols=3, device=device)
    with pytest.raises(IndexOutOfBound, match="index Vector"):
        A[Vector.from_coo([0, 1], [0, 3], size=2, device=device), :].new()
    with pytest.raises(IndexOutOfBound):
        A[:, Vector.from_coo([0], [-1], gb.dtypes.INT64, size=1, device=device)].new()
    with pytest.raises(TypeError, match="integers"):
        A[Vector.from_coo([0], [1.0], size=1, device=device), :].new()
    with pytest.raises(TypeError, match="integers"):
        A[Vector.from_coo([0], [True], size=1, device=device), :].new()


def test_matrix_vector_index_is_a_snapshot(device):
    """The list is read when the index is given: changing I afterwards changes nothing."""
    A = gb.Matrix.from_coo([0, 1, 2], [0, 1, 2], [1, 2, 3], nrows=3, ncols=3, device=device)
    I = Vector.from_coo([0, 1], [2, 0], size=2, device=device)
    expr = A[I, I]
    I[0] << 1
    assert expr.new().to_dicts() == {0: {0: 3}, 1: {1: 1}}


def test_matrix_vector_index_on_another_device(device):
    """A Vector of positions must live where the Matrix does: nothing moves silently."""
    other = "cpu:0-1" if device == "cpu" else "cpu"
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1, 2], nrows=2, ncols=2, device=device)
    I = Vector.from_coo([0], [1], size=1, device=other)
    with pytest.raises(DeviceMismatch):
        A[I, :].new()
    with pytest.raises(DeviceMismatch):
        A[I, 0] << 5
    assert A.to_dicts() == {0: {1: 1}, 1: {0: 2}}


@pytest.mark.parametrize("ufmt", ["sorted", "bitmap", "full"])
@pytest.mark.parametrize("ifmt", ["sorted", "full"])
def test_gather_every_format(device, rng, ufmt, ifmt):
    """u[I] with u and I in each format a GPU keeps (a bitmap u gathered by a full I:
    PageRank's degrees into its order), past the small-vector sizes."""
    n, m = 3000, 3500
    uv = rng.integers(1, 100, n)
    up = np.ones(n, dtype=bool) if ufmt == "full" else rng.random(n) < 0.6
    if ufmt == "sorted":
        u = Vector.from_coo(np.flatnonzero(up), uv[up], size=n, device=device)
    else:  # full; its select keeps the positions: a bitmap
        u = Vector.from_dense(np.where(up, uv, 0), device=device)
        if ufmt == "bitmap":
            u = u.select(gb.select.valuene, 0).new()
    iv = rng.integers(0, n, m).astype(np.uint64)
    ip = np.ones(m, dtype=bool) if ifmt == "full" else rng.random(m) < 0.7
    I = (Vector.from_dense(iv, device=device) if ifmt == "full" else
         Vector.from_coo(np.flatnonzero(ip), iv[ip], size=m, device=device))
    if device == "cuda":
        formats = {"sorted": None, "bitmap": "bitmap", "full": "full"}
        assert getattr(u._data, "format", None) == formats[ufmt]
        assert getattr(I._data, "format", None) == formats[ifmt]
    w = u[I].new()
    _assert_equal(w, uv[iv], ip & up[iv])
