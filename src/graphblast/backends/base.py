"""The primitive interface every backend implements.

The core (``core/operations.py``) owns GraphBLAS semantics: validation, operator typing,
accumulation and the masked write-back are composed there from these primitives, once for all
backends.  A backend owns storage and computes.

Storage objects are immutable: a primitive never changes its inputs, it returns new storage.
That makes aliasing (an output that is also an input or the mask) correct by construction, lets
a matrix cache its transpose safely (the cache dies with the storage), and means ``dup`` is free.

Conventions for every primitive:

- Matrices are :class:`CSR` (sorted column indices within each row, no duplicates), vectors
  :class:`SparseVector` (sorted indices, no duplicates).  Arrays live on the backend's device
  (NumPy on the CPU, CuPy on a GPU); index arrays are int64 unless noted.
- Operators arrive already typed (``TypedBinaryOp`` ...); operands are already cast to the
  operator's input types only where the docstring says so - otherwise the primitive casts.
- ``mask`` arguments are :class:`MaskArg` or None.  A primitive that accepts a mask may compute
  only the entries the mask allows (output sparsity); it may also ignore it, because the core
  applies the mask again in the write-back.
"""

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..dtypes import DataType, cast


INT32_MAX = 2**31 - 1


class CSR:
    """A sparse matrix in compressed sparse row form on one device.

    Every primitive reads ``indices`` (int64) and ``values`` (an array of ``dtype``).  A
    compact matrix (a graph at scale: the generators make one on a GPU) stores less and
    makes those on first use, once: its column indices as int32 where the columns fit
    (``stored_indices``), and, when every entry has the same value (a pattern graph:
    ``iso_value``), no value array at all.  The traversal kernels, the column selects and the
    exports read the compact form directly, so a BFS, PageRank or connected components on a
    compact graph never makes the wide arrays.
    """

    __slots__ = ("nrows", "ncols", "dtype", "indptr", "_indices", "_values", "iso_value",
                 "_wide", "_transpose", "_view", "_stats", "_plans", "symmetric",
                 "__weakref__")

    def __init__(self, nrows, ncols, dtype, indptr, indices, values, *, iso_value=None):
        self.nrows = nrows
        self.ncols = ncols
        self.dtype = dtype
        self.indptr = indptr
        self._indices = indices
        self._wide = None       # the int64 copy of 32-bit indices, once something asks for it
        self._values = values
        # with values None: the value of every entry (the value array is made on first use)
        self.iso_value = iso_value
        self._transpose = None
        self._view = None  # a backend's traversal form of the matrix, built on first use
        self._stats = None  # a backend's statistics of the matrix, read once when needed
        self._plans = None  # a backend's planner terms per semiring, found once when needed
        # known to equal its transpose (values too): then it is its own transpose.  Set by
        # those who know (generators of undirected graphs, symmetric Matrix Market files);
        # False means "not known", never "not symmetric".
        self.symmetric = False

    @property
    def indices(self):
        """Column indices, int64 (for 32-bit storage: a copy, made once)."""
        ix = self._indices
        if ix.dtype == np.int64:
            return ix
        if self._wide is None:
            _made_once(ix, "a matrix's 64-bit column indices")
            self._wide = (ix.astype(np.int64) if isinstance(ix, np.ndarray)
                          else _device_astype(ix, np.int64))
        return self._wide

    @indices.setter
    def indices(self, array):
        self._indices, self._wide = array, None

    @property
    def stored_indices(self):
        """The column indices as stored: int32 in a compact matrix, else int64."""
        return self._indices

    @property
    def values(self):
        """The values (for an iso matrix: an array of ``iso_value``, made once)."""
        if self._values is None and self.iso_value is not None:
            _made_once(self.indptr, "a pattern matrix's value array")
            full = np.full if isinstance(self.indptr, np.ndarray) else _device_full
            self._values = full(self.nvals, self.iso_value, dtype=self.dtype.storage_type)
        return self._values

    @values.setter
    def values(self, array):
        self._values, self.iso_value = array, None

    @property
    def pattern_value(self):
        """The one value of an iso matrix that stores no value array (a pattern not widened
        yet), else None: what a matrix made from its stored arrays keeps as its iso value."""
        return self.iso_value if self._values is None else None

    @property
    def has_values(self):
        """Whether a value array is stored (False for an iso matrix not yet widened)."""
        return self._values is not None

    def arrays(self):
        """The arrays this storage holds (any may be None)."""
        return [self.indptr, self._indices, self._wide, self._values]

    @property
    def nvals(self):
        return int(self._indices.shape[0])

    @property
    def shape(self):
        return (self.nrows, self.ncols)

    def __repr__(self):
        form = "" if self._indices.dtype == np.int64 else ", int32 indices"
        if self.iso_value is not None:
            form += f", iso {self.iso_value!r}"
        return f"CSR({self.nrows}x{self.ncols}, {self.dtype}, nvals={self.nvals}{form})"


