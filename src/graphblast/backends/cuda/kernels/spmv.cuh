// Matrix-vector products over any semiring: pull (SpMV) and push (SpMSpV), mask-aware.
//
// The matrix M is CSR; a row of M is an output position o for pull and a frontier entry k for
// push.  Mul is a semiring-multiply adapter called as mul(first, second, ai, aj, bi, bj);
// VFIRST says the vector is the first operand (vxm), else the matrix is (mxv), which fixes the
// operand order and the positions a positional multiply sees: (0, k, k, o) for u(k) * A(k, o),
// (o, k, k, 0) for A(o, k) * u(k).  Results are written densely (values plus presence flags)
// and compacted afterwards (gbk_compact_dense), so the only host synchronization is the one
// that sizes the output.
#pragma once
#include "common.cuh"
#include "reduce.cuh"

namespace gbk {

template <bool VFIRST> struct mv_call;
template <> struct mv_call<true> {
    template <class Mul, class MV, class UV>
    static __device__ __forceinline__ typename Mul::z_t run(const Mul& f, MV m, UV u, idx_t o,
                                                             idx_t k) {
        return f(u, m, 0, k, k, o);
    }
};
template <> struct mv_call<false> {
    template <class Mul, class MV, class UV>
    static __device__ __forceinline__ typename Mul::z_t run(const Mul& f, MV m, UV u, idx_t o,
                                                             idx_t k) {
        return f(m, u, o, k, k, 0);
    }
};

// A monoid seen by the atomics: an accumulator starts "empty" (M::empty()) and the first
// value replaces it, so a lone NaN survives fmin/fmax as it does in a reduction.
template <class M> struct folding {
    typedef typename M::t t;
    static __device__ __forceinline__ t combine(t acc, t v) {
        return M::is_empty(acc) ? v : M::combine(acc, v);
    }
};

// Warp-wide choice for `any`: the value of the lane whose first hit has the lowest position
// (the CPU backend's choice: the product of the smallest k).
template <class T>
__device__ __forceinline__ void warp_first(T& acc, idx_t& first) {
    for (int d = 16; d > 0; d >>= 1) {
        T o = shfl_down(acc, d);
        idx_t of = shfl_down(first, d);
        if (of < first) {
            first = of;
            acc = o;
        }
    }
}

#define GBK_NONE 9223372036854775807LL

// The reduction of row o of M against the dense vector (udense, upresent), by one warp.
template <class Mul, class M, class MV, class UV, bool VFIRST>
__device__ __forceinline__ bool warp_row(const Mul& mul, idx_t o, idx_t lo, idx_t hi,
                                         const idx_t* indices, const MV* mvals, const UV* udense,
                                         const unsigned char* upresent, typename M::t& acc) {
    bool have = false;
    idx_t first = GBK_NONE;
    for (idx_t e = lo + lane(); e < hi; e += 32) {
        idx_t k = indices[e];
        if (!upresent[k]) continue;
        typename M::t z = mv_call<VFIRST>::run(mul, mvals[e], udense[k], o, k);
        if (M::is_any) {
            acc = z;
            first = e;
            have = true;
            break;
        }
        acc = have ? M::combine(acc, z) : z;
        have = true;
        if (reached_terminal<M>(acc)) break;
    }
    if (M::is_any) {
        warp_first(acc, first);
        return first != GBK_NONE;
    }
    warp_fold<M>(acc, have);
    return have;
}

}  // namespace gbk

// Fill a push accumulator with M::empty() (a float accumulator's marker is a NaN payload,
// written here rather than passed from the host, where a float conversion could change it).
template <class M>
__global__ void gbk_fill_empty(idx_t n, typename M::t* acc) {
    for (idx_t i = gbk::global_id(); i < n; i += gbk::grid_size()) acc[i] = M::empty();
}

// allowed[i] for a vector mask over the outputs; allowed must be pre-filled with `complement`.
__global__ void gbk_mask_bitmap(idx_t nm, const idx_t* m_idx, const void* m_vals, int mkind,
                                int complement, unsigned char* allowed) {
    for (idx_t t = gbk::global_id(); t < nm; t += gbk::grid_size())
        if (gbk::mask_value(m_vals, t, mkind)) allowed[m_idx[t]] = complement ? 0 : 1;
}

// The dense form of a sparse vector; upresent must be zero-filled.
template <class UV>
__global__ void gbk_scatter(idx_t nu, const idx_t* u_idx, const UV* u_vals, UV* udense,
                            unsigned char* upresent) {
    for (idx_t t = gbk::global_id(); t < nu; t += gbk::grid_size()) {
        udense[u_idx[t]] = u_vals[t];
        upresent[u_idx[t]] = 1;
    }
}

