// Reductions with any monoid: segments (rows of a matrix, runs of equal keys), a whole array,
// and the in-order fold that combines duplicates when a matrix is built.
//
// Monoid adapters (jit.py) provide: `typedef ... t; is_any; has_terminal; identity();
// terminal(); combine(x, y)`.  Reductions start from the first element rather than the
// identity, so that a reduction of one element returns that element exactly (fmin(inf, NaN)
// would otherwise turn a lone NaN into inf, unlike the CPU backend and SuiteSparse).
#pragma once
#include "common.cuh"

namespace gbk {

// Combine the (value, have) pairs of a warp into lane 0.
template <class M>
__device__ __forceinline__ void warp_fold(typename M::t& acc, bool& have) {
    for (int d = 16; d > 0; d >>= 1) {
        typename M::t o = shfl_down(acc, d);
        int oh = __shfl_down_sync(GBK_ALL_LANES, (int)have, d);
        if (oh) {
            acc = have ? M::combine(acc, o) : o;
            have = true;
        }
    }
}

template <class M>
__device__ __forceinline__ bool reached_terminal(typename M::t x) {
    return M::has_terminal && x == M::terminal();
}

// A product z (found at `where`) folded into (acc, have, first), one at a time: `any` keeps
// it with its place, another monoid combines it.  Whether the fold may stop there (any: its
// first product; a monoid's terminal value).
template <class M>
__device__ __forceinline__ bool fold_product(typename M::t& acc, bool& have, idx_t& first,
                                             typename M::t z, idx_t where) {
    if (M::is_any) {
        acc = z;
        first = where;
    } else {
        acc = have ? M::combine(acc, z) : z;
    }
    have = true;
    return M::is_any || reached_terminal<M>(acc);
}

#define GBK_REDUCE_BLOCK 256

// A block's (acc, have) pairs combined into its partial, out[at] and out_have[at], at the
// block's index unless given (one pass of a whole-array reduction; blocks of at most
// GBK_REDUCE_BLOCK threads).  Not spmv.cuh's block_fold, which keeps `any`'s first entry.
template <class M>
__device__ __forceinline__ void block_partial(typename M::t acc, bool have, typename M::t* out,
                                              unsigned char* out_have, int at = -1) {
    typedef typename M::t T;
    __shared__ T wacc[GBK_REDUCE_BLOCK / 32];
    __shared__ int whave[GBK_REDUCE_BLOCK / 32];
    warp_fold<M>(acc, have);
    int w = threadIdx.x >> 5;
    if (lane() == 0) {
        wacc[w] = acc;
        whave[w] = have;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        T r = M::identity();
        bool h = false;
        for (int k = 0; k < (int)(blockDim.x >> 5); ++k) {
            if (!whave[k]) continue;
            r = h ? M::combine(r, wacc[k]) : wacc[k];
            h = true;
        }
        if (at < 0) at = blockIdx.x;
        out[at] = r;
        out_have[at] = h;
    }
}

// After block_partial into out/out_have: the last block to finish (a ticket on *ticket, zero
// before and reset after) folds every block's partial into result[0] and result_have[0], as
// gbk_reduce_all run on the partials with one block would in a kernel of its own.  Every
// thread of every block must call it.
template <class M>
__device__ __forceinline__ void fold_partials(const typename M::t* out,
                                              const unsigned char* out_have,
                                              unsigned long long* ticket, typename M::t* result,
                                              unsigned char* result_have) {
    typedef typename M::t T;
    __shared__ int last;
    if (threadIdx.x == 0) {
        __threadfence();  // this block's partial before its ticket
        last = atomicAdd(ticket, 1ull) == (unsigned long long)gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    T acc = M::identity();
    bool have = false;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x) {
        if (!((volatile const unsigned char*)out_have)[b]) continue;  // not this SM's L1 copy
        const T v = ((volatile const T*)out)[b];
        acc = have ? M::combine(acc, v) : v;
        have = true;
    }
    __syncthreads();  // block_partial's shared arrays are read again
    block_partial<M>(acc, have, result, result_have, 0);
    if (threadIdx.x == 0) *ticket = 0ull;
}

}  // namespace gbk

