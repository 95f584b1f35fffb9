"""Short programs written the way a python-graphblas user writes them, each once, as a
function of the library (``gb``): run on python-graphblas and on graphblast with only the
library changed, they must give the same results.

The graphs are small random ones from the test's seeded generator and a few of the real
graphs in ``tests/data`` (read with SciPy, so that these tests depend on the core only).
"""

import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse
from diffharness import MatrixData


# ---------------------------------------------------------------------------------------------
# the programs
# ---------------------------------------------------------------------------------------------


def bfs_levels(gb, A, source):
    """Level of every vertex reachable from ``source`` (the source is 0)."""
    n = A.nrows
    levels = gb.Vector(int, n)
    frontier = gb.Vector(bool, n)
    frontier[source] = True
    level = 0
    while frontier.nvals > 0:
        levels(frontier.S) << level
        frontier(~levels.S, replace=True) << frontier.vxm(A, gb.semiring.any_pair)
        level += 1
    return levels


def bellman_ford(gb, A, source):
    """Shortest path lengths from ``source`` by min-plus relaxation with an accumulator."""
    n = A.nrows
    d = gb.Vector(A.dtype, n)
    d[source] = 0
    for _ in range(n):
        previous = d.dup()
        d(accum=gb.binary.min) << d.vxm(A, gb.semiring.min_plus)
        if d.isequal(previous):
            break
    return d


def pagerank(gb, A, damping=0.85, tol=1e-10, maxiter=100):
    """PageRank with dangling mass spread uniformly; returns (ranks, iterations)."""
    n = A.nrows
    P = A.apply(gb.unary.one).new(dtype="FP64")
    outdeg = P.reduce_rowwise(gb.monoid.plus).new()
    r = gb.Vector.from_scalar(1.0 / n, n, dtype="FP64")
    for it in range(1, maxiter + 1):
        w = r.ewise_mult(outdeg, gb.binary.truediv).new()
        dangling = r.dup(mask=~outdeg.S).reduce(gb.monoid.plus).new()
        teleport = (1 - damping) / n + damping * (dangling.value or 0.0) / n
        new = gb.Vector.from_scalar(teleport, n, dtype="FP64")
        new(accum=gb.binary.plus) << w.vxm(P, gb.semiring.plus_first).apply(
            gb.binary.times, right=damping)
        err = new.ewise_union(r, gb.binary.minus, 0.0, 0.0).new()
        err = err.apply(gb.unary.abs).reduce(gb.monoid.plus).new().value
        r = new
        if err < tol:
            break
    return r, it


def triangle_count(gb, A):
    """Triangles of the undirected graph A (symmetric, no self-loops) by a masked mxm."""
    L = A.select(gb.select.tril, -1).new()
    C = gb.Matrix(int, A.nrows, A.ncols)
    C(L.S) << L.mxm(L.T, gb.semiring.plus_pair)
    return C.reduce_scalar(gb.monoid.plus).new().value, C


def connected_components(gb, A):
    """Smallest vertex id of each vertex's component, by min-label propagation."""
    n = A.nrows
    labels = gb.Vector.from_coo(np.arange(n), np.arange(n), dtype="INT64", size=n)
    while True:
        new = labels.dup()
        new(accum=gb.binary.min) << A.mxv(labels, gb.semiring.min_second)
        if new.isequal(labels):
            return labels
        labels = new


def tour(gb, A, v):
    """A walk through the rest of the API as a user meets it (method forms; the infix forms
    have their own tests)."""
    out = {}
    n = A.nrows
    out["shape"] = (A.nrows, A.ncols, A.nvals, A.dtype.name)
    out["rowsum"] = A.reduce_rowwise().new()
    out["colmax"] = A.reduce_columnwise(gb.monoid.max).new()
    out["total"] = A.reduce_scalar().new()
    out["abs_then_times"] = B = A.apply(gb.unary.abs).new()
    B(B.S, accum=gb.binary.times) << A
    out["symmetrized"] = A.ewise_add(A.T, gb.monoid.max).new()
    out["intersection"] = gb.binary.min(A & A.T).new()
    out["union_minus"] = A.ewise_union(A.T, gb.binary.minus, 0, 0).new()
    out["lower"] = A.select("tril").new()
    out["positive"] = A.select(gb.select.valuegt, 0).new()
    out["scaled"] = A.apply(gb.binary.times, right=2).new()
    out["shifted"] = A.apply(gb.binary.plus, right=1).new()
    out["indices"] = A.apply(gb.indexunary.rowindex, 0).new()
    small = A[0:3, 0:3].new()
    out["kron"] = small.kronecker(small, gb.binary.times).new()
    C = A.dup()
    C[0:3, 0:3] << 0
    C[1, :] << v[0:A.ncols].new()
    C(C.S)[:, 0] << 7
    del C[2, 2]
    C[n - 1, n - 1] = 42
    out["assigned"] = C
    out["element"] = (A[1, 2].value, C[n - 1, n - 1].value, C.get(2, 2, -1))
    out["y"] = A.mxv(v, gb.semiring.plus_times).new()
    out["z"] = v.vxm(A, gb.semiring.max_times).new()
    out["masked"] = A.mxm(A, gb.semiring.min_plus).new(mask=A.S)
    out["dense"] = A.to_dense(fill_value=0)
    rows, cols, vals = A.to_coo()
    out["coo"] = (np.asarray(rows).astype(np.int64), np.asarray(cols).astype(np.int64), vals)
    indptr, col_indices, csr_vals = A.to_csr()
    out["csr_roundtrip"] = gb.Matrix.from_csr(indptr, col_indices, csr_vals, ncols=A.ncols)
    out["diag"] = A.diag()
    out["vdiag"] = v.diag(1)
    out["outer"] = v[0:4].new().outer(v[0:4].new(), gb.binary.times).new()
    out["inner"] = v.inner(v).new()
    out["isequal"] = (A.isequal(A.T), A.isequal(A.dup()), A.isclose(A.dup(dtype="FP64")))
    R = A.dup()
    R.resize(n + 2, n - 1)
    out["resized"] = R
    out["from_dense"] = gb.Matrix.from_dense(A.to_dense(fill_value=0), missing_value=0)
    return out


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------

