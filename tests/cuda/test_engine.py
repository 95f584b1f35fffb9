"""The GPU engine's formats, in-place updates and work (docs/design.md, "The GPU engine").

Every vector format the engine makes (sorted list, unsorted list from a push, bitmap from a
pull, full) as the input and as the mask of mxv/vxm, against the CPU backend; in-place
updates that must not show through copies; and the work rules that tests can assert: a
masked assign under k entries launches no kernel over n positions, and a BFS level
synchronizes once.  Runs where CuPy and a GPU are usable.
"""

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import graphblast as gb  # noqa: E402
from graphblast import Vector, semiring  # noqa: E402
from graphblast.backends import cuda_available  # noqa: E402
from graphblast.dtypes import BOOL, INT64  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no usable GPU")

N = 3000  # past the one-block kernel of small matrices (1024)


def _graph(rng, n=N, nnz=24_000):
    rows, cols = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
    vals = rng.integers(1, 9, nnz)
    return [gb.Matrix.from_coo(rows, cols, vals, dtype=INT64, nrows=n, ncols=n,
                               dup_op=gb.binary.plus, device=d) for d in ("cpu", "cuda")]


def _in_format(rng, fmt, A_gpu, n=N):
    """A GPU vector in ``fmt`` and its CPU twin."""
    if fmt == "full":
        vals = rng.integers(0, 5, n)
        # a full vector plus a complete list is a full vector (the dense element-wise kernel)
        full = Vector.from_scalar(0, n, INT64, device="cuda").ewise_add(
            Vector.from_coo(np.arange(n), vals, INT64, size=n, device="cuda"),
            gb.binary.second).new()
        return Vector.from_coo(np.arange(n), vals, INT64, size=n, device="cpu"), full
    idx = rng.choice(n, 200, replace=False)
    seed = Vector.from_coo(idx, rng.integers(1, 5, 200), INT64, size=n, device="cuda")
    if fmt == "sorted":
        out = seed
    else:
        with gb.config.set(direction="push" if fmt == "list" else "pull"):
            out = seed.vxm(A_gpu, semiring.min_plus).new()
    return out.to_device("cpu"), out


def _format_of(v):
    return getattr(v._data, "format", "sorted")


@pytest.mark.parametrize("fmt", ["sorted", "list", "bitmap", "full"])
@pytest.mark.parametrize("mask_fmt", [None, "sorted", "list", "bitmap"])
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("method", ["vxm", "mxv"])
def test_products_read_every_format(rng, fmt, mask_fmt, direction, method):
    A, dA = _graph(rng)
    u, du = _in_format(rng, fmt, dA)
    expected = {"sorted": "sorted", "list": "sparse", "bitmap": "bitmap", "full": "full"}[fmt]
    assert _format_of(du) == expected
    for sr in (semiring.min_plus, semiring.plus_times, semiring.any_pair[INT64],
               semiring.any_secondi):
        for complement in (False, True):
            out, dout = Vector(INT64, N, device="cpu"), Vector(INT64, N, device="cuda")
            if mask_fmt is None:
                m = dm = None
            else:
                m, dm = _in_format(rng, mask_fmt, dA)
                m, dm = (~m.S, ~dm.S) if complement else (m.S, dm.S)
            replace = m is not None  # replace needs a mask
            with gb.config.set(direction=direction):
                if method == "vxm":
                    out(mask=m, replace=replace) << u.vxm(A, sr)
                    dout(mask=dm, replace=replace) << du.vxm(dA, sr)
                else:
                    out(mask=m, replace=replace) << A.mxv(u, sr)
                    dout(mask=dm, replace=replace) << dA.mxv(du, sr)
            assert out.isequal(dout.to_device("cpu")), (sr, complement)


def test_assign_in_place_does_not_show_through_copies(rng):
    n = N
    v = Vector(INT64, n, device="cuda")
    mask = Vector.from_coo([1, 5, 9], True, BOOL, size=n, device="cuda")
    v(mask.S) << 1  # v becomes a bitmap that v alone holds
    w = v.dup()
    x = Vector(INT64, n, device="cuda")
    x << v
    y = v[:].new()
    v(Vector.from_coo([2, 5], True, BOOL, size=n, device="cuda").S) << 7
    assert v.to_dict() == {1: 1, 2: 7, 5: 7, 9: 1}
    for copy in (w, x, y):
        assert copy.to_dict() == {1: 1, 5: 1, 9: 1}
    # and a full vector's copies
    f = Vector.from_scalar(3, n, INT64, device="cuda")
    g = f[:].new()
    f(mask.S) << 4
    assert g.reduce().new().value == 3 * n
    assert f.reduce().new().value == 3 * n + 3


