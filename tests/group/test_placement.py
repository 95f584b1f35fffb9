"""Placing objects on device groups: the spelling, the row split, moving between devices, and
the errors of mixing devices."""

import numpy as np
import pytest
import scipy.sparse as sp
from grouphelp import GPU_GROUPS, PARTS, group_of, matrix, reset_traffic, traffic, vector

import graphblast as gb
from graphblast import Matrix, Vector, binary, semiring
from graphblast.backends import cuda_available, get_backend, parse_device
from graphblast.backends.group.storage import PartitionedCSR, PartitionedVector
from graphblast.exceptions import DeviceMismatch, InvalidValue


@pytest.mark.parametrize("spec, name", [
    ("cpu:0-3", "cpu:0-3"), ("CPU:0-1", "cpu:0-1"), ("cpu: 0 - 2", "cpu:0-2"),
    ("cuda:0-3", "cuda:0-3"), ("cuda:0,2", "cuda:0,2"), ("gpu:1,0", "cuda:0-1"),
    ("cuda:3,0-2", "cuda:0-3"), ("cuda:0-1,4,6-7", "cuda:0-1,4,6-7"),
    (("cuda:2", "cuda:0"), "cuda:0,2"), (["cpu:0", "cpu:1", "cpu:2"], "cpu:0-2"),
    # a group of one is that device
    ("cpu:0", "cpu"), ("cpu:5-5", "cpu"), ("cuda:1-1", "cuda:1"), (("cuda:2",), "cuda:2"),
    (["cuda"], "cuda:0"),
    # the single devices are unchanged
    ("cpu", "cpu"), ("cuda", "cuda:0"), ("cuda:3", "cuda:3"),
])
def test_spelling(spec, name):
    assert parse_device(spec) == name


@pytest.mark.parametrize("spec, words", [
    ("cuda:3-1", "runs backwards"), ("cuda:0,0", "listed twice"),
    (("cuda:1", "cuda:1"), "listed twice"), (("cuda:0", "cpu:1"), "mixes"),
    ((), "empty"), (("cuda:0-1", "cuda:2"), "not a single device"), (("cuda:0", 1), "not a"),
    ("cuda:a-b", "neither a number"), ("tpu:0-1", "no kind"), ("cpu:", "no kind"),
    ("cpu:0-999", "more than 256"), ("tpu", "Unknown device"), (7, "Unknown device"),
])
def test_bad_spelling(spec, words):
    with pytest.raises(InvalidValue, match=words):
        parse_device(spec)
    with pytest.raises(InvalidValue):
        Vector("INT64", 3, device=spec)


@pytest.mark.skipif(cuda_available(), reason="this machine has a GPU")
def test_gpu_group_without_gpu():
    with pytest.raises(InvalidValue, match="cpu:0-3"):
        Matrix("FP64", 3, 3, device="cuda:0-1")


def test_devices_of_objects(rng):
    A = Matrix("INT64", 5, 5, device=("cpu:2", "cpu:0"))
    assert A.device == "cpu:0,2" and isinstance(A._data, PartitionedCSR)
    assert len(A._data.parts) == 2
    v = Vector.from_coo([1], [2], size=5, device="cpu:0-2")
    assert v.device == "cpu:0-2" and len(v._data.parts) == 3
    with gb.config.set(device="cpu:0-3"):
        w = Vector("FP64", 4)
        assert w.device == "cpu:0-3"
        assert gb.default_device() == "cpu:0-3"
    assert Matrix.from_coo([0], [1], 1.0).device == gb.default_device()
    assert "cpu:0-3" in repr(w)
    assert get_backend("cpu:0-3") is get_backend(parse_device(("cpu:0", "cpu:1", "cpu:2",
                                                               "cpu:3")))


def test_to_device_round_trips(rng):
    A = matrix(rng, 17, 9, 0.4, "INT32")
    v = vector(rng, 17, 0.5, "FP32")
    S = A.mxm(A.T).new()
    S._data.symmetric = True
    for device in ["cpu:0-1", "cpu:0-3", "cpu:0,5,9"]:
        G, u, T = A.to_device(device), v.to_device(device), S.to_device(device)
        assert G.device == u.device == T.device == device
        assert T.is_symmetric
        assert G.to_device(device) is G
        back = G.to_device("cpu")
        assert back.device == "cpu" and back.isequal(A, check_dtype=True)
        assert u.to_device("cpu").isequal(v, check_dtype=True)
        other = G.to_device("cpu:0-2")  # group to group
        assert other.to_device("cpu").isequal(A) and other._data.bounds.shape == (4,)
        assert G.name == A.name


