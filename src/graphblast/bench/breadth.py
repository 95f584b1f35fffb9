"""The breadth benchmark: the analytics beyond the GraphBLAST paper's five against the peers
that have them, answers checked.

=====================  ==============================================  =====================
algorithm              graphblast                                      peers (answer check)
=====================  ==============================================  =====================
``core_number``        ``core_number``                                 networkit
                                                                       CoreDecomposition,
                                                                       igraph coreness,
                                                                       NetworkX (equal)
``k_truss``            ``k_truss(A, 5)``                               LAGraph's loop on
                                                                       SuiteSparse
                                                                       (python-graphblas),
                                                                       NetworkX (same edges)
``louvain``            ``louvain``                                     networkit PLM, igraph
                                                                       multilevel, NetworkX
                                                                       (a partition; its
                                                                       modularity recorded)
``leiden``             ``leiden``                                      networkit
                                                                       ParallelLeiden, igraph
                                                                       Leiden (as louvain)
``label_propagation``  LDBC's CDLP, 10 rounds                          LDBC's CDLP in NumPy
                                                                       (``scipy``, equal);
                                                                       networkit
                                                                       PLP and igraph's label
                                                                       propagation timed
                                                                       only: other algorithms
``lcc``                ``local_clustering_coefficient``                networkit, igraph,
                                                                       NetworkX (close)
``katz``               ``katz_centrality``, alpha = 1 / (dmax + 1)     SciPy's sparse
                                                                       products (the same
                                                                       iteration), NetworkX
                                                                       (close, norm 1);
                                                                       networkit's Katz
                                                                       (another scaling)
                                                                       timed only
``eigenvector``        ``eigenvector_centrality``                      networkit, igraph,
                                                                       SciPy (as katz),
                                                                       NetworkX (close)
``scc``                ``strongly_connected_components`` on the graph  networkit, igraph,
                       with each edge oriented one way (by the         SciPy (same partition)
                       parity of its ends' sum)
=====================  ==============================================  =====================

A peer's time counts toward the speedup only where its answer passed the check
(``checked``); the summary's ``breadth_min_speedup_vs_best_peer`` is the smallest, over the
algorithms and graphs, of the fastest checked peer's time over graphblast's.
``louvain_modularity_vs_networkit`` is the smallest ratio of graphblast's Louvain modularity
to networkit PLM's, and ``louvain_rgg_22_s`` graphblast's Louvain time on rgg-22.
"""

import os
import time

import numpy as np

from . import graphs
from .peers._base import synchronize_device

__all__ = ["ALGORITHMS", "SUMMARY_KEYS", "run_breadth"]

ALGORITHMS = ("core_number", "k_truss", "louvain", "leiden", "label_propagation", "lcc",
              "katz", "eigenvector", "scc")
SUMMARY_KEYS = ("breadth_min_speedup_vs_best_peer", "louvain_modularity_vs_networkit",
                "louvain_rgg_22_s")
PEERS = ("networkit", "igraph", "suitesparse", "scipy", "networkx")
#: CDLP's rounds (LDBC's usual setting), the truss's k, the centralities' tolerances
CDLP_ROUNDS = 10
TRUSS_K = 5
CENTRALITY_TOL = 1e-10
#: How close the centralities must be (each scaled to Euclidean norm 1) to count as checked.
CENTRALITY_ATOL = 1e-5
#: NetworkX runs on graphs of at most this many stored entries.
NETWORKX_MAX_EDGES = 300_000


def _oriented(A):
    """Each undirected edge of ``A`` once: ``i -> j`` for ``i < j`` when ``i + j`` is even,
    ``j -> i`` when odd (a directed graph with cycles, for SCC)."""
    from graphblast import binary, indexunary, select
    from graphblast.dtypes import INT64

    parity = A.apply(indexunary.rowindex).new(INT64)
    parity(binary.plus) << A.apply(indexunary.colindex)
    odd = parity.apply(binary.band, right=1).new()
    upper = select.triu(odd, 1).new().select(select.valueeq, 0).new()
    lower = select.tril(odd, -1).new().select(select.valueeq, 1).new()
    return upper.ewise_add(lower, binary.first).new().apply(binary.pair, right=True).new()


