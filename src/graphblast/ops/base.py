"""The operator algebra's object model.

An operator is defined once, here or in the catalogue modules beside this one, and carries what
every backend needs for each type it supports:

- ``np_func``: a vectorized NumPy implementation (the CPU backend, and the reference);
- ``cuda``: a CUDA C++ expression in the operands ``x``, ``y`` (and ``i``, ``j``, ``thunk`` for
  index-unary operators), compiled into a functor by the CUDA backend.

Untyped operators (``binary.plus``) are indexed by type to get a typed operator
(``binary.plus["FP32"]``, ``binary.plus[int]``), as in python-graphblas.
"""

import numpy as np

from ..dtypes import ALL_TYPES, UINT64, DataType, lookup_dtype, unify

__all__ = [
    "OpBase", "UnaryOp", "BinaryOp", "Monoid", "Semiring", "IndexUnaryOp", "SelectOp",
    "TypedUnaryOp", "TypedBinaryOp", "TypedMonoid", "TypedSemiring", "TypedIndexUnaryOp",
    "find_typed_op",
]


def _as_array(result, dtype):
    """Coerce a NumPy function's result to the operator's return type (no copy if exact)."""
    return np.asarray(result).astype(dtype.storage_type, copy=False)


class TypedOpBase:
    """An operator specialised to one input type."""

    opclass = "Operator"
    __slots__ = ("parent", "type", "type2", "return_type", "cuda", "_np_func")

    def __init__(self, parent, type_, return_type, np_func, cuda, type2=None):
        self.parent = parent
        self.type = type_
        self.type2 = type2 if type2 is not None else type_
        self.return_type = return_type
        self.cuda = cuda
        self._np_func = np_func

    @property
    def name(self):
        return self.parent.name

    @property
    def is_positional(self):
        return self.parent.is_positional

    def __repr__(self):
        return f"{self.parent!r}[{self.type.name}]"

    @property
    def commutes_to(self):
        """This type's operator with the arguments swapped (``binary.first[INT64]`` gives
        ``binary.second[INT64]``), or None, as python-graphblas's."""
        other = getattr(self.parent, "commutes_to", None)
        if other is None:
            return None
        if other is self.parent:
            return self
        try:
            return _typed_lookup(other, self.type)
        except KeyError:
            return None

    @property
    def is_commutative(self):
        return bool(getattr(self.parent, "is_commutative", False))

    def __reduce__(self):
        return (_typed_lookup, (self.parent, self.type))

    def __getitem__(self, type_):
        return self.parent[type_]

    def __call__(self, *args, **kwargs):
        """``monoid.plus[FP32](u | v)``, ``unary.abs[INT8](v)``: as the untyped operator's
        call, with this type."""
        from ..core import operations

        call = {"UnaryOp": operations.call_unary, "BinaryOp": operations.call_binary,
                "Monoid": operations.call_binary, "Semiring": operations.call_semiring,
                "IndexUnaryOp": operations.call_indexunary,
                "SelectOp": operations.call_select}[self.opclass]
        return call(self, *args, **kwargs)


def _typed_lookup(parent, type_):
    try:
        return parent[type_]
    except KeyError:
        # Only reachable through a coercion (``binary.ldexp`` has no FP32 key of its own, but
        # its INT8 key maps to the FP32 operator): find the variant by its own type.
        for typed in parent._typed.values():
            if typed.type is type_:
                return typed
        raise


class TypedUnaryOp(TypedOpBase):
    """``z = f(x)``.  ``position`` is ``("i" | "j", offset)`` for positional operators,
    whose result is an index of the entry rather than a function of its value."""

    opclass = "UnaryOp"
    __slots__ = ("position",)

    def __init__(self, parent, type_, return_type, np_func, cuda, position=None):
        super().__init__(parent, type_, return_type, np_func, cuda)
        self.position = position

    def np_func(self, x):
        return _as_array(self._np_func(x), self.return_type)


class TypedBinaryOp(TypedOpBase):
    """``z = f(x, y)``.  ``position`` is ``(side, axis, offset)`` for positional operators
    (``firsti`` is ``("first", "i", 0)``): the result is an index of the operand named by
    ``side``, not a function of the values."""

    opclass = "BinaryOp"
    __slots__ = ("position",)

    def __init__(self, parent, type_, return_type, np_func, cuda, position=None):
        super().__init__(parent, type_, return_type, np_func, cuda)
        self.position = position

    def np_func(self, x, y):
        return _as_array(self._np_func(x, y), self.return_type)

    @property
    def monoid(self):
        """The monoid built on this operator, or None."""
        m = self.parent.monoid
        if m is None or self.type not in m._typed:
            return None
        return m[self.type]


