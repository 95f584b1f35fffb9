"""Matrix-vector products on the GPU: mxv/vxm by pull (SpMV over the rows the mask allows) or
push (SpMSpV from the vector's entries), as the planner chooses (``plan.direction``).

vxm(u, A) pushes over A's rows and pulls over A' (cached transpose); mxv(A, u) the other way
round.  Every input format is read as it is: pull reads the vector densely (a bitmap or full
vector directly, a list scattered into a bitmap), push reads a list (a list directly, a dense
vector compacted).  Results: pull makes a bitmap, push a list in claim order, the one-block
kernel of small matrices a sorted list; their counts stay on the device (``vectors.py``).

Synchronizations: none in the products themselves, except where the planner needs a count
or a degree sum the host does not know yet (read together, one transfer); a BFS level whose
``frontier.nvals`` was read pays nothing more.  The first use of a matrix in a traversal
reads its degree statistics once (cached with the matrix).

Results computed under a mask are marked, so the write-back with ``replace`` costs nothing.
"""

import weakref

import cupy as cp
import numpy as np

from ... import plan
from ...config import config
from . import arrays, blocks, jit, programs, recording
from .blocks import INDEX, i64
from .memory import dropped_on_oom
from .storage import transpose
from .vectors import (
    _INT32, BitmapVector, Counters, DeviceVector, FullVector, ListVector, as_list,
    dense_mask, dense_of, device_count, small_buffers,
)

_setting = config.lookup  # the per-call paths read settings by the dict's own lookup

# mxv/vxm with both dimensions of the matrix at most this go to the one-block kernel
# (GBK_SMALL_N in spmv.cuh).
SMALL = 1024

# Rows longer than this are pulled by a whole block each (or in chunks, below).
HEAVY = 4096
# Frontier entries with more edges than this are pushed by gbk_push_heavy, in chunks of
# GBK_PUSH_CHUNK edges over all its blocks; the lighter ones by `width` lanes each, so that
# no warp walks more than PUSH_HEAVY / width edges while the others wait.
PUSH_HEAVY = 256
PUSH_CHUNK = 1024  # GBK_PUSH_CHUNK in spmspv.cuh
# A heavy row is pulled in chunks of this many entries (GBK_CHUNK in spmv.cuh), a block each,
# except for the monoids that stop a row early, whose rows keep one block.
CHUNK = 4096
_EARLY_EXIT = frozenset({"any", "lor", "land"})
# The lanes a row at most where the pull stops a row at its first hit (the monoids above).
# A BFS pull step's rows mostly hit within their first few in-neighbours (urand-22's first
# pull: 990,191 of 4.2 million vertices in the frontier, so a row's first hit is about its
# fourth in-neighbour), and each lane of a row's group tests one: a warp a row made 32
# random reads of the frontier where about four decide, and half of urand-22's rows (degree
# 32) are in the 32-lane bin.  A row with no hit is scanned whole either way (the same
# reads; fewer lanes make it a longer chain).
FIRST_HIT_LANES = 8
# The light push's blocks in a recorded loop body: twice the other kernels' cap
# (jit.RECORDED_MAX_GRID), its work being most of a replayed SSSP round's.  The
# replayed rounds' frontiers are 16-65 thousand vertices (medians, grid-2048 and rgg-22), and
# the cap at 264 / 528 / 1,056 / 2,112 blocks took SSSP on rgg-22 250.7 / 220.4 / 234.8 /
# 248.5 ms and on grid-2048 279.9 / 265.2 / 273.1 / 270.4 ms (H200, one process).
RECORDED_PUSH_GRID = 2 * jit.RECORDED_MAX_GRID
_NO_HEAVY = int(np.iinfo(np.int64).max)  # a kernel's row threshold when no row is heavy

_INT32_MAX = 2**31 - 1


# -- the matrix as the traversal kernels read it -----------------------------------------------

# Pull's bins of rows by degree on matrices of at least BIN_ROWS rows: (lowest degree,
# highest degree, lanes per row).  Rows of one bin do about the same work, so no lane of a
# warp waits for a long row; empty rows cost nothing (their output byte is cleared first).
# The short rows' bins are latency-bound (a row is a chain of dependent reads: its pointers,
# its columns, the gathers): a lane per row of at most 4 entries (each lane's four loads in
# flight at once) and 4 lanes per row of 5 to 32 put 4 and 2 times more rows in flight than
# 4 and 8 lanes did.  Nsight Compute on kron-22 (benchmarks/results/h200/evidence/):
# those two bins took 105 + 135 us of an FP32 SpMV's 1,148 at 4 and 8 lanes, at 51 % and 71 %
# of L2 throughput against 88 % for the long rows; with 1 and 4 lanes the SpMV took 1.149
# ms against 1.223 (medians of two processes each, benchmarks/compare/two_trees.py).
BIN_ROWS = 1 << 16
BINS = ((1, 4, 1), (5, 32, 4), (33, HEAVY, 32))


