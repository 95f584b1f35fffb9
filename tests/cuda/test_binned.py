"""Products by propagation blocking (backends/cuda/binned.py): ``u' B`` over a matrix's binned
layout, with a full ``u``, against the CPU backend's ``u' A``, for the monoids and widths the
layout serves, in every shape of its work (rows in degree bins or not, heavy rows in chunks,
a bin longer than one fold chunk, empty rows and columns, a rectangular matrix); and what it
does not serve (a mask, a sparse vector, an `any` monoid, another width) goes the ordinary
way over the same matrix.  Runs where CuPy and a GPU are usable."""

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from graphblast import Matrix, Vector, semiring  # noqa: E402
from graphblast.backends import cuda_available  # noqa: E402
from graphblast.backends.cuda import binned, blocks  # noqa: E402
from graphblast.dtypes import BOOL, FP32, FP64, INT32, INT64  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no usable GPU")


def _graph(rng, nrows, ncols, density, dense_block=None, heavy_rows=0):
    """(rows, cols) of a random matrix, with a dense block of (rows, columns) in its first
    columns (a bin longer than a fold chunk) and a few rows of 10,000 entries (heavy)."""
    nnz = int(nrows * ncols * density)
    r = rng.integers(0, nrows, nnz)
    c = rng.integers(0, ncols, nnz)
    parts_r, parts_c = [r], [c]
    if dense_block:
        br, bc = dense_block
        rr, cc = np.meshgrid(np.arange(br), np.arange(bc), indexing="ij")
        parts_r.append(rr.ravel() + 7)
        parts_c.append(cc.ravel())
    for h in range(heavy_rows):
        parts_r.append(np.full(10_000, nrows - 1 - 3 * h))
        parts_c.append(rng.choice(ncols, 10_000, replace=False))
    rows, cols = np.concatenate(parts_r), np.concatenate(parts_c)
    keep = np.unique(rows * ncols + cols)
    return keep // ncols, keep % ncols


def _pair(rng, rows, cols, nrows, ncols, dtype, iso):
    if iso:
        vals = np.ones(rows.shape[0], dtype=dtype.np_type)
    else:
        vals = rng.integers(1, 9, rows.shape[0]).astype(dtype.np_type)
    cpu = Matrix.from_coo(rows, cols, vals, dtype, nrows=nrows, ncols=ncols, device="cpu")
    gpu = Matrix.from_coo(rows, cols, vals, dtype, nrows=nrows, ncols=ncols, device="cuda")
    return cpu, gpu


def _binned(A, itemsize):
    data = A._backend.binned(A._data, itemsize)
    assert data is not None
    return Matrix._from_data(data, A._backend, A.device)


def _vectors(rng, n, dtype):
    """The same random full vector on the CPU and on the GPU."""
    vals = rng.integers(-20, 20, n).astype(dtype.np_type)
    return (Vector.from_dense(vals, dtype=dtype, device="cpu"),
            Vector.from_dense(vals, dtype=dtype, device="cuda"))


def _agree(got, want, dtype):
    gi, gv = got.to_coo()
    wi, wv = want.to_coo()
    np.testing.assert_array_equal(gi, wi)
    if dtype.is_float:
        np.testing.assert_allclose(gv, wv, rtol=1e-5 if dtype is FP32 else 1e-12)
    else:
        np.testing.assert_array_equal(gv, wv)


SHAPES = {
    # (rows, columns, density, dense block, heavy rows)
    "unbinned rows": (3000, 5000, 0.002, None, 0),
    "degree bins, heavy rows": (70_000, 70_000, 0.0001, None, 3),
    "a long bin": (1200, 9000, 0.001, (1100, 1000), 0),
    "rectangular": (2500, 40_000, 0.001, None, 1),
}

CASES = [
    ("plus_times", FP64, False), ("plus_times", FP32, False), ("plus_second", FP64, True),
    ("plus_first", FP64, True), ("min_plus", INT64, False), ("max_times", INT32, False),
    ("plus_pair", INT64, True), ("times_second", FP64, True),
]


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("name, dtype, iso", CASES)
def test_binned_products_agree_with_the_cpu(rng, shape, name, dtype, iso):
    nrows, ncols, density, block, heavy = SHAPES[shape]
    rows, cols = _graph(rng, nrows, ncols, density, block, heavy)
    cpu, gpu = _pair(rng, rows, cols, nrows, ncols, dtype, iso)
    s = getattr(semiring, name)[dtype]
    if name == "times_second":  # products of many small values: keep them near 1
        u_vals = rng.choice([1.0, -1.0], nrows)
        u_cpu = Vector.from_dense(u_vals, dtype=dtype, device="cpu")
        u_gpu = Vector.from_dense(u_vals, dtype=dtype, device="cuda")
    else:
        u_cpu, u_gpu = _vectors(rng, nrows, dtype)
    B = _binned(gpu, dtype.np_type.itemsize)
    want = u_cpu.vxm(cpu, s).new()
    B.T.mxv(u_gpu, s).new()  # compiles
    reads = blocks.host_reads()
    got = u_gpu.vxm(B, s).new()
    assert got._data.made_by == "binned"
    assert blocks.host_reads() == reads  # a product reads nothing back
    _agree(got, want, dtype)
    # A' u by the swapped semiring (second for first): through the same layout
    _agree(B.T.mxv(u_gpu, s).new(), cpu.T.mxv(u_cpu, s).new(), dtype)


