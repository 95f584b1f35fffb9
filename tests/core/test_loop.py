"""graphblast.repeat on every device: the rounds it runs, what it returns, its errors.  On a
GPU the long loops here are replayed from a captured graph (tests/cuda/test_loops.py checks
that they are); their answers must be those of the same rounds issued one by one."""

import functools
import importlib

import numpy as np
import pytest

import graphblast as gb
from graphblast import Matrix, Vector, binary, select, semiring
from graphblast.dtypes import BOOL, FP64, INT64
from graphblast.exceptions import DimensionMismatch, InvalidValue

SSSP = importlib.import_module("graphblast.algorithms.sssp")  # the module (its _relax)


def _path(n, device, weights=None):
    """The directed path 0 -> 1 -> ... -> n-1 (weights: one per edge, else BOOL)."""
    rows, cols = np.arange(n - 1), np.arange(1, n)
    if weights is None:
        return Matrix.from_coo(rows, cols, True, BOOL, nrows=n, ncols=n, device=device)
    return Matrix.from_coo(rows, cols, weights, nrows=n, ncols=n, device=device)


def _bfs_step(A, seen, calls=None):
    """One BFS round along A from the frontier, ``seen`` updated in place (each call noted
    in ``calls``)."""
    any_pair = semiring.any_pair[BOOL]

    def step(frontier):
        if calls is not None:
            calls.append(1)
        out = frontier.vxm(A, any_pair).new(mask=~seen.S)
        seen(out.S) << True
        return out

    return step


def _bellman_ford(A, source, device):
    """Distances by Bellman-Ford's rounds (sssp's own round, dist updated in place) through
    repeat."""
    dist = Vector.from_coo([source], [0], A.dtype, size=A.nrows, device=device)
    relax = functools.partial(SSSP._relax, A=A, dist=dist, min_plus=semiring.min_plus[A.dtype])
    last = gb.repeat(relax, dist.dup())
    return dist, last


def _expected_distances(A, source):
    """Bellman-Ford on the host (SciPy), the reference."""
    from scipy.sparse.csgraph import shortest_path

    rows, cols, vals = (np.asarray(a) for a in A.to_coo())
    import scipy.sparse as sp

    M = sp.csr_matrix((vals.astype(np.float64), (rows, cols)), shape=A.shape)
    d = shortest_path(M, method="BF", indices=source)
    reach = np.flatnonzero(np.isfinite(d))
    return reach, d[reach]


@pytest.mark.parametrize("n", [1, 2, 5, 300])
def test_repeat_runs_until_empty(device, n):
    """A BFS along a path: one round a vertex (n rounds, the last finding nothing); the last
    vector is empty.  The CPU calls the body once a round; a GPU, once a dry round it issues
    from Python (until two in a row launch the same: two, or three where the first built
    caches) and once to capture the round it then replays."""
    seen = Vector.from_coo([0], True, BOOL, size=n, device=device)
    calls = []
    last = gb.repeat(_bfs_step(_path(n, device), seen, calls), seen.dup())
    assert last.nvals == 0 and last.size == n
    assert seen.nvals == n
    assert sorted(seen.to_coo()[0].tolist()) == list(range(n))
    if device == "cpu" or n <= 2:
        assert len(calls) == n
    else:  # the dry rounds and the capture, the rest replayed
        assert 3 <= len(calls) <= min(n, 4)


def test_repeat_of_an_empty_vector_runs_no_round(device):
    x = Vector(FP64, 7, device=device)
    calls = []
    out = gb.repeat(lambda v: calls.append(v) or v, x)
    assert out is x and calls == []


@pytest.mark.parametrize("max_rounds", [0, 1, 3, 10])
def test_repeat_stops_at_max_rounds(device, max_rounds):
    """max_rounds bounds the rounds whichever way they run; the vector then still has
    entries (a path of 50 vertices needs 50 rounds)."""
    n = 50
    seen = Vector.from_coo([0], True, BOOL, size=n, device=device)
    last = gb.repeat(_bfs_step(_path(n, device), seen), seen.dup(), max_rounds=max_rounds)
    assert seen.nvals == max_rounds + 1
    assert last.to_coo()[0].tolist() == ([max_rounds] if max_rounds else [0])


@pytest.mark.parametrize("dtype", [INT64, FP64])
def test_repeat_bellman_ford_matches_scipy(device, rng, dtype):
    """Bellman-Ford through repeat on a random weighted graph and on a long path (many
    rounds: replayed on a GPU) against SciPy."""
    n = 400
    rows, cols = rng.integers(0, n, 1600), rng.integers(0, n, 1600)
    keep = rows != cols
    vals = rng.integers(1, 20, keep.sum()) if dtype is INT64 else rng.random(keep.sum())
    A = Matrix.from_coo(rows[keep], cols[keep], vals, dtype, nrows=n, ncols=n,
                        dup_op=binary.min, device=device)
    weights = rng.integers(1, 9, 599) if dtype is INT64 else rng.random(599)
    for M in (A, _path(600, device, weights.astype(dtype.np_type))):
        dist, last = _bellman_ford(M, 0, device)
        reach, d = _expected_distances(M, 0)
        got_idx, got_val = dist.to_coo()
        assert last.nvals == 0
        assert np.array_equal(np.asarray(got_idx), reach)
        assert np.allclose(np.asarray(got_val, dtype=np.float64), d)