class View:
    """A CSR matrix prepared for traversal: 32-bit column indices where they fit, the rows
    longer than HEAVY, the bins of the other rows (large matrices), and the lanes per row for
    unbinned traversal (the power of two nearest the average degree).  The rows of every
    class, in increasing order, are found in two passes over the row pointers and one read
    of the class sizes (blocks.degree_classes), in one array (``classes``)."""

    __slots__ = ("col", "idx32", "iso", "classes", "heavy_rows", "nheavy", "npush_heavy",
                 "width", "bins", "chunks", "__weakref__")

    def __init__(self, M):
        self.idx32 = M.ncols <= _INT32_MAX
        stored = M.stored_indices  # a compact matrix's 32-bit indices serve as they are
        if self.idx32:
            self.col = arrays.astype(stored, np.int32)
        else:
            self.col = M.indices
        # an iso matrix's one value, which the products read in place of a value array
        # (matrix_values): a pattern graph cast to FP32 keeps no value array
        iso = M.pattern_value
        self.iso = None if iso is None else arrays.full(1, iso, M.dtype.np_type)
        # the bins' degree bounds, then the heavy rows'; a small matrix has no bins (its
        # first three classes are empty)
        binned = M.nrows >= BIN_ROWS
        bounds = [BINS[0][0], *(hi + 1 for _, hi, _ in BINS)] if binned else [HEAVY + 1] * 4
        self.classes, sizes, self.npush_heavy = blocks.degree_classes(
            M.indptr, M.nrows, [*bounds, None], also=PUSH_HEAVY + 1)
        starts = np.concatenate([[0], np.cumsum(sizes)])
        rows = [self.classes[int(starts[c]):int(starts[c + 1])] for c in range(4)]
        self.heavy_rows, self.nheavy = rows[3], sizes[3]
        self.bins = [(rows[c], sizes[c], lanes) for c, (_, _, lanes) in enumerate(BINS)
                     if binned and sizes[c]]
        avg = M.nvals / max(M.nrows, 1)
        width = 1
        while width < 32 and width * 2 <= max(avg, 1):
            width *= 2
        self.width = width
        self.chunks = None

    def arrays(self):
        """The arrays the view adds to its matrix (for memory_usage)."""
        extra = [self.classes] + ([self.iso] if self.iso is not None else [])
        if self.chunks is not None:
            extra += list(self.chunks[:2])
        return extra + ([self.col] if self.idx32 else [])

    def heavy_chunks(self, M):
        """(row, first entry, count) of the heavy rows' chunks of CHUNK entries, built once."""
        if self.chunks is None:
            scan = blocks.exclusive_scan(arrays.chunks_of_rows(M.indptr, self.heavy_rows,
                                                               CHUNK))
            total = blocks.total(scan)
            src, occ = blocks.expand(scan, self.nheavy, total)
            self.chunks = (*arrays.chunk_starts(M.indptr, self.heavy_rows, src, occ, CHUNK),
                           total)
        return self.chunks


_VALUE_ARRAY, _ONE_VALUE = np.int32(0), np.int32(1)  # gbk::matrix_value's miso


def matrix_values(M, v, semiring, vfirst):
    """(array, miso): the matrix values a product's kernels read (gbk::matrix_value): none for
    a product that reads no matrix value; an iso matrix's one value (``miso`` 1), so that no
    value array is made; else the value array."""
    if not jit.reads_operands(semiring.binaryop)[1 if vfirst else 0]:
        return None, _VALUE_ARRAY
    if v.iso is not None:
        return v.iso, _ONE_VALUE
    return M.values, _VALUE_ARRAY


def view(M):
    v = M._view
    if v is None:
        recording.refuse("a matrix's traversal view")
        v = M._view = View(M)
    return v


