"""The breadth benchmark's peers, each in a worker process of its own under time limits.

At the default scales some peers take minutes (the NumPy CDLP reference, SuiteSparse's
k-truss loop, igraph's graph construction of 64 million edges), so a peer runs in a worker
process (``python -m graphblast.bench.breadth_peers``) that the benchmark kills when its limit
passes: the run goes on and the record says the peer ran out, and after how long.  Its
setup (building the peer's own graph from the host arrays) is not timed but has a limit of
its own; its run is timed inside the worker, around the call alone.

The worker reads the graph from ``.npy`` files in a folder (memory-mapped), takes one JSON
request a line on stdin, answers one JSON line per step on a private copy of stdout
(``{"ready": setup_s}`` after the setup, then ``{"seconds": s, "answer": file or value}``),
and sends everything the peers print to stderr.  It keeps each peer's graph between
requests, so a graph is built once per peer unless a limit kills the worker.
"""

import json
import os
import select
import subprocess
import sys
import time

import numpy as np

__all__ = ["HostGraph", "PeerWorker", "peer_tasks", "write_graph"]

#: CDLP's rounds (LDBC's usual setting), the truss's k, the centralities' tolerances
CDLP_ROUNDS = 10
TRUSS_K = 5
KATZ_TOL = 1e-10
#: NetworkX's defaults for eigenvector centrality (its n * tol stopping rule; see breadth.py)
EIGENVECTOR_TOL = 1e-6
EIGENVECTOR_MAX_ITER = 1000
#: NetworkX runs on graphs of at most this many stored entries.
NETWORKX_MAX_EDGES = 300_000
#: What each peer has of the breadth benchmark's algorithms.
PEER_ALGORITHMS = {
    "networkit": ("core_number", "louvain", "leiden", "label_propagation", "lcc", "katz",
                  "eigenvector", "scc"),
    "igraph": ("core_number", "louvain", "leiden", "label_propagation", "lcc", "eigenvector",
               "scc"),
    "suitesparse": ("k_truss",),
    "scipy": ("label_propagation", "katz", "eigenvector", "scc"),
    "networkx": ("core_number", "k_truss", "louvain", "lcc", "katz", "eigenvector"),
}


def write_graph(folder, n, indptr, indices, arcs):
    """Save a graph's host arrays where a worker finds them: CSR of the undirected graph
    and the (rows, cols) of the directed one (SCC's)."""
    os.makedirs(folder, exist_ok=True)
    for name, array in (("indptr", indptr), ("indices", indices), ("arc_rows", arcs[0]),
                        ("arc_cols", arcs[1])):
        np.save(os.path.join(folder, f"{name}.npy"), np.asarray(array))
    with open(os.path.join(folder, "graph.json"), "w") as f:
        json.dump({"n": int(n)}, f)


class HostGraph:
    """Host forms of one benchmark graph for the peers, each built when first asked for."""

    def __init__(self, n, indptr, indices, arcs):
        self.n, self.indptr, self.indices, self._arcs = n, indptr, indices, arcs
        self.nedges = int(indices.size)
        self._made = {}

    @classmethod
    def load(cls, folder):
        def array(name):
            return np.load(os.path.join(folder, f"{name}.npy"), mmap_mode="r")
        with open(os.path.join(folder, "graph.json")) as f:
            n = json.load(f)["n"]
        return cls(n, array("indptr"), array("indices"), (array("arc_rows"),
                                                           array("arc_cols")))

    def get(self, key, make):
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    def coo(self):
        """``(rows, cols)`` of every stored entry, int64."""
        return self.get("coo", lambda: (
            np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.indptr)),
            np.asarray(self.indices, dtype=np.int64)))

    def edges(self):
        """Each undirected edge once, ``u < v``."""
        def make():
            rows, cols = self.coo()
            keep = rows < cols
            return rows[keep], cols[keep]
        return self.get("edges", make)

    def upper(self):
        """The strict upper triangle as a SciPy CSR matrix: each undirected edge once, the
        form networkit's ``GraphFromCsr`` builds an undirected graph from (4.5x faster than
        ``GraphFromCoo`` of the edge list on rgg-20; the full symmetric matrix would give
        every edge twice)."""
        import scipy.sparse as sp

        def make():
            indptr, indices = np.asarray(self.indptr), np.asarray(self.indices)
            rows = np.repeat(np.arange(self.n, dtype=indices.dtype), np.diff(indptr))
            keep = indices > rows
            starts = np.zeros(self.n + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows[keep], minlength=self.n), out=starts[1:])
            return sp.csr_array((np.ones(int(starts[-1])), indices[keep], starts),
                                shape=(self.n, self.n))
        return self.get("upper", make)

    def arcs(self):
        return self.get("arcs", lambda: tuple(np.asarray(a, dtype=np.int64)
                                              for a in self._arcs))

    def csr(self):
        import scipy.sparse as sp

        return self.get("csr", lambda: sp.csr_array(
            (np.ones(self.nedges), np.asarray(self.indices), np.asarray(self.indptr)),
            shape=(self.n, self.n)))


