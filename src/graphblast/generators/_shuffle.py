"""``std::shuffle`` of 0..n-1 with ``std::mt19937``, exactly as libstdc++ does it (GCC 12).

GAP permutes the vertex ids of its Kronecker graph with ``shuffle(p.begin(), p.end(), rng)``
(generator.h, ``PermuteIDs``).  libstdc++'s shuffle is a Fisher-Yates pass: for i = 1..n-1 it
swaps ``p[i]`` with ``p[H[i]]``, ``H[i]`` uniform in ``[0, i]``.  Two details fix the exact
draws:

* ``uniform_int_distribution`` downscales a 32-bit generator by Lemire's multiply-and-reject
  method (``_S_nd``): ``product = r * R``; the draw is ``product >> 32`` unless the low word
  is below ``2^32 mod R``, in which case ``r`` is rejected and the next output tried.
* When ``n * n`` fits the generator's range (n <= 65535 here) two positions come from one
  draw: ``x`` uniform in ``[0, (i+1)(i+2))`` gives ``H[i] = x / (i+2)`` and
  ``H[i+1] = x % (i+2)``; for even n the first position is drawn alone from ``[0, 1]``.

The draws form one sequential stream.  They are made speculatively in vectors of the size of
the expected run between rejections, a rejection repairing the rest (about n^2 / 2^34 of them,
so a few at scale 20 and a million at scale 27).  The swaps are then applied in parallel
rounds: swap i touches positions i and ``H[i] < i``; before it, only swap ``H[i]`` and the
earlier swaps with the same target touch them, so every round applies, for each target not
still waiting on its own swap, the first pending swap aimed at it.  The rounds reproduce the
sequential result; their number grows like log n.
"""

import numpy as np

from ._mt19937 import MT19937Streams

_TWO32 = np.uint64(1 << 32)
_LOW32 = np.uint64(0xFFFFFFFF)
# The largest vector of speculative draws, and the smallest.
_MAX_RUN = 1 << 20
_MIN_RUN = 64


class _Stream:
    """One std::mt19937 stream, read sequentially through a refilled buffer."""

    def __init__(self, seed):
        self._mt = MT19937Streams(np, [seed])
        self._buf = np.zeros(0, dtype=np.uint64)
        self._pos = 0

    def peek(self, count):
        """The next ``count`` outputs (as uint64) without consuming them."""
        if self._pos + count > self._buf.shape[0]:
            need = self._pos + count - self._buf.shape[0]
            fresh = self._mt.next(max(need, _MAX_RUN))[:, 0].astype(np.uint64)
            self._buf = np.concatenate([self._buf[self._pos:], fresh])
            self._pos = 0
        return self._buf[self._pos:self._pos + count]

    def skip(self, count):
        self._pos += count


