"""backends/cuda/arrays.py: the array steps on the catalogue's kernels agree with CuPy's own
functions (which compile on first use), on every type they serve."""

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from graphblast.backends import cuda_available  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no usable GPU")

TYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64]


@pytest.fixture
def arrays():
    from graphblast.backends.cuda import arrays

    return arrays


def _sample(rng, dtype, n=1000, low=-3):
    x = rng.integers(low, 4, n)
    x[rng.random(n) < 0.5] = 0
    return cupy.asarray(x.astype(dtype))


@pytest.mark.parametrize("dtype", TYPES)
def test_counts_positions_and_gathers(arrays, rng, dtype):
    x = _sample(rng, dtype)
    assert int(arrays.count_nonzero(x)[0]) == int(cupy.count_nonzero(x))
    assert cupy.array_equal(arrays.flatnonzero(x), cupy.flatnonzero(x))
    idx = cupy.asarray(rng.permutation(x.size)[:300])
    assert cupy.array_equal(arrays.take(x, idx), x[idx])
    out = cupy.zeros_like(x)
    arrays.put(out, idx, x[:300])
    expect = cupy.zeros_like(x)
    expect[idx] = x[:300]
    assert cupy.array_equal(out, expect)
    c = arrays.copy(x)
    assert c.data.ptr != x.data.ptr and cupy.array_equal(c, x)
    assert arrays.flatnonzero(cupy.zeros(0, dtype=dtype)).size == 0


@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("to", [np.bool_, np.int32, np.int64, np.uint64, np.float64])
def test_astype_and_fill(arrays, rng, dtype, to):
    x = _sample(rng, dtype, low=0)  # a negative float to an unsigned type is C's undefined
    assert cupy.array_equal(arrays.astype(x, to), x.astype(to))
    assert cupy.array_equal(arrays.full(17, 3, to), cupy.full(17, 3, dtype=to))
    assert cupy.array_equal(arrays.full(5, 0, to), cupy.zeros(5, dtype=to))


def test_ranges_scans_and_diffs(arrays, rng):
    assert cupy.array_equal(arrays.arange(10, np.int32, 5, 3), 5 + 3 * cupy.arange(10))
    x = cupy.asarray(rng.integers(0, 9, 5000))
    assert cupy.array_equal(arrays.inclusive_scan_(x.copy()), cupy.cumsum(x))
    assert cupy.array_equal(arrays.adjacent_diff(x), x[1:] - x[:-1])
    out = cupy.zeros(5001, dtype=np.int64)
    arrays.inclusive_scan_(arrays.convert_into(x.astype(np.int32), out[1:]))
    assert cupy.array_equal(out[1:], cupy.cumsum(x)) and int(out[0]) == 0
    assert list(arrays.pack(x.max(), arrays.count_nonzero(x)).get()) == [
        int(x.max()), int(cupy.count_nonzero(x))]


def test_argsort_is_stable_and_degree_orders(arrays, rng):
    keys = cupy.asarray(rng.integers(0, 5, 3000).astype(np.int32))
    assert cupy.array_equal(arrays.argsort(keys), cupy.argsort(keys))
    indptr = cupy.asarray(np.concatenate([[0], np.cumsum(rng.integers(0, 4, 200))]))
    order = arrays.argsort(arrays.degree_key(indptr, None, np.int32), consume=True)
    deg = indptr[1:] - indptr[:-1]
    assert cupy.array_equal(order, cupy.argsort(~deg.astype(np.int32)))
    rank = arrays.rank_of_order(order, 150, np.int32)
    expect = cupy.empty(200, dtype=np.int32)
    expect[order] = cupy.minimum(cupy.arange(200, dtype=np.int32), 150)
    assert cupy.array_equal(rank, expect)
    rows = order[:50]
    assert cupy.array_equal(arrays.lengths_of_rows(indptr, rows), deg[rows])


def test_find_sorted_is_searchsorted_and_a_match(arrays, rng):
    keys = cupy.asarray(np.unique(rng.integers(0, 500, 200)))
    queries = cupy.asarray(rng.integers(0, 520, 1000))
    at, keep = arrays.find_sorted(keys, queries)
    expect_at = cupy.minimum(cupy.searchsorted(keys, queries), keys.size - 1)
    assert cupy.array_equal(at, expect_at)
    assert cupy.array_equal(keep, cupy.flatnonzero(keys[expect_at] == queries))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_search_sorted_is_searchsorted(arrays, rng, dtype):
    """Repeated and missing keys, queries below, between and above them, both sides; and the
    backend's array module (a Vector's element read) takes it for a host query."""
    from graphblast.backends.cuda.backend import _ArrayModule

    keys = cupy.asarray(np.sort(rng.integers(-50, 500, 300)).astype(dtype))
    queries = cupy.asarray(rng.integers(-60, 520, 1000).astype(dtype))
    for side in ("left", "right"):
        assert cupy.array_equal(arrays.search_sorted(keys, queries, side),
                                cupy.searchsorted(keys, queries, side=side))
    assert arrays.search_sorted(keys[:0], queries).sum() == 0
    found = _ArrayModule().searchsorted(keys, [int(keys[10])])
    assert found.dtype == np.int64 and int(found[0]) == int(cupy.searchsorted(keys, keys[10]))


