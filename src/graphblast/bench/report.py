"""The outputs: results.json (every figure and the machine), results.md (tables), PNG plots.

results.json holds, at the top level: ``command``, ``options``, ``machine`` (CPU model and
cores, memory, GPU name, driver and CUDA versions), ``versions`` (every library involved),
``copy_bandwidth``, ``host_reference`` (the host's speed at the start and the end of the
run), ``peers`` (available or not, and why), ``graphs``, ``results`` (one
record per algorithm and graph, with every participant's timing, GTEPS, check and speedup),
``per_call_overhead``, ``summary`` and ``summary_notes``, and ``primitives`` when run.

The ``summary`` keys are the ones the performance targets read.  A key this run did not
measure is null and ``summary_notes`` says why.  As BENCHMARKS.md rules, absolute times are
reported only for the GPU: on a CPU run the time keys are null (the CPU times are still in
``results``), while the ratios are given on any device.
"""

import json
import math
import os
import platform
import shutil
import subprocess
import time

from .peers._base import package_version

__all__ = [
    "GAP_REFERENCE",
    "SUMMARY_KEYS",
    "add_bounds",
    "library_versions",
    "machine_info",
    "summarize",
    "timestamp",
    "write_json",
    "write_markdown",
    "write_plots",
    "write_readme_section",
]

SUMMARY_KEYS = (
    "geomean_speedup_vs_suitesparse", "bfs_g500_21_ms", "bfs_kron_22_ms", "bfs_urand_22_ms",
    "bfs_rgg_22_ms", "sssp_g500_21_ms", "sssp_grid_2048_ms", "sssp_rgg_22_ms",
    "min_speedup_vs_best_peer", "pagerank_kron_22_iter_vs_bound", "cc_kron_22_ms",
    "cc_min_speedup_vs_suitesparse",
    "tc_kron_22_speedup_vs_suitesparse", "tc_g500_21_ms",
    "bfs_grid_2048_us_per_level", "per_call_overhead_us", "first_call_bfs_s",
    "first_call_max_s", "first_call_kernels_compiled", "first_process_bfs_kron16_s",
    "first_process_cc_kron16_s", "first_process_demo_s", "first_process_kernels_compiled",
    "bfs_gap_kron_27_ms", "sssp_gap_kron_27_ms", "pagerank_gap_kron_27_iter_ms",
    "cc_gap_kron_27_ms", "gap_kron_27_graph_gib",
    # the breadth benchmark (bench/breadth.py), when run
    "breadth_min_speedup_vs_best_peer", "louvain_modularity_vs_networkit", "louvain_rgg_22_s",
)
#: The five default graphs (BENCHMARKS.md), for ``cc_min_speedup_vs_suitesparse``.
DEFAULT_GRAPHS = ("kron-22", "urand-22", "g500-21", "grid-2048", "rgg-22")
#: GAP's benchmark graph, and the published reference times BENCHMARKS.md gives for it.
GAP_GRAPH = "kron-27"
GAP_REFERENCE = {
    "machine": "20-core Xeon (GAP's published reference; BENCHMARKS.md)",
    "bfs_s": 0.309, "cc_s": 0.53, "pagerank_s": 20.3, "sssp_s": None,
    "note": "PageRank's 20.3 s is the whole PageRank run as BENCHMARKS.md gives it; "
            "BENCHMARKS.md gives no SSSP figure",
}
#: The (algorithm, family) pairs of the geometric mean.
GEOMEAN_FAMILIES = ("kron", "g500", "urand")
GEOMEAN_ALGORITHMS = ("bfs", "sssp", "pagerank", "cc", "tc")
ABSOLUTE_NOTE = ("absolute times are reported only for GPU runs (BENCHMARKS.md); this run's "
                 "device is {device}, its times are in results")


def _read_first(path, prefix):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _gpu_info():
    """Name, memory, driver and CUDA versions of GPU 0, or None without a usable GPU."""
    from graphblast.backends import cuda_available

    if not cuda_available():
        return None
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"]
    info = {
        "name": name.decode() if isinstance(name, bytes) else str(name),
        "count": int(cupy.cuda.runtime.getDeviceCount()),
        "memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
        "compute_capability": f"{props['major']}.{props['minor']}",
        "cuda_driver_api": int(cupy.cuda.runtime.driverGetVersion()),
        "cuda_runtime": int(cupy.cuda.runtime.runtimeGetVersion()),
    }
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=20, check=True)
            info["driver"] = out.stdout.strip().splitlines()[0]
        except (subprocess.SubprocessError, OSError, IndexError):
            pass
    return info


def machine_info():
    """What the run ran on: CPU model and cores, memory, OS, Python, GPU."""
    mem_kib = _read_first("/proc/meminfo", "MemTotal")
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "cpu_model": _read_first("/proc/cpuinfo", "model name") or platform.processor(),
        "cpu_cores": os.cpu_count(),
        "cpu_cores_usable": usable,
        "memory_gib": round(int(mem_kib.split()[0]) / 2**20, 1) if mem_kib else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "gpu": _gpu_info(),
    }


