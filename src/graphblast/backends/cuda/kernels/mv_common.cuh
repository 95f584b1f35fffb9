// What the matrix-vector kernels (pull: spmv.cuh, push: spmspv.cuh) share: the operand order
// of a product, a monoid seen by the atomics, dense vector masks, warp-aggregated counters
// and reductions within groups of lanes.
//
// Index widths: the matrix's column indices are IDX (int when the dimension fits, else long
// long); row pointers, vector indices and counters are 64-bit.
#pragma once
#include "common.cuh"
#include "reduce.cuh"

#define GBK_NONE 9223372036854775807LL

#ifdef __CUDACC_RTC__
// NVRTC sees no runtime headers; the device runtime's builtin, resolved by ptxas (no -rdc, no
// cudadevrt): sets the condition of a CUDA graph's conditional node (CUDA 12.4 and later).
// The end of a device loop's round calls it (gbk_loop_next, gbk_push_loop).
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle, unsigned int value);
#endif

namespace gbk {

// u(k) * A(k, o) for vxm (VFIRST), A(o, k) * u(k) for mxv, with the positions a positional
// multiply sees: (0, k, k, o) and (o, k, k, 0).
template <bool VFIRST> struct mv_call;
template <> struct mv_call<true> {
    template <class Mul, class MV, class UV>
    static __device__ __forceinline__ typename Mul::z_t run(const Mul& f, MV m, UV u, idx_t o,
                                                             idx_t k) {
        return f(u, m, 0, k, k, o);
    }
};
template <> struct mv_call<false> {
    template <class Mul, class MV, class UV>
    static __device__ __forceinline__ typename Mul::z_t run(const Mul& f, MV m, UV u, idx_t o,
                                                             idx_t k) {
        return f(m, u, o, k, k, 0);
    }
};

// Which stored values a product reads: a pattern-only product (pair, a positional multiply,
// first or second of the other operand) reads no matrix value, so none is loaded.
template <class Mul, bool VFIRST> struct mv_reads {
    static constexpr bool matrix = VFIRST ? Mul::reads_b : Mul::reads_a;
    static constexpr bool vector = VFIRST ? Mul::reads_a : Mul::reads_b;
};

// A monoid seen by the atomics: an accumulator starts "empty" (M::empty()) and the first
// value replaces it, so a lone NaN survives fmin/fmax as it does in a reduction.
template <class M> struct folding {
    typedef typename M::t t;
    static constexpr int native = M::native;
    static __device__ __forceinline__ t empty() { return M::empty(); }
    static __device__ __forceinline__ bool is_empty(t x) { return M::is_empty(x); }
    static __device__ __forceinline__ t combine(t acc, t v) {
        return M::is_empty(acc) ? v : M::combine(acc, v);
    }
};

// A vector mask read densely: bits[j] says whether the mask vector has entry j (null: it has
// every entry, a full vector); vals/kind test a value mask (gbk::mask_value); mode 0 is no
// mask, 1 the mask, 2 its complement.
struct vmask {
    const unsigned char* bits;
    const void* vals;
    int kind;
    int mode;
    __device__ __forceinline__ bool allows(idx_t j) const {
        if (mode == 0) return true;
        bool in = (bits == nullptr || bits[j]) && mask_value(vals, j, kind);
        return in != (mode == 2);
    }
};

// The lanes of this lane's group of `width` lanes (a power of two up to 32).
__device__ __forceinline__ unsigned group_lanes(int width) {
    if (width >= 32) return GBK_ALL_LANES;
    return ((1u << width) - 1u) << ((unsigned)lane() & ~(unsigned)(width - 1));
}

template <class T>
__device__ __forceinline__ T shfl_down_in(unsigned lanes, T v, int delta, int width) {
    if (sizeof(T) == 8) {
        union { T t; unsigned long long u; } a;
        a.t = v;
        a.u = __shfl_down_sync(lanes, a.u, delta, width);
        return a.t;
    } else {
        union { T t; unsigned int u; } a;
        a.u = 0;
        a.t = v;
        a.u = __shfl_down_sync(lanes, a.u, delta, width);
        return a.t;
    }
}

// Combine (acc, have, first) over a group into its first lane.  `any` keeps the value of the
// lowest position (the CPU backend's choice), other monoids fold.
template <class M>
__device__ __forceinline__ void group_fold(typename M::t& acc, bool& have, idx_t& first,
                                           unsigned lanes, int width) {
    for (int d = width >> 1; d > 0; d >>= 1) {
        typename M::t o = shfl_down_in(lanes, acc, d, width);
        int oh = __shfl_down_sync(lanes, (int)have, d, width);
        idx_t of = M::is_any ? shfl_down_in(lanes, first, d, width) : first;
        if (!oh) continue;
        if (M::is_any) {
            if (!have || of < first) {
                acc = o;
                first = of;
            }
        } else {
            acc = have ? M::combine(acc, o) : o;
        }
        have = true;
    }
}

// Add this thread's (count, degree) to counters[0], counters[1]: summed over the block, one
// atomic each per block.  An atomic per warp serialized the end of every grid-stride kernel
// on the counter (33,792 warps at the engine's MAX_GRID).  Every thread of the block must
// call it, once, at the kernel's end (blockDim.x a multiple of 32, at most 256).
__device__ __forceinline__ void add_counts(unsigned long long* counters,
                                           unsigned long long count, unsigned long long deg) {
    __shared__ unsigned long long s_count[8], s_deg[8];
    for (int d = 16; d > 0; d >>= 1) {
        count += __shfl_down_sync(GBK_ALL_LANES, count, d);
        deg += __shfl_down_sync(GBK_ALL_LANES, deg, d);
    }
    if (lane() == 0) {
        s_count[threadIdx.x >> 5] = count;
        s_deg[threadIdx.x >> 5] = deg;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        count = deg = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
            count += s_count[w];
            deg += s_deg[w];
        }
        if (count) atomicAdd(&counters[0], count);
        if (deg) atomicAdd(&counters[1], deg);
    }
}

