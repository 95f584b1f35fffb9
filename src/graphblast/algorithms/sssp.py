"""Single-source shortest paths: Bellman-Ford over the (min, +) semiring, delta-stepping
(LAGraph's LAGr_SingleSourceShortestPath) on long-diameter graphs."""

from functools import partial

from graphblast import Vector, binary, monoid, plan, repeat, select, semiring
from graphblast.dtypes import FP64
from graphblast.exceptions import InvalidValue

from . import _validate

__all__ = ["sssp", "NegativeCycle"]


class NegativeCycle(InvalidValue):
    """A negative-weight cycle is reachable from the source: shortest paths do not exist."""

    @classmethod
    def after(cls, source, rounds):
        return cls(f"sssp: a negative-weight cycle is reachable from vertex {source}, so "
                   f"shortest distances are unbounded (still improving after {rounds} "
                   "rounds); remove the cycle or its negative edges")


# method="auto": Bellman-Ford for at most this many rounds (scale-free graphs finish well
# within it), then delta-stepping from the distances found so far.
SWITCH_ROUNDS = 32


def _relax(frontier, A, dist, min_plus, below=None):
    """Relax the out-edges of ``frontier`` into ``dist`` (each vertex keeps the smaller
    distance); return the vertices improved (strictly shorter, or reached first), with their
    new distances, only those below ``below`` when it is given."""
    t = frontier.vxm(A, min_plus).new()
    better = ~t.ewise_mult(dist, binary.ge).new().V  # a mask, taken before dist changes
    dist(binary.min) << t
    return t.dup(mask=better) if below is None else t.select(
        select.valuelt, below).new(mask=better)


def _bucket_round(pending, A, dist, width, min_plus):
    """One round of delta-stepping over ``pending`` (the vertices whose out-edges are not yet
    relaxed since their distance last fell, with that distance): those within the bucket
    width of the smallest, ``[lo, lo + delta]``, relax their out-edges; the others wait.
    Returns the waiting vertices and the improved ones (the smaller distance where both)."""
    hi = pending.ewise_mult(width, binary.plus).new().reduce(monoid.min).new()  # lo + delta
    near = pending.select(select.valuele, hi).new()
    waiting = pending.select(select.valuegt, hi).new()  # before dist, which may be pending,
    return waiting.ewise_add(_relax(near, A, dist, min_plus), binary.min).new()  # changes


def _delta_stepping(A, dist, pending, delta, min_plus):
    """Buckets of width ``delta`` in order, the bucket's bound, ``lo + delta``, taken from
    the smallest pending distance every round: one ``repeat`` loop, so on a GPU the whole
    search is one graph launch.  ``dist`` may hold upper bounds already (a warm start), and
    ``pending`` the vertices not relaxed since their distance fell.  An infinite distance
    (overflow) is in the last bucket, whose relaxations improve nothing."""
    width = Vector.from_scalar(delta, size=dist.size, dtype=dist.dtype, device=dist.device)
    repeat(partial(_bucket_round, A=A, dist=dist, width=width, min_plus=min_plus), pending)
    return dist


# The default bucket width: WIDTH[device kind] times the average weight over the average
# degree, 32 on both (Davidson, Baxter, Garland and Owens's width for GPUs: about a warp's
# worth of relaxations per vertex).  A round relaxes the pending vertices within the width of
# the smallest, so a wider bucket adds relaxations and no fewer rounds than Bellman-Ford's;
# a narrower one adds rounds.  Rounds (Bellman-Ford's first 32 included) and relaxations a
# vertex, on the CPU, by the width's multiple 4 / 8 / 32 / 256 / Bellman-Ford: rgg-16 544 /
# 430 / 341 / 337 / 337 rounds, 1.6 / 1.7 / 3.9 / 45.1 / 59.0; grid-256 779 / 627 / 548 /
# 548 / 548 rounds, 1.0 / 1.1 / 3.1 / 13.8 / 14.1.  A GPU's round costs mostly its kernels'
# latency, so it takes the fewest rounds' width (with a loop a bucket, whose rounds each
# bucket's setup made dear, a GPU took 8 times wider buckets).
WIDTH = {"cpu": 32, "cuda": 32}


def _default_delta(A, dtype):
    """The default bucket width (above); at least 1 for integer weights."""
    total = A.reduce_scalar(monoid.plus[FP64]).new().value or 1.0  # average weight / degree:
    delta = WIDTH[A.device.split(":")[0]] * total * A.nrows / max(A.nvals, 1) ** 2
    return delta if dtype.np_type.kind == "f" else max(1, int(delta))


