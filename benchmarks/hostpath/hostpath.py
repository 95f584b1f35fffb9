"""The CUDA backend's host path, timed on a machine without a GPU.

CuPy is replaced by a NumPy stand-in (``stub/``: arrays on the host, every kernel a no-op,
every driver call returning at once), so that what is timed is graphblast's own Python from
``<<`` to the launch and the calls it makes: the part of a call that the H200's host runs
while its GPU waits (benchmarks/profiling/call_overhead.py times the whole call there, floors
included).  The answers are garbage; only the path is real.  Compare two trees in one run
of this machine, alternating:

    python benchmarks/hostpath/hostpath.py                       # this tree's src/
    python benchmarks/hostpath/hostpath.py --src ../other/src    # another tree
    python benchmarks/hostpath/hostpath.py --cases sssp --profile tottime

Cases: ``vxm`` (the per-call figure's masked vxm on 34 vertices, the one-block product),
``level`` (one BFS level on a 256 x 256 grid: the scalar assign, the pushed masked vxm and
the count), ``sssp`` (a light round of delta-stepping: sssp._relax within a bucket),
``pagerank`` (PageRank's step: its sinks' mass, the teleport, the scaling and the pull over
A'), ``planner`` (the masked vxm of a one-vertex
frontier on that grid, and of a frontier a push made, push forced and auto: the direction
planner's share, by its bound and by the exact sum the push counted).  Microseconds a call,
the best of several repeats.
"""

import argparse
import cProfile
import io
import os
import pstats
import sys
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))


def _setup(src):
    sys.path.insert(0, os.path.join(HERE, "stub"))
    sys.path.insert(0, src)
    os.environ["GRAPHBLAST_KERNEL_LAUNCH"] = "cupy"  # no driver: launches go to the stub


def _grid(k, weights):
    """The k x k 4-neighbour grid, built on the CPU and moved (the stub runs no kernel that
    building on the device would need)."""
    import numpy as np

    from graphblast import Matrix
    from graphblast.dtypes import BOOL, INT64

    n = k * k
    i = np.arange(n)
    right, left, down, up = (i % k) < k - 1, (i % k) > 0, i < n - k, i >= k
    rows = np.r_[i[right], i[left], i[down], i[up]]
    cols = np.r_[i[right] + 1, i[left] - 1, i[down] + k, i[up] - k]
    if weights:
        vals = np.random.default_rng(0).integers(1, 100, rows.size)
        return Matrix.from_coo(rows, cols, vals, INT64, nrows=n, ncols=n,
                               device="cpu").to_device("cuda")
    return Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n,
                           device="cpu").to_device("cuda")


