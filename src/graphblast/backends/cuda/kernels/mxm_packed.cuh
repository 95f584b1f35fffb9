// Packed bitmaps by column: a BOOL batch of nrows <= 64 * W traversals (multi-source BFS's
// frontier, MS-BFS of Then et al., VLDB 2015), one bit a position, the W words of column j at
// [j * W, (j + 1) * W), row i at bit i % 64 of word i / 64, bits past nrows zero.  A step of
// a structural product (a pair product under `any` or `lor`: every entry True) reads one
// 8-byte word a neighbour for 64 sources, where the byte bitmaps of mxm_bitmap.cuh read 64:
//
//   pull: out[j] = (OR over k in column j of B of F[k]) & allowed(j), stopping once every
//         allowed bit is found;
//   push: out[j] |= F[k] for every entry (k, j) of B with F[k] != 0 (an atomic OR, skipped
//         where the word already holds the bits), the mask applied afterwards;
//
// then gbk_packed_finish applies the mask (allowed = ~M or M, past nrows nothing) and counts
// the result's bits into counters[0] and the degrees of its nonzero words over deg_ptr into
// counters[1] (push's work for the next step: a word is pushed along its row once, for all
// its bits).  Rows of B (push) or of B' (pull) longer than heavy_min are taken in chunks by a
// warp each (the _chunks kernels); rows longer than 32 entries by the whole warp in turn.
// The counts are summed over each block, one atomic per block (gbk::add_counts): an atomic
// per warp and word range serialized up to 131,072 of them on one counter (64 sources on
// kron-22's 4.2 million words).  B's indices stream through L2 (gbk::ld_stream), read once
// a step, so that they do not evict the frontier's words, which pull gathers at random.
#pragma once
#include "common.cuh"
#include "mv_common.cuh"

namespace gbk {

typedef unsigned long long pword_t;

// The bits of word g of a column of `rows` rows that are rows.
__device__ __forceinline__ pword_t packed_valid(idx_t rows, idx_t g) {
    const idx_t left = rows - (g << 6);
    return left >= 64 ? ~0ull : ((1ull << left) - 1ull);
}

// The bits of word w (word g of its column) that the mask (m_words: a packed mask, or null
// for none) lets through.
__device__ __forceinline__ pword_t packed_allowed(const pword_t* m_words, int complement,
                                                  idx_t w, idx_t rows, idx_t g) {
    const pword_t m = m_words != nullptr ? m_words[w] : 0ull;
    return (complement ? ~m : m) & packed_valid(rows, g);
}

// The OR of x over the warp, on every lane.
__device__ __forceinline__ pword_t warp_or_word(pword_t x) {
    const unsigned lo = __reduce_or_sync(GBK_ALL_LANES, (unsigned)x);
    const unsigned hi = __reduce_or_sync(GBK_ALL_LANES, (unsigned)(x >> 32));
    return ((pword_t)hi << 32) | (pword_t)lo;
}

// bits OR'ed into *w, with an atomic only where *w lacks some of them.
__device__ __forceinline__ void packed_or(pword_t* w, pword_t bits) {
    if (bits & ~*(volatile pword_t*)w) atomicOr(w, bits);
}

// Word w of F's rows ORed over entries [pb, eb) of a row of B' (pull), by the whole warp,
// 32 entries a step, until every allowed bit is found (`seen`: bits found elsewhere).
template <class IDX>
__device__ __forceinline__ pword_t packed_gather_warp(const pword_t* f_words, idx_t W,
                                                      idx_t g, pword_t allowed, idx_t pb,
                                                      idx_t eb, const IDX* bt_idx,
                                                      const pword_t* seen) {
    pword_t acc = 0ull;
    for (idx_t at = pb; at < eb; at += 32) {
        const idx_t e = at + lane();
        const pword_t v = e < eb ? f_words[(idx_t)ld_stream(&bt_idx[e]) * W + g] : 0ull;
        acc |= warp_or_word(v) & allowed;
        const pword_t done = seen != nullptr ? (acc | *(volatile const pword_t*)seen) : acc;
        if (done == allowed) break;  // the same on every lane
    }
    return acc;
}

}  // namespace gbk

// -- packing and unpacking -------------------------------------------------------------------

