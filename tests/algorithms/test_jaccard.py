"""jaccard against NetworkX's jaccard_coefficient."""

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import jaccard
from graphblast.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue


def check(G, A, pairs):
    u, v = zip(*pairs) if pairs else ((), ())
    got = jaccard(A, u, v)
    assert got.nvals == got.size == len(pairs)
    ref = [p for _, _, p in nx.jaccard_coefficient(G, pairs)]
    np.testing.assert_allclose(got.to_dense(), ref, rtol=1e-12)


@pytest.mark.parametrize("name", ["CA-GrQc.txt", "facebook_combined.txt.gz"])
def test_real(device, real_graph, rng, name):
    G, A = real_graph(name, False, device, loops=True)
    n = len(G)
    pairs = list(zip(rng.integers(0, n, 3000).tolist(), rng.integers(0, n, 3000).tolist()))
    pairs += list(G.edges())[:2000]
    check(G, A, pairs)


def test_generated_and_edge_cases(device, to_matrix):
    G = nx.gnp_random_graph(80, 0.1, seed=3)
    G.add_edge(5, 5)                       # a self-loop: 5 is its own neighbour
    G.add_node(80)                          # isolated: similarity 0 with everyone
    A = to_matrix(G, device)
    check(G, A, list(nx.non_edges(G)) + [(5, 5), (80, 80), (80, 3)])
    check(G, A, [])
    assert jaccard(gb.Matrix(bool, 0, 0, device=device), [], []).size == 0


def test_bad_arguments(device):
    A = gb.Matrix(bool, 3, 3, device=device)
    with pytest.raises(InvalidValue, match="same length"):
        jaccard(A, [0, 1], [1])
    with pytest.raises(IndexOutOfBound):
        jaccard(A, [0], [3])
    with pytest.raises(DimensionMismatch):
        jaccard(gb.Matrix(bool, 2, 3, device=device), [0], [1])
