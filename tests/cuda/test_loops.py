"""graphblast.repeat on a GPU: a body replayed from a captured graph (rounds with no host
read), and the bodies a graph cannot hold run from Python with the same answers."""

import functools
import gc
import importlib

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import graphblast as gb  # noqa: E402
from graphblast import Matrix, Vector, binary, semiring  # noqa: E402
from graphblast.backends import cuda_available  # noqa: E402
from graphblast.dtypes import BOOL, INT64  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no usable GPU")


def _host_reads():
    from graphblast.backends.cuda.blocks import host_reads

    return host_reads()


def _path(n, weights=None):
    rows, cols = np.arange(n - 1), np.arange(1, n)
    if weights is None:
        return Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n, device="cuda")
    return Matrix.from_coo(rows, cols, weights, INT64, nrows=n, ncols=n, device="cuda")


def _relax_body(A, dist):
    """sssp's Bellman-Ford round (dist updated in place)."""
    sssp = importlib.import_module("graphblast.algorithms.sssp")  # the module (its _relax)
    return functools.partial(sssp._relax, A=A, dist=dist, min_plus=semiring.min_plus[A.dtype])


def _run(body_of, n, device_loops, source=0):
    """dist after repeat(body_of(A, dist), {source}) on a weighted path, and the host reads
    the loop made."""
    A = _path(n, np.arange(1, n) % 7 + 1)
    dist = Vector.from_coo([source], [0], INT64, size=n, device="cuda")
    with gb.config.set(device_loops=device_loops):
        before = _host_reads()
        gb.repeat(body_of(A, dist), dist.dup())
        reads = _host_reads() - before
    return dist.to_coo(), reads


def _same(a, b):
    return all(np.array_equal(cupy.asnumpy(p), cupy.asnumpy(q)) for p, q in zip(a, b))


def test_a_long_loop_replays_without_host_reads():
    """1,000 rounds along a path: issued from Python each reads the frontier's count; replayed
    they read only the graph's own count word (not a host read of the engine's)."""
    n = 1000
    replayed, reads = _run(_relax_body, n, "auto")
    issued, python_reads = _run(_relax_body, n, "never")
    assert _same(replayed, issued)
    assert np.array_equal(cupy.asnumpy(replayed[1]),
                          np.concatenate([[0], np.cumsum(np.arange(1, n) % 7 + 1)]))
    assert python_reads >= n
    assert reads < 50, reads


def _reads_a_count(A, dist):
    relax = _relax_body(A, dist)

    def body(frontier):
        out = relax(frontier)
        if out.nvals < 0:  # a host read: no graph can hold it
            raise AssertionError
        return out

    return body


def _replaces_storage(A, dist):
    """A body that gives ``seen``, a vector made before it, new storage each round."""
    relax = _relax_body(A, dist)
    seen = Vector(INT64, A.nrows, device="cuda")

    def body(frontier):
        out = relax(frontier)
        seen << seen.ewise_add(out, binary.plus).new()
        return out

    return body


def _counts_rounds(A, dist):
    """A body with a Python counter: its value would be frozen in a graph."""
    relax = _relax_body(A, dist)
    rounds = [0]
    stamp = Vector(INT64, A.nrows, device="cuda")

    def body(frontier):
        rounds[0] += 1
        out = relax(frontier)
        stamp(out.S) << rounds[0]
        return out

    return body


@pytest.mark.parametrize("body_of", [_reads_a_count, _replaces_storage, _counts_rounds])
def test_bodies_a_graph_cannot_hold_run_from_python(body_of):
    n = 300
    got, reads = _run(body_of, n, "auto")
    want, _ = _run(body_of, n, "never")
    assert _same(got, want)
    assert reads >= n  # every round issued from Python, its count read


def test_the_round_counter_body_gives_its_stamps():
    """The depth-counter body, checked on its own output: each vertex stamped with its round."""
    n = 120
    A = _path(n)
    seen = Vector.from_coo([0], True, BOOL, size=n, device="cuda")
    level = Vector.from_coo([0], [0], INT64, size=n, device="cuda")
    depth = [0]

    def step(frontier):
        depth[0] += 1
        out = frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~seen.S)
        seen(out.S) << True
        level(out.S) << depth[0]
        return out

    gb.repeat(step, seen.dup())
    assert np.array_equal(cupy.asnumpy(level.to_coo()[1]), np.arange(n))


