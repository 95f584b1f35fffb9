"""``graphblast.repeat`` on a GPU: the loop's body recorded once as a CUDA graph and replayed.

Issued from Python, each round of a short loop pays its primitives' host paths: an SSSP light
round (a product, a comparison, an assign and a select) cost about 190 us of the H200's host
against a few tens of microseconds of GPU work, and a BFS level 80 us issued against 11 us
replayed (a level captured under CUDA stream capture, H200).  Here:

1. the loop's vector is copied into a *state*: a list with room for every position, whose
   count lives on the device;
2. *dry* rounds on the state, issued as usual but with no count trusted on the host
   (recording.py), each noting its products' directions and its kernel launches, until two
   in a row make the same (at most DRY_ROUNDS: the first round of a loop compiles kernels
   and builds caches, which the next does not); a body whose rounds keep differing - a
   Python value that changes from round to round - runs from Python from there, since a
   graph would freeze it.  Each result is copied into the state;
3. the same round captured as a CUDA graph on a stream of its own, its allocations kept for
   the graph's life, beginning with a memset of the counter page its counts go to
   (vectors.capture_page) and ending with the copy into the state and the state's count
   written to page-locked host memory;
4. replays, each followed by one wait and a read of that count, until it is zero.

No round is issued before the dry rounds: they warm the caches themselves, and each round
issued before them cost a bucket of delta-stepping as much as 0.35 ms of the host (H200).

A body the graph cannot hold (one that reads a count or a value to the host, makes a cache,
or replaces the storage of a collection made before it) raises ``recording.Refused`` or a
CUDA error inside the capture; the capture is dropped, nothing it recorded having run, and
the loop goes on from Python from the state: the answer does not depend on which way the
rounds ran (the body's own Python effects, if it has any, ran once more).
"""

import contextlib
import logging
import threading

import cupy as cp
import numpy as np

from ...config import config
from .. import base as backend_base
from ..base import issue_rounds
from . import jit, programs, recording
from .blocks import INDEX, i64
from .memory import is_out_of_memory
from .vectors import (
    _capture_pages, _pages, Counters, DeviceVector, ListVector, as_list, capture_page,
)

logger = logging.getLogger("graphblast")

DRY_ROUNDS = 3


def repeat(body, x, max_rounds):
    """``x = body(x)`` while ``x`` has entries and fewer than ``max_rounds`` (None: no limit)
    rounds ran; replayed from a graph where the body allows (a loop inside a recorded body
    is issued)."""
    if config["device_loops"] != "auto" or recording.current() is not None:
        return issue_rounds(body, x, max_rounds)[0]
    if max_rounds == 0 or not x.nvals:
        return x
    return _replayed(body, x, max_rounds)


def _replayed(body, x, max_rounds):
    """The loop, holding the device's loop lock (its capture stream and count word are one
    per device: another thread's loop meanwhile is issued from Python)."""
    lock = _per_device()[2]
    if not lock.acquire(blocking=False):
        return issue_rounds(body, x, max_rounds)[0]
    try:
        return _replayed_locked(body, x, max_rounds)
    finally:
        lock.release()


def _replayed_locked(body, x, max_rounds):
    """The state, the dry rounds, the capture, the replays (the module docstring); from
    Python where the rounds cannot be replayed."""
    try:
        state = _state_of(x)
    except Exception as e:  # noqa: BLE001 - the replay is an optimization: none without room
        if not is_out_of_memory(e):
            raise
        logger.debug("repeat: the body runs from Python (no room for the loop's state: %s)",
                     e)
        return issue_rounds(body, x, max_rounds)[0]
    xs = type(x)._from_data(state, x._backend, x.device)  # the caller's Vector class
    loop, rounds, before = object(), 0, None
    for _ in range(DRY_ROUNDS):
        if (max_rounds is not None and rounds >= max_rounds) or not xs.nvals:
            return xs
        rec = recording.Recording("dry", loop)
        with _recording(rec):
            y = body(xs)
            if y.dtype == state.dtype:
                _copy_into(state, y._data)
        rounds += 1
        if y.dtype != state.dtype:  # the rounds change the vector's type
            logger.debug("repeat: the body runs from Python (it returns %s for %s)",
                         y.dtype, state.dtype)
            return issue_rounds(body, y, max_rounds, rounds)[0]
        y = None
        if before is not None and rec.same_as(before):
            break
        before = rec
    else:  # a value of the body that changes from round to round: its effects intact
        logger.debug("repeat: the body runs from Python (its rounds differ)")
        return issue_rounds(body, xs, max_rounds, rounds)[0]
    if (max_rounds is not None and rounds >= max_rounds) or not xs.nvals:
        return xs
    graph = _capture(body, xs, rec)
    if graph is None:
        return issue_rounds(body, xs, max_rounds, rounds)[0]
    stream, count = graph.stream, graph.count
    try:
        while max_rounds is None or rounds < max_rounds:
            graph.exec.launch(stream)
            stream.synchronize()
            rounds += 1
            if not count[0]:
                break
    finally:
        cp.cuda.get_current_stream().wait_event(stream.record())
        _forget_counts()
    return xs


