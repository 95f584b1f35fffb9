"""Where PageRank's step goes, and what a degree order of the whole matrix would buy.

pagerank.py's step is a pull SpMV (plus_first over the pattern, FP64 ranks) and O(n) vector
work, with one host read a step (the sinks' mass).  This measures, on one graph:

- the library's PageRank (20 fixed steps) and its step's parts, each synchronized;
- the gather floor: a kernel that only sums ``x[col[e]]`` over every stored entry in the
  stored order (no rows, perfect balance), and one that only streams ``col`` (no gather):
  what any pull over this layout pays before its row logic;
- the matrix renumbered by decreasing degree, rows and columns (``B = P A' P'``, built here
  with one kernel: the rows' segments moved, the columns mapped through the ranks, each
  row's entries left in their stored order so the sums add in the same order), its build
  time, its SpMV and its gather floor; and (``--sorted``) the same with each row's columns
  sorted (a different summation order; needs a 64-bit key sort of all entries).

    python3 benchmarks/h200/pr_order.py --graphs kron-22 [--sorted] --out $OUT
"""

import argparse
import json
import os
import time

import cupy as cp
import numpy as np

import graphblast as gb
from graphblast import Matrix, Vector, algorithms, semiring
from graphblast.backends.base import CSR
from graphblast.bench import graphs
from graphblast.dtypes import FP64

import engine  # this folder's engine.py (run as a script)
from engine import sync

GATHER = r"""
extern "C" __global__ void gather(const int* __restrict__ col, long long nnz,
                                  const VAL_T* __restrict__ x, double* out) {
    double acc = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < nnz; e += stride)
        acc += (double)x[__ldcs(col + e)];
    if (acc == -1.0) out[0] = acc;  // never true: keeps the loads
}
extern "C" __global__ void stream(const int* __restrict__ col, long long nnz, double* out) {
    long long acc = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < nnz; e += stride)
        acc += __ldcs(col + e);
    if (acc == -1) out[0] = acc;
}
"""

PERMUTE = r"""
// a warp per new row r: copy old row order[r]'s segment, columns mapped through rank
extern "C" __global__ void permute(const long long* __restrict__ indptr,
                                   const int* __restrict__ col, const long long* order,
                                   const int* __restrict__ rank,
                                   const long long* __restrict__ new_indptr, int* new_col,
                                   long long n) {
    long long r = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (r >= n) return;
    long long o = order[r];
    long long src = indptr[o], len = indptr[o + 1] - src, dst = new_indptr[r];
    for (long long k = lane; k < len; k += 32) new_col[dst + k] = rank[col[src + k]];
}
"""


def timed(fn, repeat=7, warmup=2):
    """Median milliseconds of ``fn()``, synchronized (engine.py's timer)."""
    return engine.timed(fn, repeat=repeat, warmup=warmup)[0] * 1e3


def floors(col, x, rec, label):
    mod = cp.RawModule(code=GATHER, options=("-DVAL_T=" + ("double" if x.dtype == np.float64
                                                      else "float"),))
    g, s = mod.get_function("gather"), mod.get_function("stream")
    sink = cp.zeros(1, dtype=cp.float64)
    nnz = np.int64(col.shape[0])
    grid = 132 * 16
    rec[f"{label}_gather_ms"] = timed(lambda: g((grid,), (256,), (col, nnz, x, sink)))
    rec[f"{label}_stream_ms"] = timed(lambda: s((grid,), (256,), (col, nnz, sink)))


def renumbered(M, n, sort_rows):
    """(B = P M P' as a CSR, order, build ms): rows by decreasing degree."""
    sync()
    t0 = time.perf_counter()
    indptr = M.indptr.astype(cp.int64, copy=False)
    degrees = indptr[1:] - indptr[:-1]
    order = cp.argsort(-degrees).astype(cp.int64)
    rank = cp.empty(n, dtype=cp.int32)
    rank[order] = cp.arange(n, dtype=cp.int32)
    new_indptr = cp.zeros(n + 1, dtype=cp.int64)
    cp.cumsum(degrees[order], out=new_indptr[1:])
    new_col = cp.empty(M.stored_indices.shape[0], dtype=cp.int32)
    k = cp.RawModule(code=PERMUTE).get_function("permute")
    k(((n * 32 + 255) // 256,), (256,), (indptr, M.stored_indices, order, rank, new_indptr,
                                       new_col, np.int64(n)))
    if sort_rows:
        # the (new) row of every entry, then one sort of (row, column) keys
        rows = cp.searchsorted(new_indptr, cp.arange(new_col.shape[0], dtype=cp.int64),
                               side="right") - 1
        keys = (rows << 32) | new_col.astype(cp.int64)
        del rows
        keys.sort()
        new_col = (keys & 0xFFFFFFFF).astype(cp.int32)
        del keys
    sync()
    ms = (time.perf_counter() - t0) * 1e3
    B = CSR(n, n, M.dtype, new_indptr, new_col, None, iso_value=M.iso_value)
    B.symmetric = M.symmetric
    return B, order, ms


def library_order(A, M, xh, y, rec):
    """The library's own A[p, p] (extract: each row renamed and sorted again, iso and 32-bit
    indices kept), p the decreasing-degree order, on the graph pull reads (A')."""
    degrees = M.indptr[1:] - M.indptr[:-1]
    p = cp.argsort(-degrees).get()
    src = A if M.symmetric else A.T.new()
    rec["extract_ms"] = timed(lambda: src[p, p].new(), repeat=3, warmup=1)
    Bx = src[p, p].new()
    x_p = Vector.from_dense(xh[p], device="cuda:0")
    plus_second = semiring.plus_second[FP64]
    got = Bx.mxv(x_p, plus_second).new().to_dense(0.0)
    want = y.to_dense(0.0)[p]
    rec["extract_max_rel_err"] = float(np.max(np.abs(got - want) / np.maximum(
        np.abs(want), 1e-300)))
    rec["extract_mxv_ms"] = timed(lambda: Bx.mxv(x_p, plus_second).new())


