"""The kernels that end or fuse a device loop's round, run on the host (no GPU): compiled by
g++ from the sources the CUDA backend compiles, with kernels_on_host.h standing in for the
GPU (a block's threads as host threads, blocks one after another in a shuffled order, warp
collectives at a barrier, appends as warps of one lane).  What they leave in memory is
compared with what the unfused sequence of operations gives (NumPy, SciPy):

- gbk_push_loop: a whole BFS, one launch a round as the WHILE node would run them: the state
  and the push's output alternating, claims by an epoch a round (never reset), the next
  level's assign as each vertex is claimed, the last block's ticket ending each round (the
  counts, the round, the condition), with and without a round limit;
- gbk_push_levels: the same BFS in one cooperative launch (the blocks meeting at a grid
  barrier between rounds, kernels_on_host.h's baton), on grids and random graphs, with a
  round limit, and stopped by a result past the capacity, then resumed from it;
- gbk_relax_list (SSSP's relaxation and the next list's marks), gbk_select_pair,
  gbk_ewise_reduce_list and gbk_reduce_list (the last block folding the partials), and
  gbk_union_lists_a_loop (the union into the state, the loop's end, the page zeroed).

The hardware's memory ordering and speed are the GPU tests' (tests/cuda/test_loops.py)."""

import importlib.util
import os
import shutil

import numpy as np
import pytest

from graphblast import binary, monoid, semiring
from graphblast.backends.cuda import programs
from graphblast.dtypes import BOOL, INT64
from graphblast.ops import select as select_ops

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")

_spec = importlib.util.spec_from_file_location(  # this folder's host_kernels.py
    "host_kernels", os.path.join(os.path.dirname(os.path.abspath(__file__)), "host_kernels.py"))
host_kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(host_kernels)

BLOCK = 64  # threads a block (a multiple of 32): fewer host threads, several warps a block
NEVER = np.iinfo(np.int64).max  # a stamp never claimed
COOPERATIVE = {"push_levels"}  # launched cooperatively: every block at once, a grid barrier


def _programs():
    any_pair = semiring.any_pair[BOOL]
    return {
        "push_loop": programs.push_loop(any_pair, BOOL, BOOL, True, True, INT64)[1](),
        "push_levels": programs.push_levels(any_pair, BOOL, BOOL, True, True, INT64)[1](),
        "relax": programs.relax_list(monoid.min[INT64], binary.ge[INT64], binary.min[INT64],
                                     INT64, BOOL)[1](),
        "pair": programs.select_pair(select_ops.valuele[INT64], select_ops.valuegt[INT64],
                                     INT64, "thunk", "thunk")[1](),
        "ewise_reduce": programs.ewise_reduce_list(binary.plus[INT64], INT64, INT64, INT64,
                                                   True, monoid.min[INT64])[1](),
        "reduce": programs.reduce_list(monoid.min[INT64], INT64)[1](),
        "union": programs.union_lists(binary.min[INT64], INT64)[1](),
        "union_loop": programs.union_lists_loop(binary.min[INT64], INT64)[1](),
    }


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return host_kernels.build(tmp_path_factory.mktemp("kernels"), _programs(), None,
                              COOPERATIVE)


def _run(kernels, key, grid, args, seed=0, k=0):
    host_kernels.run(kernels, (key, k), grid, BLOCK, args, seed)


def _i64(v):
    return host_kernels.Arg(v, np.int64)


def _grid_graph(rows, cols):
    import scipy.sparse as sp

    n = rows * cols
    ids = np.arange(n).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    A = sp.csr_array((np.ones(2 * len(src), dtype=np.int8),
                      (np.concatenate([src, dst]), np.concatenate([dst, src]))), shape=(n, n))
    A.sort_indices()
    return A


