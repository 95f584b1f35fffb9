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
// than `heavy` is put on a list (counters[2]) for gbk_push_heavy, which splits each such row
// over the whole grid.
// counters[0] counts the outputs and counters[1] sums their degrees in dptr (the row pointers
// of the matrix a next push would expand), so that one read gives both to the planner.
#pragma once
#include "mv_common.cuh"

namespace gbk {

template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, int MODE, int PASS>
__device__ __forceinline__ void push_edge(const Mul& mul, idx_t k, UV u, idx_t e,
                                          const IDX* col, const MV* mvals, const vmask& mask,
                                          long long* stamp, long long epoch, long long* posmap,
                                          typename M::t* scratch, const idx_t* dptr,
                                          idx_t* out_idx, typename M::t* out_vals,
                                          unsigned long long* counters,
                                          unsigned long long& deg) {
    typedef mv_reads<Mul, VFIRST> reads;
    idx_t j = (idx_t)col[e];
    bool ok = mask.allows(j);
    if (PASS == 2) {
        if (ok && stamp[j] == (epoch | k))
            out_vals[posmap[j]] = mv_call<VFIRST>::run(mul, reads::matrix ? mvals[e] : MV(),
                                                       u, j, k);
        return;
    }
    bool claimed = false;
    if (ok) {
        long long old = atomicMin((long long*)&stamp[j], MODE == 1 ? (epoch | k) : epoch);
        claimed = (old >> 32) != (epoch >> 32);
    }
    long long slot = append_slot(&counters[0], claimed);
    if (claimed) {
        out_idx[slot] = j;
        if (dptr) deg += (unsigned long long)degree(dptr, j);
        if (MODE == 0)
            out_vals[slot] = mv_call<VFIRST>::run(mul, reads::matrix ? mvals[e] : MV(), u, j,
                                                  k);
        if (MODE == 1) posmap[j] = slot;
    }
    if (MODE == 2 && ok) {
        typename M::t z = mv_call<VFIRST>::run(mul, reads::matrix ? mvals[e] : MV(), u, j, k);
        atomic_combine<folding<M> >(&scratch[j], z);
    }
}

}  // namespace gbk

// The light entries, `width` lanes each; heavy ones go to heavy_list (pass 1) or are skipped.
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, int MODE, int PASS>
__global__ void gbk_push(idx_t nu, const unsigned long long* nu_ptr, const idx_t* u_idx,
                         const UV* u_vals, const idx_t* ptr, const IDX* col, const MV* mvals,
                         const unsigned char* mbits, const void* mvals_k, int mkind, int mmode,
                         int width, idx_t heavy, long long* stamp, long long epoch,
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
                mul, k, u, e, col, mvals, mask, stamp, epoch, posmap, scratch, dptr, out_idx,
                out_vals, counters, deg);
    }
    if (PASS == 1) gbk::add_counts(counters, 0, deg);
}

// The heavy entries listed by gbk_push (their number is counters[2]), split over the grid.
template <class Mul, class M, class MV, class UV, bool VFIRST, class IDX, int MODE, int PASS>
__global__ void gbk_push_heavy(const idx_t* u_idx, const UV* u_vals, const idx_t* ptr,
                               const IDX* col, const MV* mvals, const unsigned char* mbits,
                               const void* mvals_k, int mkind, int mmode, long long* stamp,
                               long long epoch, long long* posmap, typename M::t* scratch,
                               const idx_t* dptr, const idx_t* heavy_list, idx_t* out_idx,
                               typename M::t* out_vals, unsigned long long* counters) {
    typedef gbk::mv_reads<Mul, VFIRST> reads;
    Mul mul(0);
    const gbk::vmask mask{mbits, mvals_k, mkind, mmode};
    const idx_t nheavy = (idx_t)counters[2];
    unsigned long long deg = 0;
    // every block takes a share of every heavy row: a frontier of one vertex of a million
    // edges keeps the whole GPU busy
    for (idx_t h = 0; h < nheavy; ++h) {
        idx_t t = heavy_list[h];
        idx_t k = u_idx[t];
        UV u = reads::vector ? u_vals[t] : UV();
        for (idx_t e = ptr[k] + gbk::global_id(); e < ptr[k + 1]; e += gbk::grid_size())
            gbk::push_edge<Mul, M, MV, UV, VFIRST, IDX, MODE, PASS>(
                mul, k, u, e, col, mvals, mask, stamp, epoch, posmap, scratch, dptr, out_idx,
                out_vals, counters, deg);
    }
    if (PASS == 1) gbk::add_counts(counters, 0, deg);
}

// MODE 2's last step: out_vals[p] = scratch[out_idx[p]], and scratch back to empty.
template <class M>
__global__ void gbk_push_gather(const unsigned long long* counters, const idx_t* out_idx,
                                typename M::t* scratch, typename M::t* out_vals) {
    const idx_t n = (idx_t)counters[0];
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size()) {
        idx_t j = out_idx[p];
        out_vals[p] = scratch[j];
        scratch[j] = M::empty();
    }
}

