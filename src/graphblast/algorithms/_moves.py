"""Local moving for Louvain and Leiden: every vertex moves at once to its best community, and
a step looks again only at the vertices whose neighbourhood changed."""

from graphblast import Matrix, Vector, binary, select, semiring
from graphblast.dtypes import BOOL, FP64

from . import _gains
from ._modularity import ids, membership

__all__ = ["move"]

# A moving step counts as stalled when it gains less than this share of the modularity
# reached (or the caller's threshold, if larger); LATER on a level after the first (a small
# graph, whose steps are a fixed cost each: rgg-16's later levels take 35 steps instead of
# 60, the modularity within 0.4% on rgg, kron, g500, grid and urand at scales 12 to 16).
STALL = 1e-4
LATER = 1e-3


def move(A, comm, resolution, threshold, max_iter, two_m, later=False):
    """Local moving, every vertex at once: each vertex ``i`` goes to the community ``c`` of
    largest gain ``K[i, c] - resolution k_i tot_c / 2m`` (``K[i, c]``: its edge weight to
    ``c``) if that beats staying; on even steps only to a smaller community label, on odd
    steps only to a larger one (cuGraph's guard against two vertices swapping forever).  A
    step whose moves lose modularity is undone (moves made at once can conflict); it stops
    after two steps in a row that gain less than ``max(threshold, STALL * Q)`` (``LATER``
    for a ``later`` level), when the moves in both directions lose from the best partition
    (every further step would repeat them), or when no vertex looked at would move.

    Only the *active* vertices are looked at: all of them on the first step (and after an
    undone step), then those that wanted to move (a move the direction guard held back is
    taken on the next step) and the neighbours of those that moved.  Another vertex keeps
    its neighbourhood, so its choice and its weight to its own community (``own``, kept
    between steps for the modularity) stand; the community totals it sees have changed
    only by the moves around the graph, which a later level weighs again (the vertex
    pruning of GVE-Louvain).  The active rows are taken out of ``O`` (below) as a matrix
    of their own, ``O[I, :]`` with ``I`` the Vector of their ids, and the selector
    ``R[r, I[r]] = 1`` takes the choices back to the vertices: a step costs the edges of
    its active vertices, so the long tail of a level's steps, where few vertices move,
    costs little.

    The graph each step reads is ``O`` of ``_gains.rescaled``.
    Returns the partition and its modularity."""
    n = comm.size
    rows = ids(n, comm.device)
    k, ku, O, keys, offset = _gains.rescaled(A, resolution, two_m)
    every = Vector.from_scalar(True, n, BOOL, device=comm.device)
    active, own, E = every, Vector(FP64, n, device=comm.device), membership(rows)
    best, best_q, stale, tries, lost = comm, -float("inf"), 0, 0, 0
    for _ in range(2 * max_iter + 2):
        P = Matrix.from_coo(rows, comm, 1.0, FP64, nrows=n, ncols=n)
        R, K, mine = _gains.products(O, P, E, active)
        if R is None:               # every vertex's weight is new
            own = mine
        else:
            own(mine.S) << mine
        tot = k.vxm(P, semiring.plus_times[FP64]).new()
        inside = (own.inner(ku, semiring.plus_times[FP64]).new().value or 0.0) + offset
        q = (inside - resolution *
             tot.inner(tot, semiring.plus_times[FP64]).new().value / two_m) / two_m
        if q < best_q:              # they lost modularity: start again from the best
            comm, lost, active = best, lost + 1, every
            continue
        if comm is not best:        # the last step's moves, judged
            least = max(threshold, (LATER if later else STALL) * abs(best_q))
            stale = stale + 1 if q - best_q < least else 0
            lost = 0
        best, best_q = comm, q
        if stale == 2 or tries == max_iter or lost == 2:   # both directions lose: no move
            break                                          # from here can gain
        change = _gains.targets(R, K, tot, keys).ewise_mult(comm, binary.minus).new()
        moved = change.select(select.valuelt if tries % 2 == 0 else select.valuegt, 0).new()
        comm, tries = comm.ewise_add(moved, binary.plus).new(), tries + 1   # to the targets
        active = change.select(select.valuene, 0).new()
        if not active.nvals:        # no vertex would move, either way: nothing can change
            break
        # A, not O: a graph known to be symmetric is its own transpose (a pull builds none)
        active(binary.lor) << moved.vxm(A, semiring.any_pair[BOOL])
    return best, best_q
