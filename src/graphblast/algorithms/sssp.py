"""Single-source shortest paths by Bellman-Ford over the (min, +) semiring."""

from graphblast import Vector, binary, semiring
from graphblast.dtypes import INT64, UINT64
from graphblast.exceptions import InvalidValue

from . import _validate

__all__ = ["sssp", "NegativeCycle"]


class NegativeCycle(InvalidValue):
    """A negative-weight cycle is reachable from the source: shortest paths do not exist."""


def _distance_type(dtype):
    """Integers (and BOOL) add up in INT64, UINT64 stays unsigned, floats keep their width."""
    if dtype.np_type.kind == "f" or dtype == UINT64:
        return dtype
    return INT64


def sssp(A, source, *, negative_weights=False):
    """Shortest-path distances from ``source`` (Bellman-Ford, only improved vertices active).

    Definition: ``dist[v]`` is the smallest total weight of a path ``source -> ... -> v``,
    where ``A[i, j]`` is the weight of the edge ``i -> j`` (an explicit zero is an edge of
    weight 0).  ``dist[source] == 0`` unless a negative cycle runs through it.

    Each round relaxes the out-edges of the vertices whose distance fell in the previous
    round, and keeps as the next frontier only the vertices it improves::

        t         = frontier min.+ A
        frontier  = t<!(t >= dist), replace>        # strictly shorter, or first reached
        dist<frontier> = frontier

    Without negative cycles every shortest path has at most ``n - 1`` edges, so round ``n``
    finds nothing to improve; a frontier still alive after ``n`` rounds proves a negative cycle.

    Parameters
    ----------
    A : Matrix
        Square weighted adjacency matrix.  BOOL and integer weights are summed in INT64 (UINT64
        stays UINT64), FP32 and FP64 in their own type; BOOL casts to 0 and 1.
    source : int
        Start vertex, ``0 <= source < A.nrows``.
    negative_weights : bool, default False
        Allow negative weights.  By default they raise, since they usually mean a mistake and
        they make the search pay for negative-cycle detection (up to ``n`` rounds).

    Returns
    -------
    Vector
        Distances of the reachable vertices, in the type above; unreachable vertices have no
        entry.

    Raises
    ------
    TypeError, DimensionMismatch, IndexOutOfBound
        For a non-Matrix, a non-square ``A`` or a bad ``source`` (see :func:`bfs`).
    InvalidValue
        If ``A`` holds NaN, or negative weights without ``negative_weights=True``.
    NegativeCycle
        If a negative cycle is reachable from ``source`` (a subclass of InvalidValue).

    Notes
    -----
    Cost: a round costs the out-edges of its frontier; with non-negative weights a vertex
    re-enters the frontier only when its distance falls, at most ``n - 1`` rounds in all and
    usually about as many as the hop diameter.  Worst case ``O(n m)``, as Bellman-Ford.

    Examples
    --------
    >>> from graphblast import Matrix
    >>> A = Matrix.from_coo([0, 0, 1], [1, 2, 2], [4, 1, 2], nrows=4, ncols=4)
    >>> sssp(A, 0).to_dict()      # vertex 3 is unreachable
    {0: 0, 1: 4, 2: 1}
    """
    n = _validate.square_matrix(A, "sssp")
    source = _validate.source_vertex(source, n, "sssp")
    negative_weights = _validate.flag(negative_weights, "negative_weights", "sssp")
    _validate.edge_weights(
        A, "sssp", allow_negative=negative_weights,
        negative_hint="pass negative_weights=True to allow them (negative cycles then raise "
        "NegativeCycle)",
    )
    dtype = _distance_type(A.dtype)
    min_plus = semiring.min_plus[dtype]
    dist = Vector.from_coo([source], [0], dtype, size=n, device=A.device)
    frontier = dist.dup()
    for _ in range(n):
        t = frontier.vxm(A, min_plus).new()
        no_gain = t.ewise_mult(dist, binary.ge).new()
        frontier(~no_gain.V, replace=True) << t
        if not frontier.nvals:
            return dist
        dist(frontier.S) << frontier
    raise NegativeCycle(
        f"sssp: a negative-weight cycle is reachable from vertex {source}, so shortest "
        f"distances are unbounded (still improving after {n} rounds); remove the cycle or "
        "its negative edges"
    )
