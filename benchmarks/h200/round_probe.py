"""What a replayed SSSP light round costs, node by node, and what the bucket width does to
the rounds: the probes of the question "why is a replayed rgg-22 round 82 us of GPU time"
(fifteenth session; their outputs in benchmarks/results/h200/profiles/session15/).

    python3 benchmarks/h200/round_probe.py nodes
        The graph's own cost a node: CUDA graphs of k kernels that find nothing to do (each
        reads a device count of zero, as a round's list kernels do when their list is empty;
        RECORDED_MAX_GRID blocks of 256 threads, each depending on the one before), replayed;
        GPU time a replay (events) for k = 1, 4, 9, 12, and with memset nodes between.
    python3 benchmarks/h200/round_probe.py width --graphs rgg-22,grid-2048
        ``algorithms.sssp`` with the bucket width times 1/4 ... 4 of the default (--factors):
        wall time (medians of --runs), buckets captured, replays, the replays' frontiers.
    python3 benchmarks/h200/round_probe.py pushgrid --graphs rgg-22 --caps 264,528,1056
        The same at each block cap of the recorded light push (mxv.RECORDED_PUSH_GRID).
    ncu --graph-profiling node --profile-from-start off --kernel-name regex:gbk_ \\
        --launch-skip 900 --launch-count 180 --metrics gpu__time_duration.sum \\
        python3 benchmarks/h200/round_probe.py ncu --graphs rgg-22
        One warm SSSP, then a second one between cudaProfilerStart/Stop: Nsight Compute times
        the replayed graphs' kernel nodes one by one (the skip lands past the first bucket's
        Python rounds).
    python3 benchmarks/h200/round_probe.py buckets --graphs grid-2048 --factors 0.25,1
        Where a bucket's time goes outside its replays: the repeat calls, their rounds issued
        from Python, their captures, and a Python profile of the whole call.
"""

import argparse
import importlib
import statistics
import time

import cupy as cp
import numpy as np

from graphblast import algorithms
from graphblast.backends.cuda import jit, loops
from graphblast.bench import graphs

# the module (graphblast.algorithms.sssp is the function): its default width is replaced
sssp_module = importlib.import_module("graphblast.algorithms.sssp")
_DEFAULT_WIDTH = sssp_module._default_delta


def _width_times(f):
    """sssp's default bucket width times ``f`` (at least 1 for integer weights)."""
    def delta(A, dtype):
        d = _DEFAULT_WIDTH(A, dtype) * f
        return d if dtype.np_type.kind == "f" else max(1, int(d))
    return delta

_NOTHING = r"""
extern "C" __global__ void nothing(const unsigned long long* count, long long* out) {
    const long long n = (long long)*count;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
         t += (long long)gridDim.x * blockDim.x) out[t] = t;
}
"""


def nodes():
    fn = cp.RawKernel(_NOTHING, "nothing")
    count = cp.zeros(1, dtype=np.uint64)
    out = cp.empty(16, dtype=np.int64)
    slots = cp.zeros(64, dtype=np.uint64)
    stream = cp.cuda.Stream(non_blocking=True)
    grid = jit.RECORDED_MAX_GRID
    for k, memsets in ((1, 0), (4, 0), (9, 0), (12, 0), (9, 3), (24, 0)):
        with stream:
            fn((grid,), (256,), (count, out))  # compiled before the capture
            stream.synchronize()
            stream.begin_capture()
            for i in range(k):
                fn((grid,), (256,), (count, out))
                if i < memsets:
                    cp.cuda.runtime.memsetAsync(slots.data.ptr + 8 * i, 0, 8, stream.ptr)
            graph = stream.end_capture()
        times = []
        for _ in range(200):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record(stream)
            graph.launch(stream)
            end.record(stream)
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
        med = statistics.median(times[20:])
        print(f"{k:3d} empty kernels + {memsets} memsets ({grid} blocks each): {med:6.1f} us a "
              f"replay, {med / (k + memsets):5.2f} us a node", flush=True)


