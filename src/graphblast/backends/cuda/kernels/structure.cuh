// Structure kernels shared by several primitives: expanding counts into (source, occurrence)
// pairs, the row of every entry of a CSR matrix, runs of equal pairs, and whether user CSR
// arrays are canonical.
#pragma once
#include "common.cuh"

// For every output p < total: src[p] = the s with scan[s] <= p < scan[s + 1] (scan: an
// exclusive scan of n counts, scan[n] = total), occ[p] = p - scan[s].  occ may be null.
// With scan = indptr this gives the row of every entry.
__global__ void gbk_expand(idx_t total, idx_t n, const idx_t* scan, idx_t* src, idx_t* occ) {
    for (idx_t p = gbk::global_id(); p < total; p += gbk::grid_size()) {
        idx_t s = gbk::upper_bound(scan, 0, n + 1, p) - 1;
        src[p] = s;
        if (occ) occ[p] = p - scan[s];
    }
}

// CSR row pointers from the sorted row of every entry, in two passes without atomics (a
// histogram's atomics serialize on a long row: 37 ms for the 90 million entries of
// triangle counting's g500-21, against two reads of the rows): gbk_row_run_firsts writes
// where each row's run starts, gbk_row_run_lengths the length of each run to count[row]
// (count pre-zeroed: an empty row keeps 0); an inclusive scan of count gives the pointers.
__global__ void gbk_row_run_firsts(idx_t n, const idx_t* rows, idx_t* first) {
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size())
        if (p == 0 || rows[p] != rows[p - 1]) first[rows[p]] = p;
}

__global__ void gbk_row_run_lengths(idx_t n, const idx_t* rows, const idx_t* first,
                                    idx_t* count) {
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size())
        if (p + 1 == n || rows[p + 1] != rows[p]) count[rows[p]] = p + 1 - first[rows[p]];
}

// Rows by degree class (blocks.degree_classes: the traversal kernels' view of a matrix, the
// permutation's row sorts): class c holds the rows whose degree is in [b_c, b_{c+1})
// (c = 0..3), in increasing row order, and *big counts the rows of degree >= also.  Two
// passes over the row pointers with a warp per window of 32 rows instead of a comparison, a
// count and a compaction per class (12 ms for the 134 million rows of kron-27's sample,
// against two reads of its row pointers): gbk_degree_classes_count writes how many rows of
// each class each window holds (wcount[4 w + c]); gbk_degree_classes_fill writes window w's
// rows of class c from offsets[4 w + c] on (an exclusive scan of wcount over the windows,
// plus the class's start).  The order is the rows' own, as a compaction's would be: the
// traversal kernels' warps then take neighbouring rows together (a grid's or a geometric
// graph's neighbours share cache lines; with the rows in the order of an atomic's arrivals,
// the record had PageRank 25 % slower on rgg-22).
namespace gbk {
// The degree d of row i (-1 past the end, n) and its class (-1: in none).
__device__ __forceinline__ int degree_class(const idx_t* indptr, idx_t n, idx_t i, idx_t b0,
                                            idx_t b1, idx_t b2, idx_t b3, idx_t b4, idx_t& d) {
    d = i < n ? indptr[i + 1] - indptr[i] : -1;
    return d < b0 ? -1 : d < b1 ? 0 : d < b2 ? 1 : d < b3 ? 2 : d < b4 ? 3 : -1;
}
}  // namespace gbk

__global__ void gbk_degree_classes_count(idx_t n, const idx_t* indptr, idx_t b0, idx_t b1,
                                         idx_t b2, idx_t b3, idx_t b4, idx_t also,
                                         idx_t* wcount, unsigned long long* big) {
    const int lane = gbk::lane();
    for (idx_t i0 = gbk::global_warp() * 32; i0 < n; i0 += gbk::warp_count() * 32) {
        idx_t d;
        const int c = gbk::degree_class(indptr, n, i0 + lane, b0, b1, b2, b3, b4, d);
        for (int k = 0; k < 4; ++k) {
            const unsigned mask = __ballot_sync(GBK_ALL_LANES, c == k);
            if (lane == 0) wcount[4 * (i0 >> 5) + k] = __popc(mask);
        }
        const unsigned many = __ballot_sync(GBK_ALL_LANES, d >= also);
        if (lane == 0 && many) atomicAdd(big, (unsigned long long)__popc(many));
    }
}