def test_write_back_of_own_structure_in_place(rng):
    dist = Vector.from_scalar(10, N, INT64, device="cuda")
    dist(Vector.from_coo([0], True, BOOL, size=N, device="cuda").S) << 0
    frontier = Vector.from_coo([3, 4], [1, 2], INT64, size=N, device="cuda")
    keep = dist.dup()
    dist(frontier.S) << frontier
    got = dist.to_dense()
    assert got[0] == 0 and got[3] == 1 and got[4] == 2 and got[5] == 10
    assert keep.to_dense()[3] == 10


@pytest.mark.parametrize("fc", ["sorted", "list", "bitmap", "full"])
@pytest.mark.parametrize("ft", ["sorted", "list", "bitmap"])
@pytest.mark.parametrize("accum", ["min", "minus", "lt"])
def test_accumulate_without_a_mask(rng, fc, ft, accum):
    """``C(accum) << T`` agrees with the CPU for every format pair (a list T folded into a
    bitmap C in place, the rest by the general path), with an accumulator whose result type
    is not C's (lt), into an FP64 C from an INT64 T; a copy of C taken before is unchanged."""
    _, dA = _graph(rng)
    c, dc = _in_format(rng, fc, dA)
    t, dt = _in_format(rng, ft, dA)
    c, dc = c.apply(gb.unary.identity[gb.dtypes.FP64]).new(), \
        dc.apply(gb.unary.identity[gb.dtypes.FP64]).new()
    keep = dc.dup()
    before = keep.to_device("cpu")
    op = getattr(gb.binary, accum)
    dc(op) << dt
    c(op) << t
    assert dc.isequal(c.to_device("cuda"), check_dtype=True)
    assert dc.nvals == c.nvals
    assert keep.to_device("cpu").isequal(before, check_dtype=True)


def test_accumulated_list_touches_only_its_entries(monkeypatch):
    """SSSP's ``dist(min) << t`` into a bitmap of 2^22 positions launches no kernel over
    them (the general path made accum(C, T) anew over all n)."""
    n = 1 << 22
    dist = Vector(INT64, n, device="cuda")
    dist(Vector.from_coo([0], True, BOOL, size=n, device="cuda").S) << 0  # the bitmap, once
    t = Vector.from_coo(np.arange(10, 20), np.arange(10), INT64, size=n, device="cuda")
    dist(gb.binary.min) << t  # compile
    seen = _launches(monkeypatch)
    t2 = Vector.from_coo(np.arange(15, 25), np.arange(10) - 5, INT64, size=n, device="cuda")
    del seen[:]
    dist(gb.binary.min) << t2
    assert seen and all(threads <= 10 for _, threads in seen), seen
    assert dist.nvals == 1 + 15
    got = dist.to_dense(fill_value=99)
    assert got[15] == -5 and got[19] == -1 and got[20] == 0 and got[24] == 4 and got[10] == 0


@pytest.mark.parametrize("sr, dtype", [("min_plus", "INT64"), ("min_plus", "FP64"),
                                       ("max_times", "FP32"), ("plus_times", "INT64"),
                                       ("plus_times", "INT32"), ("min_firsti", "INT64")])
@pytest.mark.parametrize("shape", [(300, 200, 400), (2000, 2000, 2000)])
def test_hash_spgemm_agrees_with_the_sorted_path(rng, caplog, sr, dtype, shape):
    """mxm without a mask takes the hash SpGEMM when every row makes at most
    plan.HASH_ROW_PRODUCTS products and the monoid's fold does not depend on their order;
    it agrees with the sorted path and the CPU (rows sorted, empty rows, rectangular), and
    rows of more products keep the sorted path."""
    from graphblast import plan
    from graphblast.backends.cuda import blocks

    m, k, n = shape
    a = gb.Matrix.from_coo(rng.integers(0, m, 3 * m), rng.integers(0, k, 3 * m),
                           rng.integers(1, 9, 3 * m), dtype=dtype, nrows=m, ncols=k,
                           dup_op=gb.binary.min, device="cpu")
    b = gb.Matrix.from_coo(rng.integers(0, k, 4 * k), rng.integers(0, n, 4 * k),
                           rng.integers(1, 9, 4 * k), dtype=dtype, nrows=k, ncols=n,
                           dup_op=gb.binary.min, device="cpu")
    semiring_ = getattr(semiring, sr)
    want = a.mxm(b, semiring_).new()
    da, db = a.to_device("cuda"), b.to_device("cuda")
    with caplog.at_level("DEBUG", logger="graphblast"):
        got = da.mxm(db, semiring_).new()
    assert any(msg.startswith("spgemm: hash") for msg in caplog.messages), caplog.messages
    with gb.config.set(spgemm="sort"):
        sorted_path = da.mxm(db, semiring_).new()
    assert got.isequal(sorted_path, check_dtype=True)
    assert got.to_device("cpu").isequal(want, check_dtype=True)
    data = got._data
    assert blocks.rows_strictly_increasing(data.indptr, data.indices, data.nrows)
    # a row of more products than the hash takes: the sorted path, the same answer
    hub = gb.Matrix.from_coo(np.zeros(k, dtype=np.int64), np.arange(k), 1, dtype=dtype,
                             nrows=m, ncols=k, device="cpu")
    caplog.clear()
    with caplog.at_level("DEBUG", logger="graphblast"):
        got = hub.to_device("cuda").mxm(db, semiring_).new()
    assert any(msg.startswith("spgemm: sort") for msg in caplog.messages), (
        plan.HASH_ROW_PRODUCTS, caplog.messages)
    assert got.to_device("cpu").isequal(hub.mxm(b, semiring_).new(), check_dtype=True)


