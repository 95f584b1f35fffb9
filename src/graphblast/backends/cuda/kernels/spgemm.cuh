// SpGEMM for any semiring by expand-sort-compress, in chunks of rows of A:
//   1. every product A(i,k) * B(k,j) of the chunk is formed with its key (i - row0) * ncols + j
//      (gbk_spgemm_expand; products the mask excludes get the key GBK_DROP and sort last);
//   2. the keys are sorted (CuPy's stable radix sort), the values gathered;
//   3. runs of equal keys are found (gbk_run_starts) and reduced with the monoid
//      (gbk_reduce_segments), in product order, so `any` takes the product of the smallest k.
#pragma once
#include "common.cuh"

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
