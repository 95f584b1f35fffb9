"""Host-side decisions of the CUDA backend checked without a GPU: CuPy replaced by
benchmarks/hostpath's NumPy stand-in (its array operations run in NumPy, its kernels do
nothing), so what is checked is what the Python decides: the formats vectors come in, what
the direction planner keeps with a matrix, and what it decides on each path.  Run by
test_engine_host_path.py in a process of its own (the stand-in replaces ``cupy``).

    python tests/cuda/engine_host_path.py      # prints one JSON line
"""

import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "hostpath", "stub"))
sys.path.insert(0, os.path.join(ROOT, "src"))
os.environ["GRAPHBLAST_KERNEL_LAUNCH"] = "cupy"

import numpy as np  # noqa: E402

import graphblast as gb  # noqa: E402
from graphblast import Vector, binary, semiring  # noqa: E402
from graphblast.dtypes import BOOL, FP64  # noqa: E402


def _format(v):
    return type(v._data).__name__


def main():
    out = {}
    n = 5000
    # first: the stand-in's counter pages are still clean (its counts read as zero)
    out["device scalar"] = _device_scalar(n)
    out["from_dense"] = _format(Vector.from_dense(np.arange(n, dtype=float), device="cuda"))
    out["from_dense missing"] = _format(Vector.from_dense(
        np.array([1.0, 0.0, 2.0]), missing_value=0.0, device="cuda"))
    out["from_coo subset"] = _format(Vector.from_coo([0, 3], [1.0, 2.0], size=n,
                                                    device="cuda"))
    full = Vector.from_scalar(0.0, n, FP64, device="cuda")
    full(binary.plus) << Vector.from_coo([0, 3], [1.0, 2.0], size=n, device="cuda")
    out["full accumulated"] = _format(full)
    # a square matrix that is not symmetric: a path 0 -> 1 -> ... -> n-1, row 7 longer
    rows = np.r_[np.arange(n - 1), [7, 7]]
    cols = np.r_[np.arange(1, n), [100, 200]]
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, device="cpu").to_device("cuda")
    ones = Vector.from_scalar(1.0, n, FP64, device="cuda")
    # (the stand-in's matrix holds nothing: its building kernels do not run; the degrees'
    # values are checked on both devices by tests/core/test_degree_products.py)
    out["degrees"] = _format(A.mxv(ones, semiring.plus_pair[FP64]).new())
    q = Vector.from_coo([5], True, BOOL, size=n, device="cuda")
    any_pair = semiring.any_pair[BOOL]
    from graphblast.backends.cuda import jit

    A.T.mxv(q, any_pair).new()  # its kernels looked up once, with the swapped semiring
    q.vxm(A, any_pair).new()
    seen = len(jit._by_call)
    for _ in range(4):
        A.T.mxv(q, any_pair).new()
        q.vxm(A, any_pair).new()
    out["kernel lookups added by repeated calls"] = len(jit._by_call) - seen
    out["plans after vxm"] = len(A._data._plans)
    with gb.config.set(direction="pull"):  # builds the transpose that vxm's pull reads
        q.vxm(A, any_pair).new()
    A.mxv(q, any_pair).new()
    q.vxm(A, any_pair).new()
    keys = sorted((k[3], k[4]) for k in A._data._plans)
    out["plans by pull matrix"] = [list(k) for k in keys]
    out["planner"] = _planner_decisions(n)
    out["small buffers"] = _small_buffers()
    out["diag reads"] = _diag_reads(A)
    print(json.dumps(out))


def _diag_reads(A):
    """The device-to-host copies of ``A.diag(k)`` (the stand-in's arrays are host memory, so
    each ``get`` and ``asnumpy`` is one), per k: their number and the largest in bytes."""
    import cupy

    sizes = []
    get, asnumpy = cupy.ndarray.get, cupy.asnumpy

    def counted_get(self, *args, **kwargs):
        sizes.append(self.nbytes)
        return get(self, *args, **kwargs)

    def counted_asnumpy(a, *args, **kwargs):
        sizes.append(getattr(a, "nbytes", 0))
        return asnumpy(a, *args, **kwargs)

    cupy.ndarray.get, cupy.asnumpy = counted_get, counted_asnumpy
    try:
        out = {}
        for k in (0, -3, 5):
            del sizes[:]
            A.diag(k)
            out[k] = [len(sizes), max(sizes, default=0)]
    finally:
        cupy.ndarray.get, cupy.asnumpy = get, asnumpy
    return out


def _device_scalar(n):
    """What a reduction's Scalar becomes and how apply and PageRank take it (core/scalar.py).
    The stand-in's arrays are host memory, so for this check they say they are device
    arrays, as CuPy's do (restored after).  PageRank runs on a new path graph, whose
    degrees the stand-in counts as none (its kernels write no count): every vertex a sink,
    so each step spreads their mass."""
    import cupy

    from graphblast import algorithms, monoid
    from graphblast.backends.cuda import blocks, jit
    from graphblast.core.scalar import DeviceValue

    cupy.ndarray.__cuda_array_interface__ = property(lambda self: {
        "shape": self.shape, "typestr": self.dtype.str, "data": (self.ctypes.data, False),
        "version": 3})
    bound = jit.bound
    sides = []  # how each apply's bound scalar reaches its kernel
    jit.bound = lambda side, value, dtype: sides.append(bound(side, value, dtype)[0]) or bound(
        side, value, dtype)
    try:
        A = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), True, nrows=n, ncols=n,
                               device="cpu").to_device("cuda")
        full = Vector.from_scalar(1.0, n, FP64, device="cuda")
        r0 = blocks.host_reads()
        s = full.reduce(monoid.plus).new()
        full.apply(binary.plus, right=s).new()
        out = {"kept": type(s._held) is DeviceValue, "reads": blocks.host_reads() - r0,
               "bound as": list(sides)}
        algorithms.pagerank(A, tol=None, max_iter=2)  # the matrix's views built
        reads = []
        for steps in (2, 6):
            r0 = blocks.host_reads()
            del sides[:]
            algorithms.pagerank(A, tol=None, max_iter=steps)
            reads.append(blocks.host_reads() - r0)
        out["pagerank reads, 2 and 6 steps"] = reads
        out["pagerank's teleports, 6 steps"] = sides.count("right_device")
    finally:
        jit.bound = bound
        del cupy.ndarray.__cuda_array_interface__
    return out


