"""Registration of user-defined operators, as python-graphblas: ``unary.register_new(name,
func)``, ``unary.register_anonymous(func, name=None)``, the same for ``binary``,
``indexunary`` and ``select``, and ``monoid``/``semiring`` built from operators.

A user's operator is an ordinary operator of this package (``unary.plus_one["INT8"]`` is a
typed operator like ``unary.abs["INT8"]``): each typed variant carries the CUDA expression and
the NumPy function that :mod:`graphblast.ops.udf` translates from the function, so the
backends run it exactly like a built-in one.  It is typed for every GraphBLAS type where the
function is defined, with python-graphblas's return types.  A function outside the translated
subset runs on the CPU with numba (where installed): its typed variants then have no CUDA
expression, and using one on the GPU raises :class:`UdfParseError` naming the construct.

Parameterized operators (``parameterized=True``: ``func(*params)`` returns the function) are
made once per tuple of parameters, as in python-graphblas.
"""

import hashlib
import importlib
import inspect
import re
import weakref
from collections.abc import Mapping

import numpy as np

from ..dtypes import BOOL, UINT64, lookup_dtype
from ..exceptions import DomainMismatch, UdfParseError
from . import udf
from .udf import _check_function
from .base import (
    BinaryOp, IndexUnaryOp, Monoid, OpBase, Semiring, SelectOp, TypedBinaryOp, TypedIndexUnaryOp,
    TypedMonoid, TypedSemiring, TypedUnaryOp, UnaryOp,
)

__all__ = ["register_new", "register_anonymous", "OpPath"]


# -- typed variants ---------------------------------------------------------------------------

class _UserTyped:
    """What user-defined typed operators add: the function, numba's compiled function, and why
    there is no CUDA expression (``cuda_error``) where the function is outside the subset."""

    __slots__ = ()

    @property
    def orig_func(self):
        return self.parent.orig_func

    @property
    def _numba_func(self):
        return self.parent._numba_func


class TypedUserUnaryOp(_UserTyped, TypedUnaryOp):
    __slots__ = ("cuda_error",)


class TypedUserBinaryOp(_UserTyped, TypedBinaryOp):
    __slots__ = ("cuda_error",)


class TypedUserIndexUnaryOp(_UserTyped, TypedIndexUnaryOp):
    __slots__ = ("cuda_error",)


# -- untyped operators --------------------------------------------------------------------------

class _UserOp:
    """Mixin of the user-defined operator classes."""

    is_udf = True
    _anonymous = False
    orig_func = None
    c_name = None

    @property
    def _numba_func(self):
        """numba's dispatcher of the function (one per function: a select operator shares
        its index-unary operator's), or None without numba."""
        owner = self.__dict__.get("indexunaryop", self)
        numba = _numba()
        if numba is None or owner.orig_func is None:
            return None
        cached = owner.__dict__.get("_njit")
        if cached is None:
            cached = owner.__dict__["_njit"] = numba.njit(owner.orig_func)
        return cached

    def __delitem__(self, type_):
        type_ = lookup_dtype(type_)
        del self._typed[type_]
        self.coercions.pop(type_, None)

    def __reduce__(self):
        """Pickled by what made it: the function (by reference, as pickle does), the monoid's
        identities, a parameterized operator and its parameters; a registered operator is
        found again by its name."""
        made = self.__dict__.get("_parameterized")
        if made is not None:
            return (_call, made)
        kind = self._namespace
        if kind == "monoid":
            args = (self.binaryop, {t.name: m.identity for t, m in self._typed.items()},
                    self.is_idempotent)
        elif kind == "semiring":
            args = (self.monoid, self.binaryop)
        else:
            args = (self.orig_func,)
        return (_restore, (kind, self.name, args, self._anonymous))


def _user_class(base):
    return type(f"User{base.__name__}", (_UserOp, base), {})


UserUnaryOp = _user_class(UnaryOp)
UserBinaryOp = _user_class(BinaryOp)
UserIndexUnaryOp = _user_class(IndexUnaryOp)
UserMonoid = _user_class(Monoid)
UserSemiring = _user_class(Semiring)
UserSelectOp = _user_class(SelectOp)


