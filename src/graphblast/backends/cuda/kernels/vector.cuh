// The GPU vector formats beyond the sorted list: conversions, and the operations that run on
// the formats directly.
//
//   list    indices (maybe unsorted) and values, the entry count at counters[0] on the device;
//   bitmap  bits[i] (1: entry present) and dense values, the count at counters[0];
//   full    dense values only (every entry present).
//
// A dense operand is (bits, vals) with bits null for a full vector.  Kernels over the n
// positions of a vector run only where the data is O(n) (a bitmap or full operand); a list
// is touched only at its entries.  Counts are summed over a block before their one atomic
// (gbk::add_counts).
#pragma once
#include "mv_common.cuh"

// The masked assign, write-back and element-wise kernels over all n positions take
// GBK_UNROLL positions a thread, a grid stride apart, and load all of them before they store
// any: one position at a time, a thread waits for its one-byte loads before its next, and
// too few bytes are in flight to reach the memory's bandwidth (a masked assign over 4.2
// million positions took 30-35 us, its bytes about 8).
#define GBK_UNROLL 4

namespace gbk {
// The accumulator of an assign without one (never called: `accum` is 0).
struct no_accum {
    typedef char param_t;
    __device__ no_accum(char) {}
    template <class X>
    __device__ X operator()(X a, X, idx_t, idx_t, idx_t, idx_t) const { return a; }
};

// A scalar operand as a kernel gets it: by value, or (V = const T*) by pointer to a value
// that an earlier kernel left on the device, read here (no host read in between).
template <class T>
__device__ __forceinline__ T scalar_of(T v) { return v; }
template <class T>
__device__ __forceinline__ T scalar_of(const T* p) { return *p; }
}  // namespace gbk

// bits/dense from a list; bits must be zero.
template <class T>
__global__ void gbk_list_to_bitmap(idx_t nu, const unsigned long long* nu_ptr, const idx_t* idx,
                                   const T* vals, unsigned char* bits, T* dense) {
    if (nu_ptr) nu = (idx_t)*nu_ptr;
    for (idx_t t = gbk::global_id(); t < nu; t += gbk::grid_size()) {
        idx_t i = idx[t];
        bits[i] = 1;
        dense[i] = vals[t];
    }
}

// A list's positions cleared in bits (what gbk_list_to_bitmap set): a bitmap kept zeroed
// between uses is marked and unmarked at O(entries), never cleared whole.
__global__ void gbk_list_unmark(idx_t nu, const unsigned long long* nu_ptr, const idx_t* idx,
                                unsigned char* bits) {
    if (nu_ptr) nu = (idx_t)*nu_ptr;
    for (idx_t t = gbk::global_id(); t < nu; t += gbk::grid_size()) bits[idx[t]] = 0;
}

// A push's claim stamps at its outputs reset to "never claimed": every position whose stamp a
// push changed is in its output list once (spmspv.cuh), so a recorded push, replayed with one
// epoch, leaves the stamps as it found them (backends/cuda/loops.py).
__global__ void gbk_list_unclaim(idx_t nu, const unsigned long long* nu_ptr, const idx_t* idx,
                                 long long* stamp) {
    if (nu_ptr) nu = (idx_t)*nu_ptr;
    for (idx_t t = gbk::global_id(); t < nu; t += gbk::grid_size())
        stamp[idx[t]] = 0x7fffffffffffffffLL;
}

// The entries of a dense vector as an (unsorted) list; counters[0] must be zero.  With dptr,
// counters[1] gets the degree sum of the entries in dptr.  Each lane takes GBK_COMPACT
// consecutive positions, so a warp claims its slots for 512 positions with one atomic: one
// atomic per warp step of 32 positions serialized on the counter (89 us for 67,041 entries
// of 4.2 million on the H200).  Launched with n / GBK_COMPACT threads.
#define GBK_COMPACT 16
template <class T>
__global__ void gbk_dense_to_list(idx_t n, const unsigned char* bits, const T* dense,
                                  const idx_t* dptr, idx_t* out_idx, T* out_vals,
                                  unsigned long long* counters) {
    unsigned long long deg = 0;
    const idx_t stride = gbk::grid_size() * GBK_COMPACT;
    // the loop is uniform over each warp, as append_slots needs
    for (idx_t base = (gbk::global_id() - gbk::lane()) * GBK_COMPACT; base < n;
         base += stride) {
        const idx_t first = base + (idx_t)gbk::lane() * GBK_COMPACT;
        unsigned has = 0;
        for (int b = 0; b < GBK_COMPACT; ++b)
            if (first + b < n && (bits == nullptr || bits[first + b])) has |= 1u << b;
        long long slot = gbk::append_slots(&counters[0], __popc(has));
        for (; has; has &= has - 1, ++slot) {
            const idx_t i = first + __ffs(has) - 1;
            out_idx[slot] = i;
            out_vals[slot] = dense[i];
            if (dptr) deg += (unsigned long long)gbk::degree(dptr, i);
        }
    }
    gbk::add_counts(counters, 0, deg);
}