def cases():
    import numpy as np

    import graphblast as gb
    from graphblast import Matrix, Vector, binary, select, semiring
    from graphblast.dtypes import BOOL, INT64

    any_pair = semiring.any_pair[BOOL]
    out = {}

    # the per-call figure's call, on a 34-vertex path (the one-block product)
    rows, cols = np.nonzero(np.eye(34, k=1) + np.eye(34, k=-1))
    P = Matrix.from_coo(rows, cols, True, BOOL, nrows=34, ncols=34, device="cpu")
    P = P.to_device("cuda")
    q = Vector.from_coo([0], True, BOOL, size=34, device="cuda")
    seen, w = q.dup(), Vector(BOOL, 34, device="cuda")

    def vxm():
        w(~seen.S, replace=True) << q.vxm(P, any_pair)
    out["vxm"] = [("masked vxm, 34 vertices", vxm, {})]

    k = 256
    G = _grid(k, weights=False)
    n = G.nrows
    levels = Vector(INT64, n, device="cuda")
    levels[0] << 0
    start = Vector.from_coo([1, k], True, BOOL, size=n, device="cuda")

    def level():
        frontier = start.dup()
        levels(frontier.S) << 3
        frontier(~levels.S, replace=True) << frontier.vxm(G, any_pair)
        return frontier.nvals
    out["level"] = [("BFS level, grid 256 x 256 (a dup of 2 entries included)", level, {})]

    one = Vector.from_coo([1], True, BOOL, size=n, device="cuda")
    visited = levels.dup()

    def first():
        return one.vxm(G, any_pair).new(mask=~visited.S)
    # a frontier a push made, its count read (a BFS's later levels): the planner's exact path
    with gb.config.set(direction="push"):
        pushed = first()
    pushed.nvals

    def after_push():
        return pushed.vxm(G, any_pair).new(mask=~visited.S)
    out["planner"] = [("one-vertex masked vxm, push forced", first, {"direction": "push"}),
                      ("one-vertex masked vxm, auto", first, {}),
                      ("masked vxm of a pushed frontier, push forced", after_push,
                       {"direction": "push"}),
                      ("masked vxm of a pushed frontier, auto", after_push, {})]

    W = _grid(k, weights=True)
    min_plus = semiring.min_plus[INT64]
    dist = Vector(INT64, n, device="cuda")  # a bitmap, as SSSP's is past its first rounds
    dist(Vector.from_coo([0, 1, k], True, BOOL, size=n, device="cuda").S) << 5
    bucket = Vector.from_coo([1, k], [5, 7], INT64, size=n, device="cuda")

    def sssp_round():  # sssp._relax of a light round of delta-stepping
        t = bucket.vxm(W, min_plus).new()
        better = ~t.ewise_mult(dist, binary.ge).new().V
        dist(binary.min) << t
        return t.select(select.valuelt, 1000).new(mask=better).nvals
    out["sssp"] = [("SSSP light round (sssp._relax within a bucket)", sssp_round, {})]

    # PageRank's step (algorithms/pagerank.py, dangling="uniform"): the sinks' mass reduced
    # to a Scalar left on the GPU and bound by the teleport's apply, the scaling, the pull;
    # on a GPU the host queues all of it without waiting (here the stand-in's kept value is
    # a host array, read as one)
    fp64 = gb.dtypes.FP64
    share = Vector.from_scalar(0.5, n, fp64, device="cuda")
    rank = Vector.from_scalar(1.0 / n, n, fp64, device="cuda")
    sink_share = Vector.from_scalar(0.85 / n, n, fp64, device="cuda")
    sink_share(mask=Vector.from_coo([1, 2, 3], 1.0, fp64, size=n, device="cuda").S) << 0.0
    teleport = Vector.from_scalar(0.15 / n, n, fp64, device="cuda")
    plus_second = semiring.plus_second[fp64]

    def pagerank_step():
        spread = rank.inner(sink_share, semiring.plus_times).new()
        new = teleport.apply(binary.plus, right=spread).new()
        c = rank.ewise_mult(share, binary.times).new()
        new(binary.plus) << G.T.mxv(c, plus_second)
        return new
    out["pagerank"] = [("PageRank step, grid 256 x 256 (sinks' mass, teleport, scale, pull)",
                        pagerank_step, {})]
    for group in out.values():  # the warm-up: the traversal views built, the kernels "compiled"
        for _, fn, settings in group:
            with gb.config.set(**settings):
                fn()
    import cupy

    cupy.CHEAP_EMPTY = True
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", default=os.path.join(HERE, "..", "..", "src"),
                   help="the graphblast sources to time (default: this tree's src/)")
    p.add_argument("--cases", default="vxm,level,planner,sssp,pagerank")
    p.add_argument("--number", type=int, default=2000, help="calls a repeat")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--profile", metavar="SORT", help="a Python profile of each case, sorted "
                   "by SORT (tottime, cumulative)")
    args = p.parse_args()
    _setup(os.path.abspath(args.src))
    import graphblast as gb

    table = cases()
    for name in args.cases.split(","):
        for label, fn, settings in table[name]:
            with gb.config.set(**settings):
                best = min(timeit.repeat(fn, number=args.number, repeat=args.repeat))
                print(f"{label:58s} {best / args.number * 1e6:8.2f} us", flush=True)
                if args.profile:
                    prof = cProfile.Profile()
                    prof.enable()
                    for _ in range(args.number):
                        fn()
                    prof.disable()
                    s = io.StringIO()
                    pstats.Stats(prof, stream=s).sort_stats(args.profile).print_stats(30)
                    print(s.getvalue())


if __name__ == "__main__":
    main()
