"""User-defined types (``dtypes.register_new``, ``register_anonymous``): registration and
lookup, values in collections (records, subarray types), the operators that apply to them, and
the errors for what does not.  Their collections are kept on the CPU backend (see
``core.base.place``), so a GPU run checks that placement."""

import pickle

import numpy as np
import pytest

import graphblast as gb
from graphblast import Matrix, Scalar, Vector, agg, binary, dtypes, monoid, select, unary

RECORD = np.dtype([("x", np.bool_), ("y", np.float64)], align=True)


def test_register_and_lookup():
    udt = dtypes.register_anonymous(RECORD)
    assert udt._is_udt and udt._is_anonymous
    assert udt.name == "{'x': BOOL, 'y': FP64}"
    assert dtypes.lookup_dtype(RECORD) is udt
    assert dtypes.lookup_dtype({"x": bool, "y": float}) is udt  # a dict of fields, aligned
    sub = dtypes.lookup_dtype("INT64[2]")
    assert sub.np_type == np.dtype("(2,)int64") and sub.name == "INT64[2]"
    assert dtypes.lookup_dtype(np.dtype("(2,)int64")) is sub
    assert dtypes.lookup_dtype("FP64[2, 3]").np_type.subdtype[1] == (2, 3)
    assert pickle.loads(pickle.dumps(sub)) is sub
    named = dtypes.register_new("TestCoreUDT", np.dtype([("a", np.int32), ("b", np.int8)]))
    assert dtypes.TestCoreUDT is named and not named._is_anonymous
    assert pickle.loads(pickle.dumps(named)) is named
    assert named != udt and named == np.dtype([("a", np.int32), ("b", np.int8)])


def test_register_bad_input():
    with pytest.raises(ValueError, match="Python object"):
        dtypes.register_new("has_object", np.dtype([("x", object), ("y", float)]))
    with pytest.raises(ValueError, match="identifier"):
        dtypes.register_new("$", RECORD)
    with pytest.raises(ValueError, match="builtin"):
        dtypes.register_new("is_builtin", np.int8)
    with pytest.raises(ValueError, match="unavailable"):
        dtypes.register_new("UINT8", RECORD)
    with pytest.raises(ValueError, match="record or a subarray"):
        dtypes.register_anonymous(np.dtype("S5"))
    with pytest.raises(ValueError, match="Unknown dtype"):
        dtypes.lookup_dtype("INT64[two]")


def test_records_in_a_vector(device):
    udt = dtypes.lookup_dtype(RECORD)
    v = Vector(udt, size=4, device=device)
    v[0] = (True, 2.5)
    v[[1, 3]] = [(False, 1.0), (True, -4.0)]
    idx, vals = v.to_coo()
    assert vals.dtype == RECORD
    np.testing.assert_array_equal(idx, [0, 1, 3])
    assert vals.tolist() == [(True, 2.5), (False, 1.0), (True, -4.0)]
    assert v.isequal(Vector.from_coo(idx, vals, size=4, device=device), check_dtype=True)
    assert v[0].new() == (True, 2.5)
    assert v.to_dict() == {0: (True, 2.5), 1: (False, 1.0), 3: (True, -4.0)}
    # the operators that move, compare and count values
    w = v.dup()
    w[1] = 0  # a number fills every field
    assert v.ewise_mult(w, binary.eq).new().to_coo()[1].tolist() == [True, False, True]
    assert v.ewise_mult(w, binary.ne).new().reduce(monoid.lor).new().value
    assert v.reduce(monoid.any).new().value.tolist() in vals.tolist()
    assert v.reduce(agg.count).new().value == 3
    ones = v.apply(binary.first, left=(False, 1.0)).new()
    assert ones.isequal(Vector.from_coo(idx, (False, 1.0), udt, size=4, device=device))
    assert v.apply(unary.one).new().dtype == "INT64"
    assert v.apply(binary.second, right=v[3].new()).new().reduce(monoid.any).new() == \
        (True, -4.0)
    assert select.rowle(v, 1).new().nvals == 2


def test_padding_is_not_part_of_a_value(device):
    """Records equal field by field are equal values whatever their padding bytes held (a
    GPU compares values as bytes): python-graphblas's test_udt builds them with np.ones."""
    udt = dtypes.lookup_dtype(RECORD)
    garbage = np.ones(3, RECORD)
    garbage.view(np.uint8).reshape(3, RECORD.itemsize)[:, 1:8] = 0xA5  # the padding
    v = Vector.from_coo([0, 1, 2], garbage, dtype=udt, device=device)
    w = Vector.from_coo([0, 1, 2], [(True, 1.0)] * 3, dtype=udt, device=device)
    assert v.isequal(w)
    assert v.ewise_mult(w, binary.eq).new().reduce(monoid.land).new().value
    assert garbage.view(np.uint8)[1] == 0xA5  # the user's array is left as it was
    # records inside a subarray type, and a Scalar
    pair = dtypes.register_anonymous(np.dtype((RECORD, (2,))), "padded_pair")
    rows = np.ones((1, 2), RECORD)
    rows.view(np.uint8)[:] = 0x5A
    rows["x"], rows["y"] = True, 2.0
    m = Matrix.from_coo([0], [0], rows, dtype=pair, nrows=1, ncols=1, device=device)
    n = Matrix.from_coo([0], [0], [[(True, 2.0), (True, 2.0)]], dtype=pair, nrows=1,
                        ncols=1, device=device)
    assert m.isequal(n)
    s = Scalar(udt)
    s.value = garbage[0]
    assert s == Scalar.from_value((True, 1.0), udt)