def lemire_draws(stream, ranges):
    """``uniform_int_distribution(0, R-1)`` draws for each ``R`` in ``ranges``, in order.

    Parameters
    ----------
    stream : _Stream
        The generator; it is advanced past every output used, rejected ones included.
    ranges : numpy.ndarray of uint64
        The ranges ``R`` (``1 <= R < 2^32``), one per draw.

    Returns
    -------
    numpy.ndarray of uint64
    """
    out = np.empty(ranges.shape[0], dtype=np.uint64)
    k, total = 0, ranges.shape[0]
    while k < total:
        # A rejection at range R is about R / 2^33 likely: speculate over twice the mean run.
        run = int(min(_MAX_RUN, max(_MIN_RUN, (1 << 34) // int(ranges[k]))))
        run = min(run, total - k)
        rng = ranges[k:k + run]
        prod = stream.peek(run) * rng
        bad = (prod & _LOW32) < (_TWO32 % rng)
        good = run if not bad.any() else int(bad.argmax())
        out[k:k + good] = prod[:good] >> np.uint64(32)
        stream.skip(good)
        k += good
        if good < run:
            # Draw k was rejected: retry it on the following outputs.
            r, threshold = int(rng[good]), (1 << 32) % int(rng[good])
            stream.skip(1)
            while True:
                p = int(stream.peek(1)[0]) * r
                stream.skip(1)
                if p & 0xFFFFFFFF >= threshold:
                    out[k] = p >> 32
                    k += 1
                    break
    return out


def swap_targets(n, seed):
    """``H`` with ``H[i]`` the position libstdc++'s shuffle swaps with ``p[i]`` (H[0] = 0)."""
    stream = _Stream(seed)
    targets = np.zeros(n, dtype=np.int64)
    if n < 2:
        return targets
    if (2**32 - 1) // n >= n:
        first = 1
        if n % 2 == 0:
            targets[1] = lemire_draws(stream, np.array([2], dtype=np.uint64))[0]
            first = 2
        i = np.arange(first, n - 1, 2, dtype=np.uint64)
        x = lemire_draws(stream, (i + np.uint64(1)) * (i + np.uint64(2)))
        targets[first::2] = x // (i + np.uint64(2))
        targets[first + 1::2] = x % (i + np.uint64(2))
    else:
        targets[1:] = lemire_draws(stream, np.arange(2, n + 1, dtype=np.uint64))
    return targets


def apply_swaps(xp, targets):
    """``p = arange(n)`` after ``swap(p[i], p[targets[i]])`` for i = 1..n-1 in order.

    ``targets`` is an int64 array of ``xp``; so is the result.  With CuPy each step here is an
    element-wise kernel that CuPy compiles on first use: a GPU takes
    :func:`_apply_swaps_device` instead.
    """
    n = targets.shape[0]
    perm = xp.arange(n, dtype=xp.int64)
    real = targets != perm
    real[:1] = False
    # Group the swaps by target; within a group they run in index order.  The key
    # target * n + index is unique, so a plain (fast) sort orders both at once.
    key = targets[real] * n + perm[real]
    key.sort()
    dst, src = xp.divmod(key, n)
    del key
    first = xp.ones(dst.shape[0], dtype=bool)
    xp.not_equal(dst[1:], dst[:-1], out=first[1:])
    head = xp.flatnonzero(first)
    ends = xp.concatenate([head[1:], xp.asarray([dst.shape[0]], dtype=head.dtype)])
    group_target = dst[head]
    group_of = xp.full(n, -1, dtype=xp.int64)
    group_of[group_target] = xp.arange(head.shape[0])
    # A group can run once the swap of its target is done; targets with no swap of their own
    # are ready from the start.  Each round runs the head swap of every ready group; that
    # readies the group aimed at the swapped index and, if it has more, the same group.
    ready = xp.flatnonzero(~real[group_target])
    while ready.size:
        i, h = src[head[ready]], group_target[ready]
        perm[i], perm[h] = perm[h], perm[i]
        head[ready] += 1
        woken = group_of[i]
        ready = xp.concatenate([ready[head[ready] < ends[ready]], woken[woken >= 0]])
    return perm


def _apply_swaps_device(cp, targets):
    """:func:`apply_swaps` on a GPU, for the host array ``targets``, by kernels of the
    catalogue (``gbk_swap_*`` of generators.cuh; CuPy's element-wise steps and fancy indexing
    would each be compiled on first use): the same groups and rounds, a round being one
    kernel that runs the head swap of every ready group and lists the groups it readies, and
    one read of their number.  Returns the int64 permutation."""
    from cupy.cuda import thrust

    from ..backends.cuda import arrays
    from ._device import launch

    n = targets.shape[0]
    perm = arrays.arange(n, np.int64)
    count = cp.zeros(1, dtype=cp.uint64)
    targets = cp.asarray(targets)
    keys = cp.empty(n, dtype=cp.int64)
    launch("swap_keys", n, (np.int64(n), targets, keys, count))
    if n:
        thrust.sort(keys.dtype, keys.data.ptr, 0, (n,))
    m = int(count.get()[0])
    if m == 0:
        return perm
    flags = cp.empty(m, dtype=cp.int64)
    launch("swap_group_starts", m, (np.int64(m), keys, np.int64(n), flags))
    start = arrays.positions_of_flags(flags)
    groups = start.shape[0]
    group_of = arrays.full(n, -1, np.int64)
    flags = cp.empty(groups, dtype=cp.int64)
    launch("swap_groups", groups, (np.int64(groups), keys, start, np.int64(n), targets,
                                   group_of, flags))
    del targets
    first = arrays.positions_of_flags(flags)
    del flags
    ready, following = cp.empty(groups, dtype=cp.int64), cp.empty(groups, dtype=cp.int64)
    arrays.copy_into(first, ready[:first.shape[0]])
    head = arrays.copy(start)
    r = first.shape[0]
    del first
    while r:
        count.data.memset_async(0, count.nbytes)
        launch("swap_round", r, (np.int64(r), ready, head, start, np.int64(groups),
                                 np.int64(m), keys, np.int64(n), group_of, perm, following,
                                 count))
        r = int(count.get()[0])
        if r > groups:
            raise RuntimeError(f"shuffle: a round readied {r} groups of {groups}; each group "
                               "can be ready once (a defect of gbk_swap_round)")
        ready, following = following, ready
    return perm


def shuffled_ids(xp, n, seed, dtype=np.int64):
    """``std::shuffle`` of ``0..n-1`` with ``std::mt19937(seed)``, as libstdc++ does it, as
    ``dtype``.

    The draws are made on the host (they are one sequential stream); the swaps run on ``xp``,
    on a GPU by the catalogue's kernels (:func:`_apply_swaps_device`).
    """
    targets = swap_targets(n, seed)
    if xp is np:
        return apply_swaps(np, targets).astype(dtype, copy=False)
    from ..backends.cuda import arrays

    return arrays.astype(_apply_swaps_device(xp, targets), dtype)