def test_replays_stop_at_max_rounds():
    n = 500
    A = _path(n)
    seen = Vector.from_coo([0], True, BOOL, size=n, device="cuda")

    def step(frontier):
        out = frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~seen.S)
        seen(out.S) << True
        return out

    last = gb.repeat(step, seen.dup(), max_rounds=123)
    assert seen.nvals == 124
    assert cupy.asnumpy(last.to_coo()[0]).tolist() == [123]


def test_loops_do_not_hold_memory():
    """Each loop's graph, with the buffers it kept, is gone with the loop: a hundred loops
    leave the pool's use where one left it."""
    def once():
        _run(_relax_body, 200, "auto")
        gc.collect()
        cupy.cuda.get_current_stream().synchronize()
        return cupy.get_default_memory_pool().used_bytes()

    once()
    first = once()
    for _ in range(100):
        last = once()
    assert last <= first + (1 << 20)


def test_products_after_a_replayed_loop_find_their_claims_free():
    """A replayed loop's pushes clear their claims: a push after it, to outputs of the same
    size (the same claim stamps), reaches every output, including those the loop reached."""
    n = 400
    _, reads = _run(_relax_body, n, "auto")
    assert reads < 50  # the loop was replayed
    A = _path(n, np.arange(1, n) % 7 + 1)
    starts = np.arange(0, n - 1, 3)
    f = Vector.from_coo(starts, 0, INT64, size=n, device="cuda")
    with gb.config.set(direction="push"):
        got = f.vxm(A, semiring.min_plus[INT64]).new()
    idx, vals = (cupy.asnumpy(a) for a in got.to_coo())
    assert np.array_equal(idx, starts + 1)
    assert np.array_equal(vals, np.arange(1, n)[starts] % 7 + 1)  # the edges' weights


def test_a_loop_while_the_device_replays_another_is_issued():
    """The capture stream and count word are one per device: while another loop holds
    them, a loop runs from Python, with its answer."""
    from graphblast.backends.cuda import loops

    lock = loops._per_device().lock
    assert lock.acquire(blocking=False)
    try:
        got, reads = _run(_relax_body, 300, "auto")
    finally:
        lock.release()
    want, _ = _run(_relax_body, 300, "never")
    assert _same(got, want)
    assert reads >= 300


def test_a_vector_kept_from_a_replayed_body_keeps_its_count():
    """A result of the captured round that the caller keeps past the loop holds the last
    replay's entries and count; a later loop's graph, which zeroes the counters made in it
    at each replay, never zeroes that one (it counts on a page of its own while the kept
    vector holds a slot)."""
    n = 200
    A = _path(n, np.arange(1, n) % 7 + 1)
    kept = []
    relax = _relax_body(A, Vector.from_coo([0], [0], INT64, size=n, device="cuda"))

    def body(frontier):
        t = relax(frontier)
        kept.append(t)  # every round the body runs: the dry ones and the captured one
        return t

    gb.repeat(body, Vector.from_coo([0], [0], INT64, size=n, device="cuda"), max_rounds=50)
    assert len(kept) < 50  # replayed
    last = kept[-1]  # the captured round's result: the 50th round's, one vertex of the path
    assert last.nvals == 1 and last.to_coo()[0].tolist() == [50]
    dist = Vector.from_coo([0], [0], INT64, size=n, device="cuda")
    gb.repeat(_relax_body(A, dist), dist.dup())  # another graph, replayed many times
    assert last.nvals == 1 and last.to_coo()[0].tolist() == [50]
    assert dist.nvals == n


def _stamp_levels(A, n, mode, **kw):
    """BFS levels by repeat with the round counter, under loop mode ``mode``; (levels as
    arrays, host reads, the loop's stats)."""
    from graphblast.backends.cuda import loops

    levels = Vector(INT64, n, device="cuda")

    def level(frontier, depth):
        levels(frontier.S) << depth
        return frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~levels.S, replace=True)

    with gb.config.set(device_loops=mode):
        before = _host_reads()
        gb.repeat(level, Vector.from_coo([0], True, BOOL, size=n, device="cuda"),
                  counter=True, **kw)
        reads = _host_reads() - before
    return tuple(cupy.asnumpy(a) for a in levels.to_coo()), reads, dict(loops.stats)


