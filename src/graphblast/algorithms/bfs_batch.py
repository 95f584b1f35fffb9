"""Multi-source breadth-first search: the levels from many sources at once."""

from graphblast import Matrix, binary, semiring
from graphblast.dtypes import BOOL, INT64

from . import _sources, _validate

__all__ = ["bfs_batch"]


def bfs_batch(A, sources):
    """Breadth-first search from every vertex of ``sources`` at once.

    Definition: ``levels[r, v]`` is the number of edges on a shortest path from
    ``sources[r]`` to ``v`` (0 at the source); unreachable vertices have no entry.  A source
    listed twice gets two equal rows.

    Row ``r`` of the frontier matrix holds the vertices source ``r`` reached last; each step
    is one masked matrix-matrix product over the pairs not reached yet::

        frontier<!levels, replace> = frontier any.pair A

    The backend chooses push (a sparse product over the frontier's entries) or pull (each
    unreached pair looks for an in-neighbour in its source's frontier, stopping at the
    first) per step, from the frontier's degree sum and the mask's size
    (``plan.mxm_direction``; the product being structural, the GPU keeps the frontier as
    packed bitmaps, the 64 sources of a vertex in one word, ``plan.mxm_packed_direction``).

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix, ``A[i, j]`` the edge ``i -> j``; values are ignored.
    sources : list of int, or integer Vector
        Start vertices (a Vector's values, in the order of its indices).

    Returns
    -------
    Matrix
        INT64 ``len(sources) x n`` levels, one row per source.
    """
    n = _validate.square_matrix(A, "bfs")
    sources = _sources.source_list(sources, n, "bfs")
    ns = len(sources)
    frontier = Matrix.from_coo(range(ns), sources, True, BOOL, nrows=ns, ncols=n,
                               device=A.device)
    levels = frontier.apply(binary.second[INT64], right=0).new()  # the sources: level 0
    depth = 0
    while frontier.nvals:
        depth += 1
        frontier(~levels.S, replace=True) << frontier.mxm(A, semiring.any_pair[BOOL])
        levels(frontier.S) << depth
    return levels
