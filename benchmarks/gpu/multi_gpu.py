"""Does the device-group backend give one GPU's answers on several GPUs, and how much faster is
it (docs/distributed.md)?  One process drives every GPU (device="cuda:0-(N-1)"), the
algorithms unchanged.  Steps, each guarded (a failure is recorded with its traceback and the
script goes on), the results written to DIR/multi_gpu.json after every step and a log to
DIR/multi_gpu.log:

  env       versions, the GPUs, NCCL's version, which GPU pairs have peer access
  comm      the NCCL communicator on the GPUs against NumPy (uneven and empty parts, every
            dtype, moves in pieces, one move of more than 2^31 items), allgather bandwidth,
            allreduce latency
  gencheck  the per-GPU kron builder of the `big` step at a small scale: with GAP's own
            permutation it must give kron(scale) exactly, with the relabelling an
            isomorphic graph (same entries, same degree sequence)
  check     BFS (levels and parents), SSSP (integer weights), PageRank (20 fixed
            iterations), CC and TC on kron-CHECK_SCALE on cuda:0 and on the group: answers
            identical (PageRank within an L1 distance of 1e-9)
  pagerank  PageRank per iteration on kron-27 on one GPU and on groups of 2, 4, ... GPUs
            (the target: 4 GPUs at least 3x faster than one), the answers compared; BFS and
            CC there too, compared, while the deadline allows
  big       GAP-kron scale 30 (about 34 billion stored entries) built on the group, each GPU
            generating its own rows; BFS, PageRank and CC with their times and consistency
            checks (BFS reaches the source's component; PageRank sums to 1)

    python3 benchmarks/gpu/multi_gpu.py --out $OUT/multi [--gpus 4] [--steps env,comm,...]
        [--deadline 560]

`--dry` runs the same steps on CPU partitions ("cpu:0-3" against "cpu") with tiny graphs,
to check the script on a machine without GPUs:

    PYTHONPATH=src .venv/bin/python benchmarks/gpu/multi_gpu.py --dry --out /tmp/multi

The big graph's vertex ids: GAP's kron permutes them with std::shuffle, whose draws are one
sequential stream made on the host (about 2^26 rejections at scale 30: far too slow for a
timed run), so by default the big graph relabels GAP's R-MAT edges with a bijection of
[0, 2^scale) computed on each GPU (a Feistel network) instead: the same edges up to a
renaming of the vertices, i.e. a graph isomorphic to GAP's kron-30 (same entries, degrees,
components), with all 2^scale vertices.  `--big-permutation gap` uses GAP's shuffle.
"""

import argparse
import contextlib
import datetime
import faulthandler
import gc
import json
import logging
import os
import platform
import subprocess
import sys
import threading
import time
import traceback

import numpy as np

# NVLink multicast stays off in NCCL (the device machines' rule: it can take the host's GPUs
# out of service); set before CuPy loads NCCL
os.environ["NCCL_NVLS_ENABLE"] = "0"

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
if os.path.join(REPO, "src") not in sys.path and not os.environ.get("MULTI_NO_SRC_PATH"):
    sys.path.insert(0, os.path.join(REPO, "src"))

STEPS = ("env", "comm", "gencheck", "check", "pagerank", "big")
# The least time (seconds) a step is started with; a step that would start with less is
# recorded as skipped.
NEED = {"env": 1, "comm": 20, "gencheck": 20, "check": 60, "pagerank": 120, "big": 240}

log = logging.getLogger("multi_gpu")


# -- arguments ---------------------------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="The device-group backend on several GPUs: answers against one GPU, "
                    "PageRank scaling on kron-27, GAP-kron scale 30 on the group.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/out"),
                   help="folder for multi_gpu.json and multi_gpu.log")
    p.add_argument("--gpus", type=int, default=None,
                   help="GPUs of the group cuda:0-(N-1) (default: all visible; 4 with --dry)")
    p.add_argument("--steps", default=",".join(STEPS),
                   help=f"comma-separated steps, run in this order: {','.join(STEPS)}")
    p.add_argument("--deadline", type=float, default=float(os.environ.get("DEADLINE", 560)),
                   help="seconds from the start after which no step or measurement starts "
                        "(a running build stops at its next chunk)")
    p.add_argument("--check-scale", type=int, default=20,
                   help="kron scale of the answer check (BFS, SSSP, PageRank, CC)")
    p.add_argument("--tc-scale", type=int, default=18, help="kron scale of the TC check")
    p.add_argument("--gencheck-scale", type=int, default=16,
                   help="kron scale of the per-GPU builder's check against kron()")
    p.add_argument("--pr-scale", type=int, default=27, help="kron scale of the PageRank step")
    p.add_argument("--pr-groups", default="2,4,8",
                   help="group sizes of the PageRank step (those above --gpus are left out; "
                        "--gpus itself is always measured)")
    p.add_argument("--pr-iters", type=int, default=10,
                   help="PageRank iterations timed beyond the first 5 (per iteration = "
                        "(t(5 + K) - t(5)) / K)")
    p.add_argument("--pr-extra", default="bfs,cc",
                   help="algorithms also run and compared on the PageRank step's graph, on "
                        "the largest group, while time allows ('' for none)")
    p.add_argument("--big-scale", type=int, default=30, help="kron scale of the big step")
    p.add_argument("--big-gpus", type=int, default=4,
                   help="GPUs of the big step's group (at most --gpus)")
    p.add_argument("--big-permutation", choices=("feistel", "gap"), default="feistel",
                   help="vertex ids of the big graph: a bijection computed on each GPU "
                        "(isomorphic to GAP's graph), or GAP's own shuffle (host-bound)")
    p.add_argument("--big-iters", type=int, default=10,
                   help="PageRank iterations timed on the big graph beyond the first 3")
    p.add_argument("--words", type=int, default=1 << 29,
                   help="random words per generated chunk in the per-GPU builder")
    p.add_argument("--dry", action="store_true",
                   help="CPU partitions and tiny graphs: check the script without GPUs")
    args = p.parse_args(argv)
    args.steps = [s for s in args.steps.split(",") if s]
    bad = [s for s in args.steps if s not in STEPS]
    if bad:
        p.error(f"unknown steps {bad}; known: {', '.join(STEPS)}")
    if args.dry:
        args.check_scale = min(args.check_scale, 10)
        args.tc_scale = min(args.tc_scale, 9)
        args.gencheck_scale = min(args.gencheck_scale, 9)
        args.pr_scale = min(args.pr_scale, 12)
        args.big_scale = min(args.big_scale, 13)
        args.words = min(args.words, 1 << 16)
    return args


