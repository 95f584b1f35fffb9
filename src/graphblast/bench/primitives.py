"""``--primitives``: the core operations measured on their own (issue 5).

On one GAP Kronecker graph (``kron`` at the run's scale; a ``kron-N`` in ``--graphs`` picks
it), FP32 values:

* SpMV ``y = A plus.times x`` and ``A min.plus x`` against cuSPARSE's SpMV (CuPy);
* masked SpMV ``y<M> = A plus.times x`` against the mask's density, its time over the
  unmasked SpMV's (the pull visits only the rows the mask allows);
* ``x plus.times A`` against the density of ``x`` (SpMSpV by push, SpMV by pull, forced
  with ``gb.config.set(direction=...)``), and where ``auto`` lands;
* each level of a BFS on the graph, ``q<!visited> = q any.pair A``, under push, pull and
  auto: the worst ratio of auto to the better of the two is how much the choice costs;
* BFS on each default graph against a naive direction-optimizing BFS written directly in
  CUDA through CuPy (``benchmarks/yardsticks/naive_bfs.py``, issue 53), on the same int32 CSR
  arrays and source, their levels compared: ``bfs_vs_naive_min`` is the smallest of the
  yardstick's time over graphblast's (below 1: the yardstick faster somewhere);
* SpMV with a user-defined plus.times semiring (two Python functions, ``x + y`` and ``x * y``,
  registered with ``binary.register_anonymous`` and translated into the kernels' functors)
  against the built-in one: user-defined operators cost nothing at run time;
* masked SpGEMM ``C<L> = L plus.times L'`` (``L`` the strict lower triangle: triangle
  counting's product) against cuSPARSE's ``L @ L'`` followed by the mask.  The unmasked
  product can be far larger than the graph, so this runs on the largest kron (at most the
  main one) whose unmasked product fits in a quarter of the free memory.

Every graphblast result is compared with a host reference or the baseline's before its time
counts (``agrees`` in the details).  The first three summary figures and ``bfs_vs_naive_min``
are speeds, the other's time over graphblast's (above 1: graphblast faster), as the issues
that set their targets read them (``>= 1.0``, ``>= 0.95``); ``auto_direction_worst_level_ratio``
and ``udf_mxv_vs_builtin`` are time ratios (1 is a perfect choice; the user-defined semiring's
target is ``<= 1.2``):

=========================================  ==================================================
``spmv_plus_times_fp32_vs_cusparse``       cuSPARSE SpMV time / SpMV plus.times time
``spmv_min_plus_fp32_vs_plus_times``       SpMV plus.times time / SpMV min.plus time
``masked_spgemm_vs_cusparse``              (cuSPARSE SpGEMM + mask) time / masked SpGEMM time
``auto_direction_worst_level_ratio``       max over BFS levels of auto time / min(push, pull)
``bfs_vs_naive_min``                       min over the default graphs of the naive CUDA
                                           BFS's time / graphblast's BFS time
``udf_mxv_vs_builtin``                     user-defined plus.times SpMV time / built-in's
=========================================  ==================================================

The SpMV's matrix is the graph cast to FP32, which graphblast keeps iso (a pattern: one value,
no value array read) while cuSPARSE reads a value array; ``details.spmv`` also times both over
the graph with random FP32 values (``plus_times_valued_s``, ``cusparse_valued_s``,
``valued_vs_cusparse``).

Without a GPU the cuSPARSE ratios are null (SciPy's SpMV and SpGEMM-then-mask are measured in
their place, under ``scipy`` in the details).
"""

import logging
import math

import numpy as np

from . import graphs
from .check import dense
from .runner import time_call

__all__ = ["FRONTIER_DENSITIES", "MASK_DENSITIES", "SECTIONS", "SUMMARY_KEYS", "run_primitives"]

SUMMARY_KEYS = ("spmv_plus_times_fp32_vs_cusparse", "spmv_min_plus_fp32_vs_plus_times",
                "masked_spgemm_vs_cusparse", "auto_direction_worst_level_ratio",
                "bfs_vs_naive_min", "udf_mxv_vs_builtin")
