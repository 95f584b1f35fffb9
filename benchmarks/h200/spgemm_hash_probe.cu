// What a row-wise hash SpGEMM would make of SSSP's path doubling on the H200 (docs/algorithms.md,
// "path doubling"): the min.+ square C = min(A, A min.+ A) of the record's weighted grid, then
// the square's square, each row's products folded in a hash table in shared memory (a warp per
// row: the columns claimed by compare-and-swap, the weights by atomicMin), the row's entries
// sorted by rank there and written once.  Two passes, as nsparse and cuSPARSE do: the first
// counts each row's entries, a scan places the rows, the second fills them.  graphblast's
// expand-sort-compress path took 27 ms for the first square of grid-2048 (67 million
// multiplies) and 163 ms for the second (708 million; benchmarks/results/h200/profiles/
// session12/square.txt).  Prints milliseconds per square (count, scan and fill, measured with
// CUDA events), and checks the result against a CPU reference on a small grid first.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/spgemm_hash_probe benchmarks/h200/spgemm_hash_probe.cu
//   /tmp/spgemm_hash_probe 2048
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/scan.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.h"

// A row's table: TABLE slots a warp (its products must number at most TABLE / 2, so that
// linear probing stays short); WARPS warps a block.
constexpr int TABLE = 512;
constexpr int WARPS = 4;

struct Csr {
    int n = 0;
    long long nnz = 0;
    long long* ptr = nullptr;  // n + 1
    int* col = nullptr;
    long long* val = nullptr;
};

// The weight of the undirected edge {a, b}: 1..255 from a hash of the pair (as the benchmark's
// hash weights are: the same whatever the direction).
static long long weight(long long a, long long b) {
    unsigned long long lo = a < b ? a : b, hi = a < b ? b : a;
    unsigned long long h = (lo * 0x9E3779B97F4A7C15ULL) ^ (hi + 0x632BE59BD9B4E019ULL);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    return 1 + (long long)(h % 255);
}

static void grid_host(int k, std::vector<long long>& ptr, std::vector<int>& col,
                      std::vector<long long>& val) {
    const int n = k * k;
    ptr.assign(n + 1, 0);
    col.clear();
    val.clear();
    for (int v = 0; v < n; ++v) {
        const int r = v / k, c = v % k;
        const int nb[4] = {r > 0 ? v - k : -1, c > 0 ? v - 1 : -1, c < k - 1 ? v + 1 : -1,
                           r < k - 1 ? v + k : -1};  // in increasing order
        for (int u : nb)
            if (u >= 0) {
                col.push_back(u);
                val.push_back(weight(v, u));
            }
        ptr[v + 1] = (long long)col.size();
    }
}