class TypedMonoid(TypedOpBase):
    """An associative, commutative binary operator with an identity (and maybe a terminal).

    ``np_ufunc`` is a NumPy ufunc with the same semantics on this type, used for
    ``ufunc.reduceat``/``ufunc.reduce`` by the CPU backend; None means a generic reduction.
    """

    opclass = "Monoid"
    __slots__ = ("binaryop", "identity", "terminal", "np_ufunc")

    def __init__(self, parent, binaryop, identity, terminal, np_ufunc):
        super().__init__(parent, binaryop.type, binaryop.return_type, None, binaryop.cuda)
        self.binaryop = binaryop
        self.identity = identity
        self.terminal = terminal
        self.np_ufunc = np_ufunc

    def np_func(self, x, y):
        return self.binaryop.np_func(x, y)

    @property
    def is_idempotent(self):
        return self.parent.is_idempotent


class TypedSemiring(TypedOpBase):
    """``add`` monoid over ``multiply`` binary operator."""

    opclass = "Semiring"
    __slots__ = ("monoid", "binaryop")

    def __init__(self, parent, monoid, binaryop):
        super().__init__(parent, binaryop.type, monoid.return_type, None, None,
                         type2=binaryop.type2)
        self.monoid = monoid
        self.binaryop = binaryop


class TypedIndexUnaryOp(TypedOpBase):
    """``z = f(x, i, j, thunk)``: value, row, column and a scalar argument.

    ``i`` and ``j`` are int64 (``j`` is 0 for a Vector); ``thunk`` arrives already cast to
    ``thunk_type`` (INT64 for the positional operators such as ``tril``, the value type for
    ``valueeq`` and friends).  ``uses_value`` is False where ``x`` is ignored.
    """

    opclass = "IndexUnaryOp"
    __slots__ = ("uses_value", "thunk_type")

    def __init__(self, parent, type_, return_type, np_func, cuda, uses_value=True,
                 thunk_type=None):
        super().__init__(parent, type_, return_type, np_func, cuda)
        self.uses_value = uses_value
        self.thunk_type = type_ if thunk_type is None else thunk_type

    def np_func(self, x, i, j, thunk):
        return _as_array(self._np_func(x, i, j, thunk), self.return_type)


class OpBase:
    """An untyped operator: a name and its typed variants.

    As in python-graphblas, a type may map to the variant of another type (a *coercion*):
    ``unary.acos["INT8"]`` is ``unary.acos[FP32]``, and ``coercions`` records ``{INT8: FP32}``.
    Backends therefore cast the operands to the typed operator's ``type`` (and ``type2``), not
    to the type that was looked up.  ``is_positional`` operators (``binary.firsti``,
    ``indexunary.tril``, ...) do not depend on the values, so any type finds a variant.
    """

    opclass = "Operator"
    _namespace = "op"
    is_positional = False
    is_udf = False  # a user-defined operator (ops/user.py)

    @property
    def builtin_name(self):
        """The name backends may dispatch on: a built-in operator's own, "" for a user's (a
        user's operator named "plus" is not binary.plus)."""
        return "" if self.is_udf else self.name

    def __init__(self, name):
        self.name = name
        self._typed = {}
        self.coercions = {}

    def __repr__(self):
        return f"{self._namespace}.{self.name}"

    def __reduce__(self):
        return (_op_lookup, (self._namespace, self.name))

    def __getitem__(self, type_):
        if isinstance(type_, TypedOpBase):
            type_ = type_.type
        if isinstance(type_, tuple) and len(type_) == 2:  # op[t1, t2]: for two operand types
            t1, t2 = (lookup_dtype(t) for t in type_)
            return self[t1] if t1 is t2 else find_typed_op(self, t1, t2)
        dtype = lookup_dtype(type_)
        try:
            return self._typed[dtype]
        except KeyError:
            if self.is_positional and UINT64 in self._typed:
                # The value is ignored: python-graphblas answers with the UINT64 variant.
                return self._typed[UINT64]
            if dtype._is_udt:
                from .udt import typed_for_udt

                typed = typed_for_udt(self, dtype)
                if typed is not None:
                    return typed
            raise KeyError(f"{self.name} does not work with {dtype}") from None

    def __contains__(self, type_):
        try:
            self[type_]
        except KeyError:
            return False
        return True

    @property
    def types(self):
        """Map of supported input type to return type."""
        return {t: op.return_type for t, op in self._typed.items()}

    def _add(self, typed):
        self._typed[typed.type] = typed
        return typed

    def _coerce(self, types, target):
        """Map each of ``types`` that has no variant of its own to the ``target`` variant."""
        target = lookup_dtype(target)
        typed = self._typed[target]
        for t in types:
            t = lookup_dtype(t)
            if t not in self._typed:
                self._typed[t] = typed
                self.coercions[t] = target

    def _remove(self, types):
        """Drop the given input types (python-graphblas removes some, e.g. ``ldexp[FP32]``)."""
        for t in types:
            t = lookup_dtype(t)
            del self._typed[t]
            self.coercions.pop(t, None)


