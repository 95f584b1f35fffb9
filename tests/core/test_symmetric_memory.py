"""A matrix known to be symmetric is its own transpose (graphblast's extension), and
memory_usage reports what an object occupies on its device, caches included."""

import numpy as np
import pytest
import scipy.sparse as sp

import graphblast as gb
from graphblast import generators


def _dense(M):
    r, c, v = M.to_coo()
    return sp.csr_array((v.astype(np.float64), (r.astype(np.int64), c.astype(np.int64))),
                        shape=M.shape).toarray()


@pytest.mark.parametrize("make", [
    lambda d: generators.kron(8, device=d),
    lambda d: generators.urand(8, weighted=True, device=d),
    lambda d: generators.graph500(8, seed=3, device=d),
    lambda d: generators.rgg(500, seed=2, device=d),
    lambda d: generators.grid2d(6, 7, weights="random", seed=1, device=d),
    lambda d: generators.erdos_renyi(300, m=900, seed=4, device=d),
], ids=["kron", "urand-weighted", "graph500", "rgg", "grid-weighted", "erdos-renyi"])
def test_generated_undirected_graphs_are_their_own_transpose(device, make):
    A = make(device)
    assert A.is_symmetric and A.T.is_symmetric
    D = _dense(A)
    np.testing.assert_array_equal(D, D.T)
    T = A.T.new()
    assert T.isequal(A)
    assert A._backend.transpose(A._data) is A._data  # no second copy


def test_directed_and_general_matrices_are_not_known_symmetric(device, data_dir):
    assert not generators.erdos_renyi(200, m=500, directed=True, seed=1,
                                      device=device).is_symmetric
    assert not gb.io.mmread(f"{data_dir}/lagraph/west0067.mtx", device=device).is_symmetric
    assert not gb.io.mmread(f"{data_dir}/lagraph/skew_fp64.mtx", device=device).is_symmetric
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0], nrows=2, ncols=2, device=device)
    assert not A.is_symmetric  # symmetric, but nothing said so: no check is made
    B = generators.kron(6, device=device)
    assert not B.apply(gb.unary.one[gb.dtypes.INT64]).new().is_symmetric  # a new matrix


@pytest.mark.parametrize("name", ["karate.mtx", "bcsstk13.mtx", "jagmesh7.mtx"])
def test_symmetric_matrix_market_files(device, data_dir, name):
    A = gb.io.mmread(f"{data_dir}/lagraph/{name}", device=device)
    assert A.is_symmetric
    D = _dense(A)
    np.testing.assert_array_equal(D, D.T)
    assert A.T.new().isequal(A)


def test_memory_usage(device):
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=3, ncols=3,
                           device=device)
    own = A.memory_usage()
    assert own == 4 * 8 + 3 * 8 + 3 * 8  # indptr, int64 indices, FP64 values
    A.T.new()  # caches the transpose
    assert A.memory_usage() >= 2 * own
    K = generators.kron(8, device=device)
    before = K.memory_usage()
    K.T.new()
    assert K.memory_usage() == before  # its own transpose
    v = gb.Vector.from_coo([1, 4], [1, 2], gb.dtypes.INT32, size=10, device=device)
    assert v.memory_usage() == 2 * 8 + 2 * 4


@pytest.mark.parametrize("weighted", [False, True])
def test_compact_graphs_hold_32_bit_indices_and_no_pattern_values(device, weighted):
    """A compact graph (the default on GPUs) stores int32 column indices and, as a pattern,
    no value array; it answers every operation as the wide graph does, and the traversals
    of BFS, PageRank and connected components never widen it on a GPU."""
    from graphblast import algorithms

    with gb.config.set(compact_graphs="never"):
        wide = generators.kron(11, weighted=weighted, device=device)
    with gb.config.set(compact_graphs="always"):
        A = generators.kron(11, weighted=weighted, device=device)  # past the one-block kernel
    n, nvals = A.nrows, A.nvals
    assert A._data.stored_indices.dtype == np.int32
    assert A._data.has_values == weighted
    value_bytes = nvals * A.dtype.np_type.itemsize if weighted else 0
    assert A.memory_usage() == 8 * (n + 1) + 4 * nvals + value_bytes
    r, c, _ = wide.to_coo()
    for i, j in ((r[0], c[0]), (r[-1], c[-1]), (0, 0)):  # elements read without widening
        assert A.get(int(i), int(j)) == wide.get(int(i), int(j))
    assert A._data._wide is None and A._data.has_values == weighted
    assert A.is_symmetric and A.isequal(wide, check_dtype=True)
    assert A._data._wide is None and A._data.has_values == weighted  # compared as stored
    if not weighted:
        levels = algorithms.bfs(A, 0)
        ranks = algorithms.pagerank(A, tol=None, max_iter=5)
        labels = algorithms.connected_components(A)
        if device != "cpu":  # the GPU traversals read the compact form directly
            assert A._data._wide is None and not A._data.has_values
            assert A.memory_usage() < 8 * (n + 1) + 4 * nvals + 8 * n + 64 * 1024
        assert levels.isequal(algorithms.bfs(wide, 0))
        assert ranks.isclose(algorithms.pagerank(wide, tol=None, max_iter=5))
        assert labels.isequal(algorithms.connected_components(wide))
    # every other operation widens on first use, once, and agrees
    assert A.reduce_rowwise(gb.monoid.plus[gb.dtypes.INT64]).new().isequal(
        wide.reduce_rowwise(gb.monoid.plus[gb.dtypes.INT64]).new())
    plus_pair = gb.semiring.plus_pair[gb.dtypes.INT64]
    assert A[:100, :].new().mxm(A, plus_pair).new().isequal(
        wide[:100, :].new().mxm(wide, plus_pair).new())
    assert A[3:40, 5:90].new().isequal(wide[3:40, 5:90].new())
    assert A.T.new().isequal(wide.T.new())
    assert "int32 indices" in repr(A._data)


