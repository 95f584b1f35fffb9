"""Whether a loop body is being recorded for replay (loops.py), and what the engine does then.

A body is recorded in *dry* rounds issued as usual, each noting its products' directions and
its kernel launches, until two in a row make the same (the first round of a loop also builds
every cache and compiles every kernel, so it may differ from the next); then the same round
under CUDA stream capture.  In all of them no count the host holds is trusted
(``Counters.peek`` answers None: the replays change every count the round reads), so they
take the same code paths, and the dry rounds build every cache the captured one will use.
While capturing:

- a counter slot comes from the device's capture page, which the graph zeroes as it begins
  (one memset node, so each replay counts from zero), and stays reserved while the graph
  lives (``keep``);
- push's claims are cleared after it, in the graph (a replay repeats the loop's one epoch):
  before the round's next push, or by the loop's last kernel as it copies the round's
  result when that is the push's output list;
- nothing that outlives the round may be made or replaced: a cache (its contents would exist
  only once the graph runs), a counter page, the storage of a collection made before the
  body (a replay would read the old storage again).  Such a step raises :class:`Refused`,
  and the loop goes on from Python.
"""

import threading

import numpy as np


class _Local(threading.local):
    # None unless this thread records a body.  A class default, not getattr(local, "rec",
    # None): a missing attribute costs an AttributeError on every lookup (0.42 us against
    # 0.07 on the development machine), and every launch, count and adopt looks (the H200's
    # per-call figure read 28 -> 38 us with getattr)
    rec = None


# ``thread.rec`` is current() without its call, for the paths every call takes (a launch,
# a counter slot, an adopt, Counters.peek, a product and its planner)
thread = _Local()


def current():
    """The Recording of this thread's loop body being recorded, else None."""
    return thread.rec


def set_current(rec):
    thread.rec = rec


class Refused(Exception):
    """A step a recorded loop body may not contain; the loop runs from Python instead."""


