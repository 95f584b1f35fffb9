"""sssp against SciPy's Dijkstra (and Bellman-Ford for negative weights)."""


import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import NegativeCycleError, bellman_ford, dijkstra

import graphblast as gb
from graphblast.algorithms import NegativeCycle, sssp
from graphblast.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue


def to_matrix(M, device, dtype=None):
    M = sp.coo_array(M)
    return gb.Matrix.from_coo(M.row, M.col, M.data, dtype, nrows=M.shape[0],
                              ncols=M.shape[1], device=device)


def random_weighted(rng, n, density, *, directed, low, high, integer=False):
    """A random graph, without duplicate entries, with weights uniform in [low, high)."""
    M = sp.random_array((n, n), density=density, rng=rng, format="coo")
    if integer:
        M.data = rng.integers(low, high, size=M.nnz).astype(np.int64)
    else:
        M.data = rng.uniform(low, high, size=M.nnz)
    if not directed:
        M = sp.triu(M, 1)
        M = M + M.T
    return sp.csr_array(M)


def dense(v):
    """A distance Vector as a float array with inf where it has no entry."""
    idx, vals = v.to_coo()
    out = np.full(v.size, np.inf)
    out[np.asarray(idx)] = np.asarray(vals)
    return out


GAP_GRAPHS = [(kind, scale) for kind in ("kron", "urand") for scale in range(10, 15)]


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("n, density", [(1, 1.0), (40, 0.08), (500, 0.01), (2000, 0.002)])
def test_random_float_weights(device, rng, n, density, directed):
    M = random_weighted(rng, n, density, directed=directed, low=0.0, high=10.0)
    A = to_matrix(M, device)
    for source in rng.choice(n, size=min(n, 3), replace=False):
        dist = sssp(A, source)
        assert dist.dtype == A.dtype
        np.testing.assert_allclose(dense(dist), dijkstra(M, indices=source), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["INT8", "INT32", "UINT16", "UINT64", "FP32"])
def test_weight_types(device, rng, dtype):
    M = random_weighted(rng, 300, 0.02, directed=True, low=0, high=100, integer=True)
    A = to_matrix(M, device, dtype)
    dist = sssp(A, 0)
    # Small integer types add up in INT64, so long paths cannot overflow an INT8.
    assert dist.dtype.name == {"INT8": "INT64", "INT32": "INT64", "UINT16": "INT64"}.get(
        dtype, dtype)
    np.testing.assert_array_equal(dense(dist), dijkstra(M.astype(float), indices=0))


def test_unweighted_bool_counts_hops(device):
    A = gb.Matrix.from_coo([0, 1, 0], [1, 2, 3], True, nrows=4, ncols=4, device=device)
    dist = sssp(A, 0)
    assert dist.dtype.name == "INT64"
    np.testing.assert_array_equal(dense(dist), [0, 1, 2, 1])


def test_zero_weights_self_loops_and_unreachable(device):
    # 0 -0-> 1 -0-> 2, a zero-weight cycle 2 <-> 1, self-loops, and vertex 4 unreachable.
    rows, cols, vals = [0, 1, 2, 0, 2, 3, 4], [1, 2, 1, 0, 2, 3, 3], [0, 0, 0, 5, 0, 2, 1]
    A = gb.Matrix.from_coo(rows, cols, np.array(vals, float), nrows=5, ncols=5, device=device)
    np.testing.assert_array_equal(dense(sssp(A, 0)), [0, 0, 0, np.inf, np.inf])
    np.testing.assert_array_equal(dense(sssp(A, 4)), [np.inf, np.inf, np.inf, 1, 0])


def test_duplicate_edges_keep_the_lightest(device):
    A = gb.Matrix.from_coo([0, 0, 1], [1, 1, 2], [4.0, 1.5, 1.0], nrows=3, ncols=3,
                           dup_op=gb.binary.min, device=device)
    np.testing.assert_array_equal(dense(sssp(A, 0)), [0, 1.5, 2.5])


