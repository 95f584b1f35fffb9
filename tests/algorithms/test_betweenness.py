"""Betweenness centrality (vertices and edges) against NetworkX, and multi-source BFS against
SciPy's unweighted shortest paths: directed and undirected, disconnected, sampled sources,
real graphs of tests/data, every direction of the batched product, and bad arguments."""

import os
import random

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import graphblast as gb
from graphblast.algorithms import bfs, betweenness_centrality, edge_betweenness_centrality
from graphblast.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue


def from_nx(G, device):
    n = G.number_of_nodes()
    M = nx.to_scipy_sparse_array(G, nodelist=range(n), format="coo")
    return gb.Matrix.from_coo(M.row, M.col, True, nrows=n, ncols=n, device=device)


def nx_vector(values, n):
    return np.array([values[v] for v in range(n)], dtype=float)


def dense(v, fill=0.0):
    out = np.full(v.size, fill)
    idx, vals = v.to_coo()
    out[np.asarray(idx)] = np.asarray(vals)
    return out


def graphs(rng):
    """Random graphs (directed and undirected, some disconnected) and a few named ones."""
    out = []
    for directed in (False, True):
        for n, p in ((30, 0.06), (45, 0.1), (25, 0.02)):
            seed = int(rng.integers(1 << 30))
            out.append(nx.gnp_random_graph(n, p, seed=seed, directed=directed))
    out += [nx.path_graph(6), nx.star_graph(5), nx.cycle_graph(7),
            nx.disjoint_union(nx.complete_graph(4), nx.path_graph(3)),
            nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)]), nx.empty_graph(3)]
    return out


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_exact_against_networkx(device, rng, direction):
    with gb.config.set(direction=direction):
        for G in graphs(rng):
            n = G.number_of_nodes()
            A = from_nx(G, device)
            got = dense(betweenness_centrality(A))
            np.testing.assert_allclose(got, nx_vector(nx.betweenness_centrality(G), n),
                                       atol=1e-12)
            raw = dense(betweenness_centrality(A, normalized=False, batch=4))
            half = 1 if G.is_directed() else 2
            np.testing.assert_allclose(
                raw / half, nx_vector(nx.betweenness_centrality(G, normalized=False), n),
                atol=1e-12)


def test_sampled_sources_match_networkx_sampling(device, rng):
    for G in graphs(rng)[:6]:
        n = G.number_of_nodes()
        A = from_nx(G, device)
        for k, seed in ((1, 5), (7, 11), (n, 2)):
            got = dense(betweenness_centrality(A, k=k, seed=seed, batch=3))
            want = nx_vector(nx.betweenness_centrality(G, k=k, seed=seed), n)
            np.testing.assert_allclose(got, want, atol=1e-12, equal_nan=True)
        chosen = random.Random(4).sample(range(n), 5)
        np.testing.assert_allclose(dense(betweenness_centrality(A, sources=chosen)),
                                   dense(betweenness_centrality(A, k=5, seed=4)))


def test_edges_against_networkx(device, rng):
    for G in graphs(rng):
        n = G.number_of_nodes()
        A = from_nx(G, device)
        for normalized in (False, True):
            E = edge_betweenness_centrality(A, normalized=normalized, batch=5)
            got = {(int(u), int(v)): x for u, v, x in zip(*(np.asarray(a) for a in E.to_coo()))}
            assert len(got) == A.nvals
            want = nx.edge_betweenness_centrality(G, normalized=normalized)
            for (u, v), x in want.items():
                value = got[u, v] if G.is_directed() else (got[u, v] + got[v, u])
                if not G.is_directed() and not normalized:
                    value /= 2
                assert value == pytest.approx(x, abs=1e-12), (u, v)


def test_real_graph_karate(device, data_dir):
    from graphblast.io import mmread, to_scipy_sparse

    path = os.path.join(data_dir, "lagraph", "karate.mtx")
    M = sp.coo_array(to_scipy_sparse(mmread(path, device="cpu")))
    n = M.shape[0]
    A = gb.Matrix.from_coo(M.row, M.col, True, nrows=n, ncols=n, device=device)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(M.row.tolist(), M.col.tolist()))
    np.testing.assert_allclose(dense(betweenness_centrality(A)),
                               nx_vector(nx.betweenness_centrality(G), n), atol=1e-12)
    np.testing.assert_allclose(dense(betweenness_centrality(A, k=10, seed=1)),
                               nx_vector(nx.betweenness_centrality(G, k=10, seed=1), n),
                               atol=1e-12)


