// SpGEMM for any semiring by expand-sort-compress, in chunks of rows of A:
//   1. every product A(i,k) * B(k,j) of the chunk is formed with its key (i - row0) * ncols + j
//      (gbk_spgemm_expand; products the mask excludes get the key GBK_DROP and sort last);
//   2. the keys are sorted (CuPy's stable radix sort), the values gathered;
//   3. runs of equal keys are found (gbk_run_starts) and reduced with the monoid
//      (gbk_reduce_segments), in product order, so `any` takes the product of the smallest k.
//
// Rows of few products take a hash SpGEMM instead (gbk_spgemm_hash, below), for monoids whose
// fold does not depend on the order of the products.
#pragma once
#include "common.cuh"
#include "mv_common.cuh"

#define GBK_DROP 9223372036854775807LL

// work[e] = the number of products entry e of A makes: the length of row A.indices[e] of B.
__global__ void gbk_entry_work(idx_t na, const idx_t* a_idx, const idx_t* b_indptr,
                               idx_t* work) {
    for (idx_t e = gbk::global_id(); e < na; e += gbk::grid_size()) {
        idx_t k = a_idx[e];
        work[e] = b_indptr[k + 1] - b_indptr[k];
    }
}

// The products of A's entries [e0, e1): product p (0 <= p < nprod) belongs to the entry e with
// wscan[e] - wscan[e0] <= p < wscan[e + 1] - wscan[e0] (wscan: exclusive scan of the work).
// A product is kept where the mask (m_indptr null if none; mkind: see gbk::mask_value)
// allows its position.
template <class Mul, class A, class B>
__global__ void gbk_spgemm_expand(idx_t nprod, idx_t e0, idx_t e1, const idx_t* wscan,
                                  const idx_t* a_indptr, idx_t nrows, const idx_t* a_idx,
                                  const A* a_vals, const idx_t* b_indptr, const idx_t* b_idx,
                                  const B* b_vals, idx_t ncols, idx_t row0,
                                  const idx_t* m_indptr, const idx_t* m_idx, const void* m_vals,
                                  int mkind, int complement, idx_t* keys,
                                  typename Mul::z_t* vals) {
    Mul mul(0);
    idx_t base = wscan[e0];
    for (idx_t p = gbk::global_id(); p < nprod; p += gbk::grid_size()) {
        idx_t e = gbk::upper_bound(wscan, e0, e1 + 1, base + p) - 1;
        idx_t i = gbk::row_of(a_indptr, nrows, e);
        idx_t k = a_idx[e];
        idx_t bp = b_indptr[k] + (base + p - wscan[e]);
        idx_t j = b_idx[bp];
        if (m_indptr) {
            idx_t lo = m_indptr[i], hi = m_indptr[i + 1];
            idx_t q = gbk::lower_bound(m_idx, lo, hi, j);
            bool in = q < hi && m_idx[q] == j && gbk::mask_value(m_vals, q, mkind);
            if (in == (complement != 0)) {
                keys[p] = GBK_DROP;
                continue;
            }
        }
        keys[p] = (i - row0) * ncols + j;
        vals[p] = mul(a_vals[e], b_vals[bp], i, k, k, j);
    }
}

// flags[p] = 1 where a run of equal sorted keys starts (dropped products start nothing).
__global__ void gbk_run_starts(idx_t n, const idx_t* keys, unsigned char* flags) {
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size()) {
        idx_t key = keys[p];
        flags[p] = (key != GBK_DROP && (p == 0 || keys[p - 1] != key)) ? 1 : 0;
    }
}

// offsets[r] = the start of run r (scan: exclusive scan of the run-start flags, nruns =
// scan[n]); offsets[nruns] = the end of the last run, that is the number of kept products.
// rows/cols (when given) receive the position of each run: key / ncols + row0, key % ncols.
__global__ void gbk_run_offsets(idx_t n, const idx_t* keys, const unsigned char* flags,
                                const idx_t* scan, idx_t ncols, idx_t row0, idx_t* offsets,
                                idx_t* rows, idx_t* cols) {
    idx_t nruns = scan[n];
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size()) {
        idx_t key = keys[p];
        if (flags[p]) {
            idx_t r = scan[p];
            offsets[r] = p;
            if (rows) {
                rows[r] = key / ncols + row0;
                cols[r] = key % ncols;
            }
        }
        if (key != GBK_DROP && (p + 1 == n || keys[p + 1] == GBK_DROP)) offsets[nruns] = p + 1;
    }
}