// C(i) = value (or accum(C(i), value) where C has an entry) at the entries of a mask list
// (structural, or a value mask through mkind); C is a bitmap whose count is kept.  V: the
// value's argument, T or a pointer to it (gbk::scalar_of).
template <class T, class Acc, class V>
__global__ void gbk_assign_list(idx_t nm, const unsigned long long* nm_ptr, const idx_t* m_idx,
                                const void* m_vals, int mkind, V value_arg, int accum,
                                unsigned char* bits, T* vals, unsigned long long* counters) {
    if (nm_ptr) nm = (idx_t)*nm_ptr;
    const T value = gbk::scalar_of<T>(value_arg);
    Acc acc(0);
    unsigned long long added = 0;
    for (idx_t t = gbk::global_id(); t < nm; t += gbk::grid_size()) {
        if (!gbk::mask_value(m_vals, t, mkind)) continue;
        idx_t i = m_idx[t];
        if (bits[i]) {
            vals[i] = accum ? gbk::cast<T>(acc(vals[i], value, i, 0, i, 0)) : value;
        } else {
            bits[i] = 1;
            vals[i] = value;
            ++added;
        }
    }
    gbk::add_counts(counters, added, 0);
}

// C(accum) << Z for a list Z without a mask: accum(C(i), Z(i)) where C has an entry, Z(i)
// cast to C's type where it has none; C is a bitmap whose count is kept.  O(Z's entries)
// (the general path makes accum(C, Z) anew over all n positions); Z's positions are
// distinct (a computed vector).
template <class T, class U, class Acc>
__global__ void gbk_accum_list(idx_t nz, const unsigned long long* nz_ptr, const idx_t* z_idx,
                               const U* z_vals, unsigned char* bits, T* vals,
                               unsigned long long* counters) {
    if (nz_ptr) nz = (idx_t)*nz_ptr;
    Acc acc(0);
    unsigned long long added = 0;
    for (idx_t t = gbk::global_id(); t < nz; t += gbk::grid_size()) {
        const idx_t i = z_idx[t];
        if (bits[i]) {
            vals[i] = gbk::cast<T>(acc(vals[i], z_vals[t], i, 0, i, 0));
        } else {
            bits[i] = 1;
            vals[i] = gbk::cast<T>(z_vals[t]);
            ++added;
        }
    }
    gbk::add_counts(counters, added, 0);
}

namespace gbk {

// C<mask, replace> rewritten over all n positions of the bitmap C (bits, vals): where the
// mask allows, `take` says whether C has an entry there and writes its value; elsewhere C
// keeps its entry unless `replace`.  Returns the count of entries this thread's positions
// hold.  GBK_UNROLL positions a thread, each loaded (C's presence, the mask, take's own
// inputs: take.load) before any is stored (take.store(i, loaded, had, vals) -> has).
template <class Take, class T>
__device__ __forceinline__ unsigned long long masked_rewrite(idx_t n, const vmask& mask,
                                                             int replace, const Take& take,
                                                             unsigned char* bits, T* vals) {
    unsigned long long count = 0;
    const idx_t stride = grid_size();
    for (idx_t i0 = global_id(); i0 < n; i0 += GBK_UNROLL * stride) {
        bool has[GBK_UNROLL], allowed[GBK_UNROLL];
        typename Take::loaded_t got[GBK_UNROLL];
#pragma unroll
        for (int u = 0; u < GBK_UNROLL; ++u) {  // the loads first (see GBK_UNROLL)
            const idx_t i = i0 + u * stride;
            has[u] = i < n && bits[i];
            allowed[u] = i < n && mask.allows(i);
            got[u] = i < n ? take.load(i) : typename Take::loaded_t();
        }
#pragma unroll
        for (int u = 0; u < GBK_UNROLL; ++u) {
            const idx_t i = i0 + u * stride;
            if (i >= n) break;
            bool h = has[u];
            if (allowed[u]) {
                h = take.store(i, got[u], h, vals);
            } else if (replace) {
                h = false;
            }
            bits[i] = h;
            count += h;
        }
    }
    return count;
}

// masked_rewrite's take for a scalar assign: every allowed position gets the value (folded
// into C's own by the accumulator where C has an entry and `accum`).
template <class T, class Acc>
struct take_scalar {
    typedef bool loaded_t;  // nothing to load
    T value;
    int accum;
    __device__ bool load(idx_t) const { return false; }
    __device__ bool store(idx_t i, bool, bool had, T* vals) const {
        Acc acc(0);
        vals[i] = (accum && had) ? cast<T>(acc(vals[i], value, i, 0, i, 0)) : value;
        return true;
    }
};

// masked_rewrite's take for a dense Z (zbits null: full): C takes Z's entry or none.
template <class T>
struct take_dense {
    typedef bool loaded_t;  // whether Z has an entry
    const unsigned char* zbits;
    const T* zvals;
    __device__ bool load(idx_t i) const { return zbits == nullptr || zbits[i]; }
    __device__ bool store(idx_t i, bool zhas, bool, T* vals) const {
        if (zhas) vals[i] = zvals[i];
        return zhas;
    }
};

}  // namespace gbk

