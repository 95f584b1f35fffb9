"""``graphblast bench``: graphblast against SuiteSparse, networkit, igraph, SciPy, NetworkX and
cuSPARSE, side by side in one run, every answer checked before its time counts.

    python -m graphblast.bench --out DIR [--smoke] [--primitives] [--graphs kron,urand,...]
        [--algorithms bfs,sssp,...] [--peers suitesparse,networkit,...] [--device cpu|cuda]
        [--scale-offset N] [--repeat N] [--time-limit SECONDS]

writes ``DIR/results.json`` (every figure and the machine), ``DIR/results.md`` (the tables,
also printed on stdout at the end), ``DIR/speedup.png`` and ``DIR/gteps.png``, and with
``--primitives`` ``DIR/primitives.json``.  Progress goes to stderr.  See docs/benchmarks.md.

The exit status is 0 when every graph was built and every graphblast answer passed its check
(or had nothing to be checked against), 1 when not, 2 for bad arguments.
"""

import argparse
import contextlib
import io
import os
import shlex
import sys
import time

from graphblast.exceptions import InvalidValue

from . import check, graphs, report
from .peers import PEER_NAMES, AlgorithmParams

__all__ = ["main", "run"]

ALIASES = {"connected_components": "cc", "components": "cc", "triangle_count": "tc",
           "triangles": "tc", "pr": "pagerank"}
#: Defaults of a full run and of --smoke (tiny graphs, CI's two cores, under two minutes).
DEFAULTS = {
    False: {"repeat": 5, "time_limit": 120.0, "copy_bytes_cpu": 256 << 20,
            "copy_bytes_gpu": 1 << 30, "overhead_calls": 1000},
    True: {"repeat": 3, "time_limit": 30.0, "copy_bytes_cpu": 32 << 20,
           "copy_bytes_gpu": 256 << 20, "overhead_calls": 200},
}


def _parser():
    p = argparse.ArgumentParser(
        prog="graphblast bench",
        description="Benchmark graphblast against its peers; every answer is checked.")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="directory for results.json, results.md and the plots")
    p.add_argument("--smoke", action="store_true",
                   help="tiny graphs and few runs (CI: under two minutes on two cores)")
    p.add_argument("--primitives", action="store_true",
                   help="also measure the primitives (SpMV, masked SpMV, push/pull, masked "
                        "SpGEMM) into primitives.json")
    p.add_argument("--graphs", metavar="LIST",
                   help="comma-separated: kron, g500, urand, rgg, grid, karate, facebook, "
                        "luxembourg, delaunay, real, or a family with a size (kron-18); "
                        "default: the five synthetic families (plus karate with --smoke)")
    p.add_argument("--algorithms", metavar="LIST",
                   help="comma-separated from bfs, sssp, pagerank, cc, tc, or 'none'; "
                        "default: all")
    p.add_argument("--peers", metavar="LIST",
                   help=f"comma-separated from {', '.join(PEER_NAMES)}, or 'none'; "
                        "default: all (missing ones are reported, not run)")
    p.add_argument("--device", metavar="DEVICE",
                   help="graphblast's device: cpu or cuda[:N]; default: graphblast's default")
    p.add_argument("--scale-offset", type=int, default=0, metavar="N",
                   help="add N to every graph's scale (about 2^N times the vertices)")
    p.add_argument("--repeat", type=int, metavar="N",
                   help="timed runs per measurement (default 5; 3 with --smoke)")
    p.add_argument("--warmup", type=int, default=1, metavar="N",
                   help="untimed runs before the timed ones (default 1)")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="most seconds one participant spends on one (algorithm, graph), "
                        "warm-up included; participants predicted to need more for one run "
                        "are skipped (default 120; 30 with --smoke)")
    p.add_argument("--data", metavar="DIR",
                   help="directory of the real graphs (shared/data); default: "
                        "$GRAPHBLAST_DATA or a shared/data found beside the repository")
    return p