def _op_lookup(namespace, name):
    import importlib

    module = importlib.import_module(f"graphblast.ops.{namespace}")
    return getattr(module, name)


def _return_type(return_type, dtype):
    if return_type is None:
        return dtype
    if callable(return_type) and not isinstance(return_type, DataType):
        return return_type(dtype)
    return lookup_dtype(return_type)


class UnaryOp(OpBase):
    opclass = "UnaryOp"
    _namespace = "unary"

    @classmethod
    def define(cls, name, np_func, cuda, types=ALL_TYPES, return_type=None, position=None):
        """Define a unary operator for ``types``.

        ``np_func(x)`` and ``cuda`` may be callables of the type (returning the function or
        expression for that type) or the same for every type.  ``return_type`` is None (the
        input type), a type, or a callable of the input type.
        """
        op = cls(name)
        op.is_positional = position is not None
        for t in types:
            t = lookup_dtype(t)
            op._add(TypedUnaryOp(op, t, _return_type(return_type, t), _per_type(np_func, t),
                                 _per_type(cuda, t), position=position))
        return op

    def __call__(self, val):
        from ..core.operations import call_unary

        return call_unary(self, val)


class BinaryOp(OpBase):
    opclass = "BinaryOp"
    _namespace = "binary"

    def __init__(self, name, is_commutative=False):
        super().__init__(name)
        self.is_commutative = is_commutative
        self.monoid = None  # set when a monoid is built on this operator
        self.custom_dtype = None  # (op, type1, type2) -> typed op, where unify does not apply
        # The operator with the arguments swapped (f(x, y) == g(y, x)), or None.
        self.commutes_to = self if is_commutative else None

    @classmethod
    def define(cls, name, np_func, cuda, types=ALL_TYPES, return_type=None, position=None,
               is_commutative=False):
        """Define a binary operator; arguments as for :meth:`UnaryOp.define`."""
        op = cls(name, is_commutative=is_commutative)
        op.is_positional = position is not None
        for t in types:
            t = lookup_dtype(t)
            op._add(TypedBinaryOp(op, t, _return_type(return_type, t), _per_type(np_func, t),
                                  _per_type(cuda, t), position=position))
        return op

    def __call__(self, left, right=None, *, left_default=None, right_default=None):
        from ..core.operations import call_binary

        return call_binary(self, left, right, left_default=left_default,
                           right_default=right_default)


class Monoid(OpBase):
    opclass = "Monoid"
    _namespace = "monoid"

    def __init__(self, name, binaryop, is_idempotent=False):
        super().__init__(name)
        self.binaryop = binaryop
        self.is_idempotent = is_idempotent

    @classmethod
    def define(cls, name, binaryop, identity, terminal=None, np_ufunc=None, types=None,
               is_idempotent=False):
        """Build a monoid on ``binaryop``.

        ``identity``/``terminal``/``np_ufunc`` are values or callables of the type; a terminal
        of None means the monoid has none.
        """
        op = cls(name, binaryop, is_idempotent=is_idempotent)
        op.commutes_to = op  # a monoid is commutative
        op.is_commutative = True
        for t in types or list(binaryop._typed):
            t = lookup_dtype(t)
            bop = binaryop[t]
            ident = _per_type(identity, t)
            term = _per_type(terminal, t)
            rt = bop.return_type.np_type.type
            op._add(TypedMonoid(op, bop, rt(ident),
                                None if term is None else rt(term), _per_type(np_ufunc, t)))
        if binaryop.monoid is None:
            binaryop.monoid = op
        return op

    @property
    def identities(self):
        """``{input type: identity}`` (python-graphblas's ``Monoid.identities``)."""
        return {t: m.identity for t, m in self._typed.items()}

    def __call__(self, left, right=None, *, left_default=None, right_default=None):
        from ..core.operations import call_binary

        return call_binary(self, left, right, left_default=left_default,
                           right_default=right_default)


