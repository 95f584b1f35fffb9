// Push (SpMSpV): the vector's entries (a list, possibly unsorted, whose length may live on the
// device) expand their rows of the matrix; each product goes to its column j if the mask
// allows j.  Nothing of size n is scanned or cleared: outputs are appended to a list, and a
// persistent per-position stamp array says which positions this call has already claimed
// (a stamp holds the call's epoch in its high 32 bits, so it never needs clearing).
//
// Reduction by the monoid, MODE:
//   0  `any` with a product that reads no value (any_pair): the first to claim j writes it;
//   1  `any` otherwise: the smallest k reaching j wins (the CPU backend's choice), two passes
//      (claim and atomicMin of k in the stamp's low bits; then the winner writes its product
//      at the slot posmap[j] its claimer took);
//   2  every other monoid: claim, and fold the product into scratch[j] with an atomic (a CAS
//      loop for any monoid of up to 8 bytes); gbk_push_gather then moves scratch into the
//      list and resets it to M::empty().
//
// Load balance: entries are taken by groups of `width` lanes; an entry whose row is longer
// than `heavy` is put on a list (counters[2]) for gbk_push_heavy, which cuts the listed rows
// into chunks of equal length and deals them to all its blocks.
// counters[0] counts the outputs and counters[1] sums their degrees in dptr (the row pointers
// of the matrix a next push would expand), so that one read gives both to the planner.
#pragma once
#include "mv_common.cuh"

namespace gbk {

template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, int MODE, int PASS>
__device__ __forceinline__ void push_edge(const Mul& mul, idx_t k, UV u, idx_t e,
                                          const IDX* col, const MV* mvals, int miso,
                                          const vmask& mask,
                                          long long* stamp, long long epoch, long long* posmap,
                                          typename M::t* scratch, const idx_t* dptr,
                                          idx_t* out_idx, typename M::t* out_vals,
                                          unsigned long long* counters,
                                          unsigned long long& deg) {
    typedef mv_reads<Mul, VFIRST> reads;
    idx_t j = (idx_t)ld_stream(&col[e]);  // read once: the stamps and the mask keep L2
    bool ok = mask.allows(j);
    if (PASS == 2) {
        if (ok && stamp[j] == (epoch | k))
            out_vals[posmap[j]] = mv_call<VFIRST>::run(
                mul, reads::matrix ? matrix_value(mvals, miso, e) : MV(), u, j, k);
        return;
    }
    bool claimed = false;
    const long long want = MODE == 1 ? (epoch | k) : epoch;
    // A plain read first (through L2): most products of a large level land on an output
    // already claimed this call, whose stamp is then <= want (an older call's epoch is
    // larger), and the atomic would change nothing; a stale read only costs the atomic.
    if (ok && __ldcg(&stamp[j]) > want) {
        long long old = atomicMin((long long*)&stamp[j], want);
        claimed = (old >> 32) != (epoch >> 32);
    }
    long long slot = append_slot(&counters[0], claimed);
    if (claimed) {
        out_idx[slot] = j;
        if (dptr) deg += (unsigned long long)degree(dptr, j);
        if (MODE == 0)
            out_vals[slot] = mv_call<VFIRST>::run(
                mul, reads::matrix ? matrix_value(mvals, miso, e) : MV(), u, j, k);
        if (MODE == 1) posmap[j] = slot;
    }
    if (MODE == 2 && ok) {
        typename M::t z = mv_call<VFIRST>::run(
            mul, reads::matrix ? matrix_value(mvals, miso, e) : MV(), u, j, k);
        atomic_combine<folding<M> >(&scratch[j], z);
    }
}

}  // namespace gbk

// The light entries, `width` lanes each; heavy ones go to heavy_list (pass 1) or are skipped.
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, int MODE, int PASS>
__global__ void gbk_push(idx_t nu, const unsigned long long* nu_ptr, const idx_t* u_idx,
                         const UV* u_vals, const idx_t* ptr, const IDX* col, const MV* mvals,
                         int miso, const unsigned char* mbits, const void* mvals_k, int mkind,
                         int mmode, int width, idx_t heavy, long long* stamp, long long epoch,
                         long long* posmap, typename M::t* scratch, const idx_t* dptr,
                         idx_t* heavy_list, idx_t* out_idx, typename M::t* out_vals,
                         unsigned long long* counters) {
    typedef gbk::mv_reads<Mul, VFIRST> reads;
    Mul mul(0);
    const gbk::vmask mask{mbits, mvals_k, mkind, mmode};
    if (nu_ptr) nu = (idx_t)*nu_ptr;
    const int sub = gbk::lane() & (width - 1);
    const idx_t ngroups = gbk::grid_size() / width;
    unsigned long long deg = 0;
    for (idx_t t = gbk::global_id() / width; t < nu; t += ngroups) {
        idx_t k = u_idx[t];
        idx_t lo = ptr[k], hi = ptr[k + 1];
        if (hi - lo > heavy) {
            if (PASS == 1 && sub == 0) heavy_list[atomicAdd(&counters[2], 1ULL)] = t;
            continue;
        }
        UV u = reads::vector ? u_vals[t] : UV();
        for (idx_t e = lo + sub; e < hi; e += width)
            gbk::push_edge<Mul, M, MV, UV, VFIRST, IDX, MODE, PASS>(
                mul, k, u, e, col, mvals, miso, mask, stamp, epoch, posmap, scratch, dptr,
                out_idx, out_vals, counters, deg);
    }
    if (PASS == 1) gbk::add_counts(counters, 0, deg);
}

