"""Matrix and its transpose view."""

import numpy as np

from .._memory import host_guarded
from ..dtypes import FP64, lookup_dtype, user_values
from ..exceptions import IndexOutOfBound, InvalidObject, InvalidValue, OutputNotEmpty
from . import operations as ops
from .base import (Collection, as_values, dense_dtype, dense_fill, infer_dtype, next_name,
                   note_made, on_gpu, place, resolve_device, rows_equal)
from .formatting import html_repr, matrix_repr
from .index import resolve_all
from .infix import install as install_infix

_INDEX_OUT = np.uint64  # python-graphblas returns indices as uint64


def _check_dim(name, n):
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(n).__name__}")
    n = int(n)
    if n < 0:
        raise InvalidValue(f"{name} must be non-negative, got {n}")
    if n > 2**60:
        raise InvalidValue(f"{name} = {n} is larger than the maximum 2**60")
    return n


def _diag_offset(k):
    """``diag``'s offset as python-graphblas reads it: an integer (a Scalar's value) that
    fits an INT64."""
    from .scalar import Scalar

    if isinstance(k, Scalar):
        k = k.value
    if not isinstance(k, (int, np.integer, np.bool_)):
        raise TypeError(f"diag: k must be an integer, got {type(k).__name__}")
    k = int(k)
    if not -2**63 <= k < 2**63:
        raise OverflowError(f"diag: k = {k} does not fit an INT64")
    return k


