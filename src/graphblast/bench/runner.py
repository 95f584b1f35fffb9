"""Timing, and the run of the suite: every graph, every algorithm, every participant.

Timing rules (BENCHMARKS.md):

* A timed run covers everything an algorithm does after its graph exists, through a device
  synchronization at the end (``sync``, also called before the run so that earlier work
  does not leak into it).  Python's garbage collector is off during a run, as in ``timeit``
  (a full collection runs between graphs, not before every call: with NetworkX's and the
  peers' objects alive it costs a good part of a second).
* ``warmup`` untimed runs first (the first call pays for kernel compilation and caches),
  then up to ``repeat`` timed runs; the figure is their median, the spread
  ``(max - min) / median``.
* ``time_limit`` bounds one participant's whole stay on one (algorithm, graph), warm-up
  included: the timed runs are cut to what fits after the warm-up, and if not even one
  fits, the warm-up run is the only sample (the entry says so).

Skipping a participant that would pass the time limit (the rule of :meth:`Suite.estimate`):
the time of one run is predicted from the largest graph of the same family that this
participant already ran the algorithm on in this run, scaled linearly in stored edges (by
``edges^1.5`` for triangle counting, whose work grows faster than the edges on skewed
graphs).  With no such run and a graph above :data:`PILOT_MIN_EDGES` stored edges, a pilot
is run first: the same family with 1/16 of the vertices (``PILOT_STEP`` scales down, and
recursively smaller while the pilot is itself large), once, without warm-up, its answer not
checked.  A participant whose predicted single run exceeds the limit is skipped, with the
prediction and its basis as the reason.  The rule is rough by design (BFS on a grid does not
scale with edges alone); a pilot's first run includes one-time costs, which errs toward
skipping.
"""

import dataclasses
import gc
import math
import statistics
import sys
import time

import numpy as np

from graphblast._memory import available_bytes

from . import certify, check, graphs
from .peers import Graphblast, PeerUnavailable, make_peer
from .peers._base import synchronize_device
from .peers.scipy_csgraph import SciPy, TriangleOracle, triangle_products

__all__ = [
    "FALLBACK_MAX_EDGES",
    "PILOT_MIN_EDGES",
    "PILOT_STEP",
    "Estimator",
    "Progress",
    "Suite",
    "Timing",
    "copy_bandwidth",
    "describe_failure",
    "record_complete",
    "recover_memory",
    "pagerank_bytes_per_iteration",
    "time_call",
]

#: Graphs above this many stored edges get a pilot run before a participant's first run.
PILOT_MIN_EDGES = 1_000_000
#: The pilot is the same family this many scales (log2 vertices) smaller.
PILOT_STEP = 4
#: How each algorithm's single-run time is taken to grow with the stored edges.
GROWTH_EXPONENT = {"tc": 1.5}
#: The oracle of an answer no peer checked runs on the same graph up to this many stored
#: edges (and, for triangles, products of ``L @ L``); on a smaller graph of the family above.
FALLBACK_MAX_EDGES = 1 << 26
FALLBACK_MAX_PRODUCTS = 4e8
#: Host bytes per stored edge the benchmark itself keeps for the CPU peers (the host column
#: indices and the rows of the entry list), added to a peer's own ``host_bytes_per_edge``.
HOST_GRAPH_BYTES_PER_EDGE = 16
#: A CPU peer runs only where its estimated memory is within this share of what is free.
MEMORY_FRACTION = 0.8
#: Timed runs graphblast gets after its warm-up whatever the budget.
OURS_MIN_RUNS = 2
#: Longest error text kept in a note.
MAX_REASON = 600


@dataclasses.dataclass
class Timing:
    """The timed runs of one call: seconds of each, the warm-up runs apart."""

    samples: list
    warmup: list
    note: str = ""

    @property
    def median(self):
        return statistics.median(self.samples)

    @property
    def spread(self):
        """``(max - min) / median`` of the timed runs (0 with one run)."""
        med = self.median
        return (max(self.samples) - min(self.samples)) / med if med > 0 else 0.0

    def to_dict(self):
        d = {
            "median_s": self.median, "min_s": min(self.samples), "max_s": max(self.samples),
            "spread": self.spread, "runs": len(self.samples), "samples_s": self.samples,
            "warmup_s": self.warmup,
        }
        if self.note:
            d["note"] = self.note
        return d


def _timed_once(fn, sync):
    if sync is not None:
        sync()
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        result = fn()
        if sync is not None:
            sync()
        elapsed = time.perf_counter() - t0
    finally:
        if enabled:
            gc.enable()
    return elapsed, result


