"""The kernels of a replayed round, one by one: each kernel launch of ``graphblast.repeat``'s
second dry round (issued from Python with the grids, arguments and capacities the captured
round replays) timed between two CUDA events, for SSSP on the long-diameter graphs.  The
graph's own cost a node (its launch latency inside the graph) is what ``loop_profile.py``'s
GPU time a replay has beyond the sum of these.

    python3 benchmarks/h200/loop_kernels.py --graphs rgg-22,grid-2048

Prints, per graph, each kernel's median time over the loop's checked rounds (one a bucket
that reaches capture) and their sum.
"""

import argparse
import collections
import statistics

import cupy as cp

from graphblast import algorithms
from graphblast.backends.cuda import jit, recording
from graphblast.bench import graphs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graphs", default="rgg-22,grid-2048")
    p.add_argument("--device", default="cuda:0")
    args = p.parse_args()
    real_run = jit.run
    pending = []

    def timed_run(fn, grid, block, launch_args):
        rec = recording.current()
        if rec is None or rec.mode != "check" or rec.planning:
            return real_run(fn, grid, block, launch_args)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        real_run(fn, grid, block, launch_args)
        end.record()
        pending.append((getattr(fn, "name", str(fn)).split("<")[0], grid, start, end))
        return None

    jit.run = timed_run
    for name in args.graphs.split(","):
        graph = graphs.build(graphs.parse_graphs(name)[0], args.device)
        algorithms.sssp(graph.Aw, graph.source).wait()  # warm-up
        pending.clear()
        algorithms.sssp(graph.Aw, graph.source).wait()
        cp.cuda.Device().synchronize()
        times = collections.defaultdict(list)
        for kernel, grid, start, end in pending:
            times[(kernel, grid)].append(cp.cuda.get_elapsed_time(start, end) * 1e3)
        print(f"{name}: {len(pending)} launches in the checked rounds", flush=True)
        total = 0.0
        for (kernel, grid), us in times.items():
            med = statistics.median(us)
            total += med
            print(f"  {kernel:28s} grid {grid:5d}: {med:7.1f} us (median of {len(us)})")
        print(f"  sum of the medians: {total:.1f} us a round", flush=True)
        graph = None


if __name__ == "__main__":
    main()
