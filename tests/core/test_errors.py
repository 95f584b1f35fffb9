"""Errors against python-graphblas: each bad call raises the class python-graphblas raises
(``graphblas.exceptions.X`` maps to ``graphblast.exceptions.X``, built-in classes to
themselves), with a message, and leaves every input and output as it was.

Where python-graphblas's class is an accident of its implementation (OverflowError for a
negative size, from converting to an unsigned C integer), the class the GraphBLAS C API names
is accepted too.  DomainMismatch has no case here: between built-in real types every cast is
defined, and python-graphblas raises it for none of them.
"""

import graphblas
import numpy as np
import pytest
from diffharness import MatrixData, ScalarData, VectorData


def _inputs():
    """The same small objects for every case: A is 3 x 4, B 3 x 3, S 4 x 4, v size 4, w size
    3, C a 3 x 4 output, e an empty Scalar."""
    a = MatrixData("FP64", 3, 4, np.array([0, 1, 2]), np.array([1, 0, 2]),
                   np.array([1.0, -2.0, 3.5]))
    b = MatrixData("FP64", 3, 3, np.array([0, 1]), np.array([0, 1]), np.array([7.0, 8.0]))
    s = MatrixData("FP64", 4, 4, np.array([0, 1, 3]), np.array([0, 1, 2]),
                   np.array([7.0, 8.0, 1.0]))
    v = VectorData("FP64", 4, np.array([0, 2]), np.array([1.0, -2.0]))
    w = VectorData("FP64", 3, np.array([0, 2]), np.array([1.0, -2.0]))
    c = MatrixData("FP64", 3, 4, np.array([0, 2]), np.array([0, 3]), np.array([5.0, 6.0]))
    return [a, b, s, v, w, c, ScalarData("FP64", None)]


CASES = {}


def case(expected, *accept):
    """Register ``body(gb, A, B, S, v, w, C, e)`` as a case raising ``expected``."""
    def register(body):
        CASES[body.__name__] = (expected, accept, body)
        return body
    return register


# -- DimensionMismatch ------------------------------------------------------------------------


@case("DimensionMismatch")
def mxm_inner_size(gb, A, B, S, v, w, C, e):
    C << A.mxm(B)


@case("DimensionMismatch")
def mxm_new_inner_size(gb, A, B, S, v, w, C, e):
    A.mxm(A, gb.semiring.min_plus).new()


@case("DimensionMismatch")
def mxv_size(gb, A, B, S, v, w, C, e):
    v << A.mxv(w)


@case("DimensionMismatch")
def vxm_size(gb, A, B, S, v, w, C, e):
    v.vxm(A).new()


@case("DimensionMismatch")
def matmul_infix_size(gb, A, B, S, v, w, C, e):
    (A @ B).new()


@case("DimensionMismatch")
def ewise_add_shape(gb, A, B, S, v, w, C, e):
    C << A.ewise_add(B)


@case("DimensionMismatch")
def ewise_mult_shape(gb, A, B, S, v, w, C, e):
    A.ewise_mult(B).new()


@case("DimensionMismatch")
def ewise_union_shape(gb, A, B, S, v, w, C, e):
    A.ewise_union(B, gb.binary.plus, 0, 0).new()


@case("DimensionMismatch")
def vector_ewise_shape(gb, A, B, S, v, w, C, e):
    v << v.ewise_add(w)


@case("DimensionMismatch")
def output_shape(gb, A, B, S, v, w, C, e):
    B << A.mxm(S)


@case("DimensionMismatch")
def output_shape_apply(gb, A, B, S, v, w, C, e):
    B(accum=gb.binary.plus) << A.apply(gb.unary.abs)


@case("DimensionMismatch")
def mask_shape(gb, A, B, S, v, w, C, e):
    C(B.S) << A.apply(gb.unary.abs)


