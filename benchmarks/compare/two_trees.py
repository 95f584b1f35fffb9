"""Is a change faster?  Two source trees timed against each other on one machine, processes
alternating: a record taken on another day's host is no baseline (hosts of the same kind
have run every small BFS level 20-35 % apart with the same code), so a change is measured
against the tree before it on the same machine.

    python3 benchmarks/compare/two_trees.py --trees base=ab/base/src,new=src --graph kron-22 \
        --rounds 3 --out $OUT

Each round runs one process per tree (in alternating order); a process builds the graph and
times, warm, the median of several runs of: BFS, connected components, PageRank (20 fixed
steps, its per-step time), and one small BFS level (a one-vertex frontier under its visited
set) forced to push and planned (auto).  One JSON line per process; the medians per tree
print at the end.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import graphblast as gb
from graphblast import Vector, algorithms, semiring
from graphblast.bench import graphs
from graphblast.dtypes import BOOL, INT64
import cupy as cp

def sync():
    cp.cuda.get_current_stream().synchronize()

def med(fn, runs):
    fn(); sync()
    out = []
    for _ in range(runs):
        t0 = time.perf_counter(); fn(); sync(); out.append(time.perf_counter() - t0)
    return float(np.median(out)) * 1e3

name, what = sys.argv[1], sys.argv[2].split(",")
g = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
A, s = g.A, g.source
rec = {"graph": name}
if "bfs" in what:
    rec["bfs_ms"] = med(lambda: algorithms.bfs(A, s), 15)
if "cc" in what:
    rec["cc_ms"] = med(lambda: algorithms.connected_components(A), 7)
if "pagerank" in what:
    runs = 5 if A.nvals < 1e9 else 1
    rec["pagerank_step_ms"] = med(lambda: algorithms.pagerank(A, tol=None, max_iter=20),
                                  runs) / 20
if "spmv" in what:
    # the primitives' SpMV (FP32 values, plus_times and min_plus) against cuSPARSE's on the
    # same matrix, and PageRank's product (FP64, plus_second over the pattern)
    from graphblast.bench.peers.cusparse import CuSparse
    from graphblast.dtypes import FP32, FP64
    n = A.nrows
    rng = np.random.default_rng(1)
    xh = rng.random(n).astype(np.float32)
    A32, x32 = A.dup(FP32), Vector.from_dense(xh, device="cuda:0")
    x64 = Vector.from_dense(rng.random(n), device="cuda:0")
    peer = CuSparse()  # the matrix as the primitives' benchmark gives cuSPARSE
    peer.load()
    Ac = peer.csr(g.indptr, g.indices, np.ones(g.nedges, np.float32))
    xc = cp.asarray(xh)
    for _ in range(2):  # alternating, so that neither side owns the warmer half of the run
        rec["spmv_ms"] = med(lambda: A32.mxv(x32, semiring.plus_times[FP32]).new(), 30)
        rec["cusparse_ms"] = med(lambda: Ac @ xc, 30)
    rec["spmv_vs_cusparse"] = rec["cusparse_ms"] / rec["spmv_ms"]
    rec["spmv_min_plus_ms"] = med(lambda: A32.mxv(x32, semiring.min_plus[FP32]).new(), 30)
    # a matrix with a value array (random values, the same given to cuSPARSE): A32 above is a
    # pattern cast to FP32, which the library keeps iso (one value, no array read)
    vals = rng.random(g.nedges).astype(np.float32)
    Av = gb.Matrix.from_csr(g.indptr, g.indices, vals, nrows=n, ncols=n, device="cuda:0")
    Acv = peer.csr(g.indptr, g.indices, vals)
    for _ in range(2):
        rec["spmv_valued_ms"] = med(lambda: Av.mxv(x32, semiring.plus_times[FP32]).new(), 30)
        rec["cusparse_valued_ms"] = med(lambda: Acv @ xc, 30)
    rec["spmv_valued_vs_cusparse"] = rec["cusparse_valued_ms"] / rec["spmv_valued_ms"]
    del Av, Acv
    rec["pr_product_ms"] = med(lambda: A.mxv(x64, semiring.plus_second[FP64]).new(), 30)
if "level" in what:
    n = A.nrows
    q = Vector.from_coo([s], True, BOOL, size=n, device="cuda:0")
    seen = q.dup()
    op = lambda: q.vxm(A, semiring.any_pair[BOOL]).new(mask=~seen.S)
    for mode in ("push", "auto", "push", "auto"):
        with gb.config.set(direction=mode):
            rec[f"level_{mode}_us"] = med(op, 300) * 1e3
print(json.dumps(rec), flush=True)
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trees", required=True, help="label=src,label=src")
    p.add_argument("--graph", default="kron-22")
    p.add_argument("--what", default="bfs,cc,pagerank,level")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    args = p.parse_args()
    trees = [t.split("=", 1) for t in args.trees.split(",")]
    rows = {label: [] for label, _ in trees}
    os.makedirs(args.out, exist_ok=True)
    log = open(os.path.join(args.out, f"tree_ab_{args.graph}.jsonl"), "a")
    for r in range(args.rounds):
        for label, src in (trees if r % 2 == 0 else trees[::-1]):
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(
                [os.path.abspath(src)] + [x for x in env.get("PYTHONPATH", "").split(os.pathsep)
                                          if x and not x.rstrip("/").endswith("src")])
            done = subprocess.run([sys.executable, "-c", CHILD, args.graph, args.what],
                                  env=env, capture_output=True, text=True)
            if done.returncode:
                print(f"{label}: failed\n{done.stderr[-2000:]}", flush=True)
                continue
            rec = json.loads(done.stdout.strip().splitlines()[-1])
            rec.update(tree=label, round=r)
            rows[label].append(rec)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            print(json.dumps(rec), flush=True)
    print("medians:")
    for label, recs in rows.items():
        keys = [k for k in (recs[0] if recs else {})
                if k.endswith(("_ms", "_us", "_vs_cusparse"))]
        print(label, {k: round(statistics.median(x[k] for x in recs), 3) for k in keys})


if __name__ == "__main__":
    main()