def _launches(monkeypatch):
    """Record (kernel name, threads) of every launch through jit.launch."""
    from graphblast.backends.cuda import jit

    names = {}
    for k in jit._compiled.values():
        for fn, name in zip(k.fns, k.names):
            names[id(fn)] = name
    seen = []
    real = jit.launch

    def launch(fn, threads, args):
        seen.append((names.get(id(fn), "?"), threads))
        return real(fn, threads, args)

    monkeypatch.setattr(jit, "launch", launch)
    return seen


def test_masked_assign_touches_only_the_mask(monkeypatch):
    n = 1 << 22
    levels = Vector(INT64, n, device="cuda")
    first = Vector.from_coo([0], True, BOOL, size=n, device="cuda")
    levels(first.S) << 0  # the first assign makes the bitmap: O(n) once
    frontier = Vector.from_coo(np.arange(10, 20), True, BOOL, size=n, device="cuda")
    levels(frontier.S) << 1  # compile
    seen = _launches(monkeypatch)
    frontier2 = Vector.from_coo(np.arange(30, 40), True, BOOL, size=n, device="cuda")
    del seen[:]
    levels(frontier2.S) << 2
    assert seen and all(threads <= 10 for _, threads in seen), seen
    assert levels.nvals == 21


def test_bfs_level_synchronizes_once():
    from graphblast import generators
    from graphblast.backends.cuda import blocks

    A = generators.kron(14, device="cuda")
    n = A.nrows
    source = int(np.argmax(np.diff(A.to_csr()[0].astype(np.int64))))
    gb.algorithms.bfs(A, source)  # compile and build the traversal views
    levels = Vector(INT64, n, device="cuda")
    frontier = Vector.from_coo([source], True, BOOL, size=n, device="cuda")
    depth = 0
    reads = []
    while True:
        r0 = blocks.host_reads()
        if not frontier.nvals:
            break
        levels(frontier.S) << depth
        depth += 1
        frontier(~levels.S, replace=True) << frontier.vxm(A, semiring.any_pair[BOOL])
        reads.append(blocks.host_reads() - r0)
    assert depth > 2
    assert max(reads) <= 1, reads
    assert levels.isequal(gb.algorithms.bfs(A, source))


def _path(n):
    rows, cols = np.nonzero(np.eye(n, k=1) + np.eye(n, k=-1))
    return gb.Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n, device="cuda")


def test_small_products_reuse_their_result_buffers(monkeypatch):
    """A loop of one-block products (the per-call figure's masked vxm) allocates nothing once
    warm: each result takes the buffers the result it replaces gave back."""
    from graphblast.backends.cuda import vectors

    if not vectors._REUSE:
        pytest.skip("this interpreter's reference counts cannot tell a sole holder")
    A = _path(34)
    q = Vector.from_coo([0], True, BOOL, size=34, device="cuda")
    seen, w = q.dup(), Vector(BOOL, 34, device="cuda")
    for _ in range(3):
        w(~seen.S, replace=True) << q.vxm(A, semiring.any_pair[BOOL])
    allocations = []
    real_empty = cupy.empty

    def counting_empty(*args, **kwargs):
        allocations.append(args)
        return real_empty(*args, **kwargs)

    monkeypatch.setattr(cupy, "empty", counting_empty)
    buffers = set()
    for _ in range(10):
        w(~seen.S, replace=True) << q.vxm(A, semiring.any_pair[BOOL])
        buffers.add(w._data.idx.data.ptr)
    assert allocations == []
    assert len(buffers) == 2  # the live result's and the one it replaced
    assert w.to_coo()[0].tolist() == [1]


def test_reused_small_results_count_their_own_entries():
    """A result made in reused buffers and counters slot reports its own count and entries,
    not the ones of the result that gave them back (outputs of 0, 1 and 2 entries in turn)."""
    A = _path(34)
    w = Vector(BOOL, 34, device="cuda")
    for k in [0, 5, 33, 5, 0, 33] * 2:
        q = Vector.from_coo([k], True, BOOL, size=34, device="cuda")
        seen = Vector.from_coo([k, 1], True, BOOL, size=34, device="cuda")
        w(~seen.S, replace=True) << q.vxm(A, semiring.any_pair[BOOL])
        expected = sorted({k - 1, k + 1} - {-1, 34, 1, k})
        assert w.nvals == len(expected)
        assert w.to_coo()[0].tolist() == expected


