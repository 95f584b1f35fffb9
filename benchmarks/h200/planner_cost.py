"""What the push/pull planner costs a product on the GPU's host (the primitives'
``auto_direction_worst_level_ratio`` compares auto with forced push on small BFS levels, where
the planner's Python is the difference): per BFS level of kron-22, the planner alone
(``mxv._direction`` called with that level's arguments), and the level's masked vxm forced to
push and planned (medians of interleaved calls, synchronized), planned with the planner replaced
by its answer ("fixed": what auto costs besides the planner) and with the planner timed inside
the call ("planner_in_situ_us": its time with the caches as a real call leaves them), then a
Python profile of the planned and the forced call on the last level.

    python3 benchmarks/h200/planner_cost.py --out $OUT [--graph kron-22]
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import time
import timeit

import cupy as cp
import numpy as np

import graphblast as gb
from graphblast import Vector, semiring
from graphblast.backends.cuda import mxv
from graphblast.bench import graphs
from graphblast.dtypes import BOOL, INT64


def sync():
    cp.cuda.get_current_stream().synchronize()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graph", default="kron-22")
    args = p.parse_args()
    g = graphs.build(graphs.parse_graphs(args.graph)[0], "cuda:0")
    A, n = g.A, g.n
    any_pair = semiring.any_pair[BOOL]
    levels = Vector(INT64, n, device=A.device)
    frontier = Vector.from_coo([g.source], True, BOOL, size=n, device=A.device)
    steps = []
    while frontier.nvals:  # the primitives' BFS levels (bench/primitives.py _bfs_levels)
        levels(frontier.S) << len(steps)
        steps.append((frontier.dup(), levels.dup()))
        frontier(~levels.S, replace=True) << frontier.vxm(A, any_pair)
    rows = []
    captured = []
    planner = mxv._direction

    def spy(*a):
        captured.append(a)
        return planner(*a)

    for level, (q, seen) in enumerate(steps):
        def op(q=q, seen=seen):
            return q.vxm(A, any_pair).new(mask=~seen.S)
        mxv._direction = spy
        op()
        mxv._direction = planner
        sync()
        planned = captured[-1]
        calls = 20000
        alone = min(timeit.repeat(lambda: planner(*planned), number=calls, repeat=5)) / calls
        choice = planner(*planned)
        in_situ = []

        def timed(*a):  # the planner's own time inside the real call (its caches as they are)
            t0 = time.perf_counter_ns()
            out = planner(*a)
            in_situ.append(time.perf_counter_ns() - t0)
            return out

        # "fixed": the setting left at auto but the planner replaced by its answer, so that
        # auto - fixed is the planner's share of the call and fixed - push anything else
        # that auto does differently
        stand_ins = {"push": planner, "auto": planner, "fixed": lambda *a: choice,
                     "timed": timed}
        modes = ("push", "auto", "fixed", "timed")
        times = {m: [] for m in modes}
        for i in range(400):
            for j in range(len(modes)):
                mode = modes[(i + j) % len(modes)]
                mxv._direction = stand_ins[mode]
                try:
                    with gb.config.set(direction="push" if mode == "push" else "auto"):
                        op()
                        sync()
                        t0 = time.perf_counter()
                        op()
                        sync()
                        times[mode].append(time.perf_counter() - t0)
                finally:  # the real planner back before anything else plans
                    mxv._direction = planner
        row = {"level": level, "frontier": q.nvals, "choice": choice,
               "planner_us": alone * 1e6,
               "planner_in_situ_us": float(np.median(in_situ)) / 1e3,
               **{f"{m}_us": float(np.median(t)) * 1e6 for m, t in times.items()}}
        rows.append(row)
        print(json.dumps(row), flush=True)
    for mode in ("auto", "push"):  # the planned call and the forced one, to diff
        with gb.config.set(direction=mode):
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(3000):
                op()
            prof.disable()
            sync()
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(40)
        print(f"== profile, direction={mode}, last level, 3000 calls")
        print(s.getvalue())
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "planner_cost.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