// The same under a dense mask (any mode, complement included) over all n positions; with
// `replace`, entries the mask excludes are deleted.  counters[0] is recounted (zero it first).
template <class T, class Acc, class V>
__global__ void gbk_assign_dense(idx_t n, const unsigned char* mbits, const void* m_vals,
                                 int mkind, int mmode, V value_arg, int accum, int replace,
                                 unsigned char* bits, T* vals, unsigned long long* counters) {
    const gbk::vmask mask{mbits, m_vals, mkind, mmode};
    const gbk::take_scalar<T, Acc> take{gbk::scalar_of<T>(value_arg), accum};
    gbk::add_counts(counters, gbk::masked_rewrite(n, mask, replace, take, bits, vals), 0);
}

// Scatter a list Z (already of C's type) into the bitmap C: the write-back C<Z.S> = Z, where
// the mask is Z's own structure.
template <class T>
__global__ void gbk_write_list(idx_t nz, const unsigned long long* nz_ptr, const idx_t* z_idx,
                               const T* z_vals, unsigned char* bits, T* vals,
                               unsigned long long* counters) {
    if (nz_ptr) nz = (idx_t)*nz_ptr;
    unsigned long long added = 0;
    for (idx_t t = gbk::global_id(); t < nz; t += gbk::grid_size()) {
        idx_t i = z_idx[t];
        if (!bits[i]) {
            bits[i] = 1;
            ++added;
        }
        vals[i] = z_vals[t];
    }
    gbk::add_counts(counters, added, 0);
}

// The entries of a list Z that a dense mask allows, as a new (unsorted) list: the write-back
// of a list into an empty output, or with `replace`.  counters[0] must be zero; with dptr,
// counters[1] gets the degree sum of the kept entries (as Z's was, for the next push).
template <class T>
__global__ void gbk_filter_list(idx_t nz, const unsigned long long* nz_ptr, const idx_t* z_idx,
                                const T* z_vals, const unsigned char* mbits, const void* m_vals,
                                int mkind, int mmode, const idx_t* dptr, idx_t* out_idx,
                                T* out_vals, unsigned long long* counters) {
    if (nz_ptr) nz = (idx_t)*nz_ptr;
    const gbk::vmask mask{mbits, m_vals, mkind, mmode};
    unsigned long long deg = 0;
    // every lane runs the same number of iterations, so append_slot sees whole warps
    for (idx_t base = gbk::global_id() - gbk::lane(); base < nz; base += gbk::grid_size()) {
        idx_t t = base + gbk::lane();
        idx_t i = t < nz ? z_idx[t] : 0;
        bool keep = t < nz && mask.allows(i);
        long long slot = gbk::append_slot(&counters[0], keep);
        if (keep) {
            out_idx[slot] = i;
            out_vals[slot] = z_vals[t];
            if (dptr) deg += (unsigned long long)gbk::degree(dptr, i);
        }
    }
    gbk::add_counts(counters, 0, deg);
}

// C<mask, replace> = Z with C a bitmap and Z dense (zbits null: full), over all n positions:
// where the mask allows, C takes Z's entry or none; elsewhere C keeps its entry unless
// `replace`.  counters[0] is recounted (zero it first).
template <class T>
__global__ void gbk_write_dense(idx_t n, const unsigned char* zbits, const T* zvals,
                                const unsigned char* mbits, const void* m_vals, int mkind,
                                int mmode, int replace, unsigned char* bits, T* vals,
                                unsigned long long* counters) {
    const gbk::vmask mask{mbits, m_vals, mkind, mmode};
    const gbk::take_dense<T> take{zbits, zvals};
    gbk::add_counts(counters, gbk::masked_rewrite(n, mask, replace, take, bits, vals), 0);
}

// Element-wise on two dense vectors.  KIND 0 intersection (ewise_mult), 1 union (ewise_add:
// a lone entry is cast), 2 union with defaults (ewise_union).  out_bits null: the result is
// full (the host knows when: both full, or one full for a union); counters[0] gets the
// count of a bitmap result (counters is null for a full one).
template <class Zip, class A, class B, int KIND>
__global__ void gbk_ewise_dense(idx_t n, const unsigned char* abits, const A* avals,
                                const unsigned char* bbits, const B* bvals,
                                typename Zip::param_t p, typename Zip::param2_t p2,
                                unsigned char* out_bits, typename Zip::z_t* out_vals,
                                unsigned long long* counters) {
    Zip f(p, p2);
    unsigned long long count = 0;
    const idx_t stride = gbk::grid_size();
    for (idx_t i0 = gbk::global_id(); i0 < n; i0 += GBK_UNROLL * stride) {
        bool ha[GBK_UNROLL], hb[GBK_UNROLL];
        A a[GBK_UNROLL];
        B b[GBK_UNROLL];
#pragma unroll
        for (int u = 0; u < GBK_UNROLL; ++u) {  // the loads first (see GBK_UNROLL)
            const idx_t i = i0 + u * stride;
            ha[u] = i < n && (abits == nullptr || abits[i]);
            hb[u] = i < n && (bbits == nullptr || bbits[i]);
            a[u] = ha[u] ? avals[i] : A();
            b[u] = hb[u] ? bvals[i] : B();
        }
#pragma unroll
        for (int u = 0; u < GBK_UNROLL; ++u) {
            const idx_t i = i0 + u * stride;
            if (i >= n) break;
            const bool has = KIND == 0 ? (ha[u] && hb[u]) : (ha[u] || hb[u]);
            if (has) {
                if (ha[u] && hb[u]) out_vals[i] = f.both(a[u], b[u], i, 0);
                else if (ha[u]) out_vals[i] = f.only_a(a[u], i, 0);
                else out_vals[i] = f.only_b(b[u], i, 0);
            }
            if (out_bits) out_bits[i] = has;
            count += has;
        }
    }
    if (counters) gbk::add_counts(counters, count, 0);
}