def cast_csr(A, dtype, cast_values):
    """``A`` cast to ``dtype``, its structure shared as stored (32-bit indices stay 32-bit) and
    its symmetry kept (a cast moves no entry): a pattern that stores no value array stays one,
    its one value cast by GraphBLAS rules (``A.dup(FP32)`` of a pattern graph makes no value
    array, and a product over it reads that one value); otherwise ``cast_values(A.values)``,
    the backend's cast of an array."""
    iso = A.pattern_value
    if iso is None:
        out = CSR(A.nrows, A.ncols, dtype, A.indptr, A.stored_indices, cast_values(A.values))
    else:
        out = CSR(A.nrows, A.ncols, dtype, A.indptr, A.stored_indices, None,
                  iso_value=cast(np.asarray([iso]), dtype)[0])
    out.symmetric = A.symmetric
    return out


def _made_once(array, what):
    """Before a device array is cached with its matrix: not while a GPU records a loop body
    for replay (the array would exist only once the graph runs; backends/cuda/recording.py)."""
    if not isinstance(array, np.ndarray):
        from .cuda import recording

        recording.refuse(what)


# While a backend records a loop body for replay (graphblast.repeat on a GPU), the ids of
# the collections made meanwhile (an older collection, alive, never shares one): they tell
# them from older ones, whose storage the body may update in place but not replace.  The
# recording backend sets it; the core adds each Matrix and Vector it makes (core.base.note_made).
made_while_recording = None


def issue_rounds(body, x, max_rounds, rounds=0):
    """(x, rounds): ``x = body(x, k)`` for the rounds ``k = rounds, rounds + 1, ...``, each
    issued from Python, while ``x`` has entries and fewer than ``max_rounds`` (None: no
    limit) rounds ran."""
    while (max_rounds is None or rounds < max_rounds) and x.nvals:
        x = body(x, rounds)
        rounds += 1
    return x, rounds


def _device_full(n, value, dtype):
    # the CUDA backend's fill, a kernel of its catalogue (cupy.full compiles on first use)
    from .cuda import arrays

    return arrays.full(n, value, dtype)


def _device_astype(x, dtype):
    from .cuda import arrays

    return arrays.astype(x, dtype)


class SparseVector:
    """A sparse vector: sorted ``indices`` and their ``values``."""

    __slots__ = ("size", "dtype", "indices", "values", "__weakref__")

    def __init__(self, size, dtype, indices, values):
        self.size = size
        self.dtype = dtype
        self.indices = indices
        self.values = values

    @property
    def nvals(self):
        return int(self.indices.shape[0])

    def arrays(self):
        """The arrays this storage holds."""
        return [self.indices, self.values]

    def __repr__(self):
        return f"SparseVector({self.size}, {self.dtype}, nvals={self.nvals})"


