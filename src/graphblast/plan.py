"""Cost models behind the backends' choices.

Each decision is one function returning ``(choice, reason)``; the choice can be forced through
``gb.config`` and every decision is logged at debug level on the ``graphblast`` logger.
"""

import logging

from .config import config

logger = logging.getLogger("graphblast")


def _log(decision, choice, reason):
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s: %s (%s)", decision, choice, reason)
    return choice, reason


def direction(push_work, pull_work, nu=None, n=None, *, previous=None, bound=False,
              push_weight=1, miss_weight=1):
    """Push (expand the vector's entries) or pull (visit every allowed row) for mxv/vxm.

    Beamer's direction optimization, for any semiring.  ``push_work`` is the exact number of
    products push makes (the vector's degree sum, summed on the device); ``pull_work`` the
    entries pull may visit (the matrix's entries in the rows the mask allows, or fewer when
    each row stops at its first product: ``first_hit_work``).  Push wins when it does at
    most ``config["direction_switch"]`` (1/alpha) of pull's work.
    Hysteresis: after a pull (``previous``), the next step pushes again only once the vector
    has fewer than ``n / config["direction_beta"]`` of the ``n`` outputs' entries, so that
    a frontier that grows and shrinks does not flap.  ``bound``: ``push_work`` is an upper
    bound (entries x the largest degree), not the exact sum.  ``push_weight``: what one
    pushed product costs over BFS's (a fold by compare-and-swap under contention costs more;
    the backend says), multiplying ``push_work`` before the comparison and ``beta`` after a
    pull.  ``miss_weight``: what one pushed product costs over one whose writes stay in the
    cache (the backend says, from the output's size), in the comparison only: after a pull
    the count rule holds, as push's output is then small.
    """
    choice, rule, *numbers = _direction(push_work, pull_work, nu, n, previous, bound,
                                        push_weight, miss_weight)
    return _log("direction", choice, _REASONS[rule](*numbers))


def choose_direction(push_work, pull_work, nu=None, n=None, *, previous=None, bound=False,
                     push_weight=1, miss_weight=1):
    """:func:`direction`'s choice alone, its reason formatted only for the debug log: the
    backends' per-call path (formatting the reason cost several microseconds a product)."""
    choice, rule, *numbers = _direction(push_work, pull_work, nu, n, previous, bound,
                                        push_weight, miss_weight)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s: %s (%s)", "direction", choice, _REASONS[rule](*numbers))
    return choice


_REASONS = {
    "forced": lambda: "forced by gb.config",
    "count": lambda nu, n, beta, pull: (f"after a pull, vector entries {nu} "
                                        f"{'>=' if pull else '<'} {n} / {beta:g}"),
    "work": lambda push, bound, weight, pull, switch, pull_work: (
        f"push work {'at most ' if bound and not pull else ''}{push}"
        f"{'' if weight == 1 else f' x {weight:.3g}'} {'>' if pull else '<='} {switch:g} "
        f"x pull work {pull_work:.0f}"),
}


def _direction(push_work, pull_work, nu, n, previous, bound, push_weight, miss_weight):
    """(choice, the rule that decided, the numbers its reason quotes)."""
    forced = config["direction"]
    if forced != "auto":
        return forced, "forced"
    if previous == "pull" and nu is not None and n:
        beta = config["direction_beta"] * push_weight
        pull = nu * beta >= n
        return ("pull" if pull else "push"), "count", nu, n, beta, pull
    switch = config["direction_switch"]
    weight = push_weight * miss_weight
    pull = push_work * weight > switch * pull_work
    return ("pull" if pull else "push"), "work", push_work, bound, weight, pull, switch, \
        pull_work


def first_hit_work(pull_work, push_work, nvals, rows):
    """The entries a pull visits when each row stops at its first product (an "any" monoid):
    an entry falls in the vector's set with probability ``push_work / nvals`` (the vector's
    degree sum counts exactly the entries whose column it holds), so each of the ``rows``
    rows that may be visited scans about ``nvals / push_work`` entries before it stops; never
    more than ``pull_work``.  ``rows`` None: no early stop, ``pull_work`` itself."""
    if rows is None or push_work <= 0:
        return pull_work
    return min(pull_work, rows * nvals / push_work)


# Vectors up to this size may always be held as a bitmap on the GPU (n bytes of presence and
# n values: 2.25 GiB for an FP64 vector of 2^28 entries); larger ones only when dense enough.
BITMAP_ALWAYS = 1 << 28
BITMAP_DENSITY = 1 / 16


def vector_format(size, nvals):
    """"bitmap" or "sparse" for a vector about to be updated in place on the GPU (``nvals``:
    its entry count if the host knows it, else None)."""
    if size <= BITMAP_ALWAYS:
        return _log("vector format", "bitmap", f"size {size} <= {BITMAP_ALWAYS}")
    if nvals is not None and nvals >= BITMAP_DENSITY * size:
        return _log("vector format", "bitmap",
                    f"{nvals} entries >= {BITMAP_DENSITY:g} of size {size}")
    return _log("vector format", "sparse",
                f"size {size} > {BITMAP_ALWAYS} and entries {nvals} below "
                f"{BITMAP_DENSITY:g} of it (or not known)")
