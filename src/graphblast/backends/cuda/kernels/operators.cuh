// Device helpers for the operator catalogue's CUDA expressions (graphblast.ops).
//
// Each typed operator carries a short CUDA expression; backends/cuda/codegen.py wraps it in a
// functor struct.  The expressions call the helpers below wherever C++ alone would not give
// SuiteSparse:GraphBLAS's result: wrapping integer arithmetic (signed overflow is undefined in
// C++), integer division by zero, saturating double -> integer casts, NaN-aware pow, bit
// operations with 1-based positions, x86's (int) conversion for ldexp, and so on.
//
// Compiles under nvcc and NVRTC alike: under NVRTC (no <cstdint>) the fixed-width integer
// types are declared here exactly as libcu++ declares them there, so <cuda/std/cstdint> may be
// included too.  Do not compile with -use_fast_math: it breaks the NaN and infinity semantics.

#ifndef GRAPHBLAST_OPERATORS_CUH
#define GRAPHBLAST_OPERATORS_CUH

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <cstdint>
#endif

#define GB_DEVICE __device__ __forceinline__

// ---- integer limits and the unsigned type that integer arithmetic wraps in ----------------

template <class T> struct gb_limits;

#define GB_INT_LIMITS(T, LO, HI, WIDE)                        \
    template <> struct gb_limits<T> {                         \
        typedef WIDE wide_unsigned;                           \
        static constexpr int bits = 8 * (int)sizeof(T);       \
        static GB_DEVICE T min() { return (T)(LO); }          \
        static GB_DEVICE T max() { return (T)(HI); }          \
    };

GB_INT_LIMITS(int8_t, -127 - 1, 127, unsigned int)
GB_INT_LIMITS(int16_t, -32767 - 1, 32767, unsigned int)
GB_INT_LIMITS(int32_t, -2147483647 - 1, 2147483647, unsigned int)
GB_INT_LIMITS(int64_t, -9223372036854775807LL - 1, 9223372036854775807LL, unsigned long long)
GB_INT_LIMITS(uint8_t, 0, 255, unsigned int)
GB_INT_LIMITS(uint16_t, 0, 65535, unsigned int)
GB_INT_LIMITS(uint32_t, 0, 4294967295U, unsigned int)
GB_INT_LIMITS(uint64_t, 0, 18446744073709551615ULL, unsigned long long)
#undef GB_INT_LIMITS

// x < 0 for signed types; a template would warn "pointless comparison" for unsigned ones.
template <class T> GB_DEVICE bool gb_negative(T) { return false; }
GB_DEVICE bool gb_negative(int8_t x) { return x < 0; }
GB_DEVICE bool gb_negative(int16_t x) { return x < 0; }
GB_DEVICE bool gb_negative(int32_t x) { return x < 0; }
GB_DEVICE bool gb_negative(int64_t x) { return x < 0; }

// ---- wrapping integer arithmetic (two's complement, as SuiteSparse) ------------------------
// Done in an unsigned type of at least 32 bits: uint16 * uint16 would otherwise be computed
// in (signed) int and overflow.

template <class T> GB_DEVICE T gb_add(T x, T y) {
    typedef typename gb_limits<T>::wide_unsigned U;
    return (T)((U)x + (U)y);
}
template <class T> GB_DEVICE T gb_sub(T x, T y) {
    typedef typename gb_limits<T>::wide_unsigned U;
    return (T)((U)x - (U)y);
}
template <class T> GB_DEVICE T gb_mul(T x, T y) {
    typedef typename gb_limits<T>::wide_unsigned U;
    return (T)((U)x * (U)y);
}
template <class T> GB_DEVICE T gb_neg(T x) {
    typedef typename gb_limits<T>::wide_unsigned U;
    return (T)((U)0 - (U)x);
}
template <class T> GB_DEVICE T gb_abs(T x) { return gb_negative(x) ? gb_neg<T>(x) : x; }

// ---- integer division (SuiteSparse's GB_idiv) -----------------------------------------------
// Truncation toward zero; x / 0 is 0 for x == 0, else the max (x > 0) or min (x < 0) of the
// type; MIN / -1 wraps to MIN instead of trapping.

template <class T> GB_DEVICE T gb_idiv_s(T x, T y) {
    if (y == -1) return gb_neg<T>(x);
    if (y == 0) return x == 0 ? (T)0 : (x < 0 ? gb_limits<T>::min() : gb_limits<T>::max());
    return (T)(x / y);
}
template <class T> GB_DEVICE T gb_idiv_u(T x, T y) {
    if (y == 0) return x == 0 ? (T)0 : gb_limits<T>::max();
    return (T)(x / y);
}

