"""GAP's synthetic graphs, ``kron`` and ``urand``, reproduced bit for bit.

The GAP Benchmark Suite (sbeamer/gapbs) builds its graphs in ``src/generator.h`` and
``src/builder.h``; with the same scale, degree and seed these functions return the same graph:

* The edge list is made in blocks of 2^18 edges; block ``b`` draws from its own
  ``std::mt19937`` seeded with ``seed + b`` (``kRandSeed`` = 27491095 by default).  Every
  block's stream is a column of one vectorized Mersenne Twister (``_mt19937``).
* ``urand``: each endpoint is GAP's ``UniDist``: an output modulo ``2^scale`` (no rejection, the
  modulus being a power of two).
* ``kron``: R-MAT with A, B, C = 0.57, 0.19, 0.19 over ``scale`` levels, one output per level,
  then the vertex ids are permuted by ``std::shuffle`` with ``std::mt19937(seed)`` (exactly as
  libstdc++ does it, see ``_shuffle``).  gapbs compares each output against thresholds in one
  of two ways, chosen by ``variant``:

  - ``"uint32"`` (the default; gapbs's current ``generator.h``): the raw output against
    ``0.57 * (2^32 - 1)`` and friends, converted to ``uint32``;
  - ``"float"`` (earlier gapbs releases): ``std::uniform_real_distribution<float>(0, 1)`` as
    libstdc++ implements it (``generate_canonical``: the output rounded to float, times 2^-32,
    clamped below 1) against ``0.57f`` and the float sums ``0.57f + 0.19f`` and
    ``+ 0.19f``.  Being monotone in the output, this too is an integer threshold test,
    with thresholds found once by bisection.

  The two agree on all but about one endpoint in a million (both give GAP's reference counts).
* Weighted graphs get GAP's ``InsertWeights``: each block's generator is reseeded as above and
  edge weights drawn as ``UniDist(254) + 1`` (1..255), rejecting outputs at or above a cutoff
  (``2^32 - 1`` with ``variant="uint32"``, ``2^32 - 2`` with the older ``"float"`` code).
* GAP's builder symmetrizes the edge list, sorts every neighbourhood and removes self-loops
  and duplicates (``MakeCSR``/``SquishCSR``); a duplicated edge keeps its smallest weight, the
  first after GAP's sort by (neighbour, weight).  The vertex count is the largest id in the
  edge list plus one (``FindMaxNodeID``), which for these graphs is ``2^scale`` unless the
  top ids are never drawn.

With the default seed, scale 10 gives GAP's reference counts (test/reference in gapbs):
``kron`` 1,024 vertices and 10,496 undirected edges (20,992 stored entries), ``urand`` 16,125
(32,250).  gapbs stores vertex ids as int32, so ``scale`` is at most 30.
"""

import functools

import numpy as np

from ..dtypes import BOOL, UINT8
from ..exceptions import InvalidValue
from . import _device
from ._csr import build_csr
from ._mt19937 import MT19937Streams
from ._shuffle import shuffled_ids

#: GAP's default seed (``kRandSeed`` in gapbs's util.h).
GAP_SEED = 27491095
#: Edges per independently seeded block (``Generator::block_size``).
BLOCK_SIZE = 1 << 18
#: gapbs's NodeID is int32.
MAX_SCALE = 30
VARIANTS = ("uint32", "float")

_UINT32_MAX = (1 << 32) - 1


@functools.cache
def rmat_thresholds(variant):
    """``(t_lo, t_src, t_hi)``: integer forms of GAP's R-MAT comparisons for one output ``r``.

    The source bit is ``r >= t_src``; the destination bit is ``r >= t_lo`` below ``t_src`` and
    ``r >= t_hi`` above, as ``generator.h`` decides ``rand_point < A+B``, ``> A`` and
    ``> A+B+C``.
    """
    if variant == "uint32":
        # const uint32_t A = 0.57*max, B = 0.19*max, C = 0.19*max (truncating conversions).
        a, b = int(0.57 * _UINT32_MAX), int(0.19 * _UINT32_MAX)
        return a + 1, a + b, a + b + b + 1
    a = np.float32(0.57)
    ab = a + np.float32(0.19)
    abc = ab + np.float32(0.19)
    return (_first_output(lambda x: x > a), _first_output(lambda x: x >= ab),
            _first_output(lambda x: x > abc))


