"""Extract, assign, gather and scatter on a device group.

Positions are owned by the member whose block holds them, so each of these routes requests or
entries to the owners (an alltoallv), lets the owners answer with their own backend, and, for
reads, routes the answers back:

- gather (``u[I]``, ``f[f]``) and extracting a vector at an index list: requests (result
  position, source position) to the owners of the source positions, (result position,
  value) back;
- scatter (``w[I] << u``): (target, value) pairs to the owners of the targets, which fold
  them in the order of ``i`` as one device does (sources are in that order);
- extracting rows of a matrix (``A[p, p]``, and mxm's halo): row ids to their owners, the
  rows back (:func:`fetch_rows`);
- assign to a region: the region's entries (or rows) to the blocks their positions fall in,
  each member assigning its part of the region.

Index lists (``IndexArg``) are host arrays, as the core makes them; a member's backend gets its
part of a list as a host array too.
"""

import numpy as np

from ..base import CSR, IndexArg, SparseVector
from ..cpu.extract import index_array
from .storage import INDEX, PartitionedVector, block_length


def _cat(m, arrays):
    return m.xp.concatenate(arrays)


def _lookup(xp, idx, wanted):
    """(found, at): which ``wanted`` positions the sorted ``idx`` holds, and where."""
    if idx.shape[0] == 0:
        return xp.zeros(wanted.shape[0], dtype=bool), xp.zeros(wanted.shape[0], dtype=INDEX)
    at = xp.minimum(xp.searchsorted(idx, wanted), idx.shape[0] - 1)
    return idx[at] == wanted, at


def _in_order(m, order):
    """Whether the member array ``order`` is increasing."""
    return order.shape[0] < 2 or bool(m.to_host(m.xp.all(order[1:] > order[:-1])))


# -- vectors ---------------------------------------------------------------------------------

def _gather(g, u, requests, size, bounds):
    """The vector of ``size`` positions split by ``bounds`` whose position r (of member k's
    block) holds u's entry at position t, for each (r, t) of ``requests[k]`` (local r, global
    t) where u has one."""
    picks = g.each(lambda k, m: g.split_unsorted(k, requests[k][1], u.bounds))
    asks = g.each(lambda k, m: [(requests[k][0][pick], requests[k][1][pick] - INDEX(u.bounds[d]))
                                for d, pick in enumerate(picks[k])])
    received = g.exchange(asks)

    def answer(d, m):
        part = u.parts[d]
        idx, vals = part.indices, part.values
        out = []
        for r, t in received[d]:
            found, at = _lookup(m.xp, idx, t)
            out.append((r[found], vals[at[found]]))
        return out

    back = g.exchange(g.each(answer))

    def assemble(k, m):
        r, v = (_cat(m, [got[a] for got in back[k]]) for a in (0, 1))
        order = m.xp.argsort(r)
        return SparseVector(block_length(bounds, k), u.dtype, r[order], v[order])

    return g.vector(size, u.dtype, g.each(assemble), bounds)


def gather_vector(g, u, I):
    """w[i] = u[I[i]] for the entries i of I whose position u holds; w is split like I."""
    requests = g.each(lambda k, m: (I.parts[k].indices,
                                    I.parts[k].values.astype(INDEX, copy=False)))
    return _gather(g, u, requests, I.size, I.bounds)


def extract_vector(g, u, index):
    if index.kind == "all":
        return u
    positions = index_array(index)
    bounds = g.layout(index.count)
    requests = g.each(lambda k, m: (
        m.xp.arange(block_length(bounds, k), dtype=INDEX),
        m.from_host(positions[bounds[k]:bounds[k + 1]].astype(INDEX, copy=False))))
    return _gather(g, u, requests, index.count, bounds)


