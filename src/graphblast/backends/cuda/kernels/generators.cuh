// The generators' device kernels (graphblast/generators): kernels of the catalogue, so that
// making a graph on a GPU compiles nothing at run time.
#pragma once

#include "common.cuh"

// MT19937 streams in lockstep (generators/_mt19937.py): a thread block per stream.
__global__ void gbk_mt19937_streams(unsigned int* state, unsigned int* out,
                                           long long count, int streams) {
    // state: (624, streams), the raw words of each stream; out: (count, streams).
    __shared__ unsigned int x[624];
    const int s = blockIdx.x;
    for (int i = threadIdx.x; i < 624; i += blockDim.x) x[i] = state[(long long)i * streams + s];
    __syncthreads();
    int base = 0;  // ring slot of the oldest word
    for (long long j = 0; j < count; j += 227) {
        const long long left = count - j;
        const int len = left < 227 ? (int)left : 227;
        const int t = threadIdx.x;
        int i0 = base + t;
        if (i0 >= 624) i0 -= 624;
        unsigned int v = 0;
        if (t < len) {
            int i1 = i0 + 1, im = i0 + 397;
            if (i1 >= 624) i1 -= 624;
            if (im >= 624) im -= 624;
            const unsigned int hi = x[i1];
            const unsigned int y = (x[i0] & 0x80000000u) | (hi & 0x7fffffffu);
            v = x[im] ^ (y >> 1) ^ ((hi & 1u) ? 0x9908b0dfu : 0u);
        }
        __syncthreads();  // every read of this batch before any write
        if (t < len) {
            x[i0] = v;
            unsigned int z = v;
            z ^= z >> 11;
            z ^= (z << 7) & 0x9d2c5680u;
            z ^= (z << 15) & 0xefc60000u;
            z ^= z >> 18;
            out[(j + t) * streams + s] = z;
        }
        __syncthreads();
        base += len;
        if (base >= 624) base -= 624;
    }
    for (int i = threadIdx.x; i < 624; i += blockDim.x) {
        int slot = base + i;
        if (slot >= 624) slot -= 624;
        state[(long long)i * streams + s] = x[slot];
    }
}

// R-MAT endpoints of GAP's kron (generators/gap.py, _rmat), renamed through the vertex
// permutation.  raw: (edges, scale, blocks) outputs; u, v: (edges, blocks).  At each level the
// source bit is r >= t_src and the destination bit r >= t_lo below t_src, r >= t_hi above.
__global__ void gbk_rmat(long long edges, int scale, int blocks,
                         const unsigned int* __restrict__ raw, unsigned int t_lo,
                         unsigned int t_src, unsigned int t_hi, const int* __restrict__ perm,
                         int* __restrict__ u, int* __restrict__ v) {
    long long total = edges * blocks;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total;
         k += (long long)gridDim.x * blockDim.x) {
        long long e = k / blocks;
        int b = (int)(k - e * blocks);
        int src = 0, dst = 0;
        for (int d = 0; d < scale; ++d) {
            unsigned int r = raw[(e * scale + d) * blocks + b];
            int top = r >= t_src;
            src = (src << 1) | top;
            dst = (dst << 1) | ((r >= t_lo) ^ top ^ (r >= t_hi));
        }
        u[k] = perm[src];
        v[k] = perm[dst];
    }
}

// Sort keys row | column | weight (high to low bits) of a chunk of edges (generators/_csr.py,
// _pack), both directions with `sym` (u -> v at keys[i], v -> u at keys[n + i]); self-loops
// are kept (gbk_gen_firsts drops them); *max_id takes the largest endpoint.
__global__ void gbk_gen_keys(long long n, const int* __restrict__ u, const int* __restrict__ v,
                             const int* __restrict__ w, int col_bits, int weight_bits, int sym,
                             unsigned long long* __restrict__ keys, int* __restrict__ max_id) {
    int biggest = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned long long a = (unsigned int)u[i], b = (unsigned int)v[i];
        unsigned long long wt = w ? (unsigned long long)(unsigned int)w[i] : 0ULL;
        keys[i] = (((a << col_bits) | b) << weight_bits) | wt;
        if (sym) keys[n + i] = (((b << col_bits) | a) << weight_bits) | wt;
        biggest = max(biggest, max(u[i], v[i]));
    }
    atomicMax(max_id, biggest);
}

