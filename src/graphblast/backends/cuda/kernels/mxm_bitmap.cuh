// Bitmap matrices by column ("bitmapc", SuiteSparse's and python-graphblas's name): a batch of
// traversals' nrows x ncols state (frontier, visited set, path counts), a presence byte and a
// value for every position, position (i, j) at j * nrows + i, so that the nrows sources of a
// column sit side by side and a warp reads 32 of them in one transaction.  The kernels here
// make them (from CSR lists), assign a scalar under a bitmap mask in place, and compute
// C<!M> = F (+.x) B with F, M and C bitmaps: pull (each allowed (i, j) walks column j of B,
// row j of B', until the monoid's terminal; a hub's column in chunks, their partial results
// folded in order) and push (each entry (i, k) of F scatters along
// row k of B).  Each result's entry count, and the degree sum of its entries over the next
// product's row pointers (`deg_ptr`: what the direction rule wants), are added by the kernel
// that makes it, per warp, into counters[0] and counters[1].
#pragma once
#include "common.cuh"
#include "mxm_pull.cuh"
#include "reduce.cuh"

// -- making bitmaps --------------------------------------------------------------------------

// CSR entries (rows[e], idx[e]) into a zeroed bitmap, entry (i, j) at position
// i * row_stride + j * col_stride (by column: 1 and nrows; by row: ncols and 1); values too
// where `out` is given.
template <class T>
__global__ void gbk_bitmapc_scatter(idx_t ne, const idx_t* rows, const idx_t* idx,
                                    const T* vals, idx_t row_stride, idx_t col_stride,
                                    unsigned char* bits, T* out) {
    for (idx_t e = gbk::global_id(); e < ne; e += gbk::grid_size()) {
        const idx_t p = rows[e] * row_stride + idx[e] * col_stride;
        bits[p] = 1;
        if (out != nullptr) out[p] = vals[e];
    }
}

// A CSR mask's entries that let their position count (mkind: gbk::mask_value) into a zeroed
// byte a position, laid out as gbk_bitmapc_scatter's.
__global__ void gbk_bitmapc_scatter_mask(idx_t ne, const idx_t* rows, const idx_t* idx,
                                         const void* m_vals, int mkind, idx_t row_stride,
                                         idx_t col_stride, unsigned char* bits) {
    for (idx_t e = gbk::global_id(); e < ne; e += gbk::grid_size()) {
        if (gbk::mask_value(m_vals, e, mkind))
            bits[rows[e] * row_stride + idx[e] * col_stride] = 1;
    }
}

namespace gbk {

// Whether position p of a bitmap mask (m_bits, m_vals read by mkind) lets an output through.
__device__ __forceinline__ bool bitmap_allows(const unsigned char* m_bits, const void* m_vals,
                                              int mkind, int complement, idx_t p) {
    const bool in = m_bits != nullptr && m_bits[p] && mask_value(m_vals, p, mkind);
    return in != (complement != 0);
}

// The warp's new entries (`mine` on some lanes, all at column j) counted into counters[0]
// and their degrees over deg_ptr into counters[1], by lane 0.
__device__ __forceinline__ void count_new(bool mine, idx_t j, const idx_t* deg_ptr,
                                          unsigned long long* counters) {
    const unsigned ballot = __ballot_sync(GBK_ALL_LANES, mine);
    if (lane() == 0 && ballot) {
        const unsigned long long c = (unsigned long long)__popc(ballot);
        atomicAdd(counters, c);
        if (deg_ptr != nullptr)
            atomicAdd(counters + 1, c * (unsigned long long)(deg_ptr[j + 1] - deg_ptr[j]));
    }
}

// Set the presence byte at p if it was clear; whether this call set it (an atomic OR on the
// aligned word that holds the byte: the array is at least 4-byte aligned).
__device__ __forceinline__ bool claim_byte(unsigned char* bits, idx_t p) {
    unsigned int* w = (unsigned int*)(bits + (p & ~(idx_t)3));
    const unsigned int bit = 1u << ((unsigned)(p & 3) * 8u);
    return (atomicOr(w, bit) & bit) == 0u;
}

}  // namespace gbk

