"""PageRank's renumbering into degree order (extract.pull_in_degree_order) on a symmetric
graph: the whole primitive (wall time), then its kernel alone (gbk_renumber_rows, CUDA events)
on the same inputs, with the rows by length (the short rows a warp leaves lanes idle on) and
the kernel's output checked against the primitive's.

    python3 benchmarks/h200/renumber_probe.py --graphs kron-22,kron-27 --out $OUT
"""

import argparse
import json
import os
import time

import cupy as cp
import numpy as np

from graphblast.backends.cuda import blocks, extract, jit, programs
from graphblast.backends.cuda.blocks import i64
from graphblast.bench import graphs

from per_graph import gpu_ms  # this folder's per_graph.py (run as a script)


def wall_ms(fn, runs=3):
    fn()
    cp.cuda.get_current_stream().synchronize()
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        cp.cuda.get_current_stream().synchronize()
        out.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(out))


def measure(name):
    g = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
    A = g.A._data
    assert A.symmetric, "the probe times the symmetric path"
    n = A.nrows
    rec = {"graph": name, "n": n, "nvals": A.nvals,
           "pull_in_degree_order_ms": wall_ms(lambda: extract.pull_in_degree_order(A, 0.0,
                                                                                 False))}
    # the kernel's inputs, as the primitive makes them
    degrees = A.indptr[1:] - A.indptr[:-1]
    order = cp.argsort(-degrees)
    lengths = degrees[order]
    short = [int(x) for x in blocks.read_small(cp.stack(
        [(lengths == 0).sum(), ((lengths >= 1) & (lengths <= 4)).sum(),
         ((lengths >= 5) & (lengths <= 32)).sum()]))]
    rec["rows_by_length"] = {"0": short[0], "1-4": short[1], "5-32": short[2],
                             "33 or more": n - sum(short)}
    name_type = cp.int32 if n <= np.iinfo(np.int32).max else cp.int64
    rank = cp.empty(n, dtype=name_type)
    rank[order] = cp.arange(n, dtype=name_type)
    out_ptr = blocks.exclusive_scan(lengths)
    col = A.stored_indices
    (fn,) = jit.compiled(programs.renumber_rows, col.dtype == np.int32,
                         name_type == cp.int32, 1).fns
    out_col = cp.empty(A.nvals, dtype=name_type)
    rec["kernel_ms"] = gpu_ms(lambda: jit.launch_warps(
        fn, n, (i64(n), order, A.indptr, col, None, rank, out_ptr, out_col, None)))
    B = extract.pull_in_degree_order(A, 0.0, False)[0]
    rec["same_output"] = bool(cp.array_equal(B.stored_indices, out_col))
    return rec


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graphs", default="kron-22")
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name in args.graphs.split(","):
        rows.append(measure(name))
        print(json.dumps(rows[-1]), flush=True)
        cp.get_default_memory_pool().free_all_blocks()
    with open(os.path.join(args.out, "renumber_probe.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
