"""graphblast itself: ``graphblast.algorithms`` on the benchmark's device."""

from ..check import graphblas_answer
from ._base import Peer, package_version, synchronize_device

__all__ = ["Graphblast"]


class Graphblast(Peer):
    """The system under test: its algorithms on matrices generated on the device.

    The timed call includes everything the algorithm does, transposes and format changes
    included, and ends with a device synchronization (done by the runner through
    :meth:`sync`).
    """

    name = "graphblast"
    algorithms = frozenset({"bfs", "sssp", "pagerank", "cc", "tc"})
    description = "graphblast.algorithms on the benchmark device"

    def __init__(self, device):
        self.device = device

    def versions(self):
        import graphblast

        return {"graphblast": package_version("graphblast") or graphblast.__version__}

    def info(self):
        return {"device": self.device}

    def sync(self):
        synchronize_device(self.device)

    def prepare(self, graph, weighted):
        return graph.Aw if weighted else graph.A

    def task(self, algorithm, native, graph, params):
        from graphblast import algorithms as alg

        A, n = native, graph.n
        if algorithm == "bfs":
            return lambda: alg.bfs(A, graph.source)
        if algorithm == "sssp":
            return lambda: alg.sssp(A, graph.source)
        if algorithm == "pagerank":
            return lambda: alg.pagerank(A, damping=params.damping, tol=params.pagerank_tol / n,
                                        max_iter=params.pagerank_max_iter)
        if algorithm == "cc":
            return lambda: alg.connected_components(A)
        if algorithm == "tc":
            return lambda: alg.triangle_count(A)
        raise ValueError(f"graphblast has no benchmark task {algorithm!r}")

    def fixed_iteration_pagerank(self, A, params):
        """PageRank for exactly ``params.pagerank_fixed_iterations`` steps (per-step timing)."""
        from graphblast import algorithms as alg

        return lambda: alg.pagerank(A, damping=params.damping, tol=None,
                                    max_iter=params.pagerank_fixed_iterations)

    def answer(self, algorithm, raw, graph):
        return graphblas_answer(algorithm, raw, graph)
