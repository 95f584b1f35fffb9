"""The outputs: results.json (every figure and the machine), results.md (tables), PNG plots.

results.json holds, at the top level: ``command``, ``options``, ``machine`` (CPU model and
cores, memory, GPU name, driver and CUDA versions), ``versions`` (every library involved),
``copy_bandwidth``, ``peers`` (available or not, and why), ``graphs``, ``results`` (one
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
    "SUMMARY_KEYS",
    "add_bounds",
    "library_versions",
    "machine_info",
    "summarize",
    "timestamp",
    "write_json",
    "write_markdown",
    "write_plots",
]

SUMMARY_KEYS = (
    "geomean_speedup_vs_suitesparse", "bfs_g500_21_ms", "bfs_kron_22_ms", "sssp_g500_21_ms",
    "pagerank_kron_22_iter_vs_bound", "cc_kron_22_ms", "tc_kron_22_speedup_vs_suitesparse",
    "bfs_grid_2048_us_per_level", "per_call_overhead_us",
)
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
    """Fill in each PageRank record's bandwidth bound from the measured copy bandwidth."""
    for rec in results:
        per = rec.get("per_iteration")
        if not per or "bytes_per_iteration" not in per:
            continue
        bound = per["bytes_per_iteration"] / bandwidth["bytes_per_s"]
        per["bound_ms_per_iteration"] = bound * 1e3
        per["vs_bound"] = per["ms_per_iteration"] / 1e3 / bound


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
    absolute("sssp_g500_21_ms", "sssp", "g500-21")

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
        notes[key] = (f"{per['ms_per_iteration']:.4g} ms per iteration vs a bound of "
                      f"{per['bound_ms_per_iteration']:.4g} ms ({per['bytes_per_iteration']:,} "
                      f"bytes at {doc['copy_bandwidth']['GBps']:.4g} GB/s)")

    absolute("cc_kron_22_ms", "cc", "kron-22")

    key = "tc_kron_22_speedup_vs_suitesparse"
    summary[key], why = _speedup(doc, "tc", "kron-22", "suitesparse")
    if why:
        notes[key] = why

    absolute("bfs_grid_2048_us_per_level", "bfs", "grid-2048", scale=1e6, per_level=True)

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
    with open(path, "w") as f:
        json.dump(_clean(doc), f, indent=1)
        f.write("\n")


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
    labels = {"skipped": "skipped", "error": "error", "unavailable": "not installed"}
    return labels.get(status, status or "-")


def write_markdown(path, doc):
    """Write results.md; returns its text."""
    lines = ["# graphblast benchmark results", ""]
    m = doc["machine"]
    gpu = m.get("gpu")
    gpu_text = (f"GPU: {gpu['name']} (driver {gpu.get('driver', gpu['cuda_driver_api'])}). "
                if gpu else "No GPU. ")
    bw = doc["copy_bandwidth"]
    lines += [
        f"Command: `{doc['command']}`", "",
        (f"Device: {doc['options']['device']}. CPU: {m['cpu_model']} ({m['cpu_cores']} "
         f"cores). {gpu_text}Copy bandwidth: {bw['GBps']:.4g} GB/s ({bw['method']})."), "",
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
                head = (f"{t['median_s'] * 1e3:.4g} ms" +
                        (" unchecked" if ours["status"] == "unchecked" else ""),
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
            if e.get("status") in ("skipped", "error", "mismatch"):
                why = e.get("reason") or e.get("check", {}).get("detail", "")
                notes.append(f"- {r['algorithm']} {r['graph']} {name}: {e['status']}: {why}")
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