class _Graph:
    """A captured round: its executable graph, the stream it runs on, the page-locked word
    its last node writes the state's count into, and what it refers to (kept alive)."""

    __slots__ = ("exec", "stream", "count", "keep")

    def __init__(self, exec_, stream, count, keep):
        self.exec = exec_
        self.stream = stream
        self.count = count
        self.keep = keep


def _capture(body, xs, noted):
    """The body's round on ``xs`` captured (see the module docstring), or None, with the
    reason logged, where the body cannot be held by a graph."""
    state = xs._data
    stream, count, _ = _per_device()
    stream.wait_event(cp.cuda.get_current_stream().record())
    page = capture_page()  # the counters made in the graph, zeroed by its first node
    rec = recording.Recording("capture", noted.loop, noted, born=set(), page=page)
    allocate = cp.cuda.get_allocator()

    def kept(size):  # every allocation the graph may refer to lives as long as the graph
        memory = allocate(size)
        rec.keep.append(memory)
        return memory

    graph = error = None
    with stream, cp.cuda.using_allocator(kept), _recording(rec):
        try:
            stream.begin_capture()
        except Exception as e:  # noqa: BLE001 - no capture here (CuPy on HIP, a driver's refusal)
            logger.debug("repeat: the body runs from Python (no capture: %s)", e)
            return None
        try:
            page.zero()
            y = body(xs)
            if y.dtype != state.dtype:
                raise recording.Refused(f"a result of type {y.dtype} for {state.dtype}")
            _copy_into(state, y._data)
            y = None
            if not rec.complete():
                raise recording.Refused("fewer launches than the dry rounds made")
            cp.cuda.runtime.memcpyAsync(count.ctypes.data, state.counters.array.data.ptr, 8,
                                        cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
        except Exception as e:  # noqa: BLE001 - any step the graph cannot hold
            error = e
        finally:
            try:
                graph = stream.end_capture()
            except Exception as e:  # noqa: BLE001 - an invalidated capture
                error = error or e
                graph = None
    if error is not None or graph is None:
        logger.debug("repeat: the body runs from Python (%s: %s)", type(error).__name__,
                     error)
        stream.synchronize()
        return None
    logger.debug("repeat: the body replays as a CUDA graph")
    return _Graph(graph, stream, count, rec.keep)


_devices = {}  # device id -> (capture stream, count word, loop lock)
_devices_lock = threading.Lock()


def _per_device():
    """This device's capture stream, the page-locked word a graph writes its state's count
    into, and the lock of the one loop that may use them at a time.  One stream for every
    loop: the memory pool keeps its cached blocks per stream (a stream per loop would strand
    each loop's), and a page-locked allocation costs far more than a round."""
    import cupyx

    device = cp.cuda.runtime.getDevice()
    found = _devices.get(device)
    if found is None:
        with _devices_lock:
            found = _devices.get(device)
            if found is None:
                found = _devices[device] = (cp.cuda.Stream(non_blocking=True),
                                            cupyx.empty_pinned(1, dtype=np.uint64),
                                            threading.Lock())
    return found


@contextlib.contextmanager
def _recording(rec):
    before = recording.current(), backend_base.made_while_recording
    recording.set_current(rec)
    backend_base.made_while_recording = rec.born
    try:
        yield
    finally:
        recording.set_current(before[0])
        backend_base.made_while_recording = before[1]


def _state_of(x):
    """A list with room for every position holding ``x``'s entries."""
    n, t = x.size, x.dtype
    counters = Counters()
    state = ListVector(n, t, cp.empty(max(n, 1), dtype=INDEX),
                       cp.empty(max(n, 1), dtype=t.np_type), counters, ordered=False)
    _copy_into(state, x._data)
    return state


def _copy_into(state, data):
    """Queue the copy of the vector ``data`` (same size and type) into ``state``."""
    if recording.capturing() and not isinstance(data, DeviceVector):
        raise recording.Refused("a result whose count the host fixed")
    idx, vals, counters, cap = as_list(data)
    (fn,) = jit.compiled(programs.vector_kernel, "list_copy", state.dtype).fns
    jit.launch(fn, max(cap, 1), (i64(cap), None if counters is None else counters.array, idx,
                                 vals, state.idx, state.vals, state.counters.array))
    state.changed()


def _forget_counts():
    """The host copies of the counter pages are stale after replays (their slots changed
    with no touch from Python)."""
    for page in [*(p for pages in _pages.values() for p in pages), *_capture_pages.values()]:
        page.snapshot, page.snapshot_seq = None, 0