namespace gbk {

// No fold of a list's values (ewise_list_entries without a reduction).
struct no_fold {
    template <class Z>
    __device__ __forceinline__ void operator()(const Z&) const {}
};

// A thread's fold of a list's values by the monoid M (cast to its type).
template <class M>
struct fold_into {
    typename M::t acc = M::identity();
    bool have = false;
    template <class Z>
    __device__ __forceinline__ void operator()(const Z& z) {
        const typename M::t v = cast<typename M::t>(z);
        acc = have ? M::combine(acc, v) : v;
        have = true;
    }
};

// ewise_mult of a list and a dense vector, a grid's share: op at the list's entries where the
// dense vector has one, appended to out (counters[0]), each value also given to `fold`; the
// kept entries' degree sum in dptr returned (LIST_A: the list is the left operand).
template <class Zip, class A, class B, bool LIST_A, class Fold>
__device__ __forceinline__ unsigned long long ewise_list_entries(
        idx_t nl, const unsigned long long* nl_ptr, const idx_t* l_idx, const void* l_vals,
        const unsigned char* dbits, const void* d_vals, const Zip& f, const idx_t* dptr,
        idx_t* out_idx, typename Zip::z_t* out_vals, unsigned long long* counters,
        Fold& fold) {
    if (nl_ptr) nl = (idx_t)*nl_ptr;
    unsigned long long deg = 0;
    for (idx_t base = global_id() - lane(); base < nl; base += grid_size()) {
        idx_t t = base + lane();
        idx_t i = t < nl ? l_idx[t] : 0;
        bool has = t < nl && (dbits == nullptr || dbits[i]);
        long long slot = append_slot(&counters[0], has);
        if (has) {
            const typename Zip::z_t z =
                LIST_A ? f.both(((const A*)l_vals)[t], ((const B*)d_vals)[i], i, 0)
                       : f.both(((const A*)d_vals)[i], ((const B*)l_vals)[t], i, 0);
            out_idx[slot] = i;
            out_vals[slot] = z;
            fold(z);
            if (dptr) deg += (unsigned long long)degree(dptr, i);
        }
    }
    return deg;
}

}  // namespace gbk

// ewise_mult of a list and a dense vector: op at the list's entries where the dense vector
// has one, as a new (unsorted) list, touching only the list.  LIST_A: the list is the left
// operand.  counters[0] must be zero; with dptr, counters[1] gets the kept entries' degree sum.
template <class Zip, class A, class B, bool LIST_A>
__global__ void gbk_ewise_list_dense(idx_t nl, const unsigned long long* nl_ptr,
                                     const idx_t* l_idx, const void* l_vals,
                                     const unsigned char* dbits, const void* d_vals,
                                     typename Zip::param_t p, typename Zip::param2_t p2,
                                     const idx_t* dptr, idx_t* out_idx,
                                     typename Zip::z_t* out_vals, unsigned long long* counters) {
    const Zip f(p, p2);
    gbk::no_fold none;
    const unsigned long long deg = gbk::ewise_list_entries<Zip, A, B, LIST_A>(
        nl, nl_ptr, l_idx, l_vals, dbits, d_vals, f, dptr, out_idx, out_vals, counters, none);
    gbk::add_counts(counters, 0, deg);
}

// The union of two unsorted lists a and b of one type (ewise_add in a loop's recorded round,
// touching only their entries), in three kernels: a marked into a kept bitmap (marks, vals;
// gbk_list_to_bitmap), gbk_union_lists_b, then gbk_union_lists_a.  This one: each entry of b
// at a marked position combined into vals there (the mark becomes 2), the others appended to
// the output (counters[0] must be zero).
template <class Zip, class T>
__global__ void gbk_union_lists_b(idx_t nb, const unsigned long long* nb_ptr, const idx_t* b_idx,
                                  const T* b_vals, unsigned char* marks, T* vals,
                                  typename Zip::param_t p, typename Zip::param2_t p2,
                                  idx_t* out_idx, T* out_vals, unsigned long long* counters) {
    Zip f(p, p2);
    if (nb_ptr) nb = (idx_t)*nb_ptr;
    for (idx_t base = gbk::global_id() - gbk::lane(); base < nb; base += gbk::grid_size()) {
        idx_t t = base + gbk::lane();
        idx_t i = t < nb ? b_idx[t] : 0;
        bool both = t < nb && marks[i];
        if (both) {
            vals[i] = f.both(vals[i], b_vals[t], i, 0);
            marks[i] = 2;
        }
        long long slot = gbk::append_slot(&counters[0], t < nb && !both);
        if (slot >= 0) {
            out_idx[slot] = i;
            out_vals[slot] = f.only_b(b_vals[t], i, 0);
        }
    }
}

