"""The steps Louvain and Leiden share: moving every vertex at once to its best community,
aggregating communities into vertices, and modularity, on the public API."""

from graphblast import Matrix, Vector, binary, indexunary, monoid, select, semiring
from graphblast.dtypes import FP64, INT64

from . import _rows, _validate

__all__ = ["ids", "membership", "move", "aggregate", "same_ends", "modularity",
           "smallest_ids", "arguments"]


def ids(n, device):
    """The full INT64 Vector ``0, 1, ..., n-1``."""
    return Vector.from_scalar(0, n, INT64, device=device).apply(indexunary.rowindex).new()


def membership(comm, values=1.0):
    """``P[i, comm[i]] = values``: the vertex-to-community matrix (n x n)."""
    n = comm.size
    return Matrix.from_coo(ids(n, comm.device), comm, values, FP64, nrows=n, ncols=n)


def modularity(A, comm, resolution, two_m):
    """Newman's modularity of the partition ``comm`` of the weighted undirected ``A``:
    ``sum_c (in_c - resolution * tot_c^2 / 2m) / 2m``."""
    P = membership(comm)
    inside = A.mxm(P, semiring.plus_times[FP64]).new().ewise_mult(P, binary.first).new()
    tot = A.reduce_rowwise(monoid.plus[FP64]).new().vxm(P, semiring.plus_times[FP64]).new()
    spread = tot.inner(tot, semiring.plus_times[FP64]).new().value or 0.0
    return ((inside.reduce_scalar(monoid.plus[FP64]).new().value or 0.0)
            - resolution * spread / two_m) / two_m


def move(A, comm, resolution, threshold, max_iter, two_m):
    """Local moving, every vertex at once: each vertex ``i`` goes to the community ``c`` of
    largest ``K[i, c] - resolution k_i tot_c / 2m`` (``K = offdiag(A) P``: its edge weight to
    ``c``) if that beats staying; on even steps only to a smaller community label, on odd
    steps only to a larger one (cuGraph's guard against two vertices swapping forever).
    Stops when two steps in a row gain less than ``threshold``; returns the best partition
    seen and its modularity."""
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
        best, best_q, stale = (comm, q, 0) if q > best_q + threshold else (best, best_q,
                                                                          stale + 1)
        if stale == 2:
            break
    return best, best_q


def aggregate(A, comm):
    """``P' A P``: one vertex per community (at the community's label; other rows empty)."""
    P = membership(comm)
    return P.T.mxm(A.mxm(P, semiring.plus_times[FP64]).new(), semiring.plus_times[FP64]).new()


def same_ends(A, comm):
    """The edges of ``A`` whose two ends have the same ``comm``."""
    D = Matrix.from_diag(comm)
    E = D.mxm(A, semiring.any_first).new().ewise_mult(
        A.mxm(D, semiring.any_second).new(), binary.eq).new()
    return A.dup(mask=E.select(select.valueeq, True).new().S)


def smallest_ids(member):
    """The partition ``member`` with each community labelled by its smallest vertex id."""
    n = member.size
    first = ids(n, member.device)
    P = Matrix.from_coo(first, member, first, INT64, nrows=n, ncols=n)
    return P.reduce_columnwise(monoid.min).new()[member].new()


def arguments(resolution, threshold, max_iter, algorithm):
    """The checks Louvain and Leiden share: (resolution, threshold, max_iter)."""
    resolution = _validate.real_in_range(resolution, "resolution", algorithm, low=0.0,
                                         high=float("inf"), low_open=True)
    threshold = _validate.real_in_range(threshold, "threshold", algorithm, low=0.0,
                                        high=float("inf"))
    return resolution, threshold, _validate.positive_int(max_iter, "max_iter", algorithm)
