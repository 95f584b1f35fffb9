"""A constant product (pair) over a full vector without a mask, ``A.mxv(ones, plus_pair)``:
each row's result depends on its length alone (its length under plus, 1 under an idempotent
monoid), which the GPU reads from the row pointers without touching an entry; against NumPy,
on matrices large enough for the GPU's pull (more rows than its one-block product takes),
with empty rows, rows longer than an 8-bit count holds, and both orientations."""

import numpy as np
import pytest

import graphblast as gb
from graphblast import semiring

N = 5000


@pytest.fixture(scope="module")
def pattern():
    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 6, N)
    lengths[::7] = 0
    lengths[3], lengths[11] = 300, 1000  # past 255: an 8-bit plus wraps
    rows = np.repeat(np.arange(N), lengths)
    cols = np.concatenate([rng.choice(N, size=k, replace=False) for k in lengths])
    return rows, cols


def _expected(lengths, name, np_type):
    if name == "plus":
        return lengths.astype(np.int64).astype(np_type)
    return np.ones(lengths.shape[0], dtype=np_type)


@pytest.mark.parametrize("monoid", ["plus", "min", "max", "any", "lor"])
@pytest.mark.parametrize("dtype", ["INT64", "FP64", "FP32", "UINT8", "BOOL"])
@pytest.mark.parametrize("orientation", ["mxv", "vxm"])
def test_constant_products_fold_row_lengths(device, pattern, monoid, dtype, orientation):
    typed = getattr(semiring, f"{monoid}_pair")
    t = gb.dtypes.lookup_dtype(dtype)
    if t not in typed:
        pytest.skip(f"{monoid}_pair has no {dtype}")
    rows, cols = pattern
    A = gb.Matrix.from_coo(rows, cols, True, nrows=N, ncols=N, device=device)
    x = gb.Vector.from_scalar(3, N, t, device=device)  # full; its value is never read
    if orientation == "mxv":
        got = A.mxv(x, typed[t]).new()
        lengths = np.bincount(rows, minlength=N)
    else:
        got = x.vxm(A, typed[t]).new()
        lengths = np.bincount(cols, minlength=N)
    idx, vals = got.to_coo()
    want_idx = np.flatnonzero(lengths)
    assert np.array_equal(np.asarray(idx), want_idx)
    want = _expected(lengths[want_idx], monoid, got.dtype.np_type)
    assert np.array_equal(np.asarray(vals), want)
    assert got.nvals == want_idx.shape[0]