def measure(name, sorted_too):
    t0 = time.perf_counter()
    g = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
    A, n = g.A, g.n
    rec = {"graph": name, "n": n, "nvals": A.nvals, "build_s": time.perf_counter() - t0}
    M = A._data
    rec["symmetric"] = bool(M.symmetric)
    rec["index_dtype"] = str(M.stored_indices.dtype)
    rec["pagerank_20_ms"] = timed(lambda: algorithms.pagerank(A, tol=None, max_iter=20),
                                  repeat=3, warmup=1)
    rec["pagerank_per_step_ms"] = rec["pagerank_20_ms"] / 20
    rng = np.random.default_rng(1)
    xh = rng.random(n)
    c = Vector.from_dense(xh, device="cuda:0")
    plus_first = semiring.plus_first[FP64]
    rec["step_vxm_ms"] = timed(lambda: c.vxm(A, plus_first).new())
    share = Vector.from_dense(rng.random(n), device="cuda:0")
    rec["step_scale_ms"] = timed(lambda: c.ewise_mult(share, gb.binary.times).new())
    rec["step_fill_ms"] = timed(lambda: Vector.from_scalar(0.1, n, FP64, device="cuda:0"))
    y = c.vxm(A, plus_first).new()

    def acc():
        new = Vector.from_scalar(0.1, n, FP64, device="cuda:0")
        new(gb.binary.plus) << y
    rec["step_fill_accumulate_ms"] = timed(acc)
    x = cp.asarray(xh)
    col = M.stored_indices
    if col.dtype == cp.int32:
        floors(col, x, rec, "stored")
        floors(col, x.astype(cp.float32), rec, "stored_fp32")
    print(json.dumps(rec), flush=True)
    try:
        library_order(A, M, xh, y, rec)
    except Exception as e:  # noqa: BLE001 - a probe: the rest still runs
        rec["extract_error"] = repr(e)
    cp.get_default_memory_pool().free_all_blocks()
    print(json.dumps(rec), flush=True)
    for sort_rows in ((False, True) if sorted_too else (False,)):
        label = "sorted" if sort_rows else "renumbered"
        try:
            renumbered_matrix(A, M, n, sort_rows, xh, y, rec, label)
        except Exception as e:  # noqa: BLE001 - a probe: the rest still runs
            rec[f"{label}_error"] = repr(e)
        cp.get_default_memory_pool().free_all_blocks()
        print(json.dumps(rec), flush=True)
    return rec


def renumbered_matrix(A, M, n, sort_rows, xh, y, rec, label):
    B, order, ms = renumbered(M, n, sort_rows)
    rec[f"{label}_build_ms"] = ms
    rec[f"{label}_build_again_ms"] = renumbered(M, n, sort_rows)[2]
    Bm = Matrix._from_data(B, A._backend, A.device)
    x_r = Vector.from_dense(xh[order.get()], device="cuda:0")
    plus_second = semiring.plus_second[FP64]
    y_r = Bm.mxv(x_r, plus_second).new()
    want = y.to_dense(0.0)[order.get()]
    got = y_r.to_dense(0.0)
    rec[f"{label}_max_rel_err"] = float(np.max(np.abs(got - want) / np.maximum(
        np.abs(want), 1e-300)))
    rec[f"{label}_bitwise_same"] = bool(np.array_equal(got, want))
    rec[f"{label}_mxv_ms"] = timed(lambda: Bm.mxv(x_r, plus_second).new())
    x_dense = cp.asarray(x_r.to_dense(0.0))
    floors(B.stored_indices, x_dense, rec, label)
    # FP32 values in the same order: twice the hubs per cache line (the next lever on
    # kron-27, where the FP64 gathers alone take 37 ms in degree order)
    floors(B.stored_indices, x_dense.astype(cp.float32), rec, label + "_fp32")
    if not sort_rows:
        blocked_floors(B.stored_indices, x_dense, n, rec, label)


BLOCK_OF = cp.ElementwiseKernel("int32 c, int32 shift, int32 b", "bool m",
                                "m = (c >> shift) == b", "block_of")


def blocked_floors(col, x, n, rec, label):
    """The gather floor with the entries grouped by column block (each block's slice of the
    ranks small enough for the L2): what cache blocking (propagation blocking's pull form)
    would buy on the gathers, before the cost of its rows (each block's partial sums)."""
    for shift in (20, 21, 22):
        if n <= 1 << (shift + 1):
            continue
        blocked = cp.empty_like(col)
        pos = 0
        step = 1 << 30  # CuPy's boolean indexing stops short of 2^31 elements
        for b in range((n + (1 << shift) - 1) >> shift):
            for lo in range(0, col.shape[0], step):
                piece = col[lo:lo + step]
                part = piece[BLOCK_OF(piece, np.int32(shift), np.int32(b))]
                blocked[pos:pos + part.shape[0]] = part
                pos += part.shape[0]
                del part
        floors(blocked, x, rec, f"{label}_blocked{shift}")
        floors(blocked, x.astype(cp.float32), rec, f"{label}_blocked{shift}_fp32")
        del blocked
        cp.get_default_memory_pool().free_all_blocks()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graphs", default="kron-22")
    p.add_argument("--sorted", action="store_true")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = []
    for name in args.graphs.split(","):
        out.append(measure(name, args.sorted))
        with open(os.path.join(args.out, "pr_order.json"), "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
