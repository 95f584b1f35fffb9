"""The CUDA backend's loop replay (backends/cuda/loops.py) driven on a machine without a GPU:
CuPy replaced by benchmarks/hostpath's NumPy stand-in, stream capture by a stand-in whose
graph counts its launches and ends the loop after a few.  The answers are garbage (no kernel
runs); what is checked is the path: which bodies are captured and replayed, which run from
Python and why, and that the loop lock is left free.  Run by test_loops_host_path.py in a
process of its own (the stand-in replaces the ``cupy`` module).

    python tests/cuda/loops_host_path.py      # prints one JSON line
"""

import contextlib
import functools
import importlib
import json
import logging
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "hostpath", "stub"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "hostpath"))
sys.path.insert(0, os.path.join(ROOT, "src"))
os.environ["GRAPHBLAST_KERNEL_LAUNCH"] = "cupy"

import cupy as cp  # noqa: E402 - the stand-in
import numpy as np  # noqa: E402

REPLAYS_TO_EMPTY = 3
launches = []
overflow_at = []  # (launch, count): the launch whose round's result outgrows the state


class _Graph:
    def launch(self, stream):
        from graphblast.backends.cuda import loops

        launches.append(1)
        # the words a replay leaves for the host: round, overflow flag, its count, the
        # state's count (zero: the loop is over)
        host = loops._devices[0].host
        host[:] = [host[0] + 1, 0, 0, 1]
        if overflow_at and len(launches) == overflow_at[0][0]:
            host[1], host[2] = 1, overflow_at[0][1]
        elif len(launches) % REPLAYS_TO_EMPTY == 0:
            host[3] = 0


class _While:
    """A conditional WHILE graph stood in for: each launch is ``while_rounds[0]`` rounds, and
    leaves the words the loop's last kernel would (the round, an overflow flag, the result's
    count, the state's count: zero, the loop is over, unless ``overflow_at`` says so)."""

    handle_value = 0
    start = [0]  # the loop's round as the graph's launch begins (device_loop, patched)

    def instantiate(self, captured):
        pass

    def launch(self, stream):
        from graphblast.backends.cuda import loops

        launches.append(1)
        host = loops._devices[0].host
        host[:] = [self.start[0] + while_rounds[0], 0, 0, 0]
        if overflow_at and len(launches) == overflow_at[0][0]:
            host[1], host[2], host[3] = 1, overflow_at[0][1], 1

    def close(self):
        pass


while_rounds = [3]


class _Stream:
    ptr = 0

    def __init__(self, **_):
        pass

    def synchronize(self):
        pass

    def wait_event(self, _):
        pass

    def record(self):
        return None

    def begin_capture(self):
        pass

    def end_capture(self):
        return _Graph()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        return False


def _stand_in():
    cp.cuda.Stream = _Stream
    cp.cuda.get_current_stream = lambda: _Stream()
    cp.cuda.using_allocator = lambda _: contextlib.nullcontext()
    cp.cuda.get_allocator = lambda: (lambda size: None)
    cp.cuda.runtime.memcpyAsync = lambda *_: None
    cp.cuda.runtime.memsetAsync = lambda *_: None
    cp.cuda.runtime.memcpyDeviceToHost = 2


