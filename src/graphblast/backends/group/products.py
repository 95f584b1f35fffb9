"""Products on a device group: mxv and vxm (push and pull), mxm, kronecker, and the
transpose they read.

- **Pull** (``w = A u``): ``u`` is gathered on every member (an allgather), and each member
  computes the rows of its block with its own backend, under its block of the mask.  The
  result is split like A's rows: nothing more moves.
- **Push** (``w = u' A``): each member expands its block of ``u`` over its rows of ``A``
  (its own backend's product, unmasked: the mask lives with the owners), sends the products
  to the owners of their columns (an alltoallv), and each owner folds what it receives with
  the monoid.  ``A u`` pushes over ``A'``.
- **Direction**: the members' push work (the degree sum of their blocks of ``u``) is summed
  by an allreduce, so that every member takes the same choice (``plan.direction``).
- **mxm** (``C = A B``, masked as triangle counting's ``C<L> = L L'``): each member fetches
  once the rows of ``B`` its block of ``A`` reads (an alltoallv of row requests and one of
  rows: a halo), then computes its rows of ``C``.
- **kronecker**: ``B`` is gathered on every member; a block of A's rows gives a block of
  the result's rows.

A multiply that reads positions (``firsti`` ...) sees global coordinates: a block is given
to the member's product as a matrix of all the rows, the others empty (``storage.py``).
"""

from ... import plan
from ...config import config
from ...ops.swapped import SwappedSemiring, swap_semiring
from ..base import CSR, IndexArg
from .indexing import fetch_rows
from .storage import (INDEX, block_length, reads_positions, rows_to_global, rows_to_local,
                      vector_to_global, vector_to_local)


def swapped(semiring):
    """The semiring with its multiplication's operands exchanged (a swapped one unswapped)."""
    if isinstance(semiring, SwappedSemiring):
        return semiring.unswapped
    return swap_semiring(semiring)


def transpose(g, A):
    """A' split by A's column boundaries: every entry sent to the owner of its column (an
    alltoallv), which builds its rows of A'.  Cached on A as a member's transpose is."""
    if A.symmetric:
        return A
    if A._transpose is not None:
        return A._transpose

    def send(k, m):
        rows, cols, vals = m.matrix_to_coo(A.parts[k])
        rows = rows + INDEX(A.bounds[k])
        return [(cols[pick] - INDEX(A.col_bounds[d]), rows[pick], vals[pick])
                for d, pick in enumerate(g.split_unsorted(k, cols, A.col_bounds))]

    received = g.exchange(g.each(send))

    def build(d, m):
        rows, cols, vals = (m.xp.concatenate([got[a] for got in received[d]])
                            for a in (0, 1, 2))
        return m.matrix_from_coo(block_length(A.col_bounds, d), A.nrows, A.dtype, rows, cols,
                                 vals, None)

    T = g.matrix(A.ncols, A.nrows, A.dtype, g.each(build), A.col_bounds, A.bounds)
    if config["transpose_cache"]:
        A._transpose = T
        T._transpose = A
    return T


def _degree_sum(g, M, u):
    """Products a push over M's rows at u's entries makes, summed over the members (an
    allreduce); u is split like M's rows."""
    def local(k, m):
        ptr, idx = M.parts[k].indptr, u.parts[k].indices
        total = (ptr[idx + 1] - ptr[idx]).sum(dtype=INDEX)
        return m.xp.asarray(total, dtype=INDEX).reshape(1)

    summed = g.comm.allreduce(g.each(local), "sum")
    with g.scope(0):
        return int(g.members[0].to_host(summed[0])[0])


def _push(g, M, u, semiring, size, bounds):
    """Each member's block of u expanded over its rows of M (u' M on the block), the
    products folded by the owners of their columns in ``bounds``."""
    positional = semiring.binaryop.position is not None

    def expand(k, m):
        uk, Mk = u.parts[k], M.parts[k]
        if positional:
            start = int(M.bounds[k])
            uk = vector_to_global(uk, start, M.nrows)
            Mk = rows_to_global(m.xp, Mk, start, M.nrows)
        return m.vxm(uk, Mk, semiring, None)

    with _member_direction("push"):
        partials = g.each(expand)
    return g.fold_to_owners(partials, bounds, size, semiring)


