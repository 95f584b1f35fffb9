"""Semirings whose multiplication takes its operands in the other order.

``A.T.mxv(v)`` is computed as ``v.vxm(A)`` and ``v.vxm(A.T)`` as ``A.mxv(v)``, which avoids
building a transpose; the products then meet their operands exchanged, so the backend is given
the semiring with ``mult'(x, y) = mult(y, x)``.
"""

import functools


@functools.lru_cache(maxsize=256)
def swap_semiring(semi):
    """The semiring with operands of its multiplication swapped: mult'(x, y) = mult(y, x).

    mxv over A' equals vxm over A with the product's operands exchanged; a commutative or
    symmetric operator (first <-> second, firsti <-> secondj ...) is swapped by name.  The same
    object for the same semiring: the backends' kernel caches are keyed by the semiring, and a
    new one each call made every product over a transpose (PageRank's pull over A') build its
    program's key again."""
    return SwappedSemiring(semi)


class SwappedSemiring:
    """A typed semiring whose multiplication takes its operands in the other order."""

    opclass = "Semiring"

    def __init__(self, semi):
        self.unswapped = semi  # swapped back: the very semiring (and its cached kernels)
        self.parent = semi.parent
        self.monoid = semi.monoid
        self.binaryop = SwappedBinaryOp(semi.binaryop)
        self.return_type = semi.return_type
        self.type = semi.type2
        self.type2 = semi.type

    def __repr__(self):
        return f"swapped({self.parent!r})"


class SwappedBinaryOp:
    """``f(y, x)`` for a typed binary operator ``f``."""

    opclass = "BinaryOp"

    def __init__(self, op):
        self.op = op
        self.parent = op.parent
        self.type = op.type2
        self.type2 = op.type
        self.return_type = op.return_type
        self.cuda = op.cuda
        pos = op.position
        if pos is not None:
            side, axis, offset = pos
            # first operand's row i is the swapped second's column j, and so on
            side = "second" if side == "first" else "first"
            axis = "j" if axis == "i" else "i"
            pos = (side, axis, offset)
        self.position = pos

    def np_func(self, x, y):
        return self.op.np_func(y, x)

    @property
    def monoid(self):
        return None

    def __repr__(self):
        return f"swapped({self.op!r})"