namespace gbk {

// The union's last pass: every entry of a appended to the output, combined with b's where
// gbk_union_lists_b marked it 2, and its mark cleared (the bitmap is zero between uses).
template <class Zip, class T>
__device__ __forceinline__ void union_a_entries(idx_t na, const unsigned long long* na_ptr,
                                                const idx_t* a_idx, const T* a_vals,
                                                unsigned char* marks, const T* vals,
                                                const Zip& f, idx_t* out_idx, T* out_vals,
                                                unsigned long long* counters) {
    if (na_ptr) na = (idx_t)*na_ptr;
    for (idx_t base = global_id() - lane(); base < na; base += grid_size()) {
        idx_t t = base + lane();
        idx_t i = t < na ? a_idx[t] : 0;
        long long slot = append_slot(&counters[0], t < na);
        if (slot >= 0) {
            out_idx[slot] = i;
            out_vals[slot] = marks[i] == 2 ? vals[i] : f.only_a(a_vals[t], i, 0);
            marks[i] = 0;
        }
    }
}

}  // namespace gbk

// The union's last kernel (gbk::union_a_entries).
template <class Zip, class T>
__global__ void gbk_union_lists_a(idx_t na, const unsigned long long* na_ptr, const idx_t* a_idx,
                                  const T* a_vals, unsigned char* marks, const T* vals,
                                  typename Zip::param_t p, typename Zip::param2_t p2,
                                  idx_t* out_idx, T* out_vals, unsigned long long* counters) {
    const Zip f(p, p2);
    gbk::union_a_entries(na, na_ptr, a_idx, a_vals, marks, vals, f, out_idx, out_vals, counters);
}

// apply on a dense vector: z(i) = op(a(i), i, 0) where a has an entry.
template <class Op, class A>
__global__ void gbk_map_dense(idx_t n, const unsigned char* bits, const A* a,
                              typename Op::z_t* z, typename Op::param_t p) {
    Op op(p);
    for (idx_t i = gbk::global_id(); i < n; i += gbk::grid_size())
        if (bits == nullptr || bits[i]) z[i] = op(a[i], i, 0);
}

// select on a dense vector: the entries whose predicate holds, as a new bitmap.
template <class Op, class A>
__global__ void gbk_select_dense(idx_t n, const unsigned char* bits, const A* a,
                                 typename Op::param_t p, unsigned char* out_bits,
                                 unsigned long long* counters) {
    Op op(p);
    unsigned long long count = 0;
    for (idx_t i = gbk::global_id(); i < n; i += gbk::grid_size()) {
        bool keep = (bits == nullptr || bits[i]) && gbk::cast<bool>(op(a[i], i, 0));
        out_bits[i] = keep;
        count += keep;
    }
    gbk::add_counts(counters, count, 0);
}

// select on a list: the entries whose predicate holds and that the output's mask allows
// (mode 0: no mask), as a new (unsorted) list, touching only the list.  counters[0] must be
// zero; with dptr, counters[1] gets the kept entries' degree sum.
template <class Op, class A>
__global__ void gbk_select_list(idx_t nl, const unsigned long long* nl_ptr, const idx_t* idx,
                                const A* a, typename Op::param_t p, const unsigned char* mbits,
                                const void* m_vals, int mkind, int mmode, const idx_t* dptr,
                                idx_t* out_idx, A* out_vals, unsigned long long* counters) {
    Op op(p);
    const gbk::vmask mask{mbits, m_vals, mkind, mmode};
    if (nl_ptr) nl = (idx_t)*nl_ptr;
    unsigned long long deg = 0;
    for (idx_t base = gbk::global_id() - gbk::lane(); base < nl; base += gbk::grid_size()) {
        idx_t t = base + gbk::lane();
        idx_t i = t < nl ? idx[t] : 0;
        bool keep = t < nl && mask.allows(i) && gbk::cast<bool>(op(a[t], i, 0));
        long long slot = gbk::append_slot(&counters[0], keep);
        if (keep) {
            out_idx[slot] = i;
            out_vals[slot] = a[t];
            if (dptr) deg += (unsigned long long)gbk::degree(dptr, i);
        }
    }
    gbk::add_counts(counters, 0, deg);
}

// The degree sum, in dptr, of a list's entries (for a vector whose sum is not known yet).
__global__ void gbk_list_degrees(idx_t nu, const unsigned long long* nu_ptr, const idx_t* idx,
                                 const idx_t* dptr, unsigned long long* counters) {
    if (nu_ptr) nu = (idx_t)*nu_ptr;
    unsigned long long deg = 0;
    for (idx_t t = gbk::global_id(); t < nu; t += gbk::grid_size())
        deg += (unsigned long long)gbk::degree(dptr, idx[t]);
    gbk::add_counts(counters, 0, deg);
}