def library_versions():
    import graphblast

    names = ("numpy", "scipy", "python-graphblas", "suitesparse-graphblas", "networkit",
             "igraph", "networkx", "matplotlib", "rich")
    versions = {"graphblast": package_version("graphblast") or graphblast.__version__}
    versions.update({n: package_version(n) for n in names})
    versions["cupy"] = package_version("cupy-cuda13x", "cupy-cuda12x", "cupy")
    return versions


def add_bounds(results, bandwidth):
    """Fill in each PageRank record's bandwidth bound from the measured copy bandwidth (of the
    run that measured the record: records that have a bound keep it)."""
    for rec in results:
        per = rec.get("per_iteration")
        if not per or "bytes_per_iteration" not in per or "vs_bound" in per:
            continue        # a record kept from an earlier run keeps that run's bound
        bound = per["bytes_per_iteration"] / bandwidth["bytes_per_s"]
        per["bound_ms_per_iteration"] = bound * 1e3
        per["vs_bound"] = per["ms_per_iteration"] / 1e3 / bound
        per["copy_GBps"] = bandwidth["GBps"]


# The summary ------------------------------------------------------------------------------

def _find(results, algorithm, graph):
    for rec in results:
        if rec["algorithm"] == algorithm and rec["graph"] == graph:
            return rec
    return None


def _ours(doc, algorithm, graph):
    """``(record, graphblast entry)`` of a passed check, or ``(None, reason)``."""
    rec = _find(doc["results"], algorithm, graph)
    if rec is None:
        ran = sorted({r["graph"] for r in doc["results"]}) or ["none"]
        return None, (f"{algorithm} on {graph} was not run (this run's graphs: "
                      f"{', '.join(ran)})")
    entry = rec["participants"].get("graphblast", {})
    status = entry.get("status")
    if status == "ok":
        return rec, entry
    if status == "unchecked":
        return None, f"graphblast's {algorithm} on {graph} had no peer answer to check against"
    return None, (f"graphblast's {algorithm} on {graph}: {status or 'not run'}"
                  f" ({entry.get('reason') or entry.get('check', {}).get('detail', '')})")


def _speedup(doc, algorithm, graph, peer):
    rec, entry = _ours(doc, algorithm, graph)
    if rec is None:
        return None, entry
    other = rec["participants"].get(peer, {})
    if "speedup" in other:
        return other["speedup"], None
    why = other.get("reason") or other.get("check", {}).get("detail") or "not run"
    return None, f"{peer} on {algorithm} {graph}: {other.get('status', 'not run')} ({why})"


def _first_use(doc, gpu, summary, notes):
    """The first-use keys: the five algorithms' largest ``first_call_s`` and their kernels
    compiled at run time (bench/first_call.py), and the whole fresh processes of the command
    line and the demo (bench/first_process.py), with the kernels those compiled."""
    first = {a: r for a, r in (doc.get("first_call") or {}).items() if "error" not in r}
    failed = sorted(set(doc.get("first_call") or {}) - set(first))
    for key in ("first_call_max_s", "first_call_kernels_compiled"):
        if not first:
            summary[key] = None
            notes[key] = "the first calls were not measured in this run (--first-call none)"
        elif key == "first_call_max_s" and not gpu:
            summary[key] = None
            notes[key] = ABSOLUTE_NOTE.format(device=doc["options"]["device"])
        else:
            worst = max(first, key=lambda a: first[a]["first_call_s"])
            graph = next(iter(first.values()))["graph"]
            summary[key] = (first[worst]["first_call_s"] if key == "first_call_max_s" else
                            sum(r["kernels_compiled"] for r in first.values()))
            notes[key] = (f"{', '.join(first)} on {graph}, each in a fresh process with an "
                          f"empty CuPy cache; the largest: {worst}; kernels compiled: " +
                          ", ".join(f"{a} {r['kernels_compiled']}" for a, r in first.items())
                          + (f"; failed: {', '.join(failed)}" if failed else ""))
    processes = doc.get("first_process") or {}
    from .first_process import COMMANDS

    compiled = []
    for key in COMMANDS:
        r = processes.get(key)
        if r is None:
            summary[key], notes[key] = None, "not measured in this run (--first-process)"
        elif "error" in r:
            summary[key], notes[key] = None, f"{r['command']}: {r['error']}"
        elif not gpu:
            summary[key] = None
            notes[key] = ABSOLUTE_NOTE.format(device=doc["options"]["device"])
        else:
            summary[key] = r["wall_s"]
            notes[key] = (f"`{r['command']}`, the whole process with every kernel cache empty: "
                          f"{r['kernels_compiled']} kernels compiled at run time")
            compiled.append(r["kernels_compiled"])
    key = "first_process_kernels_compiled"
    summary[key] = sum(compiled) if compiled else None
    if not compiled:
        notes[key] = "no fresh process of the command line was measured (--first-process)"
    else:
        notes[key] = "kernels compiled at run time by the measured fresh processes together"