def _names(text, known, what, aliases=None):
    if text is None:
        return list(known)
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    if names == ["none"]:
        return []
    out = []
    for name in names:
        name = (aliases or {}).get(name, name)
        if name not in known:
            raise InvalidValue(f"unknown {what} {name!r}; choose from {', '.join(known)} "
                               "(comma-separated), or 'none'")
        if name not in out:
            out.append(name)
    if not out:
        raise InvalidValue(f"--{what}s is empty; name at least one, or 'none'")
    return out


def _device(text):
    from graphblast.backends import cuda_available, default_device, parse_device

    device = default_device() if text is None else parse_device(text)
    if device.startswith("cuda") and not cuda_available():
        raise InvalidValue(f"--device {text} needs CuPy and a usable NVIDIA GPU, and none was "
                           "found; run with --device cpu")
    return device


def _options(args):
    if args.repeat is not None and args.repeat < 1:
        raise InvalidValue(f"--repeat must be at least 1, got {args.repeat}")
    if args.warmup < 0:
        raise InvalidValue(f"--warmup must be 0 or more, got {args.warmup}")
    if args.time_limit is not None and not args.time_limit > 0:
        raise InvalidValue(f"--time-limit must be a positive number of seconds, got "
                           f"{args.time_limit}")
    defaults = DEFAULTS[args.smoke]
    algorithms = _names(args.algorithms, check.ALGORITHMS, "algorithm", ALIASES)
    if not algorithms and not args.primitives:
        raise InvalidValue("--algorithms none leaves nothing to run; add --primitives")
    return {
        "smoke": args.smoke,
        "primitives": args.primitives,
        "graphs": graphs.parse_graphs(args.graphs, smoke=args.smoke,
                                      scale_offset=args.scale_offset),
        "algorithms": algorithms,
        "peers": _names(args.peers, PEER_NAMES, "peer"),
        "device": _device(args.device),
        "scale_offset": args.scale_offset,
        "repeat": args.repeat if args.repeat is not None else defaults["repeat"],
        "warmup": args.warmup,
        "time_limit": args.time_limit if args.time_limit is not None
        else defaults["time_limit"],
        "data_dir": graphs.find_data_dir(args.data),
        "out": args.out,
    }


@contextlib.contextmanager
def _stdout_to_stderr():
    """While the run lasts, send stdout, Python's and the C libraries', to stderr.

    Peers print (and native code writes to file descriptor 1 directly); stdout is kept for
    the table printed at the end.
    """
    sys.stdout.flush()
    try:
        fd, err_fd = sys.stdout.fileno(), sys.stderr.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        with contextlib.redirect_stdout(sys.stderr):
            yield
        return
    saved = os.dup(fd)
    try:
        os.dup2(err_fd, fd)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, fd)
        os.close(saved)


