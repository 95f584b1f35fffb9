"""k_truss against NetworkX's k_truss: the same edges, and the support of each."""

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import k_truss
from graphblast.exceptions import DimensionMismatch, InvalidValue


def check(G, C, k):
    H = nx.k_truss(G, k)
    rows, cols, support = (np.asarray(x) for x in C.to_coo())
    assert set(zip(rows.tolist(), cols.tolist())) == {(u, v) for e in H.edges()
                                                     for u, v in (e, e[::-1])}
    # the support of an edge is its number of triangles inside the truss
    for u, v, s in zip(rows[:200], cols[:200], support[:200]):
        assert s == len(set(H[u]) & set(H[v]))


@pytest.mark.parametrize("name", ["CA-GrQc.txt", "as20000102.txt"])
@pytest.mark.parametrize("k", [3, 5, 8])
def test_real(device, real_graph, name, k):
    G, A = real_graph(name, False, device)
    check(G, k_truss(A, k), k)


@pytest.mark.parametrize("seed", range(3))
def test_generated(device, to_matrix, seed):
    G = nx.gnp_random_graph(200, 0.08, seed=seed)
    for k in (1, 2, 3, 4, 5, 6):
        check(G, k_truss(to_matrix(G, device), k), k)


def test_directed_input(device, to_matrix):
    D = nx.gnp_random_graph(100, 0.1, seed=5, directed=True)
    A = to_matrix(D, device)
    with pytest.raises(InvalidValue, match="symmetrize=True"):
        k_truss(A, 3)
    check(D.to_undirected(), k_truss(A, 3, symmetrize=True), 3)


def test_edge_cases(device):
    assert k_truss(gb.Matrix(bool, 0, 0, device=device), 3).nvals == 0
    # a triangle with a pendant edge 2-3 and a self-loop on 0
    A = gb.Matrix.from_coo([0, 1, 0, 2, 1, 2, 2, 3, 0], [1, 0, 2, 0, 2, 1, 3, 2, 0], True,
                           nrows=5, ncols=5, device=device)
    assert k_truss(A, 3).to_dicts() == {0: {1: 1, 2: 1}, 1: {0: 1, 2: 1}, 2: {0: 1, 1: 1}}
    two = k_truss(A, 2)
    assert two.nvals == 8 and two.get(2, 3) == 0
    assert k_truss(A, 4).nvals == 0


def test_bad_arguments(device):
    A = gb.Matrix(bool, 2, 2, device=device)
    with pytest.raises(TypeError, match="k must be an integer"):
        k_truss(A, 2.5)
    with pytest.raises(InvalidValue, match="at least 1"):
        k_truss(A, 0)
    with pytest.raises(DimensionMismatch):
        k_truss(gb.Matrix(bool, 2, 3, device=device), 3)


@pytest.mark.parametrize("k", [3, 6, 12])
def test_many_rounds(device, gap_graph, k):
    # kron-12 peels over several rounds; the supports, updated by the triangles each round
    # breaks, equal a recount on the final truss (LAGraph's loop in SciPy)
    M, A = gap_graph("kron", 12, device)
    C = (M != 0).astype(np.int64)
    C.setdiag(0)
    C.eliminate_zeros()
    while True:
        S = (C @ C).multiply(C).tocsr()
        S.data[S.data < k - 2] = 0
        S.eliminate_zeros()
        if S.nnz == C.nnz:
            break
        C = (S != 0).astype(np.int64)
    rows, cols, support = (np.asarray(x) for x in k_truss(A, k).to_coo())
    expected = S.tocoo()
    order = np.lexsort((expected.col, expected.row))
    np.testing.assert_array_equal(rows, expected.row[order])
    np.testing.assert_array_equal(cols, expected.col[order])
    np.testing.assert_array_equal(support, expected.data[order])
