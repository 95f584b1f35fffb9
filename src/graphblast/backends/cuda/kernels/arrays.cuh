// Array helpers: the element-wise steps the CUDA backend takes between its own kernels
// (casts, fills, ranges, counts, compaction, gathers and scatters).  CuPy's functions for
// these are element-wise or reduction kernels that CuPy compiles on their first use (about
// 0.3 s each in a fresh process); these are templates of the kernel catalogue, compiled when
// the package is built (see backends/cuda/arrays.py).
#pragma once

#include "common.cuh"

// out[i] = in[i] cast to Z with GraphBLAS's rules (gbk::cast: to bool is != 0, a float to an
// integer saturates, NaN to 0).
template <class A, class Z>
__global__ void gbk_convert(idx_t n, const A* __restrict__ in, Z* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        out[i] = gbk::cast<Z>(in[i]);
}

template <class T>
__global__ void gbk_fill(idx_t n, T value, T* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        out[i] = value;
}

// out[i] = start + i * step
template <class T>
__global__ void gbk_iota(idx_t n, T start, T step, T* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        out[i] = (T)(start + (T)i * step);
}

// *count += the number of in[i] != value (count zeroed by the caller; value 0: the nonzero
// entries): a ballot per warp, one atomic per warp.
template <class T>
__global__ void gbk_count_nonzero(idx_t n, const T* __restrict__ in, T value,
                                  unsigned long long* __restrict__ count) {
    idx_t stride = (idx_t)gridDim.x * blockDim.x;
    idx_t end = (n + 31) / 32 * 32;  // every lane of a warp takes part in each ballot
    unsigned long long mine = 0;
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < end; i += stride) {
        bool nz = i < n && in[i] != value;
        unsigned int votes = __ballot_sync(GBK_ALL_LANES, nz);
        if ((threadIdx.x & 31) == 0) mine += __popc(votes);
    }
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(count, mine);
}

// flags[i] = in[i] != 0 as int64, to be scanned in place (CUB) for gbk_compact_positions.
template <class T>
__global__ void gbk_nonzero_flags(idx_t n, const T* __restrict__ in, idx_t* __restrict__ flags) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        flags[i] = in[i] != (T)0;
}

// out[inclusive[i] - 1] = i where position i was flagged (its inclusive count steps up).
__global__ void gbk_compact_positions(idx_t n, const idx_t* __restrict__ inclusive,
                                      idx_t* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {
        idx_t before = i ? inclusive[i - 1] : 0;
        if (inclusive[i] != before) out[before] = i;
    }
}

// out[k] = in[index[k]]
template <class T, class I>
__global__ void gbk_gather(idx_t n, const T* __restrict__ in, const I* __restrict__ index,
                           T* __restrict__ out) {
    for (idx_t k = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; k < n;
         k += (idx_t)gridDim.x * blockDim.x)
        out[k] = in[index[k]];
}

// out[index[k]] = in[k] (distinct indices; with repeats one of the values lands)
template <class T, class I>
__global__ void gbk_scatter(idx_t n, const T* __restrict__ in, const I* __restrict__ index,
                            T* __restrict__ out) {
    for (idx_t k = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; k < n;
         k += (idx_t)gridDim.x * blockDim.x)
        out[index[k]] = in[k];
}

// out[i] = in[i + 1] - in[i] for i < n (row lengths from row pointers)
template <class T>
__global__ void gbk_adjacent_diff(idx_t n, const T* __restrict__ in, T* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        out[i] = in[i + 1] - in[i];
}

// Degree order (extract.py, pull_in_degree_order): out[i] = ~(K)(2 * degree + has an in-edge)
// from the row pointers of A (and of A' where given; else an in-edge is not counted and the
// key is ~degree), so that an ascending stable sort lists vertices by decreasing key.
template <class K>
__global__ void gbk_degree_key(idx_t n, const idx_t* __restrict__ indptr,
                               const idx_t* __restrict__ indptr_t, K* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {
        idx_t d = indptr[i + 1] - indptr[i];
        out[i] = indptr_t ? ~(K)(2 * d + (indptr_t[i + 1] != indptr_t[i])) : ~(K)d;
    }
}

// rank[order[i]] = min(i, last): each vertex's place in the order, those past `last` at it.
template <class N>
__global__ void gbk_rank_of_order(idx_t n, const idx_t* __restrict__ order, idx_t last,
                                  N* __restrict__ rank) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        rank[order[i]] = (N)(i < last ? i : last);
}