def _c_name(name, *parts):
    """A C identifier for the functors and kernels of a user's operator: its name made safe,
    and a digest of what its code depends on (two operators of one name stay apart)."""
    safe = re.sub(r"\W", "_", name)[:40] or "op"
    digest = hashlib.sha1(repr(parts).encode()).hexdigest()[:10]
    return f"udf_{safe}_{digest}"


def _numba():
    try:
        import numba
    except ImportError:
        return None
    return numba


# -- building the typed variants ---------------------------------------------------------------

_KINDS = {
    # kind: (argument names in the functor, typed class, argument types for an input type)
    "unary": (("x",), TypedUserUnaryOp, lambda t: (t,)),
    "binary": (("x", "y"), TypedUserBinaryOp, lambda t: (t, t)),
    "indexunary": (("x", "((uint64_t)i)", "((uint64_t)j)", "thunk"), TypedUserIndexUnaryOp,
                   lambda t: (t, UINT64, UINT64, t)),
}


def _fill(op, func, kind, is_udt=False):
    """Add ``op``'s typed variants: translated where the function is in the subset, else
    compiled by numba (CPU only).  ``is_udt``: a function meant for user-defined types may have
    no built-in type (its variants for a user-defined type are made on first use)."""
    names, typed_cls, argtypes_of = _KINDS[kind]
    _check_function(func)
    try:
        translations = {t: udf.translate(func, argtypes_of(t), names) for t in udf.TYPE_ORDER}
    except UdfParseError as exc:
        try:
            return _fill_numba(op, func, kind, str(exc))
        except UdfParseError:
            if not is_udt:
                raise
            op.c_name = _c_name(op.name, kind, id(func))
            return op
    earlier = {}
    for t in udf.TYPE_ORDER:
        tr = translations[t]
        if tr is None:
            continue
        ret = earlier[t] = udf.infer_return_type(tr.type, t, earlier)
        typed = _make_typed(typed_cls, op, t, ret, tr.np_func, tr.cuda, kind)
        typed.cuda_error = None
        op._add(typed)
    if not op._typed:
        raise UdfParseError(f"The user-defined function {func.__name__!r} is not defined for "
                            "any GraphBLAS type")
    op.c_name = _c_name(op.name, kind, sorted((t.name, o.return_type.name, o.cuda)
                                              for t, o in op._typed.items()))
    return op


def _make_typed(typed_cls, op, t, ret, np_func, cuda, kind):
    if kind == "indexunary":
        return typed_cls(op, t, ret, np_func, cuda, uses_value=True, thunk_type=t)
    return typed_cls(op, t, ret, np_func, cuda)


def _fill_numba(op, func, kind, reason):
    numba = _numba()
    if numba is None:
        raise UdfParseError(reason)
    names, typed_cls, argtypes_of = _KINDS[kind]
    njit = op._numba_func
    earlier = {}
    for t in udf.TYPE_ORDER:
        sig = tuple(_nb_type(numba, a) for a in argtypes_of(t))
        try:
            njit.compile(sig)
            static = lookup_dtype(numba.np.numpy_support.as_dtype(
                njit.overloads[sig].signature.return_type))
        except Exception:  # numba's typing errors, or a result that is not a number
            continue
        ret = earlier[t] = udf.infer_return_type(static, t, earlier)
        np_func = _NumbaUfunc(njit, argtypes_of(t), static)
        typed = _make_typed(typed_cls, op, t, ret, np_func, None, kind)
        typed.cuda_error = reason
        op._add(typed)
    if not op._typed:
        raise UdfParseError("Unable to parse function using Numba")
    op.c_name = _c_name(op.name, kind, id(func))
    return op


def _nb_type(numba, t):
    return numba.from_dtype(t.np_type)