def run(options, command, progress_stream=None):
    """Run the benchmark described by ``options`` (see :func:`main`); returns the document
    written to results.json."""
    from .primitives import run_primitives
    from .runner import Progress, Suite, copy_bandwidth

    started, t0 = report.timestamp(), time.perf_counter()
    device, smoke = options["device"], options["smoke"]
    defaults = DEFAULTS[smoke]
    params = AlgorithmParams()
    progress = Progress(1, stream=progress_stream)
    try:
        suite = Suite(options["graphs"] if options["algorithms"] else [],
                      options["algorithms"], options["peers"], device,
                      repeat=options["repeat"], warmup=options["warmup"],
                      time_limit=options["time_limit"], data_dir=options["data_dir"],
                      params=params, progress=progress)
        progress.set_total(suite.steps() + 2 + int(options["primitives"]))
        for name, p in suite.peer_report.items():
            if not p["available"]:
                progress.note(f"peer {name} not available: {p['note']}")
        progress.start("measuring copy bandwidth")
        nbytes = defaults["copy_bytes_gpu" if device.startswith("cuda") else "copy_bytes_cpu"]
        bandwidth = copy_bandwidth(device, nbytes)
        progress.advance(f"copy bandwidth on {device}: {bandwidth['GBps']:.4g} GB/s")
        described, results = suite.run()
        report.add_bounds(results, bandwidth)
        progress.start("per-call overhead (masked vxm on karate)")
        try:
            overhead = suite.per_call_overhead(defaults["overhead_calls"])
        except Exception as e:  # noqa: BLE001 - reported in the summary notes
            overhead = {"error": f"{type(e).__name__}: {e}"}
        progress.advance("per-call overhead: " + (f"{overhead['median_us']:.1f} us"
                                                  if "median_us" in overhead
                                                  else overhead["error"]))
        primitives = None
        if options["primitives"]:
            cusparse = next((p for p in suite.peers if p.name == "cusparse"), None)
            kron = next((s for s in options["graphs"] if s.family == "kron"),
                        graphs.GraphSpec("kron", graphs.SMOKE_SIZES["kron"] if smoke
                                         else graphs.DEFAULT_SIZES["kron"])
                        .scaled(options["scale_offset"]))
            primitives = run_primitives(kron, device, repeat=options["repeat"],
                                        warmup=options["warmup"],
                                        time_limit=options["time_limit"], cusparse=cusparse,
                                        progress=progress, data_dir=options["data_dir"])
    finally:
        progress.close()
    doc = {
        "schema": 1,
        "command": command,
        "started": started,
        "wall_s": time.perf_counter() - t0,
        "options": {k: ([s.name for s in v] if k == "graphs" else v)
                    for k, v in options.items()},
        "params": {"damping": params.damping, "pagerank_tol_l1": params.pagerank_tol,
                   "pagerank_max_iter": params.pagerank_max_iter,
                   "pagerank_fixed_iterations": params.pagerank_fixed_iterations,
                   "pagerank_check_l1": check.PAGERANK_L1_TOLERANCE,
                   "sssp_check_rtol": check.SSSP_RTOL},
        "machine": report.machine_info(),
        "versions": report.library_versions(),
        "copy_bandwidth": bandwidth,
        "peers": suite.peer_report,
        "graphs": described,
        "results": results,
        "per_call_overhead": overhead,
    }
    if primitives is not None:
        doc["primitives"] = {"summary": primitives["summary"],
                             "summary_notes": primitives["summary_notes"],
                             "file": "primitives.json"}
    doc["summary"], doc["summary_notes"] = report.summarize(doc)
    out = options["out"]
    doc["plots"], doc["plots_note"] = report.write_plots(out, doc)
    if primitives is not None:
        report.write_json(os.path.join(out, "primitives.json"), primitives)
    report.write_json(os.path.join(out, "results.json"), doc)
    doc["markdown"] = report.write_markdown(os.path.join(out, "results.md"), doc)
    return doc


def _failures(doc):
    """What went wrong on graphblast's side: graphs not built, answers wrong or failed."""
    bad = [f"graph {g['name']} not built: {g['error']}" for g in doc["graphs"] if "error" in g]
    for rec in doc["results"]:
        ours = rec["participants"].get("graphblast", {})
        if ours.get("status") in ("mismatch", "error"):
            why = ours.get("reason") or ours.get("check", {}).get("detail", "")
            bad.append(f"{rec['algorithm']} on {rec['graph']}: {ours['status']}: {why}")
    return bad


def main(argv=None):
    """The command line; returns the exit status (0 ok, 1 a graphblast answer failed,
    2 bad arguments)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        options = _options(args)
        os.makedirs(options["out"], exist_ok=True)
    except (InvalidValue, OSError) as e:
        parser.error(str(e))
    command = "python -m graphblast.bench " + shlex.join(argv)
    with _stdout_to_stderr():
        doc = run(options, command)
    sys.stdout.write(doc["markdown"])
    sys.stdout.flush()
    failures = _failures(doc)
    for line in failures:
        print(f"graphblast bench: {line}", file=sys.stderr)
    return 1 if failures else 0
