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


def test_direction_weighs_products_that_miss_the_cache():
    """A pushed product whose claim misses the cache moves the switch like a costlier
    product, but not the count rule after a pull (push's output is small by then)."""
    assert plan.direction(50, 1000)[0] == "push"
    choice, reason = plan.direction(50, 1000, miss_weight=4)
    assert choice == "pull" and "50 x 4 > 0.1 x pull work 1000" in reason
    choice, reason = plan.direction(10, 1000, push_weight=2, miss_weight=3.5)
    assert choice == "push" and "x 7 <=" in reason
    assert plan.direction(0, 10**9, nu=999, n=18_000, previous="pull",
                          miss_weight=4)[0] == "push"


def test_first_hit_work():
    """Rows that stop at their first product scan about nvals / push_work entries each."""
    # 1000 rows; a vector whose degree sum is a tenth of the entries: 10 entries a row
    assert plan.first_hit_work(10**6, 10**5, 10**6, 1000) == 10_000
    # never more than the allowed rows' entries
    assert plan.first_hit_work(5000, 10, 10**6, 1000) == 5000
    # no early stop, or an empty vector: pull's work as given
    assert plan.first_hit_work(5000, 10, 10**6, None) == 5000
    assert plan.first_hit_work(5000, 0, 10**6, 1000) == 5000
    # a wide frontier of hubs makes pull cheap: the planner pulls where the entry count
    # alone would push (kron-27's third BFS level: 339 million products, 4.2 billion entries
    # over 63 million rows with an entry)
    nvals, rows, push_work = 4_223_264_758, 63_073_992, 338_848_527
    assert plan.direction(push_work, nvals)[0] == "push"
    pull = plan.first_hit_work(nvals, push_work, nvals, rows)
    assert plan.direction(push_work, pull)[0] == "pull"


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


def test_config_lookup_follows_set_and_reset():
    """The per-call paths read settings by ``config.lookup`` (the dict's own lookup): it
    sees what ``set`` and ``reset`` do, inside and after a ``with``."""
    lookup = gb.config.lookup
    with gb.config.set(direction="push", direction_switch=0.25):
        assert (lookup("direction"), lookup("direction_switch")) == ("push", 0.25)
        gb.config.reset()
        assert (lookup("direction"), lookup("direction_switch")) == ("auto", 0.1)
        gb.config.set(direction="pull")
        assert lookup("direction") == "pull"
    assert lookup("direction") == "auto"  # the with restored its old value
    assert lookup("direction_switch") == 0.1


def test_choose_direction_is_direction_without_the_reason(caplog):
    """The backends' fast entry (positional, the direction not forced: the caller checked)
    takes the same decisions and logs the same reasons, the first-hit early stop included."""
    cases = [((10, 1000), {}), ((200, 1000), {}), ((50, 1000), {"push_weight": 5}),
             ((7, 1000), {"bound": True, "miss_weight": 3.5}),
             ((0, 10**9), {"nu": 999, "n": 18_000, "previous": "pull"}),
             ((0, 10**9), {"nu": 1000, "n": 18_000, "previous": "pull"}),
             # a first-hit pull: 1000 rows x 10^6 / 10^5 = 10^4 entries < 10^6
             ((10**5, 10**6), {"first_hit_rows": 1000, "nvals": 10**6}),
             ((900, 10**6), {"first_hit_rows": 1000, "nvals": 10**6}),
             ((0, 5000), {"first_hit_rows": 1000, "nvals": 10**6})]
    order = ("first_hit_rows", "nvals", "nu", "n", "previous", "bound", "push_weight",
             "miss_weight")
    defaults = {"first_hit_rows": None, "nvals": 0, "nu": None, "n": None, "previous": None,
                "bound": False, "push_weight": 1, "miss_weight": 1}
    for args, kwargs in cases:
        positional = args + tuple({**defaults, **kwargs}[k] for k in order)
        with caplog.at_level("DEBUG", logger="graphblast"):
            caplog.clear()
            choice = plan.choose_direction(*positional)
            logged = caplog.messages[-1]
        assert (choice, logged) == (plan.direction(*args, **kwargs)[0],
                                    f"direction: {choice} ({plan.direction(*args, **kwargs)[1]})")
    assert plan.direction(7, 1000, bound=True)[1] == "push work at most 7 <= 0.1 x pull work 1000"
    # the first-hit case decides on the lowered pull work, and says so
    assert plan.direction(10**5, 10**6, first_hit_rows=1000, nvals=10**6) == (
        "pull", "push work 100000 > 0.1 x pull work 10000")
    assert plan.direction(900, 10**6, first_hit_rows=1000, nvals=10**6)[0] == "push"


