"""SciPy: ``scipy.sparse.csgraph`` for BFS, SSSP and components; a CSR power iteration for
PageRank (csgraph has none), written as a SciPy user would.

* BFS: ``breadth_first_order`` with predecessors (csgraph's BFS).  It returns the visiting
  order and the BFS tree, not levels; the levels are derived from the tree outside the
  timing (:func:`graphblast.bench.check.levels_from_tree`), as every peer's answer is brought
  to the common form outside the timing.
* SSSP: ``dijkstra`` from the source.
* CC: ``connected_components(connection="weak")``.
* PageRank: ``r' = teleport + (r * damping / out) @ A`` with the sinks' mass spread evenly,
  stopped when ``sum |r' - r|`` falls below the shared tolerance (NetworkX's definition).

csgraph runs on one core.
"""

import numpy as np

from ..check import canonical_labels, levels_from_tree
from ._base import Peer, PeerUnavailable, package_version

__all__ = ["SciPy"]


class SciPy(Peer):
    name = "scipy"
    algorithms = frozenset({"bfs", "sssp", "pagerank", "cc"})
    description = "SciPy csgraph (one core); PageRank as a CSR power iteration"
    #: float64 values and indices of the pattern and of the weighted CSR
    host_bytes_per_edge = 32

    def load(self):
        try:
            import scipy.sparse.csgraph  # noqa: F401
        except ImportError as e:
            raise PeerUnavailable(f"SciPy's csgraph cannot be imported ({e})") from None

    def versions(self):
        return {"scipy": package_version("scipy"), "numpy": package_version("numpy")}

    def prepare(self, graph, weighted):
        return graph.csr(weighted)

    def task(self, algorithm, native, graph, params):
        from scipy.sparse import csgraph

        A, src = native, graph.source
        if algorithm == "bfs":
            return lambda: csgraph.breadth_first_order(A, src, directed=True,
                                                       return_predecessors=True)
        if algorithm == "sssp":
            return lambda: csgraph.dijkstra(A, directed=True, indices=src)
        if algorithm == "cc":
            return lambda: csgraph.connected_components(A, directed=True, connection="weak")[1]
        if algorithm == "pagerank":
            return lambda: _pagerank(A, params)
        raise ValueError(f"scipy has no benchmark task {algorithm!r}")

    def answer(self, algorithm, raw, graph):
        if algorithm == "bfs":
            return levels_from_tree(raw[1], graph.source)
        if algorithm == "cc":
            return canonical_labels(raw)
        return np.asarray(raw, dtype=np.float64)


def _pagerank(A, params):
    n = A.shape[0]
    out = np.diff(A.indptr)
    share = np.divide(params.damping, out, out=np.zeros(n), where=out > 0)
    sinks = out == 0
    teleport = (1.0 - params.damping) / n
    r = np.full(n, 1.0 / n)
    for _ in range(params.pagerank_max_iter):
        new = (r * share) @ A
        new += teleport + params.damping * r[sinks].sum() / n
        err = np.abs(new - r).sum()
        r = new
        if err < params.pagerank_tol:
            break
    return r


def triangle_products(indptr, indices):
    """Multiply-adds of ``L @ L`` (``L`` the strict lower triangle): the work, and the
    unmerged output size, of the SciPy triangle count."""
    indptr = np.asarray(indptr, dtype=np.int64)
    n = indptr.size - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    cols = np.asarray(indices, dtype=np.int64)
    lower = cols < rows
    below = np.bincount(rows[lower], minlength=n).astype(np.float64)   # row counts of L
    above = np.bincount(cols[lower], minlength=n).astype(np.float64)   # column counts of L
    return float((below * above).sum())


def count_triangles(A, block_products=5e7):
    """The exact triangle count of an undirected pattern: ``sum((L @ L) .* L)`` with SciPy,
    over blocks of rows so that no block's product holds much more than ``block_products``
    entries."""
    import scipy.sparse as sp

    L = sp.tril(sp.csr_array(A), -1, format="csr")
    L.data[:] = 1
    n = L.shape[0]
    row_counts = np.diff(L.indptr)
    # Each row i of L @ L costs the sum of the row counts of L over row i's columns.
    work = np.add.reduceat(row_counts[L.indices], L.indptr[:-1]) if L.nnz else np.zeros(n)
    work = np.where(row_counts > 0, work, 0)
    bounds = np.searchsorted(np.cumsum(work), np.arange(block_products,
                                                        float(work.sum()) + block_products,
                                                        block_products))
    total, start = 0, 0
    for stop in list(np.unique(np.minimum(bounds + 1, n))) + [n]:
        if stop <= start:
            continue
        block = L[start:stop]
        total += int((block @ L).multiply(block).sum())
        start = stop
    return total


class TriangleOracle(Peer):
    """The exact triangle count with SciPy (:func:`count_triangles`), one core: the oracle of
    a graphblast count that no peer checked."""

    name = "scipy-triangles"
    algorithms = frozenset({"tc"})
    description = "exact triangle count sum((L @ L) .* L) with SciPy, in row blocks"

    def prepare(self, graph, weighted):
        return graph.csr()

    def task(self, algorithm, native, graph, params):
        return lambda: count_triangles(native)

    def answer(self, algorithm, raw, graph):
        return int(raw)
