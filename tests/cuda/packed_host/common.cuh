// A host stand-in for kernels/common.cuh, enough for kernels/mxm_packed.cuh: one block of one
// warp, its 32 lanes std::threads that meet at every warp intrinsic (a barrier, an exchange
// of the lanes' values, a barrier).  A lane that skipped an intrinsic the others call would
// leave them waiting: the harness's timeout reports it, as a GPU's full-mask intrinsic would
// be undefined there.
#pragma once
#include <barrier>
#include <cstdint>
#include <cstring>

typedef long long idx_t;
#define GBK_ALL_LANES 0xffffffffu
#define __global__
#define __device__
#define __forceinline__ inline

struct gbk_dim { unsigned x; };
inline thread_local gbk_dim threadIdx{0};
inline gbk_dim blockIdx{0}, blockDim{32}, gridDim{1};

struct gbk_warp {
    std::barrier<> meet{32};
    unsigned long long slot[32];
};
inline gbk_warp* gbk_the_warp = nullptr;

template <class T>
inline T gbk_from_lane(T v, int src) {
    unsigned long long u = 0;
    std::memcpy(&u, &v, sizeof(T));
    gbk_the_warp->slot[threadIdx.x] = u;
    gbk_the_warp->meet.arrive_and_wait();
    unsigned long long got = gbk_the_warp->slot[src & 31];
    gbk_the_warp->meet.arrive_and_wait();
    T r;
    std::memcpy(&r, &got, sizeof(T));
    return r;
}
inline unsigned gbk_all_lanes_fold(unsigned v, bool ballot) {
    gbk_the_warp->slot[threadIdx.x] = v;
    gbk_the_warp->meet.arrive_and_wait();
    unsigned r = 0;
    for (int l = 0; l < 32; ++l)
        r |= ballot ? (gbk_the_warp->slot[l] ? 1u << l : 0u) : (unsigned)gbk_the_warp->slot[l];
    gbk_the_warp->meet.arrive_and_wait();
    return r;
}
inline unsigned __ballot_sync(unsigned, bool p) { return gbk_all_lanes_fold(p ? 1u : 0u, true); }
inline unsigned __reduce_or_sync(unsigned, unsigned v) { return gbk_all_lanes_fold(v, false); }
template <class T> inline T __shfl_sync(unsigned, T v, int src) { return gbk_from_lane(v, src); }
template <class T> inline T __shfl_down_sync(unsigned, T v, int delta) {
    const int src = (int)threadIdx.x + delta;
    return gbk_from_lane(v, src < 32 ? src : (int)threadIdx.x);
}
inline int __ffs(unsigned x) { return x ? __builtin_ctz(x) + 1 : 0; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline unsigned long long atomicOr(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

namespace gbk {
inline idx_t global_id() { return (idx_t)blockIdx.x * blockDim.x + threadIdx.x; }
inline idx_t grid_size() { return (idx_t)blockDim.x * gridDim.x; }
inline idx_t global_warp() { return global_id() >> 5; }
inline idx_t warp_count() { return grid_size() >> 5; }
inline int lane() { return (int)(threadIdx.x & 31); }
// mask_value, as kernels/common.cuh defines it (the test copies its text here)
#include "mask_value.inc"
}  // namespace gbk