MASK_DENSITIES = (0.001, 0.01, 0.1, 0.5, 1.0)
# The measurements, by the name `--primitives LIST` selects them with (and the name the
# progress and the details' errors give them), in the order they run.
SECTIONS = {"spmv": "SpMV", "udf": "user-defined SpMV", "masked-spmv": "masked SpMV",
            "direction": "push/pull sweep", "bfs-levels": "BFS levels",
            "spgemm": "masked SpGEMM", "yardstick": "BFS vs the naive yardstick"}
FRONTIER_DENSITIES = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.3, 1.0)
#: Bytes per entry of the unmasked SpGEMM's output (value, column, and workspace), to size it.
SPGEMM_BYTES_PER_PRODUCT = 16
SEED = 7
#: Each primitive is timed over at least this many seconds of runs (up to 200 runs): single
#: calls take microseconds, and their median needs many samples.
MIN_TIME = 0.05


class _Decisions(logging.Handler):
    """Collects the planner's debug lines (``direction: push (...)``) during one call."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _decision(fn, name):
    """Run ``fn`` once; ``(choice, reason)`` of the planner's last ``name`` decision.

    ``("not logged", "")`` when the backend logged no such decision.
    """
    logger = logging.getLogger("graphblast")
    handler, level = _Decisions(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        fn()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    chosen = [m.split(":", 1)[1].strip() for m in handler.messages
              if m.startswith(name + ":")]
    if not chosen:
        return "not logged", ""
    choice, _, reason = chosen[-1].partition(" ")
    return choice, reason.strip("() ")


class _Timer:
    """``time_call`` with the run's settings, under a ``gb.config`` setting if given."""

    def __init__(self, sync, repeat, warmup, time_limit):
        self.sync, self.repeat, self.warmup, self.time_limit = sync, repeat, warmup, time_limit

    def __call__(self, fn, **setting):
        import graphblast as gb

        with gb.config.set(**setting):
            timing, result = time_call(fn, sync=self.sync, warmup=self.warmup,
                                       repeat=self.repeat, time_limit=self.time_limit,
                                       min_time=MIN_TIME)
        return timing.median, result


def _host_vector(v, n):
    idx, vals = v.to_coo()
    return dense(idx, vals, n, 0.0, np.float64)


def _close(a, b):
    """FP32 results agree (sums in another order differ in the last bits)."""
    return bool(np.allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                            rtol=1e-4, atol=1e-5))


def _same_vector(v, indices, values):
    """Whether the graphblast Vector ``v`` holds exactly ``indices`` with about ``values``."""
    idx, vals = v.to_coo()
    return (np.array_equal(np.asarray(idx, dtype=np.int64), indices)
            and _close(vals, values))


def _min_plus_reference(graph, xh):
    """``A min.plus x`` on the host: each non-empty row's ``min_j (1 + x[j])``."""
    rows = np.flatnonzero(np.diff(graph.indptr))
    vals = np.minimum.reduceat(xh[graph.indices].astype(np.float64) + 1.0,
                               graph.indptr[:-1][rows])
    return rows, vals