// C(M) = value at every position of a bitmap mask (not complemented) into the bitmap C in
// place: positions new to C counted into counters[0].  A warp reads 32 consecutive positions.
template <class T>
__global__ void gbk_bitmapc_assign_scalar(idx_t total, const unsigned char* m_bits,
                                          const void* m_vals, int mkind, unsigned char* c_bits,
                                          T* c_vals, T value, unsigned long long* counters) {
    const idx_t span = (total + 31) & ~(idx_t)31;  // whole warps in every iteration
    for (idx_t p = gbk::global_id(); p < span; p += gbk::grid_size()) {
        bool fresh = false;
        if (p < total && m_bits[p] && gbk::mask_value(m_vals, p, mkind)) {
            fresh = !c_bits[p];
            c_bits[p] = 1;
            c_vals[p] = value;
        }
        gbk::count_new(fresh, 0, nullptr, counters);
    }
}

// C(M) = value at the entries of a CSR mask (rows[e], idx[e]) that let their position count,
// into the bitmap by column C in place: positions new to C counted into counters[0].
template <class T>
__global__ void gbk_bitmapc_assign_scalar_list(idx_t ne, const idx_t* rows, const idx_t* idx,
                                               const void* m_vals, int mkind, idx_t nrows,
                                               unsigned char* c_bits, T* c_vals, T value,
                                               unsigned long long* counters) {
    const idx_t span = (ne + 31) & ~(idx_t)31;
    for (idx_t e = gbk::global_id(); e < span; e += gbk::grid_size()) {
        bool fresh = false;
        if (e < ne && gbk::mask_value(m_vals, e, mkind)) {
            const idx_t p = idx[e] * nrows + rows[e];
            fresh = !c_bits[p];
            c_bits[p] = 1;
            c_vals[p] = value;
        }
        gbk::count_new(fresh, 0, nullptr, counters);
    }
}

// C<M> accum= T in place, C and T bitmaps of one shape (accum: the binary operator, used
// where C has an entry): the positions new to C counted into counters[0].
template <class Op, class T>
__global__ void gbk_bitmapc_accum(idx_t total, const unsigned char* t_bits, const T* t_vals,
                                  unsigned char* c_bits, T* c_vals,
                                  unsigned long long* counters) {
    Op op(0);
    const idx_t span = (total + 31) & ~(idx_t)31;
    for (idx_t p = gbk::global_id(); p < span; p += gbk::grid_size()) {
        bool fresh = false;
        if (p < total && t_bits[p]) {
            fresh = !c_bits[p];
            c_vals[p] = fresh ? t_vals[p] : gbk::cast<T>(op(c_vals[p], t_vals[p], 0, 0, 0, 0));
            c_bits[p] = 1;
        }
        gbk::count_new(fresh, 0, nullptr, counters);
    }
}

// A warp's step over 32 entries of one row of B or B' for one row of F (reads or claims at 32
// scattered places) against a step of the 32 rows side by side at one entry (one coalesced
// read or claim): a warp whose live rows times the entries' 32-entry steps, times this, are
// at most the entries takes its live rows one at a time, 32 entries a step (pull and push
// alike: a lone lane would walk the whole row while the others wait).
#define GBK_SPREAD_COST 4

// -- pull: C<!M> = F (+.x) B, a warp per (column j, 32 rows) ---------------------------------
//
// Lane l of warp w takes row i = 32 * (w / ncols) + l of column j = w % ncols and walks row j
// of B' against F's column-major bitmap (gbk::pull_tile of mxm_pull.cuh: one read of each
// entry k for the warp, the 32 rows' bytes at k in one transaction).  Columns whose row of B'
// is longer than heavy_min are left (presence 0) to gbk_bitmapc_pull_chunks, so that no warp
// walks a hub's column alone while the others wait.  Every position of C is written (its
// presence byte; its value where present and write_vals).