def sssp(A, source, *, negative_weights=False, method="auto", delta=None):
    """Shortest-path distances from ``source``.

    Definition: ``dist[v]`` is the smallest total weight of a path ``source -> ... -> v``,
    where ``A[i, j]`` is the weight of the edge ``i -> j`` (an explicit zero is an edge of
    weight 0).  ``dist[source] == 0`` unless a negative cycle runs through it.

    Bellman-Ford relaxes, each round, the out-edges of the vertices whose distance fell in the
    round before, and keeps as the next frontier only the vertices it improves::

        t         = frontier min.+ A
        frontier  = t<!(t >= dist), replace>        # strictly shorter, or first reached
        dist(min) << t                              # each vertex keeps the smaller

    It needs about as many rounds as the hop diameter: few on scale-free graphs, thousands on
    grids and road graphs.  Delta-stepping (Meyer and Sanders; LAGraph's
    ``LAGr_SingleSourceShortestPath``) settles the distances in buckets of width ``delta``
    in order.  Here, as in Davidson et al.'s near-far GPU variant, each round relaxes every
    out-edge of the *pending* vertices (not relaxed since their distance last fell) within
    ``delta`` of the smallest pending distance ``lo``, and the others wait::

        hi       = (pending + delta).reduce(min)          # lo + delta, left on the device
        near     = pending.select(valuele, hi)
        pending  = pending.select(valuegt, hi) (min) relax(near)    # a union

    so the bucket's bound moves with ``lo`` and the whole search is one ``graphblast.repeat``
    loop: on a GPU one graph launch, the bucket's bound never read by the host.

    Path doubling: before delta-stepping, ``A`` may be replaced by ``min(A, A min.+ A)``,
    whose entry ``(i, j)`` is the lightest path of at most two hops from ``i`` to ``j``: the
    distances are the same, reached in half the rounds.  On a GPU, where a round costs a
    fixed time whatever its work (tens of microseconds on the device), the planner squares
    while the rounds saved cost more than the square (``plan.sssp_squarings``: once on a
    2048 x 2048 grid, a square built in 27 ms on the H200); on the CPU never by itself.  The
    bucket width stays the one of ``A``: a square's entries are lightest paths, heavier and
    more per row, and its own default width (average weight over degree) would shrink the
    buckets and add rounds (on that grid 0.27 s over ``A^4`` with its own width, 0.22 with
    ``A``'s).
    ``gb.config.set(sssp_squarings=k)`` forces ``k`` squarings, 0 none.  Floating-point
    distances may then differ in their last bits (the sums are taken in another order).

    Parameters
    ----------
    A : Matrix
        Square weighted adjacency matrix.  BOOL and integer weights are summed in INT64 (UINT64
        stays UINT64), FP32 and FP64 in their own type; BOOL casts to 0 and 1.
    source : int
        Start vertex, ``0 <= source < A.nrows``.
    negative_weights : bool, default False
        Allow negative weights (Bellman-Ford only).  By default they raise, since they usually
        mean a mistake and they make the search pay for negative-cycle detection.
    method : {"auto", "bellman-ford", "delta"}, default "auto"
        "auto" runs Bellman-Ford and, if it has not finished after ``SWITCH_ROUNDS`` (32)
        rounds - a long-diameter graph - continues with delta-stepping from the distances
        found so far.  Negative and infinite weights always use Bellman-Ford.
    delta : float, optional
        Bucket width for delta-stepping; by default 32 times the average weight over the
        average degree (Davidson et al.'s width: as few rounds as Bellman-Ford's on grids and
        geometric graphs, with a fraction of its relaxations), at least 1 for integer
        weights.

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
        If ``A`` holds NaN, negative weights without ``negative_weights=True``, negative
        or infinite weights with ``method="delta"``, a bad ``method`` or a ``delta`` that is
        not > 0.
    NegativeCycle
        If a negative cycle is reachable from ``source`` (a subclass of InvalidValue).

    Notes
    -----
    Cost: a Bellman-Ford round costs the out-edges of its frontier, a vertex re-entering it
    only when its distance falls; worst case ``O(n m)``.  Delta-stepping costs per bucket a
    few light rounds over the bucket's out-edges plus one heavy round, and ``O(n)`` per bucket
    for selecting it: its round count is about ``max dist / delta`` times a few, independent
    of the hop diameter.  A squaring costs one SpGEMM of at most ``nvals x`` the longest row's
    multiplies, and multiplied the entries by about 3 on grids.

    Examples
    --------
    >>> from graphblast import Matrix
    >>> A = Matrix.from_coo([0, 0, 1], [1, 2, 2], [4, 1, 2], nrows=4, ncols=4)
    >>> sssp(A, 0).to_dict()      # vertex 3 is unreachable
    {0: 0, 1: 4, 2: 1}
    """
    n, source, negative_weights, method, delta, dtype = _validate.sssp_arguments(
        A, source, negative_weights, method, delta)
    min_plus = semiring.min_plus[dtype]
    # the first frontier is dist itself: _relax reads it before it writes dist
    frontier = dist = Vector.from_coo([source], [0], dtype, size=n, device=A.device)
    rounds = {"bellman-ford": n, "delta": 0}.get(method, n if negative_weights else SWITCH_ROUNDS)
    frontier = repeat(partial(_relax, A=A, dist=dist, min_plus=min_plus), frontier,
                      max_rounds=min(rounds, n))
    if not frontier.nvals:
        return dist
    if rounds < n:  # a long diameter: each squaring of A halves the rounds left
        delta = delta or _default_delta(A, dtype)  # A's, kept over its squares (below)
        for _ in range(plan.sssp_squarings(A, rounds, dist.nvals)[0]):
            A = A.ewise_add(A.mxm(A, min_plus).new(), binary.min[dtype]).new()
        return _delta_stepping(A, dist, frontier, delta, min_plus)
    raise NegativeCycle.after(source, n)
