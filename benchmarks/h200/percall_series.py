"""Whether the per-call figure has a transient: the record's call (graphblast bench's
per_call_overhead: karate, masked vxm, the device synchronized before and after each call)
as a time series, medians of 500 calls, right after the graph is built and again after half
a second idle, with the GPU's clocks read at the start and the middle of each series.

On an H100 (twenty-fifth session, percall.py --quick) the record's own measurement read
30.1 us twice and then, in the same process a few thousand calls later, 21.5-21.9 us for the
same call, where percall.py's cases (the lower of two measurements each) read 21 us before
it: this probe says whether the slow stretch follows the build (a GPU left idle and clocked
down, say) and how long it lasts.

    python3 benchmarks/h200/percall_series.py > $OUT/percall_series.txt
    python3 benchmarks/h200/percall_series.py --pin 3,7,12   # the series on each CPU in turn

On the H100 of the twenty-seventh session the same call took 20.7-21.3 us while the process
ran on CPU 7 and 26.9-32.0 us once the scheduler had moved it to CPU 3 (clocks fixed
throughout); ``--pin`` runs the series with the process held on each given CPU, so that
the host CPU is the one thing that changes.
"""

import argparse
import os
import subprocess
import time

import cupy as cp
import numpy as np

from graphblast import Vector, semiring
from graphblast.bench import graphs
from graphblast.dtypes import BOOL

CALLS, WINDOW = 6000, 500


def clocks():
    out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw",
                          "--format=csv,noheader"], capture_output=True, text=True)
    return out.stdout.strip()


def cpu_now():
    """The CPU this process last ran on (the 39th field of /proc/self/stat)."""
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])


def series(label, A):
    q = Vector.from_coo([0], True, BOOL, size=A.nrows, device="cuda")
    seen, out = q.dup(), Vector(BOOL, A.nrows, device="cuda")
    any_pair = semiring.any_pair[BOOL]
    device = cp.cuda.Device()
    took = np.empty(CALLS)
    cpus = np.empty(CALLS // 25, dtype=int)
    for k in range(CALLS):
        device.synchronize()
        t0 = time.perf_counter()
        out(~seen.S, replace=True) << q.vxm(A, any_pair)
        device.synchronize()
        took[k] = time.perf_counter() - t0
        if k % 25 == 0:
            cpus[k // 25] = cpu_now()
        if k in (0, CALLS // 2):
            print(f"{label} clocks at call {k}: {clocks()}", flush=True)
    medians = [np.median(took[i:i + WINDOW]) * 1e6 for i in range(0, CALLS, WINDOW)]
    print(f"{label} us, medians of {WINDOW}: " + " ".join(f"{m:.1f}" for m in medians),
          flush=True)
    per = WINDOW // 25
    print(f"{label} host CPUs by window: " + " ".join(
        "/".join(str(c) for c in sorted(set(cpus[i:i + per].tolist())))
        for i in range(0, len(cpus), per)), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pin", help="comma-separated host CPUs: one series held on each")
    args = parser.parse_args()
    print(subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True,
                         text=True).stdout, flush=True)
    print(f"allowed CPUs: {sorted(os.sched_getaffinity(0))}", flush=True)
    data = os.environ["GRAPHBLAST_DATA"]
    if args.pin:
        A = graphs.build(graphs.GraphSpec("karate"), "cuda", data).A
        for cpu in [int(c) for c in args.pin.split(",")] * 2:
            os.sched_setaffinity(0, {cpu})
            series(f"held on CPU {cpu}", A)
        return
    for round_ in range(3):
        A = graphs.build(graphs.GraphSpec("karate"), "cuda", data).A
        series(f"built ({round_})", A)
        time.sleep(0.5)
        series(f"after 0.5 s idle ({round_})", A)


if __name__ == "__main__":
    main()