def _pull(g, M, u, semiring, mask):
    """``M u`` with u gathered on every member: each member's rows, under its block of the
    mask."""
    whole = g.allgather_vector(u)
    masks = g.mask_parts(mask, M.bounds)
    positional = semiring.binaryop.position is not None

    def rows(k, m):
        if not positional:
            return m.mxv(M.parts[k], whole[k], semiring, masks[k])
        start, stop = int(M.bounds[k]), int(M.bounds[k + 1])
        out = m.mxv(rows_to_global(m.xp, M.parts[k], start, M.nrows), whole[k], semiring, None)
        return vector_to_local(m.xp, out, start, stop, m)

    with _member_direction("pull"):
        parts = g.each(rows)
    return g.vector(M.nrows, semiring.return_type, parts, M.bounds)


def _member_direction(choice):
    """The group's choice made the members' too.  A member's own planner sees a block of
    rows, a vector of the whole dimension and its block of the mask, and could choose the
    other direction: that would build the transpose of its block (as much memory as the
    block, and a block's transpose is never reused) to compute what the group's choice
    computes without it."""
    return config.set(direction=choice)


def mxv(g, A, u, semiring, mask):
    """w = A (+.x) u: pull over A's rows, or push over A' from u's entries."""
    u = g.aligned(u, A.col_bounds)
    known = A if A.symmetric else A._transpose
    if known is not None:
        push_work = _degree_sum(g, known, u)
    else:  # A' is not built: u's share of A's entries, as the one-device planner estimates
        push_work = int(A.nvals * (u.nvals / max(A.ncols, 1)))
    choice, _ = plan.direction(push_work, A.nvals)
    if choice == "push":
        return _push(g, transpose(g, A), u, swapped(semiring), A.nrows, A.bounds)
    return _pull(g, A, u, semiring, mask)


def vxm(g, u, A, semiring, mask):
    """w = u' (+.x) A: push from u's entries over A's rows, or pull over A'."""
    u = g.aligned(u, A.bounds)
    choice, _ = plan.direction(_degree_sum(g, A, u), A.nvals)
    if choice == "push":
        return _push(g, A, u, semiring, A.ncols, A.col_bounds)
    return _pull(g, transpose(g, A), u, swapped(semiring), mask)


def mxm(g, A, B, semiring, mask):
    """C = A (+.x) B: each member fetches the rows of B its block of A reads, then computes
    its rows of C (under its block of the mask)."""
    positional = semiring.binaryop.position is not None
    needed = g.each(lambda k, m: m.xp.unique(A.parts[k].indices))
    halo = fetch_rows(g, B, needed, IndexArg("all", B.ncols, B.ncols))
    masks = g.mask_parts(mask, A.bounds)

    def rows(k, m):
        xp, Ak = m.xp, A.parts[k]
        if not positional:
            # A's columns renumbered to the fetched rows: the product sees nothing else
            local = CSR(Ak.nrows, int(needed[k].shape[0]), Ak.dtype, Ak.indptr,
                        xp.searchsorted(needed[k], Ak.indices).astype(INDEX, copy=False),
                        Ak.values)
            return m.mxm(local, halo[k], semiring, masks[k])
        # the multiply reads positions: rows and B's rows at their own ids
        start, stop = int(A.bounds[k]), int(A.bounds[k + 1])
        out = m.mxm(rows_to_global(xp, Ak, start, A.nrows),
                    _at_own_rows(xp, halo[k], needed[k], B.nrows), semiring, None)
        return rows_to_local(xp, out, start, stop, m)

    return g.matrix(A.nrows, B.ncols, semiring.return_type, g.each(rows), A.bounds)


def _at_own_rows(xp, rows, ids, nrows):
    """The CSR ``rows`` (row r is row ``ids[r]``, ids sorted) as a matrix of ``nrows`` rows."""
    counts = xp.zeros(nrows + 1, dtype=INDEX)
    counts[ids + 1] = xp.diff(rows.indptr)
    return CSR(nrows, rows.ncols, rows.dtype, xp.cumsum(counts), rows.indices, rows.values)


def kronecker(g, A, B, op):
    """C = kron(A, B): B gathered on every member; the rows of A's block k give the rows
    ``bounds[k] * B.nrows`` up to ``bounds[k + 1] * B.nrows`` of C."""
    whole = g.allgather_matrix(B)
    positional = reads_positions(op)
    height = INDEX(B.nrows)

    def rows(k, m):
        if not positional:
            return m.kronecker(A.parts[k], whole[k], op)
        start, stop = int(A.bounds[k]), int(A.bounds[k + 1])
        out = m.kronecker(rows_to_global(m.xp, A.parts[k], start, A.nrows), whole[k], op)
        return rows_to_local(m.xp, out, start * B.nrows, stop * B.nrows, m)

    return g.matrix(A.nrows * B.nrows, A.ncols * B.ncols, op.return_type, g.each(rows),
                    A.bounds * height)
