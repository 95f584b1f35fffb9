"""Converters between graphblast objects and SciPy, NumPy, NetworkX, python-graphblas, CuPy and
PyTorch.

Zero copy: a graphblast Matrix is CSR with int64 indices, sorted and duplicate-free within each
row, on one device.  Where the other side holds exactly that (a SciPy CSR array with int64
indices in canonical form on the CPU; a ``cupyx.scipy.sparse`` CSR matrix likewise on the GPU;
a PyTorch CSR tensor with int64 indices), the arrays are shared, not copied.  Shared arrays
handed out (``to_scipy_sparse``, ``to_cupy_sparse``, ``to_torch``) must be treated as read-only:
graphblast objects never change their storage in place and assume nobody else does.  Call
``.copy()`` on the result to modify it.

CuPy and PyTorch are imported only when their converters are called.
"""

import numpy as np

from ..dtypes import cast, lookup_dtype
from ..exceptions import InvalidValue

__all__ = [
    "from_cupy",
    "from_cupy_sparse",
    "from_graphblas",
    "from_networkx",
    "from_numpy",
    "from_scipy_sparse",
    "from_torch",
    "to_cupy",
    "to_cupy_sparse",
    "to_graphblas",
    "to_networkx",
    "to_numpy",
    "to_scipy_sparse",
    "to_torch",
]


# -- the bridge to the core's storage -----------------------------------------------------


def _dtype_of(array_dtype, what):
    try:
        return lookup_dtype(array_dtype)
    except (TypeError, ValueError) as exc:
        raise InvalidValue(f"{what} of dtype {array_dtype} cannot become a graphblast object: "
                           f"{exc}") from None


def _device_kwargs(device):
    return {} if device is None else {"device": device}


def matrix_from_valid_csr(nrows, ncols, dtype, indptr, indices, values, name, device,
                          iso_value=None):
    """A Matrix wrapping CSR arrays already known to be canonical (sorted rows, no duplicates,
    indices in range; int64, or int32 for a compact matrix): no copy when they are on the
    target device already.  ``values`` None with ``iso_value``: every entry has that value
    (see backends/base.py CSR)."""
    from ..backends.base import CSR
    from ..core.base import resolve_device
    from ..core.matrix import Matrix

    dev, backend = resolve_device(device)
    arrays = [None if a is None else _on(backend, a) for a in (indptr, indices, values)]
    if arrays[2] is not None:
        cast = getattr(backend.xp, "cast_array", None)  # the GPU's own kernels
        arrays[2] = (cast(arrays[2], dtype.np_type, copy=False) if cast else
                     arrays[2].astype(dtype.np_type, copy=False))
    data = CSR(int(nrows), int(ncols), dtype, *arrays, iso_value=iso_value)
    return Matrix._from_data(data, backend, dev, name)


def _on(backend, array):
    """``array`` (NumPy or CuPy) on the backend's device, copied only when it is elsewhere."""
    if backend.xp is np:
        return array if isinstance(array, np.ndarray) else array.get()  # CuPy -> host
    return backend.from_host(array) if isinstance(array, np.ndarray) else array


def vector_from_valid_coo(size, dtype, indices, values, name, device):
    """A Vector wrapping sorted, duplicate-free int64 indices and their values."""
    from ..backends.base import SparseVector
    from ..core.base import resolve_device
    from ..core.vector import Vector

    dev, backend = resolve_device(device)
    indices, values = _on(backend, indices), _on(backend, values)
    data = SparseVector(int(size), dtype, indices, values.astype(dtype.np_type, copy=False))
    return Vector._from_data(data, backend, dev, name)


def _storage(x):
    """The CSR (Matrix, A.T) or SparseVector storage of ``x``, on x's device."""
    from ..core.matrix import Matrix, TransposedMatrix
    from ..core.vector import Vector

    if isinstance(x, (Matrix, TransposedMatrix)):
        return x._csr()
    if isinstance(x, Vector):
        return x._data
    raise TypeError(f"expected a graphblast Matrix or Vector, got {type(x).__name__}")


