// Masked SpGEMM by dot products: C<M> = A (+.x) B computes only the entries of M, each as the
// sorted intersection of row i of A and column j of B (row j of B', given in CSR).  This is
// triangle counting's kernel: the work is bounded by the mask, not by the products of A and B.
#pragma once
#include "common.cuh"
#include "reduce.cuh"

#define GBK_DOT_NONE 9223372036854775807LL

// Load balance: the launcher bins the mask entries by their work min(|A(i,:)|, |B'(j,:)|).
// gbk_mxm_dot takes every entry whose work is at most `long_min` with one thread;
// gbk_mxm_dot_warp takes the others (listed in `long_e`) with one warp each, through shared
// memory or by galloping searches (see there).

// Column indices are IDX: int where the dimension fits (half the bytes a search reads), else
// long long.
//
// One thread per mask entry (i, j); walks the shorter of the two lists and finds each of its
// k in the longer one by a galloping search that only moves forward (mkind: see
// gbk::mask_value).
// out[e]/flag[e] are the value and presence of C(i, j) for mask entry e.  Entries with more
// work than long_min are left to the warp kernel (flag 0 here, set there).
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_mxm_dot(idx_t nm, const idx_t* m_rows, const idx_t* m_idx,
                            const void* m_vals, int mkind, const idx_t* a_indptr,
                            const IDX* a_idx,
                            const A* a_vals, const idx_t* bt_indptr, const IDX* bt_idx,
                            const B* bt_vals, typename M::t* out, unsigned char* flag,
                            idx_t long_min) {
    typedef typename M::t T;
    Mul mul(0);
    for (idx_t e = gbk::global_id(); e < nm; e += gbk::grid_size()) {
        flag[e] = 0;
        if (!gbk::mask_value(m_vals, e, mkind)) continue;
        idx_t i = m_rows[e];
        idx_t j = m_idx[e];
        idx_t pa = a_indptr[i], ea = a_indptr[i + 1];
        idx_t pb = bt_indptr[j], eb = bt_indptr[j + 1];
        if (pa == ea || pb == eb) continue;
        idx_t work = (ea - pa) < (eb - pb) ? (ea - pa) : (eb - pb);
        if (work > long_min) continue;
        T acc = M::identity();
        bool have = false;
        bool a_short = (ea - pa) <= (eb - pb);
        idx_t ps = a_short ? pa : pb, es = a_short ? ea : eb;
        idx_t pl = a_short ? pb : pa, el = a_short ? eb : ea;
        const IDX* s_idx = a_short ? a_idx : bt_idx;
        const IDX* l_idx = a_short ? bt_idx : a_idx;
        for (; ps < es && pl < el; ++ps) {
            idx_t k = (idx_t)s_idx[ps];
            pl = gbk::gallop(l_idx, pl, el, k);
            if (pl == el) break;
            if ((idx_t)l_idx[pl] != k) continue;
            idx_t ia = a_short ? ps : pl, ib = a_short ? pl : ps;
            T z = mul(a_vals[ia], bt_vals[ib], i, k, k, j);
            acc = have ? M::combine(acc, z) : z;
            have = true;
            if (M::is_any || gbk::reached_terminal<M>(acc)) break;
        }
        if (have) {
            out[e] = acc;
            flag[e] = 1;
        }
    }
}

// One warp per listed mask entry e = long_e[w] (an entry the thread kernel skipped; its mask
// value was checked there, so flag[e] is 0 unless this finds a match), blockDim.x == 256.
// Two ways to intersect the shorter list S with the longer L, by their sizes:
// - L at most GBK_DOT_MERGE_RATIO times S (lists of like sizes, most of the work of a
//   degree-ordered graph): L goes through shared memory a tile of GBK_DOT_TILE at a time,
//   loaded by the warp in coalesced reads, and each lane takes an element of S (32
//   consecutive ones at a time) and binary-searches the tile; S moves on by the elements the
//   tile covers, so each list is read once, a 32-byte sector per 8 indices.  (The search below
//   reads L at random, a sector per probe: the L2's sector rate bounded it.)
// - otherwise lane l takes the entries l, l + 32, ... of S and searches each in L by galloping
//   from where its last search ended (gbk::gallop).
// The lanes' partial results are folded into lane 0.  `any` keeps the match of the smallest
// k, as the thread kernel and the CPU backend do.
#define GBK_DOT_TILE 256
#define GBK_DOT_MERGE_RATIO 16

