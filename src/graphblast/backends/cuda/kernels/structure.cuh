// Structure kernels shared by several primitives: expanding counts into (source, occurrence)
// pairs, the row of every entry of a CSR matrix, runs of equal pairs, and whether user CSR
// arrays are canonical.
#pragma once
#include "common.cuh"

// For every output p < total: src[p] = the s with scan[s] <= p < scan[s + 1] (scan: an
// exclusive scan of n counts, scan[n] = total), occ[p] = p - scan[s].  occ may be null.
// With scan = indptr this gives the row of every entry.
__global__ void gbk_expand(idx_t total, idx_t n, const idx_t* scan, idx_t* src, idx_t* occ) {
    for (idx_t p = gbk::global_id(); p < total; p += gbk::grid_size()) {
        idx_t s = gbk::upper_bound(scan, 0, n + 1, p) - 1;
        src[p] = s;
        if (occ) occ[p] = p - scan[s];
    }
}

// flags[p] = 1 where a run of equal (row, col) pairs starts in sorted COO arrays.
__global__ void gbk_pair_run_starts(idx_t n, const idx_t* rows, const idx_t* cols,
                                    unsigned char* flags) {
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size())
        flags[p] = (p == 0 || rows[p] != rows[p - 1] || cols[p] != cols[p - 1]) ? 1 : 0;
}

// flags[p] = 1 where a run of equal pairs ends (the last duplicate wins in assign).
__global__ void gbk_pair_run_ends(idx_t n, const idx_t* rows, const idx_t* cols,
                                  unsigned char* flags) {
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size())
        flags[p] = (p + 1 == n || rows[p] != rows[p + 1] || cols[p] != cols[p + 1]) ? 1 : 0;
}

// *unsorted = 1 when some row of a CSR structure has a column index that is not greater than
// the one before it in the row (rows out of order or with duplicates); left as it is otherwise.
// One thread per entry, so a long row is checked in parallel; only where an index does not
// increase is its row looked up (binary search), to see whether it starts the row.  Every
// writer stores the same 1, so the race is harmless.
__global__ void gbk_csr_unsorted(idx_t nnz, idx_t nrows, const idx_t* indptr,
                                 const idx_t* indices, unsigned char* unsorted) {
    for (idx_t p = gbk::global_id(); p < nnz; p += gbk::grid_size()) {
        if (p == 0 || indices[p] > indices[p - 1]) continue;
        if (indptr[gbk::row_of(indptr, nrows, p)] != p) *unsorted = 1;
    }
}

// select.colle / select.colgt on sorted rows, without a flag per entry: row i keeps its
// entries below column `cut` (low) or from `cut` on (!low), one contiguous range, found by a
// binary search per row.  first[i] is where the range starts, count[i] its length.
template <class IDX>
__global__ void gbk_column_cut(idx_t nrows, const idx_t* indptr, const IDX* col, idx_t cut,
                               int low, idx_t* first, idx_t* count) {
    for (idx_t i = gbk::global_id(); i < nrows; i += gbk::grid_size()) {
        const idx_t lo = indptr[i], hi = indptr[i + 1];
        const idx_t c = gbk::lower_bound(col, lo, hi, cut);
        first[i] = low ? lo : c;
        count[i] = low ? c - lo : hi - c;
    }
}

// The kept ranges copied to out_ptr[i]: with `rows` null a warp per row i < n, skipping the
// rows longer than `longest` (a hub's range would keep one warp busy long after the rest are
// done); with `rows`, a block per listed row rows[0..n-1] (the long ones).  W is a word of the
// values' size; vals null: an iso matrix, no values.
template <class IDX, class W>
__global__ void gbk_copy_ranges(idx_t n, const idx_t* rows, const idx_t* first,
                                const idx_t* out_ptr, const IDX* col, const W* vals,
                                idx_t longest, IDX* out_col, W* out_vals) {
    const bool by_block = rows != nullptr;
    const idx_t step = by_block ? (idx_t)gridDim.x : gbk::warp_count();
    const idx_t start = by_block ? (idx_t)blockIdx.x : gbk::global_warp();
    const int sub = by_block ? (int)threadIdx.x : gbk::lane();
    const int width = by_block ? (int)blockDim.x : 32;
    for (idx_t h = start; h < n; h += step) {
        const idx_t i = by_block ? rows[h] : h;
        const idx_t len = out_ptr[i + 1] - out_ptr[i];
        if (!by_block && len > longest) continue;
        const idx_t src = first[i], dst = out_ptr[i];
        for (idx_t k = sub; k < len; k += width) {
            out_col[dst + k] = col[src + k];
            if (vals) out_vals[dst + k] = vals[src + k];
        }
    }
}
