"""``graphblast.repeat`` on a GPU: the loop run by the device, its body recorded once as a CUDA
graph.

Issued from Python, each round of a loop pays its primitives' host paths and a read of the
next vector's count: a BFS level of grid-2048 cost 82.7 us on the H200 for a few microseconds of
GPU work, an SSSP light round about 190 us.  Here:

0. while the vector grows GROWTH-fold a round, rounds are issued from Python as they are
   (a BFS on a scale-free graph is wide within a few levels and never needs more);
1. the loop's vector is copied into a *state*: a list whose capacity only grows, its count on
   the device, and the loop's control words ``ctl`` (the round number, which the body may read
   as a Scalar left on the device; an overflow flag; the count that overflowed);
2. *dry* rounds on the state, issued as usual but with no count trusted on the host
   (recording.py), each noting its products' directions and its kernel launches, until two
   in a row make the same (at most DRY_ROUNDS: the first round of a loop compiles kernels
   and builds caches, which the next does not); a body whose rounds keep differing - a
   Python value that changes from round to round - runs from Python from there, since a
   graph would freeze it.  Each round ends with ``gbk_loop_next``: the result copied into the
   state, the round counted (the host reads the result's count here, and grows the state
   where it does not fit; a *wide* result, more than a sixteenth of the positions, makes a
   loop bound by its kernels, not by its host, and the rest of it runs from Python);
3. the same round captured as a CUDA graph on a stream of its own, its allocations kept for
   the graph's life, its counts made on a counter page of their own (vectors.capture_page),
   and ending with ``gbk_loop_next``, which also zeroes that page for the next round (the
   host zeroes it before the first);
4. the loop itself, by ``gb.config["device_loops"]``:

   - "persistent" (and "auto"), where the round is one first-claim push (BFS's level) and the
     device launches kernels cooperatively: no graph is run; one cooperative launch of
     gbk_push_levels makes every round, its blocks meeting at a barrier of the grid between
     rounds, and the host waits once and reads the same words as under a WHILE node;
   - "while" (and "auto" otherwise, where the driver has conditional nodes, CUDA 12.4+,
     reached through ``cuda.bindings``): the captured round is the body of a conditional
     WHILE node of a second graph, and ``gbk_loop_next`` sets the node's condition (an entry
     left, the round limit not reached, the result fit).  The host launches that graph once
     and waits once, reading the round number, the overflow flag and the state's count (one
     host read);
   - "replay" (and "auto" without conditional nodes): the captured round launched once per
     round, each followed by one wait and a read of the same words;
   - "never": every round issued from Python (``issue_rounds``).

Under a WHILE node a round costs about 4 us a kernel, so its last kernel ends it where it
can (``FUSE_ROUND``): a round that is one first-claim push (BFS's level) is one kernel,
gbk_push_loop (the state and the push's output alternating, the claims made with an epoch a
round, the next level's assign as each output is claimed, the loop's end in its last
block), or, persistent, all its rounds are one kernel, gbk_push_levels, with the same
semantics; a round that ends in a union of lists (delta-stepping's) writes its result into
the state and ends in gbk_union_lists_a_loop.  All need a state with room for every
position (``widen``).  Known sequences of a captured round's kernels are fused (fusion.py).

The persistent kernel is still found by a capture: the round captured as for a WHILE node,
its push replaced by the cooperative launch's arguments (noted, not made), its first step
hoisted, leaves an empty graph, which is dropped.  A round the capture cannot make one push
so is captured again for a WHILE node; a device that refuses the cooperative launch (no
support, no block resident) makes the loop take the WHILE node from its next dry rounds.

A result that outgrows the state stops the loop on the device with the state untouched (its
round's other effects done); the host reads that, grows the state (doubling, at most the
vector's size), copies the result, which the graph's kept allocations still hold, into it and
resumes with dry rounds and a new capture: the same rounds as a loop that never overflowed.
A wide result instead goes on from Python, from that result (a BFS on urand-22: a few levels
of thousands of vertices, then levels of millions).

No round is issued before the dry rounds but the settling ones: the dry rounds warm the
caches themselves, and each round issued before them cost a bucket of delta-stepping as much
as 0.35 ms of the host (H200).

Two primitives keep a round's counts on the device where they would read them on the host:
a reduction of a list whose value stays on the device (a Scalar bound by pointer, as
delta-stepping's bucket bound) reads the list's count in its kernel (``gbk_reduce_list``; in
a replay an empty list gives the monoid's identity, where a round issued from Python gives no
value), and ``ewise_add`` of two unsorted lists of one type is a union through a kept bitmap
of marks (``gbk_union_lists_b``/``_a``), not a sort.

A body the graph cannot hold (one that reads a count or a value to the host, makes a cache,
or replaces the storage of a collection made before it) raises ``recording.Refused`` or a
CUDA error inside the capture; the capture is dropped, nothing it recorded having run, and
the loop goes on from Python from the state: the answer does not depend on which way the
rounds ran (the body's own Python effects, if it has any, ran once more).  ``stats`` tells
how the last loop ran (tests and benchmarks read it).
"""