// flags[i] = 1 where sorted key i starts a new (row, column) and is not a self-loop: the
// entries GAP's SquishCSR keeps (the smallest weight of a duplicated entry comes first).
__global__ void gbk_gen_firsts(long long n, const unsigned long long* __restrict__ keys,
                               int col_bits, int weight_bits, long long* __restrict__ flags) {
    unsigned long long col_mask = (1ULL << col_bits) - 1;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned long long entry = keys[i] >> weight_bits;
        bool loop = (entry >> col_bits) == (entry & col_mask);
        flags[i] = !loop && (i == 0 || entry != (keys[i - 1] >> weight_bits));
    }
}

// The kept entries (inclusive: the scanned flags) written in order: their columns, weights
// (where wanted) and a count per row.
__global__ void gbk_gen_compact(long long n, const unsigned long long* __restrict__ keys,
                                const long long* __restrict__ inclusive, int col_bits,
                                int weight_bits, int* __restrict__ cols, int* __restrict__ w,
                                long long* __restrict__ counts) {
    unsigned long long col_mask = (1ULL << col_bits) - 1;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long before = i ? inclusive[i - 1] : 0;
        if (inclusive[i] == before) continue;
        unsigned long long key = keys[i];
        unsigned long long entry = key >> weight_bits;
        cols[before] = (int)(entry & col_mask);
        if (w) w[before] = (int)(key & ((1ULL << weight_bits) - 1));
        atomicAdd((unsigned long long*)&counts[entry >> col_bits], 1ULL);
    }
}

// GAP's edge weights (generators/gap.py, _GapWeights): out = raw % 255 + 1 for the
// (count, streams) outputs, and per stream the number of outputs at or above the cutoff
// (rejected: that stream is then continued on its own, on the host's say).
__global__ void gbk_gap_weights(long long n, int streams, const unsigned int* __restrict__ raw,
                                unsigned int cutoff, int* __restrict__ out,
                                unsigned int* __restrict__ rejected) {
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n;
         k += (long long)gridDim.x * blockDim.x) {
        unsigned int r = raw[k];
        out[k] = (int)(r % 255u) + 1;
        if (r >= cutoff) atomicAdd(&rejected[k % streams], 1u);
    }
}

// GAP's urand endpoints (generators/gap.py): each the output modulo 2^scale, `mask` being
// 2^scale - 1.  raw: (edges, 2, blocks) outputs; u, v: (edges, blocks).
__global__ void gbk_urand(long long edges, int blocks, const unsigned int* __restrict__ raw,
                          unsigned int mask, int* __restrict__ u, int* __restrict__ v) {
    long long total = edges * blocks;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total;
         k += (long long)gridDim.x * blockDim.x) {
        long long e = k / blocks;
        int b = (int)(k - e * blocks);
        u[k] = (int)(raw[(e * 2) * blocks + b] & mask);
        v[k] = (int)(raw[(e * 2 + 1) * blocks + b] & mask);
    }
}

// The counter-based random source of the other generators (generators/_counter_rng.py):
// splitmix64's output mix of (counter + 1) * phi + key.
__device__ __forceinline__ unsigned long long gbk_counter_bits(unsigned long long counter,
                                                               unsigned long long key) {
    unsigned long long z = (counter + 1ULL) * 0x9E3779B97F4A7C15ULL + key;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// CounterRNG.bits: out[i] = the bits of counter start + i, modulo `mod` unless it is 0.
__global__ void gbk_counter_bits_range(long long n, unsigned long long start,
                                       unsigned long long key, unsigned long long mod,
                                       unsigned long long* __restrict__ out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned long long b = gbk_counter_bits(start + (unsigned long long)i, key);
        out[i] = mod ? b % mod : b;
    }
}

// CounterRNG.bits_at: out[i] = the bits of counter counters[i].
__global__ void gbk_counter_bits_at(long long n, const unsigned long long* __restrict__ counters,
                                    unsigned long long key,
                                    unsigned long long* __restrict__ out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = gbk_counter_bits(counters[i], key);
}

// flags[i] = 1 where sorted a[i] starts a run of equal values (the distinct values' places).
__global__ void gbk_run_starts(long long n, const unsigned long long* __restrict__ a,
                               long long* __restrict__ flags) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        flags[i] = i == 0 || a[i] != a[i - 1];
}

