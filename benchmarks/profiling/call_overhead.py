"""What does one small GraphBLAS call on the GPU cost the host? microseconds per call (synchronized
each time, and queued without synchronizing), the host reads each makes, and a Python
profile of the masked vxm (sorted by own time and by cumulative time).  With
GRAPHBLAST_DATA set (the repository's tests/data), also the record's per-call figure as
graphblast bench measures it (``Suite.per_call_overhead``: karate, the whole device
synchronized, the collector off) in this process, and its protocol's parts one at a time.

    python3 benchmarks/profiling/call_overhead.py --out $OUT
    python3 benchmarks/profiling/call_overhead.py --quick --out $OUT/pc    # the floors and the masked
                                                                # vxm only: A/B of two trees
"""

import argparse
import cProfile
import io
import os
import pstats
import time

import numpy as np

import graphblast as gb
from graphblast import Matrix, Vector, binary, generators, monoid, semiring
from graphblast.backends.cuda import blocks
from graphblast.bench.peers._base import synchronize_device
from graphblast.dtypes import BOOL, INT64

from engine_kernels import sync  # this folder's engine_kernels.py


def device_sync():
    """The record's synchronization (graphblast bench's, after every timed call): the whole
    device, through a cupy.cuda.Device made each time; a stream's is the floor above."""
    synchronize_device("cuda:0")


def per_call(fn, reps=2000, sync=sync):
    for _ in range(50):
        fn()
    sync()
    r0 = blocks.host_reads()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        samples.append(time.perf_counter() - t0)
    reads = (blocks.host_reads() - r0) / reps
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    queued = (time.perf_counter() - t0) / reps
    sync()
    return float(np.median(samples) * 1e6), queued * 1e6, reads


def _protocol(fn, sync, pre_sync, gc_off, calls=1000):
    """Median microseconds of ``fn`` timed as graphblast bench times a call, with its two
    steps outside the timed part (a synchronization first, the collector off) each optional."""
    import gc

    samples = []
    for k in range(calls + 20):
        if pre_sync:
            sync()
        if gc_off:
            gc.disable()
        t0 = time.perf_counter()
        fn()
        sync()
        samples.append(time.perf_counter() - t0)
        if gc_off:
            gc.enable()
    return float(np.median(samples[20:]) * 1e6)


