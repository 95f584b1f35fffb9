"""Whole fresh processes of the command line, timed the way a new user meets them.

A user's first command after ``pip install`` starts Python, imports graphblast and CuPy,
builds or reads a graph, compiles whatever kernels it needs and runs.  This stage times the
whole process, from its start to its exit, of each command of :data:`COMMANDS`, with every
kernel cache empty: CuPy's on-disk cache is a new empty folder (``CUPY_CACHE_DIR``), and a new
process has no kernel in memory; graphblast's shipped kernel catalogue is what a user has too.
The files that appear in the cache folder are the kernels compiled at run time (CuPy's own
and graphblast's catalogue misses).

    first_process_bfs_kron16_s   graphblast run bfs kron:16 --device cuda
    first_process_cc_kron16_s    graphblast run cc kron:16 --device cuda
    first_process_demo_s         python -m graphblast.demo   (what ``make demo`` runs)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

__all__ = ["COMMANDS", "measure", "measure_all"]

#: summary key -> (what it is, the arguments after ``python -m``; "{device}" filled in)
COMMANDS = {
    "first_process_bfs_kron16_s": ("graphblast run bfs kron:16",
                                   ["graphblast.cli", "run", "bfs", "kron:16", "--device",
                                    "{device}"]),
    "first_process_cc_kron16_s": ("graphblast run cc kron:16",
                                  ["graphblast.cli", "run", "cc", "kron:16", "--device",
                                   "{device}"]),
    "first_process_demo_s": ("python -m graphblast.demo", ["graphblast.demo"]),
}


def _files(folder):
    return sum(len(f) for _, _, f in os.walk(folder))


def measure(key, device, timeout=300):
    """One command of :data:`COMMANDS` in a fresh process with an empty CuPy cache: a dict
    with ``wall_s`` and ``kernels_compiled`` (or ``error``)."""
    import graphblast

    what, args = COMMANDS[key]
    folder = tempfile.mkdtemp(prefix="graphblast-first-process-")
    src = os.path.dirname(os.path.dirname(os.path.abspath(graphblast.__file__)))
    env = dict(os.environ, CUPY_CACHE_DIR=folder, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH"))
                                          if p))
    env.pop("GRAPHBLAST_RECORD_KEYS", None)
    if key == "first_process_demo_s":
        env["GRAPHBLAST_DEVICE"] = str(device)
    cmd = [sys.executable, "-m", *(a.format(device=device) for a in args)]
    out = {"command": what + ("" if key == "first_process_demo_s" else f" --device {device}"),
           "method": "a fresh Python process with CUPY_CACHE_DIR an empty temporary folder, "
                     "timed from its start to its exit"}
    t0 = time.perf_counter()
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                              check=False)
        wall = time.perf_counter() - t0
        compiled = _files(folder)
    except subprocess.TimeoutExpired:
        return {**out, "error": f"the process took more than {timeout} s"}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {**out, "error": f"exited with status {done.returncode}: {tail}"}
    return {**out, "wall_s": wall, "kernels_compiled": compiled}


def measure_all(device, progress=None, deadline=None):
    """:func:`measure` for every command; ``{summary key: dict}``."""
    results = {}
    for key, (what, _) in COMMANDS.items():
        if deadline is not None and time.perf_counter() > deadline:
            results[key] = {"command": what, "error": "not measured: the run's deadline was "
                                                      "reached"}
            continue
        if progress is not None:
            progress.start(f"first process: {what} (fresh process, empty caches)")
        results[key] = r = measure(key, device)
        if progress is not None:
            progress.note(f"first process: {what}: " + (
                f"{r['wall_s']:.3g} s, {r['kernels_compiled']} kernels compiled"
                if "error" not in r else r["error"]))
    return results