def test_negative_weights_need_the_flag(device, rng):
    M = random_weighted(rng, 200, 0.03, directed=True, low=1.0, high=10.0)
    M = sp.coo_array(M)
    # Adding a potential, w(u, v) + p(u) - p(v), leaves every cycle's weight as it was
    # (positive) while many edges turn negative: no negative cycle, but negative weights.
    potential = rng.uniform(0.0, 20.0, size=200)
    M.data = M.data + potential[M.row] - potential[M.col]
    assert (M.data < 0).any()
    A = to_matrix(M, device)
    with pytest.raises(InvalidValue, match="negative_weights=True"):
        sssp(A, 0)
    expected = bellman_ford(sp.csr_array(M), indices=0)
    np.testing.assert_allclose(dense(sssp(A, 0, negative_weights=True)), expected, rtol=1e-12)


def test_negative_cycle_is_detected(device):
    # 0 -> 1 -> 2 -> 1 where the cycle 1 -> 2 -> 1 weighs -1; vertex 3 is off the cycle.
    A = gb.Matrix.from_coo([0, 1, 2, 3], [1, 2, 1, 0], [1, 2, -3, 1], nrows=4, ncols=4,
                           device=device)
    M = sp.csr_array(([1.0, 2, -3, 1], ([0, 1, 2, 3], [1, 2, 1, 0])), shape=(4, 4))
    with pytest.raises(NegativeCycleError):
        bellman_ford(M, indices=0)
    with pytest.raises(NegativeCycle, match="negative-weight cycle is reachable from vertex 0"):
        sssp(A, 0, negative_weights=True)
    assert issubclass(NegativeCycle, InvalidValue)
    loop = gb.Matrix.from_coo([0], [0], [-1], nrows=1, ncols=1, device=device)
    with pytest.raises(NegativeCycle):
        sssp(loop, 0, negative_weights=True)
    # A negative cycle that the source cannot reach does not matter.
    far = gb.Matrix.from_coo([1, 2, 0], [2, 1, 3], [-1, -1, 2], nrows=4, ncols=4,
                             device=device)
    np.testing.assert_array_equal(dense(sssp(far, 0, negative_weights=True)),
                                  [0, np.inf, np.inf, 2])


def test_bad_arguments(device):
    A = gb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2, device=device)
    with pytest.raises(IndexOutOfBound, match="0 <= source < 2"):
        sssp(A, 2)
    with pytest.raises(TypeError, match="source must be an integer"):
        sssp(A, 0.0)
    with pytest.raises(DimensionMismatch):
        sssp(gb.Matrix(float, 2, 3, device=device), 0)
    with pytest.raises(TypeError, match="negative_weights must be True or False"):
        sssp(A, 0, negative_weights=None)
    nan = gb.Matrix.from_coo([0], [1], [np.nan], nrows=2, ncols=2, device=device)
    with pytest.raises(InvalidValue, match="NaN"):
        sssp(nan, 0)


@pytest.mark.parametrize("kind, scale", GAP_GRAPHS)
def test_gap_graphs(device, rng, kind, scale, gap_graph):
    M, A = gap_graph(kind, scale, device, weighted=True)
    hub = int(np.argmax(np.diff(M.indptr)))
    for source in (hub, int(rng.integers(A.nrows))):
        dist = sssp(A, source)
        assert dist.dtype.name == "INT64"  # GAP's weights are UINT8 (1..255)
        np.testing.assert_array_equal(dense(dist), dijkstra(M, indices=source))