// out[s] = the monoid over a[offsets[k] : offsets[k + 1]], k = seg_ids ? seg_ids[s] : s.
// Every segment must be non-empty.  WARP: one warp per segment (long segments), else one
// thread per segment (short runs, such as the products of one output entry of SpGEMM).
// `any` takes the first element of the segment, as the CPU backend does.
template <class M, class A, bool WARP>
__global__ void gbk_reduce_segments(idx_t nseg, const idx_t* offsets, const idx_t* seg_ids,
                                    const A* a, typename M::t* out) {
    typedef typename M::t T;
    if (WARP) {
        for (idx_t s = gbk::global_warp(); s < nseg; s += gbk::warp_count()) {
            idx_t k = seg_ids ? seg_ids[s] : s;
            idx_t lo = offsets[k], hi = offsets[k + 1];
            if (M::is_any) {
                if (gbk::lane() == 0) out[s] = gbk::cast<T>(a[lo]);
                continue;
            }
            T acc = M::identity();
            bool have = false;
            for (idx_t e = lo + gbk::lane(); e < hi; e += 32) {
                T v = gbk::cast<T>(a[e]);
                acc = have ? M::combine(acc, v) : v;
                have = true;
                if (gbk::reached_terminal<M>(acc)) break;
            }
            gbk::warp_fold<M>(acc, have);
            if (gbk::lane() == 0) out[s] = acc;
        }
    } else {
        for (idx_t s = gbk::global_id(); s < nseg; s += gbk::grid_size()) {
            idx_t k = seg_ids ? seg_ids[s] : s;
            idx_t lo = offsets[k], hi = offsets[k + 1];
            T acc = gbk::cast<T>(a[lo]);
            if (!M::is_any) {
                for (idx_t e = lo + 1; e < hi && !gbk::reached_terminal<M>(acc); ++e)
                    acc = M::combine(acc, gbk::cast<T>(a[e]));
            }
            out[s] = acc;
        }
    }
}

// One pass of a whole-array reduction: block b writes the monoid of its share of a (entries
// with a_have[e] == 0 are skipped when a_have is given) to out[b], and whether it had any
// entry to out_have[b].  Run again on the partials with one block to finish.
template <class M, class A>
__global__ void __launch_bounds__(GBK_REDUCE_BLOCK)
gbk_reduce_all(idx_t n, const A* a, const unsigned char* a_have, typename M::t* out,
               unsigned char* out_have) {
    typedef typename M::t T;
    T acc = M::identity();
    bool have = false;
    for (idx_t e = gbk::global_id(); e < n; e += gbk::grid_size()) {
        if (a_have && !a_have[e]) continue;
        T v = gbk::cast<T>(a[e]);
        acc = have ? M::combine(acc, v) : v;
        have = true;
    }
    gbk::block_partial<M>(acc, have, out, out_have);
}

// A whole-list reduction whose count is on the device (a loop's recorded round, whose lists
// the host does not count), in one kernel: each block folds its share of the first *n_ptr
// entries of a (cap entries where n_ptr is null) into its partial, out[blockIdx.x] and
// out_have[blockIdx.x]; the last block to finish (a ticket on *ticket, zero before and reset
// after) folds the partials into *result and *result_have, as gbk_reduce_all on the partials
// would in a second kernel (one kernel less in each round of delta-stepping).
template <class M, class A>
__global__ void __launch_bounds__(GBK_REDUCE_BLOCK)
gbk_reduce_list(idx_t cap, const unsigned long long* n_ptr, const A* a, typename M::t* out,
                unsigned char* out_have, unsigned long long* ticket, typename M::t* result,
                unsigned char* result_have) {
    typedef typename M::t T;
    const idx_t n = n_ptr ? (idx_t)*n_ptr : cap;
    T acc = M::identity();
    bool have = false;
    for (idx_t e = gbk::global_id(); e < n; e += gbk::grid_size()) {
        T v = gbk::cast<T>(a[e]);
        acc = have ? M::combine(acc, v) : v;
        have = true;
    }
    gbk::block_partial<M>(acc, have, out, out_have);
    gbk::fold_partials<M>(out, out_have, ticket, result, result_have);
}