__global__ void gbk_degree_classes_fill(idx_t n, const idx_t* indptr, idx_t b0, idx_t b1,
                                        idx_t b2, idx_t b3, idx_t b4, const idx_t* offsets,
                                        idx_t* out) {
    const int lane = gbk::lane();
    const unsigned below = (1u << lane) - 1u;
    for (idx_t i0 = gbk::global_warp() * 32; i0 < n; i0 += gbk::warp_count() * 32) {
        idx_t d;
        const int c = gbk::degree_class(indptr, n, i0 + lane, b0, b1, b2, b3, b4, d);
        for (int k = 0; k < 4; ++k) {
            const unsigned mask = __ballot_sync(GBK_ALL_LANES, c == k);
            if (c == k) out[offsets[4 * (i0 >> 5) + k] + __popc(mask & below)] = i0 + lane;
        }
    }
}

// flags[p] = 1 where a run of equal (row, col) pairs starts in sorted COO arrays.
__global__ void gbk_pair_run_starts(idx_t n, const idx_t* rows, const idx_t* cols,
                                    unsigned char* flags) {
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size())
        flags[p] = (p == 0 || rows[p] != rows[p - 1] || cols[p] != cols[p - 1]) ? 1 : 0;
}

// flags[p] = 1 where a run of equal pairs ends (the last duplicate wins in assign).
__global__ void gbk_pair_run_ends(idx_t n, const idx_t* rows, const idx_t* cols,
                                  unsigned char* flags) {
    for (idx_t p = gbk::global_id(); p < n; p += gbk::grid_size())
        flags[p] = (p + 1 == n || rows[p] != rows[p + 1] || cols[p] != cols[p + 1]) ? 1 : 0;
}

// *unsorted = 1 when some row of a CSR structure has a column index that is not greater than
// the one before it in the row (rows out of order or with duplicates); left as it is otherwise.
// One thread per entry, so a long row is checked in parallel; only where an index does not
// increase is its row looked up (binary search), to see whether it starts the row.  Every
// writer stores the same 1, so the race is harmless.
__global__ void gbk_csr_unsorted(idx_t nnz, idx_t nrows, const idx_t* indptr,
                                 const idx_t* indices, unsigned char* unsorted) {
    for (idx_t p = gbk::global_id(); p < nnz; p += gbk::grid_size()) {
        if (p == 0 || indices[p] > indices[p - 1]) continue;
        if (indptr[gbk::row_of(indptr, nrows, p)] != p) *unsorted = 1;
    }
}

// select.colle / colgt (row_step 0) and tril / triu (row_step 1) on sorted rows, without a
// flag per entry: row i keeps its entries below column cut + row_step * i (low) or from
// there on (!low), one contiguous range, found by a binary search per row.  first[i] is
// where the range starts, count[i] its length; a row keeping more than `longest` entries is
// appended to long_rows (its count in *nlong), for gbk_copy_ranges' block-per-row pass.
template <class IDX>
__global__ void gbk_column_cut(idx_t nrows, const idx_t* indptr, const IDX* col, idx_t cut,
                               idx_t row_step, int low, idx_t longest, idx_t* first,
                               idx_t* count, idx_t* long_rows, unsigned long long* nlong) {
    for (idx_t i = gbk::global_id(); i < nrows; i += gbk::grid_size()) {
        const idx_t lo = indptr[i], hi = indptr[i + 1];
        const idx_t c = gbk::lower_bound(col, lo, hi, cut + row_step * i);
        first[i] = low ? lo : c;
        count[i] = low ? c - lo : hi - c;
        if (count[i] > longest) long_rows[atomicAdd(nlong, 1ULL)] = i;
    }
}

