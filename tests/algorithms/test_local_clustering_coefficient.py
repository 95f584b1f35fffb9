"""local_clustering_coefficient against LDBC's definition (a direct count) and NetworkX's
clustering on undirected graphs."""

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import local_clustering_coefficient
from graphblast.exceptions import DimensionMismatch


def ldbc_lcc(G):
    """LDBC Graphalytics' definition, counted directly."""
    out = np.zeros(len(G))
    for v in G:
        nbrs = (set(G.successors(v)) | set(G.predecessors(v))) - {v}
        k = len(nbrs)
        if k >= 2:
            out[v] = sum(1 for u in nbrs for w in G.successors(u)
                         if w in nbrs and w != u) / (k * (k - 1))
    return out


def lcc(A):
    v = local_clustering_coefficient(A)
    assert v.nvals == v.size and v.dtype == gb.dtypes.FP64
    return v.to_dense()


@pytest.mark.parametrize("name", ["CA-GrQc.txt", "facebook_combined.txt.gz"])
def test_real_undirected(device, real_graph, name):
    G, A = real_graph(name, False, device)
    ref = nx.clustering(G)
    np.testing.assert_allclose(lcc(A), [ref[v] for v in range(len(G))], rtol=1e-12)


@pytest.mark.parametrize("name", ["email-Eu-core.csv", "wiki-Vote.txt"])
def test_real_directed(device, real_graph, name):
    G, A = real_graph(name, True, device)
    np.testing.assert_allclose(lcc(A), ldbc_lcc(G), rtol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_generated(device, to_matrix, seed):
    G = nx.gnp_random_graph(150, 0.05, seed=seed, directed=True)
    np.testing.assert_allclose(lcc(to_matrix(G, device)), ldbc_lcc(G), rtol=1e-12)


def test_ldbc_example(device, data_dir):
    # LDBC's undirected example graph: a symmetric matrix, so LCC is NetworkX's clustering
    import scipy.io
    import scipy.sparse as sp

    M = sp.coo_array(scipy.io.mmread(f"{data_dir}/lagraph/ldbc-undirected-example.mtx"))
    A = gb.Matrix.from_coo(M.row, M.col, M.data, nrows=M.shape[0], ncols=M.shape[1],
                           device=device)
    G = nx.from_scipy_sparse_array(M)
    ref = nx.clustering(G)
    np.testing.assert_allclose(lcc(A), [ref[v] for v in range(len(G))], rtol=1e-12)


def test_edge_cases(device):
    assert local_clustering_coefficient(gb.Matrix(bool, 0, 0, device=device)).size == 0
    np.testing.assert_array_equal(lcc(gb.Matrix(bool, 3, 3, device=device)), [0, 0, 0])
    # 0 -> 1, 0 -> 2, 1 -> 2 and a self-loop on 0 (ignored): N(0) = {1, 2}, one edge of two
    A = gb.Matrix.from_coo([0, 0, 1, 0], [1, 2, 2, 0], 1, nrows=4, ncols=4, device=device)
    np.testing.assert_allclose(lcc(A), [0.5, 0.5, 0.5, 0.0])


def test_bad_arguments(device):
    with pytest.raises(DimensionMismatch):
        local_clustering_coefficient(gb.Matrix(bool, 2, 3, device=device))
    with pytest.raises(TypeError):
        local_clustering_coefficient([[0, 1], [1, 0]])


def test_degree_ordered(device, gap_graph):
    # kron-12's degrees are skewed enough for the degree order (triangle_count's rule): the
    # triangles are counted on the renumbered graph and scattered back to A's numbering
    from graphblast.algorithms.triangle_count import _degree_order

    M, A = gap_graph("kron", 12, device)
    assert _degree_order(A, A.nrows) is not None
    M = (M != 0).astype(np.float64)
    M.setdiag(0)
    M.eliminate_zeros()
    k = np.asarray(M.sum(axis=1)).ravel()
    closed = np.asarray((M @ M).multiply(M).sum(axis=1)).ravel()
    expected = np.divide(closed, k * (k - 1), out=np.zeros_like(k), where=k > 1)
    np.testing.assert_allclose(lcc(A), expected, rtol=1e-12)