def test_rows_split_by_entries():
    """Block k starts where the prefix sum of the row lengths reaches k * nnz / p: a heavy
    first row is a block of its own, the light rows share the others."""
    n = 40
    rows = np.r_[np.zeros(30, int), np.arange(1, n)]
    cols = np.r_[np.arange(30), np.zeros(n - 1, int)]
    A = Matrix.from_coo(rows, cols, 1, "INT64", nrows=n, ncols=n).to_device("cpu:0-3")
    bounds = A._data.bounds
    assert bounds[0] == 0 and bounds[-1] == n and np.all(np.diff(bounds) >= 0)
    assert bounds[1] == 1  # row 0 holds 30 of the 69 entries: more than a quarter
    sizes = [part.nvals for part in A._data.parts]
    assert sum(sizes) == A.nvals and max(sizes[1:]) <= 69 // 4 + 1
    # no matrix of 97 rows was placed on the group (in any test): split by position
    empty = Matrix("FP64", 97, 97, device="cpu:0-3")
    assert empty._data.nvals == 0 and np.array_equal(empty._data.bounds, [0, 24, 48, 72, 97])


def test_vectors_share_the_matrix_split(rng):
    """Vectors made after a matrix of their size is placed take its row split, so a
    product's result meets them without moving anything; a size no matrix has is split by
    position."""
    device = "cpu:0-3"
    A = matrix(rng, 30, 30, 0.2, "FP64").to_device(device)
    A[0, :] = 1.0  # a heavy row moves the boundaries away from equal positions
    u = Vector.from_scalar(1.0, 30, device=device)
    w = Vector("FP64", 30, device=device)
    assert np.array_equal(u._data.bounds, A._data.bounds)
    assert np.array_equal(w._data.bounds, A._data.bounds)
    assert not np.array_equal(A._data.bounds, [0, 7, 15, 22, 30])
    # no matrix of 101 rows was placed on the group (in any test): split by position
    assert np.array_equal(Vector("FP64", 101, device=device)._data.bounds, [0, 25, 50, 75, 101])
    reset_traffic(device)
    w << A.mxv(u)
    w(binary.plus) << w.ewise_mult(u)
    moved = traffic(device)
    assert set(moved) == {"mxv"}  # the gather of u; the element-wise work moved nothing
    assert isinstance(w._data, PartitionedVector)


def test_wide_matrix_layouts(rng):
    """A 6 x 20 matrix: u' A has the column dimension's split, A u the rows'."""
    device = "cpu:0-2"
    A = matrix(rng, 6, 20, 0.5, "INT64").to_device(device)
    u6, u20 = vector(rng, 6, 0.5, "INT64"), vector(rng, 20, 0.5, "INT64")
    left = u6.to_device(device).vxm(A).new()
    right = A.mxv(u20.to_device(device)).new()
    assert np.array_equal(left._data.bounds, get_backend(device).layout(20))
    assert np.array_equal(right._data.bounds, A._data.bounds)
    assert left.to_device("cpu").isequal(u6.vxm(A.to_device("cpu")).new())


def test_io_and_memory(rng):
    S = sp.random(15, 15, density=0.3, random_state=3, format="csr")
    A = gb.io.from_scipy_sparse(S, device="cpu:0-2")
    assert isinstance(A._data, PartitionedCSR) and A.device == "cpu:0-2"
    assert np.allclose(gb.io.to_scipy_sparse(A).toarray(), S.toarray())
    assert A.memory_usage() >= A.nvals * 16
    A.T.new()  # the transpose is cached with A and counted
    assert A.memory_usage() >= A.nvals * 32


@pytest.mark.parametrize("other", ["cpu", "cpu:0-2"])
def test_mixing_devices_raises(rng, other):
    device = "cpu:0-3"
    A = matrix(rng, 8, 8, 0.4, "INT64")
    u = vector(rng, 8, 0.5, "INT64")
    positions = Vector.from_coo([0, 1, 2], [5, 2, 7], "INT64", size=8)
    G, g, at = A.to_device(device), u.to_device(device), positions.to_device(device)
    A2, u2, at2 = A.to_device(other), u.to_device(other), positions.to_device(other)
    for bad in [lambda: G.mxv(u2), lambda: u2.vxm(G), lambda: G.ewise_add(A2),
                lambda: g.ewise_mult(u2), lambda: G.mxm(A2), lambda: G.isequal(A2),
                lambda: g.isequal(u2), lambda: g[at2].new(), lambda: G.kronecker(A2)]:
        with pytest.raises(DeviceMismatch):
            bad()
    w = Vector("INT64", 8, device=device)
    with pytest.raises(DeviceMismatch):
        w << A2.mxv(u2)  # the output on another device
    with pytest.raises(DeviceMismatch):
        w(u2.S) << G.mxv(g)  # the mask on another device
    with pytest.raises(DeviceMismatch):
        w(binary.plus)[at] << u2
    assert w.nvals == 0  # nothing was written
    assert G.mxv(g, semiring.plus_times).new().to_device(other).isequal(A2.mxv(u2).new())


