"""Where each BFS level's wall time goes: the count's read (``frontier.nvals``), the host's
issue of the level's two calls (until the last launch returns), and the drain (the GPU still
working after that), with every kernel of the level timed by CUDA events.  A level whose
drain is near zero is bound by the host; one whose kernels fill its wall, by the GPU.

    python3 benchmarks/h200/level_timeline.py --out $OUT/timeline --graphs kron-22,grid-2048
"""

import argparse
import json
import os
import time

import cupy as cp

from graphblast import Vector, semiring
from graphblast.bench import graphs
from graphblast.dtypes import BOOL, INT64

from engine import kernel_names, sync, timed_launches  # this folder's engine.py


def run_levels(A, source, kernels=None):
    """algorithms.bfs one level at a time; per level (frontier, read, issue, drain) in us and,
    with ``kernels`` (a list the timed launcher appends to), the level's kernels."""
    n = A.nrows
    levels = Vector(INT64, n, device=A.device)
    frontier = Vector.from_coo([source], True, BOOL, size=n, device=A.device)
    depth, rows = 0, []
    while True:
        sync()
        first = len(kernels) if kernels is not None else 0
        t0 = time.perf_counter()
        nf = frontier.nvals
        t1 = time.perf_counter()
        if not nf:
            break
        levels(frontier.S) << depth
        depth += 1
        frontier(~levels.S, replace=True) << frontier.vxm(A, semiring.any_pair[BOOL])
        t2 = time.perf_counter()
        sync()
        t3 = time.perf_counter()
        row = {"frontier": nf, "read_us": (t1 - t0) * 1e6, "issue_us": (t2 - t1) * 1e6,
               "drain_us": (t3 - t2) * 1e6, "wall_us": (t3 - t0) * 1e6,
               "made_by": getattr(frontier._data, "made_by", None)}
        if kernels is not None:
            row["kernels"] = kernels[first:]
        rows.append(row)
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graphs", default="kron-22")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    report = {}
    for name in args.graphs.split(","):
        g = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
        for _ in range(3):
            plain_rows = run_levels(g.A, g.source)  # warm, untimed launches
        with timed_launches() as records:
            timed_rows = run_levels(g.A, g.source, kernels=records)
        names = kernel_names()
        for row in timed_rows:
            row["kernels"] = [(names.get(fn, "?").split("<")[0], grid,
                               round(cp.cuda.get_elapsed_time(e0, e1) * 1e3, 1))
                              for fn, grid, e0, e1 in row["kernels"]]
            row["kernel_us"] = round(sum(k[2] for k in row["kernels"]), 1)
        report[name] = {"plain": plain_rows, "timed": timed_rows}
        print(f"== {name} from {g.source}: {len(plain_rows)} levels, "
              f"{sum(r['wall_us'] for r in plain_rows):.0f} us", flush=True)
        for r, t in zip(plain_rows, timed_rows):
            print(f"  {r['frontier']:>9} {r['made_by'] or '':5} wall {r['wall_us']:7.1f} "
                  f"read {r['read_us']:6.1f} issue {r['issue_us']:6.1f} "
                  f"drain {r['drain_us']:6.1f} | kernels {t['kernel_us']:6.1f}: "
                  + ", ".join(f"{k}x{gr} {us}" for k, gr, us in t["kernels"]), flush=True)
    with open(os.path.join(args.out, "timeline.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