def _is_vector(x):
    from ..core.vector import Vector

    return isinstance(x, Vector)


# -- SciPy --------------------------------------------------------------------------------


def from_scipy_sparse(A, *, dup_op=None, name=None, device=None):
    """A Matrix from a ``scipy.sparse`` array or matrix.

    Parameters
    ----------
    A : scipy.sparse array or matrix
        Any format.  Stored entries become entries, explicit zeros included.
    dup_op : BinaryOp, optional
        Combines duplicate entries (COO, or CSR/CSC not in canonical form, may have them).
        Without it, duplicates are an error.
    name : str, optional
    device : str, optional

    Notes
    -----
    The Matrix never shares ``A``'s arrays (later writes to ``A`` do not reach it).  A CSR
    array in canonical form (``has_canonical_format``) is copied as it is, without sorting or
    checking for duplicates.
    """
    import scipy.sparse as sp

    if not sp.issparse(A):
        raise TypeError(f"expected a scipy.sparse array or matrix, got {type(A).__name__}")
    nrows, ncols = A.shape
    dtype = _dtype_of(A.dtype, "a SciPy matrix")
    if A.format == "csc":
        A = A.tocsr()  # a linear-time transpose that keeps duplicates (checked below)
    elif A.format in ("lil", "dok", "dia"):
        A = A.tocsr()  # these formats cannot hold duplicates
    if A.format == "csr":
        indptr = A.indptr.astype(np.int64, copy=False)
        indices = A.indices.astype(np.int64, copy=False)
        if A.has_canonical_format and _csr_in_range(indptr, indices, ncols):
            # copies (the CSR storage is immutable; A's arrays stay A's): int32 indices were
            # copied by their conversion already
            return matrix_from_valid_csr(
                nrows, ncols, dtype, indptr.copy() if indptr is A.indptr else indptr,
                indices.copy() if indices is A.indices else indices, A.data.copy(), name,
                device)
        rows = np.repeat(np.arange(nrows, dtype=np.int64), np.diff(indptr))
        cols, values = indices, A.data
    else:
        A = A.tocoo()  # coo and bsr: duplicates stay, for from_coo to refuse or combine
        rows, cols, values = A.row, A.col, A.data
    from ..core.matrix import Matrix

    return Matrix.from_coo(rows, cols, values, dtype, nrows=nrows, ncols=ncols, dup_op=dup_op,
                           name=name, **_device_kwargs(device))


def _csr_in_range(indptr, indices, ncols):
    """SciPy does not always check its arrays: a CSR is only trusted when they are valid."""
    return bool(indptr[0] == 0 and indptr[-1] == indices.shape[0]
                and (indptr[1:] >= indptr[:-1]).all()
                and (indices.shape[0] == 0 or (indices.min() >= 0 and indices.max() < ncols)))


def to_scipy_sparse(A, format="csr"):
    """A ``scipy.sparse`` array from a Matrix or Vector.

    Parameters
    ----------
    A : Matrix or Vector
        A Vector becomes a 1 x n row (an n x 1 column for ``format="csc"``), as in
        python-graphblas.
    format : {"csr", "csc", "coo", "bsr", "lil", "dia", "dok"}, default "csr"

    Notes
    -----
    For a Matrix on the CPU, ``format="csr"`` shares the Matrix's arrays (zero copy), as
    read-only views: writing into the result raises instead of changing the Matrix (copy it,
    ``S.copy()``, to change it).  Other formats and devices copy.
    """
    import scipy.sparse as sp

    fmt = str(format).lower()
    if fmt not in ("bsr", "csr", "csc", "coo", "lil", "dia", "dok"):
        raise InvalidValue(f"Invalid format: {format!r}; expected csr, csc, coo, bsr, lil, dia "
                           "or dok")
    if _is_vector(A):
        indices, values = A.to_coo()
        indices = indices.astype(np.int64)
        if fmt == "csc":
            return sp.csc_array((values, indices, np.array([0, values.shape[0]])),
                                shape=(A.size, 1))
        S = sp.csr_array((values, indices, np.array([0, values.shape[0]])), shape=(1, A.size))
    else:
        data = _storage(A)
        if A.device == "cpu":
            indptr, indices, values = (_read_only(x) for x in (data.indptr, data.indices,
                                                               data.values))
        else:
            indptr, indices, values = A.to_csr()
            indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
        S = sp.csr_array((values, indices, indptr), shape=A.shape, copy=False)
        S.has_canonical_format = True  # the core's invariant: sorted rows, no duplicates
    return S if fmt == "csr" else S.asformat(fmt)