def sweep(names, factors, caps, runs, device):
    """SSSP's wall time (medians of ``runs`` after a warm one) at each multiple of the
    default bucket width and, with ``caps``, each block cap of the recorded light push; the
    buckets captured, the replays, and the frontier each replay starts from (the count the
    one before left)."""
    from graphblast.backends.cuda import mxv

    real_capture = loops._capture
    seen = {"captures": 0, "sizes": []}

    def capture(*a, **k):
        graph = real_capture(*a, **k)
        if graph is not None:
            seen["captures"] += 1
            launch, count = graph.exec.launch, graph.count

            def counted(stream):
                seen["sizes"].append(int(count[0]))
                return launch(stream)
            graph.exec = type("Exec", (), {"launch": staticmethod(counted)})()
        return graph

    loops._capture = capture
    for name in names:
        graph = graphs.build(graphs.parse_graphs(name)[0], device)
        want = algorithms.sssp(graph.Aw, graph.source)
        for f in factors:
            sssp_module._default_delta = _width_times(f)
            for cap in caps or [None]:
                if cap is not None:
                    mxv.RECORDED_PUSH_GRID = cap
                walls = []
                for _ in range(runs + 1):
                    seen.update(captures=0, sizes=[])
                    t0 = time.perf_counter()
                    got = algorithms.sssp(graph.Aw, graph.source).wait()
                    walls.append(time.perf_counter() - t0)
                q = np.percentile(seen["sizes"], [10, 50, 90, 99]) if seen["sizes"] else [0] * 4
                print(f"{name}: width x{f:<5g}{'' if cap is None else f' push cap {cap:5d}'} "
                      f"{statistics.median(walls[1:]) * 1e3:7.1f} ms (runs "
                      f"{', '.join(f'{w * 1e3:.0f}' for w in walls[1:])}), captured buckets "
                      f"{seen['captures']}, replays {len(seen['sizes'])}, frontier p10/50/90/99 "
                      f"{q[0]:.0f}/{q[1]:.0f}/{q[2]:.0f}/{q[3]:.0f}, same distances "
                      f"{got.isequal(want)}", flush=True)
        sssp_module._default_delta = _DEFAULT_WIDTH
        graph = want = None
    loops._capture = real_capture


def buckets(names, factors, device):
    """Per bucket of delta-stepping: the repeat call's wall time split into its rounds from
    Python, its capture and its replays; the bucket's other steps (band selects, heavy
    product, next bucket's floor) by difference; then a Python profile of one call."""
    import cProfile
    import io
    import pstats

    real = {"repeat": sssp_module.repeat, "capture": loops._capture,
            "issue": loops.issue_rounds}
    acc = {}

    def add(key, dt):
        acc[key] = acc.get(key, 0.0) + dt

    def timed(key, fn):
        def wrapper(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                add(key, time.perf_counter() - t0)
        return wrapper

    def replays(graph):
        launch = graph.exec.launch

        def timed_launch(stream):
            acc["replays"] = acc.get("replays", 0) + 1
            return launch(stream)
        graph.exec = type("Exec", (), {"launch": staticmethod(timed_launch)})()
        return graph

    sssp_module.repeat = timed("repeat", real["repeat"])
    loops.issue_rounds = timed("issued rounds", real["issue"])
    loops._capture = lambda *a, **k: (lambda g: g if g is None else replays(g))(
        timed("capture", real["capture"])(*a, **k))
    for name in names:
        graph = graphs.build(graphs.parse_graphs(name)[0], device)
        for f in factors:
            sssp_module._default_delta = _width_times(f)
            algorithms.sssp(graph.Aw, graph.source).wait()
            acc.clear()
            t0 = time.perf_counter()
            algorithms.sssp(graph.Aw, graph.source).wait()
            wall = time.perf_counter() - t0
            parts = ", ".join(f"{k} {v * 1e3:.1f} ms" if isinstance(v, float) else f"{k} {v}"
                              for k, v in acc.items())
            print(f"{name} x{f:g}: {wall * 1e3:.1f} ms; {parts}", flush=True)
            prof = cProfile.Profile()
            prof.enable()
            algorithms.sssp(graph.Aw, graph.source).wait()
            prof.disable()
            for order in ("tottime", "cumulative"):
                s = io.StringIO()
                pstats.Stats(prof, stream=s).sort_stats(order).print_stats(30)
                print(s.getvalue(), flush=True)
        graph = None
    sssp_module.repeat, loops._capture = real["repeat"], real["capture"]
    loops.issue_rounds, sssp_module._default_delta = real["issue"], _DEFAULT_WIDTH


def ncu(names):
    for name in names:
        graph = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
        algorithms.sssp(graph.Aw, graph.source).wait()
        cp.cuda.profiler.start()
        algorithms.sssp(graph.Aw, graph.source).wait()
        cp.cuda.profiler.stop()
        print(f"{name}: profiled", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("probe", choices=["nodes", "width", "buckets", "pushgrid", "ncu"])
    p.add_argument("--graphs", default="rgg-22,grid-2048")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--factors", default="0.25,0.5,1,2,4")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--caps", default="264,528,1056,2112")
    args = p.parse_args()
    names = args.graphs.split(",")
    if args.probe == "nodes":
        nodes()
    elif args.probe == "width":
        sweep(names, [float(f) for f in args.factors.split(",")], None, args.runs, args.device)
    elif args.probe == "buckets":
        buckets(names, [float(f) for f in args.factors.split(",")], args.device)
    elif args.probe == "pushgrid":
        sweep(names, [float(f) for f in args.factors.split(",")],
              [int(c) for c in args.caps.split(",")], args.runs, args.device)
    else:
        ncu(names)


if __name__ == "__main__":
    main()
