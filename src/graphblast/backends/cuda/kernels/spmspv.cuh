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

// What a claim does besides the output list's entry: nothing, except in a device loop's
// fused round (gbk_push_loop: the next round's scalar assign).
struct no_claim {
    __device__ __forceinline__ void operator()(idx_t) const {}
};

// EAGER: the stamp read before the mask is tested, so that the two reads overlap (a round of
// gbk_push_levels is a chain of such reads; elsewhere an output the mask refuses reads none).
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, int MODE, int PASS,
          class Claim = no_claim, class Mask = vmask, bool EAGER = false>
__device__ __forceinline__ void push_edge(const Mul& mul, idx_t k, UV u, idx_t e,
                                          const IDX* col, const MV* mvals, int miso,
                                          const Mask& mask,
                                          long long* stamp, long long epoch, long long* posmap,
                                          typename M::t* scratch, const idx_t* dptr,
                                          idx_t* out_idx, typename M::t* out_vals,
                                          unsigned long long* counters,
                                          unsigned long long& deg,
                                          const Claim& on_claim = Claim()) {
    typedef mv_reads<Mul, VFIRST> reads;
    idx_t j = (idx_t)ld_stream(&col[e]);  // read once: the stamps and the mask keep L2
    const long long seen = EAGER && PASS == 1 ? __ldcg(&stamp[j]) : 0;
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
    if (ok && (EAGER && PASS == 1 ? seen : __ldcg(&stamp[j])) > want) {
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
        on_claim(j);
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


// -- a device loop's round in one kernel ----------------------------------------------------
//
// A recorded round that is one first-claim push (BFS's level: `any` with a constant product,
// no heavy row, its output the round's result) run under a conditional WHILE node
// (backends/cuda/loops.py, "one kernel a level"): this kernel is the whole round, the push and
// the loop's end that gbk_loop_next would do in a kernel of its own.
//
// - Two lists alternate as the loop's state: the state (s_*) and the push's own output list
//   (o_*), both of at least the size's capacity.  Round r reads one and appends to the other,
//   by the parity of r - r0 (r0: the round the graph's first launch runs): nothing is copied.
// - The claims are not reset: round r claims with the epoch `epoch` lowered by r - r0 (a
//   stamp holds the epoch in its high 32 bits, and a smaller epoch is a later call's), so an
//   earlier round's claims are simply older; the host advances its epoch past the rounds run.
// - The next round's first step, a plain scalar assign under the next frontier's structure
//   (abits/avals, counted in acounts; the value the next round's number where `acounter`,
//   else `avalue`), is done as each output is claimed, wherever a next round would run
//   (below `max_rounds`).  Only a first-claim push may: its claimer is the one thread that
//   touches an output's value, so a mask that is the assigned bitmap (BFS's ~levels.S) only
//   turns away threads whose claim would fail anyway.
// - The last block to finish (a ticket on ctl[3], taken after each block's counts are in)
//   reads the output's count and degree sum, zeroes the counters of the round's input (the
//   next round's output), counts the round (ctl[0]), puts the result's count in ctl[2], sets
//   ctl[1] where it exceeds `cap` (the state's capacity as the host keeps it: the loop stops,
//   the result intact, and the host grows it or goes on from Python), and sets the WHILE
//   node's condition: an entry, below `max_rounds`, within `cap`.
namespace gbk {

template <class C>
struct loop_assign {
    unsigned char* bits;
    C* vals;
    C value;
    unsigned long long* added;  // the thread's count of positions newly set
    __device__ __forceinline__ void operator()(idx_t j) const {
        if (bits == nullptr) return;
        if (!bits[j]) {
            bits[j] = 1;
            ++*added;
        }
        vals[j] = value;
    }
};

}  // namespace gbk

template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, class C>
__global__ void gbk_push_loop(idx_t* s_idx, UV* s_vals, unsigned long long* s_counts,
                              idx_t* o_idx, UV* o_vals, unsigned long long* o_counts,
                              const idx_t* ptr, const IDX* col, const MV* mvals, int miso,
                              const unsigned char* mbits, const void* mvals_k, int mkind,
                              int mmode, int width, long long* stamp, long long epoch,
                              const idx_t* dptr, long long* ctl, long long r0,
                              long long max_rounds, idx_t cap, unsigned long long handle,
                              unsigned char* abits, C* avals, unsigned long long* acounts,
                              int acounter, C avalue) {
    typedef gbk::mv_reads<Mul, VFIRST> reads;
    __shared__ int last;
    Mul mul(0);
    const gbk::vmask mask{mbits, mvals_k, mkind, mmode};
    // read by every block before the last one counts the round (it takes its ticket last)
    const long long r = ctl[0];
    const bool odd = ((r - r0) & 1) != 0;
    const idx_t* u_idx = odd ? o_idx : s_idx;
    const UV* u_vals = odd ? o_vals : s_vals;
    unsigned long long* in_counts = odd ? o_counts : s_counts;
    idx_t* out_idx = odd ? s_idx : o_idx;
    UV* out_vals = odd ? s_vals : o_vals;
    unsigned long long* out_counts = odd ? s_counts : o_counts;
    const long long ep = epoch - ((r - r0) << 32);
    const bool assign = abits != nullptr && (max_rounds < 0 || r + 1 < max_rounds);
    unsigned long long added = 0;
    const gbk::loop_assign<C> on_claim{assign ? abits : nullptr, avals,
                                       acounter ? (C)(r + 1) : avalue, &added};
    const idx_t nu = (idx_t)in_counts[0];
    const int sub = gbk::lane() & (width - 1);
    const idx_t ngroups = gbk::grid_size() / width;
    unsigned long long deg = 0;
    for (idx_t t = gbk::global_id() / width; t < nu; t += ngroups) {
        idx_t k = u_idx[t];
        idx_t lo = ptr[k], hi = ptr[k + 1];
        UV u = reads::vector ? u_vals[t] : UV();
        for (idx_t e = lo + sub; e < hi; e += width)
            gbk::push_edge<Mul, M, MV, UV, VFIRST, IDX, 0, 1, gbk::loop_assign<C> >(
                mul, k, u, e, col, mvals, miso, mask, stamp, ep, nullptr, nullptr, dptr,
                out_idx, (typename M::t*)out_vals, out_counts, deg, on_claim);
    }
    gbk::add_counts(out_counts, 0, deg);
    if (assign) {  // block-uniform
        __syncthreads();  // add_counts's shared words are free again
        gbk::add_counts(acounts, added, 0);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();  // this block's outputs and counts before its ticket
        last = atomicAdd((unsigned long long*)&ctl[3], 1ull) == (unsigned long long)gridDim.x - 1;
    }
    __syncthreads();
    if (!last || threadIdx.x != 0) return;
    __threadfence();
    const idx_t n = (idx_t)__ldcg(&out_counts[0]);
    const long long r1 = r + 1;
    const bool more = n > 0 && (max_rounds < 0 || r1 < max_rounds);
    const bool fits = n <= cap;
    in_counts[0] = in_counts[1] = in_counts[2] = 0ull;  // every block has read its count
    if (!fits) ctl[1] = 1;
    ctl[2] = (long long)n;
    ctl[0] = r1;
    ctl[3] = 0;
    cudaGraphSetConditional(handle, fits && more ? 1u : 0u);
}


// -- a device loop's rounds in one kernel -----------------------------------------------------
//
// The same rounds as gbk_push_loop's (the lists alternating by the parity of the round, the
// claims by an epoch lowered per round, the next level's assign by the claiming thread), all
// of them in one launch: launched cooperatively (every block resident at once), the grid
// passes a barrier between rounds instead of ending, so a round costs its own work and the
// barrier, not a WHILE node's round of a kernel launch (backends/cuda/loops.py, "persistent").
//
// - `words` (zeroed by the host before the launch): words[0] counts the blocks' arrivals at
//   the barriers; words[1 + s] is counter slot s, an output's count, s = 0, 1, 2; words[4]
//   the last result's degree sum.  Round i (i = 0 for the launch's first, round r0) appends
//   to slot (i + 1) % 3 and has slot (i + 2) % 3 zeroed, which round i - 2 appended to and
//   every block read after that round's barrier, and round i + 1 appends to after this
//   round's: one barrier a round is all the slots need (with two, a block could zero the
//   count a slower block has still to read).
// - After each round's barrier every block reads the same count, the next round's input's,
//   and takes the same decision: go on while there is an entry, below `max_rounds`, within
//   `cap` (the state's capacity as the host keeps it); past it the loop stops with the
//   overflow flag, as gbk_push_loop does.
// - The rounds sum no degrees (no read of the row pointers a claim); the last result's sum,
//   which the host's planner reads where a product follows the loop, is summed once at the
//   end, behind one more barrier.
// - At the end, block 0 leaves what gbk_push_loop's last round would: the result's count and
//   degree sum in its list's counters, the other list's zeroed, the round counted in ctl[0],
//   the result's count in ctl[2], ctl[1] set where it exceeds `cap`.
#ifndef GBK_SPIN
#define GBK_SPIN()  // on a GPU, a spin; the host stand-in yields (tests/cuda/kernels_on_host.h)
#endif
namespace gbk {

// A mask whose bits are read through L2 (__ldcg), never from an SM's L1: in gbk_push_levels
// they are the next level's assign, written by other blocks before the round's barrier (the
// barrier's fences order them; the L2 read also keeps a line an SM read rounds before out
// of the question).  A value mask's values are read as vmask reads them.
struct vmask_l2 {
    vmask m;
    __device__ __forceinline__ bool allows(idx_t j) const {
        if (m.mode == 0) return true;
        bool in = (m.bits == nullptr || __ldcg(&m.bits[j])) && mask_value(m.vals, j, m.kind);
        return in != (m.mode == 2);
    }
};

// The grid's barrier number `b` (1, 2, ...) of a cooperative launch: each block's arrival
// counted on `arrivals` after its writes, then a wait until every block's `b`-th arrival
// (b * gridDim.x in all); the fences make the writes of every block before the barrier
// seen by every block after it.
__device__ __forceinline__ void grid_barrier(unsigned long long* arrivals,
                                             unsigned long long b) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(arrivals, 1ull);
        const unsigned long long all = b * gridDim.x;
        while (*(volatile unsigned long long*)arrivals < all) GBK_SPIN();
        __threadfence();
    }
    __syncthreads();
}

}  // namespace gbk

