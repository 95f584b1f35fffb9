"""Katz centrality by power iteration, as NetworkX defines it."""

from graphblast import Vector, binary, monoid, semiring, unary
from graphblast.dtypes import FP64

from . import _validate
from .pagerank import ConvergenceFailure

__all__ = ["katz_centrality"]


def katz_centrality(A, *, alpha=0.1, beta=1.0, max_iter=1000, tol=1e-6, nstart=None,
                    normalized=True, weighted=False):
    """Katz centrality of every vertex.

    Definition (Katz; NetworkX's ``katz_centrality``): ``x`` solves
    ``x = alpha * A' x + beta``, found by the iteration NetworkX runs::

        x' = alpha * (x plus.first A) + beta      # plus.times when weighted

    from ``x = 0`` (or ``nstart``), until ``sum |x' - x| < n * tol``; then, with
    ``normalized``, ``x`` is scaled to Euclidean norm 1.  The sum is over the in-neighbours
    of each vertex (``A[i, j]`` is the edge ``i -> j``; a symmetric ``A`` is undirected).
    It converges when ``alpha`` is below the inverse of the largest eigenvalue of ``A``.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix; its values are read only with ``weighted=True``.
    alpha : float, default 0.1
        Attenuation factor.
    beta : float or Vector, default 1.0
        Weight of every vertex's own contribution: one number, or a full Vector of ``n``.
    max_iter : int, default 1000
        Most steps, at least 1.
    tol : float, default 1e-6
        Tolerance per vertex.
    nstart : Vector, optional
        Starting value (by default 0 everywhere).
    normalized : bool, default True
        Scale the result to Euclidean norm 1.
    weighted : bool, default False
        Use ``A``'s values as edge weights (NetworkX's ``weight=``).

    Returns
    -------
    Vector
        FP64 centrality of every vertex (full).

    Raises
    ------
    ConvergenceFailure
        If ``max_iter`` steps do not reach ``tol``.

    Notes
    -----
    Cost per step: one sparse product over the ``m`` edges and ``O(n)`` vector work.
    """
    n = _validate.square_matrix(A, "katz_centrality")
    alpha = _validate.real_in_range(alpha, "alpha", "katz_centrality", low=-float("inf"),
                                    high=float("inf"))
    max_iter = _validate.positive_int(max_iter, "max_iter", "katz_centrality")
    tol = _validate.real_in_range(tol, "tol", "katz_centrality", low=0.0, high=float("inf"))
    normalized = _validate.flag(normalized, "normalized", "katz_centrality")
    pull = semiring.plus_times[FP64] if _validate.flag(
        weighted, "weighted", "katz_centrality") else semiring.plus_first[FP64]
    base = Vector.from_scalar(0.0, n, FP64, device=A.device)
    if n == 0:
        return base
    base(binary.plus) << (_validate.start_vector(beta, n, "katz_centrality", "beta")
                          if isinstance(beta, Vector) else base.apply(binary.plus, right=beta))
    x = base.apply(binary.times, right=0.0).new() if nstart is None else \
        _validate.start_vector(nstart, n, "katz_centrality")
    for _ in range(max_iter):
        new = base.dup()
        new(binary.plus) << x.vxm(A, pull).new().apply(binary.times, right=alpha)
        err = new.ewise_union(x, binary.minus, 0.0, 0.0).new().apply(unary.abs).new()
        x = new
        if err.reduce(monoid.plus).new().value < n * tol:
            break
    else:
        raise ConvergenceFailure(f"katz_centrality did not converge in {max_iter} "
                                 "iterations; lower alpha or raise max_iter or tol")
    norm = x.inner(x, semiring.plus_times).new().value ** 0.5
    return x.apply(binary.truediv, right=norm).new() if normalized and norm else x
