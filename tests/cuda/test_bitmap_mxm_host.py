"""The bitmap product's kernels of kernels/mxm_bitmap.cuh run on the host (no GPU), compiled
by g++ with kernels_on_host.h standing in for the GPU, and compared with a plain loop: C<M> =
F (+.x) B over bitmaps by column.  Pull (gbk_bitmapc_pull, gbk_bitmapc_pull_chunks and
gbk_bitmapc_pull_combine): a heavy column's entries cut into chunks whose partial results are
folded in order - plus_first (betweenness centrality's path counts), min_plus (a terminal-free
fold) and any_secondi (the first product, the smallest k, kept across chunks).  Push
(gbk_bitmapc_push over 8 columns of F an item, gbk_bitmapc_push_chunks over 8 chunks,
values filled by gbk_fill_empty first): plus_first and min_plus.  Under plain and complemented masks, for
batches of 1, 33 and 70 rows, with rows of B and B' long enough to take both of the kernels'
walks (32 rows side by side, or a few rows at work one at a time).
The GPU runs the same kernels through the backend (tests/core/test_mxm_direction.py,
tests/algorithms/test_betweenness.py)."""

import importlib.util
import os
import shutil

import numpy as np
import pytest

from graphblast import semiring
from graphblast.backends.cuda import programs
from graphblast.dtypes import FP64, INT64

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")

_spec = importlib.util.spec_from_file_location(  # this folder's host_kernels.py
    "host_kernels", os.path.join(os.path.dirname(os.path.abspath(__file__)), "host_kernels.py"))
host_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(host_kernels)

BLOCK = 64
HEAVY_MIN, CHUNK = 40, 17  # columns of B' longer than 40 entries, cut in 17-entry chunks

SEMIRINGS = {"plus_first": (semiring.plus_first[FP64], FP64),
             "min_plus": (semiring.min_plus[INT64], INT64),
             "any_secondi": (semiring.any_secondi[INT64], INT64)}
KERNELS = {"pull": 0, "chunks": 1, "push": 2, "push_chunks": 3, "fill": 4, "combine": 5}


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    progs = {name: programs.mxm_bitmap(s, t, t, True)[1]() for name, (s, t) in SEMIRINGS.items()}
    return host_kernels.build(tmp_path_factory.mktemp("bitmap_mxm"), progs, KERNELS)


def _i64(v):
    return host_kernels.Arg(v, np.int64)


