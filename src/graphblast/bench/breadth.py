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

Each peer runs in a worker process of its own (:mod:`.breadth_peers`), stopped after
``peer_factor`` times graphblast's median: a peer that runs out is recorded with its limit.
A peer's time counts toward the speedup only where its answer passed the check
(``checked``); where every peer that could be checked ran out, the speedup is the limit over
graphblast's time, marked ``speedup_is_lower_bound``.  The summary's
``breadth_min_speedup_vs_best_peer`` is the smallest, over the algorithms and graphs, of the
fastest checked peer's time over graphblast's.
``louvain_modularity_vs_networkit`` is the smallest ratio of graphblast's Louvain modularity
to networkit PLM's, and ``louvain_rgg_22_s`` graphblast's Louvain time on rgg-22.
"""

import tempfile
import time

import numpy as np

from . import graphs
from .breadth_peers import (CDLP_ROUNDS, EIGENVECTOR_MAX_ITER, EIGENVECTOR_TOL, KATZ_TOL,
                            NETWORKX_MAX_EDGES, PEER_ALGORITHMS, TRUSS_K, HostGraph,
                            PeerWorker, write_graph)
from .peers._base import synchronize_device

__all__ = ["ALGORITHMS", "SUMMARY_KEYS", "merge", "run_breadth", "summarize"]

ALGORITHMS = ("core_number", "k_truss", "louvain", "leiden", "label_propagation", "lcc",
              "katz", "eigenvector", "scc")
SUMMARY_KEYS = ("breadth_min_speedup_vs_best_peer", "louvain_modularity_vs_networkit",
                "louvain_rgg_22_s")
PEERS = ("networkit", "igraph", "suitesparse", "scipy", "networkx")
#: How close the centralities must be (each scaled to Euclidean norm 1) to count as checked.
CENTRALITY_ATOL = 1e-5
#: A peer's run is stopped after this many times graphblast's median (within the floor and
#: the cap of run_breadth): one that runs out is slower than that, which the record says.
PEER_FACTOR = 10.0
PEER_FLOOR_S = 1.0
#: Peers whose algorithm is another one than graphblast's: timed, never counted.
TIMED_ONLY = {("label_propagation", "networkit"): "another label propagation (asynchronous)",
              ("label_propagation", "igraph"): "another label propagation (asynchronous)",
              ("katz", "networkit"): "another scaling of Katz centrality"}


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
        "katz": lambda: alg.katz_centrality(A, alpha=alpha, tol=KATZ_TOL),
        "eigenvector": lambda: alg.eigenvector_centrality(A, tol=EIGENVECTOR_TOL,
                                                          max_iter=EIGENVECTOR_MAX_ITER),
        "scc": lambda: alg.strongly_connected_components(D),
    }[algorithm]


def _our_answer(algorithm, raw):
    if algorithm == "k_truss":
        return int(raw.nvals)
    return raw.to_dense()


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


def _peer_record(name, algorithm, out, ours, host):
    """The record of one peer's run (``out`` from PeerWorker.run)."""
    if "timed_out" in out:
        stage, limit = out["timed_out"], out["limit_s"]
        return {"timed_out": stage, "limit_s": limit, "checked": False,
                "note": f"ran out: its {stage} passed the limit of {limit:.3g} s"}
    if "error" in out:
        return {"error": out["error"]}
    checked, note = _check(algorithm, ours, out["answer"], host)
    if (algorithm, name) in TIMED_ONLY:
        checked, note = False, TIMED_ONLY[algorithm, name]
    record = {"seconds": out["seconds"], "setup_s": out["setup_s"], "checked": bool(checked),
              "note": note}
    if algorithm in ("louvain", "leiden"):
        record["modularity"] = _modularity(host, out["answer"])
    return record


