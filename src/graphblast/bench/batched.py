"""The batched traversals' stage of ``graphblast bench`` (``--batched``): betweenness
centrality from k sampled sources and multi-source BFS on kron, and the masked mxm's
automatic direction step by step.

    python -m graphblast.bench --out DIR --algorithms none --batched [--device cuda]

writes ``DIR/batched.json`` (every figure, its checks and the summary keys below) and
``DIR/batched.md``.  What is measured:

* ``bc``: ``algorithms.betweenness_centrality`` from ``k`` sources sampled with the
  benchmark's seed on kron-S, against networkit's ``EstimateBetweenness`` with the same
  sample size on all cores (it draws its own sources; its time is linear in them, so where a
  run of all ``k`` would not fit the time limit it runs ``nk_samples`` and the figure is
  scaled, with a note).  Checked on smaller graphs of the family, where the peers can run:
  exact BC against networkit's exact ``Betweenness`` (or igraph's), and sampled BC with the
  same sources against NetworkX (whose sampling graphblast follows).
* ``msbfs``: one ``bfs`` call from ``nsources`` vertices against ``nsources`` single-source
  calls; every row checked against its single-source answer.
* ``direction``: every step of the multi-source BFS on kron-S and grid-G (every ``stride``-th
  step on the grid) timed three ways on the same frontier - forced push, forced pull, and
  the automatic choice - and the worst step's automatic time over the better forced one.
  Push is not timed where it would walk more than PUSH_TIMED_EDGES entries of A (the
  degree sum of the frontier's vertices, times the 64-source words of the batch); the
  step's figure is then auto over pull, with a note.
"""

import json
import logging
import os
import random

import numpy as np

from . import graphs
from .runner import time_call

__all__ = ["SUMMARY_KEYS", "cli_defaults", "markdown", "run"]

SUMMARY_KEYS = ("bc_kron_22_k1024_s", "bc_kron_22_k1024_vs_networkit",
                "msbfs_kron_22_64_vs_single", "mxm_auto_direction_worst_step_ratio")
# Forced push is timed where it walks at most this many entries of A (its packed words'
# rows: the whole of kron-22's 2^27 entries and a little more).
PUSH_TIMED_EDGES = 1 << 28