class _NumbaUfunc:
    """A numba-compiled function applied elementwise (a NumPy ufunc made on first use)."""

    def __init__(self, njit, argtypes, static):
        self.njit = njit
        self.argtypes = argtypes
        self.static = static
        self.ufunc = None

    def __call__(self, *args):
        if self.ufunc is None:
            import numba

            sig = _nb_type(numba, self.static)(*(_nb_type(numba, t) for t in self.argtypes))
            self.ufunc = numba.vectorize([sig])(self.njit.py_func)
        args = [np.asarray(a).astype(t.np_type, copy=False) for a, t in zip(args, self.argtypes)]
        return self.ufunc(*args)


def _find(kind, name):
    target = _module(kind)
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


def _restore(kind, name, args, anonymous):
    """Unpickle a user operator: the registered one of that name, else made again."""
    if not anonymous:
        found = _find(kind, name)
        if found is not None:
            return found
    if kind == "monoid":
        return register_monoid(name, *args[:2], is_idempotent=args[2], anonymous=anonymous)
    if kind == "semiring":
        return register_semiring(name, *args, anonymous=anonymous)
    if anonymous:
        return register_anonymous(kind, args[0], name)
    return register_new(kind, name, args[0])


def _call(parameterized, args, kwargs):
    return parameterized(*args, **dict(kwargs))


def _restore_parameterized(cls, state, name, anonymous, is_idempotent=False):
    if not anonymous:
        found = _find(state[0] if cls is ParameterizedUdf else cls.kind_name, name)
        if found is not None:
            return found
    if cls is ParameterizedMonoid:
        return cls(*state, is_idempotent=is_idempotent, anonymous=anonymous)
    return cls(*state, anonymous=anonymous)


# -- the namespaces -----------------------------------------------------------------------------

class OpPath:
    """A folder of a nested operator name (``unary.register_new("incr.plus_three", f)``
    makes ``unary.incr``, whose ``plus_three`` is the operator)."""

    def __init__(self, parent, name):
        self._parent = parent
        self._name = name
        self._delayed = {}

    def __getattr__(self, key):
        delayed = self.__dict__.get("_delayed", {})
        if key in delayed:
            func, kwargs = delayed.pop(key)
            value = func(**kwargs)
            if key not in self.__dict__:
                setattr(self, key, value)
            return value
        raise AttributeError(f"{self._name} has no attribute {key!r}")

    def __repr__(self):
        return f"OpPath({self._name!r})"


def _module(kind):
    return importlib.import_module(f"graphblast.ops.{kind}")


def _has(namespace, name):
    return name in vars(namespace) or name in _delayed_of(namespace)


def _delayed_of(namespace):
    if isinstance(namespace, OpPath):
        return namespace._delayed
    if inspect.ismodule(namespace):
        return _DELAYED.setdefault(namespace.__name__, {})
    return {}


_DELAYED = {}


def _install_getattr(module):
    """Give a module a ``__getattr__`` that builds its lazily registered operators."""
    previous = vars(module).get("__getattr__")
    if getattr(previous, "_udf_lazy", False):
        return

    def __getattr__(name):
        delayed = _DELAYED.get(module.__name__, {})
        if name in delayed:
            func, kwargs = delayed.pop(name)
            value = func(**kwargs)
            if name not in vars(module):  # (from_kind: the operator lives in its namespace)
                setattr(module, name, value)
            return value
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

    previous_dir = vars(module).get("__dir__")

    def __dir__():
        names = set(vars(module)) | set(_DELAYED.get(module.__name__, {}))
        return names | set(previous_dir()) if previous_dir is not None else names

    __getattr__._udf_lazy = True
    module.__getattr__ = __getattr__
    module.__dir__ = __dir__


def _folder(kind, name, *, strict=True, root=None):
    """(the namespace that receives the last part of ``name``, that part)."""
    namespace = _module(kind) if root is None else root
    label = kind if root is None else "op"
    *path, leaf = name.split(".")
    for part in path:
        if not _has(namespace, part):
            setattr(namespace, part, OpPath(namespace, part))
        namespace = getattr(namespace, part)
        label = f"{label}.{part}"
        if isinstance(namespace, (OpBase, ParameterizedUdf)) or callable(namespace):
            raise AttributeError(f"{label} is already defined. Cannot use as a nested path.")
    if strict and _has(namespace, leaf):
        raise AttributeError(f"{label}.{leaf} is already defined")
    return namespace, leaf


