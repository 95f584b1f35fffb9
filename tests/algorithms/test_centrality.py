"""hits, katz_centrality and eigenvector_centrality against NetworkX's."""

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import (
    ConvergenceFailure, eigenvector_centrality, hits, katz_centrality,
)
from graphblast.exceptions import DimensionMismatch, InvalidValue


def dense(v):
    assert v.nvals == v.size and v.dtype == gb.dtypes.FP64
    return v.to_dense()


def ordered(d):
    return np.array([d[v] for v in range(len(d))])


@pytest.mark.parametrize("name, directed", [("email-Eu-core.csv", True),
                                            ("wiki-Vote.txt", True), ("CA-GrQc.txt", False)])
def test_real(device, real_graph, name, directed):
    G, A = real_graph(name, directed, device)
    h, a = hits(A, max_iter=1000)
    rh, ra = nx.hits(G)
    np.testing.assert_allclose(dense(h), ordered(rh), atol=1e-7)
    np.testing.assert_allclose(dense(a), ordered(ra), atol=1e-7)
    np.testing.assert_allclose(dense(katz_centrality(A, alpha=0.005)),
                               ordered(nx.katz_centrality(G, alpha=0.005)), atol=1e-9)
    np.testing.assert_allclose(dense(eigenvector_centrality(A, max_iter=1000)),
                               ordered(nx.eigenvector_centrality(G, max_iter=1000)),
                               atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_generated_weighted(device, to_matrix, seed):
    G = nx.gnp_random_graph(120, 0.05, seed=seed, directed=True)
    rng = np.random.default_rng(seed)
    for u, v in G.edges():
        G[u][v]["weight"] = rng.uniform(0.5, 2.0)
    A = to_matrix(G, device, weight="weight")
    np.testing.assert_allclose(
        dense(katz_centrality(A, alpha=0.02, weighted=True)),
        ordered(nx.katz_centrality(G, alpha=0.02, weight="weight")), atol=1e-9)
    np.testing.assert_allclose(
        dense(eigenvector_centrality(A, max_iter=1000, weighted=True)),
        ordered(nx.eigenvector_centrality(G, max_iter=1000, weight="weight")), atol=1e-9)
    h, a = hits(A, max_iter=2000, normalized=False)
    rh, ra = nx.hits(G, normalized=False)
    np.testing.assert_allclose(dense(a), np.abs(ordered(ra)), atol=1e-7)
    np.testing.assert_allclose(dense(h), np.abs(ordered(rh)), atol=1e-7)


def test_options(device, to_matrix):
    G = nx.Graph(nx.karate_club_graph().edges())  # unweighted, as A
    A = to_matrix(G, device)
    beta = {v: 1.0 + v / 34 for v in G}
    got = katz_centrality(A, beta=gb.Vector.from_dense(ordered(beta), device=device),
                          normalized=False)
    np.testing.assert_allclose(dense(got), ordered(nx.katz_centrality(
        G, beta=beta, normalized=False)), atol=1e-9)
    start = {v: 1.0 + (v % 3) for v in G}
    got = eigenvector_centrality(A, nstart=gb.Vector.from_dense(ordered(start),
                                                                device=device))
    np.testing.assert_allclose(dense(got), ordered(nx.eigenvector_centrality(
        G, nstart=start)), atol=1e-6)
    h, _ = hits(A, nstart=gb.Vector.from_dense(ordered(start), device=device))
    np.testing.assert_allclose(dense(h), ordered(nx.hits(G)[0]), atol=1e-7)


def test_edge_cases(device):
    empty = gb.Matrix(bool, 0, 0, device=device)
    assert [v.size for v in hits(empty)] == [0, 0]
    assert katz_centrality(empty).size == 0 and eigenvector_centrality(empty).size == 0
    # no edges: Katz is beta everywhere (normalized), eigenvector uniform
    none = gb.Matrix(bool, 4, 4, device=device)
    np.testing.assert_allclose(dense(katz_centrality(none)), [0.5] * 4)
    np.testing.assert_allclose(dense(eigenvector_centrality(none)), [0.5] * 4)
    # a self-loop is an ordinary edge, as in NetworkX
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 0)])
    A = gb.Matrix.from_coo([0, 1, 2, 0], [1, 2, 0, 0], True, nrows=3, ncols=3, device=device)
    np.testing.assert_allclose(dense(katz_centrality(A)), ordered(nx.katz_centrality(G)),
                               atol=1e-9)


def test_convergence_and_bad_arguments(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], True, nrows=2, ncols=2, device=device)
    with pytest.raises(ConvergenceFailure, match="katz_centrality did not converge"):
        katz_centrality(A, alpha=1.5, max_iter=20)
    with pytest.raises(ConvergenceFailure):
        eigenvector_centrality(gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], True, nrows=3,
                                                  ncols=3, device=device),
                               nstart=gb.Vector.from_dense([1.0, 0, 0], device=device),
                               max_iter=3)
    with pytest.raises(InvalidValue, match="all zero"):
        eigenvector_centrality(A, nstart=gb.Vector.from_dense([0.0, 0.0], device=device))
    with pytest.raises(DimensionMismatch, match="nstart"):
        hits(A, nstart=gb.Vector.from_dense([1.0], device=device))
    with pytest.raises(InvalidValue):
        hits(A, max_iter=0)
    with pytest.raises(TypeError):
        katz_centrality(A, weighted=1)