def _min_vs_best_peer(doc, summary, notes):
    """``min_speedup_vs_best_peer``: over every (algorithm, graph) pair of the five default
    graphs, the fastest checked peer's time over graphblast's (the smallest of the peers'
    speedups), and the smallest of those; no figure unless every pair was measured."""
    key = "min_speedup_vs_best_peer"
    found, missing = {}, []
    for rec in doc["results"]:
        if rec["graph"] not in DEFAULT_GRAPHS:
            continue
        pair = f"{rec['algorithm']} {rec['graph']}"
        ours = rec["participants"].get("graphblast", {})
        ups = {name: p["speedup"] for name, p in rec["participants"].items()
               if name != "graphblast" and p.get("speedup") is not None}
        if ours.get("status") != "ok" or not ups:
            missing.append(pair)
            continue
        best = min(ups, key=ups.get)
        found[pair] = (ups[best], best)
    want = len(GEOMEAN_ALGORITHMS) * len(DEFAULT_GRAPHS)
    if not found:
        summary[key], notes[key] = None, "no checked peer comparison on the default graphs"
        return
    worst = min(found, key=lambda p: found[p][0])
    note = (f"on {worst} ({found[worst][1]} the fastest peer), the smallest over "
            f"{len(found)} pairs")
    if missing:
        note += f"; not counted: {', '.join(missing)}"
    if len(found) < want:  # a minimum over some pairs only bounds the figure from above
        summary[key] = None
        note = f"measured on {len(found)} of {want} pairs; at most {found[worst][0]:.3g}, " + note
    else:
        summary[key] = found[worst][0]
    notes[key] = note