@case("DimensionMismatch")
def mask_shape_new(gb, A, B, S, v, w, C, e):
    A.mxm(S, gb.semiring.any_pair).new(mask=B.S)


@case("DimensionMismatch")
def transpose_output_shape(gb, A, B, S, v, w, C, e):
    C << A.T


@case("DimensionMismatch")
def transposed_expression_with_accum(gb, A, B, S, v, w, C, e):
    C(A.S, accum=gb.binary.plus) << A.mxm(S).T


@case("DimensionMismatch")
def assign_region_shape(gb, A, B, S, v, w, C, e):
    C[[0, 1], [0, 1]] << B


@case("DimensionMismatch")
def assign_slice_shape(gb, A, B, S, v, w, C, e):
    C[0:2, 0:2] << B


@case("DimensionMismatch")
def assign_mask_shape(gb, A, B, S, v, w, C, e):
    C(B.S)[0:2, 0:2] << 1


@case("DimensionMismatch")
def subassign_mask_shape(gb, A, B, S, v, w, C, e):
    C[0:2, 0:2](A.S) << 1


@case("DimensionMismatch")
def vector_assign_shape(gb, A, B, S, v, w, C, e):
    v[1:3] << w


@case("DimensionMismatch")
def row_assign_shape(gb, A, B, S, v, w, C, e):
    C[1, :] << w


@case("DimensionMismatch")
def extract_output_shape(gb, A, B, S, v, w, C, e):
    w << A[0:2, 0]


@case("DimensionMismatch")
def extract_matrix_output_shape(gb, A, B, S, v, w, C, e):
    B << A[0:3, 0:2]


@case("DimensionMismatch")
def extract_mask_shape(gb, A, B, S, v, w, C, e):
    A[0:2, 0:2].new(mask=A.S)


@case("DimensionMismatch")
def inner_size(gb, A, B, S, v, w, C, e):
    v.inner(w).new()


@case("DimensionMismatch")
def reduce_output_size(gb, A, B, S, v, w, C, e):
    v << A.reduce_rowwise()


# -- IndexOutOfBound and IndexError -----------------------------------------------------------


@case("IndexOutOfBound")
def extract_rows_out_of_range(gb, A, B, S, v, w, C, e):
    A[[0, 9], :].new()


@case("IndexOutOfBound")
def extract_vector_out_of_range(gb, A, B, S, v, w, C, e):
    v[[7]].new()


@case("IndexOutOfBound")
def assign_index_out_of_range(gb, A, B, S, v, w, C, e):
    C[[0, 5], [0]] << 1


@case("IndexOutOfBound")
def from_coo_index_beyond_shape(gb, A, B, S, v, w, C, e):
    gb.Matrix.from_coo([0, 5], [1, 1], [1, 2], nrows=3, ncols=3)


@case("IndexOutOfBound")
def vector_from_coo_index_beyond_size(gb, A, B, S, v, w, C, e):
    gb.Vector.from_coo([0, 9], [1, 2], size=3)


@case("IndexError")
def element_get_out_of_range(gb, A, B, S, v, w, C, e):
    A[3, 0].new()


@case("IndexError")
def element_value_out_of_range(gb, A, B, S, v, w, C, e):
    return A[0, 9].value


@case("IndexError")
def element_set_out_of_range(gb, A, B, S, v, w, C, e):
    C[5, 0] = 1


@case("IndexError")
def element_delete_out_of_range(gb, A, B, S, v, w, C, e):
    del C[5, 0]


@case("IndexError")
def vector_element_out_of_range(gb, A, B, S, v, w, C, e):
    v[7].new()


@case("IndexError")
def negative_element_out_of_range(gb, A, B, S, v, w, C, e):
    v[-5] = 1


@case("OverflowError", "IndexOutOfBound", "InvalidIndex", "InvalidValue")
def from_coo_negative_index(gb, A, B, S, v, w, C, e):
    gb.Matrix.from_coo([0, -1], [1, 1], [1, 2])


