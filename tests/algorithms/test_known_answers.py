"""The known answers of tests/data/README.md, and oracle checks on those real graphs.

Counting rules (the manifest's): a stored entry is an edge, an explicit zero included; graphs
are made undirected (A or A') for triangles and components; self-loops are dropped for
triangles; edge-list vertex ids are renumbered 0..n-1 in sorted order (their ids have gaps).
"""

import os

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.io import mmread
from scipy.sparse.csgraph import NegativeCycleError, bellman_ford, dijkstra, shortest_path

import graphblast as gb
from graphblast.algorithms import (
    NegativeCycle, bfs, connected_components, pagerank, sssp, triangle_count,
)
from graphblast.exceptions import InvalidValue

# file: (triangles, components), from the manifest's lagraph/ table.
LAGRAPH = {
    "karate.mtx": (45, 1),
    "A.mtx": (11, 1),
    "jagmesh7.mtx": (2016, 1),
    "bcsstk13.mtx": (342300, 1),
    "zenios.mtx": (63103, 1391),
    "LFAT5.mtx": (0, 3),
    "LFAT5_two.mtx": (0, 6),
    "LFAT5_hypersparse.mtx": (0, 1989),
    "tree-example.mtx": (0, 1),
    "ldbc-undirected-example.mtx": (4, 1),
    "ldbc-cdlp-undirected-example.mtx": (6, 1),
    "ldbc-wcc-example.mtx": (5, 1),
}

# file: (lines to skip, vertices, edges, triangles, components), from the real/ table.  Edges
# count undirected pairs without self-loops for the undirected graphs, arcs for the directed
# ones (marked by a negative count: -arcs); None where the manifest gives no figure.
REAL = {
    "facebook_combined.txt.gz": (0, 4039, 88234, 1612010, 1),
    "wiki-Vote.txt": (0, 7115, -103689, 608389, 24),
    "CA-GrQc.txt": (1, 5242, 14484, 48260, 355),
    "p2p-Gnutella04.txt": (1, 10876, -39994, 934, None),
    "as20000102.txt": (0, 6474, 12572, 6584, None),
    "email-Eu-core.csv": (0, 1005, -25571, None, 20),
    "luxembourg_osm.edges": (0, 114599, 119666, None, 1),
    "delaunay_n16.edges": (0, 65536, 196575, None, 1),
}


def read_mtx(path, device):
    """A .mtx file as (SciPy COO, graphblast Matrix), explicit zeros kept."""
    M = sp.coo_array(mmread(path))
    A = gb.Matrix.from_coo(M.row, M.col, M.data, nrows=M.shape[0], ncols=M.shape[1],
                           device=device)
    return M, A


def read_edge_list(path, skip):
    """Arcs of a SNAP/DIMACS-style edge list, ids renumbered 0..n-1; returns (rows, cols, n).

    NumPy's reader copes with every format of real/: '#' comments, tabs or spaces, gzip, and
    a trailing weight column (ignored).  ``skip`` drops a first line that holds counts.
    """
    arcs = np.loadtxt(path, dtype=np.int64, comments="#", skiprows=skip, usecols=(0, 1),
                      ndmin=2)
    ids, renumbered = np.unique(arcs, return_inverse=True)
    renumbered = renumbered.reshape(arcs.shape)
    return renumbered[:, 0], renumbered[:, 1], len(ids)


def dense(v, fill=np.inf):
    """A Vector as a float array with ``fill`` where it has no entry."""
    idx, vals = v.to_coo()
    out = np.full(v.size, fill)
    out[np.asarray(idx)] = np.asarray(vals)
    return out


def count_components(labels):
    idx, vals = labels.to_coo()
    return int(np.count_nonzero(np.asarray(vals) == np.asarray(idx)))


@pytest.mark.parametrize("name", sorted(LAGRAPH))
def test_lagraph_counts(device, data_dir, name):
    triangles, components = LAGRAPH[name]
    _, A = read_mtx(os.path.join(data_dir, "lagraph", name), device)
    assert triangle_count(A) == triangles
    assert count_components(connected_components(A)) == components


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_graph_counts(device, data_dir, name):
    skip, vertices, edges, triangles, components = REAL[name]
    rows, cols, n = read_edge_list(os.path.join(data_dir, "real", name), skip)
    assert n == vertices
    keys = np.unique(rows * n + cols)
    rows, cols = keys // n, keys % n
    if edges < 0:
        assert len(keys) == -edges
    else:
        loops = rows == cols
        both = np.unique(np.concatenate([keys[~loops], cols[~loops] * n + rows[~loops]]))
        assert len(both) == 2 * edges
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, device=device)
    if triangles is not None:
        assert triangle_count(A, symmetrize=True) == triangles
    labels = connected_components(A)
    if components is not None:
        assert count_components(labels) == components
    if name == "CA-GrQc.txt":
        sizes = np.bincount(np.asarray(labels.to_coo()[1]), minlength=n)
        assert sizes.max() == 4158
    if name == "luxembourg_osm.edges":
        # The manifest: BFS depth 1,034 from the vertex with id 1 (vertex 0 after renumbering).
        levels = bfs(A.ewise_add(A.T, gb.binary.first).new(), 0)
        assert levels.nvals == n
        assert levels.reduce(gb.monoid.max).new().value == 1034


@pytest.mark.parametrize("name", ["test_BF.mtx", "test_FW_1000.mtx", "test_FW_2003.mtx",
                                  "test_FW_2500.mtx"])
def test_weighted_files_sssp(device, data_dir, name):
    M, A = read_mtx(os.path.join(data_dir, "lagraph", name), device)
    for source in (0, M.shape[0] // 2):
        np.testing.assert_allclose(dense(sssp(A, source)),
                                   dijkstra(sp.csr_array(M), indices=source), rtol=1e-12)


def test_west0067_negative_cycles(device, data_dir):
    M, A = read_mtx(os.path.join(data_dir, "lagraph", "west0067.mtx"), device)
    with pytest.raises(NegativeCycleError):
        bellman_ford(sp.csr_array(M), indices=0)
    with pytest.raises(InvalidValue, match="negative weights"):
        sssp(A, 0)
    with pytest.raises(NegativeCycle):
        sssp(A, 0, negative_weights=True)
    # With |weights| the same graph has ordinary shortest paths.
    absolute = A.apply(gb.unary.abs).new()
    for source in (0, 33):
        np.testing.assert_allclose(dense(sssp(absolute, source)),
                                   dijkstra(sp.csr_array(abs(M)), indices=source), rtol=1e-12)


@pytest.mark.parametrize("name", ["pushpull.mtx", "west0067.mtx", "karate.mtx"])
def test_bfs_on_files(device, data_dir, name):
    M, A = read_mtx(os.path.join(data_dir, "lagraph", name), device)
    for source in (0, M.shape[0] - 1):
        dist = shortest_path(sp.csr_array(abs(M)), unweighted=True, indices=source)
        np.testing.assert_array_equal(dense(bfs(A, source)), dist)


def test_pagerank_sums_to_one_on_files(device, data_dir):
    for name in ("west0067.mtx", "karate.mtx", "ldbc-directed-example.mtx"):
        _, A = read_mtx(os.path.join(data_dir, "lagraph", name), device)
        rank = pagerank(A, tol=1e-10, max_iter=1000)
        assert rank.reduce(gb.monoid.plus).new().value == pytest.approx(1.0, abs=1e-12)
