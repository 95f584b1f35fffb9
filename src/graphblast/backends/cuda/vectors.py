"""The GPU's vector formats, their counts on the device, and the operations that run on them.

Three formats besides the backend-neutral sorted :class:`SparseVector`:

- :class:`ListVector` ("sparse"): indices, possibly unsorted (``ordered`` False: a push appends
  its outputs in the order threads claim them), and values, in buffers of some capacity; the
  entry count lives on the device.
- :class:`BitmapVector`: a presence byte and a value for every position; count on the device.
- :class:`FullVector`: a value for every position.

Each is a SparseVector to the rest of the backend: reading ``indices`` or ``values`` builds
the sorted list once (a synchronization, and a sort or a compaction) and caches it, so code
that knows only lists stays correct.  The format-aware primitives (mxv/vxm, the masked
write-back and scalar assign, element-wise operations, apply, select and reductions of dense
vectors) read the formats directly.

Counts.  A result's entry count (and the degree sum of its entries that the direction planner
wants) is written by the kernel that makes the result into a slot of a *counter page*, one
device array of many slots.  ``nvals`` reads it only when asked, and then copies the whole
page in one transfer: one synchronization refreshes the count of every vector whose slot is
there and that was not written since (a BFS level's ``frontier.nvals`` also gives the
planner the count of the visited set).  ``blocks.host_reads`` counts these synchronizations.

In place.  Storage is immutable except here: a bitmap or full vector owned by exactly one
Vector object (see :func:`adopt`) is updated in place by an assign or a write-back that
touches only the positions the mask and the operand allow, at O(entries touched).
"""

import contextlib
import itertools
import sys
import weakref
from sys import getrefcount

import cupy as cp
import numpy as np

from ..base import SparseVector
from . import arrays, jit, programs, recording
from .blocks import INDEX, count_host_read, i64
from .memory import dropped_on_oom, empty_pinned

# -- counter pages ---------------------------------------------------------------------------

SLOT = 3  # count, degree sum, scratch (a push's heavy-entry list length)
PAGE_SLOTS = 512

_write_seq = itertools.count(1)


# Pages a device may hold before a slot is zeroed on its own when no zeroed one is left
# (12 KiB each; a loop keeps a few results alive at a time, so two pages take turns).
MAX_PAGES = 64


class _Page:
    """A device array of PAGE_SLOTS counter slots and its last host copy.  Free slots are
    ``zeroed`` (ready for a kernel that counts into them) or ``used`` (released by their
    last owner, holding old counts); a page whose every slot is released is zeroed whole,
    with one memset, so that a loop's results do not each pay one."""

    __slots__ = ("array", "views", "zeroed", "used", "host", "snapshot", "snapshot_seq",
                 "__weakref__")

    def __init__(self, pinned=True):
        self.array = cp.zeros(PAGE_SLOTS * SLOT, dtype=np.uint64)
        self.views = [self.array[k * SLOT:(k + 1) * SLOT] for k in range(PAGE_SLOTS)]
        self.zeroed = list(range(PAGE_SLOTS - 1, -1, -1))
        self.used = []
        # The host copy lives in page-locked memory, reused by every read: a copy into
        # pageable memory is staged by the driver (4 words took 13.5 us on the H200), and a
        # traversal reads a page once per level.
        self.host = _pinned(self.array.size, self.array.dtype) if pinned else None
        self.snapshot = None
        self.snapshot_seq = 0

    def zero(self):
        """Queue the zeroing of every slot (one memset)."""
        _memset(self.array, PAGE_SLOTS * SLOT)

    def read(self):
        """Copy the page to the host (one synchronization)."""
        seq = next(_write_seq)  # slots touched from here on are newer than this copy
        self.snapshot, self.snapshot_seq = None, 0  # the buffer is overwritten: no stale reads
        if self.host is None:
            self.snapshot = self.array.get()
        else:
            self.array.get(out=self.host)
            self.snapshot = self.host
        self.snapshot_seq = seq
        count_host_read()


def _pinned(size, dtype):
    """A page-locked host array, or None where none can be had (pageable copies then)."""
    try:
        return empty_pinned(size, dtype)
    except Exception:  # noqa: BLE001 - page-locked memory is an optimization only
        return None


_pages = {}  # device id -> list of _Page