class Semiring(OpBase):
    opclass = "Semiring"
    _namespace = "semiring"

    def __init__(self, name, monoid, binaryop):
        super().__init__(name)
        self.monoid = monoid
        self.binaryop = binaryop

    @property
    def is_commutative(self):
        return self.binaryop.is_commutative

    @property
    def commutes_to(self):
        """The semiring with the multiplication's arguments swapped, or None."""
        mult = self.binaryop.commutes_to
        if mult is None:
            return None
        if mult is self.binaryop:
            return self
        from .semiring import get_semiring

        return get_semiring(self.monoid, mult)

    @property
    def custom_dtype(self):
        """The multiplier's type rule (``plus_pair`` of two types is INT64, like ``pair``)."""
        return self.binaryop.custom_dtype

    @classmethod
    def define(cls, name, monoid, binaryop, types=None):
        """The semiring ``monoid.binaryop`` for every input type where both are defined."""
        op = cls(name, monoid, binaryop)
        op.is_positional = binaryop.is_positional
        for t in types or list(binaryop._typed):
            t = lookup_dtype(t)
            if t not in binaryop._typed:
                continue
            bop = binaryop[t]
            if bop.return_type not in monoid._typed:
                continue
            op._add(TypedSemiring(op, monoid[bop.return_type], bop))
        return op

    def __call__(self, expr, *args, **kwargs):
        from ..core.operations import call_semiring

        if args or kwargs:
            raise TypeError(f"Bad types when calling {self!r}.  A semiring takes one matrix "
                            f"product expression: {self!r}(A @ B)")
        return call_semiring(self, expr)


class IndexUnaryOp(OpBase):
    opclass = "IndexUnaryOp"
    _namespace = "indexunary"

    @classmethod
    def define(cls, name, np_func, cuda, types=ALL_TYPES, return_type=None, uses_value=True,
               thunk_type=None, is_positional=False):
        """Define ``f(x, i, j, thunk)``; arguments as for :meth:`UnaryOp.define`.

        ``thunk_type`` is the type the thunk is cast to (None: the input type).
        """
        op = cls(name)
        op.is_positional = is_positional
        for t in types:
            t = lookup_dtype(t)
            op._add(TypedIndexUnaryOp(op, t, _return_type(return_type, t), _per_type(np_func, t),
                                      _per_type(cuda, t), uses_value=uses_value,
                                      thunk_type=None if thunk_type is None
                                      else lookup_dtype(thunk_type)))
        return op

    def __call__(self, val, thunk=None):
        from ..core.operations import call_indexunary

        return call_indexunary(self, val, thunk)


class SelectOp(IndexUnaryOp):
    """An index-unary operator returning BOOL, used by ``select``."""

    opclass = "SelectOp"
    _namespace = "select"

    @classmethod
    def from_indexunary(cls, op):
        sel = cls(op.name)
        sel._typed = op._typed
        sel.coercions = op.coercions
        sel.is_positional = op.is_positional
        sel.indexunaryop = op
        return sel

    def __call__(self, val, thunk=None):
        from ..core.operations import call_select

        return call_select(self, val, thunk)


def _per_type(value, dtype):
    """``value`` itself, or ``value(dtype)`` when it is a per-type factory marked as such."""
    if isinstance(value, PerType):
        return value.func(dtype)
    return value


class PerType:
    """Marks a callable that builds a per-type value (identity, NumPy function, expression)."""

    __slots__ = ("func",)

    def __init__(self, func):
        self.func = func


