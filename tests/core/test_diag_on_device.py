"""Matrix.diag and Vector.diag (Matrix.from_diag) compute where their operands are: no entry
of the matrix or the vector is copied to the host (on a GPU a Louvain level read the whole
graph's diagonal that way), for every offset and a compact (iso) matrix too."""

import numpy as np
import pytest

import graphblast as gb
from graphblast import Matrix, Vector


@pytest.fixture
def no_host_copies(monkeypatch):
    """Any copy of a collection's entries, or any array the backend hands the host, raises."""
    def refuse(self, *args):
        raise AssertionError(f"{type(self).__name__} {self.name} copied to the host")

    def refuse_array(*args):
        raise AssertionError("an array copied to the host")

    def patch(*collections):
        for x in collections:
            monkeypatch.setattr(type(x._backend), "to_host", staticmethod(refuse_array))
        monkeypatch.setattr(Matrix, "_coo_host", refuse)
        monkeypatch.setattr(Vector, "_coo_host", refuse)
    return patch


@pytest.mark.parametrize("dtype", ["BOOL", "INT32", "INT64", "FP64"])
def test_diag_copies_nothing_to_the_host(device, dtype, no_host_copies, monkeypatch):
    rng = np.random.default_rng(7)
    rows, cols = rng.integers(0, 40, 300), rng.integers(0, 50, 300)
    keys = np.unique(rows * 50 + cols)
    rows, cols = np.divmod(keys, 50)
    vals = rng.integers(1, 9, keys.shape[0])
    A = Matrix.from_coo(rows, cols, vals, dtype, nrows=40, ncols=50, device=device)
    iso = Matrix.from_coo(rows, cols, 1, dtype, nrows=40, ncols=50, device=device)
    v = Vector.from_coo([0, 3, 4, 9], [1, 2, 3, 4], dtype, size=12, device=device)
    offsets = [-41, -39, -5, 0, 3, 49, 51]
    expected = [(A.diag(k).to_coo(), iso.diag(k).to_coo(), A.T.diag(k).to_coo(),
                 v.diag(k).to_coo(), Matrix.from_diag(v, k).shape) for k in offsets]
    no_host_copies(A, v)
    found = [(A.diag(k), iso.diag(k), A.T.diag(k), v.diag(k), Matrix.from_diag(v, k))
             for k in offsets]
    monkeypatch.undo()
    for (a, i, t, d, shape), (fa, fi, ft, fd, fm) in zip(expected, found):
        for want, got in ((a, fa), (i, fi), (t, ft), (d, fd)):
            for w, g in zip(want, got.to_coo()):
                np.testing.assert_array_equal(g, w)
        assert fm.shape == shape and fd.device == fa.device == device
