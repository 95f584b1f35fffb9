"""CUDA functor structs for typed operators: pure string generation, no CuPy.

Every typed operator of ``graphblast.ops`` becomes a functor struct that kernel templates take
as a parameter.  The structs need the helpers of ``kernels/operators.cuh`` (include it first,
or use :func:`operators_header`).  Names are readable, unique and deterministic:
``gb_plus_FP32`` (binary), ``gb_abs_INT8`` (unary), ``gb_tril_BOOL`` (index-unary),
``gb_plus_monoid_FP32`` (monoid), ``gb_plus_times_FP32`` (semiring); a parameterized operator
(``binary.isclose(rel_tol, abs_tol)``) adds a tag of its parameters.

The shapes of the structs, for kernel writers:

unary
    ``X``, ``Z``, ``positional``; ``Z operator()(X x, int64_t i, int64_t j)`` (row and column
    of the entry; ``j`` is 0 for a Vector) and, unless positional, ``Z operator()(X x)``.
binary
    ``X``, ``Y``, ``Z``, ``positional``;
    ``Z operator()(X x, Y y, int64_t ai, int64_t aj, int64_t bi, int64_t bj)`` where
    ``(ai, aj)`` and ``(bi, bj)`` locate the two operands' entries (``mxm``: ``A(i,k)`` and
    ``B(k,j)`` give ``(i, k, k, j)``; element-wise: ``(i, j, i, j)``) and, unless positional,
    ``Z operator()(X x, Y y)``.
monoid
    derives from its binary functor, adds ``static Z identity()``, ``static Z terminal()``
    (the identity where there is none), ``has_terminal``, ``idempotent`` and ``is_any`` (any
    value may end an ``any`` reduction).
semiring
    ``Add`` (the monoid), ``Mult`` (the binary functor), ``X``, ``Y``, ``Z``, ``positional``.
index-unary
    ``X``, ``Thunk``, ``Z``; ``Z operator()(X x, int64_t i, int64_t j, Thunk thunk)``.
"""

import hashlib
import math
import os

import numpy as np

from ...ops.base import (
    TypedBinaryOp, TypedIndexUnaryOp, TypedMonoid, TypedSemiring, TypedUnaryOp,
)

__all__ = ["functor_name", "functor_source", "catalogue_source", "operators_header",
           "header_path", "c_literal"]

_INDENT = "    "
_FN = "__device__ __forceinline__"