def test_a_bound_that_does_not_settle_push_is_not_logged(caplog):
    """The planner tries count x the largest degree first; when that bound does not settle
    push it finds the exact sum and decides then: only that decision is logged."""
    with caplog.at_level("DEBUG", logger="graphblast"):
        caplog.clear()
        assert plan.choose_direction(500, 1000, None, 0, 5, 100, None, True, 1, 1) == "pull"
        assert caplog.messages == []
        assert plan.choose_direction(50, 1000, None, 0, 5, 100, None, True, 1, 1) == "push"
        assert caplog.messages == ["direction: push (push work at most 50 <= 0.1 x pull work 1000)"]


def test_vector_format():
    assert plan.vector_format(1000, None)[0] == "bitmap"
    assert plan.vector_format(plan.BITMAP_ALWAYS, 0)[0] == "bitmap"
    big = plan.BITMAP_ALWAYS * 4
    assert plan.vector_format(big, None)[0] == "sparse"
    assert plan.vector_format(big, big // 100)[0] == "sparse"
    assert plan.vector_format(big, big // 8)[0] == "bitmap"


def test_sssp_squarings_rule():
    """Squared while the rounds a squaring saves (half of those left, at a fixed cost each)
    cost more than its multiplies (at most entries x the longest row)."""
    n = 2048 * 2048
    left = 32 * ((n / 528) ** 0.5 - 1)  # a grid from its corner: 528 reached in 32 rounds
    assert plan.squarings_rule(n, 16_769_024, 4, left, 300e-6)[0] == 2
    # a hub's row makes the square's multiplies too many to pay
    assert plan.squarings_rule(n, 16_769_024, 100_000, left, 300e-6)[0] == 0
    # few rounds left, or rounds that cost only their work (a CPU's): none
    assert plan.squarings_rule(n, 16_769_024, 4, 10, 300e-6)[0] == 0
    assert plan.squarings_rule(n, 16_769_024, 4, left, 0.0)[0] == 0
    assert plan.squarings_rule(n, 10, 1, 1e12, 1.0)[0] == plan.MAX_SQUARINGS
    assert "rounds left" in plan.squarings_rule(n, 16_769_024, 4, left, 300e-6)[1]


def test_sssp_squarings_of_a_matrix():
    """On the CPU a round costs its work: never squared by itself; gb.config forces a count,
    and only a count (or "auto") is accepted."""
    import pytest

    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [1, 2, 3], nrows=4, ncols=4, device="cpu")
    assert plan.sssp_squarings(A, 32, 2)[0] == 0
    assert plan.sssp_squarings(A, 0, 1)[0] == 0
    with gb.config.set(sssp_squarings=2):
        assert plan.sssp_squarings(A, 32, 2) == (2, "forced by gb.config")
    for bad in (-1, 1.5, True, "two", None):
        with pytest.raises(ValueError, match="sssp_squarings"):
            gb.config.set(sssp_squarings=bad)
    assert gb.config["sssp_squarings"] == "auto"


def test_sssp_squarings_within_free_memory():
    """A square whose bytes (SQUARE_BYTES_PER_MULTIPLY a multiply) pass half the free memory
    is not made, whatever it would save."""
    n = 2048 * 2048
    left = 32 * ((n / 528) ** 0.5 - 1)
    multiplies = 16_769_024 * 4
    enough = 2 * plan.SQUARE_BYTES_PER_MULTIPLY * multiplies
    assert plan.squarings_rule(n, 16_769_024, 4, left, 300e-6, free=enough)[0] >= 1
    assert plan.squarings_rule(n, 16_769_024, 4, left, 300e-6, free=enough - 1)[0] == 0


def test_spgemm_method():
    """The hash SpGEMM takes rows of few products, for monoids whose fold does not depend
    on the products' order; gb.config's spgemm="sort" keeps the sorted path."""
    import pytest

    limit = plan.HASH_ROW_PRODUCTS
    assert plan.spgemm_method("min", False, limit)[0] == "hash"
    assert plan.spgemm_method("max", False, 3)[0] == "hash"
    assert plan.spgemm_method("plus", True, 3)[0] == "hash"
    assert plan.spgemm_method("plus", False, 3)[0] == "sort"  # a float sum rounds by order
    assert plan.spgemm_method("any", True, 3)[0] == "sort"  # any keeps the smallest k
    assert plan.spgemm_method("min", False, limit + 1)[0] == "sort"
    assert "products" in plan.spgemm_method("min", False, limit + 1)[1]
    with gb.config.set(spgemm="sort"):
        assert plan.spgemm_method("min", False, 3) == ("sort", "forced by gb.config")
    with pytest.raises(ValueError, match="spgemm"):
        gb.config.set(spgemm="hash")