// The end of a round of a device-side loop (loops.py): the round's result (a list of capacity
// `cap_in`, its count at counts[0], or all of it where counts is null) copied into the loop's
// state of capacity `cap`, the round number ctl[0] counted up, and the loop's test: go on while
// the result has an entry, fewer than `max_rounds` rounds ran (negative: no limit) and the
// result fit.  A result that does not fit is left where it is, ctl[1] set and its count put in
// ctl[2]: the loop stops there, and the host grows the state and resumes.  The last block to
// finish (ctl[3] counts them) does the bookkeeping, once every block has read the result's
// count: where the loop goes on it also zeroes the `page_words` words of `page` (the counter
// page of a captured round, which the next round counts into: no memset node a round).
// With `stamp`, the result is a recorded push's output list, and its claims are reset here
// as gbk_list_unclaim would (one kernel less a round).
// `in_graph`: the kernel runs in the body of a conditional WHILE node whose condition is
// `handle`.
// With `abits`, the round's first step is done here for the next round: `C(state's
// structure) = value` (a scalar assign into the bitmap abits/avals, counted in acounts; the
// value the next round's number where `acounter`, else `avalue`), hoisted from the next
// round's start (loops.py, "the hoisted assign"): BFS's `levels(frontier.S) << depth` costs
// no kernel of its own.  It is done wherever a next round would run (an entry, below
// `max_rounds`), whether or not the result fits: a plain assign is idempotent, so a round
// that runs it again (from Python, or a dry round after the state grew) changes nothing.
template <class T, class C = unsigned char>
__global__ void gbk_loop_next(idx_t cap_in, const unsigned long long* counts, const idx_t* idx,
                              const T* vals, idx_t cap, idx_t* out_idx, T* out_vals,
                              unsigned long long* out_counts, long long* ctl,
                              long long max_rounds, unsigned long long* page, idx_t page_words,
                              long long* stamp, unsigned long long handle, int in_graph,
                              unsigned char* abits, C* avals, unsigned long long* acounts,
                              int acounter, C avalue) {
    __shared__ int last;
    const idx_t n = counts ? (idx_t)counts[0] : cap_in;
    const unsigned long long deg = counts ? counts[1] : 0ull;
    const bool fits = n <= cap;
    // read by every block before the last one counts the round (it takes its ticket last)
    const long long r = ctl[0] + 1;
    const bool more = n > 0 && (max_rounds < 0 || r < max_rounds);
    const bool assign = abits != nullptr && more;
    const C value = acounter ? (C)r : avalue;
    unsigned long long added = 0;
    for (idx_t t = gbk::global_id(); t < n; t += gbk::grid_size()) {
        const idx_t i = idx[t];
        if (fits) {
            out_idx[t] = i;
            out_vals[t] = vals[t];
        }
        if (stamp) stamp[i] = 0x7fffffffffffffffLL;  // the push's claim reset (gbk_list_unclaim)
        if (assign) {
            if (!abits[i]) {
                abits[i] = 1;
                ++added;
            }
            avals[i] = value;
        }
    }
    if (abits != nullptr) gbk::add_counts(acounts, added, 0);  // block-uniform
    __syncthreads();  // this block has read the count
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd((unsigned long long*)&ctl[3], 1ull) == (unsigned long long)gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    const bool go = fits && more;
    if (go && page)
        for (idx_t w = threadIdx.x; w < page_words; w += blockDim.x) page[w] = 0ull;
    if (threadIdx.x == 0) {
        if (fits) {
            out_counts[0] = (unsigned long long)n;
            out_counts[1] = deg;
        } else {
            ctl[1] = 1;
            ctl[2] = (long long)n;
        }
        ctl[0] = r;
        ctl[3] = 0;
        if (in_graph) cudaGraphSetConditional(handle, go ? 1u : 0u);
    }
}

// A list copied into another of at least its capacity, its count (and degree sum) with it:
// the state of a device-side loop (backends/cuda/loops.py), written at the end of each
// replayed round; the count lives on the device, so the grid covers the capacity.
template <class T>
__global__ void gbk_list_copy(idx_t cap, const unsigned long long* counts, const idx_t* idx,
                              const T* vals, idx_t* out_idx, T* out_vals,
                              unsigned long long* out_counts) {
    const idx_t n = counts ? (idx_t)counts[0] : cap;
    for (idx_t t = gbk::global_id(); t < n; t += gbk::grid_size()) {
        out_idx[t] = idx[t];
        out_vals[t] = vals[t];
    }
    if (gbk::global_id() == 0) {
        out_counts[0] = (unsigned long long)n;
        out_counts[1] = counts ? counts[1] : 0ull;
    }
}

