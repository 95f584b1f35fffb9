// graphblast's CUDA kernels run on the host, for tests on a machine without a GPU
// (test_loop_kernels_on_host.py): a block's threads are host threads (a barrier for
// __syncthreads), the blocks of a launch run one after another in a given order, and a
// warp's collectives with the full mask meet at a barrier of its 32 threads.  __activemask()
// answers the calling lane alone, so a call with it (gbk::append_slot) acts as a warp of
// one lane: correct for code that is correct under any active mask, which is what the
// kernels' divergent appends must be.  Atomics take one lock.  Shared memory is `static`:
// one block runs at a time.  This checks the kernels' logic - index arithmetic, appends,
// the last block's ticket and what it does - not their speed or the hardware's ordering.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <math.h>
#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

using std::isnan; using std::isinf; using std::isfinite; using std::signbit;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

struct gbk_host_dim3 { unsigned x, y, z; };
inline thread_local gbk_host_dim3 threadIdx{0, 0, 0};
inline thread_local gbk_host_dim3 blockIdx{0, 0, 0};
inline gbk_host_dim3 blockDim{1, 1, 1};
inline gbk_host_dim3 gridDim{1, 1, 1};

class gbk_host_barrier {
  public:
    void reset(unsigned n) { n_ = n; waiting_ = 0; }
    void wait() {
        std::unique_lock<std::mutex> lock(m_);
        const unsigned long long gen = gen_;
        if (++waiting_ == n_) {
            waiting_ = 0;
            ++gen_;
            cv_.notify_all();
        } else {
            cv_.wait(lock, [&] { return gen_ != gen; });
        }
    }

  private:
    std::mutex m_;
    std::condition_variable cv_;
    unsigned n_ = 1, waiting_ = 0;
    unsigned long long gen_ = 0;
};

inline gbk_host_barrier gbk_host_block_barrier;
inline gbk_host_barrier gbk_host_warp_barriers[32];
inline unsigned long long gbk_host_warp_slots[32][32];
inline int gbk_host_block_flags[1024];
inline std::mutex gbk_host_atomic_lock;

inline unsigned gbk_host_lane() { return threadIdx.x & 31u; }
inline unsigned gbk_host_warp() { return threadIdx.x >> 5; }

inline void __syncthreads() { gbk_host_block_barrier.wait(); }
inline int __syncthreads_or(int p) {
    gbk_host_block_flags[threadIdx.x] = p != 0;
    __syncthreads();
    int any = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) any |= gbk_host_block_flags[t];
    __syncthreads();
    return any;
}
inline void __syncwarp(unsigned = 0xffffffffu) { gbk_host_warp_barriers[gbk_host_warp()].wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned __activemask() { return 1u << gbk_host_lane(); }

// every lane of the warp gives v; the 32 values (the full mask), or v alone (a lane's mask)
inline bool gbk_host_alone(unsigned mask) { return mask == (1u << gbk_host_lane()); }
inline unsigned long long gbk_host_exchange(unsigned long long v, unsigned from) {
    const unsigned w = gbk_host_warp();
    gbk_host_warp_slots[w][gbk_host_lane()] = v;
    gbk_host_warp_barriers[w].wait();
    const unsigned long long got = gbk_host_warp_slots[w][from & 31u];
    gbk_host_warp_barriers[w].wait();
    return got;
}
template <class T>
inline unsigned long long gbk_host_bits(T v) {
    unsigned long long u = 0;
    std::memcpy(&u, &v, sizeof(T));
    return u;
}
template <class T>
inline T gbk_host_from_bits(unsigned long long u) {
    T v;
    std::memcpy(&v, &u, sizeof(T));
    return v;
}
template <class T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
    if (gbk_host_alone(mask)) return v;
    const unsigned lane = gbk_host_lane();
    const unsigned from = (lane & ~(unsigned)(width - 1)) + ((unsigned)src & (width - 1));
    return gbk_host_from_bits<T>(gbk_host_exchange(gbk_host_bits(v), from));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32) {
    if (gbk_host_alone(mask)) return v;
    const unsigned lane = gbk_host_lane();
    const unsigned in = lane % width + d < (unsigned)width ? lane + d : lane;
    return gbk_host_from_bits<T>(gbk_host_exchange(gbk_host_bits(v), in));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32) {
    if (gbk_host_alone(mask)) return v;
    const unsigned lane = gbk_host_lane();
    const unsigned in = lane % width >= d ? lane - d : lane;
    return gbk_host_from_bits<T>(gbk_host_exchange(gbk_host_bits(v), in));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T v, int d, int width = 32) {
    if (gbk_host_alone(mask)) return v;
    return gbk_host_from_bits<T>(gbk_host_exchange(gbk_host_bits(v), gbk_host_lane() ^ d));
}
inline unsigned __ballot_sync(unsigned mask, int p) {
    const unsigned mine = p ? 1u << gbk_host_lane() : 0u;
    if (gbk_host_alone(mask)) return mine;
    const unsigned w = gbk_host_warp();
    gbk_host_warp_slots[w][gbk_host_lane()] = mine;
    gbk_host_warp_barriers[w].wait();
    unsigned all = 0;
    for (int k = 0; k < 32; ++k) all |= (unsigned)gbk_host_warp_slots[w][k];
    gbk_host_warp_barriers[w].wait();
    return all & mask;
}
inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }

template <class T>
inline T gbk_host_atomic(T* p, T (*op)(T, T), T v) {
    std::lock_guard<std::mutex> lock(gbk_host_atomic_lock);
    const T old = *p;
    *p = op(old, v);
    return old;
}
template <class T> inline T gbk_host_add(T a, T b) { return a + b; }
template <class T> inline T gbk_host_min(T a, T b) { return b < a ? b : a; }
template <class T> inline T gbk_host_max(T a, T b) { return b > a ? b : a; }
template <class T> inline T gbk_host_second(T, T b) { return b; }
template <class T> inline T atomicAdd(T* p, T v) { return gbk_host_atomic(p, gbk_host_add<T>, v); }
template <class T> inline T atomicMin(T* p, T v) { return gbk_host_atomic(p, gbk_host_min<T>, v); }
template <class T> inline T atomicMax(T* p, T v) { return gbk_host_atomic(p, gbk_host_max<T>, v); }
template <class T> inline T atomicExch(T* p, T v) {
    return gbk_host_atomic(p, gbk_host_second<T>, v); }
template <class T> inline T atomicCAS(T* p, T expected, T v) {
    std::lock_guard<std::mutex> lock(gbk_host_atomic_lock);
    const T old = *p;
    if (old == expected) *p = v;
    return old;
}
template <class T> inline T atomicOr(T* p, T v) {
    std::lock_guard<std::mutex> lock(gbk_host_atomic_lock);
    const T old = *p;
    *p = old | v;
    return old;
}

template <class T> inline T __ldcg(const T* p) { return *(const volatile T*)p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldg(const T* p) { return *p; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __ull2double_rn(unsigned long long x) { return (double)x; }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline float __int_as_float(int x) { return gbk_host_from_bits<float>((unsigned)x); }
inline int __float_as_int(float f) { return (int)gbk_host_bits(f); }
inline double __longlong_as_double(long long x) { return gbk_host_from_bits<double>(x); }
inline long long __double_as_longlong(double f) { return (long long)gbk_host_bits(f); }

// the WHILE node's condition as the last kernel set it
inline unsigned long long gbk_host_condition_handle = 0;
inline int gbk_host_condition = -1;
inline void cudaGraphSetConditional(unsigned long long handle, unsigned value) {
    gbk_host_condition_handle = handle;
    gbk_host_condition = (int)value;
}

// A launch of `grid` blocks of `block` threads, the blocks in the order `order` (null: in
// order), each calling f() once.
template <class F>
inline void gbk_host_launch(unsigned grid, unsigned block, const unsigned* order, F f) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned k = 0; k < grid; ++k) {
        const unsigned b = order ? order[k] : k;
        gbk_host_block_barrier.reset(block);
        for (unsigned w = 0; w < (block + 31) / 32; ++w) gbk_host_warp_barriers[w].reset(32);
        std::vector<std::thread> threads;
        threads.reserve(block);
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back([=] {
                threadIdx = {t, 0, 0};
                blockIdx = {b, 0, 0};
                f();
            });
        for (auto& th : threads) th.join();
    }
}