def test_small_result_buffers_held_elsewhere_are_not_reused():
    """A small result's buffers go back for reuse only when nothing else holds them: a view of
    its indices, a vector sharing them (a cast), the arrays themselves."""
    A = _path(34)
    frontiers = [Vector.from_coo([k], True, BOOL, size=34, device="cuda") for k in range(1, 33)]
    r = frontiers[0].vxm(A, semiring.any_pair[BOOL]).new()
    view = r._data.indices  # sorted view of the buffers
    arrays = r._data.idx, r._data.vals
    cast = r.dup(dtype=INT64)  # shares the index buffer
    expected = r._data.idx[:2].get().tolist()
    assert expected == [0, 2]
    del r
    for q in frontiers[1:]:  # results of other entries, made while the above are held
        out = q.vxm(A, semiring.any_pair[BOOL]).new()
        del out
    assert view.get().tolist() == expected
    assert arrays[0][:2].get().tolist() == expected
    assert cast.to_coo()[0].tolist() == expected
    assert cast.to_coo()[1].tolist() == [1, 1]


def test_first_level_decides_without_a_read(caplog):
    """A frontier of one vertex whose count the host knows goes to push on the bound
    ``count x the largest degree``: no degree-sum launch and no wait (a BFS's first level)."""
    import logging

    from graphblast import generators
    from graphblast.backends.cuda import blocks

    A = generators.kron(14, device="cuda")
    gb.algorithms.bfs(A, 0)  # compile and build the traversal view
    q = Vector.from_coo([0], True, BOOL, size=A.nrows, device="cuda")
    visited = q.dup()
    r0 = blocks.host_reads()
    with caplog.at_level(logging.DEBUG, logger="graphblast"):
        out = q.vxm(A, semiring.any_pair[BOOL]).new(mask=~visited.S)
    assert blocks.host_reads() - r0 == 0
    assert "direction: push (push work at most" in caplog.text
    expected = A.to_device("cpu")[0, :].new(mask=~visited.to_device("cpu").S)
    assert out.to_device("cpu").isequal(expected)


def test_a_product_made_under_its_mask_is_not_filtered_again(monkeypatch):
    """``v.vxm(A).new(mask=M)``: the product applies M itself, so the write into the new
    (empty) output launches nothing more."""
    from graphblast import generators

    A = generators.kron(12, device="cuda")
    q = Vector.from_coo([0, 1, 2], True, BOOL, size=A.nrows, device="cuda")
    visited = Vector.from_coo([0, 5], True, BOOL, size=A.nrows, device="cuda")
    q.vxm(A, semiring.any_pair[BOOL]).new(mask=~visited.S)  # compile
    seen = _launches(monkeypatch)
    out = q.vxm(A, semiring.any_pair[BOOL]).new(mask=~visited.S)
    assert not any("filter" in name or "write" in name for name, _ in seen), seen
    cpu = A.to_device("cpu")
    expected = q.to_device("cpu").vxm(cpu, semiring.any_pair[BOOL]).new(
        mask=~visited.to_device("cpu").S)
    assert out.to_device("cpu").isequal(expected)


@pytest.mark.parametrize("sr", ["plus_times", "min_plus", "max_first", "any_pair", "lor_land",
                                "any_secondi"])
@pytest.mark.parametrize("fmt", ["sorted", "full"])
def test_heavy_rows_and_degree_bins(rng, sr, fmt):
    """Rows longer than HEAVY (4096) take a block each or chunks of 4096 entries folded by
    atomics; matrices of 65,536 rows or more bin their rows by degree: both against the CPU,
    pulled and pushed, with a complemented mask."""
    n = 70_000
    hubs = np.repeat(np.arange(3), [12_000, 5_000, 4_097])  # three heavy rows and columns
    rows = np.r_[hubs, rng.integers(0, n, 200_000), rng.integers(3, n, 20_000)]
    cols = np.r_[rng.integers(0, n, hubs.shape[0]), rng.integers(0, n, 200_000), hubs[:20_000]]
    dtype = "BOOL" if sr == "lor_land" else "INT64"
    vals = rng.integers(1, 9, rows.shape[0])
    A, dA = (gb.Matrix.from_coo(rows, cols, vals, dtype=dtype, nrows=n, ncols=n,
                                dup_op=gb.binary.max, device=d) for d in ("cpu", "cuda"))
    if fmt == "full":
        u = Vector.from_coo(np.arange(n), rng.integers(1, 5, n), dtype, size=n, device="cpu")
        du = Vector.from_scalar(0, n, dtype, device="cuda").ewise_add(
            u.to_device("cuda"), gb.binary.second).new()
    else:
        idx = np.r_[[0, 1, 2], rng.choice(np.arange(3, n), 5_000, replace=False)]
        u = Vector.from_coo(idx, rng.integers(1, 5, idx.shape[0]), dtype, size=n,
                            device="cpu")
        du = u.to_device("cuda")
    seen = Vector.from_coo(rng.choice(n, 10_000, replace=False), True, BOOL, size=n,
                           device="cpu")
    dseen = seen.to_device("cuda")
    semi = getattr(semiring, sr)
    for direction in ("pull", "push"):
        with gb.config.set(direction=direction):
            for method in ("vxm", "mxv"):
                out, dout = Vector(dtype, n, device="cpu"), Vector(dtype, n, device="cuda")
                if method == "vxm":
                    out(~seen.S, replace=True) << u.vxm(A, semi)
                    dout(~dseen.S, replace=True) << du.vxm(dA, semi)
                else:
                    out(~seen.S, replace=True) << A.mxv(u, semi)
                    dout(~dseen.S, replace=True) << dA.mxv(du, semi)
                assert out.isequal(dout.to_device("cpu")), (direction, method)


