"""Two-dimensional grid graphs: the road-network-like class (high diameter, degree <= 4)."""

import math
import numbers

import numpy as np

from ..dtypes import BOOL, FP64, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32
from ..exceptions import InvalidValue
from . import _device
from ._counter_rng import CounterRNG, below, check_seed, to_unit
from ._device import CSR

#: Vertex ids are int32 in the CSR.
MAX_VERTICES = (1 << 31) - 1
#: ``weights="random"`` draws integers from this range (inclusive).
RANDOM_WEIGHTS = (1, 100)


def _check_dims(rows, cols):
    for name, v in (("rows", rows), ("cols", cols)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise InvalidValue(f"grid2d: {name} must be a non-negative integer, not {v!r}")
    if int(rows) * int(cols) > MAX_VERTICES:
        raise InvalidValue(f"grid2d: a {rows} x {cols} grid has more than 2^31 - 1 vertices; "
                           "vertex ids are int32, so ask for a smaller grid")


def _weight_spec(weights):
    """``(kind, lo, hi, dtype)`` for the ``weights`` argument: kind None, "int" or "float"."""
    if weights is None:
        return None, 0, 0, BOOL
    if isinstance(weights, str):
        if weights != "random":
            raise InvalidValue(f"grid2d: weights must be None, 'random' or a (lo, hi) pair, "
                               f"not {weights!r}")
        return "int", RANDOM_WEIGHTS[0], RANDOM_WEIGHTS[1], narrowest_integer(*RANDOM_WEIGHTS)
    try:
        lo, hi = weights
    except (TypeError, ValueError):
        raise InvalidValue(f"grid2d: weights must be None, 'random' or a (lo, hi) pair, not "
                           f"{weights!r}") from None
    ok_types = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (lo, hi))
    if not ok_types or not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise InvalidValue(f"grid2d: weights=(lo, hi) needs finite numbers with lo <= hi, "
                           f"not {weights!r}")
    if all(isinstance(v, numbers.Integral) for v in (lo, hi)):
        lo, hi = int(lo), int(hi)
        if hi - lo >= 1 << 32:
            raise InvalidValue(f"grid2d: integer weights span at most 2^32 values; "
                               f"(lo, hi) = {weights!r} spans more")
        return "int", lo, hi, narrowest_integer(lo, hi)
    return "float", float(lo), float(hi), FP64


def narrowest_integer(lo, hi):
    """The narrowest integer type holding every value of ``lo..hi`` (unsigned first): a
    weighted graph's values cost 1 byte an edge where they can, not 4 or 8."""
    for t in (UINT8, INT8, UINT16, INT16, UINT32, INT32, INT64):
        info = np.iinfo(t.np_type)
        if info.min <= lo and hi <= info.max:
            return t
    return INT64


