// Entry-wise maps: apply (unary, bound binary, index-unary), select's predicate, casts.
#pragma once
#include "common.cuh"

// z[e] = op(a[e], i, j) for every stored entry e.
//
// Op is a map adapter: `typedef ... z_t; typedef ... param_t; Op(param_t);
// z_t operator()(A a, idx_t i, idx_t j) const`.  For a matrix, i is found by a binary search
// in indptr and j is the column; for a vector (VEC) the entry sits in a column: i is its index
// and j is 0, as GraphBLAS (and python-graphblas) number a Vector's entries.  Positions are
// only looked up when the operator uses them (Op::uses_index).
template <class Op, class A, bool VEC>
__global__ void gbk_map(idx_t n, const idx_t* indptr, idx_t nrows, const idx_t* indices,
                        const A* a, typename Op::z_t* z, typename Op::param_t p) {
    Op op(p);
    for (idx_t e = gbk::global_id(); e < n; e += gbk::grid_size()) {
        idx_t i = 0, j = 0;
        if (Op::uses_index) {
            if (VEC) {
                i = indices[e];
            } else {
                i = gbk::row_of(indptr, nrows, e);
                j = indices[e];
            }
        }
        z[e] = op(a[e], i, j);
    }
}
