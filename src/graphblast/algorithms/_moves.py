"""Local moving for Louvain and Leiden: every vertex moves at once to its best community."""

from graphblast import Matrix, binary, monoid, select, semiring
from graphblast.dtypes import FP64

from . import _rows
from ._modularity import membership, modularity

__all__ = ["move"]

# A moving step counts as stalled when it gains less than this share of the modularity
# reached (or the caller's threshold, if larger).
STALL = 1e-4


def move(A, comm, resolution, threshold, max_iter, two_m):
    """Local moving, every vertex at once: each vertex ``i`` goes to the community ``c`` of
    largest ``K[i, c] - resolution k_i tot_c / 2m`` (``K = offdiag(A) P``: its edge weight to
    ``c``) if that beats staying; on even steps only to a smaller community label, on odd
    steps only to a larger one (cuGraph's guard against two vertices swapping forever).  A
    step that gains less than ``threshold`` is undone (moves made at once can conflict);
    after two such steps in a row (one each way) it stops.  Returns the partition and its
    modularity."""
    O, k = select.offdiag(A).new(), A.reduce_rowwise(monoid.plus[FP64]).new()
    scale = Matrix.from_diag(k.apply(binary.times, right=resolution / two_m).new())
    best, best_q, stale = comm, modularity(A, comm, resolution, two_m), 0
    for step in range(max_iter):
        P = membership(comm)
        K = O.mxm(P, semiring.plus_times[FP64]).new()
        tot = k.vxm(P, semiring.plus_times[FP64]).new()
        cost = scale.mxm(K, semiring.any_first).new().ewise_mult(
            K.mxm(Matrix.from_diag(tot), semiring.any_second).new(), binary.times).new()
        target, gain = _rows.argmax(K.ewise_mult(cost, binary.minus).new(mask=~P.S))
        stay = K.ewise_mult(P, binary.first).new().reduce_rowwise(monoid.plus).new()
        leave = tot[comm].new().ewise_mult(k, binary.minus).new().ewise_mult(
            scale.diag(), binary.times).new()
        stay = stay.ewise_union(leave, binary.minus, 0.0, 0.0).new()
        better = gain.ewise_union(stay, binary.minus, 0.0, 0.0).new(mask=target.S)
        way = target.ewise_mult(comm, binary.lt if step % 2 == 0 else binary.gt).new()
        movers = better.select(select.valuegt, 1e-12).new().ewise_mult(way, binary.second).new()
        comm = comm.dup()
        comm(movers.select(select.valueeq, True).new().S) << target
        q = modularity(A, comm, resolution, two_m)
        stale = stale + 1 if q - best_q < max(threshold, STALL * abs(best_q)) else 0
        best, best_q = (comm, q) if q > best_q else (best, best_q)
        comm = best
        if stale == 2:
            break
    return best, best_q