def summarize(doc):
    """``(summary, summary_notes)`` from a finished run's document."""
    gpu = str(doc["options"]["device"]).startswith("cuda")
    summary, notes = {}, {}

    def absolute(key, algorithm, graph, scale=1e3, per_level=False):
        rec, entry = _ours(doc, algorithm, graph)
        if rec is None:
            summary[key], notes[key] = None, entry
        elif not gpu:
            summary[key] = None
            notes[key] = ABSOLUTE_NOTE.format(device=doc["options"]["device"])
        else:
            value = entry["timing"]["median_s"]
            if per_level:
                value /= rec["levels"]
            summary[key] = value * scale

    # Geometric mean over the five algorithms on kron, g500 and urand, at this run's sizes.
    speedups, missing, sizes = [], [], set()
    for rec in doc["results"]:
        family = rec["graph"].split("-")[0]
        if family in GEOMEAN_FAMILIES and rec["algorithm"] in GEOMEAN_ALGORITHMS:
            s, why = _speedup(doc, rec["algorithm"], rec["graph"], "suitesparse")
            sizes.add(rec["graph"])
            if s is None:
                missing.append(f"{rec['algorithm']} {rec['graph']}")
            else:
                speedups.append(s)
    key = "geomean_speedup_vs_suitesparse"
    if speedups:
        summary[key] = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        note = f"over {len(speedups)} (algorithm, graph) pairs on {', '.join(sorted(sizes))}"
        if missing:
            note += f"; not counted (not measured or not checked): {', '.join(missing)}"
        if not {"kron-22", "g500-21", "urand-22"} <= sizes:
            note += "; not at the default scales (kron-22, g500-21, urand-22)"
        notes[key] = note
    else:
        summary[key] = None
        notes[key] = ("no checked SuiteSparse comparison on kron, g500 or urand in this run"
                      + (f" (missing: {', '.join(missing)})" if missing else ""))

    absolute("bfs_g500_21_ms", "bfs", "g500-21")
    absolute("bfs_kron_22_ms", "bfs", "kron-22")
    absolute("bfs_urand_22_ms", "bfs", "urand-22")
    absolute("bfs_rgg_22_ms", "bfs", "rgg-22")
    absolute("sssp_g500_21_ms", "sssp", "g500-21")
    absolute("sssp_grid_2048_ms", "sssp", "grid-2048")
    absolute("sssp_rgg_22_ms", "sssp", "rgg-22")

    _min_vs_best_peer(doc, summary, notes)

    key = "pagerank_kron_22_iter_vs_bound"
    rec, entry = _ours(doc, "pagerank", "kron-22")
    if rec is None:
        summary[key], notes[key] = None, entry
    elif "vs_bound" not in rec.get("per_iteration", {}):
        summary[key] = None
        notes[key] = "the fixed-iteration PageRank run did not complete: " + \
            str(rec.get("per_iteration", {}).get("error", "not run"))
    else:
        per = rec["per_iteration"]
        summary[key] = per["vs_bound"]
        gbps = per.get("copy_GBps") or (doc.get("copy_bandwidth") or {}).get("GBps")
        notes[key] = (f"{per['ms_per_iteration']:.4g} ms per iteration vs a bound of "
                      f"{per['bound_ms_per_iteration']:.4g} ms ({per['bytes_per_iteration']:,} "
                      f"bytes at {gbps:.4g} GB/s)")

    absolute("cc_kron_22_ms", "cc", "kron-22")

    # The smallest CC speedup over SuiteSparse on the five default families.
    key = "cc_min_speedup_vs_suitesparse"
    found, missing = {}, []
    for rec in doc["results"]:
        if rec["algorithm"] == "cc" and rec["graph"].split("-")[0] in \
                {g.split("-")[0] for g in DEFAULT_GRAPHS}:
            s_, why = _speedup(doc, "cc", rec["graph"], "suitesparse")
            if s_ is None:
                missing.append(f"{rec['graph']} ({why})")
            else:
                found[rec["graph"]] = s_
    families = {g.split("-")[0] for g in found}
    absent = [g for g in DEFAULT_GRAPHS if g.split("-")[0] not in families]
    if found:
        worst = min(found, key=found.get)
        note = f"on {worst}, the smallest over {', '.join(found)}"
        if missing:
            note += f"; not counted: {'; '.join(missing)}"
        if absent:
            # a minimum over some of the graphs only bounds the figure from above: no figure
            summary[key] = None
            note = (f"not measured on every default graph (missing: {', '.join(absent)}); "
                    f"at most {found[worst]:.3g}, " + note)
        else:
            summary[key] = found[worst]
        notes[key] = note
    else:
        summary[key] = None
        notes[key] = ("no checked CC comparison with SuiteSparse on the default families"
                      + (f" ({'; '.join(missing)})" if missing else " in this run"))

    key = "tc_kron_22_speedup_vs_suitesparse"
    summary[key], why = _speedup(doc, "tc", "kron-22", "suitesparse")
    if why:
        notes[key] = why
    absolute("tc_g500_21_ms", "tc", "g500-21")

    absolute("bfs_grid_2048_us_per_level", "bfs", "grid-2048", scale=1e6, per_level=True)
    if summary["bfs_grid_2048_us_per_level"] is not None:
        rec = _find(doc["results"], "bfs", "grid-2048")
        notes["bfs_grid_2048_us_per_level"] = f"BFS time / {rec['levels']:,} levels"

    key = "per_call_overhead_us"
    overhead = doc.get("per_call_overhead") or {}
    if "median_us" not in overhead:
        summary[key] = None
        notes[key] = overhead.get("error", "not measured in this run")
    elif not gpu:
        summary[key] = None
        notes[key] = ABSOLUTE_NOTE.format(device=doc["options"]["device"])
    else:
        summary[key] = overhead["median_us"]

    key = "first_call_bfs_s"
    first = (doc.get("first_call") or {}).get("bfs")
    if not first:
        summary[key] = None
        notes[key] = "the first call was not measured in this run (--first-call none)"
    elif "error" in first:
        summary[key], notes[key] = None, first["error"]
    elif not gpu:
        summary[key] = None
        notes[key] = (ABSOLUTE_NOTE.format(device=doc["options"]["device"])
                      + f" (here {first['first_call_s']:.3g} s on {first['graph']})")
    else:
        summary[key] = first["first_call_s"]
        notes[key] = (f"on {first['graph']}: first call {first['first_s']:.3g} s, warm "
                      f"{first['warm_median_s']:.3g} s, {first['kernels_compiled']} kernels "
                      "compiled, in a fresh process with an empty CuPy cache")

    _first_use(doc, gpu, summary, notes)

    # GAP's benchmark graph (--graphs kron-27), next to GAP's reference figures.
    ref = GAP_REFERENCE
    for key, algorithm, ref_s in (("bfs_gap_kron_27_ms", "bfs", ref["bfs_s"]),
                                  ("sssp_gap_kron_27_ms", "sssp", ref["sssp_s"]),
                                  ("cc_gap_kron_27_ms", "cc", ref["cc_s"])):
        absolute(key, algorithm, GAP_GRAPH)
        if summary[key] is not None and ref_s is not None:
            notes[key] = (f"GAP reference on a {ref['machine']}: {ref_s * 1e3:g} ms "
                          f"({ref_s * 1e3 / summary[key]:.3g}x graphblast's time)")
    key = "pagerank_gap_kron_27_iter_ms"
    rec, entry = _ours(doc, "pagerank", GAP_GRAPH)
    per = (rec or {}).get("per_iteration", {})
    if rec is None:
        summary[key], notes[key] = None, entry
    elif "ms_per_iteration" not in per:
        summary[key] = None
        notes[key] = "the fixed-iteration PageRank run did not complete: " + \
            str(per.get("error", "not run"))
    elif not gpu:
        summary[key] = None
        notes[key] = ABSOLUTE_NOTE.format(device=doc["options"]["device"])
    else:
        summary[key] = per["ms_per_iteration"]
        notes[key] = (f"GAP reference on a {ref['machine']}: PageRank {ref['pagerank_s']:g} s "
                      f"in all ({ref['note']})")
    key = "gap_kron_27_graph_gib"
    g = next((g for g in doc.get("graphs", []) if g["name"] == GAP_GRAPH), None)
    if g is None:
        summary[key] = None
        notes[key] = f"{GAP_GRAPH} was not in this run (--graphs {GAP_GRAPH})"
    elif "error" in g:
        summary[key], notes[key] = None, f"{GAP_GRAPH} was not built: {g['error']}"
    elif not gpu or g.get("device_bytes") is None:
        summary[key] = None
        notes[key] = "the graph's device memory is reported for GPU runs only"
    else:
        summary[key] = g["device_bytes"] / 2**30
        notes[key] = (f"the pattern matrix's storage arrays ({g['stored_edges']:,} stored "
                      "entries), SSSP's weighted copy not included")
    wide = doc.get("breadth") or {}
    for key in ("breadth_min_speedup_vs_best_peer", "louvain_modularity_vs_networkit",
                "louvain_rgg_22_s"):
        summary[key] = wide.get("summary", {}).get(key)
        notes[key] = wide.get("summary_notes", {}).get(
            key, "" if summary[key] is not None else "the breadth benchmark was not run "
            "(--breadth)")
        if not notes[key]:
            del notes[key]
    return {k: summary[k] for k in SUMMARY_KEYS}, {k: notes[k] for k in SUMMARY_KEYS
                                                   if k in notes}


