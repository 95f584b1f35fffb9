// Pull for a masked mxm C<!M> = A (+.x) B whose A is a batch of frontiers (multi-source BFS,
// betweenness centrality): A's rows are laid out densely (a presence byte and a value per
// position), the mask's entries marked in a byte per output, and every output (i, j) the mask
// allows walks row j of B' (B's column j), folding A(i, k) * B(k, j) over the k present in
// A's row i, in increasing k, and stopping at the monoid's terminal (any: the first product,
// the smallest k, as push and the CPU backend take).  A row of B' longer than `long_min` is
// walked by a warp (gbk_mxm_pull_warp) instead of a thread.  The launcher works on a chunk of
// A's rows at a time: row i of the chunk is row r0 + i of A and C.
#pragma once
#include "common.cuh"
#include "reduce.cuh"

#define GBK_PULL_NONE 9223372036854775807LL

// A's entries [e0, e1) (rows r0 onwards) into the chunk's dense layout: entry (i, k) at
// position (i - r0) * row_stride + k * col_stride (row-major: inner and 1; column-major: 1
// and the chunk's row count).
template <class A>
__global__ void gbk_mxm_pull_frontier(idx_t ne, idx_t e0, const idx_t* a_rows,
                                      const idx_t* a_idx, const A* a_vals, idx_t row_stride,
                                      idx_t col_stride, idx_t r0, unsigned char* present,
                                      A* dense) {
    for (idx_t q = gbk::global_id(); q < ne; q += gbk::grid_size()) {
        const idx_t e = e0 + q;
        const idx_t p = (a_rows[e] - r0) * row_stride + a_idx[e] * col_stride;
        present[p] = 1;
        dense[p] = a_vals[e];
    }
}

// The mask's entries [e0, e1) whose value lets them count (mkind: see gbk::mask_value) set to
// `value` in the chunk's byte a position, laid out as gbk_mxm_pull_frontier's.
__global__ void gbk_mxm_pull_mask(idx_t ne, idx_t e0, const idx_t* m_rows, const idx_t* m_idx,
                                  const void* m_vals, int mkind, idx_t row_stride,
                                  idx_t col_stride, idx_t r0, int value,
                                  unsigned char* bytes) {
    for (idx_t q = gbk::global_id(); q < ne; q += gbk::grid_size()) {
        const idx_t e = e0 + q;
        if (gbk::mask_value(m_vals, e, mkind))
            bytes[(m_rows[e] - r0) * row_stride + m_idx[e] * col_stride] = (unsigned char)value;
    }
}

namespace gbk {

// Output (i, j) by one thread: row j of B' (entries [pb, eb)) against the dense frontier row
// (`row_present`, `row`); whether it has a value (then in `acc`).
template <class Mul, class M, class A, class B, class IDX>
__device__ __forceinline__ bool pull_thread(const Mul& mul, const unsigned char* row_present,
                                            const A* row, idx_t i, idx_t j, idx_t pb,
                                            idx_t eb, const IDX* bt_idx, const B* bt_vals,
                                            typename M::t& acc) {
    bool have = false;
    idx_t first = GBK_PULL_NONE;
    for (; pb < eb; ++pb) {
        const idx_t k = (idx_t)bt_idx[pb];
        if (!row_present[k]) continue;
        if (fold_product<M>(acc, have, first, mul(row[k], bt_vals[pb], i, k, k, j), k)) break;
    }
    return have;
}

// pull_warp's frontier row is read at k * stride: 1 in the row-major layout, the chunk's row
// count in the column-major one.

// The same by a whole warp (lane 0 gets the result): the lanes take 32 consecutive entries at
// a time; the warp stops after the first 32 that hold `any`'s product (the smallest k is
// among them) or reach the terminal.
template <class Mul, class M, class A, class B, class IDX>
__device__ __forceinline__ bool pull_warp(const Mul& mul, const unsigned char* row_present,
                                          const A* row, idx_t stride, idx_t i, idx_t j,
                                          idx_t pb, idx_t eb, const IDX* bt_idx,
                                          const B* bt_vals, typename M::t& acc) {
    typedef typename M::t T;
    const int lane = gbk::lane();
    bool have = false;
    idx_t first = GBK_PULL_NONE;
    for (idx_t base = pb; base < eb; base += 32) {
        const idx_t q = base + lane;
        bool stop = false;
        if (q < eb && !(M::is_any && have)) {
            const idx_t k = (idx_t)bt_idx[q];
            if (row_present[k * stride])
                stop = fold_product<M>(acc, have, first,
                                       mul(row[k * stride], bt_vals[q], i, k, k, j), k);
        }
        if (__any_sync(GBK_ALL_LANES, M::is_any ? have : stop)) break;
    }
    if (M::is_any) {
        for (int d = 16; d > 0; d >>= 1) {
            T o = shfl_down(acc, d);
            idx_t of = shfl_down(first, d);
            if (of < first) {
                first = of;
                acc = o;
            }
        }
        have = first != GBK_PULL_NONE;
    } else {
        warp_fold<M>(acc, have);
    }
    return have;
}

}  // namespace gbk