@pytest.mark.parametrize("max_rounds", [-1, 7])
def test_a_bfs_one_kernel_a_level(kernels, max_rounds):
    """gbk_push_loop launched once a round, as the WHILE node repeats it, from a state
    holding the source (round r0 = 3 here: the rounds the loop ran before): the levels are
    SciPy's BFS levels (the next level's assign done as each vertex is claimed, the source's
    level by the loop's first assign), the rounds and the condition the loop's, and each
    round's result where the parity says."""
    from scipy.sparse.csgraph import breadth_first_order, shortest_path

    A = _grid_graph(9, 13)
    n = A.shape[0]
    source, r0 = 40, 3
    ptr, col = A.indptr.astype(np.int64), A.indices.astype(np.int32)
    s_idx, o_idx = np.zeros(n, np.int64), np.zeros(n, np.int64)
    s_vals, o_vals = np.ones(n, np.bool_), np.ones(n, np.bool_)
    s_counts, o_counts = np.zeros(3, np.uint64), np.zeros(3, np.uint64)
    s_idx[0], s_counts[0] = source, 1
    stamp = np.full(n, NEVER, np.int64)
    epoch = (2**31 - 1 - 5) << 32
    levels_bits, levels = np.zeros(n, np.uint8), np.zeros(n, np.int64)
    levels_bits[source], levels[source] = 1, r0  # the loop's first assign (the hoisted launch)
    level_count = np.array([1, 0, 0], np.uint64)
    ctl = np.array([r0, 0, 0, 0], np.int64)
    rounds = 0
    while True:
        _run(kernels, "push_loop", 4, [
            s_idx, s_vals, s_counts, o_idx, o_vals, o_counts, ptr, col, np.ones(1, np.bool_),
            host_kernels.Arg(1, np.int32), levels_bits, None, host_kernels.Arg(0, np.int32), host_kernels.Arg(2, np.int32),
            host_kernels.Arg(2, np.int32), stamp, _i64(epoch), ptr, ctl, _i64(r0), _i64(max_rounds),
            _i64(n), host_kernels.Arg(77, np.uint64), levels_bits, levels, level_count, host_kernels.Arg(1, np.int32),
            _i64(0)], seed=rounds)
        rounds += 1
        out_idx, out_counts = (o_idx, o_counts) if rounds % 2 else (s_idx, s_counts)
        count = int(out_counts[0])
        assert ctl[0] == r0 + rounds and ctl[2] == count and ctl[3] == 0 and ctl[1] == 0
        assert (s_counts if rounds % 2 else o_counts)[0] == 0  # the next output's, zeroed
        assert len(set(out_idx[:count].tolist())) == count
        go = count > 0 and (max_rounds < 0 or r0 + rounds < max_rounds)
        assert kernels[0].condition() == int(go)
        if not go:
            break
    hops = shortest_path(A, unweighted=True, indices=source)
    reached = np.flatnonzero(levels_bits)
    order = breadth_first_order(A, source, return_predecessors=False)
    if max_rounds < 0:
        assert set(reached.tolist()) == set(order.tolist())
        assert rounds == int(hops[np.isfinite(hops)].max()) + 1
    else:
        assert rounds == max_rounds - r0
        assert set(reached.tolist()) == set(np.flatnonzero(hops <= rounds - 1).tolist())
    assert np.array_equal(levels[reached], hops[reached].astype(np.int64) + r0)
    assert int(level_count[0]) == len(reached)
    # stamps hold an epoch a round, each older than the next (never reset)
    claimed = stamp[stamp != NEVER] >> 32
    assert set(claimed.tolist()) <= {((epoch >> 32) - k) for k in range(rounds)}