def test_column_scans_of_the_degree_classes(rng):
    from graphblast.backends.cuda import jit, programs

    for n in (1, 5, 3000):
        x = cupy.asarray(rng.integers(0, 9, (n, 4)))
        out = cupy.empty_like(x)
        jit.run(jit.compiled(programs.array_kernel, "scan_columns4").fns[0], 1, 1024,
                (np.int64(n), x, out))
        assert cupy.array_equal(out, cupy.cumsum(x, axis=0))


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.uint64])
def test_descending_key_sorts_stably_descending(arrays, rng, dtype):
    x = cupy.asarray(rng.integers(0, 4, 500).astype(dtype))
    order = arrays.argsort(arrays.descending_key(x), consume=True)
    host = x.get()
    expect = np.lexsort((np.arange(500), -host.astype(np.int64)))
    assert np.array_equal(order.get(), expect)


def test_count_unmapped_finds_repeats(arrays):
    J = cupy.asarray([3, 1, 3, 0], dtype=np.int64)
    inv = arrays.put(arrays.full(5, -1, np.int32), J, arrays.arange(4, np.int32))
    assert int(arrays.count_unmapped(inv, J)[0]) == 1


def test_chunks_of_heavy_rows(arrays, rng):
    indptr = cupy.asarray(np.concatenate([[0], np.cumsum(rng.integers(0, 3000, 50))]))
    rows = cupy.asarray(np.array([3, 7, 20, 41]))
    counts = arrays.chunks_of_rows(indptr, rows, 1024)
    deg = indptr[rows + 1] - indptr[rows]
    assert cupy.array_equal(counts, (deg + 1023) // 1024)
    src = cupy.asarray(np.array([0, 0, 2, 3]))
    occ = cupy.asarray(np.array([0, 1, 0, 2]))
    r, s = arrays.chunk_starts(indptr, rows, src, occ, 1024)
    assert cupy.array_equal(r, rows[src]) and cupy.array_equal(s, indptr[rows[src]] + occ * 1024)


def test_count_unequal_is_isequal_of_dense_vectors(arrays, rng):
    a = cupy.asarray(rng.integers(0, 3, 400))
    b = a.copy()
    assert arrays.count_unequal(None, None, a, b, np.int64) == 0
    b[7] += 1
    assert arrays.count_unequal(None, None, a, b, np.int64) == 1
    bits_a = cupy.asarray((rng.random(400) < 0.5).astype(np.uint8))
    bits_b = bits_a.copy()
    b[7] -= 1
    b[bits_a == 0] = 9  # values where absent do not count
    assert arrays.count_unequal(bits_a, bits_b, a, b, np.int64) == 0
    bits_b[int(cupy.flatnonzero(bits_a)[0])] = 0
    assert arrays.count_unequal(bits_a, bits_b, a, b, np.int64) == 1
    nan = cupy.asarray([np.nan, 1.0])
    assert arrays.count_unequal(None, None, nan, nan, np.float64) == 1  # NaN equals nothing


def test_isequal_of_pattern_and_valued_matrices(rng):
    """isequal by gbk_count_unequal (the backend's entries_equal): a pattern (iso) matrix
    against one with a value array, one changed value, a transpose; answers as on the CPU."""
    import graphblast as gb

    n = 300
    keys = np.unique(rng.integers(0, n * n, 2000))
    rows, cols = keys // n, keys % n
    pattern = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, device="cuda")
    valued = gb.Matrix.from_coo(rows, cols, np.ones(keys.size, bool), nrows=n, ncols=n,
                                device="cuda")
    changed = gb.Matrix.from_coo(rows, cols, np.arange(keys.size) != 7, nrows=n, ncols=n,
                                 device="cuda")
    assert pattern.isequal(valued) and valued.isequal(pattern)
    assert not pattern.isequal(changed) and not changed.isequal(valued)
    on_cpu = pattern.to_device("cpu")
    assert pattern.isequal(pattern.T.new()) == on_cpu.isequal(on_cpu.T.new()) is False
    symmetric = pattern.ewise_add(pattern.T, gb.binary.first).new()
    assert symmetric.isequal(symmetric.T.new())
