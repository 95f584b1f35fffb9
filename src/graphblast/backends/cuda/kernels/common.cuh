// Shared building blocks of graphblast's CUDA kernels: index type, type traits, GraphBLAS
// casts, binary searches, warp shuffles of any type and a CAS-based atomic for any monoid.
//
// Kernels are templates over small "adapter" structs that jit.py generates per problem key
// (a semiring's multiply with its casts and positional rules, a monoid with its identity and
// terminal, an apply/select map, ...).  Every kernel uses grid-stride loops, so any grid size
// is correct; the launcher picks the grid from the work size.
//
// No standard header is used under NVRTC (CuPy gives it none): the traits
// and limits needed are defined here.
#pragma once

// operators.cuh holds the fixed-width integer types, for NVRTC too
#include "operators.cuh"

typedef long long idx_t;  // every index and offset array is int64

#define GBK_ALL_LANES 0xffffffffu

namespace gbk {

// -- type traits ----------------------------------------------------------------------------
template <class T> struct is_float { static const bool value = false; };
template <> struct is_float<float> { static const bool value = true; };
template <> struct is_float<double> { static const bool value = true; };
template <class T> struct is_bool { static const bool value = false; };
template <> struct is_bool<bool> { static const bool value = true; };

template <class T> struct limits;
template <> struct limits<signed char> { static __device__ signed char lo() { return -128; } static __device__ signed char hi() { return 127; } };
template <> struct limits<short> { static __device__ short lo() { return -32768; } static __device__ short hi() { return 32767; } };
template <> struct limits<int> { static __device__ int lo() { return -2147483647 - 1; } static __device__ int hi() { return 2147483647; } };
template <> struct limits<long long> { static __device__ long long lo() { return -9223372036854775807LL - 1; } static __device__ long long hi() { return 9223372036854775807LL; } };
template <> struct limits<long> { static __device__ long lo() { return (long)(-9223372036854775807LL - 1); } static __device__ long hi() { return (long)9223372036854775807LL; } };
template <> struct limits<unsigned char> { static __device__ unsigned char lo() { return 0; } static __device__ unsigned char hi() { return 255; } };
template <> struct limits<unsigned short> { static __device__ unsigned short lo() { return 0; } static __device__ unsigned short hi() { return 65535; } };
template <> struct limits<unsigned int> { static __device__ unsigned int lo() { return 0; } static __device__ unsigned int hi() { return 4294967295u; } };
template <> struct limits<unsigned long long> { static __device__ unsigned long long lo() { return 0; } static __device__ unsigned long long hi() { return 18446744073709551615ULL; } };
template <> struct limits<unsigned long> { static __device__ unsigned long lo() { return 0; } static __device__ unsigned long hi() { return (unsigned long)18446744073709551615ULL; } };

// -- casts with GraphBLAS (SuiteSparse) rules -----------------------------------------------
// Anything to bool is x != 0; a float to an integer saturates at the type's limits and NaN
// becomes 0; everything else is C's conversion (integers wrap).
template <class To, class From, bool F2I = is_float<From>::value && !is_float<To>::value &&
                                           !is_bool<To>::value>
struct caster {
    static __device__ __forceinline__ To run(From x) { return (To)x; }
};
template <class To, class From>
struct caster<To, From, true> {
    static __device__ __forceinline__ To run(From x) {
        if (x != x) return (To)0;
        if (x <= (From)limits<To>::lo()) return limits<To>::lo();
        if (x >= (From)limits<To>::hi()) return limits<To>::hi();
        return (To)x;
    }
};
template <class From>
struct caster<bool, From, false> {
    static __device__ __forceinline__ bool run(From x) { return x != (From)0; }
};
template <>
struct caster<bool, bool, false> {
    static __device__ __forceinline__ bool run(bool x) { return x; }
};
template <class To, class From>
__device__ __forceinline__ To cast(From x) { return caster<To, From>::run(x); }

// A value from its bit pattern (identities and terminals are baked in as bits, so that
// infinities and extreme integers need no math header).
template <class T>
__device__ __forceinline__ T from_bits(unsigned long long bits) {
    union { unsigned long long u; T t; } v;
    v.u = bits;
    return v.t;
}

// -- searches in sorted index arrays (int64, or int32 widened per comparison) ---------------
// (host and device: tests/cuda/test_searches.py runs them on the CPU against std::lower_bound)
// First position in [lo, hi) whose value is >= key.
template <class I>
__host__ __device__ __forceinline__ idx_t lower_bound(const I* a, idx_t lo, idx_t hi,
                                                      idx_t key) {
    while (lo < hi) {
        idx_t mid = lo + ((hi - lo) >> 1);
        if ((idx_t)a[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}
// The same position, searched outwards from lo (galloping): probes lo, lo + 1, lo + 3,
// lo + 7, ... until one is >= key, then a binary search of the last gap.  About 2 log2(d)
// reads for an answer d places after lo, against log2(hi - lo): a sorted intersection moves
// a short way at each step (on triangle counting's degree-ordered graph, half the reads).
template <class I>
__host__ __device__ __forceinline__ idx_t gallop(const I* a, idx_t lo, idx_t hi, idx_t key) {
    idx_t below = lo, probe = lo, step = 1;  // every position before `below` is < key
    while (probe < hi && (idx_t)a[probe] < key) {
        below = probe + 1;
        probe = lo + 2 * step - 1;
        step <<= 1;
    }
    return lower_bound(a, below, probe < hi ? probe : hi, key);
}
// First position in [lo, hi) whose value is > key.
__device__ __forceinline__ idx_t upper_bound(const idx_t* a, idx_t lo, idx_t hi, idx_t key) {
    while (lo < hi) {
        idx_t mid = lo + ((hi - lo) >> 1);
        if (a[mid] <= key) lo = mid + 1; else hi = mid;
    }
    return lo;
}
// The row of entry e of a CSR structure with nrows rows.
__device__ __forceinline__ idx_t row_of(const idx_t* indptr, idx_t nrows, idx_t e) {
    return upper_bound(indptr, 0, nrows + 1, e) - 1;
}

__device__ __forceinline__ idx_t global_id() {
    return (idx_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ idx_t grid_size() { return (idx_t)blockDim.x * gridDim.x; }
__device__ __forceinline__ idx_t global_warp() { return global_id() >> 5; }
__device__ __forceinline__ idx_t warp_count() { return grid_size() >> 5; }
__device__ __forceinline__ int lane() { return (int)(threadIdx.x & 31); }

// -- masks ---------------------------------------------------------------------------------
// A mask is read through (m_idx, m_vals, mkind): mkind 0 is a structural mask (m_vals unused),
// otherwise the itemsize of the value type plus 16 for a float type.  A value mask allows an
// entry whose value is nonzero; testing the bytes (with the sign bit of a float ignored, so
// -0.0 counts as zero and NaN as nonzero) reads every type with one instantiation.
__device__ __forceinline__ bool mask_value(const void* vals, idx_t p, int mkind) {
    if (mkind == 0) return true;
    const unsigned char* b = (const unsigned char*)vals;
    switch (mkind & 15) {
        case 1: return b[p] != 0;
        case 2: return ((const unsigned short*)b)[p] != 0;
        case 4: {
            unsigned int u = ((const unsigned int*)b)[p];
            return (mkind & 16) ? (u & 0x7fffffffu) != 0 : u != 0;
        }
        default: {
            unsigned long long u = ((const unsigned long long*)b)[p];
            return (mkind & 16) ? (u & 0x7fffffffffffffffULL) != 0 : u != 0;
        }
    }
}

// -- warp shuffles of any type of 1, 2, 4 or 8 bytes ------------------------------------------
template <class T>
__device__ __forceinline__ T shfl_down(T v, int delta) {
    if (sizeof(T) == 8) {
        union { T t; unsigned long long u; } a;
        a.t = v;
        a.u = __shfl_down_sync(GBK_ALL_LANES, a.u, delta);
        return a.t;
    } else {
        union { T t; unsigned int u; } a;
        a.u = 0;
        a.t = v;
        a.u = __shfl_down_sync(GBK_ALL_LANES, a.u, delta);
        return a.t;
    }
}

// The unsigned and signed words of 4 and 8 bytes that CUDA's atomics take.
template <int SIZE> struct std_word;
template <> struct std_word<4> { typedef unsigned int type; };
template <> struct std_word<8> { typedef unsigned long long type; };
template <int SIZE> struct std_signed;
template <> struct std_signed<4> { typedef int type; };
template <> struct std_signed<8> { typedef long long type; };

// -- atomic combine with any monoid (compare-and-swap on the aligned word) ---------------------
template <class M, class T, int SIZE = sizeof(T)>
struct atomic_op;
template <class M, class T>
struct atomic_op<M, T, 8> {
    static __device__ __forceinline__ void run(T* addr, T val) {
        unsigned long long* w = (unsigned long long*)addr;
        unsigned long long old = *w, assumed;
        do {
            assumed = old;
            union { unsigned long long u; T t; } cur, nxt;
            cur.u = assumed;
            nxt.t = M::combine(cur.t, val);
            if (nxt.u == assumed) return;
            old = atomicCAS(w, assumed, nxt.u);
        } while (old != assumed);
    }
};
template <class M, class T>
struct atomic_op<M, T, 4> {
    static __device__ __forceinline__ void run(T* addr, T val) {
        unsigned int* w = (unsigned int*)addr;
        unsigned int old = *w, assumed;
        do {
            assumed = old;
            union { unsigned int u; T t; } cur, nxt;
            cur.u = assumed;
            nxt.t = M::combine(cur.t, val);
            if (nxt.u == assumed) return;
            old = atomicCAS(w, assumed, nxt.u);
        } while (old != assumed);
    }
};
// 1- and 2-byte types: CAS the 4-byte word that holds the value, changing only its bytes.
template <class M, class T, int SIZE>
struct atomic_op {
    static __device__ __forceinline__ void run(T* addr, T val) {
        unsigned long long a = (unsigned long long)addr;
        unsigned int* w = (unsigned int*)(a & ~3ULL);
        unsigned int shift = (unsigned int)(a & 3ULL) * 8u;
        unsigned int mask = (SIZE == 1 ? 0xffu : 0xffffu) << shift;
        unsigned int old = *w, assumed;
        do {
            assumed = old;
            union { unsigned int u; T t; } cur, nxt;
            cur.u = (assumed & mask) >> shift;
            nxt.u = 0;
            nxt.t = M::combine(cur.t, val);
            unsigned int repl = (assumed & ~mask) | ((nxt.u << shift) & mask);
            if (repl == assumed) return;
            old = atomicCAS(w, assumed, repl);
        } while (old != assumed);
    }
};
// The fold of val into *addr: the hardware's own atomic where it has the monoid's (M::native:
// 1 plus, 2 min, 3 max; see jit.py), one operation resolved in L2 however many threads hit
// the word (a compare-and-swap loop retries once per competing thread, and a push into a hub
// column has thousands); otherwise atomic_op's loop.  A float sum's accumulator may still be
// empty (folding's mark): its first value replaces the mark by one compare-and-swap, so that
// a lone -0.0 stays -0.0.
template <class M, class T>
__device__ __forceinline__ void atomic_combine(T* addr, T val) {
    constexpr bool is_float = (T)0.5 != (T)0;
    constexpr bool is_signed = (T)-1 < (T)0;
    if constexpr (M::native == 1 && is_float) {
        typedef typename std_word<sizeof(T)>::type W;
        union { T t; W w; } mark, v;
        mark.t = M::empty();
        v.t = val;
        if (M::is_empty(*(volatile T*)addr) && atomicCAS((W*)addr, mark.w, v.w) == mark.w)
            return;
        atomicAdd(addr, val);
    } else if constexpr (M::native == 1) {
        typedef typename std_word<sizeof(T)>::type W;
        atomicAdd((W*)addr, (W)val);  // two's complement: the unsigned sum is the signed one
    } else if constexpr (M::native == 2 || M::native == 3) {
        typedef typename std_word<sizeof(T)>::type W;
        typedef typename std_signed<sizeof(T)>::type S;
        // min and max only move one way: a value that would not change the word now never
        // will, so it costs a read instead of an atomic (FastSV hooks millions of vertices
        // onto one root: their atomics would all queue on that word)
        const T now = *(volatile T*)addr;
        if (M::combine(now, val) == now) return;
        if constexpr (is_signed) {
            if (M::native == 2) atomicMin((S*)addr, (S)val); else atomicMax((S*)addr, (S)val);
        } else {
            if (M::native == 2) atomicMin((W*)addr, (W)val); else atomicMax((W*)addr, (W)val);
        }
    } else {
        atomic_op<M, T>::run(addr, val);
    }
}

}  // namespace gbk
