"""The algorithms whose loops ``graphblast.repeat`` runs give the same answers whichever way
the loop runs: on the device as one cooperative kernel where the round allows ("persistent"),
under a conditional WHILE node ("while"), replayed round by round ("replay") or issued from
Python ("never"), on a long-diameter graph (a grid: many rounds, so the loop is recorded).
On the CPU every mode is the loop issued from Python; on a GPU the host reads are counted
too: one wait for the loop on the device, beyond the dry rounds before it
(backends/cuda/loops.py)."""

import numpy as np
import pytest

import graphblast as gb
from graphblast import algorithms, generators
from graphblast.dtypes import INT64

MODES = ["persistent", "while", "replay", "never"]


def _grid(device, weights=None):
    return generators.grid2d(30, 40, weights=weights, seed=5, device=device)


def _coo(v):
    return tuple(np.asarray(a) for a in v.to_coo())


def _same(a, b):
    return all(np.array_equal(p, q) for p, q in zip(a, b))


def _reads(device):
    if not device.startswith("cuda"):
        return 0
    from graphblast.backends.cuda import blocks

    return blocks.host_reads()


def _by_mode(device, run):
    """{mode: (answer, host reads)} of ``run()`` under each loop mode."""
    out = {}
    for mode in MODES:
        with gb.config.set(device_loops=mode):
            run()  # compiles, builds caches
            before = _reads(device)
            answer = run()
            out[mode] = (answer, _reads(device) - before)
    return out


@pytest.mark.parametrize("parents", [False, True])
def test_bfs_in_every_loop_mode(device, parents):
    A = _grid(device)
    got = _by_mode(device, lambda: algorithms.bfs(A, 7, parents=parents))
    want = got["never"][0]
    for mode in MODES:
        answer = got[mode][0]
        if parents:
            assert _same(_coo(answer[0]), _coo(want[0])) and _same(_coo(answer[1]),
                                                                    _coo(want[1])), mode
        else:
            assert _same(_coo(answer), _coo(want)), mode
    levels = _coo(want[0] if parents else want)[1]
    assert levels.max() == 29 + 39 - 7 and len(levels) == 30 * 40
    if device.startswith("cuda"):  # 62 levels: the device's loop waits once, after dry rounds
        assert got["never"][1] >= 62
        assert got["while"][1] <= 20, got["while"][1]
        assert got["persistent"][1] <= 20, got["persistent"][1]


def test_sssp_in_every_loop_mode(device):
    A = _grid(device, weights="random")
    got = _by_mode(device, lambda: algorithms.sssp(A, 0))
    want = _coo(got["never"][0])
    assert len(want[0]) == 30 * 40
    for mode in MODES:
        assert _same(_coo(got[mode][0]), want), mode


def test_sssp_bellman_ford_in_every_loop_mode(device):
    A = _grid(device, weights="random")
    got = _by_mode(device, lambda: algorithms.sssp(A, 0, method="bellman-ford"))
    want = _coo(got["never"][0])
    for mode in MODES:
        assert _same(_coo(got[mode][0]), want), mode


def test_cc_in_every_loop_mode(device):
    A = _grid(device)
    got = _by_mode(device, lambda: algorithms.connected_components(A))
    for mode in MODES:
        assert _same(_coo(got[mode][0]), _coo(got["never"][0])), mode
    assert set(_coo(got["never"][0])[1].tolist()) == {0}


def test_bfs_from_an_isolated_vertex(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], True, nrows=4, ncols=4, device=device)
    for mode in MODES:
        with gb.config.set(device_loops=mode):
            assert algorithms.bfs(A, 3).to_dict() == {3: 0}
            levels, tree = algorithms.bfs(A, 3, parents=True)
            assert tree.to_dict() == {3: 3} and levels.dtype == INT64
