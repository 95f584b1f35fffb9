"""The 32-bit Mersenne Twister (``std::mt19937``), vectorized across independent streams.

GAP's generators reseed one ``std::mt19937`` per block of 2^18 edges; reproducing them means
running thousands of such streams side by side.  :class:`MT19937Streams` keeps the state of
every stream in one uint32 array of the array module ``xp`` and advances all streams together.

The state is laid out ``(624, streams)``, a column per stream, so that one batch of every
stream is a single contiguous block of memory.  The recurrence is written on the raw word
sequence ``x``: after ``seed`` the state holds ``x[0:624]`` and every later word is
``x[k+624] = x[k+397] ^ twist(x[k], x[k+1])``.  A batch of 227 (= 624 - 397) consecutive new
words depends only on words already computed, so each batch is a handful of array operations
however many streams there are.  The n-th output of the generator is ``temper(x[624 + n])``,
exactly what ``std::mt19937::operator()`` returns.  On a GPU the same batches run inside one
CUDA kernel (a thread block per stream), because launching each array operation is slower
than the work."""

import numpy as np

_N = 624
_M = 397
_BATCH = _N - _M  # new words that depend only on words already known
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)


def _seed_state(xp, seeds):
    """The ``(streams, 624)`` state that ``std::mt19937::seed(s)`` makes for each seed.

    ``x[0] = s mod 2^32`` and ``x[i] = 1812433253 * (x[i-1] ^ (x[i-1] >> 30)) + i``; the
    recursion runs over the 624 words, vectorized across streams.  uint64 holds the product
    before the reduction modulo 2^32.  The state is returned as ``(624, streams)``.
    """
    seeds = xp.asarray(seeds, dtype=xp.uint64).reshape(-1) & xp.uint64(0xFFFFFFFF)
    state = xp.empty((_N, seeds.size), dtype=xp.uint32)
    prev = seeds
    state[0] = prev
    mult = xp.uint64(1812433253)
    mask = xp.uint64(0xFFFFFFFF)
    for i in range(1, _N):
        prev = ((prev ^ (prev >> xp.uint64(30))) * mult + xp.uint64(i)) & mask
        state[i] = prev
    return state


# Tempering runs over slices of about this many words: NumPy then reuses two cache-sized
# scratch buffers instead of faulting in fresh pages for every temporary of a large array.
_TEMPER_CHUNK = 1 << 16


def _temper(xp, y):
    """MT19937's output transformation, in place on a 2-D uint32 array; returns it."""
    rows = max(1, _TEMPER_CHUNK // max(1, y.shape[1]))
    for start in range(0, y.shape[0], rows):
        part = y[start:start + rows]
        tmp = part >> xp.uint32(11)
        part ^= tmp
        xp.left_shift(part, xp.uint32(7), out=tmp)
        tmp &= xp.uint32(0x9D2C5680)
        part ^= tmp
        xp.left_shift(part, xp.uint32(15), out=tmp)
        tmp &= xp.uint32(0xEFC60000)
        part ^= tmp
        xp.right_shift(part, xp.uint32(18), out=tmp)
        part ^= tmp
    return y


class MT19937Streams:
    """Independent ``std::mt19937`` streams advanced in lockstep.

    Outputs come as ``(count, streams)`` arrays: column ``j`` is stream ``j``.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``; the state and every output live there.
    seeds : array_like of int
        One seed per stream, as passed to ``std::mt19937::seed`` (taken modulo 2^32).

    Examples
    --------
    >>> import numpy as np
    >>> MT19937Streams(np, [5489]).next(2)   # the first outputs of a default std::mt19937
    array([[3499211612],
           [ 581869302]], dtype=uint32)
    """

    def __init__(self, xp, seeds):
        self.xp = xp
        # seeded on the host (624 steps over the streams: a few ms) and copied: on a GPU each
        # step would be several launches of element-wise kernels CuPy compiles on first use
        state = _seed_state(np, seeds)
        self._state = state if xp is np else xp.asarray(state)

    @property
    def streams(self):
        """The number of streams (rows of every output)."""
        return self._state.shape[1]

    def next(self, count):
        """The next ``count`` outputs of every stream, as a ``(count, streams)`` uint32 array."""
        xp = self.xp
        count = int(count)
        if xp is not np:
            return self._next_cuda(count)
        buf = xp.empty((_N + count, self.streams), dtype=xp.uint32)
        buf[:_N] = self._state
        one = xp.uint32(1)
        for k in range(0, count, _BATCH):
            end = min(k + _BATCH, count)
            hi = buf[k + 1:end + 1]
            out = buf[k + _N:end + _N]
            # y = upper bit of x[k] | lower 31 bits of x[k+1]; built in the output slot, which
            # is free until written, to spare temporaries.
            xp.bitwise_and(buf[k:end], _UPPER, out=out)
            out |= hi & _LOWER
            out >>= one
            out ^= buf[k + _M:end + _M]
            # The conditional xor with MATRIX_A depends on the low bit of y, which is hi's.
            out ^= (hi & one) * _MATRIX_A
        self._state = buf[count:].copy()
        return _temper(xp, buf[_N:])

    def _next_cuda(self, count):
        """:meth:`next` on a GPU: one kernel, a thread block per stream.

        The array version launches a few kernels per batch of 227 words, which is launch-bound
        on a GPU.  Here each block keeps its stream's 624 words in shared memory as a ring and
        makes a batch per step, 227 threads reading, then writing after a barrier.
        """
        cp = self.xp
        out = cp.empty((count, self.streams), dtype=cp.uint32)
        if count:
            _cuda_kernel()((self.streams,), (256,),
                           (self._state, out, np.int64(count), np.int32(self.streams)))
        return out

    def split(self, stream):
        """A new single-stream generator that continues stream ``stream`` from here."""
        solo = MT19937Streams.__new__(MT19937Streams)
        solo.xp = self.xp
        solo._state = self._state[:, stream:stream + 1].copy()
        return solo





def _cuda_kernel():
    """The kernel for the current device: gbk_mt19937_streams of the CUDA backend's
    ``kernels/generators.cuh``, from the kernel catalogue (compiled at run time only where
    the package was built without it)."""
    from ..backends.cuda import jit, programs

    return jit.compiled(programs.generator_kernel, "mt19937_streams").fns[0]