// CSR entries (rows[e], idx[e]) that let their position count (mkind: gbk::mask_value) into
// zeroed packed words by column.
__global__ void gbk_packed_from_list(idx_t ne, const idx_t* rows, const idx_t* idx,
                                     const void* m_vals, int mkind, idx_t W,
                                     unsigned long long* words) {
    for (idx_t e = gbk::global_id(); e < ne; e += gbk::grid_size()) {
        if (gbk::mask_value(m_vals, e, mkind)) {
            const idx_t i = rows[e];
            atomicOr(words + idx[e] * W + (i >> 6), 1ull << (i & 63));
        }
    }
}

// A byte bitmap by column (bits; values m_vals read by mkind) packed, a warp a word: its 64
// rows' bytes read side by side (two coalesced reads), their bits gathered by ballots.
__global__ void gbk_packed_from_bitmap(idx_t rows, idx_t ncols, idx_t W,
                                       const unsigned char* bits, const void* m_vals,
                                       int mkind, unsigned long long* words) {
    const idx_t total = ncols * W;
    for (idx_t w = gbk::global_warp(); w < total; w += gbk::warp_count()) {
        const idx_t j = w / W, g = w - j * W;
        const idx_t i0 = (g << 6) + gbk::lane(), i1 = i0 + 32;
        const idx_t p = j * rows;
        const bool b0 = i0 < rows && bits[p + i0] && gbk::mask_value(m_vals, p + i0, mkind);
        const bool b1 = i1 < rows && bits[p + i1] && gbk::mask_value(m_vals, p + i1, mkind);
        const unsigned lo = __ballot_sync(GBK_ALL_LANES, b0);
        const unsigned hi = __ballot_sync(GBK_ALL_LANES, b1);
        if (gbk::lane() == 0) words[w] = ((unsigned long long)hi << 32) | lo;
    }
}

// Packed words by column unpacked into a presence byte a position (position (i, j) at
// j * rows + i).
__global__ void gbk_packed_to_bitmap(idx_t rows, idx_t total, idx_t W,
                                     const unsigned long long* words, unsigned char* bits) {
    for (idx_t p = gbk::global_id(); p < total; p += gbk::grid_size()) {
        const idx_t j = p / rows, i = p - j * rows;
        bits[p] = (unsigned char)((words[j * W + (i >> 6)] >> (i & 63)) & 1ull);
    }
}

// -- pull ------------------------------------------------------------------------------------

// A lane a word w = (column j, word g) of the result, warps over 32 consecutive words: lanes
// whose row j of B' has at most 32 entries walk it alone, those with more (up to heavy_min)
// are walked by the whole warp in turn, 32 entries a step; both stop once every allowed bit
// is found.  Columns longer than heavy_min are written 0 here and ORed by
// gbk_packed_pull_chunks after.
template <class IDX>
__global__ void gbk_packed_pull(idx_t rows, idx_t ncols, idx_t W,
                                const unsigned long long* m_words, int complement,
                                const unsigned long long* f_words, const idx_t* bt_indptr,
                                const IDX* bt_idx, idx_t heavy_min, unsigned long long* out) {
    const idx_t total = ncols * W;
    const idx_t span = (total + 31) & ~(idx_t)31;
    for (idx_t w = gbk::global_id(); w < span; w += gbk::grid_size()) {
        const bool in = w < total;
        const idx_t j = in ? w / W : 0, g = in ? w - j * W : 0;
        const gbk::pword_t allowed = in ? gbk::packed_allowed(m_words, complement, w, rows, g)
                                        : 0ull;
        const idx_t pb = allowed ? bt_indptr[j] : 0, eb = allowed ? bt_indptr[j + 1] : 0;
        const idx_t len = eb - pb;
        const bool wide = len > 32 && len <= heavy_min;
        gbk::pword_t acc = 0ull;
        for (unsigned left = __ballot_sync(GBK_ALL_LANES, wide); left; left &= left - 1) {
            const int s = __ffs(left) - 1;
            const gbk::pword_t a = gbk::packed_gather_warp<IDX>(
                f_words, W, __shfl_sync(GBK_ALL_LANES, g, s),
                __shfl_sync(GBK_ALL_LANES, allowed, s), __shfl_sync(GBK_ALL_LANES, pb, s),
                __shfl_sync(GBK_ALL_LANES, eb, s), bt_idx, nullptr);
            if (gbk::lane() == s) acc = a;
        }
        if (allowed && len <= 32) {
            for (idx_t e = pb; e < eb; ++e) {
                acc |= f_words[(idx_t)gbk::ld_stream(&bt_idx[e]) * W + g] & allowed;
                if (acc == allowed) break;
            }
        }
        if (in) out[w] = acc;
    }
}