namespace gbk {
// The lane l of a group of 32 consecutive rows whose output range holds position q, from
// the rows' starts (lane l holds row l's, nondecreasing; empty rows repeat a start): the
// last lane whose start is <= q, by a binary search over the lanes with shuffles.  Every
// lane of the warp must call it.
__device__ __forceinline__ int group_row(idx_t start, idx_t q) {
    int l = 0;
    for (int step = 16; step > 0; step >>= 1)
        if (__shfl_sync(GBK_ALL_LANES, start, l + step) <= q) l += step;
    return l;
}
}  // namespace gbk

// The kept ranges copied to out_ptr[i].  With `rows` null: a warp per group of 32
// consecutive rows i < n, whose ranges are contiguous in the output, so the lanes copy the
// group's span together, coalesced (a warp per row left most lanes idle on the short rows
// of a graph's sample: 10.9 ms for kron-27's 134 million rows, against one pass over the
// entries); a range longer than `longest` is jumped over, left to the second pass.  With
// `rows`: a block per listed row rows[0..n-1] (the long ones).  W is a word of the values'
// size; vals null: an iso matrix, no values.
template <class IDX, class W>
__global__ void gbk_copy_ranges(idx_t n, const idx_t* rows, const idx_t* first,
                                const idx_t* out_ptr, const IDX* col, const W* vals,
                                idx_t longest, IDX* out_col, W* out_vals) {
    if (rows != nullptr) {
        for (idx_t h = blockIdx.x; h < n; h += gridDim.x) {
            const idx_t i = rows[h];
            const idx_t len = out_ptr[i + 1] - out_ptr[i];
            const idx_t src = first[i], dst = out_ptr[i];
            for (idx_t k = threadIdx.x; k < len; k += blockDim.x) {
                out_col[dst + k] = col[src + k];
                if (vals) out_vals[dst + k] = vals[src + k];
            }
        }
        return;
    }
    const int lane = gbk::lane();
    for (idx_t i0 = gbk::global_warp() * 32; i0 < n; i0 += gbk::warp_count() * 32) {
        const idx_t start = out_ptr[i0 + lane < n ? i0 + lane : n];
        const idx_t end = out_ptr[i0 + 32 < n ? i0 + 32 : n];
        idx_t base = __shfl_sync(GBK_ALL_LANES, start, 0);
        while (base < end) {
            // the range holding `base` (the same for every lane): a long one is skipped whole
            const int lb = gbk::group_row(start, base);
            const idx_t lb_next = __shfl_sync(GBK_ALL_LANES, start, lb < 31 ? lb + 1 : 31);
            const idx_t lb_end = lb == 31 ? end : lb_next;
            if (lb_end - __shfl_sync(GBK_ALL_LANES, start, lb) > longest) {
                base = lb_end;
                continue;
            }
            const idx_t q = base + lane;
            const int l = gbk::group_row(start, q);
            const idx_t l_start = __shfl_sync(GBK_ALL_LANES, start, l);
            const idx_t l_next = __shfl_sync(GBK_ALL_LANES, start, l < 31 ? l + 1 : 31);
            const idx_t l_end = l == 31 ? end : l_next;
            if (q < end && l_end - l_start <= longest) {
                const idx_t src = first[i0 + l] + (q - l_start);
                out_col[q] = col[src];
                if (vals) out_vals[q] = vals[src];
            }
            base += 32;
        }
    }
}

