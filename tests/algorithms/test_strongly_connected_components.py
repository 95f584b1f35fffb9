"""strongly_connected_components against NetworkX's and SciPy's, each component labelled by
its smallest vertex id."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_components

import graphblast as gb
from graphblast.algorithms import strongly_connected_components as scc
from graphblast.exceptions import DimensionMismatch


def labels(A):
    v = scc(A)
    assert v.nvals == v.size and v.dtype == gb.dtypes.INT64
    return v.to_dense()


def smallest_member(comp):
    n = comp.size
    smallest = np.full(n, n)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]


def scipy_labels(A):
    rows, cols, _ = A.to_coo()
    M = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=A.shape)
    return smallest_member(scipy_components(M, directed=True, connection="strong")[1])


@pytest.mark.parametrize("name", ["email-Eu-core.csv", "wiki-Vote.txt", "p2p-Gnutella04.txt"])
def test_real(device, real_graph, name):
    G, A = real_graph(name, True, device)
    expected = np.empty(len(G), dtype=np.int64)
    for component in nx.strongly_connected_components(G):
        expected[list(component)] = min(component)
    np.testing.assert_array_equal(labels(A), expected)


@pytest.mark.parametrize("n, degree", [(50, 0.8), (500, 1.0), (500, 1.5), (2000, 3.0)])
def test_random(device, rng, n, degree):
    M = sp.random_array((n, n), density=degree / n, rng=rng, format="coo")
    A = gb.Matrix.from_coo(M.row, M.col, True, nrows=n, ncols=n, device=device)
    np.testing.assert_array_equal(labels(A), scipy_labels(A))


def test_cycles_paths_and_undirected(device, rng):
    n = 40
    order = rng.permutation(n)
    cycle = gb.Matrix.from_coo(order, np.roll(order, 1), True, nrows=n, ncols=n, device=device)
    np.testing.assert_array_equal(labels(cycle), np.zeros(n))
    path = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), True, nrows=n, ncols=n,
                              device=device)
    np.testing.assert_array_equal(labels(path), np.arange(n))
    both = path.ewise_add(path.T, gb.binary.lor).new()    # an undirected path: one component
    np.testing.assert_array_equal(labels(both), np.zeros(n))


def test_edge_cases(device):
    assert scc(gb.Matrix(bool, 0, 0, device=device)).size == 0
    np.testing.assert_array_equal(labels(gb.Matrix(bool, 3, 3, device=device)), [0, 1, 2])
    # self-loops change nothing: 1 <-> 2 is a component, 0 (with a loop) and 3 alone
    A = gb.Matrix.from_coo([0, 1, 2, 0], [0, 2, 1, 1], True, nrows=4, ncols=4, device=device)
    np.testing.assert_array_equal(labels(A), [0, 1, 1, 3])


def test_bad_arguments(device):
    with pytest.raises(DimensionMismatch):
        scc(gb.Matrix(bool, 2, 3, device=device))
    with pytest.raises(TypeError):
        scc(np.eye(2))


@pytest.mark.parametrize("side", [2, 9, 24])
def test_trimmed_dags(device, rng, side):
    # a grid with every edge one way (rightward and downward) is a DAG: trimming, repeated
    # to its fixpoint, places every vertex alone; a few edges back make cycles of many sizes
    n = side * side
    right = [(v, v + 1) for v in range(n) if v % side < side - 1]
    down = [(v, v + side) for v in range(n - side)]
    rows, cols = (np.array(x) for x in zip(*(right + down)))
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, device=device)
    np.testing.assert_array_equal(labels(A), np.arange(n))
    back = rng.integers(0, n, size=(2, side))
    rows, cols = np.concatenate([rows, back[0]]), np.concatenate([cols, back[1]])
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, device=device)
    np.testing.assert_array_equal(labels(A), scipy_labels(A))


def test_chain_of_cycles(device):
    # 0 <-> 1 -> 2 <-> 3 -> ...: nothing trims, each round places one 2-cycle
    n = 30
    a = np.arange(0, n, 2)
    rows = np.concatenate([a, a + 1, a[:-1] + 1])
    cols = np.concatenate([a + 1, a, a[1:]])
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, device=device)
    np.testing.assert_array_equal(labels(A), np.repeat(a, 2))
