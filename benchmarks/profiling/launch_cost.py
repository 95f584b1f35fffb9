"""What does one kernel launch cost the host, by each of the ways a Python GPU engine can launch: CuPy's
RawKernel call with 1, 8 and 20 arguments (what the engine does now), the driver's
cuLaunchKernel through CuPy's binding with the argument block packed once and reused, a CUDA
graph of four launches replayed, the allocations and reads around a launch, and CuPy's scan
and sum with its own kernels and with CUB.
The floor that a whole small call (a masked vxm) has to fit over.

    python3 benchmarks/profiling/launch_cost.py --out $OUT
"""

import argparse
import ctypes
import json
import os
import time

import cupy as cp
import numpy as np

SOURCE = r"""
extern "C" __global__ void k1(long long* a) { if (threadIdx.x == 0 && blockIdx.x == 0) a[0] += 1; }
extern "C" __global__ void k8(long long* a, const long long* b, const long long* c,
                              const unsigned char* d, long long n, int m, int o, double p) {
    if (threadIdx.x == 0 && blockIdx.x == 0) a[0] += n + m + o + (long long)p;
}
extern "C" __global__ void k20(long long* a, const long long* b, const long long* c,
        const unsigned char* d, const void* e, const void* f, const void* g, const void* h,
        long long n, long long n2, int m, int m2, int m3, int m4, long long q, long long r,
        const void* s, const void* t, long long* u, unsigned long long* v) {
    if (threadIdx.x == 0 && blockIdx.x == 0) a[0] += n + m;
}
"""


def per_call_us(fn, reps=20000):
    for _ in range(200):
        fn()
    cp.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    host = (time.perf_counter() - t0) / reps
    cp.cuda.get_current_stream().synchronize()
    return host * 1e6


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    mod = cp.RawModule(code=SOURCE)
    k1, k8, k20 = (mod.get_function(n) for n in ("k1", "k8", "k20"))
    a = cp.zeros(16, dtype=cp.int64)
    b = cp.zeros(16, dtype=cp.int64)
    d = cp.zeros(16, dtype=cp.uint8)
    u64 = cp.zeros(4, dtype=cp.uint64)
    out = {}
    out["rawkernel_1_arg_us"] = per_call_us(lambda: k1((1,), (32,), (a,)))
    out["rawkernel_8_args_us"] = per_call_us(
        lambda: k8((1,), (32,), (a, b, b, d, np.int64(3), np.int32(1), np.int32(2),
                                 np.float64(1.0))))
    args20 = (a, b, b, d, None, None, b, d, np.int64(3), np.int64(4), np.int32(1),
              np.int32(2), np.int32(0), np.int32(0), np.int64(5), np.int64(6), None, b, a, u64)
    out["rawkernel_20_args_us"] = per_call_us(lambda: k20((1,), (32,), args20))

    try:
        prepacked(out, k20, args20)
    except Exception as e:  # noqa: BLE001 - a way that does not work here is a finding too
        out["culaunchkernel_20_args_prepacked_us"] = f"failed: {e!r}"
    try:
        replayed(out, k20, args20)
    except Exception as e:  # noqa: BLE001
        out["cuda_graph_4_launches_replay_us"] = f"failed: {e!r}"
    try:
        allocations(out, u64)
    except Exception as e:  # noqa: BLE001
        out["allocations"] = f"failed: {e!r}"
    for k, v in out.items():
        print(f"{k:40s} {v:8.2f}" if isinstance(v, float) else f"{k:40s} {v}", flush=True)
    with open(os.path.join(args.out, "launch_overhead.json"), "w") as f:
        json.dump(out, f, indent=1)


def prepacked(out, k20, args20):
    """cuLaunchKernel with the parameter block built once (the values live in ctypes objects
    that a caller would update in place)."""
    from cupy_backends.cuda.api import driver

    vals = [ctypes.c_void_p(x.data.ptr) if isinstance(x, cp.ndarray) else
            ctypes.c_void_p(0) if x is None else
            (ctypes.c_longlong(int(x)) if x.dtype == np.int64 else ctypes.c_int(int(x)))
            for x in args20]
    params = (ctypes.c_void_p * len(vals))(*[ctypes.addressof(v) for v in vals])
    fptr = k20.kernel.ptr  # the RawKernel's cupy.cuda.function.Function
    stream = cp.cuda.get_current_stream().ptr
    out["culaunchkernel_20_args_prepacked_us"] = per_call_us(
        lambda: driver.launchKernel(fptr, 1, 1, 1, 32, 1, 1, 0, stream,
                                    ctypes.addressof(params), 0))


def replayed(out, k20, args20):
    """A CUDA graph of four launches, replayed (the sequence of one small traversal step)."""
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        for _ in range(4):
            k20((1,), (32,), args20)
        graph = s.end_capture()
    graph.upload(s)
    out["cuda_graph_4_launches_replay_us"] = per_call_us(lambda: graph.launch(s), reps=5000)
    s.synchronize()


def allocations(out, u64):
    out["cp_empty_1000_us"] = per_call_us(lambda: cp.empty(1000, dtype=cp.int64))
    out["cp_zeros_1000_us"] = per_call_us(lambda: cp.zeros(1000, dtype=cp.int64))
    out["stream_synchronize_idle_us"] = per_call_us(
        lambda: cp.cuda.get_current_stream().synchronize())
    host = np.zeros(4, dtype=np.uint64)
    out["read_4_words_us"] = per_call_us(lambda: u64.get(out=host), reps=5000)
    import cupyx

    pinned = cupyx.empty_pinned(4, dtype=np.uint64)
    out["read_4_words_pinned_us"] = per_call_us(lambda: u64.get(out=pinned), reps=5000)
    page = cp.zeros(512 * 3, dtype=np.uint64)
    page_host = cupyx.empty_pinned(512 * 3, dtype=np.uint64)
    out["read_counter_page_pageable_us"] = per_call_us(lambda: page.get(), reps=5000)
    out["read_counter_page_pinned_us"] = per_call_us(lambda: page.get(out=page_host),
                                                     reps=5000)
    # CuPy's scan (blocks.exclusive_scan uses cumsum) with its own kernels and with CUB
    from cupy._core import _accelerator

    x = cp.ones(1000, dtype=cp.int64)
    saved = _accelerator.get_routine_accelerators()
    for name, accel in (("cupy", []), ("cub", ["cub"])):
        _accelerator.set_routine_accelerators(accel)
        out[f"cumsum_1000_{name}_us"] = per_call_us(lambda: cp.cumsum(x), reps=5000)
        out[f"sum_1000_{name}_us"] = per_call_us(lambda: x.sum(), reps=5000)
    _accelerator.set_routine_accelerators(saved)
    out["accelerators_default"] = ",".join(map(str, saved)) or "none"


if __name__ == "__main__":
    main()
