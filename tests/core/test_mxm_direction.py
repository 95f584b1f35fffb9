"""The masked mxm's direction (plan.mxm_direction): forced push, forced pull and the
automatic choice give python-graphblas's answer for random batches of frontiers, every mask
kind and several semirings; the choice is logged with its reason and follows the work."""

import logging

import graphblas
import numpy as np
import pytest

import graphblast as gb
from graphblast import plan

SEMIRINGS = ["plus_times", "any_pair", "min_plus", "plus_first", "max_second", "lor_land",
             "min_first", "plus_pair"]
MASKS = [("S", False), ("S", True), ("V", False), ("V", True)]


def _random(rng, nrows, ncols, density, low=1, high=5):
    count = int(nrows * ncols * density)
    keys = np.unique(rng.integers(0, max(nrows * ncols, 1), count))
    values = rng.integers(low, high, keys.shape[0]).astype(np.float64)
    return keys // ncols, keys % ncols, values


def _both(lib, coo, nrows, ncols, boolean, device=None):
    kw = {} if device is None else {"device": device}
    M = lib.Matrix.from_coo(*coo, nrows=nrows, ncols=ncols, **kw)
    if boolean:
        M = M.apply(lib.unary.one["BOOL"]).new()
    return M


def _mask(M, kind, complement):
    m = M.S if kind == "S" else M.V
    return ~m if complement else m


def _coo(M):
    rows, cols, vals = (np.asarray(x) for x in M.to_coo())
    return rows, cols, vals


@pytest.mark.parametrize("semiring", SEMIRINGS)
@pytest.mark.parametrize("mask", MASKS, ids=lambda m: f"{'~' if m[1] else ''}{m[0]}")
def test_forced_and_auto_agree_with_python_graphblas(device, rng, semiring, mask):
    kind, complement = mask
    boolean = semiring == "lor_land"
    for _ in range(6):
        ns, n = int(rng.integers(1, 9)), int(rng.integers(1, 60))
        a = _random(rng, ns, n, rng.random() * 0.4)
        b = _random(rng, n, n, rng.random() * 0.25)
        m = _random(rng, ns, n, rng.random() * 0.7, low=0, high=3)  # value masks hold zeros
        ref_mask = _mask(_both(graphblas, m, ns, n, False), kind, complement)
        expected = _both(graphblas, a, ns, n, boolean).mxm(
            _both(graphblas, b, n, n, boolean), getattr(graphblas.semiring, semiring)
        ).new(mask=ref_mask)
        er, ec, ev = _coo(expected)
        for direction in ("push", "pull", "auto"):
            with gb.config.set(direction=direction):
                A = _both(gb, a, ns, n, boolean, device)
                B = _both(gb, b, n, n, boolean, device)
                M = _both(gb, m, ns, n, False, device)
                C = A.mxm(B, getattr(gb.semiring, semiring)).new(mask=_mask(M, kind, complement))
                # the transposed form goes through mxm_bt (B' given, as stored)
                BT = B.T.new()
                D = A.mxm(BT.T, getattr(gb.semiring, semiring)).new(
                    mask=_mask(M, kind, complement))
            for X in (C, D):
                r, c, v = _coo(X)
                assert np.array_equal(r, er) and np.array_equal(c, ec), (direction, semiring)
                if semiring not in ("any_pair",):
                    np.testing.assert_allclose(v.astype(float), ev.astype(float))


def test_choice_is_logged_with_its_reason(device, caplog):
    A = gb.Matrix.from_coo([0, 1], [0, 3], True, nrows=2, ncols=8, device=device)
    B = gb.Matrix.from_coo(np.arange(7), np.arange(1, 8), True, nrows=8, ncols=8,
                           device=device)
    visited = A.dup()
    with caplog.at_level(logging.DEBUG, logger="graphblast"):
        A.mxm(B, gb.semiring.any_pair["BOOL"]).new(mask=~visited.S)
        with gb.config.set(direction="pull"):
            A.mxm(B, gb.semiring.any_pair["BOOL"]).new(mask=~visited.S)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("mxm direction")]
    # the automatic choice says what it compared: the products against the positions, or
    # (a structural product over packed bitmaps, on a GPU) the frontier against the mask
    chosen = [line for line in lines if "forced" not in line]
    assert chosen and all("positions" in line and any(op in line for op in ("<=", ">=", " > "))
                          for line in chosen), lines
    assert any("pull (forced by gb.config)" in line for line in lines), lines


