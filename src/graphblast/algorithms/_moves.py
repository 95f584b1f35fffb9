"""Local moving for Louvain and Leiden: every vertex moves at once to its best community."""

from graphblast import Matrix, binary, monoid, select, semiring, unary
from graphblast.dtypes import FP64

from . import _rows
from ._modularity import membership

__all__ = ["move"]

# A moving step counts as stalled when it gains less than this share of the modularity
# reached (or the caller's threshold, if larger).
STALL = 1e-4


def move(A, comm, resolution, threshold, max_iter, two_m):
    """Local moving, every vertex at once: each vertex ``i`` goes to the community ``c`` of
    largest ``K[i, c] - resolution k_i tot_c / 2m`` (``K = offdiag(A) P``: its edge weight to
    ``c``) if that beats staying; on even steps only to a smaller community label, on odd
    steps only to a larger one (cuGraph's guard against two vertices swapping forever).  A
    step whose moves lose modularity is undone (moves made at once can conflict); after two
    steps in a row that gain less than ``max(threshold, STALL * Q)`` it stops.  Each row
    ``i`` is scaled by ``2m / (resolution k_i)`` once per level, so that a step compares
    ``K_s[i, c] - tot_c`` (``K_s = O_s P``) with no product by a diagonal for the row factor;
    the entries of ``K_s`` are at most ``2m / resolution`` and ``tot`` at most ``2m``, the
    bound the row argmax needs for its one-pass keys.  Returns the partition and its
    modularity."""
    k = A.reduce_rowwise(monoid.plus[FP64]).new()
    loops = A.diag().reduce(monoid.plus[FP64]).new().value or 0.0
    ks = k.select(select.valuegt, 0.0).new().apply(binary.times, right=resolution / two_m)
    ks = ks.new()
    O = Matrix.from_diag(ks.apply(unary.minv).new()).mxm(select.offdiag(A).new(),
                                                         semiring.any_times[FP64]).new()
    best, best_q, stale, tries, undone = comm, -float("inf"), 0, 0, False
    for _ in range(max_iter + 2):
        P = membership(comm)
        K = O.mxm(P, semiring.plus_times[FP64]).new()
        tot = k.vxm(P, semiring.plus_times[FP64]).new()
        own = K.ewise_mult(P, binary.first).new().reduce_rowwise(monoid.plus).new()
        inside = own.inner(ks, semiring.plus_times[FP64]).new().value or 0.0
        q = (inside + loops - resolution *
             tot.inner(tot, semiring.plus_times[FP64]).new().value / two_m) / two_m
        if not undone and best_q > -float("inf"):   # the last step's moves, judged
            stale = stale + 1 if q - best_q < max(threshold, STALL * abs(best_q)) else 0
        best, best_q, undone = (comm, q, False) if q >= best_q else (best, best_q, True)
        if stale == 2 or tries == max_iter:
            break
        if undone:                  # they lost modularity: start again from the best
            comm = best
            continue
        gain = K.ewise_mult(K.mxm(Matrix.from_diag(tot), semiring.max_second).new(),
                            binary.minus).new(mask=~P.S)
        target, gain = _rows.argmax(gain, bound=two_m * (1 + 1 / resolution))
        stay = own.ewise_union(tot[comm].new().ewise_mult(k, binary.minus).new(),
                               binary.minus, 0.0, 0.0).new()
        better = gain.ewise_union(stay, binary.minus, 0.0, 0.0).new(mask=target.S)
        way = target.ewise_mult(comm, binary.lt if tries % 2 == 0 else binary.gt).new()
        movers = better.select(select.valuegt, 1e-12).new().ewise_mult(way, binary.second).new()
        comm, tries = comm.dup(), tries + 1
        comm(movers.select(select.valueeq, True).new().S) << target
    return best, best_q