namespace gbk {

// Entries [pb, eb) of row j of B' (all of column j, or a chunk of it) folded for the warp's
// 32 rows (lane l: row i = i0 + l, `live` where the mask allows (i, j)), each row's result
// written at out_bits[i] and out_vals[i] (the presence byte of every row below `rows`, the
// value where found and write_vals); whether the lane's own row found a product.  Where few
// rows are live, a lane alone would walk the range while the others wait, so the warp takes
// each live row in turn, 32 entries a step (gbk::pull_warp), lane 0 writing its result.
// Every lane of the warp must call it with the same j and range.
template <class Mul, class M, class A, class B, class IDX>
__device__ __forceinline__ bool pull_rows(const Mul& mul, bool live, idx_t rows, idx_t i,
                                          idx_t j, idx_t pb, idx_t eb,
                                          const unsigned char* f_bits, const A* f_vals,
                                          const IDX* bt_idx, const B* bt_vals,
                                          unsigned char* out_bits, typename M::t* out_vals,
                                          int write_vals) {
    typedef typename M::t T;
    const unsigned lanes_live = __ballot_sync(GBK_ALL_LANES, live);
    if (lanes_live && (idx_t)__popc(lanes_live) * ((eb - pb + 31) >> 5) * GBK_SPREAD_COST <=
                          eb - pb) {
        if (i < rows && !live) out_bits[i] = 0;
        const idx_t base = i - lane();
        bool mine = false;
        for (unsigned left = lanes_live; left; left &= left - 1) {
            const int l = __ffs(left) - 1;
            const idx_t is = base + l;
            T acc = M::identity();
            const bool have = pull_warp<Mul, M, A, B, IDX>(
                mul, f_bits + is, f_vals + is, rows, is, j, pb, eb, bt_idx, bt_vals, acc);
            if (lane() == 0) {  // lane 0 holds the result
                out_bits[is] = have ? 1 : 0;
                if (have && write_vals) out_vals[is] = acc;
            }
            const int found = __shfl_sync(GBK_ALL_LANES, (int)have, 0);
            if (lane() == l) mine = found != 0;
        }
        return mine;
    }
    T acc;
    const bool have = pull_tile<Mul, M, A, B, IDX>(mul, live, rows, i, i, j, pb, eb, f_bits,
                                                   f_vals, bt_idx, bt_vals, acc);
    if (i < rows) {
        out_bits[i] = have ? 1 : 0;
        if (have && write_vals) out_vals[i] = acc;
    }
    return have;
}

}  // namespace gbk

template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_bitmapc_pull(idx_t rows, idx_t ncols, const unsigned char* m_bits,
                                 const void* m_vals, int mkind, int complement,
                                 const unsigned char* f_bits, const A* f_vals,
                                 const idx_t* bt_indptr, const IDX* bt_idx, const B* bt_vals,
                                 idx_t heavy_min, const idx_t* deg_ptr,
                                 unsigned char* c_bits, typename M::t* c_vals, int write_vals,
                                 unsigned long long* counters) {
    Mul mul(0);
    const idx_t items = ((rows + 31) >> 5) * ncols;
    for (idx_t w = gbk::global_warp(); w < items; w += gbk::warp_count()) {
        const idx_t it = w / ncols, j = w - it * ncols;
        const idx_t i = (it << 5) + gbk::lane();
        const idx_t pb = bt_indptr[j], eb = bt_indptr[j + 1];
        const bool live = i < rows && eb - pb <= heavy_min &&
                          gbk::bitmap_allows(m_bits, m_vals, mkind, complement, j * rows + i);
        const bool have = gbk::pull_rows<Mul, M, A, B, IDX>(
            mul, live, rows, i, j, pb, eb, f_bits, f_vals, bt_idx, bt_vals, c_bits + j * rows,
            c_vals + j * rows, write_vals);
        gbk::count_new(have, j, deg_ptr, counters);
    }
}

