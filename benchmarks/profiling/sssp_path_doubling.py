"""Does path doubling pay for SSSP on long-diameter graphs? ``B = min(A, A min.+ A)`` holds,
for every pair joined by a path of at most two hops, the lightest such path's weight, so the
shortest distances over B are those over A and Bellman-Ford or delta-stepping over B needs
about half the rounds (a round is a fixed cost of launches and host steps on a GPU, whatever
its work).  Squaring again quarters them.  For each graph: the time to build B (and B's
square, by the sorted SpGEMM and as the planner chooses: hash for short rows), then
``algorithms.sssp`` over A (no squaring), as planned (its own squarings), and over B and B
squared with their own default bucket width and with A's, the answers compared.

    python3 benchmarks/profiling/sssp_path_doubling.py --graphs grid-2048,rgg-22 --squarings 2

``--delta-scales 1,2,4`` times each with those multiples of A's default bucket width too;
the squares are also made the other way, ``min(A, 0 I)`` squared (the zero diagonal keeps
every shorter path in the square without a min against the matrix squared), and sssp timed
over the last of them.
"""

import argparse
import gc
import time

import graphblast as gb
from graphblast import Vector, algorithms, binary, semiring
import importlib
from graphblast.bench import graphs

sssp_module = importlib.import_module("graphblast.algorithms.sssp")  # the module, not the function
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
    p.add_argument("--delta-scales", default="1",
                   help="multiples of A's default bucket width to time sssp with, over A "
                        "and over each square")
    p.add_argument("--device", default="cuda:0")
    args = p.parse_args()
    scales = [float(x) for x in args.delta_scales.split(",")]
    for name in args.graphs.split(","):
        graph = graphs.build(graphs.parse_graphs(name)[0], args.device)
        A = graph.Aw
        src = graph.source
        with gb.config.set(sssp_squarings=0):
            base_s, want = timed(lambda A=A: algorithms.sssp(A, src))
        auto_s, got = timed(lambda A=A: algorithms.sssp(A, src))
        print(f"{name}: n {A.nrows}, entries {A.nvals}; sssp over A {base_s * 1e3:.1f} ms; "
              f"sssp as planned (its squarings included) {auto_s * 1e3:.1f} ms, same "
              f"distances: {got.isequal(want)}", flush=True)
        # path weights add up in INT64, as sssp's distances do (the weights are UINT8)
        M, mp, least = A, semiring.min_plus[INT64], binary.min[INT64]
        delta_a = sssp_module._default_delta(A, INT64)

        def over(M, widths):
            with gb.config.set(sssp_squarings=0):
                for label, delta in widths:
                    run_s, got = timed(lambda M=M, d=delta: algorithms.sssp(M, src, delta=d))
                    print(f"    sssp over it, delta {label}: {run_s * 1e3:.1f} ms; same "
                          f"distances: {got.isequal(want)}", flush=True)

        scaled = [(f"A's x {x:g}", delta_a * x) for x in scales]
        over(A, scaled)
        # the other form of the squares: min(A, 0 on the diagonal) squared, whose square
        # holds every path of at most two hops without a min against the matrix before
        with_zero = A.ewise_add(Vector.from_scalar(0, A.nrows, INT64, device=A.device).diag(),
                                least).new()
        Z = with_zero
        for k in range(1, args.squarings + 1):
            def square(M=M):
                return M.ewise_add(M.mxm(M, mp).new(), least).new()
            built = {}
            for method in ("sort", "auto"):  # the sorted SpGEMM, then the planner's (hash)
                with gb.config.set(spgemm=method):
                    built[method] = timed(square, repeat=1)
            M = built["auto"][1]
            z_s, Z = timed(lambda Z=Z: Z.mxm(Z, mp).new(), repeat=1)
            print(f"  A^{2 ** k}: entries {M.nvals} ({M.nvals / A.nrows:.1f} a row), built in "
                  f"{built['sort'][0] * 1e3:.1f} ms sorted, {built['auto'][0] * 1e3:.1f} ms "
                  f"as planned; the same matrix: {built['sort'][1].isequal(M)}; as the square "
                  f"of min(A, 0 I) {z_s * 1e3:.1f} ms ({Z.nvals} entries)", flush=True)
            over(M, [("its own", None)] + scaled)
            del built
        print("  over the last square of min(A, 0 I):", flush=True)
        over(Z, scaled)
        del graph, A, M, Z, with_zero
        gc.collect()


if __name__ == "__main__":
    main()