@pytest.mark.parametrize("directed", [False, True])
def test_multi_source_bfs_against_scipy(device, rng, directed):
    n = 80
    M = sp.random_array((n, n), density=0.03, rng=rng, format="csr")
    if not directed:
        M = M + M.T
    A = gb.Matrix.from_coo(*sp.coo_array(M).coords, True, nrows=n, ncols=n, device=device)
    sources = [0, 5, 5, 79, int(rng.integers(n))]
    dist = shortest_path(M, unweighted=True, directed=True, indices=sources)
    want = np.where(np.isinf(dist), -1, dist).astype(np.int64)
    for direction in ("auto", "push", "pull"):
        with gb.config.set(direction=direction):
            for given in (sources, np.array(sources),
                          gb.Vector.from_coo(range(5), sources, device=device)):
                L = bfs(A, given)
                assert L.shape == (5, n) and L.dtype == gb.dtypes.INT64
                got = np.full((5, n), -1, dtype=np.int64)
                r, c, v = (np.asarray(x) for x in L.to_coo())
                got[r, c] = v
                np.testing.assert_array_equal(got, want)
    # each row is the single-source BFS of its source
    single = bfs(A, sources[-1])
    idx, vals = (np.asarray(x) for x in single.to_coo())
    np.testing.assert_array_equal(want[-1][idx], vals)


@pytest.mark.parametrize("ns", [1, 63, 64, 65, 130])
def test_multi_source_bfs_batch_sizes(device, rng, ns):
    # batches about the 64 sources of a packed word (backends/cuda/packed.py), on a directed
    # graph with vertices of no out-edges and no in-edges, repeated sources among them
    n = 150
    M = sp.random_array((n, n), density=0.02, rng=rng, format="lil")
    M[:, 7] = 0  # no in-edges
    M[9, :] = 0  # no out-edges
    M = sp.csr_array(M)
    A = gb.Matrix.from_coo(*sp.coo_array(M).coords, True, nrows=n, ncols=n, device=device)
    sources = [int(s) for s in rng.integers(n, size=ns)]
    sources[0] = 7
    sources[-1] = 9
    if ns > 2:
        sources[1] = sources[-1]
    dist = shortest_path(M, unweighted=True, directed=True, indices=sources)
    want = np.where(np.isinf(dist), -1, dist).astype(np.int64).reshape(ns, n)
    for direction in ("auto", "push", "pull"):
        with gb.config.set(direction=direction):
            L = bfs(A, sources)
        got = np.full((ns, n), -1, dtype=np.int64)
        r, c, v = (np.asarray(x) for x in L.to_coo())
        got[r, c] = v
        np.testing.assert_array_equal(got, want)


def test_multi_source_bfs_reads_few_counts_a_level(device):
    # the answer of each row is its source's single BFS; on a GPU the loop reads the
    # frontier's count, and the direction rule the counts it needs (the frontier's degree
    # sum, the visited count): at most three waits for the GPU a level
    from graphblast import generators

    def reads():
        if not device.startswith("cuda"):
            return 0
        from graphblast.backends.cuda import blocks

        return blocks.host_reads()

    A = generators.kron(12, device=device)
    sources = list(range(0, 4096, 256))
    bfs(A, sources)  # compiles, builds the transpose's and the hubs' caches
    before = reads()
    L = bfs(A, sources)
    waits = reads() - before
    depth = int(L.reduce_scalar(gb.monoid.max).new().value) + 1
    assert waits <= 3 * (depth + 1), (waits, depth)
    r, c, v = (np.asarray(x) for x in L.to_coo())
    for row in (0, 5, len(sources) - 1):
        idx, vals = (np.asarray(x) for x in bfs(A, sources[row]).to_coo())
        np.testing.assert_array_equal(c[r == row], idx)
        np.testing.assert_array_equal(v[r == row], vals)