static Csr upload(const std::vector<long long>& ptr, const std::vector<int>& col,
                  const std::vector<long long>& val) {
    Csr m;
    m.n = (int)ptr.size() - 1;
    m.nnz = (long long)col.size();
    CHECK(cudaMalloc(&m.ptr, ptr.size() * sizeof(long long)));
    CHECK(cudaMalloc(&m.col, col.size() * sizeof(int)));
    CHECK(cudaMalloc(&m.val, val.size() * sizeof(long long)));
    CHECK(cudaMemcpy(m.ptr, ptr.data(), ptr.size() * sizeof(long long), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(m.col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(m.val, val.data(), val.size() * sizeof(long long), cudaMemcpyHostToDevice));
    return m;
}

static void release(Csr& m) {
    cudaFree(m.ptr);
    cudaFree(m.col);
    cudaFree(m.val);
    m = Csr();
}

__device__ __forceinline__ int slot_of(int j) { return (int)((unsigned)j * 2654435761u) & (TABLE - 1); }

// Inserts column j (and folds w by min when FILL) into the warp's table; whether j was new.
template <bool FILL>
__device__ __forceinline__ bool insert(int* keys, long long* vals, int j, long long w) {
    int h = slot_of(j);
    while (true) {
        const int old = atomicCAS(&keys[h], -1, j);
        if (old == -1 || old == j) {
            if (FILL) atomicMin(&vals[h], w);
            return old == -1;
        }
        h = (h + 1) & (TABLE - 1);
    }
}

// C = min(A, A min.+ A), a warp per row: pass 1 (FILL false) counts each row's entries into
// cnt; pass 2 writes them, in column order, at C.ptr[row].  A row of more than TABLE / 2
// products sets *too_long (this probe has none: a grid's square makes 16, its square's 169).
template <bool FILL>
__global__ void __launch_bounds__(32 * WARPS)
hash_square(int n, const long long* ptr, const int* col, const long long* val,
            long long* cnt, const long long* cptr, int* ccol, long long* cval, int* too_long) {
    __shared__ int s_keys[WARPS][TABLE];
    __shared__ long long s_vals[FILL ? WARPS : 1][FILL ? TABLE : 1];
    __shared__ int s_ck[FILL ? WARPS : 1][FILL ? TABLE / 2 : 1];  // the row's entries, packed
    __shared__ long long s_cv[FILL ? WARPS : 1][FILL ? TABLE / 2 : 1];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int* keys = s_keys[warp];
    long long* vals = FILL ? s_vals[warp] : nullptr;
    for (int i = blockIdx.x * WARPS + warp; i < n; i += gridDim.x * WARPS) {
        for (int s = lane; s < TABLE; s += 32) {
            keys[s] = -1;
            if (FILL) vals[s] = LLONG_MAX;
        }
        __syncwarp();
        long long work = 0;
        for (long long e = ptr[i]; e < ptr[i + 1]; ++e) work += ptr[col[e] + 1] - ptr[col[e]];
        if (work + (ptr[i + 1] - ptr[i]) > TABLE / 2) {
            if (lane == 0) atomicExch(too_long, 1);
            continue;
        }
        int added = 0;
        // A's own entries (the min with A), then every product A(i, k) + A(k, j)
        for (long long e = ptr[i] + lane; e < ptr[i + 1]; e += 32)
            added += insert<FILL>(keys, vals, col[e], val[e]);
        for (long long e = ptr[i]; e < ptr[i + 1]; ++e) {
            const int k = col[e];
            const long long w = val[e];
            for (long long f = ptr[k] + lane; f < ptr[k + 1]; f += 32)
                added += insert<FILL>(keys, vals, col[f], w + val[f]);
        }
        __syncwarp();
        if (!FILL) {
            for (int d = 16; d > 0; d >>= 1) added += __shfl_down_sync(0xffffffffu, added, d);
            if (lane == 0) cnt[i] = added;
        } else {
            // the occupied slots packed (a ballot per 32), then each entry's place: the
            // number of the row's columns below its own
            int* ck = s_ck[warp];
            long long* cv = s_cv[warp];
            int m = 0;
            for (int s0 = 0; s0 < TABLE; s0 += 32) {
                const int j = keys[s0 + lane];
                const unsigned occupied = __ballot_sync(0xffffffffu, j >= 0);
                if (j >= 0) {
                    const int at = m + __popc(occupied & ((1u << lane) - 1u));
                    ck[at] = j;
                    cv[at] = vals[s0 + lane];
                }
                m += __popc(occupied);
            }
            __syncwarp();
            const long long base = cptr[i];
            for (int t = lane; t < m; t += 32) {
                const int j = ck[t];
                int rank = 0;
                for (int u = 0; u < m; ++u) rank += ck[u] < j;
                ccol[base + rank] = j;
                cval[base + rank] = cv[t];
            }
        }
        __syncwarp();
    }
}

// C = min(A, A min.+ A) on the GPU; milliseconds of its two passes and scan in *ms.
static Csr square(const Csr& a, float* ms) {
    Csr c;
    c.n = a.n;
    long long* cnt;
    int* too_long;
    CHECK(cudaMalloc(&cnt, (a.n + 1) * sizeof(long long)));
    CHECK(cudaMalloc(&too_long, sizeof(int)));
    CHECK(cudaMemset(too_long, 0, sizeof(int)));
    CHECK(cudaMemset(cnt + a.n, 0, sizeof(long long)));
    CHECK(cudaMalloc(&c.ptr, (a.n + 1) * sizeof(long long)));
    const int blocks = 132 * 16;
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaEventRecord(t0));
    hash_square<false><<<blocks, 32 * WARPS>>>(a.n, a.ptr, a.col, a.val, cnt, nullptr, nullptr,
                                               nullptr, too_long);
    thrust::exclusive_scan(thrust::device_ptr<long long>(cnt),
                           thrust::device_ptr<long long>(cnt + a.n + 1),
                           thrust::device_ptr<long long>(c.ptr));
    CHECK(cudaMemcpy(&c.nnz, c.ptr + a.n, sizeof(long long), cudaMemcpyDeviceToHost));
    CHECK(cudaMalloc(&c.col, c.nnz * sizeof(int)));
    CHECK(cudaMalloc(&c.val, c.nnz * sizeof(long long)));
    hash_square<true><<<blocks, 32 * WARPS>>>(a.n, a.ptr, a.col, a.val, nullptr, c.ptr, c.col,
                                              c.val, too_long);
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    CHECK(cudaGetLastError());
    CHECK(cudaEventElapsedTime(ms, t0, t1));
    int tl = 0;
    CHECK(cudaMemcpy(&tl, too_long, sizeof(int), cudaMemcpyDeviceToHost));
    if (tl) {
        std::fprintf(stderr, "a row has more than %d products: this probe does not take it\n",
                     TABLE / 2);
        std::exit(1);
    }
    cudaFree(cnt);
    cudaFree(too_long);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    return c;
}

// min(A, A min.+ A) on the host, dense (small grids only).
static std::vector<long long> square_host(int n, const std::vector<long long>& ptr,
                                          const std::vector<int>& col,
                                          const std::vector<long long>& val) {
    std::vector<long long> d((size_t)n * n, LLONG_MAX);
    for (int i = 0; i < n; ++i)
        for (long long e = ptr[i]; e < ptr[i + 1]; ++e) {
            long long& x = d[(size_t)i * n + col[e]];
            x = std::min(x, val[e]);
            const int k = col[e];
            for (long long f = ptr[k]; f < ptr[k + 1]; ++f) {
                long long& y = d[(size_t)i * n + col[f]];
                y = std::min(y, val[e] + val[f]);
            }
        }
    return d;
}

static void download(const Csr& c, std::vector<long long>& ptr, std::vector<int>& col,
                     std::vector<long long>& val) {
    ptr.resize(c.n + 1);
    col.resize(c.nnz);
    val.resize(c.nnz);
    CHECK(cudaMemcpy(ptr.data(), c.ptr, ptr.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(col.data(), c.col, col.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(val.data(), c.val, val.size() * sizeof(long long), cudaMemcpyDeviceToHost));
}

// The square and the square's square of a k x k grid checked against the host's.
static bool check(int k) {
    std::vector<long long> ptr, val;
    std::vector<int> col;
    grid_host(k, ptr, col, val);
    Csr a = upload(ptr, col, val);
    const int n = k * k;
    bool ok = true;
    for (int round = 0; round < 2; ++round) {
        float ms;
        Csr c = square(a, &ms);
        std::vector<long long> want = square_host(n, ptr, col, val), cptr, cval;
        std::vector<int> ccol;
        download(c, cptr, ccol, cval);
        long long entries = 0;
        for (long long x : want) entries += x != LLONG_MAX;
        ok = ok && entries == c.nnz;
        for (int i = 0; i < n && ok; ++i)
            for (long long e = cptr[i]; e < cptr[i + 1]; ++e) {
                ok = ok && (e == cptr[i] || ccol[e - 1] < ccol[e]);
                ok = ok && want[(size_t)i * n + ccol[e]] == cval[e];
            }
        release(a);
        a = c;
        ptr.swap(cptr);
        col.swap(ccol);
        val.swap(cval);
    }
    release(a);
    return ok;
}

int main(int argc, char** argv) {
    const int k = argc > 1 ? std::atoi(argv[1]) : 2048;
    std::printf("checked against the host on grid-24: %s\n", check(24) ? "ok" : "WRONG");
    std::vector<long long> ptr, val;
    std::vector<int> col;
    grid_host(k, ptr, col, val);
    Csr a = upload(ptr, col, val);
    for (int round = 1; round <= 2; ++round) {
        float best = 1e30f;
        Csr c;
        for (int rep = 0; rep < 3; ++rep) {
            float ms;
            if (c.ptr) release(c);
            c = square(a, &ms);
            best = std::min(best, ms);
        }
        std::printf("grid-%d, square %d: %lld -> %lld entries (%.1f a row), %.2f ms\n", k, round,
                    a.nnz, c.nnz, (double)c.nnz / a.n, best);
        release(a);
        a = c;
    }
    release(a);
    return 0;
}
