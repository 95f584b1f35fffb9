// Kronecker product C(iA*mB + iB, jA*nB + jB) = op(A(iA, jA), B(iB, jB)), written directly in
// row-major order: row r of C holds row r / mB of A times row r % mB of B, and within it the
// entries (jA, jB) in lexicographic order, which is ascending column order.
#pragma once
#include "common.cuh"

// counts[r] = the length of row r of C.
__global__ void gbk_kron_counts(idx_t nrows, const idx_t* a_indptr, const idx_t* b_indptr,
                                idx_t b_nrows, idx_t* counts) {
    for (idx_t r = gbk::global_id(); r < nrows; r += gbk::grid_size()) {
        idx_t ia = r / b_nrows, ib = r % b_nrows;
        counts[r] = (a_indptr[ia + 1] - a_indptr[ia]) * (b_indptr[ib + 1] - b_indptr[ib]);
    }
}

// Entry e of C (c_indptr: C's row pointers, from the counts).
template <class Op, class A, class B>
__global__ void gbk_kron(idx_t nnz, const idx_t* c_indptr, idx_t nrows, const idx_t* a_indptr,
                         const idx_t* a_idx, const A* a_vals, const idx_t* b_indptr,
                         const idx_t* b_idx, const B* b_vals, idx_t b_nrows, idx_t b_ncols,
                         idx_t* out_idx, typename Op::z_t* out_vals) {
    Op op(0);
    for (idx_t e = gbk::global_id(); e < nnz; e += gbk::grid_size()) {
        idx_t r = gbk::row_of(c_indptr, nrows, e);
        idx_t off = e - c_indptr[r];
        idx_t ia = r / b_nrows, ib = r % b_nrows;
        idx_t db = b_indptr[ib + 1] - b_indptr[ib];
        idx_t ea = a_indptr[ia] + off / db, eb = b_indptr[ib] + off % db;
        idx_t ja = a_idx[ea], jb = b_idx[eb];
        out_idx[e] = ja * b_ncols + jb;
        out_vals[e] = op(a_vals[ea], b_vals[eb], ia, ja, ib, jb);
    }
}
