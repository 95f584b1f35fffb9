"""The communicator of a device group: the collectives the partitioned primitives use.

One interface, two implementations: :class:`NumpyCommunicator` (CPU partitions in one
process: a collective is a concatenation or a transposition of lists) and
``nccl.NcclCommunicator`` (one process driving the GPUs of a host through CuPy's NCCL
bindings).  The partitioned code above it is the same for both.

Arrays are per member: ``parts[k]`` lives on member ``k``'s device, and so does everything a
collective hands member ``k``.  Received arrays may be shared with the sender (the NumPy
implementation copies nothing), so they are read, never written in place.

Every collective is counted - calls, messages and bytes, under the name of the primitive that
runs it (see :meth:`Communicator.operation`) - and each primitive that moved data logs its
total at debug level on the ``graphblast`` logger.  The counts model what crosses between
devices: an allgather sends each part to every other member, an alltoallv each bucket whose
sender and receiver differ, an allreduce every member's value to every other member, a gather
to the host every part.
"""

import contextlib
import logging
from dataclasses import dataclass

import numpy as np

logger = logging.getLogger("graphblast")

REDUCTIONS = ("sum", "prod", "min", "max")


@dataclass
class Traffic:
    """What the collectives of one operation moved."""

    calls: int = 0
    messages: int = 0
    bytes: int = 0

    def add(self, messages, nbytes):
        self.calls += 1
        self.messages += messages
        self.bytes += nbytes


class Communicator:
    """Collectives over the ``size`` members of the group ``name``, counted."""

    def __init__(self, name, size):
        self.name = name
        self.size = size
        self._totals = {}
        self._current = None  # the operation being counted, and its own traffic

    # -- counting --------------------------------------------------------------------------
    @contextlib.contextmanager
    def operation(self, label):
        """Count the collectives run inside under ``label``; an operation inside another
        counts as part of the outer one (a product's transpose, say)."""
        if self._current is not None:
            yield
            return
        self._current = (label, Traffic())
        try:
            yield
        finally:
            label, traffic = self._current
            self._current = None
            if traffic.calls:
                total = self._totals.setdefault(label, Traffic())
                total.calls += traffic.calls
                total.messages += traffic.messages
                total.bytes += traffic.bytes
                if logger.isEnabledFor(logging.DEBUG):
                    logger.debug("%s %s: %d collectives, %d messages, %d bytes", self.name,
                                 label, traffic.calls, traffic.messages, traffic.bytes)

    def record(self, messages, nbytes):
        """Count one collective of the current operation (``"other"`` outside any)."""
        if self._current is None:
            with self.operation("other"):
                self._current[1].add(messages, nbytes)
        else:
            self._current[1].add(messages, nbytes)

    def traffic(self):
        """``{operation: {"calls", "messages", "bytes"}}`` since the last :meth:`reset`."""
        return {label: {"calls": t.calls, "messages": t.messages, "bytes": t.bytes}
                for label, t in self._totals.items()}

    def reset(self):
        self._totals = {}

    # -- the collectives -------------------------------------------------------------------
    def allgather(self, parts):
        """For every member, the concatenation of ``parts`` in member order (all of one
        dtype)."""
        self._check(parts)
        sizes = [_nbytes(part) for part in parts]
        self.record((self.size - 1) * sum(1 for s in sizes if s), (self.size - 1) * sum(sizes))
        return self._allgather(parts)

    def alltoallv(self, buckets):
        """``received[dst][src] = buckets[src][dst]``: member ``src`` sends its bucket
        ``dst`` (on its own device) to member ``dst``.  Buckets of one call share a dtype."""
        self._check(buckets)
        for row in buckets:
            self._check(row)
        sent = [_nbytes(buckets[s][d]) for s in range(self.size) for d in range(self.size)
                if s != d]
        self.record(sum(1 for s in sent if s), sum(sent))
        return self._alltoallv(buckets)

    def allreduce(self, values, op):
        """For every member, ``op`` ("sum", "prod", "min" or "max") of the members' equally
        shaped ``values``, element by element, in their dtype."""
        if op not in REDUCTIONS:
            raise ValueError(f"allreduce takes one of {REDUCTIONS}, not {op!r}")
        self._check(values)
        p = self.size
        self.record(p * (p - 1), p * (p - 1) * _nbytes(values[0]))
        return self._allreduce(values, op)

    def gather_to_host(self, parts):
        """The concatenation of ``parts`` as one host (NumPy) array."""
        self._check(parts)
        sizes = [_nbytes(part) for part in parts]
        self.record(sum(1 for s in sizes if s), sum(sizes))
        return self._gather_to_host(parts)

    def _check(self, items):
        if len(items) != self.size:
            raise ValueError(f"{self.name}: a collective takes one item per member "
                             f"({self.size}), got {len(items)}")

    def _allgather(self, parts):
        raise NotImplementedError

    def _alltoallv(self, buckets):
        raise NotImplementedError

    def _allreduce(self, values, op):
        raise NotImplementedError

    def _gather_to_host(self, parts):
        raise NotImplementedError


def _nbytes(array):
    return int(array.nbytes)


class NumpyCommunicator(Communicator):
    """The collectives of CPU partitions in one process: nothing is copied but what a
    concatenation makes, so every member shares one result."""

    def _allgather(self, parts):
        whole = np.concatenate(parts)
        return [whole] * self.size

    def _alltoallv(self, buckets):
        return [[buckets[src][dst] for src in range(self.size)] for dst in range(self.size)]

    def _allreduce(self, values, op):
        ufunc = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}[op]
        result = ufunc.reduce(np.stack(values), axis=0).astype(values[0].dtype, copy=False)
        return [result] * self.size

    def _gather_to_host(self, parts):
        return np.concatenate(parts)