def _read_only(array):
    """A view of ``array`` that cannot be written through."""
    view = array.view()
    view.flags.writeable = False
    return view


# -- NetworkX -----------------------------------------------------------------------------


def from_networkx(G, nodelist=None, dtype=None, weight="weight", name=None, *, device=None):
    """The adjacency Matrix of a NetworkX graph (python-graphblas's signature).

    Parameters
    ----------
    G : networkx.Graph (or DiGraph, MultiGraph ...)
        Undirected graphs give symmetric matrices; parallel edges of multigraphs are summed
        (NetworkX's rule).
    nodelist : list, optional
        Vertex order (default: ``G``'s node order).
    dtype : optional
        Type of the values (default FP64).
    weight : str or None, default "weight"
        Edge attribute holding the value (missing: 1); None gives 1 for every edge.
    name : str, optional
    device : str, optional
    """
    import networkx as nx

    np_dtype = None if dtype is None else lookup_dtype(dtype).np_type
    A = nx.to_scipy_sparse_array(G, nodelist=nodelist, dtype=np_dtype, weight=weight,
                                 format="csr")
    A.sort_indices()
    return from_scipy_sparse(A, name=name, device=device)


def to_networkx(m, edge_attribute="weight"):
    """A ``networkx.DiGraph`` from a square adjacency Matrix.

    Vertices are 0..n-1, all of them (isolated ones included, unlike python-graphblas, which
    adds only those on edges); each stored entry (i, j, x) becomes the edge i -> j with
    ``edge_attribute=x`` (no attribute when ``edge_attribute`` is None).
    """
    import networkx as nx

    if m.nrows != m.ncols:
        raise InvalidValue(f"an adjacency matrix must be square, this one is {m.nrows} x "
                           f"{m.ncols}")
    rows, cols, vals = m.to_coo()
    G = nx.DiGraph()
    G.add_nodes_from(range(m.nrows))
    rows, cols = rows.tolist(), cols.tolist()
    if edge_attribute is None:
        G.add_edges_from(zip(rows, cols))
    else:
        G.add_weighted_edges_from(zip(rows, cols, vals.tolist()), weight=edge_attribute)
    return G


# -- dense NumPy --------------------------------------------------------------------------


def from_numpy(array, missing_value=None, *, dtype=None, name=None, device=None):
    """A Vector (1-D) or Matrix (2-D) from a dense NumPy array.

    Every element becomes an entry, except those equal to ``missing_value`` (NaN works).
    """
    from ..core.matrix import Matrix
    from ..core.vector import Vector

    arr = np.asarray(array)
    if dtype is None:
        dtype = _dtype_of(arr.dtype, "an array")
    if arr.ndim == 1:
        return Vector.from_dense(arr, missing_value, dtype=dtype, name=name,
                                 **_device_kwargs(device))
    if arr.ndim == 2:
        return Matrix.from_dense(arr, missing_value, dtype=dtype, name=name,
                                 **_device_kwargs(device))
    raise InvalidValue(f"from_numpy needs a 1-D or 2-D array, got {arr.ndim}-D")


def to_numpy(x, fill_value=None, dtype=None):
    """A dense NumPy array of a Vector or Matrix; missing entries take ``fill_value``
    (required unless every entry is present)."""
    return x.to_dense(fill_value, dtype)


