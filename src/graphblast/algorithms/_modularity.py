"""What Louvain and Leiden share besides the moves: the membership matrix, modularity,
contraction of communities into vertices, and labels."""

from graphblast import Matrix, Vector, binary, indexunary, monoid, semiring
from graphblast.dtypes import FP64, INT64

from . import _validate

__all__ = ["ids", "membership", "contract", "modularity", "smallest_ids", "arguments"]


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
    inside = P.ewise_mult(A.mxm(P, semiring.plus_times[FP64]).new(), binary.second).new()
    tot = A.reduce_rowwise(monoid.plus[FP64]).new().vxm(P, semiring.plus_times[FP64]).new()
    spread = tot.inner(tot, semiring.plus_times[FP64]).new().value or 0.0
    return ((inside.reduce_scalar(monoid.plus[FP64]).new().value or 0.0)
            - resolution * spread / two_m) / two_m


def contract(A, comm):
    """``(A', new, S)``: each community of ``comm`` one vertex of ``A' = S' A S``, numbered
    ``0..c-1`` in the order of the labels (``c`` communities), each vertex's new community
    ``new`` and ``S[i, new[i]] = 1``.  ``S = P C``: ``P`` the membership matrix and ``C``
    the identity's columns at the labels in use (``E[:, L]``, ``L`` the Vector of those
    labels); ``A`` is symmetric, so ``S' A S = (A S)' S``: two products with ``S``, which
    holds one entry per row (each a gather reduced within rows, no expansion), and one
    transpose."""
    P = membership(comm)
    used = P.reduce_columnwise(monoid.any).new().apply(indexunary.rowindex).new(INT64)
    S = P.mxm(membership(ids(A.nrows, A.device))[:, used].new(),
              semiring.any_first[FP64]).new()
    new = S.apply(indexunary.colindex).new(INT64).reduce_rowwise(monoid.any).new()
    AS = A.mxm(S, semiring.plus_times[FP64]).new()
    return AS.T.mxm(S, semiring.plus_times[FP64]).new(), new, S


def smallest_ids(member):
    """The partition ``member`` with each community labelled by its smallest vertex id."""
    n = member.size
    first = ids(n, member.device)
    P = Matrix.from_coo(first, member, first, INT64, nrows=n, ncols=n)
    return P.reduce_columnwise(monoid.min).new()[member].new()


def arguments(A, resolution, threshold, max_iter, weighted, algorithm):
    """Louvain's and Leiden's checks, and the weights they work on:
    ``(n, W, two_m, resolution, threshold, max_iter)``, ``W`` FP64 (1 on every edge unless
    ``weighted``) and ``two_m`` the sum of its entries."""
    n = _validate.square_matrix(A, algorithm)
    resolution = _validate.real_in_range(resolution, "resolution", algorithm, low=0.0,
                                         high=float("inf"), low_open=True)
    threshold = _validate.real_in_range(threshold, "threshold", algorithm, low=0.0,
                                        high=float("inf"))
    max_iter = _validate.positive_int(max_iter, "max_iter", algorithm)
    W = _validate.symmetric(A, algorithm).dup(FP64)
    if not _validate.flag(weighted, "weighted", algorithm):
        W = W.apply(binary.second, 1.0).new()
    else:
        _validate.modularity_weights(A, algorithm)
    two_m = W.reduce_scalar(monoid.plus[FP64]).new().value or 0.0
    return n, W, two_m, resolution, threshold, max_iter