def test_each_rounds_claims_are_its_own(kernels):
    """An unmasked push, no assign: each round's output is every neighbour of the round
    before's, vertices claimed in earlier rounds included (their stamps are older epochs,
    never reset), with the round limit ending the loop."""
    A = _grid_graph(6, 7)
    n = A.shape[0]
    ptr, col = A.indptr.astype(np.int64), A.indices.astype(np.int32)
    s_idx, o_idx = np.zeros(n, np.int64), np.zeros(n, np.int64)
    s_vals, o_vals = np.ones(n, np.bool_), np.ones(n, np.bool_)
    s_counts, o_counts = np.zeros(3, np.uint64), np.zeros(3, np.uint64)
    s_idx[0], s_counts[0] = 9, 1
    stamp = np.full(n, NEVER, np.int64)
    ctl = np.array([0, 0, 0, 0], np.int64)
    frontier = {9}
    for r in range(6):
        _run(kernels, "push_loop", 3, [
            s_idx, s_vals, s_counts, o_idx, o_vals, o_counts, ptr, col, np.ones(1, np.bool_),
            host_kernels.Arg(1, np.int32), None, None, host_kernels.Arg(0, np.int32), host_kernels.Arg(0, np.int32), host_kernels.Arg(1, np.int32),
            stamp, _i64((2**31 - 1 - 9) << 32), None, ctl, _i64(0), _i64(6), _i64(n),
            host_kernels.Arg(0, np.uint64), None, None, None, host_kernels.Arg(0, np.int32), _i64(0)], seed=r)
        out_idx, out_counts = (o_idx, o_counts) if r % 2 == 0 else (s_idx, s_counts)
        frontier = {int(j) for k in frontier for j in A.indices[A.indptr[k]:A.indptr[k + 1]]}
        assert set(out_idx[:int(out_counts[0])].tolist()) == frontier
        assert kernels[0].condition() == int(r + 1 < 6)


def test_a_relaxation_in_one_kernel(kernels):
    """gbk_relax_list against the six kernels' results: the push's fold gathered (scratch
    back to empty, claims reset), c = t >= dist where dist has an entry, dist min= t, the
    improved entries (t < dist or dist absent) appended, degree sums; and the next list's
    marks."""
    rng = np.random.default_rng(3)
    n = 500
    t_idx = rng.choice(n, 180, replace=False).astype(np.int64)
    t_vals_want = rng.integers(0, 100, 180).astype(np.int64)
    scratch = np.full(n, NEVER, np.int64)
    scratch[t_idx] = t_vals_want
    stamp = np.zeros(n, np.int64)
    dbits = (rng.random(n) < 0.5).astype(np.uint8)
    dvals = np.where(dbits == 1, rng.integers(0, 100, n), 0).astype(np.int64)
    before_bits, before_vals = dbits.copy(), dvals.copy()
    d_counts = np.array([int(dbits.sum()), 0, 0], np.uint64)
    dptr = np.arange(n + 1, dtype=np.int64) * 2  # each vertex of degree 2
    t_counts = np.array([180, 0, 0], np.uint64)
    t_out = np.zeros(180, np.int64)
    c_idx, c_vals, c_counts = np.zeros(180, np.int64), np.zeros(180, np.bool_), np.zeros(3,
                                                                                       np.uint64)
    out_idx, out_vals, counters = np.zeros(180, np.int64), np.zeros(180, np.int64), np.zeros(
        3, np.uint64)
    w_idx = rng.choice(n, 40, replace=False).astype(np.int64)
    w_vals = rng.integers(0, 1000, 40).astype(np.int64)
    w_count = np.array([40, 0, 0], np.uint64)
    w_bits, w_dense = np.zeros(n, np.uint8), np.zeros(n, np.int64)
    _run(kernels, "relax", 3, [
        t_counts, t_idx, scratch, t_out, stamp, dbits, dvals, d_counts, host_kernels.Arg(0, np.int8),
        host_kernels.Arg(0, np.int8), dptr, c_idx, c_vals, c_counts, host_kernels.Arg(1, np.int32), host_kernels.Arg(2, np.int32),
        dptr, out_idx, out_vals, counters, _i64(40), w_count, w_idx, w_vals, w_bits,
        w_dense])
    assert np.array_equal(t_out, t_vals_want)
    assert (scratch == NEVER).all() and (stamp[t_idx] == NEVER).all()
    had = before_bits[t_idx] == 1
    c_want = {(int(j), bool(v >= before_vals[j])) for j, v in zip(t_idx[had], t_vals_want[had])}
    nc = int(c_counts[0])
    assert nc == had.sum() and set(zip(c_idx[:nc].tolist(), c_vals[:nc].tolist())) == c_want
    assert int(c_counts[1]) == 2 * nc
    better = ~had | (t_vals_want < before_vals[t_idx])
    nout = int(counters[0])
    assert set(zip(out_idx[:nout].tolist(), out_vals[:nout].tolist())) == set(
        zip(t_idx[better].tolist(), t_vals_want[better].tolist()))
    assert int(counters[1]) == 2 * nout
    want_vals = before_vals.copy()
    want_vals[t_idx] = np.where(had, np.minimum(before_vals[t_idx], t_vals_want), t_vals_want)
    assert (dbits[t_idx] == 1).all() and np.array_equal(dvals, want_vals)
    assert int(d_counts[0]) == int(before_bits.sum()) + int((~had).sum())
    assert np.array_equal(np.flatnonzero(w_bits), np.sort(w_idx))
    assert np.array_equal(w_dense[w_idx], w_vals)