def test_generated_kron_graph(device):
    from graphblast import generators

    A = generators.kron(8, device=device)
    rows, cols, _ = (np.asarray(x) for x in A.to_coo())
    n = A.nrows
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(rows.tolist(), cols.tolist()))
    np.testing.assert_allclose(dense(betweenness_centrality(A, k=32, seed=9)),
                               nx_vector(nx.betweenness_centrality(G, k=32, seed=9), n),
                               atol=1e-12)
    M = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    sources = [int(v) for v in np.flatnonzero(np.diff(M.indptr))[:40]]
    dist = shortest_path(M, unweighted=True, directed=True, indices=sources)
    got = np.full(dist.shape, -1, dtype=np.int64)
    r, c, v = (np.asarray(x) for x in bfs(A, sources).to_coo())
    got[r, c] = v
    np.testing.assert_array_equal(got, np.where(np.isinf(dist), -1, dist).astype(np.int64))


def test_hubs_longer_than_the_pulls_heavy_columns(device):
    # two hubs of 1,500 neighbours among sparse random edges: the GPU's bitmap pull cuts a
    # column of more than 1,024 entries into chunks and folds their partial sums in order
    n = 2000
    G = nx.gnm_random_graph(n, 3000, seed=3)
    G.add_edges_from((0, v) for v in range(1, 1501))
    G.add_edges_from((1, v) for v in range(500, n))
    A = from_nx(G, device)
    want = nx_vector(nx.betweenness_centrality(G, k=24, seed=7), n)
    for direction in ("auto", "pull"):
        with gb.config.set(direction=direction):
            got = dense(betweenness_centrality(A, k=24, seed=7))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_small_and_empty_graphs(device):
    none = gb.Matrix(gb.dtypes.BOOL, 0, 0, device=device)
    assert betweenness_centrality(none).size == 0
    assert edge_betweenness_centrality(none).nvals == 0
    with pytest.raises(IndexOutOfBound, match="the graph has none"):
        bfs(none, [0])
    with pytest.raises(InvalidValue, match="without vertices"):
        betweenness_centrality(none, k=1)
    one = gb.Matrix(gb.dtypes.BOOL, 1, 1, device=device)
    assert dense(betweenness_centrality(one)).tolist() == [0.0]
    assert bfs(one, [0, 0]).to_coo()[2].tolist() == [0, 0]
    two = gb.Matrix.from_coo([0, 1], [1, 0], True, nrows=2, ncols=2, device=device)
    assert dense(betweenness_centrality(two)).tolist() == [0.0, 0.0]
    E = edge_betweenness_centrality(two, normalized=False)
    assert sorted(np.asarray(E.to_coo()[2]).tolist()) == [1.0, 1.0]
    loop = gb.Matrix.from_coo([0, 0, 1], [0, 1, 2], True, nrows=3, ncols=3, device=device)
    G = nx.DiGraph([(0, 0), (0, 1), (1, 2)])
    np.testing.assert_allclose(dense(betweenness_centrality(loop)),
                               nx_vector(nx.betweenness_centrality(G), 3))


def test_bad_arguments(device):
    A = gb.Matrix.from_coo([0, 1], [1, 2], True, nrows=3, ncols=3, device=device)
    with pytest.raises(IndexOutOfBound, match="not a vertex"):
        bfs(A, [0, 3])
    with pytest.raises(IndexOutOfBound, match="not a vertex"):
        betweenness_centrality(A, sources=[-1])
    with pytest.raises(InvalidValue, match="sources is empty"):
        bfs(A, [])
    with pytest.raises(TypeError, match="integer vertex id"):
        betweenness_centrality(A, sources=[0.5])
    with pytest.raises(TypeError, match="integer vertex ids"):
        bfs(A, gb.Vector.from_coo([0], [1.0], device=device))
    with pytest.raises(InvalidValue, match="k must lie in 1 .. 3"):
        betweenness_centrality(A, k=4)
    with pytest.raises(InvalidValue, match="sources or k"):
        betweenness_centrality(A, sources=[0], k=1)
    with pytest.raises(InvalidValue, match="batch must be at least 1"):
        betweenness_centrality(A, batch=0)
    with pytest.raises(InvalidValue, match="parents=True takes one source"):
        bfs(A, [0, 1], parents=True)
    rect = gb.Matrix.from_coo([0], [1], True, nrows=2, ncols=3, device=device)
    with pytest.raises(DimensionMismatch):
        betweenness_centrality(rect)
    with pytest.raises(TypeError, match="graphblast.Matrix"):
        edge_betweenness_centrality(np.eye(3))