def test_rule_follows_the_work():
    # a frontier of few products pushes; one whose products exceed pull's visits pulls
    assert plan.mxm_direction(10, 10_000, 1000)[0] == "push"
    assert plan.mxm_direction(100_000, 10_000, 1000)[0] == "pull"
    # hysteresis: after a pull, push must be cheaper by the margin
    push, positions = 1000, 0
    pull = push * plan.MXM_PUSH_COST + 1
    assert plan.mxm_direction(push, pull, positions)[0] == "push"
    assert plan.mxm_direction(push, pull, positions, previous="pull")[0] == "pull"
    # an "any" monoid's outputs stop at their first product: pull's work falls
    rule = plan.mxm_direction(50_000, 1_000_000, 0, first_hit_rows=1000, nvals=100_000,
                              rows=10)
    assert rule[0] == "pull" and "visits" in rule[1]
    with gb.config.set(direction="push"):
        assert plan.mxm_direction(10**9, 1, 1) == ("push", "forced by gb.config")
    # pull's positions alone settle a small frontier: push, without counting pull's visits
    positions = 64 * 4096
    settle = positions * plan.MXM_PULL_POSITION_COST / plan.MXM_PUSH_COST
    assert plan.mxm_push_settled(int(settle), positions)
    assert not plan.mxm_push_settled(int(settle) + 1, positions)
    assert not plan.mxm_push_settled(int(settle * 0.6), positions, previous="pull")
    choice, reason = plan.mxm_direction(100, None, 64 * 4096)
    assert choice == "push" and "alone" in reason
    # push dearer than pull visiting every entry of B for every frontier: pull, uncounted
    assert plan.mxm_pull_settled(10**9, 64 * 10**6, 64 * 4096)
    assert not plan.mxm_pull_settled(10**6, 64 * 10**6, 64 * 4096)


@pytest.mark.parametrize("semiring", ["any_pair", "plus_first", "min_plus"])
def test_batches_wider_than_a_tile(device, rng, semiring):
    # GPU pull works on tiles of 32 frontier rows by 32 columns: batches of several tiles,
    # with a partial last one, and a column of B' long enough for several steps of a warp
    ns, n = 70, 100
    a = _random(rng, ns, n, 0.3)
    rows, cols, vals = _random(rng, n, n, 0.05)
    hub = np.arange(n)
    b = (np.concatenate([rows, hub]), np.concatenate([cols, np.full(n, 7)]),
         np.concatenate([vals, np.ones(n)]))
    keys = np.unique(b[0] * n + b[1], return_index=True)[1]
    b = tuple(x[keys] for x in b)
    m = _random(rng, ns, n, 0.5)
    for complement in (False, True):
        ref_mask = _mask(_both(graphblas, m, ns, n, False), "S", complement)
        expected = _both(graphblas, a, ns, n, False).mxm(
            _both(graphblas, b, n, n, False), getattr(graphblas.semiring, semiring)
        ).new(mask=ref_mask)
        for direction in ("push", "pull", "auto"):
            with gb.config.set(direction=direction):
                C = _both(gb, a, ns, n, False, device).mxm(
                    _both(gb, b, n, n, False, device), getattr(gb.semiring, semiring)
                ).new(mask=_mask(_both(gb, m, ns, n, False, device), "S", complement))
            r, c, v = _coo(C)
            er, ec, ev = _coo(expected)
            assert np.array_equal(r, er) and np.array_equal(c, ec), (direction, complement)
            if semiring != "any_pair":
                np.testing.assert_allclose(v, ev)


def test_bitmap_rule_follows_the_work():
    # over bitmaps (the GPU's batched state) push pays its products, pull its visits
    assert plan.mxm_bitmap_direction(100, 10_000, 64 * 4096)[0] == "push"
    assert plan.mxm_bitmap_direction(10**8, 10**6, 64 * 4096)[0] == "pull"
    visits = 1.1 * 1000 / plan.MXM_BITMAP_VISIT_COST  # pull costs 1.1 x push
    assert plan.mxm_bitmap_direction(1000, visits, 0)[0] == "push"
    assert plan.mxm_bitmap_direction(1000, visits, 0, previous="pull")[0] == "pull"
    with gb.config.set(direction="pull"):
        assert plan.mxm_bitmap_direction(0, 10**9, 1) == ("pull", "forced by gb.config")


