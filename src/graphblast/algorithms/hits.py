"""Hubs and authorities (Kleinberg's HITS) by power iteration, as NetworkX defines them."""

from graphblast import Vector, binary, monoid, semiring, unary
from graphblast.dtypes import FP64

from . import _validate
from .pagerank import ConvergenceFailure

__all__ = ["hits"]


def hits(A, *, max_iter=100, tol=1e-8, nstart=None, normalized=True):
    """Hub and authority scores of every vertex of the directed graph ``A``.

    Definition (Kleinberg; NetworkX's ``hits``): the authorities ``a`` are the principal
    eigenvector of ``A' A`` and the hubs ``h = A a``, the principal eigenvector of ``A A'``;
    ``A``'s values are the edge weights (a pattern matrix weighs every edge 1).  Power
    iteration, as NetworkX's reference ``_hits_python``::

        a = h plus.times A;  h = A plus.times a;  h scaled by its maximum

    until ``sum |h - h_last| < tol`` (NetworkX scales ``a`` by its maximum too; its scale
    never reaches ``h``, so here it is scaled once, at the end: one host read a step less).  With ``normalized`` both sum to 1; without, ``a`` has
    Euclidean norm 1 and ``h = A a`` (what NetworkX's ``hits`` returns, up to the sign that
    its SVD solver leaves open; here both are non-negative).

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix, ``A[i, j]`` the edge ``i -> j`` with its weight.
    max_iter : int, default 100
        Most steps, at least 1.
    tol : float, default 1e-8
        Bound on the L1 change of the hubs between two steps (scaled to maximum 1).
    nstart : Vector, optional
        Starting hubs (positive; scaled to sum 1), by default ``1 / n`` everywhere.
    normalized : bool, default True
        Scale both results to sum 1.

    Returns
    -------
    (hubs, authorities) : (Vector, Vector)
        FP64, full.

    Raises
    ------
    ConvergenceFailure
        If ``max_iter`` steps do not reach ``tol``.

    Notes
    -----
    Cost per step: two sparse products over the ``m`` edges (``A'`` comes from the cached
    transpose) and ``O(n)`` vector work; the steps needed grow as the ratio of the two
    largest singular values of ``A`` approaches 1.
    """
    n = _validate.square_matrix(A, "hits")
    max_iter = _validate.positive_int(max_iter, "max_iter", "hits")
    tol = _validate.real_in_range(tol, "tol", "hits", low=0.0, high=float("inf"))
    normalized = _validate.flag(normalized, "normalized", "hits")
    h = Vector.from_scalar(1.0, n, FP64, device=A.device) if nstart is None else \
        _validate.start_vector(nstart, n, "hits")
    if n == 0:
        return h, h.dup()
    h = _scaled(h, h.reduce(monoid.plus).new().value)
    for _ in range(max_iter):
        a = h.vxm(A, semiring.plus_times[FP64]).new()
        new = A.mxv(a, semiring.plus_times[FP64]).new(FP64)
        # a is scaled once at the end: its scale never reaches h, which is rescaled here
        new = _scaled(new, new.reduce(monoid.max).new().value)
        err = new.ewise_union(h, binary.minus, 0.0, 0.0).new().apply(unary.abs).new()
        h = new
        if err.reduce(monoid.plus).new().value < tol:
            break
    else:
        raise ConvergenceFailure(f"hits did not converge in {max_iter} iterations; raise "
                                 "max_iter or tol")
    if not normalized:
        a = _scaled(a, (a.inner(a, semiring.plus_times).new().value or 0.0) ** 0.5)
        return _scaled(A.mxv(a, semiring.plus_times[FP64]).new(FP64), 1.0), a
    return tuple(_scaled(v, v.reduce(monoid.plus).new().value) for v in (h, a))


def _scaled(v, by):
    """``v / by``, a full FP64 Vector (``v`` unchanged when ``by`` is 0 or missing)."""
    out = Vector.from_scalar(0.0, v.size, FP64, device=v.device)
    out(binary.plus) << (v.apply(binary.truediv, right=by) if by else v)
    return out