// The heavy columns gbk_bitmapc_pull left, in chunks: chunk c is entries [chunk_lo[c],
// chunk_lo[c] + chunk) of row chunk_j[c] of B' (cut at the row's end); item w is chunk
// c = w % nchunks for the rows 32 * (w / nchunks) on, folded as gbk_bitmapc_pull folds a whole
// column (the 32 rows' bytes and values at each entry in one read) into a partial result at
// (c, i): part_bits[c * rows + i] and part_vals.  A warp a (row, column), walking a hub's
// column for each row alone, read a byte of a 32-byte sector an entry.
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_bitmapc_pull_chunks(idx_t rows, idx_t nchunks, const idx_t* chunk_j,
                                        const idx_t* chunk_lo, idx_t chunk,
                                        const unsigned char* m_bits, const void* m_vals,
                                        int mkind, int complement, const unsigned char* f_bits,
                                        const A* f_vals, const idx_t* bt_indptr,
                                        const IDX* bt_idx, const B* bt_vals,
                                        unsigned char* part_bits, typename M::t* part_vals) {
    Mul mul(0);
    const idx_t items = ((rows + 31) >> 5) * nchunks;
    for (idx_t w = gbk::global_warp(); w < items; w += gbk::warp_count()) {
        const idx_t it = w / nchunks, c = w - it * nchunks;
        const idx_t j = chunk_j[c], pb = chunk_lo[c], end = bt_indptr[j + 1];
        const idx_t i = (it << 5) + gbk::lane();
        const bool live = i < rows &&
                          gbk::bitmap_allows(m_bits, m_vals, mkind, complement, j * rows + i);
        gbk::pull_rows<Mul, M, A, B, IDX>(mul, live, rows, i, j, pb,
                                          pb + chunk < end ? pb + chunk : end, f_bits, f_vals,
                                          bt_idx, bt_vals, part_bits + c * rows,
                                          part_vals + c * rows, 1);
    }
}

// Each heavy column's partial results folded in chunk order (increasing k: `any` keeps the
// first chunk's, the smallest k) into C: item w is heavy column heavy_j[h], h = w % nheavy,
// for the rows 32 * (w / nheavy) on, its chunks [chunk_first[h], chunk_first[h + 1]) at
// (c - c0) * rows + i of the partials.
template <class M>
__global__ void gbk_bitmapc_pull_combine(idx_t rows, idx_t nheavy, const idx_t* heavy_j,
                                         const idx_t* chunk_first, idx_t c0,
                                         const unsigned char* part_bits,
                                         const typename M::t* part_vals, const idx_t* deg_ptr,
                                         unsigned char* c_bits, typename M::t* c_vals,
                                         int write_vals, unsigned long long* counters) {
    typedef typename M::t T;
    const idx_t items = ((rows + 31) >> 5) * nheavy;
    for (idx_t w = gbk::global_warp(); w < items; w += gbk::warp_count()) {
        const idx_t it = w / nheavy, h = w - it * nheavy;
        const idx_t j = heavy_j[h], i = (it << 5) + gbk::lane();
        bool have = false;
        if (i < rows) {
            T acc = M::identity();
            for (idx_t c = chunk_first[h]; c < chunk_first[h + 1]; ++c) {
                const idx_t q = (c - c0) * rows + i;
                if (!part_bits[q]) continue;
                acc = have ? M::combine(acc, part_vals[q]) : part_vals[q];
                have = true;
                if (M::is_any || gbk::reached_terminal<M>(acc)) break;
            }
            c_bits[j * rows + i] = have ? 1 : 0;
            if (have && write_vals) c_vals[j * rows + i] = acc;
        }
        gbk::count_new(have, j, deg_ptr, counters);
    }
}

