"""Erdos-Renyi random graphs, G(n, p) and G(n, m), sampled without testing every pair.

Both models come down to choosing a uniformly random set of ``K`` vertex pairs out of the
``N`` possible ones (``n(n-1)/2`` unordered pairs, or ``n(n-1)`` ordered ones when directed;
never a self-loop): G(n, m) has ``K = m``, and G(n, p) is exactly G(n, K) for
``K ~ Binomial(N, p)``.  The pairs are numbered ``0..N-1`` and chosen as random numbers:

* ``K <= N/2``: random pair numbers are drawn, duplicates merged, and drawn again until at
  least ``K`` distinct ones are known; ``K`` of them are then kept by random keys.  Every rule
  here is blind to the pair numbers themselves, so every ``K``-set is equally likely.
* ``K > N/2``: the ``N - K`` pairs left out are chosen that way instead.

The binomial count is drawn on the host by NumPy (``Generator(PCG64(seed)).binomial``); the
pair numbers come from the counter-based source, the same on every device.
"""

import numbers

import numpy as np

from ..dtypes import BOOL
from ..exceptions import InvalidValue
from . import _device
from ._counter_rng import CounterRNG, check_seed
from ._csr import build_csr

#: Vertex ids are int32 in the CSR.
MAX_N = (1 << 31) - 1

_DRAW_STREAM, _KEEP_STREAM = 0, 1


def _check(n, p, m, directed):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_N:
        raise InvalidValue(f"erdos_renyi: n must be an integer from 0 to {MAX_N}, not {n!r}")
    n = int(n)
    pairs = n * (n - 1) if directed else n * (n - 1) // 2
    if (p is None) == (m is None):
        raise InvalidValue("erdos_renyi: give exactly one of p (edge probability, G(n, p)) "
                           "and m (edge count, G(n, m))")
    if p is not None:
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
            raise InvalidValue(f"erdos_renyi: p must be a probability in [0, 1], not {p!r}")
        return n, pairs, float(p), None
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 0 <= m <= pairs:
        raise InvalidValue(f"erdos_renyi: m must be an integer from 0 to {pairs} (the "
                           f"{'ordered' if directed else 'unordered'} pairs of {n} vertices), "
                           f"not {m!r}")
    return n, pairs, None, int(m)


def _sorted_unique(xp, a):
    """The distinct values of ``a``, sorted (a sort and a mask: fast on NumPy and CuPy)."""
    if xp is not np:  # Thrust's sort and kernels of the catalogue
        from ..backends.cuda import arrays

        _sort(xp, a)
        flags = xp.empty(a.shape[0], dtype=xp.int64)
        _device.launch("run_starts", a.shape[0], (np.int64(a.shape[0]), a, flags))
        return arrays.take(a, arrays.positions_of_flags(flags))
    a.sort()
    first = xp.empty(a.shape[0], dtype=bool)
    first[:1] = True
    xp.not_equal(a[1:], a[:-1], out=first[1:])
    return a[first]


def _distinct(xp, seed, pairs, k):
    """``k`` distinct pair numbers in ``[0, pairs)``, a uniformly random ``k``-set, sorted."""
    if k == 0:
        return xp.zeros(0, dtype=xp.int64)
    draw = CounterRNG(xp, seed, _DRAW_STREAM)
    chosen = xp.zeros(0, dtype=xp.uint64)
    counter = 0
    while chosen.shape[0] < k:
        have = chosen.shape[0]
        # Expected draws for the k - have still missing, with a margin to need one round.
        want = int((k - have) * pairs / (pairs - have) * 1.05) + 64
        fresh = draw.bits(counter, want, mod=pairs)
        counter += want
        chosen = _sorted_unique(xp, _joined(xp, chosen, fresh))
        del fresh
    if chosen.shape[0] > k:
        keys = CounterRNG(xp, seed, _KEEP_STREAM).bits_at(chosen)
        if xp is np:
            chosen = xp.sort(chosen[xp.argsort(keys)[:k]])
        else:  # Thrust's sorts and the catalogue's gather
            from ..backends.cuda import arrays

            chosen = _sort(xp, arrays.take(chosen, arrays.argsort(keys, consume=True)[:k]))
    if xp is np:
        return chosen.astype(xp.int64)
    from ..backends.cuda import arrays

    return arrays.astype(chosen, np.int64)


def _joined(xp, a, b):
    """``concatenate([a, b])`` (on a GPU by two copies: CuPy's would compile a kernel)."""
    if xp is np:
        return xp.concatenate([a, b])
    from ..backends.cuda import arrays

    out = xp.empty(a.shape[0] + b.shape[0], dtype=a.dtype)
    arrays.copy_into(a, out[:a.shape[0]])
    arrays.copy_into(b, out[a.shape[0]:])
    return out