def test_subarray_matrix(device):
    a = np.arange(12, dtype=np.uint16).reshape(2, 2, 3)
    A = Matrix.from_dense(a, device=device)
    assert A.dtype.name == "UINT16[3]" and A.nvals == 4
    rows, cols, vals = A.to_coo()
    assert vals.shape == (4, 3)
    np.testing.assert_array_equal(A.to_dense(0), a)
    np.testing.assert_array_equal(A.T.new().to_dense(0), a.transpose(1, 0, 2))
    B = Matrix(A.dtype, 2, 2, device=device)
    B[:, :] = 1  # one value, every element 1
    assert B.reduce_scalar(monoid.any).new() == [1, 1, 1]
    B[[0, 1], 1] = [[2, 3, 4], [5, 6, 7]]
    np.testing.assert_array_equal(B[1, 1].new().value, [5, 6, 7])
    assert A[0, :].new().isequal(Vector.from_coo([0, 1], a[0], device=device),
                                 check_dtype=True)
    assert select.tril(A).new().nvals == 3


def test_shape_errors():
    A = Matrix("UINT16[3]", nrows=2, ncols=3)
    with pytest.raises(ValueError, match="include dtype shape"):
        A[[0, 1], :] = [[2, 3, 4], [5, 6, 7]]
    with pytest.raises(ValueError, match="shape mismatch"):
        A[[0, 1], [1]] = [[[2, 3, 4], [5, 6, 7]]]
    with pytest.raises(ValueError, match=">1d array"):
        Vector.from_dense(np.arange(6), dtype="INT64[2]")
    with pytest.raises(ValueError, match=">2d array"):
        Matrix.from_dense(np.arange(6).reshape(2, 3), dtype="INT64[2]")


def test_value_operators_refused(device):
    udt = dtypes.lookup_dtype(RECORD)
    v = Vector.from_coo([0, 1], [(True, 1.0), (False, 2.0)], udt, device=device)
    assert udt not in binary.plus and udt in binary.first and udt in monoid.any
    with pytest.raises(KeyError, match="plus does not work with"):
        binary.plus[udt]
    with pytest.raises(KeyError, match="abs does not work with"):
        v.apply(unary.abs)
    with pytest.raises(TypeError, match="cannot be cast to INT64"):
        v.to_coo(dtype="INT64")


def test_scalar_records():
    s = Scalar.from_value({"x": 1, "y": {"a": 2, "b": 3}},
                          dtype={"x": int, "y": {"a": int, "b": int}})
    assert s == (1, (2, 3))
    assert s != (1, (2, 4))
    with pytest.raises(ValueError, match="fields"):
        s.value = {"x": 1}
    t = Scalar("INT64[3]")
    t.value = 7
    assert t == [7, 7, 7] and t == Scalar.from_value(7)


def test_placed_on_the_device(device):
    """A user-defined type's collections live on the device asked for, the default one
    included (on a GPU as raw bytes: test_udt_device.py)."""
    udt = dtypes.lookup_dtype(RECORD)
    v = Vector(udt, 3, device=device)
    assert v.device == Vector(int, 3, device=device).device
    assert v.to_device("cpu").device == "cpu"
    assert v.to_device("cpu").to_device(device).device == v.device
    w = gb.Vector.from_coo([0], [(True, 1.0)], udt, device=device)
    assert w.device == v.device and w[0].new().value.tolist() == (True, 1.0)


def _get_y(val):
    return val["y"]


def _scaled(val, i, j, thunk):
    return val["y"] * thunk["y"] if i == 0 else -thunk["y"]


class _Unknown:
    pass


def _break(x):
    return _Unknown(x)


def test_user_operators_on_records(device):
    """python-graphblas's ``is_udt=True``: numba compiles a user's function for a record type
    on first use (CPU; for a GPU's collections the host computes it); operators of two types;
    typed monoids and semirings."""
    pytest.importorskip("numba")
    from graphblast import indexunary, semiring

    udt = dtypes.lookup_dtype(RECORD)
    v = Vector.from_coo([0, 1, 2], [(True, 1.5), (False, 2.0), (True, -1.0)], udt,
                        device=device)
    get_y = unary.register_anonymous(_get_y, is_udt=True)
    assert not get_y.types  # nothing built-in to read a field of
    assert udt in get_y and get_y[udt].return_type == "FP64"
    np.testing.assert_array_equal(v.apply(get_y).new().to_coo()[1], [1.5, 2.0, -1.0])
    scaled = indexunary.register_anonymous(_scaled, is_udt=True)
    np.testing.assert_array_equal(v.apply(scaled, (False, 2.0)).new().to_coo()[1],
                                  [3.0, -2.0, -2.0])
    first = binary.register_anonymous(lambda x, y: x, is_udt=True)
    assert first[udt, "INT64"].return_type is udt and first[udt, "INT64"].type2 == "INT64"
    assert first[udt].commutes_to is None
    assert binary.first[udt].commutes_to is binary.second[udt]
    any_ = monoid.register_anonymous(first, (False, 0.0))
    assert udt in any_ and any_[udt].identity == dtypes.udt_scalar((False, 0.0), udt)
    assert (udt, "INT8") not in any_
    sr = semiring.register_anonymous(any_, first)
    assert sr(v @ v).new() == (True, 1.5)
    assert semiring.any_second[udt, "INT8"].type2 == "INT8"
    bad = unary.register_anonymous(_break, is_udt=True)
    assert udt not in bad and "INT64" not in bad