def header_path():
    """Path of ``operators.cuh``, for an ``-I`` option or ``#include``."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "operators.cuh")


def operators_header():
    """The text of ``operators.cuh`` (to prepend to sources compiled without include paths)."""
    with open(header_path(), encoding="utf-8") as f:
        return f.read()


def op_c_name(parent):
    """The name of an untyped operator in C identifiers: its own name for a built-in one; for
    a user-defined one (``is_udf``), a safe name with a digest of its code (``c_name``), so two
    user operators of one name never share a functor."""
    return getattr(parent, "c_name", None) or parent.name


def builtin_name(parent):
    """The operator's name where backends may dispatch on it (a built-in operator), else ""
    (a user-defined operator named "plus" is not binary.plus)."""
    return parent.builtin_name


def functor_name(op):
    """The struct name of a typed operator, e.g. ``gb_plus_times_FP32``.

    Raises
    ------
    TypeError
        If ``op`` is not a typed operator (index it by a type first: ``binary.plus["FP32"]``).
    """
    if isinstance(op, TypedMonoid):
        return f"gb_{op_c_name(op.parent)}_monoid_{op.type.name}"
    if isinstance(op, (TypedUnaryOp, TypedBinaryOp, TypedIndexUnaryOp, TypedSemiring)):
        parameters = getattr(op.parent, "parameters", None)
        if parameters is not None:
            # binary.isclose(rel_tol, abs_tol): one functor per pair of tolerances
            tag = hashlib.sha1(repr(parameters).encode()).hexdigest()[:8]
            return f"gb_{op.parent.name}_{tag}_{op.type.name}"
        return f"gb_{op_c_name(op.parent)}_{op.type.name}"
    raise TypeError(
        f"Expected a typed operator such as binary.plus['FP32'], got {type(op).__name__} "
        f"{op!r}; index an operator by a type first."
    )


def c_literal(value, dtype):
    """A C++ expression of type ``dtype.c_type`` with exactly ``value``."""
    ct = dtype.c_type
    if dtype.is_bool:
        return "true" if bool(value) else "false"
    if dtype.is_float:
        v = float(value)
        if math.isnan(v):
            return ("__int_as_float(0x7fc00000)" if dtype.name == "FP32"
                    else "__longlong_as_double(0x7ff8000000000000LL)")
        if math.isinf(v):
            sign = "-" if v < 0 else ""
            return (f"{sign}__int_as_float(0x7f800000)" if dtype.name == "FP32"
                    else f"{sign}__longlong_as_double(0x7ff0000000000000LL)")
        text = repr(v)  # shortest round-trip decimal; exact for the float32 value too
        return f"{text}f" if dtype.name == "FP32" else text
    v = int(value)
    suffix = {"int64_t": "LL", "uint64_t": "ULL", "uint32_t": "U"}.get(ct, "")
    info = np.iinfo(dtype.np_type)
    if dtype.is_signed and v == info.min:
        # -2147483648 is the negation of a literal that does not fit: write MIN as -MAX - 1.
        return f"(({ct})(-{-(v + 1)}{suffix} - 1))"
    return f"(({ct}){v}{suffix})"


def _expression(op):
    """The operator's CUDA expression; a user-defined function outside the translated subset
    has none (numba runs it on the CPU) and raises here, naming the construct."""
    if op.cuda is None:
        from ...exceptions import UdfParseError

        raise UdfParseError(getattr(op, "cuda_error", None)
                            or f"{op!r} has no CUDA expression")
    return op.cuda


def _struct(name, body):
    return "struct " + name + " {\n" + "".join(f"{_INDENT}{line}\n" for line in body) + "};\n"


def _unary_source(op):
    name = functor_name(op)
    body = [f"typedef {op.type.c_type} X;", f"typedef {op.return_type.c_type} Z;"]
    if op.position is not None:
        body += ["static constexpr bool positional = true;",
                 f"{_FN} Z operator()(X x, int64_t i, int64_t j) const "
                 f"{{ return (Z)({_expression(op)}); }}"]
    else:
        body += ["static constexpr bool positional = false;",
                 f"{_FN} Z operator()(X x) const {{ return (Z)({_expression(op)}); }}",
                 f"{_FN} Z operator()(X x, int64_t, int64_t) const {{ return (*this)(x); }}"]
    return _struct(name, body)


def _binary_source(op):
    name = functor_name(op)
    body = [f"typedef {op.type.c_type} X;", f"typedef {op.type2.c_type} Y;",
            f"typedef {op.return_type.c_type} Z;"]
    if op.position is not None:
        body += ["static constexpr bool positional = true;",
                 f"{_FN} Z operator()(X x, Y y, int64_t ai, int64_t aj, int64_t bi, "
                 f"int64_t bj) const {{ return (Z)({_expression(op)}); }}"]
    else:
        body += ["static constexpr bool positional = false;",
                 f"{_FN} Z operator()(X x, Y y) const {{ return (Z)({_expression(op)}); }}",
                 f"{_FN} Z operator()(X x, Y y, int64_t, int64_t, int64_t, int64_t) const "
                 "{ return (*this)(x, y); }"]
    return _struct(name, body)


def _indexunary_source(op):
    name = functor_name(op)
    body = [f"typedef {op.type.c_type} X;", f"typedef {op.thunk_type.c_type} Thunk;",
            f"typedef {op.return_type.c_type} Z;",
            f"{_FN} Z operator()(X x, int64_t i, int64_t j, Thunk thunk) const "
            f"{{ return (Z)({_expression(op)}); }}"]
    return _struct(name, body)


def _monoid_source(op):
    name = functor_name(op)
    z = op.return_type
    has_terminal = op.terminal is not None
    terminal = op.terminal if has_terminal else op.identity
    body = [f"static constexpr bool has_terminal = {'true' if has_terminal else 'false'};",
            f"static constexpr bool idempotent = {'true' if op.is_idempotent else 'false'};",
            f"static constexpr bool is_any = "
            f"{'true' if builtin_name(op.parent) == 'any' else 'false'};",
            f"static {_FN} Z identity() {{ return {c_literal(op.identity, z)}; }}",
            f"static {_FN} Z terminal() {{ return {c_literal(terminal, z)}; }}"]
    return ("struct " + name + " : " + functor_name(op.binaryop) + " {\n"
            + "".join(f"{_INDENT}{line}\n" for line in body) + "};\n")


def _semiring_source(op):
    name = functor_name(op)
    body = [f"typedef {functor_name(op.monoid)} Add;",
            f"typedef {functor_name(op.binaryop)} Mult;",
            "typedef Mult::X X;", "typedef Mult::Y Y;", "typedef Add::Z Z;",
            "static constexpr bool positional = Mult::positional;"]
    return _struct(name, body)


def _sources(op):
    """``[(name, source)]`` of ``op`` after the functors it depends on."""
    if isinstance(op, TypedSemiring):
        return _sources(op.monoid) + _sources(op.binaryop) + [
            (functor_name(op), _semiring_source(op))]
    if isinstance(op, TypedMonoid):
        return _sources(op.binaryop) + [(functor_name(op), _monoid_source(op))]
    if isinstance(op, TypedBinaryOp):
        return [(functor_name(op), _binary_source(op))]
    if isinstance(op, TypedUnaryOp):
        return [(functor_name(op), _unary_source(op))]
    if isinstance(op, TypedIndexUnaryOp):
        return [(functor_name(op), _indexunary_source(op))]
    functor_name(op)  # raises the TypeError for anything else
    raise AssertionError("unreachable")


def _join(pairs, seen=None):
    seen = {} if seen is None else seen
    out = []
    for name, src in pairs:
        if name in seen:
            if seen[name] != src:
                raise ValueError(f"Two different functors would be named {name}")
            continue
        seen[name] = src
        out.append(src)
    return out


def functor_source(op):
    """The C++ source of the functor struct of ``op``, preceded by the functors it uses (a
    semiring's monoid and multiplier, a monoid's binary operator), each once."""
    return "\n".join(_join(_sources(op)))


def catalogue_typed_ops():
    """Every distinct typed operator of the catalogue, in a fixed order."""
    from ...ops import binary, indexunary, monoid, select, semiring, unary

    found = {}
    for module in (unary, binary, indexunary, select, monoid, semiring):
        for name in module.__all__:
            for typed in getattr(module, name)._typed.values():
                found.setdefault(id(typed), typed)
    return list(found.values())


def catalogue_source(include_header=True):
    """One translation unit with every typed operator of the catalogue as a functor.

    With ``include_header`` (the default) the text of ``operators.cuh`` comes first, so the
    result compiles on its own under nvcc or NVRTC.
    """
    seen = {}
    parts = []
    for typed in catalogue_typed_ops():
        parts += _join(_sources(typed), seen)
    body = "\n".join(parts)
    if include_header:
        return operators_header() + "\n" + body
    return body