// Floor division (python-graphblas's floordiv): as gb_idiv_*, one less where the division is
// inexact and the signs differ.
template <class T> GB_DEVICE T gb_floordiv_s(T x, T y) {
    T q = gb_idiv_s<T>(x, y);
    if (y != 0 && y != -1 && (T)(x % y) != 0 && ((x < 0) != (y < 0))) q = gb_sub<T>(q, (T)1);
    return q;
}
template <class T> GB_DEVICE T gb_floordiv_u(T x, T y) { return gb_idiv_u<T>(x, y); }

// Float floor division as NumPy and Python compute it (fmod, then snap to an integer).
template <class T> GB_DEVICE T gb_floordiv_f(T a, T b) {
    if (b == 0) return a / b;
    T mod = fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0) {  // NaN too, as in NumPy (div is NaN then anyway)
        if ((b < 0) != (mod < 0)) div -= (T)1;
    }
    if (div != 0) {
        T fl = floor(div);
        if (div - fl > (T)0.5) fl += (T)1;
        return fl;
    }
    return copysign((T)0, a / b);
}
GB_DEVICE float gb_floordiv(float a, float b) { return gb_floordiv_f<float>(a, b); }
GB_DEVICE double gb_floordiv(double a, double b) { return gb_floordiv_f<double>(a, b); }

// ---- powers ---------------------------------------------------------------------------------

GB_DEVICE float gb_inf(float) { return __int_as_float(0x7f800000); }
GB_DEVICE double gb_inf(double) { return __longlong_as_double(0x7ff0000000000000LL); }

// SuiteSparse's GB_pow: NaN if either operand is NaN, else 1 if y == 0, else C's pow.
GB_DEVICE double gb_pow(double x, double y) {
    if (x != x || y != y) return x + y;
    if (y == 0) return 1.0;
    return pow(x, y);
}
GB_DEVICE float gb_powf(float x, float y) {
    if (x != x || y != y) return x + y;
    if (y == 0) return 1.0f;
    return powf(x, y);
}

// double -> integer with saturation, NaN -> 0 (SuiteSparse's casts; integer pow uses them).
template <class Z> GB_DEVICE Z gb_cast_f64(double v) {
    if (v != v) return (Z)0;
    if (v <= (double)gb_limits<Z>::min()) return gb_limits<Z>::min();
    if (v >= (double)gb_limits<Z>::max()) return gb_limits<Z>::max();
    return (Z)v;
}

// SuiteSparse's integer pow, (T) pow((double) x, (double) y) with saturation, computed exactly
// where the power is an integer and rounded to double once: CUDA's pow is only faithful
// (2 ulp), which would turn (int) pow(3, 20) into 3486784400.  ux is |x| (as uint64), negative
// whether x < 0.
template <class T> GB_DEVICE T gb_int_pow_mag(T x, T y, unsigned long long ux, bool negative) {
    const double xd = (double)x;
    const double yd = (double)y;
    // The sign comes from the parity of (double) y: above 2**53 every double is even.
    negative = negative && ((unsigned long long)y & 1ULL) && yd < 9007199254740992.0;
    if (yd <= 0 || ux <= 1ULL) {
        // exponent <= 0, base 0 or +-1: 0, +-1, inf, or a magnitude below 1 that truncates to 0
        return gb_cast_f64<T>(gb_pow(xd, yd));
    }
    if (ux > 9007199254740992ULL) {  // |x| > 2**53: (double) x rounds; x**2 overflows anyway
        if (yd == 1) return gb_cast_f64<T>(xd);
        return gb_cast_f64<T>(negative ? -gb_inf(xd) : gb_inf(xd));
    }
    unsigned long long z = 1, b = ux, e = (unsigned long long)y;
    bool over = false;
    while (e != 0) {
        if (e & 1ULL) {
            if (__umul64hi(z, b) != 0) over = true;
            z *= b;
        }
        e >>= 1;
        if (e != 0) {
            if (b > 0xFFFFFFFFULL) over = true;
            b *= b;
        }
    }
    double magnitude = over ? gb_inf(xd) : __ull2double_rn(z);
    return gb_cast_f64<T>(negative ? -magnitude : magnitude);
}
template <class T> GB_DEVICE T gb_int_pow_s(T x, T y) {
    const bool negative = x < 0;
    const unsigned long long ux = negative ? 0ULL - (unsigned long long)(long long)x
                                           : (unsigned long long)x;
    return gb_int_pow_mag<T>(x, y, ux, negative);
}
template <class T> GB_DEVICE T gb_int_pow_u(T x, T y) {
    return gb_int_pow_mag<T>(x, y, (unsigned long long)x, false);
}