class _MatrixMethods:
    """Expression-building methods shared by Matrix and TransposedMatrix."""

    __slots__ = ()
    ndim = 2

    @property
    def nrows(self):
        return self.shape[0]

    @property
    def ncols(self):
        return self.shape[1]

    def mxm(self, other, op=None):
        """Matrix-matrix product over a semiring (default plus_times)."""
        return ops.mxm(self, other, op)

    def mxv(self, other, op=None):
        """Matrix-vector product ``A (+.x) v`` (default plus_times)."""
        return ops.mxv(self, other, op)

    def kronecker(self, other, op=None):
        """Kronecker product with ``op`` (default times)."""
        return ops.kronecker(self, other, op)

    def reduce_rowwise(self, op=None):
        """A Vector: each row reduced with a monoid (default plus)."""
        return ops.reduce_rowwise(self, _default_monoid(op))

    def reduce_columnwise(self, op=None):
        """A Vector: each column reduced with a monoid (default plus)."""
        return ops.reduce_rowwise(self, _default_monoid(op), columnwise=True)

    def reduce_scalar(self, op=None, *, allow_empty=True):
        """A Scalar: every entry reduced with a monoid; empty, or the identity when
        ``allow_empty`` is False, for a matrix with no entries."""
        return ops.reduce_scalar(self, _default_monoid(op), allow_empty)

    def __getitem__(self, indices):
        res = resolve_all(indices, self.shape, self)
        return ops.Indexed(self, indices, res)

    def _entries(self):
        csr = self._csr()
        # the indices as stored: comparing a compact matrix does not widen them
        return csr.indptr, _stored_indices(csr), _values_view(csr, self._backend.xp)

    def _coo_host(self):
        d = self._csr()
        b = self._backend
        if getattr(d, "parts", None) is not None:  # a matrix split over a group of devices
            rows, cols, vals = b.matrix_to_coo(d)
            return b.to_host(rows), b.to_host(cols), b.to_host(vals)
        # from the arrays as stored, with the rows made on the host: exporting a compact
        # graph (32-bit indices, no values) does not leave wide copies cached on its device
        from ..backends.cpu._util import row_ids

        rows = row_ids(b.to_host(d.indptr), d.nrows)
        return rows, b.to_host(_stored_indices(d)), _host_values(d, b)

    @host_guarded
    def to_coo(self, dtype=None, *, rows=True, columns=True, values=True, sort=True):
        """(rows, columns, values) NumPy arrays in row-major order (indices as uint64, as in
        python-graphblas)."""
        r, c, v = self._coo_host()
        if dtype is not None:
            from ..dtypes import cast

            v = cast(v, lookup_dtype(dtype))
        v = user_values(v, self.dtype if dtype is None else lookup_dtype(dtype))
        return (r.astype(_INDEX_OUT) if rows else None,
                c.astype(_INDEX_OUT) if columns else None,
                v.copy() if values else None)

    @host_guarded
    def to_csr(self, dtype=None, *, sort=True):
        """(indptr, col_indices, values) NumPy arrays."""
        d = self._csr()
        b = self._backend
        v = _host_values(d, b)
        if dtype is not None:
            from ..dtypes import cast

            v = cast(v, lookup_dtype(dtype))
        v = user_values(v, self.dtype if dtype is None else lookup_dtype(dtype))
        # a compact matrix's 32-bit indices are copied as they are and widened on the host
        return (b.to_host(d.indptr).astype(_INDEX_OUT),
                b.to_host(_stored_indices(d)).astype(_INDEX_OUT), v.copy())

    def to_csc(self, dtype=None, *, sort=True):
        """(indptr, row_indices, values) NumPy arrays of the compressed-column form."""
        T = self._backend.transpose(self._csr())
        b = self._backend
        v = b.to_host(T.values)
        if dtype is not None:
            from ..dtypes import cast

            v = cast(v, lookup_dtype(dtype))
        v = user_values(v, self.dtype if dtype is None else lookup_dtype(dtype))
        return (b.to_host(T.indptr).astype(_INDEX_OUT), b.to_host(T.indices).astype(_INDEX_OUT),
                v.copy())

    @host_guarded
    def to_edgelist(self, dtype=None, *, values=True, sort=True):
        """(edges, values): an nvals x 2 array of (row, col) and the values."""
        r, c, v = self.to_coo(dtype)
        return np.column_stack([r, c]), (v if values else None)

    @host_guarded
    def to_dense(self, fill_value=None, dtype=None):
        """A 2-D NumPy array; missing entries take ``fill_value`` (required unless full)."""
        r, c, v = self._coo_host()
        dt, fill = dense_fill(self, fill_value, dtype)
        from ..dtypes import cast

        out = np.zeros(self.shape, dtype=dt.np_type)
        if fill is not None:
            out[...] = fill
        out[r, c] = user_values(cast(v, dt), dt)
        return out

    @host_guarded
    def to_dicts(self, order="rowwise"):
        """``{row: {col: value}}`` (``order="columnwise"`` gives ``{col: {row: value}}``)."""
        r, c, v = self._coo_host()
        if order in ("columnwise", "col", "column", "columns", "colwise"):
            r, c = c, r
        elif order not in ("rowwise", "row", "rows"):
            raise ValueError(f"order must be 'rowwise' or 'columnwise', got {order!r}")
        out = {}
        v = user_values(v, self.dtype)
        for i, j, x in zip(r.tolist(), c.tolist(), v.tolist()):
            out.setdefault(i, {})[j] = x
        return out

    @host_guarded
    def to_dcsr(self, dtype=None, *, sort=True):
        """(compressed_rows, indptr, col_indices, values): CSR of the non-empty rows only."""
        indptr, cols, vals = self.to_csr(dtype)
        nonempty = np.flatnonzero(np.diff(indptr.astype(np.int64))).astype(_INDEX_OUT)
        return nonempty, np.append(indptr[nonempty], indptr[-1]).astype(_INDEX_OUT), cols, vals

    def to_dcsc(self, dtype=None, *, sort=True):
        """(compressed_cols, indptr, row_indices, values): CSC of the non-empty columns
        only."""
        return self.T.to_dcsr(dtype, sort=sort)

    def power(self, n, op=None):
        """``A`` multiplied by itself ``n`` times over a semiring (default plus_times): an
        expression.  ``n == 0`` gives the identity of the semiring's multiplication (its
        monoid's identity on the diagonal).  By repeated squaring: about log2(n) products."""
        from .scalar import Scalar

        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"n must be a nonnegative integer, got {type(n).__name__} {n!r}")
        if n < 0:
            raise ValueError(f"n must be a nonnegative integer, got {n}")
        if self.nrows != self.ncols:
            from ..exceptions import DimensionMismatch

            raise DimensionMismatch(f"power needs a square Matrix, got shape {self.shape}")
        from ..ops import semiring as semirings

        semi = ops.typed_semiring(semirings.plus_times if op is None else op, self.dtype,
                                  self.dtype)
        if n == 0:
            mult = semi.binaryop.monoid
            if mult is None:
                raise ValueError(f"power(0) needs the identity of the multiplication: the "
                                 f"binaryop must be associated with a monoid, and "
                                 f"{semi.binaryop!r} is not")
            from .vector import Vector

            unit = Scalar.from_value(mult.identity, semi.return_type)
            return ops.deferred(self, "power", semi, semi.return_type, self.shape,
                                lambda: Vector.from_scalar(unit, self.nrows,
                                                           device=self.device).diag())

        def compute():
            result, base, k = None, self if isinstance(self, Matrix) else self.new(), int(n)
            while True:
                if k & 1:
                    result = base.dup() if result is None else result.mxm(base, semi).new()
                k >>= 1
                if not k:
                    return result
                base = base.mxm(base, semi).new()

        return ops.deferred(self, "power", semi, semi.return_type, self.shape, compute)

    def reposition(self, row_offset, column_offset, *, nrows=None, ncols=None):
        """Entries shifted by the offsets, in a Matrix of the given (default same) shape;
        entries that fall outside are dropped."""
        nrows = self.nrows if nrows is None else _check_dim("nrows", nrows)
        ncols = self.ncols if ncols is None else _check_dim("ncols", ncols)
        r, c, v = self._coo_host()
        r = r.astype(np.int64) + int(row_offset)
        c = c.astype(np.int64) + int(column_offset)
        keep = (r >= 0) & (r < nrows) & (c >= 0) & (c < ncols)
        out = Matrix.from_coo(r[keep], c[keep], v[keep], self.dtype, nrows=nrows, ncols=ncols,
                              device=self.device)
        return ops.identity_expr(out)

    def _as_expr(self):
        if isinstance(self, TransposedMatrix):
            return ops.transpose_expr(self)
        return ops.identity_expr(self)

    def diag(self, k=0, dtype=None, *, name=None):
        """The k-th diagonal as a Vector (k > 0 above the main diagonal, k < 0 below).

        Computed where the matrix is: the diagonal selected (``select.diag``), then read as a
        vector of its rows, shifted by the extract of the diagonal's range of rows."""
        from ..ops import select
        from .vector import Vector

        k = _diag_offset(k)
        if isinstance(self, TransposedMatrix):
            return self._matrix.diag(-k, dtype, name=name)
        dtype = self.dtype if dtype is None else lookup_dtype(dtype)
        nrows, ncols = self.shape
        size = max(0, min(nrows, ncols - k) if k >= 0 else min(nrows + k, ncols))
        if size == 0:
            return Vector(dtype, 0, name=name, device=self.device)
        D = select.diag(self, k).new()
        b = self._backend
        # D holds at most one entry a row, so its entries in row order are the diagonal's
        by_row = Vector._from_data(b.matrix_column_as_vector(D._data), b, self.device, None)
        first = max(-k, 0)  # the row of the diagonal's first element
        if first == 0 and size == nrows:
            return by_row.dup(dtype, name=name)
        return by_row[first:first + size].new(dtype, name=name)

    def __repr__(self):
        return matrix_repr(self)

    def _repr_html_(self):
        return html_repr(self)


