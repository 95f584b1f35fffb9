"""What does replaying graphblast.repeat's rounds from a CUDA graph save?  Replayed
from a captured graph against the same rounds issued from
Python (``gb.config device_loops``), in one process, alternating: SSSP on the long-diameter
graphs (its buckets' light rounds go through repeat) and a BFS-like loop on the grid.

    python3 benchmarks/compare/repeat_replayed_or_issued.py --graphs grid-2048,rgg-22 --runs 3

Each side runs in the order never auto auto never, ``--runs`` times each after a warm-up;
the medians, the answers' agreement and the host reads per call print.  With ``--log``, the
loops' debug lines (which bodies replayed, which ran from Python and why) print too.
"""

import argparse
import logging
import statistics
import time

import numpy as np

import graphblast as gb
from graphblast import Vector, algorithms, semiring
from graphblast.backends.cuda.blocks import host_reads
from graphblast.bench import graphs
from graphblast.dtypes import BOOL


def _timed(fn):
    before = host_reads()
    t0 = time.perf_counter()
    out = fn()
    out.wait()
    return time.perf_counter() - t0, out, host_reads() - before


def _levels(A, source):
    """A BFS through repeat: the visited set updated in place, the levels not kept."""
    n = A.nrows
    seen = Vector.from_coo([source], True, BOOL, size=n, device=A.device)
    any_pair = semiring.any_pair[BOOL]

    def step(frontier):
        out = frontier.vxm(A, any_pair).new(mask=~seen.S)
        seen(out.S) << True
        return out

    gb.repeat(step, seen.dup())
    return seen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graphs", default="grid-2048,rgg-22")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--log", action="store_true")
    args = p.parse_args()
    if args.log:  # the loops' lines only (the planner logs every product at debug level)
        handler = logging.StreamHandler()
        handler.addFilter(lambda record: record.getMessage().startswith("repeat:"))
        logger = logging.getLogger("graphblast")
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    for name in args.graphs.split(","):
        graph = graphs.build(graphs.parse_graphs(name)[0], args.device)
        jobs = {"sssp": lambda: algorithms.sssp(graph.Aw, graph.source)}
        if name.startswith("grid"):
            jobs["bfs by repeat"] = lambda: _levels(graph.A, graph.source)
        for job, fn in jobs.items():
            times, answers, reads = {"never": [], "auto": []}, {}, {}
            for side in ("never", "auto", "auto", "never"):
                with gb.config.set(device_loops=side):
                    fn().wait()  # warm-up
                    for _ in range(args.runs):
                        seconds, answers[side], reads[side] = _timed(fn)
                        times[side].append(seconds)
            same = answers["never"].isequal(answers["auto"])
            if not same and job == "sssp":  # floats may differ in their last bits
                a, b = (np.asarray(x.to_coo()[1], dtype=np.float64) for x in answers.values())
                same = f"close: {bool(np.allclose(a, b))}"
            print(f"{name} {job}: issued {statistics.median(times['never']) * 1e3:.1f} ms "
                  f"(min {min(times['never']) * 1e3:.1f}, {reads['never']} host reads), "
                  f"replayed {statistics.median(times['auto']) * 1e3:.1f} ms (min "
                  f"{min(times['auto']) * 1e3:.1f}, {reads['auto']} host reads); same "
                  f"answer: {same}", flush=True)
        graph = jobs = None  # the next graph built without this one


if __name__ == "__main__":
    main()
