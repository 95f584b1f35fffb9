"""Aggregators (``gb.agg``) against python-graphblas: every aggregator by every reduction
(rowwise, columnwise, to a Scalar, of a Vector), on plain and transposed inputs, under a mask,
and a composite aggregator built by the user."""

import warnings

import pytest
from diffharness import any_candidates

# python-graphblas 2025.2.0's aggregators; it keeps the positional ones under agg.ss
AGGREGATORS = [
    "sum", "prod", "all", "any", "min", "max", "any_value", "bitwise_all", "bitwise_any",
    "count", "count_nonzero", "count_zero", "sum_of_squares", "sum_of_inverses", "exists",
    "hypot", "logaddexp", "logaddexp2", "L0norm", "L1norm", "L2norm", "Linfnorm", "mean",
    "peak_to_peak", "varp", "vars", "stdp", "stds", "geometric_mean", "harmonic_mean",
    "root_mean_square", "first", "last", "first_index", "last_index", "argmin", "argmax",
]
POSITIONAL = {"first_index", "last_index", "argmin", "argmax"}
METHODS = ["reduce_rowwise", "reduce_columnwise", "reduce_scalar", "Vector.reduce"]


def aggregator(gb, name):
    """The aggregator ``name`` (python-graphblas's positional ones from ``agg.ss``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        found = getattr(gb.agg, name, None)
    return found if found is not None else getattr(gb.agg.ss, name)


def _dtype_for(name):
    if name in ("all", "any"):
        return "BOOL"
    if name.startswith("bitwise"):
        return "UINT16"
    return "INT64" if name in ("first", "last", "first_index", "last_index") else "FP64"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", AGGREGATORS)
def test_aggregator(diff, name, method):
    dtype = _dtype_for(name)
    transpose = diff.choice([False, True])
    nonzero = name in ("sum_of_inverses", "harmonic_mean", "geometric_mean")
    if method == "Vector.reduce":
        x = diff.vector(dtype, 9, 0.6, nonzero=nonzero)
    else:
        x = diff.matrix(dtype, 6, 7, 0.4, nonzero=nonzero)
    raises = "ValueError" if method == "reduce_scalar" and name in POSITIONAL else None

    def body(gb, x):
        agg = aggregator(gb, name)
        if method == "Vector.reduce":
            return x.reduce(agg).new()
        src = x.T if transpose else x
        return getattr(src, method)(agg).new()

    diff.check(body, x, raises=raises,
               candidates=any_candidates(method, transpose) if name == "any_value" else None)



@pytest.mark.parametrize("method", ["reduce_rowwise", "Vector.reduce"])
def test_typed_and_masked(diff, method):
    x = diff.matrix("INT64", 7, 5, 0.5) if method != "Vector.reduce" else diff.vector(
        "INT64", 8, 0.5)
    m = diff.vector("BOOL", 7, 0.6)

    def body(gb, x, m):
        if method == "Vector.reduce":
            return [x.reduce(gb.agg.count["INT16"]).new(), x.reduce(gb.agg.sum[float]).new()]
        return [x.reduce_rowwise(gb.agg.mean).new(mask=m.S),
                x.reduce_rowwise(gb.agg.count["INT8"]).new(mask=~m.V)]

    diff.check(body, x, m)


def test_composite_of_the_users(diff):
    x = diff.matrix("FP64", 6, 6, 0.5)

    def body(gb, x):
        silly = gb.agg.Aggregator("silly", composite=[gb.agg.varp, gb.agg.stdp],
                                  finalize=lambda a, b, opts: gb.binary.times(a & b),
                                  types=[gb.agg.varp])
        return [x.reduce_rowwise(silly).new(), x.reduce_scalar(silly).new()]

    diff.check(body, x)


def test_empty_and_errors(diff):
    def body(gb):
        A = gb.Matrix("UINT8", 3, 4)
        out = [A.reduce_rowwise(gb.agg.mean).new(), A.reduce_scalar(gb.agg.stds).new(),
               A.reduce_scalar(gb.agg.sum, allow_empty=False).new()]
        return out

    diff.check(body)
    diff.check(lambda gb: gb.Vector(int, 3).reduce(gb.agg.mean, allow_empty=False),
               raises="ValueError")
