"""Checking an answer on a graph too large for any oracle, on the graph itself.

Where no peer ran and the oracle cannot fit (GAP's kron-27: 4.2 billion entries), graphblast's
answer is checked on the device that holds the graph, edge by edge in chunks, by conditions
that hold for the right answer and only for it:

=============  ===============================================================================
``bfs``        level[source] = 0; no edge u -> v leaves a reached u for an unreached v or for
               a level above level[u] + 1; every other reached v has an in-edge from level - 1
               (so the levels are the hop distances)
``sssp``       dist[source] = 0; no edge improves a distance (dist[v] <= dist[u] + w); every
               other reached v has a tight in-edge (dist[u] + w = dist[v]); with every weight
               > 0 the tight edges lead back to the source, so these are the distances
``cc``         the labels equal those of an independent computation on the same device
               (smallest-label propagation over every edge, with pointer jumping)
``pagerank``   one more power step T moves the ranks by at most (1 - damping) x the benchmark's
               L1 tolerance; T is a contraction by ``damping``, so the ranks are within that
               tolerance of PageRank's fixed point
=============  ===============================================================================

Triangle counting has no such check (its answer is a single number): it is checked on a
smaller graph of the same family, as before.
"""

import numpy as np

from . import check

__all__ = ["CHUNK_EDGES", "certify"]

#: Edges examined at once: a chunk's row ids, gathers and flags take about 40 bytes each.
CHUNK_EDGES = 1 << 27


def certify(algorithm, graph, answer, params):
    """``(agrees, detail)`` for ``answer`` (the canonical form of :mod:`check`) on the
    benchmark graph itself, or None where there is no certificate (triangles; a device
    group; SSSP with a zero weight, where tight edges may form a cycle)."""
    if "-" in str(graph.device) or algorithm not in _CHECKS:
        return None
    xp = _array_module(graph.device)
    return _CHECKS[algorithm](graph, xp, answer, params)


def _array_module(device):
    if str(device).startswith("cuda"):
        import cupy

        return cupy
    return np


def _chunks(graph, M, xp, values=False):
    """``(rows, cols, vals)`` of the stored entries of ``M`` (the graph's pattern or weighted
    matrix: the structure of ``graph.indptr``), about CHUNK_EDGES at a time, on M's device
    (``vals`` None unless asked for)."""
    data = M._data
    indptr, cols = data.indptr, data.stored_indices
    host_ptr = graph.indptr
    n = int(M.nrows)
    start = 0
    while start < n:
        # the rows whose entries end within the next CHUNK_EDGES (at least one row)
        stop = int(np.searchsorted(host_ptr, host_ptr[start] + CHUNK_EDGES, side="right")) - 1
        stop = min(max(stop, start + 1), n)
        e0, e1 = int(host_ptr[start]), int(host_ptr[stop])
        if e1 > e0:
            rows = xp.searchsorted(indptr[start:stop + 1], xp.arange(e0, e1), side="right")
            rows += start - 1
            vals = None
            if values:
                vals = (data.values[e0:e1] if data.has_values else
                        xp.full(e1 - e0, data.iso_value, dtype=data.dtype.np_type))
            yield rows, cols[e0:e1].astype(xp.int64), vals
        start = stop


def _bfs(graph, xp, levels, params):
    level = xp.asarray(levels)
    parented = xp.zeros(level.shape[0], dtype=bool)
    for rows, cols, _ in _chunks(graph, graph.A, xp):
        lu, lv = level[rows], level[cols]
        bad = (lu >= 0) & ((lv < 0) | (lv > lu + 1))
        if bool(bad.any()):
            e = int(xp.flatnonzero(bad)[0])
            return False, (f"edge {int(rows[e])} -> {int(cols[e])} goes from level "
                           f"{int(lu[e])} to {int(lv[e])}")
        parented[cols[(lu >= 0) & (lv == lu + 1)]] = True
    return _rooted(xp, level >= 0, parented, level[graph.source] == 0, graph.source,
                   "level", "no in-edge from the level before")


