"""Converters: SciPy, NetworkX, dense NumPy, python-graphblas, CuPy and PyTorch."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast as gb
from graphblast import dtypes
from graphblast.exceptions import InvalidValue


def _matrix(rng, device, dtype=dtypes.FP64, nrows=20, ncols=15, n=80):
    # no zeros: SciPy's DIA format cannot keep an explicit zero
    values = rng.integers(1, 50, n).astype(dtype.np_type)
    return gb.Matrix.from_coo(rng.integers(0, nrows, n), rng.integers(0, ncols, n), values,
                              dtype, nrows=nrows, ncols=ncols, dup_op=gb.binary.first,
                              device=device)


def _same_entries(A, S):
    """A graphblast Matrix and a SciPy (or CuPy) sparse matrix hold the same entries."""
    S = S.tocoo()
    order = np.lexsort((S.col, S.row))
    r, c, v = A.to_coo()
    np.testing.assert_array_equal(r, S.row[order])
    np.testing.assert_array_equal(c, S.col[order])
    np.testing.assert_array_equal(v, S.data[order])


# -- SciPy --------------------------------------------------------------------------------


def test_scipy_roundtrip_every_format(rng, device):
    A = _matrix(rng, device)
    for fmt in ("csr", "csc", "coo", "lil", "dok", "bsr", "dia"):
        S = gb.io.to_scipy_sparse(A, fmt)
        assert S.format == fmt and S.shape == A.shape
        B = gb.io.from_scipy_sparse(S, device=device)
        assert B.isequal(A, check_dtype=True), fmt


def test_scipy_zero_copy_export_on_cpu(rng):
    """The CPU's CSR export shares the Matrix's arrays, read-only; an import copies (the
    Matrix never shares the caller's arrays), whatever the index width."""
    A = _matrix(rng, "cpu")
    S = gb.io.to_scipy_sparse(A)
    indptr, indices, values = A._csr().indptr, A._csr().indices, A._csr().values
    assert np.shares_memory(S.data, values) and np.shares_memory(S.indices, indices)
    assert np.shares_memory(S.indptr, indptr)
    assert not (S.data.flags.writeable or S.indices.flags.writeable or S.indptr.flags.writeable)
    B = gb.io.from_scipy_sparse(S, device="cpu")  # (the default device may be a GPU)
    assert B.isequal(A, check_dtype=True)
    assert not np.shares_memory(B._csr().values, S.data)
    assert not np.shares_memory(B._csr().indices, S.indices)
    S32 = sp.csr_array((S.data, S.indices.astype(np.int32), S.indptr.astype(np.int32)),
                       shape=S.shape)
    C = gb.io.from_scipy_sparse(S32, device="cpu")
    assert C.isequal(A) and not np.shares_memory(C._csr().values, S32.data)


def test_scipy_explicit_zeros_duplicates_and_unsorted(device):
    S = sp.coo_array(([0.0, 2.0, 3.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    with pytest.raises(InvalidValue, match="Duplicate"):
        gb.io.from_scipy_sparse(S, device=device)
    A = gb.io.from_scipy_sparse(S, dup_op=gb.binary.plus, device=device)
    assert A.to_dense(-1).tolist() == [[-1, 2], [3, -1]]
    Z = gb.io.from_scipy_sparse(sp.csr_array(([0.0], [1], [0, 1, 1]), shape=(2, 2)),
                                device=device)
    assert Z.nvals == 1  # an explicit zero is an entry
    unsorted = sp.csr_array(([1.0, 2.0], [2, 0], [0, 2]), shape=(1, 3))
    assert not unsorted.has_canonical_format
    U = gb.io.from_scipy_sparse(unsorted, device=device)
    assert U.to_coo()[1].tolist() == [0, 2]
    with pytest.raises(TypeError):
        gb.io.from_scipy_sparse(np.eye(2))
    with pytest.raises(InvalidValue, match="cannot become"):
        gb.io.from_scipy_sparse(sp.csr_array(np.eye(2, dtype=np.complex128)))


def test_scipy_vectors_and_transposes(rng, device):
    v = gb.Vector.from_coo([1, 4], [2.0, 3.0], size=6, device=device)
    assert gb.io.to_scipy_sparse(v).shape == (1, 6)
    assert gb.io.to_scipy_sparse(v, "csc").shape == (6, 1)
    assert gb.io.to_scipy_sparse(v, "coo").nnz == 2
    A = _matrix(rng, device)
    _same_entries(A.T.new(), gb.io.to_scipy_sparse(A.T))
    with pytest.raises(InvalidValue, match="Invalid format"):
        gb.io.to_scipy_sparse(A, "xyz")


# -- NetworkX -----------------------------------------------------------------------------


def test_networkx(device):
    G = nx.Graph()
    G.add_edge("a", "b", weight=2.5)
    G.add_edge("b", "c")
    G.add_node("isolated")
    A = gb.io.from_networkx(G, device=device)
    assert A.shape == (4, 4) and A.nvals == 4 and A.isequal(A.T.new())
    assert A.to_dense(0)[0, 1] == 2.5 and A.to_dense(0)[1, 2] == 1.0
    B = gb.io.from_networkx(G, nodelist=["c", "b", "a", "isolated"], weight=None, dtype=int,
                            device=device)
    assert B.dtype == dtypes.INT64 and B.to_dense(0)[0, 1] == 1
    D = gb.io.to_networkx(A)
    assert isinstance(D, nx.DiGraph) and D.number_of_nodes() == 4  # isolated kept
    assert D[0][1]["weight"] == 2.5
    E = gb.io.to_networkx(A, edge_attribute=None)
    assert E.number_of_edges() == 4 and not E[0][1]
    assert gb.io.from_networkx(D, device=device).isequal(A)
    with pytest.raises(InvalidValue, match="square"):
        gb.io.to_networkx(gb.Matrix(dtypes.FP64, 2, 3))


# -- dense --------------------------------------------------------------------------------


def test_numpy(device):
    dense = np.array([[1, 0], [np.nan, 4]])
    A = gb.io.from_numpy(dense, device=device)
    assert A.nvals == 4 and A.dtype == dtypes.FP64
    M = gb.io.from_numpy(dense, missing_value=np.nan, device=device)
    assert M.nvals == 3
    np.testing.assert_array_equal(gb.io.to_numpy(M, fill_value=-1), [[1, 0], [-1, 4]])
    v = gb.io.from_numpy(np.array([True, False]), device=device)
    assert v.size == 2 and v.dtype == dtypes.BOOL
    assert gb.io.to_numpy(v).tolist() == [True, False]
    with pytest.raises((TypeError, ValueError), match="fill_value"):
        gb.io.to_numpy(M)
    with pytest.raises(InvalidValue, match="1-D or 2-D"):
        gb.io.from_numpy(np.zeros((2, 2, 2)))


# -- python-graphblas ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", dtypes.ALL_TYPES, ids=str)
def test_python_graphblas_roundtrip(rng, device, dtype):
    import graphblas

    A = _matrix(rng, device, dtype)
    P = gb.io.to_graphblas(A)
    assert isinstance(P, graphblas.Matrix) and P.dtype.name == dtype.name
    assert P.nvals == A.nvals and P.name == A.name
    B = gb.io.from_graphblas(P, device=device)
    assert B.isequal(A, check_dtype=True)
    assert gb.io.from_graphblas(P.T, device=device).isequal(A.T.new())
    v = gb.Vector.from_coo([0, 3], np.array([1, 0], dtype=dtype.np_type), dtype, size=5,
                           device=device)
    w = gb.io.to_graphblas(v)
    assert isinstance(w, graphblas.Vector) and w.size == 5
    assert gb.io.from_graphblas(w, device=device).isequal(v, check_dtype=True)


def test_python_graphblas_wrong_types():
    with pytest.raises(TypeError):
        gb.io.from_graphblas(np.zeros(3))


# -- CuPy (only where CuPy and a GPU are present) ----------------------------------------------


def test_cupy_sparse_roundtrip(rng):
    cp = pytest.importorskip("cupy")
    import cupyx.scipy.sparse as csp

    A = _matrix(rng, "cuda")
    S = gb.io.to_cupy_sparse(A)
    assert isinstance(S, csp.csr_matrix) and S.shape == A.shape
    data = A._csr()
    assert S.data.data.ptr == data.values.data.ptr  # shared, not copied
    B = gb.io.from_cupy_sparse(S)
    assert B.device.startswith("cuda") and B.isequal(A, check_dtype=True)
    for fmt in ("csc", "coo"):
        assert gb.io.from_cupy_sparse(gb.io.to_cupy_sparse(A, fmt)).isequal(A)
    host = _matrix(rng, "cpu")
    C = gb.io.from_cupy_sparse(gb.io.to_cupy_sparse(host), device="cpu")
    assert C.device == "cpu" and C.isequal(host)
    dup = csp.coo_matrix((cp.array([1.0, 2.0]), (cp.array([0, 0]), cp.array([1, 1]))),
                         shape=(2, 2))
    with pytest.raises(InvalidValue, match="Duplicate"):
        gb.io.from_cupy_sparse(dup)
    assert gb.io.from_cupy_sparse(dup, dup_op=gb.binary.plus).to_coo()[2].tolist() == [3.0]


def test_cupy_dense(rng):
    cp = pytest.importorskip("cupy")
    dense = cp.asarray(rng.standard_normal((4, 3)))
    A = gb.io.from_cupy(dense)
    assert A.device.startswith("cuda") and A.nvals == 12
    back = gb.io.to_cupy(A)
    assert isinstance(back, cp.ndarray)
    cp.testing.assert_array_equal(back, dense)
    v = gb.io.from_cupy(cp.arange(5), missing_value=0)
    assert v.nvals == 4


# -- PyTorch (only where it is installed) ------------------------------------------------------


@pytest.fixture
def torch_on_gpu():
    """PyTorch, where it and CuPy can use a GPU (else the test is skipped)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("cupy")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch was built without CUDA here")
    return torch


def test_torch_dense_and_sparse(rng):
    torch = pytest.importorskip("torch")
    A = _matrix(rng, "cpu")
    T = gb.io.to_torch(A)
    assert T.layout == torch.sparse_csr and tuple(T.shape) == A.shape
    np.testing.assert_array_equal(T.to_dense().numpy(), A.to_dense(0))
    assert gb.io.from_torch(T).isequal(A, check_dtype=True)
    C = gb.io.to_torch(A, "sparse_coo")
    assert C.layout == torch.sparse_coo and gb.io.from_torch(C).isequal(A)
    D = gb.io.to_torch(A, "dense", fill_value=0)
    assert D.layout == torch.strided
    np.testing.assert_array_equal(D.numpy(), A.to_dense(0))
    assert gb.io.from_torch(D, missing_value=0).isequal(A.select("!=", 0).new())
    v = gb.Vector.from_coo([1, 3], [2.0, 5.0], size=4)
    tv = gb.io.to_torch(v)
    assert tv.layout == torch.sparse_coo and tv.to_dense().tolist() == [0, 2, 0, 5]
    assert gb.io.from_torch(tv).isequal(v)
    dup = torch.sparse_coo_tensor(torch.tensor([[0, 0], [1, 1]]), torch.tensor([1.0, 2.0]),
                                  (2, 2))
    with pytest.raises(InvalidValue, match="Duplicate"):
        gb.io.from_torch(dup)
    assert gb.io.from_torch(dup, dup_op=gb.binary.plus).to_coo()[2].tolist() == [3.0]
    with pytest.raises(InvalidValue, match="layout"):
        gb.io.to_torch(A, "blocked")


def test_torch_on_gpu(rng, torch_on_gpu):
    torch = torch_on_gpu
    A = _matrix(rng, "cuda")
    T = gb.io.to_torch(A)
    assert T.device.type == "cuda"
    B = gb.io.from_torch(T)
    assert B.device.startswith("cuda") and B.isequal(A, check_dtype=True)
    dense = torch.arange(6.0, device="cuda").reshape(2, 3)
    assert gb.io.from_torch(dense).nvals == 6


def test_cupy_dense_stays_on_the_gpu_and_matches_numpy(rng):
    cp = pytest.importorskip("cupy")
    dense = rng.standard_normal((5, 4))
    dense[dense < 0] = np.nan
    for missing in (None, np.nan):
        want = gb.io.from_numpy(dense, missing, device="cpu")
        got = gb.io.from_cupy(cp.asarray(dense), missing)
        assert got.device.startswith("cuda") and got.dtype == want.dtype
        for x, y in zip(got.to_coo(), want.to_coo()):
            np.testing.assert_array_equal(x, y)  # NaN entries too (missing=None keeps them)
    ints = rng.integers(0, 3, (6, 3))
    got = gb.io.from_cupy(cp.asarray(ints), 0, dtype="INT8")
    assert got.dtype == gb.dtypes.INT8 and got.nvals == int((ints != 0).sum())
    on_cpu = gb.io.from_cupy(cp.asarray(ints), 0, device="cpu")
    assert on_cpu.device == "cpu" and on_cpu.nvals == int((ints != 0).sum())
    v = gb.io.from_cupy(cp.asarray([0.0, 1.5, 0.0, 2.0]), 0.0)
    assert v.to_coo()[0].tolist() == [1, 3]
    with pytest.raises(InvalidValue, match="1-D or 2-D"):
        gb.io.from_cupy(cp.zeros((2, 2, 2)))
    A = _matrix(rng, "cuda")
    for x in (A, A.T):
        back = gb.io.to_cupy(x, fill_value=0, dtype="FP32")
        assert back.dtype == np.float32
        np.testing.assert_array_equal(cp.asnumpy(back), x.to_dense(0, "FP32"))
    with pytest.raises(TypeError, match="fill_value"):
        gb.io.to_cupy(A)
    w = gb.Vector.from_coo([1, 3], [2, 5], size=5, device="cuda")
    assert gb.io.to_cupy(w, fill_value=-1).tolist() == [-1, 2, -1, 5, -1]


def test_torch_gpu_layouts(rng, torch_on_gpu):
    torch = torch_on_gpu
    A = _matrix(rng, "cuda")
    for layout in ("sparse_csr", "sparse_coo"):
        T = gb.io.to_torch(A, layout)
        assert T.device.type == "cuda"
        assert gb.io.from_torch(T).isequal(A, check_dtype=True)
    D = gb.io.to_torch(A, "dense", fill_value=0)
    assert D.device.type == "cuda"
    np.testing.assert_array_equal(D.cpu().numpy(), A.to_dense(0))
    dup = torch.sparse_coo_tensor(torch.tensor([[0, 0], [1, 1]]), torch.tensor([1.0, 2.0]),
                                  (2, 2)).cuda()
    with pytest.raises(InvalidValue, match="Duplicate"):
        gb.io.from_torch(dup)
    assert gb.io.from_torch(dup, dup_op=gb.binary.plus).to_coo()[2].tolist() == [3.0]