def row_stats(M):
    """(the length of M's longest row, the number of rows with an entry), read once per
    matrix (one synchronization) and kept with it: the planner's bound on a vector's degree
    sum (count x the longest row) before it pays for the sum, and the rows a first-hit pull
    scans."""
    found = M._stats
    if found is None:
        if M.nrows:
            degrees = arrays.adjacent_diff(M.indptr)
            longest, nonempty = blocks.read_small(arrays.pack(
                degrees.max(), arrays.count_nonzero(degrees)))
            found = (int(longest), int(nonempty))
        else:
            found = (0, 0)
        M._stats = found
    return found


# -- per-device scratch of push ---------------------------------------------------------------

_EPOCH_MAX = 2**31 - 1


class _Scratch:
    """Arrays of one output size that push reuses across calls: the claim stamps (never
    cleared: each call has its own epoch), the claimers' slots, and fold accumulators kept
    at the monoid's empty value."""

    __slots__ = ("stamp", "epoch", "posmap", "folds", "loop")

    def __init__(self, n):
        self.stamp = arrays.full(n, np.iinfo(np.int64).max, np.int64)
        self.epoch = 0
        self.posmap = None
        self.folds = {}
        self.loop = None  # the recorded loop the current epoch was taken for

    def next_epoch(self, rec=None):
        """The epoch of a push (``rec``: the loop body being recorded).  A recorded loop's
        pushes share one epoch, taken at its first, so that its graph replays the arguments
        of its dry rounds; each of them clears its claims after it (_push)."""
        if rec is not None:
            if self.loop is rec.loop:
                return np.int64((_EPOCH_MAX - self.epoch) << 32)
            self.loop = rec.loop
        self.epoch += 1
        if self.epoch >= _EPOCH_MAX - 1:
            self.stamp.fill(np.iinfo(np.int64).max)
            self.epoch = 1
        return np.int64((_EPOCH_MAX - self.epoch) << 32)


_scratch = dropped_on_oom({})


def _scratch_for(n):
    key = (cp.cuda.runtime.getDevice(), n)
    s = _scratch.get(key)
    if s is None:
        recording.refuse("push's claim stamps")
        s = _scratch[key] = _Scratch(n)
    return s


# -- entry points ------------------------------------------------------------------------------

def mxv(A, u, semiring, mask):
    """w = A (+.x) u."""
    return _product(A, u, semiring, mask, vfirst=False)


def vxm(u, A, semiring, mask):
    """w = u' (+.x) A."""
    return _product(A, u, semiring, mask, vfirst=True)


def _transposed(A):
    return transpose(A, config["transpose_cache"])


def _product(A, u, semiring, mask, vfirst):
    n_out, n_in = (A.ncols, A.nrows) if vfirst else (A.nrows, A.ncols)
    ref = None if mask is None else weakref.ref(mask)
    if n_out <= SMALL and n_in <= SMALL:
        return _small(A, u, semiring, mask, vfirst, n_out, n_in, ref)
    push_m, pull_m = _orientations(A, vfirst)
    rec = recording.thread.rec
    if mask is None and rec is None and isinstance(u, FullVector) and _folds_rows(semiring):
        out = _pull_constant(pull_m if pull_m is not None else _transposed(A), semiring, n_out)
        out.made_by = "pull"
        return out
    if rec is None:
        choice = _direction(A, push_m, pull_m, u, mask, n_out, semiring)
    else:  # a recorded loop body: the replays repeat the dry round's choice
        choice = rec.direction(
            lambda: _direction(A, push_m, pull_m, u, mask, n_out, semiring, rec))
    # the degree sum of the result's entries serves the next product of a square matrix
    square = A.nrows == A.ncols
    with dense_mask(mask) as mview:  # the kernels read the mask densely
        if choice == "push":
            push_m = push_m if push_m is not None else _transposed(A)
            out = _push(push_m, u, semiring, mview, vfirst, n_out, square)
        else:
            pull_m = pull_m if pull_m is not None else _transposed(A)
            dptr = push_m.indptr if push_m is not None and square else None
            out = _pull(pull_m, u, semiring, mview, vfirst, n_out, dptr)
    out.made_by = choice
    out._under_mask = ref
    return out


def _orientations(A, vfirst):
    """(the matrix push expands the rows of, the one pull reduces the rows of): A and its
    transpose, which is None while not built (it is built only if that direction is taken);
    a symmetric A is both."""
    if A.symmetric:
        return A, A
    return (A, A._transpose) if vfirst else (A._transpose, A)


