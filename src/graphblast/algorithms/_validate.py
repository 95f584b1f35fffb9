"""Argument checks shared by the algorithms.

Each check runs before an algorithm does any work and raises an exception whose message says
what was wrong and what to pass instead.  Type errors are ``TypeError`` (as in Python and
python-graphblas); bad values raise the classes of :mod:`graphblast.exceptions`.
"""

import math
import numbers

import numpy as np

from graphblast import Matrix, TransposedMatrix, binary, monoid, select
from graphblast.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue

__all__ = [
    "square_matrix", "source_vertex", "edge_weights", "choice", "real_in_range",
    "positive_int", "flag", "undirected", "sssp_arguments", "pagerank_arguments",
    "distance_type", "symmetric", "start_vector", "positive_weights",
]


def square_matrix(A, algorithm):
    """Check that ``A`` is a graphblast Matrix with as many rows as columns; return ``n``."""
    if isinstance(A, TransposedMatrix):
        raise TypeError(
            f"{algorithm} expects a graphblast.Matrix, got a transposed view (A.T); "
            "materialize it first with A.T.new()"
        )
    if not isinstance(A, Matrix):
        raise TypeError(
            f"{algorithm} expects a graphblast.Matrix (the adjacency matrix), got "
            f"{type(A).__module__}.{type(A).__qualname__}; build one with "
            "graphblast.Matrix.from_coo(rows, cols, values, nrows=n, ncols=n) or "
            "graphblast.io.from_scipy_sparse(...)"
        )
    if A.nrows != A.ncols:
        raise DimensionMismatch(
            f"{algorithm} needs a square adjacency matrix (n x n, A[i, j] is the edge i -> j), "
            f"got {A.nrows} x {A.ncols}; resize it with A.resize(n, n) if vertices are missing"
        )
    return A.nrows


def source_vertex(source, n, algorithm):
    """Check that ``source`` is an integer vertex id in ``0 .. n-1``; return it as an int.

    NumPy integers are accepted; ``bool`` is rejected although Python treats it as an integer,
    because ``True`` as a vertex id is almost always a mistake.  Negative ids are rejected rather
    than counted from the end: a vertex has one name.
    """
    if isinstance(source, (bool, np.bool_)) or not isinstance(source, numbers.Integral):
        raise TypeError(
            f"{algorithm}: source must be an integer vertex id, got {source!r} of type "
            f"{type(source).__name__}"
        )
    source = int(source)
    if not 0 <= source < n:
        if n == 0:
            raise IndexOutOfBound(
                f"{algorithm}: source {source} is out of range: the graph has no vertices"
            )
        raise IndexOutOfBound(
            f"{algorithm}: source {source} is out of range for a graph of {n} vertices; "
            f"pass a vertex id with 0 <= source < {n}"
        )
    return source


def edge_weights(A, algorithm, *, allow_negative, negative_hint):
    """Check the values of ``A`` as edge weights: no NaN, no negative value unless allowed.

    Each check is one reduction over the stored values, and is skipped for types that cannot
    hold the offending value (NaN needs a float, a negative value a signed type).
    """
    kind = A.dtype.np_type.kind
    if A.nvals == 0 or kind not in "if":
        return
    # x != x holds exactly for NaN; the reduction is exact on every backend, unlike min/max
    # whose NaN propagation differs between NumPy's minimum and fmin.
    if kind == "f" and A.ewise_mult(A, binary.ne).new().reduce_scalar(monoid.lor).new().value:
        raise InvalidValue(
            f"{algorithm}: the matrix holds NaN weights, which have no order; drop or replace "
            "those entries before calling"
        )
    if not allow_negative:
        smallest = A.reduce_scalar(monoid.min).new().value
        if smallest < 0:
            raise InvalidValue(
                f"{algorithm}: the matrix holds negative weights (smallest {smallest}); "
                f"{negative_hint}"
            )


def positive_weights(A, algorithm):
    """Check that every value of ``A`` is a finite positive weight (no NaN, none <= 0 or
    infinite)."""
    edge_weights(A, algorithm, allow_negative=False,
                 negative_hint="shortest paths by weight need weights > 0")
    zeros = A.select(select.valueeq, 0).new().nvals
    if zeros:
        raise InvalidValue(
            f"{algorithm}: the matrix holds {zeros} zero weights; weighted betweenness needs "
            "weights > 0 (a zero-weight cycle has infinitely many shortest paths): drop those "
            "entries or give them a small positive weight"
        )
    finite_weights(A, algorithm, "an infinite weight is no path")


def modularity_weights(A, algorithm, unweighted="weighted=False"):
    """Check ``A``'s values as modularity's weights: shares of a total that must be finite
    and positive, so no NaN, no negative and no infinite value (``unweighted``: the
    argument that weighs every edge 1, for the message)."""
    edge_weights(A, algorithm, allow_negative=False,
                 negative_hint=f"modularity needs weights >= 0 (or pass {unweighted} to "
                 "weigh every edge 1)")
    finite_weights(A, algorithm, "modularity needs a finite total weight")


def finite_weights(A, algorithm, why):
    """Check that no value of ``A`` is +inf (call after :func:`edge_weights`, which refuses
    NaN and, where asked, negative values)."""
    if A.dtype.np_type.kind == "f" and A.select(select.valueeq, math.inf).new().nvals:
        raise InvalidValue(f"{algorithm}: the matrix holds infinite weights; drop those "
                           f"entries ({why})")