def test_two_selects_in_one_pass(kernels):
    rng = np.random.default_rng(5)
    n, cap = 300, 120
    idx = rng.choice(n, cap, replace=False).astype(np.int64)
    vals = rng.integers(0, 50, cap).astype(np.int64)
    count = np.array([97, 0, 0], np.uint64)  # the list's count, below its capacity
    outs = [(np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(3, np.uint64))
            for _ in range(2)]
    dptr = np.arange(n + 1, dtype=np.int64) * 3
    _run(kernels, "pair", 5, [
        _i64(cap), count, idx, vals, _i64(20), None, None, host_kernels.Arg(0, np.int32), host_kernels.Arg(0, np.int32),
        _i64(20), None, None, host_kernels.Arg(0, np.int32), host_kernels.Arg(0, np.int32), dptr, *outs[0], None,
        *outs[1]])
    for (o_idx, o_vals, c), keep in zip(outs, (vals[:97] <= 20, vals[:97] > 20)):
        m = int(c[0])
        assert set(zip(o_idx[:m].tolist(), o_vals[:m].tolist())) == set(
            zip(idx[:97][keep].tolist(), vals[:97][keep].tolist()))
    assert int(outs[0][2][1]) == 3 * int(outs[0][2][0]) and int(outs[1][2][1]) == 0


@pytest.mark.parametrize("grid", [1, 7])
def test_a_list_reduction_in_one_kernel(kernels, grid):
    """gbk_ewise_reduce_list (pending + width, and its minimum) and gbk_reduce_list: the last
    block folds every block's partial; the ticket is left zero; an empty list gives the
    monoid's identity."""
    rng = np.random.default_rng(grid)
    n, cap = 400, 150
    for count in (150, 37, 0):
        idx = rng.choice(n, cap, replace=False).astype(np.int64)
        vals = rng.integers(-1000, 1000, cap).astype(np.int64)
        width = np.full(n, 25, np.int64)
        counts = np.array([count, 0, 0], np.uint64)
        z_idx, z_vals, z_counts = np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(
            3, np.uint64)
        part, part_have = np.zeros(grid, np.int64), np.zeros(grid, np.uint8)
        ticket = np.zeros(1, np.uint64)
        result, have = np.zeros(1, np.int64), np.zeros(1, np.uint8)
        _run(kernels, "ewise_reduce", grid, [
            _i64(cap), counts, idx, vals, None, width, host_kernels.Arg(0, np.int8), host_kernels.Arg(0, np.int8), None,
            z_idx, z_vals, z_counts, part, part_have, ticket, result, have], seed=count)
        m = int(z_counts[0])
        assert m == count and set(zip(z_idx[:m].tolist(), z_vals[:m].tolist())) == set(
            zip(idx[:count].tolist(), (vals[:count] + 25).tolist()))
        assert ticket[0] == 0 and have[0] == (count > 0)
        assert result[0] == ((vals[:count] + 25).min() if count else NEVER)
        part[:], part_have[:], result[:], have[:] = 0, 0, 0, 0
        _run(kernels, "reduce", grid, [_i64(cap), counts, vals, part, part_have, ticket, result,
                                       have], seed=count + 1)
        assert ticket[0] == 0 and result[0] == (vals[:count].min() if count else NEVER)