class MaskArg:
    """A mask as a primitive sees it: the mask's storage (a CSR or SparseVector of the
    output's shape) and how to read it.  Read-only by convention; one is made per masked
    call, so it is a slotted class (a frozen dataclass took 0.9 us to make).  A primitive
    whose result holds only what this mask allows may say so by a weak reference to it in
    the result's ``_under_mask`` (read by :func:`computed_under`): the core then writes such
    a result back under replace without calling :meth:`Backend.mask_write_into` (it is the
    answer as it is)."""

    __slots__ = ("data", "structural", "complement", "__weakref__")

    def __init__(self, data, structural, complement):
        self.data = data
        self.structural = structural
        self.complement = complement

    def __repr__(self):
        return (f"MaskArg({self.data!r}, structural={self.structural}, "
                f"complement={self.complement})")


def computed_under(data, mask):
    """Whether the storage ``data`` was computed exactly under the MaskArg ``mask`` (it says
    so by a weak reference in ``_under_mask``: see :class:`MaskArg`)."""
    ref = getattr(data, "_under_mask", None)
    return ref is not None and ref() is mask


@dataclass(frozen=True)
class IndexArg:
    """One dimension of an extract/assign index, resolved by the core.

    ``kind`` is "all" (every index of a dimension of ``size``), "range" (start, stop, step
    with ``count`` elements) or "list" (an int64 array ``array`` of ``count`` indices, possibly
    unsorted, possibly with duplicates for extract).
    """

    kind: str
    count: int
    size: int
    start: int = 0
    stop: int = 0
    step: int = 1
    array: Optional[Any] = None


# Monoids whose result does not depend on the order of the values: min and max, and plus,
# times, the logical and bitwise monoids on integers (float sums depend on the order).
_ORDER_FREE = frozenset({"min", "max"})
_ORDER_FREE_INTEGER = frozenset({"plus", "times", "lor", "land", "lxor", "bor", "band",
                                 "bxor"})


# The selects that keep one contiguous range of each sorted row, which the backends read
# from the stored column indices (a compact matrix stays compact): name -> (whether the
# range is below the cut, the cut for thunk k, its step per row: row i cuts at
# cut(k) + step * i).
RANGE_SELECTS = {
    "colle": (True, lambda k: k + 1, 0),   # j <= k
    "colgt": (False, lambda k: k + 1, 0),  # j > k
    "tril": (True, lambda k: k + 1, 1),    # j <= i + k
    "triu": (False, lambda k: k, 1),       # j >= i + k
}


def order_free_monoid(op, dtype):
    """The typed monoid of the binary ``op`` typed on ``dtype`` when combining values with it
    in any order gives one result (a scatter may then combine by atomics or ``ufunc.at``),
    else None."""
    if op is None or not (op.type is dtype and op.type2 is dtype and op.return_type is dtype):
        return None
    name = op.parent.builtin_name
    if name not in _ORDER_FREE and (name not in _ORDER_FREE_INTEGER or dtype.is_float):
        return None
    if op.parent.monoid is None:
        return None
    from ..ops.base import find_typed_op

    return find_typed_op(op.parent.monoid, dtype)


def storage_bytes(data):
    """Bytes of device memory a storage object occupies: its arrays, and for a matrix the
    transpose and traversal form cached with it (each array counted once)."""
    parts = [data]
    T = getattr(data, "_transpose", None)
    if T is not None and T is not data:
        parts.append(T)
    seen, total = set(), 0
    for part in parts:
        arrays = list(part.arrays())
        view = getattr(part, "_view", None)
        if view is not None:
            arrays += view.arrays()
        for arr in arrays:
            if arr is not None and id(arr) not in seen:
                seen.add(id(arr))
                total += int(arr.nbytes)
    return total