def _spmv(graph, A32, x, xh, timer, cusparse, scipy_A, details, notes):
    import scipy.sparse

    from graphblast import Matrix, semiring
    from graphblast.dtypes import FP32

    t_plus, y = timer(lambda: A32.mxv(x, semiring.plus_times[FP32]).new())
    t_min, ymin = timer(lambda: A32.mxv(x, semiring.min_plus[FP32]).new())
    yh = _host_vector(y, graph.n)
    d = {"plus_times_s": t_plus, "min_plus_s": t_min, "min_plus_vs_plus_times": t_min / t_plus,
         "min_plus_agrees": _same_vector(ymin, *_min_plus_reference(graph, xh))}
    t_sp, ys = timer(lambda: scipy_A @ xh)
    d["scipy_s"], d["scipy_agrees"] = t_sp, _close(ys, yh)
    d["vs_scipy"] = t_plus / t_sp
    # A32, an FP32 cast of a pattern graph, is iso (one value, no array read), while
    # cuSPARSE reads a value array: the same SpMV over a matrix with one (random values, the
    # same given to cuSPARSE) is in the details, beside the summary's figure
    wvals = np.random.default_rng(SEED).random(graph.nedges).astype(np.float32)
    Av = Matrix.from_csr(graph.indptr, graph.indices, wvals, nrows=graph.n, ncols=graph.n,
                         device=A32.device)
    t_valued, yv = timer(lambda: Av.mxv(x, semiring.plus_times[FP32]).new())
    yvh = _host_vector(yv, graph.n)
    d["plus_times_valued_s"] = t_valued
    d["valued_agrees"] = _close(yvh, scipy.sparse.csr_array(
        (wvals, graph.indices, graph.indptr), shape=scipy_A.shape) @ xh)
    del Av
    summary = {}
    if d["min_plus_agrees"] and d["scipy_agrees"]:
        summary["spmv_min_plus_fp32_vs_plus_times"] = t_plus / t_min
    else:
        notes["spmv_min_plus_fp32_vs_plus_times"] = ("graphblast's SpMV differs from the "
                                                     "host reference (see details.spmv)")
    if cusparse is None:
        notes["spmv_plus_times_fp32_vs_cusparse"] = "cuSPARSE needs a GPU with CuPy; none here"
    else:
        cp = cusparse.cupy
        try:
            Ac = cusparse.csr(graph.indptr, graph.indices, np.ones(graph.nedges, np.float32))
            xc = cp.asarray(xh.astype(np.float32))
            ctimer = _Timer(cusparse.sync, timer.repeat, timer.warmup, timer.time_limit)
            t_cu, yc = ctimer(cusparse.spmv_task(Ac, xc))
            d["cusparse_s"], d["cusparse_agrees"] = t_cu, _close(cp.asnumpy(yc), yh)
        except Exception as e:  # noqa: BLE001 - noted, not fatal
            d["cusparse_error"] = _failure(e)
            notes["spmv_plus_times_fp32_vs_cusparse"] = f"cuSPARSE's SpMV failed: {_failure(e)}"
        else:
            _cusparse_valued(graph, cusparse, ctimer, wvals, xc, t_valued, yvh, d)
        if "cusparse_error" in d:
            pass
        elif d["cusparse_agrees"]:
            summary["spmv_plus_times_fp32_vs_cusparse"] = t_cu / t_plus
        else:
            notes["spmv_plus_times_fp32_vs_cusparse"] = "cuSPARSE's y differs from graphblast's"
    details["spmv"] = d
    return summary


def _cusparse_valued(graph, cusparse, ctimer, wvals, xc, t_valued, yvh, d):
    """cuSPARSE's SpMV over the graph with the values ``wvals`` into the details ``d``, beside
    graphblast's (``t_valued``, ``yvh``): a detail, so a failure is noted there alone."""
    try:
        Acv = cusparse.csr(graph.indptr, graph.indices, wvals)
        t_cv, ycv = ctimer(cusparse.spmv_task(Acv, xc))
        d["cusparse_valued_s"] = t_cv
        d["valued_vs_cusparse"] = t_cv / t_valued
        d["cusparse_valued_agrees"] = _close(cusparse.cupy.asnumpy(ycv), yvh)
    except Exception as e:  # noqa: BLE001 - noted, not fatal
        d["cusparse_valued_error"] = _failure(e)


def _udf_plus(x, y):
    return x + y


def _udf_times(x, y):
    return x * y


def _udf_mxv(A32, x, timer, details):
    """``A plus.times x`` with a user-defined semiring (``_udf_plus``, ``_udf_times``) over the
    built-in one's time; None (and a note in the details) if the results differ."""
    from graphblast import binary, monoid, semiring
    from graphblast.dtypes import FP32

    plus = monoid.register_anonymous(binary.register_anonymous(_udf_plus), 0)
    user = semiring.register_anonymous(plus, binary.register_anonymous(_udf_times))[FP32]
    builtin = semiring.plus_times[FP32]
    # interleaved, so that both see the same clocks and caches
    t_user, y_user = timer(lambda: A32.mxv(x, user).new())
    t_builtin, y_builtin = timer(lambda: A32.mxv(x, builtin).new())
    t_user2, _ = timer(lambda: A32.mxv(x, user).new())
    t_user = min(t_user, t_user2)
    n = A32.nrows
    agrees = _close(_host_vector(y_user, n), _host_vector(y_builtin, n))
    details["udf_mxv"] = {"udf_s": t_user, "builtin_s": t_builtin,
                          "udf_vs_builtin": t_user / t_builtin, "agrees": agrees}
    return t_user / t_builtin if agrees else None