# A pushed product that folds into its output by a compare-and-swap loop costs this many of
# BFS's (first-claim) pushed products, for a monoid that is not idempotent (a min or max
# loop stops when the value does not improve; plus retries once per competing thread).
# Measured on kron-22, plus_times FP32 (the primitives' sweep, H200, 2026-12-02): push took
# 0.71 ms against pull's 1.25 ms at 1 % density (1.4 million products) but 5.3 ms against
# 1.4 ms at 5 % (6.5 million), where the planner's 0.1 pushed: the break-even is near 2.5
# million products, a fifth of the unweighted threshold.
FOLD_LOOP_WEIGHT = 5


def _terms(A, pull_m, semiring, n_out, own, none):
    """(the pushed product's weight by its fold, by its L2 misses, the rows a first-hit pull
    scans (None when the monoid is not "any"), A's entries): what a decision reads that
    depends only on the matrix, its orientation and the semiring, found once and kept with
    A (``own``: pull reads A itself; ``none``: pull has no matrix yet).  The planner looks
    at the last call's terms itself (``_Plans.last``); this finds the others.  A lookup here
    replaced five calls that cost the planner about 1 us a product (benchmarks/hostpath/)."""
    plans = A._plans
    if plans is None:
        plans = A._plans = _Plans()
    # by the untyped semiring and its type (a transposed operand's product brings a new
    # SwappedSemiring each call, whose own identity would add a key a call), and by which
    # matrix pull reads: A itself (mxv, or a symmetric A), its transpose, or none yet
    key = (semiring.parent, semiring.return_type, n_out, none, own)
    found = plans.get(key)
    if found is None:
        push_weight = _push_weight(semiring)
        miss_weight = _miss_weight(cp.cuda.runtime.getDevice(), n_out)
        rows = None
        if semiring.monoid.parent.builtin_name == "any":
            rows = row_stats(pull_m)[1] if pull_m is not None else n_out
        found = plans[key] = (push_weight, miss_weight, rows, A.nvals)
    # by the semiring object itself: a loop asks with the same one every time (no key to
    # build and hash); never a reference to a matrix (A would hold itself, and its memory
    # would wait for the cycle collector)
    plans.last = (semiring, n_out, own, none, found)
    return found


class _Plans(dict):
    """A matrix's planner terms by (semiring, type, output size, which matrix pull reads),
    and ``last``: the last call's (semiring, output size, pull reads A, pull has no matrix,
    terms)."""

    __slots__ = ("last",)

    def __init__(self):
        super().__init__()
        self.last = None


def _push_weight(semiring):
    """FOLD_LOOP_WEIGHT for a push that folds by a compare-and-swap loop, else 1."""
    monoid = semiring.monoid
    return (FOLD_LOOP_WEIGHT if (_mode(semiring) == programs.PUSH_FOLD
                                 and not monoid.is_idempotent
                                 and not jit.native_atomic(monoid)) else 1)


# A pushed product that misses L2 costs this many that hit: push claims each output by an
# atomic on an 8-byte stamp and tests the mask, both n-sized arrays read in random order.
# Measured on the H200 (benchmarks/profiling/direction_levels.py, BFS levels from 4 sources each,
# 2026-12-02): push made 18-39 billion products a second on kron-22 and g500-21 (stamps of
# 34 and 17 MB, inside the 50 MB L2) and 4.2-4.8 billion on kron-27 (1.07 GB of stamps).
L2_MISS_WEIGHT = 4
_CLAIM_BYTES = 9  # a stamp and a mask byte per output


def _miss_weight(dev, n_out):
    """The cost of one pushed product over one whose claim hits L2, by the share of random
    claims that miss: 1 - L2 / (the claims' footprint), for uniformly spread claims."""
    l2 = cp.cuda.runtime.getDeviceProperties(dev)["l2CacheSize"]
    footprint = n_out * _CLAIM_BYTES
    miss = max(0.0, 1.0 - l2 / footprint) if footprint else 0.0
    return 1 + (L2_MISS_WEIGHT - 1) * miss


