"""A loop of rounds whose wide rounds are issued from Python before ``graphblast.repeat``."""

from graphblast import repeat

__all__ = ["repeat_narrow"]

#: A round whose result holds more than this many entries (or a sixteenth of the positions)
#: is wide: a device loop that meets one runs the rest of its rounds from Python
#: (backends/cuda/loops.py), so such rounds are issued before the loop starts.
WIDE_FLOOR = 1 << 16


def repeat_narrow(body, x):
    """``graphblast.repeat(body, x)``, the first rounds issued here while their results are
    wide: a loop that starts from many vertices (every live vertex of a coloring) and
    narrows (its wave) runs on the device from where it narrowed.  One host read a round
    issued here."""
    while x.nvals:
        y = body(x)
        if y.nvals <= max(WIDE_FLOOR, x.size // 16):
            return repeat(body, y)
        x = y
    return x
