"""Jaccard similarity of given vertex pairs by sparse products with selection matrices."""

import numpy as np

from graphblast import Matrix, Vector, binary, monoid, semiring
from graphblast.dtypes import BOOL, FP64, INT64
from graphblast.exceptions import IndexOutOfBound, InvalidValue

from . import _validate

__all__ = ["jaccard"]


def jaccard(A, u, v):
    """Jaccard similarity ``|N(u) & N(v)| / |N(u) | N(v)|`` of the pairs ``(u[i], v[i])``.

    Definition (NetworkX's ``jaccard_coefficient``): ``N(x)`` is the set of neighbours of
    ``x``, row ``x`` of ``A`` (a symmetric ``A`` is an undirected graph; a self-loop makes
    ``x`` its own neighbour, as in NetworkX); the common neighbours counted are those other
    than ``u`` and ``v`` themselves (NetworkX's ``common_neighbors``), which matters only
    where a self-loop puts ``u`` or ``v`` in both sets; the similarity is 0 when the union is
    empty.

    With the selection matrices ``U[i, u[i]] = 1`` and ``V[i, v[i]] = 1``, the rows of
    ``U A`` and ``V A`` are the neighbour sets of the pairs::

        NU = U any.pair A;  NV = V any.pair A
        X = NU .* NV;  both = rowcount(X without the columns u, v)
        jaccard = both / (rowcount(NU) + rowcount(NV) - rowcount(X))

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix; values are ignored.
    u, v : sequences of int
        Vertex ids, one pair per position, of equal length.

    Returns
    -------
    Vector
        FP64 similarity of each pair, in the order given (full).

    Raises
    ------
    InvalidValue, IndexOutOfBound
        For ``u`` and ``v`` of unequal lengths, or an id that is not a vertex.

    Notes
    -----
    Cost: ``O(sum of the degrees of the pairs' vertices)`` for the products and the
    intersection, whatever the size of the graph.
    """
    n = _validate.square_matrix(A, "jaccard")
    u, v = (np.asarray(x, dtype=np.int64).reshape(-1) for x in (u, v))
    if u.size != v.size:
        raise InvalidValue(f"jaccard: u and v must have the same length, got {u.size} and "
                           f"{v.size}")
    if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
        raise IndexOutOfBound(f"jaccard: vertex ids must lie in [0, {n}), got ids from "
                              f"{min(u.min(), v.min())} to {max(u.max(), v.max())}")
    pairs = np.arange(u.size)
    U, V = (Matrix.from_coo(pairs, x, True, BOOL, nrows=u.size, ncols=n, device=A.device)
            for x in (u, v))
    NU, NV = (X.mxm(A, semiring.any_pair[BOOL]).new() for X in (U, V))
    du, dv = (N.reduce_rowwise(monoid.plus[INT64]).new() for N in (NU, NV))
    X = NU.ewise_mult(NV, binary.pair[INT64]).new()
    both = X.dup(mask=~U.ewise_add(V, binary.lor).new().S).reduce_rowwise(monoid.plus).new()
    union = du.ewise_union(dv, binary.plus, 0, 0).new()
    union(binary.minus) << X.reduce_rowwise(monoid.plus)
    result = Vector.from_scalar(0.0, u.size, FP64, device=A.device)
    result(both.S) << both.ewise_mult(union, binary.truediv[FP64])
    return result