def _ours(algorithm, A, D, alpha):
    from graphblast import algorithms as alg

    return {
        "core_number": lambda: alg.core_number(A),
        "k_truss": lambda: alg.k_truss(A, TRUSS_K),
        "louvain": lambda: alg.louvain(A),
        "leiden": lambda: alg.leiden(A),
        "label_propagation": lambda: alg.label_propagation(A, CDLP_ROUNDS),
        "lcc": lambda: alg.local_clustering_coefficient(A),
        "katz": lambda: alg.katz_centrality(A, alpha=alpha, tol=CENTRALITY_TOL),
        "eigenvector": lambda: alg.eigenvector_centrality(A, tol=CENTRALITY_TOL,
                                                          max_iter=10_000),
        "scc": lambda: alg.strongly_connected_components(D),
    }[algorithm]


def _our_answer(algorithm, raw):
    if algorithm == "k_truss":
        return int(raw.nvals)
    return raw.to_dense()


def _cdlp_numpy(rows, cols, n, rounds):
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


def _power_iteration(M, algorithm, alpha, max_iter=10_000):
    """NetworkX's Katz and eigenvector iterations written with SciPy's sparse products (what
    a SciPy user writes; SciPy has no such function)."""
    n = M.shape[0]
    x = np.zeros(n) if algorithm == "katz" else np.full(n, 1.0 / max(n, 1))
    for _ in range(max_iter):
        if algorithm == "katz":
            new = alpha * (M.T @ x) + 1.0
        else:
            new = x + M.T @ x
            new /= np.linalg.norm(new) or 1.0
        if np.abs(new - x).sum() < n * CENTRALITY_TOL:
            return new
        x = new
    return x


class _Graph:
    """Host forms of one benchmark graph for the peers, built when first asked for."""

    def __init__(self, graph, D):
        self.graph, self.D, self.n = graph, D, graph.n
        self._made = {}

    def get(self, key, make):
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    def coo(self):
        return self.get("coo", self.graph.coo)

    def edges(self):
        return self.get("edges", lambda: self.graph.edges()[:2])

    def arcs(self):
        def make():
            rows, cols, _ = self.D.to_coo()
            return rows.astype(np.int64), cols.astype(np.int64)
        return self.get("arcs", make)


def _peer_tasks(name, algorithm, host, alpha):
    """A callable timing ``algorithm`` in peer ``name`` and one turning its output into the
    NumPy form of ``_our_answer``; None where the peer has no such algorithm."""
    n = host.n
    if name == "networkit":
        import networkit as nk

        nk.setNumberOfThreads(os.cpu_count() or 1)

        def undirected():
            u, v = host.edges()
            return nk.GraphFromCoo((u.astype(np.uint64), v.astype(np.uint64)), n=n,
                                   directed=False)
        G = host.get("nk", undirected) if algorithm != "scc" else None
        run = {
            "core_number": lambda: nk.centrality.CoreDecomposition(G).run().scores(),
            "louvain": lambda: nk.community.PLM(G, refine=False).run().getPartition()
            .getVector(),
            "leiden": lambda: nk.community.ParallelLeiden(G).run().getPartition().getVector(),
            "label_propagation": lambda: nk.community.PLP(G).run().getPartition().getVector(),
            "lcc": lambda: nk.centrality.LocalClusteringCoefficient(G).run().scores(),
            "katz": lambda: nk.centrality.KatzCentrality(G, alpha, 1.0, CENTRALITY_TOL).run()
            .scores(),
            "eigenvector": lambda: nk.centrality.EigenvectorCentrality(G, CENTRALITY_TOL).run()
            .scores(),
        }.get(algorithm)
        if algorithm == "scc":
            def directed():
                r, c = host.arcs()
                return nk.GraphFromCoo((r.astype(np.uint64), c.astype(np.uint64)), n=n,
                                       directed=True)
            D = host.get("nkd", directed)
            run = lambda: nk.components.StronglyConnectedComponents(D).run()  # noqa: E731
            return run, lambda raw: np.asarray(raw.getPartition().getVector())
        return (run, np.asarray) if run else None
    if name == "igraph":
        import igraph as ig

        if algorithm == "scc":
            g = host.get("igd", lambda: ig.Graph(n=n, edges=np.column_stack(host.arcs()),
                                                 directed=True))
            return (lambda: g.connected_components(mode="strong").membership), np.asarray
        g = host.get("ig", lambda: ig.Graph(n=n, edges=np.column_stack(host.edges())))
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
        return (lambda: _cdlp_numpy(np.concatenate([r, c]), np.concatenate([c, r]), n,
                                    CDLP_ROUNDS)), np.asarray
    if name == "scipy" and algorithm in ("katz", "eigenvector"):
        M = host.get("csr", lambda: host.graph.csr())
        return (lambda: _power_iteration(M, algorithm, alpha)), np.asarray
    if name == "scipy" and algorithm == "scc":
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components

        r, c = host.arcs()
        M = host.get("sp", lambda: sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n)))
        return (lambda: connected_components(M, directed=True, connection="strong")[1]), \
            np.asarray
    if name == "networkx" and host.graph.nedges <= NETWORKX_MAX_EDGES:
        import networkx as nx

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
        run = {
            "core_number": (lambda: nx.core_number(G), dense),
            "k_truss": (lambda: nx.k_truss(G, TRUSS_K), lambda H: 2 * H.number_of_edges()),
            "louvain": (lambda: nx.community.louvain_communities(G, seed=1), partition),
            "lcc": (lambda: nx.clustering(G), dense),
            "katz": (lambda: nx.katz_centrality(G, alpha=alpha, tol=CENTRALITY_TOL), dense),
            "eigenvector": (lambda: nx.eigenvector_centrality(G, tol=CENTRALITY_TOL,
                                                              max_iter=10_000), dense),
        }.get(algorithm)
        return run
    return None


