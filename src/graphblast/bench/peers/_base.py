"""What every participant of the benchmark provides (graphblast itself and each peer).

A participant turns a :class:`~graphblast.bench.graphs.BenchGraph` into its own graph object
(``prepare``, not timed: it is "building the graph"), hands back one callable per algorithm
(``task``, the timed part: everything the algorithm does after the graph exists, down to a
finished answer in the library's own form) and converts that answer to the canonical NumPy
form of :mod:`graphblast.bench.check` (``answer``, not timed).
"""

import dataclasses
import importlib.metadata

__all__ = [
    "AlgorithmParams",
    "Peer",
    "PeerUnavailable",
    "package_version",
    "synchronize_device",
]


class PeerUnavailable(Exception):
    """The peer's library is not installed or cannot run here; the message says why."""


@dataclasses.dataclass(frozen=True)
class AlgorithmParams:
    """The settings every participant runs with, so that their answers are comparable.

    ``pagerank_tol`` is a total L1 change (``sum |r' - r|``) below which the power
    iteration stops: NetworkX's and graphblast's per-vertex ``tol`` is this divided by
    ``n``.  ``pagerank_fixed_iterations`` is the step count of the per-iteration timing.
    """

    damping: float = 0.85
    pagerank_tol: float = 1e-6
    pagerank_max_iter: int = 1000
    pagerank_fixed_iterations: int = 20


def package_version(*names):
    """The installed version of the first of ``names`` that is installed, else ``None``."""
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


class Peer:
    """Base class of the participants.

    Attributes
    ----------
    name : str
        The name used in ``--peers``, results.json and the tables.
    algorithms : frozenset
        The algorithms it runs (names of :data:`graphblast.bench.check.ALGORITHMS`).
    max_edges : int or None
        The largest graph (stored edges) it is run on; None for no limit.
    host_bytes_per_edge : int or None
        About how many bytes of host memory its own graph objects take per stored edge (the
        pattern and SSSP's weighted copy); the runner skips it, with a note, on a graph
        that cannot fit in the free memory.  None: not a host-memory peer.
    description : str
        One line for the report: what it is and how it runs.
    """

    name = ""
    algorithms = frozenset()
    max_edges = None
    host_bytes_per_edge = None
    description = ""

    def load(self):
        """Import the library and set it up (threads); raise PeerUnavailable if it cannot."""

    def versions(self):
        """``{package: version}`` of what it runs on."""
        return {}

    def info(self):
        """Settings worth recording (thread counts and such)."""
        return {}

    def sync(self):
        """Wait for queued device work; CPU peers return at once."""

    def prepare(self, graph, weighted):
        """The library's own graph object for ``graph`` (weighted for SSSP)."""
        raise NotImplementedError

    def task(self, algorithm, native, graph, params):
        """A callable without arguments that runs ``algorithm`` and returns its answer."""
        raise NotImplementedError

    def answer(self, algorithm, raw, graph):
        """The canonical NumPy answer (see :mod:`graphblast.bench.check`) of ``raw``."""
        raise NotImplementedError

    def skip_reason(self, algorithm, graph):
        """Why this participant does not run ``algorithm`` on ``graph``, or None."""
        if self.max_edges is not None and graph.nedges > self.max_edges:
            return (f"{self.name} runs on small graphs only (at most {self.max_edges:,} "
                    f"stored edges); {graph.name} has {graph.nedges:,}")
        return None


def synchronize_device(device):
    """Wait until every kernel queued on ``device`` (``"cuda:N"``) has finished; no-op on cpu.

    CuPy is imported only here, and only for a cuda device.
    """
    if device is None or not str(device).startswith("cuda"):
        return
    import cupy

    index = int(str(device).partition(":")[2] or 0)
    cupy.cuda.Device(index).synchronize()