// out[k] = indptr[rows[k] + 1] - indptr[rows[k]]: the lengths of the listed rows
__global__ void gbk_lengths_of_rows(idx_t n, const idx_t* __restrict__ indptr,
                                    const idx_t* __restrict__ rows, idx_t* __restrict__ out) {
    for (idx_t k = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; k < n;
         k += (idx_t)gridDim.x * blockDim.x)
        out[k] = indptr[rows[k] + 1] - indptr[rows[k]];
}

// out[i] = *value: a value left on the device by a reduction, broadcast without a read
template <class T>
__global__ void gbk_broadcast(idx_t n, const T* __restrict__ value, T* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        out[i] = *value;
}

// For each query, its position in the sorted, distinct keys (binary search): at[i] (the
// position found, clamped to the last) and found[i] = 1 where the key there equals it.
template <class K, class Q>
__global__ void gbk_find_sorted(idx_t n, const K* __restrict__ keys, idx_t m,
                                const Q* __restrict__ queries, idx_t* __restrict__ at,
                                idx_t* __restrict__ found) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {
        idx_t q = (idx_t)queries[i], lo = 0, hi = m;
        while (lo < hi) {
            idx_t mid = lo + (hi - lo) / 2;
            if ((idx_t)keys[mid] < q) lo = mid + 1; else hi = mid;
        }
        idx_t p = lo < m ? lo : m - 1;
        at[i] = p;
        found[i] = m > 0 && (idx_t)keys[p] == q;
    }
}

// NumPy's searchsorted: out[i] = the number of the m sorted keys below queries[i], or (right)
// not above it: where the query goes in the keys.
template <class T>
__global__ void gbk_search_sorted(idx_t n, const T* __restrict__ keys, idx_t m,
                                  const T* __restrict__ queries, int right,
                                  idx_t* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {
        const T q = queries[i];
        idx_t lo = 0, hi = m;
        while (lo < hi) {
            idx_t mid = lo + (hi - lo) / 2;
            if (right ? !(q < keys[mid]) : keys[mid] < q) lo = mid + 1; else hi = mid;
        }
        out[i] = lo;
    }
}

// out[i] = rows[i] * ncols + cols[i]: the sort key of a coordinate (row-major order)
template <class R, class C>
__global__ void gbk_pair_key(idx_t n, const R* __restrict__ rows, const C* __restrict__ cols,
                             idx_t ncols, idx_t* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        out[i] = (idx_t)rows[i] * ncols + (idx_t)cols[i];
}

// Row pointers of merged matrices: out[r] = a[r] + b[r] - s[a[r]] (a union: A's and B's
// entries less the matched ones) or, with a null b, out[r] = s[a[r]] + t[c[r]] (entries
// kept of two matrices).
__global__ void gbk_indptr_union(idx_t n, const idx_t* __restrict__ a,
                                 const idx_t* __restrict__ b, const idx_t* __restrict__ s,
                                 idx_t* __restrict__ out) {
    for (idx_t r = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; r < n;
         r += (idx_t)gridDim.x * blockDim.x)
        out[r] = a[r] + b[r] - s[a[r]];
}

__global__ void gbk_indptr_kept(idx_t n, const idx_t* __restrict__ s,
                                const idx_t* __restrict__ a, const idx_t* __restrict__ t,
                                const idx_t* __restrict__ c, idx_t* __restrict__ out) {
    for (idx_t r = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; r < n;
         r += (idx_t)gridDim.x * blockDim.x)
        out[r] = s[a[r]] + t[c[r]];
}

// Inclusive scans down the 4 columns of a row-major (n, 4) int64 array, by one block of
// 1024 threads (blocks.degree_classes: the per-window counts of the four degree classes).
__global__ void gbk_scan_columns4(idx_t n, const idx_t* __restrict__ in,
                                  idx_t* __restrict__ out) {
    __shared__ idx_t part[1024][4];
    const int t = threadIdx.x;
    const idx_t per = (n + blockDim.x - 1) / blockDim.x;
    const idx_t lo = t * per < n ? t * per : n;
    const idx_t hi = lo + per < n ? lo + per : n;
    idx_t own[4] = {0, 0, 0, 0};
    for (idx_t w = lo; w < hi; ++w)
        for (int c = 0; c < 4; ++c) own[c] += in[w * 4 + c];
    for (int c = 0; c < 4; ++c) part[t][c] = own[c];
    __syncthreads();
    for (int off = 1; off < (int)blockDim.x; off <<= 1) {
        idx_t add[4];
        for (int c = 0; c < 4; ++c) add[c] = t >= off ? part[t - off][c] : 0;
        __syncthreads();
        for (int c = 0; c < 4; ++c) part[t][c] += add[c];
        __syncthreads();
    }
    for (int c = 0; c < 4; ++c) {
        idx_t run = part[t][c] - own[c];
        for (idx_t w = lo; w < hi; ++w) {
            run += in[w * 4 + c];
            out[w * 4 + c] = run;
        }
    }
}

