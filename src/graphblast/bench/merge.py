"""``--merge``: one record from the results of several runs (the stages of the H200 record).

The H200's ten minutes a call do not hold the whole default run, so the record is made in
stages (``benchmarks/gpu/run.sh``), each a run of its own with its own results.json.  Merging
keeps every measurement as its run made it: a record (one algorithm on one graph, every
participant's time and check, the speedups) is never recombined across runs, so every ratio
stays a ratio of two times measured in one run.  For the same (algorithm, graph) a complete
record beats an incomplete one and a later file beats an earlier one.  The breadth stage's
entries are merged the same way, from the breadth.json beside each file (see
:func:`.breadth.merge`).  The per-call overhead, the first-call figures and the primitives
come from the last file that has them; the copy bandwidth of each stage stays with its
PageRank records (their bounds are computed when each stage's results.json is read, from
that stage's bandwidth).  ``parts`` lists every input with its command, start and machine.
"""

import json
import os
import shutil

from graphblast.exceptions import InvalidValue

from .runner import record_complete

__all__ = ["merge_docs", "merge_files"]


def _read(path):
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise InvalidValue(f"--merge: cannot read {path}: {e}") from None
    if "results" not in doc or "options" not in doc:
        raise InvalidValue(f"--merge: {path} is not a graphblast bench results.json")
    return path, doc


def _bounded(doc):
    """The document's PageRank records with their bounds from its own copy bandwidth."""
    from .report import add_bounds

    if doc.get("copy_bandwidth"):
        add_bounds(doc["results"], doc["copy_bandwidth"])
    return doc


def merge_docs(docs, command):
    """One results document from ``[(path, doc), ...]``, in order (later wins)."""
    from .report import summarize

    if not docs:
        raise InvalidValue("--merge needs at least one results.json")
    base = docs[0][1]
    records, graphs, peers = {}, {}, {}
    algorithms, graph_order = [], []
    merged = {k: base.get(k) for k in ("schema", "params", "machine", "versions")}
    merged.update(command=command, started=min(d.get("started", "") for _, d in docs),
                  wall_s=sum(d.get("wall_s", 0.0) for _, d in docs))
    merged["parts"] = []
    first_call, first_process, overhead, primitives, stopped = {}, {}, None, None, []
    wide = None
    for path, doc in docs:
        doc = _bounded(doc)
        merged["parts"].append({"file": path, "command": doc.get("command"),
                                "started": doc.get("started"), "wall_s": doc.get("wall_s"),
                                "complete": doc.get("complete", True),
                                "gpu": (doc.get("machine") or {}).get("gpu"),
                                "copy_bandwidth_GBps": (doc.get("copy_bandwidth") or {})
                                .get("GBps"),
                                "host_reference": doc.get("host_reference")})
        for a in doc["options"].get("algorithms", []):
            if a not in algorithms:
                algorithms.append(a)
        for g in doc.get("graphs", []):
            if g["name"] not in graph_order:
                graph_order.append(g["name"])
            if "error" not in g or g["name"] not in graphs:
                graphs[g["name"]] = g
        for rec in doc["results"]:
            key = (rec["algorithm"], rec["graph"])
            old = records.get(key)
            if old is None or record_complete(rec) or not record_complete(old):
                records[key] = rec
        for name, p in (doc.get("peers") or {}).items():
            if p.get("available") or name not in peers:
                peers[name] = p
        for a, r in (doc.get("first_call") or {}).items():
            if "error" not in r or a not in first_call:
                first_call[a] = r
        for k, r in (doc.get("first_process") or {}).items():
            if "error" not in r or k not in first_process:
                first_process[k] = r
        if (doc.get("per_call_overhead") or {}).get("median_us") is not None:
            overhead = doc["per_call_overhead"]
        if doc.get("primitives"):
            primitives = doc["primitives"]
        if doc.get("breadth"):
            wide = doc["breadth"]
        if doc.get("stopped"):
            stopped.append(doc["stopped"])
    device = {str(d["options"].get("device")) for _, d in docs}
    if len(device) > 1:
        raise InvalidValue(f"--merge: the runs are on different devices ({', '.join(device)})")
    options = dict(base["options"])
    options.update(graphs=graph_order, algorithms=algorithms)
    order = {(a, g): (graph_order.index(g), algorithms.index(a)) for a, g in records}
    merged.update(
        options=options, copy_bandwidth=base.get("copy_bandwidth"),
        host_reference=base.get("host_reference"), peers=peers,
        graphs=[graphs[g] for g in graph_order if g in graphs],
        results=[records[k] for k in sorted(records, key=order.get)],
        per_call_overhead=overhead if overhead is not None else base.get("per_call_overhead"),
        first_call=first_call or None, first_process=first_process or None)
    if primitives is not None:
        merged["primitives"] = primitives
    if wide is not None:
        merged["breadth"] = wide
    missing = [f"{r['algorithm']} {r['graph']}" for r in merged["results"]
               if not record_complete(r)]
    not_run = sorted({g for s in stopped for g in s.get("graphs_not_run", [])
                      if g not in graphs})
    if missing or not_run:
        merged["stopped"] = {"reason": "not measured to the end in any merged run: "
                                       + ", ".join(missing + not_run),
                             "graphs_not_run": not_run}
    merged["complete"] = not (missing or not_run)
    merged["summary"], merged["summary_notes"] = summarize(merged)
    return merged


def merge_files(paths, out, command):
    """Merge the results.json files ``paths`` (or folders holding one); copies the newest
    primitives.json and batched.json found beside them into ``out``.  Returns the merged
    document."""
    docs = [_read(p) for p in paths]
    wide = _merge_breadth([os.path.join(os.path.dirname(p), "breadth.json") for p, _ in docs],
                          out)
    for name in ("primitives.json", "batched.json"):
        found = [os.path.join(os.path.dirname(p), name) for p, _ in docs]
        found = [p for p in found if os.path.isfile(p)]
        if found:
            target = os.path.join(out, name)
            if os.path.abspath(found[-1]) != os.path.abspath(target):
                shutil.copyfile(found[-1], target)
    if wide is not None:   # the breadth summary travels in the last document's place
        last_path, last = docs[-1]
        docs[-1] = (last_path, dict(last, breadth={"summary": wide["summary"],
                                                   "summary_notes": wide["summary_notes"],
                                                   "file": "breadth.json"}))
    return merge_docs(docs, command)


def _merge_breadth(paths, out):
    """The breadth.json files among ``paths`` merged into ``out``/breadth.json (see
    :func:`.breadth.merge`); None where there is none."""
    from . import breadth
    from .report import write_json

    found = []
    for path in paths:
        if os.path.isfile(path):
            with open(path) as f:
                found.append(json.load(f))
    if not found:
        return None
    wide = breadth.merge(found)
    write_json(os.path.join(out, "breadth.json"), wide)
    return wide