@pytest.mark.parametrize("method", ["delta", "bellman-ford", "auto"])
@pytest.mark.parametrize("dtype", ["BOOL", "INT8", "UINT16", "INT64", "UINT64", "FP32", "FP64"])
def test_methods_agree_with_dijkstra(device, rng, monkeypatch, method, dtype):
    """Every method and weight type; "auto" switched to delta-stepping after 2 rounds."""
    import importlib

    monkeypatch.setattr(importlib.import_module("graphblast.algorithms.sssp"),
                        "SWITCH_ROUNDS", 2)
    M = random_weighted(rng, 300, 0.02, directed=True, low=0, high=20, integer=True)
    if dtype == "BOOL":
        M.data = (M.data > 5).astype(np.float64)
    A = to_matrix(M, device, dtype)
    ref = dijkstra(M, indices=7) if dtype != "BOOL" else dijkstra(
        sp.csr_array((np.where(M.data > 0, 1.0, 0.0), M.indices, M.indptr), shape=M.shape),
        indices=7)
    for delta in (None, 1, 3.5 if dtype.startswith("FP") else 7):
        np.testing.assert_allclose(dense(sssp(A, 7, method=method, delta=delta)), ref,
                                   rtol=1e-5)


@pytest.mark.parametrize("side", [30, 64])
def test_grid_long_diameter(device, rng, side):
    """A weighted grid (hop diameter 2 * side): "auto" switches to delta-stepping."""
    n = side * side
    r = np.arange(n).reshape(side, side)
    rows = np.concatenate([r[:, :-1].ravel(), r[:-1, :].ravel()])
    cols = np.concatenate([r[:, 1:].ravel(), r[1:, :].ravel()])
    w = rng.uniform(0.1, 5.0, rows.shape[0])
    M = sp.csr_array((np.concatenate([w, w]), (np.concatenate([rows, cols]),
                                               np.concatenate([cols, rows]))), shape=(n, n))
    A = to_matrix(M, device)
    ref = dijkstra(M, indices=0)
    for method in ("auto", "delta"):
        np.testing.assert_allclose(dense(sssp(A, 0, method=method)), ref, rtol=1e-12)


@pytest.mark.parametrize("squarings", [1, 2, 3])
@pytest.mark.parametrize("weights", ["INT64", "FP64", "UINT8"])
@pytest.mark.parametrize("method", ["auto", "delta"])
def test_squared_matrix_keeps_the_distances(device, rng, monkeypatch, squarings, weights,
                                           method):
    """Path doubling (plan.sssp_squarings, forced through gb.config): delta-stepping over
    min(A, A min.+ A), squared k times, gives Dijkstra's distances on a directed grid with
    shortcuts, zero weights and unreachable vertices; UINT8 weights, whose two-hop sums pass
    255, are summed in INT64 as the distances are."""
    import importlib

    monkeypatch.setattr(importlib.import_module("graphblast.algorithms.sssp"),
                        "SWITCH_ROUNDS", 3)
    side = 20
    n = side * side + 5  # five vertices nothing reaches
    r = np.arange(side * side).reshape(side, side)
    rows = np.concatenate([r[:, :-1].ravel(), r[1:, :].ravel(), rng.integers(0, side, 30)])
    cols = np.concatenate([r[:, 1:].ravel(), r[:-1, :].ravel(), rng.integers(0, side * side, 30)])
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    if weights == "FP64":
        w = rng.uniform(0.0, 3.0, rows.shape[0])
    else:
        w = rng.integers(0 if weights == "INT64" else 150, 256, rows.shape[0]).astype(np.int64)
    w[:7] = 0
    M = sp.coo_array((w, (rows, cols)), shape=(n, n))
    M.sum_duplicates()
    M = sp.csr_array(M)
    M.data = np.minimum(M.data, 255) if weights == "UINT8" else M.data
    A = to_matrix(M, device, weights)
    ref = dijkstra(M, indices=0)
    with gb.config.set(sssp_squarings=squarings):
        got = dense(sssp(A, 0, method=method))
    if weights == "FP64":
        np.testing.assert_allclose(got, ref, rtol=1e-12)
    else:
        np.testing.assert_array_equal(got, ref)


def test_method_arguments(device):
    A = to_matrix(sp.csr_array(np.array([[0, -1.0], [0, 0]])), device)
    with pytest.raises(InvalidValue, match="delta-stepping"):
        sssp(A, 0, negative_weights=True, method="delta")
    assert dense(sssp(A, 0, negative_weights=True)).tolist() == [0, -1]
    with pytest.raises(InvalidValue, match="method"):
        sssp(A, 0, method="dijkstra")
    with pytest.raises(InvalidValue, match="delta"):
        sssp(A, 0, negative_weights=True, delta=0)