def _sort(xp, a):
    """``a`` sorted in place (on a GPU by Thrust's sort, compiled into CuPy); returns it."""
    if xp is np:
        a.sort()
    elif a.shape[0]:
        from cupy.cuda import thrust

        thrust.sort(a.dtype, a.data.ptr, 0, (a.shape[0],))
    return a


def _pair_numbers(xp, seed, pairs, k):
    """A uniformly random ``k``-set of pair numbers, sorted (via the complement past N/2)."""
    if 2 * k <= pairs:
        return _distinct(xp, seed, pairs, k)
    if xp is not np:  # the catalogue's kernels
        from ..backends.cuda import arrays

        left_out = _distinct(xp, seed, pairs, pairs - k)
        keep = arrays.put(arrays.full(pairs, 1, np.bool_), left_out,
                          xp.zeros(left_out.shape[0], dtype=np.bool_))
        return arrays.flatnonzero(keep)
    keep = xp.ones(pairs, dtype=bool)
    keep[_distinct(xp, seed, pairs, pairs - k)] = False
    return xp.flatnonzero(keep).astype(xp.int64)


def _endpoints(xp, t, n, directed):
    """The ``(u, v)`` pair with number ``t``: ordered pairs row-major, or ``u > v`` lower
    triangle row by row (row ``u`` starts at ``u (u - 1) / 2``)."""
    if xp is not np:  # one kernel of the catalogue (the same integers)
        u = xp.empty(t.shape[0], dtype=xp.int32)
        v = xp.empty(t.shape[0], dtype=xp.int32)
        _device.launch("pair_endpoints", t.shape[0], (np.int64(t.shape[0]), t, np.int64(n),
                                                      np.int32(directed), u, v))
        return u, v
    if directed:
        u, r = t // (n - 1), t % (n - 1)
        return u.astype(xp.int32), (r + (r >= u)).astype(xp.int32)
    u = ((1.0 + xp.sqrt(1.0 + 8.0 * t.astype(xp.float64))) / 2.0).astype(xp.int64)
    # The float root can be one off either way for large t; fix it in integers.
    u -= (u * (u - 1) // 2 > t).astype(xp.int64)
    u += ((u + 1) * u // 2 <= t).astype(xp.int64)
    return u.astype(xp.int32), (t - u * (u - 1) // 2).astype(xp.int32)


def _erdos_renyi_csr(n, p, m, directed, seed, device):
    n, pairs, p, m = _check(n, p, m, directed)
    seed = check_seed("erdos_renyi", seed)
    with _device.on(device) as (_dev, xp):
        k = m if p is None else int(np.random.Generator(np.random.PCG64(seed)).binomial(pairs, p))
        entries = k * (1 if directed else 2)
        budget = (1 << 26) if xp is np else (1 << 28)
        # The CSR, the pair numbers with a round of draws and their sort, and the build's
        # workspace; a complement needs a byte per pair.
        sample = k if 2 * k <= pairs else pairs - k
        needed = 4 * entries + 8 * (n + 1) + 40 * sample + 32 * min(budget, max(entries, 1))
        if 2 * k > pairs:
            needed += pairs + 8 * k
        _device.check_memory(xp, needed, f"erdos_renyi(n={n}, {'m' if p is None else 'p'}="
                                         f"{m if p is None else p}, directed={directed})")
        t = _pair_numbers(xp, seed, pairs, k)
        step = max(1, budget // 2)

        def chunks():
            for s in range(0, k, step):
                u, v = _endpoints(xp, t[s:s + step], n, directed)
                yield u, v, None

        return build_csr(xp, chunks, n, symmetrize=not directed, budget=budget)


def erdos_renyi(n, p=None, *, m=None, directed=False, seed=None, device=None):
    """An Erdos-Renyi random graph: G(n, p) when ``p`` is given, G(n, m) when ``m`` is.

    Parameters
    ----------
    n : int
        Number of vertices.
    p : float, optional
        Probability of each possible edge, independently (G(n, p)).
    m : int, optional
        Exact number of edges, uniformly chosen (G(n, m)).  Give ``p`` or ``m``, not both.
    directed : bool, default False
        Choose among ordered pairs (a directed graph) instead of unordered ones.
    seed : int, optional
        Seed in [0, 2^64); ``None`` is a fixed default, so calls are reproducible.
    device : str, optional
        "cpu", "cuda" or "cuda:N"; the default device when omitted.

    Returns
    -------
    Matrix
        BOOL ``n x n`` with every value True and no self-loops: symmetric with both
        directions stored when undirected (``2 m`` stored entries for G(n, m)), one entry
        per edge when directed.

    Examples
    --------
    >>> erdos_renyi(100, m=250, seed=3).nvals
    500
    """
    dev = _device.resolve(device)
    csr = _erdos_renyi_csr(n, p, m, directed, seed, dev)
    return _device.to_matrix(csr, BOOL, dev, name=f"erdos_renyi_{n}",
                             symmetric=not directed)

