// Propagation blocking (Beamer, Asanovic and Patterson, "Reducing PageRank Communication via
// Propagation Blocking", IPDPS 2017): a product y = u' A (vxm) with a full vector u, repeated
// over one matrix (PageRank), made by streaming instead of gathering.  The output's positions
// are cut into bins of 2^BITS (the bin's accumulators fill 32 KB of shared memory); every
// entry (k, i) of A has a fixed slot in the bin of its column i.  Each product then
//   1. scatters: walks A's rows k in stored order and writes u(k) * A(k, i) into the entry's
//      slot (gbk_binned_scatter, gbk_binned_scatter_chunks), and
//   2. folds: a block per chunk of a bin folds the bin's values into shared memory, then
//      writes the bin's slice of y (gbk_binned_fold; a bin longer than one chunk folds its
//      chunks' results into y with atomics, from the monoid's empty mark, gbk_binned_init).
// The slots are laid out once (gbk_binned_count, gbk_binned_slots, gbk_binned_slots_chunks):
// in each bin, in about the order in which step 1 walks the entries (the same walk; a warp
// takes its slots of one bin with one atomic), so that step 1's writes to one bin land next
// to each other, in lines the L2 merges before they reach memory.
// Per entry a product moves the column and the slot (8 bytes) and writes the value, then
// reads the value and its 2-byte offset in the bin: streams, where a pull reads one random
// 32-byte sector of u per entry.  Which pays is measured (core/ordering.py).
#pragma once
#include "mv_common.cuh"

#define GBK_BINNED_CHUNK (1LL << 20)  // a bin's entries folded by one block at a time
#ifndef GBK_CHUNK
#define GBK_CHUNK 4096  // a heavy row's chunk, as in spmv.cuh (mxv.py's View.heavy_chunks)
#endif

namespace gbk {

// The lanes of this warp's active lanes whose key equals this lane's, and this lane's rank
// among them: one atomic per distinct key a warp, its slots handed out in lane order.
__device__ __forceinline__ unsigned peers_of(unsigned active, long long key, int& rank) {
    const unsigned peers = __match_any_sync(active, key);
    rank = __popc(peers & ((1u << lane()) - 1u));
    return peers;
}

}  // namespace gbk

// The entries of each bin (col >> bits), counted.
template <class IDX>
__global__ void gbk_binned_count(idx_t nnz, const IDX* col, int bits,
                                 unsigned long long* counts) {
    for (idx_t base = gbk::global_id() - gbk::lane(); base < nnz; base += gbk::grid_size()) {
        const idx_t e = base + gbk::lane();
        const unsigned active = __ballot_sync(GBK_ALL_LANES, e < nnz);
        if (e >= nnz) continue;
        const long long b = (long long)gbk::ld_stream(&col[e]) >> bits;
        int rank;
        const unsigned peers = gbk::peers_of(active, b, rank);
        if (rank == 0) atomicAdd(&counts[b], (unsigned long long)__popc(peers));
    }
}

namespace gbk {

// f(o, e) for every entry e of the rows of at most `heavy` entries, `width` lanes a row
// (rows[g], or row g when rows is null): the walk of the scatter and of the slots' layout,
// which must visit the entries in the same order (below).
template <class F>
__device__ __forceinline__ void binned_rows(idx_t nrows, const idx_t* rows, const idx_t* ptr,
                                            int width, idx_t heavy, const F& f) {
    const int sub = lane() & (width - 1);
    const idx_t ngroups = grid_size() / width;
    for (idx_t g = global_id() / width; g < nrows; g += ngroups) {
        const idx_t o = rows ? rows[g] : g;
        const idx_t lo = ptr[o], hi = ptr[o + 1];
        if (hi - lo > heavy) continue;
        for (idx_t e = lo + sub; e < hi; e += width) f(o, e);
    }
}

// f(o, e) for the entries of the heavy rows' chunks, a block a chunk: chunk c covers entries
// [starts[c], starts[c] + GBK_CHUNK) of row chunk_rows[c] (to the row's end).
template <class F>
__device__ __forceinline__ void binned_chunks(idx_t nchunks, const idx_t* chunk_rows,
                                              const idx_t* chunk_starts, const idx_t* ptr,
                                              const F& f) {
    for (idx_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
        const idx_t o = chunk_rows[c];
        const idx_t lo = chunk_starts[c], end = ptr[o + 1];
        const idx_t hi = lo + GBK_CHUNK < end ? lo + GBK_CHUNK : end;
        for (idx_t e = lo + threadIdx.x; e < hi; e += blockDim.x) f(o, e);
    }
}

// Entry e's slot: the next of its column's bin (one atomic for the lanes of a warp that
// take one bin), the column's offset in the bin at that slot, and the column's presence.
// Slots are taken in the walk's order, so that a product's scatter, walking the same way,
// writes each bin's slots in about that order: the lines it writes fill while in the L2.
template <class IDX>
struct binned_take {
    const IDX* col;
    int bits;
    const idx_t* bin_start;
    unsigned long long* cursor;
    unsigned int* slot;
    unsigned short* dst;
    unsigned char* obits;
    __device__ __forceinline__ void operator()(idx_t, idx_t e) const {
        const long long k = (long long)ld_stream(&col[e]);
        const long long b = k >> bits;
        const unsigned active = __activemask();
        int rank;
        const unsigned peers = peers_of(active, b, rank);
        unsigned long long first = 0;
        if (rank == 0) first = atomicAdd(&cursor[b], (unsigned long long)__popc(peers));
        first = __shfl_sync(active, first, __ffs(peers) - 1);
        const unsigned long long s = first + rank;
        slot[e] = (unsigned int)s;
        dst[bin_start[b] + (idx_t)s] = (unsigned short)(k & ((1LL << bits) - 1));
        obits[k] = 1;
    }
};

// Entry e of row o: its product written into its slot.
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX>
struct binned_put {
    const IDX* col;
    const unsigned int* slot;
    const idx_t* bin_start;
    int bits;
    const MV* mvals;
    int miso;
    const UV* xv;
    typename M::t* vals;
    __device__ __forceinline__ void operator()(idx_t o, idx_t e) const {
        typedef mv_reads<Mul, VFIRST> reads;
        Mul mul(0);
        const idx_t k = (idx_t)ld_stream(&col[e]);
        const idx_t at = bin_start[k >> bits] + (idx_t)ld_stream(&slot[e]);
        const MV m = reads::matrix ? matrix_value(mvals, miso, e) : MV();
        vals[at] = mv_call<VFIRST>::run(mul, m, reads::vector ? xv[o] : UV(), k, o);
    }
};

}  // namespace gbk