def scatter_vector(g, I, u, size, dtype, dup_op):
    """T[I[i]] = u[i] for the i where I and u have entries: the (target, value) pairs go to
    the owners of the targets, each of which builds its block as one device builds the whole
    (``vector_from_coo`` folding repeated targets in the order received, the order of i)."""
    u = g.aligned(u, I.bounds)
    bounds = g.layout(size)

    def pairs(k, m):
        Ik, uk = I.parts[k], u.parts[k]
        found, at = _lookup(m.xp, uk.indices, Ik.indices)
        targets = Ik.values[found].astype(INDEX, copy=False)
        vals = uk.values[at[found]]
        return [(targets[pick] - INDEX(bounds[d]), vals[pick])
                for d, pick in enumerate(g.split_unsorted(k, targets, bounds))]

    received = g.exchange(g.each(pairs))

    def build(d, m):
        targets, vals = (_cat(m, [got[a] for got in received[d]]) for a in (0, 1))
        return m.vector_from_coo(block_length(bounds, d), dtype, targets, vals, dup_op)

    return g.vector(size, dtype, g.each(build), bounds)


def vector_as_row(g, v):
    """v as a 1 x n matrix: its entries gathered by the member that owns the one row."""
    bounds = g.layout(1)
    owner = int(np.searchsorted(bounds, 0, side="right")) - 1

    def send(k, m):
        idx = v.parts[k].indices + INDEX(v.bounds[k])
        vals = v.parts[k].values
        return [(idx, vals) if d == owner else (idx[:0], vals[:0]) for d in range(g.size)]

    received = g.exchange(g.each(send))

    def build(k, m):
        if k != owner:
            return m.matrix_empty(0, v.size, v.dtype)
        idx, vals = (_cat(m, [got[a] for got in received[k]]) for a in (0, 1))
        indptr = m.from_host(np.array([0, idx.shape[0]], dtype=INDEX))
        return CSR(1, v.size, v.dtype, indptr, idx, vals)

    return g.matrix(1, v.size, v.dtype, g.each(build), bounds)


def matrix_row_as_vector(g, A):
    """A 1 x n matrix as a vector: the row's entries sent to the owners of their positions."""
    bounds = g.layout(A.ncols)

    def send(k, m):
        idx, vals = A.parts[k].indices, A.parts[k].values
        return [(idx[lo:hi] - INDEX(bounds[d]), vals[lo:hi])
                for d, (lo, hi) in enumerate(g.split_sorted(k, idx, bounds))]

    received = g.exchange(g.each(send))
    return g.vector(A.ncols, A.dtype, g.each(lambda d, m: SparseVector(
        block_length(bounds, d), A.dtype, *(_cat(m, [got[a] for got in received[d]])
                                            for a in (0, 1)))), bounds)


# -- matrices --------------------------------------------------------------------------------

def fetch_rows(g, A, wanted, cols):
    """For every member k, the rows ``wanted[k]`` of A (global row ids on member k, in any
    order, repeats allowed) in that order, their columns chosen by ``cols``: a CSR of
    ``len(wanted[k])`` rows and ``cols.count`` columns on member k."""
    picks = g.each(lambda k, m: g.split_unsorted(k, wanted[k], A.bounds))
    asks = g.each(lambda k, m: [(wanted[k][pick] - INDEX(A.bounds[d]),)
                                for d, pick in enumerate(picks[k])])
    received = g.exchange(asks)

    def answer(d, m):
        ids = [got[0] for got in received[d]]
        counts = [int(i.shape[0]) for i in ids]
        total = sum(counts)
        if total == 0:
            block = m.matrix_empty(0, cols.count, A.dtype)
        else:
            rows = IndexArg("list", total, block_length(A.bounds, d),
                            array=m.to_host(_cat(m, ids)))
            block = m.extract_matrix(A.parts[d], rows, cols)
        ptr = m.to_host(block.indptr)
        out, first = [], 0
        for count in counts:
            last = first + count
            lo, hi = int(ptr[first]), int(ptr[last])
            out.append((m.xp.diff(block.indptr[first:last + 1]), block.indices[lo:hi],
                        block.values[lo:hi]))
            first = last
        return out

    back = g.exchange(g.each(answer))

    def assemble(k, m):
        xp = m.xp
        lengths, indices, values = (_cat(m, [got[a] for got in back[k]]) for a in (0, 1, 2))
        n = int(lengths.shape[0])
        indptr = xp.zeros(n + 1, dtype=INDEX)
        indptr[1:] = xp.cumsum(lengths)
        rows = CSR(n, cols.count, A.dtype, indptr, indices, values)
        order = _cat(m, picks[k])  # the request each row answers
        if _in_order(m, order):
            return rows
        inverse = xp.empty_like(order)
        inverse[order] = xp.arange(n, dtype=order.dtype)
        return m.extract_matrix(rows, IndexArg("list", n, n, array=m.to_host(inverse)),
                                IndexArg("all", cols.count, cols.count))

    return g.each(assemble)


