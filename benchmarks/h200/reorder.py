"""Would a degree order of the columns speed up pull?  Nsight Compute says pull is bound by
the L2 sectors of its random gathers (docs/design.md, "Pull (SpMV)"); numbering the columns by
decreasing degree puts the hubs' vector entries together, so that most gathers fall on a few
hot sectors.  This measures it with the library's own kernels before the engine is changed:

    B = A[:, order]            # the columns renumbered, hubs first (rows unchanged)
    x_r = x[order]             # the vector in the same order (a gather of n entries)
    B x_r == A x               # the same product, row for row

and times, warm, PageRank's step (plus_second over the pattern, FP64 vector) and the FP32
plus_times SpMV on A and on B, the gather x[order], and cuSPARSE on both.

    python3 benchmarks/h200/reorder.py --graphs kron-22 --out $OUT [--device cpu]

(kron-27 does not fit: the extract widens the graph's indices and values.)
"""

import argparse
import json
import os
import time

import numpy as np

import graphblast as gb
from graphblast import Vector, semiring
from graphblast.bench import graphs
from graphblast.dtypes import FP32, FP64


def sync(device):
    if device != "cpu":
        import cupy as cp

        cp.cuda.get_current_stream().synchronize()


def timed(fn, device, repeat=20, warmup=3):
    """Median seconds of ``fn()``, synchronized, after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    sync(device)
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync(device)
        out.append(time.perf_counter() - t0)
    return float(np.median(out))


def measure(name, device):
    t0 = time.perf_counter()
    A = graphs.build(graphs.parse_graphs(name)[0], device).A
    n = A.nrows
    rec = {"graph": name, "device": device, "n": n, "nvals": A.nvals,
           "build_s": time.perf_counter() - t0}
    indptr = A._data.indptr
    degrees = np.diff(indptr if isinstance(indptr, np.ndarray) else indptr.get())
    order = np.argsort(-degrees, kind="stable")  # hubs first (ties by id)
    order_v = Vector.from_dense(order.astype(np.int64), device=device)
    t0 = time.perf_counter()
    B = A[:, order].new()
    sync(device)
    rec["reorder_s"] = time.perf_counter() - t0
    rng = np.random.default_rng(1)
    x = Vector.from_dense(rng.random(n), device=device)
    x_r = x[order_v].new()
    step = semiring.plus_second[FP64]
    y = A.mxv(x, step).new()
    y_r = B.mxv(x_r, step).new()
    rec["same_answer"] = bool(y.isclose(y_r, rel_tol=1e-12))
    ms = {}
    ms["pagerank_step"] = timed(lambda: A.mxv(x, step).new(), device)
    ms["pagerank_step_reordered"] = timed(lambda: B.mxv(x_r, step).new(), device)
    ms["gather_x"] = timed(lambda: x[order_v].new(), device)
    A32 = A.apply(gb.unary.one[FP32]).new()
    B32 = B.apply(gb.unary.one[FP32]).new()
    x32 = Vector.from_dense(rng.random(n).astype(np.float32), device=device)
    x32_r = x32[order_v].new()
    plus_times = semiring.plus_times[FP32]
    ms["spmv_fp32"] = timed(lambda: A32.mxv(x32, plus_times).new(), device)
    ms["spmv_fp32_reordered"] = timed(lambda: B32.mxv(x32_r, plus_times).new(), device)
    if device != "cpu":  # cuSPARSE on the same two matrices
        import cupy as cp
        from cupyx.scipy import sparse as csp

        for label, M, v in (("cusparse", A32, x32), ("cusparse_reordered", B32, x32_r)):
            m = M._data
            S = csp.csr_matrix((m.values, m.indices.astype(np.int32),
                                m.indptr.astype(np.int32)), shape=(n, n))
            xd = cp.asarray(v.to_dense())
            ms[label] = timed(lambda: S @ xd, device)
    rec.update({k + "_ms": v * 1e3 for k, v in ms.items()})
    print(json.dumps(rec), flush=True)
    return rec


def measure_relabel(name, device):
    """The view a pull could keep, for any size (kron-27 too): B's column indices are
    rank[A's column indices] (one gather; the row pointers shared, the rows left unsorted,
    since a pull's sum does not need them sorted), ranks by decreasing degree.  Times its
    making and PageRank's step (plus_second, FP64) on A and B.  GPU only."""
    import cupy as cp

    from graphblast import Matrix
    from graphblast.backends.base import CSR

    A = graphs.build(graphs.parse_graphs(name)[0], device).A
    M = A._data
    n = A.nrows
    rec = {"graph": name, "mode": "relabel", "n": n, "nvals": A.nvals,
           "index_dtype": str(M.stored_indices.dtype)}
    sync(device)
    t0 = time.perf_counter()
    order = cp.argsort(-(M.indptr[1:] - M.indptr[:-1]))  # hubs first
    rank = cp.empty(n, dtype=M.stored_indices.dtype)
    rank[order] = cp.arange(n, dtype=rank.dtype)
    relabeled = rank[M.stored_indices]
    sync(device)
    rec["relabel_s"] = time.perf_counter() - t0
    B = Matrix._from_data(CSR(n, n, M.dtype, M.indptr, relabeled, M._values,
                              iso_value=M.iso_value), A._backend, A.device)
    rng = np.random.default_rng(1)
    x = Vector.from_dense(rng.random(n), device=device)
    order_v = Vector.from_dense(order.get().astype(np.int64), device=device)
    x_r = x[order_v].new()
    step = semiring.plus_second[FP64]
    rec["same_answer"] = bool(A.mxv(x, step).new().isclose(B.mxv(x_r, step).new(),
                                                            rel_tol=1e-9))
    ms = {"pagerank_step": timed(lambda: A.mxv(x, step).new(), device, repeat=5),
          "pagerank_step_relabeled": timed(lambda: B.mxv(x_r, step).new(), device, repeat=5),
          "gather_x": timed(lambda: x[order_v].new(), device, repeat=5)}
    rec.update({k + "_ms": v * 1e3 for k, v in ms.items()})
    print(json.dumps(rec), flush=True)
    return rec


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graphs", default="kron-22")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--relabel", action="store_true",
                   help="the unsorted relabeled view instead (any size; GPU only)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = []
    for name in args.graphs.split(","):
        out.append((measure_relabel if args.relabel else measure)(name, args.device))
        with open(os.path.join(args.out, "reorder.json"), "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
