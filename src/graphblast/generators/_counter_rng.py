"""A counter-based random source: the same numbers on NumPy and CuPy, in any chunking.

The generators other than GAP's draw their randomness as ``splitmix64(key + (i + 1) * phi)``
for counter ``i``: a pure function of ``(seed, stream, i)``.  That makes every graph
independent of the device, of the chunk sizes the memory plan picks and of the order chunks
are made in, and costs a few integer operations per number.  (Its quality is that of
SplittableRandom's output mix, ample for building random graphs; it is not for cryptography.)
"""

import numpy as np

from ..exceptions import InvalidValue
from . import _device

_PHI = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_MASK64 = (1 << 64) - 1

#: The seed used when a generator is called with ``seed=None``: calls are reproducible by
#: default; pass different seeds for different graphs.
DEFAULT_SEED = 0


def _mix_int(z):
    """splitmix64's output mix of one Python int."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * int(_M1)) & _MASK64
    z = ((z ^ (z >> 27)) * int(_M2)) & _MASK64
    return z ^ (z >> 31)


def _mix(xp, z):
    """splitmix64's output mix, in place on a uint64 array; returns it."""
    tmp = xp.empty_like(z)
    for shift, mult in ((30, _M1), (27, _M2), (31, None)):
        xp.right_shift(z, xp.uint64(shift), out=tmp)
        z ^= tmp
        if mult is not None:
            z *= mult
    return z


def check_seed(name, seed):
    """``seed`` as a non-negative int (``None`` is :data:`DEFAULT_SEED`), or InvalidValue."""
    if seed is None:
        return DEFAULT_SEED
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not (
            0 <= seed <= _MASK64):
        raise InvalidValue(f"{name}: seed must be None or an integer in [0, 2^64), "
                           f"not {seed!r}")
    return int(seed)


class CounterRNG:
    """Random numbers indexed by a counter, for one ``(seed, stream)``.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``: where the numbers are made.
    seed : int
        The user's seed.
    stream : int
        Separates the independent uses inside one generator (positions, weights, ...).
    """

    def __init__(self, xp, seed, stream):
        self.xp = xp
        self._key = np.uint64(_mix_int(_mix_int(seed) ^ _mix_int(stream + 1)))

    @property
    def key(self):
        """The stream's key (a uint64): counter ``i``'s bits are splitmix64's mix of
        ``(i + 1) * phi + key`` (the generators' GPU kernels compute them from it)."""
        return self._key

    def bits(self, start, count, mod=0):
        """64 random bits for each counter in ``start .. start+count-1`` (modulo ``mod``
        unless it is 0).  On a GPU one kernel of the catalogue (``generators.cuh``), where
        the array steps below would each be compiled on first use."""
        xp = self.xp
        if xp is not np:
            out = xp.empty(count, dtype=xp.uint64)
            _device.launch("counter_bits_range", count, (np.int64(count), np.uint64(start),
                                                         self._key, np.uint64(mod), out))
            return out
        z = xp.arange(start + 1, start + 1 + count, dtype=xp.uint64)
        z *= _PHI
        z += self._key
        z = _mix(xp, z)
        return z % xp.uint64(mod) if mod else z

    def bits_at(self, counters):
        """64 random bits for each counter of an integer array."""
        xp = self.xp
        if xp is not np:
            from ..backends.cuda import arrays

            counters = arrays.astype(xp.ascontiguousarray(counters), np.uint64)
            out = xp.empty(counters.shape[0], dtype=xp.uint64)
            _device.launch("counter_bits_at", out.shape[0], (np.int64(out.shape[0]),
                                                             counters, self._key, out))
            return out
        z = counters.astype(xp.uint64) + xp.uint64(1)
        z *= _PHI
        z += self._key
        return _mix(xp, z)

    def uniform(self, start, count):
        """Floats uniform in ``[0, 1)`` (53 random bits each) for consecutive counters."""
        return to_unit(self.xp, self.bits(start, count))


def to_unit(xp, bits):
    """Map uint64 random bits to float64 uniform in ``[0, 1)``."""
    return (bits >> xp.uint64(11)).astype(xp.float64) * (1.0 / (1 << 53))


def below(xp, bits, bound):
    """Integers in ``[0, bound)`` from random bits (``bound`` <= 2^32, multiply-shift).

    The high 32 bits are scaled by ``bound``; the bias is below ``bound / 2^32`` relative.
    """
    return ((bits >> xp.uint64(32)) * xp.uint64(bound)) >> xp.uint64(32)