def find_typed_op(op, type1, type2=None, *, is_left_scalar=False, is_right_scalar=False,
                  kind=None):
    """Resolve ``op`` (untyped or typed) for operands of ``type1`` and ``type2``.

    As python-graphblas: an untyped operator takes the unified type of the operands, except
    where the operator says otherwise (``pair`` of two types is INT64).  An unsupported type
    raises KeyError naming the operator and the type.
    """
    if isinstance(op, TypedOpBase):
        return op
    if isinstance(op, str):
        op = _op_from_string(op, kind)
    elif not isinstance(op, OpBase) and kind is not None and callable(op):
        op = _builtin_op(op, kind)
    if isinstance(op, TypedOpBase):  # a string such as "plus[FP32]"
        return op
    if getattr(op, "opclass", None) == "Aggregator":
        return op.typed_for(type1) if hasattr(op, "typed_for") else op
    if not isinstance(op, OpBase):
        raise TypeError(f"Unable to get typed operator from object with type {type(op)}: "
                        f"expected a {kind or 'GraphBLAS operator'}, got {op!r}")
    if type2 is None:
        return op[type1]
    if type1 is type2 and type1._is_udt:  # before the custom result types (pair's INT64 of
        return op[type1]                    # two INT8), which are the built-in types' rules
    if (type1._is_udt or type2._is_udt) and op.is_positional:
        return op[type1]  # the value is ignored
    # Before the same-type shortcut, as python-graphblas: pair of two INT8 operands is INT64.
    custom = getattr(op, "custom_dtype", None)
    if custom is not None and not (type1._is_udt or type2._is_udt):
        typed = custom(op, type1, type2)
        if typed is not None:
            return typed
    if type1 is type2:
        return op[type1]
    if type1._is_udt or type2._is_udt:  # first(udt, INT64) and friends: no unified type
        from .udt import typed_for_udt

        typed = typed_for_udt(op, type1, type2)
        if typed is None:
            raise KeyError(f"{op.name} does not work with {type1} and {type2}")
        return typed
    return op[unify(type1, type2, is_left_scalar=is_left_scalar,
                    is_right_scalar=is_right_scalar)]


_KINDS = ("unary", "binary", "monoid", "semiring", "indexunary", "select")


def _op_from_string(string, kind):
    """``"min.plus"`` and friends, read by the namespace that ``kind`` names."""
    import importlib

    if kind == "binary|aggregator":  # python-graphblas's: a binary operator, else an aggregator
        try:
            return _op_from_string(string, "binary")
        except ValueError:
            from ..agg import from_string as agg_from_string

            try:
                return agg_from_string(string)
            except ValueError:
                raise ValueError(f"Unknown binary or aggregator string: {string!r}.  Example "
                                 "usage: '+[int]'") from None
    if kind not in _KINDS:
        raise ValueError(
            f"Unable to get op from string {string!r}.  `kind=` argument must be provided as "
            + ", ".join(f'"{k}"' for k in _KINDS) + "."
        )
    return importlib.import_module(f".{kind}", __package__).from_string(string)


def _dotted(kind, name):
    """The operator at a nested name (``"numpy.fabs"``, ``"incr.plus_three"``) of namespace
    ``kind``, or None."""
    import importlib

    target = importlib.import_module(f".{kind}", __package__)
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target if isinstance(target, OpBase) else None


def _builtin_op(func, kind):
    """Python's ``abs``, ``min`` and ``max`` stand for ``unary.abs``, ``binary.min/max``."""
    import importlib

    names = {abs: ("unary", "abs"), min: ("binary", "min"), max: ("binary", "max")}
    if func not in names:
        return func
    namespace, name = names[func]
    return getattr(importlib.import_module(f".{namespace}", __package__), name)


def parse_op_string(string, kind, symbols, lookup, example):
    """Read an operator string the way python-graphblas does.

    ``string`` is a name or symbol, optionally followed by a type in brackets (``"plus"``,
    ``"+"``, ``"plus[FP32]"``, ``"abs[int]"``); case and surrounding blanks are ignored.
    ``symbols`` maps the symbols of the namespace ``kind`` to operators and ``lookup(name)``
    returns the operator of that name or None.  Returns the untyped or typed operator.

    Raises
    ------
    ValueError
        If the string is malformed or names no operator of this kind; the message shows
        ``example``.
    """
    if not isinstance(string, str):
        raise TypeError(f"Expected a str naming a {kind} operator, got {type(string).__name__}")
    s = string.lower().strip()
    base, *dtype = s.split("[")
    if len(dtype) > 1:
        raise ValueError(f'Bad {kind} string: {string!r}.  Contains too many "[".  '
                         f"Example usage: {example!r}")
    if dtype:
        dtype = dtype[0]
        if not dtype.endswith("]"):
            raise ValueError(f'Bad {kind} string: {string!r}.  Datatype specification does not '
                             f'end with "]".  Example usage: {example!r}')
        dtype = lookup_dtype(dtype[:-1].strip())
    if "]" in base:
        raise ValueError(f'Bad {kind} string: {string!r}.  "]" not matched by "[".  '
                         f"Example usage: {example!r}")
    base = base.strip()
    op = symbols[base] if base in symbols else lookup(base)
    if op is None and "." in base and kind in _KINDS:
        op = _dotted(kind, base)
    if op is None:
        raise ValueError(f"Unknown {kind} string: {string!r}.  Example usage: {example!r}")
    return op[dtype] if dtype else op