# -- python-graphblas ---------------------------------------------------------------------


def from_graphblas(x, *, name=None, device=None):
    """A graphblast Matrix or Vector from a python-graphblas one (``A.T`` works too)."""
    try:
        import graphblas
    except ImportError:  # pragma: no cover (python-graphblas is a test dependency)
        raise ImportError("from_graphblas needs python-graphblas") from None
    if isinstance(x, graphblas.core.matrix.TransposedMatrix):
        x = x.new()
    if not isinstance(x, (graphblas.Matrix, graphblas.Vector)):
        raise TypeError(f"expected a python-graphblas Matrix or Vector, got "
                        f"{type(x).__name__}")
    name = x.name if name is None else name
    dtype = _dtype_of(x.dtype.np_type, f"python-graphblas {type(x).__name__}")
    if isinstance(x, graphblas.Matrix):
        indptr, cols, values = x.to_csr()
        return matrix_from_valid_csr(x.nrows, x.ncols, dtype, indptr.astype(np.int64),
                                     cols.astype(np.int64), values, name, device)
    indices, values = x.to_coo()
    return vector_from_valid_coo(x.size, dtype, indices.astype(np.int64), values, name, device)


def to_graphblas(x, *, name=None):
    """A python-graphblas Matrix or Vector with the same type, shape and entries."""
    import graphblas

    name = x.name if name is None else name
    dtype = x.dtype.name
    if _is_vector(x):
        indices, values = x.to_coo()
        return graphblas.Vector.from_coo(indices, values, dtype, size=x.size, name=name)
    indptr, cols, values = x.to_csr()
    return graphblas.Matrix.from_csr(indptr, cols, values, dtype, nrows=x.nrows, ncols=x.ncols,
                                     name=name)


# -- CuPy ---------------------------------------------------------------------------------


def _cupy():
    try:
        import cupy
        import cupyx.scipy.sparse
    except ImportError:
        raise ImportError("this converter needs CuPy: install graphblast[cuda13] (or "
                          "[cuda12])") from None
    return cupy, cupyx.scipy.sparse


def _array_device(array):
    return f"cuda:{array.device.id}"


def from_cupy_sparse(A, *, dup_op=None, name=None, device=None):
    """A Matrix from a ``cupyx.scipy.sparse`` matrix, on A's GPU unless ``device`` says
    otherwise.

    A CSR matrix in canonical form is wrapped without a copy (its indices are converted to
    int64 when they are int32, CuPy's usual choice); other formats go through COO, where
    duplicates are an error unless ``dup_op`` combines them.
    """
    cp, csp = _cupy()
    if not csp.issparse(A):
        raise TypeError(f"expected a cupyx.scipy.sparse matrix, got {type(A).__name__}")
    from ..core.matrix import Matrix

    if device is None:
        device = _array_device(A.data)
    nrows, ncols = A.shape
    dtype = _dtype_of(A.dtype, "a CuPy matrix")
    if A.format == "csr" and A.has_canonical_format:
        return matrix_from_valid_csr(nrows, ncols, dtype, A.indptr.astype(cp.int64, copy=False),
                                     A.indices.astype(cp.int64, copy=False), A.data, name,
                                     device)
    coo = A.tocoo()  # no summing of duplicates: tocoo keeps them
    return Matrix.from_coo(coo.row, coo.col, coo.data, dtype, nrows=nrows, ncols=ncols,
                           dup_op=dup_op, name=name, device=device)