class Backend:
    """Primitive operations on one device.  See the module docstring for conventions."""

    name = "abstract"
    xp = None  # the array module (numpy or cupy)

    # -- storage ---------------------------------------------------------------------------
    def matrix_empty(self, nrows: int, ncols: int, dtype: DataType) -> CSR:
        raise NotImplementedError

    def matrix_from_coo(self, nrows, ncols, dtype, rows, cols, values, dup_op) -> CSR:
        """Build from host or device arrays; duplicates combined by ``dup_op`` (a typed
        binary op), or raise InvalidValue when ``dup_op`` is None and duplicates exist."""
        raise NotImplementedError

    def matrix_from_csr(self, nrows, ncols, dtype, indptr, indices, values) -> CSR:
        """Build from CSR arrays (validated; unsorted rows are sorted, duplicates raise)."""
        raise NotImplementedError

    def matrix_to_coo(self, A: CSR):
        """(rows, cols, values) in row-major order, on the backend's device."""
        raise NotImplementedError

    def vector_empty(self, size: int, dtype: DataType) -> SparseVector:
        raise NotImplementedError

    def vector_from_coo(self, size, dtype, indices, values, dup_op) -> SparseVector:
        raise NotImplementedError

    def to_host(self, array):
        """A NumPy array with the contents of a backend array."""
        raise NotImplementedError

    def from_host(self, array):
        """A backend array with the contents of a NumPy array."""
        raise NotImplementedError

    def vector_as_row(self, v: SparseVector) -> CSR:
        """v as a 1 x n matrix."""
        raise NotImplementedError

    def vector_as_column(self, v: SparseVector) -> CSR:
        """v as an n x 1 matrix."""
        raise NotImplementedError

    def matrix_row_as_vector(self, A: CSR) -> SparseVector:
        """A 1 x n matrix as a vector."""
        raise NotImplementedError

    def matrix_column_as_vector(self, A: CSR) -> SparseVector:
        """An n x 1 matrix as a vector."""
        raise NotImplementedError

    def full_like_pattern(self, data, value, dtype):
        """The structure of ``data`` (CSR or SparseVector) with every value ``value``."""
        raise NotImplementedError

    def vector_full(self, size, value, dtype) -> SparseVector:
        raise NotImplementedError

    def matrix_full(self, nrows, ncols, value, dtype) -> CSR:
        raise NotImplementedError

    def cast_matrix(self, A: CSR, dtype: DataType) -> CSR:
        raise NotImplementedError

    def cast_vector(self, v: SparseVector, dtype: DataType) -> SparseVector:
        raise NotImplementedError

    def transpose(self, A: CSR) -> CSR:
        """A' (cached on A when the configuration allows)."""
        raise NotImplementedError

    # -- computation: each returns T, the result before accumulation and masking -----------
    def mxm(self, A: CSR, B: CSR, semiring, mask: Optional[MaskArg]) -> CSR:
        raise NotImplementedError

    def mxm_bt(self, A: CSR, BT: CSR, semiring, mask: Optional[MaskArg]) -> CSR:
        """C = A (+.x) B with B given as its transpose ``BT`` (``mxm(A, M.T)`` passes M).  A
        backend whose product reads B' anyway (the masked dot product: row i of A against
        row j of B') overrides this and builds no transpose; by default B is built."""
        return self.mxm(A, self.transpose(BT), semiring, mask)

    def mxv(self, A: CSR, u: SparseVector, semiring, mask: Optional[MaskArg]) -> SparseVector:
        """w = A (+.x) u."""
        raise NotImplementedError

    def vxm(self, u: SparseVector, A: CSR, semiring, mask: Optional[MaskArg]) -> SparseVector:
        """w = u' (+.x) A."""
        raise NotImplementedError

    def ewise_add(self, A, B, op, out_dtype=None):
        """Union of the structures; ``op`` where both are present, the operand cast to the
        result type where only one is.  Works on CSR or SparseVector pairs."""
        raise NotImplementedError

    def ewise_mult(self, A, B, op):
        raise NotImplementedError

    def ewise_union(self, A, B, op, left_default, right_default):
        raise NotImplementedError

    def apply(self, A, op, left=None, right=None, thunk=None):
        """Unary op; a binary op with a bound ``left`` or ``right`` scalar; or an
        index-unary op with ``thunk``."""
        raise NotImplementedError

    def select(self, A, op, thunk):
        raise NotImplementedError

    def select_masked(self, A, op, thunk, mask: MaskArg):
        """:meth:`select` of a vector under its output's ``mask``, which a backend may apply
        in the same pass (it then marks the result as computed under it, and the write-back
        has nothing left to filter); NotImplemented leaves the mask to the write-back."""
        return NotImplemented

    def reduce_rowwise(self, A: CSR, monoid) -> SparseVector:
        raise NotImplementedError

    def reduce_scalar(self, A, monoid):
        """A NumPy scalar, or None when A has no entries."""
        raise NotImplementedError

    def reduce_scalar_kept(self, A, monoid):
        """:meth:`reduce_scalar` for a Scalar's value: a backend whose arrays live on a device
        may leave a value it knows to be there (A has entries) in a one-element array of the
        monoid's type, read later by :meth:`read_scalar` or bound by apply without a read.
        This default reads it."""
        return self.reduce_scalar(A, monoid)

    def inner_kept(self, u, v, semiring):
        """The inner product of vectors ``u`` and ``v`` (the semiring's monoid over the
        products of their common entries) as :meth:`reduce_scalar_kept` gives a value.  This
        default reduces ``ewise_mult``'s vector; a backend may fold the products as it makes
        them."""
        return self.reduce_scalar_kept(self.ewise_mult(u, v, semiring.binaryop),
                                       semiring.monoid)

    def read_scalar(self, array):
        """The value of a one-element backend array, as a NumPy scalar."""
        return self.to_host(array)[0]

    def value_range(self, v):
        """(smallest, largest) value of ``v`` as NumPy scalars, or None when it has no
        entries (a Vector used as an index is checked with it).  A backend may read both at
        once; this default makes two reductions."""
        from ..ops import monoid

        lo = self.reduce_scalar(v, monoid.min[v.dtype])
        return None if lo is None else (lo, self.reduce_scalar(v, monoid.max[v.dtype]))

    def extract_matrix(self, A: CSR, rows: IndexArg, cols: IndexArg) -> CSR:
        raise NotImplementedError

    def extract_vector(self, u: SparseVector, index: IndexArg) -> SparseVector:
        raise NotImplementedError

    def kronecker(self, A: CSR, B: CSR, op) -> CSR:
        raise NotImplementedError

    # -- write-back ----------------------------------------------------------------------
    def mask_write(self, C, Z, mask: Optional[MaskArg], replace: bool):
        """The final step of every operation: ``C<mask, replace> = Z``.

        Where the mask allows: Z's entries (and no entry where Z has none).  Where it does
        not: C's entries, or nothing when ``replace``.  Z already has C's type."""
        raise NotImplementedError

    def mask_write_into(self, owner, C, Z, mask: Optional[MaskArg], replace: bool):
        """:meth:`mask_write` where ``C`` is the storage of the collection ``owner``: a backend
        may then update ``C`` in place (see :meth:`adopt`) and return it."""
        return self.mask_write(C, Z, mask, replace)

    def accum_into(self, owner, C, T, accum):
        """``C(accum) << T`` without a mask, where ``C`` is the storage of the collection
        ``owner`` and T the computed result (accum a typed binary op of C's type): a backend
        may fold T into C in place at O(T's entries) and return it; NotImplemented sends the
        call to the general path (``ewise_add(C, T, accum)``, written back)."""
        return NotImplemented

    # -- loops -----------------------------------------------------------------------------
    def repeat(self, body, x, max_rounds):
        """``x = body(x, k)`` (``k``: the round's number, 0 first) while ``x`` has entries and
        fewer than ``max_rounds`` (None: no limit) rounds ran (graphblast.repeat; ``body``
        checks its own results).  A backend may run the rounds otherwise (the GPU's on the
        device, ``k`` then a one-element device array)."""
        return issue_rounds(body, x, max_rounds)[0]

    def adopt(self, data, owner):
        """``data`` as it becomes the storage of the collection ``owner``.  A backend that
        updates storage in place records here who may do so; storage is otherwise immutable."""
        return data

    def assign_region(self, C, Z, rows: IndexArg, cols: Optional[IndexArg]):
        """C with the region rows x cols replaced by Z (Z has the region's shape): entries of
        C inside the region are dropped, Z's entries are scattered into it."""
        raise NotImplementedError
