"""(helper, not a measurement) The profiling scripts' shared command line: ``--graphs a,b --out DIR``, one record per graph.

    import per_graph
    per_graph.run(measure, "probe.json")   # measure(name) -> a JSON-able record
    per_graph.run(measure, "probe.json", options=add)  # add(parser); measure(name, args)
"""

import argparse
import json
import os

import numpy as np


def run(measure, filename, after_each=None, options=None):
    """``measure(name)`` for each graph of ``--graphs``, the records written to
    ``--out``/``filename`` after each one (a graph that fails is recorded with its error and
    the next still runs); ``after_each()`` between graphs (freeing the memory pool).  With
    ``options``, a probe's own arguments: ``options(parser)`` adds them and
    ``measure(name, args)`` reads them."""
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"))
    p.add_argument("--graphs", default="kron-22")
    if options is not None:
        options(p)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = []
    for name in args.graphs.split(","):
        try:
            out.append(measure(name) if options is None else measure(name, args))
        except Exception as e:  # noqa: BLE001 - a probe: the next graph still runs
            out.append({"graph": name, "error": repr(e)})
            print(out[-1], flush=True)
        if after_each is not None:
            after_each()
        with open(os.path.join(args.out, filename), "w") as f:
            json.dump(out, f, indent=1)


def gpu_ms(fn, runs=3):
    """Median GPU milliseconds of ``fn`` by CUDA events, after one warm call."""
    import cupy as cp

    fn()
    out = []
    for _ in range(runs):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(out))