def to_cupy_sparse(A, format="csr"):
    """A ``cupyx.scipy.sparse`` matrix from a Matrix or Vector (a Vector is a 1 x n row).

    A Matrix on a GPU shares its arrays for ``format="csr"`` (read-only); from the CPU the
    arrays are copied to the current GPU.
    """
    cp, csp = _cupy()
    fmt = str(format).lower()
    if fmt not in ("csr", "csc", "coo"):
        raise InvalidValue(f"format must be csr, csc or coo for CuPy, not {format!r}")
    if _is_vector(A):
        data = _storage(A)
        indices = cp.asarray(data.indices)
        indptr = cp.asarray(np.array([0, data.nvals], dtype=np.int64))
        S = csp.csr_matrix((cp.asarray(data.values), indices, indptr), shape=(1, A.size))
    else:
        data = _storage(A)
        S = csp.csr_matrix((cp.asarray(data.values), cp.asarray(data.indices),
                            cp.asarray(data.indptr)), shape=A.shape, copy=False)
        S.has_canonical_format = True
    return S if fmt == "csr" else S.asformat(fmt)


def from_cupy(array, missing_value=None, *, dtype=None, name=None, device=None):
    """A Vector (1-D) or Matrix (2-D) from a dense CuPy array (see :func:`from_numpy`), on
    its GPU unless ``device`` says otherwise; the entries are found there, with no trip
    through host memory."""
    cp, _ = _cupy()
    if not isinstance(array, cp.ndarray):
        raise TypeError(f"expected a CuPy array, got {type(array).__name__}")
    if device is None:
        device = _array_device(array)
    return _from_device_dense(array, missing_value, dtype, name, device)


def _from_device_dense(arr, missing_value, dtype, name, device):
    """:func:`from_numpy` for a CuPy array: positions and values computed on its GPU."""
    from ..core.matrix import Matrix
    from ..core.vector import Vector

    cp, _ = _cupy()
    if dtype is None:
        dtype = _dtype_of(arr.dtype, "an array")
    if arr.ndim not in (1, 2):
        raise InvalidValue(f"from_cupy needs a 1-D or 2-D array, got {arr.ndim}-D")
    with cp.cuda.Device(arr.device.id):
        if missing_value is None:
            keep = cp.ones(arr.shape, dtype=bool)
        elif isinstance(missing_value, float) and np.isnan(missing_value):
            keep = ~cp.isnan(arr)
        else:
            keep = arr != missing_value
        positions = cp.nonzero(keep)
        values = arr[positions]
    if arr.ndim == 1:
        return Vector.from_coo(positions[0], values, dtype, size=arr.shape[0], name=name,
                               device=device)
    return Matrix.from_coo(positions[0], positions[1], values, dtype, nrows=arr.shape[0],
                           ncols=arr.shape[1], name=name, device=device)


def to_cupy(x, fill_value=None, dtype=None):
    """A dense CuPy array of a Vector or Matrix (see :func:`to_numpy`), filled on the
    object's GPU (from the CPU: built on the host, then copied to the current GPU)."""
    cp, _ = _cupy()
    if x.device == "cpu":
        return cp.asarray(to_numpy(x, fill_value, dtype))
    from ..core.base import dense_fill

    dt, fill = dense_fill(x, fill_value, dtype)
    data = _storage(x)
    with cp.cuda.Device(int(x.device.split(":")[1])):
        out = cp.zeros(x.shape, dtype=dt.np_type)
        if fill is not None:
            out[...] = fill
        values = cast(data.values, dt, xp=cp)
        if _is_vector(x):
            out[data.indices] = values
        else:
            rows, cols, _ = x._backend.matrix_to_coo(data)
            out[rows, cols] = values
    return out


# -- PyTorch ------------------------------------------------------------------------------


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("this converter needs PyTorch") from None
    return torch


def _from_dlpack(tensor):
    """A NumPy or CuPy array sharing a tensor's memory (through DLPack)."""
    if tensor.device.type == "cuda":
        cp, _ = _cupy()
        return cp.from_dlpack(tensor.detach())
    return np.from_dlpack(tensor.detach().cpu())


def _to_dlpack(array):
    torch = _torch()
    return torch.from_dlpack(array)