def floors():
    """What no call can go below on this host: an idle stream's synchronization, an empty
    kernel's launch through the compiled launcher and its synchronization, and the
    allocations a small result makes (CuPy's pool; one per output array)."""
    import cupy as cp

    from graphblast.backends.cuda import jit

    empty = cp.RawKernel('extern "C" __global__ void gbk_empty(long long n) {}', "gbk_empty")
    cases = {
        "floor: idle stream sync": lambda: None,
        "floor: empty kernel + sync": lambda: jit.run(empty, 1, 256, (34,)),
        "floor: empty kernel + device sync": (lambda: jit.run(empty, 1, 256, (34,)),
                                              device_sync),
        "floor: cp.empty(34, int64)": lambda: cp.empty(34, dtype=np.int64),
        "floor: 2 x cp.empty + kernel": lambda: (cp.empty(34, dtype=np.int64),
                                                 cp.empty(34, dtype=np.bool_),
                                                 jit.run(empty, 1, 256, (34,))),
    }
    lines = []
    for name, fn in cases.items():
        fn, how = fn if isinstance(fn, tuple) else (fn, sync)
        synced, queued, _ = min(per_call(fn, sync=how) for _ in range(2))
        lines.append(f"{name:28s} {synced:8.1f} us synchronized {queued:8.1f} us queued")
        print(lines[-1], flush=True)
    return lines


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--quick", action="store_true",
                   help="the floors and the masked vxm only, no profile (an A/B of two trees "
                        "alternated in one call)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    n = 34
    rows, cols = np.nonzero(np.eye(n, k=1) + np.eye(n, k=-1))
    A = Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n, device="cuda")
    q = Vector.from_coo([0], True, BOOL, size=n, device="cuda")
    visited = q.dup()
    w = Vector(BOOL, n, device="cuda")
    lv = Vector(INT64, n, device="cuda")
    u = Vector.from_coo(np.arange(n), np.arange(n), INT64, device="cuda")
    cases = {
        "masked vxm any_pair": lambda: w(~visited.S, replace=True) << q.vxm(
            A, semiring.any_pair[BOOL]),
        "assign scalar under mask": lambda: lv(q.S) << 3,
        "ewise_add new": lambda: u.ewise_add(u, binary.min).new(),
        "apply new": lambda: u.apply(binary.plus, 1).new(),
        "select new": lambda: u.select("valuegt", 3).new(),
        # the Scalar stays on the GPU (core/scalar.py); reading its value is the host read
        "reduce to scalar": lambda: u.reduce(monoid.min).new(),
        "reduce to scalar, value read": lambda: u.reduce(monoid.min).new().value,
        "nvals": lambda: w.nvals,
        "dup": lambda: u.dup(),
    }
    if os.environ.get("GRAPHBLAST_DATA"):  # the same call on the record's graph
        from graphblast.bench import graphs

        K = graphs.build(graphs.GraphSpec("karate"), "cuda", os.environ["GRAPHBLAST_DATA"]).A
        qk = Vector.from_coo([0], True, BOOL, size=K.nrows, device="cuda")
        seen_k, wk = qk.dup(), Vector(BOOL, K.nrows, device="cuda")
        cases["masked vxm, karate"] = lambda: wk(~seen_k.S, replace=True) << qk.vxm(
            K, semiring.any_pair[BOOL])
    if args.quick:
        cases = {k: cases[k] for k in ("masked vxm any_pair", "masked vxm, karate")
                 if k in cases}
    else:
        # BFS's first level on a graph past the one-block kernel's size: the planner runs
        # (auto) or is skipped (push forced); the difference is auto's own cost
        big = generators.kron(18, device="cuda")
        nb = big.nrows
        q1 = Vector.from_coo([int(big.reduce_rowwise(monoid.plus[INT64]).new().to_coo()[0][0])],
                             True, BOOL, size=nb, device="cuda")
        seen = q1.dup()
        wb = Vector(BOOL, nb, device="cuda")

        def first_level():
            wb(~seen.S, replace=True) << q1.vxm(big, semiring.any_pair[BOOL])

        cases["kron-18 first level, auto"] = first_level
        cases["kron-18 first level, push forced"] = first_level
    settings = {"kron-18 first level, push forced": {"direction": "push"}}
    lines = floors()
    for name, fn in cases.items():
        # the same call with CuPy's own kernel launches (gb.config kernel_launch), to show
        # what the compiled launcher saves; each measured twice, in alternating order, and
        # the lower figure kept (the first measurement of a case carried warm-up effects)
        ours, theirs = [], []
        for _ in range(2):
            with gb.config.set(**settings.get(name, {})):
                ours.append(per_call(fn))
                with gb.config.set(kernel_launch="cupy"):
                    theirs.append(per_call(fn))
        synced, queued, reads = min(ours)
        cupy_synced, cupy_queued, _ = min(theirs)
        lines.append(f"{name:28s} {synced:8.1f} us synchronized {queued:8.1f} us queued "
                     f"{reads:5.2f} host reads   (CuPy's launches: {cupy_synced:8.1f} / "
                     f"{cupy_queued:8.1f} us)")
        print(lines[-1], flush=True)
    # the per-call figure as the record measures it (the whole device synchronized)
    synced, queued, _ = min(per_call(cases["masked vxm any_pair"], sync=device_sync)
                            for _ in range(2))
    lines.append(f"{'masked vxm, device sync':28s} {synced:8.1f} us synchronized "
                 f"{queued:8.1f} us queued (the record's synchronization)")
    print(lines[-1], flush=True)
    # the record's own measurement (graphblast bench's per_call_overhead: karate from the
    # data folder, 20 warm-up calls, 1000 timed, the garbage collector off around each) in
    # this process, to tell its figure's difference from the lines above apart from the
    # bench process it runs in
    from types import SimpleNamespace

    from graphblast.bench.runner import Suite

    data = os.environ.get("GRAPHBLAST_DATA")
    if data:
        suite = SimpleNamespace(data_dir=data, device="cuda:0",
                                ours=SimpleNamespace(sync=device_sync))
        for _ in range(2):
            got = Suite.per_call_overhead(suite, 1000)
            name = "the record's call (karate)"
            lines.append(f"{name:28s} {got['median_us']:8.1f} us median "
                         f"(p10 {got['p10_us']:.1f}, p90 {got['p90_us']:.1f})")
            print(lines[-1], flush=True)
        # its protocol's parts, one at a time: the synchronization before each timed call
        # and the collector switched off around it (the karate call, this process)
        for _ in range(2):
            for pre, gc_off in ((True, True), (False, True), (True, False), (False, False)):
                med = _protocol(cases["masked vxm, karate"], device_sync, pre, gc_off)
                name = f"protocol: pre-sync {pre:d}, gc off {gc_off:d}"
                lines.append(f"{name:28s} {med:8.1f} us median")
                print(lines[-1], flush=True)
    with open(os.path.join(args.out, "percall.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for name in () if args.quick else ("masked vxm any_pair", "ewise_add new",
                                       "kron-18 first level, auto",
                                       "kron-18 first level, push forced"):
        fn = cases[name]
        prof = cProfile.Profile()
        with gb.config.set(**settings.get(name, {})):
            prof.enable()
            for _ in range(1000):
                fn()
            sync()
            prof.disable()
        for key in ("tottime", "cumulative"):
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats(key).print_stats(45)
            with open(os.path.join(args.out, "percall_profile.txt"), "a") as f:
                f.write(f"==== {name}, 1000 calls, by {key}\n" + s.getvalue())


if __name__ == "__main__":
    main()