def _measure(algorithm, spec, graph, A, D, host, workers, alpha, options):
    """One (algorithm, graph) entry: graphblast timed, then each peer under its limit."""
    from .runner import time_call

    entry = {"graph": spec.name, "algorithm": algorithm, "n": graph.n,
             "nedges": graph.nedges, "peers": {}}
    try:
        timing, raw = time_call(_ours(algorithm, A, D, alpha),
                                sync=lambda: synchronize_device(graph.device),
                                warmup=options["warmup"], repeat=options["repeat"],
                                time_limit=options["time_limit"], min_runs=1)
        ours = _our_answer(algorithm, raw)
        entry["graphblast"] = timing.to_dict()
    except Exception as e:  # noqa: BLE001 - recorded, the run goes on
        entry["graphblast"] = {"error": f"{type(e).__name__}: {e}"[:600]}
        return entry
    if algorithm in ("louvain", "leiden"):
        entry["graphblast"]["modularity"] = _modularity(host, ours)
    median = entry["graphblast"]["median_s"]
    limit = min(options["peer_cap"], max(PEER_FLOOR_S, options["peer_factor"] * median))
    entry["peer_limit_s"] = limit
    for name, worker in workers.items():
        if algorithm not in PEER_ALGORITHMS[name] or (
                name == "networkx" and graph.nedges > NETWORKX_MAX_EDGES):
            continue
        try:
            entry["peers"][name] = _peer_record(name, algorithm,
                                                worker.run(algorithm, alpha, limit), ours, host)
        except Exception as e:  # noqa: BLE001 - recorded, the run goes on
            worker.close()
            entry["peers"][name] = {"error": f"{type(e).__name__}: {e}"[:600]}
    peers = entry["peers"]
    checked = [p["seconds"] for p in peers.values() if p.get("checked")]
    ran_out = [n for n, p in peers.items() if p.get("timed_out") == "run"
               and (algorithm, n) not in TIMED_ONLY]
    if checked:
        entry["best_peer_s"] = min(checked)
        entry["speedup"] = min(checked) / median
    elif ran_out:  # every comparable peer that finished setting up ran past the limit
        entry["speedup"] = limit / median
        entry["speedup_is_lower_bound"] = True
    return entry


def _say(say, entry):
    ours = entry["graphblast"]
    if "error" in ours:
        say(f"{entry['graph']} {entry['algorithm']}: graphblast failed: {ours['error']}")
        return
    peers = []
    for name, p in entry["peers"].items():
        if "seconds" in p:
            peers.append(f"{name} {p['seconds']:.4f} s{'' if p['checked'] else ' (x)'}")
        elif "timed_out" in p:
            peers.append(f"{name} ran out ({p['timed_out']}, {p['limit_s']:.3g} s)")
        else:
            peers.append(f"{name} failed")
    say(f"{entry['graph']} {entry['algorithm']}: graphblast {ours['median_s']:.4f} s, "
        + ", ".join(peers))


def run_breadth(specs, device, *, repeat=3, warmup=1, time_limit=60.0, peers=PEERS,
                algorithms=ALGORITHMS, data_dir=None, progress=None, deadline=None,
                peer_factor=PEER_FACTOR, peer_cap=120.0, setup_limit=60.0, on_entry=None):
    """Run the breadth benchmark; returns a JSON-able dict with ``results``, ``summary`` and
    ``summary_notes``.

    graphblast's runs stay within ``time_limit`` seconds per (algorithm, graph) (at least one
    timed run after the warm-up).  Each peer runs in a worker process of its own
    (:mod:`.breadth_peers`), stopped after ``peer_factor`` times graphblast's median (at
    least PEER_FLOOR_S, at most ``peer_cap``) and, for building its graph, after
    ``setup_limit``.  Past ``deadline`` (a ``time.perf_counter()`` value) nothing new is
    started; what is left out is listed under ``not_run`` (``graph`` or
    ``graph/algorithm``).  ``on_entry(doc)``, where given, gets the document so far after
    every entry (to save it: a run stopped from outside keeps what it measured)."""
    results, not_run = [], []
    say = progress or (lambda text: None)
    options = {"warmup": warmup, "repeat": repeat, "time_limit": time_limit,
               "peer_factor": peer_factor, "peer_cap": peer_cap}
    for spec in specs:
        if deadline is not None and time.perf_counter() > deadline:
            not_run.append(spec.name)
            continue
        graph = graphs.build(spec, device, data_dir)
        A = graph.A
        D = _oriented(A) if "scc" in algorithms else None
        itype = graph.indices.dtype
        arcs = tuple(graphs.to_host_array(x).astype(itype) for x in D.to_coo()[:2]) \
            if D is not None else (np.zeros(0, itype),) * 2
        host = HostGraph(graph.n, graph.indptr, graph.indices, arcs)
        alpha = 1.0 / (int(np.diff(graph.indptr).max(initial=0)) + 1)
        with tempfile.TemporaryDirectory(prefix="graphblast-breadth-") as folder:
            write_graph(folder, graph.n, graph.indptr, graph.indices, arcs)
            workers = {name: PeerWorker(name, folder, setup_limit) for name in peers}
            try:
                for algorithm in algorithms:
                    if deadline is not None and time.perf_counter() > deadline:
                        not_run.append(f"{spec.name}/{algorithm}")
                        continue
                    entry = _measure(algorithm, spec, graph, A, D, host, workers, alpha,
                                     options)
                    _say(say, entry)
                    results.append(entry)
                    if on_entry is not None:
                        on_entry(_document(device, peers, results, not_run, options,
                                           setup_limit, complete=False))
            finally:
                for worker in workers.values():
                    worker.close()
        del graph, A, D, host
    return _document(device, peers, results, not_run, options, setup_limit)