def _direction(A, push_m, pull_m, u, mask, n_out, semiring, rec=None):
    """plan.choose_direction from the vector's entry count and exact degree sum (from its
    counters when the kernel that made it summed them, else one reduction) and the mask's
    size (``rec``: the loop body being recorded, whose replays change every count, so none
    is trusted).

    The exact sum is computed only when the decision needs it: when the host knows the
    entry count, the count alone settles the choice after a pull (the hysteresis), and
    ``count x the largest degree`` settles it for push when even that bound is small (a
    BFS's first level: one vertex, whose degree sum would cost a launch and a wait); when
    the host has the exact sum already (a vector made by a product, whose count was read),
    it decides at once (the same choice: the bound only ever settles what the sum would).

    This runs before every product, and its cost is auto's whole cost over a forced push on
    a BFS's small levels, about three times what it takes in a loop (the caches a GPU wait
    leaves cold; measured on an H100).  So the common paths make two Python
    calls, the rule's and its log check: the last call's terms, the counts the host knows
    and the mask's share are read here, the settings by the dict's own lookup."""
    forced = _setting("direction")
    if forced != "auto":  # forced: no counts to read
        return forced
    if isinstance(u, FullVector):
        return "pull"  # a full vector: every row is an input
    own, none = pull_m is A, pull_m is None
    last = A._plans.last if A._plans is not None else None
    if (last is not None and last[0] is semiring and last[1] == n_out and last[2] is own
            and last[3] is none):
        push_weight, miss_weight, first_hit_rows, nvals = last[4]
    else:
        push_weight, miss_weight, first_hit_rows, nvals = _terms(A, pull_m, semiring, n_out,
                                                                 own, none)
    # pull visits the rows the mask allows; over an "any" monoid each stops at its first
    # product, which bounds its work by the rows it scans (the rule does that from the sum)
    pull_work = nvals
    if mask is not None and n_out:
        m = mask.data
        if isinstance(m, DeviceVector) and m.counters is not None:  # a full one has none
            # a count the host holds, else the bound in-place assigns keep (see Counters.peek)
            found = None if rec is not None else (m.counters.known or m.counters.peek())
            k = m.count_hi if found is None else found[0]
        else:
            k = m.nvals
        if k is not None:
            allowed = (k if k < n_out else n_out) / n_out
            if mask.complement:
                allowed = 1.0 - allowed
            pull_work *= allowed
            if first_hit_rows is not None:
                first_hit_rows *= allowed
    previous = None
    if isinstance(u, DeviceVector):
        previous = u.made_by
        known = None if rec is not None else (u.counters.known or u.counters.peek())
        if known is None:
            nu = None
        else:
            nu = known[0]
            # after a pull the count decides (the hysteresis: the sum is not read); after a
            # push the exact sum came with the count, so no bound is needed
            if ((previous == "pull" and n_out)
                    or (push_m is not None and u.deg_of is push_m.indptr)):
                return plan.choose_direction(known[1], pull_work, first_hit_rows, nvals, nu,
                                             n_out, previous, False, push_weight, miss_weight)
    else:
        nu = u.nvals
    if nu is not None and push_m is not None and plan.choose_direction(
            nu * row_stats(push_m)[0], pull_work, first_hit_rows, nvals, nu, n_out, previous,
            True, push_weight, miss_weight) == "push":
        return "push"  # settled by the bound (no hysteresis applies: a pull's count returned)
    nu, push_work = _entries_and_degrees(A, push_m, u)
    return plan.choose_direction(push_work, pull_work, first_hit_rows, nvals, nu, n_out,
                                 previous, False, push_weight, miss_weight)


def _entries_and_degrees(A, push_m, u):
    """(entries of u, their degree sum in push_m) on the host, with at most one read: the
    sum comes with u's count when the kernel that made u summed it; otherwise the sum is
    reduced on the device and read with the counter page, which usually holds u's count too."""
    if isinstance(u, DeviceVector) and push_m is not None and u.deg_of is push_m.indptr:
        return u.counters.values()
    if push_m is None or isinstance(u, BitmapVector):
        # no exact sum without a transpose or a compaction: the average degree
        nu = u.nvals
        return nu, int(A.nvals * nu / max(A.nrows if push_m is None else push_m.nrows, 1))
    idx, _, u_counters, cap = as_list(u)
    counters = Counters()
    (fn,) = jit.compiled(programs.list_degrees).fns
    jit.launch(fn, cap, (i64(cap), device_count(u_counters), idx, push_m.indptr,
                         counters.array))
    counters.touch()
    degrees = counters.values()[1]
    return u.nvals, degrees


# -- masks and vectors as the kernels read them -----------------------------------------------

def _mode(semiring):
    if semiring.monoid.parent.builtin_name != "any":
        return programs.PUSH_FOLD
    if jit.constant_product(semiring.binaryop):
        return programs.PUSH_FIRST
    return programs.PUSH_SMALLEST


# -- pull ------------------------------------------------------------------------------------