// The chunks of the heavy columns: chunk c is row chunk_j[c] of B' from entry chunk_lo[c], at
// most `chunk` entries; item it = c * W + g, a warp each, ORed into out atomically (stopping
// once the word holds every allowed bit).
template <class IDX>
__global__ void gbk_packed_pull_chunks(idx_t rows, idx_t W, idx_t nchunks,
                                       const idx_t* chunk_j, const idx_t* chunk_lo,
                                       idx_t chunk, const unsigned long long* m_words,
                                       int complement, const unsigned long long* f_words,
                                       const idx_t* bt_indptr, const IDX* bt_idx,
                                       unsigned long long* out) {
    const idx_t items = nchunks * W;
    for (idx_t it = gbk::global_warp(); it < items; it += gbk::warp_count()) {
        const idx_t c = it / W, g = it - c * W;
        const idx_t j = chunk_j[c], w = j * W + g;
        const gbk::pword_t allowed = gbk::packed_allowed(m_words, complement, w, rows, g);
        if (!allowed) continue;  // warp-wide
        const idx_t pb = chunk_lo[c], end = bt_indptr[j + 1];
        const gbk::pword_t acc = gbk::packed_gather_warp<IDX>(
            f_words, W, g, allowed, pb, pb + chunk < end ? pb + chunk : end, bt_idx, out + w);
        if (gbk::lane() == 0 && acc) gbk::packed_or(out + w, acc);
    }
}

// -- push ------------------------------------------------------------------------------------

// A lane a word w = (row k of B, word g) of F, warps over 32 consecutive words: F[w] ORed
// into the result's word g of every column j of row k; rows of more than 32 entries (up to
// heavy_min) by the whole warp in turn, longer ones left to gbk_packed_push_chunks.  `out`
// zeroed first; the mask is applied by gbk_packed_finish.
template <class IDX>
__global__ void gbk_packed_push(idx_t nk, idx_t W, const unsigned long long* f_words,
                                const idx_t* b_indptr, const IDX* b_idx, idx_t heavy_min,
                                unsigned long long* out) {
    const idx_t total = nk * W;
    const idx_t span = (total + 31) & ~(idx_t)31;
    for (idx_t w = gbk::global_id(); w < span; w += gbk::grid_size()) {
        const gbk::pword_t f = w < total ? f_words[w] : 0ull;
        const idx_t k = f ? w / W : 0, g = f ? w - k * W : 0;
        const idx_t pb = f ? b_indptr[k] : 0, eb = f ? b_indptr[k + 1] : 0;
        const idx_t len = eb - pb;
        for (unsigned left = __ballot_sync(GBK_ALL_LANES, len > 32 && len <= heavy_min); left;
             left &= left - 1) {
            const int s = __ffs(left) - 1;
            const gbk::pword_t fs = __shfl_sync(GBK_ALL_LANES, f, s);
            const idx_t gs = __shfl_sync(GBK_ALL_LANES, g, s);
            const idx_t es = __shfl_sync(GBK_ALL_LANES, eb, s);
            for (idx_t e = __shfl_sync(GBK_ALL_LANES, pb, s) + gbk::lane(); e < es; e += 32)
                gbk::packed_or(out + (idx_t)gbk::ld_stream(&b_idx[e]) * W + gs, fs);
        }
        if (len <= 32) {
            for (idx_t e = pb; e < eb; ++e)
                gbk::packed_or(out + (idx_t)gbk::ld_stream(&b_idx[e]) * W + g, f);
        }
    }
}