def cdlp_numpy(rows, cols, n, rounds):
    """LDBC's CDLP, vectorized NumPy (the reference): per round, the (vertex, label) counts
    by one sort, the most frequent label per vertex, the smallest on a tie."""
    labels = np.arange(n)
    for _ in range(rounds):
        key = rows * n + labels[cols]
        uniq, counts = np.unique(key, return_counts=True)
        vertex, label = uniq // n, uniq % n
        order = np.lexsort((label, -counts, vertex))
        vertex, label = vertex[order], label[order]
        first = np.ones(vertex.size, dtype=bool)
        first[1:] = vertex[1:] != vertex[:-1]
        new = labels.copy()
        new[vertex[first]] = label[first]
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


def power_iteration(M, algorithm, alpha):
    """NetworkX's Katz and eigenvector iterations written with SciPy's sparse products (what
    a SciPy user writes; SciPy has no such function), with the benchmark's tolerances; an
    eigenvector iteration that does not converge raises, as NetworkX's does."""
    n = M.shape[0]
    katz = algorithm == "katz"
    x = np.zeros(n) if katz else np.full(n, 1.0 / max(n, 1))
    tol = KATZ_TOL if katz else EIGENVECTOR_TOL
    for _ in range(10_000 if katz else EIGENVECTOR_MAX_ITER):
        if katz:
            new = alpha * (M.T @ x) + 1.0
        else:
            new = x + M.T @ x
            new /= np.linalg.norm(new) or 1.0
        if np.abs(new - x).sum() < n * tol:
            return new
        x = new
    raise RuntimeError(f"the {algorithm} iteration did not converge")


def peer_tasks(name, algorithm, host, alpha):
    """A callable running ``algorithm`` in peer ``name`` and one turning its output into the
    NumPy form of graphblast's answer; None where the peer has no such algorithm.  Building
    the peer's graph happens here (the setup), not in the callable (the timed run)."""
    n = host.n
    if name == "networkit":
        import networkit as nk

        nk.setNumberOfThreads(os.cpu_count() or 1)

        def graph(directed):
            if not directed and hasattr(nk, "GraphFromCsr"):
                return nk.GraphFromCsr(host.upper(), directed=False)
            u, v = host.arcs() if directed else host.edges()
            return nk.GraphFromCoo((u.astype(np.uint64), v.astype(np.uint64)), n=n,
                                   directed=directed)
        if algorithm == "scc":
            D = host.get("nkd", lambda: graph(True))
            return (lambda: nk.components.StronglyConnectedComponents(D).run()), \
                lambda raw: np.asarray(raw.getPartition().getVector())
        G = host.get("nk", lambda: graph(False))
        run = {
            "core_number": lambda: nk.centrality.CoreDecomposition(G).run().scores(),
            "louvain": lambda: nk.community.PLM(G, refine=False).run().getPartition()
            .getVector(),
            "leiden": lambda: nk.community.ParallelLeiden(G).run().getPartition().getVector(),
            "label_propagation": lambda: nk.community.PLP(G).run().getPartition().getVector(),
            "lcc": lambda: nk.centrality.LocalClusteringCoefficient(G).run().scores(),
            "katz": lambda: nk.centrality.KatzCentrality(G, alpha, 1.0, KATZ_TOL).run()
            .scores(),
            "eigenvector": lambda: nk.centrality.EigenvectorCentrality(G, EIGENVECTOR_TOL)
            .run().scores(),
        }.get(algorithm)
        return (run, np.asarray) if run else None
    if name == "igraph":
        import igraph as ig

        def graph(directed):
            u, v = host.arcs() if directed else host.edges()
            return ig.Graph(n=n, edges=list(zip(u.tolist(), v.tolist())), directed=directed)
        if algorithm == "scc":
            g = host.get("igd", lambda: graph(True))
            return (lambda: g.connected_components(mode="strong").membership), np.asarray
        g = host.get("ig", lambda: graph(False))
        run = {
            "core_number": lambda: g.coreness(),
            "louvain": lambda: g.community_multilevel().membership,
            "leiden": lambda: g.community_leiden(objective_function="modularity",
                                                 n_iterations=-1).membership,
            "label_propagation": lambda: g.community_label_propagation().membership,
            "lcc": lambda: g.transitivity_local_undirected(mode="zero"),
            "eigenvector": lambda: g.eigenvector_centrality(scale=False),
        }.get(algorithm)
        return (run, np.asarray) if run else None
    if name == "suitesparse" and algorithm == "k_truss":
        import graphblas as gb

        def make():
            r, c = host.coo()
            keep = r != c
            return gb.Matrix.from_coo(r[keep], c[keep], 1, dtype="INT64", nrows=n, ncols=n)
        A = host.get("ss", make)

        def truss():  # LAGraph_KTruss's loop
            C, last = A.dup(), A.nvals
            while True:
                C << C.mxm(C, gb.semiring.plus_pair["INT64"]).new(mask=C.S)
                C << C.select("valuege", TRUSS_K - 2)
                if C.nvals == last:
                    return C.nvals
                last = C.nvals
        return truss, int
    if name == "scipy" and algorithm == "label_propagation":
        r, c = host.coo()
        return (lambda: cdlp_numpy(np.concatenate([r, c]), np.concatenate([c, r]), n,
                                   CDLP_ROUNDS)), np.asarray
    if name == "scipy" and algorithm in ("katz", "eigenvector"):
        M = host.csr()
        return (lambda: power_iteration(M, algorithm, alpha)), np.asarray
    if name == "scipy" and algorithm == "scc":
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components

        r, c = host.arcs()
        M = host.get("sp", lambda: sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n)))
        return (lambda: connected_components(M, directed=True, connection="strong")[1]), \
            np.asarray
    if name == "networkx" and host.nedges <= NETWORKX_MAX_EDGES:
        return _networkx_task(algorithm, host, alpha)
    return None


