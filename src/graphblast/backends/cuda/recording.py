"""Whether a loop body is being recorded for replay (loops.py), and what the engine does then.

A body is recorded in three rounds: two *dry* rounds issued as usual (the first notes its
products' directions and kernel launches, the second checks that it makes the same), then
the same round under CUDA stream capture.  In all three no count the host holds is trusted
(``Counters.peek`` answers None: the replays change every count the round reads), so they
take the same code paths, and the dry rounds build every cache the captured one will use.
While capturing:

- a counter slot is zeroed by the graph itself (a memset node, so each replay counts from
  zero) and stays reserved while the graph lives (``keep``);
- push's claims are cleared after it, in the graph (a replay repeats the loop's one epoch);
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


_local = _Local()


def current():
    """The Recording of this thread's loop body being recorded, else None."""
    return _local.rec


def set_current(rec):
    _local.rec = rec


class Refused(Exception):
    """A step a recorded loop body may not contain; the loop runs from Python instead."""


class Recording:
    """One recorded round.  ``mode``: "note" (the first dry round: the products' directions
    as its planner chose them, and its kernel launches), "check" (the second: the same
    compared, ``differs`` set where they are not), "capture" (the captured round: the noted
    directions taken, for its planner cannot read counts, and any launch unlike the noted
    ones refused: a Python value of the body that changes from round to round, a depth
    counter, would be frozen in the graph)."""

    __slots__ = ("mode", "capturing", "keep", "born", "directions", "launches", "taken",
                 "launched", "differs", "planning", "loop")

    def __init__(self, mode, noted=None, born=None):
        self.mode = mode
        self.capturing = mode == "capture"
        self.keep = []  # objects the graph refers to: counter slots, allocations
        self.born = born  # ids of the collections made while capturing
        self.directions = [] if noted is None else noted.directions
        self.launches = [] if noted is None else noted.launches
        self.loop = object() if noted is None else noted.loop  # one token for the loop's rounds
        self.taken = self.launched = 0
        self.differs = False
        self.planning = False

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
        if self.mode == "note":
            self.directions.append(choice)
        else:
            self._compare(self.directions, self.taken, choice)
            self.taken += 1
        return choice

    def launch(self, fn, grid, block, args):
        """Note or compare a kernel launch of the round."""
        if self.planning:
            return
        seen = (fn, grid, block, tuple(_value_of(a) for a in args))
        if self.mode == "note":
            self.launches.append(seen)
            return
        self._compare(self.launches, self.launched, seen)
        self.launched += 1

    def _compare(self, noted, k, seen):
        if k < len(noted) and noted[k] == seen:
            return
        if self.capturing:
            raise Refused("a launch unlike the dry rounds' (a value of the body that changes "
                          "from round to round)")
        self.differs = True

    def complete(self):
        """Whether the round made every noted product and launch, and no other (a noting
        round: always)."""
        return self.mode == "note" or (not self.differs and self.taken == len(self.directions)
                and self.launched == len(self.launches))


def capturing():
    rec = _local.rec
    return rec is not None and rec.capturing


def refuse(what):
    """Raise Refused if a graph is being captured (``what`` cannot be part of it)."""
    if capturing():
        raise Refused(what)


def _value_of(arg):
    """A launch argument as the rounds are compared: a number by its value, an array by its
    type (its address changes from round to round)."""
    if arg is None or isinstance(arg, (int, float, bool)):
        return arg
    if isinstance(arg, np.generic):  # a NumPy scalar (a device array's value is not read)
        return arg.item(), str(arg.dtype)
    return type(arg).__name__