// Pull: one warp per output row, skipping rows the mask excludes (allowed: null if no mask).
template <class Mul, class M, class MV, class UV, bool VFIRST>
__global__ void gbk_spmv_pull(idx_t nrows, const idx_t* indptr, const idx_t* indices,
                              const MV* mvals, const UV* udense, const unsigned char* upresent,
                              const unsigned char* allowed, typename M::t* out,
                              unsigned char* out_flag) {
    Mul mul(0);
    for (idx_t o = gbk::global_warp(); o < nrows; o += gbk::warp_count()) {
        if (allowed && !allowed[o]) {
            if (gbk::lane() == 0) out_flag[o] = 0;
            continue;
        }
        typename M::t acc = M::identity();
        bool have = gbk::warp_row<Mul, M, MV, UV, VFIRST>(mul, o, indptr[o], indptr[o + 1],
                                                          indices, mvals, udense, upresent, acc);
        if (gbk::lane() == 0) {
            out[o] = acc;
            out_flag[o] = have ? 1 : 0;
        }
    }
}

// Push: one warp per frontier entry t expands row k = u_idx[t] of M and folds every product
// into acc[j] atomically.  acc must be filled with M::empty() and flag with zeros.
template <class Mul, class M, class MV, class UV, bool VFIRST>
__global__ void gbk_spmspv_push(idx_t nu, const idx_t* u_idx, const UV* u_vals,
                                const idx_t* indptr, const idx_t* indices, const MV* mvals,
                                const unsigned char* allowed, typename M::t* acc,
                                unsigned char* flag) {
    Mul mul(0);
    for (idx_t t = gbk::global_warp(); t < nu; t += gbk::warp_count()) {
        idx_t k = u_idx[t];
        for (idx_t e = indptr[k] + gbk::lane(); e < indptr[k + 1]; e += 32) {
            idx_t j = indices[e];
            if (allowed && !allowed[j]) continue;
            typename M::t z = gbk::mv_call<VFIRST>::run(mul, mvals[e], u_vals[t], j, k);
            gbk::atomic_combine<gbk::folding<M> >(&acc[j], z);
            flag[j] = 1;
        }
    }
}

// Push for `any`, pass 1: the first frontier entry reaching each j wins (win filled with
// GBK_NONE), which makes the result the CPU backend's: the product of the smallest k.
__global__ void gbk_push_any_winners(idx_t nu, const idx_t* u_idx, const idx_t* indptr,
                                     const idx_t* indices, const unsigned char* allowed,
                                     long long* win) {
    for (idx_t t = gbk::global_warp(); t < nu; t += gbk::warp_count()) {
        idx_t k = u_idx[t];
        for (idx_t e = indptr[k] + gbk::lane(); e < indptr[k + 1]; e += 32) {
            idx_t j = indices[e];
            if (allowed && !allowed[j]) continue;
            atomicMin(&win[j], (long long)t);
        }
    }
}

// Push for `any`, pass 2: the winner of each j writes its product.
template <class Mul, class M, class MV, class UV, bool VFIRST>
__global__ void gbk_push_any_values(idx_t nu, const idx_t* u_idx, const UV* u_vals,
                                    const idx_t* indptr, const idx_t* indices, const MV* mvals,
                                    const unsigned char* allowed, const long long* win,
                                    typename M::t* out, unsigned char* flag) {
    Mul mul(0);
    for (idx_t t = gbk::global_warp(); t < nu; t += gbk::warp_count()) {
        idx_t k = u_idx[t];
        for (idx_t e = indptr[k] + gbk::lane(); e < indptr[k + 1]; e += 32) {
            idx_t j = indices[e];
            if (allowed && !allowed[j]) continue;
            if (win[j] != (long long)t) continue;
            out[j] = gbk::mv_call<VFIRST>::run(mul, mvals[e], u_vals[t], j, k);
            flag[j] = 1;
        }
    }
}

#define GBK_SMALL_N 1024
#define GBK_SMALL_BLOCK 256