def choice(value, name, options, algorithm):
    """Check that ``value`` is one of the strings ``options``; return it."""
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise InvalidValue(f"{algorithm}: {name} must be one of {listed}, got {value!r}")
    return value


def real_in_range(value, name, algorithm, *, low, high, low_open=False):
    """Check that ``value`` is a real number in ``[low, high]`` (``(low, high]`` if
    ``low_open``); return it as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{algorithm}: {name} must be a real number, got {value!r}")
    value = float(value)
    inside = (low < value if low_open else low <= value) and value <= high
    if not inside or math.isnan(value):
        bracket = "(" if low_open else "["
        raise InvalidValue(
            f"{algorithm}: {name} must lie in {bracket}{low}, {high}], got {value!r}"
        )
    return value


def positive_int(value, name, algorithm):
    """Check that ``value`` is an integer >= 1 (bools rejected); return it as an int."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{algorithm}: {name} must be an integer, got {value!r}")
    if value < 1:
        raise InvalidValue(f"{algorithm}: {name} must be at least 1, got {value}")
    return int(value)


def flag(value, name, algorithm):
    """Check that ``value`` is a bool (a keyword switch); return it."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{algorithm}: {name} must be True or False, got {value!r}")
    return bool(value)


def undirected(A):
    """The structure of ``A + A'``: ``A`` itself when it equals its transpose (checked with
    one comparison against the cached transpose; a Matrix known to be symmetric,
    ``A.is_symmetric``, skips even that), else the union of ``A`` and ``A'``."""
    if A.is_symmetric or A.isequal(A.T):
        return A
    return A.ewise_add(A.T, binary.first).new()


def symmetric(A, algorithm):
    """``A`` itself when its structure is symmetric (an undirected graph), else an
    ``InvalidValue`` that points at the ``symmetrize`` switch."""
    if A.is_symmetric or A.ewise_mult(A.T, binary.first).new().nvals == A.nvals:
        return A
    raise InvalidValue(
        f"{algorithm} needs an undirected graph, but the structure of this {A.nrows} x "
        f"{A.ncols} matrix is not symmetric (some A[i, j] is stored without A[j, i]); pass "
        "symmetrize=True to use A + A'")


def start_vector(v, n, algorithm, name="nstart"):
    """Check a starting Vector of an iterative algorithm: a graphblast Vector of size ``n``
    whose values are not all 0; return it as FP64."""
    from graphblast import Vector
    from graphblast.dtypes import FP64

    if not isinstance(v, Vector):
        raise TypeError(f"{algorithm}: {name} must be a graphblast Vector of size {n}, got "
                        f"{type(v).__name__}")
    if v.size != n:
        raise DimensionMismatch(f"{algorithm}: {name} has size {v.size}, the graph {n} "
                                "vertices")
    if n and not v.apply(binary.ne, right=0).new().reduce(monoid.lor).new().value:
        raise InvalidValue(f"{algorithm}: {name} cannot be all zero")
    return v.dup(FP64)


def sssp_arguments(A, source, negative_weights, method, delta):
    """sssp's checks: (n, source, negative_weights, method, delta, the distances' type),
    normalized."""
    n = square_matrix(A, "sssp")
    source = source_vertex(source, n, "sssp")
    negative_weights = flag(negative_weights, "negative_weights", "sssp")
    method = choice(method, "method", ("auto", "bellman-ford", "delta"), "sssp")
    if negative_weights and method == "delta":
        raise InvalidValue("sssp: delta-stepping needs non-negative weights; use "
                           "method='bellman-ford' (or 'auto') with negative_weights=True")
    if delta is not None:
        delta = real_in_range(delta, "delta", "sssp", low=0, high=float("inf"), low_open=True)
    edge_weights(A, "sssp", allow_negative=negative_weights,
                 negative_hint="pass negative_weights=True to allow them (negative cycles "
                 "then raise NegativeCycle)")
    if method != "bellman-ford" and A.nvals and A.dtype.np_type.kind == "f" and \
            A.reduce_scalar(monoid.max).new().value == float("inf"):
        # buckets of distance cannot hold an infinite one; Bellman-Ford reaches it all the same
        if method == "delta":
            raise InvalidValue("sssp: delta-stepping needs finite weights (this matrix holds "
                               "an infinite one); use method='bellman-ford' or 'auto'")
        method = "bellman-ford"
    return n, source, negative_weights, method, delta, distance_type(A.dtype)


def pagerank_arguments(A, damping, tol, max_iter, dangling, weighted):
    """pagerank's checks: (n, damping, tol, max_iter, dangling, weighted), normalized."""
    n = square_matrix(A, "pagerank")
    damping = real_in_range(damping, "damping", "pagerank", low=0.0, high=1.0)
    if tol is not None:
        tol = real_in_range(tol, "tol", "pagerank", low=0.0, high=float("inf"), low_open=True)
    max_iter = positive_int(max_iter, "max_iter", "pagerank")
    dangling = choice(dangling, "dangling", ("uniform", "ignore"), "pagerank")
    weighted = flag(weighted, "weighted", "pagerank")
    if weighted:
        edge_weights(A, "pagerank", allow_negative=False,
                     negative_hint="PageRank weights must be >= 0")
    return n, damping, tol, max_iter, dangling, weighted


def distance_type(dtype):
    """The type path lengths add up in: integers (and BOOL) in INT64, UINT64 stays unsigned,
    floats keep their width."""
    from graphblast.dtypes import INT64, UINT64

    if dtype.np_type.kind == "f" or dtype == UINT64:
        return dtype
    return INT64
