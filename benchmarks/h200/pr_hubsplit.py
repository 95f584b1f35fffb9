"""PageRank's product over an undirected graph split at its hubs: each hub-to-vertex edge
stored once and used both ways, its hub end in shared memory.

In decreasing-degree order (core/ordering.py) the first T vertices are the hubs.  For a
symmetric B, ``y = B c`` reads every edge twice, once from each end, and the pull's cost is
its gathers of ``c`` (docs/design.md, "Pull": the L2's sector rate).  Split at T:

- a hub row keeps its hub columns only (the hub-to-hub block);
- a non-hub row keeps every entry; an entry (i, j) with j < T is used both ways: ``y[i] +=
  c[j]`` (a gather of a hub's value: shared memory or L1) and ``y[j] += c[i]`` (``c[i]`` is
  the row's own value, read once; added into the block's copy of the hubs' sums in shared
  memory, flushed once a block), so the hub rows' gathers of non-hub values are gone.

This measures, on each graph, the library's product over B and its gathers alone against the
split layout's product for tiers T of 4,096 to 262,144 hubs (past what shared memory holds,
the hubs' sums in global memory), 4, 8 or 32 lanes a row, the hubs' values in shared memory
or not, each result checked against the library's:

    python3 benchmarks/h200/pr_hubsplit.py --graphs kron-22 [--tiers 12288,262144]
        [--repeat 20] [--deadline S] --out $OUT
"""

import os
import time

import cupy as cp
import numpy as np

from graphblast import Matrix, Vector, semiring
from graphblast.bench import graphs
from graphblast.dtypes import FP64

import per_graph  # this folder's per_graph.py (run as a script)

SOURCE = r"""
// One persistent block an SM; warps take chunks of rows of about equal entry counts
// (rows split[k] to split[k + 1]) from a counter, W lanes a row.
// yt: the block's sums of the hubs' values (T doubles), ct: the hubs' values (CT only).
template <int W, bool CT, bool SMEM_SCATTER>
__global__ void __launch_bounds__(1024, 1)
hubsplit(long long n, int T, const long long* __restrict__ ptr, const int* __restrict__ col,
         const double* __restrict__ c, double* __restrict__ y, unsigned long long* next,
         const long long* __restrict__ split, long long nchunks) {
    extern __shared__ double sm[];
    double* yt = sm;
    double* ct = sm + T;
    for (int i = threadIdx.x; i < T; i += blockDim.x) {
        if (SMEM_SCATTER) yt[i] = 0.0;
        if (CT) ct[i] = c[i];
    }
    __syncthreads();
    const int lane = threadIdx.x & 31, sub = lane & (W - 1), grp = lane / W;
    const unsigned full = 0xffffffffu;
    while (true) {
        unsigned long long base = 0;
        if (lane == 0) base = atomicAdd(next, 1ull);
        base = __shfl_sync(full, base, 0);
        if (base >= (unsigned long long)nchunks) break;
        const long long end = split[base + 1];
        for (long long r0 = split[base]; r0 < end; r0 += 32 / W) {
            const long long r = r0 + grp;
            const bool on = r < end;
            long long lo = on ? ptr[r] : 0, hi = on ? ptr[r + 1] : 0;
            const bool scatter = r >= T;
            const double ci = on && scatter && hi > lo ? c[r] : 0.0;
            double acc = 0.0;
            for (long long e = lo + sub; e < hi; e += 4 * W) {
                int j[4];
                double v[4];
#pragma unroll
                for (int k = 0; k < 4; ++k) j[k] = e + k * W < hi ? __ldcs(col + e + k * W) : -1;
#pragma unroll
                for (int k = 0; k < 4; ++k)
                    v[k] = j[k] < 0 ? 0.0 : (CT && j[k] < T) ? ct[j[k]] : __ldg(c + j[k]);
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    acc += v[k];
                    if (scatter && j[k] >= 0 && j[k] < T) {
                        if (SMEM_SCATTER) atomicAdd(yt + j[k], ci);
                        else atomicAdd(y + j[k], ci);
                    }
                }
            }
#pragma unroll
            for (int o = W / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(full, acc, o, W);
            if (on && sub == 0) {
                if (r < T) {
                    if (SMEM_SCATTER) atomicAdd(yt + r, acc);
                    else atomicAdd(y + r, acc);
                } else {
                    y[r] = acc;  // only its own row adds to a non-hub's sum
                }
            }
        }
    }
    if (SMEM_SCATTER) {
        __syncthreads();
        for (int i = threadIdx.x; i < T; i += blockDim.x) atomicAdd(y + i, yt[i]);
    }
}

// The gathers' floor: every entry's c[col[e]] summed, no rows (pr_order.py's kernel).
extern "C" __global__ void gather_only(const int* __restrict__ col, long long nnz,
                                       const double* __restrict__ c, double* out) {
    double acc = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < nnz; e += stride)
        acc += c[__ldcs(col + e)];
    if (acc == -1.0) out[0] = acc;  // never true: keeps the loads
}

// The hub-split layout's row lengths: a hub row keeps its hub columns only.
extern "C" __global__ void kept(long long n, int T, const long long* ptr, const int* col,
                                long long* len) {
    const long long r = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (r >= n) return;
    long long lo = ptr[r], hi = ptr[r + 1], k = 0;
    if (r >= T) {
        k = hi - lo;
    } else {
        for (long long e = lo + lane; e < hi; e += 32) k += col[e] < T;
        for (int o = 16; o > 0; o >>= 1) k += __shfl_xor_sync(0xffffffffu, k, o);
    }
    if (lane == 0) len[r] = k;
}

extern "C" __global__ void keep(long long n, int T, const long long* ptr, const int* col,
                                const long long* nptr, int* ncol) {
    const long long r = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (r >= n) return;
    long long lo = ptr[r], hi = ptr[r + 1], out = nptr[r];
    for (long long b = lo; b < hi; b += 32) {
        const long long e = b + lane;
        const int j = e < hi ? col[e] : 0;
        const bool k = e < hi && (r >= T || j < T);
        const unsigned m = __ballot_sync(0xffffffffu, k);
        if (k) ncol[out + __popc(m & ((1u << lane) - 1))] = j;
        out += __popc(m);
    }
}
"""