// out[w, c] = inclusive[w, c] - count[w, c] + start_c: each window's place in its class
__global__ void gbk_window_offsets4(idx_t n, const idx_t* __restrict__ inclusive,
                                    const idx_t* __restrict__ count, idx_t s0, idx_t s1,
                                    idx_t s2, idx_t s3, idx_t* __restrict__ out) {
    for (idx_t k = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; k < 4 * n;
         k += (idx_t)gridDim.x * blockDim.x) {
        int c = (int)(k & 3);
        idx_t start = c == 0 ? s0 : c == 1 ? s1 : c == 2 ? s2 : s3;
        out[k] = inclusive[k] - count[k] + start;
    }
}

// *count += the i with inv[J[i]] != i: list entries whose inverse map names another (a
// repeated column; count zeroed by the caller)
template <class N>
__global__ void gbk_count_unmapped(idx_t n, const N* __restrict__ inv,
                                   const idx_t* __restrict__ J,
                                   unsigned long long* __restrict__ count) {
    unsigned long long mine = 0;
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        mine += (idx_t)inv[J[i]] != i;
    if (mine) atomicAdd(count, mine);
}

// out[i] = ~in[i] (an integer type): reverses the order, for a stable descending sort
template <class T>
__global__ void gbk_bitnot(idx_t n, const T* __restrict__ in, T* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        out[i] = (T)~in[i];
}

// Pull's heavy rows in chunks (mxv.py, heavy_chunks): the chunks of each listed row, then
// each chunk's row and first entry.
__global__ void gbk_chunks_of_rows(idx_t n, const idx_t* __restrict__ indptr,
                                   const idx_t* __restrict__ rows, idx_t chunk,
                                   idx_t* __restrict__ out) {
    for (idx_t k = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; k < n;
         k += (idx_t)gridDim.x * blockDim.x)
        out[k] = (indptr[rows[k] + 1] - indptr[rows[k]] + chunk - 1) / chunk;
}

__global__ void gbk_chunk_starts(idx_t n, const idx_t* __restrict__ indptr,
                                 const idx_t* __restrict__ rows, const idx_t* __restrict__ src,
                                 const idx_t* __restrict__ occ, idx_t chunk,
                                 idx_t* __restrict__ out_rows, idx_t* __restrict__ starts) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {
        idx_t r = rows[src[i]];
        out_rows[i] = r;
        starts[i] = indptr[r] + occ[i] * chunk;
    }
}

// *count += the positions where two dense vectors differ: values not equal (NaN equals
// nothing), or, where both have presence bytes, presence differing or values differing where
// present (core/base.py, dense_entries_match: isequal of two dense vectors)
template <class T>
__global__ void gbk_count_unequal(idx_t n, const unsigned char* __restrict__ bits_a,
                                  const unsigned char* __restrict__ bits_b,
                                  const T* __restrict__ a, const T* __restrict__ b,
                                  unsigned long long* __restrict__ count) {
    unsigned long long mine = 0;
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {
        bool differ;
        if (bits_a && bits_b) {
            bool pa = bits_a[i] != 0, pb = bits_b[i] != 0;
            differ = pa != pb || (pa && !(a[i] == b[i]));
        } else {
            differ = !(a[i] == b[i]);
        }
        mine += differ;
    }
    if (mine) atomicAdd(count, mine);
}

// out[r] = scan[indptr[r + 1]] - scan[indptr[r]]: a per-entry quantity summed over each row
// (its exclusive scan given; mxm.py, the products each row of A makes)
__global__ void gbk_row_sums_of_scan(idx_t n, const idx_t* __restrict__ indptr,
                                     const idx_t* __restrict__ scan, idx_t* __restrict__ out) {
    for (idx_t r = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; r < n;
         r += (idx_t)gridDim.x * blockDim.x)
        out[r] = scan[indptr[r + 1]] - scan[indptr[r]];
}

// flags[i] = in[i] >= lo as int64 (for positions_of_flags)
template <class T>
__global__ void gbk_flags_at_least(idx_t n, const T* __restrict__ in, T lo,
                                   idx_t* __restrict__ flags) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        flags[i] = in[i] >= lo;
}

// out[i] = i - scan[group[i]]: each item's rank in its group (items in group order)
__global__ void gbk_rank_in_group(idx_t n, const idx_t* __restrict__ group,
                                  const idx_t* __restrict__ scan, idx_t* __restrict__ out) {
    for (idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x)
        out[i] = i - scan[group[i]];
}