// A[I, J] for J a list of distinct columns (triangle counting's A[p, p]): new row r is source
// row src[r] (src null: row r) with every column c renamed inv[c] (-1: c is not in J, the
// entry is dropped), sorted again by the new names, written from out_ptr[r] on (out_ptr
// counts the kept entries: gbk_permute_rows_kept where J leaves columns out).  The source
// rows are canonical (increasing columns), so a row's new names are distinct.  Each row is
// sorted where it is small: a warp per row of at most 32 entries, in registers (a bitonic
// network over the lanes); a block per row of at most permute_block<OUT>::max entries (what
// 48 KB of shared memory holds: 8,192 32-bit names or 4,096 64-bit ones, with their 16-bit
// places), in shared memory.  Longer rows are left to the caller (one radix sort of their
// entries).  This replaces a sort of every entry's 64-bit (row, column) key: the rows keep
// their places, only their entries move.  The values move as words W of their size; vals
// null: an iso matrix, no values.  `rows` lists the rows each kernel takes (a degree class
// of the source rows' lengths: gbk_degree_classes_*).
namespace gbk {
template <class OUT> struct permute_block { static const int max = 4096; };
template <> struct permute_block<int> { static const int max = 8192; };

// a key above every column name (the padding of a sorting network)
template <class T> __device__ __forceinline__ T max_value();
template <> __device__ __forceinline__ int max_value<int>() { return 0x7fffffff; }
template <> __device__ __forceinline__ long long max_value<long long>() {
    return 0x7fffffffffffffffLL;
}

// New row r of a permutation: where its source row starts and how long it is, where it goes
// and how many of its entries J keeps.
struct permuted_row {
    idx_t p, dst;
    int len, kept;
    __device__ __forceinline__ permuted_row(idx_t r, const idx_t* src, const idx_t* indptr,
                                            const idx_t* out_ptr) {
        const idx_t s = src ? src[r] : r;
        p = indptr[s];
        len = (int)(indptr[s + 1] - p);
        dst = out_ptr[r];
        kept = (int)(out_ptr[r + 1] - dst);
    }
};

// entry q's new name, or the padding key where the entry is dropped (sorted past the kept)
template <class IDX, class OUT>
__device__ __forceinline__ OUT permuted_name(const IDX* col, const OUT* inv, idx_t q) {
    const OUT name = inv[col[q]];
    return name >= 0 ? name : max_value<OUT>();
}
}  // namespace gbk

// The entries of each new row that J keeps (a warp per row; kept[r] for row r).
template <class IDX, class OUT>
__global__ void gbk_permute_rows_kept(idx_t n, const idx_t* src, const idx_t* indptr,
                                      const IDX* col, const OUT* inv, idx_t* kept) {
    const int lane = gbk::lane();
    for (idx_t r = gbk::global_warp(); r < n; r += gbk::warp_count()) {
        const idx_t s = src ? src[r] : r;
        const idx_t end = indptr[s + 1];
        idx_t count = 0;
        for (idx_t base = indptr[s]; base < end; base += 32) {
            const idx_t q = base + lane;
            count += __popc(__ballot_sync(GBK_ALL_LANES, q < end && inv[col[q]] >= 0));
        }
        if (lane == 0) kept[r] = count;
    }
}

// PageRank's pull matrix in degree order (pull_in_degree_order): new row r is source row
// order[r] copied with every column c renamed rank[c], its entries left in their stored order
// (a pull sums a row in any order; sorting every row again is what made A[p, p] take 15 times
// as long on kron-27).  A warp per row; values moved as words W (vals null: iso).  The
// renaming is a random gather per entry (rank does not fit in L2 on kron-27), so a lane
// loads GBK_RENUMBER_ILP column indices, then their names, then writes them: gathers in
// flight bound it, not idle lanes (on an H100, kron-27: 154 ms with one gather a lane at a
// time, 127 with four; a group of lanes sized by each row's length, 1 to 32, measured the
// same as a warp).
#define GBK_RENUMBER_ILP 4
template <class IDX, class OUT, class W>
__global__ void gbk_renumber_rows(idx_t n, const idx_t* order, const idx_t* indptr,
                                  const IDX* col, const W* vals, const OUT* rank,
                                  const idx_t* out_ptr, OUT* out_col, W* out_vals) {
    const int lane = gbk::lane();
    for (idx_t r = gbk::global_warp(); r < n; r += gbk::warp_count()) {
        const idx_t s = order[r];
        const idx_t p = indptr[s], len = indptr[s + 1] - p, dst = out_ptr[r];
        for (idx_t base = lane; base < len; base += 32 * GBK_RENUMBER_ILP) {
            IDX c[GBK_RENUMBER_ILP];
            OUT name[GBK_RENUMBER_ILP];
#pragma unroll
            for (int u = 0; u < GBK_RENUMBER_ILP; ++u) {
                const idx_t k = base + 32 * u;
                c[u] = k < len ? col[p + k] : IDX(0);
            }
#pragma unroll
            for (int u = 0; u < GBK_RENUMBER_ILP; ++u) {
                if (base + 32 * u < len) name[u] = rank[c[u]];
            }
#pragma unroll
            for (int u = 0; u < GBK_RENUMBER_ILP; ++u) {
                const idx_t k = base + 32 * u;
                if (k < len) {
                    out_col[dst + k] = name[u];
                    if (vals) out_vals[dst + k] = vals[p + k];
                }
            }
        }
    }
}