def _default_monoid(op):
    if op is None:
        from ..ops import monoid

        return monoid.plus
    return op


def _length(values):
    """The number of values given as an array or a sequence; None for a scalar."""
    shape = getattr(values, "shape", None)
    if shape is not None:
        return shape[0] if len(shape) else None
    return len(values) if isinstance(values, (list, tuple)) else None


class Matrix(_MatrixMethods, Collection):
    """A sparse matrix of one type, stored in CSR form on one device.

    Parameters
    ----------
    dtype : DataType, str or NumPy dtype, default FP64
    nrows, ncols : int
    name : str, optional
    device : "cpu", "cuda" or "cuda:N", optional (the default device when omitted)
    """

    __slots__ = ()

    def __init__(self, dtype=FP64, nrows=0, ncols=0, *, name=None, device=None):
        dtype = lookup_dtype(dtype)
        nrows = _check_dim("nrows", nrows)
        ncols = _check_dim("ncols", ncols)
        self.device, self._backend = place(device, dtype)
        self._data = self._backend.matrix_empty(nrows, ncols, dtype)
        self.name = name if name is not None else next_name("M")
        note_made(self)

    @classmethod
    def _from_data(cls, data, backend, device, name=None):
        obj = cls.__new__(cls)
        note_made(obj)
        # adopt: a device group places storage built elsewhere (io, generators) on its members
        obj._data = backend.adopt(data, obj)
        obj._backend = backend
        obj.device = device
        obj.name = name if name is not None else next_name("M")
        return obj

    def _empty_data(self, dtype):
        return self._backend.matrix_empty(self.nrows, self.ncols, dtype)

    def _csr(self):
        return self._data

    @property
    def shape(self):
        return (self._data.nrows, self._data.ncols)

    # read straight from the storage (the shared ones go through `shape`): on every call's path
    @property
    def nrows(self):
        return self._data.nrows

    @property
    def ncols(self):
        return self._data.ncols

    @property
    def T(self):
        """The transpose, as a view usable wherever a Matrix is read."""
        return TransposedMatrix(self)

    @property
    def is_symmetric(self):
        """True when the matrix is known to equal its transpose, values included (graphblast's
        extension): the undirected graphs of ``graphblast.generators`` and symmetric Matrix
        Market files are, and are their own transposes (no second copy for a pull, no
        ``A + A'`` in connected components).  False means "not known": no check is made."""
        return bool(self._data.symmetric)

    # -- constructors --------------------------------------------------------------------
    @classmethod
    def from_coo(cls, rows, columns, values=1.0, dtype=None, *, nrows=None, ncols=None,
                 dup_op=None, name=None, device=None):
        """A Matrix from coordinate arrays; duplicates raise unless ``dup_op`` combines them.

        ``nrows``/``ncols`` default to one more than the largest index.

        graphblast's extension (after SuiteSparse 10's ``GxB_Matrix_build_Vector``): each of
        ``rows``, ``columns`` and ``values`` may be a graphblast Vector, which contributes its
        values in the order of its indices and never leaves its device (a label matrix
        ``L[j, label[j]]`` is ``Matrix.from_coo(ids, label, 1)``); such Vectors must hold the
        same number of entries, on the device the Matrix is built on.
        """
        (rows, columns, values), device = _vector_arguments((rows, columns, values), device)
        device, backend = place(device, _udt_of(values, dtype))
        rows, rows_end = _index(rows, "rows", device)
        columns, columns_end = _index(columns, "columns", device)
        # python-graphblas's order of checks: the shape, then the lengths
        nrows = _inferred_dim("nrows", nrows, rows, rows_end)
        ncols = _inferred_dim("ncols", ncols, columns, columns_end)
        nv = _length(values)
        if rows.shape[0] != columns.shape[0] or nv not in (None, rows.shape[0]):
            raise InvalidValue(f"`rows` and `columns` and `values` lengths must match: "
                               f"{rows.shape[0]}, {columns.shape[0]}, "
                               f"{'a scalar' if nv is None else nv}")
        dtype = infer_dtype(values, dtype)
        vals = as_values(values, rows.shape[0], dtype, _array_module(rows, backend))
        dup = _typed_dup(_iso_dup(values, dup_op), dtype)
        data = backend.matrix_from_coo(nrows, ncols, dtype, rows, columns, vals, dup)
        return cls._from_data(data, backend, device, name)

    @classmethod
    def from_edgelist(cls, edgelist, values=None, dtype=None, *, nrows=None, ncols=None,
                      dup_op=None, name=None, device=None):
        """A Matrix from an N x 2 array (or sequence) of (row, col) pairs."""
        edges = np.asarray(edgelist)
        if edges.size == 0:
            edges = edges.reshape(0, 2)
        if edges.ndim == 2 and edges.shape[1] == 3 and values is not None:
            raise TypeError("Too many sources of values: a third column in edgelist and "
                            "values=")
        if edges.ndim == 2 and edges.shape[1] == 3 and values is None:
            # (row, col, value) rows, as python-graphblas: the values' own type is lost in
            # one NumPy array, so a list is read column by column
            if isinstance(edgelist, np.ndarray):
                raise ValueError("values must be passed separately when edgelist is a NumPy "
                                 "array: Matrix.from_edgelist(edges[:, :2], edges[:, 2])")
            rows, cols, values = zip(*edgelist)
            edges = np.column_stack([np.asarray(rows), np.asarray(cols)])
            values = np.asarray(values)
        if edges.ndim != 2:
            raise ValueError(f"edgelist array must have 2 dimensions (N x 2), got shape "
                             f"{edges.shape}")
        if edges.shape[1] != 2:
            raise ValueError(f"edgelist must have two columns (row, col) or three (row, col, "
                             f"value); the edgelist array must be length 2 or 3 in its second "
                             f"dimension, got shape {edges.shape}")
        if values is None:
            values = 1.0
        return cls.from_coo(edges[:, 0], edges[:, 1], values, dtype, nrows=nrows, ncols=ncols,
                            dup_op=dup_op, name=name, device=device)

    @classmethod
    def from_csr(cls, indptr, col_indices, values=1.0, dtype=None, *, nrows=None, ncols=None,
                 name=None, device=None):
        """A Matrix from CSR arrays (validated; unsorted rows are sorted)."""
        return cls._from_compressed(indptr, col_indices, values, dtype, nrows, ncols, name,
                                    device, ("nrows", "ncols"))

    @classmethod
    def _from_compressed(cls, indptr, col_indices, values, dtype, nrows, ncols, name, device,
                         dims):
        """CSR arrays (``dims``: the names of the rows' and columns' dimensions, swapped
        for CSC arrays)."""
        device, backend = place(device, _udt_of(values, dtype))
        indptr, _ = _index(indptr, "indptr", device)
        col_indices, columns_end = _index(col_indices, "col_indices", device)
        if indptr.shape[0] == 0:
            raise InvalidValue("indptr must have nrows + 1 entries; got an empty array")
        n = indptr.shape[0] - 1
        if nrows is not None and _check_dim(dims[0], nrows) != n:
            raise InvalidValue(f"indptr has {n + 1} entries, so {dims[0]} must be {n}, not "
                               f"{nrows}")
        ncols = _infer_dim(dims[1], ncols, col_indices, columns_end)
        dtype = infer_dtype(values, dtype)
        vals = as_values(values, col_indices.shape[0], dtype,
                         _array_module(col_indices, backend))
        try:
            data = backend.matrix_from_csr(n, ncols, dtype, indptr, col_indices, vals)
        except IndexOutOfBound as e:  # python-graphblas (GraphBLAS's import): InvalidObject
            raise InvalidObject(f"The compressed arrays do not describe a Matrix with "
                                f"{dims[0]}={n} and {dims[1]}={ncols}: {e}") from None
        return cls._from_data(data, backend, device, name)

    @classmethod
    def from_csc(cls, indptr, row_indices, values=1.0, dtype=None, *, nrows=None, ncols=None,
                 name=None, device=None):
        """A Matrix from compressed-column arrays."""
        T = cls._from_compressed(indptr, row_indices, values, dtype, ncols, nrows, name,
                                 device, ("ncols", "nrows"))
        return T.T.new(name=name)

    @classmethod
    def from_dense(cls, values, missing_value=None, *, dtype=None, name=None, device=None):
        """A Matrix from a 2-D array; entries equal to ``missing_value`` are left out."""
        arr = np.asarray(values)
        if arr.ndim == 0:
            raise TypeError("values must be an array or list, not a scalar.  To create a "
                            "dense Matrix from a scalar, use `Matrix.from_scalar`.")
        dt = dense_dtype(arr, dtype, 2) if arr.ndim >= 2 else None
        if dt is not None and dt.np_type.subdtype is not None:
            if arr.ndim == 2:
                raise ValueError("A >2d array is required to create a dense Matrix with "
                                 f"subdtype {dt}")
            keep = np.ones(arr.shape[:2], dtype=bool)
            if missing_value is not None:
                keep = ~rows_equal(arr.reshape((-1,) + arr.shape[2:]),
                                    missing_value).reshape(arr.shape[:2])
            r, c = np.nonzero(keep)
            return cls.from_coo(r, c, arr[r, c], dt, nrows=arr.shape[0], ncols=arr.shape[1],
                                name=name, device=device)
        if arr.ndim != 2:
            raise ValueError(f"values must be 2d: a 2-D array is required to create a dense "
                             f"Matrix, got {arr.ndim}-D")
        if missing_value is None:
            r, c = np.nonzero(np.ones(arr.shape, dtype=bool))
        else:
            with np.errstate(invalid="ignore"):
                keep = arr != missing_value
            if isinstance(missing_value, float) and np.isnan(missing_value):
                keep = ~np.isnan(arr)
            r, c = np.nonzero(keep)
        return cls.from_coo(r, c, arr[r, c], dtype, nrows=arr.shape[0], ncols=arr.shape[1],
                            name=name, device=device)

    @classmethod
    def from_scalar(cls, value, nrows, ncols, dtype=None, *, name=None, device=None):
        """A full Matrix with every entry ``value``."""
        from .scalar import Scalar

        s = ops.scalar_of(value, "value", "Matrix.from_scalar", dtype)
        dtype = lookup_dtype(dtype) if dtype is not None else s.dtype
        if s.is_empty:
            return cls(dtype, nrows, ncols, name=name, device=device)
        device, backend = place(device, dtype)
        data = backend.matrix_full(_check_dim("nrows", nrows), _check_dim("ncols", ncols),
                                   ops.bound_value(s, backend, dtype), dtype)
        return cls._from_data(data, backend, device, name)

    @classmethod
    def from_dicts(cls, d, dtype=None, *, order="rowwise", nrows=None, ncols=None, name=None,
                   device=None):
        """A Matrix from ``{row: {col: value}}`` or a list of ``{col: value}`` (or column-wise
        with ``order``); the outer keys (or the list's length) give the first dimension
        where not given, as in python-graphblas."""
        columnwise = order in ("columnwise", "col", "column", "columns", "colwise")
        if isinstance(d, (list, tuple)):
            given, dim = (ncols, "ncols") if columnwise else (nrows, "nrows")
            if given is not None and given != len(d):
                raise ValueError(f"{dim} must be None or equal to len(nested_dicts); expected "
                                 f"{len(d)}, got {given}")
            d = dict(enumerate(d))
        rows, cols, vals = [], [], []
        for i, inner in d.items():
            for j, x in inner.items():
                rows.append(i)
                cols.append(j)
                vals.append(x)
        outer = max(d, default=-1) + 1
        inner_n = max(cols, default=-1) + 1
        if not columnwise and order not in ("rowwise", "row", "rows"):
            raise ValueError(f"order must be 'rowwise' or 'columnwise', got {order!r}")
        if columnwise:
            rows, cols = cols, rows
            nrows = inner_n if nrows is None else nrows
            ncols = outer if ncols is None else ncols
        else:
            nrows = outer if nrows is None else nrows
            ncols = inner_n if ncols is None else ncols
        if not vals and dtype is None:
            dtype = FP64
        try:
            return cls.from_coo(np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64),
                                np.array(vals), dtype, nrows=nrows, ncols=ncols, name=name,
                                device=device)
        except IndexOutOfBound as e:  # python-graphblas (a compressed import): InvalidObject
            raise InvalidObject(f"The dicts do not fit a {nrows} x {ncols} Matrix: {e}") \
                from None

    @classmethod
    def from_dcsr(cls, compressed_rows, indptr, col_indices, values=1.0, dtype=None, *,
                  nrows=None, ncols=None, name=None, device=None):
        """A Matrix from doubly-compressed rows: CSR arrays of the listed rows only."""
        rows, nrows = _expand_compressed(compressed_rows, indptr, "compressed_rows", nrows)
        ncols = _extent(col_indices, "col_indices", ncols)
        return cls.from_coo(rows, col_indices, values, dtype, nrows=nrows, ncols=ncols,
                            name=name, device=device)

    @classmethod
    def from_dcsc(cls, compressed_cols, indptr, row_indices, values=1.0, dtype=None, *,
                  nrows=None, ncols=None, name=None, device=None):
        """A Matrix from doubly-compressed columns: CSC arrays of the listed columns only."""
        cols, ncols = _expand_compressed(compressed_cols, indptr, "compressed_cols", ncols)
        nrows = _extent(row_indices, "row_indices", nrows)
        return cls.from_coo(row_indices, cols, values, dtype, nrows=nrows, ncols=ncols,
                            name=name, device=device)

    @classmethod
    def from_diag(cls, vector, k=0, *, name=None):
        """A square Matrix with ``vector`` on its k-th diagonal."""
        return vector.diag(k, name=name)

    # -- in-place ------------------------------------------------------------------------
    def build(self, rows, columns, values, *, dup_op=None, clear=False, nrows=None,
              ncols=None):
        """Fill an empty Matrix from coordinates (``clear=True`` empties it first)."""
        if self.nvals and not clear:
            raise OutputNotEmpty(f"{self.name} already has {self.nvals} entries; use "
                                 "clear=True to replace them")
        nrows = self.nrows if nrows is None else nrows
        ncols = self.ncols if ncols is None else ncols
        new = Matrix.from_coo(rows, columns, values, self.dtype, nrows=nrows, ncols=ncols,
                              dup_op=dup_op, device=self.device)
        self._set_data(new._data)

    def dup(self, dtype=None, *, clear=False, mask=None, name=None, **opts):
        """A copy (optionally cast, emptied, or under a mask)."""
        dtype = self.dtype if dtype is None else lookup_dtype(dtype)
        if clear:
            return Matrix(dtype, self.nrows, self.ncols, name=name, device=self.device)
        if mask is None and dtype is self.dtype:
            return Matrix._from_data(self._data, self._backend, self.device, name)
        return self._as_expr().new(dtype, mask=mask, name=name)

    def resize(self, nrows, ncols):
        """Change the shape; entries outside the new shape are dropped."""
        nrows = _check_dim("nrows", nrows)
        ncols = _check_dim("ncols", ncols)
        r, c, v = self._backend.matrix_to_coo(self._data)
        b = self._backend
        r, c, v = b.to_host(r), b.to_host(c), b.to_host(v)
        keep = (r < nrows) & (c < ncols)
        self._set_data(b.matrix_from_coo(nrows, ncols, self.dtype, r[keep], c[keep], v[keep],
                                         None))

    def to_device(self, device):
        """A copy of this Matrix on ``device`` (itself if already there)."""
        dev, backend = place(device, self.dtype)
        if dev == self.device:
            return self
        indptr, indices, values = self.to_csr()
        data = backend.matrix_from_csr(self.nrows, self.ncols, self.dtype,
                                       indptr.astype(np.int64), indices.astype(np.int64),
                                       values)
        data.symmetric = self.is_symmetric  # still its own transpose on the new device
        return Matrix._from_data(data, backend, dev, self.name)

    def get(self, row, col, default=None):
        """The value at (row, col), or ``default`` when there is no entry."""
        res = resolve_all((row, col), self.shape)
        if not all(isinstance(r, int) for r in res):
            raise ValueError(f"Bad row, col arguments in Matrix.get: ({row!r}, {col!r}); "
                             "get reads one element")
        v = self._get_element(res)
        return default if v is None else v.item()

    def _get_element(self, resolved):
        i, j = resolved
        d = self._data
        b = self._backend
        lo, hi = (int(x) for x in b.to_host(d.indptr[i:i + 2]))
        # the indices as stored and an iso matrix's one value: reading one element of a
        # compact matrix makes none of its wide arrays
        cols = b.to_host(_stored_indices(d)[lo:hi])
        pos = int(np.searchsorted(cols, j))
        if pos < cols.shape[0] and cols[pos] == j:
            iso = getattr(d, "iso_value", None)
            if iso is not None:
                return np.asarray(iso, dtype=self.dtype.storage_type)[()]
            return b.to_host(d.values[lo + pos:lo + pos + 1])[0]
        return None

    def __setitem__(self, indices, value):
        ops.assign(self, value, indices, None, None, False, subassign=True)

    def __delitem__(self, indices):
        res = resolve_all(indices, self.shape)
        from .scalar import Scalar

        ops.assign(self, Scalar(self.dtype), res, None, None, False, subassign=True,
                   resolved=True)

    def __contains__(self, index):
        if not (isinstance(index, tuple) and len(index) == 2):
            raise TypeError("Use (row, col) in A")
        if any(isinstance(i, (list, slice, np.ndarray)) for i in index):
            raise TypeError(f"Invalid index for `in`: {index!r}; use one element (row, col)")
        return self._get_element(resolve_all(index, self.shape)) is not None

    def __iter__(self):
        r, c, _ = self._coo_host()
        return zip(r.tolist(), c.tolist())

    def setdiag(self, values, k=0, *, mask=None, accum=None, **opts):
        """Set the k-th diagonal (``A[i, i + k] = values[i]``) from a Vector, a list or array
        (dense), or a scalar, as python-graphblas's recipe.

        A Vector's missing entries delete the diagonal's entries there (without ``accum``).
        ``mask`` (a Vector mask of the diagonal's length, or a Matrix mask of A's shape whose
        diagonal is used) limits which diagonal entries are set; ``accum`` combines them with
        the existing ones.
        """
        from ..exceptions import DimensionMismatch, IndexOutOfBound
        from ..ops import select
        from .scalar import Scalar
        from .vector import Vector

        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"k must be an integer; got bad type: {type(k)}")
        k = int(k)
        nrows, ncols = self.shape
        size = min(nrows + k, ncols) if k < 0 else min(ncols - k, nrows)
        if size <= 0 and (k <= -nrows if k < 0 else (k > 0 and k >= ncols)):
            raise IndexOutOfBound(f"k={k} is out of range; the k'th diagonal is out of range "
                                  f"for a Matrix of shape {nrows}x{ncols}")
        size = max(size, 0)
        if isinstance(values, ops.Indexed) and not values.is_element:
            values = values._extract_expr()
        if getattr(type(values), "output_type", None) is not None and \
                values.output_type is Vector:
            values = ops.computed(values, ("Vector",), "Matrix.setdiag", "values")
        if isinstance(values, Vector):
            v = values
            clear = accum is None and v.nvals != v.size
        elif isinstance(values, (list, tuple, np.ndarray)) and np.ndim(values) == 1:
            v = Vector.from_dense(np.asarray(values), device=self.device)
            clear = False
        else:
            try:
                s = ops.scalar_of(values, "values", "Matrix.setdiag")
            except TypeError:
                raise TypeError(f"Bad type for argument `values` in Matrix.setdiag(...).\n"
                                f"    - Expected type: Scalar, Vector, np.ndarray.\n"
                                f"    - Got: {type(values)}.\nLiteral scalars also "
                                "accepted.") from None
            v = Vector.from_scalar(s if isinstance(s, Scalar) else values, size,
                                   device=self.device)
            clear = False
        if v.size != size:
            raise DimensionMismatch(f"Dimensions not compatible for assigning length {v.size} "
                                    f"Vector to {k}'th diagonal of Matrix with shape "
                                    f"{nrows}x{ncols}. The Vector should be size {size}.")
        if mask is not None:
            mask = ops.as_mask(mask)
            if mask.parent.ndim == 2:
                if mask.parent.shape != self.shape:
                    raise DimensionMismatch(f"Matrix mask in setdiag is the wrong shape; "
                                            f"expected shape {nrows}x{ncols}, got "
                                            f"{mask.parent.nrows}x{mask.parent.ncols}")
                allowed = type(mask)(mask.parent.diag(k)).new()
            elif mask.parent.size != size:
                raise DimensionMismatch(f"Vector mask in setdiag is the wrong length; "
                                        f"expected size {size}, got size {mask.parent.size}.")
            else:
                allowed = mask.new()
            mask = self._on_diagonal(allowed, k).S
        if clear:
            self(mask=mask) << select.offdiag(self, k)
        D = self._on_diagonal(v, k)
        self(accum=accum, mask=D.S if mask is None else mask) << D

    def _on_diagonal(self, v, k):
        """``v`` on the k-th diagonal of a Matrix of this one's shape."""
        D = v.diag(k)
        if D.shape != self.shape:
            D.resize(*self.shape)
        return D

    def _cast_like(self, dtype):
        return self._backend.cast_matrix(self._data, dtype)