def _masked_spmv(graph, A32, x, yh, timer, rng, details):
    from graphblast import Vector, semiring
    from graphblast.dtypes import BOOL, FP32

    rows = []
    plus_times = semiring.plus_times[FP32]
    nonempty = np.diff(graph.indptr) > 0
    # the pull visits only the rows the mask allows: its time should fall with the density
    unmasked_s, _ = timer(lambda: A32.mxv(x, plus_times).new())
    for density in MASK_DENSITIES:
        k = max(1, round(density * graph.n))
        idx = np.sort(rng.choice(graph.n, size=k, replace=False))
        M = Vector.from_coo(idx, True, BOOL, size=graph.n, device=graph.A.device)

        def op(M=M):
            return A32.mxv(x, plus_times).new(mask=M.S)

        want = idx[nonempty[idx]]
        masked_s, out = timer(op)
        rows.append({"mask_density": density, "mask_nvals": k,
                     "agrees": _same_vector(out, want, yh[want]), "masked_s": masked_s,
                     "vs_unmasked": masked_s / unmasked_s})
    details["masked_spmv"] = rows


def _choose(row, op):
    """Where auto lands: its choice, and its time over the better forced direction's."""
    row["auto_chose"], row["auto_reason"] = _decision(op, "direction")
    best = min(row["push_s"], row["pull_s"])
    row["auto_vs_best"] = row["auto_s"] / best
    if row["auto_chose"] in ("push", "pull"):
        # The same choice timed when forced: the choice's cost without auto's own overhead.
        row["choice_vs_best"] = row[f"{row['auto_chose']}_s"] / best


def _direction_sweep(graph, A32, scipy_A, timer, rng, details):
    from graphblast import Vector, semiring
    from graphblast.dtypes import FP32

    rows = []
    plus_times = semiring.plus_times[FP32]
    for density in FRONTIER_DENSITIES:
        k = max(1, round(density * graph.n))
        idx = np.sort(rng.choice(graph.n, size=k, replace=False))
        vals = rng.random(k).astype(np.float32)
        xs = Vector.from_coo(idx, vals, FP32, size=graph.n, device=graph.A.device)

        def op(xs=xs):
            return xs.vxm(A32, plus_times).new()

        # The expected output: the columns of the rows that x holds, with their sums.
        entry_rows, entry_cols = graph.coo()
        reached = np.unique(entry_cols[np.isin(entry_rows, idx)])
        want = dense(idx, vals, graph.n, 0.0, np.float64) @ scipy_A
        row = {"density": density, "nvals": k, "agrees": True}
        for mode in ("push", "pull", "auto"):
            row[f"{mode}_s"], out = timer(op, direction=mode)
            row[f"{mode}_host_reads"] = _host_reads_of(op, graph.A.device, direction=mode)
            row["agrees"] &= _same_vector(out, reached, want[reached])
        _choose(row, op)
        rows.append(row)
    details["direction_sweep"] = rows