class Recording:
    """One recorded round of the loop ``loop`` (a token its rounds share).  ``mode``: "dry"
    (a round issued as usual: its products' directions, as the planner chose them, and its
    kernel launches noted) or "capture" (the captured round: the directions of ``noted``, a
    dry round's recording, taken, for its planner cannot read counts, and any launch unlike
    ``noted``'s refused: a Python value of the body that changes from round to round, a
    depth counter, would be frozen in the graph)."""

    __slots__ = ("mode", "capturing", "keep", "born", "directions", "launches", "taken",
                 "launched", "planning", "loop", "page", "unclaim", "hoist_from", "hoisted",
                 "pushed", "fusable", "tail", "fusions", "deferred", "fused", "end_at",
                 "held")

    def __init__(self, mode, loop, noted=None, born=None, page=None):
        self.mode = mode
        self.capturing = mode == "capture"
        self.keep = []  # objects the graph refers to: counter slots, allocations
        self.born = born  # ids of the collections made while capturing
        self.directions = [] if noted is None else noted.directions
        self.launches = [] if noted is None else noted.launches
        self.loop = loop
        self.taken = self.launched = 0
        self.planning = False
        self.page = page  # capturing: the counter page of the counts made in the round
        self.unclaim = None  # a push's claims to clear: (capacity, counters, list, stamps)
        # capturing: (the loop's state, its round counter) where the round's first step may
        # be hoisted into the loop's last kernel (loops.py), and the Hoisted step if it was
        self.hoist_from = None
        self.hoisted = None
        # the round's last push: (its output list, its input list, whether gbk_push_loop can
        # be it, the launches made up to it); a dry round's ``fusable``: the launch at which
        # the round is that one push (loops.py), else None; capturing: the LoopTail the push
        # at that launch fuses the loop's end into, or None
        self.pushed = None
        self.fusable = None
        self.tail = None
        # capturing: the sequences of launches to fuse (fusion.plan's, by their first
        # launch), the launches of the one being collected (its plan, the launches), and
        # the (first launch, length, fused kernel's name) of those fused
        self.fusions = {}
        self.deferred = None
        self.fused = []
        # capturing: the launch from which the round's last ones are held for the loop to
        # make (a union written into its state: fusion.end_round), and those held
        self.end_at = None
        self.held = []

    def direction(self, planned):
        """The direction of the round's next product (``planned()`` asks the planner, whose
        own launches are not the round's)."""
        if self.capturing:
            if self.taken >= len(self.directions):
                raise Refused("a product the dry rounds did not make")
            self.taken += 1
            return self.directions[self.taken - 1]
        self.planning = True
        try:
            choice = planned()
        finally:
            self.planning = False
        self.directions.append(choice)
        return choice

    def launch(self, fn, grid, block, args):
        """Note a kernel launch of the round, or (capturing) compare it with the noted one.
        True where the caller is not to make it: capturing, a launch of a sequence to fuse
        (fusion.py), made with the sequence's last."""
        if self.planning:
            return False
        seen = (fn, grid, block, tuple(_value_of(a) for a in args))
        if not self.capturing:
            self.launches.append(seen)
            return False
        k = self.launched
        if k >= len(self.launches) or self.launches[k] != seen:
            raise Refused("a launch unlike the dry rounds' (a value of the body that changes "
                          "from round to round)")
        self.launched += 1
        if self.end_at is not None and k >= self.end_at:
            self.held.append((fn, grid, block, args))
            return True
        if self.deferred is None:
            planned = self.fusions.get(k)
            if planned is None:
                return False
            self.deferred = (k, planned, [])
        first, (name, length, key), made = self.deferred
        made.append((fn, grid, block, args))
        if len(made) == length:
            self.deferred = None
            self._launch_fused(first, name, key, made)
        return True

    def _launch_fused(self, first, name, key, made):
        from . import fusion  # (fusion imports jit, which imports this module)

        before, thread.rec = thread.rec, None
        try:
            if fusion.launch(name, key, made):
                self.fused.append((first, len(made), name))
        finally:
            thread.rec = before

    def hoist_assign(self, fn, grid, block, args, mask_idx, plain, value, target):
        """Whether the captured round's scalar assign ``fn`` (launched as ``grid``, ``block``,
        ``args``) is left to the loop's last kernel, which does it for the next round as it
        copies the round's result (``Hoisted``): so where it is the round's first launch,
        under the loop's state's structure (``mask_idx`` its list), ``plain`` (no accumulator,
        complement or replace: idempotent; a built-in type, to which the kernel casts the
        round number) and its ``value`` a host scalar or the round counter itself.  ``target``: the bitmap vector assigned into.  It is compared with the
        dry rounds' launch as if made, and not made."""
        if (not self.capturing or self.hoist_from is None or self.hoisted is not None
                or self.launched or not plain):
            return False
        state, counter = self.hoist_from
        if mask_idx is not state.idx:
            return False
        from_counter = hasattr(value, "__cuda_array_interface__")
        if from_counter and (value.dtype != np.int64
                             or value.data.ptr != counter.data.ptr):
            return False
        self.launch(fn, grid, block, args)
        self.hoisted = Hoisted((fn, grid, block, args), target, from_counter,
                               None if from_counter else value)
        return True

    def note_push(self, out_idx, in_idx, fusable, key):
        """A push has made its launches, its output the list ``out_idx`` from ``in_idx``;
        ``fusable``: one first-claim launch, which gbk_push_loop (programs.push_loop's
        arguments ``key``, the assign's type left out) can make instead."""
        made = self.launched if self.capturing else len(self.launches)
        self.pushed = (out_idx, in_idx, fusable, made, key)

    def round_push(self, result_idx, state_idx):
        """The index of the launch that is the whole round (bar a first step left to the
        round before, the hoisted assign), or None: the round's last launch is a fusable
        push from ``state_idx`` whose output is the round's result ``result_idx``."""
        if self.pushed is None:
            return None
        out_idx, in_idx, fusable, made, _ = self.pushed
        if (not fusable or out_idx is not result_idx or in_idx is not state_idx
                or made != len(self.launches) or made > 2):
            return None
        return made - 1

    def tail_here(self):
        """Capturing: the LoopTail to fuse into the push about to launch, where it is the
        round's noted fusable launch and every launch before it was hoisted; else None."""
        tail = self.tail
        if tail is None or tail.used or self.launched != tail.at:
            return None
        if tail.at and not (tail.at == 1 and self.hoisted is not None):
            return None
        return tail

    def defer_unclaim(self, cap, counters, idx, stamp):
        """A push's claims at its output list ``idx`` (count in ``counters``), to reset to
        "never claimed" before the next push claims (``flush_unclaim``), or by the loop's
        own last kernel where the round's result is that very list (one kernel less a
        round: ``take_unclaim``)."""
        self.flush_unclaim()
        self.unclaim = (cap, counters, idx, stamp)

    def flush_unclaim(self):
        """Launch the pending reset of a push's claims (gbk_list_unclaim), if any."""
        pending, self.unclaim = self.unclaim, None
        if pending is not None:
            from . import jit, programs  # (jit imports this module)
            from .blocks import i64

            cap, counters, idx, stamp = pending
            (unclaim,) = jit.compiled(programs.list_unclaim).fns
            jit.launch(unclaim, cap, (i64(cap), counters.array, idx, stamp))

    def take_unclaim(self, idx):
        """The stamps whose claims are at the list ``idx``, for the loop's last kernel to
        reset as it copies that list, or None (any other pending reset launched now)."""
        pending = self.unclaim
        if pending is not None and pending[2] is idx:
            self.unclaim = None
            return pending[3]
        self.flush_unclaim()
        return None

    def same_as(self, other):
        """Whether this dry round made the products and launches of the dry round ``other``."""
        return self.directions == other.directions and self.launches == other.launches

    def complete(self):
        """Whether the captured round made every noted product and launch (a sequence to
        fuse that the round left unfinished is made as it was)."""
        if self.deferred is not None:
            first, (name, _, key), made = self.deferred
            self.deferred = None
            self._launch_fused(first, None, key, made)
        return self.taken == len(self.directions) and self.launched == len(self.launches)


