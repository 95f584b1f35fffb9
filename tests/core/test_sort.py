"""``v.ss.sort`` (SuiteSparse's GxB_Vector_sort) against python-graphblas, on every device and
every type: values packed at positions 0..nvals-1, the permutation (UINT64) of the indices,
equal values in increasing index order, ascending and descending, the ``values`` and
``permutation`` flags, and the errors.

Where SuiteSparse's order is not defined - equal values under ``le``/``ge``, NaN - graphblast's
documented order is checked against a NumPy model instead: ``le``/``ge`` sort as ``lt``/``gt``,
NaN sorts above every number.  On a GPU the input comes in each of its formats (sorted list,
unsorted list from a push, bitmap from a pull, full).
"""

import numpy as np
import pytest
from diffharness import (ALL_TYPES, FLOAT_TYPES, VECTOR_CASES, VectorData, random_vector,
                         special_values)

import graphblast as gb
from graphblast import Vector, binary, semiring
from graphblast.dtypes import INT64, lookup_dtype

CASES = dict(VECTOR_CASES, ties=(300, 0.6))  # small values in 180 entries: many ties
ORDERS = {"lt": "ascending", "gt": "descending"}


def _sort(op, **kwargs):
    def body(gb, v):
        return v.ss.sort(op if isinstance(op, str) else op(gb), **kwargs)
    return body


@pytest.mark.parametrize("order", list(ORDERS))
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_sort(diff, dtype, case, order):
    size, density = CASES[case]
    v = diff.vector(dtype, size, density)
    diff.check(_sort(lambda gb: getattr(gb.binary, order)), v)


@pytest.mark.parametrize("values", [True, False])
@pytest.mark.parametrize("permutation", [True, False])
def test_sort_flags(diff, values, permutation):
    v = diff.vector("INT32", 40, 0.5)
    diff.check(_sort(lambda gb: gb.binary.gt, values=values, permutation=permutation), v)


@pytest.mark.parametrize("op", ["lt", "gt", "<", ">", "lt[FP64]", ">[INT64]"])
def test_sort_op_strings(diff, op):
    diff.check(_sort(op), diff.vector("FP64", 30, 0.7))


@pytest.mark.parametrize("dtype, op_type", [("FP64", "INT64"), ("FP32", "UINT8"),
                                            ("INT64", "BOOL"), ("UINT8", "INT8"),
                                            ("INT16", "FP32")])
@pytest.mark.parametrize("order", list(ORDERS))
def test_sort_typed_op(diff, dtype, op_type, order):
    """A typed operator of another type compares the values cast to its type (truncated,
    wrapped, all True for BOOL: new ties) and returns the Vector's own values."""
    data = diff.vector(dtype, 60, 0.8)
    if dtype.startswith("FP"):
        data.values = data.values * np.float32(1.3)  # fractions that a cast truncates
    if dtype == "UINT8":
        data.values = data.values * np.uint8(20)  # past INT8's range: wrapped by the cast
    diff.check(_sort(lambda gb: getattr(gb.binary, order)[op_type]), data)


@pytest.mark.parametrize("order", list(ORDERS))
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_sort_special_values(diff, dtype, order):
    """Each type's limits, -0.0 beside 0.0 and infinities (NaN is tested on its own), each
    value several times."""
    special = special_values(dtype)
    if dtype in FLOAT_TYPES:
        special = special[~np.isnan(special)]
    values = diff.rng.permutation(np.tile(special, 4))
    size = len(values) + 5
    idx = np.sort(diff.rng.choice(size, len(values), replace=False))
    v = VectorData(dtype, size, idx, values)
    diff.check(_sort(lambda gb: getattr(gb.binary, order)), v)


@pytest.mark.parametrize("op, raises", [
    ("plus", "DomainMismatch"), ("isgt", "DomainMismatch"), ("min", "DomainMismatch"),
    ("monoid.plus", "DomainMismatch"), ("semiring.plus_times", "TypeError"),
    ("unary.abs", "TypeError"), ("no_such_op", "ValueError"), (3, "TypeError"),
    (None, "TypeError"),
])
def test_sort_errors(diff, op, raises):
    """What python-graphblas rejects: an operator whose result is not BOOL, something that
    is not a BinaryOp or Monoid, an unknown name."""
    def resolve(gb):
        if isinstance(op, str) and "." in op:
            kind, name = op.split(".")
            return getattr(getattr(gb, kind), name)
        if isinstance(op, str) and op != "no_such_op":
            return getattr(gb.binary, op)
        return op
    diff.check(_sort(resolve), diff.vector("INT64", 10, 0.5), raises=raises)


@pytest.mark.parametrize("op", [binary.eq, binary.ne, binary.first, "==", binary.lor])
def test_sort_rejects_other_comparisons(device, op):
    """SuiteSparse also sorts by a BOOL-valued operator that is not an order (eq, lor, ...);
    graphblast accepts the four orders only, and says so."""
    v = Vector.from_coo([0, 2, 3], [True, False, True], size=5, device=device)
    with pytest.raises(ValueError, match="binary.lt or binary.le"):
        v.ss.sort(op)