def _bfs_levels(graph, timer, details):
    """Per BFS level: push, pull and auto on that level's frontier and visited set."""
    from graphblast import Vector, semiring
    from graphblast.dtypes import BOOL, INT64

    A, n, dev = graph.A, graph.n, graph.A.device
    any_pair = semiring.any_pair[BOOL]
    levels = Vector(INT64, n, device=dev)
    frontier = Vector.from_coo([graph.source], True, BOOL, size=n, device=dev)
    steps, depth = [], 0
    while frontier.nvals:
        levels(frontier.S) << depth
        steps.append((frontier.dup(), levels.dup()))
        depth += 1
        frontier(~levels.S, replace=True) << frontier.vxm(A, any_pair)
    fronts = [np.asarray(q.to_coo()[0], dtype=np.int64) for q, _ in steps]
    fronts.append(np.zeros(0, dtype=np.int64))
    rows = []
    for level, (q, visited) in enumerate(steps):
        def op(q=q, visited=visited):
            return q.vxm(A, any_pair).new(mask=~visited.S)

        row = {"level": level, "frontier": q.nvals, "visited": visited.nvals, "agrees": True}
        for mode, (seconds, out) in _interleaved(op, timer, ("push", "pull", "auto")).items():
            row[f"{mode}_s"] = seconds
            row[f"{mode}_host_reads"] = _host_reads_of(op, graph.A.device, direction=mode)
            # Each direction must produce the next level's frontier.
            row["agrees"] &= np.array_equal(np.asarray(out.to_coo()[0], dtype=np.int64),
                                            fronts[level + 1])
        _choose(row, op)
        rows.append(row)
    details["bfs_levels"] = {"graph": graph.name, "source": graph.source, "levels": rows}
    if not all(r["agrees"] for r in rows):
        return None
    return max(r["auto_vs_best"] for r in rows)


