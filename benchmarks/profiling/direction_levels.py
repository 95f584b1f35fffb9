"""When is push faster than pull?  The data behind the push/pull planner (``plan.direction``): per BFS level, forced push and
forced pull timed on the same frontier and visited set, with what the planner knows or could
know about that level.  A development instrument: its JSON calibrates the planner's model.

    python3 benchmarks/profiling/direction_levels.py --out $OUT [--graphs kron-22,g500-21,kron-27]
        [--sources 4]

Each row: the frontier's entries and exact degree sum (push's products), the unvisited rows,
their edges (pull's work without early exit) and how many have an edge, the planner's choice
and reason, and the three times (auto, push, pull: medians of 3, synchronized).  Sources: the
benchmark's own and ``--sources - 1`` random vertices with an edge (seeded).
"""

import argparse
import json
import logging
import os
import time

import numpy as np

import graphblast as gb
from graphblast import Vector, semiring
from graphblast.bench import graphs
from graphblast.dtypes import BOOL, INT64


class Reasons(logging.Handler):
    """The planner's last direction decision, from the graphblast logger."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.last = None

    def emit(self, record):
        if record.getMessage().startswith("direction:"):
            self.last = record.getMessage()


def sync():
    if DEVICE.startswith("cuda"):
        import cupy as cp
        cp.cuda.get_current_stream().synchronize()


DEVICE = "cuda:0"


def timed(op, mode, repeat=3):
    with gb.config.set(direction=mode):
        op()
        sync()
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            op()
            sync()
            times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e3


def levels_of(A, degrees, source, reasons):
    n, m = A.nrows, int(degrees.sum())
    any_pair = semiring.any_pair[BOOL]
    levels = Vector(INT64, n, device=A.device)
    frontier = Vector.from_coo([source], True, BOOL, size=n, device=A.device)
    rows, depth = [], 0
    while frontier.nvals:
        levels(frontier.S) << depth
        depth += 1
        f_idx = np.asarray(frontier.to_coo()[0], dtype=np.int64)
        seen = np.zeros(n, dtype=bool)
        seen[np.asarray(levels.to_coo()[0], dtype=np.int64)] = True
        unseen_deg = degrees[~seen]

        def op(q=frontier, visited=levels):
            return q.vxm(A, any_pair).new(mask=~visited.S)

        row = {"level": depth - 1, "frontier": int(len(f_idx)),
               "frontier_format": type(frontier._data).__name__,
               "push_work": int(degrees[f_idx].sum()), "nvals": m, "n": n,
               "unvisited_rows": int(n - seen.sum()),
               "unvisited_rows_with_edges": int((unseen_deg > 0).sum()),
               "unvisited_edges": int(unseen_deg.sum())}
        for mode in ("push", "pull", "auto"):
            row[f"{mode}_ms"] = timed(op, mode)
        reasons.last = None
        op()
        row["auto_reason"] = reasons.last
        frontier(~levels.S, replace=True) << frontier.vxm(A, any_pair)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main():
    global DEVICE
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graphs", default="kron-22,g500-21,urand-22")
    p.add_argument("--sources", type=int, default=4)
    p.add_argument("--device", default=DEVICE, help="cpu: a dry run of this script")
    args = p.parse_args()
    DEVICE = args.device
    os.makedirs(args.out, exist_ok=True)
    logger = logging.getLogger("graphblast")
    reasons = Reasons()
    logger.addHandler(reasons)
    logger.setLevel(logging.DEBUG)
    out = {}
    path = os.path.join(args.out, "direction.json")
    for name in args.graphs.split(","):
        spec = graphs.parse_graphs(name)[0]
        graph = graphs.build(spec, DEVICE)
        degrees = np.diff(np.asarray(graph.indptr, dtype=np.int64))
        rng = np.random.default_rng(7)
        sources = [graph.source] + [int(v) for v in rng.choice(
            np.flatnonzero(degrees), size=args.sources - 1, replace=False)]
        out[name] = {}
        for s in sources:
            print(f"== {name} from {s} (degree {degrees[s]})", flush=True)
            out[name][str(s)] = levels_of(graph.A, degrees, s, reasons)
            with open(path, "w") as f:
                json.dump(out, f, indent=1)
        del graph
        if DEVICE.startswith("cuda"):
            import cupy as cp
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
