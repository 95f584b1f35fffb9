"""``A[I, p]`` with ``p`` a permutation of all the columns (triangle counting's ``A[p, p]``),
or a list of distinct columns that leaves some out (their entries dropped), against NumPy:
rows of every length class the GPU sorts differently (up to 32 entries in a warp, up to 8,192
in a block, longer ones by a radix sort), values of 1, 2, 4 and 8 bytes, and the storage forms
(int64 indices; a compact matrix's int32 indices, with values or iso)."""

import numpy as np
import pytest

import graphblast as gb
from graphblast.io._convert import matrix_from_valid_csr

# row lengths on both sides of each class boundary, and empty rows
LENGTHS = [0, 1, 2, 31, 32, 33, 64, 100, 2048, 4097, 8191, 8192, 8193, 9000, 0, 5]
NCOLS = 9100


def _csr(rng, dtype):
    rows = [np.sort(rng.choice(NCOLS, size=k, replace=False)) for k in LENGTHS]
    indptr = np.concatenate([[0], np.cumsum(LENGTHS)]).astype(np.int64)
    indices = np.concatenate(rows).astype(np.int64)
    n = indices.shape[0]
    if dtype == "BOOL":
        values = rng.random(n) < 0.5
    else:
        values = rng.integers(-100, 100, n).astype(gb.dtypes.lookup_dtype(dtype).np_type)
    return indptr, indices, values


def _matrix(indptr, indices, values, dtype, storage, device):
    nrows = indptr.shape[0] - 1
    t = gb.dtypes.lookup_dtype(dtype)
    if storage == "wide":
        return matrix_from_valid_csr(nrows, NCOLS, t, indptr, indices, values, None, device)
    narrow = indices.astype(np.int32)
    if storage == "compact":
        return matrix_from_valid_csr(nrows, NCOLS, t, indptr, narrow, values, None, device)
    return matrix_from_valid_csr(nrows, NCOLS, t, indptr, narrow, None, None, device,
                                 iso_value=t.np_type.type(1))


def _dense(indptr, indices, values, dtype, storage):
    nrows = indptr.shape[0] - 1
    present = np.zeros((nrows, NCOLS), dtype=bool)
    dense = np.zeros((nrows, NCOLS), dtype=gb.dtypes.lookup_dtype(dtype).np_type)
    rows = np.repeat(np.arange(nrows), np.diff(indptr))
    present[rows, indices] = True
    dense[rows, indices] = 1 if storage == "iso" else values
    return present, dense


@pytest.mark.parametrize("storage", ["wide", "compact", "iso"])
@pytest.mark.parametrize("dtype", ["BOOL", "INT16", "FP32", "FP64"])
@pytest.mark.parametrize("rows", ["all", "permutation", "repeats"])
@pytest.mark.parametrize("columns", ["all", "most", "a third"])
def test_columns_permuted(device, rng, dtype, storage, rows, columns):
    indptr, indices, values = _csr(rng, dtype)
    A = _matrix(indptr, indices, values, dtype, storage, device)
    nrows = A.nrows
    kept = {"all": NCOLS, "most": NCOLS - 7, "a third": NCOLS // 3}[columns]
    p = rng.permutation(NCOLS)[:kept]
    index = {"all": slice(None), "permutation": rng.permutation(nrows),
             "repeats": rng.integers(0, nrows, 2 * nrows)}[rows]
    B = A[index, p].new()
    present, dense = _dense(indptr, indices, values, dtype, storage)
    want_present, want = present[index][:, p], dense[index][:, p]
    r, c, v = B.to_coo()
    assert B.shape == want.shape and B.dtype == A.dtype
    assert B.nvals == int(want_present.sum())
    # row-major order with increasing columns in each row: the CSR of the result is canonical
    keys = r.astype(np.int64) * p.shape[0] + c.astype(np.int64)
    assert np.all(keys[1:] > keys[:-1])
    assert np.all(want_present[r, c])
    np.testing.assert_array_equal(v, want[r, c])
    if storage == "iso" and device != "cpu":
        assert not B._data.has_values  # an iso matrix stays iso: no value array made


def test_square_permutation_of_a_graph(device, rng):
    """A[p, p] of an undirected graph is the same graph with its vertices renamed: the edge
    (i, j) becomes (q[i], q[j]) for q the inverse of p."""
    n = 2600
    hub = np.zeros(2500, dtype=np.int64)  # a vertex of degree 2500: a long row
    rows = np.concatenate([hub, rng.integers(0, n, 20000)])
    cols = np.concatenate([np.arange(1, 2501), rng.integers(0, n, 20000)])
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    A = gb.Matrix.from_coo(np.r_[rows, cols], np.r_[cols, rows], True, gb.dtypes.BOOL,
                           nrows=n, ncols=n, device=device)  # iso: duplicates dropped
    p = rng.permutation(n)
    q = np.empty(n, dtype=np.int64)
    q[p] = np.arange(n)
    r, c, _ = A.to_coo()
    want = gb.Matrix.from_coo(q[r], q[c], True, gb.dtypes.BOOL, nrows=n, ncols=n,
                              device=device)
    assert A[p, p].new().isequal(want, check_dtype=True)


def test_square_subgraph_of_the_vertices_with_an_edge(device, rng):
    """Triangle counting's A[p, p] with p the vertices that have an edge, by a given order:
    the graph without its isolated vertices, renamed (no entry is dropped)."""
    n = 3000
    rows, cols = rng.integers(0, n // 2, 5000) * 2, rng.integers(0, n // 2, 5000) * 2
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]  # odd vertices are isolated
    A = gb.Matrix.from_coo(np.r_[rows, cols], np.r_[cols, rows], 1, gb.dtypes.INT8,
                           nrows=n, ncols=n, device=device)  # iso: duplicates dropped
    p = rng.permutation(np.unique(np.r_[rows, cols]))
    q = np.full(n, -1, dtype=np.int64)
    q[p] = np.arange(p.shape[0])
    r, c, v = A.to_coo()
    want = gb.Matrix.from_coo(q[r], q[c], v, gb.dtypes.INT8, nrows=p.shape[0],
                              ncols=p.shape[0], device=device)
    assert A[p, p].new().isequal(want, check_dtype=True)


def test_columns_repeated_take_the_general_path(device):
    """A list of as many columns as the matrix has, one of them twice: every copy of a
    repeated column is extracted (the permutation's path declines it)."""
    A = gb.Matrix.from_coo([0, 0, 1], [0, 2, 1], [1, 2, 3], gb.dtypes.INT64, nrows=2, ncols=3,
                           device=device)
    B = A[:, [2, 2, 0]].new()
    assert B.to_dicts() == {0: {0: 2, 1: 2, 2: 1}}


@pytest.mark.parametrize("nvals", [0, 20, 3000, 9000])
def test_vector_permuted(device, rng, nvals):
    """``v[p]`` for a permutation of all the positions: the vector as one row, renamed and
    sorted (a warp, a block or the radix sort by its length)."""
    size = 9500
    idx = np.sort(rng.choice(size, nvals, replace=False))
    vals = rng.integers(-50, 50, nvals)
    v = gb.Vector.from_coo(idx, vals, gb.dtypes.INT32, size=size, device=device)
    p = rng.permutation(size)
    dense = np.zeros(size, dtype=np.int32)
    present = np.zeros(size, dtype=bool)
    dense[idx], present[idx] = vals, True
    got_idx, got_vals = v[p].new().to_coo()
    np.testing.assert_array_equal(got_idx, np.flatnonzero(present[p]))
    np.testing.assert_array_equal(got_vals, dense[p][present[p]])