def test_the_layout_holds_each_entry_once(rng):
    """Every entry has a slot of its column's bin, the slots of a bin are 0..count-1 and the
    offsets stored at them are the columns' own; the presence bytes are the columns with an
    entry."""
    rows, cols = _graph(rng, 3000, 20_000, 0.002, (400, 3000), 1)
    _, gpu = _pair(rng, rows, cols, 3000, 20_000, FP64, True)
    lay = gpu._backend.binned(gpu._data, 8).binned
    bits = lay.bits
    start = cupy.asnumpy(lay.bin_start)
    slot = cupy.asnumpy(lay.slot).astype(np.int64)
    dst = cupy.asnumpy(lay.dst)
    col = cupy.asnumpy(gpu._data.indices)
    at = start[col >> bits] + slot
    assert np.unique(at).shape[0] == col.shape[0] == at.shape[0]
    np.testing.assert_array_equal(dst[at], col & ((1 << bits) - 1))
    np.testing.assert_array_equal(np.sort(col), np.sort(cols))
    present = np.zeros(20_000, dtype=np.uint8)
    present[cols] = 1
    np.testing.assert_array_equal(cupy.asnumpy(lay.obits), present)
    assert lay.count == int(present.sum())
    assert lay.nlong == 1  # the dense block's bin: 400 x 3000 entries, more than a chunk


def test_what_the_layout_does_not_serve_goes_the_ordinary_way(rng):
    """A mask, a sparse vector, an `any` monoid or results of another width: the ordinary
    product over the same matrix, the same answer."""
    rows, cols = _graph(rng, 3000, 5000, 0.002)
    cpu, gpu = _pair(rng, rows, cols, 3000, 5000, FP64, False)
    B = _binned(gpu, 8)
    u_cpu, u_gpu = _vectors(rng, 3000, FP64)
    s = semiring.plus_times[FP64]
    m_idx = np.arange(0, 5000, 3)
    m_cpu = Vector.from_coo(m_idx, True, BOOL, size=5000, device="cpu")
    m_gpu = Vector.from_coo(m_idx, True, BOOL, size=5000, device="cuda")
    got = u_gpu.vxm(B, s).new(mask=m_gpu.S)
    assert got._data.made_by != "binned"
    _agree(got, u_cpu.vxm(cpu, s).new(mask=m_cpu.S), FP64)
    sparse_cpu = Vector.from_coo([1, 7, 2999], [1.0, 2.0, 3.0], FP64, size=3000, device="cpu")
    sparse_gpu = Vector.from_coo([1, 7, 2999], [1.0, 2.0, 3.0], FP64, size=3000, device="cuda")
    got = sparse_gpu.vxm(B, s).new()
    assert got._data.made_by != "binned"
    _agree(got, sparse_cpu.vxm(cpu, s).new(), FP64)
    got = u_gpu.vxm(B, semiring.any_pair[FP64]).new()
    assert got._data.made_by != "binned"
    assert got.nvals == u_cpu.vxm(cpu, semiring.any_pair[FP64]).new().nvals
    u32_cpu, u32_gpu = _vectors(rng, 3000, FP32)
    s32 = semiring.plus_times[FP32]
    got = u32_gpu.vxm(B, s32).new()
    assert got._data.made_by != "binned"  # FP32 results: the layout is for 8-byte ones
    _agree(got, u32_cpu.vxm(cpu, s32).new(), FP32)


def test_layout_bytes_bound_the_layout(rng):
    rows, cols = _graph(rng, 3000, 20_000, 0.002)
    _, gpu = _pair(rng, rows, cols, 3000, 20_000, FP64, True)
    lay = gpu._backend.binned(gpu._data, 8).binned
    made = sum(a.nbytes for a in lay.arrays())
    assert made <= binned.layout_bytes(gpu._data, 8)
