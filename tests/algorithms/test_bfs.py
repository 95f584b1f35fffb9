"""bfs against SciPy's unweighted shortest paths, parents by the Graph500 validity rules."""


import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import graphblast as gb
from graphblast.algorithms import bfs
from graphblast.dtypes import INT64
from graphblast.exceptions import DimensionMismatch, IndexOutOfBound


def to_matrix(M, device):
    """A graphblast Matrix with the entries of the SciPy matrix ``M`` (explicit zeros kept)."""
    M = sp.coo_array(M)
    return gb.Matrix.from_coo(M.row, M.col, M.data, nrows=M.shape[0], ncols=M.shape[1],
                              device=device)


def random_graph(rng, n, density, *, directed):
    """A random SciPy graph without duplicate entries; symmetric unless ``directed``."""
    M = sp.random_array((n, n), density=density, rng=rng, format="coo")
    if not directed:
        M = M + M.T
    return sp.csr_array(M)


def levels_oracle(M, source):
    """BFS levels by SciPy: unweighted shortest-path lengths, -1 where unreachable."""
    dist = shortest_path(sp.csr_array(M), unweighted=True, directed=True, indices=source)
    return np.where(np.isinf(dist), -1, dist).astype(np.int64)


def dense(v, fill=-1):
    """A Vector as a NumPy array with ``fill`` where it has no entry."""
    idx, vals = v.to_coo()
    out = np.full(v.size, fill, dtype=np.int64)
    out[np.asarray(idx)] = np.asarray(vals)
    return out


def check_parents(M, source, levels, parents):
    """The Graph500 rules for a BFS tree, vectorized.

    The source is its own parent at level 0; the tree reaches exactly the reached vertices;
    every other reached vertex's parent is an in-neighbour one level up; every edge out of a
    reached vertex leads to a reached vertex at most one level further.
    """
    M = sp.coo_array(M)
    assert parents[source] == source and levels[source] == 0
    reached = levels >= 0
    np.testing.assert_array_equal(parents >= 0, reached)
    others = np.flatnonzero(reached & (np.arange(len(levels)) != source))
    edge_ids = M.row.astype(np.int64) * len(levels) + M.col
    tree_ids = parents[others] * len(levels) + others
    assert np.isin(tree_ids, edge_ids).all(), "a parent link is not an edge of the graph"
    np.testing.assert_array_equal(levels[parents[others]], levels[others] - 1)
    from_reached = reached[M.row]
    assert reached[M.col[from_reached]].all()
    assert (levels[M.col[from_reached]] <= levels[M.row[from_reached]] + 1).all()
    # graphblast picks the smallest eligible parent (min.first), the same on every device.
    up = np.flatnonzero(from_reached & (levels[M.col] == levels[M.row] + 1))
    smallest = np.full(len(levels), np.iinfo(np.int64).max)
    np.minimum.at(smallest, M.col[up], M.row[up])
    np.testing.assert_array_equal(parents[others], smallest[others])


GAP_GRAPHS = [(kind, scale) for kind in ("kron", "urand") for scale in range(10, 15)]


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("n, density", [(1, 1.0), (30, 0.05), (300, 0.006), (2000, 0.002)])
def test_random_graphs(device, rng, n, density, directed):
    M = random_graph(rng, n, density, directed=directed)
    A = to_matrix(M, device)
    for source in rng.choice(n, size=min(n, 3), replace=False):
        levels = bfs(A, source)
        assert levels.dtype == INT64
        expected = levels_oracle(M, source)
        np.testing.assert_array_equal(dense(levels), expected)
        levels2, parents = bfs(A, int(source), parents=True)
        assert parents.dtype == INT64
        assert levels2.isequal(levels)
        check_parents(M, source, dense(levels2), dense(parents))


def test_weights_and_explicit_zeros_are_edges(device):
    # 0 -> 1 stored as an explicit zero, 1 -> 2 with a negative value: both are edges.
    A = gb.Matrix.from_coo([0, 1], [1, 2], [0.0, -5.0], nrows=4, ncols=4, device=device)
    levels, parents = bfs(A, 0, parents=True)
    np.testing.assert_array_equal(dense(levels), [0, 1, 2, -1])
    np.testing.assert_array_equal(dense(parents), [0, 0, 1, -1])


def test_direction_is_row_to_column(device):
    A = gb.Matrix.from_coo([1], [0], True, nrows=2, ncols=2, device=device)  # edge 1 -> 0
    np.testing.assert_array_equal(dense(bfs(A, 0)), [0, -1])
    np.testing.assert_array_equal(dense(bfs(A, 1)), [1, 0])


def test_edge_cases(device):
    one = gb.Matrix(bool, 1, 1, device=device)
    levels, parents = bfs(one, 0, parents=True)
    assert dense(levels).tolist() == [0] and dense(parents).tolist() == [0]
    loops = gb.Matrix.from_coo([0, 1, 1], [0, 1, 2], True, nrows=4, ncols=4, device=device)
    np.testing.assert_array_equal(dense(bfs(loops, 0)), [0, -1, -1, -1])
    np.testing.assert_array_equal(dense(bfs(loops, 1)), [-1, 0, 1, -1])
    dups = gb.Matrix.from_coo([0, 0, 1], [1, 1, 2], [1, 2, 3], nrows=3, ncols=3,
                              dup_op=gb.binary.plus, device=device)
    np.testing.assert_array_equal(dense(bfs(dups, 0)), [0, 1, 2])
    isolated = gb.Matrix(float, 5, 5, device=device)
    levels = bfs(isolated, np.int32(3))
    assert levels.nvals == 1 and dense(levels)[3] == 0


def test_bad_arguments(device):
    A = gb.Matrix.from_coo([0], [1], True, nrows=3, ncols=3, device=device)
    for bad in (3, -1, 10**20):
        with pytest.raises(IndexOutOfBound, match="0 <= source < 3"):
            bfs(A, bad)
    for bad in (1.0, True, np.True_, "0", None):
        with pytest.raises(TypeError, match="source must be an integer"):
            bfs(A, bad)
    with pytest.raises(IndexOutOfBound, match="no vertices"):
        bfs(gb.Matrix(bool, 0, 0, device=device), 0)
    with pytest.raises(DimensionMismatch, match="square"):
        bfs(gb.Matrix(bool, 3, 4, device=device), 0)
    with pytest.raises(TypeError, match="graphblast.Matrix"):
        bfs(sp.eye(3, format="csr"), 0)
    with pytest.raises(TypeError, match=r"A.T.new\(\)"):
        bfs(A.T, 0)
    with pytest.raises(TypeError, match="parents must be True or False"):
        bfs(A, 0, parents="yes")


@pytest.mark.parametrize("kind, scale", GAP_GRAPHS)
def test_gap_graphs(device, rng, kind, scale, gap_graph):
    M, A = gap_graph(kind, scale, device)
    hub = int(np.argmax(np.diff(M.indptr)))
    for source in (hub, int(rng.integers(A.nrows))):
        levels, parents = bfs(A, source, parents=True)
        np.testing.assert_array_equal(dense(levels), levels_oracle(M, source))
        check_parents(M, source, dense(levels), dense(parents))