def _small_buffers():
    """Which buffers a small product's result takes: those the result it replaced gave back,
    unless something else still holds them (a view, a vector sharing them, the arrays)."""
    from graphblast.backends.cuda import vectors

    if not vectors._REUSE:  # an interpreter whose counts cannot tell (then never reused)
        return "no reuse here"
    n = 34
    rows, cols = np.nonzero(np.eye(n, k=1) + np.eye(n, k=-1))
    P = gb.Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n, device="cpu")
    P = P.to_device("cuda")
    any_pair = semiring.any_pair[BOOL]
    q = Vector.from_coo([0], True, BOOL, size=n, device="cuda")
    seen, w = q.dup(), Vector(BOOL, n, device="cuda")
    for _ in range(2):
        w(~seen.S, replace=True) << q.vxm(P, any_pair)
    allocated = []
    empty = vectors.cp.empty
    vectors.cp.empty = lambda *args, **kwargs: allocated.append(args) or empty(*args, **kwargs)
    try:
        for _ in range(6):
            w(~seen.S, replace=True) << q.vxm(P, any_pair)
    finally:
        vectors.cp.empty = empty
    out = {"loop allocations": len(allocated)}
    for held in ("view", "array", "vector"):
        r = q.vxm(P, any_pair).new()
        keep = {"view": lambda d: d.idx[:1], "array": lambda d: d.vals,
                "vector": lambda d: vectors.ListVector(d.size, d.dtype, d.idx, d.vals,
                                                       d.counters, True)}[held](r._data)
        # (the arrays kept alive: a freed one's id may come back with a new array)
        taken = {id(r._data.idx)} if held == "view" else (
            {id(r._data.vals)} if held == "array" else {id(r._data.idx), id(r._data.vals)})
        del r
        again = q.vxm(P, any_pair).new()
        out[held] = bool(taken & {id(again._data.idx), id(again._data.vals)})
        del keep, again
    return out


def _planner_decisions(n):
    """mxv._direction's choice and logged reason for the frontiers a traversal brings, with
    the matrix's terms and longest row given (the stand-in's matrix holds nothing): each
    path the planner takes without a GPU wait (the bound, the exact sum a push counted, the
    count after a pull, the mask's share from a count or from an in-place bound)."""
    import logging

    from graphblast.backends.base import MaskArg
    from graphblast.backends.cuda import mxv
    from graphblast.backends.cuda.vectors import BitmapVector, Counters, ListVector

    nvals, longest = 100_000, 50
    mxv._terms = lambda A, pull_m, semiring, n_out, own, none: (1, 1, None, nvals)
    mxv.row_stats = lambda M: (longest, n)
    A = gb.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), True, nrows=n, ncols=n,
                           device="cpu").to_device("cuda")._data
    any_pair = semiring.any_pair[BOOL]

    def listed(count, degrees, made_by, deg_of):
        u = ListVector(n, BOOL, np.zeros(count, np.int64), np.ones(count, bool),
                       Counters((count, degrees)), ordered=True, deg_of=deg_of)
        u.made_by = made_by
        return u

    def bitmap_mask(known=None, count_hi=None):
        m = BitmapVector(n, BOOL, np.zeros(n, np.uint8), np.zeros(n, bool),
                         Counters(known) if known else Counters())
        m.counters.known = known
        m.count_hi = count_hi
        return MaskArg(m, True, True)

    cases = {
        # one entry (from the host): count x longest row = 50 <= 0.1 x 100,000
        "bound settles push": (gb.Vector.from_coo([3], True, BOOL, size=n, device="cuda")._data,
                               None),
        # a push's output, its degree sum counted: 9,000 > 0.1 x 100,000 x (1 - 2,000 / n)
        "exact sum, pull": (listed(300, 9_000, "push", A.indptr), bitmap_mask((2_000, 0))),
        "exact sum, push": (listed(300, 5_000, "push", A.indptr), bitmap_mask((2_000, 0))),
        # after a pull the count decides, whatever the sum: n / 18 = 277.8
        "after a pull, 300 entries": (listed(300, 10, "pull", A.indptr), None),
        "after a pull, 200 entries": (listed(200, 10**7, "pull", A.indptr), None),
        # the mask's count unknown but bounded by in-place assigns (at most 4,000 visited of
        # 5,000): pull's work is 100,000 / 5, and 2,500 > 0.1 x 20,000 pulls
        "mask bound, pull": (listed(300, 2_500, "push", A.indptr), bitmap_mask(None, 4_000)),
    }
    logger = logging.getLogger("graphblast")
    records = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    decided = {}
    for name, (u, mask) in cases.items():
        records.clear()
        choice = mxv._direction(A, A, None, u, mask, n, any_pair)
        decided[name] = [choice, records[-1] if records else None]
    logger.removeHandler(handler)
    return decided


if __name__ == "__main__":
    main()