def _run(kernels, key, what, items, args, seed):
    grid = max(1, -(-items * 32 // BLOCK))
    host_kernels.run(kernels, (key, what), grid, BLOCK, args, seed)

def _check(name, c_bits, c_vals, counters, want_bits, want_vals, ptr, rows, n):
    """C's presence and values against the plain loop's, and the counters: the entries made
    and their columns' degree sum (``ptr``, the row pointers of the graph)."""
    assert np.array_equal(c_bits, want_bits)
    got = np.where(c_bits != 0, c_vals, 0)
    if name == "plus_first":
        np.testing.assert_allclose(got, want_vals, rtol=1e-12)
    else:
        assert np.array_equal(got, want_vals)
    cols = np.arange(rows * n) // rows
    assert int(counters[0]) == int(want_bits.sum())
    assert int(counters[1]) == int(np.diff(ptr)[cols][want_bits != 0].sum())


def _graph(n, rng):
    """B' as CSR lists (sorted, int32 indices): short rows, rows up to HEAVY_MIN entries and
    rows of HEAVY_MIN + 1 .. n entries (the heavy columns), one of them every vertex."""
    lengths = rng.integers(0, 12, n)
    lengths[rng.choice(n, 6, replace=False)] = rng.integers(HEAVY_MIN + 1, n, 6)
    lengths[3], lengths[5] = n, HEAVY_MIN  # a whole row; one just below the heavy ones
    rows = [np.sort(rng.choice(n, size=int(d), replace=False)) for d in lengths]
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return ptr, np.concatenate(rows).astype(np.int32)


def _expected(name, rows, n, ptr, idx, bvals, f_bits, f_vals, allowed):
    bits = np.zeros(rows * n, np.uint8)
    vals = np.zeros(rows * n, f_vals.dtype)
    for j in range(n):
        for i in range(rows):
            p = j * rows + i
            if not allowed[p]:
                continue
            acc = None
            for e in range(ptr[j], ptr[j + 1]):
                k = int(idx[e])
                if not f_bits[k * rows + i]:
                    continue
                z = {"plus_first": f_vals[k * rows + i], "min_plus": f_vals[k * rows + i]
                     + bvals[e], "any_secondi": k}[name]
                if acc is None:
                    acc = z
                elif name == "plus_first":
                    acc = acc + z
                elif name == "min_plus":
                    acc = min(acc, z)
                if name == "any_secondi":
                    break  # the smallest k
            if acc is not None:
                bits[p], vals[p] = 1, acc
    return bits, vals


@pytest.mark.parametrize("name", list(SEMIRINGS))
@pytest.mark.parametrize("rows", [1, 33, 70])
@pytest.mark.parametrize("complement", [0, 1])
def test_pull_with_chunked_heavy_columns(kernels, name, rows, complement):
    rng = np.random.default_rng(rows * 7 + complement)
    n = 150
    ptr, idx = _graph(n, rng)
    dtype = SEMIRINGS[name][1].np_type
    bvals = rng.integers(1, 9, idx.shape[0]).astype(dtype)
    density = 0.5 if name != "any_secondi" else 0.05
    f_bits = (rng.random(rows * n) < density).astype(np.uint8)
    f_vals = rng.integers(1, 100, rows * n).astype(dtype)
    # the mask: most positions blocked in some columns (few live rows), few in others
    m_bits = (rng.random(rows * n) < np.repeat(rng.choice([0.1, 0.97], n), rows)).astype(np.uint8)
    allowed = (m_bits != 0) != bool(complement)
    want_bits, want_vals = _expected(name, rows, n, ptr, idx, bvals, f_bits, f_vals, allowed)

    c_bits = np.full(rows * n, 7, np.uint8)
    c_vals = np.zeros(rows * n, dtype)
    counters = np.zeros(2, np.uint64)
    common = [m_bits, None, host_kernels.Arg(0, np.int32), host_kernels.Arg(complement, np.int32), f_bits, f_vals, ptr,
              idx, bvals]
    tiles = -(-rows // 32)
    _run(kernels, name, "pull", tiles * n, [_i64(rows), _i64(n)] + common
         + [_i64(HEAVY_MIN), ptr, c_bits, c_vals, host_kernels.Arg(1, np.int32), counters], seed=1)
    heavy = np.flatnonzero(np.diff(ptr) > HEAVY_MIN)
    per = (np.diff(ptr)[heavy] + CHUNK - 1) // CHUNK
    first = np.concatenate([[0], np.cumsum(per)]).astype(np.int64)
    chunk_j = np.repeat(heavy, per).astype(np.int64)
    chunk_lo = (np.repeat(ptr[heavy], per)
                + (np.arange(first[-1]) - np.repeat(first[:-1], per)) * CHUNK).astype(np.int64)
    # the columns in two slices, as the launcher cuts them where the partials would not fit
    cut = len(heavy) // 2
    for h0, h1 in ((0, cut), (cut, len(heavy))):
        c0, c1 = int(first[h0]), int(first[h1])
        part_bits = np.full((c1 - c0) * rows, 9, np.uint8)
        part_vals = np.zeros((c1 - c0) * rows, dtype)
        _run(kernels, name, "chunks", tiles * (c1 - c0),
             [_i64(rows), _i64(c1 - c0), chunk_j[c0:c1].copy(), chunk_lo[c0:c1].copy(),
              _i64(CHUNK)] + common + [part_bits, part_vals], seed=2)
        assert set(np.unique(part_bits).tolist()) <= {0, 1}  # every partial written
        _run(kernels, name, "combine", tiles * (h1 - h0),
             [_i64(rows), _i64(h1 - h0), heavy[h0:h1].astype(np.int64).copy(),
              first[h0:h1 + 1].copy(), _i64(c0), part_bits, part_vals, ptr, c_bits, c_vals,
              host_kernels.Arg(1, np.int32), counters], seed=3)
    _check(name, c_bits, c_vals, counters, want_bits, want_vals, ptr, rows, n)


@pytest.mark.parametrize("name", ["plus_first", "min_plus"])
@pytest.mark.parametrize("rows", [1, 33, 70])
@pytest.mark.parametrize("complement", [0, 1])
def test_push_over_groups_of_columns(kernels, name, rows, complement):
    import scipy.sparse as sp

    rng = np.random.default_rng(rows * 5 + complement + 100)
    n = 150
    b_ptr, b_idx = _graph(n, rng)  # rows of B (push walks them) past the heavy length
    dtype = SEMIRINGS[name][1].np_type
    b_vals = rng.integers(1, 9, b_idx.shape[0]).astype(dtype)
    BT = sp.csr_array(sp.csr_array((b_vals, b_idx, b_ptr), shape=(n, n)).T)
    BT.sort_indices()
    ptr, idx, bvals = BT.indptr.astype(np.int64), BT.indices, BT.data
    # a sparse frontier (most groups of 32 columns without an entry) with a few full columns
    f_bits = (rng.random(rows * n) < 0.03).astype(np.uint8)
    f_bits.reshape(n, rows)[[2, 77, 140]] = 1
    f_vals = rng.integers(1, 100, rows * n).astype(dtype)
    m_bits = (rng.random(rows * n) < 0.3).astype(np.uint8)
    allowed = (m_bits != 0) != bool(complement)
    want_bits, want_vals = _expected(name, rows, n, ptr, idx, bvals, f_bits, f_vals, allowed)

    c_bits = np.zeros(rows * n, np.uint8)
    c_vals = np.zeros(rows * n, dtype)
    counters = np.zeros(2, np.uint64)
    _run(kernels, name, "fill", -(-rows * n // 32), [_i64(rows * n), c_vals], seed=0)
    tiles = -(-rows // 32)
    heavy_min, chunk = 40, 5  # many groups of chunks
    mask = [m_bits, None, host_kernels.Arg(0, np.int32), host_kernels.Arg(complement, np.int32)]
    tail = [b_ptr, c_bits, c_vals, host_kernels.Arg(1, np.int32), counters]
    _run(kernels, name, "push", tiles * -(-n // 8),
         [_i64(rows), _i64(n), f_bits, f_vals, b_ptr, b_idx, b_vals] + mask
         + [_i64(heavy_min)] + tail, seed=4)
    heavy = np.flatnonzero(np.diff(b_ptr) > heavy_min)
    per = (np.diff(b_ptr)[heavy] + chunk - 1) // chunk
    first = np.concatenate([[0], np.cumsum(per)]).astype(np.int64)
    chunk_k = np.repeat(heavy, per).astype(np.int64)
    chunk_lo = (np.repeat(b_ptr[heavy], per)
                + (np.arange(first[-1]) - np.repeat(first[:-1], per)) * chunk).astype(np.int64)
    _run(kernels, name, "push_chunks", tiles * -(-len(chunk_k) // 8),
         [_i64(rows), _i64(len(chunk_k)), chunk_k, chunk_lo, _i64(chunk), f_bits, f_vals,
          b_ptr, b_idx, b_vals] + mask + tail, seed=5)
    _check(name, c_bits, c_vals, counters, want_bits, want_vals, b_ptr, rows, n)