class TransposedMatrix(_MatrixMethods):
    """``A.T``: A's transpose, read through a cached CSR of A'."""

    __slots__ = ("_matrix", "__weakref__")
    _is_scalar = False

    def __init__(self, matrix):
        self._matrix = matrix

    @property
    def T(self):
        return self._matrix

    @property
    def is_symmetric(self):
        return self._matrix.is_symmetric

    @property
    def shape(self):
        r, c = self._matrix.shape
        return (c, r)

    @property
    def dtype(self):
        return self._matrix.dtype

    @property
    def nvals(self):
        return self._matrix.nvals

    @property
    def name(self):
        return f"{self._matrix.name}.T"

    @property
    def device(self):
        return self._matrix.device

    @property
    def _backend(self):
        return self._matrix._backend

    def _csr(self):
        return self._matrix._backend.transpose(self._matrix._data)

    def new(self, dtype=None, *, mask=None, name=None, **opts):
        return ops.transpose_expr(self).new(dtype, mask=mask, name=name)

    dup = new

    def ewise_add(self, other, op=None):
        return Matrix.ewise_add(self, other, op)

    def ewise_mult(self, other, op=None):
        return Matrix.ewise_mult(self, other, op)

    def ewise_union(self, other, op, left_default, right_default):
        return Matrix.ewise_union(self, other, op, left_default, right_default)

    def apply(self, op, right=None, *, left=None):
        return ops.apply(self, op, right=right, left=left)

    def select(self, op, thunk=None):
        return ops.select(self, op, thunk)

    def isequal(self, other, *, check_dtype=False):
        return Matrix.isequal(self, other, check_dtype=check_dtype)

    def isclose(self, other, *, rel_tol=1e-7, abs_tol=0.0, check_dtype=False):
        return Matrix.isclose(self, other, rel_tol=rel_tol, abs_tol=abs_tol,
                              check_dtype=check_dtype)

    _compare = Collection._compare
    _entries = Matrix._entries
    __or__ = Collection.__or__
    __ror__ = Collection.__ror__
    __and__ = Collection.__and__
    __rand__ = Collection.__rand__

    @property
    def S(self):
        # python-graphblas's TransposedMatrix has no .S or .V
        raise AttributeError("'TransposedMatrix' object has no attribute 'S' or 'V': a "
                             "transposed matrix cannot be a mask; use A.T.new().S")

    V = S

    def get(self, row, col, default=None):
        return self._matrix.get(col, row, default)

    __contains__ = Matrix.__contains__
    __iter__ = Matrix.__iter__
    __array__ = Collection.__array__

    def to_coo(self, dtype=None, *, rows=True, columns=True, values=True, sort=True):
        """(rows, columns, values) of the transpose, in the order of the Matrix's own entries
        (python-graphblas's order: the Matrix's columns are the rows here)."""
        r, c, v = self._matrix.to_coo(dtype, rows=columns, columns=rows, values=values,
                                      sort=sort)
        return c, r, v

    def wait(self, how="materialize"):
        self._matrix.wait(how)
        return self

    def __lshift__(self, value):
        raise TypeError("'TransposedMatrix' object does not support assignment; assign to "
                        "the Matrix (C << A.T, not C.T << A)")

    def _get_element(self, resolved):
        return self._matrix._get_element(resolved[::-1])