@pytest.mark.parametrize("sr", ["any_pair", "any_secondi", "lor_land"])
@pytest.mark.parametrize("share", [0.001, 0.3])
def test_first_hit_pulls_at_any_lanes_a_row(rng, monkeypatch, sr, share):
    """A pull that stops a row at its first hit takes at most mxv.FIRST_HIT_LANES lanes a
    row, on every bin (rows of about 40 entries here, the 32-lane bin): the same answers at
    1, 8 and 32 lanes, whether rows hit early (a wide frontier) or are scanned whole (a
    narrow one)."""
    from graphblast.backends.cuda import mxv

    n = 70_000
    rows, cols = np.repeat(np.arange(n), 40), rng.integers(0, n, 40 * n)
    dtype = "BOOL" if sr == "lor_land" else "INT64"
    A, dA = (gb.Matrix.from_coo(rows, cols, np.ones(40 * n, dtype=np.int64), dtype=dtype,
                                nrows=n, ncols=n, dup_op=gb.binary.max, device=d)
             for d in ("cpu", "cuda"))
    idx = rng.choice(n, int(share * n), replace=False)
    u = Vector.from_coo(idx, True if sr == "lor_land" else idx % 7 + 1, dtype, size=n,
                        device="cpu")
    seen = Vector.from_coo(idx, True, BOOL, size=n, device="cpu")
    du, dseen = u.to_device("cuda"), seen.to_device("cuda")
    semi = getattr(semiring, sr)
    with gb.config.set(direction="pull"):
        want = A.mxv(u, semi).new(mask=~seen.S, replace=True)
        for lanes in (1, 8, 32):
            monkeypatch.setattr(mxv, "FIRST_HIT_LANES", lanes)
            got = dA.mxv(du, semi).new(mask=~dseen.S, replace=True)
            assert want.isequal(got.to_device("cpu")), lanes


def test_degree_bins_hold_their_rows_in_order(rng):
    """The traversal view's bins and heavy rows: every non-empty row in exactly the class its
    degree says, each class in increasing row order (warps working at once then take
    neighbouring rows)."""
    from graphblast.backends.cuda import mxv

    n = 70_000
    degrees = rng.choice([0, 1, 3, 5, 20, 33, 100, 4_097], size=n,
                         p=[0.1, 0.3, 0.2, 0.15, 0.15, 0.05, 0.0499, 0.0001])
    rows = np.repeat(np.arange(n), degrees)
    cols = np.concatenate([rng.choice(n, d, replace=False) for d in degrees if d])
    A = gb.Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n, device="cuda")
    v = mxv.view(A._data)
    got = {lanes: cupy.asnumpy(r) for r, _, lanes in v.bins}
    for lo, hi, lanes in mxv.BINS:
        want = np.flatnonzero((degrees >= lo) & (degrees <= hi))
        np.testing.assert_array_equal(got.get(lanes, np.zeros(0, np.int64)), want)
    np.testing.assert_array_equal(cupy.asnumpy(v.heavy_rows),
                                  np.flatnonzero(degrees > mxv.HEAVY))
    assert v.npush_heavy == int(np.count_nonzero(degrees > mxv.PUSH_HEAVY))