// A thread per output p = i * ncols + j of the chunk that the mask does not block (rows of B'
// up to long_min entries; the others get flag 0 here and are the warp kernel's).
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_mxm_pull(idx_t rows, idx_t ncols, idx_t inner, idx_t r0,
                             const unsigned char* blocked, const unsigned char* present,
                             const A* dense, const idx_t* bt_indptr, const IDX* bt_idx,
                             const B* bt_vals, idx_t long_min, typename M::t* out,
                             unsigned char* flag) {
    typedef typename M::t T;
    Mul mul(0);
    const idx_t total = rows * ncols;
    for (idx_t p = gbk::global_id(); p < total; p += gbk::grid_size()) {
        flag[p] = 0;
        if (blocked[p]) continue;
        const idx_t i = p / ncols, j = p - i * ncols;
        const idx_t pb = bt_indptr[j], eb = bt_indptr[j + 1];
        if (eb - pb > long_min) continue;
        T acc = M::identity();
        if (gbk::pull_thread<Mul, M, A, B, IDX>(mul, present + i * inner, dense + i * inner,
                                                r0 + i, j, pb, eb, bt_idx, bt_vals, acc)) {
            out[p] = acc;
            flag[p] = 1;
        }
    }
}

// A warp per (chunk row i, long row j of B'): item w is row w / nlong of the chunk and column
// long_j[w % nlong].
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_mxm_pull_warp(idx_t rows, idx_t nlong, const idx_t* long_j, idx_t ncols,
                                  idx_t inner, idx_t r0, const unsigned char* blocked,
                                  const unsigned char* present, const A* dense,
                                  const idx_t* bt_indptr, const IDX* bt_idx, const B* bt_vals,
                                  typename M::t* out, unsigned char* flag) {
    typedef typename M::t T;
    Mul mul(0);
    const idx_t items = rows * nlong;
    for (idx_t w = gbk::global_warp(); w < items; w += gbk::warp_count()) {
        const idx_t i = w / nlong;
        const idx_t j = long_j[w - i * nlong];
        const idx_t p = i * ncols + j;
        if (blocked[p]) continue;  // the same for the whole warp
        T acc = M::identity();
        const bool have = gbk::pull_warp<Mul, M, A, B, IDX>(
            mul, present + i * inner, dense + i * inner, 1, r0 + i, j, bt_indptr[j],
            bt_indptr[j + 1], bt_idx, bt_vals, acc);
        if (gbk::lane() == 0 && have) {
            out[p] = acc;
            flag[p] = 1;
        }
    }
}

// Under a plain mask: a thread per mask entry e = (m_rows[e], m_idx[e]) whose value lets it
// count (mkind: see gbk::mask_value) and whose row of B' has at most long_min entries; the
// frontier laid out densely whole (r0 = 0).  out[e]/flag[e] as in gbk_mxm_dot.
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_mxm_pull_entries(idx_t nm, const idx_t* m_rows, const idx_t* m_idx,
                                     const void* m_vals, int mkind, idx_t inner,
                                     const unsigned char* present, const A* dense,
                                     const idx_t* bt_indptr, const IDX* bt_idx,
                                     const B* bt_vals, idx_t long_min, typename M::t* out,
                                     unsigned char* flag) {
    typedef typename M::t T;
    Mul mul(0);
    for (idx_t e = gbk::global_id(); e < nm; e += gbk::grid_size()) {
        flag[e] = 0;
        if (!gbk::mask_value(m_vals, e, mkind)) continue;
        const idx_t i = m_rows[e], j = m_idx[e];
        const idx_t pb = bt_indptr[j], eb = bt_indptr[j + 1];
        if (eb - pb > long_min) continue;
        T acc = M::identity();
        if (gbk::pull_thread<Mul, M, A, B, IDX>(mul, present + i * inner, dense + i * inner,
                                                i, j, pb, eb, bt_idx, bt_vals, acc)) {
            out[e] = acc;
            flag[e] = 1;
        }
    }
}