def _canonical_float(r):
    """libstdc++'s ``generate_canonical<float, 24>`` of one ``std::mt19937`` output ``r``."""
    x = np.float32(r) * np.float32(2.0**-32)
    return x if x < np.float32(1) else np.nextafter(np.float32(1), np.float32(0))


def _first_output(pred):
    """The smallest 32-bit output whose canonical float satisfies the monotone ``pred``."""
    lo, hi = 0, 1 << 32
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(_canonical_float(mid)):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _weight_cutoff(variant):
    """Outputs at or above this are rejected by ``UniDist(254)`` (modulus 255)."""
    if variant == "uint32":
        return _UINT32_MAX - (_UINT32_MAX % 255)   # remainder_sub_1 form
    return _UINT32_MAX - ((1 << 32) % 255)          # older rng_range % mod form


class _GapWeights:
    """GAP's edge weights, ``UniDist(254) + 1`` per edge, for every block in lockstep.

    A rejection (an output at or above the cutoff: one in 2^32 or 2^31) makes one block's stream
    fall behind the others; that stream is then split off and continued on its own.
    """

    def __init__(self, xp, seeds, variant):
        self.xp = xp
        self._mt = MT19937Streams(xp, seeds)
        self._cutoff = xp.uint32(_weight_cutoff(variant))
        self._solo = {}  # block -> [its own generator, accepted values not yet used]

    def next(self, count):
        xp = self.xp
        raw = self._mt.next(count)
        if xp is np:
            out = (raw % xp.uint32(255)).astype(xp.int32)
            out += 1
            rejected = raw >= self._cutoff
            hit = _device.to_host(xp, xp.flatnonzero(rejected.any(axis=0))).tolist()
        else:  # one kernel of the catalogue; the streams with a rejection read back
            out, hit = self._next_device(raw)
            rejected = raw >= self._cutoff if hit else None
        for b in hit:
            if b not in self._solo:
                self._solo[b] = [self._mt.split(b), out[:, b][~rejected[:, b]]]
        for b, entry in self._solo.items():
            out[:, b] = self._take(entry, count)
        return out

    def _next_device(self, raw):
        import cupy as cp

        from ..backends.cuda import jit, programs

        out = cp.empty(raw.shape, dtype=cp.int32)
        counts = cp.zeros(raw.shape[1], dtype=cp.uint32)
        if raw.size:
            jit.launch(jit.compiled(programs.generator_kernel, "gap_weights").fns[0], raw.size,
                       (np.int64(raw.size), np.int32(raw.shape[1]), raw, self._cutoff, out,
                        counts))
        return out, np.flatnonzero(counts.get()).tolist()

    def _take(self, entry, count):
        """``count`` weights of one split-off stream."""
        xp = self.xp
        mt, have = entry
        while have.shape[0] < count:
            raw = mt.next(count)[:, 0]
            fresh = (raw[raw < self._cutoff] % xp.uint32(255)).astype(xp.int32) + 1
            have = xp.concatenate([have, fresh])
        entry[1] = have[count:]
        return have[:count]