@pytest.mark.parametrize("limit", [-1, 9])
def test_a_union_into_the_state_ends_the_round(kernels, limit):
    """gbk_union_lists_b then gbk_union_lists_a_loop, writing into the state: the union with
    min where both have an entry, the marks left zero, the state's counters, the round
    counted, the result's count in ctl[2], past the capacity flagged, the page zeroed where
    the loop goes on, and the condition."""
    rng = np.random.default_rng(11)
    n = 260
    a_idx = rng.choice(n, 70, replace=False).astype(np.int64)
    b_idx = rng.choice(n, 90, replace=False).astype(np.int64)
    a_vals = rng.integers(0, 500, 70).astype(np.int64)
    b_vals = rng.integers(0, 500, 90).astype(np.int64)
    want = dict(zip(a_idx.tolist(), a_vals.tolist()))
    for j, v in zip(b_idx.tolist(), b_vals.tolist()):
        want[j] = min(want.get(j, v), v)
    for cap, round_ in ((n, 3), (10, 8)):
        marks, mvals = np.zeros(n, np.uint8), np.zeros(n, np.int64)
        marks[a_idx], mvals[a_idx] = 1, a_vals  # gbk_list_to_bitmap of a
        s_idx, s_vals, s_counts = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(
            3, np.uint64)
        page = np.arange(1, 31, dtype=np.uint64)  # the round's counter page: other slots
        page[6:9] = 0  # the union's count, a zeroed slot of it
        ctl = np.array([round_, 0, 0, 0], np.int64)
        _run(kernels, "union", 3, [_i64(90), None, b_idx, b_vals, marks, mvals,
                                   host_kernels.Arg(0, np.int8), host_kernels.Arg(0, np.int8), s_idx, s_vals,
                                   page[6:]])
        _run(kernels, "union_loop", 4, [
            _i64(70), None, a_idx, a_vals, marks, mvals, host_kernels.Arg(0, np.int8), host_kernels.Arg(0, np.int8),
            s_idx, s_vals, page[6:], ctl, _i64(limit), _i64(cap), s_counts, page,
            _i64(page.size), host_kernels.Arg(5, np.uint64)], seed=cap)
        m = len(want)
        assert int(s_counts[0]) == m and ctl[2] == m and ctl[0] == round_ + 1 and ctl[3] == 0
        assert dict(zip(s_idx[:m].tolist(), s_vals[:m].tolist())) == want
        assert not marks.any()
        fits = m <= cap
        go = fits and (limit < 0 or round_ + 1 < limit)
        assert ctl[1] == int(not fits)
        assert kernels[0].condition() == int(go)
        assert (page == 0).all() == go



def _random_graph(n, degree, seed):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    m = n * degree // 2
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    A = sp.csr_array((np.ones(2 * len(src), dtype=np.int8),
                      (np.concatenate([src, dst]), np.concatenate([dst, src]))), shape=(n, n))
    A.sum_duplicates()
    A.sort_indices()
    return A


def _levels_launch(kernels, A, state, r0, max_rounds, cap, seed, grid=4, width=2):
    """One launch of gbk_push_levels over ``state`` (the lists, counters, stamps, levels and
    control words of a BFS, updated in place); the words it left."""
    n = A.shape[0]
    ptr, col = A.indptr.astype(np.int64), A.indices.astype(np.int32)
    words = np.zeros(5, np.uint64)
    st = state
    _run(kernels, "push_levels", grid, [
        st["s_idx"], st["s_vals"], st["s_counts"], st["o_idx"], st["o_vals"], st["o_counts"],
        ptr, col, np.ones(1, np.bool_), host_kernels.Arg(1, np.int32), st["bits"], None, host_kernels.Arg(0, np.int32),
        host_kernels.Arg(2, np.int32), host_kernels.Arg(width, np.int32), st["stamp"], _i64(st["epoch"]), ptr,
        st["ctl"], _i64(r0), _i64(max_rounds), _i64(cap), words, st["bits"], st["levels"],
        st["level_count"], host_kernels.Arg(1, np.int32), _i64(0)], seed=seed)
    return words