import contextlib
import logging
import threading

import cupy as cp
import numpy as np

from ...config import config
from .. import base as backend_base
from ..base import issue_rounds
from . import blocks, fusion, jit, programs, recording
from .blocks import INDEX, i64
from .memory import empty_pinned, is_out_of_memory
from .vectors import (
    _capture_pages, _pages, Counters, DeviceVector, ListVector, as_list, capture_page,
)

logger = logging.getLogger("graphblast")

DRY_ROUNDS = 3

# The state's first capacity: the loop's vector's count, at least CAPACITY_FLOOR entries or
# 1/CAPACITY_SHARE of the positions (never more than all of them); it doubles when exceeded.
CAPACITY_FLOOR = 1 << 14
CAPACITY_SHARE = 64
# A round with more entries than WIDE_FLOOR or 1/WIDE_SHARE of the positions makes a *wide*
# loop, bound by its kernels rather than by the host: the rest of it runs from Python.
WIDE_FLOOR = 1 << 16
WIDE_SHARE = 16


# While a round's result is GROWTH times its input or more, the loop's rounds are issued from
# Python before any state or recording (``_Loop.settle``); a dry round growing so and about to
# be wide sends the loop to Python before a capture that would serve one round.
GROWTH = 8


def _wide(count, n):
    return count > max(WIDE_FLOOR, n // WIDE_SHARE)


def _widening(before, count, n):
    return before > 0 and count >= GROWTH * before and _wide(count * count // before, n)

# How the last loop on this process ran: "mode" ("while", "replay" or "python"), "launches"
# (graph launches), "rounds", "grown" (times the state grew mid-loop), "reason" (why a loop
# did not run on the device, if so), "round_kernels" (the names of the kernels each round of
# the last captured graph launches, in order).
stats = {}


def repeat(body, x, max_rounds):
    """``x = body(x, k)`` (``k``: the round's number) while ``x`` has entries and fewer than
    ``max_rounds`` (None: no limit) rounds ran; run by the device where the body allows (a
    loop inside a recorded body is issued)."""
    mode = config["device_loops"]
    if mode == "never" or recording.current() is not None:
        x, rounds = issue_rounds(body, x, max_rounds)
        stats.clear()
        stats.update(mode="python", launches=0, rounds=rounds, grown=0,
                     reason="never" if mode == "never" else "a loop inside a recorded body")
        return x
    if max_rounds == 0 or not x.nvals:
        return x
    return _on_device(body, x, max_rounds, mode)


def _on_device(body, x, max_rounds, mode):
    """The loop, holding the device's loop lock (its capture stream and control words are
    one per device: another thread's loop meanwhile is issued from Python)."""
    lock = _per_device().lock
    if not lock.acquire(blocking=False):
        stats.clear()
        stats.update(launches=0, grown=0)
        return _python(body, x, max_rounds, 0, "another thread's loop holds the device")
    try:
        return _Loop(body, max_rounds, mode).run(x)
    finally:
        lock.release()


class _Loop:
    """One call's loop: the state, its control words, the rounds made so far."""

    def __init__(self, body, max_rounds, mode):
        self.body, self.max_rounds, self.mode = body, max_rounds, mode
        self.limit = -1 if max_rounds is None else max_rounds
        self.rounds = 0
        self.ctl = self.round = None  # (round, overflow flag, its count, ticket); ctl[:1]
        self.state = self.xs = self.noted = self.token = self.wrap = None
        self.capacity = self.count = 0  # the state's capacity, and its count where known
        stats.clear()
        stats.update(mode=None, launches=0, rounds=0, grown=0, reason=None, round_kernels=None)

    def done(self):
        return self.max_rounds is not None and self.rounds >= self.max_rounds

    def run(self, x):
        """The loop from ``x``: dry rounds, a capture and the device's loop, again after
        each growth of the state; from Python where the body cannot be recorded."""
        # the caller's Vector class (backends import no core module)
        self.wrap = lambda state: type(x)._from_data(state, x._backend, x.device)
        x, ended = self.settle(x)
        if ended:
            stats["mode"], stats["rounds"] = "python", self.rounds
            return x
        if ended is None:  # a wide loop, bound by its kernels
            return _python(self.body, x, self.max_rounds, self.rounds,
                           f"a round of {self.count:,} entries: a wide loop")
        try:
            # the round number the body reads on the device, from where the settling left it
            self.ctl = cp.asarray(np.array([self.rounds, 0, 0, 0], dtype=np.int64))
            self.round = self.ctl[:1]
            self.grow(x.size, x.dtype, self.count)
            _copy_into(self.state, x._data)
        except Exception as e:  # noqa: BLE001 - the loop on the device needs room for its state
            if not is_out_of_memory(e):
                raise
            return _python(self.body, x, self.max_rounds, 0, f"no room for the state: {e}")
        while True:
            out = self.dry_rounds()
            if out is not None:
                stats["rounds"] = self.rounds
                stats["mode"] = stats["mode"] or "python"
                return out
            if self.widen():  # a round of one kernel needs a state of every position:
                continue      # the dry rounds again, on it
            graph = self.capture()
            if graph is None:
                return _python(self.body, self.xs, self.max_rounds, self.rounds,
                               stats["reason"] or "no capture")
            try:
                outgrown = self.device_loop(graph)
            finally:
                graph.close()
                _forget_counts()
            if outgrown is None:
                stats["rounds"] = self.rounds
                return self.xs
            if outgrown == "refused":  # the WHILE node from the next capture
                continue
            if outgrown is not True:  # a wide result: the rest from Python, from it
                return _python(self.body, self.wrap(outgrown), self.max_rounds, self.rounds,
                               "a round outgrew the state: a wide loop")
            stats["grown"] += 1

    def settle(self, x):
        """Rounds issued from Python, with no state and no recording, while the vector grows
        GROWTH-fold a round: a loop about to be wide (a BFS on a scale-free graph: 1, 32, 1,000,
        32,000 entries, then millions) pays nothing for a device loop it would leave, and one
        that settles (a BFS on a mesh, after a level or two) records from where it is.  Returns
        (the last vector, True if the loop ended, None if it is wide, False to go on)."""
        before = x.nvals
        while True:
            if self.done():
                return x, True
            y = self.body(x, self.rounds)
            self.rounds += 1
            self.count = count = y.nvals
            if not count or self.done():
                return y, True
            if _wide(count, y.size):
                return y, None
            if count < GROWTH * before:
                return y, False
            x, before = y, count

    def grow(self, n, dtype, count):
        """A new, empty state with room for ``count`` entries: the capacity doubled, at least
        the first capacity (CAPACITY_FLOOR, CAPACITY_SHARE), at most every position; the
        same state, its capacity raised, where it has the room (``widen``)."""
        cap = min(n, max(count, 2 * self.capacity, CAPACITY_FLOOR, n // CAPACITY_SHARE))
        if self.state is not None and self.state.idx.shape[0] >= cap:
            self.capacity = cap  # a state widened for gbk_push_loop has room already
            return
        self.state = ListVector(n, dtype, cp.empty(max(cap, 1), dtype=INDEX),
                                cp.empty(max(cap, 1), dtype=dtype.np_type), Counters(),
                                ordered=False)
        self.capacity = cap
        self.xs = self.wrap(self.state)

    def widen(self):
        """Where the settled round's last kernel can end it under a WHILE node (a round that
        is one push, the noted round's ``fusable``: gbk_push_loop; a round ending in a union:
        fusion.round_end), a state with room for every position, since the state and the
        push's output alternate as the round's input and output, or the union writes its
        result into the state: True if made (the dry rounds are then run again on it).  The
        capacity the host keeps, which decides when the loop stops to grow or goes wide, is
        unchanged."""
        state = self.state
        push = self.noted.fusable is not None and (_while_possible(self.mode)
                                                  or _persistent_possible(self.mode))
        union = fusion.round_end(self.noted.launches) and _while_possible(self.mode)
        if not FUSE_ROUND or not (push or union) or state.idx.shape[0] >= state.size:
            return False
        try:
            wide = ListVector(state.size, state.dtype, cp.empty(state.size, dtype=INDEX),
                              cp.empty(state.size, dtype=state.dtype.np_type), Counters(),
                              ordered=False)
            _copy_into(wide, state)
        except Exception as e:  # noqa: BLE001 - without room for it, the round is unfused
            if not is_out_of_memory(e):
                raise
            return False
        self.state, self.xs = wide, self.wrap(wide)
        return True

    # -- 2. dry rounds ----------------------------------------------------------------------
    def dry_rounds(self):
        """Rounds issued from Python until two in a row record the same: None then (ready to
        capture), else the loop's result (it ended in them or went on from Python)."""
        self.token, before = object(), None
        before_count = self.count
        for _ in range(DRY_ROUNDS):
            if self.done():
                return self.xs
            rec = recording.Recording("dry", self.token)
            with _recording(rec):
                y = self.body(self.xs, self.round)
                parts = stamp = None
                if y.dtype == self.state.dtype:
                    parts = as_list(y._data)
                    stamp = _unclaim_at(rec, parts)
                    if stamp is not None:
                        rec.fusable = rec.round_push(parts[0], self.state.idx)
                else:
                    rec.flush_unclaim()
            self.rounds += 1
            if parts is None:  # the rounds change the vector's type
                return _python(self.body, y, self.max_rounds, self.rounds,
                               f"it returns {y.dtype} for {self.state.dtype}")
            count = y.nvals  # the dry round's one read of its result
            wide = _widening(before_count, count, y.size) or (
                count > self.capacity and _wide(count, y.size))
            if wide:  # a loop bound by its kernels, not by its host
                _release_claims(parts, stamp)
                return _python(self.body, y, self.max_rounds, self.rounds,
                               f"a round of {before_count:,} -> {count:,} entries: a wide "
                               "loop")
            before_count = self.count = count
            if count > self.capacity:
                self.grow(self.state.size, self.state.dtype, count)
                stats["grown"] += 1
            _advance(self.state, parts, self.ctl, self.limit, None, stamp=stamp)
            y = parts = None
            if not count or self.done():
                return self.xs
            if before is not None and rec.same_as(before):
                self.noted = rec
                return None
            before = rec
        # a value of the body that changes from round to round: its effects intact
        return _python(self.body, self.xs, self.max_rounds, self.rounds, "its rounds differ")

    # -- 3. the capture -----------------------------------------------------------------------
    def capture(self):
        """The round captured, as the body of a conditional WHILE node where the mode and the
        driver allow, else for replays; None (the reason in ``stats``) where the body cannot
        be held by a graph ("replay" from ``_capture``: a WHILE graph the driver would not
        instantiate, the round then captured again without it)."""
        if (FUSE_ROUND and self.noted.fusable is not None
                and self.state.idx.shape[0] >= self.state.size):
            if _persistent_possible(self.mode):
                graph = self._capture(None, persistent=True)
                if graph != "unfused":
                    return graph
            elif self.mode == "persistent":
                logger.debug("repeat: no persistent kernel (%s)", _Persistent.support)
        if self.mode != "replay":
            cond, why = _While.create()
            if cond is None:  # logged where asked for ("auto" falls back quietly)
                if self.mode == "while":
                    logger.debug("repeat: no conditional node (%s): the round is replayed", why)
                stats["reason"] = why
            else:
                graph = self._capture(cond)
                if graph != "replay":
                    return graph
        return self._capture(None)

    def _capture(self, cond, persistent=False):
        """The round on the state captured (see the module docstring), ending with
        ``gbk_loop_next`` (setting ``cond``'s condition when given), or None; ``persistent``:
        its push noted as gbk_push_levels's launch, or "unfused" where it is not so."""
        state = self.state
        dev = _per_device()
        stream = dev.stream
        stream.wait_event(cp.cuda.get_current_stream().record())
        page = capture_page()  # the counters made in the graph (zeroed by gbk_loop_next)
        rec = recording.Recording("capture", self.token, self.noted, born=set(), page=page)
        if FUSE_ASSIGN:
            rec.hoist_from = (state, self.round)
        rec.fusions = fusion.plan(self.noted.launches)
        end = None
        if persistent:
            rec.tail = recording.LoopTail(self.noted.fusable, state, self.ctl, self.rounds,
                                          self.limit, self.capacity, None,
                                          kernel="gbk_push_levels", words=dev.words)
            _load_push_loop(self.noted, programs.push_levels)
        elif cond is not None and FUSE_ROUND and state.idx.shape[0] >= state.size:
            if self.noted.fusable is not None:
                rec.tail = recording.LoopTail(self.noted.fusable, state, self.ctl, self.rounds,
                                              self.limit, self.capacity, cond.handle_value)
                _load_push_loop(self.noted, programs.push_loop)
            else:
                end = fusion.round_end(self.noted.launches)
                if end is not None:
                    rec.end_at = end[0]
        allocate = cp.cuda.get_allocator()

        def kept(size):  # every allocation the graph may refer to lives as long as the graph
            memory = allocate(size)
            rec.keep.append(memory)
            return memory

        captured = error = result = None
        with stream, cp.cuda.using_allocator(kept):
            try:
                stream.begin_capture()
            except Exception as e:  # noqa: BLE001 - no capture here (a driver's refusal)
                stats["reason"] = f"no capture: {e}"
                if cond is not None:
                    cond.close()
                return None
            try:
                with _recording(rec):
                    y = self.body(self.xs, self.round)
                    if y.dtype != state.dtype:
                        raise recording.Refused(f"a result of type {y.dtype} for {state.dtype}")
                    if not isinstance(y._data, DeviceVector):
                        raise recording.Refused("a result whose count the host fixed")
                    result = y._data
                    parts = as_list(result)
                    fused = rec.tail is not None and rec.tail.used
                    if fused and parts[0] is not rec.tail.out[0]:
                        raise recording.Refused("a round whose result is not its push's")
                    stamp = None if fused else _unclaim_at(rec, parts)
                    y = None
                    if not rec.complete():
                        raise recording.Refused("fewer launches than the dry rounds made")
                if rec.held:  # the round's last launches, a union: into the state?
                    ended = self._end_in_state(rec, end[1], parts, stamp, cond, page)
                    fused = ended is not None
                    rec.tail = ended or rec.tail
                if not fused:  # else the round's last kernel ends it
                    _advance(state, parts, self.ctl, self.limit, cond, page, stamp,
                             rec.hoisted)
                parts = None
            except Exception as e:  # noqa: BLE001 - any step the graph cannot hold
                error = e
            finally:
                try:
                    captured = stream.end_capture()
                except Exception as e:  # noqa: BLE001 - an invalidated capture
                    captured = None
                    # the persistent kernel's round captured nothing (its push noted, its
                    # first step hoisted): the graph, if any, is not needed
                    if not (persistent and error is None and rec.tail.launch is not None):
                        error = error or e
        if error is not None or (captured is None and not persistent):
            stats["reason"] = f"{type(error).__name__}: {error}"
            stream.synchronize()
            if cond is not None:
                cond.close()
            return None
        if persistent and not (fused and rec.tail.launch is not None
                               and _Persistent.grid(rec.tail.launch[0])):
            stream.synchronize()
            return "unfused"  # the round captured again, for a WHILE node
        graph = _Graph(captured, stream, rec.keep, result, page, rec.hoisted,
                       rec.tail if fused else None)
        stats["round_kernels"] = _round_kernels(rec)
        if persistent:
            logger.debug("repeat: the loop runs on the device (one cooperative kernel)")
            return graph
        if cond is not None:
            try:
                cond.instantiate(captured)
                graph.cond = cond
                logger.debug("repeat: the loop runs on the device (a conditional WHILE node)")
            except Exception as e:  # noqa: BLE001 - replays instead: captured again without it
                stats["reason"] = f"no WHILE node: {e}"
                logger.debug("repeat: %s", stats["reason"])
                cond.close()
                stream.synchronize()
                return "replay"
        else:
            logger.debug("repeat: the body replays as a CUDA graph")
        return graph

    def _end_in_state(self, rec, key, parts, stamp, cond, page):
        """Launch the round's held last launches: a union whose output is the round's result
        written into the state by gbk_union_lists_b and gbk_union_lists_a_loop, which ends
        the round (fusion.end_round), where nothing else is left for gbk_loop_next (no
        claims to reset, no hoisted step); else as they were.  The LoopTail, or None."""
        held, rec.held = rec.held, []
        state, out = self.state, held[-1][3][-3]
        loop = (self.ctl, np.int64(self.limit), i64(self.capacity), state.counters.array,
                page.array, i64(page.array.size), np.uint64(cond.handle_value))
        before = recording.current()
        recording.set_current(None)
        try:
            if (stamp is None and rec.hoisted is None and parts[0] is out
                    and fusion.end_round(key, held, state, loop)):
                tail = recording.LoopTail(rec.end_at, state, self.ctl, self.rounds,
                                          self.limit, self.capacity, cond.handle_value,
                                          alternates=False, kernel="gbk_union_lists_a_loop")
                tail.at, tail.used = len(rec.launches) - 1, True
                return tail
            for fn, grid, block, args in held:
                jit.run(fn, grid, block, args)
        finally:
            recording.set_current(before)
        return None

    # -- 4. the loop ---------------------------------------------------------------------------
    def device_loop(self, graph):
        """Launch ``graph`` (once under a WHILE node, else once per round) until the state is
        empty or the round limit is reached (None), or a round's result outgrew the state:
        True, the state then grown and holding that result, or the result itself where it
        makes the loop wide (``_wide``); "refused" where the device refused a persistent
        kernel's launch (nothing ran)."""
        stream = graph.stream
        dev = _per_device()
        host = dev.host
        persistent = graph.tail is not None and graph.tail.launch is not None
        stats["mode"] = ("persistent" if persistent else
                         "while" if graph.cond is not None else "replay")
        with stream:
            graph.page.zero()
            if graph.hoisted is not None:  # the first round's hoisted step, as it would be
                jit.run(*graph.hoisted.launch)
        while True:
            if persistent:
                try:
                    _Persistent.launch(graph.tail, dev, stream)
                except Exception as e:  # noqa: BLE001 - refused by the device: no round ran
                    _Persistent.support = f"the cooperative launch failed: {e}"
                    logger.debug("repeat: %s", _Persistent.support)
                    return "refused"
            else:
                graph.launch()
            stats["launches"] += 1
            cp.cuda.runtime.memcpyAsync(host.ctypes.data, self.ctl.data.ptr, 24,
                                        cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
            cp.cuda.runtime.memcpyAsync(host.ctypes.data + 24, self.state.counters.array.data.ptr,
                                        8, cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
            stream.synchronize()
            blocks.count_host_read()
            tail, ran = graph.tail, int(host[0]) - self.rounds
            self.rounds = int(host[0])
            result, count = graph.result, host[3]
            if tail is not None:  # the round's last kernel ended it: the result in the
                # state, or (one push a round) the state and the push's output alternate, the
                # last result in the state after an even number of rounds, and the claims
                # were made with an epoch a round, now all used
                count = host[2]
                if tail.scratch is not None:
                    tail.scratch.epoch += ran
                if not tail.alternates or ran % 2 == 0:
                    result = self.state
            if host[1]:  # the result outgrew the state: grown, and the loop resumes
                needed = int(host[2])
                cp.cuda.runtime.memsetAsync(self.ctl.data.ptr + 8, 0, 16,
                                            cp.cuda.get_current_stream().ptr)
                if _wide(needed, self.state.size):
                    return result
                self.grow(self.state.size, self.state.dtype, needed)
                _copy_into(self.state, result)
                self.count = needed
                return True
            if tail is not None and result is graph.result:  # the push's list holds it
                _copy_into(self.state, result)
            if not count or self.done():
                return None


def _python(body, x, max_rounds, rounds, reason):
    """The rest of the loop issued from Python, from round ``rounds``."""
    logger.debug("repeat: the body runs from Python (%s)", reason)
    stats["mode"], stats["reason"] = "python", reason
    x, stats["rounds"] = issue_rounds(body, x, max_rounds, rounds)
    return x


class _Graph:
    """A captured round: its graph, the stream it runs on, what it refers to (kept alive),
    the round's result as the graph leaves it, and the WHILE node's graph if it has one."""

    __slots__ = ("captured", "stream", "keep", "result", "page", "cond", "hoisted", "tail")

    def __init__(self, captured, stream, keep, result, page, hoisted, tail=None):
        self.captured = captured
        self.stream = stream
        self.keep = keep
        self.result = result
        self.page = page  # the counters made in the round: zeroed before the first, and
        self.cond = None  # by each round's gbk_loop_next for the next
        self.hoisted = hoisted  # the round's first step done by gbk_loop_next, or None
        self.tail = tail  # the LoopTail of a round that is one kernel (gbk_push_loop), or None

    def launch(self):
        if self.cond is not None:
            self.cond.launch(self.stream)
        else:
            self.captured.launch(self.stream)

    def close(self):
        if self.cond is not None:
            self.cond.close()
            self.cond = None


class _While:
    """A graph of one conditional WHILE node (CUDA 12.4+, through ``cuda.bindings``): made
    with its condition's handle before the round is captured (the round's last kernel sets
    the condition), the captured round then added as its body (a child graph) and the whole
    instantiated.  The condition is 1 as each launch begins."""

    _support = None  # None: not yet asked; True; or why not (a string)

    def __init__(self, rt, graph, handle, node_body):
        self.rt, self.graph, self.handle, self.body = rt, graph, handle, node_body
        self.exec = None

    @classmethod
    def create(cls):
        """(a new _While, None) or (None, why not)."""
        if cls._support is None:
            cls._support = _while_support()
        if cls._support is not True:
            return None, cls._support
        from cuda.bindings import runtime as rt

        graph = None
        try:
            graph = _ok(rt.cudaGraphCreate(0), "cudaGraphCreate")
            handle = _ok(rt.cudaGraphConditionalHandleCreate(graph, 1, _ASSIGN_DEFAULT),
                         "cudaGraphConditionalHandleCreate")
            params = rt.cudaGraphNodeParams()
            params.type = rt.cudaGraphNodeType.cudaGraphNodeTypeConditional
            params.conditional.handle = handle
            params.conditional.type = rt.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile
            params.conditional.size = 1
            try:  # CUDA 13's signature (with the edge data), else CUDA 12's
                _ok(rt.cudaGraphAddNode(graph, None, None, 0, params), "cudaGraphAddNode")
            except TypeError:
                _ok(rt.cudaGraphAddNode(graph, None, 0, params), "cudaGraphAddNode")
            body = params.conditional.phGraph_out[0]
        except Exception as e:  # noqa: BLE001 - a driver without them: replays
            if graph is not None:
                rt.cudaGraphDestroy(graph)
            cls._support = f"{type(e).__name__}: {e}"
            return None, cls._support
        return cls(rt, graph, handle, body), None

    @property
    def handle_value(self):
        return int(self.handle)

    def instantiate(self, captured):
        """The captured round (a CuPy Graph) as the node's body, and the graph instantiated."""
        rt = self.rt
        _ok(rt.cudaGraphAddChildGraphNode(self.body, None, 0, captured.graph),
            "cudaGraphAddChildGraphNode")
        self.exec = _ok(rt.cudaGraphInstantiate(self.graph, 0), "cudaGraphInstantiate")

    def launch(self, stream):
        _ok(self.rt.cudaGraphLaunch(self.exec, stream.ptr), "cudaGraphLaunch")

    def close(self):
        rt = self.rt
        if self.exec is not None:
            rt.cudaGraphExecDestroy(self.exec)
            self.exec = None
        if self.graph is not None:
            rt.cudaGraphDestroy(self.graph)
            self.graph = None


_ASSIGN_DEFAULT = 1  # cudaGraphCondAssignDefault: the default value set as each launch begins
_WHILE_DRIVER = 12040  # conditional WHILE nodes and cudaStreamBeginCaptureToGraph: CUDA 12.4


def _while_support():
    """True where conditional WHILE nodes can be made here, else why not."""
    try:
        from cuda.bindings import runtime as rt
    except ImportError as e:
        return f"cuda.bindings is not installed ({e})"
    try:
        version = _ok(rt.cudaDriverGetVersion(), "cudaDriverGetVersion")
    except Exception as e:  # noqa: BLE001
        return str(e)
    if version < _WHILE_DRIVER:
        return f"the driver supports CUDA {version // 1000}.{version % 1000 // 10}, before 12.4"
    return True


def _ok(result, what):
    """The value of a ``cuda.bindings`` call's (error, value...) result; raises on an error."""
    err, *rest = result
    if int(err) != 0:
        name = getattr(err, "name", str(err))
        raise RuntimeError(f"{what} failed: {name}")
    return rest[0] if len(rest) == 1 else (tuple(rest) if rest else None)


class _Device:
    """Per device: the capture stream, the page-locked words the loop's end is read into,
    the persistent kernel's words, and the lock of the one loop that may use them at a
    time.  One stream for every loop: the memory pool keeps its cached blocks per stream (a
    stream per loop would strand each loop's), and a page-locked allocation costs far more
    than a round."""

    __slots__ = ("stream", "host", "lock", "words")

    def __init__(self):
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.host = empty_pinned(4, np.int64)
        self.lock = threading.Lock()
        # gbk_push_levels's barrier, counter slots and degree sum (zeroed before each launch)
        self.words = cp.zeros(5, dtype=np.uint64)


_devices = {}  # device id -> _Device
_devices_lock = threading.Lock()


def _per_device():
    device = cp.cuda.runtime.getDevice()
    found = _devices.get(device)
    if found is None:
        with _devices_lock:
            found = _devices.get(device)
            if found is None:
                found = _devices[device] = _Device()
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


def _copy_into(state, data):
    """Queue the copy of the vector ``data`` (same size and type, at most the state's
    capacity of entries) into ``state``."""
    idx, vals, counters, cap = as_list(data)
    (fn,) = jit.compiled(programs.vector_kernel, "list_copy", state.dtype).fns
    jit.launch(fn, max(cap, 1), (i64(cap), None if counters is None else counters.array, idx,
                                 vals, state.idx, state.vals, state.counters.array))
    state.changed()


def _advance(state, parts, ctl, limit, cond, page=None, stamp=None, hoisted=None):
    """Queue ``gbk_loop_next``: the round's result ``parts`` (``as_list``'s) into ``state``,
    the round counted, ``cond``'s condition set (a _While, or None outside one) and, where
    the loop goes on, the counter page ``page`` of a captured round zeroed for the next, with
    ``stamp`` the claims of the push whose output the result is reset, and with ``hoisted``
    (recording.Hoisted) the next round's first step done.  Its launch
    is the loop's, not the body's: the recording does not compare it."""
    idx, vals, counters, cap = parts
    if hoisted is None:
        (fn,) = jit.compiled(programs.loop_next, state.dtype).fns
        extra = (None, None, None, np.int32(0), np.uint8(0))
    else:
        target = hoisted.target
        (fn,) = jit.compiled(programs.loop_next, state.dtype, target.dtype).fns
        value = jit.scalar(0 if hoisted.from_counter else hoisted.value, target.dtype)
        extra = (target.bits, target.vals, target.counters.array,
                 np.int32(hoisted.from_counter), value)
    # a grid for what fits in the state (a result's capacity may be every position: a push's)
    grid = max(1, min(-(-max(min(cap, state.idx.shape[0]), 1) // jit.BLOCK), LOOP_NEXT_GRID))
    before = recording.current()
    recording.set_current(None)
    try:
        jit.run(fn, grid, jit.BLOCK, (
            i64(cap), None if counters is None else counters.array, idx, vals,
            i64(state.idx.shape[0]), state.idx, state.vals, state.counters.array, ctl,
            np.int64(limit), None if page is None else page.array,
            i64(0 if page is None else page.array.size), stamp,
            np.uint64(0 if cond is None else cond.handle_value), np.int32(cond is not None),
            *extra))
    finally:
        recording.set_current(before)
    state.changed()


# A captured round that is one first-claim push (BFS's level) run under a WHILE node as one
# kernel, gbk_push_loop, which ends the round itself (False: the push and gbk_loop_next).
FUSE_ROUND = True


def _load_push_loop(noted, program):
    """Load ``program`` (programs.push_loop or push_levels) for the noted round's push, alone
    and with the assign its round begins with (where it is one, which the capture may
    hoist), before the capture: no kernel is loaded while a stream captures."""
    key = noted.pushed[4]
    jit.compiled(program, *key)
    if noted.launches:
        first = noted.launches[0][0]
        for (_, made, args), kernels in list(jit._by_call.items()):
            if made is programs.assign_scalar and first in kernels.fns:
                jit.compiled(program, *key, args[1])


def _while_possible(mode):
    """Whether a loop in ``mode`` would run under a WHILE node here (not asking twice)."""
    if mode == "replay":
        return False
    if _While._support is None:
        _While._support = _while_support()
    return _While._support is True


def _persistent_possible(mode):
    """Whether a loop in ``mode`` whose round is one first-claim push would run as one
    cooperative kernel here."""
    return FUSE_ROUND and mode in ("auto", "persistent") and _Persistent.support is True


class _Persistent:
    """The loop as one cooperative launch of gbk_push_levels (spmspv.cuh): its grid, and
    whether this process may launch it (``support``: True, or why not, set where the
    device refused; a device without cooperative launches gives it no block, ``grid``)."""

    support = True

    @classmethod
    def grid(cls, fn):
        """The launch's blocks: every block the device holds at once, at most
        PERSISTENT_BLOCKS_PER_SM an SM; 0 (and ``support`` says why) where there are none."""
        resident = cls._resident.get(fn)
        if resident is None:
            try:
                resident = jit.co_resident(fn, jit.BLOCK)
            except Exception as e:  # noqa: BLE001 - a driver that cannot say: no kernel
                resident, cls.support = (0, 0), f"no occupancy: {e}"
            if resident[0] == 0 and cls.support is True:
                cls.support = "the device launches no cooperative kernel here"
            cls._resident[fn] = resident
        per_sm, sms = resident
        return min(per_sm, PERSISTENT_BLOCKS_PER_SM) * sms

    _resident = {}  # kernel -> (its blocks an SM holds at once, the SMs)

    @classmethod
    def launch(cls, tail, dev, stream):
        """The loop's rounds from the state, on ``stream``: the kernel's words zeroed (the
        barrier's arrivals, the rounds' counter slots), then the cooperative launch."""
        fn, args = tail.launch
        cp.cuda.runtime.memsetAsync(dev.words.data.ptr, 0, dev.words.nbytes, stream.ptr)
        with stream:
            jit.run_cooperative(fn, cls.grid(fn), jit.BLOCK, args, stream)


# gbk_push_levels's blocks an SM at most: each round ends at a barrier of every block, whose
# cost grows with the blocks; a BFS level of a long-diameter graph has a few thousand
# vertices at most.
PERSISTENT_BLOCKS_PER_SM = 2


# The claims of a round's last push reset by gbk_loop_next where the round's result is that
# push's output (False: by gbk_list_unclaim, a kernel of its own).
FUSE_UNCLAIM = True
# gbk_loop_next's blocks at most (each takes a ticket on one word, and the last zeroes the
# round's counter page).
LOOP_NEXT_GRID = jit.RECORDED_MAX_GRID
# A captured round's first step, a plain scalar assign under the loop's state (BFS's
# `levels(frontier.S) << depth`), done for the next round by gbk_loop_next as it copies the
# round's result (False: a kernel of its own at the round's start).
FUSE_ASSIGN = True


def _round_kernels(rec):
    """The names of a captured round's kernels, in order, its loop's own last one included:
    what each round of the graph launches (``stats["round_kernels"]``)."""
    names = []
    fused = rec.tail is not None and rec.tail.used
    sequences = {first: (length, name) for first, length, name in rec.fused}
    skip = 0
    for i, (fn, *_) in enumerate(rec.launches):
        if skip:
            skip -= 1
        elif i == 0 and rec.hoisted is not None:
            continue
        elif fused and i == rec.tail.at:
            names.append(rec.tail.kernel)
        elif i in sequences:
            skip = sequences[i][0] - 1
            names.append(fusion.KERNELS[sequences[i][1]])
        else:
            names.append(getattr(fn, "name", str(fn)).split("<")[0])
    return names if fused else names + ["gbk_loop_next"]


def _unclaim_at(rec, parts):
    """The stamps of a push whose claims are at the result's list ``parts``, for
    gbk_loop_next to reset, or None (any other pending reset launched here, in the round)."""
    if FUSE_UNCLAIM:
        return rec.take_unclaim(parts[0])
    rec.flush_unclaim()
    return None


def _release_claims(parts, stamp):
    """Reset the claims a dry round left for gbk_loop_next where the loop leaves the device
    path before that kernel runs."""
    if stamp is not None:
        idx, _, counters, cap = parts
        (fn,) = jit.compiled(programs.list_unclaim).fns
        jit.launch(fn, cap, (i64(cap), None if counters is None else counters.array, idx,
                             stamp))


def _forget_counts():
    """The host copies of the counter pages are stale after the device's rounds (their slots
    changed with no touch from Python)."""
    for page in [*(p for pages in _pages.values() for p in pages), *_capture_pages.values()]:
        page.snapshot, page.snapshot_seq = None, 0