// base ** exponent in wrapping integer arithmetic (python-graphblas's numba rpow).  A negative
// exponent gives 0, except for the bases 1 and -1.
template <class T> GB_DEVICE T gb_wrapping_pow_u(T base, T exponent) {
    unsigned long long b = (unsigned long long)base;
    unsigned long long e = (unsigned long long)exponent;
    unsigned long long z = 1;
    while (e != 0) {
        if (e & 1ULL) z *= b;
        b *= b;
        e >>= 1;
    }
    return (T)z;
}
template <class T> GB_DEVICE T gb_wrapping_pow_s(T base, T exponent) {
    if (exponent < 0) {
        if (base == 1) return (T)1;
        if (base == -1) return (T)((exponent & 1) ? -1 : 1);
        return (T)0;
    }
    return (T)gb_wrapping_pow_u<unsigned long long>(
        (unsigned long long)(long long)base, (unsigned long long)exponent);
}

// ---- bits -----------------------------------------------------------------------------------

// SuiteSparse's GB_bitshift: k > 0 shifts left, k < 0 right (arithmetically for signed types);
// beyond the width the result is 0, or -1 for a negative x shifted right.
template <class T> GB_DEVICE T gb_bshift(T x, int8_t k) {
    typedef typename gb_limits<T>::wide_unsigned U;
    const int bits = gb_limits<T>::bits;
    if (k == 0) return x;
    if (k >= bits) return (T)0;
    if (k <= -bits) return gb_negative(x) ? (T)-1 : (T)0;
    if (k > 0) return (T)((U)x << k);
    return (T)(x >> (-k));
}

// Bit positions are 1-based; outside 1..width, bget gives 0 and bset/bclr leave x alone.
template <class T> GB_DEVICE T gb_bget(T x, T y) {
    typedef typename gb_limits<T>::wide_unsigned U;
    if (y < 1 || y > gb_limits<T>::bits) return (T)0;
    return (T)((((U)x) >> (y - 1)) & (U)1);
}
template <class T> GB_DEVICE T gb_bset(T x, T y) {
    typedef typename gb_limits<T>::wide_unsigned U;
    if (y < 1 || y > gb_limits<T>::bits) return x;
    return (T)((U)x | ((U)1 << (y - 1)));
}
template <class T> GB_DEVICE T gb_bclr(T x, T y) {
    typedef typename gb_limits<T>::wide_unsigned U;
    if (y < 1 || y > gb_limits<T>::bits) return x;
    return (T)((U)x & ~((U)1 << (y - 1)));
}

// ---- floats ---------------------------------------------------------------------------------

GB_DEVICE bool gb_isnan(float x) { return x != x; }
GB_DEVICE bool gb_isnan(double x) { return x != x; }
GB_DEVICE bool gb_isinf(float x) { return fabsf(x) == gb_inf(x); }
GB_DEVICE bool gb_isinf(double x) { return fabs(x) == gb_inf(x); }
GB_DEVICE bool gb_isfinite(float x) { return fabsf(x) < gb_inf(x); }
GB_DEVICE bool gb_isfinite(double x) { return fabs(x) < gb_inf(x); }

// -1, 0 or 1 (+0 for -0.0), NaN for NaN.
GB_DEVICE float gb_signum(float x) { return x != x ? x : (float)((x > 0) - (x < 0)); }
GB_DEVICE double gb_signum(double x) { return x != x ? x : (double)((x > 0) - (x < 0)); }

GB_DEVICE float gb_frexpx(float x) { int e; return frexpf(x, &e); }
GB_DEVICE double gb_frexpx(double x) { int e; return frexp(x, &e); }
GB_DEVICE float gb_frexpe(float x) { int e; frexpf(x, &e); return (float)e; }
GB_DEVICE double gb_frexpe(double x) { int e; frexp(x, &e); return (double)e; }

// The exponent of ldexp as x86's (int) cast makes it (SuiteSparse's behaviour there):
// truncation, and INT_MIN for NaN or a value outside the int range.  CUDA's own conversion
// saturates instead, which would give ldexp(x, INT_MAX) = inf.
GB_DEVICE int gb_x86_int(double y) {
    return (y > -2147483649.0 && y < 2147483648.0) ? (int)y : (-2147483647 - 1);
}
// hypot without CUDA's overflow near the largest double (CUDA gives hypot(0, DBL_MAX) = inf):
// the larger magnitude times sqrt(1 + r^2) with r <= 1, and C's rules for inf and NaN.
template <class T>
GB_DEVICE T gb_hypot(T x, T y) {
    x = fabs(x);
    y = fabs(y);
    if (isinf(x)) return x; /* +inf, even beside a NaN */
    if (isinf(y)) return y;
    if (isnan(x) || isnan(y)) return x + y;
    const T a = x > y ? x : y, b = x > y ? y : x;
    if (a == 0) return a;
    const T r = b / a;
    return a * sqrt(1 + r * r);
}

