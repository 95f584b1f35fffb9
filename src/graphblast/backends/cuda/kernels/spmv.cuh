// Pull (SpMV): every output position o the mask allows reduces row o of the matrix against a
// dense vector (values xv, presence xbits, null when the vector is full).
//
// Load balance: rows are binned by degree once per matrix (mxv.py's View); each bin is taken
// by groups of `width` lanes (a power of two from 1 to 32) fitted to its degrees, and rows
// longer than `heavy` by gbk_pull_heavy, one block per row (monoids that stop early: any,
// lor, land), or split into chunks of GBK_CHUNK entries, a block each, whose partial results
// are folded with an atomic (gbk_pull_chunks: every other monoid; a row of a million entries
// keeps the whole GPU busy).  Output sparsity: a row the mask excludes costs one
// mask test and reads no edge; a row stops at the monoid's terminal value (lor: true, any: the
// first hit).  The result is a bitmap (out, obits); counters[0] gets its entry count and
// counters[1] the degree sum of its entries in dptr (the matrix a next push would expand),
// so that the host reads both with the count it needs anyway.
#pragma once
#include "mv_common.cuh"

// The rows are 0..nrows-1, or rows[0..nrows-1] when a bin of rows of similar degree is given
// (then every row of the bin has an entry and none is longer than `heavy`).
namespace gbk {

// Edge e = (o, col[e]) of a pulled row folded into (acc, have, first); whether the row may stop
// there (any: its first hit; a monoid's terminal value).
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX>
__device__ __forceinline__ bool pull_edge(const Mul& mul, idx_t o, idx_t e, const IDX* col,
                                          const MV* mvals, int miso, const UV* xv,
                                          const unsigned char* xbits, typename M::t& acc,
                                          bool& have, idx_t& first) {
    typedef mv_reads<Mul, VFIRST> reads;
    const idx_t k = (idx_t)ld_stream(&col[e]);
    if (xbits != nullptr && !xbits[k]) return false;
    const MV m = reads::matrix ? gbk::matrix_value(mvals, miso, e) : MV();
    return fold_product<M>(acc, have, first,
                           mv_call<VFIRST>::run(mul, m, reads::vector ? xv[k] : UV(), o, k), e);
}

// Whether edge e of a pulled row meets an entry of the vector (any entry: a full vector).
template <class IDX>
__device__ __forceinline__ bool pull_hit(idx_t e, const IDX* col, const unsigned char* xbits) {
    return xbits == nullptr || xbits[(idx_t)ld_stream(&col[e])];
}

// The edges e, e + stride, e + 2 stride, e + 3 stride below hi of a pulled row folded into
// (acc, have), in that order, for a monoid that never stops early: the column indices are
// loaded, then the vector entries, so that each lane has up to four gathers in flight rather
// than one (the gathers are the pull's cost: random reads of the vector).  Predicated on hi,
// so that a row's last edges, and the rows of at most four edges a lane (most rows of the
// binned pull), keep their gathers in flight too.
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX>
__device__ __forceinline__ void pull_edges4(const Mul& mul, idx_t o, idx_t e, idx_t stride,
                                            idx_t hi, const IDX* col, const MV* mvals,
                                            int miso, const UV* xv, const unsigned char* xbits,
                                            typename M::t& acc, bool& have) {
    typedef mv_reads<Mul, VFIRST> reads;
    IDX k[4];  // the index type's width: registers, four of them a lane
    MV m[4];
    UV x[4];
    bool in[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const idx_t q = e + i * stride;
        in[i] = q < hi;
        k[i] = in[i] ? ld_stream(&col[q]) : IDX(0);
        m[i] = reads::matrix && in[i] ? gbk::matrix_value(mvals, miso, q) : MV();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) in[i] = in[i] && (xbits == nullptr || xbits[k[i]]);
#pragma unroll
    for (int i = 0; i < 4; ++i) x[i] = reads::vector && in[i] ? xv[k[i]] : UV();
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        if (!in[i]) continue;
        typename M::t z = mv_call<VFIRST>::run(mul, m[i], x[i], o, k[i]);
        acc = have ? M::combine(acc, z) : z;
        have = true;
    }
}