def test_packed_rule_follows_the_entries():
    # over packed bitmaps (a structural batch) both directions pay the entries of B they walk
    assert plan.mxm_packed_direction(100, 10_000, 64 * 4096)[0] == "push"
    assert plan.mxm_packed_direction(10**8, 10**6, 64 * 4096)[0] == "pull"
    pull = 1.1 * 1000 * plan.MXM_PACKED_PUSH_COST  # pull walks 1.1 x push's entries
    assert plan.mxm_packed_direction(1000, pull, 0)[0] == "push"
    assert plan.mxm_packed_direction(1000, pull, 0, previous="pull")[0] == "pull"
    with gb.config.set(direction="push"):
        assert plan.mxm_packed_direction(10**9, 0, 1) == ("push", "forced by gb.config")
    # kron-22's 64-source BFS as an H100 timed it (the record's batched-direction/), every
    # step the faster direction: the allowed positions those of its 2,396,232 vertices with
    # an edge, the words one a vertex
    positions, words, columns, edges = 268_435_328, 4_194_302, 2_396_232, 128_311_450
    steps = [  # (frontier, push's entries, positions visited before, the faster direction)
        (64, 4756, 0, "push"),
        (4756, 13_438_367, 64, "push"),              # 0.55 ms against a pull of 1.67
        (5_481_632, 125_093_174, 4820, "pull"),      # 1.41 ms against a push of 1.90
        (94_593_675, 128_299_869, 5_486_452, "pull"),
        (51_991_836, 60_893_891, 100_080_127, "pull"),
        (1_180_926, 370_544, 152_071_963, "pull"),   # 0.184 ms against a push of 0.233
        (4372, 1123, 153_252_889, "push"),           # 0.175 ms against a pull of 0.195
        (19, 5, 153_257_261, "push"),
    ]
    previous = None
    for frontier, push, visited, faster in steps:
        allowed = 64 * columns - visited - frontier
        pull = min(columns, allowed) * edges / columns  # packed.direction's estimate
        got = plan.mxm_packed_direction(push, pull, positions, frontier=frontier, allowed=allowed,
                                        words=words, previous=previous)[0]
        assert got == faster, (frontier, got)
        previous = got
    # a push of few entries a word pushes, whatever the frontier's density
    assert plan.mxm_packed_direction(100, 10**9, 0, frontier=10**6, allowed=10**6,
                                     words=4000, previous="pull")[0] == "push"
    assert plan.mxm_packed_direction(101, 10**9, 0, frontier=10**6, allowed=10**6,
                                     words=4000, previous="pull")[0] == "pull"
    # a frontier dense among the allowed positions pulls (its scans stop early), with
    # hysteresis; a sparse one weighs the entries
    dense = plan.MXM_PACKED_PULL_DENSITY * 10**6
    assert plan.mxm_packed_direction(10, 10**9, 0, frontier=dense, allowed=10**6)[0] == "pull"
    assert plan.mxm_packed_direction(10, 10**9, 0, frontier=dense * 0.6,
                                     allowed=10**6)[0] == "push"
    assert plan.mxm_packed_direction(10, 10**9, 0, frontier=dense * 0.6, allowed=10**6,
                                     previous="pull")[0] == "pull"
    # a first step's list frontier: packed words unless they outweigh the list's fixed cost
    assert not plan.mxm_packed_list_push(4756, 2**22)  # kron-22, 64 sources
    assert plan.mxm_packed_list_push(100, 2**27)
    assert not plan.mxm_packed_list_push(10**8, 2**27)


@pytest.mark.parametrize("direction", ["push", "pull", "auto"])
def test_batched_state_kept_in_place(device, rng, direction):
    # a multi-source traversal's state, step by step in every direction, as the CPU computes
    # it: levels updated in place under the frontier, the frontier under their complement,
    # and the reads that go through other formats on the way (a transpose, a column
    # reduction, element-wise operations with list matrices, a masked write-back)
    n, ns = 300, 40
    coo = _random(rng, n, n, 0.02)
    sources = rng.integers(0, n, ns)
    rest_coo = _random(rng, ns, n, 0.1)
    results = []
    for dev in ("cpu", device):
        with gb.config.set(direction=direction):
            A = gb.Matrix.from_coo(*coo, nrows=n, ncols=n, device=dev)
            levels = gb.Matrix("INT64", ns, n, device=dev)
            F = gb.Matrix.from_coo(np.arange(ns), sources, True, nrows=ns, ncols=n,
                                   device=dev)
            snapshots, depth = [], 0
            while F.nvals:
                levels(F.S) << depth
                snapshots.append(levels.T.new())  # must not change with levels
                depth += 1
                F(~levels.S, replace=True) << F.mxm(A, gb.semiring.any_pair["BOOL"])
            if dev != "cpu":  # the GPU keeps a batch's state as bitmaps by column
                assert getattr(levels._data, "format", "csr") == "bitmapc"
            paths = levels.apply(gb.unary.one["FP64"]).new()
            paths(gb.binary.plus) << levels.apply(gb.binary.times["FP64"], right=0.5)
            total = paths.reduce_columnwise(gb.monoid.plus).new()
            rest = gb.Matrix.from_coo(*rest_coo[:2], 2.0, nrows=ns, ncols=n, device=dev)
            mixed = paths.ewise_mult(rest, gb.binary.times).new()
            mixed(~levels.S) << rest
            results.append([_coo(levels), tuple(np.asarray(x) for x in total.to_coo()),
                            _coo(mixed)]
                           + [_coo(s) for s in snapshots])
    cpu, dev = results
    assert len(cpu) == len(dev)
    for a, b in zip(cpu, dev):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("semiring", ["any_pair", "plus_first"])
