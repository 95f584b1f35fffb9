"""core_number against NetworkX's on real and generated graphs, directed and undirected."""

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import core_number
from graphblast.exceptions import DimensionMismatch


def values(v):
    assert v.nvals == v.size and v.dtype == gb.dtypes.INT64
    return v.to_dense()


def expected(G):
    ref = nx.core_number(G)
    return np.array([ref[v] for v in range(len(G))])


@pytest.mark.parametrize("name", ["CA-GrQc.txt", "facebook_combined.txt.gz",
                                  "as20000102.txt"])
def test_real_undirected(device, real_graph, name):
    G, A = real_graph(name, False, device)
    np.testing.assert_array_equal(values(core_number(A)), expected(G))


@pytest.mark.parametrize("name", ["email-Eu-core.csv", "wiki-Vote.txt"])
def test_real_directed(device, real_graph, name):
    G, A = real_graph(name, True, device)
    # NetworkX's directed convention: in- plus out-degree, reciprocal neighbours twice
    np.testing.assert_array_equal(values(core_number(A, directed=True)), expected(G))
    np.testing.assert_array_equal(values(core_number(A)), expected(G.to_undirected()))


@pytest.mark.parametrize("seed", range(4))
def test_generated(device, to_matrix, seed):
    for G in (nx.gnp_random_graph(300, 0.03, seed=seed),
              nx.gnp_random_graph(200, 0.03, seed=seed, directed=True),
              nx.barabasi_albert_graph(300, 3, seed=seed)):
        A = to_matrix(G, device)
        np.testing.assert_array_equal(values(core_number(A, directed=G.is_directed())),
                                      expected(G))


def test_edge_cases(device):
    assert core_number(gb.Matrix(bool, 0, 0, device=device)).size == 0
    np.testing.assert_array_equal(values(core_number(gb.Matrix(bool, 3, 3, device=device))),
                                  [0, 0, 0])
    # a triangle with a self-loop on 0 and an isolated vertex 3: the self-loop is ignored
    A = gb.Matrix.from_coo([0, 0, 1, 1, 2, 2, 0], [1, 2, 0, 2, 0, 1, 0], 1.0, nrows=4,
                           ncols=4, device=device)
    np.testing.assert_array_equal(values(core_number(A)), [2, 2, 2, 0])


def test_bad_arguments(device):
    with pytest.raises(TypeError, match="graphblast.Matrix"):
        core_number(np.eye(3))
    with pytest.raises(DimensionMismatch):
        core_number(gb.Matrix(bool, 2, 3, device=device))
    with pytest.raises(TypeError, match="directed"):
        core_number(gb.Matrix(bool, 2, 2, device=device), directed="yes")
