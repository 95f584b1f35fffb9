"""Which of graphblast's steps survive CUDA stream capture, and what one captured BFS level
costs when its graph is replayed: the groundwork of the device-side loop (docs/design.md,
the eleventh session's graph-loop probe measured the same in C++: 21.6 us a grid level
replayed level by level, 10.0 us as one graph with a conditional WHILE node).

    python3 benchmarks/h200/capture_probe.py --side 512

For each step, captured on a stream of its own after warm-up runs (the kernels compiled,
the memory pool's blocks cached): whether capture held (an allocation, a synchronization or
a host read inside it breaks it: CUDA invalidates the capture, CuPy may refuse), and the
error if not.  Where the level's two steps capture, their graph is replayed and timed
against the same level issued from Python (each synchronized).  Then what a replay
computes: the level's graph replayed three times, its output's count read after each, against
the same level issued from Python (the push's claim epoch is a kernel argument, so a replay
reuses the captured epoch: the second replay is expected to find its outputs claimed
already).  Last, an SSSP light round (``sssp._relax`` within a bucket, push forced) on a
weighted grid: which of its steps capture.
"""

import argparse
import time
import traceback

import cupy as cp
import numpy as np

import graphblast as gb
from graphblast import Vector, generators, semiring
from graphblast.dtypes import BOOL, INT64


def capture(label, fn):
    """(graph, fn's result) of ``fn`` captured on a new stream, or (None, None)."""
    stream = cp.cuda.Stream(non_blocking=True)
    graph = out = None
    try:
        with stream:
            stream.begin_capture()
            try:
                out = fn()
            finally:
                graph = stream.end_capture()
        print(f"{label}: captured", flush=True)
        return graph, out
    except Exception as error:  # noqa: BLE001 - the probe reports every failure
        print(f"{label}: FAILED, {type(error).__name__}: {str(error)[:300]}", flush=True)
        print("  " + traceback.format_exc().strip().splitlines()[-3][:300], flush=True)
        cp.cuda.Device().synchronize()
        return None, None


def per_call(fn, reps=300):
    for _ in range(20):
        fn()
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
        cp.cuda.Device().synchronize()
    return (time.perf_counter() - t0) / reps * 1e6


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--side", type=int, default=512)
    args = p.parse_args()
    A = generators.grid2d(args.side, args.side, device="cuda")
    n = A.nrows
    any_pair = semiring.any_pair[BOOL]
    levels = Vector(INT64, n, device="cuda")
    levels(Vector.from_coo([0], True, BOOL, size=n, device="cuda").S) << 0
    frontier = Vector.from_coo([1, args.side], True, BOOL, size=n, device="cuda")
    levels(frontier.S) << 1

    def assign():
        levels(frontier.S) << 1
        return levels

    def push():
        return frontier.vxm(A, any_pair).new(mask=~levels.S)

    def level():
        assign()
        return push()

    def scratch():
        x = cp.empty(1000, dtype=np.int64)
        x.fill(3)
        return x

    with gb.config.set(direction="push"):
        for _ in range(5):  # compiled, the pool's blocks cached
            level().wait()
        results = {}
        for label, fn in (("a CuPy allocation and fill", scratch),
                          ("levels(frontier.S) << d (in place)", assign),
                          ("frontier.vxm(A, any_pair).new(mask=~levels.S), push", push),
                          ("the level: both", level),
                          ("frontier.nvals (a host read)", lambda: frontier.nvals)):
            results[label] = capture(label, fn)
    with gb.config.set(direction="auto"):
        capture("the vxm with the direction planned (auto)", push)
    graph, _ = results["the level: both"]
    with gb.config.set(direction="push"):
        issued = per_call(lambda: level())
    print(f"the level issued from Python: {issued:.1f} us a level (synchronized)", flush=True)
    if graph is not None:
        replayed = per_call(lambda: graph.launch())
        print(f"the level's graph replayed: {replayed:.1f} us a level (synchronized)",
              flush=True)
        replay_counts(graph, results["the level: both"][1], level)
    sssp_round(args.side)


def replay_counts(graph, out, level):
    """The count a replayed level writes, three replays in a row, against the level issued
    from Python on the same inputs."""
    with gb.config.set(direction="push"):
        want = level().nvals
    data = out._data
    counts = []
    for _ in range(3):
        graph.launch()
        cp.cuda.Device().synchronize()
        data.counters.touch()  # the replay wrote the slot: the host's copy is stale
        counts.append(data.counters.values()[0])
    print(f"the level's output, issued from Python: {want} entries; replayed three times: "
          f"{counts} ({'the same' if counts == [want] * 3 else 'NOT the same'})", flush=True)


def sssp_round(side):
    """Capture SSSP's light round step by step on a weighted grid (push forced)."""
    import importlib

    from graphblast import binary, select

    ss = importlib.import_module("graphblast.algorithms.sssp")
    W = generators.grid2d(side, side, weights="random", seed=1, device="cuda")
    n = W.nrows
    min_plus = semiring.min_plus[INT64]
    dist = Vector(INT64, n, device="cuda")
    dist(Vector.from_coo([0, 1, side], True, BOOL, size=n, device="cuda").S) << 5
    bucket = Vector.from_coo([1, side], [5, 7], INT64, size=n, device="cuda")
    with gb.config.set(direction="push"):
        for _ in range(3):
            ss._relax(bucket, W, dist, min_plus, below=10**6).wait()
        t = bucket.vxm(W, min_plus).new()
        capture("SSSP: t = bucket min.+ W", lambda: bucket.vxm(W, min_plus).new())
        better = ~t.ewise_mult(dist, binary.ge).new().V
        capture("SSSP: the comparison t >= dist", lambda: t.ewise_mult(dist, binary.ge).new())

        def fold():
            dist(binary.min) << t
            return dist
        capture("SSSP: dist(min) << t (in place)", fold)
        capture("SSSP: t.select(valuelt, hi) under the comparison's mask",
                lambda: t.select(select.valuelt, 10**6).new(mask=better))
        capture("SSSP: the whole light round",
                lambda: ss._relax(bucket, W, dist, min_plus, below=10**6))


if __name__ == "__main__":
    main()
