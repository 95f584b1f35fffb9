"""Where a replayed round of ``graphblast.repeat`` spends its time: per replay, the host's
graph launch, the wait, and the GPU's time between two events around the launch, for SSSP on
the long-diameter graphs; and the round's kernels one by one, each launch of the loop's
later dry rounds (issued from Python with the grids, arguments and capacities the captured
round replays; the first builds the caches) timed between two events.  What a replay's GPU time has beyond the sum of
its kernels is the graph's own cost a node.

    python3 benchmarks/h200/loop_profile.py --graphs grid-2048,rgg-22

The capture and ``jit.run`` are wrapped; the rounds and the answers are those of
``algorithms.sssp``.  Prints, per graph: replays, the SSSP call's wall time, the medians and
sums of launch, wait and GPU time a replay, then each kernel's median over the timed
dry rounds (one or two a bucket that reaches capture) and their sum.
"""

import argparse
import collections
import statistics
import time

import cupy as cp

from graphblast import algorithms
from graphblast.backends.cuda import jit, loops, recording
from graphblast.bench import graphs


class _TimedExec:
    def __init__(self, graph, samples):
        self.graph, self.samples = graph, samples

    def launch(self, stream):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record(stream)
        t0 = time.perf_counter()
        self.graph.launch(stream)
        t1 = time.perf_counter()
        end.record(stream)
        stream.synchronize()
        t2 = time.perf_counter()
        self.samples.append((t1 - t0, t2 - t1, cp.cuda.get_elapsed_time(start, end) * 1e-3))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graphs", default="grid-2048,rgg-22")
    p.add_argument("--device", default="cuda:0")
    args = p.parse_args()
    real = loops._capture
    samples = []

    def timed_capture(*a, **k):
        graph = real(*a, **k)
        if graph is not None:
            graph.exec = _TimedExec(graph.exec, samples)
        return graph

    real_run = jit.run
    kernels = []
    first_dry = {}  # loop token -> its first dry round (not timed: it builds the caches)

    def timed_run(fn, grid, block, launch_args):
        rec = recording.current()
        if rec is None or rec.mode != "dry" or rec.planning or \
                first_dry.setdefault(rec.loop, rec) is rec:
            return real_run(fn, grid, block, launch_args)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        real_run(fn, grid, block, launch_args)
        end.record()
        kernels.append((getattr(fn, "name", str(fn)).split("<")[0], grid, start, end))
        return None

    loops._capture = timed_capture
    jit.run = timed_run
    for name in args.graphs.split(","):
        graph = graphs.build(graphs.parse_graphs(name)[0], args.device)
        algorithms.sssp(graph.Aw, graph.source).wait()  # warm-up
        samples.clear()
        kernels.clear()
        t0 = time.perf_counter()
        algorithms.sssp(graph.Aw, graph.source).wait()
        wall = time.perf_counter() - t0
        launch, wait, gpu = (list(x) for x in zip(*samples)) if samples else ([0], [0], [0])
        us = 1e6
        print(f"{name}: sssp {wall * 1e3:.1f} ms, {len(samples)} replays; a replay: launch "
              f"{statistics.median(launch) * us:.1f} us, wait {statistics.median(wait) * us:.1f}"
              f" us, GPU {statistics.median(gpu) * us:.1f} us (medians); in all: launch "
              f"{sum(launch) * 1e3:.1f} ms, wait {sum(wait) * 1e3:.1f} ms, GPU "
              f"{sum(gpu) * 1e3:.1f} ms", flush=True)
        _print_kernels(kernels)
        graph = None


def _print_kernels(kernels):
    cp.cuda.Device().synchronize()
    times = collections.defaultdict(list)
    for kernel, grid, start, end in kernels:
        times[(kernel, grid)].append(cp.cuda.get_elapsed_time(start, end) * 1e3)
    total = 0.0
    for (kernel, grid), us in times.items():
        total += statistics.median(us)
        print(f"  {kernel:28s} grid {grid:5d}: {statistics.median(us):7.1f} us (median of "
              f"{len(us)})")
    print(f"  the timed dry rounds' kernels: {total:.1f} us a round", flush=True)


if __name__ == "__main__":
    main()