def _zeroed_slot(pages):
    """(page, slot) of a zeroed slot: a page's zeroed slot, else a wholly released page
    zeroed with one memset, else a new page (up to MAX_PAGES), else a released slot zeroed
    alone.  Stream-ordered: a memset runs after the kernels queued before it."""
    for page in pages:
        if page.zeroed:
            return page, page.zeroed.pop()
    for page in pages:
        if len(page.used) == PAGE_SLOTS:
            page.zero()
            page.zeroed, page.used = page.used, []
            return page, page.zeroed.pop()
    if len(pages) < MAX_PAGES:
        return _new_page(pages)
    for page in pages:
        if page.used:
            slot = page.used.pop()
            _memset(page.views[slot], SLOT)
            return page, slot
    return _new_page(pages)  # every slot of every page is alive


def _any_slot(pages):
    """(page, slot) of a free slot whose old counts do not matter: a released one first."""
    for page in pages:
        if page.used:
            return page, page.used.pop()
    for page in pages:
        if page.zeroed:
            return page, page.zeroed.pop()
    return _new_page(pages)


_capture_pages = {}  # device id -> the _Page of the counters made inside captured graphs


def capture_page():
    """This device's page for the counters made inside a captured graph: a captured round
    zeroes it whole with one memset node as it begins (loops.py), so each replay counts from
    zero, where a slot of a shared page would need a memset node of its own (three a
    replayed SSSP round, about 2 us each on the H200).  One loop replays at a time on a
    device (its lock), so the page is the current graph's alone; a page with a slot still
    held (a vector made in an earlier graph and kept by the caller, or not yet collected) is
    left to its holders and a new one made, so that no graph zeroes a count it does not
    own."""
    device = cp.cuda.runtime.getDevice()
    page = _capture_pages.get(device)
    if page is None or len(page.zeroed) + len(page.used) < PAGE_SLOTS:
        page = _capture_pages[device] = _Page(pinned=False)  # never read by the host
    return page


def _slot_while_capturing(page, known):
    """(page, slot) for a Counters made inside a captured graph, from the graph's capture
    ``page``, kept while the graph lives."""
    if known is not None:
        raise recording.Refused("a count set from the host")
    for free in (page.zeroed, page.used):
        if free:
            return page, free.pop()
    raise recording.Refused("no free counter slot")


def _new_page(pages):
    """(page, slot): a new page's first zeroed slot, the page added to ``pages``."""
    page = _Page()
    pages.append(page)
    return page, page.zeroed.pop()


def _memset(array, words):
    cp.cuda.runtime.memsetAsync(array.data.ptr, 0, words * 8, cp.cuda.get_current_stream().ptr)


class Counters:
    """One slot of a counter page: ``array`` is its device view (uint64[3], zeroed), and
    ``known`` the (count, degree sum) the host already knows, if any."""

    __slots__ = ("page", "slot", "array", "written", "known")

    def __init__(self, known=None, zeroed=True):
        device = cp.cuda.runtime.getDevice()
        pages = _pages.get(device)
        if pages is None:
            pages = _pages[device] = []
        rec = recording.thread.rec
        capturing = rec is not None and rec.capturing
        if capturing:
            page, slot = _slot_while_capturing(rec.page, known)
        elif known is None and zeroed:
            page, slot = _zeroed_slot(pages)
        else:  # the slot is written whole: a released one will do
            page, slot = _any_slot(pages)
        self.page = page
        self.slot = slot
        self.array = page.views[slot]
        if known is not None:
            self.array.set(np.array([known[0], known[1], 0], dtype=np.uint64))
        self.known = known
        self.written = next(_write_seq)
        if capturing:
            rec.keep.append(self)

    def __del__(self):
        # the slot goes back to its page (zeroed before its next counting user); cheaper
        # than a weakref.finalize per result, and the page is alive as long as this slot is
        try:
            page = self.page
        except AttributeError:  # __init__ refused a slot (a count set from the host while
            return              # capturing): there is none to give back
        page.used.append(self.slot)

    def touch(self):
        """A kernel writing this slot has been queued: the host copy is stale."""
        self.written = next(_write_seq)
        self.known = None

    def peek(self):
        """(count, degree sum) if the host has them without waiting, else None (always
        while a loop body is recorded: its replays change the counts)."""
        if recording.thread.rec is not None:
            return None
        if self.known is not None:
            return self.known
        return self._from_snapshot()

    def _from_snapshot(self):
        page = self.page
        if page.snapshot is None or page.snapshot_seq < self.written:
            return None
        base = self.slot * SLOT
        # kept until the next touch: every product's planner peeks its vector and mask
        self.known = int(page.snapshot[base]), int(page.snapshot[base + 1])
        return self.known

    def values(self):
        """(count, degree sum) as host integers, reading the page if the copy is stale."""
        found = self.peek()
        if found is None:
            self.page.read()
            found = self._from_snapshot()
        return found