GB_DEVICE float gb_ldexp(float x, float y) { return ldexpf(x, gb_x86_int((double)y)); }
GB_DEVICE double gb_ldexp(double x, double y) { return ldexp(x, gb_x86_int(y)); }

// ---- python-graphblas's isclose -------------------------------------------------------------

// numba's x == y or abs(x - y) <= max(rel_tol * max(abs(x), abs(y)), abs_tol): signed
// integers and BOOL in wrapping int64, unsigned ones in wrapping uint64, floats in their own
// type, the tolerance in double.
GB_DEVICE bool gb_isclose_i64(int64_t x, int64_t y, double rel_tol, double abs_tol) {
    if (x == y) return true;
    const int64_t d = gb_abs<int64_t>(gb_sub<int64_t>(x, y));
    const int64_t ax = gb_abs<int64_t>(x), ay = gb_abs<int64_t>(y);
    const double tol = rel_tol * (double)(ay > ax ? ay : ax);
    return (double)d <= (abs_tol > tol ? abs_tol : tol);
}
GB_DEVICE bool gb_isclose_u64(uint64_t x, uint64_t y, double rel_tol, double abs_tol) {
    if (x == y) return true;
    const uint64_t d = x - y;
    const double tol = rel_tol * (double)(y > x ? y : x);
    return (double)d <= (abs_tol > tol ? abs_tol : tol);
}
template <class T> GB_DEVICE bool gb_isclose_f(T x, T y, double rel_tol, double abs_tol) {
    if (x == y) return true;
    const T d = fabs(x - y);
    const T ax = fabs(x), ay = fabs(y);
    const double tol = rel_tol * (double)(ay > ax ? ay : ax);
    return (double)d <= (abs_tol > tol ? abs_tol : tol);
}

// ---- python-graphblas's binom ---------------------------------------------------------------

// C(n, k) in int64; 0 when k is outside 0..n or the computation overflows.  The overflow test
// ends the loop within about 64 steps.
GB_DEVICE int64_t gb_binom(int64_t n, int64_t k) {
    if (k > n || k < 0) return 0;
    const int64_t steps = (k < n - k) ? k : n - k;
    int64_t val = 1;
    for (int64_t i = 0; i < steps; ++i) {
        if (val > 9223372036854775807LL / (n - i)) return 0;
        val *= n - i;
        val /= i + 1;
    }
    return val;
}

// ---- user-defined operators (graphblast.ops.udf): Python's // and %, shifts -------------------

// Integer floor division and modulo as Python and NumPy define them (the sign of % follows the
// divisor); by zero both give 0, as NumPy does.  T is int64_t or uint64_t.
template <class T> GB_DEVICE T gb_udf_floordiv_s(T x, T y) {
    return y == 0 ? (T)0 : gb_floordiv_s<T>(x, y);
}
template <class T> GB_DEVICE T gb_udf_floordiv_u(T x, T y) { return y == 0 ? (T)0 : x / y; }
template <class T> GB_DEVICE T gb_udf_mod_s(T x, T y) {
    if (y == 0 || y == -1) return (T)0;
    T r = (T)(x % y);
    if (r != 0 && ((r < 0) != (y < 0))) r = (T)(r + y);
    return r;
}
template <class T> GB_DEVICE T gb_udf_mod_u(T x, T y) { return y == 0 ? (T)0 : (T)(x % y); }
// Float modulo as NumPy's remainder: NaN by zero, the sign of the divisor, -0.0 kept apart.
template <class T> GB_DEVICE T gb_udf_mod_f(T x, T y) {
    if (y == 0) return fmod(x, y);
    T m = fmod(x, y);
    if (m != 0) {
        if ((y < 0) != (m < 0)) m += y;
    } else {
        m = copysign((T)0, y);
    }
    return m;
}
// Shifts by k outside 0..63 give 0 (or -1 shifting a negative number right), as NumPy's.
template <class T> GB_DEVICE T gb_udf_shl(T x, int64_t k) {
    return (k < 0 || k >= 64) ? (T)0 : (T)((uint64_t)x << k);
}
template <class T> GB_DEVICE T gb_udf_shr(T x, int64_t k) {
    if (k < 0 || k >= 64) return x < 0 ? (T)-1 : (T)0;
    return (T)(x >> k);
}