// A relaxation after a folding push, in one kernel: the sequence a recorded round makes for
// `t = u min.+ A; c = t >= d; d(min) << t; t<~c.V>` (SSSP's relaxation; backends/cuda/fusion.py
// recognises it in the dry rounds' launches and the captured round launches this instead):
//   gbk_push_gather   t's values taken from the push's fold accumulators (scratch, reset to
//                     the monoid's empty value) and its claims reset (stamp, where given);
//   gbk_ewise_list_dense   c = Zip(t, d) where d (the bitmap dbits/dvals) has an entry, as the
//                     list c (c_idx, c_vals, counted in c_counts, degrees by c_dptr);
//   gbk_accum_list    d(Acc) << t, d's count in d_counts;
//   gbk_list_to_bitmap, gbk_filter_list, gbk_list_unmark   t's entries the mask (c read by
//                     mkind/mmode, as gbk::vmask: c has an entry at j exactly where d had
//                     one) allows, as the list out (degrees by dptr).
// Each of t's positions is read and written by one thread only, so doing them in one pass
// changes no result: the comparison reads d before this thread's accumulation writes it.
// t's count is at t_counts[0]; its positions are distinct (a push's output).
// With w_idx, the kernel also does the next launch of the round when it is an independent
// gbk_list_to_bitmap (a list w of T, its count at w_ptr[0] or w_cap, marked into w_bits and
// w_dense: delta-stepping's waiting vertices marked for the union that follows).
template <class M, class Zip, class Acc, class T>
__global__ void gbk_relax_list(const unsigned long long* t_counts, const idx_t* t_idx,
                               T* scratch, T* t_vals, long long* stamp, unsigned char* dbits,
                               T* dvals, unsigned long long* d_counts,
                               typename Zip::param_t p, typename Zip::param2_t p2,
                               const idx_t* c_dptr, idx_t* c_idx, typename Zip::z_t* c_vals,
                               unsigned long long* c_counts, int mkind, int mmode,
                               const idx_t* dptr, idx_t* out_idx, T* out_vals,
                               unsigned long long* counters, idx_t w_cap,
                               const unsigned long long* w_ptr, const idx_t* w_idx,
                               const T* w_vals, unsigned char* w_bits, T* w_dense) {
    if (w_idx) {
        const idx_t nw = w_ptr ? (idx_t)*w_ptr : w_cap;
        for (idx_t q = gbk::global_id(); q < nw; q += gbk::grid_size()) {
            const idx_t i = w_idx[q];
            w_bits[i] = 1;
            w_dense[i] = w_vals[q];
        }
    }
    typedef typename Zip::z_t Z;
    Zip f(p, p2);
    Acc acc(0);
    const idx_t n = (idx_t)t_counts[0];
    unsigned long long added = 0, c_deg = 0, deg = 0;
    // every lane runs the same number of iterations, so append_slot sees whole warps
    for (idx_t base = gbk::global_id() - gbk::lane(); base < n; base += gbk::grid_size()) {
        const idx_t q = base + gbk::lane();
        const bool in = q < n;
        const idx_t j = in ? t_idx[q] : 0;
        T v = T();
        bool had = false;
        Z z = Z();
        if (in) {
            v = scratch[j];
            scratch[j] = M::empty();
            if (stamp) stamp[j] = 0x7fffffffffffffffLL;
            t_vals[q] = v;
            had = dbits[j] != 0;
            if (had) {
                const T old = dvals[j];
                z = f.both(v, old, j, 0);
                dvals[j] = gbk::cast<T>(acc(old, v, j, 0, j, 0));
            } else {
                dbits[j] = 1;
                dvals[j] = v;
                ++added;
            }
        }
        const long long cs = gbk::append_slot(&c_counts[0], in && had);
        if (cs >= 0) {
            c_idx[cs] = j;
            c_vals[cs] = z;
            if (c_dptr) c_deg += (unsigned long long)gbk::degree(c_dptr, j);
        }
        bool allowed = true;
        if (mmode != 0) {
            const Z zl = z;
            const bool inside = had && gbk::mask_value(&zl, 0, mkind);
            allowed = inside != (mmode == 2);
        }
        const long long slot = gbk::append_slot(&counters[0], in && allowed);
        if (slot >= 0) {
            out_idx[slot] = j;
            out_vals[slot] = v;
            if (dptr) deg += (unsigned long long)gbk::degree(dptr, j);
        }
    }
    gbk::add_counts(d_counts, added, 0);
    __syncthreads();  // add_counts's shared words are free again
    gbk::add_counts(c_counts, 0, c_deg);
    __syncthreads();
    gbk::add_counts(counters, 0, deg);
}

// Two selects of one list in one pass (fusion.py: SSSP's near and waiting vertices,
// `u.select(valuele, hi)` and `u.select(valuegt, hi)`): what gbk_select_list makes for each,
// with its own operator, thunk and mask, the entry read once.  c1[0] and c2[0] must be zero.
template <class Op1, class Op2, class A>
__global__ void gbk_select_pair(idx_t nl, const unsigned long long* nl_ptr, const idx_t* idx,
                                const A* a, typename Op1::param_t p1,
                                const unsigned char* mbits1, const void* m_vals1, int mkind1,
                                int mmode1, typename Op2::param_t p2,
                                const unsigned char* mbits2, const void* m_vals2, int mkind2,
                                int mmode2, const idx_t* dptr1, idx_t* out1_idx, A* out1_vals,
                                unsigned long long* c1, const idx_t* dptr2, idx_t* out2_idx,
                                A* out2_vals, unsigned long long* c2) {
    Op1 op1(p1);
    Op2 op2(p2);
    const gbk::vmask mask1{mbits1, m_vals1, mkind1, mmode1};
    const gbk::vmask mask2{mbits2, m_vals2, mkind2, mmode2};
    if (nl_ptr) nl = (idx_t)*nl_ptr;
    unsigned long long deg1 = 0, deg2 = 0;
    for (idx_t base = gbk::global_id() - gbk::lane(); base < nl; base += gbk::grid_size()) {
        idx_t t = base + gbk::lane();
        idx_t i = t < nl ? idx[t] : 0;
        A v = t < nl ? a[t] : A();
        bool keep1 = t < nl && mask1.allows(i) && gbk::cast<bool>(op1(v, i, 0));
        bool keep2 = t < nl && mask2.allows(i) && gbk::cast<bool>(op2(v, i, 0));
        long long s1 = gbk::append_slot(&c1[0], keep1);
        long long s2 = gbk::append_slot(&c2[0], keep2);
        if (keep1) {
            out1_idx[s1] = i;
            out1_vals[s1] = v;
            if (dptr1) deg1 += (unsigned long long)gbk::degree(dptr1, i);
        }
        if (keep2) {
            out2_idx[s2] = i;
            out2_vals[s2] = v;
            if (dptr2) deg2 += (unsigned long long)gbk::degree(dptr2, i);
        }
    }
    gbk::add_counts(c1, 0, deg1);
    __syncthreads();  // add_counts's shared words are free again
    gbk::add_counts(c2, 0, deg2);
}