CHUNK = 2048  # entries a warp takes at a time

# (W, CT, SMEM_SCATTER); the last three keep the hubs' sums in global memory (atomics
# resolved in L2), so that T is not bounded by shared memory
VARIANTS = [(W, CT, True) for W in (4, 8, 32) for CT in (False, True)] + [
    (8, False, False), (32, False, False), (8, True, False)]


def options(parser):
    parser.add_argument("--tiers", default="4096,8192,12288,24576,65536,262144")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--deadline", type=float, default=1e9,
                        help="seconds from the start after which no further tier begins")


_START = time.time()
_NAMES = [f"hubsplit<{W}, {'true' if CT else 'false'}, {'true' if S else 'false'}>"
          for W, CT, S in VARIANTS]


def _module():
    return cp.RawModule(code=SOURCE, options=("-std=c++17",), name_expressions=_NAMES)


def measure(name, args):
    module = _module()
    kept, keep = module.get_function("kept"), module.get_function("keep")
    gather_only = module.get_function("gather_only")
    sm_count = cp.cuda.Device().attributes["MultiProcessorCount"]
    family, size = name.split("-")
    A = graphs.build(graphs.GraphSpec(family, int(size)), "cuda",
                     os.environ.get("GRAPHBLAST_DATA")).A
    Bd, _, _ = A._backend.pull_in_degree_order(A._data, 0.0, False)
    B = Matrix._from_data(Bd, A._backend, A.device)
    n = B.nrows
    ptr, col = Bd.indptr, Bd.stored_indices
    assert col.dtype == cp.int32 and ptr.dtype == cp.int64
    active = int((ptr[1:] > ptr[:-1]).sum())  # degree order: the rows with entries first
    c_host = np.random.default_rng(1).random(n)
    c = cp.asarray(c_host)
    cv = Vector.from_dense(c_host, device=A.device)
    pull = semiring.plus_second[FP64]
    yref = cp.asarray(B.mxv(cv, pull).new().to_dense(fill_value=0.0))
    t_lib = per_graph.gpu_ms(lambda: B.mxv(cv, pull).new().wait(), args.repeat)
    sink = cp.zeros(1, dtype=cp.float64)
    t_gather = per_graph.gpu_ms(lambda: gather_only((sm_count * 8,), (512,), (
        col, np.int64(col.size), c, sink)), args.repeat)
    row = {"graph": name, "n": n, "nnz": int(Bd.nvals), "library_ms": t_lib,
           "gathers_ms": t_gather, "sm_count": sm_count, "tiers": []}
    print(f"{name}: n {n:,} nnz {int(Bd.nvals):,}; library product {t_lib:.3f} ms, "
          f"its gathers alone {t_gather:.3f} ms", flush=True)
    for T in [min(int(t), active) for t in args.tiers.split(",")]:
        if time.time() - _START > args.deadline:
            break
        grid32 = ((n * 32 + 255) // 256,)
        length = cp.empty(n, dtype=cp.int64)

        def build():
            kept(grid32, (256,), (np.int64(n), np.int32(T), ptr, col, length))
            nptr = cp.concatenate([cp.zeros(1, cp.int64), cp.cumsum(length)])
            ncol = cp.empty(int(nptr[-1]), dtype=cp.int32)
            keep(grid32, (256,), (np.int64(n), np.int32(T), ptr, col, nptr, ncol))
            return nptr, ncol

        t_build = per_graph.gpu_ms(build, 3)
        nptr, ncol = build()
        stored = int(nptr[-1])
        hub_share = float((ncol[int(nptr[T]):] < T).sum()) / max(stored, 1)
        nchunks = (stored + CHUNK - 1) // CHUNK
        split = cp.searchsorted(nptr, cp.arange(nchunks + 1, dtype=cp.int64) * CHUNK)
        split[-1] = active  # the rows past it are empty: their sums are set to 0 apart
        longest = int(cp.diff(nptr).max())
        tier = {"T": T, "stored": stored, "build_ms": t_build,
                "nonhub_entries_to_hubs": hub_share, "longest_row": longest, "variants": []}
        print(f"  T={T}: stored {stored:,} ({stored / Bd.nvals:.3f} of B), non-hub rows' "
              f"entries to hubs {hub_share:.3f}, longest row {longest:,}, build "
              f"{t_build:.3f} ms", flush=True)
        y = cp.empty(n, dtype=cp.float64)
        counter = cp.zeros(1, dtype=cp.uint64)
        for (W, CT, S), fname in zip(VARIANTS, _NAMES):
            fn = module.get_function(fname)
            smem = 8 * T * ((1 if S else 0) + (1 if CT else 0))
            if smem > 227 * 1024:
                continue
            if smem > 48 * 1024:
                fn.max_dynamic_shared_size_bytes = smem

            def run():
                counter.fill(0)
                y[active:] = 0.0
                if not S:
                    y[:T] = 0.0
                fn((sm_count,), (1024,), (np.int64(n), np.int32(T), nptr, ncol, c, y, counter,
                                          split, np.int64(nchunks)), shared_mem=smem)
            try:
                ms = per_graph.gpu_ms(run, args.repeat)
            except cp.cuda.driver.CUDADriverError as err:
                print(f"    W={W} c-tier={int(CT)} smem-scatter={int(S)}: {err}", flush=True)
                continue
            run()
            err = float(cp.abs(y - yref).max() / cp.abs(yref).max())
            tier["variants"].append({"W": W, "c_tier": CT, "smem_scatter": S, "ms": ms,
                                     "rel_err": err})
            print(f"    W={W:2d} c-tier={int(CT)} smem-scatter={int(S)}: {ms:.3f} ms "
                  f"({t_lib / ms:.2f}x the library), max rel err {err:.1e}", flush=True)
        row["tiers"].append(tier)
        del nptr, ncol
    return row


if __name__ == "__main__":
    per_graph.run(measure, "pr_hubsplit.json", cp.get_default_memory_pool().free_all_blocks,
                  options)
