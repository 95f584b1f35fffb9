"""The first call's extra time, measured on its own: ``first_call_s`` per algorithm.

The first call of an algorithm compiles its kernels (NVRTC through CuPy, a second or more
on a fresh machine), and users feel it.  CuPy keeps compiled kernels in two caches: on disk
(``CUPY_CACHE_DIR``, ``~/.cupy/kernel_cache`` by default) and in the memory of the process
(its own kernel memos and graphblast's, ``backends/cuda/jit.py``).  The only way to empty both
for sure is a new process whose ``CUPY_CACHE_DIR`` is an empty folder, set before CuPy starts,
so each algorithm is measured in a fresh subprocess (``python -m
graphblast.bench.first_call``) with its own empty temporary folder, removed afterwards.

The subprocess builds the same graph as the main run (the generators are deterministic; the
graph is built before the clock starts, so kernels the generator compiled are already there,
as they would be for a user who built a graph and then ran the algorithm), times one call,
then up to :data:`WARM_RUNS` warm calls (at most :data:`WARM_SECONDS` of them, at least one):

    first_call_s = first call - median of the warm calls

and counts the files that appeared in the cache folder during the first call (the kernels it
compiled: CuPy's own and graphblast's programs the kernel catalogue lacks, the latter also
counted apart as ``catalogue_misses``).  On the CPU nothing is compiled, and ``first_call_s`` is the first call's other
one-time costs (imports, caches).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

__all__ = ["measure", "measure_all"]

WARM_RUNS = 3
WARM_SECONDS = 10.0
#: The line of the subprocess's stdout that carries its answer.
MARKER = "GRAPHBLAST_FIRST_CALL "


def _files(folder):
    return sum(len(f) for _, _, f in os.walk(folder)) if folder else 0


def _catalogue_misses(device):
    """graphblast's programs compiled at run time so far in this process (those the kernel
    catalogue lacks; backends/cuda/jit.py), 0 on the CPU."""
    if not str(device).startswith("cuda"):
        return 0
    from ..backends.cuda import jit

    return jit.runtime_compiles


def _child(graph_name, algorithm, device, data_dir):
    """In the subprocess: build, time the first call and the warm ones; a dict."""
    from . import graphs
    from .peers import AlgorithmParams, Graphblast
    from .runner import _timed_once

    spec = graphs.parse_graphs(graph_name)[0]
    graph = graphs.build(spec, device, data_dir or None)
    ours = Graphblast(device)
    fn = ours.task(algorithm, ours.prepare(graph, algorithm == "sssp"), graph,
                   AlgorithmParams())
    ours.sync()
    cache = os.environ.get("CUPY_CACHE_DIR")
    before = _files(cache)
    misses = _catalogue_misses(device)
    first, _ = _timed_once(fn, ours.sync)
    compiled = _files(cache) - before
    misses = _catalogue_misses(device) - misses
    warm, spent = [], 0.0
    while len(warm) < WARM_RUNS and (not warm or spent < WARM_SECONDS):
        t, _ = _timed_once(fn, ours.sync)
        warm.append(t)
        spent += t
    warm.sort()
    median = warm[len(warm) // 2] if len(warm) % 2 else sum(warm[len(warm) // 2 - 1:
                                                                 len(warm) // 2 + 1]) / 2
    return {"graph": graph.name, "first_s": first, "warm_s": warm, "warm_median_s": median,
            "first_call_s": first - median, "kernels_compiled": compiled,
            "catalogue_misses": misses,
            "build_s": graph.build_seconds}


def measure(graph_name, algorithm, device, data_dir=None, timeout=300):
    """``first_call_s`` of ``algorithm`` on ``graph_name``, from a fresh subprocess with an
    empty CuPy cache; a dict (with ``error`` instead of the figures when it failed)."""
    import graphblast

    folder = tempfile.mkdtemp(prefix="graphblast-first-call-")
    src = os.path.dirname(os.path.dirname(os.path.abspath(graphblast.__file__)))
    env = dict(os.environ, CUPY_CACHE_DIR=folder, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH"))
                                          if p))
    cmd = [sys.executable, "-m", "graphblast.bench.first_call", graph_name, algorithm,
           str(device), data_dir or ""]
    method = ("a fresh Python process with CUPY_CACHE_DIR set to an empty temporary folder; "
              "the graph built first, then one call, then warm calls")
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"graph": graph_name, "method": method,
                "error": f"the measuring process took more than {timeout} s"}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(MARKER):
            out = json.loads(line[len(MARKER):])
            out["method"] = method
            out["process_s"] = time.perf_counter() - t0
            return out
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"graph": graph_name, "method": method,
            "error": f"the measuring process exited with status {done.returncode}: {tail}"}


def measure_all(graph_name, algorithms, device, data_dir=None, progress=None, deadline=None):
    """:func:`measure` for each algorithm, one process each; ``{algorithm: dict}``."""
    out = {}
    for algorithm in algorithms:
        if deadline is not None and time.perf_counter() > deadline:
            out[algorithm] = {"graph": graph_name, "error": "not measured: the run's deadline "
                                                             "was reached"}
            continue
        if progress is not None:
            progress.start(f"first call: {algorithm} on {graph_name} (fresh process)")
        out[algorithm] = r = measure(graph_name, algorithm, device, data_dir)
        if progress is not None:
            progress.note(f"first call: {algorithm} on {graph_name}: " +
                          (f"{r['first_s']:.3g} s, warm {r['warm_median_s']:.3g} s, "
                           f"first_call_s {r['first_call_s']:.3g} s, "
                           f"{r['kernels_compiled']} kernels compiled"
                           if "error" not in r else r["error"]))
    return out


def _main(argv):
    graph_name, algorithm, device, data_dir = argv
    try:
        result = _child(graph_name, algorithm, device, data_dir)
    except Exception as e:  # noqa: BLE001 - reported to the parent
        from .runner import describe_failure

        result = {"graph": graph_name, "error": describe_failure(e)["reason"]}
    sys.stdout.write(MARKER + json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
