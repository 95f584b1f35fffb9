"""python-graphblas's semantics where its own test suite checks them (tests/compat runs that
suite): pickling, assignment targets, constructor checks, setdiag, masks and typed operators,
on every device."""

import pickle

import numpy as np
import pytest

import graphblast as gb
from graphblast import Matrix, Scalar, Vector
from graphblast.exceptions import (DimensionMismatch, IndexOutOfBound, InvalidObject,
                                   InvalidValue)
from graphblast.ops import binary, monoid, semiring


def mat(device):
    return Matrix.from_coo([0, 0, 1, 2], [1, 2, 0, 2], [1, 2, 3, 4], nrows=3, ncols=3,
                           name="A", device=device)


@pytest.mark.parametrize("dtype", ["INT8", "FP32", "BOOL", "UINT64"])
def test_pickle_keeps_entries_name_and_device(device, dtype):
    A = mat(device).dup(dtype)
    A.name = "A"
    B = pickle.loads(pickle.dumps(A))
    assert B.isequal(A, check_dtype=True) and B.name == "A" and B.device == A.device
    v = Vector.from_coo([1, 4], [5, 6], size=7, dtype=dtype, name="v", device=device)
    w = pickle.loads(pickle.dumps(v))
    assert w.isequal(v, check_dtype=True) and w.name == "v" and w.device == v.device
    empty = Matrix(dtype, 2, 5, device=device)
    assert pickle.loads(pickle.dumps(empty)).isequal(empty, check_dtype=True)
    AT = pickle.loads(pickle.dumps(A.T))
    assert AT.shape == (3, 3) and AT.new().isequal(A.T.new())
    s = A.reduce_scalar(monoid.max).new(name="s")  # on a GPU, the value may stay there
    t = pickle.loads(pickle.dumps(s))
    assert t.dtype == s.dtype and t.name == "s" and t.value == s.value
    assert pickle.loads(pickle.dumps(Scalar(dtype))).is_empty


def test_assign_value_kind_must_fit_the_region(device):
    A = mat(device)
    v = A[0, :].new()
    for target, value in [((0, 0), A), ((slice(None), 0), A), ((0, 0), v),
                          ((slice(None), slice(None)), v)]:
        with pytest.raises(TypeError, match="Bad type for argument `value`"):
            A[target] = value
    with pytest.raises(DimensionMismatch):
        A[0, [0, 1]] = v  # the right kind, the wrong size


def test_assigner_is_only_a_target(device):
    u = Vector.from_coo([0, 1, 3], [1, 2, 3], device=device)
    target = u(mask=u.S)[0]
    with pytest.raises(AttributeError, match="'Assigner' object has no attribute 'value'"):
        target.value
    with pytest.raises(TypeError, match="'Assigner' object is not callable"):
        u()[0]()
    with pytest.raises(TypeError, match="not subscriptable"):
        u()[[0, 1]][0]
    with pytest.raises(TypeError, match="not defined"):
        bool(target)
    with pytest.raises(TypeError, match="Assignment value must be a valid expression"):
        u << u(mask=u.S)[[1, 2]]
    # a subassign mask is checked when assigned to, not when written
    pending = u[[0, 1]](mat(device).S)
    with pytest.raises(TypeError, match="Mask object must be type Vector"):
        pending << 1
    m = Vector.from_coo([1, 2], [True, True], size=4, device=device)
    del u(m.S)[[0, 1]]
    assert u.to_coo()[0].tolist() == [0, 3]


def test_masks_updaters_and_expressions_have_no_truth_value(device):
    A = mat(device)
    for thing in (A.S, A(), A.ewise_mult(A)):
        with pytest.raises(TypeError, match="not defined"):
            bool(thing)
    with pytest.raises(TypeError, match="not defined"):
        A.S == A.S  # noqa: B015
    with pytest.raises(AttributeError):
        A.T.S


def test_from_coo_checks_in_python_graphblas_order(device):
    with pytest.raises(ValueError, match="Unable to infer"):
        Matrix.from_coo([0], [], [0], dtype="INT64", device=device)
    with pytest.raises(ValueError, match="`rows` and `columns` and `values` lengths must "
                                         "match: 1, 2, 1"):
        Matrix.from_coo([0], [1, 2], [0], device=device)
    with pytest.raises(ValueError, match="`indices` and `values` lengths must match"):
        Vector.from_coo([0], [1, 2], device=device)
    with pytest.raises(ValueError, match="indices must be integers, not float64"):
        Vector.from_coo(np.array([1.2, 3.4]), [1, 2], device=device)
    # a list is cast as NumPy casts it; an array of whole floats is taken as it is
    assert Vector.from_coo([1.2, 3.4], [1, 2], device=device).to_coo()[0].tolist() == [1, 3]
    assert Vector.from_coo(np.array([1.0, 3.0]), [1, 2], device=device).size == 4
    with pytest.raises(InvalidValue, match="2\\*\\*60"):
        Vector.from_coo([0, 2**64 - 2], [0, 1], device=device)
    with pytest.raises(OverflowError):
        Vector.from_coo([0, 2**64], [0, 1], device=device)
    with pytest.raises(ValueError, match="object dtype for values is not allowed"):
        Matrix.from_coo([0, 1], [1, 0], [0, object()], device=device)


