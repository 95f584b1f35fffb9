"""A matrix known to be symmetric is its own transpose (graphblast's extension), and
memory_usage reports what an object occupies on its device, caches included."""

import numpy as np
import pytest
import scipy.sparse as sp

import graphblast as gb
from graphblast import generators


def _dense(M):
    r, c, v = M.to_coo()
    return sp.csr_array((v.astype(np.float64), (r.astype(np.int64), c.astype(np.int64))),
                        shape=M.shape).toarray()


@pytest.mark.parametrize("make", [
    lambda d: generators.kron(8, device=d),
    lambda d: generators.urand(8, weighted=True, device=d),
    lambda d: generators.graph500(8, seed=3, device=d),
    lambda d: generators.rgg(500, seed=2, device=d),
    lambda d: generators.grid2d(6, 7, weights="random", seed=1, device=d),
    lambda d: generators.erdos_renyi(300, m=900, seed=4, device=d),
], ids=["kron", "urand-weighted", "graph500", "rgg", "grid-weighted", "erdos-renyi"])
def test_generated_undirected_graphs_are_their_own_transpose(device, make):
    A = make(device)
    assert A.is_symmetric and A.T.is_symmetric
    D = _dense(A)
    np.testing.assert_array_equal(D, D.T)
    T = A.T.new()
    assert T.isequal(A)
    assert A._backend.transpose(A._data) is A._data  # no second copy


def test_directed_and_general_matrices_are_not_known_symmetric(device, data_dir):
    assert not generators.erdos_renyi(200, m=500, directed=True, seed=1,
                                      device=device).is_symmetric
    assert not gb.io.mmread(f"{data_dir}/lagraph/west0067.mtx", device=device).is_symmetric
    assert not gb.io.mmread(f"{data_dir}/lagraph/skew_fp64.mtx", device=device).is_symmetric
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0], nrows=2, ncols=2, device=device)
    assert not A.is_symmetric  # symmetric, but nothing said so: no check is made
    B = generators.kron(6, device=device)
    assert not B.apply(gb.unary.one[gb.dtypes.INT64]).new().is_symmetric  # a new matrix


@pytest.mark.parametrize("name", ["karate.mtx", "bcsstk13.mtx", "jagmesh7.mtx"])
def test_symmetric_matrix_market_files(device, data_dir, name):
    A = gb.io.mmread(f"{data_dir}/lagraph/{name}", device=device)
    assert A.is_symmetric
    D = _dense(A)
    np.testing.assert_array_equal(D, D.T)
    assert A.T.new().isequal(A)


def test_memory_usage(device):
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=3, ncols=3,
                           device=device)
    own = A.memory_usage()
    assert own == 4 * 8 + 3 * 8 + 3 * 8  # indptr, int64 indices, FP64 values
    A.T.new()  # caches the transpose
    assert A.memory_usage() >= 2 * own
    K = generators.kron(8, device=device)
    before = K.memory_usage()
    K.T.new()
    assert K.memory_usage() == before  # its own transpose
    v = gb.Vector.from_coo([1, 4], [1, 2], gb.dtypes.INT32, size=10, device=device)
    assert v.memory_usage() == 2 * 8 + 2 * 4
