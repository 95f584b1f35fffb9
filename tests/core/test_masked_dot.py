"""``C<M> = A B'`` by dot products (triangle counting's kernel) on rows long enough for every
path of the GPU's: a thread per mask entry (up to 32 entries of work), and a warp per entry
intersecting through shared memory (lists of like sizes) or by galloping searches (one list
more than 16 times the other), with monoids that fold everything, stop at a terminal value,
or take any match; against a dense NumPy model."""

import numpy as np
import pytest

import graphblast as gb

# rows of A and of B' (given as B.T): empty, short, and long on both sides of the ratio 16
LENGTHS = [0, 1, 20, 33, 40, 64, 100, 300, 700, 1000, 2500, 3000]
K = 3200


def _rows(rng, dtype):
    n = len(LENGTHS)
    present = np.zeros((n, K), dtype=bool)
    for r, length in enumerate(LENGTHS):
        present[r, rng.choice(K, size=length, replace=False)] = True
    if dtype == "BOOL":
        values = rng.random((n, K)) < 0.5
    else:
        values = rng.integers(1, 5, (n, K)).astype(gb.dtypes.lookup_dtype(dtype).np_type)
    return present, values


def _matrix(present, values, dtype, device):
    r, c = np.nonzero(present)
    return gb.Matrix.from_coo(r, c, values[r, c], dtype, nrows=present.shape[0],
                              ncols=present.shape[1], device=device)


CASES = {
    # name: (semiring, value type, the model's fold of the products of one entry)
    "plus_pair": ("plus_pair", "INT64", lambda a, b: np.int64(len(a))),
    "plus_times": ("plus_times", "INT64", lambda a, b: np.sum(a * b)),
    "min_plus": ("min_plus", "FP64", lambda a, b: np.min(a + b)),
    "max_times": ("max_times", "INT32", lambda a, b: np.max(a * b)),
    "lor_land": ("lor_land", "BOOL", lambda a, b: np.any(a & b)),
    "any_pair": ("any_pair", "BOOL", lambda a, b: True),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("mask_density", [0.5, 1.0])
def test_masked_dot_product(device, rng, case, mask_density):
    name, dtype, fold = CASES[case]
    a_present, a_values = _rows(rng, dtype)
    b_present, b_values = _rows(rng, dtype)
    A = _matrix(a_present, a_values, dtype, device)
    BT = _matrix(b_present, b_values, dtype, device)  # B' as stored: the kernel reads its rows
    n = len(LENGTHS)
    m_present = rng.random((n, n)) < mask_density
    mr, mc = np.nonzero(m_present)
    M = gb.Matrix.from_coo(mr, mc, True, gb.dtypes.BOOL, nrows=n, ncols=n, device=device)
    semiring = getattr(gb.semiring, name)[gb.dtypes.lookup_dtype(dtype)]
    C = A.mxm(BT.T, semiring).new(mask=M.S)
    want = {}
    for i, j in zip(mr, mc):
        both = np.flatnonzero(a_present[i] & b_present[j])
        if both.size:
            want[(int(i), int(j))] = fold(a_values[i, both], b_values[j, both])
    r, c, v = C.to_coo()
    got = {(int(i), int(j)): x for i, j, x in zip(r, c, v)}
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == value, (key, got[key], value)
