// A host stand-in for kernels/mv_common.cuh, what kernels/mxm_packed.cuh takes from it:
// gbk::add_counts for the harness's one block of one warp (the lanes' sums, one atomic each)
// and gbk::ld_stream (a plain load: the host has no cache hint).
#pragma once
#include "common.cuh"

namespace gbk {
template <class T>
inline T ld_stream(const T* p) { return *p; }

inline void add_counts(unsigned long long* counters, unsigned long long count,
                       unsigned long long deg) {
    for (int d = 16; d > 0; d >>= 1) {
        count += __shfl_down_sync(GBK_ALL_LANES, count, d);
        deg += __shfl_down_sync(GBK_ALL_LANES, deg, d);
    }
    if (lane() == 0) {
        if (count) atomicAdd(&counters[0], count);
        if (deg) atomicAdd(&counters[1], deg);
    }
}
}  // namespace gbk
