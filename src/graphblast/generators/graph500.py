"""The Graph500 Kronecker graph, built as the benchmark's reference generator describes it.

Graph500's ``kronecker_generator`` (the Octave reference of the specification) draws
``edge_factor * 2^scale`` edges; for each of the ``scale`` bit levels of an edge it sets the
source bit with probability ``C + D = 0.24`` and the destination bit with probability
``B / (A + B)`` when the source bit is 0 and ``D / (C + D)`` when it is 1, for initiator
``A, B, C, D = 0.57, 0.19, 0.19, 0.05``.  The vertex labels are then permuted uniformly at
random.  The benchmark's kernels treat the result as undirected, without self-loops or
duplicate edges, and that is the graph returned here.

The random numbers come from :mod:`._counter_rng` (one 64-bit number per edge and level, its
two halves compared with the probabilities scaled to 2^32), so a seed gives the same graph on
every device, but not the graph of another Graph500 implementation, whose generator differs.
"""

import numpy as np

from ..dtypes import BOOL
from ..exceptions import InvalidValue
from . import _device
from ._counter_rng import CounterRNG, check_seed
from ._csr import build_csr

A, B, C, D = 0.57, 0.19, 0.19, 0.05
#: Vertex ids are int32 in the CSR.
MAX_SCALE = 30

_EDGE_STREAM, _PERM_STREAM = 0, 1


def _permutation(xp, n, seed, bits):
    """A uniformly random permutation of ``0..n-1`` (sorting random keys, ids in the low bits).

    Putting the id below the random bits makes every key distinct, so the result does not
    depend on how a device's sort breaks ties.
    """
    rng = CounterRNG(xp, seed, _PERM_STREAM)
    if xp is not np:  # two kernels of the catalogue around Thrust's sort
        from cupy.cuda import thrust

        keys, out = xp.empty(n, dtype=xp.uint64), xp.empty(n, dtype=xp.int32)
        _device.launch("permutation_keys", n, (np.int64(n), rng.key, np.int32(bits), keys))
        if n:
            thrust.sort(keys.dtype, keys.data.ptr, 0, (n,))
        _device.launch("permutation_ids", n, (np.int64(n), np.int32(bits), keys, out))
        return out
    keys = rng.bits(0, n)
    low = xp.uint64((1 << bits) - 1)
    keys &= ~low
    keys |= xp.arange(n, dtype=xp.uint64)
    keys.sort()
    return (keys & low).astype(xp.int32)


def _edge_source(xp, scale, edge_factor, seed, words):
    n = 1 << scale
    m = n * edge_factor
    step = max(1, words // 16)
    perm = _permutation(xp, n, seed, max(1, scale))
    rng = CounterRNG(xp, seed, _EDGE_STREAM)
    # One 64-bit draw per edge and level: its high half decides the source bit, its low half
    # the destination bit, each compared with a probability scaled to 2^32.
    t_src = xp.uint64(round((A + B) * 2**32))
    t_dst0 = xp.uint64(round(A / (A + B) * 2**32))
    t_dst1 = xp.uint64(round(C / (C + D) * 2**32))
    low = xp.uint64(0xFFFFFFFF)

    def chunks():
        for e0 in range(0, m, step):
            e = min(step, m - e0)
            if xp is not np:  # the levels below in one kernel of the catalogue
                u, v = xp.empty(e, dtype=xp.int32), xp.empty(e, dtype=xp.int32)
                _device.launch("graph500_rmat", e, (
                    np.int64(e), np.int64(e0), np.int64(m), np.int32(scale), rng.key,
                    t_src, t_dst0, t_dst1, perm, u, v))
                yield u, v, None
                continue
            src = xp.zeros(e, dtype=xp.int32)
            dst = xp.zeros(e, dtype=xp.int32)
            for level in range(scale):
                # Counter level * m + edge: a pure function of the edge, whatever the chunks.
                b = rng.bits(level * m + e0, e)
                ii = (b >> xp.uint64(32)) >= t_src
                jj = (b & low) >= xp.where(ii, t_dst1, t_dst0)
                src |= ii.astype(xp.int32) << level
                dst |= jj.astype(xp.int32) << level
            yield perm[src], perm[dst], None

    return chunks


def _graph500_csr(scale, edge_factor, seed, device):
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)) or not (
            0 <= scale <= MAX_SCALE):
        raise InvalidValue(f"graph500: scale must be an integer from 0 to {MAX_SCALE} (the "
                           f"graph has 2^scale vertices), not {scale!r}")
    if isinstance(edge_factor, bool) or not isinstance(edge_factor, (int, np.integer)) or (
            edge_factor < 1):
        raise InvalidValue(f"graph500: edge_factor must be a positive integer (edges per "
                           f"vertex), not {edge_factor!r}")
    seed = check_seed("graph500", seed)
    with _device.on(device) as (_dev, xp):
        scale, edge_factor = int(scale), int(edge_factor)
        n = 1 << scale
        m = n * edge_factor
        budget, words = (1 << 26, 1 << 24) if xp is np else (1 << 28, 1 << 27)
        budget = min(budget, 2 * m)
        # Raw CSR, offsets, sort workspace, a chunk of draws and the permutation (see gap._plan).
        needed = 8 * m + 24 * (n + 1) + 32 * budget + 12 * words + 16 * n
        _device.check_memory(xp, needed, f"graph500(scale={scale}, edge_factor={edge_factor})")
        return build_csr(xp, _edge_source(xp, scale, edge_factor, seed, words), n, budget=budget)


def graph500(scale, edge_factor=16, *, seed=None, device=None):
    """A Graph500 Kronecker graph: undirected, without self-loops or duplicate edges.

    Parameters
    ----------
    scale : int
        log2 of the number of vertices (0 to 30).
    edge_factor : int, default 16
        Edges generated per vertex, before duplicates and self-loops are removed.
    seed : int, optional
        Seed in [0, 2^64); ``None`` is a fixed default, so calls are reproducible.
    device : str, optional
        "cpu", "cuda" or "cuda:N"; the default device when omitted.

    Returns
    -------
    Matrix
        BOOL, ``2^scale x 2^scale`` (isolated vertices included), symmetric with both
        directions of every edge stored, every value True, columns sorted in each row.

    Notes
    -----
    Each edge's bits follow the reference ``kronecker_generator`` with
    A, B, C, D = 0.57, 0.19, 0.19, 0.05; vertex labels are permuted uniformly at random.
    Kronecker graphs repeat edges: at scale 20 about 94% of the generated edges survive.

    Examples
    --------
    >>> A = graph500(10, seed=1)
    >>> A.nrows
    1024
    """
    dev = _device.resolve(device)
    csr = _graph500_csr(scale, edge_factor, seed, dev)
    return _device.to_matrix(csr, BOOL, dev, name=f"graph500_{scale}", symmetric=True)