def _document(device, peers, results, not_run, options, setup_limit, complete=True):
    summary, notes = summarize(results)
    if not_run:
        for key in SUMMARY_KEYS:
            notes[key] = (notes.get(key, "") + f"; not run (deadline): "
                          f"{', '.join(not_run)}").lstrip("; ")
    return {"device": device, "complete": complete, "not_run": list(not_run),
            "peers": list(peers),
            "params": {"cdlp_rounds": CDLP_ROUNDS, "truss_k": TRUSS_K, "katz_tol": KATZ_TOL,
                       "eigenvector_tol": EIGENVECTOR_TOL,
                       "eigenvector_max_iter": EIGENVECTOR_MAX_ITER,
                       "centrality_atol": CENTRALITY_ATOL,
                       "peer_factor": options["peer_factor"], "peer_floor_s": PEER_FLOOR_S,
                       "peer_cap_s": options["peer_cap"], "peer_setup_limit_s": setup_limit,
                       "time_limit_s": options["time_limit"], "repeat": options["repeat"]},
            "results": list(results), "summary": summary, "summary_notes": notes}


def summarize(results):
    """The summary keys of SUMMARY_KEYS and a note for each that could not be computed."""
    summary, notes = {}, {}
    speedups = [(r["speedup"], r["graph"], r["algorithm"], r.get("speedup_is_lower_bound"))
                for r in results if "speedup" in r]
    missing = [f"{r['algorithm']} on {r['graph']}" for r in results if "speedup" not in r]
    bounds = [f"{a} on {g}" for _, g, a, bound in speedups if bound]
    summary["breadth_min_speedup_vs_best_peer"] = min(speedups)[0] if speedups else None
    if speedups:
        worst = min(speedups)
        notes["breadth_min_speedup_vs_best_peer"] = "; ".join(
            [f"{worst[2]} on {worst[1]}" + (" (a lower bound)" if worst[3] else "")]
            + ([f"lower bounds (every comparable peer ran out): {', '.join(bounds)}"]
               if bounds else [])
            + ([f"no checked peer: {', '.join(missing)}"] if missing else []))
    elif missing:
        notes["breadth_min_speedup_vs_best_peer"] = f"no checked peer: {', '.join(missing)}"
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


def merge(docs):
    """One breadth document from several runs' (in order): for each (algorithm, graph) the
    entry of the last run that has it, the summary computed again over them.  Each entry
    keeps its own run's times, so every speedup stays a ratio measured in one run."""
    entries, order, parts = {}, [], []
    for doc in docs:
        parts.append({k: doc.get(k) for k in ("device", "complete", "not_run", "peers",
                                              "params")})
        for entry in doc.get("results", []):
            key = (entry["graph"], entry["algorithm"])
            if key not in entries:
                order.append(key)
            entries[key] = entry
    measured = {g for g, _ in entries}

    def missing(name):  # "graph" or "graph/algorithm", measured by no run
        graph, _, algorithm = name.partition("/")
        return (graph, algorithm) not in entries if algorithm else graph not in measured
    not_run = sorted({x for doc in docs for x in doc.get("not_run", []) if missing(x)})
    results = [entries[k] for k in order]
    summary, notes = summarize(results)
    if not_run:
        for key in SUMMARY_KEYS:
            notes[key] = (notes.get(key, "") + f"; not run (deadline): "
                          f"{', '.join(not_run)}").lstrip("; ")
    return {"device": docs[-1].get("device"), "complete": all(p["complete"] is not False
                                                              for p in parts),
            "not_run": not_run, "parts": parts, "results": results, "summary": summary,
            "summary_notes": notes}