template <class Mul, class M, class A, class B, class IDX>
__global__ void __launch_bounds__(256)
gbk_mxm_dot_warp(idx_t nlong, const idx_t* long_e, const idx_t* m_rows,
                 const idx_t* m_idx, const void* m_vals, int mkind,
                 const idx_t* a_indptr, const IDX* a_idx, const A* a_vals,
                 const idx_t* bt_indptr, const IDX* bt_idx,
                 const B* bt_vals, typename M::t* out, unsigned char* flag) {
    typedef typename M::t T;
    __shared__ IDX tiles[8][GBK_DOT_TILE];
    IDX* tile = tiles[threadIdx.x >> 5];
    const int lane = gbk::lane();
    Mul mul(0);
    for (idx_t w = gbk::global_warp(); w < nlong; w += gbk::warp_count()) {
        idx_t e = long_e[w];
        if (!gbk::mask_value(m_vals, e, mkind)) continue;  // the same for the whole warp
        idx_t i = m_rows[e];
        idx_t j = m_idx[e];
        idx_t pa = a_indptr[i], ea = a_indptr[i + 1];
        idx_t pb = bt_indptr[j], eb = bt_indptr[j + 1];
        bool a_short = (ea - pa) <= (eb - pb);
        idx_t ps = a_short ? pa : pb, es = a_short ? ea : eb;
        idx_t pl = a_short ? pb : pa, el = a_short ? eb : ea;
        const IDX* s_idx = a_short ? a_idx : bt_idx;
        const IDX* l_idx = a_short ? bt_idx : a_idx;
        T acc = M::identity();
        bool have = false;
        idx_t first = GBK_DOT_NONE;
        if (el - pl <= GBK_DOT_MERGE_RATIO * (es - ps)) {
            bool stop = false;
            while (ps < es && pl < el && !stop) {
                const int n = (int)((el - pl) < GBK_DOT_TILE ? (el - pl) : GBK_DOT_TILE);
                const idx_t last = (idx_t)l_idx[pl + n - 1];
                if (last < (idx_t)s_idx[ps]) {  // no element of S left in this tile
                    pl += n;
                    continue;
                }
                for (int t = lane; t < n; t += 32) tile[t] = l_idx[pl + t];
                __syncwarp();
                const idx_t lowest = (idx_t)tile[0];
                while (ps < es) {
                    const idx_t q = ps + lane;
                    const idx_t k = q < es ? (idx_t)s_idx[q] : GBK_DOT_NONE;
                    const bool here = k <= last;  // S ascends: the lanes here are a prefix
                    if (here && k >= lowest) {
                        int lo = 0, hi = n;
                        while (lo < hi) {
                            const int mid = (lo + hi) >> 1;
                            if ((idx_t)tile[mid] < k) lo = mid + 1; else hi = mid;
                        }
                        if (lo < n && (idx_t)tile[lo] == k) {
                            const idx_t at = pl + lo;
                            idx_t ia = a_short ? q : at, ib = a_short ? at : q;
                            T z = mul(a_vals[ia], bt_vals[ib], i, k, k, j);
                            if (M::is_any) {
                                if (!have) {  // a lane's first match is its smallest k
                                    acc = z;
                                    first = k;
                                }
                            } else {
                                acc = have ? M::combine(acc, z) : z;
                            }
                            have = true;
                        }
                    }
                    const unsigned covered = __ballot_sync(GBK_ALL_LANES, here);
                    ps += __popc(covered);
                    // `any` stops at the first 32 that hold a match (the smallest k is among
                    // them); a terminal value ends the fold
                    if (__any_sync(GBK_ALL_LANES,
                                   M::is_any ? have : gbk::reached_terminal<M>(acc) && have)) {
                        stop = true;
                        break;
                    }
                    if (covered != GBK_ALL_LANES) break;  // the rest of S is past this tile
                }
                __syncwarp();  // the tile is read before the next one overwrites it
                pl += n;
            }
        } else {
            for (idx_t q = ps + lane; q < es; q += 32) {
                idx_t k = (idx_t)s_idx[q];
                idx_t at = gbk::gallop(l_idx, pl, el, k);
                pl = at;  // this lane's next k is larger: search from here
                if (at == el || (idx_t)l_idx[at] != k) continue;
                idx_t ia = a_short ? q : at, ib = a_short ? at : q;
                if (gbk::fold_product<M>(acc, have, first,
                                         mul(a_vals[ia], bt_vals[ib], i, k, k, j), k))
                    break;
            }
        }
        if (M::is_any) {
            for (int d = 16; d > 0; d >>= 1) {
                T o = gbk::shfl_down(acc, d);
                idx_t of = gbk::shfl_down(first, d);
                if (of < first) {
                    first = of;
                    acc = o;
                }
            }
            have = first != GBK_DOT_NONE;
        } else {
            gbk::warp_fold<M>(acc, have);
        }
        if (lane == 0 && have) {
            out[e] = acc;
            flag[e] = 1;
        }
    }
}