# -- ownership -------------------------------------------------------------------------------

_SHARED = object()


def adopt(data, owner):
    """``data`` becoming the storage of the Vector ``owner``: the first owner may later
    update it in place; storage that two objects hold is never updated in place again."""
    rec = recording.thread.rec
    if rec is not None and rec.capturing and getattr(owner, "_data", data) is not data \
            and id(owner) not in rec.born:
        raise recording.Refused(f"the body replaces the storage of {owner.name}, made before "
                                "it (a replay would read the old storage again)")
    if isinstance(data, DeviceVector) and data._owner is not _SHARED:
        if data._owner is None:
            data._owner = weakref.ref(owner)
        elif data._owner() is not owner:
            data._owner = _SHARED
    return data


def owned_by(data, owner):
    return (isinstance(data, DeviceVector) and data._owner is not _SHARED
            and data._owner is not None and data._owner() is owner)


# -- the formats -----------------------------------------------------------------------------

class DeviceVector(SparseVector):
    """A GPU vector in a format other than the sorted list (see the module docstring)."""

    __slots__ = ("counters", "deg_of", "made_by", "count_hi", "_sorted", "_owner",
                 "_under_mask")
    format = None

    def _init(self, counters, deg_of=None):
        self.counters = counters
        self.deg_of = deg_of  # the row pointers the degree sum in the counters refers to
        self.made_by = None  # "push" or "pull" for a product's result (the planner's history)
        self.count_hi = None  # an upper bound of the count the host knows, after an update
        self._sorted = None
        self._owner = None
        self._under_mask = None

    @property
    def nvals(self):
        return self.counters.values()[0]

    def known_nvals(self):
        """The count if the host knows it without waiting, else None."""
        found = self.counters.peek()
        return None if found is None else found[0]

    def degree_sum(self, ptr):
        """The degree sum of the entries in the row pointers ``ptr`` (host int), or None when
        the counters do not hold that sum."""
        if self.deg_of is not ptr:
            return None
        return self.counters.values()[1]

    def changed(self):
        """After an in-place update: the sorted copy, the degree sum and any bound of the
        count are stale."""
        self.counters.touch()
        self._sorted = None
        self.deg_of = None
        self.count_hi = None

    def _sorted_lists(self):
        if self._sorted is None:
            self._sorted = self._to_sorted()
        return self._sorted

    @property
    def indices(self):
        return self._sorted_lists()[0]

    @property
    def values(self):
        return self._sorted_lists()[1]

    def dense(self):
        """(bits or None, values) of this vector as a dense operand (a list is scattered)."""
        raise NotImplementedError

    def dense_entries(self):
        """(bits or None, values) when stored densely (a bitmap, or full: None), else None:
        what ``isequal`` compares in place, without compacting to indices."""
        return None


class ListVector(DeviceVector):
    """Indices (sorted when ``ordered``) and values in buffers of some capacity."""

    __slots__ = ("idx", "vals", "ordered", "spare_key")
    format = "sparse"

    def __init__(self, size, dtype, idx, vals, counters, ordered, deg_of=None, spare_key=None):
        self.size = size
        self.dtype = dtype
        self.idx = idx
        self.vals = vals
        self.ordered = ordered
        self.spare_key = spare_key  # buffers from small_buffers(): given back when it dies
        self._init(counters, deg_of)

    def __del__(self):
        key = self.spare_key
        # (module globals may be None already late in an interpreter's exit)
        if key is None or _give_back is None or getrefcount is None:
            return
        self._sorted = None  # its views are this vector's own; anyone else's count below
        # two references to each (this slot, getrefcount's argument) and no more: no view (a
        # view holds its base), no other vector, no caller holds the buffers or the counters
        if (getrefcount(self.idx) == 2 and getrefcount(self.vals) == 2
                and getrefcount(self.counters) == 2):
            _give_back(key, (self.idx, self.vals, self.counters))

    def arrays(self):
        return [self.idx, self.vals]

    def _to_sorted(self):
        k = self.nvals
        idx, vals = self.idx[:k], self.vals[:k]
        if not self.ordered and k > 1:
            order = arrays.argsort(idx)
            idx, vals = arrays.take(idx, order), arrays.take(vals, order)
        return idx, vals

    def dense(self):
        return _scatter(self.size, self.dtype, self.idx, self.vals, self.counters.array)

    def __repr__(self):
        return f"ListVector({self.size}, {self.dtype}, capacity={self.idx.shape[0]})"