# -- EmptyObject ------------------------------------------------------------------------------


@case("EmptyObject")
def apply_left_empty_scalar(gb, A, B, S, v, w, C, e):
    C << A.apply(gb.binary.plus, left=e)


@case("EmptyObject")
def apply_right_empty_scalar(gb, A, B, S, v, w, C, e):
    A.apply(gb.binary.minus, right=e).new()


@case("EmptyObject")
def select_value_empty_thunk(gb, A, B, S, v, w, C, e):
    C << A.select(gb.select.valuegt, e)


@case("EmptyObject")
def select_positional_empty_thunk(gb, A, B, S, v, w, C, e):
    A.select(gb.select.tril, e).new()


@case("EmptyObject")
def ewise_union_empty_default(gb, A, B, S, v, w, C, e):
    C << A.ewise_union(C, gb.binary.plus, e, 0)


@case("EmptyObject")
def vector_apply_empty_scalar(gb, A, B, S, v, w, C, e):
    v << v.apply(gb.binary.times, right=e)


# -- OutputNotEmpty ---------------------------------------------------------------------------


@case("OutputNotEmpty")
def matrix_build_into_nonempty(gb, A, B, S, v, w, C, e):
    C.build([0], [0], [1.0])


@case("OutputNotEmpty")
def vector_build_into_nonempty(gb, A, B, S, v, w, C, e):
    v.build([1], [1.0])


# -- InvalidValue, InvalidObject, NotImplementedException, ValueError --------------------------


@case("ValueError")
def from_coo_duplicates_without_dup_op(gb, A, B, S, v, w, C, e):
    gb.Matrix.from_coo([0, 0], [1, 1], [1, 2])


@case("ValueError")
def vector_from_coo_duplicates_without_dup_op(gb, A, B, S, v, w, C, e):
    gb.Vector.from_coo([3, 3], [1, 2])


@case("ValueError")
def from_coo_length_mismatch(gb, A, B, S, v, w, C, e):
    gb.Matrix.from_coo([0, 1], [1, 1], [1, 2, 3])


@case("ValueError")
def unknown_dtype(gb, A, B, S, v, w, C, e):
    gb.Matrix("FP99", 2, 3)


@case("ValueError")
def dup_unknown_dtype(gb, A, B, S, v, w, C, e):
    A.dup(dtype="FP99")


@case("ValueError")
def typed_operator_unknown_dtype(gb, A, B, S, v, w, C, e):
    return gb.binary.plus["FP99"]


@case("ValueError")
def bad_semiring_string(gb, A, B, S, v, w, C, e):
    A.mxm(S, "nope")


@case("ValueError")
def bad_binary_string(gb, A, B, S, v, w, C, e):
    A.ewise_add(A, "nope").new()


@case("ValueError")
def semiring_from_bad_string(gb, A, B, S, v, w, C, e):
    return gb.semiring.from_string("min.nope")


@case("OverflowError", "InvalidValue")
def negative_matrix_size(gb, A, B, S, v, w, C, e):
    gb.Matrix("FP64", -1, 3)


@case("OverflowError", "InvalidValue")
def negative_vector_size(gb, A, B, S, v, w, C, e):
    gb.Vector("FP64", -2)


@case("OverflowError", "InvalidValue")
def negative_resize(gb, A, B, S, v, w, C, e):
    C.resize(-1, 2)


@case("OverflowError", "InvalidValue")
def negative_vector_resize(gb, A, B, S, v, w, C, e):
    v.resize(-3)


@case("OverflowError", "InvalidValue")
def from_scalar_negative_size(gb, A, B, S, v, w, C, e):
    gb.Matrix.from_scalar(1, -1, 2)


@case("InvalidObject", "InvalidValue")
def from_csr_decreasing_indptr(gb, A, B, S, v, w, C, e):
    gb.Matrix.from_csr([0, 2, 1], [0, 1], [1, 2])


