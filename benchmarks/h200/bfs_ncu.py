"""The traversal kernels of a BFS as Nsight Compute sees them: run under ncu, e.g.

    ncu --clock-control none --kernel-name regex:gbk_pu --launch-skip 40 --launch-count 20 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \\
        --section WarpStateStats --section LaunchStats python3 benchmarks/h200/bfs_ncu.py

``algorithms.bfs`` from the benchmark's source, ``--runs`` times (the first runs are the
warm-up the launches skipped cover), with the level sizes and directions printed first so
that each profiled kernel can be matched to its level.
"""

import argparse

import cupy as cp

import graphblast as gb
from graphblast.algorithms import bfs
from graphblast.bench import graphs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graph", default="kron-22")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    graph = graphs.build(graphs.parse_graphs(args.graph)[0], "cuda:0")
    levels = bfs(graph.A, graph.source)
    counts = levels.reduce_scalar(gb.monoid.max).new().value
    print(args.graph, "source", graph.source, "levels", counts + 1, flush=True)
    for _ in range(args.runs):
        bfs(graph.A, graph.source)
    cp.cuda.get_current_stream().synchronize()


if __name__ == "__main__":
    main()