def from_torch(t, *, dup_op=None, missing_value=None, dtype=None, name=None, device=None):
    """A Vector or Matrix from a PyTorch tensor: dense (1-D or 2-D), ``sparse_coo`` or
    ``sparse_csr``.

    Dense and CSR tensors are read through DLPack (on the tensor's device, without a trip
    through the host; the Matrix keeps copies, never the tensor's memory); COO
    tensors are read without coalescing, so duplicates are an error unless ``dup_op`` is given.
    The default device is the tensor's (``cuda:N`` for a GPU tensor).
    """
    torch = _torch()
    from ..core.matrix import Matrix
    from ..core.vector import Vector

    if device is None:
        device = "cpu" if t.device.type == "cpu" else f"cuda:{t.device.index or 0}"
    if t.layout == torch.strided:
        arr = _from_dlpack(t)
        if isinstance(arr, np.ndarray):
            return from_numpy(arr, missing_value, dtype=dtype, name=name, device=device)
        return _from_device_dense(arr, missing_value, dtype, name, device)
    if t.layout == torch.sparse_csr:
        # GPU tensors stay on their GPU: Matrix.from_csr validates CuPy arrays there
        indptr = _from_dlpack(t.crow_indices()).astype(np.int64)
        cols = _from_dlpack(t.col_indices()).astype(np.int64)
        values = _from_dlpack(t.values())
        out_type = lookup_dtype(dtype) if dtype is not None else _dtype_of(values.dtype,
                                                                            "a tensor")
        return Matrix.from_csr(indptr, cols, values, out_type, ncols=t.shape[1], name=name,
                               device=device)
    if t.layout == torch.sparse_coo:
        indices = _from_dlpack(t._indices()).astype(np.int64)
        values = _from_dlpack(t._values())
        out_type = lookup_dtype(dtype) if dtype is not None else _dtype_of(values.dtype,
                                                                            "a tensor")
        if t.sparse_dim() == 1 and t.dense_dim() == 0:
            return Vector.from_coo(indices[0], values, out_type, size=t.shape[0],
                                   dup_op=dup_op, name=name, device=device)
        if t.sparse_dim() == 2 and t.dense_dim() == 0:
            return Matrix.from_coo(indices[0], indices[1], values, out_type, nrows=t.shape[0],
                                   ncols=t.shape[1], dup_op=dup_op, name=name, device=device)
    raise InvalidValue(f"cannot convert a tensor with layout {t.layout} and shape "
                       f"{tuple(t.shape)}: use a 1-D or 2-D dense, sparse_coo or sparse_csr "
                       "tensor")


def to_torch(x, layout="sparse_csr", fill_value=None):
    """A PyTorch tensor from a Vector or Matrix, on the same device.

    Parameters
    ----------
    layout : {"sparse_csr", "sparse_coo", "dense"}, default "sparse_csr"
        "sparse_csr" (Matrix only) shares the Matrix's arrays through DLPack; "dense" needs
        ``fill_value`` unless every entry is present.  A Vector gives a 1-D sparse_coo tensor
        (or a dense one).
    """
    torch = _torch()
    if layout not in ("sparse_csr", "sparse_coo", "dense"):
        raise InvalidValue(f"layout must be 'sparse_csr', 'sparse_coo' or 'dense', not "
                           f"{layout!r}")
    if layout == "dense":
        return _to_dlpack(to_numpy(x, fill_value) if x.device == "cpu" else
                          to_cupy(x, fill_value))
    data = _storage(x)
    values = _to_dlpack(data.values)
    if _is_vector(x):
        indices = _to_dlpack(data.indices).reshape(1, -1)
        return torch.sparse_coo_tensor(indices, values, (x.size,), is_coalesced=True,
                                       check_invariants=False)
    if layout == "sparse_coo":
        rows, cols, _ = x._backend.matrix_to_coo(data)  # on x's device
        idx = _to_dlpack(x._backend.xp.stack((rows, cols)))
        return torch.sparse_coo_tensor(idx, values, x.shape, is_coalesced=True,
                                       check_invariants=False)
    # graphblast's CSR already satisfies the invariants torch would check
    return torch.sparse_csr_tensor(_to_dlpack(data.indptr), _to_dlpack(data.indices), values,
                                   x.shape, check_invariants=False)
