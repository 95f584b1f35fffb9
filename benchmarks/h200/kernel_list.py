"""Every kernel of one warm algorithm call, with its GPU time, as Nsight Compute measures it:
CuPy's own kernels (sorts, scans, element-wise) as well as graphblast's, in launch order.

    ncu --profile-from-start off --clock-control none --metrics gpu__time_duration.sum \
        --csv --print-units base python3 benchmarks/h200/kernel_list.py --graph g500-21 \
        --algo tc > $OUT/tc.csv
    python3 benchmarks/h200/kernel_list.py --summarize $OUT/tc.csv

The call is made once outside the profiled range (compilation, cached views), then once
inside it (cudaProfilerStart/Stop).  ``--summarize`` totals a CSV by kernel name.
"""

import argparse
import csv
import re
import sys
from collections import defaultdict


def profile(graph_name, algo):
    import cupy as cp

    from graphblast import algorithms
    from graphblast.bench import graphs

    graph = graphs.build(graphs.parse_graphs(graph_name)[0], "cuda:0")
    calls = {
        "tc": lambda: algorithms.triangle_count(graph.A),
        "cc": lambda: algorithms.connected_components(graph.A),
        "bfs": lambda: algorithms.bfs(graph.A, graph.source),
        "pagerank": lambda: algorithms.pagerank(graph.A, tol=None, max_iter=3),
        "sssp": lambda: algorithms.sssp(graph.Aw, graph.source),
    }
    call = calls[algo]
    call()
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.profiler.start()
    call()
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.profiler.stop()


def _short(name):
    """A kernel's name without its template arguments and parameter list."""
    name = re.sub(r"\(.*$", "", re.sub(r"^void ", "", name))
    depth, out = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip() or name


def summarize(path):
    rows = []
    with open(path) as f:
        lines = [line for line in f if line.startswith('"')]
    for rec in csv.DictReader(lines):
        if rec.get("Metric Name") != "gpu__time_duration.sum":
            continue
        rows.append((_short(rec["Kernel Name"]), float(rec["Metric Value"].replace(",", "")) / 1e3))  # us
    total = defaultdict(float)
    count = defaultdict(int)
    for name, us in rows:
        total[name] += us
        count[name] += 1
    print(f"{len(rows)} kernels, {sum(total.values()) / 1e3:.2f} ms of GPU time")
    for name in sorted(total, key=total.get, reverse=True):
        print(f"  {total[name] / 1e3:9.3f} ms  {count[name]:5d} x  {name}")
    print("in launch order (us):")
    print("  " + ", ".join(f"{name} {us:.0f}" for name, us in rows))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graph", default="g500-21")
    p.add_argument("--algo", default="tc")
    p.add_argument("--summarize", metavar="CSV")
    args = p.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return
    profile(args.graph, args.algo)


if __name__ == "__main__":
    sys.exit(main())