@pytest.mark.parametrize("sr", ["plus_times", "min_plus", "any_pair", "any_secondi"])
def test_push_of_many_heavy_entries(rng, sr):
    """A frontier of hundreds of entries longer than PUSH_HEAVY (several of gbk_push_heavy's
    tiles of 256, rows of one to several chunks) pushed with a complemented mask, against the
    CPU."""
    from graphblast.backends.cuda import mxv

    n = 6_000
    degrees = rng.integers(mxv.PUSH_HEAVY + 1, 5 * 1024, 700)
    rows = np.r_[np.repeat(np.arange(700), degrees), rng.integers(0, n, 30_000)]
    cols = rng.integers(0, n, rows.shape[0])
    vals = rng.integers(1, 9, rows.shape[0])
    A, dA = (gb.Matrix.from_coo(rows, cols, vals, dtype="INT64", nrows=n, ncols=n,
                                dup_op=gb.binary.max, device=d) for d in ("cpu", "cuda"))
    idx = np.r_[np.arange(700), rng.choice(np.arange(700, n), 300, replace=False)]
    u = Vector.from_coo(idx, rng.integers(1, 5, idx.shape[0]), "INT64", size=n, device="cpu")
    du = u.to_device("cuda")
    seen = Vector.from_coo(rng.choice(n, 500, replace=False), True, BOOL, size=n,
                           device="cpu")
    dseen = seen.to_device("cuda")
    semi = getattr(semiring, sr)
    with gb.config.set(direction="push"):
        out, dout = Vector("INT64", n, device="cpu"), Vector("INT64", n, device="cuda")
        out(~seen.S, replace=True) << u.vxm(A, semi)
        dout(~dseen.S, replace=True) << du.vxm(dA, semi)
    assert out.isequal(dout.to_device("cpu"))


def test_a_fold_by_compare_and_swap_weighs_its_pushed_products():
    """plus on FP32 (a compare-and-swap loop) weighs each pushed product FOLD_LOOP_WEIGHT
    times; plus on FP64 and INT64 (the hardware's atomics), min (idempotent) and any_pair do
    not."""
    from graphblast.backends.cuda import mxv
    from graphblast.dtypes import FP32, FP64

    assert mxv._push_weight(semiring.plus_times[FP32]) == mxv.FOLD_LOOP_WEIGHT
    assert mxv._push_weight(semiring.times_times[INT64]) == mxv.FOLD_LOOP_WEIGHT
    for sr in (semiring.plus_times[FP64], semiring.plus_times[INT64], semiring.min_plus[FP32],
               semiring.any_pair[BOOL], semiring.any_secondi[INT64]):
        assert mxv._push_weight(sr) == 1, sr


FORMATS = ["sorted", "list", "bitmap", "full"]


@pytest.mark.parametrize("fa", FORMATS)
@pytest.mark.parametrize("fb", FORMATS)
@pytest.mark.parametrize("op", ["minus", "ge"])
def test_ewise_mult_every_format_pair(rng, fa, fb, op):
    """A list with a dense vector takes the list-only kernel (its result stays a list, in
    either operand order); every other pair its own path; all against the CPU."""
    _, dA = _graph(rng)
    a, da = _in_format(rng, fa, dA)
    b, db = _in_format(rng, fb, dA)
    binop = getattr(gb.binary, op)
    got = da.ewise_mult(db, binop).new()
    assert got.isequal(a.ewise_mult(b, binop).new().to_device("cuda"), check_dtype=True)
    if {fa, fb} == {"list", "bitmap"} or {fa, fb} == {"list", "full"}:
        assert _format_of(got) == "sparse"


def _mask_pair(rng, dA, fmt, complement, structure):
    """A mask of a vector in ``fmt`` (structural or by value, maybe complemented) on the CPU
    and its twin on the GPU."""
    m, dm = _in_format(rng, fmt, dA)
    mask, dmask = (m.S, dm.S) if structure else (m.V, dm.V)
    return (~mask, ~dmask) if complement else (mask, dmask)


@pytest.mark.parametrize("fz", ["list", "sorted"])
@pytest.mark.parametrize("mask_fmt", ["sorted", "list", "bitmap"])
@pytest.mark.parametrize("complement", [False, True])
@pytest.mark.parametrize("structure", [False, True])
@pytest.mark.parametrize("replace", [False, True])
def test_list_written_into_empty_or_replaced(rng, fz, mask_fmt, complement, structure,
                                              replace):
    """A list written through a mask into an empty output, or with replace into a full
    one, is filtered at its own entries; the result equals the CPU's."""
    _, dA = _graph(rng)
    z, dz = _in_format(rng, fz, dA)
    mask, dmask = _mask_pair(rng, dA, mask_fmt, complement, structure)
    if replace:
        c = Vector.from_scalar(7, N, INT64, device="cpu")
        dc = Vector.from_scalar(7, N, INT64, device="cuda")
        c(mask, replace=True) << z
        dc(dmask, replace=True) << dz
    else:
        c, dc = z.dup(mask=mask), dz.dup(mask=dmask)
    assert dc.isequal(c.to_device("cuda"), check_dtype=True)