@pytest.mark.parametrize("dtype", ["FP32", "INT8", "FP64"])
def test_a_pattern_cast_stays_a_pattern(device, dtype):
    """``A.dup(T)`` of a pattern graph (iso, no value array) is a pattern of T: the one value
    cast, the structure shared as stored (32-bit indices), still its own transpose, and on a
    GPU the products over it (pull, push, masked) read that one value and make no value
    array; every answer agrees with the same matrix stored with its values."""
    dtype = getattr(gb.dtypes, dtype)
    # past the one-block kernel; on a GPU past BIN_ROWS too, with heavy rows (every pull
    # kernel: the bins, the chunks of rows over 4,096 entries)
    scale = 11 if device == "cpu" else 17
    with gb.config.set(compact_graphs="always"):
        A = generators.kron(scale, device=device)
    with gb.config.set(compact_graphs="never"):
        wide = generators.kron(scale, device=device).dup(dtype)
    B = A.dup(dtype)
    assert B.dtype is dtype and not B._data.has_values and B._data.iso_value == 1
    assert B._data.stored_indices is A._data.stored_indices and B.is_symmetric
    assert B.isequal(wide, check_dtype=True)
    # a cast of a weighted compact graph keeps its 32-bit indices and its symmetry too
    with gb.config.set(compact_graphs="always"):
        W = generators.kron(scale, weighted=True, device=device).dup(dtype)
    with gb.config.set(compact_graphs="never"):
        wide_w = generators.kron(scale, weighted=True, device=device).dup(dtype)
    assert W._data.stored_indices.dtype == np.int32 and W._data._wide is None
    assert W.is_symmetric and W.isequal(wide_w, check_dtype=True)
    # a pattern of another value (made as the library makes one: no value array): every
    # product must read the value, not assume 1
    data = type(B._data)(B.nrows, B.ncols, dtype, B._data.indptr, B._data.stored_indices,
                         None, iso_value=dtype.np_type.type(3))
    data.symmetric = True
    P = gb.Matrix._from_data(data, B._backend, B.device)
    want_P = wide.apply(gb.binary.times, right=3).new(dtype)
    n = A.nrows
    rng = np.random.default_rng(5)
    x = gb.Vector.from_dense(rng.integers(1, 9, n).astype(dtype.np_type), device=device)
    few = gb.Vector.from_coo([0, 7, 300, n - 1], [2, 5, 1, 4], dtype, size=n, device=device)
    mask = gb.Vector.from_coo(np.arange(0, n, 3), True, size=n, device=device)
    for M, want in ((B, wide), (P, want_P)):
        for name in ("plus_times", "min_plus", "max_times"):
            s = getattr(gb.semiring, name)[dtype]
            assert M.mxv(x, s).new().isclose(want.mxv(x, s).new(), check_dtype=True)
            assert few.vxm(M, s).new().isequal(few.vxm(want, s).new(), check_dtype=True)
            assert few.vxm(M, s).new(mask=~mask.S).isequal(
                few.vxm(want, s).new(mask=~mask.S), check_dtype=True)
            assert M.mxv(x, s).new(mask=mask.S).isclose(
                want.mxv(x, s).new(mask=mask.S), check_dtype=True)
    if device != "cpu":  # the GPU products read the one value in place of an array
        assert not B._data.has_values and not P._data.has_values


def test_compact_setting_is_checked():
    with pytest.raises(ValueError, match="compact_graphs"):
        gb.config.set(compact_graphs="sometimes")