// One pass of an inner product of two dense vectors, without the products' vector: block b
// folds op(a[i], b[i]) over its share of the positions where both have an entry (abits or
// bbits null: full) into out[b], and whether it met any into out_have[b]; gbk_reduce_all
// finishes on the partials.  Zip is ewise_mult's adapter (jit.zip_adapter, kind "mult").
template <class M, class Zip, class A, class B>
__global__ void __launch_bounds__(GBK_REDUCE_BLOCK)
gbk_inner_dense(idx_t n, const unsigned char* abits, const A* avals, const unsigned char* bbits,
                const B* bvals, typename M::t* out, unsigned char* out_have) {
    typedef typename M::t T;
    Zip f(typename Zip::param_t(0), typename Zip::param2_t(0));
    T acc = M::identity();
    bool have = false;
    for (idx_t e = gbk::global_id(); e < n; e += gbk::grid_size()) {
        if ((abits && !abits[e]) || (bbits && !bbits[e])) continue;
        T v = gbk::cast<T>(f.both(avals[e], bvals[e], e, 0));
        acc = have ? M::combine(acc, v) : v;
        have = true;
    }
    gbk::block_partial<M>(acc, have, out, out_have);
}

// The smallest and the largest of an integer array in one pass (a Vector index's range,
// checked before every gather and scatter): block b writes its share's to out_lo[b],
// out_hi[b] and whether it had an entry to out_have[b] (entries with a_have[e] == 0 are
// skipped when a_have is given).  Run again with one block on the partials (a_lo = the
// smallest, a_hi = the largest of each block) to finish; the first pass passes a twice.
template <class A>
__global__ void __launch_bounds__(GBK_REDUCE_BLOCK)
gbk_value_range(idx_t n, const A* a_lo, const A* a_hi, const unsigned char* a_have,
                A* out_lo, A* out_hi, unsigned char* out_have) {
    __shared__ A wlo[GBK_REDUCE_BLOCK / 32];
    __shared__ A whi[GBK_REDUCE_BLOCK / 32];
    __shared__ int whave[GBK_REDUCE_BLOCK / 32];
    A lo = 0, hi = 0;
    bool have = false;
    for (idx_t e = gbk::global_id(); e < n; e += gbk::grid_size()) {
        if (a_have && !a_have[e]) continue;
        const A l = a_lo[e], h = a_hi[e];
        lo = (!have || l < lo) ? l : lo;
        hi = (!have || h > hi) ? h : hi;
        have = true;
    }
    for (int d = 16; d > 0; d >>= 1) {
        const A ol = gbk::shfl_down(lo, d), oh = gbk::shfl_down(hi, d);
        if (__shfl_down_sync(GBK_ALL_LANES, (int)have, d)) {
            lo = (!have || ol < lo) ? ol : lo;
            hi = (!have || oh > hi) ? oh : hi;
            have = true;
        }
    }
    const int w = threadIdx.x >> 5;
    if (gbk::lane() == 0) {
        wlo[w] = lo;
        whi[w] = hi;
        whave[w] = have;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        have = false;
        for (int k = 0; k < (int)(blockDim.x >> 5); ++k) {
            if (!whave[k]) continue;
            lo = (!have || wlo[k] < lo) ? wlo[k] : lo;
            hi = (!have || whi[k] > hi) ? whi[k] : hi;
            have = true;
        }
        out_lo[blockIdx.x] = lo;
        out_hi[blockIdx.x] = hi;
        out_have[blockIdx.x] = have;
    }
}

// out[s] = the left fold, in input order, of v[offsets[s] : offsets[s + 1]] with a binary
// adapter F (build's dup_op need not be associative): acc = F(acc, v[e]) in F's input type X.
template <class F, class X, class D>
__global__ void gbk_fold_segments(idx_t nseg, const idx_t* offsets, const X* v, D* out) {
    F op(0);
    for (idx_t s = gbk::global_id(); s < nseg; s += gbk::grid_size()) {
        idx_t lo = offsets[s], hi = offsets[s + 1];
        X acc = v[lo];
        for (idx_t e = lo + 1; e < hi; ++e) acc = gbk::cast<X>(op(acc, v[e], 0, 0, 0, 0));
        out[s] = gbk::cast<D>(acc);
    }
}

// An accumulator filled with M::empty() (a float's marker is a NaN payload, written here
// rather than passed from the host, where a float conversion could change it): push's fold
// scratch and the atomic scatter start from it.
template <class M>
__global__ void gbk_fill_empty(idx_t n, typename M::t* acc) {
    for (idx_t i = gbk::global_id(); i < n; i += gbk::grid_size()) acc[i] = M::empty();
}
