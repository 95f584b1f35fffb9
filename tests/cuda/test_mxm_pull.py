"""The GPU's pull kernels of the masked mxm agree with each other and with the CPU backend:
the column-major tiled pull (a warp per column and 32 frontier rows, heavy columns a warp per
output) and the thread-per-output pull, under complemented and plain masks, on batches wider
than 32 rows and columns longer than TILED_HEAVY."""

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

import graphblast as gb  # noqa: E402
from graphblast.algorithms import betweenness_centrality, bfs  # noqa: E402
from graphblast.backends import cuda_available  # noqa: E402
from graphblast.backends.cuda import mxm as cuda_mxm  # noqa: E402

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no usable GPU")


def _graph(rng, n, hub_degree):
    """A random graph plus a hub whose column holds ``hub_degree`` entries."""
    rows = rng.integers(0, n, 8 * n)
    cols = rng.integers(0, n, 8 * n)
    rows = np.concatenate([rows, rng.choice(n, hub_degree, replace=False)])
    cols = np.concatenate([cols, np.full(hub_degree, 3)])
    keys = np.unique(rows * n + cols)
    return keys // n, keys % n


def _coo(M):
    return tuple(np.asarray(x) for x in M.to_coo())


@pytest.mark.parametrize("semiring", ["any_pair", "plus_first", "min_plus", "lor_land"])
@pytest.mark.parametrize("complement", [True, False])
def test_tiled_and_per_output_pulls_agree(rng, semiring, complement):
    n, ns = 3000, 45
    r, c = _graph(rng, n, cuda_mxm.TILED_HEAVY + 500)
    vals = rng.integers(1, 9, r.size).astype(np.float64)
    fr = rng.integers(0, ns, 4 * n)
    fc = rng.integers(0, n, 4 * n)
    fkeys = np.unique(fr * n + fc)
    mkeys = np.unique(rng.integers(0, ns, 20 * n) * n + rng.integers(0, n, 20 * n))
    sr = getattr(gb.semiring, semiring)
    results = []
    for device, tiled in (("cpu", None), ("cuda", True), ("cuda", False)):
        A = gb.Matrix.from_coo(fkeys // n, fkeys % n, 2.0, nrows=ns, ncols=n, device=device)
        B = gb.Matrix.from_coo(r, c, vals, nrows=n, ncols=n, device=device)
        M = gb.Matrix.from_coo(mkeys // n, mkeys % n, True, nrows=ns, ncols=n, device=device)
        if semiring == "lor_land":
            A, B = (X.apply(gb.unary.one["BOOL"]).new() for X in (A, B))
        mask = ~M.S if complement else M.S
        if tiled is not None:
            cuda_mxm.TILED_PULL = tiled
        try:
            with gb.config.set(direction="pull"):
                results.append(_coo(A.mxm(B, sr).new(mask=mask)))
        finally:
            cuda_mxm.TILED_PULL = True
    for got in results[1:]:
        np.testing.assert_array_equal(got[0], results[0][0])
        np.testing.assert_array_equal(got[1], results[0][1])
        if semiring != "any_pair":
            np.testing.assert_allclose(got[2].astype(float), results[0][2].astype(float))


def test_batched_algorithms_agree_across_pulls(rng):
    n = 2500
    r, c = _graph(rng, n, cuda_mxm.TILED_HEAVY + 100)
    keys = np.unique(np.concatenate([r * n + c, c * n + r]))  # undirected
    sources = [int(v) for v in rng.choice(n, 70, replace=False)]
    answers = []
    for tiled in (True, False):
        cuda_mxm.TILED_PULL = tiled
        try:
            A = gb.Matrix.from_coo(keys // n, keys % n, True, nrows=n, ncols=n, device="cuda")
            with gb.config.set(direction="pull"):
                answers.append((_coo(bfs(A, sources)),
                                betweenness_centrality(A, sources=sources)
                                .to_dense(fill_value=0.0)))
        finally:
            cuda_mxm.TILED_PULL = True
    (l1, b1), (l2, b2) = answers
    for x, y in zip(l1, l2):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_allclose(b1, b2, rtol=1e-9, atol=1e-12)