def extract_matrix(g, A, rows, cols):
    """A(I, J): each member's rows of the result fetched from their owners; the result's rows
    split by the layout of their count (A's own split when every row is taken)."""
    if rows.kind == "all":
        return g.matrix(A.nrows, cols.count, A.dtype, g.each(lambda k, m: m.extract_matrix(
            A.parts[k], IndexArg("all", block_length(A.bounds, k), block_length(A.bounds, k)),
            cols)), A.bounds)
    I = index_array(rows)
    bounds = g.layout(rows.count)
    wanted = g.each(lambda k, m: m.from_host(I[bounds[k]:bounds[k + 1]].astype(INDEX)))
    return g.matrix(rows.count, cols.count, A.dtype, fetch_rows(g, A, wanted, cols), bounds)


# -- assign ----------------------------------------------------------------------------------

def assign_region(g, C, Z, rows, cols):
    """C with the region rows x cols (a vector's: cols) replaced by Z.  The index of the split
    dimension says which member holds each position of the region; Z's entries go there, and
    each member assigns its part of the region with its own backend (where an index repeats,
    the last wins, as the region keeps its order within each part)."""
    vector = isinstance(C, PartitionedVector)
    index = cols if vector else rows
    if index.kind == "all":
        Z = g.aligned(Z, C.bounds)

        def whole(k, m):
            every = IndexArg("all", block_length(C.bounds, k), block_length(C.bounds, k))
            if vector:
                return m.assign_region(C.parts[k], Z.parts[k], None, every)
            return m.assign_region(C.parts[k], Z.parts[k], every, cols)

        return g.like(C, g.each(whole))
    positions = index_array(index)
    owner = np.searchsorted(C.bounds, positions, side="right") - 1
    picked = [np.flatnonzero(owner == k) for k in range(g.size)]  # the region's parts
    rank = np.empty(index.count, dtype=INDEX)  # a region position's place in its part
    for part in picked:
        rank[part] = np.arange(part.shape[0], dtype=INDEX)

    def send(z, m):
        first, last = int(Z.bounds[z]), int(Z.bounds[z + 1])
        dest, at = m.from_host(owner[first:last]), m.from_host(rank[first:last])
        if vector:
            r = Z.parts[z].indices
            fields = (Z.parts[z].values,)
        else:
            r, c, v = m.matrix_to_coo(Z.parts[z])
            fields = (c, v)
        to, place = dest[r], at[r]
        return [(place[sel],) + tuple(f[sel] for f in fields)
                for sel in (m.xp.flatnonzero(to == d) for d in range(g.size))]

    received = g.exchange(g.each(send))

    def assign(k, m):
        count = int(picked[k].shape[0])
        if count == 0:
            return C.parts[k]
        local = IndexArg("list", count, block_length(C.bounds, k),
                         array=positions[picked[k]] - C.bounds[k])
        got = [_cat(m, [item[a] for item in received[k]]) for a in range(len(received[k][0]))]
        if vector:
            return m.assign_region(C.parts[k], SparseVector(count, Z.dtype, *got), None, local)
        region = m.matrix_from_coo(count, Z.ncols, Z.dtype, got[0], got[1], got[2], None)
        return m.assign_region(C.parts[k], region, local, cols)

    return g.like(C, g.each(assign))