def read_mtx(data_dir, name):
    """A Matrix Market file of tests/data/lagraph as FP64 MatrixData (a pattern as ones)."""
    m = scipy.sparse.coo_matrix(scipy.io.mmread(os.path.join(data_dir, "lagraph", name)))
    m.sum_duplicates()
    order = np.lexsort((m.col, m.row))
    return MatrixData("FP64", m.shape[0], m.shape[1], m.row[order].astype(np.int64),
                      m.col[order].astype(np.int64), m.data[order].astype(np.float64))


def symmetric_pattern(data, dtype="INT64"):
    """A + A' as a pattern without self-loops (for triangles and components)."""
    a = scipy.sparse.coo_matrix((np.ones(data.nvals), (data.rows, data.cols)),
                                shape=(data.nrows, data.ncols)).tocsr()
    a = ((a + a.T) > 0).astype(np.int64).tocoo()
    keep = a.row != a.col
    order = np.lexsort((a.col[keep], a.row[keep]))
    return MatrixData(dtype, a.shape[0], a.shape[1], a.row[keep][order].astype(np.int64),
                      a.col[keep][order].astype(np.int64),
                      np.ones(int(keep.sum()), dtype=np.int64))


def random_graph(diff, n, p, *, symmetric, dtype="FP64", positive=True):
    a = diff.matrix(dtype, n, n, p)
    if positive:
        a.values = np.abs(a.values) + np.asarray(1, dtype=a.values.dtype)
    if symmetric:
        return symmetric_pattern(a)
    return a


GRAPHS = ["karate", "west0067", "ldbc-directed", "random-sparse", "random-dense"]


def graph(diff, data_dir, name, *, symmetric):
    if name == "karate":
        data = read_mtx(data_dir, "karate.mtx")
    elif name == "west0067":
        data = read_mtx(data_dir, "west0067.mtx")
        data.values = np.abs(data.values)
    elif name == "ldbc-directed":
        data = read_mtx(data_dir, "ldbc-directed-example.mtx")
    elif name == "random-sparse":
        data = random_graph(diff, 60, 0.04, symmetric=False)
    else:
        data = random_graph(diff, 30, 0.3, symmetric=False)
    return symmetric_pattern(data) if symmetric else data


# ---------------------------------------------------------------------------------------------
# the tests
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GRAPHS)
def test_bfs_levels(diff, data_dir, name):
    a = graph(diff, data_dir, name, symmetric=False)
    source = int(diff.rng.integers(a.nrows))
    diff.check(lambda gb, A: bfs_levels(gb, A, source), a)


@pytest.mark.parametrize("name", GRAPHS)
def test_bellman_ford(diff, data_dir, name):
    a = graph(diff, data_dir, name, symmetric=False)
    source = int(diff.rng.integers(a.nrows))
    diff.check(lambda gb, A: bellman_ford(gb, A, source), a)


@pytest.mark.parametrize("name", GRAPHS)
def test_pagerank(diff, data_dir, name):
    a = graph(diff, data_dir, name, symmetric=False)
    diff.check(pagerank, a)


@pytest.mark.parametrize("name", GRAPHS)
def test_triangle_count(diff, data_dir, name):
    a = graph(diff, data_dir, name, symmetric=True)
    count, _ = diff.check(triangle_count, a)
    if name == "karate":
        assert count == 45  # tests/data/README.md's known answer


@pytest.mark.parametrize("name", GRAPHS)
def test_connected_components(diff, data_dir, name):
    a = graph(diff, data_dir, name, symmetric=True)
    diff.check(connected_components, a)


@pytest.mark.parametrize("dtype", ["INT64", "FP64"])
def test_tour(diff, dtype):
    a = diff.matrix(dtype, 8, 8, 0.4)
    v = diff.vector(dtype, 8, 0.7)
    diff.check(tour, a, v)


def test_karate_components_and_levels_known(diff, data_dir):
    """Known answers from tests/data/README.md: karate is one component; BFS reaches all 34."""
    a = graph(diff, data_dir, "karate", symmetric=True)
    labels = diff.check(connected_components, a)
    assert labels.nvals == 34 and set(labels.to_coo()[1].tolist()) == {0}
    levels = diff.check(lambda gb, A: bfs_levels(gb, A, 0), a)
    assert levels.nvals == 34
