"""networkit's parallel algorithms on all cores: BFS, components, PageRank, triangles.

* BFS: ``distance.BFS`` (networkit's BFS is sequential; it is what a user runs).
* CC: ``components.ParallelConnectedComponents``.
* PageRank: ``centrality.PageRank`` with the L1 norm, the shared tolerance and sink
  distribution.  networkit spreads the sinks' rank only on directed graphs (on an undirected
  graph an isolated vertex's rank leaks away), so PageRank runs on the directed graph with
  both arcs of every edge, which gives the standard definition of the other peers.
* Triangles: ``sparsification.TriangleEdgeScore`` (parallel, per edge), summed over the
  edges and divided by 3.

The thread count is set to all cores (``networkit.setNumberOfThreads``).
"""

import os

import numpy as np

from ..check import canonical_labels
from ._base import Peer, PeerUnavailable, package_version

__all__ = ["Networkit"]


class Networkit(Peer):
    name = "networkit"
    algorithms = frozenset({"bfs", "pagerank", "cc", "tc"})
    description = "networkit, parallel algorithms on all cores"
    #: the edge list, the undirected graph with edge ids, and the directed one for PageRank
    host_bytes_per_edge = 48

    def __init__(self):
        self.nk = None

    def load(self):
        try:
            import networkit
        except ImportError:
            raise PeerUnavailable("networkit is not installed (pip install networkit)") from None
        self.nk = networkit
        networkit.setNumberOfThreads(os.cpu_count() or 1)

    def versions(self):
        return {"networkit": package_version("networkit")}

    def info(self):
        return {"threads": int(self.nk.getMaxNumberOfThreads())}

    def prepare(self, graph, weighted):
        nk = self.nk
        u, v, _ = graph.edges()
        G = nk.GraphFromCoo((u.astype(np.uint64), v.astype(np.uint64)), n=graph.n,
                            directed=False)
        G.indexEdges()      # TriangleEdgeScore needs edge ids
        return {"undirected": G}

    def _directed(self, native, graph):
        """The graph with both arcs of every edge, built on first use (PageRank only)."""
        if "directed" not in native:
            rows, cols = graph.coo()
            native["directed"] = self.nk.GraphFromCoo(
                (rows.astype(np.uint64), cols.astype(np.uint64)), n=graph.n, directed=True)
        return native["directed"]

    def task(self, algorithm, native, graph, params):
        nk = self.nk
        G = native["undirected"]
        if algorithm == "bfs":
            return lambda: nk.distance.BFS(G, graph.source, storePaths=False).run() \
                .getDistances(asarray=True)
        if algorithm == "cc":
            def cc():
                algo = nk.components.ParallelConnectedComponents(G)
                algo.run()
                return algo.getPartition().getVector()
            return cc
        if algorithm == "pagerank":
            D = self._directed(native, graph)

            def pagerank():
                pr = nk.centrality.PageRank(
                    D, damp=params.damping, tol=params.pagerank_tol,
                    distributeSinks=nk.centrality.SinkHandling.DistributeSinks)
                pr.norm = nk.centrality.Norm.L1_NORM
                pr.maxIterations = params.pagerank_max_iter
                pr.run()
                return pr.scores()
            return pagerank
        if algorithm == "tc":
            return lambda: nk.sparsification.TriangleEdgeScore(G).run().scores()
        raise ValueError(f"networkit has no benchmark task {algorithm!r}")

    def answer(self, algorithm, raw, graph):
        if algorithm == "tc":
            total = int(np.asarray(raw, dtype=np.float64).sum())
            return total // 3
        raw = np.asarray(raw)
        if algorithm == "bfs":
            # networkit marks unreached vertices with the largest double.
            return np.where(raw < 1e300, raw, -1).astype(np.int64)
        if algorithm == "cc":
            return canonical_labels(raw)
        return raw.astype(np.float64)