install_infix(TransposedMatrix)


def _stored_indices(data):
    """The column indices as the storage holds them (32-bit in a compact matrix), without
    making the wide ones; a storage without the distinction gives its indices."""
    stored = getattr(data, "stored_indices", None)
    return data.indices if stored is None else stored


def _values_view(data, xp):
    """The values, where an iso matrix's are a broadcast of its one value (no array made).
    The value goes over as a one-element array: CuPy makes a 0-d array by a fill kernel that
    it compiles on its first use in a process."""
    iso = getattr(data, "pattern_value", None)
    if iso is None:
        return data.values
    one = xp.asarray(np.full(1, iso, dtype=data.dtype.storage_type))
    return xp.broadcast_to(one, (data.nvals,))


def _host_values(data, backend):
    """The values as a NumPy array, an iso matrix's made on the host (none made, or cached,
    on its device)."""
    iso = getattr(data, "pattern_value", None)
    if iso is not None:
        return np.full(data.nvals, iso, dtype=data.dtype.storage_type)
    return backend.to_host(data.values)


def _vector_arguments(args, device):
    """``from_coo``'s Vector arguments replaced by their values arrays (on their device), and
    the device to build on (theirs, when none is named)."""
    from .vector import Vector

    vectors = [a for a in args if isinstance(a, Vector)]
    if not vectors:
        return args, device
    if device is None:
        device = vectors[0].device
    target = resolve_device(device)[0]
    if any(v.device != target for v in vectors):
        from ..exceptions import DeviceMismatch

        raise DeviceMismatch(f"from_coo: the Vector arguments are on "
                             f"{sorted({v.device for v in vectors})}, the Matrix is built on "
                             f"{target}; move them with v.to_device({target!r})")
    if len({v.nvals for v in vectors}) > 1:
        raise InvalidValue("from_coo: Vector arguments must hold the same number of entries, "
                           f"got {[v.nvals for v in vectors]}")
    return tuple(a._entries()[1] if isinstance(a, Vector) else a for a in args), target


