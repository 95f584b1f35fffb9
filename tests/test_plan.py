"""The planner's decisions (plan.py): each returns (choice, reason), can be forced through
gb.config, and follows the rule its docstring states."""

import graphblast as gb
from graphblast import plan


def test_direction_by_work():
    assert plan.direction(10, 1000)[0] == "push"       # 10 <= 0.1 x 1000
    assert plan.direction(200, 1000)[0] == "pull"
    choice, reason = plan.direction(100, 1000)
    assert choice == "push" and "100" in reason and "1000" in reason


def test_direction_weighs_the_pushed_products():
    """A costlier pushed product (an atomic fold by compare-and-swap) moves the switch."""
    assert plan.direction(50, 1000)[0] == "push"
    choice, reason = plan.direction(50, 1000, push_weight=5)
    assert choice == "pull" and "50 x 5 > 0.1 x pull work 1000" in reason
    assert plan.direction(20, 1000, push_weight=5)[0] == "push"
    # after a pull, the weight shrinks the vector that may push again: n / (beta x weight)
    n = 18_000
    assert plan.direction(0, 10**9, nu=999, n=n, previous="pull")[0] == "push"
    assert plan.direction(0, 10**9, nu=999, n=n, previous="pull", push_weight=5)[0] == "pull"
    assert plan.direction(0, 10**9, nu=199, n=n, previous="pull", push_weight=5)[0] == "push"


def test_direction_hysteresis_after_a_pull():
    n = 18_000
    # after a pull, a vector of n/18 entries or more keeps pulling, whatever the work
    assert plan.direction(1, 10**9, nu=1000, n=n, previous="pull")[0] == "pull"
    assert plan.direction(10**9, 1, nu=999, n=n, previous="pull")[0] == "push"
    # without that history the work decides
    assert plan.direction(1, 10**9, nu=1000, n=n, previous="push")[0] == "push"


def test_direction_forced_and_configurable():
    with gb.config.set(direction="pull"):
        assert plan.direction(0, 10**9) == ("pull", "forced by gb.config")
    with gb.config.set(direction_switch=0.5):
        assert plan.direction(400, 1000)[0] == "push"
    with gb.config.set(direction_beta=2.0):
        assert plan.direction(1, 10**9, nu=999, n=2000, previous="pull")[0] == "push"


def test_vector_format():
    assert plan.vector_format(1000, None)[0] == "bitmap"
    assert plan.vector_format(plan.BITMAP_ALWAYS, 0)[0] == "bitmap"
    big = plan.BITMAP_ALWAYS * 4
    assert plan.vector_format(big, None)[0] == "sparse"
    assert plan.vector_format(big, big // 100)[0] == "sparse"
    assert plan.vector_format(big, big // 8)[0] == "bitmap"
