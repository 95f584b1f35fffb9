"""connected_components against SciPy's (weak) components, relabelled by smallest member."""


import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_components

import graphblast as gb
from graphblast.algorithms import connected_components
from graphblast.dtypes import INT64
from graphblast.exceptions import DimensionMismatch


def to_matrix(M, device):
    M = sp.coo_array(M)
    return gb.Matrix.from_coo(M.row, M.col, M.data, nrows=M.shape[0], ncols=M.shape[1],
                              device=device)


def smallest_member_labels(M):
    """SciPy's weakly connected components, each labelled by its smallest vertex id."""
    n = M.shape[0]
    _, comp = scipy_components(sp.csr_array(M), directed=True, connection="weak")
    smallest = np.full(n, n)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp]


def labels_of(v):
    idx, vals = v.to_coo()
    assert v.dtype == INT64 and v.nvals == v.size
    np.testing.assert_array_equal(np.asarray(idx), np.arange(v.size))
    return np.asarray(vals)


GAP_GRAPHS = [(kind, scale) for kind in ("kron", "urand") for scale in range(10, 15)]


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("n, degree", [(1, 1.0), (50, 0.5), (400, 1.0), (3000, 1.2),
                                       (3000, 4.0)])
def test_random_graphs(device, rng, n, degree, directed):
    # Average degrees around 1 give many components of every size, the hard case for hooking.
    M = sp.random_array((n, n), density=min(1.0, degree / n), rng=rng, format="coo")
    if not directed:
        M = M + M.T
    labels = labels_of(connected_components(to_matrix(M, device)))
    np.testing.assert_array_equal(labels, smallest_member_labels(M))


@pytest.mark.parametrize("n", [2, 7, 1000])
def test_paths_and_a_permuted_path(device, rng, n):
    # A path visited in random order: long chains of parents for FastSV to shortcut.
    for order in (np.arange(n), rng.permutation(n)):
        M = sp.coo_array((np.ones(n - 1), (order[:-1], order[1:])), shape=(n, n))
        labels = labels_of(connected_components(to_matrix(M, device)))
        np.testing.assert_array_equal(labels, np.zeros(n, dtype=np.int64))


def test_directed_input_gives_weak_components(device):
    # 0 -> 1 <- 2 is weakly connected although 0 and 2 reach nothing in common.
    A = gb.Matrix.from_coo([0, 2, 4], [1, 1, 3], True, nrows=5, ncols=5, device=device)
    np.testing.assert_array_equal(labels_of(connected_components(A)), [0, 0, 0, 3, 3])


def test_edge_cases(device):
    empty = connected_components(gb.Matrix(bool, 0, 0, device=device))
    assert empty.size == 0 and empty.nvals == 0
    np.testing.assert_array_equal(labels_of(connected_components(
        gb.Matrix(bool, 1, 1, device=device))), [0])
    np.testing.assert_array_equal(labels_of(connected_components(
        gb.Matrix(float, 4, 4, device=device))), [0, 1, 2, 3])
    # Self-loops join nothing; explicit zeros and duplicates are ordinary edges.
    A = gb.Matrix.from_coo([0, 1, 3, 3, 2], [0, 1, 2, 2, 2], [1.0, 1.0, 0.0, 0.0, 1.0],
                           nrows=4, ncols=4, dup_op=gb.binary.plus, device=device)
    np.testing.assert_array_equal(labels_of(connected_components(A)), [0, 1, 2, 2])


def test_bad_arguments(device):
    with pytest.raises(DimensionMismatch):
        connected_components(gb.Matrix(bool, 3, 2, device=device))
    with pytest.raises(TypeError, match="graphblast.Matrix"):
        connected_components([[0, 1], [1, 0]])


@pytest.mark.parametrize("kind, scale", GAP_GRAPHS)
def test_gap_graphs(device, kind, scale, gap_graph):
    M, A = gap_graph(kind, scale, device)
    np.testing.assert_array_equal(labels_of(connected_components(A)),
                                  smallest_member_labels(M))


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("n, degree", [(2000, 1.0), (2000, 3.0), (500, 12.0), (3000, 0.6)])
def test_sampling_phase(device, rng, monkeypatch, n, degree, directed):
    """The rounds that skip the largest component's inner edges, forced on small graphs (after
    rounds on every edge or on a sample) with many components of every size and a giant
    one."""
    import importlib

    cc = importlib.import_module("graphblast.algorithms.connected_components")

    monkeypatch.setattr(cc, "SAMPLE_MIN_VERTICES", 0)
    monkeypatch.setattr(cc, "SAMPLE_MIN_DEGREE", 0)
    # every edge in the first rounds, then a sampled eighth (the large graphs' path: any
    # subset of the edges must give the same labels), then a sample of no edge at all
    for rounds, min_edges, share in ((1, np.inf, 8), (2, np.inf, 8), (2, 0, 8), (1, 0, 8),
                                     (2, 0, 2 * n)):
        monkeypatch.setattr(cc, "SAMPLE_ROUNDS", rounds)
        monkeypatch.setattr(cc, "SAMPLE_MIN_EDGES", min_edges)
        monkeypatch.setattr(cc, "SAMPLE_SHARE", share)
        M = sp.random_array((n, n), density=min(1.0, degree / n), rng=rng, format="coo")
        perm = rng.permutation(n)
        M = sp.coo_array((M.data, (perm[M.row], perm[M.col])), shape=(n, n))
        if not directed:
            M = M + M.T
        labels = labels_of(connected_components(to_matrix(M, device)))
        np.testing.assert_array_equal(labels, smallest_member_labels(M))