// The (acc, have, first) of a whole block (blockDim.x <= 256) combined into thread 0's, as
// group_fold does for a group of lanes; every thread of the block must call it.
template <class M>
__device__ __forceinline__ void block_fold(typename M::t& acc, bool& have, idx_t& first) {
    typedef typename M::t T;
    __shared__ unsigned long long s_acc[8];
    __shared__ int s_have[8];
    __shared__ idx_t s_first[8];
    const int warp = threadIdx.x >> 5;
    group_fold<M>(acc, have, first, GBK_ALL_LANES, 32);
    if (lane() == 0) {
        union { T t; unsigned long long u; } c;
        c.u = 0;
        c.t = acc;
        s_acc[warp] = c.u;
        s_have[warp] = have;
        s_first[warp] = first;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        have = false;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
            if (!s_have[w]) continue;
            union { T t; unsigned long long u; } c;
            c.u = s_acc[w];
            if (M::is_any) {
                if (!have || s_first[w] < first) {
                    acc = c.t;
                    first = s_first[w];
                }
            } else {
                acc = have ? M::combine(acc, c.t) : c.t;
            }
            have = true;
        }
    }
    __syncthreads();
}

}  // namespace gbk

template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX>
__global__ void gbk_pull(idx_t nrows, const idx_t* rows, const idx_t* ptr, const IDX* col,
                         const MV* mvals, int miso, const UV* xv, const unsigned char* xbits,
                         const unsigned char* mbits, const void* mvals_k, int mkind, int mmode,
                         int width, idx_t heavy, const idx_t* dptr, typename M::t* out,
                         unsigned char* obits, unsigned long long* counters) {
    typedef typename M::t T;
    Mul mul(0);
    const gbk::vmask mask{mbits, mvals_k, mkind, mmode};
    const int sub = gbk::lane() & (width - 1);
    const unsigned lanes = gbk::group_lanes(width);
    const idx_t ngroups = gbk::grid_size() / width;
    unsigned long long count = 0, deg = 0;
    for (idx_t g = gbk::global_id() / width; g < nrows; g += ngroups) {
        idx_t o = rows ? rows[g] : g;
        if (!mask.allows(o)) {  // tested first: an excluded row costs one byte, not its pointers
            if (sub == 0 && rows == nullptr) obits[o] = 0;  // a bin's output starts zeroed
            continue;
        }
        idx_t lo = ptr[o], hi = ptr[o + 1];
        if (hi - lo > heavy) continue;
        T acc = M::identity();
        bool have = false;
        idx_t first = GBK_NONE;
        if (M::is_any && Mul::constant) {
            // any.pair (BFS): every hit has the same value, so the row is decided by the
            // vote alone; no value or position is carried or folded across the group
            for (idx_t base = lo; base < hi; base += width) {
                const idx_t e = base + sub;
                if (__any_sync(lanes, e < hi && gbk::pull_hit(e, col, xbits))) {
                    have = true;
                    break;
                }
            }
            if (have) acc = gbk::mv_call<VFIRST>::run(mul, MV(), UV(), o, 0);
        } else if (M::is_any) {  // the first hit: one edge a lane at a time, a vote after each
            for (idx_t base = lo; base < hi; base += width) {
                idx_t e = base + sub;
                bool stop = e < hi && gbk::pull_edge<Mul, M, MV, UV, VFIRST>(
                                          mul, o, e, col, mvals, miso, xv, xbits, acc, have,
                                          first);
                if (__any_sync(lanes, stop)) break;
            }
        } else {
            // four edges a lane at a time (four gathers in flight); a monoid with a terminal
            // value (min: -inf, lor: true) votes after each four, since a vote after every
            // edge kept min.plus's gathers one at a time (10 % slower than plus.times on
            // kron-22, H200)
            for (idx_t base = lo; base < hi; base += 4 * width) {
                gbk::pull_edges4<Mul, M, MV, UV, VFIRST>(mul, o, base + sub, width, hi, col,
                                                         mvals, miso, xv, xbits, acc, have);
                if (M::has_terminal &&
                    __any_sync(lanes, have && gbk::reached_terminal<M>(acc)))
                    break;
            }
        }
        if (!(M::is_any && Mul::constant)) gbk::group_fold<M>(acc, have, first, lanes, width);
        if (sub == 0) {
            obits[o] = have ? 1 : 0;
            if (have) {
                out[o] = acc;
                ++count;
                if (dptr) deg += gbk::degree(dptr, o);
            }
        }
    }
    gbk::add_counts(counters, count, deg);
}