def time_call(fn, *, sync=None, warmup=1, repeat=5, time_limit=math.inf, min_time=0.0,
              max_runs=200, min_runs=0):
    """Time ``fn()``: ``warmup`` untimed runs, then up to ``repeat`` timed ones.

    Parameters
    ----------
    fn : callable
        Runs the whole computation and returns its answer.
    sync : callable, optional
        Waits for queued device work (called before and after each run).
    warmup, repeat : int
        Untimed and timed runs (``repeat >= 1``).
    time_limit : float
        Seconds all runs together should stay within (see the module notes).
    min_time, max_runs : float, int
        Run more than ``repeat`` times, up to ``max_runs``, until the timed runs add up to
        about ``min_time`` seconds: the median of a call of microseconds needs many runs.
    min_runs : int
        Timed runs made whatever the time limit (the system under test gets at least one
        after its warm-up, so that its figure never includes compilation).

    Returns
    -------
    (Timing, object)
        The timing and the answer of the last run.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    warm, result = [], None
    for _ in range(warmup):
        result = None               # let the previous answer go before the next run
        elapsed, result = _timed_once(fn, sync)
        warm.append(elapsed)
    runs = repeat
    if warm:
        per_run = max(warm[-1], 1e-9)
        if min_time > 0:
            runs = max(repeat, min(max_runs, math.ceil(min_time / per_run)))
        if math.isfinite(time_limit):
            runs = min(runs, max(0, int((time_limit - sum(warm)) // per_run)))
        runs = max(runs, min(min_runs, repeat))
    samples = []
    for _ in range(runs):
        result = None
        elapsed, result = _timed_once(fn, sync)
        samples.append(elapsed)
    note = ""
    if not samples:
        samples = warm[-1:]
        note = ("one run only, without warm-up: a second run would pass the time limit "
                "(the figure may include one-time costs)")
    elif len(samples) < repeat:
        note = f"{runs} timed runs instead of {repeat}, to stay within the time limit"
    return Timing(samples, warm, note), result


HOST_REFERENCE_STEPS = 20_000


def host_reference(repeat=7):
    """Microseconds a fixed piece of pure Python takes on this host (the median of ``repeat``
    runs of a ``HOST_REFERENCE_STEPS``-step loop): the yardstick of the host-bound figures.
    A call's Python path, a BFS level on a long-diameter graph and an SSSP round are bound by
    the host, and a shared host's speed drifts from one run to the next (the H200 machine's
    ran the same per-call benchmark at 63 and at 38 us within one device call), so each run
    records how fast its host was when it started and when it ended."""
    def loop():
        total = 0
        for k in range(HOST_REFERENCE_STEPS):
            total += k & 7
        return total

    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        loop()
        samples.append(time.perf_counter() - t0)
    return float(np.median(samples) * 1e6)


def copy_bandwidth(device, nbytes, repeat=5):
    """Copy bandwidth of ``device`` in bytes per second, read plus write (STREAM's copy).

    A device-to-device ``cupy.copyto`` of ``nbytes`` on a GPU, ``numpy.copyto`` on the CPU
    (one thread: what NumPy code gets).

    Returns
    -------
    dict
        ``bytes_per_s``, ``GBps``, the buffer size and the timing.
    """
    if str(device).startswith("cuda"):
        import cupy as xp

        free = xp.cuda.runtime.memGetInfo()[0]
        nbytes = int(min(nbytes, free // 4))
        method = "cupy.copyto, device to device"
    else:
        xp = np
        method = "numpy.copyto, host memory, one thread"
    count = max(1, nbytes // 4)
    src = xp.ones(count, dtype=xp.float32)
    dst = xp.empty_like(src)
    timing, _ = time_call(lambda: xp.copyto(dst, src), sync=lambda: synchronize_device(device),
                          warmup=1, repeat=repeat)
    moved = 2 * src.nbytes
    return {
        "device": str(device), "method": method, "buffer_bytes": moved // 2,
        "bytes_per_s": moved / timing.median, "GBps": moved / timing.median / 1e9,
        "timing": timing.to_dict(),
    }


def pagerank_bytes_per_iteration(n, nedges):
    """The bytes one PageRank step must move at least: the byte-count model of the bound.

    One pull SpMV over the pattern-only CSR matrix (graphblast stores no values for a BOOL
    graph) reads every column index once (4 bytes, 8 past 2^31 vertices) and every row
    pointer once (4 bytes, 8 past 2^31 entries), reads the scaled rank vector once and
    writes the new rank once (8 bytes per vertex each).  The scaling, convergence and
    teleport vector operations and the irregular gathers' extra traffic are left out, so
    the bound is a true lower bound.
    """
    index_bytes = 4 if n < 2**31 else 8
    pointer_bytes = 4 if nedges < 2**31 else 8
    return nedges * index_bytes + (n + 1) * pointer_bytes + 2 * 8 * n


class Estimator:
    """Single-run times seen in this run, to predict bigger graphs of the same family."""

    def __init__(self):
        self._seen = {}

    def record(self, participant, algorithm, family, nedges, seconds, what="a run"):
        key = (participant, algorithm, family)
        if key not in self._seen or nedges >= self._seen[key][0]:
            self._seen[key] = (nedges, seconds, what)

    def predict(self, participant, algorithm, family, nedges):
        """``(seconds, basis)`` for one run on ``nedges`` stored edges, or None."""
        key = (participant, algorithm, family)
        if key not in self._seen:
            return None
        m0, t0, what = self._seen[key]
        e = GROWTH_EXPONENT.get(algorithm, 1.0)
        basis = (f"{t0:.3g} s for {what} on a {family} graph of {m0:,} stored edges, "
                 f"scaled by (edges ratio)^{e:g}")
        return t0 * (nedges / max(m0, 1)) ** e, basis


class Progress:
    """The progress display on stderr: a Rich bar when Rich is installed, else lines."""

    def __init__(self, total, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(total, 1)
        self.count = 0
        self._rich = None
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress
        except ImportError:
            return
        console = Console(file=self.stream)
        self._rich = RichProgress(TextColumn("{task.description}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(), console=console)
        self._task = self._rich.add_task("graphblast bench", total=self.total)
        self._rich.start()

    def set_total(self, total):
        """The number of steps, once known."""
        self.total = max(total, 1)
        if self._rich is not None:
            self._rich.update(self._task, total=self.total)

    def start(self, what):
        """Show what runs now."""
        if self._rich is not None:
            self._rich.update(self._task, description=what)
        else:
            print(f"[{self.count}/{self.total}] {what} ...", file=self.stream, flush=True)

    def note(self, line):
        """A line that stays."""
        if self._rich is not None:
            self._rich.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=self.stream, flush=True)

    def advance(self, line=None):
        """One step done, with its outcome."""
        self.count += 1
        if line:
            self.note(f"[{self.count}/{self.total}] {line}")
        if self._rich is not None:
            self._rich.advance(self._task)

    def close(self):
        if self._rich is not None:
            self._rich.stop()


def describe_failure(e):
    """An exception as a note: ``{"status": "error", "reason", "failure"}`` where
    ``failure`` is ``out_of_memory`` (MemoryError and its kin: graphblast's OutOfMemory,
    CuPy's OutOfMemoryError, cuSPARSE's INSUFFICIENT_RESOURCES, std::bad_alloc) or
    ``exception``."""
    text = f"{type(e).__name__}: {e}"
    if len(text) > MAX_REASON:
        text = text[:MAX_REASON] + " ..."
    low = text.lower()
    oom = (isinstance(e, MemoryError) or type(e).__name__ == "OutOfMemoryError"
           or any(s in low for s in ("out of memory", "insufficient_resources", "bad_alloc",
                                     "cudaerrormemoryallocation")))
    return {"status": "error", "reason": text,
            "failure": "out_of_memory" if oom else "exception"}


def recover_memory(device):
    """After a failure: collect garbage and give CuPy's cached blocks back to the device, so
    that one participant's out-of-memory does not sink the next."""
    gc.collect()
    if str(device).startswith("cuda"):
        try:
            import cupy

            cupy.get_default_memory_pool().free_all_blocks()
            cupy.get_default_pinned_memory_pool().free_all_blocks()
        except Exception:  # noqa: BLE001 - nothing more to do
            pass


def record_complete(rec):
    """Whether a results record was measured to the end (not cut by a deadline or a kill)."""
    if not rec.get("complete", True):
        return False
    return all(e.get("status") != "not_run" for e in rec.get("participants", {}).values())


class Suite:
    """One benchmark run over graphs x algorithms x participants.

    Parameters
    ----------
    specs : list of GraphSpec
    algorithms : list of str
    peer_names : list of str
        The peers asked for (graphblast always runs).
    device : str
        graphblast's device.
    repeat, warmup : int
    time_limit : float
        A participant predicted to need more than this for one run is skipped.
    data_dir : str or None
        Where the real graphs are.
    params : AlgorithmParams
    progress : Progress
    budget : float, optional
        Seconds of runs per participant and (algorithm, graph), warm-up included (default:
        ``time_limit``); see the module notes.
    deadline : float, optional
        A ``time.perf_counter()`` value after which nothing new starts: what is left is
        marked ``not_run`` and the run ends with what it has.
    done : dict, optional
        ``{"graphs": [...], "results": [...]}`` of an earlier run (``--resume``): its
        complete records are kept and not measured again.
    on_update : callable, optional
        Called with no argument after every measurement (the caller writes results.json).
    fallback_check : bool
        Check graphblast answers that no peer could check against an oracle (see
        :meth:`fallback_check`).
    refresh : bool
        With ``done``: measure graphblast again on every earlier record, keep the peers'
        measurements that are there, and check graphblast's answer against the reference
        answer recorded with them (``record["reference"]``, a :func:`check.fingerprint`); a
        record without one has SuiteSparse (or the first peer) run again as the checker.
    """

    def __init__(self, specs, algorithms, peer_names, device, *, repeat, warmup, time_limit,
                 data_dir, params, progress, budget=None, deadline=None, done=None,
                 on_update=None, fallback_check=True, refresh=False):
        self.specs = specs
        self.algorithms = algorithms
        self.device = device
        self.repeat = repeat
        self.warmup = warmup
        self.time_limit = time_limit
        self.budget = time_limit if budget is None else budget
        self.deadline = deadline
        self.data_dir = data_dir
        self.params = params
        self.progress = progress
        self.on_update = on_update
        self.do_fallback = fallback_check
        self.estimator = Estimator()
        self.ours = Graphblast(device)
        self.peers = []
        self.peer_report = {}
        self.unavailable = {}           # name -> (reason, the algorithms it would run)
        for name in peer_names:
            peer = make_peer(name, device)
            try:
                peer.load()
                report = {"available": True, "description": peer.description,
                          "versions": peer.versions(), **peer.info()}
            except Exception as e:  # noqa: BLE001 - PeerUnavailable, or a broken install
                note = str(e) if isinstance(e, PeerUnavailable) else \
                    f"loading failed: {describe_failure(e)['reason']}"
                self.peer_report[name] = {"available": False, "note": note,
                                          "description": peer.description}
                self.unavailable[name] = (note, peer.algorithms)
                continue
            self.peer_report[name] = report
            self.peers.append(peer)
        self._pilot_graphs = {}
        self.described = []             # graphs, as far as the run got
        self.results = []               # records, as far as the run got
        self.graphs_not_run = []
        self.stopped = None             # why the run stopped early, if it did
        self.refresh = refresh
        self._kept_from = None
        self._done = {}
        self._earlier = {}              # every earlier record, for --refresh
        self._done_graphs = {}
        if done:
            self._kept_from = done.get("started")
            for rec in done.get("results", []):
                self._earlier[(rec["algorithm"], rec["graph"])] = rec
                if record_complete(rec) and not refresh:
                    self._done[(rec["algorithm"], rec["graph"])] = rec
            self._done_graphs = {g["name"]: g for g in done.get("graphs", [])
                                 if "error" not in g}

    @property
    def participants(self):
        return [self.ours] + [p for p in self.peers if p.algorithms]

    def steps(self):
        """How many (graph, algorithm, participant) steps the run has, for the display."""
        per = sum(1 for a in self.algorithms for p in self.participants if a in p.algorithms)
        return len(self.specs) * (per + 1)

    def _update(self):
        if self.on_update is not None:
            self.on_update()

    def _out_of_time(self):
        if self.deadline is not None and time.perf_counter() > self.deadline:
            if self.stopped is None:
                self.stopped = ("the run's deadline (--deadline) was reached; what is "
                                "missing can be measured with --resume")
                self.progress.note(f"deadline reached: {self.stopped}")
            return True
        return False

    def run(self):
        """Run everything; returns ``(graphs, results)`` as lists of plain dicts."""
        for spec in self.specs:
            todo = [a for a in self.algorithms if (a, spec.name) not in self._done]
            if not todo and spec.name in self._done_graphs:
                self.described.append(self._done_graphs[spec.name])
                self.results.extend(self._done[(a, spec.name)] for a in self.algorithms)
                self.progress.advance(f"{spec.name}: kept from the resumed results")
                continue
            if self._out_of_time():
                self.graphs_not_run.append(spec.name)
                self.results.extend(self._done[(a, spec.name)] for a in self.algorithms
                                    if (a, spec.name) in self._done)
                continue
            self.progress.start(f"building {spec.name}")
            try:
                graph = graphs.build(spec, self.device, self.data_dir)
            except Exception as e:  # noqa: BLE001 - a graph that cannot be built is reported
                recover_memory(self.device)
                fail = describe_failure(e)
                self.described.append({"name": spec.name, "family": spec.family,
                                       "error": fail["reason"], "failure": fail["failure"]})
                self.progress.advance(f"{spec.name}: not built ({fail['reason']})")
                self._update()
                continue
            described = graph.describe()
            self.described.append(described)
            self.progress.advance(f"{graph.name}: {graph.n:,} vertices, {graph.nedges:,} "
                                  f"stored edges, built in {graph.build_seconds:.2f} s")
            self._update()
            natives = {}
            for algorithm in self.algorithms:
                done = self._done.get((algorithm, spec.name))
                if done is not None:
                    self.results.append(done)
                    continue
                rec = self._run_algorithm(algorithm, graph, natives,
                                          self._earlier.get((algorithm, spec.name)))
                if algorithm == "sssp":
                    # SSSP's weighted matrix is not needed again: free it (at GAP's
                    # scale it is tens of GiB of device memory).
                    natives = {k: v for k, v in natives.items() if not k[1]}
                    described.update(graph.describe())
                    graph.drop_weighted()
                    recover_memory(self.device)
                self._update()
                del rec
            natives.clear()
            self._pilot_graphs.clear()
            graph.release()
            del graph
            recover_memory(self.device)
        return self.described, self.results

    # One (algorithm, graph) ------------------------------------------------------------

    def _native(self, participant, graph, weighted, natives):
        key = (participant.name, weighted)
        if key not in natives:
            t0 = time.perf_counter()
            natives[key] = (participant.prepare(graph, weighted), time.perf_counter() - t0)
        return natives[key]

    def _memory_reason(self, p, graph):
        """Why a CPU peer cannot hold ``graph`` in this machine's memory, or None."""
        per_edge = getattr(p, "host_bytes_per_edge", None)
        if not per_edge:
            return None
        available = available_bytes()
        if available is None:
            return None
        need = graph.nedges * (per_edge + HOST_GRAPH_BYTES_PER_EDGE)
        if need <= MEMORY_FRACTION * available:
            return None
        return (f"cannot fit in host memory: about {need / 2**30:.0f} GiB for {graph.nedges:,} "
                f"stored edges ({per_edge + HOST_GRAPH_BYTES_PER_EDGE} bytes each, the "
                f"benchmark's host copy included), {available / 2**30:.0f} GiB available")

    def _kept_entries(self, algorithm, earlier):
        """--refresh: the peers' finished entries of the earlier record, to keep, and the
        reference answer recorded with them (None when there is none)."""
        if not (self.refresh and earlier):
            return {}, None
        kept = {name: dict(e, kept_from=self._kept_from)
                for name, e in earlier["participants"].items()
                if name != "graphblast" and e.get("status") not in (None, "not_run")}
        reference = earlier.get("reference")
        fresh = [p for p in self.peers if algorithm in p.algorithms and p.name not in kept]
        if reference is None and not fresh:
            # no reference to check graphblast against: one peer runs again as the checker
            for p in sorted(self.peers, key=lambda p: p.name != "suitesparse"):
                if algorithm in p.algorithms:
                    kept.pop(p.name, None)
                    break
        return kept, reference

    def _run_algorithm(self, algorithm, graph, natives, earlier=None):
        record = {"algorithm": algorithm, "graph": graph.name, "vertices": graph.n,
                  "stored_edges": graph.nedges, "participants": {}, "complete": False}
        if algorithm in ("bfs", "sssp"):
            record["source"] = graph.source
        self.results.append(record)
        entries = record["participants"]
        answers = {}
        weighted = algorithm == "sssp"
        kept, reference = self._kept_entries(algorithm, earlier)
        for p in self.participants:
            if algorithm not in p.algorithms:
                continue
            label = f"{algorithm} {graph.name} {p.name}"
            if p.name in kept:
                entries[p.name] = kept[p.name]
                self.progress.advance(f"{label}: kept from the resumed results")
                continue
            entry = entries[p.name] = {}
            if self._out_of_time():
                entry.update(status="not_run", reason=self.stopped)
                continue
            reason = (p.skip_reason(algorithm, graph)
                      or (self._memory_reason(p, graph) if p is not self.ours else None)
                      or self._too_slow(p, algorithm, graph, entry))
            if reason:
                entry.update(status="skipped", reason=reason)
                self.progress.advance(f"{label}: skipped ({reason})")
                self._update()
                continue
            self.progress.start(label)
            try:
                native, prepare_s = self._native(p, graph, weighted, natives)
                fn = p.task(algorithm, native, graph, self.params)
                timing, raw = time_call(fn, sync=p.sync, warmup=self.warmup,
                                        repeat=self.repeat, time_limit=self.budget,
                                        min_runs=OURS_MIN_RUNS if p is self.ours else 0)
                answers[p.name] = p.answer(algorithm, raw, graph)
                del raw
            except Exception as e:  # noqa: BLE001 - a failing participant must not end the run
                fn = raw = None
                recover_memory(self.device)
                entry.update(describe_failure(e))
                self.progress.advance(f"{label}: error ({entry['reason']})")
                self._update()
                continue
            self.estimator.record(p.name, algorithm, graph.family, graph.nedges, timing.median,
                                  "a measured run")
            entry.update(status="ran", prepare_s=prepare_s, timing=timing.to_dict(),
                         median_ms=timing.median * 1e3,
                         gteps=graph.nedges / timing.median / 1e9)
            self.progress.advance(f"{label}: {timing.median * 1e3:.3f} ms")
            self._update()
        for name, (reason, peer_algorithms) in self.unavailable.items():
            if algorithm in peer_algorithms:
                entries[name] = {"status": "unavailable", "reason": reason}
        try:
            self._check(algorithm, record, answers, reference)
            ours = entries.get("graphblast", {})
            if ours.get("status") == "unchecked" and self.do_fallback:
                self.fallback_check(algorithm, record, graph, answers["graphblast"])
        except Exception as e:  # noqa: BLE001 - a failing check is a note, not the end
            recover_memory(self.device)
            record["check_error"] = describe_failure(e)["reason"]
            self.progress.note(f"{algorithm} {graph.name}: the check failed: "
                               f"{record['check_error']}")
        if algorithm == "pagerank" and not self._out_of_time():
            self._pagerank_per_iteration(record, graph)
        record["complete"] = not any(e.get("status") == "not_run" for e in entries.values())
        return record

    def _check(self, algorithm, record, answers, reference=None):
        """Judge the answers of this run against each other, or, with a reference recorded
        by an earlier run (--refresh), each against it.  A reference is recorded when at
        least two answers agree."""
        entries = record["participants"]
        if reference is not None:
            verdicts = {}
            agreed = ", ".join(reference["agreed"])
            for name, answer in answers.items():
                ok, how = check.matches_fingerprint(algorithm, reference["answer"], answer)
                if ok:
                    detail = (f"agrees with the reference answer of {agreed} "
                              f"({reference['recorded']})" + (f": {how}" if how else ""))
                else:
                    detail = f"differs from the reference answer of {agreed}: {how}"
                verdicts[name] = check.Verdict("ok" if ok else "mismatch", detail)
            record["reference"] = reference
        else:
            verdicts = check.judge(algorithm, answers)
            agreed = [n for n, v in verdicts.items() if v.status == "ok"]
            if len(agreed) >= 2:
                record["reference"] = {
                    "agreed": agreed, "recorded": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                time.gmtime()),
                    "answer": check.fingerprint(algorithm, answers[agreed[0]])}
        for name, verdict in verdicts.items():
            entries[name]["check"] = verdict.to_dict()
            entries[name]["status"] = verdict.status
            if verdict.status == "mismatch":
                self.progress.note(f"CHECK FAILED: {algorithm} {record['graph']} {name}: "
                                   f"{verdict.detail}")
        self._speedups(record)
        if algorithm == "bfs":
            good = [n for n, e in entries.items() if e.get("status") == "ok"]
            if not good and "graphblast" in answers:
                good = ["graphblast"]
            if good:
                record["levels"] = int(answers[good[0]].max()) + 1

    @staticmethod
    def _speedups(record):
        entries = record["participants"]
        ours = entries.get("graphblast", {})
        if ours.get("status") == "ok":
            for name, entry in entries.items():
                if name != "graphblast" and entry.get("status") == "ok":
                    entry["speedup"] = entry["timing"]["median_s"] / ours["timing"]["median_s"]

    # Checking an answer no peer could check ------------------------------------------------

    def _fallback_fits(self, algorithm, graph):
        if graph.nedges > FALLBACK_MAX_EDGES:
            return False
        if algorithm == "tc":
            return triangle_products(graph.indptr, graph.indices) <= FALLBACK_MAX_PRODUCTS
        return True

    def fallback_check(self, algorithm, record, graph, answer):
        """Check graphblast's answer that no peer checked, against an oracle.

        The oracle is SciPy csgraph (BFS, SSSP, components; PageRank as SciPy's CSR power
        iteration) or an exact triangle count with SciPy (``sum((L @ L) .* L)`` over row
        blocks).  It runs on the same graph when that graph has at most
        :data:`FALLBACK_MAX_EDGES` stored edges (and, for triangles, at most
        :data:`FALLBACK_MAX_PRODUCTS` products); otherwise graphblast and the oracle both
        run on the same family scaled down by :data:`PILOT_STEP` (repeatedly, until it
        fits).  Before stepping down, an answer that has a certificate (BFS, SSSP, components,
        PageRank: :mod:`certify`) is checked on the graph itself, on its device.  The verdict
        replaces ``unchecked``; its detail says which graph and oracle.
        """
        ours = record["participants"]["graphblast"]
        label = f"{algorithm} {graph.name}"
        if not self._fallback_fits(algorithm, graph):
            self.progress.start(f"certifying {label} on the graph itself")
            try:
                verdict = certify.certify(algorithm, graph, answer, self.params)
            except Exception as e:  # noqa: BLE001 - the smaller graph's oracle still checks
                recover_memory(self.device)
                self.progress.note(f"{label}: the certificate failed "
                                   f"({describe_failure(e)['reason']}); checking on a smaller "
                                   "graph instead")
                verdict = None
            if verdict is not None:
                agree, how = verdict
                ours["status"] = "ok" if agree else "mismatch"
                ours["check"] = {
                    "status": ours["status"], "oracle": "certificate", "graph": graph.name,
                    "same_graph": True,
                    "detail": (f"no peer answer, and {graph.name} is too large for an oracle; "
                               f"certified on the graph itself: {how}")}
                self.progress.note(f"{label}: {ours['check']['detail']}")
                return
        oracle = TriangleOracle() if algorithm == "tc" else SciPy()
        target, spec = graph, graph.spec
        if spec.scalable:
            # Step down without building the graphs in between (each step has about 1/16
            # of the edges); the loop below steps further where that is not enough.
            edges = graph.nedges
            while edges > FALLBACK_MAX_EDGES and spec.scaled(-PILOT_STEP).size >= 4 \
                    and spec.scaled(-PILOT_STEP) != spec:
                spec = spec.scaled(-PILOT_STEP)
                edges /= 2 ** PILOT_STEP
            if spec != graph.spec:
                target = graphs.build(spec, self.device, self.data_dir)
        while not self._fallback_fits(algorithm, target):
            smaller = spec.scaled(-PILOT_STEP)
            if smaller == spec or smaller.size < 4:
                ours["check"] = {"status": "unchecked",
                                 "detail": f"no peer answer, and {graph.name} is too large "
                                           f"for the {oracle.name} oracle with no smaller "
                                           "graph of its family to check on"}
                return
            spec = smaller
            target = None
            target = graphs.build(spec, self.device, self.data_dir)
        self.progress.start(f"checking {label} against {oracle.name} on {target.name}")
        if target is graph:
            mine = answer
        else:
            fn = self.ours.task(algorithm, self.ours.prepare(target, algorithm == "sssp"),
                                target, self.params)
            mine = self.ours.answer(algorithm, fn(), target)
        theirs = oracle.answer(algorithm, oracle.task(
            algorithm, oracle.prepare(target, algorithm == "sssp"), target, self.params)(),
            target)
        agree, how = check.compare(algorithm, theirs, mine)
        where = ("on the same graph" if target is graph else
                 f"on {target.name}, a smaller graph of the same family ({target.nedges:,} "
                 f"stored edges; {graph.name} is too large for the oracle)")
        detail = (f"no peer answer; checked against the {oracle.name} oracle {where}: "
                  + ("agrees" if agree else f"differs: {how}"))
        if algorithm == "pagerank" and agree:
            detail += f" ({how})"
        ours["status"] = "ok" if agree else "mismatch"
        ours["check"] = {"status": ours["status"], "detail": detail, "oracle": oracle.name,
                         "graph": target.name, "same_graph": target is graph}
        self.progress.note(f"{label}: {detail}")
        if target is not graph:
            target.release()
        del target

    def _pagerank_per_iteration(self, record, graph):
        """graphblast's PageRank for a fixed step count: time per step and its bound."""
        ours = record["participants"].get("graphblast", {})
        if ours.get("status") != "ok":
            return
        iters = self.params.pagerank_fixed_iterations
        label = f"pagerank {graph.name} graphblast ({iters} fixed iterations)"
        self.progress.start(label)
        try:
            fn = self.ours.fixed_iteration_pagerank(graph.A, self.params)
            timing, _ = time_call(fn, sync=self.ours.sync, warmup=self.warmup,
                                  repeat=self.repeat, time_limit=self.budget,
                                  min_runs=OURS_MIN_RUNS)
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            recover_memory(self.device)
            record["per_iteration"] = {"error": describe_failure(e)["reason"]}
            self.progress.note(f"{label}: error ({record['per_iteration']['error']})")
            return
        per_iter = timing.median / iters
        record["per_iteration"] = {
            "iterations": iters, "timing": timing.to_dict(), "ms_per_iteration": per_iter * 1e3,
            "bytes_per_iteration": pagerank_bytes_per_iteration(graph.n, graph.nedges),
        }
        self.progress.note(f"{label}: {per_iter * 1e3:.3f} ms per iteration")

    # The time-limit rule ----------------------------------------------------------------

    def _too_slow(self, p, algorithm, graph, entry):
        if not math.isfinite(self.time_limit):
            return None             # --time-limit inf: nothing is skipped, no pilot runs
        guess = self.estimate(p, algorithm, graph.spec, graph.nedges)
        if guess is None:
            return None
        seconds, basis = guess
        entry["estimate"] = {"seconds": seconds, "basis": basis}
        if seconds > self.time_limit:
            return (f"one run estimated at {seconds:.3g} s ({basis}), over the time limit of "
                    f"{self.time_limit:g} s")
        return None

    def estimate(self, p, algorithm, spec, nedges):
        """Predicted ``(seconds, basis)`` of one run, running pilots as needed; or None.

        A pilot runs twice and predicts from its second run: the first pays for kernel
        compilation and cold caches, which a measurement's warm-up absorbs.
        """
        guess = self.estimator.predict(p.name, algorithm, spec.family, nedges)
        if guess is not None or not spec.scalable or nedges <= PILOT_MIN_EDGES:
            return guess
        small = spec.scaled(-PILOT_STEP)
        if small == spec:
            return None
        try:
            pilot = self._pilot_graph(small)
        except Exception:  # noqa: BLE001 - without a pilot the graph simply runs
            recover_memory(self.device)
            return None
        if p.skip_reason(algorithm, pilot):
            return None
        inner = self.estimate(p, algorithm, small, pilot.nedges)
        if inner is not None and inner[0] > self.time_limit:
            e = GROWTH_EXPONENT.get(algorithm, 1.0)
            return inner[0] * (nedges / pilot.nedges) ** e, f"extrapolated from {inner[1]}"
        self.progress.start(f"pilot: {algorithm} {pilot.name} {p.name}")
        try:
            native = p.prepare(pilot, algorithm == "sssp")
            task = p.task(algorithm, native, pilot, self.params)
            cold, _ = _timed_once(task, p.sync)
            elapsed, _ = _timed_once(task, p.sync)
            del native, task
        except Exception:  # noqa: BLE001 - a failing pilot predicts nothing
            recover_memory(self.device)
            return None
        self.estimator.record(p.name, algorithm, spec.family, pilot.nedges, elapsed,
                              f"a warm pilot run (its first run took {cold:.3g} s)")
        self.progress.note(f"pilot: {algorithm} {pilot.name} {p.name}: {elapsed:.3g} s warm "
                           f"({cold:.3g} s first)")
        return self.estimator.predict(p.name, algorithm, spec.family, nedges)

    def _pilot_graph(self, spec):
        if spec not in self._pilot_graphs:
            self._pilot_graphs[spec] = graphs.build(spec, self.device, self.data_dir)
        return self._pilot_graphs[spec]

    # Per-call overhead -----------------------------------------------------------------

    def per_call_overhead(self, calls):
        """Wall time of one small masked vxm on karate (a BFS step from vertex 0).

        ``out<!visited, replace> = q any.pair A`` with ``q = visited = {0}``, synchronized
        after every call; the median over ``calls`` calls after 20 warm-up calls.
        """
        from graphblast import Matrix, Vector, semiring
        from graphblast.dtypes import BOOL

        if self.data_dir is not None:
            A = graphs.build(graphs.GraphSpec("karate"), self.device, self.data_dir).A
            source = "lagraph/karate.mtx"
        else:
            try:
                import networkx as nx
            except ImportError:
                return {"error": "karate not found: no real-graph data (pass --data) and "
                                 "no NetworkX to supply it"}
            rows, cols = np.array(nx.karate_club_graph().edges()).T
            A = Matrix.from_coo(np.r_[rows, cols], np.r_[cols, rows], True, BOOL,
                                nrows=34, ncols=34, device=self.device)
            source = "networkx.karate_club_graph()"
        q = Vector.from_coo([0], True, BOOL, size=A.nrows, device=self.device)
        visited = q.dup()
        out = Vector(BOOL, A.nrows, device=self.device)
        any_pair = semiring.any_pair[BOOL]

        def call():
            out(~visited.S, replace=True) << q.vxm(A, any_pair)

        sync = self.ours.sync
        for _ in range(20):
            _timed_once(call, sync)
        samples = np.array([_timed_once(call, sync)[0] for _ in range(calls)])
        return {
            "graph": "karate", "from": source, "calls": calls,
            "operation": "out<!visited, replace> = q any.pair A, q = visited = {vertex 0}",
            "median_us": float(np.median(samples) * 1e6),
            "p10_us": float(np.percentile(samples, 10) * 1e6),
            "p90_us": float(np.percentile(samples, 90) * 1e6),
        }