// A warp per listed mask entry e = long_e[w] (one the thread kernel left: its row of B' is
// long).
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_mxm_pull_entries_warp(idx_t nlong, const idx_t* long_e,
                                          const idx_t* m_rows, const idx_t* m_idx,
                                          const void* m_vals, int mkind, idx_t inner,
                                          const unsigned char* present, const A* dense,
                                          const idx_t* bt_indptr, const IDX* bt_idx,
                                          const B* bt_vals, typename M::t* out,
                                          unsigned char* flag) {
    typedef typename M::t T;
    Mul mul(0);
    for (idx_t w = gbk::global_warp(); w < nlong; w += gbk::warp_count()) {
        const idx_t e = long_e[w];
        if (!gbk::mask_value(m_vals, e, mkind)) continue;  // the same for the whole warp
        const idx_t i = m_rows[e], j = m_idx[e];
        T acc = M::identity();
        const bool have = gbk::pull_warp<Mul, M, A, B, IDX>(
            mul, present + i * inner, dense + i * inner, 1, i, j, bt_indptr[j],
            bt_indptr[j + 1], bt_idx, bt_vals, acc);
        if (gbk::lane() == 0 && have) {
            out[e] = acc;
            flag[e] = 1;
        }
    }
}

// -- the tiled pull: the chunk laid out column-major, a warp per output column --------------
//
// The frontier's layout is transposed (position k * rows + i) and so is the byte a position
// that says whether an output is computed (`allow`, position j * rows + i): a warp takes one
// column j for 32 rows i, so that it reads each entry k of row j of B' once (the same address
// for every lane) and the 32 rows' presence bytes and values at k in one coalesced read, eight
// entries ahead.  A lane stops at `any`'s first product (the smallest k) or the monoid's
// terminal; the warp when every lane has.  (Tiles of 32 columns written out through shared
// memory made each block wait for its longest column: kron-22's 64-source BFS pulled 40 %
// slower than with a thread per output.)

// The transposed layouts are gbk_mxm_pull_frontier's and gbk_mxm_pull_mask's with strides 1
// and the chunk's row count.

#define GBK_PULL_AHEAD 8

namespace gbk {

// One lane's output of a tiled pull: row j of B' (entries [pb, eb), the same for the whole
// warp) walked against the column-major frontier (entry k of the lane's row i at
// k * rows + i) while the lane is `live`; whether it found a product (then in `acc`).  `row`
// is the row index the multiplier sees.  Every lane of the warp must call it.  The entries
// are taken GBK_PULL_AHEAD at a time, the next group's indices read while this group's
// presence bytes are: a group costs two dependent reads (bytes, then values) instead of
// three.
template <class Mul, class M, class A, class B, class IDX>
__device__ __forceinline__ bool pull_tile(const Mul& mul, bool live, idx_t rows, idx_t i,
                                          idx_t row, idx_t j, idx_t pb, idx_t eb,
                                          const unsigned char* present, const A* dense,
                                          const IDX* bt_idx, const B* bt_vals,
                                          typename M::t& acc) {
    typedef typename M::t T;
    acc = M::identity();
    bool have = false;
    IDX ks[GBK_PULL_AHEAD];
    int n = (int)((eb - pb) < GBK_PULL_AHEAD ? (eb - pb) : GBK_PULL_AHEAD);
#pragma unroll
    for (int u = 0; u < GBK_PULL_AHEAD; ++u) ks[u] = u < n ? bt_idx[pb + u] : (IDX)0;
    while (n > 0) {  // the same bounds for the whole warp
        if (!__any_sync(GBK_ALL_LANES, live)) break;
        unsigned char hit[GBK_PULL_AHEAD];
#pragma unroll
        for (int u = 0; u < GBK_PULL_AHEAD; ++u)
            hit[u] = (u < n && live) ? present[(idx_t)ks[u] * rows + i] : 0;
        const idx_t pn = pb + n;
        const int nn = (int)((eb - pn) < GBK_PULL_AHEAD ? (eb - pn) : GBK_PULL_AHEAD);
        IDX next[GBK_PULL_AHEAD];
#pragma unroll
        for (int u = 0; u < GBK_PULL_AHEAD; ++u) next[u] = u < nn ? bt_idx[pn + u] : (IDX)0;
#pragma unroll
        for (int u = 0; u < GBK_PULL_AHEAD; ++u) {
            if (hit[u] && live) {
                const idx_t k = (idx_t)ks[u];
                T z = mul(dense[k * rows + i], bt_vals[pb + u], row, k, k, j);
                acc = have ? M::combine(acc, z) : z;
                have = true;
                if (M::is_any || reached_terminal<M>(acc)) live = false;
            }
        }
#pragma unroll
        for (int u = 0; u < GBK_PULL_AHEAD; ++u) ks[u] = next[u];
        pb = pn;
        n = nn;
    }
    return have;
}

}  // namespace gbk