// The chunks of B's heavy rows: chunk c is row chunk_k[c] from entry chunk_lo[c], at most
// `chunk` entries; item it = c * W + g, a warp each.
template <class IDX>
__global__ void gbk_packed_push_chunks(idx_t W, idx_t nchunks, const idx_t* chunk_k,
                                       const idx_t* chunk_lo, idx_t chunk,
                                       const unsigned long long* f_words,
                                       const idx_t* b_indptr, const IDX* b_idx,
                                       unsigned long long* out) {
    const idx_t items = nchunks * W;
    for (idx_t it = gbk::global_warp(); it < items; it += gbk::warp_count()) {
        const idx_t c = it / W, g = it - c * W;
        const idx_t k = chunk_k[c];
        const gbk::pword_t f = f_words[k * W + g];
        if (!f) continue;  // warp-wide
        const idx_t pb = chunk_lo[c], end = b_indptr[k + 1];
        const idx_t eb = pb + chunk < end ? pb + chunk : end;
        for (idx_t e = pb + gbk::lane(); e < eb; e += 32)
            gbk::packed_or(out + (idx_t)gbk::ld_stream(&b_idx[e]) * W + g, f);
    }
}

// -- the result: masked and counted ----------------------------------------------------------

// out &= allowed, a thread a word; its bits counted into counters[0] and the degrees over
// deg_ptr (null: none) of its nonzero words into counters[1].
__global__ void gbk_packed_finish(idx_t rows, idx_t ncols, idx_t W,
                                  const unsigned long long* m_words, int complement,
                                  const idx_t* deg_ptr, unsigned long long* out,
                                  unsigned long long* counters) {
    const idx_t total = ncols * W;
    unsigned long long bits = 0ull, deg = 0ull;
    for (idx_t w = gbk::global_id(); w < total; w += gbk::grid_size()) {
        const idx_t j = w / W, g = w - j * W;
        const gbk::pword_t o = out[w];
        const gbk::pword_t kept = o & gbk::packed_allowed(m_words, complement, w, rows, g);
        if (kept != o) out[w] = kept;
        bits += (unsigned long long)__popcll(kept);
        if (kept && deg_ptr != nullptr)
            deg += (unsigned long long)(deg_ptr[j + 1] - deg_ptr[j]);
    }
    gbk::add_counts(counters, bits, deg);
}

// C(M) = value at the bits of a packed mask (M: not complemented), into the byte bitmap by
// column C in place, a lane a word: the warp takes its nonzero words in turn, its lanes
// writing rows g*64 + lane and + 32 of the word's column side by side (64 bytes and
// values, coalesced, never read); C's structure packed (c_words) ORed with the mask's words
// and the positions new to C (the mask's bits it lacked) counted into counters[0].
template <class T>
__global__ void gbk_packed_assign_scalar(idx_t rows, idx_t ncols, idx_t W,
                                         const unsigned long long* m_words,
                                         unsigned char* c_bits, T* c_vals, T value,
                                         unsigned long long* c_words,
                                         unsigned long long* counters) {
    const idx_t total = ncols * W;
    const idx_t span = (total + 31) & ~(idx_t)31;
    unsigned long long fresh = 0ull;
    for (idx_t w = gbk::global_id(); w < span; w += gbk::grid_size()) {
        const gbk::pword_t m =
            w < total ? m_words[w] & gbk::packed_valid(rows, w - (w / W) * W) : 0ull;
        if (m) {
            const gbk::pword_t c = c_words[w];
            if (m & ~c) {
                fresh += (unsigned long long)__popcll(m & ~c);
                c_words[w] = c | m;
            }
        }
        for (unsigned left = __ballot_sync(GBK_ALL_LANES, m != 0ull); left; left &= left - 1) {
            const int s = __ffs(left) - 1;
            const gbk::pword_t ms = __shfl_sync(GBK_ALL_LANES, m, s);
            const idx_t ws = (w - gbk::lane()) + s;
            const idx_t j = ws / W, g = ws - j * W;
            const idx_t base = j * rows + (g << 6);
            for (int half = 0; half < 64; half += 32) {
                const int b = half + gbk::lane();
                if ((ms >> b) & 1ull) {
                    c_bits[base + b] = 1;
                    c_vals[base + b] = value;
                }
            }
        }
    }
    gbk::add_counts(counters, fresh, 0ull);
}