// -- push: C<!M> = F (+.x) B, a warp per (GBK_PUSH_GROUP rows k of B, 32 rows of F) --------
//
// Lane l of warp w takes row i = 32 * (w / groups) + l of F at the GBK_PUSH_GROUP columns
// k = GBK_PUSH_GROUP * (w % groups) + u: the warp reads the 32 rows' presence bytes at all of
// them at once (independent coalesced reads: a sparse frontier's push is mostly these reads,
// and the warp waits once for the group rather than once a column), then walks row k of B for
// each column where one of its rows has an entry: for each entry j, each lane with an entry
// claims position (i, j) of C where the mask allows it (an atomic OR on the presence byte's
// word: the claim counts it once) and folds its product into the value: a plain store for a
// product that does not depend on its operands (pair) under `any`, else the monoid's atomic
// fold into a value filled with M::empty() first.  The four rows of a coalesced write sit
// side by side, so the stores of a warp are one or two transactions.  Rows of B longer than
// heavy_min are left to gbk_bitmapc_push_chunks (chunks of them).  A group bounds what one
// warp walks (GBK_PUSH_GROUP rows or chunks) while the rest of a launch may be done.
#define GBK_PUSH_GROUP 8

namespace gbk {

// Claims output (i, j) for the product F(i, k) * B(k, j) (`a` and entry e of B) where `mine`
// and the mask allows it, folding the product into its value; whether the claim was new.
template <class Mul, class M, class A, class B>
__device__ __forceinline__ bool push_claim(const Mul& mul, bool mine, A a, const B* b_vals,
                                           idx_t e, idx_t i, idx_t k, idx_t j, idx_t rows,
                                           const unsigned char* m_bits, const void* m_vals,
                                           int mkind, int complement, unsigned char* c_bits,
                                           typename M::t* c_vals, int write_vals) {
    const idx_t p = j * rows + i;
    bool fresh = false;
    if (mine && bitmap_allows(m_bits, m_vals, mkind, complement, p)) {
        fresh = claim_byte(c_bits, p);
        if (write_vals) {
            typename M::t z = mul(a, b_vals[e], i, k, k, j);
            if (M::is_any) {
                c_vals[p] = z;  // every product has this value (the launcher's condition)
            } else {
                atomic_combine<M>(c_vals + p, z);
            }
        }
    }
    return fresh;
}

// The warp's new entries (`fresh` on some lanes, each at its own column j) counted into
// counters[0] and their degrees over deg_ptr into counters[1], by lane 0.
__device__ __forceinline__ void count_new_columns(bool fresh, idx_t j, const idx_t* deg_ptr,
                                                  unsigned long long* counters) {
    const unsigned ballot = __ballot_sync(GBK_ALL_LANES, fresh);
    if (!ballot) return;  // the same for the whole warp
    unsigned long long d = (fresh && deg_ptr != nullptr)
                               ? (unsigned long long)(deg_ptr[j + 1] - deg_ptr[j]) : 0ull;
    if (deg_ptr != nullptr) {
        for (int off = 16; off > 0; off >>= 1) d += __shfl_down_sync(GBK_ALL_LANES, d, off);
    }
    if (lane() == 0) {
        atomicAdd(counters, (unsigned long long)__popc(ballot));
        if (deg_ptr != nullptr) atomicAdd(counters + 1, d);
    }
}

}  // namespace gbk

