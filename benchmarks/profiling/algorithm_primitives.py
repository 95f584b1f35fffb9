"""Where does an algorithm's GPU time go, primitive by primitive? wall time warm, then the same run with every backend
primitive timed (synchronized before and after, so each primitive's figure includes its own
host reads), the host-read count, and a Python profile.  A development instrument beside
``graphblast bench``; answers are checked against SciPy where cheap.

    python3 benchmarks/profiling/algorithm_primitives.py --out $OUT --graphs kron-22,urand-22 --algos cc,sssp

Algorithms: bfs, cc, sssp, tc, pagerank, louvain, msbfs and bc (multi-source BFS and
betweenness centrality from ``--sources`` vertices, also timed kernel by kernel into
kernels.txt).
"""

import argparse
import cProfile
import io
import os
import pstats
import time

import cupy as cp
import numpy as np

from graphblast import algorithms
from graphblast.backends import get_backend
from graphblast.bench import graphs

from engine_kernels import (kernel_profile, sync, timed,  # this folder's engine_kernels.py
                            wall_and_reads)


def primitive_profile(backend, run, calls=None):
    """Seconds and calls per backend primitive during ``run()``; ``calls``, a list: each
    call's (name, seconds) appended in order."""
    per = {}
    saved = {}
    for name, fn in list(vars(backend).items()):
        if not callable(fn) or name.startswith("_"):
            continue
        saved[name] = fn

        def timed(*a, _fn=fn, _name=name, **k):
            sync()
            t0 = time.perf_counter()
            try:
                return _fn(*a, **k)
            finally:
                sync()
                dt = time.perf_counter() - t0
                s, c = per.get(_name, (0.0, 0))
                per[_name] = (s + dt, c + 1)
                if calls is not None:
                    calls.append((_name, dt))
        setattr(backend, name, timed)
    try:
        wall, reads = wall_and_reads(run)
    finally:
        for name, fn in saved.items():
            setattr(backend, name, fn)
    return wall, reads, per


def report(label, run, backend, out, trace=False):
    median, times = timed(run, repeat=3)
    calls = [] if trace else None
    wall, reads, per = primitive_profile(backend, run, calls)
    lines = [f"== {label}: warm {median * 1e3:.2f} ms (runs "
             + ", ".join(f"{t * 1e3:.1f}" for t in times)
             + f"); synchronized {wall * 1e3:.2f} ms, {reads} host reads"]
    total = 0.0
    for name, (s, c) in sorted(per.items(), key=lambda kv: -kv[1][0]):
        total += s
        lines.append(f"  {name:24s} {c:6d} calls {s * 1e3:10.2f} ms")
    lines.append(f"  {'(outside primitives)':24s} {'':6s}       {(wall - total) * 1e3:10.2f} ms")
    if trace:  # every call in order (nested ones, such as a primitive calling another, too)
        lines.append("  calls in order: " + ", ".join(f"{name} {dt * 1e3:.2f}"
                                                       for name, dt in calls))
    prof = cProfile.Profile()
    prof.enable()
    run()
    sync()
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
    text = "\n".join(lines)
    print(text, flush=True)
    with open(os.path.join(out, "algos_profile.txt"), "a") as f:
        f.write(text + "\n")
    with open(os.path.join(out, "algos_pyprofile.txt"), "a") as f:
        f.write(f"==== {label}\n" + s.getvalue())


def check_cc(graph, labels):
    if graph.nedges > 2**31 - 1:  # SciPy's csgraph takes 32-bit indices only
        return "not checked (past SciPy's 32-bit indices; the bench certifies it)"
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csgraph

    M = sp.csr_array((np.ones(graph.nedges, np.int8), graph.indices, graph.indptr),
                     shape=(graph.n, graph.n))
    _, lab = csgraph.connected_components(M, directed=True, connection="weak")
    first = np.full(lab.max() + 1, graph.n)
    np.minimum.at(first, lab, np.arange(graph.n))
    got = labels.to_dense()
    bad = np.flatnonzero(got != first[lab])
    return "ok" if bad.size == 0 else f"WRONG at {bad.size} vertices, e.g. {bad[:5]}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graphs", default="kron-22,urand-22")
    p.add_argument("--algos", default="cc")
    p.add_argument("--sssp-method", default="auto")
    p.add_argument("--sssp-delta-scales", default="1",
                   help="comma-separated multiples of sssp's default bucket width, for the "
                        "delta and auto methods (1: the default)")
    p.add_argument("--sources", type=int, default=64,
                   help="sources of msbfs and bc (the batched stage's connected vertices)")
    p.add_argument("--trace", action="store_true",
                   help="also list every primitive call in order with its time")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    backend = get_backend("cuda:0")
    algos = args.algos.split(",")
    for name in args.graphs.split(","):
        spec = graphs.parse_graphs(name)[0]
        t0 = time.perf_counter()
        graph = graphs.build(spec, "cuda:0")
        print(name, f"built in {time.perf_counter() - t0:.1f} s", graph.A.nvals, flush=True)
        if "bfs" in algos:  # from the benchmark's own source vertex
            report(f"{name} bfs from {graph.source}",
                   lambda: algorithms.bfs(graph.A, graph.source), backend, args.out)
        if "cc" in algos:
            labels = algorithms.connected_components(graph.A)
            print(name, "cc", check_cc(graph, labels), flush=True)
            report(f"{name} cc", lambda: algorithms.connected_components(graph.A), backend,
                   args.out, args.trace)
        if "sssp" in algos:
            from graphblast.algorithms.sssp import _default_delta
            from graphblast.algorithms._validate import distance_type

            Aw = graph.Aw
            method = args.sssp_method
            base = _default_delta(Aw, distance_type(Aw.dtype))
            scales = [1.0] if method == "bellman-ford" else [
                float(x) for x in args.sssp_delta_scales.split(",")]
            for scale in scales:
                delta = None if scale == 1.0 else base * scale
                label = f"{name} sssp {method}" + ("" if delta is None else
                                                   f" delta={delta:.4g} ({scale:g}x default)")
                report(label, lambda d=delta: algorithms.sssp(Aw, graph.source, method=method,
                                                               delta=d),
                       backend, args.out)
            graph.drop_weighted()
        if "tc" in algos:
            report(f"{name} tc", lambda: algorithms.triangle_count(graph.A), backend, args.out,
                   args.trace)
        if "msbfs" in algos or "bc" in algos:
            from graphblast.bench.batched import _connected_sources

            sources = _connected_sources(graph, args.sources, graphs.BENCH_SEED)
            runs = {"msbfs": lambda: algorithms.bfs(graph.A, sources),
                    "bc": lambda: algorithms.betweenness_centrality(graph.A, sources=sources,
                                                                    normalized=False)}
            for algo in ("msbfs", "bc"):
                if algo in algos:
                    label = f"{name} {algo} from {len(sources)} sources"
                    report(label, runs[algo], backend, args.out, args.trace)
                    kernel_profile(runs[algo], label, args.out)
        if "louvain" in algos:
            report(f"{name} louvain", lambda: algorithms.louvain(graph.A), backend, args.out)
        if "pagerank" in algos:
            report(f"{name} pagerank", lambda: algorithms.pagerank(graph.A, tol=None, max_iter=10),
                   backend, args.out)
        del graph
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
