"""A naive direction-optimizing BFS written directly in CUDA through CuPy: the yardstick that
graphblast's BFS may not be slower than (issue 53).

What anyone would write in an afternoon, on the int32 CSR arrays of an undirected graph (the
rows serve as in-edges too):

- push: one warp per frontier vertex; each unvisited neighbour claimed with ``atomicCAS`` on an
  int32 level array (-1: unvisited) and appended to the next queue with ``atomicAdd``;
- pull: one thread per unvisited vertex, scanning its row until it meets a frontier vertex in
  a uint8 bitmap;
- Beamer's switch: push -> pull when the frontier's edges exceed the unvisited vertices' edges
  over alpha = 15, pull -> push when the frontier has fewer than n / beta = 18 vertices;
- one read per level: the new frontier's size and its degree sum (summed a warp at a time
  before one atomic, as a careful afternoon would: one atomic per vertex on the same two words
  serialized a pull level of urand-22 for milliseconds).

``naive_bfs(indptr, indices, source)`` takes CuPy (or NumPy) arrays and returns the int32
level of every vertex (-1 where unreachable); ``NaiveBFS`` keeps the arrays and kernels for
timed runs.  The benchmark's primitives stage (``graphblast.bench.primitives``) times it on
the same CSR arrays and source as graphblast's BFS on each default graph.

    python benchmarks/yardsticks/naive_bfs.py grid-512 rgg-18
"""

import sys
import time

import cupy as cp
import numpy as np

ALPHA = 15
BETA = 18
BLOCK = 256
MAX_GRID = 4096

SOURCE = r"""
#define FULL 0xffffffffu

// Lane 0 of each warp adds the warp's count and degree sum: one atomic a warp, not one a
// vertex on the same two words (which serialized a pull level of urand-22 for milliseconds).
__device__ void add_counts(unsigned long long* counts, bool found, unsigned deg) {
    const unsigned ballot = __ballot_sync(FULL, found);
    const unsigned sum = __reduce_add_sync(FULL, found ? deg : 0u);
    if ((threadIdx.x & 31) == 0 && ballot) {
        atomicAdd(&counts[0], (unsigned long long)__popc(ballot));
        atomicAdd(&counts[1], (unsigned long long)sum);
    }
}

extern "C" __global__ void push(const int* ptr, const int* col, int* level, const int* q,
                                int qn, int* next, unsigned long long* counts, int depth) {
    const int lane = threadIdx.x & 31;
    const int warps = (gridDim.x * blockDim.x) >> 5;
    for (int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < qn; w += warps) {
        const int v = q[w];
        const int end = ptr[v + 1];
        unsigned deg_sum = 0;
        for (int base = ptr[v]; base < end; base += 32) {  // warp-uniform trips
            const int e = base + lane;
            if (e < end) {
                const int u = col[e];
                if (level[u] == -1 && atomicCAS(&level[u], -1, depth) == -1) {
                    next[atomicAdd(&counts[2], 1ull)] = u;  // the append
                    deg_sum += (unsigned)(ptr[u + 1] - ptr[u]);
                }
            }
        }
        deg_sum = __reduce_add_sync(FULL, deg_sum);
        if (lane == 0 && deg_sum) atomicAdd(&counts[1], (unsigned long long)deg_sum);
    }
}

extern "C" __global__ void pull(const int* ptr, const int* col, int* level,
                                const unsigned char* front, unsigned char* next, int n,
                                unsigned long long* counts, int depth) {
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x; base < n; base += stride) {  // warp-uniform
        const int v = base + threadIdx.x;
        bool found = false;
        unsigned deg = 0;
        if (v < n && level[v] == -1) {
            for (int e = ptr[v]; e < ptr[v + 1]; ++e) {
                if (front[col[e]]) {
                    level[v] = depth;
                    next[v] = 1;
                    found = true;
                    deg = (unsigned)(ptr[v + 1] - ptr[v]);
                    break;
                }
            }
        }
        add_counts(counts, found, deg);
    }
}

extern "C" __global__ void to_bitmap(const int* q, int qn, unsigned char* bits) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < qn; i += gridDim.x * blockDim.x)
        bits[q[i]] = 1;
}

extern "C" __global__ void to_queue(const unsigned char* bits, int n, int* q, int* qn) {
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
        if (bits[v]) q[atomicAdd(qn, 1)] = v;
}

extern "C" __global__ void start(int* level, int n, int* q, int source) {
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
        level[v] = v == source ? 0 : -1;
    if (blockIdx.x == 0 && threadIdx.x == 0) q[0] = source;
}
"""