@pytest.mark.parametrize("weights, delta, expected", [
    # delta is below the precision at 1e17 (1e17 + 1 == 1e17): the buckets must not stall
    ([1e17, 1.0], 1.0, {0: 0.0, 1: 1e17, 2: 1e17 + 1.0}),
    # FP32 distances past 2**24, where a unit width is below FP32's precision
    ([np.float32(3e7), np.float32(1.0)], 1.0, {0: 0.0, 1: 3e7, 2: np.float32(3e7) + 1}),
    # a heavy edge (1.0000001 > delta) whose sum rounds to exactly the bucket's end, 2**52 + 1:
    # that vertex belongs to the next bucket, which expands it
    ([2.0**52, 1.0000001, 1.0], 1.0, {0: 0.0, 1: 2.0**52, 2: 2.0**52 + 1, 3: 2.0**52 + 2}),
])
@pytest.mark.parametrize("method", ["delta", "auto"])
def test_delta_stepping_finishes_past_its_precision(device, monkeypatch, method, weights,
                                                    delta, expected):
    """Delta-stepping advances even where lo + delta == lo in floating point (a round then
    relaxes the pending vertices at lo), and the distances are Bellman-Ford's."""
    import importlib

    # "auto" goes straight to delta-stepping
    monkeypatch.setattr(importlib.import_module("graphblast.algorithms.sssp"),
                        "SWITCH_ROUNDS", 0)
    k = len(weights)
    A = gb.Matrix.from_coo(list(range(k)), list(range(1, k + 1)), weights, nrows=k + 1,
                           ncols=k + 1, device=device)
    got = sssp(A, 0, method=method, delta=delta).to_dict()
    if expected is not None:
        assert got == expected
    assert got == sssp(A, 0, method="bellman-ford").to_dict()


@pytest.mark.parametrize("delta", [1.0, 1e300])
def test_delta_stepping_reaches_an_overflowed_distance(device, delta):
    """A finite weight that makes a distance overflow to infinity: the vertex waits until it
    is the smallest pending one, relaxes nothing (inf + w is no improvement) and the loop
    ends, with Bellman-Ford's distances."""
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [1e308, 1e308, 1.0], nrows=4, ncols=4,
                           device=device)
    got = sssp(A, 0, method="delta", delta=delta).to_dict()
    assert got == {0: 0.0, 1: 1e308, 2: np.inf, 3: np.inf}
    assert got == sssp(A, 0, method="bellman-ford").to_dict()


def test_infinite_weights_go_to_bellman_ford(device):
    """Buckets of distance cannot hold an infinite one: "auto" runs Bellman-Ford throughout
    (an infinite distance is reached all the same), "delta" says why it cannot."""
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [1.0, np.inf, 2.0], nrows=4, ncols=4,
                           device=device)
    assert sssp(A, 0).to_dict() == {0: 0.0, 1: 1.0, 2: np.inf, 3: np.inf}
    with pytest.raises(InvalidValue, match="finite weights"):
        sssp(A, 0, method="delta")


def test_default_bucket_width_by_device(device):
    """32 times the average weight over the average degree on every device (a wider bucket
    makes no fewer rounds); at least 1 for integer weights."""
    import sys

    sssp_module = sys.modules["graphblast.algorithms.sssp"]  # the package exports the function
    A = gb.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 1], [2.0, 4.0, 6.0, 8.0], nrows=4, ncols=4,
                           device=device)
    assert sssp_module.WIDTH == {"cpu": 32, "cuda": 32}
    # average weight 5, average degree 1 (4 entries over 4 rows)
    assert sssp_module._default_delta(A, gb.dtypes.FP64) == 32 * 5.0
    tiny = gb.Matrix.from_coo([0], [1], [1], gb.dtypes.INT64, nrows=1000, ncols=1000,
                              device=device)
    assert sssp_module._default_delta(tiny, gb.dtypes.INT64) == 32 * 1000
