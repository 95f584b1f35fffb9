"""Masks: ``M.S`` (structure), ``M.V`` (values), and their complements ``~M.S``, ``~M.V``."""

from ..backends.base import MaskArg


class Mask:
    """Which positions of an output an operation may write."""

    __slots__ = ("parent",)
    structure = False
    value = False
    complement = False

    def __init__(self, parent):
        self.parent = parent

    def __repr__(self):
        return f"{'~' if self.complement else ''}{self.parent.name}.{'S' if self.structure else 'V'}"

    def __invert__(self):
        return _COMPLEMENT[type(self)](self.parent)

    def __bool__(self):
        raise TypeError("A mask has no truth value; use it as C(mask) << expr.")

    @property
    def mask(self):
        return self

    def _arg(self):
        return MaskArg(self.parent._data, self.structure, self.complement)


class StructuralMask(Mask):
    __slots__ = ()
    structure = True


class ValueMask(Mask):
    __slots__ = ()
    value = True


class ComplementedStructuralMask(Mask):
    __slots__ = ()
    structure = True
    complement = True


class ComplementedValueMask(Mask):
    __slots__ = ()
    value = True
    complement = True


_COMPLEMENT = {
    StructuralMask: ComplementedStructuralMask,
    ValueMask: ComplementedValueMask,
    ComplementedStructuralMask: StructuralMask,
    ComplementedValueMask: ValueMask,
}