def test_hub_rows_and_columns(device, rng, semiring):
    # a hub whose row and column are longer than the GPU kernels' heavy thresholds (pull: a
    # warp per output past 1,024 entries of a column; push: chunks of a row past 256)
    ns, n, hub = 40, 1300, 5
    rows, cols, vals = _random(rng, n, n, 0.002)
    everyone = np.arange(n)
    b = (np.concatenate([rows, everyone, np.full(n, hub)]),
         np.concatenate([cols, np.full(n, hub), everyone]),
         np.concatenate([vals, np.ones(2 * n)]))
    keys = np.unique(b[0] * n + b[1], return_index=True)[1]
    b = tuple(x[keys] for x in b)
    _complemented_as_python_graphblas(device, semiring, _random(rng, ns, n, 0.05), b,
                                      _random(rng, ns, n, 0.3), ns, n, ("push", "pull", "auto"))


def _complemented_as_python_graphblas(device, semiring, a, b, m, ns, n, directions):
    """C<!M> = A (+.x) B in each direction as python-graphblas computes it, and its count."""
    expected = _both(graphblas, a, ns, n, False).mxm(
        _both(graphblas, b, n, n, False), getattr(graphblas.semiring, semiring)
    ).new(mask=~_both(graphblas, m, ns, n, False).S)
    er, ec, ev = _coo(expected)
    for direction in directions:
        with gb.config.set(direction=direction):
            C = _both(gb, a, ns, n, False, device).mxm(
                _both(gb, b, n, n, False, device), getattr(gb.semiring, semiring)
            ).new(mask=~_both(gb, m, ns, n, False, device).S)
        r, c, v = _coo(C)
        assert np.array_equal(r, er) and np.array_equal(c, ec), direction
        assert C.nvals == len(er), direction  # the count the kernels added up
        if semiring != "any_pair":
            np.testing.assert_allclose(v, ev)


@pytest.mark.parametrize("semiring", ["any_pair", "plus_times", "min_plus", "plus_first"])
@pytest.mark.parametrize("direction, frontier, masked", [("push", 0.01, 0.2), ("pull", 0.3, 4.0)])
def test_few_rows_over_long_rows(device, rng, semiring, direction, frontier, masked):
    # rows and columns of B of about 100 entries with one or two of a tile's 32 frontier rows
    # at work: push from a frontier with that few entries at each column, pull under a mask
    # that allows that few (4 draws a position: 98% of them masked).  The GPU's bitmap
    # kernels then take the warp's working rows one at a time, 32 entries a step.
    ns, n = 70, 300
    _complemented_as_python_graphblas(device, semiring, _random(rng, ns, n, frontier),
                                      _random(rng, n, n, 0.33), _random(rng, ns, n, masked),
                                      ns, n, (direction, "auto"))


@pytest.mark.parametrize("semiring", ["plus_first", "any_pair", "min_plus"])
def test_plain_masks_over_batch_state(device, rng, semiring):
    # betweenness centrality's backward step: a product under a plain mask whose left operand
    # or mask is a batch's state (a product under a complemented mask: a bitmap on a GPU),
    # forced push, forced pull and auto, as python-graphblas computes it
    ns, n = 40, 200
    data = {"a": _random(rng, ns, n, 0.1), "b": _random(rng, n, n, 0.05),
            "m": _random(rng, ns, n, 0.5), "c": _random(rng, ns, n, 0.2),
            "keep": _random(rng, ns, n, 0.4)}

    def products(lib, **kw):
        sr = getattr(lib.semiring, semiring)
        a, b, m, c, keep = (_both(lib, coo, n if name == "b" else ns, n, False, **kw)
                            for name, coo in data.items())
        state = a.mxm(b, sr).new(mask=~m.S)
        return [state.mxm(b, sr).new(mask=keep.S), c.mxm(b, sr).new(mask=state.S),
                state.mxm(b.T, sr).new(mask=keep.S)]

    expected = [_coo(E) for E in products(graphblas)]
    for direction in ("push", "pull", "auto"):
        with gb.config.set(direction=direction):
            got = products(gb, device=device)
        for X, (er, ec, ev) in zip(got, expected):
            r, c, v = _coo(X)
            assert np.array_equal(r, er) and np.array_equal(c, ec), direction
            assert X.nvals == len(er), direction
            if semiring != "any_pair":
                np.testing.assert_allclose(v, ev)