def _grid(threads):
    return (max(1, min((threads + BLOCK - 1) // BLOCK, MAX_GRID)),)


class NaiveBFS:
    """The CSR arrays (int32 on the device) and the kernels; ``run(source)`` is one BFS."""

    def __init__(self, indptr, indices):
        self.ptr = cp.asarray(indptr, dtype=cp.int32)
        self.col = cp.asarray(indices, dtype=cp.int32)
        self.n = int(self.ptr.shape[0]) - 1
        self.m = int(self.col.shape[0])
        self.deg = np.diff(np.asarray(cp.asnumpy(self.ptr), dtype=np.int64))
        module = cp.RawModule(code=SOURCE)
        self.k = {name: module.get_function(name)
                  for name in ("push", "pull", "to_bitmap", "to_queue", "start")}
        n = max(self.n, 1)
        self.level = cp.empty(n, dtype=cp.int32)
        self.queues = [cp.empty(n, dtype=cp.int32), cp.empty(n, dtype=cp.int32)]
        self.bits = [cp.zeros(n, dtype=cp.uint8), cp.zeros(n, dtype=cp.uint8)]
        self.counts = cp.zeros(3, dtype=cp.uint64)  # pull's count, degree sum, push's append
        self.qn = cp.zeros(1, dtype=cp.int32)
        self.host = np.zeros(3, dtype=np.uint64)
        self.levels_run = 0

    def run(self, source):
        """The level of every vertex from ``source`` (int32 device array, -1: unreachable)."""
        n, k = self.n, self.k
        level, q, nq = self.level, self.queues[0], self.queues[1]
        front, nfront = self.bits
        k["start"](_grid(n), (BLOCK,), (level, np.int32(n), q, np.int32(source)))
        qn, m_f = 1, int(self.deg[source])
        m_u = self.m - m_f
        pushing, depth = True, 1
        while True:
            self.counts.fill(0)
            if pushing:
                k["push"](_grid(qn * 32), (BLOCK,),
                          (self.ptr, self.col, level, q, np.int32(qn), nq, self.counts,
                           np.int32(depth)))
            else:
                nfront.fill(0)
                k["pull"](_grid(n), (BLOCK,), (self.ptr, self.col, level, front, nfront,
                                                np.int32(n), self.counts, np.int32(depth)))
            self.counts.get(out=self.host)  # the level's one read
            n_f = int(self.host[2] if pushing else self.host[0])
            m_f = int(self.host[1])
            if n_f == 0:
                break
            m_u -= m_f
            depth += 1
            if pushing and m_f > m_u / ALPHA:  # to pull: the new queue as a bitmap
                nfront.fill(0)
                k["to_bitmap"](_grid(n_f), (BLOCK,), (nq, np.int32(n_f), nfront))
                pushing = False
            elif not pushing and n_f < n / BETA:  # to push: the new bitmap as a queue
                self.qn.fill(0)
                k["to_queue"](_grid(n), (BLOCK,), (nfront, np.int32(n), nq, self.qn))
                pushing = True
            q, nq = nq, q
            front, nfront = nfront, front
            qn = n_f
        self.levels_run = depth
        return level


def naive_bfs(indptr, indices, source):
    """The int32 level of every vertex from ``source`` (-1: unreachable), as a CuPy array."""
    return NaiveBFS(indptr, indices).run(source)


def _main(names):
    import graphblast as gb
    from graphblast.bench import graphs

    for spec in graphs.parse_graphs(",".join(names)):
        g = graphs.build(spec, "cuda")
        naive = NaiveBFS(g.indptr, g.indices)
        want = cp.asnumpy(naive.run(g.source)).copy()
        got = gb.algorithms.bfs(g.A, g.source)
        idx, vals = got.to_coo()
        mine = np.full(g.n, -1, dtype=np.int64)
        mine[np.asarray(idx)] = np.asarray(vals)
        for fn, label in ((lambda: naive.run(g.source), "naive"),
                          (lambda: gb.algorithms.bfs(g.A, g.source), "graphblast")):
            best = float("inf")
            for _ in range(5):
                cp.cuda.get_current_stream().synchronize()
                t0 = time.perf_counter()
                fn()
                cp.cuda.get_current_stream().synchronize()
                best = min(best, time.perf_counter() - t0)
            print(f"{g.name}: {label} {best * 1e3:.3f} ms")
        print(f"{g.name}: {naive.levels_run} levels, agree: "
              f"{np.array_equal(mine, want.astype(np.int64))}")


if __name__ == "__main__":
    _main(sys.argv[1:] or ["grid-512"])
