"""What cache placement buys PageRank's gathers in degree order (twenty-third session).

In degree order (PageRank's pull on a skewed graph, `core/ordering.py`) the most-read ranks
sit at the front of the vector: on kron-22 the first 28,672 vertices are the columns of 49 %
of the entries, the first million 97.5 %.  Yet the product's L1 hit rate on kron-27 was
5-9 % and its L2 hit rate 45-48 % (`profiles/session18/ncu_pr_product_kron27.csv`): every
gather, hot or cold, allocates in both caches, so the cold ones evict the hot.  This times the
gather floor (a kernel summing x[col[e]] over every entry, pr_order.py's) with the load chosen
by the column's rank:

- ``plain``: every gather a plain load (pr_order.py's floor);
- ``l1``: the first ``h1`` ranks cached in L1, the others loaded without L1 allocation;
- ``l2``: the first ``h2`` ranks loaded with an L2 evict-last policy, the others evict-first;
- ``l1l2``: both;
- ``smem``: the first ``hs`` ranks copied into each block's shared memory once (a persistent
  grid), the others as in ``l1l2`` without the L1 tier;

each with and without the persisting-L2 set-aside (``cudaLimitPersistingL2CacheSize``).

    python3 benchmarks/h200/gather_hints.py --graphs kron-22,kron-27 --out $OUT
"""

import json

import cupy as cp
import numpy as np

from graphblast.bench import graphs

import engine  # this folder's engine.py (run as a script)
import per_graph
from pr_order import renumbered

GATHER = r"""
__device__ __forceinline__ double ld_l1_l2(const double* p, unsigned long long pol) {
    double v;
    asm volatile("ld.global.L1::evict_last.L2::cache_hint.f64 %0, [%1], %2;"
                 : "=d"(v) : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ double ld_l2(const double* p, unsigned long long pol) {
    double v;
    asm volatile("ld.global.L1::no_allocate.L2::cache_hint.f64 %0, [%1], %2;"
                 : "=d"(v) : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ double ld_noalloc(const double* p) {
    double v;
    asm volatile("ld.global.L1::no_allocate.f64 %0, [%1];" : "=d"(v) : "l"(p));
    return v;
}

extern "C" __global__ void gather(const int* __restrict__ col, long long nnz,
                                  const double* __restrict__ x, double* out, int mode,
                                  long long h1, long long h2) {
    unsigned long long last, first;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(last));
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(first));
    double acc = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < nnz; e += stride) {
        const int k = __ldcs(col + e);
        double v;
        if (mode == 0) v = x[k];
        else if (mode == 1) v = k < h1 ? x[k] : ld_noalloc(x + k);
        else if (mode == 2) v = k < h2 ? ld_l2(x + k, last) : ld_l2(x + k, first);
        else v = k < h1 ? ld_l1_l2(x + k, last) : ld_l2(x + k, k < h2 ? last : first);
        acc += v;
    }
    if (acc == -1.0) out[0] = acc;  // never true: keeps the loads
}

extern "C" __global__ void gather_smem(const int* __restrict__ col, long long nnz,
                                       const double* __restrict__ x, double* out,
                                       long long hs, long long h2) {
    extern __shared__ double hot[];
    unsigned long long last, first;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(last));
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(first));
    for (long long i = threadIdx.x; i < hs; i += blockDim.x) hot[i] = x[i];
    __syncthreads();
    double acc = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < nnz; e += stride) {
        const int k = __ldcs(col + e);
        acc += k < hs ? hot[k] : ld_l2(x + k, k < h2 ? last : first);
    }
    if (acc == -1.0) out[0] = acc;
}
"""

MODES = {"plain": 0, "l1": 1, "l2": 2, "l1l2": 3}


def floors(col, x, rec, label, sms):
    mod = cp.RawModule(code=GATHER)
    g = mod.get_function("gather")
    gs = mod.get_function("gather_smem")
    sink = cp.zeros(1, dtype=cp.float64)
    nnz = np.int64(col.shape[0])
    grid = sms * 16

    def t(fn):
        return engine.timed(fn, repeat=7, warmup=2)[0] * 1e3

    for name, mode in MODES.items():
        hs1 = (16384, 32768) if mode in (1, 3) else (0,)
        hs2 = (2 << 20, 4 << 20) if mode in (2, 3) else (0,)
        for h1 in hs1:
            for h2 in hs2:
                key = f"{label}_{name}" + (f"_h1={h1}" if h1 else "") + (
                    f"_h2={h2 >> 20}M" if h2 else "")
                rec[key] = t(lambda: g((grid,), (256,), (col, nnz, x, sink, np.int32(mode),
                                                         np.int64(h1), np.int64(h2))))
    for hs in (12288, 26624):
        gs.max_dynamic_shared_size_bytes = hs * 8
        for h2 in (2 << 20, 4 << 20):
            rec[f"{label}_smem_hs={hs}_h2={h2 >> 20}M"] = t(
                lambda: gs((sms,), (1024,), (col, nnz, x, sink, np.int64(hs), np.int64(h2)),
                           shared_mem=hs * 8))
    print(json.dumps(rec), flush=True)


def measure(name):
    g = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
    A, n = g.A, g.n
    M = A._data
    rec = {"graph": name, "n": n, "nvals": A.nvals, "gpu": cp.cuda.runtime.getDeviceProperties(
        0)["name"].decode()}
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    rng = np.random.default_rng(1)
    x = cp.asarray(rng.random(n))
    B, order, ms = renumbered(M, n, False)
    rec["renumber_ms"] = ms
    col_b = B.stored_indices
    xb = x[order]
    cp.get_default_memory_pool().free_all_blocks()
    deg_rank = cp.sort(col_b[:: max(1, col_b.shape[0] >> 28)])  # a strided sample
    for k in (12288, 16384, 26624, 32768, 2 << 20, 4 << 20):
        rec[f"share_below_{k}"] = float(cp.searchsorted(deg_rank, k)) / deg_rank.shape[0]
    del deg_rank
    cp.get_default_memory_pool().free_all_blocks()
    limit = 0x06  # cudaLimitPersistingL2CacheSize
    most = props.get("persistingL2CacheMaxSize", 0)
    rec["persisting_l2_max"] = most
    for setaside in (0, most):
        try:
            cp.cuda.runtime.deviceSetLimit(limit, setaside)
        except Exception as e:  # noqa: BLE001 - a probe: the rest still runs
            rec[f"setaside_error_{setaside}"] = repr(e)
            continue
        tag = "sa" if setaside else "nosa"
        floors(col_b, xb, rec, f"degree_{tag}", sms)
        if M.stored_indices.dtype == cp.int32 and n < (1 << 25):
            floors(M.stored_indices, x, rec, f"stored_{tag}", sms)
    cp.cuda.runtime.deviceSetLimit(limit, 0)
    return rec


def main():
    per_graph.run(measure, "gather_hints.json", cp.get_default_memory_pool().free_all_blocks)


if __name__ == "__main__":
    main()