@pytest.mark.parametrize("fa", ["list", "sorted", "bitmap"])
@pytest.mark.parametrize("mask_fmt", ["sorted", "list", "bitmap"])
@pytest.mark.parametrize("complement", [False, True])
@pytest.mark.parametrize("structure", [False, True])
def test_select_under_its_output_mask(rng, monkeypatch, fa, mask_fmt, complement, structure):
    """``a.select(op, k).new(mask=M)`` (SSSP's bucket of improved vertices) agrees with the
    CPU for every format; a list is selected and masked in one kernel, with no filter after."""
    _, dA = _graph(rng)
    a, da = _in_format(rng, fa, dA)
    mask, dmask = _mask_pair(rng, dA, mask_fmt, complement, structure)
    want = a.select(gb.select.valuelt, 3).new(mask=mask).to_device("cuda")
    da.select(gb.select.valuelt, 3).new(mask=dmask)  # its kernels compiled (named below)
    da.dup(mask=dmask)  # and the filter's, which a list's masked select must not launch
    seen = _launches(monkeypatch)
    got = da.select(gb.select.valuelt, 3).new(mask=dmask)
    assert got.isequal(want, check_dtype=True)
    if fa != "bitmap":
        assert [name for name, _ in seen if "select" in name], seen
        assert not any(name.startswith("gbk_filter_list") for name, _ in seen), seen


def test_list_mask_marks_are_cleared(rng):
    """A list filtered by a list mask marks the mask into a bitmap kept per size and clears
    it after: the next filter by another list mask sees none of the first's marks."""
    from graphblast.backends.cuda import vectors

    _, dA = _graph(rng)
    z, dz = _in_format(rng, "list", dA)
    for _ in range(3):
        m, dm = _in_format(rng, "list", dA)
        got = dz.dup(mask=~dm.V)
        assert got.isequal(z.dup(mask=~m.V).to_device("cuda"), check_dtype=True)
        for bits, _vals in vectors._marks.values():
            assert not bool(bits.any())


@pytest.mark.parametrize("direction", ["push", "pull"])
@pytest.mark.parametrize("mask_fmt", ["sorted", "list"])
@pytest.mark.parametrize("complement", [False, True])
def test_product_under_a_list_mask_reads_the_marks(rng, monkeypatch, direction, mask_fmt,
                                                    complement):
    """push and pull under a list mask read it from the bitmap kept for its size (marked,
    then unmarked), never from a new O(n) one; the answer is the CPU's and the marks are
    clear after."""
    from graphblast.backends.cuda import vectors

    A, dA = _graph(rng)
    q, dq = _in_format(rng, "sorted", dA)
    m, dm = _in_format(rng, mask_fmt, dA)
    mask, dmask = (~m.S, ~dm.S) if complement else (m.S, dm.S)
    want = q.vxm(A, semiring.min_plus).new(mask=mask).to_device("cuda")
    views = []
    real = vectors.mask_view
    monkeypatch.setattr(vectors, "mask_view", lambda mk: views.append(mk) or real(mk))
    with gb.config.set(direction=direction):
        got = dq.vxm(dA, semiring.min_plus).new(mask=dmask)
    assert got.isequal(want, check_dtype=True)
    assert not views, "the list mask was scattered into a new bitmap"
    for bits, _vals in vectors._marks.values():
        assert not bool(bits.any())


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("op, thunk", [("valuegt", 2), ("valueeq", 3), ("rowle", 1500),
                                       ("valuene", 0)])
def test_select_every_format(rng, fmt, op, thunk):
    """select on a list (a push's result) or a sorted vector gives a list, touching only its
    entries and reading nothing back; every format agrees with the CPU, value and positional
    predicates alike."""
    from graphblast.backends.cuda import blocks

    _, dA = _graph(rng)
    u, du = _in_format(rng, fmt, dA)
    r0 = blocks.host_reads()
    got = du.select(op, thunk).new()
    if fmt in ("list", "sorted"):
        assert blocks.host_reads() == r0
        assert _format_of(got) == "sparse"
    assert got.isequal(u.select(op, thunk).new().to_device("cuda"), check_dtype=True)


def test_bellman_ford_round_synchronizes_once(monkeypatch):
    """A Bellman-Ford round of sssp issued from Python (``device_loops="never"``: the device
    loop calls the body only to record it) reads the device once (the loop's frontier.nvals):
    the relaxation's results stay lists with their count and degree sum on the device."""
    import importlib

    from graphblast import generators
    from graphblast.backends.cuda import blocks

    ss = importlib.import_module("graphblast.algorithms.sssp")
    A = generators.grid2d(40, 40, weights="random", seed=1, device="cuda")  # 1,600 vertices
    expected = ss.sssp(A.to_device("cpu"), 0, method="bellman-ford")
    with gb.config.set(device_loops="never"):
        ss.sssp(A, 0, method="bellman-ford")  # compiles, builds the traversal view
    rounds = [0]
    real = ss._relax

    def counted(*args, **kwargs):
        rounds[0] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(ss, "_relax", counted)
    r0 = blocks.host_reads()
    with gb.config.set(device_loops="never"):
        got = ss.sssp(A, 0, method="bellman-ford")
    reads = blocks.host_reads() - r0
    assert got.isequal(expected.to_device("cuda"))
    assert rounds[0] > 50
    # one read a round, plus a few for the whole call (the weights' check, the first frontier)
    assert reads <= rounds[0] + 4, (reads, rounds[0])


