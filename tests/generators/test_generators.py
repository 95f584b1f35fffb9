"""graph500, rgg, grid2d and erdos_renyi: structure, statistics, determinism, bad input."""

import math

import numpy as np
import pytest

from graphblast.exceptions import InvalidValue, OutOfMemory
from graphblast.generators import erdos_renyi, graph500, grid2d, rgg
from graphblast.generators._counter_rng import CounterRNG
from graphblast.generators.random import _endpoints
from graphblast.generators.rgg import default_radius, expected_entries


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def csr_of(A):
    indptr, indices, values = A.to_csr()
    return host(indptr).astype(np.int64), host(indices).astype(np.int64), host(values)


def check_simple(A, symmetric=True):
    """No self-loops, sorted unique columns, (symmetric); returns the host CSR."""
    indptr, indices, values = csr_of(A)
    assert A.nrows == A.ncols
    rows = np.repeat(np.arange(A.nrows), np.diff(indptr))
    assert not np.any(rows == indices)
    assert np.all(np.diff(rows * A.ncols + indices) > 0)
    if symmetric:
        assert A.isequal(A.T.new())
    return indptr, indices, values


def same(A, B):
    return all(np.array_equal(x, y) for x, y in zip(csr_of(A), csr_of(B)))


# ------------------------------------------------------------------------- graph500

def test_graph500_structure(device):
    A = graph500(12, seed=3, device=device)
    indptr, _, values = check_simple(A)
    assert (A.nrows, str(A.dtype)) == (4096, "BOOL") and np.all(values)
    m = 16 * 4096
    assert 0.6 * m < A.nvals / 2 <= m          # duplicates removed: 74% left at scale 12
    degree = np.diff(indptr)
    assert degree.max() > 20 * degree.mean()      # Kronecker graphs are heavily skewed


def test_graph500_deterministic(device):
    assert same(graph500(10, 8, seed=1, device=device), graph500(10, 8, seed=1, device=device))
    assert not same(graph500(10, 8, seed=1, device=device),
                    graph500(10, 8, seed=2, device=device))
    assert same(graph500(9, device=device), graph500(9, seed=None, device=device))


def test_graph500_quadrant_probabilities():
    # Unpermuted, the first bit level's quadrant frequencies are A, B, C, D.
    from graphblast.generators.graph500 import _edge_source
    src = _edge_source(np, 1, 200000, 5, 1 << 20)
    n = 0
    counts = np.zeros((2, 2))
    for u, v, _ in src():
        np.add.at(counts, (u, v), 1)
        n += u.size
    # perm of 2 vertices may swap labels: compare the sorted diagonal and off-diagonal parts.
    diag = sorted([counts[0, 0], counts[1, 1]])
    assert np.allclose(np.array(diag) / n, [0.05, 0.57], atol=0.005)
    assert np.allclose([counts[0, 1] / n, counts[1, 0] / n], [0.19, 0.19], atol=0.005)


@pytest.mark.parametrize("kwargs, match", [
    ({"scale": -1}, "scale must be an integer from 0 to 30"),
    ({"scale": 40}, "scale must be an integer from 0 to 30"),
    ({"scale": 5, "edge_factor": 0}, "edge_factor must be a positive integer"),
    ({"scale": 5, "seed": -3}, "seed must be None"),
])
def test_graph500_bad_arguments(kwargs, match):
    with pytest.raises(InvalidValue, match=match):
        graph500(**kwargs, device="cpu")


def test_graph500_too_large():
    with pytest.raises(OutOfMemory, match=r"graph500\(scale=30, edge_factor=4096\) needs"):
        graph500(30, 4096, device="cpu")


# ------------------------------------------------------------------------------ rgg

def test_rgg_edges_are_exactly_the_close_pairs(device):
    n, r = 600, 0.08
    A, pos = rgg(n, r, seed=11, device=device, return_positions=True)
    pos = host(pos)
    indptr, indices, _ = check_simple(A)
    assert pos.shape == (n, 2) and pos.min() >= 0 and pos.max() < 1
    d2 = ((pos[:, None, :] - pos[None, :, :]) ** 2).sum(axis=2)
    expect = (d2 <= r * r) & ~np.eye(n, dtype=bool)
    got = np.zeros((n, n), dtype=bool)
    got[np.repeat(np.arange(n), np.diff(indptr)), indices] = True
    assert np.array_equal(got, expect)