// The exclusive prefix sum of v over the block and the block's total (blockDim.x a multiple
// of 32, at most 256): a scan within each warp by shuffles, then over the warps' totals.
// Every thread of the block must call it.
__device__ __forceinline__ long long block_exclusive_scan(long long v, long long& total) {
    __shared__ long long s_warp[8];
    long long inc = v;
    for (int d = 1; d < 32; d <<= 1) {
        long long y = __shfl_up_sync(GBK_ALL_LANES, inc, d);
        if (lane() >= d) inc += y;
    }
    if (lane() == 31) s_warp[threadIdx.x >> 5] = inc;
    __syncthreads();
    const int warp = threadIdx.x >> 5;
    long long before = 0;
    total = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
        if (w < warp) before += s_warp[w];
        total += s_warp[w];
    }
    __syncthreads();  // s_warp is free again for the next call
    return before + inc - v;
}

// A slot in an output list for each lane of the active lanes that wants one: one atomic per
// warp (appending outputs one atomic each would serialize on the counter).
__device__ __forceinline__ long long append_slot(unsigned long long* counter, bool want) {
    unsigned active = __activemask();
    unsigned wants = __ballot_sync(active, want);
    if (wants == 0) return -1;
    int leader = __ffs(wants) - 1;
    unsigned long long base = 0;
    if (lane() == leader) base = atomicAdd(counter, (unsigned long long)__popc(wants));
    base = __shfl_sync(active, base, leader);
    if (!want) return -1;
    unsigned below = wants & ((1u << lane()) - 1u);
    return (long long)(base + __popc(below));
}

// `want` consecutive slots in an output list for each lane, one atomic per warp: the first
// of this lane's slots.  Every lane of the warp must call it.
__device__ __forceinline__ long long append_slots(unsigned long long* counter, unsigned want) {
    unsigned long long inc = want;
    for (int d = 1; d < 32; d <<= 1) {
        unsigned long long y = __shfl_up_sync(GBK_ALL_LANES, inc, d);
        if (lane() >= d) inc += y;
    }
    const unsigned long long total = __shfl_sync(GBK_ALL_LANES, inc, 31);
    unsigned long long base = 0;
    if (lane() == 31 && total) base = atomicAdd(counter, total);
    return (long long)(__shfl_sync(GBK_ALL_LANES, base, 31) + inc - want);
}

// A load that streams through L2 (evict first, __ldcs): the matrix's column indices and
// values, each read once by a product, so that they do not push out of L2 the vector the
// product gathers from at random.  Types without an __ldcs overload load plainly.
template <class T> struct streamed {
    static __device__ __forceinline__ T load(const T* p) { return *p; }
};
#define GBK_STREAMED(T) \
    template <> struct streamed<T> { \
        static __device__ __forceinline__ T load(const T* p) { return __ldcs(p); } \
    };
GBK_STREAMED(signed char)
GBK_STREAMED(unsigned char)
GBK_STREAMED(short)
GBK_STREAMED(unsigned short)
GBK_STREAMED(int)
GBK_STREAMED(unsigned int)
GBK_STREAMED(long)
GBK_STREAMED(unsigned long)
GBK_STREAMED(long long)
GBK_STREAMED(unsigned long long)
GBK_STREAMED(float)
GBK_STREAMED(double)
#undef GBK_STREAMED

template <class T>
__device__ __forceinline__ T ld_stream(const T* p) { return streamed<T>::load(p); }

// Entry e's value as a product reads it: from the matrix's value array, or, for an iso matrix
// that stores none (miso), its one value at vals[0], which every lane reads from L1: a
// product over a pattern graph cast to a value type (A.dup(FP32)) moves no value array.
template <class MV>
__device__ __forceinline__ MV matrix_value(const MV* vals, int miso, idx_t e) {
    return miso ? vals[0] : ld_stream(&vals[e]);
}

__device__ __forceinline__ idx_t degree(const idx_t* ptr, idx_t j) {
    return ptr[j + 1] - ptr[j];
}

}  // namespace gbk