class BitmapVector(DeviceVector):
    """A presence byte and a value for every position."""

    __slots__ = ("bits", "vals")
    format = "bitmap"

    def __init__(self, size, dtype, bits, vals, counters, deg_of=None):
        self.size = size
        self.dtype = dtype
        self.bits = bits
        self.vals = vals
        self._init(counters, deg_of)

    def arrays(self):
        return [self.bits, self.vals]

    def _to_sorted(self):
        idx = arrays.flatnonzero(self.bits)
        return idx, arrays.take(self.vals, idx)

    def dense(self):
        return self.bits, self.vals

    def dense_entries(self):
        return self.bits, self.vals

    def __repr__(self):
        return f"BitmapVector({self.size}, {self.dtype})"


class FullVector(DeviceVector):
    """A value for every position."""

    __slots__ = ("vals",)
    format = "full"

    def __init__(self, size, dtype, vals):
        self.size = size
        self.dtype = dtype
        self.vals = vals
        self._init(None)

    @property
    def nvals(self):
        return self.size

    def known_nvals(self):
        return self.size

    def degree_sum(self, ptr):
        return None

    def changed(self):
        self._sorted = None

    def arrays(self):
        return [self.vals]

    def _to_sorted(self):
        return arrays.arange(self.size, INDEX), self.vals

    @property
    def values(self):  # in position order already: no index array made
        return self.vals

    def dense(self):
        return None, self.vals

    def dense_entries(self):
        return None, self.vals

    def __repr__(self):
        return f"FullVector({self.size}, {self.dtype})"


def is_dense(v):
    return isinstance(v, (BitmapVector, FullVector))


def dense_of(v):
    """(bits or None, values) of any vector: a dense format as it is, a list scattered into a
    new bitmap (O(size): only where the operation is O(size) anyway)."""
    if isinstance(v, DeviceVector):
        return v.dense()
    if v.indices.shape[0] == v.size:
        return None, v.values  # a sorted list of every position: its values are dense
    return _scatter(v.size, v.dtype, v.indices, v.values, None)


def _scatter(size, dtype, idx, vals, count):
    """A new bitmap of ``size`` holding the list (idx, vals) of ``idx.shape[0]`` entries, or
    of the number the device array ``count`` holds."""
    bits = cp.zeros(size, dtype=cp.uint8)
    dense = cp.empty(size, dtype=dtype.np_type)
    scatter_into(bits, dense, dtype, idx, vals, count)
    return bits, dense


def scatter_into(bits, dense, dtype, idx, vals, count):
    """The list (idx, vals) written into the bitmap (bits, dense) of ``dtype`` values, whose
    bits must be zero where the list has no entry (see _scatter for ``count``)."""
    n = idx.shape[0]
    if n:
        (fn,) = jit.compiled(programs.vector_kernel, "list_to_bitmap", dtype).fns
        jit.launch(fn, n, (i64(n), count, idx, vals, bits, dense))


def mask_view(mask):
    """(bits, values, kind, mode) of a vector mask read densely, as gbk::vmask takes them:
    (None, None, 0, 0) for no mask; values only for a value mask; mode 1, or 2 when
    complemented."""
    if mask is None:
        return None, None, _INT32[0], _INT32[0]
    return _view_of(mask, *dense_of(mask.data))


def _view_of(mask, bits, vals):
    """mask_view's tuple for ``mask`` read from the dense presence ``bits`` and ``vals``."""
    kind = programs.mask_kind(mask)
    return bits, (vals if kind else None), _INT32[kind], _INT32[2 if mask.complement else 1]


_INT32 = tuple(np.int32(k) for k in range(32))  # the kernels' small int flags, made once


def is_list(v):
    """Whether the vector storage ``v`` is a list: an unordered one (ListVector) or a sorted
    one (a SparseVector that is not one of the dense formats)."""
    return isinstance(v, ListVector) or (isinstance(v, SparseVector)
                                         and not isinstance(v, DeviceVector))