def _networkx_task(algorithm, host, alpha):
    import networkx as nx

    n = host.n

    def make():
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(zip(*(x.tolist() for x in host.edges())))
        return G
    G = host.get("nx", make)
    dense = lambda d: np.array([d[v] for v in range(n)])  # noqa: E731

    def partition(communities):
        labels = np.empty(n, dtype=np.int64)
        for i, c in enumerate(communities):
            labels[list(c)] = i
        return labels
    return {
        "core_number": (lambda: nx.core_number(G), dense),
        "k_truss": (lambda: nx.k_truss(G, TRUSS_K), lambda H: 2 * H.number_of_edges()),
        "louvain": (lambda: nx.community.louvain_communities(G, seed=1), partition),
        "lcc": (lambda: nx.clustering(G), dense),
        "katz": (lambda: nx.katz_centrality(G, alpha=alpha, tol=KATZ_TOL), dense),
        "eigenvector": (lambda: nx.eigenvector_centrality(G, tol=EIGENVECTOR_TOL,
                                                          max_iter=EIGENVECTOR_MAX_ITER),
                        dense),
    }.get(algorithm)


class PeerWorker:
    """The parent's side of one peer's worker process for one graph (started when first
    asked for, started again after a limit killed it)."""

    def __init__(self, name, folder, setup_limit):
        self.name, self.folder, self.setup_limit = name, folder, setup_limit
        self._proc, self._pending = None, b""

    def _start(self):
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "graphblast.bench.breadth_peers", self.name, self.folder],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self._pending = b""

    def _reply(self, limit):
        """The worker's next line, or None when ``limit`` seconds pass first.  Read from the
        pipe's descriptor with a buffer of our own: a buffered reader could hold the next
        line while ``select`` waits for more."""
        fd = self._proc.stdout.fileno()
        end = time.monotonic() + limit
        while b"\n" not in self._pending:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RuntimeError(f"the {self.name} worker exited (status "
                                   f"{self._proc.wait()}); see its messages on stderr")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return json.loads(line)

    def run(self, algorithm, alpha, limit):
        """One run of ``algorithm``: ``{"seconds", "answer", "setup_s"}``, ``{"absent":
        True}`` where the peer has no such algorithm, ``{"timed_out": stage, "limit_s"}``
        where a limit passed (the worker is killed), or ``{"error"}``."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        self._proc.stdin.write((json.dumps({"algorithm": algorithm, "alpha": alpha}) + "\n")
                               .encode())
        self._proc.stdin.flush()
        ready = self._reply(self.setup_limit)
        if ready is None:
            self.close()
            return {"timed_out": "setup", "limit_s": self.setup_limit}
        if "ready" not in ready:
            return ready
        done = self._reply(limit)
        if done is None:
            self.close()
            return {"timed_out": "run", "limit_s": limit, "setup_s": ready["ready"]}
        if isinstance(done.get("answer"), str):
            done["answer"] = np.load(done["answer"])
        return dict(done, setup_s=ready["ready"])

    def close(self):
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
        if self._proc is not None:
            self._proc.wait()
            self._proc.stdin.close()
            self._proc.stdout.close()
        self._proc = None


def serve(name, folder):
    """The worker's loop (see the module notes)."""
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                     # whatever the peers print goes to stderr
    sys.stdout = sys.stderr
    host = HostGraph.load(folder)
    for count, line in enumerate(sys.stdin):
        request = json.loads(line)
        algorithm = request["algorithm"]
        try:
            t0 = time.perf_counter()
            task = peer_tasks(name, algorithm, host, request["alpha"])
            if task is None:
                reply.write(json.dumps({"absent": True}) + "\n")
                continue
            run, convert = task
            reply.write(json.dumps({"ready": time.perf_counter() - t0}) + "\n")
            t0 = time.perf_counter()
            raw = run()
            seconds = time.perf_counter() - t0
            answer = convert(raw)
            if isinstance(answer, np.ndarray):
                path = os.path.join(folder, f"answer-{name}-{count}.npy")
                np.save(path, answer)
                answer = path
            reply.write(json.dumps({"seconds": seconds, "answer": answer}) + "\n")
        except ImportError as e:
            reply.write(json.dumps({"error": f"not installed: {e}"}) + "\n")
        except Exception as e:  # noqa: BLE001 - reported to the benchmark, the worker goes on
            reply.write(json.dumps({"error": f"{type(e).__name__}: {e}"[:600]}) + "\n")


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
