"""Where a replayed round of ``graphblast.repeat`` spends its time: per replay, the host's
graph launch, the wait, and the GPU's time between two events around the launch (the
round's kernels and memsets), for SSSP on the long-diameter graphs.

    python3 benchmarks/h200/loop_profile.py --graphs grid-2048,rgg-22

The capture is wrapped (``loops._capture``) so that each replay is timed; the rounds and
the answers are those of ``algorithms.sssp``.  Prints, per graph: replays, total wall time of
the SSSP call, and the medians and sums of launch, wait and GPU time a replay.
"""

import argparse
import statistics
import time

import cupy as cp

from graphblast import algorithms
from graphblast.backends.cuda import loops
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

    loops._capture = timed_capture
    for name in args.graphs.split(","):
        graph = graphs.build(graphs.parse_graphs(name)[0], args.device)
        algorithms.sssp(graph.Aw, graph.source).wait()  # warm-up
        samples.clear()
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
        graph = None


if __name__ == "__main__":
    main()
