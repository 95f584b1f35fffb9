"""``graphblast bench``: graphblast against SuiteSparse, networkit, igraph, SciPy, NetworkX and
cuSPARSE, side by side in one run, every answer checked before its time counts.

    python -m graphblast.bench --out DIR [--smoke] [--primitives] [--graphs kron,urand,...]
        [--algorithms bfs,sssp,...] [--peers suitesparse,networkit,...] [--device cpu|cuda]
        [--scale-offset N] [--repeat N] [--time-limit SECONDS] [--budget SECONDS]
        [--deadline SECONDS] [--resume [FILE] [--refresh]] [--first-call GRAPH|none] [--no-plots]
    python -m graphblast.bench --out DIR --merge A/results.json B/results.json ...
    python -m graphblast.bench --out DIR --report-readme README.md

writes ``DIR/results.json`` (every figure and the machine; rewritten after every measurement,
so a run stopped early keeps what it measured), ``DIR/results.md`` (the tables, also printed
on stdout at the end), ``DIR/speedup.png`` and ``DIR/gteps.png``, and with ``--primitives``
``DIR/primitives.json``.  Progress goes to stderr.  ``--merge`` combines the results of
several runs (the stages of the H200 record) into one; ``--report-readme`` writes the
README's performance section from ``DIR``'s record.  See docs/benchmarks.md.

The exit status is 0 when every graph was built, every graphblast answer passed its check
(or had nothing to be checked against) and the run was not cut short, 1 when not, 2 for bad
arguments.
"""

import argparse
import contextlib
import io
import json
import os
import shlex
import sys
import time

from graphblast.exceptions import InvalidValue

from . import check, graphs, merge, report
from .peers import PEER_NAMES, AlgorithmParams
from .primitives import SUMMARY_KEYS as PRIMITIVE_KEYS

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
    p.add_argument("--primitives", nargs="?", const="all", default=None, metavar="LIST",
                   help="also measure the primitives (SpMV, masked SpMV, push/pull, masked "
                        "SpGEMM, ...) into primitives.json; LIST selects some of them: "
                        "spmv, udf, masked-spmv, direction, bfs-levels, spgemm, yardstick")
    p.add_argument("--breadth", action="store_true",
                   help="also run the breadth benchmark (core_number, k_truss, Louvain, "
                        "Leiden, CDLP, LCC, Katz, eigenvector, SCC against their peers) into "
                        "breadth.json; --smoke always runs it, on its first graph and karate")
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
                   help="a participant predicted (from a warm pilot) to need more than this "
                        "for one run is skipped; 'inf' skips nothing and runs no pilot "
                        "(default 120; 30 with --smoke)")
    p.add_argument("--budget", type=float, metavar="SECONDS",
                   help="most seconds of runs one participant spends on one (algorithm, "
                        "graph), warm-up included: the timed runs are cut to fit (at least "
                        "one run is made; graphblast gets at least two after its warm-up); "
                        "default: the time limit")
    p.add_argument("--deadline", type=float, metavar="SECONDS",
                   help="start nothing new after this many seconds of the run: what is left "
                        "is marked not_run, the outputs are written, and --resume continues")
    p.add_argument("--resume", nargs="?", const="", metavar="FILE",
                   help="keep the complete measurements of an earlier results.json (default: "
                        "DIR/results.json) and measure only what it lacks")
    p.add_argument("--refresh", action="store_true",
                   help="with --resume: measure graphblast again on every resumed record (and "
                        "whatever a record lacks), keeping the peers' measurements; "
                        "graphblast's answer is checked against the reference answer recorded "
                        "with them (where none was, SuiteSparse runs again as the checker)")
    p.add_argument("--first-call", metavar="GRAPH",
                   help="measure each algorithm's first call (kernel compilation) on GRAPH in "
                        "a fresh process with an empty CuPy cache; default: the first graph "
                        "of the run; 'none' to skip")
    p.add_argument("--first-process", action="store_true",
                   help="time whole fresh processes of `graphblast run bfs kron:16`, `... cc "
                        "...` and `python -m graphblast.demo` on the device with every kernel "
                        "cache empty (bench/first_process.py)")
    p.add_argument("--no-plots", action="store_true",
                   help="write no PNG plots (a stage of a record whose plots come at --merge)")
    p.add_argument("--merge", nargs="+", metavar="RESULTS_JSON",
                   help="measure nothing: combine these results.json files (later ones win "
                        "for the same algorithm and graph) into DIR, with the tables, plots "
                        "and a primitives.json found beside any of them")
    p.add_argument("--report-readme", metavar="README",
                   help="measure nothing: write the performance section of README (between "
                        "its bench markers) from DIR/results.json (after --merge when both "
                        "are given)")
    p.add_argument("--batched", nargs="?", const="bc,msbfs,direction", metavar="PARTS",
                   help="also run the batched traversals' stage (bench/batched.py) into "
                        "batched.json: betweenness centrality (bc), multi-source BFS (msbfs) "
                        "and the mxm direction per step (direction); default: all three")
    p.add_argument("--bc-peer-samples", type=int, metavar="N",
                   help="with --batched: networkit's EstimateBetweenness runs N samples and "
                        "its time is scaled to k (default: k itself)")
    p.add_argument("--data", metavar="DIR",
                   help="directory of the real graphs (the repository's tests/data); "
                        "default: $GRAPHBLAST_DATA, else the package's own data (karate)")
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