// Erdos-Renyi's pair numbers as endpoints (generators/random.py, _endpoints): ordered pairs
// row-major without the diagonal, or the lower triangle (u > v) row by row, row u starting
// at u (u - 1) / 2 (the float root corrected in integers).
__global__ void gbk_pair_endpoints(long long n, const long long* __restrict__ t, long long nv,
                                   int directed, int* __restrict__ u, int* __restrict__ v) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long p = t[i];
        if (directed) {
            long long a = p / (nv - 1), r = p - a * (nv - 1);
            u[i] = (int)a;
            v[i] = (int)(r + (r >= a));
        } else {
            long long a = (long long)((1.0 + sqrt(1.0 + 8.0 * (double)p)) / 2.0);
            while (a > 0 && a * (a - 1) / 2 > p) --a;
            while ((a + 1) * a / 2 <= p) ++a;
            u[i] = (int)a;
            v[i] = (int)(p - a * (a - 1) / 2);
        }
    }
}

// Graph500's R-MAT endpoints (generators/graph500.py): edge e0 + i draws counter
// level * m + e0 + i at each level, its high half against t_src for the source bit, its low
// half against t_dst1 (source bit set) or t_dst0 for the destination bit; both renamed
// through perm.
__global__ void gbk_graph500_rmat(long long n, long long e0, long long m, int scale,
                                  unsigned long long key, unsigned long long t_src,
                                  unsigned long long t_dst0, unsigned long long t_dst1,
                                  const int* __restrict__ perm, int* __restrict__ u,
                                  int* __restrict__ v) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        int src = 0, dst = 0;
        for (int level = 0; level < scale; ++level) {
            unsigned long long b = gbk_counter_bits(
                (unsigned long long)(level * m + e0 + i), key);
            int ii = (b >> 32) >= t_src;
            int jj = (b & 0xFFFFFFFFULL) >= (ii ? t_dst1 : t_dst0);
            src |= ii << level;
            dst |= jj << level;
        }
        u[i] = perm[src];
        v[i] = perm[dst];
    }
}

// Graph500's vertex permutation (generators/graph500.py, _permutation): the sort keys (the
// counter bits with the id in the low `bits` bits), then after the sort the ids read back.
__global__ void gbk_permutation_keys(long long n, unsigned long long key, int bits,
                                     unsigned long long* __restrict__ out) {
    unsigned long long low = (1ULL << bits) - 1;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = (gbk_counter_bits((unsigned long long)i, key) & ~low) | (unsigned long long)i;
}

__global__ void gbk_permutation_ids(long long n, int bits,
                                    const unsigned long long* __restrict__ keys,
                                    int* __restrict__ out) {
    unsigned long long low = (1ULL << bits) - 1;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = (int)(keys[i] & low);
}

// The rows x cols grid (generators/grid.py) in one pass, a thread per vertex v = (i, j): its
// row pointer (the entries of the rows above and of the vertices to its left, in closed
// form), its neighbours up, left, right, down (increasing ids) and, with `kind` 1 (integers
// lo + below(bits, span)) or 2 (floats lo + width * unit(bits)), the weight of each edge,
// drawn by the id of the undirected edge (horizontal ones first) so both directions agree.
// indptr[0] is the caller's (0).
template <typename V>
__global__ void gbk_grid(long long rows, long long cols, unsigned long long key, int kind,
                         long long lo, unsigned long long span, double flo, double width,
                         long long* __restrict__ indptr, int* __restrict__ indices,
                         V* __restrict__ values) {
    const long long n = rows * cols, horizontal = rows * (cols > 0 ? cols - 1 : 0);
    for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < n;
         v += (long long)gridDim.x * blockDim.x) {
        const long long i = v / cols, j = v - i * cols;
        const long long vert = (i > 0) + (i < rows - 1);
        long long at = 2 * (cols - 1) * i + cols * ((i > 0 ? i - 1 : 0) + min(i, rows - 1)) +
                       j * vert + (j > 0 ? j - 1 : 0) + min(j, cols - 1);
        const long long nbr[4] = {v - cols, v - 1, v + 1, v + cols};
        const long long edge[4] = {horizontal + (i - 1) * cols + j, i * (cols - 1) + j - 1,
                                   i * (cols - 1) + j, horizontal + i * cols + j};
        const bool valid[4] = {i > 0, j > 0, j < cols - 1, i < rows - 1};
        for (int d = 0; d < 4; ++d) {
            if (!valid[d]) continue;
            indices[at] = (int)nbr[d];
            if (kind) {
                unsigned long long bits = gbk_counter_bits((unsigned long long)edge[d], key);
                if (kind == 1) {
                    values[at] = (V)((long long)(((bits >> 32) * span) >> 32) + lo);
                } else {
                    double unit = __dmul_rn((double)(bits >> 11), 1.0 / 9007199254740992.0);
                    values[at] = (V)__dadd_rn(flo, __dmul_rn(width, unit));
                }
            }
            ++at;
        }
        indptr[v + 1] = at;
    }
}