def _bfs_state(n, source, r0):
    state = {"s_idx": np.zeros(n, np.int64), "o_idx": np.zeros(n, np.int64),
             "s_vals": np.ones(n, np.bool_), "o_vals": np.ones(n, np.bool_),
             "s_counts": np.array([1, 0, 0], np.uint64),
             "o_counts": np.array([5, 5, 5], np.uint64),  # left by an earlier round
             "stamp": np.full(n, NEVER, np.int64), "epoch": (2**31 - 1 - 5) << 32,
             "bits": np.zeros(n, np.uint8), "levels": np.zeros(n, np.int64),
             "level_count": np.array([1, 0, 0], np.uint64),
             "ctl": np.array([r0, 0, 0, 0], np.int64)}
    state["s_idx"][0] = source
    # the loop's first assign (the hoisted launch, before the kernel)
    state["bits"][source], state["levels"][source] = 1, r0
    return state


def _result(state, rounds):
    """The list holding the result of a launch that ran ``rounds`` rounds, and the other's
    counters: the push's own list after an odd number, the state after an even one."""
    if rounds % 2:
        return state["o_idx"], state["o_counts"], state["s_counts"]
    return state["s_idx"], state["s_counts"], state["o_counts"]


def _check_levels(A, source, state, r0):
    from scipy.sparse.csgraph import shortest_path

    hops = shortest_path(A, unweighted=True, indices=source)
    reached = np.flatnonzero(state["bits"])
    assert set(reached.tolist()) == set(np.flatnonzero(np.isfinite(hops)).tolist())
    assert np.array_equal(state["levels"][reached], hops[reached].astype(np.int64) + r0)
    assert int(state["level_count"][0]) == len(reached)
    return hops


@pytest.mark.parametrize("graph,source,grid,width,seed", [
    ("grid", 40, 4, 2, 0), ("grid", 0, 3, 4, 1), ("random", 7, 4, 1, 2),
    ("random", 123, 5, 2, 3)])
def test_a_bfs_in_one_cooperative_launch(kernels, graph, source, grid, width, seed):
    """gbk_push_levels, one launch from a state holding the source (round r0 = 3): every
    level SciPy's, the rounds counted, the last (empty) result in the list the parity says
    with the other list's counters zeroed, the degree sums, and the claims an epoch a
    round."""
    A = _grid_graph(9, 13) if graph == "grid" else _random_graph(300, 3, seed)
    n, r0 = A.shape[0], 3
    state = _bfs_state(n, source, r0)
    words = _levels_launch(kernels, A, state, r0, -1, n, seed, grid=grid, width=width)
    hops = _check_levels(A, source, state, r0)
    rounds = int(hops[np.isfinite(hops)].max()) + 1
    ctl = state["ctl"]
    assert ctl.tolist() == [r0 + rounds, 0, 0, 0]
    _, result_counts, other = _result(state, rounds)
    assert result_counts.tolist() == [0, 0, 0] and other.tolist() == [0, 0, 0]
    assert words[0] == (rounds + 1) * grid  # one barrier a round, one for the degree sum
    claimed = state["stamp"][state["stamp"] != NEVER] >> 32
    assert set(claimed.tolist()) <= {((state["epoch"] >> 32) - k) for k in range(rounds)}