def list_parts(v):
    """(indices, values, device count or None, capacity) of a list vector."""
    if isinstance(v, ListVector):
        return v.idx, v.vals, v.counters.array, v.idx.shape[0]
    return v.indices, v.values, None, v.indices.shape[0]


@contextlib.contextmanager
def dense_mask(mask):
    """:func:`mask_view` for the kernels queued inside the block.  A list mask (SSSP's
    ``t<~(t >= dist)>`` every round, a product under a list's complement) is marked into a
    bitmap kept per (device, size, type) and unmarked when the block ends, at O(its
    entries): scattered into a new one, it cost two O(n) allocations and an O(n) zeroing per
    call.  Sizes past MARKED_MAX, and a size whose marks are in use already, take the new
    bitmap."""
    m = None if mask is None else mask.data
    listed = is_list(m)
    key = (cp.cuda.runtime.getDevice(), m.size, m.dtype) if listed else None
    if not listed or m.size > MARKED_MAX or key in _marks_in_use:
        yield mask_view(mask)
        return
    marks = _marks.get(key)
    if marks is None:  # the bits are zero between uses; the values are read only where set
        recording.refuse("a new mark bitmap")
        marks = _marks[key] = (cp.zeros(m.size, dtype=cp.uint8),
                               cp.empty(m.size, dtype=m.dtype.np_type))
    bits, vals = marks
    idx, mvals, m_ptr, cap = list_parts(m)
    scatter_into(bits, vals, m.dtype, idx, mvals, m_ptr)
    _marks_in_use.add(key)
    try:
        yield _view_of(mask, bits, vals)
    finally:  # queued after the block's kernels, even if one failed: the bits stay zero
        _marks_in_use.discard(key)
        if cap:
            (unmark,) = jit.compiled(programs.list_unmark).fns
            jit.launch(unmark, cap, (i64(cap), m_ptr, idx, bits))


# List masks of sizes up to this are marked into a bitmap kept per (device, size, type)
# (dense_mask): at most 4 MiB of presence bytes and 32 MiB of FP64 values held per size and
# type (kron-22 and grid-2048 are just under and at it); larger ones are scattered into a new
# bitmap each time, so that no large array is held for good.
MARKED_MAX = 1 << 22
_marks = dropped_on_oom({})
_marks_in_use = set()

# Positions per lane of gbk_dense_to_list (GBK_COMPACT in vector.cuh).
COMPACT = 16


def as_bitmap(v):
    """``v`` as a new BitmapVector (a bitmap's arrays are copied, so the result is owned)."""
    if isinstance(v, FullVector):
        return BitmapVector(v.size, v.dtype, arrays.full(v.size, 1, cp.uint8),
                            arrays.copy(v.vals), Counters((v.size, 0)))
    bits, vals = dense_of(v)
    if bits is None:  # a complete list: its values are someone else's
        bits, vals = arrays.full(v.size, 1, cp.uint8), arrays.copy(vals)
    elif isinstance(v, BitmapVector):
        bits, vals = arrays.copy(bits), arrays.copy(vals)
    k = v.known_nvals() if isinstance(v, DeviceVector) else v.nvals
    if k is not None:
        return BitmapVector(v.size, v.dtype, bits, vals, Counters((k, 0)))
    return counted_bitmap(v.size, v.dtype, bits, vals)


def counted_bitmap(size, dtype, bits, vals):
    """A BitmapVector of these arrays, its count reduced from ``bits`` on the device (no host
    read: the count stays there until someone asks)."""
    counters = Counters()
    arrays.count_nonzero(bits, out=counters.array[0:1])
    counters.touch()
    return BitmapVector(size, dtype, bits, vals, counters)


# -- small result buffers ------------------------------------------------------------------------

# The one-block product's results (at most mxv.SMALL entries) take their two buffers (and their
# counters slot) from here and give them back when they die with no other reference to them:
# CuPy's pool costs about 2 us of host time an allocation, two of them 4 of the 28 us that the
# per-call figure's masked vxm took on an H100 (benchmarks/profiling/call_overhead.py), and a loop of
# small products frees one pair as it makes the next.  Kept by (device, stream, capacity, value
# type), as CuPy's pool keeps a block to the stream it was made on: a kernel queued later on
# that stream runs after every earlier reader.  Not while a loop body is recorded (a graph's
# replays would write into buffers handed on).
SPARES_PER_KEY = 4
_spares = dropped_on_oom({})


