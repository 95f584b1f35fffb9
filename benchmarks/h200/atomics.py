"""What a kernel's counter atomics cost on the H200: a grid-stride count over n positions
(4,224 blocks of 256, the engine's MAX_GRID) ending in one atomic per warp (add_counts) or one
per block, and a bitmap compacted into a list by one atomic per warp step (one position per
lane) or per warp step of 16 positions per lane.  Times by CUDA events, median of 20.

    python3 benchmarks/h200/atomics.py --out $OUT/atomics
"""

import argparse
import json
import os

import cupy as cp
import numpy as np

SRC = r"""
extern "C" {
__device__ __forceinline__ void warp_add(unsigned long long* c, unsigned long long v) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(c, v);
}
__device__ __forceinline__ void block_add(unsigned long long* c, unsigned long long v) {
    __shared__ unsigned long long s[8];
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t += s[w];
        if (t) atomicAdd(c, t);
    }
}
__global__ void count_warp(long long n, const unsigned char* bits, unsigned long long* c) {
    unsigned long long k = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) k += bits[i] != 0;
    warp_add(c, k);
}
__global__ void count_block(long long n, const unsigned char* bits, unsigned long long* c) {
    unsigned long long k = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) k += bits[i] != 0;
    block_add(c, k);
}
__global__ void compact_lane(long long n, const unsigned char* bits, long long* out,
                             unsigned long long* c) {
    long long stride = (long long)blockDim.x * gridDim.x;
    int lane = threadIdx.x & 31;
    for (long long base = blockIdx.x * (long long)blockDim.x + threadIdx.x - lane; base < n;
         base += stride) {
        long long i = base + lane;
        bool has = i < n && bits[i];
        unsigned w = __ballot_sync(0xffffffffu, has);
        if (!w) continue;
        int leader = __ffs(w) - 1;
        unsigned long long b = 0;
        if (lane == leader) b = atomicAdd(c, (unsigned long long)__popc(w));
        b = __shfl_sync(0xffffffffu, b, leader);
        if (has) out[b + __popc(w & ((1u << lane) - 1u))] = i;
    }
}
__global__ void compact_chunk(long long n, const unsigned char* bits, long long* out,
                              unsigned long long* c) {
    long long stride = ((long long)blockDim.x * gridDim.x) * 16;
    int lane = threadIdx.x & 31;
    for (long long base = (blockIdx.x * (long long)blockDim.x + threadIdx.x - lane) * 16;
         base < n; base += stride) {
        long long first = base + 16 * lane;
        unsigned m = 0;
        for (int b = 0; b < 16; ++b)
            if (first + b < n && bits[first + b]) m |= 1u << b;
        unsigned long long k = __popc(m), inc = k;
        for (int d = 1; d < 32; d <<= 1) {
            unsigned long long y = __shfl_up_sync(0xffffffffu, inc, d);
            if (lane >= d) inc += y;
        }
        unsigned long long total = __shfl_sync(0xffffffffu, inc, 31), b0 = 0;
        if (!total) continue;
        if (lane == 31) b0 = atomicAdd(c, total);
        b0 = __shfl_sync(0xffffffffu, b0, 31) + inc - k;
        while (m) {
            int b = __ffs(m) - 1;
            m &= m - 1;
            out[b0++] = first + b;
        }
    }
}
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=1 << 22)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    mod = cp.RawModule(code=SRC)
    fns = {k: mod.get_function(k) for k in
           ("count_warp", "count_block", "compact_lane", "compact_chunk")}
    n = args.n
    rng = np.random.default_rng(1)
    out = cp.empty(n, dtype=np.int64)
    c = cp.zeros(1, dtype=np.uint64)
    grid, block = 132 * 32, 256
    rec = {}

    def timed(fn, threads_grid, a):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        ts = []
        for _ in range(23):
            c.fill(0)
            e0.record()
            fn((threads_grid,), (block,), a)
            e1.record()
            e1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)
        return float(np.median(ts[3:])), int(c.get()[0])

    for density in (0.0, 0.016, 0.1, 0.45, 1.0):
        bits = cp.asarray((rng.random(n) < density).astype(np.uint8))
        want = int(bits.sum())
        row = {}
        for name in ("count_warp", "count_block"):
            us, got = timed(fns[name], grid, (np.int64(n), bits, c))
            row[name] = (round(us, 1), got == want)
        chunk_grid = max(1, min(grid, (n // 16 + block - 1) // block))
        for name, g in (("compact_lane", grid), ("compact_chunk", chunk_grid)):
            us, got = timed(fns[name], g, (np.int64(n), bits, out, c))
            ok = got == want and bool(cp.all(cp.sort(out[:got]) == cp.flatnonzero(bits)))
            row[name] = (round(us, 1), ok)
        rec[str(density)] = row
        print(f"n {n} density {density}: {row}", flush=True)
    with open(os.path.join(args.out, "atomics.json"), "w") as f:
        json.dump(rec, f, indent=1)


if __name__ == "__main__":
    main()