namespace gbk {

// Entries [pb, eb) of row k of B pushed from the lanes whose row i of F has an entry at k
// (and `ok`); every lane of the warp calls it with the same k and range.  Where many of the
// 32 rows have an entry, the lanes walk the range side by side, one entry a step, their
// claims at one column j in consecutive bytes; where few have one (a frontier reached by few
// sources at k: most of a traversal's pushes), a lane alone would walk the whole row while
// the others wait, so the warp takes each of those rows in turn and its lanes 32 entries of
// the range at a time (claims at 32 columns: scattered, but 32 times fewer steps).
template <class Mul, class M, class A, class B, class IDX>
__device__ __forceinline__ void push_range(const Mul& mul, bool ok, idx_t rows, idx_t i,
                                           idx_t k, idx_t pb, idx_t eb,
                                           const unsigned char* f_bits, const A* f_vals,
                                           const IDX* b_idx, const B* b_vals,
                                           const unsigned char* m_bits, const void* m_vals,
                                           int mkind, int complement, const idx_t* deg_ptr,
                                           unsigned char* c_bits, typename M::t* c_vals,
                                           int write_vals, unsigned long long* counters) {
    const bool mine = ok && i < rows && f_bits[k * rows + i];
    const unsigned rows_with = __ballot_sync(GBK_ALL_LANES, mine);
    if (!rows_with) return;
    const idx_t len = eb - pb;
    if ((idx_t)__popc(rows_with) * ((len + 31) >> 5) * GBK_SPREAD_COST <= len) {
        const idx_t base = i - lane();
        for (unsigned left = rows_with; left; left &= left - 1) {
            const idx_t is = base + (__ffs(left) - 1);
            const A a = f_vals[k * rows + is];  // the same address on every lane
            for (idx_t at = pb; at < eb; at += 32) {
                const idx_t e = at + lane();
                const bool in = e < eb;
                const idx_t j = in ? (idx_t)b_idx[e] : 0;
                const bool fresh = push_claim<Mul, M, A, B>(
                    mul, in, a, b_vals, e, is, k, j, rows, m_bits, m_vals, mkind, complement,
                    c_bits, c_vals, write_vals);
                count_new_columns(fresh, j, deg_ptr, counters);
            }
        }
        return;
    }
    const A a = mine ? f_vals[k * rows + i] : A();
    for (idx_t e = pb; e < eb; ++e) {
        const idx_t j = (idx_t)b_idx[e];
        const bool fresh = push_claim<Mul, M, A, B>(mul, mine, a, b_vals, e, i, k, j, rows,
                                                    m_bits, m_vals, mkind, complement, c_bits,
                                                    c_vals, write_vals);
        count_new(fresh, j, deg_ptr, counters);
    }
}

}  // namespace gbk

template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_bitmapc_push(idx_t rows, idx_t nk, const unsigned char* f_bits,
                                 const A* f_vals, const idx_t* b_indptr, const IDX* b_idx,
                                 const B* b_vals, const unsigned char* m_bits,
                                 const void* m_vals, int mkind, int complement,
                                 idx_t heavy_min, const idx_t* deg_ptr, unsigned char* c_bits,
                                 typename M::t* c_vals, int write_vals,
                                 unsigned long long* counters) {
    Mul mul(0);
    const idx_t groups = (nk + GBK_PUSH_GROUP - 1) / GBK_PUSH_GROUP;
    const idx_t items = ((rows + 31) >> 5) * groups;
    for (idx_t w = gbk::global_warp(); w < items; w += gbk::warp_count()) {
        const idx_t it = w / groups, k0 = (w - it * groups) * GBK_PUSH_GROUP;
        const idx_t i = (it << 5) + gbk::lane();
        unsigned cols = 0;  // bit u: row i of F has an entry at column k0 + u
        if (i < rows) {
#pragma unroll
            for (int u = 0; u < GBK_PUSH_GROUP; ++u)
                if (k0 + u < nk && f_bits[(k0 + u) * rows + i]) cols |= 1u << u;
        }
        for (int d = 16; d > 0; d >>= 1) cols |= __shfl_xor_sync(GBK_ALL_LANES, cols, d);
        for (; cols; cols &= cols - 1) {  // the same columns on every lane
            const idx_t k = k0 + (__ffs((int)cols) - 1);
            const idx_t pb = b_indptr[k], eb = b_indptr[k + 1];
            gbk::push_range<Mul, M, A, B, IDX>(mul, eb - pb <= heavy_min, rows, i, k, pb, eb,
                                               f_bits, f_vals, b_idx, b_vals, m_bits, m_vals,
                                               mkind, complement, deg_ptr, c_bits, c_vals,
                                               write_vals, counters);
        }
    }
}

