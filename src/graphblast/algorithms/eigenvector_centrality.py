"""Eigenvector centrality by power iteration on A' + I, as NetworkX defines it."""

from graphblast import Vector, binary, monoid, semiring, unary
from graphblast.dtypes import FP64

from . import _validate
from .pagerank import ConvergenceFailure

__all__ = ["eigenvector_centrality"]


def eigenvector_centrality(A, *, max_iter=100, tol=1e-6, nstart=None, weighted=False):
    """Eigenvector centrality of every vertex.

    Definition (Bonacich; NetworkX's ``eigenvector_centrality``): the principal eigenvector
    ``x`` of ``A'`` (a vertex is central when its in-neighbours are), with Euclidean norm 1
    and non-negative.  NetworkX's iteration, on the shifted ``A' + I`` (same eigenvectors,
    and it converges on bipartite graphs, where ``A'`` alone oscillates)::

        x' = x + (x plus.first A);   x' = x' / ||x'||_2     # plus.times when weighted

    from ``x = 1 / n`` (or ``nstart`` scaled to sum 1), until ``sum |x' - x| < n * tol``.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix; its values are read only with ``weighted=True``.
    max_iter : int, default 100
        Most steps, at least 1.
    tol : float, default 1e-6
        Tolerance per vertex.
    nstart : Vector, optional
        Starting values, not all 0.
    weighted : bool, default False
        Use ``A``'s values as edge weights (NetworkX's ``weight=``).

    Returns
    -------
    Vector
        FP64 centrality of every vertex (full); empty for an empty graph.

    Raises
    ------
    ConvergenceFailure
        If ``max_iter`` steps do not reach ``tol``.

    Notes
    -----
    Cost per step: one sparse product over the ``m`` edges and ``O(n)`` vector work; the
    steps needed grow as the two largest eigenvalues of ``A' + I`` approach each other.
    """
    n = _validate.square_matrix(A, "eigenvector_centrality")
    max_iter = _validate.positive_int(max_iter, "max_iter", "eigenvector_centrality")
    tol = _validate.real_in_range(tol, "tol", "eigenvector_centrality", low=0.0,
                                  high=float("inf"))
    pull = semiring.plus_times[FP64] if _validate.flag(
        weighted, "weighted", "eigenvector_centrality") else semiring.plus_first[FP64]
    x = Vector.from_scalar(1.0, n, FP64, device=A.device) if nstart is None else \
        _validate.start_vector(nstart, n, "eigenvector_centrality")
    if n == 0:
        return x
    x = x.apply(binary.truediv, right=x.reduce(monoid.plus).new().value).new()
    for _ in range(max_iter):
        new = x.dup()
        new(binary.plus) << x.vxm(A, pull)
        norm = new.inner(new, semiring.plus_times).new().value ** 0.5
        new = new.apply(binary.truediv, right=norm or 1.0).new()
        err = new.ewise_union(x, binary.minus, 0.0, 0.0).new().apply(unary.abs).new()
        x = new
        if err.reduce(monoid.plus).new().value < n * tol:
            return x
    raise ConvergenceFailure(f"eigenvector_centrality did not converge in {max_iter} "
                             "iterations; raise max_iter or tol")
