"""label_propagation against LDBC Graphalytics' CDLP definition, counted directly."""

from collections import Counter

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import label_propagation
from graphblast.exceptions import DimensionMismatch, InvalidValue


def ldbc_cdlp(G, rounds):
    """LDBC's CDLP: synchronous, in- and out-neighbours (a reciprocal one twice), the most
    frequent label, the smallest on a tie."""
    labels = list(range(len(G)))
    for _ in range(rounds):
        new = labels[:]
        for v in G:
            around = (list(G.successors(v)) + list(G.predecessors(v)) if G.is_directed()
                      else list(G[v]))
            if around:
                counts = Counter(labels[u] for u in around)
                top = max(counts.values())
                new[v] = min(label for label, c in counts.items() if c == top)
        labels = new
    return labels


def cdlp(A, rounds):
    v = label_propagation(A, rounds)
    assert v.nvals == v.size and v.dtype == gb.dtypes.INT64
    return v.to_dense().tolist()


@pytest.mark.parametrize("name, directed", [("CA-GrQc.txt", False), ("as20000102.txt", False),
                                            ("email-Eu-core.csv", True),
                                            ("p2p-Gnutella04.txt", True)])
def test_real(device, real_graph, name, directed):
    G, A = real_graph(name, directed, device)
    assert cdlp(A, 10) == ldbc_cdlp(G, 10)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rounds", [1, 2, 7])
def test_generated(device, to_matrix, seed, rounds):
    for G in (nx.gnp_random_graph(200, 0.03, seed=seed),
              nx.gnp_random_graph(200, 0.02, seed=seed, directed=True)):
        assert cdlp(to_matrix(G, device), rounds) == ldbc_cdlp(G, rounds)


def test_ldbc_example(device, data_dir):
    import scipy.io
    import scipy.sparse as sp

    M = sp.coo_array(scipy.io.mmread(f"{data_dir}/lagraph/ldbc-cdlp-undirected-example.mtx"))
    A = gb.Matrix.from_coo(M.row, M.col, M.data, nrows=M.shape[0], ncols=M.shape[1],
                           device=device)
    assert cdlp(A, 5) == ldbc_cdlp(nx.from_scipy_sparse_array(M), 5)


def test_edge_cases(device):
    assert label_propagation(gb.Matrix(bool, 0, 0, device=device), 3).size == 0
    assert cdlp(gb.Matrix(bool, 3, 3, device=device), 2) == [0, 1, 2]
    # a self-loop makes a vertex its own neighbour in both directions: 2 keeps its label
    A = gb.Matrix.from_coo([0, 1, 2, 2], [1, 0, 2, 0], 1, nrows=3, ncols=3, device=device)
    assert cdlp(A, 1) == [1, 0, 2]


def test_bad_arguments(device):
    A = gb.Matrix(bool, 2, 2, device=device)
    with pytest.raises(InvalidValue):
        label_propagation(A, 0)
    with pytest.raises(TypeError):
        label_propagation(A, 1.5)
    with pytest.raises(DimensionMismatch):
        label_propagation(gb.Matrix(bool, 2, 3, device=device), 1)


def test_row_argmax_both_ways(device, rng):
    # the integer keys (count * ncols - column) and the general four passes agree, ties to
    # the smallest column included
    from graphblast.algorithms import _rows

    rows, cols = rng.integers(0, 50, 600), rng.integers(0, 70, 600)
    C = gb.Matrix.from_coo(rows, cols, rng.integers(1, 4, 600), gb.dtypes.INT64, nrows=60,
                           ncols=70, dup_op=gb.binary.plus, device=device)
    fast, slow = _rows.argmax(C, bound=100), _rows.argmax(C)
    assert fast[0].isequal(slow[0]) and fast[1].isequal(slow[1])
    dense = C.to_dense(fill_value=0)
    have = dense.any(axis=1)
    np.testing.assert_array_equal(fast[0].to_coo()[0], np.flatnonzero(have))
    np.testing.assert_array_equal(fast[0].to_coo()[1], dense.argmax(axis=1)[have])


def test_row_argmax_of_floats_by_keys(device, rng):
    # floats with a bound: the one-pass keys find the general path's columns and maxima
    from graphblast.algorithms import _rows

    rows, cols = rng.integers(0, 80, 900), rng.integers(0, 90, 900)
    C = gb.Matrix.from_coo(rows, cols, rng.normal(size=900) * 100, nrows=80, ncols=90,
                           dup_op=gb.binary.plus, device=device)
    fast, slow = _rows.argmax(C, bound=1e4), _rows.argmax(C)
    assert fast[0].isequal(slow[0]) and fast[1].isequal(slow[1])
