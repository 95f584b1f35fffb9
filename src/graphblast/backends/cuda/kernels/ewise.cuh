// Element-wise operations and the masked write-back, on two sorted structures of one shape.
//
// Both operands are in row-major order, so merging them needs no hash table: every entry of
// one operand finds its position in the other by a binary search within its row (gbk_match),
// and exclusive scans of the "found" flags give every output entry its place:
//   an entry e of A goes to  e + (pos_in_B(e) - matched_A_before(e)),
// since the entries of B before it that are not matched are exactly the B-only entries that
// precede it.  Vectors (VEC) are one row: [0, n) with no row pointers.
#pragma once
#include "common.cuh"

// For each entry e of A: pos[e] = the first position in B (within A's row) whose column is >=
// A's column, found[e] = whether B has that column.
template <bool VEC>
__global__ void gbk_match(idx_t na, const idx_t* a_indptr, idx_t nrows, const idx_t* a_idx,
                          const idx_t* b_indptr, idx_t nb, const idx_t* b_idx, idx_t* pos,
                          unsigned char* found) {
    for (idx_t e = gbk::global_id(); e < na; e += gbk::grid_size()) {
        idx_t lo = 0, hi = nb;
        if (!VEC) {
            idx_t r = gbk::row_of(a_indptr, nrows, e);
            lo = b_indptr[r];
            hi = b_indptr[r + 1];
        }
        idx_t c = a_idx[e];
        idx_t p = gbk::lower_bound(b_idx, lo, hi, c);
        pos[e] = p;
        found[e] = (p < hi && b_idx[p] == c) ? 1 : 0;
    }
}

// ewise_mult: the matched entries of A, in A's order (scan = exclusive scan of found).
template <class Op, class A, class B, bool VEC>
__global__ void gbk_ewise_mult(idx_t na, const idx_t* a_indptr, idx_t nrows, const idx_t* a_idx,
                               const A* a_vals, const B* b_vals, const idx_t* pos,
                               const unsigned char* found, const idx_t* scan, idx_t* out_idx,
                               typename Op::z_t* out_vals, typename Op::param_t p) {
    Op op(p);
    for (idx_t e = gbk::global_id(); e < na; e += gbk::grid_size()) {
        if (!found[e]) continue;
        idx_t i, j = a_idx[e];
        if (VEC) { i = j; j = 0; } else { i = gbk::row_of(a_indptr, nrows, e); }
        idx_t k = scan[e];
        out_idx[k] = a_idx[e];
        out_vals[k] = op.both(a_vals[e], b_vals[pos[e]], i, j);
    }
}

// ewise_add/ewise_union, the entries of A: op(a, b) where B has the entry, else only_a(a).
template <class Op, class A, class B, bool VEC>
__global__ void gbk_union_a(idx_t na, const idx_t* a_indptr, idx_t nrows, const idx_t* a_idx,
                            const A* a_vals, const B* b_vals, const idx_t* pos,
                            const unsigned char* found, const idx_t* scan, idx_t* out_idx,
                            typename Op::z_t* out_vals, typename Op::param_t p,
                            typename Op::param2_t p2) {
    Op op(p, p2);
    for (idx_t e = gbk::global_id(); e < na; e += gbk::grid_size()) {
        idx_t i, j = a_idx[e];
        if (VEC) { i = j; j = 0; } else { i = gbk::row_of(a_indptr, nrows, e); }
        idx_t k = e + pos[e] - scan[e];
        out_idx[k] = a_idx[e];
        out_vals[k] = found[e] ? op.both(a_vals[e], b_vals[pos[e]], i, j)
                               : op.only_a(a_vals[e], i, j);
    }
}

// ewise_add/ewise_union, the entries of B that A does not have.
template <class Op, class B, bool VEC>
__global__ void gbk_union_b(idx_t nb, const idx_t* b_indptr, idx_t nrows, const idx_t* b_idx,
                            const B* b_vals, const idx_t* pos, const unsigned char* found,
                            const idx_t* scan, idx_t* out_idx, typename Op::z_t* out_vals,
                            typename Op::param_t p, typename Op::param2_t p2) {
    Op op(p, p2);
    for (idx_t f = gbk::global_id(); f < nb; f += gbk::grid_size()) {
        if (found[f]) continue;
        idx_t i, j = b_idx[f];
        if (VEC) { i = j; j = 0; } else { i = gbk::row_of(b_indptr, nrows, f); }
        idx_t k = f + pos[f] - scan[f];
        out_idx[k] = b_idx[f];
        out_vals[k] = op.only_b(b_vals[f], i, j);
    }
}

// Whether a mask lets each entry of X be written: X's column looked up in the mask's row
// (mkind: see gbk::mask_value).
template <bool VEC>
__global__ void gbk_mask_allows(idx_t nx, const idx_t* x_indptr, idx_t nrows, const idx_t* x_idx,
                                const idx_t* m_indptr, idx_t nm, const idx_t* m_idx,
                                const void* m_vals, int mkind, int complement,
                                unsigned char* allowed) {
    for (idx_t e = gbk::global_id(); e < nx; e += gbk::grid_size()) {
        idx_t lo = 0, hi = nm;
        if (!VEC) {
            idx_t r = gbk::row_of(x_indptr, nrows, e);
            lo = m_indptr[r];
            hi = m_indptr[r + 1];
        }
        idx_t c = x_idx[e];
        idx_t p = gbk::lower_bound(m_idx, lo, hi, c);
        bool in = p < hi && m_idx[p] == c && gbk::mask_value(m_vals, p, mkind);
        allowed[e] = (in != (complement != 0)) ? 1 : 0;
    }
}

// The kept entries of X (keep[e]) go to scan_x[e] + scan_y[pos_in_y[e]]: their rank among
// X's kept entries plus the number of kept entries of Y before them.  X and Y keep disjoint
// positions (the masked write-back: Z where the mask allows, C elsewhere), so this merges
// them in row-major order.  With pos_in_y null, X's kept entries are just compacted.
template <class T>
__global__ void gbk_merge_kept(idx_t nx, const idx_t* x_idx, const T* x_vals,
                               const unsigned char* keep, const idx_t* scan_x,
                               const idx_t* pos_in_y, const idx_t* scan_y, idx_t* out_idx,
                               T* out_vals) {
    for (idx_t e = gbk::global_id(); e < nx; e += gbk::grid_size()) {
        if (!keep[e]) continue;
        idx_t k = scan_x[e] + (pos_in_y ? scan_y[pos_in_y[e]] : 0);
        out_idx[k] = x_idx[e];
        out_vals[k] = x_vals[e];
    }
}