class _Choices(logging.Handler):
    """Collects the reasons of the mxm direction choices logged while it is attached."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        message = record.getMessage()
        if message.startswith("mxm direction"):
            self.lines.append(message)


def _sync(device):
    from .peers._base import synchronize_device

    return lambda: synchronize_device(device)


def _edges(graph):
    """Each undirected edge once (u < v), int64."""
    rows, cols = graph.coo()
    keep = rows < cols
    return rows[keep], cols[keep]


def _sample(n, k, seed):
    return random.Random(seed).sample(range(n), min(k, n))


def _connected_sources(graph, count, seed):
    nonisolated = np.flatnonzero(graph.degrees > 0)
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.choice(nonisolated, size=min(count, nonisolated.size),
                                       replace=False)]


def measure_bc(graph, k, sync, repeat, networkit, nk_samples, time_limit):
    from graphblast import algorithms as alg

    sources = _sample(graph.n, k, graphs.BENCH_SEED)
    timing, bc = time_call(lambda: alg.betweenness_centrality(graph.A, sources=sources,
                                                              normalized=False),
                           sync=sync, repeat=repeat, min_runs=1, time_limit=time_limit)
    rec = {"graph": graph.name, "k": len(sources), "graphblast": timing.to_dict()}
    if networkit is None:
        rec["networkit"] = {"note": "networkit is not installed"}
        return rec
    nk = networkit
    G = nk.GraphFromCoo(tuple(x.astype(np.uint64) for x in _edges(graph)), n=graph.n,
                        directed=False)
    samples = min(nk_samples or len(sources), len(sources))

    def estimate():
        algo = nk.centrality.EstimateBetweenness(G, samples, False, True)
        algo.run()
        return algo.scores()

    t, _ = time_call(estimate, repeat=1, warmup=0, min_runs=1)
    scale = len(sources) / samples
    rec["networkit"] = {"samples": samples, "threads": int(nk.getMaxNumberOfThreads()),
                        "median_s": t.median * scale, "measured_s": t.median}
    if scale != 1:
        rec["networkit"]["note"] = (f"EstimateBetweenness ran {samples} samples in "
                                    f"{t.median:.3f} s; its time for {len(sources)} is that "
                                    f"x {scale:g} (linear in the samples)")
    rec["vs_networkit"] = rec["networkit"]["median_s"] / timing.median
    return rec


def check_bc(device, scale, k, networkit):
    """The answers' checks on kron-``scale`` (exact) and kron-``scale - 4`` (sampled, at most
    a quarter of its vertices: NetworkX runs them)."""
    import networkx as nx

    from graphblast import algorithms as alg

    checks = []
    small = graphs.build(graphs.GraphSpec("kron", scale), device)
    exact = np.asarray(alg.betweenness_centrality(small.A, normalized=False).to_dense(fill_value=0.0))
    u, v = _edges(small)
    if networkit is not None:
        G = networkit.GraphFromCoo((u.astype(np.uint64), v.astype(np.uint64)), n=small.n,
                                   directed=False)
        algo = networkit.centrality.Betweenness(G, False)
        algo.run()
        want, peer = np.asarray(algo.scores()), "networkit Betweenness (ordered pairs)"
    else:
        import igraph

        G = igraph.Graph(n=small.n, edges=np.stack([u, v], axis=1).tolist(), directed=False)
        # igraph counts each unordered pair once
        want = np.asarray(G.betweenness(directed=False)) * 2
        peer = "igraph betweenness (x 2: unordered pairs)"
    checks.append(_compare(f"exact BC, {small.name}", peer, exact, want))
    tiny = graphs.build(graphs.GraphSpec("kron", max(scale - 4, 2)), device)
    kk = max(1, min(k, tiny.n // 4))
    got = np.asarray(alg.betweenness_centrality(tiny.A, k=kk, seed=graphs.BENCH_SEED)
                     .to_dense(fill_value=0.0))
    G = nx.Graph()
    G.add_nodes_from(range(tiny.n))
    G.add_edges_from(zip(*(x.tolist() for x in _edges(tiny))))
    ref = nx.betweenness_centrality(G, k=kk, seed=graphs.BENCH_SEED)
    want = np.array([ref[i] for i in range(tiny.n)])
    checks.append(_compare(f"BC from {kk} sampled sources, {tiny.name}",
                           "NetworkX, same sources", got, want))
    return checks


def _compare(what, peer, got, want):
    err = float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))) if got.size else 0.0
    return {"what": what, "against": peer, "max_rel_error": err, "passed": err <= 1e-9}


def measure_msbfs(graph, nsources, sync, repeat):
    from graphblast import algorithms as alg

    sources = _connected_sources(graph, nsources, graphs.BENCH_SEED)
    batched, levels = time_call(lambda: alg.bfs(graph.A, sources), sync=sync, repeat=repeat,
                                min_runs=1)
    singles, answers = time_call(lambda: [alg.bfs(graph.A, s) for s in sources], sync=sync,
                                 repeat=repeat, min_runs=1)
    rows, cols, vals = (np.asarray(x) for x in levels.to_coo())
    if rows.size and not (rows[1:] >= rows[:-1]).all():
        order = np.lexsort((cols, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
    # each row's entries by two searches (a pass over 150 million levels a row took seconds)
    bounds = np.searchsorted(rows, np.arange(len(sources) + 1))
    passed = True
    for r, single in enumerate(answers):
        idx, lv = (np.asarray(x) for x in single.to_coo())
        part = slice(bounds[r], bounds[r + 1])
        passed &= bool(np.array_equal(cols[part], idx) and np.array_equal(vals[part], lv))
    return {"graph": graph.name, "sources": len(sources), "batched": batched.to_dict(),
            "singles": singles.to_dict(), "vs_single": singles.median / batched.median,
            "check": {"against": "each source's single-source bfs", "passed": passed}}


def measure_direction(graph, nsources, sync, repeat, stride=1):
    """Each step of the multi-source BFS timed forced push, forced pull and auto."""
    import graphblast as gb
    from graphblast import Matrix, Vector, binary, monoid, semiring, unary
    from graphblast.dtypes import BOOL, INT64

    sources = _connected_sources(graph, nsources, graphs.BENCH_SEED)
    A, n, ns = graph.A, graph.n, len(sources)
    levels = Matrix(INT64, ns, n, device=A.device)
    frontier = Matrix.from_coo(range(ns), sources, True, BOOL, nrows=ns, ncols=n,
                               device=A.device)
    any_pair = semiring.any_pair[BOOL]
    steps, depth = [], 0
    degrees = Vector.from_dense(np.asarray(graph.degrees, dtype=np.int64), device=A.device)
    handler = _Choices()
    logger = logging.getLogger("graphblast")
    while frontier.nvals:
        levels(frontier.S) << depth
        if depth % stride == 0:
            # push's products, the frontier's degree sum, on the device (a frontier's
            # entries copied to the host took longer than the step)
            counts = frontier.apply(unary.one[INT64]).new().reduce_columnwise(monoid.plus)
            counts = counts.new()
            products = int(counts.ewise_mult(degrees, binary.times).new()
                           .reduce(monoid.plus).new().value or 0)
            # a structural batch pushes a vertex's row once for 64 sources (packed words)
            edges = int(counts.apply(unary.one[INT64]).new().ewise_mult(degrees, binary.times)
                        .new().reduce(monoid.plus).new().value or 0) * -(-ns // 64)
            step = {"step": depth, "frontier": int(frontier.nvals), "push_products": products,
                    "push_edges": edges}
            for direction in ("pull", "push", "auto"):
                if direction == "push" and edges > PUSH_TIMED_EDGES:
                    step["push_note"] = (f"not timed: {edges:,} entries > "
                                         f"{PUSH_TIMED_EDGES:,}")
                    continue
                with gb.config.set(direction=direction):
                    t, _ = time_call(lambda: frontier.mxm(A, any_pair).new(mask=~levels.S),
                                     sync=sync, repeat=repeat, min_runs=1)
                step[f"{direction}_s"] = t.median
            logger.addHandler(handler)
            old = logger.level
            logger.setLevel(logging.DEBUG)
            try:
                frontier.mxm(A, any_pair).new(mask=~levels.S)
            finally:
                logger.setLevel(old)
                logger.removeHandler(handler)
            step["auto_reason"] = handler.lines[-1] if handler.lines else ""
            better = min(x for x in (step.get("push_s"), step["pull_s"]) if x is not None)
            step["auto_over_better"] = step["auto_s"] / better
            steps.append(step)
        depth += 1
        frontier = frontier.mxm(A, any_pair).new(mask=~levels.S)
    worst = max(steps, key=lambda s: s["auto_over_better"]) if steps else None
    return {"graph": graph.name, "sources": ns, "depth": depth, "stride": stride,
            "steps": steps, "worst_ratio": worst["auto_over_better"] if worst else None,
            "worst_step": worst["step"] if worst else None}


def run(out, device, *, kron_scale=22, grid_size=2048, k=1024, nsources=64, repeat=3,
        check_scale=14, nk_samples=None, time_limit=120.0, parts=("bc", "msbfs", "direction"),
        progress=None):
    """Measure the stage and write ``out/batched.json`` and ``out/batched.md``; returns the
    document."""
    def say(text):
        if progress is not None:
            print(f"[batched] {text}", file=progress, flush=True)

    try:
        import networkit
        networkit.setNumberOfThreads(os.cpu_count() or 1)
    except ImportError:
        networkit = None
    sync = _sync(device)
    os.makedirs(out, exist_ok=True)

    def save():
        checks = doc.get("bc_checks", []) + ([doc["msbfs"]["check"]] if "msbfs" in doc else [])
        doc["all_checks_passed"] = all(c["passed"] for c in checks)
        for name, text in (("batched.json", json.dumps(doc, indent=1, default=float)),
                           ("batched.md", markdown(doc))):
            with open(os.path.join(out, name + ".tmp"), "w") as f:
                f.write(text)
            os.replace(os.path.join(out, name + ".tmp"), os.path.join(out, name))

    doc = {"device": device, "kron_scale": kron_scale, "grid_size": grid_size, "k": k,
           "nsources": nsources, "seed": graphs.BENCH_SEED, "summary": {}, "notes": {}}
    kron = graphs.build(graphs.GraphSpec("kron", kron_scale), device)
    doc["kron"] = kron.describe()
    tag = f"kron_{kron_scale}"
    if "msbfs" in parts:
        say(f"{nsources}-source BFS on {kron.name}")
        doc["msbfs"] = measure_msbfs(kron, nsources, sync, repeat)
        doc["summary"][f"msbfs_{tag}_{nsources}_vs_single"] = doc["msbfs"]["vs_single"]
        save()
    if "bc" in parts:
        say(f"BC checks on kron-{check_scale}")
        doc["bc_checks"] = check_bc(device, check_scale, k, networkit)
        save()
        say(f"BC k={k} on {kron.name}")
        doc["bc"] = measure_bc(kron, k, sync, repeat, networkit, nk_samples, time_limit)
        doc["summary"][f"bc_{tag}_k{k}_s"] = doc["bc"]["graphblast"]["median_s"]
        doc["summary"][f"bc_{tag}_k{k}_vs_networkit"] = doc["bc"].get("vs_networkit")
        save()
    if "direction" in parts:
        say(f"direction per step on {kron.name}")
        doc["direction"] = [measure_direction(kron, nsources, sync, repeat)]
        save()
        grid = graphs.build(graphs.GraphSpec("grid", grid_size), device)
        say(f"direction per step on {grid.name}")
        doc["direction"].append(measure_direction(grid, nsources, sync, repeat,
                                                  stride=max(1, grid_size // 16)))
        ratios = [d["worst_ratio"] for d in doc["direction"] if d["worst_ratio"] is not None]
        doc["summary"]["mxm_auto_direction_worst_step_ratio"] = max(ratios) if ratios else None
    save()
    return doc


def markdown(doc):
    lines = ["| figure | value |", "|---|---|"]
    for key, value in doc["summary"].items():
        lines.append(f"| {key} | {'null' if value is None else f'{value:.4g}'} |")
    for d in doc.get("direction", []):
        lines += ["", f"{d['graph']}, {d['sources']}-source BFS, depth {d['depth']} "
                      f"(every {d['stride']} step timed): seconds per step", "",
                  "| step | frontier | push products | push entries | push | pull | auto "
                  "| auto / better |",
                  "|---|---|---|---|---|---|---|---|"]
        for s in d["steps"]:
            push = f"{s['push_s']:.4g}" if "push_s" in s else "-"
            lines.append(f"| {s['step']} | {s['frontier']} | {s['push_products']} | "
                         f"{s.get('push_edges', '-')} | {push} | "
                         f"{s['pull_s']:.4g} | {s['auto_s']:.4g} | "
                         f"{s['auto_over_better']:.3f} |")
    for c in doc.get("bc_checks", []):
        lines.append(f"\ncheck: {c['what']} against {c['against']}: max relative error "
                     f"{c['max_rel_error']:.3g} ({'passed' if c['passed'] else 'FAILED'})")
    return "\n".join(lines) + "\n"


def cli_defaults(smoke):
    """The stage's sizes for a full run and for --smoke (CPU, seconds)."""
    if smoke:
        return {"kron_scale": 10, "grid_size": 32, "k": 32, "nsources": 8, "check_scale": 8,
                "nk_samples": 32, "repeat": 1}
    return {}


