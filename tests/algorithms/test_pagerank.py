"""pagerank against NetworkX (dangling="uniform") and a NumPy power iteration (both variants)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.io import mmread

import graphblast as gb
from graphblast.algorithms import ConvergenceFailure, pagerank
from graphblast.core import ordering
from graphblast.dtypes import FP64
from graphblast.exceptions import DimensionMismatch, InvalidValue


def to_matrix(M, device):
    M = sp.coo_array(M)
    return gb.Matrix.from_coo(M.row, M.col, M.data, nrows=M.shape[0], ncols=M.shape[1],
                              device=device)


def random_graph(rng, n, density, *, directed):
    """Random graph with weights in [0.5, 2); sparse enough that a directed one has sinks."""
    M = sp.random_array((n, n), density=density, rng=rng, format="coo")
    M.data = rng.uniform(0.5, 2.0, size=M.nnz)
    if not directed:
        M = M + M.T
    return sp.csr_array(M)


def dense(v):
    idx, vals = v.to_coo()
    out = np.zeros(v.size)
    out[np.asarray(idx)] = np.asarray(vals)
    return out


def numpy_pagerank(M, *, damping=0.85, dangling="uniform", weighted=False, tol=None,
                   iters=100):
    """The definition of graphblast.algorithms.pagerank, step by step with SciPy."""
    W = sp.csr_array(M, dtype=float)
    if not weighted:
        W.data[:] = 1.0
    n = W.shape[0]
    out = np.asarray(W.sum(axis=1)).ravel()
    sink = out == 0
    share = np.where(sink, 0.0, damping / np.where(sink, 1.0, out))
    rank = np.full(n, 1.0 / n)
    for _ in range(iters):
        teleport = (1 - damping) / n
        if dangling == "uniform":
            teleport += damping * rank[sink].sum() / n
        new = teleport + W.T @ (rank * share)
        err = np.abs(new - rank).sum()
        rank = new
        if tol is not None and err < n * tol:
            break
    return rank


def networkx_pagerank(M, *, damping=0.85, weighted=False, tol=1e-12):
    G = nx.from_scipy_sparse_array(sp.csr_array(M), create_using=nx.DiGraph)
    ranks = nx.pagerank(G, alpha=damping, tol=tol, max_iter=1000,
                        weight="weight" if weighted else None)
    return np.array([ranks[i] for i in range(M.shape[0])])


GAP_GRAPHS = [(kind, scale) for kind in ("kron", "urand") for scale in range(10, 15)]


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("n, density", [(2, 0.5), (60, 0.03), (800, 0.004)])
@pytest.mark.parametrize("weighted", [False, True])
def test_uniform_matches_networkx(device, rng, n, density, directed, weighted):
    M = random_graph(rng, n, density, directed=directed)
    rank = pagerank(to_matrix(M, device), tol=1e-12, max_iter=1000, weighted=weighted)
    assert rank.dtype == FP64 and rank.nvals == n
    np.testing.assert_allclose(dense(rank), networkx_pagerank(M, weighted=weighted),
                               rtol=1e-8, atol=1e-12)
    assert dense(rank).sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("dangling", ["uniform", "ignore"])
@pytest.mark.parametrize("damping", [0.85, 0.5, 1.0, 0.0])
def test_both_variants_match_power_iteration(device, rng, dangling, damping):
    M = random_graph(rng, 500, 0.003, directed=True)
    assert (np.asarray(M.sum(axis=1)).ravel() == 0).any(), "the test needs sinks"
    A = to_matrix(M, device)
    got = pagerank(A, damping=damping, tol=1e-4, dangling=dangling)
    expected = numpy_pagerank(M, damping=damping, tol=1e-4, dangling=dangling)
    np.testing.assert_allclose(dense(got), expected, rtol=1e-10, atol=1e-15)
    if dangling == "ignore" and damping > 0:
        assert dense(got).sum() < 1.0  # the sinks' mass leaks away, as in GAP
    fixed = pagerank(A, damping=damping, tol=None, max_iter=7, dangling=dangling)
    np.testing.assert_allclose(
        dense(fixed), numpy_pagerank(M, damping=damping, iters=7, dangling=dangling),
        rtol=1e-10, atol=1e-15)


def test_ldbc_directed_example_has_sinks(device, data_dir):
    M = sp.csr_array(mmread(f"{data_dir}/lagraph/ldbc-directed-example.mtx"))
    sinks = np.flatnonzero(np.diff(M.indptr) == 0)
    assert sinks.tolist() == [3, 9]  # the sinks the manifest names (0-based)
    A = to_matrix(M, device)
    for weighted in (False, True):
        np.testing.assert_allclose(
            dense(pagerank(A, tol=1e-12, max_iter=500, weighted=weighted)),
            networkx_pagerank(M, weighted=weighted), rtol=1e-8)


def test_igraph_if_installed(device, rng):
    igraph = pytest.importorskip("igraph")
    M = sp.coo_array(random_graph(rng, 300, 0.005, directed=True))
    g = igraph.Graph(n=300, edges=np.column_stack((M.row, M.col)).tolist(), directed=True)
    expected = np.array(g.pagerank(damping=0.85, directed=True))
    got = dense(pagerank(to_matrix(M, device), tol=1e-12, max_iter=1000))
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_edge_cases(device):
    empty = pagerank(gb.Matrix(float, 0, 0, device=device))
    assert empty.size == 0 and empty.nvals == 0
    one = dense(pagerank(gb.Matrix(bool, 1, 1, device=device)))
    assert one.tolist() == [1.0]
    isolated = dense(pagerank(gb.Matrix(bool, 4, 4, device=device)))
    np.testing.assert_allclose(isolated, 0.25, rtol=1e-15)
    # A self-loop is an ordinary edge (as in NetworkX); an explicit zero is an edge too.
    rows, cols, vals = [0, 0, 1, 2], [0, 1, 2, 0], [1.0, 0.0, 1.0, 1.0]
    M = sp.csr_array((vals, (rows, cols)), shape=(3, 3))
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=3, ncols=3, device=device)
    np.testing.assert_allclose(dense(pagerank(A, tol=1e-12, max_iter=1000)),
                               networkx_pagerank(M), rtol=1e-8)
    # Weighted: row 0's weights (1, 0) send all of 0's rank to itself; a row whose weights
    # sum to zero is a sink, as in NetworkX.
    zero_row = gb.Matrix.from_coo([0, 1], [1, 0], [0.0, 1.0], nrows=2, ncols=2,
                                  device=device)
    M0 = sp.csr_array(([0.0, 1.0], ([0, 1], [1, 0])), shape=(2, 2))
    np.testing.assert_allclose(
        dense(pagerank(zero_row, weighted=True, tol=1e-12, max_iter=1000)),
        networkx_pagerank(M0, weighted=True), rtol=1e-8)


def test_convergence_failure_names_the_iterations_and_error(device, rng):
    A = to_matrix(random_graph(rng, 200, 0.02, directed=True), device)
    with pytest.raises(ConvergenceFailure, match=r"did not converge in 3 iterations: .*L1"):
        pagerank(A, tol=1e-12, max_iter=3)
    assert pagerank(A, tol=None, max_iter=3).nvals == 200


def test_bad_arguments(device):
    A = gb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2, device=device)
    with pytest.raises(DimensionMismatch):
        pagerank(gb.Matrix(float, 2, 3, device=device))
    with pytest.raises(TypeError, match="graphblast.Matrix"):
        pagerank(np.eye(2))
    for kwargs, error in [
        ({"damping": 1.5}, InvalidValue), ({"damping": -0.1}, InvalidValue),
        ({"damping": float("nan")}, InvalidValue), ({"damping": "0.85"}, TypeError),
        ({"tol": 0}, InvalidValue), ({"tol": -1e-3}, InvalidValue), ({"tol": "x"}, TypeError),
        ({"max_iter": 0}, InvalidValue), ({"max_iter": 2.5}, TypeError),
        ({"max_iter": True}, TypeError), ({"dangling": "spread"}, InvalidValue),
        ({"dangling": None}, InvalidValue), ({"weighted": 1}, TypeError),
    ]:
        with pytest.raises(error):
            pagerank(A, **kwargs)
    negative = gb.Matrix.from_coo([0], [1], [-1.0], nrows=2, ncols=2, device=device)
    pagerank(negative)  # values are ignored unless weighted
    with pytest.raises(InvalidValue, match="negative"):
        pagerank(negative, weighted=True)


@pytest.mark.parametrize("kind, scale", GAP_GRAPHS)
def test_gap_graphs(device, kind, scale, gap_graph):
    M, A = gap_graph(kind, scale, device)
    for dangling in ("uniform", "ignore"):
        np.testing.assert_allclose(
            dense(pagerank(A, tol=1e-7, dangling=dangling)),
            numpy_pagerank(M, tol=1e-7, dangling=dangling), rtol=1e-10, atol=1e-15)


# -- the pull in decreasing-degree order (config "pagerank_order") ------------------------------

@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dangling", ["uniform", "ignore"])
def test_degree_order_gives_the_stored_order_ranks(device, rng, directed, weighted, dangling):
    """The renumbered steps (every vector in degree order, the result renumbered back) are
    the same power iteration: the same ranks to rounding, in the vertices' own order."""
    M = random_graph(rng, 700, 0.006, directed=directed)
    A = to_matrix(M, device)
    kwargs = dict(weighted=weighted, dangling=dangling)
    with gb.config.set(pagerank_order="stored"):
        want = dense(pagerank(A, tol=None, max_iter=25, **kwargs))
        want_tol = dense(pagerank(A, tol=1e-9, **kwargs))
    with gb.config.set(pagerank_order="degree"):
        got = pagerank(A, tol=None, max_iter=25, **kwargs)
        got_tol = pagerank(A, tol=1e-9, **kwargs)
    assert got.nvals == 700 and got_tol.nvals == 700
    np.testing.assert_allclose(dense(got), want, rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(dense(got_tol), want_tol, rtol=1e-12, atol=1e-18)
    np.testing.assert_allclose(
        dense(got), numpy_pagerank(M, iters=25, **kwargs), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dangling", ["uniform", "ignore"])
def test_degree_order_with_vertices_without_an_edge(device, rng, directed, weighted, dangling):
    """A third of the vertices have no edge: one stands for them all in degree order,
    weighed by how many it stands for in the sinks' mass and the L1 change (with and without
    a tolerance), and every one of them gets the stand-in's rank back.  Weighted, some rows
    sum to 0: sinks with edges, so the stand-in is not the only sink."""
    n = 600
    core = random_graph(rng, 400, 0.012, directed=directed).tocoo()
    rows, cols, vals = core.row, core.col, core.data
    if weighted:  # rows 0-9 weigh 0 (their columns too, to stay symmetric): sinks with edges
        vals = np.where((rows < 10) | ((cols < 10) & (not directed)), 0.0, vals)
        assert np.isin(np.arange(10), rows).any()
    W = sp.csr_array((vals, (rows, cols)), shape=(n, n))  # explicit zeros kept: edges
    A = gb.Matrix.from_coo(rows, cols, vals, FP64, nrows=n, ncols=n, device=device)
    if not directed:
        A._data.symmetric = True  # as the generators and symmetric Matrix Market files mark it
    kwargs = dict(weighted=weighted, dangling=dangling)
    want = numpy_pagerank(W, iters=30, **kwargs)
    want_tol = numpy_pagerank(W, tol=1e-9, **kwargs)
    # the L1 change counts every vertex the stand-in speaks for
    last_change = np.abs(numpy_pagerank(W, iters=3, **kwargs)
                         - numpy_pagerank(W, iters=2, **kwargs)).sum()
    for setting in ("stored", "degree"):
        with gb.config.set(pagerank_order=setting):
            got = pagerank(A, tol=None, max_iter=30, **kwargs)
            got_tol = pagerank(A, tol=1e-9, **kwargs)
        assert got.nvals == n and got_tol.nvals == n
        np.testing.assert_allclose(dense(got), want, rtol=1e-11, atol=1e-18)
        np.testing.assert_allclose(dense(got_tol), want_tol, rtol=1e-11, atol=1e-18)
        with gb.config.set(pagerank_order=setting), \
                pytest.raises(ConvergenceFailure, match=f"was {last_change:.3g},"):
            pagerank(A, tol=1e-12, max_iter=3, **kwargs)
    assert (want[400:] == want[400]).all()


@pytest.mark.parametrize("kind", ["kron", "urand"])
def test_degree_order_on_gap_graphs(device, kind, gap_graph):
    M, A = gap_graph(kind, 12, device)
    with gb.config.set(pagerank_order="degree"):
        got = dense(pagerank(A, tol=1e-7))
    np.testing.assert_allclose(got, numpy_pagerank(M, tol=1e-7), rtol=1e-10, atol=1e-15)


def expected_order(M):
    """The primitive's order: decreasing out-degree, then the vertices with an in-edge before
    those with none, then by id; and k, the vertices kept (those with an edge, plus one that
    stands for the rest where there are any)."""
    M = sp.csr_array(M)
    out_degree = np.diff(M.indptr)
    has_in = np.diff(sp.csc_array(M).indptr) != 0
    order = np.argsort(-(2 * out_degree + has_in), kind="stable")
    active = np.count_nonzero((out_degree != 0) | has_in)
    return order, (M.shape[0] if active == M.shape[0] else active + 1)


def test_pull_in_degree_order_renumbers_the_transpose(device, rng):
    """The backend's primitive: P lists the vertices by decreasing out-degree (those with an
    in-edge only before those with no edge, then by id), up to and including one vertex
    without an edge; R gives each vertex its place in P (k - 1, the stand-in's, for every
    vertex without an edge); B's row r is the column of A for vertex P[r] with its entries
    renamed by R (a pull over B with c in that order is c' A in that order)."""
    n = 300
    M = sp.random_array((n, n), density=0.02, rng=rng, format="lil")
    M[250:, :] = 0  # vertices 250-299: no out-edge ...
    M[:, 270:] = 0  # ... and 270-299 no in-edge either (30 without an edge)
    # a path through 0-249 and edges into 250-269: every vertex below 270 has an edge,
    # whatever the draw
    M[np.arange(249), np.arange(1, 250)] = 1.0
    M[0, 250:270] = 1.0
    M = sp.csr_array(M)
    M.eliminate_zeros()
    A = to_matrix(M, device)
    order, k = expected_order(M)
    assert k == 271 and set(order[:270]) == set(range(270))
    made = A._backend.pull_in_degree_order(A._data, 0.0)
    B, P, R = (gb.Matrix._from_data(made[0], A._backend, A.device),
               gb.Vector._from_data(made[1], A._backend, A.device),
               gb.Vector._from_data(made[2], A._backend, A.device))
    assert B.shape == (k, k) and P.size == k and R.size == n
    assert np.array_equal(dense(P).astype(np.int64), order[:k])
    assert np.array_equal(dense(R).astype(np.int64)[order], np.minimum(np.arange(n), k - 1))
    assert B.nvals == M.nnz
    x = rng.random(n)
    c = gb.Vector.from_dense(x[order[:k]], device=device)
    got = dense(B.mxv(c, gb.semiring.plus_times[FP64]).new())
    np.testing.assert_allclose(got, (M.T @ x)[order[:k]], rtol=1e-12)
    # values left out: a pattern for a product that reads none
    made = A._backend.pull_in_degree_order(A._data, 0.0, values=False)
    B = gb.Matrix._from_data(made[0], A._backend, A.device)
    pattern = M.T.astype(bool).astype(float)
    got = dense(B.mxv(c, gb.semiring.plus_second[FP64]).new())
    np.testing.assert_allclose(got, (pattern @ x)[order[:k]], rtol=1e-12)
    # every vertex with an edge: all kept, R the inverse of P
    M = sp.csr_array(sp.random_array((n, n), density=0.05, rng=rng)
                     + sp.eye_array(n, k=1) + sp.eye_array(n, k=-(n - 1)))
    order, k = expected_order(M)
    A = to_matrix(M, device)
    assert k == n
    made = A._backend.pull_in_degree_order(A._data, 0.0)
    assert made[0].nrows == n
    R = dense(gb.Vector._from_data(made[2], A._backend, A.device)).astype(np.int64)
    assert np.array_equal(R[order], np.arange(n))


def test_pull_in_degree_order_of_a_symmetric_matrix(device, rng):
    """A symmetric matrix is its own transpose (no second copy): its rows renumbered in
    decreasing-degree order, with values and as a pattern, rows of every length a warp's
    lanes cover differently (more than a warp's four loads of 32, 33 or more, a few, none),
    and a matrix with no row of 33."""
    n = 400
    upper = sp.triu(sp.random_array((n, n), density=0.01, rng=rng), k=1).tocoo()
    hubs = [(0, j) for j in range(1, 300)] + [(1, j) for j in range(2, 50)]
    rows = np.r_[upper.row, [i for i, _ in hubs]]
    cols = np.r_[upper.col, [j for _, j in hubs]]
    keep = (rows < 380) & (cols < 380)  # vertices 380-399: empty rows
    rows, cols = rows[keep], cols[keep]
    vals = rng.random(rows.size) + 0.5
    M = sp.coo_array((np.r_[vals, vals], (np.r_[rows, cols], np.r_[cols, rows])),
                     shape=(n, n)).tocsr()
    M.sum_duplicates()
    degree = np.diff(M.indptr)
    assert degree.max() > 128 and ((degree >= 33) & (degree <= 128)).any()
    assert ((degree >= 5) & (degree <= 32)).any()
    assert ((degree >= 1) & (degree <= 4)).any() and (degree == 0).any()
    light = sp.csr_array(upper + upper.T)  # the random part alone: no row of 33
    assert np.diff(light.indptr).max() < 33
    x = rng.random(n)
    for matrix in (M, light):
        coo = matrix.tocoo()
        A = gb.Matrix.from_coo(coo.row, coo.col, coo.data, FP64, nrows=n, ncols=n,
                               device=device)
        A._data.symmetric = True  # as the generators and symmetric Matrix Market files mark it
        order = np.argsort(-np.diff(matrix.indptr), kind="stable")
        k = np.count_nonzero(np.diff(matrix.indptr)) + 1  # vertices 380-399: one kept
        assert expected_order(matrix)[1] == k
        for values, sr, want in ((True, gb.semiring.plus_times[FP64], matrix @ x),
                                 (False, gb.semiring.plus_second[FP64],
                                  matrix.astype(bool).astype(float) @ x)):
            made = A._backend.pull_in_degree_order(A._data, 0.0, values=values)
            B, P = (gb.Matrix._from_data(made[0], A._backend, A.device),
                    gb.Vector._from_data(made[1], A._backend, A.device))
            assert np.array_equal(dense(P).astype(np.int64), order[:k])
            assert B.shape == (k, k) and B.nvals == matrix.nnz
            c = gb.Vector.from_dense(x[order[:k]], device=device)
            np.testing.assert_allclose(dense(B.mxv(c, sr).new()), want[order[:k]],
                                       rtol=1e-12)


def test_pull_in_degree_order_declines_even_degrees(device):
    """A grid's most-connected 1 % hold about 1 % of its entries: no order is made at the
    share "auto" asks for, and the ranks come from the stored order."""
    n = 64
    i = np.arange(n * n)
    right, down = (i % n) < n - 1, i < n * n - n
    rows = np.r_[i[right], i[right] + 1, i[down], i[down] + n]
    cols = np.r_[i[right] + 1, i[right], i[down] + n, i[down]]
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n * n, ncols=n * n, device=device)
    assert A._backend.pull_in_degree_order(A._data, ordering.ORDER_MIN_HUB_SHARE) is None
    kron = gb.generators.kron(12, device=device)
    assert kron._backend.pull_in_degree_order(kron._data, ordering.ORDER_MIN_HUB_SHARE) \
        is not None


def test_auto_order_keeps_small_graphs_and_the_cpu_as_they_are(device, monkeypatch):
    """"auto" renumbers only on a GPU, from ORDER_MIN_VERTICES vertices, with at least
    ORDER_MIN_PRODUCTS_SMALL products below ORDER_LARGE_VERTICES vertices and
    ORDER_MIN_PRODUCTS past it; the ranks agree either way."""
    A = gb.generators.kron(12, device=device)
    assert ordering.pull_in_degree_order(A, 20) is None  # 4,096 vertices: too few
    base = dense(pagerank(A, tol=None, max_iter=10))
    on_gpu = str(A.device).startswith("cuda")
    monkeypatch.setattr(ordering, "ORDER_MIN_VERTICES", 0)
    least = ordering.ORDER_MIN_PRODUCTS_SMALL
    assert (ordering.pull_in_degree_order(A, least) is not None) == on_gpu
    assert ordering.pull_in_degree_order(A, least - 1) is None
    monkeypatch.setattr(ordering, "ORDER_LARGE_VERTICES", 0)  # as if A were large
    least = ordering.ORDER_MIN_PRODUCTS
    assert (ordering.pull_in_degree_order(A, least) is not None) == on_gpu
    assert ordering.pull_in_degree_order(A, least - 1) is None
    with gb.config.set(pagerank_order="stored"):
        assert ordering.pull_in_degree_order(A, 20) is None
    np.testing.assert_allclose(dense(pagerank(A, tol=None, max_iter=10)), base, rtol=1e-12)


def test_pagerank_order_setting_is_checked():
    with pytest.raises(ValueError, match="pagerank_order"):
        gb.config.set(pagerank_order="sorted")