// The walks' kernels: rows (the light rows, `width` lanes a row) and chunks (the heavy
// rows'), each with the arguments of its walk first.

// The layout, step 2 (after the counts' scan into bin_start; cursor zeroed): each entry's
// slot, by the walk of the scatter.
template <class IDX>
__global__ void gbk_binned_slots(idx_t nrows, const idx_t* rows, const idx_t* ptr,
                                 const IDX* col, int width, idx_t heavy, int bits,
                                 const idx_t* bin_start, unsigned long long* cursor,
                                 unsigned int* slot, unsigned short* dst,
                                 unsigned char* obits) {
    gbk::binned_rows(nrows, rows, ptr, width, heavy,
                     gbk::binned_take<IDX>{col, bits, bin_start, cursor, slot, dst, obits});
}

template <class IDX>
__global__ void __launch_bounds__(256)
gbk_binned_slots_chunks(idx_t nchunks, const idx_t* chunk_rows, const idx_t* chunk_starts,
                        const idx_t* ptr, const IDX* col, int bits, const idx_t* bin_start,
                        unsigned long long* cursor, unsigned int* slot, unsigned short* dst,
                        unsigned char* obits) {
    gbk::binned_chunks(nchunks, chunk_rows, chunk_starts, ptr,
                       gbk::binned_take<IDX>{col, bits, bin_start, cursor, slot, dst, obits});
}

// A product, step 1: every entry's product into its slot, by the same walk.
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX>
__global__ void gbk_binned_scatter(idx_t nrows, const idx_t* rows, const idx_t* ptr,
                                   const IDX* col, int width, idx_t heavy, int bits,
                                   const idx_t* bin_start, const unsigned int* slot,
                                   const MV* mvals, int miso, const UV* xv,
                                   typename M::t* vals) {
    gbk::binned_rows(nrows, rows, ptr, width, heavy,
                     gbk::binned_put<Mul, M, MV, UV, VFIRST, IDX>{
                         col, slot, bin_start, bits, mvals, miso, xv, vals});
}

template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX>
__global__ void __launch_bounds__(256)
gbk_binned_scatter_chunks(idx_t nchunks, const idx_t* chunk_rows, const idx_t* chunk_starts,
                          const idx_t* ptr, const IDX* col, int bits, const idx_t* bin_start,
                          const unsigned int* slot, const MV* mvals, int miso, const UV* xv,
                          typename M::t* vals) {
    gbk::binned_chunks(nchunks, chunk_rows, chunk_starts, ptr,
                       gbk::binned_put<Mul, M, MV, UV, VFIRST, IDX>{
                           col, slot, bin_start, bits, mvals, miso, xv, vals});
}

// Step 2 (before the fold): the slices of the bins longer than one chunk start empty.
template <class M, int BITS>
__global__ void gbk_binned_init(idx_t nlong, const idx_t* long_bins, idx_t n,
                                typename M::t* out) {
    const idx_t total = nlong << BITS;
    for (idx_t p = gbk::global_id(); p < total; p += gbk::grid_size()) {
        const idx_t i = (long_bins[p >> BITS] << BITS) + (p & ((1LL << BITS) - 1));
        if (i < n) out[i] = M::empty();
    }
}

