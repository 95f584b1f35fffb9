"""Where does the GPU engine's time go, kernel by kernel? per-level BFS (auto, forced push, forced pull) with host
synchronizations counted, SpMV against cuSPARSE, PageRank per iteration, the per-call
overhead of a small masked vxm and its Python profile.  One JSON file and a text profile.

    python3 benchmarks/profiling/engine_kernels.py --out $OUT [--graphs kron-22,urand-22,g500-21,grid-2048]

A development instrument beside ``graphblast bench`` (whose summary is the record): it
explains the record's figures.  Answers are checked against SciPy.
"""

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import time

import cupy as cp
import numpy as np
import scipy.sparse.csgraph as csgraph

import graphblast as gb
from graphblast import Vector, semiring
from graphblast.backends.cuda import blocks
from graphblast.bench import graphs
from graphblast.dtypes import BOOL, FP32, INT64


def sync():
    cp.cuda.get_current_stream().synchronize()


def timed(fn, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
        sync()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        out.append(time.perf_counter() - t0)
    return float(np.median(out)), [float(x) for x in out]


def wall_and_reads(run):
    """(seconds, host reads) of ``run()``, synchronized before and after."""
    sync()
    r0 = blocks.host_reads()
    t0 = time.perf_counter()
    run()
    sync()
    return time.perf_counter() - t0, blocks.host_reads() - r0


@contextlib.contextmanager
def timed_launches():
    """Every graphblast launch inside the block bracketed by CUDA events: yields the list
    of (kernel, grid, start event, end event) it fills.  Every launch goes through
    ``jit.run``, so the events are recorded around it (whichever launcher it uses)."""
    from graphblast.backends.cuda import jit

    records = []
    plain_run = jit.run

    def timed_run(fn, grid, block, args):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        plain_run(fn, grid, block, args)
        e1.record()
        records.append((fn, grid, e0, e1))

    jit.run = timed_run
    try:
        yield records
    finally:
        jit.run = plain_run


def kernel_names():
    """{compiled kernel: its name} of every kernel compiled so far."""
    from graphblast.backends.cuda import jit

    return {f: n for k in jit._compiled.values() for f, n in zip(k.fns, k.names)}


def kernel_profile(run, label, outdir):
    """GPU time per graphblast kernel (CUDA events) of ``run()`` against its wall time; the
    rest is CuPy's own kernels, allocations, Python and synchronizations."""
    with timed_launches() as records:
        wall, reads = wall_and_reads(run)
    names = kernel_names()
    per = {}
    for fn, grid, e0, e1 in records:
        name = names.get(fn, "?")
        # by kernel and grid: the launches of one kernel for different bins (pull's degree
        # bins, push's light and heavy entries) come apart
        short = f"{name.split('<')[0]} x{grid}"
        ms, calls = per.get(short, (0.0, 0))
        per[short] = (ms + cp.cuda.get_elapsed_time(e0, e1), calls + 1)
    lines = [f"{label}: wall {wall * 1e3:.3f} ms, {len(records)} graphblast launches, "
             f"{reads} host reads"]
    for name, (ms, calls) in sorted(per.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"  {name:32s} {calls:6d} calls {ms:10.3f} ms")
    with open(os.path.join(outdir, "kernels.txt"), "a") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


def python_profile(run, label, outdir):
    prof = cProfile.Profile()
    prof.enable()
    run()
    sync()
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(30)
    with open(os.path.join(outdir, "profile_call.txt"), "a") as f:
        f.write(f"==== {label}\n" + s.getvalue())


def bfs_levels(A, source):
    """The BFS of algorithms.bfs, one level at a time: (levels, per-level records)."""
    n = A.nrows
    levels = Vector(INT64, n, device=A.device)
    frontier = Vector.from_coo([source], True, BOOL, size=n, device=A.device)
    depth = 0
    records = []
    while True:
        r0 = blocks.host_reads()
        t0 = time.perf_counter()
        nf = frontier.nvals
        if not nf:
            break
        levels(frontier.S) << depth
        depth += 1
        frontier(~levels.S, replace=True) << frontier.vxm(A, semiring.any_pair[BOOL])
        sync()
        records.append({"level": depth - 1, "frontier": nf,
                        "ms": (time.perf_counter() - t0) * 1e3,
                        "direction": getattr(frontier._data, "made_by", None),
                        "host_reads": blocks.host_reads() - r0})
    return levels, records


def check_levels(levels, graph, source):
    """Whether the levels reach what SciPy's BFS reaches (and, on small graphs, at SciPy's
    distances); None past SciPy's 32-bit indices (the bench certifies those answers)."""
    if graph.nedges > 2**31 - 1:
        return None
    S = graph.csr()
    ref = csgraph.breadth_first_order(S, source, directed=True, return_predecessors=False)
    dist = csgraph.shortest_path(S, unweighted=True, indices=[source], directed=True)[0] \
        if S.shape[0] <= 1 << 16 else None
    idx, vals = levels.to_coo()
    ok = len(idx) == len(ref)
    if dist is not None and ok:
        ok = bool(np.all(dist[idx.astype(np.int64)] == vals))
    return ok


def measure_bfs(graph, source, out):
    from graphblast.algorithms import bfs

    A = graph.A
    rec = {}
    t, samples = timed(lambda: bfs(A, source), repeat=7, warmup=2)
    rec["bfs_ms"] = t * 1e3
    rec["bfs_samples_ms"] = [s * 1e3 for s in samples]
    levels = bfs(A, source)
    rec["checked_vs_scipy"] = check_levels(levels, graph, source)
    for mode in ("auto", "push", "pull"):
        with gb.config.set(direction=mode):
            bfs_levels(A, source)
            sync()
            _, recs = bfs_levels(A, source)
        rec[f"levels_{mode}"] = recs
    nlev = len(rec["levels_auto"])
    rec["levels"] = nlev
    rec["us_per_level"] = rec["bfs_ms"] * 1e3 / max(nlev, 1)
    worst = 1.0
    for a, p, q in zip(rec["levels_auto"], rec["levels_push"], rec["levels_pull"]):
        worst = max(worst, a["ms"] / min(p["ms"], q["ms"]))
    rec["auto_worst_level_ratio"] = worst
    out[graph.spec.name] = rec
    outdir = out["_outdir"]
    kernel_profile(lambda: bfs(A, source), f"bfs {graph.spec.name}", outdir)
    python_profile(lambda: bfs(A, source), f"bfs {graph.spec.name}", outdir)
    print(graph.spec.name, "bfs", f"{rec['bfs_ms']:.3f} ms", f"{nlev} levels",
          {True: "ok", False: "WRONG", None: "not checked"}[rec["checked_vs_scipy"]],
          f"worst auto ratio {worst:.2f}",
          flush=True)


def measure_bfs_levels(graph, source, out):
    """The per-level record of the BFS from the benchmark's own source (the record's figure;
    measure_bfs starts at the hub): the planner's choice, forced push and forced pull."""
    from graphblast.algorithms import bfs

    A = graph.A
    t, _ = timed(lambda: bfs(A, source), repeat=5, warmup=1)
    rec = {"source": source, "bfs_ms": t * 1e3}
    for mode in ("auto", "push", "pull"):  # the forced ones say what the planner could have had
        with gb.config.set(direction=mode):
            bfs_levels(A, source)
            sync()
            _, rec[f"levels_{mode}"] = bfs_levels(A, source)
    out[graph.spec.name + ":bfs-bench-source"] = rec
    print(graph.spec.name, f"bfs from {source}: {t * 1e3:.3f} ms;",
          [(a["frontier"], round(a["ms"], 2), a["direction"], round(p["ms"], 2),
            round(q["ms"], 2))
           for a, p, q in zip(rec["levels_auto"], rec["levels_push"], rec["levels_pull"])],
          flush=True)


def measure_spmv(graph, out):
    from cupyx.scipy import sparse as csp

    A = graph.A
    n = A.nrows
    A32 = A.apply(gb.unary.one[FP32]).new()
    x = Vector.from_scalar(1.0, n, FP32, device=A.device)
    rng = np.random.default_rng(1)
    x = Vector.from_dense(rng.random(n).astype(np.float32), device=A.device)
    d = A32._data
    S = csp.csr_matrix((d.values, d.indices.astype(np.int32), d.indptr.astype(np.int32)),
                       shape=(n, n))
    xd = cp.asarray(x.to_dense())
    rec = {}
    rec["cusparse_ms"] = timed(lambda: S @ xd, repeat=20, warmup=3)[0] * 1e3
    rec["plus_times_ms"] = timed(lambda: A32.mxv(x, semiring.plus_times).new(), repeat=20,
                                 warmup=3)[0] * 1e3
    rec["min_plus_ms"] = timed(lambda: A32.mxv(x, semiring.min_plus).new(), repeat=20,
                               warmup=3)[0] * 1e3
    ref = cp.asnumpy(S @ xd)
    got = A32.mxv(x, semiring.plus_times).new().to_dense(0)
    rec["plus_times_max_rel_err"] = float(np.max(np.abs(got - ref) / np.maximum(1, np.abs(ref))))
    rec["plus_times_vs_cusparse"] = rec["cusparse_ms"] / rec["plus_times_ms"]
    kernel_profile(lambda: A32.mxv(x, semiring.plus_times).new(), "spmv plus_times",
                   out["_outdir"])
    rec["min_plus_vs_plus_times"] = rec["plus_times_ms"] / rec["min_plus_ms"]
    out[graph.spec.name + ":spmv"] = rec
    print(graph.spec.name, "spmv", {k: round(v, 4) for k, v in rec.items()}, flush=True)


def measure_pagerank(graph, out):
    from graphblast.algorithms import pagerank

    A = graph.A
    t10, _ = timed(lambda: pagerank(A, tol=None, max_iter=10), repeat=3)
    t20, _ = timed(lambda: pagerank(A, tol=None, max_iter=20), repeat=3)
    rec = {"ms_per_iteration": (t20 - t10) / 10 * 1e3}
    kernel_profile(lambda: pagerank(A, tol=None, max_iter=10), "pagerank x10", out["_outdir"])
    n, m = A.nrows, A.nvals
    rec["bound_ms"] = (m * 4 + (n + 1) * 4 + 16 * n) / 4.3e12 * 1e3
    rec["vs_bound_at_4.3TBps"] = rec["ms_per_iteration"] / rec["bound_ms"]
    out[graph.spec.name + ":pagerank"] = rec
    print(graph.spec.name, "pagerank", rec, flush=True)


def measure_overhead(outdir, out):
    from graphblast import Matrix

    path = os.path.join(os.path.dirname(graphs.__file__), "..", "data", "lagraph", "karate.mtx")
    A = gb.io.mmread(path, device="cuda") if os.path.exists(path) else None
    if A is None:
        rows, cols = np.nonzero(np.eye(34, k=1))
        A = Matrix.from_coo(np.r_[rows, cols], np.r_[cols, rows], True, BOOL, nrows=34,
                            ncols=34, device="cuda")
    A = A.apply(gb.unary.one[BOOL]).new() if A.dtype != BOOL else A
    q = Vector.from_coo([0], True, BOOL, size=A.nrows, device="cuda")
    visited = q.dup()
    w = Vector(BOOL, A.nrows, device="cuda")

    def call():
        w(~visited.S, replace=True) << q.vxm(A, semiring.any_pair[BOOL])

    for _ in range(50):
        call()
        sync()
    samples = []
    for _ in range(2000):
        t0 = time.perf_counter()
        call()
        sync()
        samples.append(time.perf_counter() - t0)
    nosync = []
    for _ in range(20):
        t0 = time.perf_counter()
        for _ in range(100):
            call()
        nosync.append((time.perf_counter() - t0) / 100)
    sync()
    out["per_call"] = {"median_us": float(np.median(samples) * 1e6),
                       "p10_us": float(np.percentile(samples, 10) * 1e6),
                       "launch_only_us": float(np.median(nosync) * 1e6)}
    print("per call", out["per_call"], flush=True)
    python_profile(lambda: [call() for _ in range(1000)], "1000 small masked vxm", outdir)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graphs", default="kron-22,urand-22,g500-21,grid-2048")
    p.add_argument("--skip", default="",
                   help="comma-separated parts to leave out: overhead, bfs, spmv, pagerank")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = {"_outdir": args.out}
    skip = set(args.skip.split(","))
    if "overhead" not in skip:
        measure_overhead(args.out, out)
    kernel_profile(lambda: None, "empty", args.out)
    for name in args.graphs.split(","):
        spec = graphs.parse_graphs(name)[0]
        t0 = time.perf_counter()
        graph = graphs.build(spec, "cuda:0")
        print(name, f"built in {time.perf_counter() - t0:.1f} s", graph.A.nvals, flush=True)
        source = int(np.argmax(np.diff(graph.indptr))) if spec.family != "grid" else 0
        if "bfs" not in skip:
            measure_bfs(graph, source, out)
            if graph.source != source:
                measure_bfs_levels(graph, graph.source, out)
        if spec.family == "kron" and "spmv" not in skip:
            measure_spmv(graph, out)
        if spec.family == "kron" and "pagerank" not in skip:
            measure_pagerank(graph, out)
        with open(os.path.join(args.out, "engine.json"), "w") as f:
            json.dump(out, f, indent=1)
        del graph
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