// The hash SpGEMM of rows of at most GBK_HASH_TABLE / 2 products (the host checks): a warp
// per row of A, the row's products folded in a hash table in shared memory (a column claimed
// by compare-and-swap, its value folded by the monoid's atomic: only monoids whose fold does
// not depend on the order take this path), then the row's entries packed and each written at
// its rank among the row's columns, so that C's rows come out sorted.  PASS 1 writes each
// row's entry count to counts[i]; PASS 2 writes the entries at c_indptr[i].  Without the
// sort and its keys of the expand-sort-compress path: for SSSP's squares of a grid (16 and
// 169 products a row), about what the products' reads cost.
#define GBK_HASH_TABLE 512
#define GBK_HASH_WARPS 4

namespace gbk {

// Column j's slot in a row's table (Knuth's multiplicative hash; linear probing from there).
__device__ __forceinline__ int hash_slot(idx_t j) {
    return (int)(((unsigned)j * 2654435761u) & (GBK_HASH_TABLE - 1));
}

}  // namespace gbk

template <class Mul, class M, class A, class B, int PASS>
__global__ void __launch_bounds__(32 * GBK_HASH_WARPS)
gbk_spgemm_hash(idx_t nrows, const idx_t* a_indptr, const idx_t* a_idx, const A* a_vals,
                const idx_t* b_indptr, const idx_t* b_idx, const B* b_vals, idx_t* counts,
                const idx_t* c_indptr, idx_t* c_idx, typename M::t* c_vals) {
    typedef typename M::t T;
    constexpr int W = PASS == 2 ? GBK_HASH_WARPS : 1;  // the values' tables: the fill's only
    constexpr int S = PASS == 2 ? GBK_HASH_TABLE : 1;
    __shared__ int s_keys[GBK_HASH_WARPS][GBK_HASH_TABLE];
    __shared__ T s_vals[W][S];
    __shared__ int s_packed[W][S / 2 > 0 ? S / 2 : 1];  // the row's columns, packed
    __shared__ T s_packed_vals[W][S / 2 > 0 ? S / 2 : 1];
    Mul mul(0);
    const int warp = threadIdx.x >> 5;
    const int lane = gbk::lane();
    int* keys = s_keys[warp];
    for (idx_t i = (idx_t)blockIdx.x * GBK_HASH_WARPS + warp; i < nrows;
         i += (idx_t)gridDim.x * GBK_HASH_WARPS) {
        for (int s = lane; s < GBK_HASH_TABLE; s += 32) {
            keys[s] = -1;
            if (PASS == 2) s_vals[warp][s] = gbk::folding<M>::empty();
        }
        __syncwarp();
        int added = 0;
        for (idx_t e = a_indptr[i]; e < a_indptr[i + 1]; ++e) {
            const idx_t k = a_idx[e];
            for (idx_t f = b_indptr[k] + lane; f < b_indptr[k + 1]; f += 32) {
                const idx_t j = b_idx[f];
                int h = gbk::hash_slot(j);
                int old;
                while ((old = atomicCAS(&keys[h], -1, (int)j)) != -1 && old != (int)j)
                    h = (h + 1) & (GBK_HASH_TABLE - 1);
                added += old == -1;
                if (PASS == 2)
                    gbk::atomic_combine<gbk::folding<M> >(&s_vals[warp][h],
                                                          mul(a_vals[e], b_vals[f], i, k, k, j));
            }
        }
        __syncwarp();
        if (PASS == 1) {
            for (int d = 16; d > 0; d >>= 1) added += __shfl_down_sync(GBK_ALL_LANES, added, d);
            if (lane == 0) counts[i] = added;
        } else {
            int* packed = s_packed[warp];
            T* packed_vals = s_packed_vals[warp];
            int m = 0;
            for (int s0 = 0; s0 < GBK_HASH_TABLE; s0 += 32) {
                const int j = keys[s0 + lane];
                const unsigned held = __ballot_sync(GBK_ALL_LANES, j >= 0);
                if (j >= 0) {
                    const int at = m + __popc(held & ((1u << lane) - 1u));
                    packed[at] = j;
                    packed_vals[at] = s_vals[warp][s0 + lane];
                }
                m += __popc(held);
            }
            __syncwarp();
            const idx_t base = c_indptr[i];
            for (int t = lane; t < m; t += 32) {
                const int j = packed[t];
                int rank = 0;
                for (int u = 0; u < m; ++u) rank += packed[u] < j;
                c_idx[base + rank] = j;
                c_vals[base + rank] = packed_vals[t];
            }
        }
        __syncwarp();
    }
}