// The whole of a small mxv/vxm in one block (both dimensions of M at most GBK_SMALL_N):
// mask and vector into shared memory, pull or push, then an ordered compaction into
// out_idx/out_vals (each of capacity nout) and the count into out_count[0].  One launch and
// one small copy to the host: the per-call cost of graph algorithms on small graphs.
// masked: whether there is a mask (an empty one has a null m_idx too: CuPy allocates nothing
// for an empty array); mkind: see gbk::mask_value.
template <class Mul, class M, class MV, class UV, bool VFIRST, bool PUSH>
__global__ void __launch_bounds__(GBK_SMALL_BLOCK)
gbk_mv_small(idx_t nout, idx_t nin, const idx_t* indptr, const idx_t* indices, const MV* mvals,
             idx_t nu, const idx_t* u_idx, const UV* u_vals, int masked, idx_t nm,
             const idx_t* m_idx, const void* m_vals, int mkind, int complement,
             idx_t* out_idx, typename M::t* out_vals, long long* out_count) {
    typedef typename M::t T;
    __shared__ unsigned long long u_raw[GBK_SMALL_N];
    __shared__ unsigned long long o_raw[GBK_SMALL_N];
    __shared__ long long win[GBK_SMALL_N];
    __shared__ unsigned char upresent[GBK_SMALL_N];
    __shared__ unsigned char allowed[GBK_SMALL_N];
    __shared__ unsigned char oflag[GBK_SMALL_N];
    __shared__ long long counts[GBK_SMALL_BLOCK];
    UV* udense = (UV*)u_raw;
    T* oval = (T*)o_raw;
    Mul mul(0);
    const int tid = threadIdx.x;
    const int nthreads = blockDim.x;
    for (idx_t i = tid; i < nin; i += nthreads) upresent[i] = 0;
    for (idx_t i = tid; i < nout; i += nthreads) {
        allowed[i] = !masked ? 1 : (complement ? 1 : 0);
        oflag[i] = 0;
        if (PUSH) {
            oval[i] = M::empty();
            win[i] = GBK_NONE;
        }
    }
    __syncthreads();
    if (!PUSH)
        for (idx_t t = tid; t < nu; t += nthreads) {
            udense[u_idx[t]] = u_vals[t];
            upresent[u_idx[t]] = 1;
        }
    if (masked)
        for (idx_t t = tid; t < nm; t += nthreads)
            if (gbk::mask_value(m_vals, t, mkind)) allowed[m_idx[t]] = complement ? 0 : 1;
    __syncthreads();
    const int w = tid >> 5, nw = nthreads >> 5;
    if (!PUSH) {
        for (idx_t o = w; o < nout; o += nw) {
            if (!allowed[o]) continue;
            T acc = M::identity();
            bool have = gbk::warp_row<Mul, M, MV, UV, VFIRST>(mul, o, indptr[o], indptr[o + 1],
                                                              indices, mvals, udense, upresent,
                                                              acc);
            if (gbk::lane() == 0 && have) {
                oval[o] = acc;
                oflag[o] = 1;
            }
        }
    } else {
        for (idx_t t = w; t < nu; t += nw) {
            idx_t k = u_idx[t];
            for (idx_t e = indptr[k] + gbk::lane(); e < indptr[k + 1]; e += 32) {
                idx_t j = indices[e];
                if (!allowed[j]) continue;
                if (M::is_any) {
                    atomicMin(&win[j], (long long)t);
                } else {
                    T z = gbk::mv_call<VFIRST>::run(mul, mvals[e], u_vals[t], j, k);
                    gbk::atomic_combine<gbk::folding<M> >(&oval[j], z);
                }
                oflag[j] = 1;
            }
        }
        if (M::is_any) {
            __syncthreads();
            for (idx_t t = w; t < nu; t += nw) {
                idx_t k = u_idx[t];
                for (idx_t e = indptr[k] + gbk::lane(); e < indptr[k + 1]; e += 32) {
                    idx_t j = indices[e];
                    if (allowed[j] && win[j] == (long long)t)
                        oval[j] = gbk::mv_call<VFIRST>::run(mul, mvals[e], u_vals[t], j, k);
                }
            }
        }
    }
    __syncthreads();
    // ordered compaction: thread tid owns the chunk [lo, hi) of the outputs
    idx_t chunk = (nout + nthreads - 1) / nthreads;
    idx_t lo = tid * chunk, hi = lo + chunk < nout ? lo + chunk : nout;
    long long c = 0;
    for (idx_t i = lo; i < hi; ++i) c += oflag[i];
    counts[tid] = c;
    __syncthreads();
    if (tid == 0) {
        long long run = 0;
        for (int t = 0; t < nthreads; ++t) {
            long long v = counts[t];
            counts[t] = run;
            run += v;
        }
        out_count[0] = run;
    }
    __syncthreads();
    long long k = counts[tid];
    for (idx_t i = lo; i < hi; ++i)
        if (oflag[i]) {
            out_idx[k] = i;
            out_vals[k] = oval[i];
            ++k;
        }
}