@pytest.mark.parametrize("weighted", [False, True])
def test_column_selects_keep_a_compact_graph_compact(device, weighted):
    """select.colle / colgt / tril / triu of a compact graph (connected components' sample,
    triangle counting's L): the entries
    the wide graph gives, as a compact matrix (32-bit indices, a pattern stays iso), and the
    graph itself is not widened.  A star's hub row (more entries than one warp copies on the
    GPU) and rows left empty are part of it."""
    with gb.config.set(compact_graphs="never"):
        wide = generators.kron(11, weighted=weighted, device=device)
    with gb.config.set(compact_graphs="always"):
        A = generators.kron(11, weighted=weighted, device=device)
    n = A.nrows
    for op in (gb.select.colle, gb.select.colgt):
        for thunk in (-5, 0, n // 8 - 1, n // 2, n - 1, n + 3):
            got = A.select(op, thunk).new()
            assert got.isequal(wide.select(op, thunk).new(), check_dtype=True), (op, thunk)
            assert got._data.stored_indices.dtype == A._data.stored_indices.dtype
            assert got._data.has_values == weighted
    r, c, v = wide.to_coo()
    r, c = r.astype(np.int64), c.astype(np.int64)
    for op, keeps in ((gb.select.tril, lambda k: c <= r + k),
                      (gb.select.triu, lambda k: c >= r + k)):
        for thunk in (-n - 10, -5, -1, 0, 1, n // 2, n + 3):
            got = A.select(op, thunk).new()
            keep = keeps(thunk)
            gr, gc, gv = got.to_coo()
            np.testing.assert_array_equal(gr, r[keep])
            np.testing.assert_array_equal(gc, c[keep])
            np.testing.assert_array_equal(gv, v[keep])
            assert got._data.stored_indices.dtype == A._data.stored_indices.dtype
            assert got._data.has_values == weighted
    assert A._data._wide is None and A._data.has_values == weighted
    hub = 9000
    rows = np.r_[np.zeros(hub, np.int64), np.arange(1, 50)]
    cols = np.r_[np.arange(1, hub + 1), np.zeros(49, np.int64)]
    vals = np.arange(rows.size, dtype=np.float32)
    S = gb.Matrix.from_coo(rows, cols, vals, nrows=hub + 1, ncols=hub + 1, device=device)
    keeps = {gb.select.colle: lambda k: cols <= k, gb.select.colgt: lambda k: cols > k,
             gb.select.tril: lambda k: cols <= rows + k, gb.select.triu: lambda k: cols >= rows + k}
    for op, thunk in ((gb.select.colle, hub - 7), (gb.select.colgt, 6), (gb.select.colle, 0),
                      (gb.select.tril, hub - 7), (gb.select.triu, 6), (gb.select.tril, -1)):
        r, c, v = S.select(op, thunk).new().to_coo()
        keep = keeps[op](thunk)
        order = np.lexsort((cols[keep], rows[keep]))
        np.testing.assert_array_equal(r, rows[keep][order])
        np.testing.assert_array_equal(c, cols[keep][order])
        np.testing.assert_array_equal(v, vals[keep][order])
    # the same star as a compact pattern graph (32-bit indices, no values): the hub's row is
    # copied by a block on the GPU, the other rows by warps
    from types import SimpleNamespace

    from graphblast.generators._device import to_matrix

    xp = np
    if device != "cpu":
        import cupy as xp
    star = SimpleNamespace(nrows=hub + 1, ncols=hub + 1,
                           indptr=xp.asarray(np.r_[0, hub + np.arange(hub + 1)]),
                           indices=xp.asarray(np.r_[np.arange(1, hub + 1), np.zeros(hub)]
                                              .astype(np.int32)), values=None)
    with gb.config.set(compact_graphs="always"):
        P = to_matrix(star, gb.dtypes.BOOL, device)
    assert P._data.stored_indices.dtype == np.int32 and not P._data.has_values
    wide = gb.Matrix.from_coo(np.r_[np.zeros(hub, np.int64), np.arange(1, hub + 1)],
                              np.r_[np.arange(1, hub + 1), np.zeros(hub, np.int64)], True,
                              nrows=hub + 1, ncols=hub + 1, device=device)
    for op, thunk in ((gb.select.colle, hub - 7), (gb.select.colgt, 6), (gb.select.colle, 0)):
        got = P.select(op, thunk).new()
        assert got.isequal(wide.select(op, thunk).new(), check_dtype=True), (op, thunk)
        assert got._data.stored_indices.dtype == np.int32 and not got._data.has_values
    assert P._data._wide is None and not P._data.has_values


@pytest.mark.parametrize("weighted", [False, True])
def test_exports_leave_a_compact_graph_compact(device, weighted, tmp_path):
    """to_coo, to_csr, to_dense, to_edgelist and mmwrite of a compact graph give the wide
    graph's arrays and leave no wide copy (indices or values) cached on its device."""
    with gb.config.set(compact_graphs="never"):
        wide = generators.kron(7, weighted=weighted, device=device)
    with gb.config.set(compact_graphs="always"):
        A = generators.kron(7, weighted=weighted, device=device)
    gb.io.mmwrite(tmp_path / "compact.mtx", A)
    gb.io.mmwrite(tmp_path / "wide.mtx", wide)
    assert (tmp_path / "compact.mtx").read_bytes() == (tmp_path / "wide.mtx").read_bytes()
    for got, want in zip(A.to_coo(), wide.to_coo()):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    for got, want in zip(A.to_csr(), wide.to_csr()):
        np.testing.assert_array_equal(got, want)
    fill = 0 if weighted else False
    np.testing.assert_array_equal(A.to_dense(fill_value=fill), wide.to_dense(fill_value=fill))
    np.testing.assert_array_equal(A.to_edgelist()[0], wide.to_edgelist()[0])
    assert A._data._wide is None and A._data.has_values == weighted