def test_the_device_runs_the_loop_in_one_launch():
    """A thousand levels along a path: under a conditional WHILE node the loop is one graph
    launch and one wait (beyond the dry rounds' reads); replayed, a launch and a read a
    round; from Python, a read a round."""
    n = 1000
    A = _path(n)
    got = {mode: _stamp_levels(A, n, mode) for mode in ("while", "replay", "never")}
    for mode, (levels, reads, stats) in got.items():
        assert np.array_equal(levels[1], np.arange(n)), mode
    assert got["while"][2]["mode"] == "while", got["while"][2]
    assert got["while"][2]["launches"] == 1
    # the settling and dry rounds' reads (a few, more on a first run that builds caches) and
    # the loop's one
    assert got["while"][1] <= 20, got["while"][1]
    assert got["replay"][2]["mode"] == "replay"
    assert got["replay"][2]["launches"] >= n - 10 and got["replay"][1] >= n - 10
    assert got["never"][1] >= n


def test_the_device_loop_stops_at_max_rounds():
    n = 600
    levels, reads, stats = _stamp_levels(_path(n), n, "while", max_rounds=321)
    assert np.array_equal(levels[1], np.arange(321))
    assert stats["mode"] == "while" and stats["rounds"] == 321


def _path_then_tree(length, depth):
    """A path of ``length`` vertices from 0, then a complete binary tree of ``depth`` levels
    below its end: a frontier of one vertex for ``length`` rounds, then doubling."""
    n = length + 2 ** depth - 1
    rows, cols = list(range(length - 1)), list(range(1, length))
    root = length - 1
    for k in range(2 ** (depth - 1) - 1):  # tree vertex k (root: k=0) -> 2k+1, 2k+2
        for child in (2 * k + 1, 2 * k + 2):
            rows.append(root + k)
            cols.append(root + child)
    A = Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n, device="cuda")
    return A, n


def test_a_state_outgrown_mid_loop_grows_and_the_loop_resumes(monkeypatch):
    """With a state of 4 entries at first, the tree's levels outgrow it on the device: the
    loop stops there, the host grows the state and resumes; the levels are those of the
    loop issued from Python."""
    from graphblast.backends.cuda import loops

    A, n = _path_then_tree(40, 8)
    want, _, _ = _stamp_levels(A, n, "never")
    monkeypatch.setattr(loops, "CAPACITY_FLOOR", 4)
    monkeypatch.setattr(loops, "CAPACITY_SHARE", n + 1)
    for mode in ("while", "replay"):
        got, reads, stats = _stamp_levels(A, n, mode)
        assert _same(got, want), mode
        assert stats["grown"] >= 1 and stats["mode"] in (mode, "python"), stats


def test_a_wide_result_mid_loop_goes_on_from_python(monkeypatch):
    """A result wider than WIDE_FLOOR (here 16 entries) stops the device's loop, which goes
    on from Python from that result, with the same levels."""
    from graphblast.backends.cuda import loops

    A, n = _path_then_tree(40, 8)
    want, _, _ = _stamp_levels(A, n, "never")
    monkeypatch.setattr(loops, "CAPACITY_FLOOR", 4)
    monkeypatch.setattr(loops, "CAPACITY_SHARE", n + 1)
    monkeypatch.setattr(loops, "WIDE_FLOOR", 16)
    monkeypatch.setattr(loops, "WIDE_SHARE", n + 1)
    for mode in ("while", "replay"):
        got, reads, stats = _stamp_levels(A, n, mode)
        assert _same(got, want), mode
        assert stats["mode"] == "python" and "wide" in stats["reason"], stats


def _grid(k):
    """The k x k 4-neighbour grid (more than the one-block kernel's 1,024 vertices: the
    round's product is the push)."""
    n = k * k
    i = np.arange(n)
    pairs = [(i[i % k < k - 1], i[i % k < k - 1] + 1), (i[i < n - k], i[i < n - k] + k)]
    rows = np.concatenate([a for a, b in pairs] + [b for a, b in pairs])
    cols = np.concatenate([b for a, b in pairs] + [a for a, b in pairs])
    return Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n, device="cuda")