# Writing ----------------------------------------------------------------------------------

def _clean(obj):
    """JSON without NaN/Infinity (not JSON): non-finite floats become null."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):       # NumPy scalars
        return _clean(obj.item())
    return obj


def write_json(path, doc):
    """Write ``doc`` as JSON, atomically: a temporary file in the same folder renamed over
    ``path``, so that a reader (or a kill) never sees half a file."""
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(_clean(doc), f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def _fmt(x, digits=4):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def _cell(entry):
    """A peer's table cell: its time and graphblast's speedup over it, or why not."""
    status = entry.get("status")
    if status in ("ok", "unchecked") and "timing" in entry:
        cell = f"{entry['timing']['median_s'] * 1e3:.4g} ms"
        if "speedup" in entry:
            cell += f" ({entry['speedup']:.3g}x)"
        if status == "unchecked":
            cell += " unchecked"
        return cell
    if status == "mismatch":
        return "WRONG ANSWER"
    labels = {"skipped": "skipped", "error": "error", "unavailable": "not installed",
              "not_run": "not run"}
    if status == "error" and entry.get("failure") == "out_of_memory":
        return "out of memory"
    return labels.get(status, status or "-")


def write_markdown(path, doc):
    """Write results.md; returns its text."""
    lines = ["# graphblast benchmark results", ""]
    if doc.get("stopped"):
        st = doc["stopped"]
        lines += [f"**Incomplete**: {st['reason']}"
                  + (f" Graphs not run: {', '.join(st['graphs_not_run'])}."
                     if st.get("graphs_not_run") else ""), ""]
    m = doc["machine"]
    gpu = m.get("gpu")
    gpu_text = (f"GPU: {gpu['name']} (driver {gpu.get('driver', gpu['cuda_driver_api'])}). "
                if gpu else "No GPU. ")
    bw = doc["copy_bandwidth"]
    if doc.get("parts"):
        lines += ["Merged from these runs (each measurement and each ratio comes from one "
                  "run; `--merge`):", ""]
        lines += [f"- `{p['command']}` (started {p['started']}, {p['wall_s']:.0f} s"
                  + ("" if p.get("complete", True) else ", incomplete")
                  + _host_text(p.get("host_reference")) + ")"
                  for p in doc["parts"]]
        lines += [""]
    lines += [
        f"Command: `{doc['command']}`", "",
        (f"Device: {doc['options']['device']}. CPU: {m['cpu_model']} ({m['cpu_cores']} "
         f"cores). {gpu_text}Copy bandwidth: {bw['GBps']:.4g} GB/s ({bw['method']})."
         + ("" if doc.get("parts") else _host_sentence(doc.get("host_reference")))), "",
        (f"Started {doc['started']}, {doc['wall_s']:.1f} s in all. Times are medians of up to "
         f"{doc['options']['repeat']} runs after {doc['options']['warmup']} warm-up run(s); "
         "a peer's cell shows its time and, in parentheses, graphblast's speedup over it "
         "(peer time / graphblast time), given only when both answers passed the check."), "",
    ]
    if not str(doc["options"]["device"]).startswith("cuda"):
        lines += [("This is a CPU run: its absolute times are for orientation only "
                   "(BENCHMARKS.md reports absolute times for the GPU)."), ""]
    lines += ["## Summary", "", "| key | value | note |", "|---|---|---|"]
    for key in SUMMARY_KEYS:
        lines.append(f"| `{key}` | {_fmt(doc['summary'][key])} | "
                     f"{doc['summary_notes'].get(key, '')} |")
    lines += ["", "## Graphs", "", "| graph | vertices | stored edges | source | build (s) |",
              "|---|---|---|---|---|"]
    for g in doc["graphs"]:
        if "error" in g:
            lines.append(f"| {g['name']} | not built: {g['error']} | | | |")
        else:
            lines.append(f"| {g['name']} | {g['vertices']:,} | {g['stored_edges']:,} | "
                         f"{g['source']} | {g['build_s']:.3g} |")
    peers = list(doc["peers"])
    for algorithm in doc["options"]["algorithms"]:
        recs = [r for r in doc["results"] if r["algorithm"] == algorithm]
        if not recs:
            continue
        cols = [p for p in peers if any(p in r["participants"] for r in recs)]
        lines += ["", f"## {algorithm}", "",
                  "| graph | graphblast | GTEPS | spread | " + " | ".join(cols) + " |",
                  "|---" * (4 + len(cols)) + "|"]
        for r in recs:
            ours = r["participants"].get("graphblast", {})
            if "timing" in ours and ours.get("status") in ("ok", "unchecked"):
                t = ours["timing"]
                mark = ""
                if ours["status"] == "unchecked":
                    mark = " unchecked"
                elif "oracle" in ours.get("check", {}):
                    mark = " ‡"
                head = (f"{t['median_s'] * 1e3:.4g} ms" + mark,
                        f"{ours['gteps']:.3g}", f"{t['spread']:.2g}")
            else:
                head = (_cell(ours), "-", "-")
            peer_cells = [_cell(r["participants"].get(p, {})) for p in cols]
            lines.append(f"| {r['graph']} | " + " | ".join(head + tuple(peer_cells)) + " |")
        if algorithm == "pagerank":
            per = [r for r in recs if "ms_per_iteration" in r.get("per_iteration", {})]
            if per:
                lines += ["", ("PageRank per iteration (graphblast, fixed iteration count) "
                               "against the memory-bandwidth lower bound:"), "",
                          "| graph | iterations | ms / iteration | bound (ms) | ratio |",
                          "|---|---|---|---|---|"]
                for r in per:
                    p = r["per_iteration"]
                    lines.append(f"| {r['graph']} | {p['iterations']} | "
                                 f"{p['ms_per_iteration']:.4g} | "
                                 f"{_fmt(p.get('bound_ms_per_iteration'))} | "
                                 f"{_fmt(p.get('vs_bound'))} |")
    notes = []
    for r in doc["results"]:
        for name, e in r["participants"].items():
            if e.get("status") in ("skipped", "error", "mismatch", "not_run"):
                why = e.get("reason") or e.get("check", {}).get("detail", "")
                kind = " (out of memory)" if e.get("failure") == "out_of_memory" else ""
                notes.append(f"- {r['algorithm']} {r['graph']} {name}: {e['status']}{kind}: "
                             f"{why}")
            elif "oracle" in e.get("check", {}):
                notes.append(f"- {r['algorithm']} {r['graph']} {name} ‡: "
                             f"{e['check']['detail']}")
            elif "note" in e.get("timing", {}):
                notes.append(f"- {r['algorithm']} {r['graph']} {name}: {e['timing']['note']}")
    lines += ["", "## Peers", "", "| peer | status | versions / note |", "|---|---|---|"]
    for name, p in doc["peers"].items():
        if p["available"]:
            versions = ", ".join(f"{k} {v}" for k, v in p.get("versions", {}).items())
            lines.append(f"| {name} | available: {p['description']} | {versions} |")
        else:
            lines.append(f"| {name} | not available | {p['note']} |")
    overhead = doc.get("per_call_overhead") or {}
    if "median_us" in overhead:
        lines += ["", "## Per-call overhead", "",
                  (f"{overhead['operation']} on {overhead['graph']}: median "
                   f"{overhead['median_us']:.1f} us of wall time over {overhead['calls']} "
                   f"calls (10th-90th percentile {overhead['p10_us']:.1f}-"
                   f"{overhead['p90_us']:.1f} us).")]
    first = doc.get("first_call") or {}
    if first:
        lines += ["", "## First call", "",
                  ("Each algorithm's first call in a fresh process whose CuPy kernel cache is "
                   "an empty folder, after the graph is built: `first_call_s` = first call - "
                   "median of the warm calls that follow (kernel compilation, on a GPU)."), "",
                  "| algorithm | graph | first call (s) | warm (s) | first_call_s | kernels "
                  "compiled |", "|---|---|---|---|---|---|"]
        for a, r in first.items():
            if "error" in r:
                lines.append(f"| {a} | {r.get('graph', '')} | {r['error']} | | | |")
            else:
                lines.append(f"| {a} | {r['graph']} | {r['first_s']:.4g} | "
                             f"{r['warm_median_s']:.4g} | {r['first_call_s']:.4g} | "
                             f"{r['kernels_compiled']} |")
    processes = doc.get("first_process") or {}
    if processes:
        lines += ["", "## First process", "",
                  ("Whole fresh processes of the command line, timed from start to exit with "
                   "every kernel cache empty (CuPy's cache an empty folder; graphblast's "
                   "shipped kernel catalogue in place, as after `pip install`)."), "",
                  "| command | wall (s) | kernels compiled |", "|---|---|---|"]
        for r in processes.values():
            lines.append(f"| `{r['command']}` | " + (
                f"{r['wall_s']:.3g} | {r['kernels_compiled']} |" if "error" not in r
                else f"{r['error']} | |"))
    gap = [r for r in doc["results"] if r["graph"] == GAP_GRAPH]
    if gap:
        ref = GAP_REFERENCE
        refs = {"bfs": ref["bfs_s"], "cc": ref["cc_s"], "pagerank": ref["pagerank_s"],
                "sssp": ref["sssp_s"]}
        lines += ["", f"## GAP's benchmark graph ({GAP_GRAPH})", "",
                  f"Next to GAP's published reference times on a {ref['machine']} "
                  f"({ref['note']}).", "",
                  "| algorithm | graphblast | GAP reference |", "|---|---|---|"]
        for r in gap:
            ours = r["participants"].get("graphblast", {})
            cell = (f"{ours['timing']['median_s'] * 1e3:.4g} ms"
                    if ours.get("status") in ("ok", "unchecked") and "timing" in ours
                    else _cell(ours))
            if r["algorithm"] == "pagerank" and "ms_per_iteration" in r.get("per_iteration", {}):
                cell += f" ({r['per_iteration']['ms_per_iteration']:.4g} ms per iteration)"
            rs = refs.get(r["algorithm"])
            lines.append(f"| {r['algorithm']} | {cell} | "
                         f"{'-' if rs is None else f'{rs:g} s'} |")
    prim = doc.get("primitives")
    if prim:
        lines += ["", "## Primitives", "", "See primitives.json.", "",
                  "| key | value | note |", "|---|---|---|"]
        for key, value in prim["summary"].items():
            lines.append(f"| `{key}` | {_fmt(value)} | {prim['summary_notes'].get(key, '')} |")
    if notes:
        lines += ["", "## Notes", ""] + notes
    if doc.get("plots_note"):
        lines += ["", doc["plots_note"]]
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    return text


def write_plots(out_dir, doc):
    """speedup.png and gteps.png; returns ``(files, note)`` (note says why none, if so)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "No plots: matplotlib is not installed (pip install matplotlib)."
    algorithms = [a for a in doc["options"]["algorithms"]
                  if any(r["algorithm"] == a for r in doc["results"])]
    if not algorithms:
        return [], "No plots: no algorithm ran."
    files = []
    for kind in ("speedup", "gteps"):
        fig, axes = plt.subplots(1, len(algorithms), figsize=(4.2 * len(algorithms), 4.2),
                                 squeeze=False)
        drawn = False
        for ax, algorithm in zip(axes[0], algorithms):
            recs = [r for r in doc["results"] if r["algorithm"] == algorithm]
            drawn |= _bars(ax, recs, kind)
            ax.set_title(algorithm)
        if not drawn:
            plt.close(fig)
            continue
        if kind == "speedup":
            fig.suptitle("graphblast speedup over each peer (peer time / graphblast time)")
        else:
            fig.suptitle("GTEPS (stored edges / time)")
        fig.tight_layout()
        path = os.path.join(out_dir, f"{kind}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(os.path.basename(path))
    return files, None if files else "No plots: no checked figure to draw."


#: One color per participant in every plot.
COLORS = {"graphblast": "#1f77b4", "suitesparse": "#ff7f0e", "networkit": "#2ca02c",
          "igraph": "#d62728", "scipy": "#9467bd", "networkx": "#8c564b", "cusparse": "#e377c2"}


def _bars(ax, recs, kind):
    """Grouped bars on one axis, one group per graph; whether anything was drawn."""
    graphs = [r["graph"] for r in recs]
    if kind == "speedup":
        series = [p for p in COLORS if any("speedup" in r["participants"].get(p, {})
                                           for r in recs)]
        def value(e):
            return e.get("speedup")
    else:
        series = [p for p in COLORS if any(r["participants"].get(p, {}).get("status") == "ok"
                                           for r in recs)]
        def value(e):
            return e.get("gteps") if e.get("status") == "ok" else None
    if not series:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        return False
    width = 0.8 / len(series)
    for i, name in enumerate(series):
        xs, ys = [], []
        for j, r in enumerate(recs):
            v = value(r["participants"].get(name, {}))
            if v is not None and v > 0:
                xs.append(j - 0.4 + width * (i + 0.5))
                ys.append(v)
        ax.bar(xs, ys, width=width, label=name, color=COLORS.get(name, "#7f7f7f"))
    ax.set_yscale("log")
    if kind == "speedup":
        ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(graphs)))
    ax.set_xticklabels(graphs, rotation=30, ha="right", fontsize=8)
    ax.legend(fontsize=7)
    return True