class _Held:
    __slots__ = ("item",)


def _counts_tell_sole_holders():
    """Whether ``getrefcount(holder.slot)`` reads 2 for an object that one slot alone holds
    and 3 once something else holds it too, warm, in this interpreter: the test a dying
    ListVector makes before giving its buffers back.  An interpreter that borrows such
    references (Python 3.14 borrows some; a free-threaded build counts differently) would
    make the test unsound, and buffers are then never given back."""
    if not getattr(sys, "_is_gil_enabled", lambda: True)():
        return False
    holder, other = _Held(), []
    holder.item = object()
    for _ in range(64):  # past the specializing interpreter's warm-up
        if getrefcount(holder.item) != 2:
            return False
        other.append(holder.item)
        if getrefcount(holder.item) != 3:
            return False
        other.pop()
    return True


_REUSE = _counts_tell_sole_holders()


def small_buffers(n, np_type):
    """(indices, values, counters, key): uninitialised buffers of ``n`` entries and a counters
    slot (written whole by the kernel that fills them) for a ListVector made with
    ``spare_key=key``; key None while recording, or where reference counts cannot tell a sole
    holder (plain allocations, never given back)."""
    if recording.thread.rec is not None or not _REUSE:
        return (cp.empty(n, dtype=INDEX), cp.empty(n, dtype=np_type), Counters(zeroed=False),
                None)
    key = (cp.cuda.runtime.getDevice(), cp.cuda.get_current_stream().ptr, n, np_type)
    free = _spares.get(key)
    if free:
        idx, vals, counters = free.pop()
        counters.touch()  # its old counts are stale from here on
        return idx, vals, counters, key
    return cp.empty(n, dtype=INDEX), cp.empty(n, dtype=np_type), Counters(zeroed=False), key


def _give_back(key, spare):
    free = _spares.get(key)
    if free is None:
        free = _spares[key] = []
    if len(free) < SPARES_PER_KEY:
        free.append(spare)


def as_list(v, dptr=None):
    """``v`` as a list the push kernels read: (indices, values, counters or None, capacity),
    the count in the counters' slot when the host may not know it.  A dense vector is
    compacted (unsorted) into a new list, with the degree sum of its entries in ``dptr`` when
    given.  Keep the counters referenced until the kernels that read them are queued: a
    released slot is zeroed for its next user."""
    if isinstance(v, ListVector):
        return v.idx, v.vals, v.counters, v.idx.shape[0]
    if not isinstance(v, DeviceVector):
        return v.indices, v.values, None, v.indices.shape[0]
    bits, vals = v.dense()
    counters = Counters()
    out_idx = cp.empty(v.size, dtype=INDEX)
    out_vals = cp.empty(v.size, dtype=v.dtype.np_type)
    if v.size:
        (fn,) = jit.compiled(programs.vector_kernel, "dense_to_list", v.dtype).fns
        jit.launch(fn, -(-v.size // COMPACT), (i64(v.size), bits, vals, dptr, out_idx,
                                               out_vals, counters.array))
    counters.touch()
    return out_idx, out_vals, counters, v.size


def device_count(counters):
    """The device array of a counters slot, or None."""
    return None if counters is None else counters.array


def cast(v, dtype):
    """A list or dense vector with its values cast (GraphBLAS rules), in the same format and
    with the same marks; a bitmap's presence bytes are copied (bitmaps change in place)."""
    from .blocks import cast_values

    if isinstance(v, ListVector):
        out = ListVector(v.size, dtype, v.idx, cast_values(v.vals, v.dtype, dtype), v.counters,
                         v.ordered, v.deg_of)
    elif isinstance(v, FullVector):
        out = FullVector(v.size, dtype, cast_values(v.vals, v.dtype, dtype))
    else:
        counters = Counters(v.counters.peek())
        if counters.known is None:
            arrays.copy_into(v.counters.array, counters.array)
            counters.touch()
        out = BitmapVector(v.size, dtype, arrays.copy(v.bits), cast_values(v.vals, v.dtype, dtype),
                           counters, v.deg_of if counters.known is None else None)
    out.made_by = v.made_by
    out._under_mask = v._under_mask
    return out