template <class IDX, class OUT, class W>
__global__ void gbk_permute_rows_warp(idx_t n, const idx_t* rows, const idx_t* src,
                                      const idx_t* indptr, const IDX* col, const W* vals,
                                      const OUT* inv, const idx_t* out_ptr, OUT* out_col,
                                      W* out_vals) {
    const int lane = gbk::lane();
    for (idx_t w = gbk::global_warp(); w < n; w += gbk::warp_count()) {
        const gbk::permuted_row row(rows[w], src, indptr, out_ptr);
        const idx_t p = row.p, dst = row.dst;
        const int len = row.len, kept = row.kept;
        OUT key = lane < len ? gbk::permuted_name(col, inv, p + lane) : gbk::max_value<OUT>();
        int pos = lane;
        for (int k = 2; k <= 32; k <<= 1) {
            for (int j = k >> 1; j > 0; j >>= 1) {
                const OUT other = __shfl_xor_sync(GBK_ALL_LANES, key, j);
                const int other_pos = __shfl_xor_sync(GBK_ALL_LANES, pos, j);
                // the lower lane of a pair keeps the smaller key where this run ascends
                const bool keep_small = ((lane & j) == 0) == ((lane & k) == 0);
                if (keep_small ? other < key : other > key) {
                    key = other;
                    pos = other_pos;
                }
            }
        }
        if (lane < kept) {
            out_col[dst + lane] = key;
            if (vals) out_vals[dst + lane] = vals[p + pos];
        }
    }
}

template <class IDX, class OUT, class W>
__global__ void gbk_permute_rows_block(idx_t n, const idx_t* rows, const idx_t* src,
                                       const idx_t* indptr, const IDX* col, const W* vals,
                                       const OUT* inv, const idx_t* out_ptr, OUT* out_col,
                                       W* out_vals) {
    __shared__ OUT skey[gbk::permute_block<OUT>::max];
    __shared__ short spos[gbk::permute_block<OUT>::max];
    for (idx_t h = blockIdx.x; h < n; h += gridDim.x) {
        const gbk::permuted_row row(rows[h], src, indptr, out_ptr);
        const idx_t p = row.p, dst = row.dst;
        const int len = row.len, kept = row.kept;
        int size = 64;
        while (size < len) size <<= 1;
        for (int t = threadIdx.x; t < size; t += blockDim.x) {
            skey[t] = t < len ? gbk::permuted_name(col, inv, p + t) : gbk::max_value<OUT>();
            spos[t] = (short)t;
        }
        __syncthreads();
        for (int k = 2; k <= size; k <<= 1) {
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int t = threadIdx.x; t < size; t += blockDim.x) {
                    const int partner = t ^ j;
                    if (partner <= t) continue;
                    const OUT a = skey[t], b = skey[partner];
                    // ascending runs put the smaller key first, descending ones the larger
                    if ((t & k) == 0 ? a > b : a < b) {
                        skey[t] = b;
                        skey[partner] = a;
                        const short q = spos[t];
                        spos[t] = spos[partner];
                        spos[partner] = q;
                    }
                }
                __syncthreads();
            }
        }
        for (int t = threadIdx.x; t < kept; t += blockDim.x) {
            out_col[dst + t] = skey[t];
            if (vals) out_vals[dst + t] = vals[p + spos[t]];
        }
        __syncthreads();  // the next row reuses the shared arrays
    }
}
