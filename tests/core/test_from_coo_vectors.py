"""Matrix.from_coo with graphblast Vectors for rows, columns or values (graphblast's
extension, after SuiteSparse 10's GxB_Matrix_build_Vector): each Vector gives its values in
the order of its indices, and stays on its device."""

import numpy as np
import pytest

import graphblast as gb
from graphblast.exceptions import DeviceMismatch, IndexOutOfBound, InvalidValue


def test_label_matrix(device):
    labels = gb.Vector.from_coo([0, 1, 2, 3], [2, 2, 0, 1], device=device)
    ids = labels.apply(gb.indexunary.rowindex).new()
    L = gb.Matrix.from_coo(ids, labels, 1, nrows=4, ncols=4)
    assert L.device == labels.device and L.shape == (4, 4)
    assert L.to_dicts() == {0: {2: 1}, 1: {2: 1}, 2: {0: 1}, 3: {1: 1}}


def test_sparse_vectors_pair_by_entry_order(device):
    rows = gb.Vector.from_coo([1, 5, 7], [3, 0, 3], size=9, device=device)
    cols = gb.Vector.from_coo([0, 2, 8], [1, 1, 2], size=9, device=device)
    vals = gb.Vector.from_coo([2, 3, 4], [10.0, 20.0, 30.0], size=9, device=device)
    A = gb.Matrix.from_coo(rows, cols, vals, dup_op=gb.binary.plus)
    r, c, v = A.to_coo()
    np.testing.assert_array_equal(r, [0, 3, 3])
    np.testing.assert_array_equal(c, [1, 1, 2])
    np.testing.assert_array_equal(v, [20.0, 10.0, 30.0])
    # mixed with arrays, and duplicates combined by dup_op
    B = gb.Matrix.from_coo(rows, [1, 1, 1], [1, 1, 1], nrows=4, ncols=2,
                           dup_op=gb.binary.plus, device=device)
    assert B.to_dicts() == {0: {1: 1}, 3: {1: 2}}


def test_errors(device):
    a = gb.Vector.from_coo([0, 1], [0, 1], size=3, device=device)
    b = gb.Vector.from_coo([0], [1], size=3, device=device)
    with pytest.raises(InvalidValue, match="same number of entries"):
        gb.Matrix.from_coo(a, b, 1)
    with pytest.raises(IndexOutOfBound, match="negative"):
        gb.Matrix.from_coo(gb.Vector.from_coo([0], [-1], size=2, device=device), b, 1)
    if gb.cuda_available():           # a Vector on another device than the Matrix
        other = "cpu" if device != "cpu" else "cuda"
        with pytest.raises(DeviceMismatch, match="to_device"):
            gb.Matrix.from_coo(a, a, 1, device=other)