def _interleaved(op, timer, modes):
    """{direction: (median seconds, last answer)} of ``op`` under each forced ``direction``,
    the directions' runs interleaved, each round in another order: timed one direction after
    another, the host's drift within a block moved auto's time over push's on one small
    level from 0.71 to 1.80 by the order alone (H200).  Each timed run follows an
    untimed run of the same direction, so that it starts from its own cache state and not
    from the one another direction left: a pull sweeps L2 (the whole matrix on a BFS's first
    levels), and in the rotation auto followed a pull in two rounds of three and push in
    one, so auto's median was a cold-cache sample and push's a warm one.  As many rounds as ``timer`` would
    give the slowest direction (its repeat, MIN_TIME, time_limit)."""
    import graphblast as gb

    from .runner import _timed_once

    def once(mode):
        with gb.config.set(direction=mode):
            _timed_once(op, timer.sync)  # untimed: the cache state this direction leaves
            return _timed_once(op, timer.sync)

    slowest = 0.0
    for _ in range(max(timer.warmup, 1)):
        slowest = max(max(once(mode)[0] for mode in modes), 1e-9)
    rounds = max(timer.repeat, min(200, math.ceil(MIN_TIME / slowest)))
    if math.isfinite(timer.time_limit):
        rounds = max(1, min(rounds, int(timer.time_limit // (2 * slowest * len(modes)))))
    samples = {mode: [] for mode in modes}
    last = {}
    for r in range(rounds):
        for i in range(len(modes)):
            mode = modes[(r + i) % len(modes)]
            elapsed, last[mode] = once(mode)
            samples[mode].append(elapsed)
    return {mode: (float(np.median(samples[mode])), last[mode]) for mode in modes}


def _host_reads_of(op, device, **setting):
    """The synchronizations one call of ``op`` makes on a GPU (the engine counts them), None
    on the CPU: where auto costs more than the direction it chose, this tells whether the
    decision waited for the GPU."""
    if not str(device).startswith("cuda"):
        return None
    import graphblast as gb
    from graphblast.backends.cuda.blocks import host_reads

    with gb.config.set(**setting):
        before = host_reads()
        op()
        return host_reads() - before


def _spgemm_products(graph):
    """Entries of the unmasked ``L @ L'`` before merging: sum over columns of count^2."""
    rows, cols = graph.coo()
    lower = rows > cols
    counts = np.bincount(cols[lower], minlength=graph.n).astype(np.float64)
    return float((counts * counts).sum())


def _free_bytes(device):
    """Bytes new arrays can take on ``device`` now."""
    from graphblast._memory import available_bytes

    if str(device).startswith("cuda"):
        import cupy

        return available_bytes(cupy)
    return available_bytes(np)


def _failure(e):
    from .runner import describe_failure

    return describe_failure(e)["reason"]


def _masked_spgemm(graph, data_dir, timer, cusparse, progress, details, notes):
    """Masked SpGEMM against cuSPARSE's SpGEMM + mask on the largest kron cuSPARSE can do.

    Starts from the largest kron (at most ``graph``) whose unmasked product fits in a quarter
    of the free memory; where cuSPARSE fails there (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES,
    out of memory), the failure is noted and both run again one scale smaller.
    """
    import scipy.sparse as sp

    from graphblast import select, semiring
    from graphblast.dtypes import FP32

    from .runner import recover_memory

    device = graph.A.device
    budget = _free_bytes(device) / 4
    failures = []
    d = {"cusparse_failures": failures}
    details["masked_spgemm"] = d
    summary = {}
    while True:
        products = _spgemm_products(graph)
        if products * SPGEMM_BYTES_PER_PRODUCT <= budget:
            break
        spec = graph.spec.scaled(-1)
        progress.note(f"primitives: {graph.name}'s unmasked L @ L' would have "
                      f"{products:.3g} entries before merging; trying {spec.name}")
        if spec.size < 4:
            notes["masked_spgemm_vs_cusparse"] = ("no kron graph small enough for the "
                                                  "unmasked product")
            return {}
        graph = None
        graph = graphs.build(spec, device, data_dir)
    plus_times = semiring.plus_times[FP32]
    while True:
        progress.start(f"primitives: masked SpGEMM on {graph.name}")
        L = select.tril(graph.A.dup(FP32), -1).new()

        def masked(L=L):
            return L.mxm(L.T, plus_times).new(mask=L.S)

        t_gb, C = timer(masked)
        total = C.reduce_scalar().new().value or 0.0
        del C
        d.update(graph=graph.name, unmasked_products=products, masked_s=t_gb,
                 triangles=float(total))
        d.setdefault("largest", {"graph": graph.name, "masked_s": t_gb})
        if cusparse is None:
            # SciPy stands in on a machine without cuSPARSE (one core: skipped next to a
            # GPU, where it would take minutes on the product sizes that fit there).
            Ls = sp.tril(graph.csr(), -1, format="csr").astype(np.float32)
            LsT = Ls.T.tocsr()
            t_sp, Cs = timer(lambda: (Ls @ LsT).multiply(Ls))
            d.update(scipy_then_mask_s=t_sp, scipy_agrees=_close(Cs.sum(), total),
                     vs_scipy=t_gb / t_sp)
            notes["masked_spgemm_vs_cusparse"] = "cuSPARSE needs a GPU with CuPy; none here"
            return summary
        rows, cols = graph.coo()
        keep = rows > cols
        indptr = np.r_[0, np.cumsum(np.bincount(rows[keep], minlength=graph.n))]
        try:
            Lc = cusparse.csr(indptr, cols[keep], np.ones(int(keep.sum()), np.float32))
            ctimer = _Timer(cusparse.sync, timer.repeat, timer.warmup, timer.time_limit)
            t_cu, Cc = ctimer(cusparse.spgemm_then_mask_task(Lc, Lc))
            agrees = _close(float(Cc.sum()), total)
            del Cc, Lc
        except Exception as e:  # noqa: BLE001 - noted; a smaller graph is tried
            Lc = Cc = None
            recover_memory(device)
            failures.append({"graph": graph.name, "reason": _failure(e)})
            progress.note(f"primitives: cuSPARSE's SpGEMM failed on {graph.name}: "
                          f"{failures[-1]['reason']}")
            spec = graph.spec.scaled(-1)
            if spec.size < 4:
                notes["masked_spgemm_vs_cusparse"] = ("cuSPARSE's SpGEMM failed on every "
                                                      "size tried (see details)")
                return summary
            graph = L = None
            graph = graphs.build(spec, device, data_dir)
            products = _spgemm_products(graph)
            continue
        d["cusparse_then_mask_s"] = t_cu
        d["cusparse_agrees"] = agrees
        if agrees:
            summary["masked_spgemm_vs_cusparse"] = t_cu / t_gb
            if failures:
                notes["masked_spgemm_vs_cusparse"] = (
                    f"on {graph.name}, the largest kron cuSPARSE's SpGEMM could do (it failed "
                    f"on {', '.join(f['graph'] for f in failures)})")
        else:
            notes["masked_spgemm_vs_cusparse"] = "cuSPARSE's product differs from graphblast's"
        return summary


def run_primitives(spec, device, *, repeat, warmup, time_limit, cusparse, progress,
                   data_dir=None, bfs_graphs=(), sections=SECTIONS):
    """Measure the primitives on the kron graph ``spec``; returns primitives.json's content.

    Parameters
    ----------
    spec : GraphSpec
        A ``kron`` graph.
    device : str
        graphblast's device.
    repeat, warmup : int
    time_limit : float
        Per measurement, as in the main suite.
    cusparse : CuSparse or None
        The loaded cuSPARSE peer, or None where there is no GPU with CuPy.
    progress : Progress
    bfs_graphs : sequence of GraphSpec
        The graphs of the BFS comparison with the naive yardstick (the run's default graphs).
    sections : collection of str
        Which of ``SECTIONS`` to measure; the summary keys of the others are noted as not
        measured in this run.
    """
    from graphblast import Vector
    from graphblast.dtypes import FP32

    from .peers._base import synchronize_device
    from .runner import recover_memory

    timer = _Timer(lambda: synchronize_device(device), repeat, warmup, time_limit)
    rng = np.random.default_rng(SEED)
    details, notes, summary = {}, {}, {}
    progress.start(f"primitives: building {spec.name}")
    graph = graphs.build(spec, device, data_dir)
    A32 = graph.A.dup(FP32)
    xh = rng.random(graph.n).astype(np.float32)
    x = Vector.from_dense(xh, dtype=FP32, device=device)
    scipy_A = graph.csr().astype(np.float32)

    def section(name, keys, fn):
        """Run one measurement; a failure is a note on its keys, and the rest goes on."""
        if name not in sections:
            for key in keys:
                notes.setdefault(key, f"not measured in this run (--primitives "
                                      f"{','.join(sections)})")
            return None
        name = SECTIONS[name]
        progress.start(f"primitives: {name} on {graph.name}")
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - a failing primitive must not end the run
            recover_memory(device)
            reason = _failure(e)
            details.setdefault("errors", {})[name] = reason
            progress.note(f"primitives: {name} failed: {reason}")
            for key in keys:
                notes.setdefault(key, f"{name} failed: {reason}")
            return None

    got = section("spmv", ("spmv_plus_times_fp32_vs_cusparse",
                           "spmv_min_plus_fp32_vs_plus_times"),
                  lambda: _spmv(graph, A32, x, xh, timer, cusparse, scipy_A, details, notes))
    summary.update(got or {})
    key = "udf_mxv_vs_builtin"
    ratio = section("udf", (key,), lambda: _udf_mxv(A32, x, timer, details))
    if ratio is None:  # a failure's note, else:
        notes.setdefault(key, "the user-defined semiring's y differs from the built-in's")
    summary[key] = ratio
    yh = scipy_A @ xh.astype(np.float64)
    section("masked-spmv", (), lambda: _masked_spmv(graph, A32, x, yh, timer, rng, details))
    section("direction", (),
            lambda: _direction_sweep(graph, A32, scipy_A, timer, rng, details))
    key = "auto_direction_worst_level_ratio"
    worst = section("bfs-levels", (key,), lambda: _bfs_levels(graph, timer, details))
    if worst is None:  # a failure's note, else:
        notes.setdefault(key, "a BFS level's output differs between push, pull and auto "
                              "(see details)")
    summary[key] = worst
    described = graph.describe()
    del A32, x, scipy_A
    got = section("spgemm", ("masked_spgemm_vs_cusparse",),
                  lambda: _masked_spgemm(graph, data_dir, timer, cusparse, progress, details,
                                         notes))
    summary.update(got or {})
    key = "bfs_vs_naive_min"
    got = section("yardstick", (key,),
                  lambda: _naive_yardstick(bfs_graphs, device, data_dir, timer, details, notes))
    summary[key] = got
    progress.advance(f"primitives on {spec.name} done")
    return {
        "graph": described,
        "device": device,
        "summary": {k: summary.get(k) for k in SUMMARY_KEYS},
        "summary_notes": {k: notes[k] for k in SUMMARY_KEYS if k in notes},
        "definitions": {
            "spmv_plus_times_fp32_vs_cusparse": ("cuSPARSE SpMV time / graphblast SpMV time "
                                                 "(above 1: graphblast faster)"),
            "spmv_min_plus_fp32_vs_plus_times": ("graphblast plus.times SpMV time / min.plus "
                                                 "SpMV time (1: min.plus as fast)"),
            "masked_spgemm_vs_cusparse": ("(cuSPARSE L L', then mask) time / graphblast "
                                          "C<L> = L L' time (above 1: graphblast faster)"),
            "bfs_vs_naive_min": ("min over the default graphs of the naive CUDA BFS's time "
                                 "/ graphblast's BFS time (below 1: the yardstick faster)"),
            "auto_direction_worst_level_ratio": ("max over BFS levels of auto time / "
                                                 "min(push, pull) time (1: the best choice)"),
            "udf_mxv_vs_builtin": ("SpMV time with a user-defined plus.times semiring "
                                   "(Python functions) / with the built-in one (1: as fast)"),
        },
        "details": details,
    }


YARDSTICK = ("benchmarks", "yardsticks", "naive_bfs.py")


def _load_yardstick():
    """The naive BFS module of the repository's ``benchmarks/yardsticks`` (a checkout only)."""
    import importlib.util
    import os

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    path = os.path.join(root, *YARDSTICK)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{'/'.join(YARDSTICK)} is not here (an installed package "
                                "without the repository's benchmarks/)")
    spec = importlib.util.spec_from_file_location("graphblast_naive_bfs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _naive_yardstick(specs, device, data_dir, timer, details, notes):
    """graphblast's BFS and the naive yardstick on each graph of ``specs``: their times, how
    graphblast's loop ran and its host reads, whether their levels agree; returns the
    smallest yardstick time over graphblast time (None where a pair disagrees or on the CPU)."""
    key = "bfs_vs_naive_min"
    if not str(device).startswith("cuda"):
        notes[key] = "the yardstick is a CUDA kernel: GPU runs only"
        return None
    import cupy

    from graphblast.algorithms import bfs
    from graphblast.backends.cuda import blocks, loops

    naive = _load_yardstick()
    rows, ratios = [], {}
    for spec in specs:
        graph = graphs.build(spec, device, data_dir)
        yard = naive.NaiveBFS(graph.indptr, graph.indices)
        naive_s, levels = timer(lambda: yard.run(graph.source))
        want = cupy.asnumpy(levels).astype(np.int64)
        ours_s, got = timer(lambda: bfs(graph.A, graph.source))
        reads = blocks.host_reads()
        got = bfs(graph.A, graph.source)
        reads = blocks.host_reads() - reads
        idx, vals = got.to_coo()
        mine = np.full(graph.n, -1, dtype=np.int64)
        mine[np.asarray(idx, dtype=np.int64)] = np.asarray(vals, dtype=np.int64)
        row = {"graph": graph.name, "source": graph.source, "levels": yard.levels_run,
               "naive_s": naive_s, "graphblast_s": ours_s, "naive_vs_graphblast":
               naive_s / ours_s, "agrees": bool(np.array_equal(mine, want)),
               "graphblast_host_reads": reads, "graphblast_loop": dict(loops.stats)}
        rows.append(row)
        if row["agrees"]:
            ratios[graph.name] = row["naive_vs_graphblast"]
        del graph, yard, levels, got
    details["bfs_vs_naive"] = rows
    if len(ratios) < len(rows) or not rows:
        bad = [r["graph"] for r in rows if not r["agrees"]]
        notes[key] = (f"levels differ on {', '.join(bad)}" if bad else "no graph measured")
        return None
    worst = min(ratios, key=ratios.get)
    notes[key] = f"on {worst}, the smallest over {', '.join(ratios)}"
    return ratios[worst]
