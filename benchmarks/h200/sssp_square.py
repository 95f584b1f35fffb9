"""Path doubling for SSSP on long-diameter graphs, measured: ``B = min(A, A min.+ A)`` holds,
for every pair joined by a path of at most two hops, the lightest such path's weight, so the
shortest distances over B are those over A and Bellman-Ford or delta-stepping over B needs
about half the rounds (a round is a fixed cost of launches and host steps on a GPU, whatever
its work).  Squaring again quarters them.  For each graph: the time to build B (and B's
square), then ``algorithms.sssp`` over A, B and B squared from the benchmark's source, the
answers compared.

    python3 benchmarks/h200/sssp_square.py --graphs grid-2048,rgg-22 --squarings 2
"""

import argparse
import gc
import time

from graphblast import algorithms, binary, semiring
from graphblast.bench import graphs
from graphblast.dtypes import INT64


def timed(fn, repeat=3):
    """(best seconds, answer) of ``fn()``, waited for (a GPU's queue drained)."""
    fn().wait()
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        out.wait()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graphs", default="grid-2048,rgg-22")
    p.add_argument("--squarings", type=int, default=2)
    p.add_argument("--device", default="cuda:0")
    args = p.parse_args()
    for name in args.graphs.split(","):
        graph = graphs.build(graphs.parse_graphs(name)[0], args.device)
        A = graph.Aw
        src = graph.source
        base_s, want = timed(lambda: algorithms.sssp(A, src))
        print(f"{name}: n {A.nrows}, entries {A.nvals}; sssp over A {base_s * 1e3:.1f} ms",
              flush=True)
        # path weights add up in INT64, as sssp's distances do (the weights are UINT8)
        M, mp, least = A, semiring.min_plus[INT64], binary.min[INT64]
        for k in range(1, args.squarings + 1):
            def square(M=M):
                return M.ewise_add(M.mxm(M, mp).new(), least).new()
            sq_s, M = timed(square, repeat=1)
            run_s, got = timed(lambda M=M: algorithms.sssp(M, src))
            same = got.isequal(want)
            print(f"  A^{2 ** k}: entries {M.nvals} ({M.nvals / A.nrows:.1f} a row), built in "
                  f"{sq_s * 1e3:.1f} ms; sssp {run_s * 1e3:.1f} ms; same distances: {same}",
                  flush=True)
        del graph, A, M
        gc.collect()


if __name__ == "__main__":
    main()
