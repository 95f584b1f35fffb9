"""The group backend: every primitive of ``backends/base.py`` over partitioned storage.

Each member of the group computes on its own block with its own backend (the CPU backend for
``cpu:`` partitions, the CUDA backend of its GPU for ``cuda:``); what crosses blocks goes
through the communicator (``comm.py``).  The products are in ``products.py``, extract, assign,
gather and scatter in ``indexing.py``; this module has storage, the element-wise operations,
apply, select, the reductions and the masked write-back, which are local once their operands
share boundaries, and the helpers the others share.

Boundaries (docs/distributed.md, "Placement"): a matrix built from data splits its rows by
entry count, and its boundaries become the group's *layout* of that dimension; any other new
object of a dimension takes the layout (by position where no matrix of that dimension was
placed), and results keep their operands' boundaries.  Two operands with different boundaries
are brought together by repartitioning the second (an alltoallv, counted): it never happens
between a matrix and the vectors made for it.
"""

import functools

import numpy as np

from ..base import CSR, Backend, MaskArg, SparseVector
from ..cpu import backend as cpu
from ..cpu._util import row_ids
from . import indexing, products
from .devices import device_scope
from .storage import (INDEX, PartitionedCSR, PartitionedVector, balanced_bounds, block_length,
                      positional_bounds, reads_positions, rows_to_global, rows_to_local,
                      same_bounds, vector_to_global, vector_to_local)


def counted(fn):
    """``fn(group, ...)`` as a primitive whose communication is counted, and logged, under
    its own name."""
    @functools.wraps(fn)
    def primitive(self, *args, **kwargs):
        with self.comm.operation(fn.__name__):
            return fn(self, *args, **kwargs)
    return primitive


def to_numpy(array):
    """A host array with the contents of a host or GPU array."""
    if hasattr(array, "__cuda_array_interface__"):
        return array.get()
    return np.asarray(array)


def _entries(part):
    """A block's arrays as ``Collection._entries`` gives an object's."""
    if isinstance(part, CSR):
        return part.indptr, part.indices, part.values
    return part.indices, part.values