class Hoisted:
    """A captured round's first step, a scalar assign under the loop's state, left to the
    loop's last kernel (gbk_loop_next): its launch as the round would have made it
    (the loop makes it once before the graph's first launch), the bitmap vector it assigns
    into, and its value: the round counter (``from_counter``) or a host scalar."""

    __slots__ = ("launch", "target", "from_counter", "value")

    def __init__(self, launch, target, from_counter, value):
        self.launch, self.target = launch, target
        self.from_counter, self.value = from_counter, value


class LoopTail:
    """The end of a device loop's round fused into the round's last kernel (gbk_push_loop, a
    round that is one push; gbk_union_lists_a_loop, a round ending in a union written into
    the state: loops.py), or every round in one kernel (gbk_push_levels): the launch it
    replaces, the loop's state and control words, the round the graph's first launch runs
    (``r0``), the round limit (-1: none), the state's capacity as the host keeps it, the
    WHILE node's condition handle or (gbk_push_levels) the kernel's barrier and counter
    words; filled by the push: ``used``, the stamps' owner (``scratch``, whose epoch the
    host advances past the rounds run), the push's output list and (gbk_push_levels) the
    kernel and arguments of the loop's one launch (``launch``), which the loop makes."""

    __slots__ = ("at", "state", "ctl", "r0", "limit", "capacity", "handle", "used", "scratch",
                 "out", "alternates", "kernel", "words", "launch")

    def __init__(self, at, state, ctl, r0, limit, capacity, handle, alternates=True,
                 kernel="gbk_push_loop", words=None):
        self.at, self.state, self.ctl, self.r0 = at, state, ctl, r0
        self.limit, self.capacity, self.handle = limit, capacity, handle
        self.used = False
        self.scratch = self.out = self.launch = None
        # whether the state and the round's output list alternate (else the round writes
        # its result into the state); the kernel that ends the round
        self.alternates, self.kernel = alternates, kernel
        self.words = words


def capturing():
    rec = thread.rec
    return rec is not None and rec.capturing


def refuse(what):
    """Raise Refused if a graph is being captured (``what`` cannot be part of it)."""
    if capturing():
        raise Refused(what)


def _value_of(arg):
    """A launch argument as the rounds are compared: a number by its value, an array by its
    type (its address changes from round to round).  A NumPy scalar (a device array's value is
    never read) by its bytes, which are what the kernel receives: its type is the kernel's
    parameter's, and a NaN equals itself (str(dtype) cost 5 us an argument)."""
    if isinstance(arg, np.generic):  # first: np.float64 is a float
        return arg.tobytes()
    if arg is None or isinstance(arg, (int, float, bool)):
        return arg
    return type(arg)