template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, class C>
__global__ void __launch_bounds__(256)
gbk_push_levels(idx_t* s_idx, UV* s_vals, unsigned long long* s_counts, idx_t* o_idx,
                UV* o_vals, unsigned long long* o_counts, const idx_t* ptr, const IDX* col,
                const MV* mvals, int miso, const unsigned char* mbits, const void* mvals_k,
                int mkind, int mmode, int width, long long* stamp, long long epoch,
                const idx_t* dptr, long long* ctl, long long r0, long long max_rounds,
                idx_t cap, unsigned long long* words, unsigned char* abits, C* avals,
                unsigned long long* acounts, int acounter, C avalue) {
    typedef gbk::mv_reads<Mul, VFIRST> reads;
    Mul mul(0);
    // the mask's bits (the next level's assign writes them), the lists and the counts are
    // written by other blocks before a barrier: read through L2
    const gbk::vmask_l2 mask{{mbits, mvals_k, mkind, mmode}};
    const int sub = gbk::lane() & (width - 1);
    const idx_t ngroups = gbk::grid_size() / width;
    unsigned long long added = 0;  // positions this thread's assigns newly set, all rounds
    unsigned long long none = 0;    // (the degree sums are the last result's alone, below)
    long long i = 0;
    idx_t n = (idx_t)__ldcg(s_counts);  // the first round's input; then each round's result
    for (;; ++i) {
        const long long r = r0 + i;
        const bool odd = (i & 1) != 0;
        const idx_t* u_idx = odd ? o_idx : s_idx;
        const UV* u_vals = odd ? o_vals : s_vals;
        idx_t* out_idx = odd ? s_idx : o_idx;
        UV* out_vals = odd ? s_vals : o_vals;
        unsigned long long* out_count = words + 1 + (i + 1) % 3;
        const idx_t nu = n;
        if (blockIdx.x == 0 && threadIdx.x == 0) words[1 + (i + 2) % 3] = 0ull;
        const long long ep = epoch - (i << 32);
        const bool assign = abits != nullptr && (max_rounds < 0 || r + 1 < max_rounds);
        const gbk::loop_assign<C> on_claim{assign ? abits : nullptr, avals,
                                           acounter ? (C)(r + 1) : avalue, &added};
        for (idx_t t = gbk::global_id() / width; t < nu; t += ngroups) {
            idx_t k = __ldcg(&u_idx[t]);
            idx_t lo = ptr[k], hi = ptr[k + 1];
            UV u = reads::vector ? u_vals[t] : UV();  // (a constant product reads none)
            for (idx_t e = lo + sub; e < hi; e += width)
                gbk::push_edge<Mul, M, MV, UV, VFIRST, IDX, 0, 1, gbk::loop_assign<C>,
                               gbk::vmask_l2, true>(
                    mul, k, u, e, col, mvals, miso, mask, stamp, ep, nullptr, nullptr,
                    nullptr, out_idx, (typename M::t*)out_vals, out_count, none, on_claim);
        }
        gbk::grid_barrier(words, (unsigned long long)i + 1);
        n = (idx_t)__ldcg(out_count);
        if (!(n > 0 && (max_rounds < 0 || r + 1 < max_rounds) && n <= cap)) break;
    }
    if (abits != nullptr) gbk::add_counts(acounts, added, 0);  // block-uniform
    const bool odd = (i & 1) != 0;  // the last round's output: the push's list if even
    unsigned long long* result = odd ? s_counts : o_counts;
    if (dptr) {  // the result's degree sum (the planner's, for a product after the loop)
        const idx_t* out_idx = odd ? s_idx : o_idx;
        unsigned long long deg = 0;
        for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size())
            deg += (unsigned long long)gbk::degree(dptr, __ldcg(&out_idx[p]));
        __syncthreads();  // add_counts's shared words are free again
        gbk::add_counts(words + 3, 0, deg);  // words[4]: zero until here
        gbk::grid_barrier(words, (unsigned long long)i + 2);
    }
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned long long* other = odd ? o_counts : s_counts;
    result[0] = (unsigned long long)n;
    result[1] = dptr ? __ldcg(words + 4) : 0ull;
    result[2] = 0ull;
    other[0] = other[1] = other[2] = 0ull;
    ctl[1] = n > cap ? 1 : 0;
    ctl[2] = (long long)n;
    ctl[0] = r0 + i + 1;
}
