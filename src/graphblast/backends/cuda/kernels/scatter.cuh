// graphblast's scatter w[I[i]] (+)= u[i] (Vector.__setitem__ with a Vector of positions) with a
// monoid that has an exact, order-free atomic: min, max, and plus, times and the logical and
// bitwise monoids on integers.  Every pair combines into a dense accumulator of the output's
// size, so repeated positions (FastSV's hooking f[f[u]] min= ...) cost no sort, and the result
// is the same whatever the order in which the threads arrive.  The accumulator starts empty
// (gbk_fill_empty) and the first value written replaces it (gbk::folding).
#pragma once
#include "common.cuh"
#include "spmv.cuh"

template <class M>
__global__ void gbk_scatter_atomic(idx_t n, const idx_t* pos, const typename M::t* vals,
                                   typename M::t* acc, unsigned char* flag) {
    for (idx_t e = gbk::global_id(); e < n; e += gbk::grid_size()) {
        idx_t t = pos[e];
        if (!flag[t]) flag[t] = 1;  // a hot position: reads are shared, stores queue
        gbk::atomic_combine<gbk::folding<M> >(&acc[t], vals[e]);
    }
}