def test_rgg_expected_count_and_default_radius(device):
    n = 20000
    r = default_radius(n)
    assert r == pytest.approx(0.55 * math.sqrt(math.log(n) / n))
    A = rgg(n, seed=2, device=device)
    expected = expected_entries(n, r)
    # Edges are nearly independent: a few percent is many standard deviations here.
    assert abs(A.nvals - expected) < 0.03 * expected
    # Vertices are numbered in cell order: neighbours have nearby ids.
    rows, cols, _ = A.to_coo()
    assert np.median(np.abs(host(rows).astype(np.int64) - host(cols))) < n / 20
    # The DIMACS10 figure for n = 2^24 follows from the same formula.
    assert expected_entries(2**24, default_radius(2**24)) == pytest.approx(265.1e6, rel=1e-3)


def test_rgg_extremes(device):
    assert rgg(50, 0.0, device=device).nvals == 0
    assert rgg(30, 1.5, device=device).nvals == 30 * 29
    assert rgg(0, device=device).nrows == 0
    assert rgg(1, device=device).nvals == 0
    assert same(rgg(3000, seed=4, device=device), rgg(3000, seed=4, device=device))
    assert not same(rgg(3000, seed=4, device=device), rgg(3000, seed=5, device=device))


@pytest.mark.parametrize("args, match", [
    ((-5,), "n must be an integer"),
    ((10.5,), "n must be an integer"),
    ((10, -0.1), "radius must be finite and >= 0"),
    ((10, float("nan")), "radius must be finite"),
    ((10, "wide"), "radius must be a number"),
])
def test_rgg_bad_arguments(args, match):
    with pytest.raises(InvalidValue, match=match):
        rgg(*args, device="cpu")


def test_rgg_too_large():
    with pytest.raises(OutOfMemory, match="needs about"):
        rgg(2**31 - 1, 0.5, device="cpu")


# ---------------------------------------------------------------------------- grid2d

def test_grid_degrees_and_neighbours(device):
    rows, cols = 7, 5
    A = grid2d(rows, cols, device=device)
    indptr, indices, values = check_simple(A)
    assert str(A.dtype) == "BOOL" and np.all(values)
    assert A.nvals == 2 * (rows * (cols - 1) + (rows - 1) * cols)
    deg = np.diff(indptr).reshape(rows, cols)
    assert deg[0, 0] == deg[0, -1] == deg[-1, 0] == deg[-1, -1] == 2
    assert np.all(deg[1:-1, 1:-1] == 4)
    assert np.all(deg[0, 1:-1] == 3) and np.all(deg[1:-1, 0] == 3)
    # Exactly the 4-neighbourhood: |di| + |dj| == 1.
    r = np.repeat(np.arange(rows * cols), np.diff(indptr))
    di, dj = r // cols - indices // cols, r % cols - indices % cols
    assert np.all(np.abs(di) + np.abs(dj) == 1)


def test_grid_random_weights(device):
    A = grid2d(30, 40, weights="random", seed=9, device=device)
    _, _, values = check_simple(A)          # symmetric: both directions share a weight
    assert str(A.dtype) == "UINT8"
    assert values.min() >= 1 and values.max() <= 100
    assert len(np.unique(values)) == 100    # 2,000+ edges hit every value of 1..100
    assert same(A, grid2d(30, 40, weights="random", seed=9, device=device))
    assert not same(A, grid2d(30, 40, weights="random", seed=10, device=device))


def test_grid_weight_ranges(device):
    A = grid2d(10, 10, weights=(5, 7), device=device)
    assert set(np.unique(csr_of(A)[2]).tolist()) == {5, 6, 7}
    B = grid2d(10, 10, weights=(0.5, 2.5), device=device)
    vals = csr_of(B)[2]
    assert str(B.dtype) == "FP64" and vals.min() >= 0.5 and vals.max() <= 2.5
    assert B.isequal(B.T.new())
    assert str(grid2d(3, 3, weights=(2**31, 2**31 + 9), device=device).dtype) == "UINT32"
    assert str(grid2d(3, 3, weights=(2**32, 2**32 + 9), device=device).dtype) == "INT64"


