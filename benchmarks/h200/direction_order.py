"""Whether the order in which push, pull and auto are timed moves the auto/best ratio of a
small BFS level (primitives.json's ``auto_direction_worst_level_ratio`` times them push,
pull, auto, each the median of up to 200 calls): the same kron-22 level (a one-vertex
frontier and its visited set) timed in several orders, and each direction's Python profile.

    python3 benchmarks/h200/direction_order.py --out $OUT

Then the predecessors (``predecessors.json``): primitives.json interleaves its three
directions call by call, rotating the order each round (push pull auto, pull auto push, auto
push pull), so that auto follows pull in two rounds of three and push in one: auto's median
is a sample taken after a pull, push's one taken after auto.  A pull over kron-22 streams
the whole matrix through L2 (1.5 ms on the first levels), evicting push's claim stamps and
the mask.  Here each of push and auto is
timed right after an untimed call of pull and right after an untimed call of itself, 200
pairs each, interleaved: if push after pull costs what auto after pull does, the record's
auto/best ratio measures the order, not the planner.
"""

import argparse
import cProfile
import io
import json
import os
import pstats

import graphblast as gb
from graphblast import Vector, semiring
from graphblast.bench import graphs
from graphblast.bench.runner import time_call
from graphblast.dtypes import BOOL, INT64

from engine import sync  # this folder's engine.py (run as a script)

ORDERS = [("push", "pull", "auto"), ("auto", "pull", "push"), ("push", "auto", "pull"),
          ("auto", "push", "pull"), ("pull", "auto", "push")]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graph", default="kron-22")
    args = p.parse_args()
    g = graphs.build(graphs.parse_graphs(args.graph)[0], "cuda:0")
    A, n = g.A, g.n
    any_pair = semiring.any_pair[BOOL]
    levels = Vector(INT64, n, device="cuda")
    q = Vector.from_coo([g.source], True, BOOL, size=n, device="cuda")
    levels(q.S) << 0
    visited = levels.dup()

    def op():
        return q.vxm(A, any_pair).new(mask=~visited.S)

    rows = []
    for order in ORDERS * 2:
        row = {}
        for mode in order:
            with gb.config.set(direction=mode):
                timing, _ = time_call(op, sync=sync, warmup=1, repeat=5, min_time=0.05)
            row[mode] = timing.median * 1e6
        row["order"] = " ".join(order)
        row["auto_vs_push"] = row["auto"] / row["push"]
        rows.append(row)
        print(row, flush=True)
    profiles = {}
    for mode in ("push", "auto"):
        prof = cProfile.Profile()
        with gb.config.set(direction=mode):
            prof.enable()
            for _ in range(2000):
                op()
                sync()
            prof.disable()
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
        # the backend's own functions by cumulative time: where auto's extra time sits
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(
            "mxv|plan|vectors|memory", 25)
        profiles[mode] = s.getvalue()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "predecessors.json"), "w") as f:
        json.dump(predecessors(op), f, indent=1)
    with open(os.path.join(args.out, "direction_order.json"), "w") as f:
        json.dump({"graph": args.graph, "source": g.source, "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, "direction_order_profile.txt"), "w") as f:
        for mode, text in profiles.items():
            f.write(f"==== {mode}: 2000 calls\n{text}\n")


def predecessors(op, pairs=200):
    """Median microseconds of ``op`` under push and auto, each timed right after an untimed
    call under pull and right after one under itself, the four kinds of pair interleaved."""
    import statistics
    import time

    def once(mode):
        with gb.config.set(direction=mode):
            op()
            sync()

    kinds = [(timed, before) for timed in ("push", "auto") for before in ("pull", timed)]
    samples = {f"{timed} after {before}": [] for timed, before in kinds}
    for _ in range(5):
        for mode in ("push", "pull", "auto"):
            once(mode)
    for r in range(pairs):
        for k in range(len(kinds)):
            timed, before = kinds[(r + k) % len(kinds)]
            once(before)
            with gb.config.set(direction=timed):
                t0 = time.perf_counter()
                op()
                sync()
                samples[f"{timed} after {before}"].append(time.perf_counter() - t0)
    out = {key: statistics.median(v) * 1e6 for key, v in samples.items()}
    print("predecessors (median us):", {k: round(v, 1) for k, v in out.items()}, flush=True)
    return out


if __name__ == "__main__":
    main()