// A warp per (column j, 32 frontier rows): item w is column w % ncols of the rows
// 32 * (w / ncols) onwards, lane l the row 32 * (w / ncols) + l.  Columns whose row of B' is
// longer than heavy_min are left (flag 0) to gbk_mxm_pull_heavy_t, so that no warp walks a
// hub's row alone while the others wait.  out/flag row-major (position i * ncols + j of the
// chunk), every position written.
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_mxm_pull_tiled(idx_t rows, idx_t ncols, idx_t r0, const unsigned char* allow,
                                   const unsigned char* present, const A* dense,
                                   const idx_t* bt_indptr, const IDX* bt_idx,
                                   const B* bt_vals, idx_t heavy_min, typename M::t* out,
                                   unsigned char* flag) {
    typedef typename M::t T;
    Mul mul(0);
    const int lane = gbk::lane();
    const idx_t items = ((rows + 31) >> 5) * ncols;
    for (idx_t w = gbk::global_warp(); w < items; w += gbk::warp_count()) {
        const idx_t it = w / ncols, j = w - it * ncols;
        const idx_t i = (it << 5) + lane;
        const idx_t pb = bt_indptr[j], eb = bt_indptr[j + 1];
        const bool live = i < rows && eb - pb <= heavy_min && allow[j * rows + i];
        T acc;
        const bool have = gbk::pull_tile<Mul, M, A, B, IDX>(
            mul, live, rows, i, r0 + i, j, pb, eb, present, dense, bt_idx, bt_vals, acc);
        if (i < rows) {
            const idx_t p = i * ncols + j;
            flag[p] = have ? 1 : 0;
            if (have) out[p] = acc;
        }
    }
}

// A warp per (chunk row i, heavy column j = heavy_j[w % nheavy]), i = w / nheavy, over the
// column-major layout: the columns gbk_mxm_pull_tiled left.
template <class Mul, class M, class A, class B, class IDX>
__global__ void gbk_mxm_pull_heavy_t(idx_t rows, idx_t nheavy, const idx_t* heavy_j,
                                     idx_t ncols, idx_t r0, const unsigned char* allow,
                                     const unsigned char* present, const A* dense,
                                     const idx_t* bt_indptr, const IDX* bt_idx,
                                     const B* bt_vals, typename M::t* out,
                                     unsigned char* flag) {
    typedef typename M::t T;
    Mul mul(0);
    const idx_t items = rows * nheavy;
    for (idx_t w = gbk::global_warp(); w < items; w += gbk::warp_count()) {
        const idx_t i = w / nheavy;
        const idx_t j = heavy_j[w - i * nheavy];
        if (!allow[j * rows + i]) continue;  // the same for the whole warp
        T acc = M::identity();
        const bool have = gbk::pull_warp<Mul, M, A, B, IDX>(
            mul, present + i, dense + i, rows, r0 + i, j, bt_indptr[j], bt_indptr[j + 1],
            bt_idx, bt_vals, acc);
        if (gbk::lane() == 0 && have) {
            const idx_t p = i * ncols + j;
            out[p] = acc;
            flag[p] = 1;
        }
    }
}

// The chunk's flagged outputs, in order, into C's entries from `base` on (scan: the exclusive
// scan of the flags).
template <class T>
__global__ void gbk_mxm_pull_compact(idx_t total, idx_t ncols, const unsigned char* flag,
                                     const idx_t* scan, const T* out, idx_t* c_idx,
                                     T* c_vals) {
    for (idx_t p = gbk::global_id(); p < total; p += gbk::grid_size()) {
        if (!flag[p]) continue;
        const idx_t at = scan[p];
        c_idx[at] = p % ncols;
        c_vals[at] = out[p];
    }
}