// A reduction of a list made by gbk_ewise_list_dense, in the same kernel (fusion.py:
// delta-stepping's bucket bound, `(u + width).reduce(min)`): the list z = Zip(l, d) made as
// gbk_ewise_list_dense makes it, and its values folded by the monoid M as gbk_reduce_list
// folds them (each block's partial in out/out_have, the last block's fold in result and
// result_have; ticket a zeroed word, left zeroed).
template <class Zip, class M, class A, class B, bool LIST_A>
__global__ void __launch_bounds__(GBK_REDUCE_BLOCK)
gbk_ewise_reduce_list(idx_t nl, const unsigned long long* nl_ptr, const idx_t* l_idx,
                      const void* l_vals, const unsigned char* dbits, const void* d_vals,
                      typename Zip::param_t p, typename Zip::param2_t p2, const idx_t* dptr,
                      idx_t* out_idx, typename Zip::z_t* out_vals,
                      unsigned long long* counters, typename M::t* out,
                      unsigned char* out_have, unsigned long long* ticket,
                      typename M::t* result, unsigned char* result_have) {
    const Zip f(p, p2);
    gbk::fold_into<M> fold;
    const unsigned long long deg = gbk::ewise_list_entries<Zip, A, B, LIST_A>(
        nl, nl_ptr, l_idx, l_vals, dbits, d_vals, f, dptr, out_idx, out_vals, counters, fold);
    gbk::add_counts(counters, 0, deg);
    __syncthreads();  // add_counts's shared words are free again
    gbk::block_partial<M>(fold.acc, fold.have, out, out_have);
    gbk::fold_partials<M>(out, out_have, ticket, result, result_have);
}

// gbk_union_lists_a as the last kernel of a device loop's round (loops.py, fusion.py: the
// round's result, a union, written by gbk_union_lists_b and this kernel straight into the
// loop's state, whose arrays the round no longer reads), with the loop's end that
// gbk_loop_next would do in a kernel of its own, but no copy: the last block to finish (a
// ticket on ctl[3]) reads the union's count (counters, a slot of the round's counter page),
// puts it and the degree sum in the state's counters (s_counts) and its count in ctl[2],
// counts the round (ctl[0]), sets ctl[1] where the count exceeds `cap` (the state's capacity
// as the host keeps it; the state has room for every position, so the result is whole), and
// where the loop goes on (an entry, below `max_rounds`, within `cap`) zeroes the counter page
// for the next round; then the WHILE node's condition.
template <class Zip, class T>
__global__ void gbk_union_lists_a_loop(idx_t na, const unsigned long long* na_ptr,
                                       const idx_t* a_idx, const T* a_vals,
                                       unsigned char* marks, const T* vals,
                                       typename Zip::param_t p, typename Zip::param2_t p2,
                                       idx_t* out_idx, T* out_vals,
                                       unsigned long long* counters, long long* ctl,
                                       long long max_rounds, idx_t cap,
                                       unsigned long long* s_counts, unsigned long long* page,
                                       idx_t page_words, unsigned long long handle) {
    __shared__ int last;
    const Zip f(p, p2);
    gbk::union_a_entries(na, na_ptr, a_idx, a_vals, marks, vals, f, out_idx, out_vals, counters);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();  // this block's entries and count before its ticket
        last = atomicAdd((unsigned long long*)&ctl[3], 1ull) == (unsigned long long)gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const unsigned long long n = ((volatile unsigned long long*)counters)[0];
    const unsigned long long deg = ((volatile unsigned long long*)counters)[1];
    const long long r = ctl[0] + 1;
    const bool more = n > 0 && (max_rounds < 0 || r < max_rounds);
    const bool fits = (idx_t)n <= cap;
    __syncthreads();  // every thread has read the count before the page is zeroed
    if (fits && more && page)
        for (idx_t w = threadIdx.x; w < page_words; w += blockDim.x) page[w] = 0ull;
    if (threadIdx.x == 0) {
        s_counts[0] = n;
        s_counts[1] = deg;
        if (!fits) ctl[1] = 1;
        ctl[2] = (long long)n;
        ctl[0] = r;
        ctl[3] = 0;
        cudaGraphSetConditional(handle, fits && more ? 1u : 0u);
    }
}
