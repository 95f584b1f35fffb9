"""Masks: ``M.S`` (structure), ``M.V`` (values), and their complements ``~M.S``, ``~M.V``."""

from ..backends.base import MaskArg


class Mask:
    """Which positions of an output an operation may write."""

    __slots__ = ("parent", "__weakref__")
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
        raise TypeError("__bool__ not defined for a mask: it has no truth value; use it as "
                        "C(mask) << expr.")

    def __eq__(self, other):
        raise TypeError(f"__eq__ not defined for objects of type {type(self)}: a mask has "
                        "no truth value; compare its parents (M1.isequal(M2))")

    __hash__ = object.__hash__  # a mask is still usable as a key, by identity

    @property
    def mask(self):
        return self

    def _arg(self):
        return MaskArg(self.parent._data, self.structure, self.complement)

    # -- mask algebra (python-graphblas's): ``m1 & m2``, ``m1 | m2``, ``m.new()`` -----------
    def new(self, dtype=None, *, mask=None, complement=False, name=None, **opts):
        """A collection of ``dtype`` (BOOL by default) of the mask's shape, True where this
        mask (and ``mask``, when given) lets an output be written; where it does not, with
        ``complement=True``."""
        from ..dtypes import BOOL

        out = self._allowed(BOOL if dtype is None else dtype, name)
        if mask is not None:
            from .operations import check_mask

            both = self._empty(out.dtype, name)
            both(mask=check_mask(mask, out)) << out
            out = both
        if complement:
            flipped = self._empty(out.dtype, name)
            flipped(mask=~out.S) << True
            out = flipped
        return out

    def _empty(self, dtype, name=None):
        parent = self.parent
        return type(parent)(dtype, *parent.shape, name=name, device=parent.device)

    def _allowed(self, dtype, name=None):
        out = self._empty(dtype, name)
        out(mask=self) << True
        return out

    def _other(self, other):
        from .operations import check_mask

        if other is None or not (isinstance(other, Mask) or hasattr(other, "_data")):
            raise TypeError(f"Invalid mask: {type(other).__name__}; use M.S, M.V, ~M.S or ~M.V")
        return check_mask(other, self.parent)

    def __and__(self, other):
        """The mask that lets through what both let through."""
        from ..dtypes import BOOL

        other = self._other(other)
        both = self._empty(BOOL)
        both(mask=other) << self._allowed(BOOL)
        return StructuralMask(both)

    def __or__(self, other):
        """The mask that lets through what either lets through."""
        from ..dtypes import BOOL

        other = self._other(other)
        either = self._allowed(BOOL)
        either(mask=other) << True
        return StructuralMask(either)

    __rand__ = __and__
    __ror__ = __or__


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