# -- the record ----------------------------------------------------------------------------------

class Record:
    """multi_gpu.json, rewritten whole (atomically) after every change."""

    def __init__(self, out, args):
        self.path = os.path.join(out, "multi_gpu.json")
        self.doc = {"script": "benchmarks/gpu/multi_gpu.py", "argv": sys.argv[1:],
                    "options": {k: v for k, v in vars(args).items()},
                    "started": _now(), "steps": {}, "summary": {}}
        self.save()

    def save(self):
        self.doc["saved"] = _now()
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.doc, f, indent=1, default=_jsonable)
        os.replace(tmp, self.path)

    def step(self, name):
        return self.doc["steps"].setdefault(name, {})


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _jsonable(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


class Clock:
    def __init__(self, deadline):
        self.start = time.monotonic()
        self.deadline = self.start + deadline

    def left(self):
        return self.deadline - time.monotonic()

    def elapsed(self):
        return time.monotonic() - self.start


class OutOfTime(Exception):
    pass


# -- devices -------------------------------------------------------------------------------------

class Setup:
    """The devices of the run: ``one`` (a single device), ``group(n)`` (n members)."""

    def __init__(self, args):
        self.dry = args.dry
        if self.dry:
            self.kind = "cpu"
            self.ngpus = args.gpus or 4
        else:
            import cupy

            self.kind = "cuda"
            visible = cupy.cuda.runtime.getDeviceCount()
            self.ngpus = min(args.gpus or visible, visible)
        self.one = "cpu" if self.dry else "cuda:0"

    def group(self, n):
        if n < 2:
            return self.one
        return f"{self.kind}:0-{n - 1}"

    def sync(self, device):
        from graphblast.backends import get_backend

        sync = getattr(get_backend(device), "synchronize", None)
        if sync is not None:
            sync()

    def free(self):
        gc.collect()
        if self.dry:
            return
        import cupy

        for i in range(self.ngpus):
            with cupy.cuda.Device(i):
                cupy.get_default_memory_pool().free_all_blocks()

    def memory(self):
        """Per GPU: GiB in use by CuPy's pool, GiB free on the device."""
        if self.dry:
            return []
        import cupy

        out = []
        for i in range(self.ngpus):
            with cupy.cuda.Device(i):
                free, total = cupy.cuda.runtime.memGetInfo()
                pool = cupy.get_default_memory_pool()
                out.append({"gpu": i, "pool_used_gib": round(pool.used_bytes() / 2**30, 2),
                            "pool_held_gib": round(pool.total_bytes() / 2**30, 2),
                            "free_gib": round(free / 2**30, 2),
                            "total_gib": round(total / 2**30, 2)})
        return out


def timed(setup, device, fn):
    """(result, seconds) of ``fn()``, the device (every member of a group) synchronized
    before and after."""
    setup.sync(device)
    t0 = time.perf_counter()
    out = fn()
    setup.sync(device)
    return out, time.perf_counter() - t0


def traffic(device):
    from graphblast.backends import get_backend
    from graphblast.backends.group.devices import is_group_name

    if not is_group_name(device):
        return None
    return get_backend(device).comm.traffic()


def reset_traffic(device):
    from graphblast.backends import get_backend
    from graphblast.backends.group.devices import is_group_name

    if is_group_name(device):
        get_backend(device).comm.reset()


def place(A, device):
    """A on ``device`` (GPU to GPU for a group; see graphblast.backends.group.place)."""
    from graphblast.backends.group import place as group_place

    return group_place(A, device)


def compare(expected, got, l1=None):
    """Whether two Vectors (or scalars) hold the same answer: the same structure and equal
    values, or values within an L1 distance ``l1``.  A dict for the record."""
    from graphblast import Vector

    if not isinstance(expected, Vector):
        return {"equal": bool(expected == got), "expected": expected, "got": got}
    ei, ev = expected.to_coo()
    gi, gv = got.to_coo()
    out = {"nvals": [int(ei.shape[0]), int(gi.shape[0])],
           "dtypes": [str(ev.dtype), str(gv.dtype)]}
    if ei.shape != gi.shape or not np.array_equal(ei, gi):
        out.update(equal=False, why="structure differs")
        return out
    if l1 is None:
        diff = np.flatnonzero(ev != gv)
        out.update(equal=bool(diff.size == 0 and ev.dtype == gv.dtype),
                   mismatches=int(diff.size), first=diff[:5].tolist())
        return out
    dist = float(np.abs(ev.astype(np.float64) - gv.astype(np.float64)).sum())
    out.update(equal=bool(dist <= l1), l1=dist, l1_limit=l1)
    return out


def source_of(A):
    """A vertex of the largest degree (host int): BFS and SSSP start there."""
    d = A._data
    xp = np if isinstance(d.indptr, np.ndarray) else __import__("cupy")
    return int(xp.argmax(xp.diff(d.indptr)))


# -- the steps ----------------------------------------------------------------------------------

def step_env(args, setup, rec, clock):
    info = {"python": sys.version.split()[0], "platform": platform.platform(),
            "numpy": np.__version__, "dry": args.dry, "gpus_used": setup.ngpus,
            "nccl_env": {k: v for k, v in os.environ.items()
                         if k.startswith(("NCCL_", "CUDA_", "CUPY_"))}}
    try:
        info["commit"] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, text=True,
                                        capture_output=True, timeout=10).stdout.strip()
    except Exception:  # noqa: BLE001 - no git there: the record says so
        info["commit"] = None
    import graphblast

    info["graphblast"] = getattr(graphblast, "__version__", None)
    if not setup.dry:
        import cupy

        info["cupy"] = cupy.__version__
        info["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
        info["cuda_driver"] = cupy.cuda.runtime.driverGetVersion()
        visible = cupy.cuda.runtime.getDeviceCount()
        info["gpus_visible"] = visible
        info["devices"] = []
        for i in range(visible):
            props = cupy.cuda.runtime.getDeviceProperties(i)
            name = props["name"]
            info["devices"].append({"id": i, "name": name.decode() if isinstance(name, bytes)
                                    else name, "memory_gib": round(props["totalGlobalMem"]
                                                                   / 2**30, 1)})
        info["peer_access"] = [[bool(i == j or cupy.cuda.runtime.deviceCanAccessPeer(i, j))
                                for j in range(visible)] for i in range(visible)]
        from cupy.cuda import nccl

        info["nccl_available"] = bool(getattr(nccl, "available", False))
        if info["nccl_available"]:
            info["nccl_version"] = nccl.get_version()
        try:
            out = subprocess.run(["nvidia-smi", "topo", "-m"], text=True, capture_output=True,
                                 timeout=20)
            info["topology"] = out.stdout.splitlines()[:20]
        except Exception as e:  # noqa: BLE001 - informative only
            info["topology"] = f"nvidia-smi topo failed: {e}"
    rec.step("env").update(info)
    log.info("env: %s", {k: v for k, v in info.items() if k not in ("topology",)})


def step_comm(args, setup, rec, clock):
    """The NCCL communicator against NumPy on the GPUs, then its speed."""
    out = rec.step("comm")
    if setup.dry:
        out["why"] = "NCCL needs GPUs"
        return "skipped"
    import cupy as cp

    from graphblast.backends import get_backend
    from graphblast.backends.group import nccl as nccl_module
    from graphblast.backends.group.comm import NumpyCommunicator

    name = setup.group(setup.ngpus)
    t0 = time.perf_counter()
    comm = get_backend(name).comm
    out["group"] = name
    out["init_s"] = time.perf_counter() - t0
    log.info("comm: %s communicators made in %.2f s", name, out["init_s"])
    p = comm.size
    host = NumpyCommunicator("host", p)
    rng = np.random.default_rng(17)

    def on(rank, array):
        with cp.cuda.Device(comm._devices[rank]):
            return cp.asarray(array)

    def check_all(piece):
        saved = nccl_module._PIECE
        if piece:
            nccl_module._PIECE = piece
        try:
            for dtype in (np.int64, np.int32, np.float64, np.float32, np.bool_, np.uint8):
                parts = [rng.integers(0, 100, int(rng.integers(0, 50))).astype(dtype)
                         for _ in range(p)]
                parts[-1] = parts[-1][:0]
                got = comm.allgather([on(r, x) for r, x in enumerate(parts)])
                for r, (g, w) in enumerate(zip(got, host.allgather(parts))):
                    assert g.device.id == comm._devices[r], "allgather result misplaced"
                    assert np.array_equal(cp.asnumpy(g), w), f"allgather {dtype} to {r}"
                buckets = [[rng.integers(0, 100, int(rng.integers(0, 20))).astype(dtype)
                            for _ in range(p)] for _ in range(p)]
                got = comm.alltoallv([[on(s, b) for b in row] for s, row in enumerate(buckets)])
                for d, (grow, wrow) in enumerate(zip(got, host.alltoallv(buckets))):
                    for s, (g, w) in enumerate(zip(grow, wrow)):
                        assert np.array_equal(cp.asnumpy(g), w), f"alltoallv {dtype} {s}->{d}"
            for dtype in (np.int64, np.float64, np.bool_):
                values = [rng.integers(0, 3, 4).astype(dtype) for _ in range(p)]
                for op in ("sum", "prod", "min", "max"):
                    got = comm.allreduce([on(r, x) for r, x in enumerate(values)], op)
                    for g, w in zip(got, host.allreduce(values, op)):
                        assert np.array_equal(cp.asnumpy(g), w), f"allreduce {op} {dtype}"
        finally:
            nccl_module._PIECE = saved

    check_all(None)
    check_all(7)
    out["collectives_match_numpy"] = True
    log.info("comm: allgather, alltoallv, allreduce match NumPy (also in pieces of 7)")
    setup.sync(name)

    # one allgather in which member 0's part has more than 2^31 items (uint8): its broadcast
    # goes in pieces of 2^30 (CuPy's older bindings take a C int)
    counts = [(1 << 31) + 5] + [1000 + r for r in range(1, p)]
    total = sum(counts)
    parts = []
    for r in range(p):
        with cp.cuda.Device(comm._devices[r]):
            parts.append(cp.full(counts[r], (r * 37 + 11) % 251, dtype=cp.uint8))
    got, seconds = timed(setup, name, lambda: comm.allgather(parts))
    offsets = np.concatenate([[0], np.cumsum(counts)])
    ok = True
    for d in range(p):
        with cp.cuda.Device(comm._devices[d]):
            for r in range(p):
                piece = got[d][int(offsets[r]):int(offsets[r + 1])]
                ok &= bool((piece == (r * 37 + 11) % 251).all())
    out["allgather_over_2e31_items"] = {"items": total, "ok": ok, "seconds": seconds}
    log.info("comm: allgather of %d bytes (one part of %d): %s in %.3f s", total, counts[0],
             "ok" if ok else "WRONG", seconds)
    del got, parts
    setup.free()

    # bandwidth of the PageRank allgather: 2^27 float64 (1 GiB) split in p parts
    n = 1 << 27
    parts = []
    for r in range(p):
        with cp.cuda.Device(comm._devices[r]):
            parts.append(cp.full(n // p, float(r), dtype=cp.float64))
    comm.allgather(parts)
    runs = []
    for _ in range(5):
        _, s = timed(setup, name, lambda: comm.allgather(parts))
        runs.append(s)
    best = min(runs)
    out["allgather_1gib"] = {"seconds": runs, "received_gb_per_gpu_per_s":
                             (n - n // p) * 8 / best / 1e9}
    log.info("comm: allgather of 1 GiB: %.2f ms (%.0f GB/s received per GPU)", best * 1e3,
             out["allgather_1gib"]["received_gb_per_gpu_per_s"])
    del parts
    ones = [on(r, np.ones(1, np.int64)) for r in range(p)]
    comm.allreduce(ones, "sum")
    setup.sync(name)
    t0 = time.perf_counter()
    for _ in range(100):
        got = comm.allreduce(ones, "sum")
        cp.asnumpy(got[0])
    out["allreduce_one_value_us"] = (time.perf_counter() - t0) / 100 * 1e6
    log.info("comm: allreduce of one value, read on the host: %.1f us",
             out["allreduce_one_value_us"])
    comm.reset()
    setup.free()


# -- the per-GPU kron builder -------------------------------------------------------------------

def feistel_ids(xp, ids, bits, seed):
    """A bijection of [0, 2^bits) applied to ``ids`` (uint64): a 4-round Feistel network
    on two halves of ceil(bits / 2) bits, cycle-walking back into range when ``bits`` is
    odd.  The same on NumPy and CuPy."""
    h = (bits + 1) // 2
    mask = np.uint64((1 << h) - 1)
    limit = np.uint64(1 << bits)
    keys = [np.uint64((seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019 * (r + 1))
                      & 0xFFFFFFFFFFFFFFFF) for r in range(4)]
    c1, c2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
    s29, s32, sh = np.uint64(29), np.uint64(32), np.uint64(h)

    def once(x):
        left, right = x >> sh, x & mask
        for k in keys:
            z = (right + k) * c1
            z ^= z >> s29
            z *= c2
            z ^= z >> s32
            left, right = right, left ^ (z & mask)
        return (left << sh) | right

    with np.errstate(over="ignore"):
        out = once(ids.astype(xp.uint64))
        while True:  # cycle walking: values past 2^bits go round again
            bad = xp.flatnonzero(out >= limit)
            if bad.shape[0] == 0:
                return out
            out[bad] = once(out[bad])


def _feistel_table(xp, n, bits, seed, chunk=1 << 26):
    """The int32 table of feistel_ids over [0, n), built in chunks."""
    table = xp.empty(n, dtype=xp.int32)
    for lo in range(0, n, chunk):
        hi = min(lo + chunk, n)
        table[lo:hi] = feistel_ids(xp, xp.arange(lo, hi, dtype=xp.uint64), bits,
                                   seed).astype(xp.int32)
    return table


@contextlib.contextmanager
def _permutation(kind, scale):
    """gap._edge_source with the vertex permutation ``kind``: "feistel" (computed where the
    edges are made), or "gap" (GAP's shuffle: its host draws made once for all GPUs)."""
    from graphblast.generators import gap
    from graphblast.generators._shuffle import apply_swaps, swap_targets

    original = gap.shuffled_ids
    lock = threading.Lock()
    targets = {}

    def feistel(xp, n, seed, dtype=np.int64):
        return _feistel_table(xp, n, scale, seed).astype(dtype, copy=False)

    def shuffle(xp, n, seed, dtype=np.int64):
        with lock:
            if (n, seed) not in targets:
                targets[(n, seed)] = swap_targets(n, seed)
        return apply_swaps(xp, xp.asarray(targets[(n, seed)])).astype(dtype, copy=False)

    gap.shuffled_ids = feistel if kind == "feistel" else shuffle
    try:
        yield
    finally:
        gap.shuffled_ids = original


def build_rows(xp, scale, degree, lo, hi, words, budget, deadline, progress):
    """Rows lo..hi-1 of kron(scale, degree) (with gap.shuffled_ids as patched), as int64
    indptr and int32 sorted column ids on ``xp``: every generated edge is made here and the
    ones whose row (either direction) falls in the block are kept, then GAP's builder
    (self-loops and duplicates removed) runs on them."""
    from graphblast.generators import _csr, gap

    n = 1 << scale
    source = gap._edge_source(xp, "kron", scale, degree, gap.GAP_SEED, "uint32", False, words)
    chunks = [0]

    def mine():
        for u, v, _ in source():
            if time.monotonic() > deadline:
                raise OutOfTime(f"rows {lo}-{hi}: the deadline came during generation "
                                f"(chunk {chunks[0]})")
            chunks[0] += 1
            if progress is not None and chunks[0] % 200 == 0:
                progress(chunks[0])
            rows = xp.concatenate([u, v])
            cols = xp.concatenate([v, u])
            del u, v
            keep = (rows >= lo) & (rows < hi)
            yield rows[keep], cols[keep], None

    csr = _csr.build_csr(xp, mine, n, symmetrize=False, weighted=False, budget=budget,
                         nrows_from_max_id=False)
    indptr = csr.indptr[lo:hi + 1] - csr.indptr[lo]  # a copy: the whole indptr goes
    return indptr, csr.indices, chunks[0]


def build_kron_on_group(setup, device, scale, degree, permutation, words, deadline,
                        name=None, threads=True):
    """kron(scale) on the group ``device``, each member building its own block of rows
    (one thread per member, or one member after the other; equal blocks of vertex ids,
    which the permutation balances): (Matrix, seconds per member)."""
    from graphblast import Matrix
    from graphblast.backends import get_backend
    from graphblast.backends.base import CSR
    from graphblast.config import config
    from graphblast.dtypes import BOOL
    from graphblast.backends.group.storage import positional_bounds

    backend = get_backend(device)
    p = backend.size
    n = 1 << scale
    bounds = positional_bounds(n, p)
    parts, errors, seconds = [None] * p, [None] * p, [None] * p
    budget = 1 << 28 if not setup.dry else 1 << 14

    def work(k):
        member = backend.members[k]
        t0 = time.perf_counter()
        try:
            with backend.scope(k):
                if getattr(member, "device_id", None) is None:
                    xp = np
                else:
                    import cupy as xp
                lo, hi = int(bounds[k]), int(bounds[k + 1])

                def progress(c):
                    log.info("  member %d: %d chunks generated (%.0f s)", k, c,
                             time.perf_counter() - t0)

                indptr, indices, nchunks = build_rows(xp, scale, degree, lo, hi, words,
                                                      budget, deadline, progress)
                policy = config["compact_graphs"]
                compact = policy == "always" or (policy == "auto" and xp is not np)
                if compact:
                    part = CSR(hi - lo, n, BOOL, indptr, indices, None, iso_value=np.bool_(True))
                else:
                    part = CSR(hi - lo, n, BOOL, indptr, indices.astype(np.int64),
                               xp.ones(indices.shape[0], dtype=np.bool_))
                if xp is not np:
                    xp.cuda.get_current_stream().synchronize()
                parts[k] = part
                log.info("  member %d: rows %d-%d, %d entries, %d chunks, %.1f s", k, lo, hi,
                         int(indices.shape[0]), nchunks, time.perf_counter() - t0)
        except BaseException as e:  # noqa: BLE001 - reported by the caller
            errors[k] = e
        seconds[k] = time.perf_counter() - t0

    with _permutation(permutation, scale):
        if not threads:
            for k in range(p):
                work(k)
        else:
            running = [threading.Thread(target=work, args=(k,), name=f"build-{k}")
                       for k in range(p)]
            for t in running:
                t.start()
            for t in running:
                t.join()
    for k, e in enumerate(errors):
        if e is not None:
            raise RuntimeError(f"member {k} failed to build its rows: {e!r}") from e
    data = backend.place_blocks(n, n, BOOL, parts, bounds, symmetric=True)
    return Matrix._from_data(data, backend, device, name or f"kron{scale}"), seconds


def step_gencheck(args, setup, rec, clock):
    """The per-member builder at a small scale: GAP's permutation gives kron() exactly, the
    relabelling an isomorphic graph."""
    from graphblast.generators import kron

    out = rec.step("gencheck")
    s = args.gencheck_scale
    device = setup.group(setup.ngpus)
    K = kron(s, device="cpu")
    k_ptr, k_idx, _ = K.to_csr()
    out["scale"], out["group"], out["kron_nvals"] = s, device, K.nvals
    for perm in ("gap", "feistel"):
        # GAP's first, one member after the other: every GPU compiles the generator's
        # kernels before threads share them
        G, secs = build_kron_on_group(setup, device, s, 16, perm, args.words,
                                      clock.deadline, threads=perm == "feistel")
        g_ptr, g_idx, _ = G.to_csr()
        res = {"seconds_per_member": secs, "nvals": G.nvals}
        if perm == "gap":
            nr = K.nrows  # GAP sizes its graph by the largest vertex id
            res["identical_to_kron"] = bool(
                G.nvals == K.nvals and np.array_equal(g_ptr[:nr + 1], k_ptr)
                and np.all(g_ptr[nr:] == K.nvals) and np.array_equal(g_idx, k_idx))
        else:
            res["same_nvals"] = G.nvals == K.nvals
            res["same_degree_sequence"] = bool(np.array_equal(
                np.sort(np.diff(g_ptr))[-K.nrows:], np.sort(np.diff(k_ptr))))
            H = G.to_device("cpu")
            res["symmetric"] = bool(H.isequal(H.T.new()))
        out[perm] = res
        log.info("gencheck %s: %s", perm, res)
        del G
    setup.free()
    ok = out["gap"]["identical_to_kron"] and out["feistel"]["same_degree_sequence"] and \
        out["feistel"]["symmetric"] and out["feistel"]["same_nvals"]
    out["ok"] = bool(ok)
    rec.doc["summary"]["gencheck_ok"] = bool(ok)


def step_check(args, setup, rec, clock):
    """The five algorithms on one device and on the group: the same answers."""
    from graphblast.algorithms import (bfs, connected_components, pagerank, sssp,
                                       triangle_count)
    from graphblast.generators import kron

    out = rec.step("check")
    one, grp = setup.one, setup.group(setup.ngpus)
    out["one"], out["group"], out["scale"], out["tc_scale"] = one, grp, args.check_scale, \
        args.tc_scale
    results = out.setdefault("algorithms", {})
    identical = []

    def run(label, make_graph, algo, l1=None):
        if clock.left() < 10:
            results[label] = {"skipped": "deadline"}
            identical.append(None)
            return
        res = results.setdefault(label, {})
        try:
            A1, G = make_graph()
            exp, t1 = timed(setup, one, lambda: algo(A1))
            res["one_s"] = t1
            reset_traffic(grp)
            got, tg = timed(setup, grp, lambda: algo(G))
            res["group_s"] = tg
            res["traffic"] = traffic(grp)
            got2, tg2 = timed(setup, grp, lambda: algo(G))  # warm: kernels compiled
            res["group_warm_s"] = tg2
            pairs = list(zip(exp, got)) if isinstance(exp, tuple) else [(exp, got)]
            res["compare"] = [compare(e, g, l1) for e, g in pairs]
            res["identical"] = all(c["equal"] for c in res["compare"])
            identical.append(res["identical"])
            log.info("check %s: %s (one %.3f s, group %.3f s cold, %.3f s warm)", label,
                     "identical" if res["identical"] else f"DIFFERENT {res['compare']}",
                     t1, tg, tg2)
        except Exception:  # noqa: BLE001 - recorded; the other algorithms go on
            res["error"] = traceback.format_exc()
            identical.append(False)
            log.error("check %s failed:\n%s", label, res["error"])
        rec.save()

    t0 = time.perf_counter()
    A1 = kron(args.check_scale, device=one)
    out["build_s"] = time.perf_counter() - t0
    G, out["place_s"] = timed(setup, grp, lambda: place(A1, grp))
    out["nvals"], out["bounds"] = A1.nvals, G._data.bounds
    # the host path (Matrix.to_device) gives the same split and entries
    H, out["to_device_s"] = timed(setup, grp, lambda: A1.to_device(grp))
    out["place_equals_to_device"] = bool(np.array_equal(H._data.bounds, G._data.bounds)
                                         and H.isequal(G))
    del H
    s = source_of(A1)
    out["source"] = s
    log.info("check: kron-%d (%d entries) on %s and %s, source %d; placed in %.2f s "
             "(to_device %.2f s, same: %s)", args.check_scale, A1.nvals, one, grp, s,
             out["place_s"], out["to_device_s"], out["place_equals_to_device"])
    graph = lambda: (A1, G)  # noqa: E731
    run("bfs", graph, lambda A: bfs(A, s, parents=True))
    run("pagerank", graph, lambda A: pagerank(A, tol=None, max_iter=20), l1=1e-9)
    run("cc", graph, connected_components)
    W1 = kron(args.check_scale, weighted=True, device=one)
    WG = place(W1, grp)
    run("sssp", lambda: (W1, WG), lambda A: sssp(A, s))
    del W1, WG
    T1 = kron(args.tc_scale, device=one)
    TG = place(T1, grp)
    run("tc", lambda: (T1, TG), triangle_count)
    del T1, TG, A1, G
    setup.free()
    ok = all(x is True for x in identical) and len(identical) == 5
    out["all_identical"] = ok
    rec.doc["summary"]["answers_identical_to_one_gpu"] = ok


def _pagerank_per_iteration(setup, device, A, iters):
    """(ms per iteration, the ranks after 5 + iters iterations): (t(5 + K) - t(5)) / K after a
    warm-up of 3 iterations."""
    from graphblast.algorithms import pagerank

    timed(setup, device, lambda: pagerank(A, tol=None, max_iter=3))
    _, t5 = timed(setup, device, lambda: pagerank(A, tol=None, max_iter=5))
    ranks, tk = timed(setup, device, lambda: pagerank(A, tol=None, max_iter=5 + iters))
    return (tk - t5) / iters * 1e3, ranks, t5, tk


def step_pagerank(args, setup, rec, clock):
    """PageRank per iteration on kron-PR_SCALE: one GPU against groups."""
    from graphblast.algorithms import bfs, connected_components
    from graphblast.generators import kron

    out = rec.step("pagerank")
    one = setup.one
    sizes = sorted({int(x) for x in args.pr_groups.split(",") if x} | {setup.ngpus})
    sizes = [k for k in sizes if 2 <= k <= setup.ngpus]
    t0 = time.perf_counter()
    A1 = kron(args.pr_scale, device=one)
    setup.sync(one)
    out["scale"], out["nvals"], out["build_s"] = args.pr_scale, A1.nvals, \
        time.perf_counter() - t0
    log.info("pagerank: kron-%d, %d entries, built in %.1f s", args.pr_scale, A1.nvals,
             out["build_s"])
    ms1, r1, *_ = _pagerank_per_iteration(setup, one, A1, args.pr_iters)
    out["one_ms_per_iter"] = ms1
    log.info("pagerank: %s %.2f ms per iteration", one, ms1)
    rec.save()
    groups = out.setdefault("groups", {})
    largest = None
    for k in sizes:
        grp = setup.group(k)
        if clock.left() < 45:
            groups[grp] = {"skipped": "deadline"}
            continue
        res = groups.setdefault(grp, {})
        try:
            G, res["place_s"] = timed(setup, grp, lambda: place(A1, grp))
            res["memory_after_place"] = setup.memory()
            reset_traffic(grp)
            ms, rg, t5, tk = _pagerank_per_iteration(setup, grp, G, args.pr_iters)
            res.update(ms_per_iter=ms, speedup_vs_one=ms1 / ms, t5_s=t5, t_more_s=tk,
                       traffic=traffic(grp))
            res["compare"] = compare(r1, rg, l1=1e-9)
            log.info("pagerank: %s %.2f ms per iteration (%.2fx one GPU), answers %s", grp,
                     ms, ms1 / ms, "identical" if res["compare"]["equal"] else
                     f"DIFFERENT {res['compare']}")
            del rg
            largest = (grp, G)
        except Exception:  # noqa: BLE001 - recorded; the other sizes go on
            res["error"] = traceback.format_exc()
            log.error("pagerank on %s failed:\n%s", grp, res["error"])
        rec.save()
        if largest is None or largest[0] != grp:
            setup.free()
    summary = rec.doc["summary"]
    g4 = groups.get(setup.group(4), {})
    if "speedup_vs_one" in g4:
        summary["pagerank_speedup_4gpu"] = g4["speedup_vs_one"]
        summary["pagerank_scale"] = args.pr_scale
        summary["pagerank_target_3x_met"] = g4["speedup_vs_one"] >= 3
    summary["pagerank_ms_per_iter"] = {one: ms1, **{g: r.get("ms_per_iter")
                                                    for g, r in groups.items()}}
    extra = [a for a in args.pr_extra.split(",") if a]
    if largest is None or not extra:
        return
    grp, G = largest
    s = source_of(A1)
    algos = {"bfs": lambda A: bfs(A, s), "cc": connected_components}
    for name in extra:
        if name not in algos or clock.left() < 60:
            out.setdefault("extra", {})[name] = {"skipped": "deadline" if name in algos
                                                 else "unknown"}
            continue
        res = out.setdefault("extra", {}).setdefault(name, {"group": grp})
        try:
            e, res["one_s"] = timed(setup, one, lambda: algos[name](A1))
            g, res["group_s"] = timed(setup, grp, lambda: algos[name](G))
            res["compare"] = compare(e, g)
            log.info("pagerank step, %s on kron-%d: one %.3f s, %s %.3f s, %s", name,
                     args.pr_scale, res["one_s"], grp, res["group_s"],
                     "identical" if res["compare"]["equal"] else "DIFFERENT")
            del e, g
        except Exception:  # noqa: BLE001 - recorded
            res["error"] = traceback.format_exc()
            log.error("%s on kron-%d failed:\n%s", name, args.pr_scale, res["error"])
        rec.save()
    del G, A1, largest
    setup.free()


def step_big(args, setup, rec, clock):
    """GAP-kron at scale BIG_SCALE on the group: built there, then BFS, PageRank, CC."""
    from graphblast import monoid
    from graphblast.algorithms import bfs, connected_components, pagerank
    from graphblast.generators import kron

    out = rec.step("big")
    k = min(args.big_gpus, setup.ngpus)
    grp = setup.group(k)
    out.update(group=grp, scale=args.big_scale, permutation=args.big_permutation)
    # compile the kernels on every member first (a small graph), so the times below are
    # the algorithms' own
    small = place(kron(min(args.big_scale, 12), device=setup.one), grp)
    t0 = time.perf_counter()
    bfs(small, 0)
    pagerank(small, tol=None, max_iter=2)
    connected_components(small)
    # and the generator's, every GPU in turn, before the threads of the big build
    small, _ = build_kron_on_group(setup, grp, min(args.big_scale, 10), 16,
                                   args.big_permutation, 1 << 16, clock.deadline,
                                   threads=False)
    setup.sync(grp)
    out["warmup_s"] = time.perf_counter() - t0
    del small
    setup.free()
    log.info("big: building kron-%d on %s (%s ids), %.0f s left", args.big_scale, grp,
             args.big_permutation, clock.left())
    t0 = time.perf_counter()
    G, secs = build_kron_on_group(setup, grp, args.big_scale, 16, args.big_permutation,
                                  args.words, clock.deadline - 30,
                                  name=f"kron{args.big_scale}")
    setup.free()
    out["build_s"] = time.perf_counter() - t0
    out["build_s_per_member"] = secs
    out["nvals"] = G.nvals
    out["nvals_per_member"] = [int(part.nvals) for part in G._data.parts]
    out["memory_after_build"] = setup.memory()
    log.info("big: %d entries (%s per member) in %.1f s", out["nvals"],
             out["nvals_per_member"], out["build_s"])
    rec.doc["summary"]["big_nvals"] = out["nvals"]
    rec.save()
    s = source_of_group(G)
    out["source"] = s
    res = out.setdefault("algorithms", {})

    def run(name, fn):
        if clock.left() < 20:
            res[name] = {"skipped": "deadline"}
            return None
        try:
            reset_traffic(grp)
            value, seconds = timed(setup, grp, fn)
            res[name] = {"seconds": seconds, "traffic": traffic(grp),
                         "memory": setup.memory()}
            log.info("big: %s in %.3f s", name, seconds)
            return value
        except Exception:  # noqa: BLE001 - recorded; the others go on
            res[name] = {"error": traceback.format_exc()}
            log.error("big: %s failed:\n%s", name, res[name]["error"])
            return None
        finally:
            rec.save()

    levels = run("bfs", lambda: bfs(G, s))
    if levels is not None:
        res["bfs"]["reached"] = levels.nvals
        res["bfs"]["depth"] = int(levels.reduce(monoid.max).new().value)
        del levels
    setup.free()
    base = run("pagerank_3", lambda: pagerank(G, tol=None, max_iter=3))
    del base
    ranks = run(f"pagerank_{3 + args.big_iters}",
                lambda: pagerank(G, tol=None, max_iter=3 + args.big_iters))
    if ranks is not None and "seconds" in res.get("pagerank_3", {}):
        per = (res[f"pagerank_{3 + args.big_iters}"]["seconds"]
               - res["pagerank_3"]["seconds"]) / args.big_iters
        res["pagerank_ms_per_iter"] = per * 1e3
        res["pagerank_sum"] = float(ranks.reduce().new().value)
        del ranks
    setup.free()
    labels = run("cc", lambda: connected_components(G))
    if labels is not None and "bfs" in res and "reached" in res["bfs"]:
        own = labels[[s]].new().to_coo()[1]
        comp = labels.select("valueeq", int(own[0])).new().nvals if own.shape[0] else 0
        res["cc"]["source_component_size"] = comp
        res["cc"]["bfs_reaches_the_component"] = comp == res["bfs"]["reached"]
        del labels
    ok = [name for name in ("bfs", "pagerank_3", f"pagerank_{3 + args.big_iters}", "cc")
          if "seconds" in res.get(name, {})]
    rec.doc["summary"]["big"] = {
        "group": grp, "scale": args.big_scale, "build_s": out["build_s"],
        "bfs_s": res.get("bfs", {}).get("seconds"),
        "pagerank_ms_per_iter": res.get("pagerank_ms_per_iter"),
        "cc_s": res.get("cc", {}).get("seconds"), "completed": ok,
        "consistent": res.get("cc", {}).get("bfs_reaches_the_component")}
    del G
    setup.free()


def source_of_group(G):
    """The vertex of largest degree in the first member's rows (a hub: in the giant
    component)."""
    part = G._data.parts[0]
    xp = np if isinstance(part.indptr, np.ndarray) else __import__("cupy")
    from graphblast.backends import get_backend

    with get_backend(G.device).scope(0):
        return int(xp.argmax(xp.diff(part.indptr))) + int(G._data.bounds[0])


# -- main ------------------------------------------------------------------------------------------

def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    logfile = open(os.path.join(args.out, "multi_gpu.log"), "a")
    handler = logging.StreamHandler(logfile)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    log.addHandler(handler)
    console = logging.StreamHandler(sys.stdout)
    console.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    log.addHandler(console)
    log.setLevel(logging.INFO)
    clock = Clock(args.deadline)
    # a hang (a collective that never completes) leaves every thread's stack in the log
    faulthandler.dump_traceback_later(args.deadline + 15, repeat=True, file=logfile)
    rec = Record(args.out, args)
    log.info("multi_gpu: steps %s, deadline %.0f s", args.steps, args.deadline)
    try:
        setup = Setup(args)
    except Exception:  # noqa: BLE001 - nothing can run; the record says why
        rec.doc["error"] = traceback.format_exc()
        rec.save()
        log.error("no devices:\n%s", rec.doc["error"])
        return 1
    rec.doc["devices"] = {"one": setup.one, "group": setup.group(setup.ngpus),
                          "gpus": setup.ngpus}
    if setup.ngpus < 2:
        rec.doc["error"] = f"a group needs at least 2 GPUs; {setup.ngpus} usable here"
        log.error(rec.doc["error"])
        args.steps = [s for s in args.steps if s == "env"]
    steps = {"env": step_env, "comm": step_comm, "gencheck": step_gencheck,
             "check": step_check, "pagerank": step_pagerank, "big": step_big}
    failed = 0
    for name in args.steps:
        entry = rec.step(name)
        if clock.left() < NEED[name]:
            entry["status"] = "skipped"
            entry["why"] = f"{clock.left():.0f} s left, the step needs {NEED[name]} s"
            log.info("%s: skipped (%s)", name, entry["why"])
            rec.doc["summary"]["steps"] = {s: rec.step(s).get("status") for s in args.steps}
            rec.save()
            continue
        log.info("== %s (%.0f s elapsed, %.0f s left)", name, clock.elapsed(), clock.left())
        t0 = time.perf_counter()
        try:
            entry["status"] = steps[name](args, setup, rec, clock) or "ok"
        except Exception:  # noqa: BLE001 - recorded; the next step goes on
            entry["status"] = "failed"
            entry["error"] = traceback.format_exc()
            failed += 1
            log.error("%s failed:\n%s", name, entry["error"])
            try:
                setup.free()
            except Exception:  # noqa: BLE001 - the next step will say more
                pass
        entry["seconds"] = time.perf_counter() - t0
        rec.doc["summary"]["steps"] = {s: rec.step(s).get("status") for s in args.steps}
        rec.save()
    faulthandler.cancel_dump_traceback_later()
    log.info("done in %.0f s: %s", clock.elapsed(), json.dumps(rec.doc["summary"],
                                                                 default=_jsonable))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