// The rows longer than gbk_pull's `heavy`, one block each (blockDim.x == 256).
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX>
__global__ void __launch_bounds__(256)
gbk_pull_heavy(idx_t nheavy, const idx_t* rows, const idx_t* ptr, const IDX* col,
               const MV* mvals, int miso, const UV* xv, const unsigned char* xbits,
               const unsigned char* mbits, const void* mvals_k, int mkind, int mmode,
               const idx_t* dptr, typename M::t* out, unsigned char* obits,
               unsigned long long* counters) {
    typedef typename M::t T;
    Mul mul(0);
    const gbk::vmask mask{mbits, mvals_k, mkind, mmode};
    for (idx_t h = blockIdx.x; h < nheavy; h += gridDim.x) {
        idx_t o = rows[h];
        if (!mask.allows(o)) {
            if (threadIdx.x == 0) obits[o] = 0;
            continue;
        }
        idx_t lo = ptr[o], hi = ptr[o + 1];
        T acc = M::identity();
        bool have = false;
        idx_t first = GBK_NONE;
        if (M::is_any && Mul::constant) {  // the vote alone decides the row (see gbk_pull)
            for (idx_t base = lo; base < hi; base += blockDim.x) {
                const idx_t e = base + threadIdx.x;
                if (__syncthreads_or(e < hi && gbk::pull_hit(e, col, xbits))) {
                    have = true;
                    break;
                }
            }
            if (have) acc = gbk::mv_call<VFIRST>::run(mul, MV(), UV(), o, 0);
        } else {
            // the block stops together, at the first step where a thread may (any's hit, a
            // terminal value): __syncthreads_or is the barrier and the vote at once
            for (idx_t base = lo; base < hi; base += blockDim.x) {
                idx_t e = base + threadIdx.x;
                bool stop = e < hi && !(M::is_any && have) &&
                            gbk::pull_edge<Mul, M, MV, UV, VFIRST>(mul, o, e, col, mvals,
                                                                   miso, xv, xbits, acc, have,
                                                                   first);
                if ((M::is_any || M::has_terminal) && __syncthreads_or(stop)) break;
            }
            gbk::block_fold<M>(acc, have, first);
        }
        if (threadIdx.x == 0) {
            obits[o] = have ? 1 : 0;
            if (have) {
                out[o] = acc;
                atomicAdd(&counters[0], 1ULL);
                if (dptr) atomicAdd(&counters[1], (unsigned long long)gbk::degree(dptr, o));
            }
        }
    }
}

#define GBK_CHUNK 4096

// Chunked heavy rows, step 1: each heavy row's output starts empty (and absent).
template <class M>
__global__ void gbk_pull_chunks_init(idx_t nheavy, const idx_t* rows, typename M::t* out,
                                     unsigned char* obits) {
    for (idx_t h = gbk::global_id(); h < nheavy; h += gbk::grid_size()) {
        out[rows[h]] = M::empty();
        obits[rows[h]] = 0;
    }
}