def _unit(x):
    x = np.asarray(x, dtype=np.float64)
    norm = np.linalg.norm(x)
    return x / norm if norm else x


def _modularity(host, labels):
    """Newman's modularity of a partition of the undirected graph (networkit's measure)."""
    u, v = host.edges()
    labels = np.asarray(labels)
    degree = np.bincount(u, minlength=host.n) + np.bincount(v, minlength=host.n)
    m = u.size
    if m == 0:
        return 0.0
    inside = np.count_nonzero(labels[u] == labels[v])
    _, inverse = np.unique(labels, return_inverse=True)
    totals = np.bincount(inverse, weights=degree)
    return float(inside / m - (totals ** 2).sum() / (4.0 * m * m))


def _check(algorithm, ours, theirs, host):
    """(checked, note): whether the peer's answer agrees with graphblast's."""
    from .check import canonical_labels

    if algorithm in ("core_number", "label_propagation"):
        same = np.array_equal(np.asarray(ours, dtype=np.int64),
                              np.asarray(theirs).astype(np.int64))
        return same, "" if same else "answers differ"
    if algorithm == "k_truss":
        return ours == theirs, f"{ours} vs {theirs} edges"
    if algorithm == "scc":
        same = np.array_equal(canonical_labels(ours), canonical_labels(theirs))
        return same, "" if same else "partitions differ"
    if algorithm in ("louvain", "leiden"):
        q = _modularity(host, theirs)
        return True, f"modularity {q:.4f}"
    a, b = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    if algorithm != "lcc":
        a, b = _unit(a), _unit(np.abs(b))
    error = float(np.abs(a - b).max()) if a.size else 0.0
    return error <= CENTRALITY_ATOL, f"max difference {error:.2g}"