def _sssp(graph, xp, distances, params):
    dist = xp.asarray(distances)
    reached = xp.isfinite(dist)
    tight = xp.zeros(dist.shape[0], dtype=bool)
    for rows, cols, w in _chunks(graph, graph.Aw, xp, values=True):
        w = w.astype(xp.float64)
        if bool((w <= 0).any()):
            return None  # zero weights: tight edges could close a cycle
        du, dv = dist[rows], dist[cols]
        via = du + w
        slack = check.SSSP_RTOL * xp.maximum(xp.abs(dv), 1.0)
        bad = xp.isfinite(du) & ~(dv <= via + slack)
        if bool(bad.any()):
            e = int(xp.flatnonzero(bad)[0])
            return False, (f"edge {int(rows[e])} -> {int(cols[e])} (weight {float(w[e]):g}) "
                           f"improves {float(dv[e]):g} to {float(via[e]):g}")
        tight[cols[xp.isfinite(du) & (xp.abs(via - dv) <= slack)]] = True
    return _rooted(xp, reached, tight, dist[graph.source] == 0, graph.source, "distance",
                   "no tight in-edge")


def _rooted(xp, reached, supported, source_ok, source, what, missing):
    """The common end of the BFS and SSSP checks: the source at 0, and every other reached
    vertex supported by an in-edge."""
    if not bool(source_ok):
        return False, f"the source {source} is not at {what} 0"
    supported[source] = True
    orphans = reached & ~supported
    if bool(orphans.any()):
        v = int(xp.flatnonzero(orphans)[0])
        return False, f"{int(orphans.sum())} reached vertices have {missing}, e.g. {v}"
    return True, (f"every edge checked: {what}s consistent, each reached vertex with an "
                  "in-edge that explains it")


def _cc(graph, xp, labels, params):
    n = graph.n
    # int32 labels where they fit: every GPU has 32-bit atomic min
    lab = xp.arange(n, dtype=xp.int32 if n < 2**31 else xp.int64)
    rounds = 0
    while True:
        rounds += 1
        new = lab.copy()
        for rows, cols, _ in _chunks(graph, graph.A, xp):
            _scatter(xp, "min", new, rows, lab[cols])
            _scatter(xp, "min", new, cols, lab[rows])  # both directions: weak components
        while True:  # pointer jumping: every label to its root
            jumped = new[new]
            if bool((jumped == new).all()):
                break
            new = jumped
        if bool((new == lab).all()):
            break
        lab = new
    ours = xp.asarray(labels)
    lab = lab.astype(ours.dtype)
    if bool((ours == lab).all()):
        return True, (f"labels equal an independent smallest-label propagation on the same "
                      f"device ({rounds} rounds over every edge)")
    v = int(xp.flatnonzero(ours != lab)[0])
    return False, (f"{int((ours != lab).sum())} labels differ from an independent "
                   f"propagation, first at {v}: {int(ours[v])} vs {int(lab[v])}")


def _scatter(xp, how, target, at, values):
    """``target[at] = how(target[at], values)`` with repeated positions combined ("min" or
    "add"): NumPy's ufunc.at on the host, cupyx's atomic scatter on a GPU."""
    if xp is np:
        getattr(np, {"min": "minimum", "add": "add"}[how]).at(target, at, values)
    else:
        import cupyx

        getattr(cupyx, f"scatter_{how}")(target, at, values)


def _pagerank(graph, xp, ranks, params):
    r = xp.asarray(ranks, dtype=xp.float64)
    n, d = graph.n, params.damping
    indptr = graph.A._data.indptr
    out = (indptr[1:] - indptr[:-1]).astype(xp.float64)
    share = xp.where(out > 0, r / xp.where(out > 0, out, 1.0), 0.0)
    spread = xp.zeros(n, dtype=xp.float64)
    for rows, cols, _ in _chunks(graph, graph.A, xp):
        _scatter(xp, "add", spread, cols, share[rows])
    sinks = float(r[out == 0].sum())
    step = (1.0 - d) / n + d * spread + d * sinks / n
    moved = float(xp.abs(step - r).sum())
    bound = (1.0 - d) * check.PAGERANK_L1_TOLERANCE
    how = (f"one more power step over every edge moves the ranks by {moved:.3g} (L1), "
           f"{'within' if moved <= bound else 'more than'} (1 - damping) x "
           f"{check.PAGERANK_L1_TOLERANCE:g} = {bound:.3g}")
    if moved <= bound:
        how += f", so they are within {check.PAGERANK_L1_TOLERANCE:g} of the fixed point"
    return moved <= bound, how


_CHECKS = {"bfs": _bfs, "sssp": _sssp, "cc": _cc, "pagerank": _pagerank}