def _pull(M, u, semiring, mview, vfirst, n_out, dptr):
    """The product by pull; ``mview`` the mask as dense_mask gives it."""
    t = semiring.monoid.return_type
    v = view(M)
    xbits, xv = dense_of(u)
    mbits, mvals, mkind, mmode = mview
    fns = jit.compiled(programs.pull, semiring, M.dtype, u.dtype, vfirst, v.idx32).fns
    mvalues = matrix_values(M, v, semiring, vfirst)
    out = cp.empty(n_out, dtype=t.np_type)
    counters = Counters()
    heavy = HEAVY if v.nheavy else _NO_HEAVY
    tail = (xv, xbits, mbits, mvals, mkind, mmode)
    most = FIRST_HIT_LANES if semiring.monoid.parent.builtin_name in _EARLY_EXIT else 32
    if v.bins:
        obits = cp.zeros(n_out, dtype=cp.uint8)
        for rows, nrows, lanes in v.bins:
            lanes = min(lanes, most)
            jit.launch(fns[0], nrows * lanes, (
                i64(nrows), rows, M.indptr, v.col, *mvalues, *tail, np.int32(lanes),
                i64(heavy), dptr, out, obits, counters.array))
    else:
        obits = cp.empty(n_out, dtype=cp.uint8)
        width = min(v.width, most)
        if n_out:
            jit.launch(fns[0], n_out * width, (
                i64(n_out), None, M.indptr, v.col, *mvalues, *tail, np.int32(width),
                i64(heavy), dptr, out, obits, counters.array))
    if v.nheavy and semiring.monoid.parent.builtin_name in _EARLY_EXIT:
        jit.run(fns[1], min(v.nheavy, jit.MAX_GRID), 256, (
            i64(v.nheavy), v.heavy_rows, M.indptr, v.col, *mvalues, *tail, dptr, out, obits,
            counters.array))
    elif v.nheavy:
        chunk_rows, chunk_starts, nchunks = v.heavy_chunks(M)
        jit.launch(fns[2], v.nheavy, (i64(v.nheavy), v.heavy_rows, out, obits))
        jit.run(fns[3], min(nchunks, jit.MAX_GRID), 256, (
            i64(nchunks), chunk_rows, chunk_starts, M.indptr, v.col, *mvalues, *tail, out,
            obits))
        jit.launch(fns[4], v.nheavy, (i64(v.nheavy), v.heavy_rows, dptr, obits,
                                      counters.array))
    counters.touch()
    return BitmapVector(n_out, t, obits, out, counters, deg_of=dptr)


def _folds_rows(semiring):
    """Whether a row's fold of a constant product (pair: 1) depends on its length alone: its
    length under plus, the constant under an idempotent monoid."""
    return jit.constant_product(semiring.binaryop) and (
        semiring.monoid.parent.builtin_name == "plus" or semiring.monoid.is_idempotent)


def _pull_constant(M, semiring, n_out):
    """A constant product over a full vector, without a mask (PageRank's and triangle
    counting's degrees: ``A.mxv(ones, plus_pair)``): every row with an entry gets its length
    (plus) or the constant 1, from the row pointers alone; no entry is read (a whole SpMV
    before, 82 ms on kron-27).  The count of such rows is the matrix's row_stats (read once
    per matrix)."""
    t = semiring.monoid.return_type
    lengths = arrays.adjacent_diff(M.indptr)
    obits = arrays.astype(lengths, np.bool_).view(cp.uint8)
    plus = semiring.monoid.parent.builtin_name == "plus"
    out = arrays.astype(lengths if plus else obits, t.np_type, copy_same=True)
    return BitmapVector(n_out, t, obits, out, Counters((row_stats(M)[1], 0)))


# -- push ------------------------------------------------------------------------------------