// The heavy rows of B in chunks: chunk c is row chunk_k[c], its entries from chunk_lo[c] for
// at most `chunk` entries; item w is the GBK_PUSH_GROUP chunks from GBK_PUSH_GROUP *
// (w % groups) on for the rows 32 * (w / groups) on of F, whose bytes at the chunks' columns
// the warp reads at once (as gbk_bitmapc_push: most chunks of a sparse frontier's push have
// no entry) before it walks the chunks with one.
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_bitmapc_push_chunks(idx_t rows, idx_t nchunks, const idx_t* chunk_k,
                                        const idx_t* chunk_lo, idx_t chunk,
                                        const unsigned char* f_bits, const A* f_vals,
                                        const idx_t* b_indptr, const IDX* b_idx,
                                        const B* b_vals, const unsigned char* m_bits,
                                        const void* m_vals, int mkind, int complement,
                                        const idx_t* deg_ptr, unsigned char* c_bits,
                                        typename M::t* c_vals, int write_vals,
                                        unsigned long long* counters) {
    Mul mul(0);
    const idx_t groups = (nchunks + GBK_PUSH_GROUP - 1) / GBK_PUSH_GROUP;
    const idx_t items = ((rows + 31) >> 5) * groups;
    for (idx_t w = gbk::global_warp(); w < items; w += gbk::warp_count()) {
        const idx_t it = w / groups, c0 = (w - it * groups) * GBK_PUSH_GROUP;
        const idx_t i = (it << 5) + gbk::lane();
        // lane u < GBK_PUSH_GROUP holds chunk c0 + u's row and start
        const idx_t mine = c0 + gbk::lane();
        const bool held = gbk::lane() < GBK_PUSH_GROUP && mine < nchunks;
        const idx_t my_k = held ? chunk_k[mine] : -1;
        const idx_t my_lo = held ? chunk_lo[mine] : 0;
        unsigned with = 0;  // bit u: row i of F has an entry at chunk c0 + u's column
#pragma unroll
        for (int u = 0; u < GBK_PUSH_GROUP; ++u) {
            const idx_t k = __shfl_sync(GBK_ALL_LANES, my_k, u);
            if (k >= 0 && i < rows && f_bits[k * rows + i]) with |= 1u << u;
        }
        for (int d = 16; d > 0; d >>= 1) with |= __shfl_xor_sync(GBK_ALL_LANES, with, d);
        for (; with; with &= with - 1) {  // the same chunks on every lane
            const int u = __ffs((int)with) - 1;
            const idx_t k = __shfl_sync(GBK_ALL_LANES, my_k, u);
            const idx_t pb = __shfl_sync(GBK_ALL_LANES, my_lo, u), end = b_indptr[k + 1];
            gbk::push_range<Mul, M, A, B, IDX>(mul, true, rows, i, k, pb,
                                               pb + chunk < end ? pb + chunk : end, f_bits,
                                               f_vals, b_idx, b_vals, m_bits, m_vals, mkind,
                                               complement, deg_ptr, c_bits, c_vals,
                                               write_vals, counters);
        }
    }
}

// Each row of a bitmap by row (row r at positions [r * ncols, (r + 1) * ncols): a bitmap by
// column's transpose) folded by the monoid (not `any`), a warp per row, into a bitmap vector;
// the rows with an entry counted into counters[0].
template <class M, class T>
__global__ void gbk_bitmapr_reduce_rows(idx_t nrows, idx_t ncols, const unsigned char* bits,
                                        const T* vals, unsigned char* out_bits,
                                        typename M::t* out, unsigned long long* counters) {
    typedef typename M::t Z;
    for (idx_t r = gbk::global_warp(); r < nrows; r += gbk::warp_count()) {
        Z acc = M::identity();
        bool have = false;
        for (idx_t c = gbk::lane(); c < ncols; c += 32) {
            const idx_t p = r * ncols + c;
            if (bits[p]) {
                const Z z = gbk::cast<Z>(vals[p]);
                acc = have ? M::combine(acc, z) : z;
                have = true;
            }
        }
        gbk::warp_fold<M>(acc, have);
        const bool lead = gbk::lane() == 0;
        if (lead) {
            out_bits[r] = have ? 1 : 0;
            if (have) out[r] = acc;
        }
        gbk::count_new(lead && have, 0, nullptr, counters);
    }
}
