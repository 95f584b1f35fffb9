"""What bounds SpMV on the GPU (L2, DRAM or latency)?  The kernels of SpMV on kron-22 as Nsight
Compute sees them, ours and cuSPARSE's side by
side: every kernel launched inside the profiled range (the warm-up calls run before it), e.g.

    ncu --profile-from-start off --clock-control none --csv --metrics <list> \\
        python3 benchmarks/profiling/spmv_nsight.py

The range holds, in order: graphblast's plus_times on FP32 values (the record's SpMV against
cuSPARSE), cuSPARSE's SpMV of the same matrix and vector (``cupyx.scipy.sparse`` CSR @ x), and
PageRank's step product, plus_second over the pattern with an FP64 vector.  ``--calls`` picks
and orders them (``spmv``, ``cusparse``, ``pr``), and adds ``pr_degree`` (the same product over
B = P A' P', PageRank's pull in degree order, made before the range) and ``renumber`` (the
making of B itself, once, inside the range); for kron-27 (past cuSPARSE's 32-bit indices):

    ncu ... python3 benchmarks/profiling/spmv_nsight.py --graph kron-27 --calls pr_degree,pr
"""

import argparse

import cupy as cp
import numpy as np

from graphblast import Matrix, Vector, semiring
from graphblast.bench import graphs
from graphblast.bench.peers.cusparse import CuSparse
from graphblast.dtypes import FP32, FP64


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graph", default="kron-22")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--calls", default="spmv,cusparse,pr")
    args = p.parse_args()
    names = args.calls.split(",")
    graph = graphs.build(graphs.parse_graphs(args.graph)[0], "cuda:0")
    A = graph.A
    n = A.nrows
    rng = np.random.default_rng(1)
    x64 = Vector.from_dense(rng.random(n), device=A.device)
    calls = {"pr": lambda: A.mxv(x64, semiring.plus_second[FP64]).new()}
    if {"spmv", "cusparse"} & set(names):
        A32 = A.dup(FP32)  # as the primitives' benchmark makes it
        xh = rng.random(n).astype(np.float32)
        x32 = Vector.from_dense(xh, device=A.device)
        peer = CuSparse()  # the matrix as the primitives' benchmark gives cuSPARSE
        peer.load()
        Ac = peer.csr(graph.indptr, graph.indices, np.ones(graph.nedges, np.float32))
        xc = cp.asarray(xh)
        calls["spmv"] = lambda: A32.mxv(x32, semiring.plus_times[FP32]).new()
        calls["cusparse"] = lambda: Ac @ xc
    if {"pr_degree", "renumber"} & set(names):
        renumber = lambda: A._backend.pull_in_degree_order(A._data, 0.0, False)  # noqa: E731
        B = Matrix._from_data(renumber()[0], A._backend, A.device)
        xB = Vector.from_dense(rng.random(B.nrows), device=A.device)  # B keeps k of n
        calls["pr_degree"] = lambda: B.mxv(xB, semiring.plus_second[FP64]).new()
        calls["renumber"] = renumber
    for _ in range(args.warmup):
        for name in names:
            if name != "renumber":  # made once above: its kernels are compiled
                calls[name]()
    cp.cuda.get_current_stream().synchronize()
    cp.cuda.profiler.start()
    for name in names:
        calls[name]()
        cp.cuda.get_current_stream().synchronize()
    cp.cuda.profiler.stop()


if __name__ == "__main__":
    main()
