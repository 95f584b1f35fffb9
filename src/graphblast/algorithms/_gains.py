"""The gains of Louvain's and Leiden's local moves: the graph rescaled once per level, and a
step's products over its active vertices."""

from graphblast import Matrix, binary, indexunary, monoid, select, semiring, unary
from graphblast.dtypes import FP64, INT64

from . import _rows

__all__ = ["rescaled", "products", "targets"]


def rescaled(A, resolution, two_m):
    """``(k, ks, O, bound, offset)`` for the local moves on ``A``.

    The graph becomes ``O = diag(1 / ks) offdiag(A) + diag(k)`` (``ks = g k /
    2m``): a row scaled so that a step compares ``(O P)[i, c] - tot_c`` with no row factor,
    and the diagonal ``k_i`` turns the own community's entry into the value of staying,
    ``K_s[i, own] - (tot_own - k_i)`` (plus three quanta of the argmax's keys, so that a move
    must gain more than the keys resolve: no vertex moves on a tie).  The entries are at
    most ``2m (2 + 1 / resolution)``, the bound the argmax needs for its one-pass keys.

    ``k`` are the weighted degrees, ``ks = g k / 2m``, ``bound`` the argmax's bound and
    ``offset`` what turns ``own . ks`` (``own[i]``: the entry of ``O P`` at ``i``'s own
    community) into the weight inside communities: the self-loops, less the diagonal's
    ``ks . stay``."""
    k = A.reduce_rowwise(monoid.plus[FP64]).new()
    loops = A.diag().reduce(monoid.plus[FP64]).new().value or 0.0
    ks = k.select(select.valuegt, 0.0).new().apply(binary.times, right=resolution / two_m)
    ks = ks.new()
    O = Matrix.from_diag(ks.apply(unary.minv).new()).mxm(select.offdiag(A).new(),
                                                         semiring.any_times[FP64]).new()
    bound = two_m * (2 + 1 / resolution)
    stay = k.dup(mask=ks.S).apply(binary.plus, right=3 * _rows.quantum(A.nrows, bound)).new()
    O = O.ewise_add(Matrix.from_diag(stay), binary.plus).new()
    base = ks.inner(stay, semiring.plus_times[FP64]).new().value or 0.0
    return k, ks, O, bound, loops - base


def products(O, P, E, active):
    """A step's products over the rows of the ``active`` vertices: the selector ``R``
    (``R[r, I[r]] = 1``: row ``r`` is vertex ``I[r]``, ``I`` the Vector of their ids), ``K =
    O[I, :] P`` and each active vertex's weight to its own community, by vertex.  Where at
    least a quarter of the vertices are active every row is taken (``R`` is None: rows are
    vertices): taking many rows out costs about as much as the whole step, and looking at
    every vertex while many move keeps the modularity of unpruned moves (pruned from a half
    down, g500-12 to 14 lost 1-1.3%; from a quarter, 0.2-0.6%)."""
    R, Pa = None, P
    if 4 * active.nvals < active.size:
        I = active.apply(indexunary.rowindex).new(INT64)
        R, O = E[I, :].new(), O[I, :].new()
        Pa = R.mxm(P, semiring.any_first[FP64]).new()     # P[I, :], with no second check of I
    K = O.mxm(P, semiring.plus_times[FP64]).new()
    own = K.ewise_mult(Pa, binary.first).new().reduce_rowwise(monoid.plus).new()
    return R, K, own if R is None else own.vxm(R, semiring.any_first[FP64]).new()


def targets(R, K, tot, bound):
    """Each active vertex's community of largest gain ``K[i, c] - tot_c`` (its own when
    nothing beats staying), by vertex: the one-pass argmax of ``_rows.argmax`` with the
    shift folded into its keys.  ``K`` is quantized, ``q = floor(K s) n`` (``n`` columns),
    and one gather with ``diag(ceil(tot s) n + c)`` makes the key ``q[i, c] - ceil(tot_c s)
    n - c`` of every entry: the gain in quanta (rounded down by at most one, the margin the
    diagonal's three quanta leave) and then the smaller column, so one max by row finds the
    move, with no pass for the columns and no merge of two matrices that shifting the floats
    first and keying them after would take."""
    n, step = K.ncols, _rows.quantum(K.ncols, bound)                # 1 / s
    q = K.apply(binary.floordiv, right=step).new(INT64).apply(binary.times, right=n).new()
    up = tot.apply(binary.floordiv, right=-step).new(INT64)        # -ceil(tot s)
    shift = up.apply(binary.times, right=-n).new()
    shift(binary.plus) << shift.apply(indexunary.rowindex).new(INT64)
    key = q.mxm(Matrix.from_diag(shift), semiring.any_minus[INT64]).new()
    key = key.reduce_rowwise(monoid.max).new()                  # q n - column
    best = key.apply(binary.plus, right=n - 1).new().apply(binary.floordiv, right=n).new()
    target = best.apply(binary.times, right=n).new().ewise_mult(key, binary.minus).new()
    return target if R is None else target.vxm(R, semiring.any_first[INT64]).new()
