"""Finding a lambda's source for translation: by the instructions it compiles to, so that the
right lambda is read on every Python version (3.10 has no column positions; 3.12 gives none to
a lambda that returns a constant), several lambdas on one line and closures included."""

import ast
import math

import numpy as np
import pytest

from graphblast.dtypes import FP64, INT64
from graphblast.exceptions import UdfParseError
from graphblast.ops import udf


def values(func, x):
    x = np.asarray(x, dtype=np.int64)
    got = udf.translate(func, [INT64], ["x"]).np_func(x)
    return np.broadcast_to(got, x.shape).tolist()  # a constant comes back as a scalar


def test_constant_lambdas_on_one_line():
    one, two = (lambda x: 1), (lambda x: 2)
    assert values(one, [5]) == [1] and values(two, [5]) == [2]


def test_lambdas_of_one_line_told_apart():
    ops = [lambda x: x + 1, lambda x: x * 2, lambda x: x + 1]
    assert [values(f, [3]) for f in ops] == [[4], [6], [4]]


def test_closures_and_nested_lambdas():
    def make(k):
        return [lambda x: x + k, lambda x: (lambda y: y * x)(3) - k, lambda x: x - k,
                lambda x: x if x > k else -x]

    add, nested, sub, cond = make(10)
    assert values(add, [1, 2]) == [11, 12] and values(sub, [1]) == [-9]
    assert values(cond, [1, 20]) == [-1, 20]  # a jump, and the closure's cell, in place
    # a lambda inside a lambda is no translatable construct, but the outer one is found
    assert ast.unparse(udf._source_tree(nested)) == "lambda x: (lambda y: y * x)(3) - k"


def test_math_and_conditionals():
    f = lambda x: math.floor(x / 2) if x > 0 else -x  # noqa: E731
    got = udf.translate(f, [FP64], ["x"]).np_func(np.array([5.0, -3.0])).tolist()
    assert got == [2.0, 3.0]


@pytest.mark.parametrize("func, construct", [
    (lambda x: "a", "the constant 'a'"),
    (lambda x: len(x), "a call of len()"),
])
def test_untranslatable_constructs_are_named(func, construct):
    with pytest.raises(UdfParseError, match=construct.replace("(", r"\(").replace(")", r"\)")):
        udf.translate(func, [INT64], ["x"])