def test_repeat_with_a_select_under_a_threshold(device, rng):
    """A body with a Python constant (delta-stepping's bucket bound) gives the answer of
    the same rounds without the loop construct."""
    n = 500
    w = rng.integers(1, 5, n - 1)
    A = _path(n, device, w)
    hi = 600

    def run(loop):
        dist = Vector.from_coo([0], [0], INT64, size=n, device=device)
        min_plus = semiring.min_plus[INT64]

        def relax(frontier):
            t = frontier.vxm(A, min_plus).new()
            better = ~t.ewise_mult(dist, binary.ge).new().V
            dist(binary.min) << t
            return t.select(select.valuelt, hi).new(mask=better)

        x = dist.dup()
        if loop:
            gb.repeat(relax, x)
        else:
            while x.nvals:
                x = relax(x)
        return dist.to_coo()

    a, b = run(True), run(False)
    assert all(np.array_equal(np.asarray(p), np.asarray(q)) for p, q in zip(a, b))


def _stamping(A, levels):
    """A BFS level with the round counter: the frontier stamped with its round's number."""
    def level(frontier, depth):
        levels(frontier.S) << depth
        return frontier.vxm(A, semiring.any_pair[BOOL]).new(mask=~levels.S, replace=True)

    return level


@pytest.mark.parametrize("mode", ["auto", "persistent", "while", "replay", "never"])
def test_the_round_counter_stamps_each_round(device, mode):
    """counter=True gives the body its round's number (0 first) as an INT64 Scalar: along a
    path each vertex is stamped with its distance, in every loop mode (on the CPU every mode
    is the loop issued from Python)."""
    n = 300
    levels = Vector(INT64, n, device=device)
    start = Vector.from_coo([0], True, BOOL, size=n, device=device)
    with gb.config.set(device_loops=mode):
        last = gb.repeat(_stamping(_path(n, device), levels), start, counter=True)
    assert last.nvals == 0
    idx, vals = levels.to_coo()
    assert np.asarray(idx).tolist() == list(range(n))
    assert np.asarray(vals).tolist() == list(range(n))


def test_the_round_counter_under_max_rounds(device):
    """The counter counts the rounds run, and max_rounds stops them whichever way they run."""
    n = 100
    levels = Vector(INT64, n, device=device)
    start = Vector.from_coo([0], True, BOOL, size=n, device=device)
    last = gb.repeat(_stamping(_path(n, device), levels), start, counter=True, max_rounds=40)
    assert np.asarray(levels.to_coo()[1]).tolist() == list(range(40))
    assert np.asarray(last.to_coo()[0]).tolist() == [40]


def test_the_round_counter_is_a_scalar(device):
    seen = []

    def body(v, k):
        seen.append(int(k.value))
        return v.select(gb.select.valuene, True).new()

    gb.repeat(body, Vector.from_coo([0], True, BOOL, size=3, device=device), counter=True)
    assert seen == [0]
    with pytest.raises(TypeError, match="counter must be True or False"):
        gb.repeat(body, Vector(BOOL, 3, device=device), counter=1)


def test_repeat_checks_its_arguments(device):
    x = Vector.from_coo([0], [1.0], size=4, device=device)
    with pytest.raises(TypeError, match="body must be callable"):
        gb.repeat(3, x)
    with pytest.raises(TypeError, match="x must be a graphblast Vector"):
        gb.repeat(lambda v: v, [1, 2])
    with pytest.raises(TypeError, match="max_rounds must be an integer"):
        gb.repeat(lambda v: v, x, max_rounds=1.5)
    with pytest.raises(InvalidValue, match="max_rounds must be >= 0"):
        gb.repeat(lambda v: v, x, max_rounds=-1)
    with pytest.raises(TypeError, match="body must return a graphblast Vector"):
        gb.repeat(lambda v: 0, x)
    with pytest.raises(DimensionMismatch, match="size 5 for one of size 4"):
        gb.repeat(lambda v: Vector.from_coo([0], [1.0], size=5, device=device), x)


def test_repeat_body_must_stay_on_the_device(device):
    from graphblast.exceptions import DeviceMismatch

    other = "cuda" if device == "cpu" else "cpu"
    if other == "cuda" and not gb.cuda_available():
        pytest.skip("no GPU for the other device")
    x = Vector.from_coo([0], [1.0], size=4, device=device)
    with pytest.raises(DeviceMismatch, match="must stay on the loop's device"):
        gb.repeat(lambda v: Vector.from_coo([0], [1.0], size=4, device=other), x)


def test_nested_repeats(device):
    """A repeat inside a repeat's body: each inner loop runs to its end every outer round
    (on a GPU the inner one is issued from Python while the outer body is recorded)."""
    n = 30
    A = _path(n, device)
    seen = Vector.from_coo([0], True, BOOL, size=n, device=device)
    inner_rounds = []

    def outer(frontier):
        count = [0]

        def inner(v):
            count[0] += 1
            return v.select(gb.select.valuene, True).new()  # empty: one round
        gb.repeat(inner, frontier.dup())
        inner_rounds.append(count[0])
        return _bfs_step(A, seen)(frontier)

    gb.repeat(outer, seen.dup())
    assert seen.nvals == n
    assert set(inner_rounds) == {1}


def test_repeat_body_errors_propagate(device):
    x = Vector.from_coo([0], [1.0], size=4, device=device)

    def body(v):
        raise KeyError("from the body")

    with pytest.raises(KeyError, match="from the body"):
        gb.repeat(body, x)


def test_repeat_body_may_change_the_type(device):
    """A body whose rounds change the vector's type runs from Python on a GPU (no state of
    one type holds its rounds); the answer is the same."""
    n = 40
    seen = Vector.from_coo([0], True, BOOL, size=n, device=device)
    rounds = []
    bfs = _bfs_step(_path(n, device), seen, rounds)

    def step(frontier):
        out = bfs(frontier)
        return out.apply(gb.unary.one[INT64]).new() if len(rounds) % 2 else out

    gb.repeat(step, seen.dup())
    assert seen.nvals == n