def test_grid_degenerate(device):
    assert grid2d(1, 1, device=device).nvals == 0
    assert grid2d(0, 5, device=device).nrows == 0
    assert grid2d(1, 6, device=device).nvals == 10     # a path


@pytest.mark.parametrize("args, kwargs, match", [
    ((-1, 4), {}, "rows must be a non-negative integer"),
    ((4, 2.0), {}, "cols must be a non-negative integer"),
    ((4, 4), {"weights": "heavy"}, "weights must be None, 'random'"),
    ((4, 4), {"weights": (3, 1)}, "lo <= hi"),
    ((4, 4), {"weights": (1, float("inf"))}, "finite"),
    ((4, 4), {"weights": 5}, "weights must be None, 'random'"),
    ((70000, 70000), {}, "more than 2\\^31 - 1 vertices"),
])
def test_grid_bad_arguments(args, kwargs, match):
    with pytest.raises(InvalidValue, match=match):
        grid2d(*args, **kwargs, device="cpu")


# ----------------------------------------------------------------------- erdos_renyi

def test_er_gnm_counts(device):
    A = erdos_renyi(300, m=2000, seed=1, device=device)
    check_simple(A)
    assert A.nvals == 4000
    D = erdos_renyi(300, m=2000, directed=True, seed=1, device=device)
    check_simple(D, symmetric=False)
    assert D.nvals == 2000 and not D.isequal(D.T.new())


def test_er_gnp_count_is_binomial(device):
    n, p = 2000, 0.01
    pairs = n * (n - 1) // 2
    A = erdos_renyi(n, p, seed=5, device=device)
    check_simple(A)
    mean, sd = pairs * p, math.sqrt(pairs * p * (1 - p))
    assert abs(A.nvals / 2 - mean) < 5 * sd
    assert not same(A, erdos_renyi(n, p, seed=6, device=device))
    assert same(A, erdos_renyi(n, p, seed=5, device=device))


def test_er_dense_and_extremes(device):
    n = 40
    full = erdos_renyi(n, 1.0, device=device)
    assert full.nvals == n * (n - 1)
    assert erdos_renyi(n, 0.0, device=device).nvals == 0
    # More than half the pairs: the complement is sampled instead; still exact.
    dense = erdos_renyi(n, m=700, seed=2, device=device)
    assert dense.nvals == 1400
    check_simple(dense)
    assert erdos_renyi(n, m=n * (n - 1), directed=True, device=device).nvals == n * (n - 1)
    assert erdos_renyi(0, p=0.5, device=device).nrows == 0
    assert erdos_renyi(1, m=0, device=device).nvals == 0


