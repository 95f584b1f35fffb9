"""triangle_count against exact counts from SciPy: sum(A .* A^2) / 6."""


import numpy as np
import pytest
import scipy.sparse as sp

import graphblast as gb
from graphblast.algorithms import triangle_count
from graphblast.exceptions import DimensionMismatch, InvalidValue


def to_matrix(M, device):
    M = sp.coo_array(M)
    return gb.Matrix.from_coo(M.row, M.col, M.data, nrows=M.shape[0], ncols=M.shape[1],
                              device=device)


def scipy_triangles(M):
    """Exact count of the undirected graph A or A', self-loops dropped, values ignored."""
    B = sp.csr_array(M, dtype=np.int64, copy=True)
    B.data[:] = 1
    B = sp.csr_array(((B + B.T) > 0).astype(np.int64))
    B.setdiag(0)
    B.eliminate_zeros()
    return int((B * (B @ B)).sum()) // 6


GAP_GRAPHS = [(kind, scale) for kind in ("kron", "urand") for scale in range(10, 15)]


@pytest.mark.parametrize("n, density", [(3, 1.0), (60, 0.2), (500, 0.03), (2000, 0.01)])
def test_random_undirected(device, rng, n, density):
    M = sp.random_array((n, n), density=density, rng=rng, format="coo")
    M = M + M.T
    count = triangle_count(to_matrix(M, device))
    assert type(count) is int
    assert count == scipy_triangles(M)


def test_directed_needs_symmetrize(device, rng):
    M = sp.random_array((300, 300), density=0.05, rng=rng, format="coo")
    A = to_matrix(M, device)
    with pytest.raises(InvalidValue, match="symmetrize=True"):
        triangle_count(A)
    assert triangle_count(A, symmetrize=True) == scipy_triangles(M)


def test_clique(device):
    n = 40
    M = sp.coo_array(np.ones((n, n)) - np.eye(n))
    assert triangle_count(to_matrix(M, device)) == n * (n - 1) * (n - 2) // 6


def test_edge_cases(device):
    assert triangle_count(gb.Matrix(bool, 0, 0, device=device)) == 0
    assert triangle_count(gb.Matrix(bool, 1, 1, device=device)) == 0
    assert triangle_count(gb.Matrix(float, 5, 5, device=device)) == 0
    # A triangle 0-1-2 whose edges include explicit zeros, with self-loops everywhere and an
    # isolated vertex 3: one triangle.
    rows = [0, 1, 1, 2, 0, 2, 0, 1, 2, 3]
    cols = [1, 0, 2, 1, 2, 0, 0, 1, 2, 3]
    vals = [0, 0, 1, 1, -1, -1, 5, 5, 5, 5]
    A = gb.Matrix.from_coo(rows, cols, vals, nrows=4, ncols=4, device=device)
    assert triangle_count(A) == 1
    # A self-loop alone does not make the structure unsymmetric.
    assert triangle_count(gb.Matrix.from_coo([2], [2], True, nrows=3, ncols=3,
                                             device=device)) == 0


def test_bad_arguments(device):
    with pytest.raises(DimensionMismatch):
        triangle_count(gb.Matrix(bool, 2, 3, device=device))
    with pytest.raises(TypeError, match="graphblast.Matrix"):
        triangle_count(sp.eye(3))
    with pytest.raises(TypeError, match="symmetrize must be True or False"):
        triangle_count(gb.Matrix(bool, 2, 2, device=device), symmetrize="yes")
    one_way = gb.Matrix.from_coo([0], [1], True, nrows=2, ncols=2, device=device)
    with pytest.raises(InvalidValue, match="not symmetric"):
        triangle_count(one_way)


@pytest.mark.parametrize("kind, scale", GAP_GRAPHS)
def test_gap_graphs(device, kind, scale, gap_graph):
    M, A = gap_graph(kind, scale, device)
    assert triangle_count(A) == scipy_triangles(M)