@case("InvalidObject", "InvalidValue", "IndexOutOfBound")
def from_csr_column_out_of_range(gb, A, B, S, v, w, C, e):
    gb.Matrix.from_csr([0, 1, 2], [0, 7], [1, 2], ncols=3)


@case("NotImplementedException")
def reduce_rowwise_without_monoid(gb, A, B, S, v, w, C, e):
    v << A.T.reduce_rowwise(gb.binary.minus)


# -- TypeError --------------------------------------------------------------------------------


@case("TypeError")
def mask_without_s_or_v(gb, A, B, S, v, w, C, e):
    C(A) << A.apply(gb.unary.abs)


@case("TypeError")
def vector_mask_for_matrix(gb, A, B, S, v, w, C, e):
    C(v.S) << A.apply(gb.unary.abs)


@case("TypeError")
def replace_without_mask(gb, A, B, S, v, w, C, e):
    C(replace=True) << A.apply(gb.unary.abs)


@case("TypeError")
def matrix_from_vector(gb, A, B, S, v, w, C, e):
    C << v


@case("TypeError")
def assign_to_transpose(gb, A, B, S, v, w, C, e):
    C.T << A


@case("TypeError")
def mxm_with_monoid(gb, A, B, S, v, w, C, e):
    A.mxm(S, gb.monoid.plus).new()


@case("TypeError")
def mxm_with_binary(gb, A, B, S, v, w, C, e):
    C << A.mxm(S, gb.binary.plus)


@case("TypeError")
def ewise_add_with_semiring(gb, A, B, S, v, w, C, e):
    C << A.ewise_add(C, gb.semiring.plus_times)


@case("TypeError")
def apply_binary_without_side(gb, A, B, S, v, w, C, e):
    A.apply(gb.binary.plus).new()


@case("TypeError")
def apply_both_sides(gb, A, B, S, v, w, C, e):
    A.apply(gb.binary.plus, left=1, right=2).new()


@case("TypeError")
def apply_unary_with_side(gb, A, B, S, v, w, C, e):
    A.apply(gb.unary.abs, left=1).new()


@case("TypeError")
def apply_semiring(gb, A, B, S, v, w, C, e):
    A.apply(gb.semiring.plus_times, left=1).new()


@case("TypeError")
def reduce_scalar_without_monoid(gb, A, B, S, v, w, C, e):
    e << A.reduce_scalar(gb.binary.minus)


@case("TypeError")
def accum_semiring(gb, A, B, S, v, w, C, e):
    C(accum=gb.semiring.plus_times) << A


@case("TypeError")
def scalar_from_vector_expression(gb, A, B, S, v, w, C, e):
    e << A.reduce_rowwise()


@case("TypeError")
def scalar_with_mask(gb, A, B, S, v, w, C, e):
    e(accum=gb.binary.plus, mask=A.S) << A.reduce_scalar()


@case("TypeError")
def scalar_from_string(gb, A, B, S, v, w, C, e):
    gb.Scalar.from_value("abc")


@case("TypeError")
def element_set_string(gb, A, B, S, v, w, C, e):
    C[0, 0] = "abc"


@case("TypeError")
def element_set_list(gb, A, B, S, v, w, C, e):
    C[0, 0] = [1, 2]


@case("TypeError")
def isequal_matrix_vector(gb, A, B, S, v, w, C, e):
    A.isequal(v)


@case("TypeError")
def outer_with_semiring(gb, A, B, S, v, w, C, e):
    v.outer(w, gb.semiring.plus_times).new()


@case("TypeError")
def kronecker_with_semiring(gb, A, B, S, v, w, C, e):
    A.kronecker(B, gb.semiring.plus_times).new()


@case("TypeError")
def ewise_union_missing_default(gb, A, B, S, v, w, C, e):
    A.ewise_union(A, gb.binary.plus, 0).new()