def _primitive_sections(text):
    """``--primitives``' sections: None where the option is absent, every one for a bare
    ``--primitives`` (or ``all``)."""
    from .primitives import SECTIONS

    if text is None:
        return None
    return list(SECTIONS) if text.strip().lower() == "all" else _names(text, SECTIONS,
                                                                        "primitive")


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
    for name in ("time_limit", "budget", "deadline"):
        value = getattr(args, name)
        if value is not None and not value > 0:
            raise InvalidValue(f"--{name.replace('_', '-')} must be a positive number of "
                               f"seconds, got {value}")
    defaults = DEFAULTS[args.smoke]
    algorithms = _names(args.algorithms, check.ALGORITHMS, "algorithm", ALIASES)
    if not algorithms and not args.primitives and not args.breadth and not args.first_process \
            and (args.first_call is None or args.first_call.strip().lower() == "none"):
        raise InvalidValue("--algorithms none leaves nothing to run; add --primitives, "
                           "--breadth, --first-call GRAPH or --first-process")
    specs = graphs.parse_graphs(args.graphs, smoke=args.smoke, scale_offset=args.scale_offset)
    first_call = args.first_call
    if first_call is None:
        first_call = specs[0].name if (algorithms and specs) else None
    elif first_call.strip().lower() == "none":
        first_call = None
    else:
        first_call = graphs.parse_graphs(first_call, smoke=args.smoke,
                                         scale_offset=args.scale_offset)[0].name
    time_limit = args.time_limit if args.time_limit is not None else defaults["time_limit"]
    resume = args.resume
    if resume == "":
        resume = os.path.join(args.out, "results.json")
    if args.refresh and resume is None:
        raise InvalidValue("--refresh measures graphblast again on the records of --resume; "
                           "name the earlier results.json with --resume")
    return {
        "smoke": args.smoke,
        "primitives": _primitive_sections(args.primitives),
        "breadth": args.breadth or args.smoke,
        "graphs": specs,
        "algorithms": algorithms,
        "peers": _names(args.peers, PEER_NAMES, "peer"),
        "device": _device(args.device),
        "scale_offset": args.scale_offset,
        "repeat": args.repeat if args.repeat is not None else defaults["repeat"],
        "warmup": args.warmup,
        "time_limit": time_limit,
        "budget": args.budget if args.budget is not None else time_limit,
        "deadline": args.deadline,
        "resume": resume,
        "refresh": args.refresh,
        "first_call": first_call,
        "first_process": args.first_process,
        "plots": not args.no_plots,
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


def _load_resume(path):
    """The earlier results.json to resume from, or None when there is none."""
    if not path or not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def run(options, command, progress_stream=None):
    """Run the benchmark described by ``options`` (see :func:`main`); returns the document
    written to results.json.

    results.json is rewritten (atomically: a new file renamed over the old) after every
    measurement, with ``complete: false`` until the end, so a run killed late keeps what
    it measured.
    """
    from . import first_call as first_call_mod
    from .primitives import run_primitives
    from .runner import (HOST_REFERENCE_STEPS, Progress, Suite, copy_bandwidth,
                         describe_failure, host_reference, recover_memory)

    started, t0 = report.timestamp(), time.perf_counter()
    device, smoke = options["device"], options["smoke"]
    defaults = DEFAULTS[smoke]
    deadline = None if options["deadline"] is None else t0 + options["deadline"]
    params = AlgorithmParams()
    out = options["out"]
    earlier = _load_resume(options["resume"])
    state = {"bandwidth": None, "overhead": None, "first_call": None, "first_process": None,
             "primitives": None, "breadth": None,
             "suite": None, "host": {"start_us": host_reference(), "end_us": None}}
    if earlier is not None:
        state["first_call"] = earlier.get("first_call")
        state["first_process"] = earlier.get("first_process")
        # graphblast's own figure: kept on a resume, measured again on a refresh
        if (not options.get("refresh") and
                earlier.get("per_call_overhead", {}).get("median_us") is not None):
            state["overhead"] = earlier["per_call_overhead"]

    def document(final):
        suite = state["suite"]
        doc = {
            "schema": 2,
            "complete": final and (suite is None or suite.stopped is None),
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
            "machine": machine,
            "versions": versions,
            "copy_bandwidth": state["bandwidth"],
            "host_reference": dict(state["host"], steps=HOST_REFERENCE_STEPS),
            "peers": suite.peer_report if suite else {},
            "graphs": list(suite.described) if suite else [],
            "results": list(suite.results) if suite else [],
            "per_call_overhead": state["overhead"],
            "first_call": state["first_call"],
            "first_process": state["first_process"],
        }
        if suite is not None and (suite.stopped or suite.graphs_not_run):
            doc["stopped"] = {"reason": suite.stopped, "graphs_not_run": suite.graphs_not_run}
        if earlier is not None:
            doc["resumed_from"] = {"file": options["resume"], "command": earlier.get("command"),
                                   "started": earlier.get("started")}
        prim = state["primitives"]
        if prim is not None:
            doc["primitives"] = {"summary": prim["summary"],
                                 "summary_notes": prim["summary_notes"],
                                 "file": "primitives.json"}
        if doc["copy_bandwidth"] is not None:
            report.add_bounds(doc["results"], doc["copy_bandwidth"])
        if state["breadth"] is not None:
            wide = state["breadth"]
            doc["breadth"] = {"summary": wide["summary"], "summary_notes": wide["summary_notes"],
                              "file": "breadth.json"}
        doc["summary"], doc["summary_notes"] = report.summarize(doc)
        return doc

    def save():
        report.write_json(os.path.join(out, "results.json"), document(False))

    machine, versions = report.machine_info(), report.library_versions()
    progress = Progress(1, stream=progress_stream)
    try:
        suite = state["suite"] = Suite(
            options["graphs"] if options["algorithms"] else [], options["algorithms"],
            options["peers"], device, repeat=options["repeat"], warmup=options["warmup"],
            time_limit=options["time_limit"], budget=options["budget"], deadline=deadline,
            data_dir=options["data_dir"], params=params, progress=progress, done=earlier,
            on_update=save, refresh=options.get("refresh", False))
        progress.set_total(suite.steps() + 2 + bool(options["primitives"]))
        for name, p in suite.peer_report.items():
            if not p["available"]:
                progress.note(f"peer {name} not available: {p['note']}")
        progress.start("measuring copy bandwidth")
        nbytes = defaults["copy_bytes_gpu" if device.startswith("cuda") else "copy_bytes_cpu"]
        state["bandwidth"] = bandwidth = copy_bandwidth(device, nbytes)
        progress.advance(f"copy bandwidth on {device}: {bandwidth['GBps']:.4g} GB/s")
        save()
        if state["overhead"] is None:
            progress.start("per-call overhead (masked vxm on karate)")
            try:
                state["overhead"] = suite.per_call_overhead(defaults["overhead_calls"])
            except Exception as e:  # noqa: BLE001 - reported in the summary notes
                recover_memory(device)
                state["overhead"] = {"error": describe_failure(e)["reason"]}
            overhead = state["overhead"]
            progress.advance("per-call overhead: " + (f"{overhead['median_us']:.1f} us"
                                                      if "median_us" in overhead
                                                      else overhead["error"]))
            save()
        else:
            progress.advance("per-call overhead: kept from the resumed results")
        suite.run()
        if options["primitives"] and not suite._out_of_time():
            cusparse = next((p for p in suite.peers if p.name == "cusparse"), None)
            kron = next((s for s in options["graphs"] if s.family == "kron"),
                        graphs.GraphSpec("kron", graphs.SMOKE_SIZES["kron"] if smoke
                                         else graphs.DEFAULT_SIZES["kron"])
                        .scaled(options["scale_offset"]))
            try:
                state["primitives"] = run_primitives(
                    kron, device, repeat=options["repeat"], warmup=options["warmup"],
                    time_limit=options["budget"], cusparse=cusparse, progress=progress,
                    data_dir=options["data_dir"], sections=options["primitives"],
                    bfs_graphs=[g for g in graphs.parse_graphs(
                        None, smoke=smoke, scale_offset=options["scale_offset"]) if g.scalable])
            except Exception as e:  # noqa: BLE001 - the run keeps what it has
                recover_memory(device)
                reason = describe_failure(e)["reason"]
                progress.note(f"primitives failed: {reason}")
                state["primitives"] = {"graph": {"name": kron.name}, "device": device,
                                       "error": reason,
                                       "summary": {k: None for k in PRIMITIVE_KEYS},
                                       "summary_notes": {k: f"the primitives failed: {reason}"
                                                         for k in PRIMITIVE_KEYS}}
            report.write_json(os.path.join(out, "primitives.json"), state["primitives"])
            save()
        if options.get("breadth") and not suite._out_of_time():
            state["breadth"] = _run_breadth(options, progress, deadline)
            report.write_json(os.path.join(out, "breadth.json"), state["breadth"])
        if options.get("first_process"):
            from . import first_process

            state["first_process"] = first_process.measure_all(device, progress, deadline)
            save()
        done_first = {a: r for a, r in (state["first_call"] or {}).items() if "error" not in r}
        # With --algorithms none (a primitives run), --first-call measures all five.
        todo = [a for a in (options["algorithms"] or check.ALGORITHMS) if a not in done_first]
        if options["first_call"] and todo:
            measured = first_call_mod.measure_all(options["first_call"], todo, device,
                                                  options["data_dir"], progress, deadline)
            state["first_call"] = {**done_first, **measured}
            save()
    finally:
        progress.close()
    state["host"]["end_us"] = host_reference()
    doc = document(True)
    return finish(doc, out, plots=options["plots"])


def _run_breadth(options, progress, deadline):
    """The breadth benchmark on this run's graphs (with --smoke: its first graph and karate,
    one timed run each), or the error that stopped it."""
    from . import breadth
    from .runner import describe_failure, recover_memory

    specs, repeat = options["graphs"], options["repeat"]
    if options["smoke"]:  # a check that everything runs: one timed run each
        specs = [s for i, s in enumerate(specs) if i == 0 or s.name == "karate"]
        repeat = 1
    try:
        return breadth.run_breadth(specs, options["device"], repeat=repeat,
                                   warmup=options["warmup"], time_limit=options["time_limit"],
                                   peers=[p for p in breadth.PEERS if p in options["peers"]],
                                   data_dir=options["data_dir"], progress=progress.note,
                                   deadline=deadline)
    except Exception as e:  # noqa: BLE001 - the run keeps what it has
        recover_memory(options["device"])
        reason = describe_failure(e)["reason"]
        progress.note(f"breadth failed: {reason}")
        return {"error": reason, "results": [],
                "summary": {k: None for k in breadth.SUMMARY_KEYS},
                "summary_notes": {k: f"the breadth benchmark failed: {reason}"
                                  for k in breadth.SUMMARY_KEYS}}


def finish(doc, out, plots=True):
    """Write results.json, results.md and (unless ``plots`` is false) the plots of a
    finished document; returns it with ``markdown`` added."""
    if plots:
        doc["plots"], doc["plots_note"] = report.write_plots(out, doc)
    else:
        doc["plots"], doc["plots_note"] = [], "No plots in this run (--no-plots)."
    report.write_json(os.path.join(out, "results.json"), doc)
    doc["markdown"] = report.write_markdown(os.path.join(out, "results.md"), doc)
    return doc


def _failures(doc):
    """What went wrong on graphblast's side: graphs not built, answers wrong or failed, a
    run cut short."""
    bad = [f"graph {g['name']} not built: {g['error']}" for g in doc["graphs"] if "error" in g]
    stopped = doc.get("stopped")
    if stopped:
        bad.append(f"the run stopped early ({stopped['reason']}); graphs not run: "
                   f"{', '.join(stopped['graphs_not_run']) or 'none'}")
    for rec in doc["results"]:
        ours = rec["participants"].get("graphblast", {})
        if ours.get("status") in ("mismatch", "error"):
            why = ours.get("reason") or ours.get("check", {}).get("detail", "")
            bad.append(f"{rec['algorithm']} on {rec['graph']}: {ours['status']}: {why}")
    return bad


def _run_batched(args, parser):
    """The --batched stage (bench/batched.py); its exit status."""
    from . import batched

    try:
        parts = _names(args.batched, ("bc", "msbfs", "direction"), "batched part")
        device = _device(args.device)
        os.makedirs(args.out, exist_ok=True)
    except (InvalidValue, OSError) as e:
        parser.error(str(e))
    sizes = batched.cli_defaults(args.smoke)
    sizes["kron_scale"] = sizes.get("kron_scale", 22) + args.scale_offset
    if args.repeat is not None:
        sizes["repeat"] = args.repeat
    if args.bc_peer_samples is not None:
        sizes["nk_samples"] = args.bc_peer_samples
    with _stdout_to_stderr():
        doc = batched.run(args.out, device, parts=parts, progress=sys.stderr, **sizes)
    sys.stdout.write(batched.markdown(doc))
    sys.stdout.flush()
    return 0 if doc["all_checks_passed"] else 1


def main(argv=None):
    """The command line; returns the exit status (0 ok, 1 a graphblast answer failed or the
    run stopped early, 2 bad arguments)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    args = parser.parse_args(argv)
    command = "python -m graphblast.bench " + shlex.join(argv)
    status = None
    if args.merge:
        try:
            os.makedirs(args.out, exist_ok=True)
            doc = merge.merge_files(args.merge, args.out, command)
        except (InvalidValue, OSError, ValueError) as e:
            parser.error(str(e))
        doc = finish(doc, args.out, plots=not args.no_plots)
        sys.stdout.write(doc["markdown"])
        sys.stdout.flush()
        status = 1 if _failures(doc) else 0
    if args.report_readme:  # after a merge in the same call: from the merged record
        try:
            report.write_readme_section(args.report_readme, args.out)
        except (InvalidValue, OSError, ValueError) as e:
            parser.error(str(e))
        return status or 0
    if status is not None:
        return status
    if args.batched:
        batched_status = _run_batched(args, parser)
        if (args.algorithms or "").strip().lower() == "none" and not args.primitives:
            return batched_status
    try:
        options = _options(args)
        os.makedirs(options["out"], exist_ok=True)
    except (InvalidValue, OSError) as e:
        parser.error(str(e))
    with _stdout_to_stderr():
        doc = run(options, command)
    sys.stdout.write(doc["markdown"])
    sys.stdout.flush()
    failures = _failures(doc)
    for line in failures:
        print(f"graphblast bench: {line}", file=sys.stderr)
    return 1 if failures else 0