def _model(vals, idx, descending):
    """The documented order of floats or small integers: by value (NaN above every number),
    equal values by index.  lexsort's last key is the first compared."""
    vals64 = vals.astype(np.float64)
    nan = np.isnan(vals64)
    key = np.where(nan, 0.0, vals64)
    if descending:
        order = np.lexsort((idx, -key, ~nan))  # NaN first, then decreasing values
    else:
        order = np.lexsort((idx, key, nan))
    return vals[order], idx[order]


def _check(v, w, p, descending):
    idx, vals = v.to_coo()
    exp_vals, exp_perm = _model(vals, idx, descending)
    n = len(vals)
    assert (w.size, p.size, w.dtype, p.dtype.name) == (v.size, v.size, v.dtype, "UINT64")
    wi, wv = w.to_coo()
    pi, pv = p.to_coo()
    np.testing.assert_array_equal(wi, np.arange(n))
    np.testing.assert_array_equal(pi, np.arange(n))
    np.testing.assert_array_equal(wv, exp_vals)  # NaN equals NaN here
    np.testing.assert_array_equal(pv, exp_perm)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_sort_nan(rng, device, dtype, descending):
    """NaN (either sign bit, as host arithmetic makes it) sorts above every number: last
    ascending, first descending, NaNs by index.  SuiteSparse's order with NaN is not
    defined."""
    np_type = lookup_dtype(dtype).np_type
    vals = rng.choice(np.array([np.nan, -np.nan, np.copysign(np.nan, -1), -np.inf, np.inf,
                                -0.0, 0.0, 1.5, -2.0], dtype=np_type), 60)
    idx = np.sort(rng.choice(100, 60, replace=False))
    v = Vector.from_coo(idx, vals, dtype, size=100, device=device)
    w, p = v.ss.sort(binary.gt if descending else binary.lt)
    _check(v, w, p, descending)


@pytest.mark.parametrize("op", ["le", "ge"])
@pytest.mark.parametrize("dtype", ["BOOL", "INT8", "UINT32", "FP64"])
def test_sort_le_ge(rng, device, dtype, op):
    """le/ge sort as lt/gt (those are compared with python-graphblas above).  Not compared
    with SuiteSparse itself: under le/ge its order of equal values is not defined, and with
    many equal values (a BOOL vector) its sort crashed the process."""
    data = random_vector(rng, dtype, 80, 0.7)
    v = Vector.from_coo(data.indices, data.values, dtype, size=80, device=device)
    strict = {"le": binary.lt, "ge": binary.gt}[op]
    for got, exp in zip(v.ss.sort(op), v.ss.sort(strict)):
        assert got.isequal(exp)


N = 3000  # past the one-block kernels of small problems (as tests/cuda/test_engine.py)


def _in_format(rng, fmt, device):
    """A Vector of about 200 entries with small values (ties) in ``fmt``: on a GPU "sorted"
    (from_coo), "list" (a push's unsorted list), "bitmap" (a pull's) or "full"."""
    if fmt == "full":
        # a full vector plus a complete list is a full vector (the dense element-wise kernel)
        vals = rng.integers(0, 5, N)
        return Vector.from_scalar(0, N, INT64, device=device).ewise_add(
            Vector.from_coo(np.arange(N), vals, INT64, size=N, device=device),
            binary.second).new()
    idx = rng.choice(N, 200, replace=False)
    seed = Vector.from_coo(idx, rng.integers(1, 5, 200), INT64, size=N, device=device)
    if fmt == "sorted":
        return seed
    rows, cols = rng.integers(0, N, 24_000), rng.integers(0, N, 24_000)
    A = gb.Matrix.from_coo(rows, cols, rng.integers(1, 4, 24_000), INT64, nrows=N, ncols=N,
                           dup_op=binary.min, device=device)
    with gb.config.set(direction="push" if fmt == "list" else "pull"):
        return seed.vxm(A, semiring.min_plus).new()


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("fmt", ["sorted", "list", "bitmap", "full"])
def test_sort_every_format(rng, device, fmt, descending):
    v = _in_format(rng, fmt, device)
    if device == "cuda":
        expected = {"sorted": None, "list": "sparse", "bitmap": "bitmap", "full": "full"}[fmt]
        assert getattr(v._data, "format", None) == expected
    w, p = v.ss.sort(binary.gt if descending else binary.lt)
    _check(v, w, p, descending)
    assert v[p].new().isequal(w)  # the permutation gathers the sorted values (u[I])


def test_sort_device_group():
    """A Vector split over a device group is sorted too, the results on the same group."""
    v = Vector.from_coo([0, 1, 2], [3, 1, 2], size=4, device="cpu:0-1")
    w, p = v.ss.sort(binary.gt)
    assert w.device == p.device == v.device
    assert w.to_dict() == {0: 3, 1: 2, 2: 1} and p.to_dict() == {0: 0, 1: 2, 2: 1}