// Step 2: chunk c covers entries [starts[c], starts[c] + GBK_CHUNK) of row rows[c] (up to the
// row's end); a block reduces it and folds the partial result into out[row] with an atomic.
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX>
__global__ void __launch_bounds__(256)
gbk_pull_chunks(idx_t nchunks, const idx_t* chunk_rows, const idx_t* chunk_starts,
                const idx_t* ptr, const IDX* col, const MV* mvals, int miso, const UV* xv,
                const unsigned char* xbits, const unsigned char* mbits, const void* mvals_k,
                int mkind, int mmode, typename M::t* out, unsigned char* obits) {
    typedef typename M::t T;
    Mul mul(0);
    const gbk::vmask mask{mbits, mvals_k, mkind, mmode};
    for (idx_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
        idx_t o = chunk_rows[c];
        if (!mask.allows(o)) continue;
        idx_t lo = chunk_starts[c], end = ptr[o + 1];
        idx_t hi = lo + GBK_CHUNK < end ? lo + GBK_CHUNK : end;
        T acc = M::identity();
        bool have = false;
        idx_t first = GBK_NONE;
        const idx_t stride = blockDim.x;
        if (!M::is_any) {  // `any` keeps the first entry, which the one-at-a-time loop finds
            for (idx_t e = lo + threadIdx.x; e < hi; e += 4 * stride)
                gbk::pull_edges4<Mul, M, MV, UV, VFIRST>(mul, o, e, stride, hi, col, mvals,
                                                         miso, xv, xbits, acc, have);
        } else {
            for (idx_t e = lo + threadIdx.x; e < hi; e += stride)
                gbk::pull_edge<Mul, M, MV, UV, VFIRST>(mul, o, e, col, mvals, miso, xv, xbits,
                                                       acc, have, first);
        }
        gbk::block_fold<M>(acc, have, first);
        if (threadIdx.x == 0 && have) {
            gbk::atomic_combine<gbk::folding<M> >(&out[o], acc);
            obits[o] = 1;
        }
    }
}

// Step 3: the heavy rows that got an entry, counted (and their degrees in dptr summed).
__global__ void gbk_pull_chunks_count(idx_t nheavy, const idx_t* rows, const idx_t* dptr,
                                      const unsigned char* obits,
                                      unsigned long long* counters) {
    unsigned long long count = 0, deg = 0;
    for (idx_t h = gbk::global_id(); h < nheavy; h += gbk::grid_size()) {
        idx_t o = rows[h];
        if (!obits[o]) continue;
        ++count;
        if (dptr) deg += (unsigned long long)gbk::degree(dptr, o);
    }
    gbk::add_counts(counters, count, deg);
}

#define GBK_SMALL_N 1024
#define GBK_SMALL_BLOCK 256