def timestamp():
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


# The README's performance section -----------------------------------------------------------

README_BEGIN = "<!-- graphblast-bench:begin -->"
README_END = "<!-- graphblast-bench:end -->"


def _headline(doc):
    """The headline table: graphblast's time and its speedup over SuiteSparse."""
    algorithms = [a for a in doc["options"]["algorithms"]
                  if any(r["algorithm"] == a for r in doc["results"])]
    graph_names = [g["name"] for g in doc["graphs"] if g["name"] != GAP_GRAPH]
    lines = ["| algorithm | " + " | ".join(graph_names) + " |",
             "|---" * (1 + len(graph_names)) + "|"]
    for a in algorithms:
        cells = []
        for g in graph_names:
            rec = _find(doc["results"], a, g)
            ours = (rec or {}).get("participants", {}).get("graphblast", {})
            if ours.get("status") not in ("ok", "unchecked") or "timing" not in ours:
                cells.append(_cell(ours) if rec else "-")
                continue
            cell = f"{ours['timing']['median_s'] * 1e3:.3g} ms"
            ss = rec["participants"].get("suitesparse", {})
            if "speedup" in ss:
                cell += f" ({ss['speedup']:.2g}x)"
            elif ss:
                cell += f" (SuiteSparse: {_cell(ss)})"
            if ours["status"] == "unchecked":
                cell += " unchecked"
            cells.append(cell)
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return lines