def _push(M, u, semiring, mview, vfirst, n_out, square):
    """The product by push; ``mview`` the mask as dense_mask gives it."""
    t = semiring.monoid.return_type
    v = view(M)
    rec = recording.thread.rec
    if rec is not None:  # an earlier push's claims, still to clear, before this one claims
        rec.flush_unclaim()
    idx, vals, u_counters, cap_in = as_list(u)
    nu_ptr = device_count(u_counters)
    mbits, mvals, mkind, mmode = mview
    mode = _mode(semiring)
    fns = jit.compiled(programs.push, semiring, M.dtype, u.dtype, vfirst, v.idx32, mode).fns
    mvalues = matrix_values(M, v, semiring, vfirst)
    known = u.counters.peek() if isinstance(u, DeviceVector) and u.counters else None
    degrees = known[1] if known is not None and u.deg_of is M.indptr else None
    bound = n_out if degrees is None else degrees
    dptr = M.indptr if square else None
    cap = max(1, min(n_out, bound))
    out_idx = cp.empty(cap, dtype=INDEX)
    out_vals = cp.empty(cap, dtype=t.np_type)
    counters = Counters()
    scratch = _scratch_for(n_out)
    rec = recording.thread.rec
    epoch = scratch.next_epoch(rec)
    posmap = fold = None
    if mode == programs.PUSH_SMALLEST:
        if scratch.posmap is None:
            recording.refuse("push's slot map")
            scratch.posmap = cp.empty(n_out, dtype=np.int64)
        posmap = scratch.posmap
    elif mode == programs.PUSH_FOLD:
        fold = scratch.folds.get(semiring.monoid)
        if fold is None:
            recording.refuse("push's fold accumulators")
            fold = scratch.folds[semiring.monoid] = cp.empty(n_out, dtype=t.np_type)
            jit.launch(fns[-1], n_out, (i64(n_out), fold))
    # Heavy entries are possible only if the matrix has heavy rows and the entries' degree
    # sum (when the host knows it) exceeds PUSH_HEAVY; their kernel gets a block per chunk
    # of that sum, up to a quarter of MAX_GRID (a small level launches no idle grid).
    heavy_blocks = 0
    if v.npush_heavy and cap_in and (degrees is None or degrees > PUSH_HEAVY):
        heavy_blocks = jit.MAX_GRID // 4 if rec is None else jit.RECORDED_MAX_GRID
        if degrees is not None:
            heavy_blocks = min(heavy_blocks, -(-degrees // PUSH_CHUNK))
    heavy = PUSH_HEAVY if heavy_blocks else _NO_HEAVY
    heavy_list = cp.empty(min(cap_in, v.npush_heavy), dtype=INDEX) if heavy_blocks else None
    width = np.int32(v.width)
    light_grid = jit.grid_for(cap_in * v.width, recorded_max=RECORDED_PUSH_GRID)
    passes = (1, 2) if mode == programs.PUSH_SMALLEST else (1,)
    # one first-claim launch: in a device loop's round that is this push alone, the
    # loop's end is fused into it (gbk_push_loop)
    fusable = mode == programs.PUSH_FIRST and not heavy_blocks and cap_in > 0 and t == u.dtype
    tail = rec.tail_here() if fusable and rec is not None and rec.capturing else None
    for p in passes:
        light, heavy_fn = fns[2 * (p - 1)], fns[2 * (p - 1) + 1]
        if cap_in:
            args = (i64(cap_in), nu_ptr, idx, vals, M.indptr, v.col, *mvalues, mbits, mvals,
                    mkind, mmode, width, i64(heavy), scratch.stamp, epoch, posmap, fold, dptr,
                    heavy_list, out_idx, out_vals, counters.array)
            if tail is not None and idx is tail.state.idx:
                rec.launch(light, light_grid, jit.BLOCK, args)  # compared as the dry rounds'
                tail.scratch, tail.out = scratch, (out_idx, out_vals, counters)
                _push_loop(tail, rec.hoisted, (semiring, M.dtype, u.dtype, vfirst, v.idx32),
                           light_grid, (M.indptr, v.col, *mvalues, mbits, mvals, mkind, mmode,
                                        width, scratch.stamp, epoch, dptr))
            else:
                jit.run(light, light_grid, jit.BLOCK, args)
        if heavy_blocks:
            jit.run(heavy_fn, heavy_blocks, 256, (
                idx, vals, M.indptr, v.col, *mvalues, mbits, mvals, mkind, mmode, scratch.stamp,
                epoch, posmap, fold, dptr, heavy_list, out_idx, out_vals, counters.array))
    # a recorded push leaves the stamps unclaimed (next_epoch): the fold's gather clears
    # them, or a kernel of its own
    if mode == programs.PUSH_FOLD:
        jit.launch(fns[2], cap, (counters.array, out_idx, fold, out_vals,
                                 None if rec is None else scratch.stamp))
    elif rec is not None and not (tail is not None and tail.used):
        # at the next push, or folded into the loop's end (loops.py)
        rec.defer_unclaim(cap, counters, out_idx, scratch.stamp)
    if rec is not None:
        rec.note_push(out_idx, idx, fusable, (semiring, M.dtype, u.dtype, vfirst, v.idx32))
    counters.touch()
    return ListVector(n_out, t, out_idx, out_vals, counters, ordered=False, deg_of=dptr)


def _push_loop(tail, hoisted, key, grid, product):
    """Launch gbk_push_loop, the captured round of a device loop that is one first-claim
    push (``product``: the push's matrix, mask and claim arguments), in place of the push's
    light kernel: the loop's state and the push's output list alternate as its input and
    output, and the loop's end (gbk_loop_next's work) is done by its last block
    (spmspv.cuh).  ``hoisted``: the round's first step, a scalar assign, done as each output
    is claimed, or None.  Its launch is the loop's, not the body's (not compared).  For a
    persistent loop (``tail.words``), gbk_push_levels's arguments instead, which the loop
    launches cooperatively once (loops.py): every round, the same way."""
    state = tail.state
    out_idx, out_vals, counters = tail.out
    program = programs.push_loop if tail.words is None else programs.push_levels
    if hoisted is None:
        (fn,) = jit.compiled(program, *key).fns
        extra = (None, None, None, np.int32(0), np.uint8(0))
    else:  # (both loaded before the capture: loops.py)
        target = hoisted.target
        (fn,) = jit.compiled(program, *key, target.dtype).fns
        value = jit.scalar(0 if hoisted.from_counter else hoisted.value, target.dtype)
        extra = (target.bits, target.vals, target.counters.array,
                 np.int32(hoisted.from_counter), value)
    args = (state.idx, state.vals, state.counters.array, out_idx, out_vals, counters.array,
            *product, tail.ctl, np.int64(tail.r0), np.int64(tail.limit), i64(tail.capacity),
            np.uint64(tail.handle) if tail.words is None else tail.words, *extra)
    tail.used = True
    if tail.words is not None:
        tail.launch = (fn, args)
        return
    rec = recording.thread.rec
    recording.set_current(None)
    try:
        jit.run(fn, grid, jit.BLOCK, args)
    finally:
        recording.set_current(rec)


# -- small matrices -----------------------------------------------------------------------------

def _small(A, u, semiring, mask, vfirst, n_out, n_in, ref):
    """The whole product in one block (gbk_mv_small): one launch, no synchronization; the
    result is a sorted list whose count stays on the device.  The kernel pushes from a short
    list and pulls otherwise (both are one launch; push saves the transpose that vxm's pull
    reads)."""
    t = semiring.monoid.return_type
    forced = _setting("direction")
    if forced != "auto":
        push = forced == "push"
    elif isinstance(u, (BitmapVector, FullVector)):
        push = False
    else:
        k = u.known_nvals() if isinstance(u, DeviceVector) else u.nvals
        push = k is None or 4 * k <= n_in
    push_m, pull_m = _orientations(A, vfirst)
    if push:
        M = push_m = push_m if push_m is not None else _transposed(A)
    else:
        M = pull_m if pull_m is not None else _transposed(A)
    dptr = push_m.indptr if push_m is not None and A.nrows == A.ncols else None
    (fn,) = jit.compiled(programs.mv_small, semiring, M.dtype, u.dtype, vfirst, push).fns
    # the operands' counters stay referenced until the launch (a released slot is zeroed)
    idx, vals, u_counters, cap = as_list(u)
    nu_ptr = device_count(u_counters)
    m_counters = None
    listed = 0
    if mask is None:
        mmode, nm, nm_ptr, m_idx, mbits, m_vals, mkind = 0, 0, None, None, None, None, 0
    else:
        mmode = 2 if mask.complement else 1
        mkind = programs.mask_kind(mask)
        m = mask.data
        if isinstance(m, (BitmapVector, FullVector)):
            nm, nm_ptr, m_idx = 0, None, None
            mbits, m_vals = m.dense()
        else:
            m_idx, m_vals, m_counters, nm = as_list(m)
            nm_ptr = device_count(m_counters)
            mbits, listed = None, 1
        if not mkind:
            m_vals = None
    # the kernel writes the whole counters slot; its write mark, set as it is taken, already
    # follows any host copy of its page (none is taken between here and the launch)
    out_idx, out_vals, counters, spare_key = small_buffers(max(n_out, 1), t.np_type)
    # the sizes are Python ints, which both launchers pass as 64-bit; the 32-bit flags are
    # made once
    jit.run(fn, 1, 256, (
        n_out, n_in, M.indptr, M.indices, M.values, cap, nu_ptr, idx, vals,
        _INT32[mmode], _INT32[listed], nm, nm_ptr, m_idx, mbits, m_vals, _INT32[mkind], dptr,
        out_idx, out_vals, counters.array))
    out = ListVector(n_out, t, out_idx, out_vals, counters, True, dptr, spare_key)
    out._under_mask = ref
    return out