def _index(x, name, device):
    """(validated 1-D integer indices, one more than the largest or None when not computed).

    GPU arrays (CuPy's or any with ``__cuda_array_interface__``) stay on the GPU when the
    target is a GPU, so that building there costs no host round trip; everything else is
    checked on the host."""
    if device != "cpu" and on_gpu(x):
        return _device_index(x, name)
    return _host_index(x, name), None


def _device_index(x, name):
    """``_host_index``'s checks and errors for a GPU array, which stays there: the reductions
    they need (and _infer_dim's max) come back in one small transfer."""
    import cupy as cp

    arr = cp.asarray(x)
    if arr.ndim == 0:
        raise InvalidValue(f"{name} must be a 1-D array of indices, got a scalar")
    if arr.ndim != 1:
        raise InvalidValue(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:  # any dtype, as on the host; the backend takes integers only
        return cp.zeros(0, dtype=np.int64), 0
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be integers, not {arr.dtype}")
    is_float = arr.dtype.kind == "f"
    stats = [arr.min(), arr.max()]
    if is_float:
        stats.append((cp.mod(arr, 1) != 0).any().astype(arr.dtype))
    lo, hi, *fractional = cp.stack(stats).get().tolist()
    if is_float and fractional[0]:
        raise ValueError(f"{name} must be integers, not {arr.dtype}")  # _host_index's words
    if lo < 0:
        raise IndexOutOfBound(f"{name} has a negative index ({int(lo)}); indices must be "
                              ">= 0")
    return (arr.astype(np.int64) if is_float else arr), int(hi) + 1


def _array_module(indices, backend):
    """Where per-entry arrays (a scalar value repeated) are made: on the GPU where the indices
    stayed there, so that nothing is copied to it."""
    return backend.xp if on_gpu(indices) else np


def _host_index(x, name):
    if hasattr(x, "get") and on_gpu(x):
        x = x.get()
    arr = np.asarray(x)
    if arr.ndim == 0:
        raise InvalidValue(f"{name} must be a 1-D array of indices, got a scalar")
    if arr.ndim != 1:
        raise InvalidValue(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size and arr.dtype.kind in "uf" and arr.max() > 2**60:
        raise InvalidValue(f"{name} has the index {int(arr.max())}, beyond the largest "
                           "dimension, 2**60")
    if arr.dtype.kind == "O" and any(isinstance(i, int) and i >= 2**64 for i in arr):
        raise OverflowError(f"{name} hold an integer too large for 64 bits; the largest "
                            "dimension is 2**60")
    if arr.size and arr.dtype.kind not in "iu":
        # as python-graphblas: a list is cast by NumPy (floats truncate); an array of floats
        # must hold whole numbers
        if arr.dtype.kind == "f" and (isinstance(x, (list, tuple))
                                      or np.all(np.mod(arr, 1) == 0)):
            arr = arr.astype(np.int64)
        else:
            raise ValueError(f"{name} must be integers, not {arr.dtype}")
    if arr.size and arr.dtype.kind == "i" and arr.min() < 0:
        raise IndexOutOfBound(f"{name} has a negative index ({int(arr.min())}); indices must be "
                              ">= 0")
    return arr


def _expand_compressed(compressed, indptr, name, dim):
    """Doubly-compressed arrays' line of each entry, and the dimension (``dim``, else one more
    than the last line listed)."""
    lines = _host_index(compressed, name).astype(np.int64)
    ptr = _host_index(indptr, "indptr").astype(np.int64)
    if ptr.shape[0] != lines.shape[0] + 1:
        raise InvalidValue(f"indptr must have len({name}) + 1 entries")
    counts = np.diff(ptr)
    if np.any(counts < 0):
        raise InvalidValue("indptr must never decrease")
    return np.repeat(lines, counts), _extent(lines, name, dim)


def _extent(indices, name, dim):
    """``dim``, or one more than the largest of ``indices`` (0 for none)."""
    if dim is not None:
        return dim
    arr = _host_index(indices, name)
    return int(arr.max()) + 1 if arr.size else 0


def _infer_dim(name, value, indices, end=None):
    """``value`` checked, or one more than the largest index (``end`` where _index has it)."""
    if value is not None:
        return _check_dim(name, value)
    if end is not None:
        return end
    return int(indices.max()) + 1 if indices.size else 0


def _inferred_dim(name, value, indices, end=None):
    """:func:`_infer_dim` for ``from_coo``: with no indices and no ``value``, python-graphblas's
    ValueError (nothing to infer from)."""
    if value is None and not indices.size:
        what = {"nrows": "row indices", "ncols": "column indices"}.get(name, "indices")
        raise ValueError(f"No {what} provided. Unable to infer {name}; give {name}=")
    return _infer_dim(name, value, indices, end)


def _iso_dup(values, dup_op):
    """python-graphblas's rule: one value for every entry (iso) drops duplicate indices."""
    if np.ndim(values) == 0 and not hasattr(values, "__len__"):
        if dup_op is not None:
            raise ValueError("dup_op must be None when values is a scalar: every entry has "
                             "that value, and duplicate indices are dropped")
        from ..ops import binary

        return binary.first
    return dup_op


def _typed_dup(dup_op, dtype):
    if dup_op is None:
        return None
    from .operations import typed_binary

    return typed_binary(dup_op, dtype, method="dup_op")


def _udt_of(values, dtype):
    """The type of new values where it is a user-defined one (which decides the device),
    else None (the values' type is found later, on the device)."""
    if dtype is not None:
        dtype = lookup_dtype(dtype)
        return dtype if dtype._is_udt else None
    if hasattr(values, "__cuda_array_interface__") or hasattr(values, "_backend"):
        return None
    try:
        found = infer_dtype(values, None)
    except (TypeError, ValueError):  # reported where the values are read
        return None
    return found if found._is_udt else None