class GroupBackend(Backend):
    """The primitives over the members ``members`` (one backend each) of the group ``name``,
    exchanging through ``comm``."""

    xp = np  # what the core reads of a group's storage are host arrays (see storage.py)

    def __init__(self, name, members, comm):
        self.name = name
        self.members = members
        self.comm = comm
        self.size = len(members)
        self._layouts = {}

    def __repr__(self):
        return f"GroupBackend({self.name})"

    # -- running on the members ------------------------------------------------------------
    def scope(self, k):
        return device_scope(self.members[k])

    def each(self, fn):
        """``[fn(k, member) for every member]``, each on its member's device."""
        out = []
        for k, member in enumerate(self.members):
            with self.scope(k):
                out.append(fn(k, member))
        return out

    def exchange(self, buckets):
        """One alltoallv per array: ``buckets[src][dst]`` is a tuple of arrays on member
        ``src``; the answer's ``[dst][src]`` is that tuple on member ``dst``."""
        p = self.size
        count = len(buckets[0][0])
        moved = [self.comm.alltoallv([[buckets[s][d][a] for d in range(p)] for s in range(p)])
                 for a in range(count)]
        return [[tuple(moved[a][d][s] for a in range(count)) for s in range(p)]
                for d in range(p)]

    def split_sorted(self, k, idx, bounds):
        """(lo, hi) of the slice of member ``k``'s sorted global positions ``idx`` that falls
        in each block of ``bounds``."""
        m = self.members[k]
        cuts = m.to_host(m.xp.searchsorted(idx, m.from_host(bounds)))
        return [(int(cuts[d]), int(cuts[d + 1])) for d in range(self.size)]

    def split_unsorted(self, k, idx, bounds):
        """For member ``k``'s global positions ``idx`` (any order): the positions in ``idx`` of
        those in each block of ``bounds``, in their order."""
        m = self.members[k]
        xp = m.xp
        owner = xp.searchsorted(m.from_host(bounds), idx, side="right") - 1
        return [xp.flatnonzero(owner == d) for d in range(self.size)]

    # -- boundaries and partitioned objects ----------------------------------------------------
    def layout(self, n):
        """The boundaries new objects of dimension ``n`` take."""
        bounds = self._layouts.get(n)
        return bounds if bounds is not None else positional_bounds(n, self.size)

    def vector(self, size, dtype, parts, bounds):
        return PartitionedVector(size, dtype, parts, bounds, self)

    def matrix(self, nrows, ncols, dtype, parts, bounds, col_bounds=None):
        if col_bounds is None:
            col_bounds = self.layout(ncols)
        return PartitionedCSR(nrows, ncols, dtype, parts, bounds, col_bounds, self)

    def like(self, x, parts):
        """New blocks ``parts`` split as ``x`` is (their type is the result's)."""
        dtype = parts[0].dtype
        if isinstance(x, PartitionedVector):
            return self.vector(x.size, dtype, parts, x.bounds)
        return self.matrix(x.nrows, x.ncols, dtype, parts, x.bounds, x.col_bounds)

    def place_matrix(self, host):
        """A CSR on the members, its rows split by entry count; the split becomes the
        layout of its row dimension.  A CSR on a GPU placed on GPUs is copied GPU to GPU
        (:meth:`place_from_gpu`); anything else goes through host memory."""
        if _on_gpu(host.indptr) and all(_gpu_of(m) is not None for m in self.members):
            return self.place_from_gpu(host)
        indptr = to_numpy(host.indptr).astype(INDEX, copy=False)
        indices, values = to_numpy(host.indices), to_numpy(host.values)
        bounds = balanced_bounds(indptr, self.size)
        self._layouts[host.nrows] = bounds

        def block(k, m):
            first, last = int(bounds[k]), int(bounds[k + 1])
            lo, hi = int(indptr[first]), int(indptr[last])
            return CSR(last - first, host.ncols, host.dtype,
                       m.from_host(indptr[first:last + 1] - INDEX(lo)),
                       m.from_host(indices[lo:hi]), m.from_host(values[lo:hi]))

        A = self.matrix(host.nrows, host.ncols, host.dtype, self.each(block), bounds)
        A.symmetric = host.symmetric
        return A

    def place_from_gpu(self, src):
        """A CSR on one GPU on the group's GPUs, copied GPU to GPU (peer copies over NVLink
        where there is one): the same row split as through the host, and a compact matrix
        (32-bit indices, one value for every entry) stays compact on every member.  The
        source may be freed afterwards: every copy has finished when this returns."""
        import cupy as cp

        p = self.size
        with cp.cuda.Device(src.indptr.device.id):
            indptr = src.indptr.astype(INDEX, copy=False)
            nnz = int(indptr[-1])
            if nnz == 0:
                bounds = positional_bounds(src.nrows, p)
            else:  # balanced_bounds, on the device (the host would need all of indptr)
                targets = -(-np.arange(1, p, dtype=INDEX) * INDEX(nnz) // INDEX(p))
                cuts = cp.searchsorted(indptr, cp.asarray(targets), side="left").get()
                bounds = np.concatenate([[0], cuts, [src.nrows]]).astype(INDEX)
            starts = indptr[cp.asarray(bounds)].get()
            # what made src is finished before another GPU's stream reads it
            cp.cuda.get_current_stream().synchronize()
        indices = src.stored_indices
        values = src.values if src.has_values else None

        def copy(array):
            out = cp.empty(array.shape, dtype=array.dtype)
            if array.size:
                out.data.copy_from_device_async(array.data, array.nbytes)
            return out

        def block(k, m):
            first, last = int(bounds[k]), int(bounds[k + 1])
            lo, hi = int(starts[k]), int(starts[k + 1])
            ptr = copy(indptr[first:last + 1])
            ptr -= INDEX(lo)
            return CSR(last - first, src.ncols, src.dtype, ptr, copy(indices[lo:hi]),
                       None if values is None else copy(values[lo:hi]),
                       iso_value=src.iso_value if values is None else None)

        parts = self.each(block)
        self.synchronize()  # the copies are done before src's memory can be reused
        self._layouts[src.nrows] = bounds
        A = self.matrix(src.nrows, src.ncols, src.dtype, parts, bounds)
        A.symmetric = src.symmetric
        return A

    def place_blocks(self, nrows, ncols, dtype, parts, bounds, symmetric=False):
        """A matrix from blocks already on the members (``parts[k]``: a CSR of rows
        ``bounds[k]`` to ``bounds[k + 1] - 1`` on member k, global column ids), as a
        generator that builds each member's rows where they live makes one; ``bounds``
        become the layout of the row dimension."""
        bounds = np.asarray(bounds, dtype=INDEX)
        if len(parts) != self.size or bounds.shape != (self.size + 1,) or bounds[0] != 0 \
                or bounds[-1] != nrows or np.any(np.diff(bounds) < 0):
            raise ValueError(f"{self.name}: {len(parts)} blocks with boundaries {bounds} do "
                             f"not split {nrows} rows over {self.size} members")
        for k, part in enumerate(parts):
            if part.nrows != block_length(bounds, k) or part.ncols != ncols:
                raise ValueError(f"{self.name}: block {k} is {part.nrows}x{part.ncols}, not "
                                 f"{block_length(bounds, k)}x{ncols}")
            where = _gpu_of(self.members[k])
            on = getattr(getattr(part.indptr, "data", None), "device_id", None)
            if where is not None and on is not None and on != where:
                raise ValueError(f"{self.name}: block {k} is on cuda:{on}, not cuda:{where}")
        self._layouts[nrows] = bounds
        A = self.matrix(nrows, ncols, dtype, list(parts), bounds)
        A.symmetric = bool(symmetric)
        return A

    def place_vector(self, host):
        """A host vector on the members, split by the layout of its size."""
        indices, values = to_numpy(host.indices), to_numpy(host.values)
        bounds = self.layout(host.size)
        cuts = np.searchsorted(indices, bounds)

        def block(k, m):
            lo, hi = int(cuts[k]), int(cuts[k + 1])
            return SparseVector(block_length(bounds, k), host.dtype,
                                m.from_host(indices[lo:hi] - bounds[k]),
                                m.from_host(values[lo:hi]))

        return self.vector(host.size, host.dtype, self.each(block), bounds)

    def aligned(self, x, bounds):
        """``x`` split by ``bounds``: itself when it is, else repartitioned (an alltoallv)."""
        if same_bounds(x.bounds, bounds):
            return x
        if isinstance(x, PartitionedVector):
            def send(k, m):
                part = x.parts[k]
                idx = part.indices + INDEX(x.bounds[k])
                return [(idx[lo:hi] - INDEX(bounds[d]), part.values[lo:hi])
                        for d, (lo, hi) in enumerate(self.split_sorted(k, idx, bounds))]

            received = self.exchange(self.each(send))

            def build(d, m):
                idx, vals = (m.xp.concatenate([got[a] for got in received[d]]) for a in (0, 1))
                return SparseVector(block_length(bounds, d), x.dtype, idx, vals)

            return self.vector(x.size, x.dtype, self.each(build), bounds)

        def send_rows(k, m):
            rows, cols, vals = m.matrix_to_coo(x.parts[k])
            rows = rows + INDEX(x.bounds[k])
            return [(rows[lo:hi] - INDEX(bounds[d]), cols[lo:hi], vals[lo:hi])
                    for d, (lo, hi) in enumerate(self.split_sorted(k, rows, bounds))]

        received = self.exchange(self.each(send_rows))

        def build_rows(d, m):
            rows, cols, vals = (m.xp.concatenate([got[a] for got in received[d]])
                                for a in (0, 1, 2))
            return m.matrix_from_coo(block_length(bounds, d), x.ncols, x.dtype, rows, cols,
                                     vals, None)

        out = self.matrix(x.nrows, x.ncols, x.dtype, self.each(build_rows), bounds,
                          x.col_bounds)
        out.symmetric = x.symmetric
        return out

    def mask_parts(self, mask, bounds):
        """The mask's block for each member, its storage split by ``bounds``."""
        if mask is None:
            return [None] * self.size
        data = self.aligned(mask.data, bounds)
        return [MaskArg(part, mask.structural, mask.complement) for part in data.parts]

    def blockwise(self, k, ref, positional, fn, *blocks):
        """``fn(*blocks)`` for member ``k``'s blocks of objects split as ``ref``; when
        ``positional``, ``fn`` sees them, and returns its result, in global coordinates."""
        if not positional:
            return fn(*blocks)
        m = self.members[k]
        start, stop = int(ref.bounds[k]), int(ref.bounds[k + 1])
        if isinstance(ref, PartitionedVector):
            out = fn(*(vector_to_global(b, start, ref.size) for b in blocks))
            return vector_to_local(m.xp, out, start, stop, m)
        out = fn(*(rows_to_global(m.xp, b, start, ref.nrows) for b in blocks))
        return rows_to_local(m.xp, out, start, stop, m)

    # -- gathered forms --------------------------------------------------------------------
    def allgather_vector(self, u):
        """``u`` whole on every member (its values only, when it has every position: then
        a GPU member gets it in its full format, without an index array)."""
        if u.nvals == u.size:
            values = self.comm.allgather(self.each(lambda k, m: _all_values(u.parts[k])))
            return self.each(lambda k, m: _complete(m, u.size, u.dtype, values[k]))
        indices = self.comm.allgather(self.each(
            lambda k, m: u.parts[k].indices + INDEX(u.bounds[k])))
        values = self.comm.allgather(self.each(lambda k, m: u.parts[k].values))
        return [SparseVector(u.size, u.dtype, indices[k], values[k]) for k in range(self.size)]

    def allgather_matrix(self, B):
        """``B`` whole, as one CSR, on every member."""
        lengths = self.comm.allgather(self.each(lambda k, m: m.xp.diff(B.parts[k].indptr)))
        indices = self.comm.allgather(self.each(lambda k, m: B.parts[k].indices))
        values = self.comm.allgather(self.each(lambda k, m: B.parts[k].values))

        def build(k, m):
            indptr = m.xp.zeros(B.nrows + 1, dtype=INDEX)
            indptr[1:] = m.xp.cumsum(lengths[k])
            return CSR(B.nrows, B.ncols, B.dtype, indptr, indices[k], values[k])

        return self.each(build)

    def fold_to_owners(self, partials, bounds, size, semiring):
        """Each member's products (``partials[k]``: a vector of ``size`` positions, global
        indices) sent to the owners of their positions, which fold what they receive with the
        semiring's monoid."""
        def send(k, m):
            part = partials[k]
            idx, vals = part.indices, part.values
            return [(idx[lo:hi] - INDEX(bounds[d]), vals[lo:hi])
                    for d, (lo, hi) in enumerate(self.split_sorted(k, idx, bounds))]

        received = self.exchange(self.each(send))

        def fold(d, m):
            idx, vals = (m.xp.concatenate([got[a] for got in received[d]]) for a in (0, 1))
            return m.vector_from_coo(block_length(bounds, d), semiring.return_type, idx, vals,
                                     semiring.monoid.binaryop)

        return self.vector(size, semiring.return_type, self.each(fold), bounds)

    def host_vector(self, v):
        """(indices, values) of ``v`` as read-only host arrays."""
        with self.comm.operation("to_host"):
            indices = self.comm.gather_to_host(self.each(
                lambda k, m: v.parts[k].indices + INDEX(v.bounds[k])))
            values = self.comm.gather_to_host(self.each(lambda k, m: v.parts[k].values))
        return _read_only(indices.astype(INDEX, copy=False), values)

    def host_csr(self, A):
        """(indptr, indices, values) of ``A`` as read-only host arrays."""
        with self.comm.operation("to_host"):
            lengths = self.comm.gather_to_host(self.each(
                lambda k, m: m.xp.diff(A.parts[k].indptr)))
            indices = self.comm.gather_to_host(self.each(lambda k, m: A.parts[k].indices))
            values = self.comm.gather_to_host(self.each(lambda k, m: A.parts[k].values))
        indptr = np.zeros(A.nrows + 1, dtype=INDEX)
        np.cumsum(lengths, out=indptr[1:])
        return _read_only(indptr, indices.astype(INDEX, copy=False), values)

    # -- storage ---------------------------------------------------------------------------
    def adopt(self, data, owner):
        """Storage built outside the group (io, generators) is placed on it here."""
        if isinstance(data, (PartitionedCSR, PartitionedVector)):
            return data
        if isinstance(data, CSR):
            return self.place_matrix(data)
        return self.place_vector(data)

    def matrix_empty(self, nrows, ncols, dtype):
        bounds = self.layout(nrows)
        return self.matrix(nrows, ncols, dtype, self.each(
            lambda k, m: m.matrix_empty(block_length(bounds, k), ncols, dtype)), bounds)

    def matrix_from_coo(self, nrows, ncols, dtype, rows, cols, values, dup_op):
        """Built and checked on the host (the CPU backend's rules and errors), then placed."""
        return self.place_matrix(cpu.matrix_from_coo(nrows, ncols, dtype, to_numpy(rows),
                                                     to_numpy(cols), to_numpy(values), dup_op))

    def matrix_from_csr(self, nrows, ncols, dtype, indptr, indices, values):
        return self.place_matrix(cpu.matrix_from_csr(nrows, ncols, dtype, to_numpy(indptr),
                                                     to_numpy(indices), to_numpy(values)))

    def matrix_to_coo(self, A):
        """Host arrays: what the core asks for to read the matrix."""
        indptr, indices, values = self.host_csr(A)
        return row_ids(indptr, A.nrows), indices, values

    def vector_empty(self, size, dtype):
        bounds = self.layout(size)
        return self.vector(size, dtype, self.each(
            lambda k, m: m.vector_empty(block_length(bounds, k), dtype)), bounds)

    def vector_from_coo(self, size, dtype, indices, values, dup_op):
        return self.place_vector(cpu.vector_from_coo(size, dtype, to_numpy(indices),
                                                     to_numpy(values), dup_op))

    @staticmethod
    def to_host(array):
        return to_numpy(array)

    @staticmethod
    def from_host(array):
        return np.asarray(array)

    def vector_full(self, size, value, dtype):
        bounds = self.layout(size)
        return self.vector(size, dtype, self.each(
            lambda k, m: m.vector_full(block_length(bounds, k), value, dtype)), bounds)

    def matrix_full(self, nrows, ncols, value, dtype):
        bounds = self.layout(nrows)
        return self.matrix(nrows, ncols, dtype, self.each(
            lambda k, m: m.matrix_full(block_length(bounds, k), ncols, value, dtype)), bounds)

    def full_like_pattern(self, data, value, dtype):
        return self.like(data, self.each(
            lambda k, m: m.full_like_pattern(data.parts[k], value, dtype)))

    def cast_matrix(self, A, dtype):
        return self.like(A, self.each(lambda k, m: m.cast_matrix(A.parts[k], dtype)))

    def cast_vector(self, v, dtype):
        return self.like(v, self.each(lambda k, m: m.cast_vector(v.parts[k], dtype)))

    def vector_as_column(self, v):
        return self.matrix(v.size, 1, v.dtype, self.each(
            lambda k, m: m.vector_as_column(v.parts[k])), v.bounds)

    def matrix_column_as_vector(self, A):
        return self.vector(A.nrows, A.dtype, self.each(
            lambda k, m: m.matrix_column_as_vector(A.parts[k])), A.bounds)

    vector_as_row = counted(indexing.vector_as_row)
    matrix_row_as_vector = counted(indexing.matrix_row_as_vector)
    transpose = counted(products.transpose)

    # -- computation -----------------------------------------------------------------------
    mxm = counted(products.mxm)
    mxv = counted(products.mxv)
    vxm = counted(products.vxm)
    kronecker = counted(products.kronecker)

    def _ewise(self, A, B, op, method, *args):
        B = self.aligned(B, A.bounds)
        positional = reads_positions(op)
        return self.like(A, self.each(lambda k, m: self.blockwise(
            k, A, positional, lambda a, b: getattr(m, method)(a, b, op, *args),
            A.parts[k], B.parts[k])))

    @counted
    def ewise_add(self, A, B, op, out_dtype=None):
        return self._ewise(A, B, op, "ewise_add", out_dtype)

    @counted
    def ewise_mult(self, A, B, op):
        return self._ewise(A, B, op, "ewise_mult")

    @counted
    def ewise_union(self, A, B, op, left_default, right_default):
        return self._ewise(A, B, op, "ewise_union", left_default, right_default)

    def apply(self, A, op, left=None, right=None, thunk=None):
        positional = reads_positions(op)
        return self.like(A, self.each(lambda k, m: self.blockwise(
            k, A, positional, lambda a: m.apply(a, op, left=left, right=right, thunk=thunk),
            A.parts[k])))

    def select(self, A, op, thunk):
        # a column bound reads no row position, and a block's columns are global: each block
        # selects from itself as it is stored (a compact block stays compact: CC's sample)
        positional = reads_positions(op) and op.parent.builtin_name not in ("colle", "colgt")
        return self.like(A, self.each(lambda k, m: self.blockwise(
            k, A, positional, lambda a: m.select(a, op, thunk), A.parts[k])))

    def reduce_rowwise(self, A, monoid):
        return self.vector(A.nrows, monoid.return_type, self.each(
            lambda k, m: m.reduce_rowwise(A.parts[k], monoid)), A.bounds)

    @counted
    def reduce_scalar(self, A, monoid):
        """Each member reduces its block; the partial results (host scalars, as every
        backend's reduce_scalar gives them) are folded in member order."""
        partials = [x for x in self.each(lambda k, m: m.reduce_scalar(A.parts[k], monoid))
                    if x is not None]
        self.comm.record(len(partials), sum(np.asarray(x).nbytes for x in partials))
        if not partials:
            return None
        result = partials[0]
        with np.errstate(all="ignore"):  # IEEE results are GraphBLAS's, as on one device
            for x in partials[1:]:
                result = monoid.np_func(np.asarray([result]), np.asarray([x]))[0]
        return result

    extract_matrix = counted(indexing.extract_matrix)
    extract_vector = counted(indexing.extract_vector)
    assign_region = counted(indexing.assign_region)
    gather_vector = counted(indexing.gather_vector)
    scatter_vector = counted(indexing.scatter_vector)

    # -- write-back and comparison ---------------------------------------------------------
    @counted
    def mask_write(self, C, Z, mask, replace):
        if mask is None:
            return Z
        Z = self.aligned(Z, C.bounds)
        masks = self.mask_parts(mask, C.bounds)
        return self.like(C, self.each(
            lambda k, m: m.mask_write(C.parts[k], Z.parts[k], masks[k], replace)))

    def compare_partitions(self, a, b, match):
        """``Collection.isequal``'s hook: ``match(xp, entries, entries)`` on each member's
        pair of blocks, the answers combined (an allreduce of one flag each)."""
        with self.comm.operation("compare"):
            b = self.aligned(b, a.bounds)
            # equal totals may split differently: then the structures differ
            answers = self.each(lambda k, m: a.parts[k].nvals == b.parts[k].nvals and match(
                m.xp, _entries(a.parts[k]), _entries(b.parts[k])))
            self.comm.record(self.size * (self.size - 1), self.size * (self.size - 1))
        return all(answers)

    def synchronize(self):
        for k, member in enumerate(self.members):
            sync = getattr(member, "synchronize", None)
            if sync is not None:
                with self.scope(k):
                    sync()


def _on_gpu(array):
    return hasattr(array, "__cuda_array_interface__")


def _gpu_of(member):
    """The GPU a member backend computes on, or None for the CPU."""
    return getattr(member, "device_id", None)


def _all_values(part):
    """The values of a block that has every position, in position order: a dense GPU
    format's value array as it is (no sorted list is made of it)."""
    if getattr(part, "format", None) in ("full", "bitmap", "sparse"):  # the GPU's formats
        return part.dense()[1]
    return part.values


def _complete(member, size, dtype, values):
    """A vector of ``size`` positions, all present, with ``values``: the GPU's full format
    (its products read the values alone, and take it for what it is: every row an input),
    a sorted list elsewhere."""
    if _gpu_of(member) is not None:
        from ..cuda.vectors import FullVector

        return FullVector(size, dtype, values)
    return SparseVector(size, dtype, member.xp.arange(size, dtype=INDEX), values)


def _read_only(*arrays):
    for arr in arrays:
        arr.flags.writeable = False
    return arrays