def test_compressed_imports_and_dicts(device):
    A = mat(device)
    with pytest.raises(InvalidObject):
        Matrix.from_csr(*A.to_csr(), ncols=2, device=device)
    with pytest.raises(ValueError, match="ncols must"):
        Matrix.from_csc(*A.to_csc(), ncols=8, device=device)
    dicts = [{1: 1}, {}, {0: 10, 2: 3}, {}]
    with pytest.raises(ValueError, match="nrows must be"):
        Matrix.from_dicts(dicts, nrows=3, device=device)
    with pytest.raises(ValueError, match="ncols must be"):
        Matrix.from_dicts(dicts, order="colwise", ncols=5, device=device)
    with pytest.raises(InvalidObject):
        Matrix.from_dicts(dicts, ncols=1, device=device)


def test_setdiag_with_mask_and_accum(device):
    A = Matrix("INT64", 2, 2, device=device)
    v = Vector.from_coo([0], [1], size=2, device=device)
    A.setdiag(v)
    A.setdiag(v, accum=binary.plus)
    A.setdiag(10, mask=v.S, accum="+")
    A.setdiag(10, mask=A.S, accum="+")
    assert A.to_coo()[2].tolist() == [22]
    A.clear()
    A.setdiag(42, mask=~v.S)
    assert A.to_coo()[0].tolist() == [1] and A.to_coo()[2].tolist() == [42]
    B = Matrix("INT64", 2, 3, device=device)
    B.setdiag([10, 20], 1)
    assert B.to_coo()[1].tolist() == [1, 2]
    with pytest.raises(TypeError, match="Bad type for argument `values` in Matrix.setdiag"):
        B.setdiag(object())
    with pytest.raises(DimensionMismatch, match="Dimensions not compatible"):
        B.setdiag([10], 1)
    with pytest.raises(DimensionMismatch, match="Vector mask in setdiag is the wrong"):
        A.setdiag(1, mask=Vector("INT64", 3, device=device).S)
    with pytest.raises(IndexOutOfBound, match="diagonal is out of range"):
        B.setdiag(1, 3)
    Matrix("INT64", 0, 2, device=device).setdiag(0, 1)  # an empty diagonal in range


def test_extracts_masks_and_select(device):
    A = mat(device)
    with pytest.raises(TypeError, match="Invalid number of dimensions"):
        A[0, np.array([[0, 1]])]
    with pytest.raises(ValueError, match="input_mask"):
        A[0, 0].new(input_mask=A.S)
    with pytest.raises(TypeError, match="Mask must be"):
        A(input_mask=A)
    with pytest.raises(TypeError, match="Mask object must be type Vector"):
        A[0, :].new()[[0, 1]].new(input_mask=A.S)
    with pytest.raises(TypeError):
        A.select(A[0, :].new().S)
    t = Scalar("INT64")
    v = Vector.from_coo([1], [1], device=device)
    with gb.config.set(autocompute=False), pytest.raises(TypeError, match="autocompute"):
        t(accum=binary.plus) << v[1]
    with gb.config.set(autocompute=True):
        t(accum=binary.plus) << v[1]
    assert t.value == 1


def test_expressions_as_values(device):
    v = Vector("INT64", 2, device=device)
    v[:] = 1
    v += v + v
    assert v.reduce().new() == 6
    w = Vector(bool, 2, device=device)
    w[:] = False
    w |= True
    assert w.reduce(binary.plus[int]).new() == 2
    with pytest.raises(TypeError, match="only supported for BOOL"):
        v |= True
    B = mat(device).dup(bool)
    assert (B | B).dup(clear=True).nvals == 0
    assert (B | B).dup(mask=B.S).isequal(B)


def test_typed_operators_commute():
    assert binary.first["INT64"].commutes_to is binary.second["INT64"]
    assert monoid.plus[int].commutes_to is monoid.plus[int]
    assert binary.atan2["FP64"].commutes_to is None
    assert semiring.any_first[int].commutes_to is semiring.any_second[int]
    assert not semiring.plus_pow[int].is_commutative
    assert not {x for x in dir(monoid) if not x.startswith("_")} - set(dir(binary))
    assert "Semiring" not in dir(semiring) and "plus_times" in dir(semiring)
    assert gb.Matrix is Matrix
