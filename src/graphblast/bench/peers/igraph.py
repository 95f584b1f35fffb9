"""python-igraph: BFS, SSSP, components and PageRank, sequential but for PRPACK's OpenMP loops.

``Graph.bfs`` (visit order and layer boundaries; levels follow from the layers outside the
timing), ``Graph.distances(weights=...)`` (Dijkstra), ``Graph.connected_components`` and
``Graph.pagerank`` (PRPACK, which solves the PageRank system exactly rather than iterating:
igraph's own method, and it spreads the sinks' rank uniformly as the others do).
"""

import numpy as np

from ..check import canonical_labels, dense
from ._base import Peer, PeerUnavailable, package_version

__all__ = ["IGraph"]


class IGraph(Peer):
    name = "igraph"
    algorithms = frozenset({"bfs", "sssp", "pagerank", "cc"})
    description = "python-igraph (sequential); PageRank by PRPACK"
    #: the edge list, the graph and its float64 weights
    host_bytes_per_edge = 40

    def __init__(self):
        self.ig = None

    def load(self):
        try:
            import igraph
        except ImportError:
            raise PeerUnavailable("igraph is not installed (pip install igraph)") from None
        self.ig = igraph

    def versions(self):
        return {"igraph": package_version("igraph", "python-igraph")}

    def prepare(self, graph, weighted):
        u, v, w = graph.edges()
        G = self.ig.Graph(n=graph.n, directed=False)
        # add_edges with one (m, 2) array is igraph's fastest way in (no Python tuples).
        G.add_edges(np.stack([u, v], axis=1))
        if weighted:
            G.es["weight"] = w.astype(np.float64)
        return G

    def task(self, algorithm, native, graph, params):
        G, src = native, graph.source
        if algorithm == "bfs":
            return lambda: G.bfs(src)
        if algorithm == "sssp":
            return lambda: G.distances(source=src, weights="weight")[0]
        if algorithm == "cc":
            return lambda: G.connected_components().membership
        if algorithm == "pagerank":
            return lambda: G.pagerank(damping=params.damping, directed=False)
        raise ValueError(f"igraph has no benchmark task {algorithm!r}")

    def answer(self, algorithm, raw, graph):
        if algorithm == "bfs":
            order, layers, _ = raw
            layers = np.asarray(layers, dtype=np.int64)
            depth = np.repeat(np.arange(layers.size - 1), np.diff(layers))
            return dense(np.asarray(order, dtype=np.int64), depth, graph.n, -1, np.int64)
        if algorithm == "cc":
            return canonical_labels(np.asarray(raw))
        return np.asarray(raw, dtype=np.float64)
