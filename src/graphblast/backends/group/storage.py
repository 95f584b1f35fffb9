"""Partitioned storage: a matrix's rows, or a vector's positions, in contiguous blocks, one
block per member of a device group.

``bounds`` (a host int64 array of ``p + 1`` entries) says which: block ``k`` holds rows (or
positions) ``bounds[k]`` to ``bounds[k + 1] - 1``.  Each block is the member backend's own
storage in *local* coordinates: a :class:`CSR` of the block's rows with global column ids, a
vector of the block's length with indices counted from ``bounds[k]``.  The member's primitives
then run on their block unchanged; only operators that read positions (``rowindex``,
``tril``, ``firsti`` ...) see a block in global coordinates (see :func:`rows_to_global`).

The core reads a few arrays of storage directly (``to_coo``, ``get``, printing): for those the
classes below answer ``indptr``, ``indices`` and ``values`` as host arrays of the whole object,
gathered once through the group's communicator and kept (storage is immutable).
"""

import numpy as np

from ..base import CSR, SparseVector

INDEX = np.int64


def positional_bounds(n, p):
    """``p`` blocks of ``n`` positions, as equal as can be."""
    return (np.arange(p + 1, dtype=INDEX) * INDEX(n)) // INDEX(p)


def balanced_bounds(indptr, p):
    """Row blocks balanced by entry count: block ``k`` starts at the first row where the
    prefix sum of the row lengths (``indptr``) reaches ``k * nnz / p``.  Rows without entries
    are split by position."""
    n = indptr.shape[0] - 1
    nnz = int(indptr[-1])
    if nnz == 0:
        return positional_bounds(n, p)
    targets = -(-np.arange(1, p, dtype=INDEX) * INDEX(nnz) // INDEX(p))  # ceil(k nnz / p)
    cuts = np.searchsorted(indptr, targets, side="left").astype(INDEX)
    return np.concatenate([[0], cuts, [n]]).astype(INDEX)


def block_length(bounds, k):
    return int(bounds[k + 1] - bounds[k])


def same_bounds(a, b):
    return a is b or np.array_equal(a, b)


class PartitionedVector(SparseVector):
    """A vector of ``size`` positions split by ``bounds``: ``parts[k]`` is member ``k``'s
    vector of its block."""

    __slots__ = ("parts", "bounds", "group", "_host")

    def __init__(self, size, dtype, parts, bounds, group):
        self.size = size
        self.dtype = dtype
        self.parts = parts
        self.bounds = bounds
        self.group = group  # the GroupBackend, which gathers the host view
        self._host = None

    @property
    def nvals(self):
        return sum(int(part.nvals) for part in self.parts)

    def _host_arrays(self):
        if self._host is None:
            self._host = self.group.host_vector(self)
        return self._host

    @property
    def indices(self):
        return self._host_arrays()[0]

    @property
    def values(self):
        return self._host_arrays()[1]

    def arrays(self):
        return [arr for part in self.parts for arr in part.arrays()]

    def __repr__(self):
        return (f"PartitionedVector({self.size}, {self.dtype}, nvals={self.nvals}, "
                f"partitions={len(self.parts)})")


class PartitionedCSR(CSR):
    """A matrix whose rows are split by ``bounds``: ``parts[k]`` is member ``k``'s CSR of its
    rows (global column ids).  ``col_bounds`` are the blocks of the column dimension: where
    ``u' A`` puts its result and how the transpose's rows are split.  A square matrix's are
    its row bounds, so that its transpose, and the vectors of either dimension, line up with
    its rows."""

    __slots__ = ("parts", "bounds", "col_bounds", "group", "_host")

    def __init__(self, nrows, ncols, dtype, parts, bounds, col_bounds, group):
        self.nrows = nrows
        self.ncols = ncols
        self.dtype = dtype
        self.parts = parts
        self.bounds = bounds
        self.col_bounds = bounds if nrows == ncols else col_bounds
        self.group = group
        self._host = None
        self._transpose = None
        self._view = None
        self._stats = None
        self._plans = None
        self.symmetric = False

    @property
    def nvals(self):
        return sum(int(part.nvals) for part in self.parts)

    def _host_arrays(self):
        if self._host is None:
            self._host = self.group.host_csr(self)
        return self._host

    @property
    def indptr(self):
        return self._host_arrays()[0]

    @property
    def indices(self):
        return self._host_arrays()[1]

    @property
    def values(self):
        return self._host_arrays()[2]

    def arrays(self):
        """Every member's arrays, with the transposes and traversal forms members cached on
        their blocks."""
        out = []
        for part in self.parts:
            out += part.arrays()
            for cached in (part._transpose, part._view):
                if cached is not None:
                    out += cached.arrays()
        return out

    def __repr__(self):
        return (f"PartitionedCSR({self.nrows}x{self.ncols}, {self.dtype}, nvals={self.nvals}, "
                f"partitions={len(self.parts)})")


# -- a block in global coordinates, for operators that read positions ------------------------

def reads_positions(op):
    """Whether ``op``'s result depends on the position of an entry (``rowindex``, ``tril``,
    ``firsti`` ...; every index-unary operator but the ``value*`` comparisons).  Such an
    operator is given its blocks in global coordinates."""
    if getattr(op, "position", None) is not None:
        return True
    if getattr(op, "opclass", None) == "IndexUnaryOp":
        from ...ops import indexunary as iu

        return op.parent not in (iu.valueeq, iu.valuene, iu.valuegt, iu.valuege, iu.valuelt,
                                 iu.valuele)
    return False


def vector_to_global(v, start, size):
    """Block ``v`` (local indices from ``start``) as a vector of ``size`` positions."""
    return SparseVector(size, v.dtype, v.indices + INDEX(start), v.values)


def vector_to_local(xp, v, start, stop, member):
    """The positions ``start`` to ``stop - 1`` of ``v`` (global indices) as a block."""
    lo, hi = (int(x) for x in member.to_host(
        xp.searchsorted(v.indices, xp.asarray([start, stop], dtype=v.indices.dtype))))
    return SparseVector(stop - start, v.dtype, v.indices[lo:hi] - INDEX(start),
                        v.values[lo:hi])


def rows_to_global(xp, A, start, nrows):
    """Row block ``A`` (its first row is row ``start``) as a matrix of ``nrows`` rows, the
    others empty.  It shares the block's arrays as they are stored (32-bit indices, no value
    array for a pattern), so that what the operation widens is this view's, not the block's."""
    before = xp.zeros(start, dtype=INDEX)
    after = xp.full(nrows - start - A.nrows, A.nvals, dtype=INDEX)
    indptr = xp.concatenate([before, A.indptr.astype(INDEX, copy=False), after])
    iso = A.pattern_value
    return CSR(nrows, A.ncols, A.dtype, indptr, A.stored_indices,
               None if iso is not None else A.values, iso_value=iso)


def rows_to_local(xp, A, start, stop, member):
    """Rows ``start`` to ``stop - 1`` of ``A`` as a row block."""
    ptr = A.indptr[start:stop + 1]
    lo, hi = (int(x) for x in member.to_host(ptr[xp.asarray([0, -1])]))
    return CSR(stop - start, A.ncols, A.dtype, ptr - INDEX(lo), A.indices[lo:hi],
               A.values[lo:hi])