def _slower(doc):
    """Every checked pair where a peer beat graphblast: ``(algorithm, graph, peer, x)``."""
    out = []
    for rec in doc["results"]:
        for name, e in rec["participants"].items():
            if name != "graphblast" and e.get("speedup") is not None and e["speedup"] < 1:
                out.append((rec["algorithm"], rec["graph"], name, e["speedup"]))
    return out


def readme_section(doc, record_dir, readme_dir, primitives=None):
    """The Markdown of the README's performance section from a record (``doc``)."""
    rel = os.path.relpath(record_dir, readme_dir).replace(os.sep, "/")
    m = doc["machine"]
    gpu = (m.get("gpu") or {}).get("name")
    date = str(doc.get("started", ""))[:10]
    commands = [p["command"] for p in doc.get("parts", [])] or [doc["command"]]
    lines = [README_BEGIN,
             f"<!-- generated by `python -m graphblast.bench --out {rel} --report-readme "
             "README.md` from the committed record; do not edit by hand -->", "",
             (f"Measured on {date}: graphblast on "
              + (f"one {gpu}" if gpu else "the CPU") + f" (`--device "
              f"{doc['options']['device']}`) against SuiteSparse:GraphBLAS, networkit and SciPy "
              f"on the same machine's {m['cpu_cores']} CPU cores ({m['cpu_model']}). Every "
              "answer is checked against the others before its time counts. The full tables, "
              f"every peer and every note: [{rel}/results.md]({rel}/results.md). Made with "
              "`benchmarks/gpu/run.sh` (one stage per device call, merged with `--merge`), "
              "which ran:"), ""]
    lines += [f"    {c}" for c in commands]
    lines += ["", "graphblast's time, and in parentheses its speedup over SuiteSparse "
                  "(SuiteSparse's time / graphblast's):", ""]
    lines += _headline(doc)
    if "speedup.png" in (doc.get("plots") or []):
        lines += ["", f"![graphblast's speedup over each peer]({rel}/speedup.png)"]
    summary, notes = doc["summary"], doc["summary_notes"]
    lines += ["", "Key figures (`summary` in results.json; null where not measured, with the "
                  "reason):", ""]
    for key in ("geomean_speedup_vs_suitesparse", "cc_min_speedup_vs_suitesparse",
                "per_call_overhead_us", "first_call_bfs_s", "first_call_max_s",
                "first_process_bfs_kron16_s", "first_process_cc_kron16_s",
                "first_process_demo_s", "bfs_grid_2048_us_per_level",
                "pagerank_kron_22_iter_vs_bound"):
        v = summary.get(key)
        lines.append(f"- `{key}`: " + (f"{v:.4g}" if v is not None else
                                      f"not measured ({notes.get(key, '')})"))
    if primitives:
        for key, v in primitives.get("summary", {}).items():
            lines.append(f"- `{key}` (primitives.json): " + (
                f"{v:.4g}" if v is not None else
                f"not measured ({primitives.get('summary_notes', {}).get(key, '')})"))
    batched = os.path.join(record_dir, "batched.json")  # the --batched stage, when there
    if os.path.isfile(batched):
        with open(batched) as f:
            for key, v in json.load(f).get("summary", {}).items():
                lines.append(f"- `{key}` (batched.json): "
                             + (f"{v:.4g}" if v is not None else "not measured"))
    slower = _slower(doc)
    lines += ["", "**Where graphblast is slower than a peer** (peer time / graphblast time "
                  "below 1):", ""]
    if slower:
        by_pair = {}
        for a, g, p, x in sorted(slower, key=lambda t: t[3]):
            by_pair.setdefault((a, g), []).append(f"{p} {1 / x:.3g}x faster")
        lines += [f"- {a} on {g}: " + ", ".join(v) for (a, g), v in by_pair.items()]
    else:
        lines.append("- nowhere in this record: every checked comparison is a speedup.")
    unchecked = [f"{r['algorithm']} {r['graph']}" for r in doc["results"]
                 if r["participants"].get("graphblast", {}).get("status") not in ("ok",)]
    if unchecked:
        lines += ["", "Not measured or not checked in this record: " + ", ".join(unchecked)
                  + f" (see {rel}/results.md)."]
    lines.append(README_END)
    return "\n".join(lines)