# the kinds whose operators python-graphblas's ``op`` namespace holds too
_OP_KINDS = ("unary", "binary", "monoid", "semiring")


def _place(kind, name, obj):
    namespace, leaf = _folder(kind, name)
    setattr(namespace, leaf, obj)
    if kind not in _OP_KINDS:
        return
    ops = importlib.import_module("graphblast.ops")
    namespace, leaf = _folder(kind, name, strict=False, root=ops)
    if not _has(namespace, leaf):
        setattr(namespace, leaf, obj)


def _delay(kind, name, builder, kwargs):
    """Register ``builder(**kwargs)`` to run when ``<kind>.<name>`` is first looked up (and
    ``op.<name>``, where that name is free).  A namespace that cannot look names up lazily
    (another library's) gets the operator built now."""
    namespace, leaf = _folder(kind, name)
    if not _lazy_capable(namespace):
        builder(**kwargs)
        return
    _delayed_of(namespace)[leaf] = (builder, kwargs)
    if kind not in _OP_KINDS:
        return
    ops = importlib.import_module("graphblast.ops")
    namespace, leaf = _folder(kind, name, strict=False, root=ops)
    if _lazy_capable(namespace) and not _has(namespace, leaf):
        def from_kind():
            target = _module(kind)
            for part in name.split("."):
                target = getattr(target, part)
            return target
        _delayed_of(namespace)[leaf] = (from_kind, {})


def _lazy_capable(namespace):
    if inspect.ismodule(namespace):
        _install_getattr(namespace)
        return True
    return isinstance(namespace, OpPath)


# -- operators from functions -------------------------------------------------------------------

_CLASSES = {"unary": UserUnaryOp, "binary": UserBinaryOp, "indexunary": UserIndexUnaryOp}


def _build(kind, name, func, anonymous, is_udt=False):
    _check_function(func)
    if name is None:
        name = getattr(func, "__name__", f"<anonymous_{kind}>")
    if kind == "select":
        op = _build("indexunary", name, func, anonymous, is_udt)
        return _as_select(op)
    op = _CLASSES[kind](name)
    op.orig_func = func
    op._anonymous = anonymous
    return _fill(op, func, kind, is_udt)


def _as_select(op):
    if any(typed.return_type is not BOOL for typed in op._typed.values()):
        raise ValueError("SelectOp must have BOOL return type")
    sel = UserSelectOp(op.name)
    sel._typed = op._typed
    sel.coercions = op.coercions
    sel.indexunaryop = op
    sel.orig_func = op.orig_func
    sel._anonymous = op._anonymous
    sel.c_name = op.c_name
    return sel


def register_anonymous(kind, func, name=None, *, parameterized=False, is_udt=False):
    """An operator of ``kind`` ("unary", "binary", "indexunary", "select") from ``func``,
    not placed in the namespace; ``name`` defaults to the function's name.

    ``is_udt``: the function is meant for user-defined types too, so it may fit no built-in
    type (numba types it for a user-defined type on first use, ops/udt.py).

    Raises
    ------
    TypeError
        If ``func`` is not a function.
    UdfParseError
        If the function can run on no device for any type (see :mod:`graphblast.ops.udf`).
    ValueError
        For a select operator whose function does not return a bool.
    """
    if parameterized:
        return ParameterizedUdf(kind, name, func, anonymous=True)
    return _build(kind, name, func, anonymous=True, is_udt=is_udt)


