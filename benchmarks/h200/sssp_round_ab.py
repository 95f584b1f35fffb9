"""SSSP's light round, the four-primitive one (``dist(min) << t`` folded in place, then a
masked select) against the five-primitive one it replaced (the improved entries copied out,
assigned under their own structure, then selected), in one process, alternating: rounds
cost a fixed ~200 us of host steps each, and the host's speed drifts between processes
(docs/design.md, twelfth session), so only a same-process comparison tells them apart.

    python3 benchmarks/h200/sssp_round_ab.py --graphs grid-2048,rgg-22 --runs 3

Each side runs ``algorithms.sssp`` without squaring (gb.config sssp_squarings=0), in the
order old new new old, ``--runs`` times each; the medians and the answers' agreement print.
"""

import argparse
import statistics
import time

import graphblast as gb
from graphblast import algorithms, binary, select
import importlib
from graphblast.bench import graphs

sssp_module = importlib.import_module("graphblast.algorithms.sssp")  # the module, not the function

FOUR = sssp_module._relax


def five(frontier, A, dist, min_plus, below=None):
    """The light round as it was: the improved entries copied, assigned under their own
    structure, then (within a bucket) selected below ``below``."""
    t = frontier.vxm(A, min_plus).new()
    improved = t.dup(mask=~t.ewise_mult(dist, binary.ge).new().V)
    dist(improved.S) << improved
    return improved if below is None else improved.select(select.valuelt, below).new()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graphs", default="grid-2048,rgg-22")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--device", default="cuda:0")
    args = p.parse_args()
    for name in args.graphs.split(","):
        graph = graphs.build(graphs.parse_graphs(name)[0], args.device)
        A, src = graph.Aw, graph.source
        times, answers = {"five": [], "four": []}, {}
        with gb.config.set(sssp_squarings=0):
            for side in ("five", "four", "four", "five"):
                sssp_module._relax = FOUR if side == "four" else five
                algorithms.sssp(A, src).wait()  # warm-up
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    answers[side] = algorithms.sssp(A, src)
                    answers[side].wait()
                    times[side].append(time.perf_counter() - t0)
        sssp_module._relax = FOUR
        print(f"{name}: five-primitive round {statistics.median(times['five']) * 1e3:.1f} ms "
              f"(min {min(times['five']) * 1e3:.1f}), four-primitive "
              f"{statistics.median(times['four']) * 1e3:.1f} ms (min "
              f"{min(times['four']) * 1e3:.1f}); same distances: "
              f"{answers['five'].isequal(answers['four'])}", flush=True)
        del graph, A


if __name__ == "__main__":
    main()