def _grid_csr(rows, cols, weights, seed, device):
    _check_dims(rows, cols)
    kind, lo, hi, dtype = _weight_spec(weights)
    seed = check_seed("grid2d", seed)
    rows, cols = int(rows), int(cols)
    with _device.on(device) as (_dev, xp):
        n = rows * cols
        horizontal = rows * max(cols - 1, 0)
        nnz = 2 * (horizontal + cols * max(rows - 1, 0))
        per_entry = 4 + (0 if kind is None else 8)
        # The CSR plus one band of grid rows' candidates (four per vertex, a few int64 arrays).
        band = max(1, (1 << 22) // max(cols, 1))
        _device.check_memory(xp, per_entry * nnz + 8 * (n + 1) + 160 * band * max(cols, 1),
                             f"grid2d({rows}, {cols})")
        indptr = xp.zeros(n + 1, dtype=xp.int64)
        indices = xp.empty(nnz, dtype=xp.int32)
        values = None
        if kind is not None:
            values = xp.empty(nnz, dtype=dtype.np_type)
        rng = CounterRNG(xp, seed, 0)
        if xp is not np:  # one kernel of the catalogue: the same arrays as the bands below
            _grid_device(rows, cols, rng, kind, lo, hi, dtype, indptr, indices, values)
            return CSR(indptr, indices, values, n, n), dtype
        at = 0
        for r0 in range(0, rows, band):
            r1 = min(rows, r0 + band)
            v = xp.arange(r0 * cols, r1 * cols, dtype=xp.int64)
            i, j = v // cols, v % cols
            # The four neighbours in increasing id order: up, left, right, down; each with the id
            # of the undirected edge it uses (horizontal edges first, then vertical ones).
            nbr = xp.stack([v - cols, v - 1, v + 1, v + cols], axis=1)
            edge = xp.stack([horizontal + (i - 1) * cols + j, i * (cols - 1) + j - 1,
                             i * (cols - 1) + j, horizontal + i * cols + j], axis=1)
            valid = xp.stack([i > 0, j > 0, j < cols - 1, i < rows - 1], axis=1)
            degree = valid.sum(axis=1)
            xp.cumsum(degree, out=indptr[r0 * cols + 1:r1 * cols + 1])
            indptr[r0 * cols + 1:r1 * cols + 1] += at
            k = int(degree.sum())
            indices[at:at + k] = nbr[valid]
            if kind is not None:
                values[at:at + k] = _weights(xp, rng, edge[valid], kind, lo, hi)
            at += k
            del v, i, j, nbr, edge, valid, degree
        return CSR(indptr, indices, values, n, n), dtype


def _grid_device(rows, cols, rng, kind, lo, hi, dtype, indptr, indices, values):
    """The grid's CSR written by ``gbk_grid`` (a thread per vertex) on the current GPU."""
    from ..backends.cuda import jit, programs

    n = rows * cols
    if not n:
        return
    code = {None: 0, "int": 1, "float": 2}[kind]
    (fn,) = jit.compiled(programs.grid_kernel, dtype if kind else UINT8).fns
    ints = (lo, hi - lo + 1) if kind == "int" else (0, 0)
    floats = (lo, hi - lo) if kind == "float" else (0.0, 0.0)
    jit.launch(fn, n, (np.int64(rows), np.int64(cols), rng.key, np.int32(code),
                       np.int64(ints[0]), np.uint64(ints[1]), np.float64(floats[0]),
                       np.float64(floats[1]), indptr, indices, values))


def _weights(xp, rng, edge_ids, kind, lo, hi):
    """The weight of each undirected edge id (the same for both of its directions)."""
    bits = rng.bits_at(edge_ids)
    if kind == "float":
        return lo + (hi - lo) * to_unit(xp, bits)
    return below(xp, bits, hi - lo + 1).astype(xp.int64) + lo


def grid2d(rows, cols, *, weights=None, seed=None, device=None):
    """The ``rows x cols`` 4-neighbour grid graph.

    Vertex ``(i, j)`` has id ``i * cols + j`` and is joined to ``(i +- 1, j)`` and
    ``(i, j +- 1)`` where those exist.

    Parameters
    ----------
    rows, cols : int
        The grid's size.
    weights : None, "random" or (lo, hi), optional
        None: a BOOL pattern (every value True).  "random": integer weights uniform in
        1..100 (UINT8).  (lo, hi): integers uniform in ``lo..hi`` inclusive when both are
        integers (the narrowest integer type that holds them: UINT8, INT8, UINT16, ...,
        INT64), else floats uniform in ``[lo, hi)`` (FP64).  Both directions of an edge get
        the same weight.
    seed : int, optional
        Seed in [0, 2^64) for the weights; ``None`` is a fixed default.
    device : str, optional
        "cpu", "cuda" or "cuda:N"; the default device when omitted.

    Returns
    -------
    Matrix
        ``rows*cols x rows*cols``, symmetric, sorted columns; interior vertices have
        degree 4, border ones 3 and corners 2.

    Examples
    --------
    >>> grid2d(3, 4).nvals       # 2 * (3*3 horizontal + 2*4 vertical edges)
    34
    """
    dev = _device.resolve(device)
    csr, dtype = _grid_csr(rows, cols, weights, seed, dev)
    return _device.to_matrix(csr, dtype, dev, name=f"grid_{rows}x{cols}", symmetric=True)
