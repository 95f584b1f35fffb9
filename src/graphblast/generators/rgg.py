"""Random geometric graphs in the unit square, found with a cell grid (no all-pairs test).

``n`` points are uniform in ``[0, 1)^2``; two points are joined when their Euclidean distance is
at most ``radius``.  The default radius ``0.55 * sqrt(ln n / n)`` is the rule of the DIMACS10
``rgg_n_2_*`` graphs (n = 2^24 gives about 265.1 million stored entries).

The square is cut into ``g x g`` cells at least ``radius`` wide, so a point's neighbours lie in
its own cell and the eight around it.  Vertices are numbered in cell order (row-major over the
cells, by generation order inside a cell): neighbours get nearby ids, as in the DIMACS10
files, and the rows of the CSR come out in order, a chunk of consecutive vertices at a time.
"""

import math

import numpy as np

from ..dtypes import BOOL
from ..exceptions import InvalidValue
from . import _device
from ._counter_rng import CounterRNG, check_seed, to_unit
from ._device import CSR

#: Vertex ids are int32 in the CSR.
MAX_N = (1 << 31) - 1


def default_radius(n):
    """The DIMACS10 rule ``0.55 * sqrt(ln n / n)`` (0 for n < 2)."""
    return 0.55 * math.sqrt(math.log(n) / n) if n >= 2 else 0.0


def expected_entries(n, radius):
    """Expected stored entries (twice the edges) of ``rgg(n, radius)``.

    Two uniform points of the unit square are within ``r <= 1`` of each other with probability
    ``pi r^2 - 8/3 r^3 + r^4 / 2`` (the square's edges cut off part of the disc).
    """
    r = min(float(radius), 1.0)
    return n * (n - 1) * (math.pi * r * r - 8.0 / 3.0 * r ** 3 + 0.5 * r ** 4)


def _check(n, radius):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_N:
        raise InvalidValue(f"rgg: n must be an integer from 0 to {MAX_N} (the number of "
                           f"points), not {n!r}")
    if radius is None:
        return default_radius(int(n))
    try:
        radius = float(radius)
    except (TypeError, ValueError):
        raise InvalidValue(f"rgg: radius must be a number, not {radius!r}") from None
    if not (math.isfinite(radius) and radius >= 0):
        raise InvalidValue(f"rgg: radius must be finite and >= 0, not {radius!r}")
    return radius