@pytest.mark.parametrize("mode", ["persistent", "while", "replay"])
@pytest.mark.parametrize("max_rounds", [None, 17])
def test_a_rounds_first_assign_is_done_by_the_loops_last_kernel(mode, max_rounds):
    """A round whose first step is a plain scalar assign under the loop's vector (BFS's level
    stamp, by the round counter or by a constant) is captured as the push alone: the loop's
    last kernel does the assign for the next round as it copies the round's result.  The
    stamps, their count and the last vector are those of the loop issued from Python, with
    and without max_rounds (no assign for a round that does not run)."""
    from graphblast.backends.cuda import loops

    A = _grid(48)
    n = A.nrows

    def run(device_loops):
        levels = Vector(INT64, n, device="cuda")
        seen = Vector(BOOL, n, device="cuda")

        def level(frontier, depth):
            levels(frontier.S) << depth
            return frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~levels.S, replace=True)

        def visit(frontier):
            seen(frontier.S) << True
            return frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~seen.S, replace=True)

        start = Vector.from_coo([5], True, BOOL, size=n, device="cuda")
        with gb.config.set(device_loops=device_loops):
            last = gb.repeat(level, start, counter=True, max_rounds=max_rounds)
            kernels = loops.stats.get("round_kernels")
            last_seen = gb.repeat(visit, start, max_rounds=max_rounds)
            kernels_seen = loops.stats.get("round_kernels")
        out = [tuple(cupy.asnumpy(a) for a in v.to_coo()) for v in (levels, seen, last,
                                                                   last_seen)]
        return out, (levels.nvals, seen.nvals), (kernels, kernels_seen)

    want, want_counts, _ = run("never")
    got, counts, kernels = run(mode)
    for a, b in zip(got, want):
        assert _same(a, b)
    assert counts == want_counts
    # under a WHILE node the round is one kernel: the push, the assign as it claims, the
    # loop's end in its last block (gbk_push_loop); persistent, every round is one kernel
    # (gbk_push_levels)
    if mode == "persistent" and loops._Persistent.support is True:
        assert kernels == (["gbk_push_levels"],) * 2, kernels
        return
    one = mode != "replay" and loops._While._support is True
    assert kernels == ((["gbk_push_loop"],) if one else (["gbk_push", "gbk_loop_next"],)) * 2, \
        kernels


@pytest.mark.parametrize("max_rounds", [None, 321])
def test_the_persistent_kernel_makes_every_round_in_one_launch(max_rounds):
    """BFS's level (one first-claim push: a path and a grid of more vertices than the
    one-block kernel's) where the device launches cooperative kernels: the whole loop one
    launch of gbk_push_levels and one wait beyond the dry rounds' reads, the levels those of
    the loop issued from Python, with and without max_rounds."""
    from graphblast.backends.cuda import loops

    for A in (_path(3000), _grid(48)):
        n = A.nrows
        want, _, issued = _stamp_levels(A, n, "never", max_rounds=max_rounds)
        got, reads, stats = _stamp_levels(A, n, "persistent", max_rounds=max_rounds)
        assert _same(got, want)
        assert stats["mode"] == "persistent", (stats, loops._Persistent.support)
        assert stats["launches"] == 1 and stats["round_kernels"] == ["gbk_push_levels"]
        assert stats["rounds"] == issued["rounds"], (stats, issued)
        assert reads <= 20, reads


@pytest.mark.parametrize("wide", [False, True])
def test_the_persistent_kernel_stops_where_the_state_is_outgrown(monkeypatch, wide):
    """A path, then a binary tree below its end (more vertices than the one-block kernel's),
    from a state of 4 entries: the tree's levels outgrow it inside the persistent kernel,
    which stops; the host grows the state and launches it again, or (a result wider than
    WIDE_FLOOR, here 16) goes on from Python; the levels are those issued from Python."""
    from graphblast.backends.cuda import loops

    A, n = _path_then_tree(2000, 11)
    want, _, _ = _stamp_levels(A, n, "never")
    monkeypatch.setattr(loops, "CAPACITY_FLOOR", 4)
    monkeypatch.setattr(loops, "CAPACITY_SHARE", n + 1)
    if wide:
        monkeypatch.setattr(loops, "WIDE_FLOOR", 16)
        monkeypatch.setattr(loops, "WIDE_SHARE", n + 1)
    got, reads, stats = _stamp_levels(A, n, "persistent")
    assert _same(got, want)
    if wide:
        assert stats["mode"] == "python" and "wide" in stats["reason"], stats
    else:
        assert stats["grown"] >= 1 and stats["mode"] in ("persistent", "python"), stats
    assert stats["round_kernels"] == ["gbk_push_levels"], stats