// The launcher's bins, in two passes over the mask's rows with a warp per row (each entry's
// row written, not searched; its work computed in place of a chain of gathers over every
// entry): gbk_dot_bin_count writes m_rows and counts in *nlong the entries whose work
// min(|A(i,:)|, |B'(j,:)|) exceeds long_min, the ones gbk_mxm_dot leaves to the warp kernel;
// gbk_dot_bin_fill lists them in long_e, each warp's of a row together (reserved by one
// atomic), so a row's entries stay side by side for the warp kernel.
__global__ void gbk_dot_bin_count(idx_t nrows, const idx_t* m_indptr, const idx_t* m_idx,
                                  const idx_t* a_indptr, const idx_t* bt_indptr,
                                  idx_t long_min, idx_t* m_rows, unsigned long long* nlong) {
    for (idx_t i = gbk::global_warp(); i < nrows; i += gbk::warp_count()) {
        const idx_t p0 = m_indptr[i], p1 = m_indptr[i + 1];
        if (p0 == p1) continue;  // the same for the whole warp
        const idx_t wa = a_indptr[i + 1] - a_indptr[i];
        unsigned long long mine = 0;
        for (idx_t e = p0 + gbk::lane(); e < p1; e += 32) {
            m_rows[e] = i;
            const idx_t j = m_idx[e];
            const idx_t wb = bt_indptr[j + 1] - bt_indptr[j];
            if ((wa < wb ? wa : wb) > long_min) ++mine;
        }
        for (int d = 16; d > 0; d >>= 1) mine += __shfl_down_sync(GBK_ALL_LANES, mine, d);
        if (gbk::lane() == 0 && mine) atomicAdd(nlong, mine);
    }
}

__global__ void gbk_dot_bin_fill(idx_t nrows, const idx_t* m_indptr, const idx_t* m_idx,
                                 const idx_t* a_indptr, const idx_t* bt_indptr,
                                 idx_t long_min, unsigned long long* cursor, idx_t* long_e) {
    const int lane = gbk::lane();
    const unsigned below = (1u << lane) - 1u;
    for (idx_t i = gbk::global_warp(); i < nrows; i += gbk::warp_count()) {
        const idx_t p0 = m_indptr[i], p1 = m_indptr[i + 1];
        const idx_t wa = a_indptr[i + 1] - a_indptr[i];
        if (p0 == p1 || wa <= long_min) continue;  // no long entry in this row
        for (idx_t base = p0; base < p1; base += 32) {
            const idx_t e = base + lane;
            bool is_long = false;
            if (e < p1) {
                const idx_t j = m_idx[e];
                is_long = bt_indptr[j + 1] - bt_indptr[j] > long_min;
            }
            const unsigned mask = __ballot_sync(GBK_ALL_LANES, is_long);
            if (!mask) continue;
            unsigned long long at = 0;
            if (lane == 0) at = atomicAdd(cursor, (unsigned long long)__popc(mask));
            at = __shfl_sync(GBK_ALL_LANES, at, 0);
            if (is_long) long_e[at + __popc(mask & below)] = e;
        }
    }
}