def _check_args(name, scale, degree, seed, variant):
    if isinstance(scale, bool) or not isinstance(scale, (int, np.integer)):
        raise InvalidValue(f"{name}: scale must be an integer (the graph has 2^scale "
                           f"vertices), not {scale!r}")
    if not 0 <= scale <= MAX_SCALE:
        raise InvalidValue(f"{name}: scale must be between 0 and {MAX_SCALE} (GAP stores "
                           f"vertex ids as int32), not {scale}")
    if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or degree < 1:
        raise InvalidValue(f"{name}: degree must be a positive integer (edges generated per "
                           f"vertex), not {degree!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or not 0 <= seed < 1 << 32):
        raise InvalidValue(f"{name}: seed must be None (GAP's {GAP_SEED}) or an integer in "
                           f"[0, 2^32), not {seed!r}")
    if variant not in VARIANTS:
        raise InvalidValue(f"{name}: variant must be one of {VARIANTS}, not {variant!r}")


def _plan(xp, kind, scale, degree, weighted):
    """Workspace sizes for one graph, and the memory check before anything is allocated."""
    n = 1 << scale
    m = n * degree
    draws = scale if kind == "kron" else 2
    if xp is np:
        budget, words = 1 << 26, 1 << 24
    else:
        budget, words = 1 << 28, 1 << 27
    budget = min(budget, 2 * m)
    # Raw CSR (2m entries of 4 bytes, twice with weights), row offsets and counts, the sort
    # workspace (keys, copies, rows: about 32 bytes an entry), one chunk of generated edges
    # with its raw outputs, and for kron the permutation with its swap bookkeeping.
    raw = 2 * m * (8 if weighted else 4)
    offsets = 3 * 8 * (n + 1)
    work = 32 * budget + 4 * words + 40 * max(1, words // max(1, draws))
    perm = 48 * n if kind == "kron" else 0
    _device.check_memory(xp, raw + offsets + work + perm,
                         f"{kind}(scale={scale}, degree={degree}"
                         f"{', weighted=True' if weighted else ''})")
    return budget, words


def _edge_source(xp, kind, scale, degree, seed, variant, weighted, words):
    """GAP's edge list as a re-runnable source of ``(u, v, w)`` chunks (see ``_csr``)."""
    n = 1 << scale
    m = n * degree
    nblocks = -(-m // BLOCK_SIZE)
    per_block = min(BLOCK_SIZE, m)
    last_block = m - (nblocks - 1) * BLOCK_SIZE
    draws = scale if kind == "kron" else 2
    step = max(1, min(per_block, words // (draws * nblocks) if draws else per_block))
    seeds = np.arange(nblocks, dtype=np.uint64) + np.uint64(seed)
    perm = shuffled_ids(xp, n, seed, np.int32) if kind == "kron" else None

    def chunks():
        mt = MT19937Streams(xp, seeds)
        weights = _GapWeights(xp, seeds, variant) if weighted else None
        for j0 in range(0, per_block, step):
            e = min(step, per_block - j0)
            raw = mt.next(e * draws).reshape(e, draws, nblocks)
            if kind == "kron" and xp is not np:
                u, v = _rmat_device(raw, rmat_thresholds(variant), perm)
            elif kind == "kron":
                u, v = _rmat(xp, raw, rmat_thresholds(variant))
                u, v = perm[u], perm[v]
            elif xp is not np:  # urand on a GPU: one kernel of the catalogue
                u = xp.empty((e, nblocks), dtype=xp.int32)
                v = xp.empty((e, nblocks), dtype=xp.int32)
                _device.launch("urand", e * nblocks, (np.int64(e), np.int32(nblocks), raw,
                                                      np.uint32(n - 1), u, v))
            else:
                mask = xp.uint32(n - 1)
                u = (raw[:, 0, :] & mask).astype(xp.int32)
                v = (raw[:, 1, :] & mask).astype(xp.int32)
            del raw
            w = weights.next(e) if weighted else None
            # Every block runs in lockstep; the last one may be shorter.
            if j0 + e > last_block:
                keep = xp.ones((e, nblocks), dtype=bool)
                keep[max(0, last_block - j0):, nblocks - 1] = False
                u, v = u[keep], v[keep]
                w = None if w is None else w[keep]
            yield u.reshape(-1), v.reshape(-1), None if w is None else w.reshape(-1)

    return chunks


def _rmat(xp, raw, thresholds):
    """R-MAT endpoints from ``raw`` outputs shaped ``(edges, scale, blocks)``."""
    t_lo, t_src, t_hi = (xp.uint32(t) for t in thresholds)
    shape = (raw.shape[0], raw.shape[2])
    src = xp.zeros(shape, dtype=xp.int32)
    dst = xp.zeros(shape, dtype=xp.int32)
    one = xp.int32(1)
    for depth in range(raw.shape[1]):
        r = raw[:, depth, :]
        top = r >= t_src
        src <<= one
        src |= top
        dst <<= one
        # Below t_src the bit is r >= t_lo, above it r >= t_hi; t_lo < t_src <= t_hi, so
        # the xor of the three tests is exactly that.
        dst |= (r >= t_lo) ^ top ^ (r >= t_hi)
    return src, dst


def _rmat_device(raw, thresholds, perm):
    """:func:`_rmat` and the renaming through ``perm`` on a GPU: one kernel of the catalogue
    (``gbk_rmat``, the same integer tests), where the array version's element-wise steps
    would each be compiled by CuPy on first use."""
    import cupy as cp

    from ..backends.cuda import jit, programs

    edges, scale, blocks = raw.shape
    u = cp.empty((edges, blocks), dtype=cp.int32)
    v = cp.empty((edges, blocks), dtype=cp.int32)
    t_lo, t_src, t_hi = (np.uint32(t) for t in thresholds)
    jit.launch(jit.compiled(programs.generator_kernel, "rmat").fns[0], edges * blocks,
               (np.int64(edges), np.int32(scale), np.int32(blocks), raw, t_lo, t_src, t_hi,
                perm, u, v))
    return u, v


def _gap_csr(kind, scale, degree, seed, weighted, variant, device):
    """GAP's graph as CSR arrays on ``device`` (the generators' shared body)."""
    _check_args(kind, scale, degree, seed, variant)
    with _device.on(device) as (_dev, xp):
        budget, words = _plan(xp, kind, scale, degree, weighted)
        seed = GAP_SEED if seed is None else int(seed)
        source = _edge_source(xp, kind, int(scale), int(degree), seed, variant, weighted,
                              words)
        return build_csr(xp, source, 1 << scale, weighted=weighted, budget=budget,
                         nrows_from_max_id=True)


def _gap_matrix(kind, scale, degree, seed, weighted, variant, device):
    dev = _device.resolve(device)
    csr = _gap_csr(kind, scale, degree, seed, weighted, variant, dev)
    name = f"{kind}{scale}" + ("w" if weighted else "")
    # both directions of every generated edge are stored, and a duplicated entry keeps its
    # smallest weight in either direction: A == A', weights included
    return _device.to_matrix(csr, UINT8 if weighted else BOOL, dev, name=name, symmetric=True)


_COMMON_DOC = """
    Parameters
    ----------
    scale : int
        log2 of the number of vertices (0 to 30).
    degree : int, default 16
        Edges generated per vertex before symmetrizing and removing duplicates (GAP's ``-k``).
    seed : int, optional
        The generator seed, in [0, 2^32); ``None`` is GAP's ``kRandSeed`` (27491095).
    weighted : bool, default False
        Attach GAP's random integer weights 1..255 (its ``WeightedBuilder``, used for SSSP),
        stored as UINT8, the narrowest type that holds them (gapbs keeps them in int32).
    variant : {"uint32", "float"}, default "uint32"
        Which gapbs generator to match: the current one or the older one that drew
        ``std::uniform_real_distribution<float>`` (see :mod:`graphblast.generators.gap`).
    device : str, optional
        "cpu", "cuda" or "cuda:N"; the default device when omitted.  The graph is built there.

    Returns
    -------
    Matrix
        Square and symmetric (both directions of every edge stored), no self-loops, sorted
        columns.  BOOL with every value True, or UINT8 weights when ``weighted``.
    """


def kron(scale, degree=16, *, seed=None, weighted=False, variant="uint32", device=None):
    return _gap_matrix("kron", scale, degree, seed, weighted, variant, device)


def urand(scale, degree=16, *, seed=None, weighted=False, variant="uint32", device=None):
    return _gap_matrix("urand", scale, degree, seed, weighted, variant, device)


kron.__doc__ = ("""GAP's Kronecker graph (``-g scale``), exactly as gapbs builds it.

    R-MAT with Graph500's A, B, C = 0.57, 0.19, 0.19 and permuted vertex ids.
""" + _COMMON_DOC + """
    Examples
    --------
    >>> A = kron(10)          # GAP's g10: 1,024 vertices, 10,496 undirected edges
    >>> A.nvals
    20992
""")
urand.__doc__ = ("""GAP's uniform random graph (``-u scale``), exactly as gapbs builds it.

    Every endpoint is uniform over the ``2^scale`` vertices (an Erdos-Renyi-like graph).
""" + _COMMON_DOC + """
    Examples
    --------
    >>> A = urand(10)         # GAP's u10: 16,125 undirected edges
    >>> A.nvals
    32250
""")