def _rgg_csr(n, radius, seed, device):
    """``(CSR, positions)`` of the random geometric graph, positions in vertex order."""
    radius = _check(n, radius)
    seed = check_seed("rgg", seed)
    n = int(n)
    with _device.on(device) as (_dev, xp):
        budget = (1 << 24) if xp is np else (1 << 27)
        expected = expected_entries(n, radius)
        # The CSR (with a 1/8 margin over the expectation, collected then concatenated), the
        # points with their sort keys and cell table, and one chunk of candidate pairs.
        _device.check_memory(xp, int(2 * 4 * 1.125 * expected) + 56 * n + 48 * budget,
                             f"rgg(n={n}, radius={radius:g})")

        # Cells at least `radius` wide; no more cells than points, as emptier ones only cost.
        cells = max(1, min(int(1.0 / radius) if radius > 0 else n, math.isqrt(max(n, 1))))
        if xp is not np and n:
            return _rgg_device(xp, n, radius, seed, cells)
        pos = to_unit(xp, CounterRNG(xp, seed, 0).bits(0, 2 * n)).reshape(n, 2)
        cx = xp.minimum((pos[:, 0] * cells).astype(xp.int64), cells - 1)
        cy = xp.minimum((pos[:, 1] * cells).astype(xp.int64), cells - 1)
        # Cell-major order, generation order inside a cell: sorting ``cell * n + i`` (unique).
        key = (cy * cells + cx) * max(n, 1) + xp.arange(n, dtype=xp.int64)
        key.sort()
        cell = key // max(n, 1)
        pos = pos[key % max(n, 1)]
        del key, cx, cy
        x, y = pos[:, 0].copy(), pos[:, 1].copy()
        cell_start = xp.searchsorted(cell, xp.arange(cells * cells + 1, dtype=xp.int64))
        r2 = radius * radius

        per_point = 9 * max(1.0, n / (cells * cells))
        step = max(1, int(budget / (2 * per_point)))
        cols_out, counts = [], xp.zeros(n, dtype=xp.int64)
        for p0 in range(0, n, step):
            p1 = min(n, p0 + step)
            rows, cols = _candidates(xp, p0, p1, cell[p0:p1], cells, cell_start)
            dx = x[rows] - x[cols]
            dy = y[rows] - y[cols]
            keep = (dx * dx + dy * dy <= r2) & (rows != cols)
            del dx, dy
            rows, cols = rows[keep], cols[keep]
            # Rows are in order already; sorting row * n + col orders the columns within a row.
            key = rows * n + cols
            key.sort()
            cols_out.append((key % n).astype(xp.int32))
            counts[p0:p1] = xp.bincount(key // n - p0, minlength=p1 - p0)
            del rows, cols, keep, key
        indptr = xp.zeros(n + 1, dtype=xp.int64)
        xp.cumsum(counts, out=indptr[1:])
        indices = xp.concatenate(cols_out) if cols_out else xp.zeros(0, dtype=xp.int32)
        return CSR(indptr, indices, None, n, n), pos


def _rgg_device(cp, n, radius, seed, cells):
    """:func:`_rgg_csr`'s steps on a GPU by kernels of the catalogue (``gbk_rgg_*``) around
    Thrust's sort of the points' keys: the same graph and positions, nothing compiled at run
    time.  A thread per point scans the 3 x 3 cells around its own twice, counting, then
    writing its row (sorted in place)."""
    from cupy.cuda import thrust

    from ..backends.cuda import arrays

    rng = CounterRNG(cp, seed, 0)
    raw, keys = cp.empty(2 * n, dtype=cp.float64), cp.empty(n, dtype=cp.int64)
    _device.launch("rgg_points", n, (np.int64(n), rng.key, np.int64(cells), raw, keys))
    thrust.sort(keys.dtype, keys.data.ptr, 0, (n,))
    cell, pos = cp.empty(n, dtype=cp.int64), cp.empty(2 * n, dtype=cp.float64)
    x, y = cp.empty(n, dtype=cp.float64), cp.empty(n, dtype=cp.float64)
    _device.launch("rgg_place", n, (np.int64(n), keys, raw, cell, pos, x, y))
    del raw, keys
    m = cells * cells + 1
    starts = cp.empty(m, dtype=cp.int64)
    _device.launch("rgg_cell_starts", m, (np.int64(m), cell, np.int64(n), starts))
    indptr = cp.zeros(n + 1, dtype=cp.int64)
    r2 = np.float64(radius * radius)
    args = (np.int64(n), np.int64(cells), cell, starts, x, y, r2)
    _device.launch("rgg_edges", n, (*args, np.int32(1), indptr, None))
    arrays.inclusive_scan_(indptr[1:])
    indices = cp.empty(int(indptr[-1].get()), dtype=cp.int32)
    _device.launch("rgg_edges", n, (*args, np.int32(2), indptr, indices))
    return CSR(indptr, indices, None, n, n), pos.reshape(n, 2)


def _candidates(xp, p0, p1, cell, cells, cell_start):
    """Every ``(point, other)`` pair with ``other`` in the 3 x 3 cells around ``point``."""
    cx, cy = cell % cells, cell // cells
    points = xp.arange(p0, p1, dtype=xp.int64)
    starts, lengths = [], []
    for oy in (-1, 0, 1):
        for ox in (-1, 0, 1):
            nx, ny = cx + ox, cy + oy
            inside = (nx >= 0) & (nx < cells) & (ny >= 0) & (ny < cells)
            c = xp.where(inside, ny * cells + nx, 0)
            s = cell_start[c]
            starts.append(s)
            lengths.append(xp.where(inside, cell_start[c + 1] - s, 0))
    # One segment per (point, neighbour cell), point-major so the rows stay sorted.
    starts = xp.stack(starts, axis=1).reshape(-1)
    lengths = xp.stack(lengths, axis=1).reshape(-1)
    ends = xp.cumsum(lengths)
    total = int(ends[-1]) if ends.shape[0] else 0
    seg = xp.searchsorted(ends, xp.arange(total, dtype=xp.int64), side="right")
    cols = starts[seg] + (xp.arange(total, dtype=xp.int64) - (ends[seg] - lengths[seg]))
    rows = xp.repeat(points, 9)[seg]
    return rows, cols


def rgg(n, radius=None, *, seed=None, device=None, return_positions=False):
    """A random geometric graph: ``n`` uniform points of the unit square, joined within ``radius``.

    Parameters
    ----------
    n : int
        Number of points (vertices).
    radius : float, optional
        Connection distance (inclusive); default ``0.55 * sqrt(ln n / n)``, the DIMACS10 rule
        that makes the average degree about ``0.95 ln n``.
    seed : int, optional
        Seed in [0, 2^64); ``None`` is a fixed default, so calls are reproducible.
    device : str, optional
        "cpu", "cuda" or "cuda:N"; the default device when omitted.
    return_positions : bool, default False
        Also return the ``(n, 2)`` float64 array of point coordinates (row ``i`` is vertex
        ``i``), on the same device.

    Returns
    -------
    Matrix or (Matrix, array)
        BOOL ``n x n``, symmetric, no self-loops, every value True.  Vertices are numbered in
        cell order, so neighbours have nearby ids.

    Examples
    --------
    >>> A = rgg(1000, seed=7)
    >>> A.nrows
    1000
    """
    dev = _device.resolve(device)
    csr, pos = _rgg_csr(n, radius, seed, dev)
    A = _device.to_matrix(csr, BOOL, dev, name=f"rgg_{n}", symmetric=True)
    return (A, pos) if return_positions else A
