"""The kernels of SpMV on kron-22 as Nsight Compute sees them, ours and cuSPARSE's side by
side: every kernel launched inside the profiled range (the warm-up calls run before it), e.g.

    ncu --profile-from-start off --clock-control none --csv --metrics <list> \\
        python3 benchmarks/h200/spmv_ncu.py

The range holds, in order: graphblast's plus_times on FP32 values (the record's SpMV against
cuSPARSE), cuSPARSE's SpMV of the same matrix and vector (``cupyx.scipy.sparse`` CSR @ x), and
PageRank's step product, plus_second over the pattern with an FP64 vector.
"""

import argparse

import cupy as cp
import numpy as np

from graphblast import Vector, semiring
from graphblast.bench import graphs
from graphblast.bench.peers.cusparse import CuSparse
from graphblast.dtypes import FP32, FP64


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graph", default="kron-22")
    p.add_argument("--warmup", type=int, default=3)
    args = p.parse_args()
    graph = graphs.build(graphs.parse_graphs(args.graph)[0], "cuda:0")
    A = graph.A
    n = A.nrows
    rng = np.random.default_rng(1)
    A32 = A.dup(FP32)  # as the primitives' benchmark makes it
    xh = rng.random(n).astype(np.float32)
    x32 = Vector.from_dense(xh, device=A.device)
    x64 = Vector.from_dense(rng.random(n), device=A.device)
    peer = CuSparse()  # the matrix as the primitives' benchmark gives cuSPARSE
    peer.load()
    Ac = peer.csr(graph.indptr, graph.indices, np.ones(graph.nedges, np.float32))
    xc = cp.asarray(xh)
    calls = (lambda: A32.mxv(x32, semiring.plus_times[FP32]).new(),
             lambda: Ac @ xc,
             lambda: A.mxv(x64, semiring.plus_second[FP64]).new())
    for _ in range(args.warmup):
        for call in calls:
            call()
    cp.cuda.get_current_stream().synchronize()
    cp.cuda.profiler.start()
    for call in calls:
        call()
        cp.cuda.get_current_stream().synchronize()
    cp.cuda.profiler.stop()


if __name__ == "__main__":
    main()