def _delta_stepping(A, mode, width):
    """dist, host reads and loop stats of sssp's delta-stepping loop (its round, from the
    source alone) under ``mode``."""
    from graphblast.backends.cuda import loops

    sssp = importlib.import_module("graphblast.algorithms.sssp")
    n = A.nrows
    dist = Vector.from_coo([0], [0], INT64, size=n, device="cuda")
    widths = Vector.from_scalar(width, size=n, dtype=INT64, device="cuda")
    body = functools.partial(sssp._bucket_round, A=A, dist=dist, width=widths,
                             min_plus=semiring.min_plus[INT64])
    with gb.config.set(device_loops=mode):
        before = _host_reads()
        gb.repeat(body, dist.dup())
        reads = _host_reads() - before
    return tuple(cupy.asnumpy(a) for a in dist.to_coo()), reads, dict(loops.stats)


@pytest.mark.parametrize("width", [1, 40, 10**6])
def test_delta_stepping_runs_on_the_device(width):
    """sssp's delta-stepping round (the bucket's bound a list's minimum left on the device,
    the waiting and the improved joined by a union of two unsorted lists): the whole loop one
    launch under a WHILE node, the distances SciPy's, the same under every mode.  Width 1 is
    Dijkstra's order (a bucket per distance), 10**6 Bellman-Ford's."""
    from graphblast import generators
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    A = generators.grid2d(30, 40, weights="random", seed=7, device="cuda")
    A = A.apply(gb.unary.identity[INT64]).new()
    rows, cols, vals = (cupy.asnumpy(a) for a in A.to_coo())
    want = dijkstra(csr_matrix((vals, (rows, cols)), shape=A.shape), indices=0)
    got = {mode: _delta_stepping(A, mode, width) for mode in ("while", "replay", "never")}
    for mode, (dist, reads, stats) in got.items():
        assert np.array_equal(dist[0], np.arange(A.nrows)), mode
        assert np.array_equal(dist[1], want.astype(np.int64)), mode
    assert got["while"][2]["mode"] == "while", got["while"][2]
    assert got["while"][2]["launches"] == 1 + got["while"][2]["grown"]
    # six kernels a round: the fused sequences (fusion.py) and the union ending the round
    assert got["while"][2]["round_kernels"] == [
        "gbk_ewise_reduce_list", "gbk_select_pair", "gbk_push", "gbk_relax_list",
        "gbk_union_lists_b", "gbk_union_lists_a_loop"], got["while"][2]
    assert got["while"][1] <= 30, got["while"][1]
    assert got["never"][1] >= got["never"][2]["rounds"]


def test_a_recorded_list_reduction_and_union():
    """In a round on the device a list's minimum is read on the device and two overlapping
    unsorted lists join through the marks: the same vectors as the rounds issued from
    Python."""
    from graphblast.backends.cuda import loops

    n = 5000
    A = _path(n, np.arange(1, n) % 5 + 1)
    dist = Vector.from_coo([0], [0], INT64, size=n, device="cuda")
    relax = _relax_body(A, dist)
    mins = Vector(INT64, n, device="cuda")
    big = Vector.from_scalar(10**9, size=n, dtype=INT64, device="cuda")

    def body(frontier):
        out = relax(frontier)
        mins(out.S) << out.reduce(gb.monoid.min).new()  # the minimum, at out's positions
        # a list over out's positions and the next one's, larger: the union keeps out's
        # values, and the next position's larger value joins the frontier
        far = frontier.vxm(A, semiring.min_plus[INT64]).new().ewise_mult(big, binary.plus)
        both = out.ewise_add(far.new(), binary.min).new()
        return both.select(gb.select.valuelt, 10**8).new()

    got = {}
    for mode in ("while", "never"):
        dist.clear()
        dist[0] << 0
        mins.clear()
        with gb.config.set(device_loops=mode):
            gb.repeat(body, dist.dup())
        got[mode] = (dist.to_coo(), mins.to_coo(), dict(loops.stats))
    assert got["while"][2]["mode"] == "while", got["while"][2]
    assert _same(got["while"][0], got["never"][0])
    assert _same(got["while"][1], got["never"][1])