// ---- NumPy's ufuncs without a GraphBLAS operator (graphblast.ops.numpy_names) ---------------

// gcd and lcm as NumPy's: of the magnitudes, in an unsigned type (gcd(-128, 6) of int8 is 2,
// not -2), lcm wrapping there (lcm(127, 126) of int8 is -126), then back to T.
template <class T> GB_DEVICE typename gb_limits<T>::wide_unsigned gb_np_magnitude(T a) {
    typedef typename gb_limits<T>::wide_unsigned U;
    return gb_negative(a) ? (U)0 - (U)a : (U)a;
}
template <class T> GB_DEVICE typename gb_limits<T>::wide_unsigned gb_np_gcdu(T a, T b) {
    typedef typename gb_limits<T>::wide_unsigned U;
    U x = gb_np_magnitude<T>(a), y = gb_np_magnitude<T>(b);
    while (x != 0) { U c = x; x = y % x; y = c; }
    return y;
}
template <class T> GB_DEVICE T gb_np_gcd(T a, T b) { return (T)gb_np_gcdu<T>(a, b); }
template <class T> GB_DEVICE T gb_np_lcm(T a, T b) {
    typedef typename gb_limits<T>::wide_unsigned U;
    U g = gb_np_gcdu<T>(a, b);
    return g == 0 ? (T)0 : (T)(gb_np_magnitude<T>(a) / g * gb_np_magnitude<T>(b));
}
template <class T> GB_DEVICE T gb_np_logaddexp(T x, T y) {
    if (x == y) return x + (T)0.693147180559945309417232121458176568;
    T d = x - y;
    if (d > 0) return x + log1p(exp(-d));
    if (d <= 0) return y + log1p(exp(d));
    return d;  // NaN
}
template <class T> GB_DEVICE T gb_np_logaddexp2(T x, T y) {
    if (x == y) return x + (T)1;
    T d = x - y;
    if (d > 0) return x + (T)1.442695040888963407359924681001892137 * log1p(exp2(-d));
    if (d <= 0) return y + (T)1.442695040888963407359924681001892137 * log1p(exp2(d));
    return d;  // NaN
}

// FP32 nextafter and spacing by their bits: CuPy compiles with -ftz=true, which would flush
// their subnormal results (nextafter(0, 1), spacing(0)) to zero; moving bits flushes nothing.
GB_DEVICE float gb_np_nextafterf(float x, float y) {
    if (x != x || y != y) return x + y;
    if (x == y) return y;
    int ix = __float_as_int(x);
    if ((ix & 0x7fffffff) == 0) return __int_as_float((__float_as_int(y) & 0x80000000) | 1);
    ix += ((x < y) == (x > 0)) ? 1 : -1;  // away from zero, or toward it
    return __int_as_float(ix);
}
GB_DEVICE float gb_np_spacingf(float x) {
    int ix = __float_as_int(x);
    int ax = ix & 0x7fffffff;
    if (ax >= 0x7f800000) return __int_as_float(0x7fc00000);  // inf, NaN: NaN
    if (ax == 0) return __int_as_float(1);  // of -0 too, as NumPy's
    int sign = ix & 0x80000000;
    if (ax == 0x7f7fffff) return __int_as_float(sign | 0x7f800000);  // the largest: inf
    int e = ax >> 23;  // the biased exponent; the unit in the last place has 2^(e - 150)
    return __int_as_float(sign | (e > 23 ? (e - 23) << 23 : 1 << (e > 0 ? e - 1 : 0)));
}

// hypot as NumPy's (the C library's, correctly rounded in nearly every case): x^2 + y^2 as
// an exact double-length sum (fma), its square root corrected by one Newton step; scaled by
// the larger magnitude's power of two so that nothing overflows or underflows.
template <class T> GB_DEVICE T gb_np_hypot(T x, T y) {
    x = fabs(x);
    y = fabs(y);
    if (isinf(x) || isinf(y)) return gb_inf(x);
    if (x != x || y != y) return x + y;
    T big = x > y ? x : y, small = x > y ? y : x;
    if (big == 0) return big;
    int e;
    frexp(big, &e);
    big = ldexp(big, -e);
    small = ldexp(small, -e);
    T a = big * big, al = fma(big, big, -a);
    T b = small * small, bl = fma(small, small, -b);
    T s = a + b, bb = s - a;
    T lo = ((a - (s - bb)) + (b - bb)) + al + bl;
    T r = sqrt(s + lo);
    r += (fma(-r, r, s) + lo) / (2 * r);
    return ldexp(r, e);
}

#endif  // GRAPHBLAST_OPERATORS_CUH
