"""Argument checks of the batched traversals (multi-source BFS, betweenness centrality):
lists of source vertices, NetworkX's sampling of k sources, and the batch size."""

import numbers
import random

import numpy as np

from graphblast import Vector
from graphblast.exceptions import IndexOutOfBound, InvalidValue

# Sources a batch holds by default: a batch's ns x n matrices (frontier, path counts,
# dependencies, the levels' structures, pull's dense layout) take about 48 bytes an entry,
# so at most BATCH_ENTRIES entries (12 GB) unless ``batch`` says otherwise.
BATCH_ENTRIES = 1 << 28


def source_list(sources, n, algorithm):
    """``sources`` (a list, tuple, range, NumPy array or integer Vector of vertex ids; a
    Vector's values in the order of its indices) as a list of ints in ``0 .. n-1``."""
    if isinstance(sources, Vector):
        if sources.dtype.np_type.kind not in "iu":
            raise TypeError(f"{algorithm}: a Vector of sources must hold integer vertex ids, "
                            f"got {sources.dtype}")
        sources = sources.to_coo()[1]
    if isinstance(sources, np.ndarray):
        if sources.ndim != 1 or (sources.size and sources.dtype.kind not in "iu"):
            raise TypeError(f"{algorithm}: sources must be a 1-d array of integer vertex "
                            f"ids, got {sources.dtype} of shape {sources.shape}")
        sources = sources.tolist()
    if not isinstance(sources, (list, tuple, range)):
        raise TypeError(f"{algorithm}: sources must be a list of vertex ids or an integer "
                        f"Vector, got {type(sources).__name__}")
    out = []
    for s in sources:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, numbers.Integral):
            raise TypeError(f"{algorithm}: each source must be an integer vertex id, got "
                            f"{s!r} of type {type(s).__name__}")
        if not 0 <= s < n:
            ids = f"ids 0 .. {n - 1}" if n else "the graph has none"
            raise IndexOutOfBound(f"{algorithm}: source {int(s)} is not a vertex of a graph "
                                  f"of {n} vertices ({ids})")
        out.append(int(s))
    if not out:
        raise InvalidValue(f"{algorithm}: sources is empty; give at least one vertex id")
    return out


def sampled_sources(sources, k, seed, n, algorithm):
    """The sources of a betweenness computation: ``sources`` if given, else ``k`` vertices
    drawn as NetworkX draws them (``random.Random(seed).sample(range(n), k)``; a
    ``random.Random`` instance is used as it is), else every vertex."""
    if sources is not None:
        if k is not None:
            raise InvalidValue(f"{algorithm}: give sources or k, not both")
        return source_list(sources, n, algorithm)
    if k is None:
        return list(range(n))
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{algorithm}: k must be an integer, got {k!r}")
    if not 1 <= k <= n:
        if n == 0:
            raise InvalidValue(f"{algorithm}: k={k} sources cannot be sampled from a graph "
                               "without vertices; leave k=None")
        raise InvalidValue(f"{algorithm}: k must lie in 1 .. {n} (the number of vertices), "
                           f"got {k}")
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return rng.sample(range(n), int(k))


def batch_size(batch, ns, n, algorithm):
    """Sources per batch: ``batch`` if given (an integer >= 1), else as many as keep a
    batch's matrices within BATCH_ENTRIES entries."""
    if batch is None:
        return max(1, min(ns, BATCH_ENTRIES // max(n, 1)))
    if isinstance(batch, (bool, np.bool_)) or not isinstance(batch, numbers.Integral):
        raise TypeError(f"{algorithm}: batch must be an integer, got {batch!r}")
    if batch < 1:
        raise InvalidValue(f"{algorithm}: batch must be at least 1, got {batch}")
    return int(batch)