#define GBK_PUSH_CHUNK 1024

// The heavy entries listed by gbk_push (their number is counters[2]), cut into chunks of
// GBK_PUSH_CHUNK edges dealt round-robin to the blocks (blockDim.x == 256): a frontier of one
// vertex of a million edges keeps the whole GPU busy, and a frontier of hundreds of hubs does
// not walk them one after another.  The list is read in tiles of 256 entries; each block
// scans a tile's chunk counts in shared memory and finds each of its chunks' entry by a
// binary search there, so no scan of the list is kept between launches.
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, int MODE, int PASS>
__global__ void __launch_bounds__(256)
gbk_push_heavy(const idx_t* u_idx, const UV* u_vals, const idx_t* ptr, const IDX* col,
               const MV* mvals, int miso, const unsigned char* mbits, const void* mvals_k,
               int mkind, int mmode, long long* stamp, long long epoch, long long* posmap,
               typename M::t* scratch, const idx_t* dptr, const idx_t* heavy_list,
               idx_t* out_idx, typename M::t* out_vals, unsigned long long* counters) {
    typedef gbk::mv_reads<Mul, VFIRST> reads;
    __shared__ idx_t s_first[256];      // a tile entry's first edge
    __shared__ idx_t s_end[256];        // one past its last edge
    __shared__ idx_t s_t[256];          // its position in the vector's list
    __shared__ idx_t s_cum[257];        // chunks of the tile before each entry
    Mul mul(0);
    const gbk::vmask mask{mbits, mvals_k, mkind, mmode};
    const idx_t nheavy = (idx_t)counters[2];
    const idx_t nblocks = gridDim.x;
    unsigned long long deg = 0;
    idx_t before = 0;  // chunks of the earlier tiles
    for (idx_t tile = 0; tile < nheavy; tile += 256) {
        const idx_t h = tile + threadIdx.x;
        idx_t chunks = 0;
        if (h < nheavy) {
            idx_t t = heavy_list[h];
            idx_t k = u_idx[t];
            s_t[threadIdx.x] = t;
            s_first[threadIdx.x] = ptr[k];
            s_end[threadIdx.x] = ptr[k + 1];
            chunks = (ptr[k + 1] - ptr[k] + GBK_PUSH_CHUNK - 1) / GBK_PUSH_CHUNK;
        }
        long long in_all;
        s_cum[threadIdx.x] = gbk::block_exclusive_scan(chunks, in_all);
        if (threadIdx.x == 0) s_cum[256] = in_all;
        __syncthreads();
        const idx_t in_tile = s_cum[256];
        // this block's chunks c of the tile: (before + c) % nblocks == blockIdx.x
        for (idx_t c = ((idx_t)blockIdx.x - before % nblocks + nblocks) % nblocks; c < in_tile;
             c += nblocks) {
            int lo = 0, hi = 256;  // the entry i with s_cum[i] <= c < s_cum[i + 1]
            while (hi - lo > 1) {
                int mid = (lo + hi) >> 1;
                if (s_cum[mid] <= c) lo = mid; else hi = mid;
            }
            const idx_t first = s_first[lo] + (c - s_cum[lo]) * GBK_PUSH_CHUNK;
            const idx_t end = first + GBK_PUSH_CHUNK < s_end[lo] ? first + GBK_PUSH_CHUNK
                                                                 : s_end[lo];
            const idx_t t = s_t[lo];
            const idx_t k = u_idx[t];
            UV u = reads::vector ? u_vals[t] : UV();
            for (idx_t e = first + threadIdx.x; e < end; e += blockDim.x)
                gbk::push_edge<Mul, M, MV, UV, VFIRST, IDX, MODE, PASS>(
                    mul, k, u, e, col, mvals, miso, mask, stamp, epoch, posmap, scratch, dptr,
                    out_idx, out_vals, counters, deg);
        }
        before += in_tile;
        __syncthreads();  // the next tile overwrites the shared arrays
    }
    if (PASS == 1) gbk::add_counts(counters, 0, deg);
}

// MODE 2's last step: out_vals[p] = scratch[out_idx[p]], and scratch back to empty.  With
// `stamp` (a push recorded in a replayed loop, whose replays repeat one epoch), the claims
// are cleared too, as gbk_list_unclaim does for the other modes: one graph node fewer.
template <class M>
__global__ void gbk_push_gather(const unsigned long long* counters, const idx_t* out_idx,
                                typename M::t* scratch, typename M::t* out_vals,
                                long long* stamp) {
    const idx_t n = (idx_t)counters[0];
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size()) {
        idx_t j = out_idx[p];
        out_vals[p] = scratch[j];
        scratch[j] = M::empty();
        if (stamp) stamp[j] = 0x7fffffffffffffffLL;
    }
}

