"""NetworkX, on small graphs only (pure Python: seconds per million edges).

``single_source_shortest_path_length`` (BFS), ``single_source_dijkstra_path_length``
(SSSP), ``pagerank`` (its own definition, the reference one), ``connected_components`` and
``triangles``.  Graphs with more than :data:`MAX_EDGES` stored edges are skipped.
"""

import itertools

import numpy as np

from ..check import canonical_labels, dense
from ._base import Peer, PeerUnavailable, package_version

__all__ = ["MAX_EDGES", "NetworkX"]

#: NetworkX holds a graph as dicts of dicts (hundreds of bytes per edge) and runs at about a
#: million edges a second: beyond this the run would be minutes and gigabytes.
MAX_EDGES = 4_000_000


class NetworkX(Peer):
    name = "networkx"
    algorithms = frozenset({"bfs", "sssp", "pagerank", "cc", "tc"})
    max_edges = MAX_EDGES
    description = f"NetworkX (pure Python, graphs up to {MAX_EDGES:,} stored edges)"

    def __init__(self):
        self.nx = None

    def load(self):
        try:
            import networkx
        except ImportError:
            raise PeerUnavailable("NetworkX is not installed (pip install networkx)") from None
        self.nx = networkx

    def versions(self):
        return {"networkx": package_version("networkx")}

    def prepare(self, graph, weighted):
        G = self.nx.Graph()
        G.add_nodes_from(range(graph.n))
        u, v, w = graph.edges()
        if weighted:
            G.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
        else:
            G.add_edges_from(zip(u.tolist(), v.tolist()))
        return G

    def task(self, algorithm, native, graph, params):
        nx, G, src = self.nx, native, graph.source
        # backend="networkx": NetworkX's own code, even where a backend (graphblast's among
        # them) is installed and configured to take calls over.
        own = {"backend": "networkx"}
        if algorithm == "bfs":
            return lambda: nx.single_source_shortest_path_length(G, src, **own)
        if algorithm == "sssp":
            return lambda: nx.single_source_dijkstra_path_length(G, src, weight="weight", **own)
        if algorithm == "pagerank":
            # NetworkX stops when sum |r' - r| < n * tol: its tol is per vertex.
            return lambda: nx.pagerank(G, alpha=params.damping, weight=None,
                                       tol=params.pagerank_tol / graph.n,
                                       max_iter=params.pagerank_max_iter, **own)
        if algorithm == "cc":
            return lambda: list(nx.connected_components(G, **own))
        if algorithm == "tc":
            return lambda: sum(nx.triangles(G, **own).values()) // 3
        raise ValueError(f"networkx has no benchmark task {algorithm!r}")

    def answer(self, algorithm, raw, graph):
        n = graph.n
        if algorithm == "tc":
            return int(raw)
        if algorithm == "cc":
            sizes = np.fromiter((len(c) for c in raw), dtype=np.int64, count=len(raw))
            members = np.fromiter(itertools.chain.from_iterable(raw), dtype=np.int64,
                                  count=int(sizes.sum()))
            labels = dense(members, np.repeat(np.arange(len(raw)), sizes), n, -1, np.int64)
            return canonical_labels(labels)
        keys = np.fromiter(raw.keys(), dtype=np.int64, count=len(raw))
        vals = np.fromiter(raw.values(), dtype=np.float64, count=len(raw))
        if algorithm == "bfs":
            return dense(keys, vals.astype(np.int64), n, -1, np.int64)
        fill = np.inf if algorithm == "sssp" else 0.0
        return dense(keys, vals, n, fill, np.float64)