// The product A (+.x) B where every row of B holds at most one entry (a membership matrix, a
// diagonal): entry A(i, k) makes the one product A(i, k) * B(k, col(k)), and row i of C
// reduces the products of row i of A that land on one column.  A warp per row of at most
// GBK_GATHER_ROW entries (the host checks): the row's products are gathered into shared
// memory in A's order, the first of each column is its run's leader, each leader folds the
// products of its column in A's order (so the result does not depend on the schedule, for any
// monoid, float sums included) and writes at its rank among the row's columns (C's rows come
// out sorted).  PASS 1 writes each row's column count to counts[i]; PASS 2 writes the
// entries at c_indptr[i].  O(L^2 / 32) compares a lane for a row of L entries, no sort, no
// atomics.
#define GBK_GATHER_ROW 256
#define GBK_GATHER_WARPS 4

template <class Mul, class M, class A, class B, int PASS>
__global__ void __launch_bounds__(32 * GBK_GATHER_WARPS)
gbk_spgemm_gather(idx_t nrows, const idx_t* a_indptr, const idx_t* a_idx, const A* a_vals,
                  const idx_t* b_indptr, const idx_t* b_idx, const B* b_vals, idx_t* counts,
                  const idx_t* c_indptr, idx_t* c_idx, typename M::t* c_vals) {
    typedef typename M::t T;
    __shared__ idx_t s_cols[GBK_GATHER_WARPS][GBK_GATHER_ROW];
    __shared__ T s_vals[GBK_GATHER_WARPS][PASS == 2 ? GBK_GATHER_ROW : 1];
    __shared__ unsigned char s_lead[GBK_GATHER_WARPS][GBK_GATHER_ROW];
    Mul mul(0);
    const int warp = threadIdx.x >> 5;
    const int lane = gbk::lane();
    idx_t* cols = s_cols[warp];
    unsigned char* lead = s_lead[warp];
    for (idx_t i = (idx_t)blockIdx.x * GBK_GATHER_WARPS + warp; i < nrows;
         i += (idx_t)gridDim.x * GBK_GATHER_WARPS) {
        const idx_t e0 = a_indptr[i];
        const int len = (int)(a_indptr[i + 1] - e0);
        for (int t = lane; t < len; t += 32) {
            const idx_t k = a_idx[e0 + t];
            const idx_t f = b_indptr[k];
            const bool has = f < b_indptr[k + 1];
            cols[t] = has ? b_idx[f] : (idx_t)-1;
            if (PASS == 2 && has) s_vals[warp][t] = mul(a_vals[e0 + t], b_vals[f], i, k, k, b_idx[f]);
        }
        __syncwarp();
        int leaders = 0;
        for (int t = lane; t < len; t += 32) {
            const idx_t j = cols[t];
            bool first = j >= 0;
            for (int u = 0; u < t && first; ++u) first = cols[u] != j;
            lead[t] = first;
            leaders += first;
        }
        __syncwarp();
        if (PASS == 1) {
            for (int d = 16; d > 0; d >>= 1)
                leaders += __shfl_down_sync(GBK_ALL_LANES, leaders, d);
            if (lane == 0) counts[i] = leaders;
        } else {
            const idx_t base = c_indptr[i];
            for (int t = lane; t < len; t += 32) {
                if (!lead[t]) continue;
                const idx_t j = cols[t];
                T acc = s_vals[warp][t];
                int rank = 0;
                for (int u = 0; u < len; ++u) {
                    const idx_t c = cols[u];
                    if (u > t && c == j) acc = M::combine(acc, s_vals[warp][u]);
                    rank += lead[u] && c < j;
                }
                c_idx[base + rank] = j;
                c_vals[base + rank] = acc;
            }
        }
        __syncwarp();
    }
}