def run_breadth(specs, device, *, repeat=3, warmup=1, time_limit=60.0, peers=PEERS,
                algorithms=ALGORITHMS, data_dir=None, progress=None, deadline=None):
    """Run the breadth benchmark; returns a JSON-able dict with ``results``, ``summary`` and
    ``summary_notes``.  Past ``deadline`` (a ``time.perf_counter()`` value) no graph is
    started; the graphs left out are listed under ``not_run``."""
    from .runner import time_call

    results, not_run = [], []
    say = progress or (lambda text: None)
    for spec in specs:
        if deadline is not None and time.perf_counter() > deadline:
            not_run.append(spec.name)
            continue
        graph = graphs.build(spec, device, data_dir)
        A = graph.A
        D = _oriented(A) if "scc" in algorithms else None
        host = _Graph(graph, D)
        degrees = np.diff(graph.indptr)
        alpha = 1.0 / (int(degrees.max(initial=0)) + 1)
        for algorithm in algorithms:
            entry = {"graph": spec.name, "algorithm": algorithm, "n": graph.n,
                     "nedges": graph.nedges, "peers": {}}
            try:
                timing, raw = time_call(_ours(algorithm, A, D, alpha),
                                        sync=lambda: synchronize_device(device),
                                        warmup=warmup, repeat=repeat, time_limit=time_limit,
                                        min_runs=1)
                ours = _our_answer(algorithm, raw)
                entry["graphblast"] = timing.to_dict()
            except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                entry["graphblast"] = {"error": f"{type(e).__name__}: {e}"[:600]}
                results.append(entry)
                continue
            if algorithm in ("louvain", "leiden"):
                entry["graphblast"]["modularity"] = _modularity(host, ours)
            for name in peers:
                try:
                    task = _peer_tasks(name, algorithm, host, alpha)
                    if task is None:
                        continue
                    run, convert = task
                    t0 = time.perf_counter()
                    raw = run()
                    seconds = time.perf_counter() - t0
                    checked, note = _check(algorithm, ours, convert(raw), host)
                    if algorithm == "label_propagation" and name in ("networkit", "igraph"):
                        checked, note = False, "another label propagation (asynchronous)"
                    record = {"seconds": seconds, "checked": bool(checked), "note": note}
                    if algorithm in ("louvain", "leiden"):
                        record["modularity"] = _modularity(host, convert(raw))
                    entry["peers"][name] = record
                except ImportError as e:
                    entry["peers"][name] = {"error": f"not installed: {e}"}
                except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                    entry["peers"][name] = {"error": f"{type(e).__name__}: {e}"[:600]}
            checked = [p["seconds"] for p in entry["peers"].values() if p.get("checked")]
            if checked:
                entry["best_peer_s"] = min(checked)
                entry["speedup"] = min(checked) / entry["graphblast"]["median_s"]
            say(f"{spec.name} {algorithm}: graphblast {entry['graphblast']['median_s']:.4f} s, "
                + ", ".join(f"{k} {v['seconds']:.4f} s{'' if v.get('checked') else ' (x)'}"
                            for k, v in entry["peers"].items() if "seconds" in v))
            results.append(entry)
        del graph, A, D, host
    summary, notes = summarize(results)
    if not_run:
        for key in SUMMARY_KEYS:
            notes[key] = (notes.get(key, "") + f"; graphs not run (deadline): "
                          f"{', '.join(not_run)}").lstrip("; ")
    return {"device": device, "not_run": not_run, "peers": list(peers),
            "params": {"cdlp_rounds": CDLP_ROUNDS, "truss_k": TRUSS_K,
                       "centrality_tol": CENTRALITY_TOL, "centrality_atol": CENTRALITY_ATOL},
            "results": results, "summary": summary, "summary_notes": notes}


def summarize(results):
    """The summary keys of SUMMARY_KEYS and a note for each that could not be computed."""
    summary, notes = {}, {}
    speedups = [(r["speedup"], r["graph"], r["algorithm"]) for r in results if "speedup" in r]
    missing = sorted({r["algorithm"] for r in results if "speedup" not in r})
    summary["breadth_min_speedup_vs_best_peer"] = min(speedups)[0] if speedups else None
    if speedups:
        worst = min(speedups)
        notes["breadth_min_speedup_vs_best_peer"] = (
            f"{worst[2]} on {worst[1]}" + (f"; no checked peer for {', '.join(missing)}"
                                           if missing else ""))
    ratios = [r["graphblast"]["modularity"] / r["peers"]["networkit"]["modularity"]
              for r in results if r["algorithm"] == "louvain" and "modularity" in
              r.get("graphblast", {}) and r["peers"].get("networkit", {}).get("modularity")]
    summary["louvain_modularity_vs_networkit"] = min(ratios) if ratios else None
    rgg = [r for r in results if r["algorithm"] == "louvain" and r["graph"] == "rgg-22"
           and "median_s" in r.get("graphblast", {})]
    summary["louvain_rgg_22_s"] = rgg[0]["graphblast"]["median_s"] if rgg else None
    for key in SUMMARY_KEYS:
        if summary[key] is None:
            notes.setdefault(key, "not measured in this run")
    return summary, notes
