"""A Matrix or Vector never shares memory with the caller's arrays: writes into the arrays it
was built from, or into the arrays an export returned, never change it (or raise, for the
CPU's zero-copy SciPy export, whose arrays are read-only views)."""

import numpy as np
import pytest
import scipy.sparse as sp

import graphblast as gb


def _mutate(*arrays):
    for a in arrays:
        if a.size:
            a[...] = a[::-1].copy() if a.dtype.kind != "f" else -a - 7


def _same(M, want):
    got = M.to_coo()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


BUILDERS = {
    "from_coo": lambda d: gb.Matrix.from_coo(d["rows"], d["cols"], d["vals"], nrows=4, ncols=4,
                                             device=d["device"]),
    "from_csr": lambda d: gb.Matrix.from_csr(d["indptr"], d["cols"], d["vals"], nrows=4,
                                             ncols=4, device=d["device"]),
    "from_csc": lambda d: gb.Matrix.from_csc(d["indptr"], d["cols"], d["vals"], nrows=4,
                                             ncols=4, device=d["device"]),
    "from_dcsr": lambda d: gb.Matrix.from_dcsr(d["crows"], d["dindptr"], d["cols"], d["vals"],
                                               nrows=4, ncols=4, device=d["device"]),
    "from_edgelist": lambda d: gb.Matrix.from_edgelist(d["edges"], d["vals"], nrows=4,
                                                       ncols=4, device=d["device"]),
    "from_dense": lambda d: gb.Matrix.from_dense(d["dense"], 0.0, device=d["device"]),
    "from_scipy_csr": lambda d: gb.io.from_scipy_sparse(
        sp.csr_array((d["vals"], d["cols"], d["indptr"]), shape=(4, 4)), device=d["device"]),
    "from_scipy_coo": lambda d: gb.io.from_scipy_sparse(
        sp.coo_array((d["vals"], (d["rows"], d["cols"])), shape=(4, 4)), device=d["device"]),
}


@pytest.mark.parametrize("build", BUILDERS)
def test_a_matrix_does_not_share_its_inputs(device, build):
    data = {"rows": np.array([0, 1, 1, 3], dtype=np.int64),
            "cols": np.array([2, 0, 3, 1], dtype=np.int64),
            "indptr": np.array([0, 1, 3, 3, 4], dtype=np.int64),
            "vals": np.array([1.5, 2.5, 3.5, 4.5]), "device": device}
    data["crows"] = np.array([0, 1, 3], dtype=np.int64)
    data["dindptr"] = np.array([0, 1, 3, 4], dtype=np.int64)
    data["edges"] = np.stack([data["rows"], data["cols"]], axis=1)
    data["dense"] = np.zeros((4, 4))
    data["dense"][data["rows"], data["cols"]] = data["vals"]
    A = BUILDERS[build](data)
    want = [x.copy() for x in A.to_coo()]
    _mutate(data["rows"], data["cols"], data["indptr"], data["vals"], data["crows"],
            data["dindptr"], data["edges"], data["dense"])
    _same(A, want)


def test_a_vector_does_not_share_its_inputs(device):
    idx, vals = np.array([0, 2, 5], dtype=np.int64), np.array([1, 2, 3], dtype=np.int32)
    v = gb.Vector.from_coo(idx, vals, size=6, device=device)
    dense = np.array([1.0, 0.0, 3.0])
    w = gb.Vector.from_dense(dense, device=device)
    want_v, want_w = [x.copy() for x in v.to_coo()], [x.copy() for x in w.to_coo()]
    _mutate(idx, vals, dense)
    _same(v, want_v)
    _same(w, want_w)


def test_exports_do_not_share_the_matrix(device):
    A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 2], [1.0, 2.0, 3.0], nrows=3, ncols=3,
                           device=device)
    want = [x.copy() for x in A.to_coo()]
    _mutate(*A.to_coo())
    _mutate(*A.to_csr())
    _mutate(A.to_dense(fill_value=0))
    S = gb.io.to_scipy_sparse(A)
    if device == "cpu":  # zero copy, read-only: a write raises rather than reach the Matrix
        with pytest.raises(ValueError, match="read-only"):
            S.data[0] = 99.0
    else:
        S.data[0] = 99.0
    _same(A, want)
    assert gb.io.to_scipy_sparse(A).copy().data.flags.writeable


def test_device_arrays_are_not_shared(device):
    """Matrix.from_csr of CuPy arrays already canonical keeps copies of them."""
    if device == "cpu":
        pytest.skip("device arrays are CuPy arrays on a GPU")
    import cupy as cp

    indptr = cp.asarray([0, 1, 3, 3, 4], dtype=cp.int64)
    cols = cp.asarray([2, 0, 3, 1], dtype=cp.int64)
    vals = cp.asarray([1.5, 2.5, 3.5, 4.5])
    A = gb.Matrix.from_csr(indptr, cols, vals, nrows=4, ncols=4, device=device)
    want = [x.copy() for x in A.to_coo()]
    cols[...] = cols[::-1].copy()
    vals[...] = -vals
    indptr[1] = 2
    _same(A, want)
