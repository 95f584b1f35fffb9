// graphblast's CUDA kernels run on the host, for tests on a machine without a GPU
// (test_loop_kernels_on_host.py): a block's threads are host threads (a barrier for
// __syncthreads), the blocks of a launch run one after another in a given order, and a
// warp's collectives with the full mask meet at a barrier of its 32 threads.  __activemask()
// answers the calling lane alone, so a call with it (gbk::append_slot) acts as a warp of
// one lane: correct for code that is correct under any active mask, which is what the
// kernels' divergent appends must be.  Atomics take one lock.  Shared memory is `static`:
// one block runs at a time.  This checks the kernels' logic - index arithmetic, appends,
// the last block's ticket and what it does - not their speed or the hardware's ordering.
//
// A cooperative launch (gbk_host_launch_cooperative) starts every block's threads at once
// and hands a baton from block to block in the given order: the block holding it runs until
// it waits at the grid's barrier (the kernel's spin, GBK_SPIN) or ends, and the next block
// not ended takes it.  So blocks meet at a grid barrier as on a GPU, one block runs at a time
// (shared memory is still `static`: nothing may be kept there across a grid barrier), and
// between two barriers the blocks' work interleaves in the order the baton goes round.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <math.h>
#include <cmath>
#include <mutex>
#include <stdexcept>
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

// A block's barriers and warp exchanges, one set per block of a cooperative launch (at most
// GBK_HOST_BLOCKS blocks); a launch of blocks one after another uses the first.
#define GBK_HOST_BLOCKS 16
struct gbk_host_block_state {
    gbk_host_barrier block;
    gbk_host_barrier warps[32];
    unsigned long long warp_slots[32][32];
    int flags[1024];
};
inline gbk_host_block_state gbk_host_blocks[GBK_HOST_BLOCKS];
inline thread_local gbk_host_block_state* gbk_host_mine = &gbk_host_blocks[0];
inline std::mutex gbk_host_atomic_lock;

inline unsigned gbk_host_lane() { return threadIdx.x & 31u; }
inline unsigned gbk_host_warp() { return threadIdx.x >> 5; }

inline void __syncthreads() { gbk_host_mine->block.wait(); }
inline int __syncthreads_or(int p) {
    gbk_host_mine->flags[threadIdx.x] = p != 0;
    __syncthreads();
    int any = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) any |= gbk_host_mine->flags[t];
    __syncthreads();
    return any;
}
inline void __syncwarp(unsigned = 0xffffffffu) { gbk_host_mine->warps[gbk_host_warp()].wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned __activemask() { return 1u << gbk_host_lane(); }

// every lane of the warp gives v; the 32 values (the full mask), or v alone (a lane's mask)
inline bool gbk_host_alone(unsigned mask) { return mask == (1u << gbk_host_lane()); }
inline unsigned long long gbk_host_exchange(unsigned long long v, unsigned from) {
    const unsigned w = gbk_host_warp();
    gbk_host_mine->warp_slots[w][gbk_host_lane()] = v;
    gbk_host_mine->warps[w].wait();
    const unsigned long long got = gbk_host_mine->warp_slots[w][from & 31u];
    gbk_host_mine->warps[w].wait();
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
    gbk_host_mine->warp_slots[w][gbk_host_lane()] = mine;
    gbk_host_mine->warps[w].wait();
    unsigned all = 0;
    for (int k = 0; k < 32; ++k) all |= (unsigned)gbk_host_mine->warp_slots[w][k];
    gbk_host_mine->warps[w].wait();
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
    gbk_host_block_state* state = &gbk_host_blocks[0];
    for (unsigned k = 0; k < grid; ++k) {
        const unsigned b = order ? order[k] : k;
        state->block.reset(block);
        for (unsigned w = 0; w < (block + 31) / 32; ++w) state->warps[w].reset(32);
        std::vector<std::thread> threads;
        threads.reserve(block);
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back([=] {
                threadIdx = {t, 0, 0};
                blockIdx = {b, 0, 0};
                gbk_host_mine = state;
                f();
            });
        for (auto& th : threads) th.join();
    }
}

// The baton of a cooperative launch: the position in `order` of the block that runs, which
// blocks have ended, and the threads each block has still running.
struct gbk_host_baton_state {
    std::mutex m;
    std::condition_variable cv;
    std::vector<unsigned> order;
    std::vector<bool> ended;
    std::vector<unsigned> running;
    unsigned at = 0;
};
inline gbk_host_baton_state gbk_host_baton;

// (baton's lock held) the baton to the next block in the order that has not ended
inline void gbk_host_pass_on() {
    auto& z = gbk_host_baton;
    const unsigned n = (unsigned)z.order.size();
    for (unsigned k = 1; k <= n; ++k) {
        const unsigned at = (z.at + k) % n;
        if (!z.ended[z.order[at]]) {
            z.at = at;
            break;
        }
    }
    z.cv.notify_all();
}

inline void gbk_host_wait_for_baton() {
    auto& z = gbk_host_baton;
    std::unique_lock<std::mutex> lock(z.m);
    z.cv.wait(lock, [&] { return z.order[z.at] == blockIdx.x; });
}

// A block's spin at the grid's barrier: the baton to the next block, and back.
inline void gbk_host_spin() {
    {
        std::lock_guard<std::mutex> lock(gbk_host_baton.m);
        gbk_host_pass_on();
    }
    gbk_host_wait_for_baton();
}
#define GBK_SPIN() gbk_host_spin()

// A cooperative launch of `grid` blocks (at most GBK_HOST_BLOCKS) of `block` threads: every
// block resident at once, the baton going round in the order `order` (null: in order).
template <class F>
inline void gbk_host_launch_cooperative(unsigned grid, unsigned block, const unsigned* order,
                                        F f) {
    if (grid > GBK_HOST_BLOCKS) throw std::runtime_error("a cooperative launch too large");
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    auto& z = gbk_host_baton;
    z.order.assign(grid, 0);
    for (unsigned k = 0; k < grid; ++k) z.order[k] = order ? order[k] : k;
    z.ended.assign(grid, false);
    z.running.assign(grid, block);
    z.at = 0;
    std::vector<std::thread> threads;
    threads.reserve((size_t)grid * block);
    for (unsigned b = 0; b < grid; ++b) {
        gbk_host_block_state* state = &gbk_host_blocks[b];
        state->block.reset(block);
        for (unsigned w = 0; w < (block + 31) / 32; ++w) state->warps[w].reset(32);
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back([=] {
                threadIdx = {t, 0, 0};
                blockIdx = {b, 0, 0};
                gbk_host_mine = state;
                gbk_host_wait_for_baton();
                f();
                std::lock_guard<std::mutex> lock(gbk_host_baton.m);
                if (--gbk_host_baton.running[b] == 0) {
                    gbk_host_baton.ended[b] = true;
                    gbk_host_pass_on();
                }
            });
    }
    for (auto& th : threads) th.join();
}