// The whole of a small mxv/vxm in one block (both dimensions of M at most GBK_SMALL_N): the
// vector and the mask into shared memory, pull or push, then an ordered compaction into
// out_idx/out_vals (of capacity nout) with the count in counters[0] (and the degree sum of
// the outputs in dptr, if given, in counters[1]).  One launch and no synchronization: the
// per-call cost of graph algorithms on small graphs.
// The vector is a list (u_idx, u_vals) of nu entries, or of *nu_ptr when nu_ptr is given.
// The mask (mmode: 0 none, 1 as is, 2 complemented) is a list (m_idx, m_vals of nm entries,
// or *nm_ptr) when `listed`, else dense (mbits, m_vals as in gbk::vmask).  (A flag, not a
// null m_idx: CuPy passes an empty array as a null pointer.)
template <class Mul, class M, class MV, class UV, bool VFIRST, bool PUSH>
__global__ void __launch_bounds__(GBK_SMALL_BLOCK)
gbk_mv_small(idx_t nout, idx_t nin, const idx_t* indptr, const idx_t* indices, const MV* mvals,
             idx_t nu, const unsigned long long* nu_ptr, const idx_t* u_idx, const UV* u_vals,
             int mmode, int listed, idx_t nm, const unsigned long long* nm_ptr,
             const idx_t* m_idx,
             const unsigned char* mbits, const void* m_vals, int mkind, const idx_t* dptr,
             idx_t* out_idx, typename M::t* out_vals, unsigned long long* counters) {
    typedef typename M::t T;
    __shared__ unsigned long long u_raw[GBK_SMALL_N];
    __shared__ unsigned long long o_raw[GBK_SMALL_N];
    __shared__ long long win[GBK_SMALL_N];
    __shared__ unsigned char upresent[GBK_SMALL_N];
    __shared__ unsigned char allowed[GBK_SMALL_N];
    __shared__ unsigned char oflag[GBK_SMALL_N];
    UV* udense = (UV*)u_raw;
    T* oval = (T*)o_raw;
    Mul mul(0);
    const int tid = threadIdx.x;
    const int nthreads = blockDim.x;
    if (nu_ptr) nu = (idx_t)*nu_ptr;
    if (nm_ptr) nm = (idx_t)*nm_ptr;
    for (idx_t i = tid; i < nin; i += nthreads) upresent[i] = 0;
    for (idx_t i = tid; i < nout; i += nthreads) {
        if (mmode == 0) {
            allowed[i] = 1;
        } else if (listed) {
            allowed[i] = mmode == 2 ? 1 : 0;
        } else {
            const gbk::vmask mask{mbits, m_vals, mkind, mmode};
            allowed[i] = mask.allows(i) ? 1 : 0;
        }
        oflag[i] = 0;
        if (PUSH) {
            oval[i] = M::empty();
            win[i] = GBK_NONE;
        }
    }
    __syncthreads();
    for (idx_t t = tid; t < nu; t += nthreads) {
        udense[u_idx[t]] = u_vals[t];
        upresent[u_idx[t]] = 1;
    }
    if (mmode != 0 && listed)
        for (idx_t t = tid; t < nm; t += nthreads)
            if (gbk::mask_value(m_vals, t, mkind)) allowed[m_idx[t]] = mmode == 2 ? 0 : 1;
    __syncthreads();
    const int w = tid >> 5, nw = nthreads >> 5;
    if (!PUSH) {
        for (idx_t o = w; o < nout; o += nw) {
            if (!allowed[o]) continue;
            T acc = M::identity();
            bool have = false;
            idx_t first = GBK_NONE;
            for (idx_t e = indptr[o] + gbk::lane(); e < indptr[o + 1]; e += 32) {
                idx_t k = indices[e];
                if (!upresent[k]) continue;
                if (gbk::fold_product<M>(acc, have, first,
                                         gbk::mv_call<VFIRST>::run(mul, mvals[e], udense[k],
                                                                   o, k), e))
                    break;
            }
            gbk::group_fold<M>(acc, have, first, GBK_ALL_LANES, 32);
            if (gbk::lane() == 0 && have) {
                oval[o] = acc;
                oflag[o] = 1;
            }
        }
    } else {
        // k ascending over the vector's positions, so that `any` keeps the smallest k
        for (idx_t k = w; k < nin; k += nw) {
            if (!upresent[k]) continue;
            for (idx_t e = indptr[k] + gbk::lane(); e < indptr[k + 1]; e += 32) {
                idx_t j = indices[e];
                if (!allowed[j]) continue;
                if (M::is_any) {
                    atomicMin(&win[j], (long long)k);
                } else {
                    T z = gbk::mv_call<VFIRST>::run(mul, mvals[e], udense[k], j, k);
                    gbk::atomic_combine<gbk::folding<M> >(&oval[j], z);
                }
                oflag[j] = 1;
            }
        }
        if (M::is_any) {
            __syncthreads();
            for (idx_t k = w; k < nin; k += nw) {
                if (!upresent[k]) continue;
                for (idx_t e = indptr[k] + gbk::lane(); e < indptr[k + 1]; e += 32) {
                    idx_t j = indices[e];
                    if (allowed[j] && win[j] == (long long)k)
                        oval[j] = gbk::mv_call<VFIRST>::run(mul, mvals[e], udense[k], j, k);
                }
            }
        }
    }
    __syncthreads();
    // ordered compaction: thread tid owns the chunk [lo, hi) of the outputs
    idx_t chunk = (nout + nthreads - 1) / nthreads;
    idx_t lo = tid * chunk, hi = lo + chunk < nout ? lo + chunk : nout;
    long long c = 0;
    unsigned long long deg = 0;
    for (idx_t i = lo; i < hi; ++i)
        if (oflag[i]) {
            ++c;
            if (dptr) deg += gbk::degree(dptr, i);
        }
    long long total;
    long long k = gbk::block_exclusive_scan(c, total);
    if (tid == 0) {
        counters[0] = (unsigned long long)total;
        counters[1] = 0;
    }
    __syncthreads();
    if (deg) atomicAdd(&counters[1], deg);
    for (idx_t i = lo; i < hi; ++i)
        if (oflag[i]) {
            out_idx[k] = i;
            out_vals[k] = oval[i];
            ++k;
        }
}
