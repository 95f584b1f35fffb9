"""PageRank's step through the binned layout (propagation blocking, backends/cuda/binned.py)
against the degree order and the stored order, in one process, on each graph: the whole
PageRank (20 fixed steps, FP64 ranks) each way, the setup of each (the layout; the
renumbering), one warm product each way, and the ranks' largest difference from the stored
order's.  The choice of core/ordering.py's "auto" is read from here.

    python3 benchmarks/h200/pr_binned.py --graphs kron-22,kron-26 --out $OUT
"""

import time

import cupy as cp
import numpy as np

import graphblast as gb
from graphblast import Vector, algorithms, semiring
from graphblast.backends.cuda import binned, jit
from graphblast.bench import graphs
from graphblast.core import ordering
from graphblast.dtypes import FP64

import per_graph  # this folder's per_graph.py (run as a script)

STEPS = 20


def once(fn):
    cp.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    out = fn()
    cp.cuda.get_current_stream().synchronize()
    return (time.perf_counter() - t0) * 1e3, out


def kernel_ms(fn):
    """GPU milliseconds of each kernel ``fn()`` launches, by name (CUDA events around each)."""
    marks, run = [], jit.run

    def timed(kernel, grid, block, args):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        run(kernel, grid, block, args)
        end.record()
        marks.append((getattr(kernel, "name", "?").split("<")[0], start, end))

    jit.run = timed
    try:
        fn()
    finally:
        jit.run = run
    cp.cuda.get_current_stream().synchronize()
    out = {}
    for name, start, end in marks:
        out[name] = out.get(name, 0.0) + cp.cuda.get_elapsed_time(start, end)
    return out


def measure(name):
    g = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
    A, n = g.A, g.n
    rec = {"graph": name, "n": n, "nvals": A.nvals,
           "gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    runs = 3 if A.nvals < 1e9 else 2
    c = Vector.from_scalar(1.0 / n, n, FP64, device=A.device)
    pull = semiring.plus_second[FP64]
    ranks = {}
    for order in ("stored", "degree", "binned"):
        with gb.config.set(pagerank_order=order):
            times = [once(lambda: algorithms.pagerank(A, tol=None, max_iter=STEPS))
                     for _ in range(runs + 1)]  # the first compiles
            rec[f"{order}_step_ms"] = float(np.median([t for t, _ in times[1:]])) / STEPS
            ranks[order] = cp.asarray(times[-1][1].to_dense(fill_value=0.0))
            if order == "degree":
                rec["degree_setup_ms"], made = once(
                    lambda: ordering.pull_in_degree_order(A, STEPS, values=False))
                M = made[0] if made else A.T
            elif order == "binned":
                rec["binned_setup_ms"], B = once(lambda: ordering.pull_binned(A, STEPS))
                M = B.T if B is not None else A.T
                rec["binned_taken"] = B is not None
                for by_warp in (True, False):  # the fold's lanes combined first, or not
                    binned.FOLD_BY_WARP = by_warp
                    M.mxv(c, pull).new()
                    rec[f"binned_kernels_ms_by_warp_{by_warp}"] = kernel_ms(
                        lambda: M.mxv(c, pull).new())
                binned.FOLD_BY_WARP = True
            else:
                M = A.T
            M.mxv(c, pull).new()
            rec[f"{order}_product_ms"] = float(np.median(
                [once(lambda: M.mxv(c, pull).new())[0] for _ in range(3)]))
            del M
            cp.get_default_memory_pool().free_all_blocks()
        print(rec, flush=True)
    for order in ("degree", "binned"):
        rec[f"{order}_max_rel_diff"] = float(
            cp.abs(ranks[order] - ranks["stored"]).max() / ranks["stored"].max())
    print(rec, flush=True)
    return rec


if __name__ == "__main__":
    per_graph.run(measure, "pr_binned.json",
                  after_each=lambda: cp.get_default_memory_pool().free_all_blocks())