def main():
    _stand_in()
    import graphblast as gb
    import hostpath
    from graphblast import Vector, semiring
    from graphblast.backends.cuda import loops, mxv, recording, vectors
    from graphblast.dtypes import BOOL, INT64

    # the stand-in's graphs are not CUDA graphs: no conditional node, even where
    # cuda.bindings is installed; and no cooperative launch (both stood in below, where asked)
    loops._While._support = "no conditional nodes in the stand-in"
    loops._Persistent.support = "no cooperative launch in the stand-in"

    def values(self):  # every vector has an entry (the loop goes on), read as CuPy would
        if recording.capturing():
            raise RuntimeError("the current stream is capturing, so D2H transfers are "
                               "disallowed")
        return 1, 1

    vectors.Counters.values = values
    captured = {"launches": [], "memsets": 0}  # the nodes of the last captured round
    launch, memset = recording.Recording.launch, vectors._memset

    def noting_launch(self, fn, grid, block, args):
        if self.capturing:
            captured["launches"].append(fn.name.split("<")[0])
        return launch(self, fn, grid, block, args)

    def noting_memset(array, words):
        captured["memsets"] += recording.capturing()
        return memset(array, words)

    recording.Recording.launch = noting_launch
    vectors._memset = noting_memset
    said = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())
    logger = logging.getLogger("graphblast")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)

    W = hostpath._grid(64, weights=True)  # 4,096 vertices: the push, not the one-block kernel
    n = W.nrows
    sssp = importlib.import_module("graphblast.algorithms.sssp")
    dist = Vector.from_coo([0], [0], INT64, size=n, device="cuda")
    relax = functools.partial(sssp._relax, A=W, dist=dist, min_plus=semiring.min_plus[INT64],
                              below=100)
    start = Vector.from_coo([0, 1], [0, 3], INT64, size=n, device="cuda")
    out = {}

    def run(name, body, start=start, **kw):
        said.clear()
        del launches[:]
        captured["launches"], captured["memsets"] = [], 0
        gb.repeat(body, start, max_rounds=40, **kw)
        out[name] = {"replays": len(launches),
                     "said": [m for m in said if m.startswith("repeat:")],
                     "lock_free": not loops._devices[0].lock.locked(),
                     "captured": dict(captured), "stats": dict(loops.stats)}

    run("relax", relax)
    # Bellman-Ford's round (sssp's first rounds): the improved vertices, no bound
    run("bellman-ford", functools.partial(sssp._relax, A=W, dist=dist,
                                          min_plus=semiring.min_plus[INT64]))
    # delta-stepping's round (algorithms/sssp.py): the bucket's bound from the pending
    # vertices' minimum, left on the device, and the union of the waiting and the improved
    width = Vector.from_scalar(100, size=n, dtype=INT64, device="cuda")
    run("sssp bucket", functools.partial(sssp._bucket_round, A=W, dist=dist, width=width,
                                         min_plus=semiring.min_plus[INT64]))
    # BFS's level (algorithms/bfs.py): the round counter stamps the frontier, then the push
    levels = Vector(INT64, n, device="cuda")
    A = hostpath._grid(64, weights=False)

    def level(frontier, depth):
        levels(frontier.S) << depth
        return frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~levels.S, replace=True)

    bfs_start = Vector.from_coo([0], True, BOOL, size=n, device="cuda")
    run("bfs level", level, counter=True, start=bfs_start)
    loops.FUSE_ASSIGN = False
    run("bfs level, assign unfused", level, counter=True, start=bfs_start)
    loops.FUSE_ASSIGN = True

    def reads(frontier):
        t = relax(frontier)
        t.nvals  # a count read to the host inside the body
        return t

    # under a (stood-in) WHILE node BFS's level is one kernel, gbk_push_loop: the push, the
    # next level's assign as it claims, and the loop's end in its last block; the state
    # widened to every position first (it and the push's output alternate), so the dry
    # rounds run again on it
    scratch = mxv._scratch_for(n)

    def on_while(name, rounds=3, fuse=True, fuse_assign=True, body=level, start=bfs_start,
                 counter=True, mode="while", persistent=False):
        support, create = loops._While._support, loops._While.create
        loops._While._support, loops._While.create = True, classmethod(
            lambda cls: (_While(), None))
        if persistent:
            loops._Persistent.support = True
        loops.FUSE_ROUND, loops.FUSE_ASSIGN = fuse, fuse_assign
        while_rounds[0] = rounds
        epoch = scratch.epoch
        del cooperative[:]
        try:
            with gb.config.set(device_loops=mode):
                run(name, body, counter=counter, start=start)
        finally:
            loops._While._support, loops._While.create = support, create
            loops.FUSE_ROUND = loops.FUSE_ASSIGN = True
            out[name]["persistent"] = loops._Persistent.support
            loops._Persistent.support = "no cooperative launch in the stand-in"
        out[name]["epochs"] = scratch.epoch - epoch
        out[name]["state"] = int(widths[-1]) if widths else None
        out[name]["cooperative"] = list(cooperative)

    # the persistent kernel's one launch stood in for: made as the loop makes it (through
    # the stand-in's kernel, which checks its arguments' count), then the words its last
    # round would leave, as the WHILE node's stand-in does
    cooperative = []  # (the kernel's name, its grid) of each cooperative launch
    persistent_launch = loops._Persistent.launch.__func__

    def stand_in_launch(cls, tail, dev, stream):
        persistent_launch(cls, tail, dev, stream)
        fn = tail.launch[0]
        cooperative.append((fn.name.split("<")[0], cls.grid(fn)))
        launches.append(1)
        host = dev.host
        host[:] = [tail.r0 + while_rounds[0], 0, 0, 0]
        if overflow_at and len(launches) == overflow_at[0][0]:
            host[1], host[2], host[3] = 1, overflow_at[0][1], 1

    loops._Persistent.launch = classmethod(stand_in_launch)

    widths = []
    device_loop = loops._Loop.device_loop

    def noting_loop(self, graph):
        _While.start[0] = self.rounds
        widths.append(self.state.idx.shape[0])
        return device_loop(self, graph)

    loops._Loop.device_loop = noting_loop
    on_while("bfs level, while")
    on_while("bfs level, while, even", rounds=4)
    on_while("bfs level, while, unfused", fuse=False)
    on_while("bfs level, while, assign unfused", fuse_assign=False)
    overflow_at.append((1, 2 * loops.CAPACITY_FLOOR))
    on_while("bfs level, while, outgrows")
    del overflow_at[:]
    # delta-stepping's round under a WHILE node: its union written into the state by its
    # last kernels, the last of which ends the round
    bucket = functools.partial(sssp._bucket_round, A=W, dist=dist, width=width,
                               min_plus=semiring.min_plus[INT64])
    on_while("sssp bucket, while", body=bucket, start=start, counter=False)
    on_while("sssp bucket, while, unfused", body=bucket, start=start, counter=False,
             fuse=False)
    # where the device launches cooperative kernels, BFS's rounds are one launch of
    # gbk_push_levels ("auto" and "persistent"); "while" keeps the WHILE node
    on_while("bfs level, persistent", mode="auto", persistent=True)
    on_while("bfs level, persistent, even", mode="persistent", persistent=True, rounds=4)
    on_while("bfs level, persistent, while", mode="while", persistent=True)
    overflow_at.append((1, 2 * loops.CAPACITY_FLOOR))
    on_while("bfs level, persistent, outgrows", mode="auto", persistent=True)
    overflow_at[:] = [(1, 10 * loops.WIDE_FLOOR)]
    on_while("bfs level, persistent, wide", mode="auto", persistent=True)
    del overflow_at[:]
    # a round that is not one push (the assign a kernel of its own; delta-stepping's): the
    # WHILE node
    on_while("bfs level, persistent, assign unfused", mode="auto", persistent=True,
             fuse_assign=False)
    on_while("sssp bucket, persistent", body=bucket, start=start, counter=False, mode="auto",
             persistent=True)
    # a device that refuses the launch, or holds no block of the kernel: the WHILE node
    run_cooperative = loops.jit.run_cooperative

    def refused(*_):
        raise cp.cuda.driver.CUDADriverError("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE")

    loops.jit.run_cooperative = refused
    on_while("bfs level, persistent, refused", mode="auto", persistent=True)
    loops.jit.run_cooperative = run_cooperative
    occupancy = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor
    cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor = lambda *_: 0
    loops._Persistent._resident.clear()
    on_while("bfs level, persistent, no block", mode="auto", persistent=True)
    cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor = occupancy
    loops._Persistent._resident.clear()
    loops._Loop.device_loop = device_loop
    run("reads a count", reads)
    counter = [0]
    stamp = Vector(INT64, n, device="cuda")

    def counts(frontier):
        counter[0] += 1
        t = relax(frontier)
        stamp(t.S) << counter[0]
        return t

    run("a round counter", counts)
    with gb.config.set(device_loops="never"):
        run("never", relax)
    with gb.config.set(device_loops="while"):  # no cuda.bindings here: replayed
        run("while", relax)
    # the second replay's result outgrows the state: grown, resumed; or wide: from Python
    overflow_at.append((2, 2 * loops.CAPACITY_FLOOR))
    run("outgrows", relax)
    overflow_at[:] = [(2, 10 * loops.WIDE_FLOOR)]
    run("wide", relax)
    del overflow_at[:]
    grow = loops._Loop.grow

    def no_room(self, n, dtype, count):
        raise MemoryError("std::bad_alloc")

    loops._Loop.grow = no_room  # the loop's state cannot be had: Python rounds
    run("no room", relax)
    loops._Loop.grow = grow
    # a count made in an earlier graph and still held: the next graph's page is another
    page = vectors.capture_page()
    same_when_free = vectors.capture_page() is page
    held = page.zeroed.pop()
    out["capture page"] = {"kept while free": same_when_free,
                           "renewed while a slot is held": vectors.capture_page() is not page}
    page.zeroed.append(held)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