namespace gbk {

// Any 4- or 8-byte value from lane `src` of `mask`.
template <class T>
__device__ __forceinline__ T shfl_from(unsigned mask, T v, int src) {
    typedef typename std_word<sizeof(T)>::type W;
    union { T t; W w; } u;
    u.t = v;
    if (sizeof(T) == 8) {
        const unsigned lo = __shfl_sync(mask, (unsigned)(u.w & 0xffffffffu), src);
        const unsigned hi = __shfl_sync(mask, (unsigned)((unsigned long long)u.w >> 32), src);
        u.w = (W)(((unsigned long long)hi << 32) | lo);
    } else {
        u.w = (W)__shfl_sync(mask, (unsigned)u.w, src);
    }
    return u.t;
}

// Value v for position `key` of the accumulators `acc` (when `in`), folded with those of the
// other lanes of the warp for the same position first: one atomic a position a warp, where a
// hub's entries would queue on one word (all 32 lanes of a warp, in a hub's bin).  Every lane
// of the warp calls it.
template <class F>
__device__ __forceinline__ void fold_by_warp(typename F::t* acc, unsigned key,
                                             typename F::t v, bool in) {
    typedef typename F::t T;
    const unsigned active = __ballot_sync(GBK_ALL_LANES, in);
    if (!in) return;
    const unsigned peers = __match_any_sync(active, key);
    if (__all_sync(active, peers == (1u << lane()))) {  // no two lanes share a position
        atomic_combine<F>(&acc[key], v);
        return;
    }
    const int rank = __popc(peers & ((1u << lane()) - 1u));
    // a tree over the ranks among the peers: at step s, rank r (a multiple of 2s) takes r + s
#pragma unroll
    for (int s = 1; s < 32; s <<= 1) {
        const unsigned src = __fns(peers, 0, rank + s + 1);
        const T other = shfl_from(active, v, src == 0xffffffffu ? lane() : (int)src);
        if (src != 0xffffffffu && (rank & (2 * s - 1)) == 0) v = F::combine(v, other);
    }
    if (rank == 0) atomic_combine<F>(&acc[key], v);
}

}  // namespace gbk

// Step 2: chunk c is entries [chunk_occ[c] * GBK_BINNED_CHUNK, + GBK_BINNED_CHUNK) of bin
// chunk_bins[c] (to the bin's end); a block folds them into the bin's accumulators in shared
// memory, then writes the bin's slice of out (a bin of one chunk) or folds into it.  Positions
// no entry reached keep the empty mark; their presence byte, fixed by the layout, is 0.
template <class M, int BITS, bool AGG>
__global__ void __launch_bounds__(512)
gbk_binned_fold(idx_t nchunks, const idx_t* chunk_bins, const idx_t* chunk_occ,
                const idx_t* bin_start, const unsigned short* dst,
                const typename M::t* vals, idx_t n, typename M::t* out) {
    typedef typename M::t T;
    typedef gbk::folding<M> F;
    constexpr int R = 1 << BITS;
    __shared__ T acc[R];
    for (idx_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
        const idx_t b = chunk_bins[c];
        const idx_t start = bin_start[b], end = bin_start[b + 1];
        const idx_t lo = start + chunk_occ[c] * GBK_BINNED_CHUNK;
        const idx_t hi = lo + GBK_BINNED_CHUNK < end ? lo + GBK_BINNED_CHUNK : end;
        const bool whole = end - start <= GBK_BINNED_CHUNK;
        for (int p = threadIdx.x; p < R; p += blockDim.x) acc[p] = F::empty();
        __syncthreads();
        // four values a lane in flight at once (the loads, then the folds); the loop is the
        // warp's, so that its lanes fold together
        const idx_t stride = blockDim.x;
        for (idx_t i = lo + (threadIdx.x - gbk::lane()); i < hi; i += 4 * stride) {
            unsigned short d[4];
            T v[4];
            bool in[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const idx_t q = i + gbk::lane() + j * stride;
                in[j] = q < hi;
                d[j] = in[j] ? gbk::ld_stream(&dst[q]) : (unsigned short)0;
                v[j] = in[j] ? gbk::ld_stream(&vals[q]) : T();
            }
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                if (AGG)
                    gbk::fold_by_warp<F>(acc, d[j], v[j], in[j]);
                else if (in[j])
                    gbk::atomic_combine<F>(&acc[d[j]], v[j]);
            }
        }
        __syncthreads();
        const idx_t base = b << BITS;
        for (int p = threadIdx.x; p < R && base + p < n; p += blockDim.x) {
            if (whole)
                out[base + p] = acc[p];
            else if (!F::is_empty(acc[p]))
                gbk::atomic_combine<F>(&out[base + p], acc[p]);
        }
        __syncthreads();
    }
}