def write_readme_section(readme, record_dir):
    """Replace the text between the README's bench markers with :func:`readme_section` of
    ``record_dir/results.json`` (and its primitives.json, when there)."""
    path = os.path.join(record_dir, "results.json")
    if not os.path.isfile(path):
        raise ValueError(f"--report-readme: no record at {path}; make it first (see "
                         "benchmarks/gpu/run.sh)")
    with open(path) as f:
        doc = json.load(f)
    prim = None
    ppath = os.path.join(record_dir, "primitives.json")
    if os.path.isfile(ppath):
        with open(ppath) as f:
            prim = json.load(f)
    with open(readme) as f:
        text = f.read()
    if README_BEGIN not in text or README_END not in text:
        raise ValueError(f"--report-readme: {readme} has no {README_BEGIN} ... {README_END} "
                         "markers to write between")
    head, _, rest = text.partition(README_BEGIN)
    _, _, tail = rest.partition(README_END)
    section = readme_section(doc, record_dir, os.path.dirname(os.path.abspath(readme)), prim)
    with open(readme, "w") as f:
        f.write(head + section + tail)
    return section


def _host_span(host):
    """"X us at the start, Y us at the end" of a run's host yardstick, or None."""
    if not host or host.get("start_us") is None:
        return None
    end = host.get("end_us")
    return (f"{host['start_us']:.0f} us at the start"
            + ("" if end is None else f", {end:.0f} us at the end"))


def _host_text(host):
    """A run's host yardstick, for the list of merged runs ("" when not recorded)."""
    span = _host_span(host)
    return "" if span is None else f"; host reference {span}"


def _host_sentence(host):
    """The host yardstick of a single run, as a sentence ("" when not recorded)."""
    span = _host_span(host)
    return "" if span is None else (
        f" Host reference (a {host.get('steps', 20000):,}-step Python loop, the yardstick of "
        f"the host-bound figures): {span}.")