def test_er_pair_numbering_is_a_bijection():
    for n, directed in ((37, False), (37, True), (2, False)):
        pairs = n * (n - 1) // (1 if directed else 2)
        u, v = _endpoints(np, np.arange(pairs, dtype=np.int64), n, directed)
        assert len(set(zip(u.tolist(), v.tolist()))) == pairs
        assert np.all(u != v) and u.min() >= 0 and max(u.max(), v.max()) < n
        if not directed:
            assert np.all(u > v)
    # Pair numbers near 2^61 (n near 2^31) still map exactly.
    n = 2**31 - 1
    t = np.array([n * (n - 1) // 2 - 1, 2**60 + 12345], dtype=np.int64)
    u, v = _endpoints(np, t, n, False)
    u, v = u.astype(np.int64), v.astype(np.int64)
    assert np.array_equal(u * (u - 1) // 2 + v, t) and np.all(v < u)


def test_er_gnm_is_uniform():
    """Each of the 10 pairs of 5 vertices is chosen about equally often by G(5, 3)."""
    hits = np.zeros((5, 5))
    for seed in range(600):
        rows, cols, _ = erdos_renyi(5, m=3, seed=seed, device="cpu").to_coo()
        hits[host(rows).astype(int), host(cols).astype(int)] += 1
    upper = hits[np.triu_indices(5, 1)]
    assert np.all(np.abs(upper - 600 * 3 / 10) < 45)


@pytest.mark.parametrize("args, kwargs, match", [
    ((10,), {}, "exactly one of p"),
    ((10, 0.5), {"m": 3}, "exactly one of p"),
    ((10, 1.5), {}, r"p must be a probability in \[0, 1\]"),
    ((10, -0.1), {}, r"p must be a probability"),
    ((10,), {"m": 46}, "m must be an integer from 0 to 45"),
    ((10,), {"m": -1}, "m must be an integer"),
    ((-2, 0.1), {}, "n must be an integer"),
])
def test_er_bad_arguments(args, kwargs, match):
    with pytest.raises(InvalidValue, match=match):
        erdos_renyi(*args, **kwargs, device="cpu")


def test_er_too_large():
    with pytest.raises(OutOfMemory, match="needs about"):
        erdos_renyi(2**31 - 1, 0.5, device="cpu")


# ------------------------------------------------------------------- the random source

def test_counter_rng_is_chunking_independent():
    rng = CounterRNG(np, 42, 3)
    whole = rng.bits(100, 1000)
    parts = np.concatenate([rng.bits(100, 300), rng.bits(400, 700)])
    assert np.array_equal(whole, parts)
    assert np.array_equal(rng.bits_at(np.arange(100, 1100)), whole)
    assert not np.array_equal(CounterRNG(np, 42, 4).bits(100, 1000), whole)
    u = (whole >> np.uint64(11)).astype(np.float64) / 2**53
    assert 0.45 < u.mean() < 0.55


@pytest.mark.parametrize("lo,hi,expected", [
    (1, 100, "UINT8"), (0, 255, "UINT8"), (-5, 5, "INT8"), (0, 1000, "UINT16"),
    (-1000, 1000, "INT16"), (0, 2**32 - 1, "UINT32"), (-(2**31), 2**31 - 1, "INT32"),
    (-(2**40), -(2**40) + 5, "INT64")])
def test_grid_integer_weights_take_the_narrowest_type(lo, hi, expected):
    A = grid2d(4, 5, weights=(lo, hi), seed=2, device="cpu")
    assert str(A.dtype) == expected
    _, _, values = csr_of(A)
    assert values.min() >= lo and values.max() <= hi


# ------------------------------------------------------------------- every device alike

@pytest.mark.parametrize("make", [
    lambda d: graph500(11, 8, seed=5, device=d),
    lambda d: grid2d(23, 17, device=d),
    lambda d: grid2d(1, 9, device=d),
    lambda d: grid2d(40, 31, weights="random", seed=4, device=d),
    lambda d: grid2d(12, 13, weights=(-3, 200), seed=2, device=d),
    lambda d: grid2d(12, 13, weights=(2**32, 2**32 + 9), device=d),
    lambda d: grid2d(15, 11, weights=(0.5, 2.5), seed=8, device=d),
    lambda d: rgg(3000, seed=6, device=d),
    lambda d: erdos_renyi(400, m=3000, seed=3, device=d),
    lambda d: erdos_renyi(60, m=1700, seed=3, device=d),
    lambda d: erdos_renyi(300, p=0.05, directed=True, seed=7, device=d),
    lambda d: erdos_renyi(50, m=0, device=d),
    lambda d: grid2d(0, 5, device=d),
    lambda d: rgg(1, device=d),
], ids=["graph500", "grid", "grid-path", "grid-random", "grid-int16", "grid-int64",
        "grid-float", "rgg", "gnm", "gnm-dense", "gnp-directed", "gnm-empty", "grid-empty",
        "rgg-one"])
def test_every_device_makes_the_same_graph(device, make):
    # the device's kernels and the host's NumPy steps draw the same numbers: bit for bit
    A, B = make("cpu"), make(device)
    assert str(A.dtype) == str(B.dtype) and A.nrows == B.nrows
    assert same(A, B)
