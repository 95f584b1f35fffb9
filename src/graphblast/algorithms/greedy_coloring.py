"""Greedy vertex colouring in a given order, each colour class found in parallel rounds."""

from graphblast import Matrix, Vector, binary, monoid, select, semiring
from graphblast.dtypes import BOOL, INT64
from graphblast.exceptions import InvalidValue

from . import _validate

__all__ = ["greedy_coloring"]


def greedy_coloring(A, priority):
    """Colour of every vertex by the greedy rule in the order of ``priority``.

    Definition (NetworkX's ``greedy_color`` given an order): the vertices are taken in
    increasing ``priority``, and each gets the smallest colour ``0, 1, ...`` that none of
    its neighbours taken before it has.  Neighbours are those of ``A + A'``; self-loops are
    ignored.

    The same colouring without a sequential pass: colour ``c`` is the lexicographically
    first maximal independent set (in ``priority`` order) of the vertices the colours before
    it left, and that set grows in rounds in which every undecided vertex that comes before
    all its undecided neighbours joins, and its neighbours drop out of the round::

        low<undecided> = p_undecided min.first S      # the earliest undecided neighbour
        join = undecided where not (low < p)
        undecided<!(join + S any.pair join), replace> = undecided

    (a vertex joins exactly when each neighbour before it has been decided against, as in
    the sequential pass).

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix; values are ignored.
    priority : Vector
        Integer, full: the order (smallest first); two neighbours may not have the same.

    Returns
    -------
    Vector
        INT64 colour of every vertex (full).

    Raises
    ------
    InvalidValue
        If ``priority`` is not a full integer Vector of size ``n``, or two neighbours share
        a priority.

    Notes
    -----
    Cost per round: one product over the undecided vertices' edges and ``O(n)`` vector
    work; the rounds of a colour are at most the longest chain of neighbours in decreasing
    priority, often a few.
    """
    n = _validate.square_matrix(A, "greedy_coloring")
    if not isinstance(priority, Vector) or priority.size != n or priority.nvals != n or \
            priority.dtype.np_type.kind not in "iu":
        raise InvalidValue(f"greedy_coloring: priority must be a full integer Vector of size "
                           f"{n}, one value for every vertex")
    p = priority.dup(INT64)
    S = select.offdiag(_validate.undirected(A)).new(BOOL)
    at = Matrix.from_diag(p)
    tail = at.mxm(S, semiring.any_first[INT64]).new()            # p[i] at (i, j)
    head = S.mxm(at, semiring.any_second[INT64]).new()           # p[j] at (i, j)
    if tail.ewise_mult(head, binary.eq).new().reduce_scalar(monoid.lor).new().value:
        raise InvalidValue("greedy_coloring: two neighbours have the same priority; give "
                           "every vertex a distinct one (ties broken by id: p * n + id)")
    colors = Vector(INT64, n, device=A.device)
    left = Vector.from_scalar(True, n, BOOL, device=A.device)
    color = 0
    while left.nvals:
        undecided = left.dup()
        while undecided.nvals:
            mine = p.dup(mask=undecided.S)
            low = mine.vxm(S, semiring.min_first[INT64]).new(mask=undecided.S)
            before = low.ewise_mult(mine, binary.lt).new().select(select.valueeq, True).new()
            join = undecided.dup(mask=~before.S)
            colors(join.S) << color
            out = join.vxm(S, semiring.any_pair[BOOL]).new()
            undecided = undecided.dup(mask=~join.S).dup(mask=~out.S)
            left = left.dup(mask=~join.S)
        color += 1
    return colors
