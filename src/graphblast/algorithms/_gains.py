"""The gains of Louvain's and Leiden's local moves: the graph rescaled once per level, and a
step's products over its active vertices."""

from graphblast import binary, indexunary, monoid, select, semiring
from graphblast.dtypes import FP64, INT64

from . import _rows

__all__ = ["rescaled", "products", "targets"]

# The keys' quanta are those of at least this many columns: at least 2^-50 of the entries'
# bound, so that the diagonal's margin of three quanta survives FP64's rounding of the
# entries it is added to (on a small graph the keys would resolve finer than the floats).
FINEST = 1 << 12


def rescaled(A, resolution, two_m):
    """``(k, ku, O, keys, offset)`` for the local moves on ``A``.

    The graph becomes ``O = u diag(1 / ks) offdiag(A) + u diag(k)`` (``ks = g k / 2m``):
    a row scaled so that a step compares ``(O P)[i, c] - u tot_c`` with no row factor, and
    the diagonal ``k_i`` turns the own community's entry into the value of staying,
    ``K_s[i, own] - (tot_own - k_i)`` (plus three quanta of the argmax's keys, so that a
    move must gain more than the keys resolve: no vertex moves on a tie).  The entries are
    at most ``2m (2 + 1 / resolution)`` before the factor ``u = N s``: ``s`` the keys' scale
    for that bound (``1 / _rows.quantum``, for at least ``FINEST`` columns) and ``N`` the
    power of two at least the vertex count, both powers of two (the factor changes no
    rounding), so that the integer part of an entry of ``O P`` holds its quanta above the
    low ``log2 N`` bits (:func:`targets`).

    ``k`` are the weighted degrees, ``ku = ks / u``, ``keys = (N, 1 / s)`` and ``offset``
    what turns ``own . ku`` (``own[i]``: the entry of ``O P`` at ``i``'s own community)
    into the weight inside communities: the self-loops, less the diagonal's share."""
    k = A.reduce_rowwise(monoid.plus[FP64]).new()
    loops = select.diag(A).new().reduce_scalar(monoid.plus[FP64]).new().value or 0.0
    ks = k.select(select.valuegt, 0.0).new().apply(binary.times, right=resolution / two_m)
    ks = ks.new()
    wide = 1 << max(A.nrows - 1, 0).bit_length()
    step = _rows.quantum(max(wide, FINEST), two_m * (2 + 1 / resolution))
    u = wide / step
    O = ks.apply(binary.truediv, left=u).new().diag().mxm(
        select.offdiag(A).new(), semiring.any_times[FP64]).new()
    stay = k.dup(mask=ks.S).apply(binary.plus, right=3 * step).new()
    O = O.ewise_add(stay.apply(binary.times, right=u).new().diag(), binary.plus).new()
    base = ks.inner(stay, semiring.plus_times[FP64]).new().value or 0.0
    return k, ks.apply(binary.times, right=1 / u).new(), O, (wide, step), loops - base


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
    # Pa first: the intersection looks up Pa's entries (one a row) in K's rows, not K's in Pa
    own = Pa.ewise_mult(K, binary.second).new().reduce_rowwise(monoid.plus).new()
    return R, K, own if R is None else own.vxm(R, semiring.any_first[FP64]).new()


def targets(R, K, tot, keys):
    """Each active vertex's community of largest gain ``K[i, c] - u tot_c`` (its own when
    nothing beats staying), by vertex, in one pass of integer keys (``_rows.argmax``'s,
    with the shift folded in).  ``K``'s entries, ``N s`` times the gains' scale, become
    integers with their low ``log2 N`` bits cleared, ``N floor(K s)``, in one cast; one
    gather with ``diag(N floor(tot s) + c)`` makes each entry's key ``N q - c``, ``q`` the
    gain in quanta (within one of ``s`` times the gain, so a move that wins gains more than
    one quantum over the diagonal's margin of three), and one max by row finds the largest
    gain and then the smallest column, whose number is the key's low bits: ``c = -key mod
    N``."""
    wide, step = keys
    q = K.apply(binary.band[INT64], right=-wide).new()              # N floor(K s)
    shift = tot.apply(binary.times, right=wide / step).new()        # N s tot, as K is
    shift = shift.apply(binary.band[INT64], right=-wide).new()      # N floor(tot s)
    shift(binary.plus) << shift.apply(indexunary.rowindex).new(INT64)
    key = q.mxm(shift.diag(), semiring.any_minus[INT64]).new()
    key = key.reduce_rowwise(monoid.max).new().apply(binary.rminus, right=0).new()
    target = key.apply(binary.band, right=wide - 1).new()
    return target if R is None else target.vxm(R, semiring.any_first[INT64]).new()