def test_a_round_limit_in_one_cooperative_launch(kernels):
    """Stopped by max_rounds: the result of the last round run kept (its count and degree
    sum in its list's counters), the next level's assign not done past the limit."""
    A = _grid_graph(9, 13)
    n, r0, limit, source = A.shape[0], 3, 8, 40
    state = _bfs_state(n, source, r0)
    _levels_launch(kernels, A, state, r0, limit, n, 4)
    rounds = limit - r0
    from scipy.sparse.csgraph import shortest_path

    hops = shortest_path(A, unweighted=True, indices=source)
    assert state["ctl"].tolist() == [limit, 0, int((hops == rounds).sum()), 0]
    reached = np.flatnonzero(state["bits"])
    assert set(reached.tolist()) == set(np.flatnonzero(hops <= rounds - 1).tolist())
    assert np.array_equal(state["levels"][reached], hops[reached].astype(np.int64) + r0)
    out_idx, counts, other = _result(state, rounds)
    m = int(counts[0])
    assert set(out_idx[:m].tolist()) == set(np.flatnonzero(hops == rounds).tolist())
    degrees = np.diff(A.indptr)
    assert int(counts[1]) == int(degrees[hops == rounds].sum())
    assert other.tolist() == [0, 0, 0]


@pytest.mark.parametrize("seed", [0, 5])
def test_a_result_past_the_capacity_stops_the_launch(kernels, seed):
    """A round whose result exceeds the capacity stops the launch with the overflow flag and
    the whole result in its list (its next level already assigned); resumed from that
    result (copied into the state where it is in the push's list, as the host does) by a
    second launch, the BFS ends with SciPy's levels."""
    A = _random_graph(400, 4, seed)
    n, r0, source, cap = A.shape[0], 0, 11, 20
    from scipy.sparse.csgraph import shortest_path

    hops = shortest_path(A, unweighted=True, indices=source)
    state = _bfs_state(n, source, r0)
    _levels_launch(kernels, A, state, r0, -1, cap, seed)
    ctl = state["ctl"]
    rounds = int(ctl[0]) - r0
    big = int(np.flatnonzero(np.bincount(hops[np.isfinite(hops)].astype(int)) > cap)[0])
    assert rounds == big and ctl[1] == 1 and ctl[2] == int((hops == big).sum())
    out_idx, counts, other = _result(state, rounds)
    m = int(counts[0])
    assert m == ctl[2] and set(out_idx[:m].tolist()) == set(np.flatnonzero(hops == big))
    assert np.array_equal(np.flatnonzero(state["bits"]), np.flatnonzero(hops <= big))
    if rounds % 2:  # the host's copy of the result into the state
        state["s_idx"][:m] = out_idx[:m]
        state["s_counts"][:] = counts
    state["epoch"] -= rounds << 32  # the host's epoch, past the rounds run
    ctl[1] = ctl[2] = 0
    _levels_launch(kernels, A, state, int(ctl[0]), -1, n, seed + 1)
    _check_levels(A, source, state, r0)
    assert ctl[0] == r0 + int(hops[np.isfinite(hops)].max()) + 1 and ctl[1] == 0


@pytest.mark.parametrize("limit", [-1, 4])
def test_one_round_in_one_cooperative_launch(kernels, limit):
    """A source with no edge (the first round's result is empty), and a round limit of one
    round: one barrier a round, the counts where gbk_push_loop's would leave them."""
    A = _grid_graph(5, 6)
    n, r0 = A.shape[0], 3
    A = A.tolil()
    A.rows[7], A.data[7] = [], []  # vertex 7 keeps no out-edge
    A = A.tocsr()
    state = _bfs_state(n, 7, r0)
    words = _levels_launch(kernels, A, state, r0, limit, n, 1, grid=3)
    assert state["ctl"].tolist() == [r0 + 1, 0, 0, 0]
    assert words[0] == 2 * 3 and state["o_counts"].tolist() == [0, 0, 0]
    assert np.flatnonzero(state["bits"]).tolist() == [7]
    state = _bfs_state(n, 12, r0)
    _levels_launch(kernels, A, state, r0, r0 + 1, n, 2, grid=3)
    from scipy.sparse.csgraph import shortest_path

    hops = shortest_path(A, unweighted=True, indices=12)
    assert state["ctl"].tolist() == [r0 + 1, 0, int((hops == 1).sum()), 0]
    out = state["o_idx"][:int(state["o_counts"][0])]
    assert set(out.tolist()) == set(np.flatnonzero(hops == 1).tolist())
    assert np.flatnonzero(state["bits"]).tolist() == [12]  # no assign past the limit
