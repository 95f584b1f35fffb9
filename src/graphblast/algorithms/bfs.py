"""Breadth-first search: levels, and optionally a BFS tree, from one source vertex."""

from graphblast import Vector, repeat, semiring
from graphblast.dtypes import BOOL, INT64

from . import _validate

__all__ = ["bfs"]


def bfs(A, source, *, parents=False):
    """Breadth-first search from ``source``.

    Definition: the level of a vertex ``v`` is the number of edges on a shortest path from
    ``source`` to ``v`` (``source`` has level 0).  ``A[i, j]``, stored with any value (an
    explicit zero included), is the edge ``i -> j``; a symmetric ``A`` is an undirected graph.
    With ``parents=True`` the BFS tree is returned as well: ``parents[v]`` is an in-neighbour
    of ``v`` one level up, the smallest such vertex id (deterministic across devices), and
    ``parents[source] == source`` (the Graph500 convention).

    Each step is one masked vector-matrix product over the unvisited vertices::

        frontier<!visited, replace> = frontier any.pair A

    The steps are a ``graphblast.repeat`` loop whose body stamps each frontier with the
    round's number: on a GPU a search of many levels runs on the device, one CUDA graph
    launch whose conditional WHILE node repeats the recorded step until the frontier is
    empty; one whose frontier is wide within its first levels (a scale-free graph's, a few
    levels of millions of vertices) runs level by level from Python, bound by its kernels.

    The backend chooses push (expand the frontier's rows) or pull (each unvisited vertex
    looks for a visited in-neighbour, stopping at the first) from the frontier's and the
    mask's sizes, as GraphBLAST and SuiteSparse:GraphBLAS do; the algorithm does not.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix, ``A[i, j]`` meaning the edge ``i -> j``; values are ignored.
    source : int
        Start vertex, ``0 <= source < A.nrows`` (Python or NumPy integer).
    parents : bool, default False
        Also return the BFS tree.

    Returns
    -------
    levels : Vector
        INT64 levels of the reached vertices; unreachable vertices have no entry.
    parents : Vector
        INT64 parent ids of the reached vertices (only with ``parents=True``).

    Raises
    ------
    TypeError
        If ``A`` is not a graphblast Matrix or ``source`` not an integer.
    DimensionMismatch
        If ``A`` is not square.
    IndexOutOfBound
        If ``source`` is not a vertex of ``A``.

    Notes
    -----
    Cost: ``O(n + m)`` work over all steps for ``n`` vertices and ``m`` edges when the
    backend pushes; a pull step costs at most the in-edges of the unvisited vertices.  The
    number of steps is the eccentricity of ``source`` plus one.

    Examples
    --------
    >>> from graphblast import Matrix
    >>> A = Matrix.from_coo([0, 1, 1], [1, 2, 3], True, nrows=5, ncols=5)
    >>> bfs(A, 0).to_dict()       # vertex 4 is unreachable
    {0: 0, 1: 1, 2: 2, 3: 2}
    >>> levels, parents = bfs(A, 0, parents=True)
    >>> parents.to_dict()
    {0: 0, 1: 0, 2: 1, 3: 1}
    """
    n = _validate.square_matrix(A, "bfs")
    source = _validate.source_vertex(source, n, "bfs")
    parents = _validate.flag(parents, "parents", "bfs")
    device = A.device
    levels = Vector(INT64, n, device=device)
    if not parents:
        def level(frontier, depth):  # depth: the round's number, held on the device
            levels(frontier.S) << depth
            return frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~levels.S, replace=True)

        repeat(level, Vector.from_coo([source], True, BOOL, size=n, device=device),
               counter=True)
        return levels
    # min.secondi carries into each newly reached vertex the smallest id of a frontier vertex
    # with an edge to it: its parent
    tree = Vector.from_coo([source], [source], INT64, size=n, device=device)

    def tree_level(frontier, depth):
        levels(frontier.S) << depth
        frontier = frontier.vxm(A, semiring.min_secondi[INT64]).new(mask=~tree.S,
                                                                      replace=True)
        tree(frontier.S) << frontier
        return frontier

    repeat(tree_level, tree.dup(), counter=True)
    return levels, tree
