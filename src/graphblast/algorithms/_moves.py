"""Local moving for Louvain and Leiden: every vertex moves at once to its best community."""

from graphblast import Matrix, binary, monoid, select, semiring, unary
from graphblast.dtypes import FP64

from . import _rows
from ._modularity import ids

__all__ = ["move"]

# A moving step counts as stalled when it gains less than this share of the modularity
# reached (or the caller's threshold, if larger).
STALL = 1e-4


def move(A, comm, resolution, threshold, max_iter, two_m):
    """Local moving, every vertex at once: each vertex ``i`` goes to the community ``c`` of
    largest gain ``K[i, c] - resolution k_i tot_c / 2m`` (``K[i, c]``: its edge weight to
    ``c``) if that beats staying; on even steps only to a smaller community label, on odd
    steps only to a larger one (cuGraph's guard against two vertices swapping forever).  A
    step whose moves lose modularity is undone (moves made at once can conflict); it stops
    after two steps in a row that gain less than ``max(threshold, STALL * Q)``, or when the
    moves in both directions lose from the best partition (every further step would repeat
    them).

    Once per level the graph becomes ``O = diag(1 / ks) offdiag(A) + diag(k)`` (``ks = g k /
    2m``): a row scaled so that a step compares ``(O P)[i, c] - tot_c`` with no row factor,
    and the diagonal ``k_i`` turns the own community's entry into the value of staying,
    ``K_s[i, own] - (tot_own - k_i)`` (plus two quanta of the argmax's keys, so that a move
    must gain more than the keys resolve: no vertex moves on a tie).  A step is then two products with a matrix of one
    entry per row (``O P`` and the column shift by ``diag(tot)``), one row argmax over their
    result and ``O(n)`` vector work.  The entries are at most ``2m (2 + 1 / resolution)``,
    the bound the argmax needs for its one-pass keys.  Returns the partition and its
    modularity."""
    n = comm.size
    rows = ids(n, comm.device)
    k = A.reduce_rowwise(monoid.plus[FP64]).new()
    loops = A.diag().reduce(monoid.plus[FP64]).new().value or 0.0
    ks = k.select(select.valuegt, 0.0).new().apply(binary.times, right=resolution / two_m)
    ks = ks.new()
    O = Matrix.from_diag(ks.apply(unary.minv).new()).mxm(select.offdiag(A).new(),
                                                         semiring.any_times[FP64]).new()
    bound = two_m * (2 + 1 / resolution)
    stay = k.dup(mask=ks.S).apply(binary.plus, right=2 * _rows.quantum(n, bound)).new()
    O = O.ewise_add(Matrix.from_diag(stay), binary.plus).new()
    base = ks.inner(stay, semiring.plus_times[FP64]).new().value or 0.0
    best, best_q, stale, tries, lost = comm, -float("inf"), 0, 0, 0
    for _ in range(2 * max_iter + 2):
        P = Matrix.from_coo(rows, comm, 1.0, FP64, nrows=n, ncols=n)
        K = O.mxm(P, semiring.plus_times[FP64]).new()
        tot = k.vxm(P, semiring.plus_times[FP64]).new()
        own = K.ewise_mult(P, binary.first).new().reduce_rowwise(monoid.plus).new()
        inside = (own.inner(ks, semiring.plus_times[FP64]).new().value or 0.0) - base
        q = (inside + loops - resolution *
             tot.inner(tot, semiring.plus_times[FP64]).new().value / two_m) / two_m
        if q < best_q:              # they lost modularity: start again from the best
            comm, lost = best, lost + 1
            continue
        if comm is not best:        # the last step's moves, judged
            stale = stale + 1 if q - best_q < max(threshold, STALL * abs(best_q)) else 0
            lost = 0
        best, best_q = comm, q
        if stale == 2 or tries == max_iter or lost == 2:   # both directions lose: no move
            break                                          # from here can gain
        gain = K.mxm(Matrix.from_diag(tot), semiring.any_minus[FP64]).new()
        target = _rows.argmax(gain, bound=bound, top=False)[0]
        way = target.ewise_mult(comm, binary.lt if tries % 2 == 0 else binary.gt).new()
        comm, tries = comm.dup(), tries + 1
        comm(way.select(select.valueeq, True).new().S) << target
    return best, best_q
