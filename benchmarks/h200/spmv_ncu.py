"""The pull kernels of SpMV on kron-22 as Nsight Compute sees them: run under ncu, e.g.

    ncu --clock-control none --kernel-name regex:gbk_pull --launch-skip 10 --launch-count 10 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \\
        --section WarpStateStats python3 benchmarks/h200/spmv_ncu.py

Two products, each called several times so that the launches skipped are the warm-up: plus_times
on FP32 values (the record's SpMV against cuSPARSE) and PageRank's step, plus_second over the
pattern-only matrix with an FP64 vector.
"""

import argparse

import cupy as cp
import numpy as np

import graphblast as gb
from graphblast import Vector, semiring
from graphblast.bench import graphs
from graphblast.dtypes import FP32, FP64


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graph", default="kron-22")
    p.add_argument("--calls", type=int, default=4)
    args = p.parse_args()
    graph = graphs.build(graphs.parse_graphs(args.graph)[0], "cuda:0")
    A = graph.A
    n = A.nrows
    rng = np.random.default_rng(1)
    A32 = A.apply(gb.unary.one[FP32]).new()
    x32 = Vector.from_dense(rng.random(n).astype(np.float32), device=A.device)
    x64 = Vector.from_dense(rng.random(n), device=A.device)
    for _ in range(args.calls):
        A32.mxv(x32, semiring.plus_times).new()
    for _ in range(args.calls):
        A.mxv(x64, semiring.plus_second[FP64]).new()
    cp.cuda.get_current_stream().synchronize()


if __name__ == "__main__":
    main()