def test_place_keeps_name_symmetry_and_split():
    """group.place gives what to_device gives (the same row split), and blocks built on the
    members themselves make a matrix with their boundaries as the layout."""
    from graphblast.backends.cpu import backend as cpu
    from graphblast.backends.group import place
    from graphblast.generators import kron

    A = kron(9, device="cpu")
    G, H = place(A, "cpu:0-2"), A.to_device("cpu:0-2")
    assert G.device == "cpu:0-2" and G.is_symmetric and G.name == A.name
    assert np.array_equal(G._data.bounds, H._data.bounds)
    assert G.to_device("cpu").isequal(A, check_dtype=True)
    assert place(G, "cpu:0-2") is G and place(A, "cpu") is A
    # blocks made where they live (as a generator on each GPU makes them)
    n, bounds = A.nrows, np.array([0, 100, 100, A.nrows])
    indptr, indices, values = A.to_csr()
    backend = get_backend("cpu:0-2")
    parts = [cpu.matrix_from_csr(int(hi - lo), n, A.dtype, indptr[lo:hi + 1] - indptr[lo],
                                 indices[indptr[lo]:indptr[hi]], values[indptr[lo]:indptr[hi]])
             for lo, hi in zip(bounds[:-1], bounds[1:])]
    data = backend.place_blocks(n, n, A.dtype, parts, bounds, symmetric=True)
    B = Matrix._from_data(data, backend, "cpu:0-2", "kron9")
    assert B.is_symmetric and B.to_device("cpu").isequal(A, check_dtype=True)
    assert np.array_equal(Vector("FP64", n, device="cpu:0-2")._data.bounds, bounds)
    with pytest.raises(ValueError, match="do not split"):
        backend.place_blocks(n, n, A.dtype, parts, [0, 100, n], symmetric=True)
    with pytest.raises(ValueError, match="block 0"):
        backend.place_blocks(n, n, A.dtype, parts, [0, 99, 100, n], symmetric=True)


@pytest.mark.skipif(not GPU_GROUPS, reason="GPU groups: GRAPHBLAST_GROUP_KIND=cuda on GPUs")
def test_place_from_one_gpu():
    """A compact graph on cuda:0 placed on the GPU group GPU to GPU: the row split
    to_device gives, every block on its own GPU and still compact, the same answers."""
    from graphblast.algorithms import bfs
    from graphblast.backends.group import place
    from graphblast.generators import kron

    device = group_of(max(PARTS))
    A = kron(12, device="cuda:0")
    assert A._data.iso_value is not None  # compact on the GPU
    G, H = place(A, device), A.to_device(device)
    assert G.device == device and G.is_symmetric
    assert np.array_equal(G._data.bounds, H._data.bounds)
    members = get_backend(device).members
    for part, member in zip(G._data.parts, members):
        assert part.indptr.device.id == member.device_id
        assert part.stored_indices.device.id == member.device_id
        assert part.iso_value is not None and not part.has_values
    assert G.to_device("cpu").isequal(A.to_device("cpu"), check_dtype=True)
    assert bfs(G, 3).to_device("cpu").isequal(bfs(A, 3).to_device("cpu"))



@pytest.mark.parametrize("size", [2, 3])
def test_positional_operations_leave_compact_blocks_compact(size):
    """tril, a column bound, a row bound and rowindex on a graph whose blocks are compact
    (32-bit indices, no values, as a generator makes them on each GPU): the single device's
    answers, and no block widened by them (a block is shown in global coordinates through a
    view that shares its stored arrays, and what the operation widens is the view's)."""
    from graphblast import indexunary, select
    from graphblast.backends.base import CSR
    from graphblast.generators import kron

    A = kron(9, device="cpu")
    n, indptr, indices = A.nrows, *A.to_csr()[:2]
    bounds = np.linspace(0, n, size + 1).astype(np.int64)
    parts = [CSR(int(hi - lo), n, A.dtype, indptr[lo:hi + 1] - indptr[lo],
                 indices[indptr[lo]:indptr[hi]].astype(np.int32), None, iso_value=np.True_)
             for lo, hi in zip(bounds[:-1], bounds[1:])]
    device = f"cpu:0-{size - 1}"
    G = Matrix._from_data(get_backend(device).place_blocks(n, n, A.dtype, parts, bounds),
                          get_backend(device), device, "kron9")
    for op, thunk in ((select.tril, -1), (select.colle, 100), (select.rowgt, 300)):
        got = G.select(op, thunk).new().to_device("cpu")
        assert got.isequal(A.select(op, thunk).new(), check_dtype=True), op
    got = G.apply(indexunary.rowindex, 0).new().to_device("cpu")
    assert got.isequal(A.apply(indexunary.rowindex, 0).new(), check_dtype=True)
    for block in G._data.parts:
        assert block._wide is None and not block.has_values
