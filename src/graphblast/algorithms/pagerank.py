"""PageRank by power iteration, with the two common treatments of dangling vertices."""

from graphblast import Vector, binary, monoid, pull_in_degree_order, select, semiring, unary
from graphblast.dtypes import FP64
from graphblast.exceptions import GraphblasException

from . import _validate

__all__ = ["pagerank", "ConvergenceFailure"]


class ConvergenceFailure(GraphblasException):
    """An iterative algorithm reached its iteration cap before meeting its tolerance."""


def pagerank(A, *, damping=0.85, tol=1e-4, max_iter=100, dangling="uniform", weighted=False):
    """PageRank of every vertex of the directed graph ``A``.

    Definition: ``A[i, j]`` is an edge ``i -> j``.  With ``d`` the damping factor, ``out(i)``
    the out-degree of ``i`` (its row count; with ``weighted=True`` the sum of its row), and
    the sinks the vertices with ``out(i) == 0``, one power-iteration step is::

        r'(j) = (1 - d) / n + d * sum_{i -> j} r(i) * w(i, j) / out(i)  [+ d * sink_mass / n]

    where ``w`` is 1 (or ``A[i, j]`` when weighted), ``r`` starts at ``1 / n``, and
    ``sink_mass = sum of r(i) over the sinks``.  ``dangling="uniform"`` adds the bracketed
    term: a sink links to every vertex, as NetworkX, igraph and LDBC Graphalytics define it,
    and ``r`` sums to 1.  ``dangling="ignore"`` drops it, as the GAP benchmark suite and
    GraphBLAST do: the mass of the sinks leaks away and ``r`` sums to less than 1 when the
    graph has sinks (no renormalization, so the values match GAP's).

    In GraphBLAS terms one step is a scaling, a vector-matrix product and a scalar add::

        c   = r .* (d / out)                         # only the non-sinks
        r'  = teleport;  r' += c plus.first A        # plus.times when weighted

    Convergence is NetworkX's test: stop after the first step whose L1 change
    ``sum |r' - r|`` is below ``n * tol``.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix.  Values are ignored unless ``weighted=True``; a self-loop
        is an ordinary edge.
    damping : float, default 0.85
        Probability of following an edge, ``0 <= damping <= 1``.
    tol : float or None, default 1e-4
        Tolerance per vertex, ``> 0``.  ``None`` runs exactly ``max_iter`` steps and never
        raises (the LDBC Graphalytics definition, a fixed iteration count).
    max_iter : int, default 100
        Most steps to run, at least 1.
    dangling : {"uniform", "ignore"}, default "uniform"
        Spread the sinks' rank evenly over all vertices, or drop it (GAP).
    weighted : bool, default False
        Use ``A``'s values as edge weights: an edge's share of its source's rank is its weight
        over the row's total.  Weights must be non-negative and not NaN; a vertex whose
        out-weights sum to 0 is a sink.  NetworkX weights by default (``weight="weight"``);
        pass ``weighted=True`` to match it on weighted graphs.

    Returns
    -------
    Vector
        FP64 rank of every vertex (full: isolated vertices included).

    Raises
    ------
    TypeError, DimensionMismatch
        For a non-Matrix, a non-square ``A`` or an argument of the wrong type.
    InvalidValue
        For an argument out of range, or bad weights with ``weighted=True``.
    ConvergenceFailure
        If ``tol`` is set and ``max_iter`` steps do not reach it; the message gives both the
        step count and the last L1 change.

    Notes
    -----
    Cost per step: one sparse vector-matrix product over all ``m`` edges (the backend pulls,
    since ``c`` is dense) plus ``O(n)`` vector work.  The step count is about
    ``log(n * tol) / log(damping)`` in the worst case, whatever the graph.

    Examples
    --------
    >>> from graphblast import Matrix
    >>> A = Matrix.from_coo([0, 1, 2], [1, 2, 0], True, nrows=3, ncols=3)    # a 3-cycle
    >>> pagerank(A).to_dict()
    {0: 0.3333333333333333, 1: 0.3333333333333333, 2: 0.3333333333333333}
    """
    n, damping, tol, max_iter, dangling, weighted = _validate.pagerank_arguments(
        A, damping, tol, max_iter, dangling, weighted)
    if n == 0:
        return Vector(FP64, 0, device=A.device)
    ones = Vector.from_scalar(1.0, n, FP64, device=A.device)
    if weighted:
        out = A.reduce_rowwise(monoid.plus[FP64]).new().select(select.valuene, 0).new()
        pull = semiring.plus_times[FP64]
    else:
        out = A.mxv(ones, semiring.plus_pair[FP64]).new()
        pull = semiring.plus_second[FP64]
    # c' A is A' c, pulled over A' (its transpose, or A when symmetric); on a GPU, over a
    # skewed graph, over B = P A' P' in decreasing-degree order (core/ordering.py), where
    # every vector below lives in that order and the result is renumbered back by R.  There
    # one vertex without an edge stands for all of them (their ranks are equal at every
    # step), so the vectors have k entries, not n, and `weight` says how many vertices each
    # entry stands for: where the sinks' mass and the L1 change sum over vertices, they are
    # inner products with it.
    M, P, R, weight = pull_in_degree_order(A, max_iter, values=weighted) or (A.T, None, None, ones)
    if P is not None:
        out = out[P].new()
    k = M.nrows
    # d / out(i), and 0 for the sinks (they have no out-edges to spread along): a full
    # vector, so that c below is full too and the product reads it without a presence test.
    share = Vector.from_scalar(0.0, k, FP64, device=A.device)
    share(binary.plus) << out.apply(binary.truediv, left=damping)
    # the teleport, plus (dangling="uniform") the spread sinks' mass d * sink_mass / n: the
    # inner product of rank with sink_share (d / n times the weight at the sinks, 0
    # elsewhere, full like share), a Scalar that stays on a GPU, where the teleport's apply
    # reads it, so a step waits for nothing on the host (core/scalar.py)
    teleport = Vector.from_scalar((1.0 - damping) / n, k, FP64, device=A.device)
    if spread_sinks := dangling == "uniform" and out.nvals < k:
        sink_share = weight.apply(binary.times, right=damping / n).new()
        sink_share(mask=out.S) << 0.0
    rank = Vector.from_scalar(1.0 / n, k, FP64, device=A.device)
    for _ in range(max_iter):
        spread = rank.inner(sink_share, semiring.plus_times).new() if spread_sinks else 0.0
        new = teleport.apply(binary.plus, right=spread).new()
        c = rank.ewise_mult(share, binary.times).new()
        new(binary.plus) << M.mxv(c, pull)
        if tol is not None:  # a fixed step count (tol=None) tests nothing, reads nothing back
            err = new.ewise_mult(rank, binary.minus).new().apply(unary.abs).new().inner(
                weight, semiring.plus_times).new().value
        rank = new
        if tol is not None and err < n * tol:
            break
    if tol is not None and err >= n * tol:  # the last step did not converge
        raise ConvergenceFailure(
            f"pagerank did not converge in {max_iter} iterations: the last L1 change was "
            f"{err:.3g}, not below n * tol = {n * tol:.3g}; raise max_iter or tol, or pass "
            "tol=None for a fixed number of iterations")
    return rank if R is None else rank[R].new()