// The random geometric graph (generators/rgg.py) on a GPU, in four kernels around one sort.
// Point i: x and y from counters 2i and 2i + 1 (53 random bits each), and its sort key
// cell * n + i with cell = cy * cells + cx (cell-major, generation order inside a cell).
__global__ void gbk_rgg_points(long long n, unsigned long long key, long long cells,
                               double* __restrict__ pos, long long* __restrict__ keys) {
    const double unit = 1.0 / 9007199254740992.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        double x = __dmul_rn((double)(gbk_counter_bits(2ULL * i, key) >> 11), unit);
        double y = __dmul_rn((double)(gbk_counter_bits(2ULL * i + 1, key) >> 11), unit);
        pos[2 * i] = x;
        pos[2 * i + 1] = y;
        long long cx = min((long long)__dmul_rn(x, (double)cells), cells - 1);
        long long cy = min((long long)__dmul_rn(y, (double)cells), cells - 1);
        keys[i] = (cy * cells + cx) * n + i;
    }
}

// After the keys' sort: vertex i's cell, and its point (out_pos, and x, y apart).
__global__ void gbk_rgg_place(long long n, const long long* __restrict__ keys,
                              const double* __restrict__ pos, long long* __restrict__ cell,
                              double* __restrict__ out_pos, double* __restrict__ x,
                              double* __restrict__ y) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long k = keys[i], c = k / n, src = k - c * n;
        cell[i] = c;
        x[i] = out_pos[2 * i] = pos[2 * src];
        y[i] = out_pos[2 * i + 1] = pos[2 * src + 1];
    }
}

// starts[c] = the first vertex in cell c or a later one (a lower bound in the sorted cells),
// for c = 0 .. m - 1.
__global__ void gbk_rgg_cell_starts(long long m, const long long* __restrict__ cell, long long n,
                                    long long* __restrict__ starts) {
    for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < m;
         c += (long long)gridDim.x * blockDim.x) {
        long long lo = 0, hi = n;
        while (lo < hi) {
            long long mid = lo + (hi - lo) / 2;
            if (cell[mid] < c) lo = mid + 1; else hi = mid;
        }
        starts[c] = lo;
    }
}

// Each point's neighbours: the other points of the 3 x 3 cells around its own at squared
// distance at most r2 (rounded as NumPy rounds it: no fused multiply-add).  Pass 1 writes
// their count to indptr[p + 1]; pass 2 (indptr scanned) writes them from indptr[p] on, sorted
// by id (an insertion sort of a row's few columns).
__global__ void gbk_rgg_edges(long long n, long long cells, const long long* __restrict__ cell,
                              const long long* __restrict__ starts,
                              const double* __restrict__ x, const double* __restrict__ y,
                              double r2, int pass, long long* __restrict__ indptr,
                              int* __restrict__ cols) {
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
         p += (long long)gridDim.x * blockDim.x) {
        const long long c = cell[p], cx = c % cells, cy = c / cells;
        const long long at = pass == 2 ? indptr[p] : 0;
        const double px = x[p], py = y[p];
        long long count = 0;
        for (long long oy = -1; oy <= 1; ++oy) {
            for (long long ox = -1; ox <= 1; ++ox) {
                const long long nx = cx + ox, ny = cy + oy;
                if (nx < 0 || nx >= cells || ny < 0 || ny >= cells) continue;
                const long long cc = ny * cells + nx;
                for (long long q = starts[cc]; q < starts[cc + 1]; ++q) {
                    if (q == p) continue;
                    const double dx = __dsub_rn(px, x[q]), dy = __dsub_rn(py, y[q]);
                    if (__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)) > r2) continue;
                    if (pass == 2) {
                        long long k = at + count;
                        while (k > at && cols[k - 1] > (int)q) {
                            cols[k] = cols[k - 1];
                            --k;
                        }
                        cols[k] = (int)q;
                    }
                    ++count;
                }
            }
        }
        if (pass == 1) indptr[p + 1] = count;
    }
}
