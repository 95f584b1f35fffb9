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


def direction(push_work, pull_work, *, previous=None):
    """Push (expand the vector's entries) or pull (visit every allowed row) for mxv/vxm.

    ``push_work`` is the exact number of products push makes (the vector's degree sum);
    ``pull_work`` the entries pull visits.  Push wins when it does less than
    ``config["direction_switch"]`` of pull's work.  Hysteresis: once pulling, stay until push
    is cheaper by twice that margin, so alternating frontiers do not flap.
    """
    forced = config["direction"]
    if forced != "auto":
        return _log("direction", forced, "forced by gb.config")
    switch = config["direction_switch"]
    if previous == "pull":
        switch = switch / 2
    if push_work <= switch * pull_work:
        return _log("direction", "push",
                    f"push work {push_work} <= {switch:g} x pull work {pull_work}")
    return _log("direction", "pull", f"push work {push_work} > {switch:g} x pull work {pull_work}")