@case("TypeError")
def ewise_union_none_defaults(gb, A, B, S, v, w, C, e):
    A.ewise_union(A, gb.binary.plus, None, None).new()


@case("TypeError")
def matrix_index_not_a_pair(gb, A, B, S, v, w, C, e):
    A[1].new()


@case("TypeError")
def float_index(gb, A, B, S, v, w, C, e):
    A[1.0, 0].new()


@case("TypeError")
def to_dense_without_fill_value(gb, A, B, S, v, w, C, e):
    A.to_dense()


@case("TypeError")
def to_dense_string_fill_value(gb, A, B, S, v, w, C, e):
    A.to_dense(fill_value="x")


# -- KeyError: an operator not defined for the type -------------------------------------------


@case("KeyError")
def bitwise_apply_on_float(gb, A, B, S, v, w, C, e):
    A.apply(gb.binary.band, right=1).new()


@case("KeyError")
def bitwise_ewise_on_float(gb, A, B, S, v, w, C, e):
    C << A.ewise_add(C, gb.binary.band)


@case("KeyError")
def bitwise_monoid_on_float(gb, A, B, S, v, w, C, e):
    A.ewise_add(A, gb.monoid.bor).new()


@case("KeyError")
def bitwise_semiring_on_float(gb, A, B, S, v, w, C, e):
    C << A.mxm(S, gb.semiring.bor_band)


@case("KeyError")
def bitwise_accum_on_float(gb, A, B, S, v, w, C, e):
    C(accum=gb.binary.band) << A


@case("KeyError")
def bitwise_unary_on_float(gb, A, B, S, v, w, C, e):
    A.apply(gb.unary.bnot).new()


@case("KeyError")
def typed_operator_missing_type(gb, A, B, S, v, w, C, e):
    return gb.binary.band["FP64"]


@case("KeyError")
def monoid_plus_on_bool(gb, A, B, S, v, w, C, e):
    A.reduce_rowwise(gb.monoid.plus["BOOL"]).new()


@pytest.mark.parametrize("name", CASES.keys())
def test_error(diff, name):
    """The call raises python-graphblas's class; nothing changed; graphblast's message says
    what is wrong (python-graphblas leaves some messages empty, so only graphblast's are
    checked)."""
    expected, accept, body = CASES[name]
    exc = diff.check(body, *_inputs(), raises=expected, accept=accept)
    if diff.target is not graphblas:
        assert str(exc).strip(), \
            f"{type(exc).__name__} has no message: say what is wrong and how to fix it"


def test_build_with_clear_succeeds(diff):
    """``build(..., clear=True)`` into a non-empty object is allowed."""
    def body(gb, A, B, S, v, w, C, e):
        C.build([0, 2], [3, 1], [1.0, 2.0], clear=True)
        v.build([1], [9.0], clear=True)
        return C, v

    diff.check(body, *_inputs())


def test_later_calls_work_after_an_error(diff):
    """An error leaves the objects usable: the next call gives the right answer."""
    def body(gb, A, B, S, v, w, C, e):
        try:
            C << A.mxm(B)
        except gb.exceptions.DimensionMismatch:
            pass
        C(accum=gb.binary.plus) << A.mxm(S)
        return C

    diff.check(body, *_inputs())


EXCEPTION_NAMES = sorted(n for n in dir(graphblas.exceptions)
                         if isinstance(getattr(graphblas.exceptions, n), type)
                         and issubclass(getattr(graphblas.exceptions, n), Exception)
                         and n not in ("JitError", "UdfParseError"))


@pytest.mark.parametrize("name", EXCEPTION_NAMES)
def test_exception_classes(target, name):
    """graphblast.exceptions has python-graphblas's classes (less the JIT/UDF ones), all
    subclasses of GraphblasException."""
    cls = getattr(target.exceptions, name, None)
    assert cls is not None, f"{target.__name__}.exceptions lacks {name}"
    assert issubclass(cls, target.exceptions.GraphblasException)