def test_counter_slots_are_zeroed_a_page_at_a_time(monkeypatch):
    """A loop's results take zeroed counter slots without a memset each: a page whose every
    slot its owners have released is zeroed whole.  Exercised past several pages' worth of
    results, with the counts still exact (every count accumulates into a zeroed slot), on
    rounds issued from Python (``device_loops="never"``), each making its results."""
    import importlib

    from graphblast import generators
    from graphblast.backends.cuda import blocks, vectors

    ss = importlib.import_module("graphblast.algorithms.sssp")
    A = generators.grid2d(200, 200, weights="random", seed=2, device="cuda")
    expected = ss.sssp(A.to_device("cpu"), 0, method="bellman-ford")
    with gb.config.set(device_loops="never"):
        ss.sssp(A, 0, method="bellman-ford")  # compiles, builds the traversal view
    made, memsets = [0], []
    real_init, real_memset = vectors.Counters.__init__, vectors._memset

    def counted_init(self, *args, **kwargs):
        made[0] += 1
        real_init(self, *args, **kwargs)

    def counted_memset(array, words):
        memsets.append(words)
        real_memset(array, words)
    rounds = [0]
    real_relax = ss._relax

    def counted_relax(*args, **kwargs):
        rounds[0] += 1
        return real_relax(*args, **kwargs)
    monkeypatch.setattr(vectors.Counters, "__init__", counted_init)
    monkeypatch.setattr(vectors, "_memset", counted_memset)
    monkeypatch.setattr(ss, "_relax", counted_relax)
    r0 = blocks.host_reads()
    with gb.config.set(device_loops="never"):
        got = ss.sssp(A, 0, method="bellman-ford")
    reads = blocks.host_reads() - r0
    assert got.isequal(expected.to_device("cuda"))
    assert made[0] > 2 * vectors.PAGE_SLOTS, made[0]
    assert len(memsets) <= made[0] // 50, (len(memsets), made[0])
    # the pages take turns, and still one read a round (a page read refreshes its own slots)
    assert reads <= rounds[0] + 4, (reads, rounds[0])


def test_a_count_read_is_kept_until_the_slot_is_written_again():
    """Counters.peek keeps what one page read gave it (every product's planner peeks its
    vector and its mask) and forgets it when a kernel is queued to write the slot: a count
    is never served stale, and a known one costs no read."""
    from graphblast.backends.cuda import blocks, vectors

    c = vectors.Counters()
    c.array[0] = 5
    c.touch()  # as a kernel writing the slot would
    assert c.peek() is None
    r0 = blocks.host_reads()
    assert c.values() == (5, 0)
    c.page.read()  # another slot's read refreshes the page: still the same count
    assert c.peek() == (5, 0)
    assert blocks.host_reads() - r0 == 2
    c.array[0] = 7
    c.touch()
    assert c.peek() is None
    assert c.values() == (7, 0)


@pytest.mark.parametrize("fmt", FORMATS)
def test_value_range_reads_once(rng, fmt):
    """A Vector index is checked by its smallest and largest value, read together."""
    from graphblast.backends.cuda import blocks

    _, dA = _graph(rng)
    u, du = _in_format(rng, fmt, dA)
    du.nvals  # the count known, as in a traversal loop
    r0 = blocks.host_reads()
    got = du._backend.value_range(du._data)
    assert blocks.host_reads() - r0 == 1
    vals = u.to_coo()[1]
    assert (int(got[0]), int(got[1])) == (vals.min(), vals.max())
    empty = Vector(INT64, N, device="cuda")
    assert empty._backend.value_range(empty._data) is None


@pytest.mark.parametrize("fa", ["sorted", "list", "bitmap", "full"])
@pytest.mark.parametrize("fb", ["sorted", "list", "bitmap", "full"])
@pytest.mark.parametrize("change", ["same", "value", "structure"])
def test_isequal_reads_every_format(rng, fa, fb, change):
    """isequal/isclose compare a bitmap or full vector in place (no compaction): the same
    answers as the CPU backend's for every pair of formats, with a changed value or entry."""
    _, A_gpu = _graph(rng)
    a_cpu, a = _in_format(rng, fa, A_gpu)
    twin_cpu, twin = _in_format(rng, fb, A_gpu)
    # twin: a's entries held in fb's format (twin's own structure and values overwritten)
    twin(replace=True, mask=a.S) << a
    twin_cpu(replace=True, mask=a_cpu.S) << a_cpu
    i = int(a_cpu.to_coo()[0][0])
    if change == "value":
        twin[i] << 99
        twin_cpu[i] << 99
    elif change == "structure":
        del twin[i]
        del twin_cpu[i]
    assert twin.to_device("cpu").isequal(twin_cpu)
    assert a.isequal(twin) == a_cpu.isequal(twin_cpu) == (change == "same")
    assert twin.isequal(a) == (change == "same")
    close = a.apply(gb.binary.plus, right=0).new(dtype=gb.dtypes.FP64)
    assert close.isclose(a) and a.isclose(close)