def register_new(kind, name, func, *, parameterized=False, is_udt=False, lazy=False):
    """An operator of ``kind`` from ``func``, placed in the namespace as ``<kind>.<name>``
    (a name with periods makes nested folders); also in ``graphblast.op`` if free there.
    With ``lazy`` it is built on first access and None is returned.

    Raises
    ------
    AttributeError
        If the name is already defined in that namespace.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name)}")
    if lazy:
        if kind == "select":
            # python-graphblas: the index-unary operator is registered (lazily) too, and kept
            # even when the select operator fails (a function that does not return a bool)
            if not _has(_module("indexunary"), name.rsplit(".", 1)[-1]):
                register_new("indexunary", name, func, parameterized=parameterized, lazy=True)

            def build(name, func, parameterized):
                if parameterized:
                    sel = ParameterizedUdf("select", name, func)
                else:
                    iu = _module("indexunary")
                    for part in name.split("."):
                        iu = getattr(iu, part)
                    sel = _as_select(iu)
                setattr(*_folder("select", name, strict=False), sel)
                return sel
        else:
            def build(name, func, parameterized):
                return register_new(kind, name, func, parameterized=parameterized)
        _delay(kind, name, build, {"name": name, "func": func, "parameterized": parameterized})
        return None
    if kind == "select":  # python-graphblas places the index-unary operator too
        if parameterized:
            iu = ParameterizedUdf("indexunary", name, func)
            op = ParameterizedUdf("select", name, func)
        else:
            iu = _build("indexunary", name, func, anonymous=False)
            op = _as_select(iu)
        if not _has(_folder("indexunary", name, strict=False)[0], name.rsplit(".", 1)[-1]):
            _place("indexunary", name, iu)
    elif parameterized:
        op = ParameterizedUdf(kind, name, func)
    else:
        op = _build(kind, name, func, anonymous=False, is_udt=is_udt)
    _place(kind, name, op)
    return op


_BY_FUNCTION = weakref.WeakKeyDictionary()  # function -> {kind: anonymous operator}
_KIND_OF_ARITY = {1: "unary", 2: "binary", 4: "indexunary"}


def from_function(func, kind=None):
    """The anonymous operator of a plain function passed where an operator is expected
    (``v.apply(lambda x: x + 1)``), as python-graphblas: of ``kind``, or by the function's
    number of arguments (1: unary, 2: binary, 4: index-unary); made once per function."""
    if kind is None:
        kind = _KIND_OF_ARITY.get(func.__code__.co_argcount)
        if kind is None:
            raise TypeError(f"A function of {func.__code__.co_argcount} arguments is no "
                            "operator: unary operators take 1, binary 2, index-unary 4")
    made = _BY_FUNCTION.setdefault(func, {})
    if kind not in made:
        made[kind] = register_anonymous(kind, func)
    return made[kind]


# -- monoids and semirings ---------------------------------------------------------------------

def _lookup(kind, value):
    if isinstance(value, str):
        namespace = _module(kind)
        for part in value.split("."):
            namespace = getattr(namespace, part)
        return namespace
    return value


def _build_monoid(name, binaryop, identity, is_idempotent, anonymous):
    if isinstance(binaryop, ParameterizedUdf) and binaryop.kind == "binary":
        return ParameterizedMonoid(name, binaryop, identity, is_idempotent=is_idempotent,
                                   anonymous=anonymous)
    if not isinstance(binaryop, BinaryOp) or isinstance(binaryop, Monoid):
        raise TypeError(f"binaryop must be a BinaryOp, not {type(binaryop)}")
    if name is None:
        name = binaryop.name
    op = UserMonoid(name, binaryop, is_idempotent=is_idempotent)
    op._anonymous = anonymous
    op._identity_spec = identity  # for the user-defined types it is typed for on first use
    if isinstance(identity, Mapping):
        identities = {lookup_dtype(k): v for k, v in identity.items()}
        explicit = True
    else:
        identities = dict.fromkeys(binaryop._typed, identity)
        explicit = False
    for t, ident in identities.items():
        bop = binaryop[t]
        if not explicit and np.ndim(ident) != 0 and not t._is_udt:
            continue  # a record's identity ((0, 0)): for user-defined types only
        if bop.return_type is not t or bop.type is not t:
            if explicit:
                raise DomainMismatch(
                    f"The monoid's binary operator {binaryop.name}[{t}] returns "
                    f"{bop.return_type}; a monoid needs the same type in and out")
            continue
        op._add(TypedMonoid(op, bop, _typed_value(ident, t), None, None))
    if binaryop.monoid is None:
        binaryop.monoid = op
    op.c_name = _c_name(name, "monoid", _op_c_name(binaryop), is_idempotent,
                        sorted((t.name, repr(m.identity)) for t, m in op._typed.items()))
    return op


def _typed_value(value, t):
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(t.np_type)[()]


def _op_c_name(op):
    return getattr(op, "c_name", None) or op.name


def register_monoid(name, binaryop, identity, *, is_idempotent=False, lazy=False,
                    anonymous=False):
    """``monoid.register_new`` / ``register_anonymous``: a monoid of ``binaryop`` (a BinaryOp
    or its name) with ``identity`` (a value, a mapping of type to value, or for a
    parameterized operator a function of the same parameters), for every type where the
    operator's result has its input's type.

    Raises
    ------
    TypeError
        If ``binaryop`` is not a BinaryOp.
    DomainMismatch
        If an explicitly typed identity's type is not the operator's result type.
    """
    if lazy and not anonymous:
        def build(name, binaryop, identity):
            return register_monoid(name, binaryop, identity, is_idempotent=is_idempotent)
        _delay("monoid", name, build, {"name": name, "binaryop": binaryop, "identity": identity})
        return None
    binaryop = _lookup("binary", binaryop)
    op = _build_monoid(name, binaryop, identity, is_idempotent, anonymous)
    if not anonymous:
        _place("monoid", name, op)
    return op


def register_semiring(name, monoid, binaryop, *, lazy=False, anonymous=False):
    """``semiring.register_new`` / ``register_anonymous``: the semiring of ``monoid`` over
    ``binaryop``, typed for each input type of the operator whose result type the monoid has.

    Raises
    ------
    TypeError
        If ``monoid`` is not a Monoid or ``binaryop`` not a BinaryOp.
    """
    if lazy and not anonymous:
        def build(name, monoid, binaryop):
            return register_semiring(name, monoid, binaryop)
        _delay("semiring", name, build, {"name": name, "monoid": monoid, "binaryop": binaryop})
        return None
    monoid = _lookup("monoid", monoid)
    binaryop = _lookup("binary", binaryop)
    if isinstance(monoid, (ParameterizedUdf, ParameterizedMonoid)) or \
            isinstance(binaryop, ParameterizedUdf):
        op = ParameterizedSemiring(name, monoid, binaryop, anonymous=anonymous)
    else:
        op = _build_semiring(name, monoid, binaryop, anonymous)
    if not anonymous:
        _place("semiring", name, op)
    return op


def _build_semiring(name, monoid, binaryop, anonymous):
    if not isinstance(monoid, Monoid):
        raise TypeError(f"monoid must be a Monoid, not {type(monoid)}")
    if not isinstance(binaryop, BinaryOp) or isinstance(binaryop, Monoid):
        raise TypeError(f"binaryop must be a BinaryOp, not {type(binaryop)}")
    if name is None:
        name = f"{monoid.name}_{binaryop.name}".replace(".", "_")
    op = UserSemiring(name, monoid, binaryop)
    op._anonymous = anonymous
    op.is_positional = binaryop.is_positional
    for t, bop in binaryop._typed.items():
        out = bop.return_type
        if out not in monoid._typed or monoid.coercions.get(out, out) is not out:
            continue
        op._add(TypedSemiring(op, monoid[out], bop))
    op.c_name = _c_name(name, "semiring", _op_c_name(monoid), _op_c_name(binaryop))
    return op


# -- parameterized operators ---------------------------------------------------------------------

class ParameterizedUdf:
    """An operator made from ``func(*params)`` for each tuple of parameters (cached); used
    without parameters it is the operator of the defaults (also an instance of the kind's
    operator class, so that every operation takes it)."""

    is_udf = True
    is_positional = False
    is_parameterized = True

    def __new__(cls, kind, *args, **kwargs):
        if cls is ParameterizedUdf:
            cls = _PARAMETERIZED[kind]
        return object.__new__(cls)

    def __getattr__(self, name):
        # what the kind's operator class would have (coercions, is_commutative, ...): the
        # default operator's
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self(), name)

    def __init__(self, kind, name, func, *, anonymous=False):
        _check_function(func)
        self.kind = kind
        self.func = func
        self.name = name if name is not None else getattr(func, "__name__", kind)
        self._anonymous = anonymous
        self.__signature__ = inspect.signature(func)
        self.monoid = None  # a ParameterizedMonoid built on this binary operator
        self._made = {}

    def __reduce__(self):
        return (_restore_parameterized, (ParameterizedUdf, (self.kind, self.name, self.func),
                                         self.name, self._anonymous))

    def _make(self, key, *args, **kwargs):
        inner = self.func(*args, **kwargs)
        op = self._made[key] = _build(self.kind, self.name, inner, anonymous=True)
        op._parameterized = (self, args, key[1])
        if self.monoid is not None and self.kind == "binary":
            self.monoid._made_on(op, key, args, kwargs)
        return op

    def __call__(self, *args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        found = self._made.get(key)
        return found if found is not None else self._make(key, *args, **kwargs)

    def __getitem__(self, type_):
        return self()[type_]

    def __contains__(self, type_):
        return type_ in self()

    @property
    def _typed(self):
        return self()._typed

    def _default(self):
        """The operator of the default parameters, or None where a parameter has none."""
        try:
            inspect.signature(self.func if self.kind != "monoid" else self.binaryop.func).bind()
        except TypeError:
            return None
        return self()

    @property
    def types(self):
        """The default operator's types; none where a parameter has no default (the types
        then come with the parameters: ``op(2).types``)."""
        default = self._default()
        return {} if default is None else default.types

    @property
    def orig_func(self):
        return self.func

    def __repr__(self):
        return f"{self.kind}.{self.name}"


def _check_signatures(first, second):
    if first.__signature__ != second.__signature__:
        raise ValueError("Signatures of binaryop and identity passed to Monoid must be the same."
                         f"  Got {first.__signature__} and {second.__signature__}")


_PARAMETERIZED = {
    kind: type(f"Parameterized{base.__name__}", (ParameterizedUdf, base), {})
    for kind, base in (("unary", UnaryOp), ("binary", BinaryOp), ("indexunary", IndexUnaryOp),
                       ("select", SelectOp))
}


class ParameterizedMonoid(ParameterizedUdf, OpBase):
    """A monoid of a parameterized binary operator (not itself a Monoid, as in
    python-graphblas: ``pm(2)`` is one; used as an operator, the default parameters' is)."""

    kind_name = "monoid"
    opclass = "Monoid"
    _namespace = "monoid"

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __reduce__(self):
        return (_restore_parameterized, (ParameterizedMonoid, (
            self.name, self.binaryop, self.identity), self.name, self._anonymous,
            self.is_idempotent))

    def __init__(self, name, binaryop, identity, *, is_idempotent=False, anonymous=False):
        if not isinstance(binaryop, ParameterizedUdf) or binaryop.kind != "binary":
            raise TypeError("binaryop must be parameterized")
        self.binaryop = binaryop
        self.identity = identity
        self.is_idempotent = is_idempotent
        self.kind = "monoid"
        self.name = name if name is not None else binaryop.name
        self._anonymous = anonymous
        self.is_udf = True
        self.monoid = None
        if callable(identity):
            self.__signature__ = inspect.signature(identity)
            _check_signatures(binaryop, self)
        else:
            self.__signature__ = binaryop.__signature__
        self._made = {}
        if binaryop.monoid is None:
            binaryop.monoid = self
            # operators made from now on come with their monoid (those made before keep none,
            # as in python-graphblas)
            binaryop._made.clear()

    @property
    def identities(self):
        default = self._default()
        return {} if default is None else default.identities

    def _made_on(self, bop, key, args, kwargs):
        """Build (once) the monoid of ``bop``, the binary operator just made for ``key``; an
        identity function that raises leaves ``bop`` without a monoid."""
        if key in self._made:
            return
        try:
            identity = self.identity(*args, **kwargs) if callable(self.identity) \
                else self.identity
        except Exception:  # the user's identity function: bop is then no monoid's
            return
        self._made[key] = _build_monoid(self.name, bop, identity, self.is_idempotent, True)
        self._made[key]._parameterized = (self, args, key[1])

    def _make(self, key, *args, **kwargs):
        bop = self.binaryop(*args, **kwargs)
        if key not in self._made:
            self._made_on(bop, key, args, kwargs)
        if key not in self._made:
            identity = self.identity(*args, **kwargs)  # raises the identity's error
            self._made[key] = _build_monoid(self.name, bop, identity, self.is_idempotent, True)
            self._made[key]._parameterized = (self, args, key[1])
        return self._made[key]


class ParameterizedSemiring(ParameterizedUdf, Semiring):
    kind_name = "semiring"

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __reduce__(self):
        return (_restore_parameterized, (ParameterizedSemiring, (
            self.name, self.monoid, self.binaryop), self.name, self._anonymous))

    def __init__(self, name, monoid, binaryop, *, anonymous=False):
        pm = isinstance(monoid, ParameterizedUdf)
        pb = isinstance(binaryop, ParameterizedUdf)
        if not (isinstance(monoid, Monoid) or (pm and monoid.kind == "monoid")):
            raise TypeError(f"monoid must be of type Monoid or ParameterizedMonoid, not "
                            f"{type(monoid)}")
        if not (isinstance(binaryop, BinaryOp) and not isinstance(binaryop, Monoid)) and \
                not (pb and binaryop.kind == "binary"):
            raise TypeError(f"binaryop must be of type BinaryOp or ParameterizedBinaryOp, not "
                            f"{type(binaryop)}")
        if not pm and not pb:
            raise TypeError("At least one of monoid or binaryop must be parameterized")
        if pm and pb and monoid.__signature__ != binaryop.__signature__:
            raise ValueError("Signatures of monoid and binaryop passed to Semiring must be the "
                             "same.")
        self.monoid = monoid
        self.binaryop = binaryop
        self.kind = "semiring"
        self.name = name if name is not None else \
            f"{monoid.name}_{binaryop.name}".replace(".", "_")
        self._anonymous = anonymous
        self.__signature__ = (monoid if pm else binaryop).__signature__
        self._made = {}

    def _make(self, key, *args, **kwargs):
        m = self.monoid(*args, **kwargs) if isinstance(self.monoid, ParameterizedUdf) \
            else self.monoid
        b = self.binaryop(*args, **kwargs) if isinstance(self.binaryop, ParameterizedUdf) \
            else self.binaryop
        op = self._made[key] = _build_semiring(self.name, m, b, True)
        op._parameterized = (self, args, key[1])
        return op


# -- the namespaces' functions -------------------------------------------------------------------

def namespace_functions(kind):
    """``register_new`` and ``register_anonymous`` of the namespace ``kind``."""
    if kind == "monoid":
        def register_new(name, binaryop, identity, *, is_idempotent=False, lazy=False):
            return register_monoid(name, binaryop, identity, is_idempotent=is_idempotent,
                                   lazy=lazy)

        def register_anonymous(binaryop, identity, name=None, *, is_idempotent=False):
            return register_monoid(name, binaryop, identity, is_idempotent=is_idempotent,
                                   anonymous=True)
    elif kind == "semiring":
        def register_new(name, monoid, binaryop, *, lazy=False):
            return register_semiring(name, monoid, binaryop, lazy=lazy)

        def register_anonymous(monoid, binaryop, name=None):
            return register_semiring(name, monoid, binaryop, anonymous=True)
    else:
        def register_new(name, func, *, parameterized=False, is_udt=False, lazy=False):
            return globals()["register_new"](kind, name, func, parameterized=parameterized,
                                             is_udt=is_udt, lazy=lazy)

        def register_anonymous(func, name=None, *, parameterized=False, is_udt=False):
            return globals()["register_anonymous"](kind, func, name,
                                                   parameterized=parameterized, is_udt=is_udt)
    register_new.__doc__ = (f"Register a user-defined {kind} operator as ``{kind}.<name>`` "
                            "(python-graphblas's ``register_new``); see "
                            "graphblast.ops.user and the user guide.")
    register_anonymous.__doc__ = (f"A user-defined {kind} operator, not placed in the "
                                  "namespace (python-graphblas's ``register_anonymous``).")
    return register_new, register_anonymous
