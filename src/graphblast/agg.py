"""Aggregators: reductions beyond a monoid, for ``reduce_rowwise``, ``reduce_columnwise``,
``reduce_scalar`` and ``Vector.reduce`` (python-graphblas's ``graphblas.agg``).

    A.reduce_rowwise(agg.count).new()      # entries per row (INT64)
    v.reduce(agg.mean).new()               # a Scalar
    agg.stds(A, columnwise=True)           # calling an aggregator is calling reduce

Each is a recipe of graphblast operations, so it runs on every device:

- monoid-only: ``sum``, ``prod``, ``all``, ``any``, ``min``, ``max``, ``any_value``,
  ``bitwise_all``, ``bitwise_any``: the reduction with that monoid;
- a semiring with a constant: ``count``, ``count_nonzero``, ``count_zero``, ``sum_of_squares``,
  ``sum_of_inverses``, ``exists``, ``hypot`` (``L2norm``), ``logaddexp``, ``logaddexp2``,
  ``L1norm``, ``Linfnorm``, ``L0norm`` (``count_nonzero``): each entry ``x`` becomes
  ``mult(x, c)`` (or ``mult(c, x)``), those are reduced with the semiring's monoid, and a
  unary operator may finish (``hypot`` is ``sqrt`` of the sum of ``x ** 2``);
- composites of those: ``mean``, ``peak_to_peak``, ``varp``, ``vars``, ``stdp``, ``stds``,
  ``geometric_mean``, ``harmonic_mean``, ``root_mean_square``;
- positional: ``first``, ``last``, ``first_index``, ``last_index``, ``argmin``, ``argmax``
  (python-graphblas has them under ``agg.ss``; the ``*_index`` and ``arg*`` ones give no
  Matrix-to-Scalar reduction).

``Aggregator(name, monoid=..., semiring=..., composite=..., finalize=...)`` makes new ones with
python-graphblas's arguments: a composite's ``finalize(*results, opts)`` receives the
component results (Vectors; of size 1 when reducing to a Scalar) and returns an expression.
The types follow python-graphblas: ``agg.sum[INT8]`` reduces in INT8, the counts give INT64
whatever the input, the means FP64.
"""

from types import SimpleNamespace

import numpy as np

from .dtypes import BOOL, INT64, lookup_dtype
from .ops import binary, indexunary, monoid, semiring, unary
from .ops.base import find_typed_op

_POSITIONAL = {"argmin", "argmax", "first_index", "last_index"}


def _types(ops, initdtype):
    """Input type -> output type of a chain of operators (python-graphblas's rule)."""
    first = ops[0]
    if isinstance(first, Aggregator):
        prev = dict(first.types)
    elif initdtype is None:
        prev = dict(first.types)
    else:
        prev = {t: find_typed_op(first, t, initdtype).return_type for t in first.types}
    for op in ops[1:]:
        types = op.types
        prev = {t: types[out] for t, out in prev.items() if out in types}
    return prev


class Aggregator:
    """A named reduction recipe; index by a type (``agg.sum[FP32]``) for a typed one."""

    opclass = "Aggregator"

    def __init__(self, name, *, initval=None, monoid=None, semiring=None, switch=False,
                 semiring2=None, applybegin=None, finalize=None, composite=None, custom=None,
                 types=None, any_dtype=None):
        self.name = name
        self._initval = False if initval is None else initval
        self._initdtype = None if initval is None else lookup_dtype(type(self._initval))
        self._monoid = monoid
        self._semiring = semiring
        self._semiring2 = semiring2
        self._switch = switch
        self._applybegin = applybegin
        self._finalize = finalize
        self._composite = composite
        self._custom = custom
        if types is None:
            if monoid is not None:
                types = [monoid]
            elif semiring is not None:
                types = [semiring, semiring2] + ([finalize] if finalize is not None else [])
            else:
                raise TypeError("types must be given for composite and custom aggregators")
        self._types_of = types
        self._types = None
        self._typed = {}
        self._any_dtype = any_dtype

    @property
    def types(self):
        """Input type -> result type."""
        if self._types is None:
            self._types = _types(self._types_of, self._initdtype)
        return self._types

    def __getitem__(self, dtype):
        dtype = lookup_dtype(dtype)
        if not self._any_dtype and dtype not in self.types:
            raise KeyError(f"{self.name} does not work with {dtype}")
        if dtype not in self._typed:
            self._typed[dtype] = TypedAggregator(self, dtype)
        return self._typed[dtype]

    def __contains__(self, dtype):
        return bool(self._any_dtype) or lookup_dtype(dtype) in self.types

    def __repr__(self):
        return f"agg.{self.name}"

    def __reduce__(self):
        return f"{self.name}" if globals().get(self.name) is self else object.__reduce__(self)

    def typed_for(self, dtype):
        """The typed aggregator that reduces a collection of ``dtype`` (the counts reduce
        in their own type, INT64, whatever the input)."""
        if self._any_dtype is not None and self._any_dtype is not True:
            return self[self._any_dtype]
        return self[dtype]

    def __call__(self, val, *, rowwise=False, columnwise=False):
        return _call(self, val, rowwise, columnwise)


class TypedAggregator:
    """An aggregator for one input type; ``return_type`` is its result's type."""

    opclass = "Aggregator"

    def __init__(self, parent, dtype):
        self.name = parent.name
        self.parent = parent
        self.type = dtype
        if dtype in parent.types:
            self.return_type = parent.types[dtype]
        elif parent._any_dtype is True:
            self.return_type = dtype
        else:
            self.return_type = lookup_dtype(parent._any_dtype)

    def __repr__(self):
        return f"agg.{self.name}[{self.type}]"

    def __reduce__(self):
        import operator

        return (operator.getitem, (self.parent, self.type))

    def __call__(self, val, *, rowwise=False, columnwise=False):
        return _call(self, val, rowwise, columnwise)

    # -- the recipes: each returns a Vector (size 1 for a reduction to a Scalar) ---------

    def rows(self, X):
        """Each row of the Matrix (or TransposedMatrix) ``X`` reduced: a Vector."""
        agg = self.parent
        if agg._monoid is not None:
            return X.reduce_rowwise(agg._monoid[self.type]).new()
        if agg._composite is not None:
            return self._compose([a[self.type].rows(X) for a in agg._composite])
        if agg._custom is not None:
            return agg._custom(self, X, "rows")
        return self._finish(self._line(X, "rows"), agg._finalize)

    def vector(self, v):
        """The Vector ``v`` reduced: a Vector of size 1."""
        agg = self.parent
        if agg._monoid is not None:
            return _as_vector(v.reduce(agg._monoid[self.type]).new(), v.device)
        if agg._composite is not None:
            return self._compose([a[self.type].vector(v) for a in agg._composite])
        if agg._custom is not None:
            return agg._custom(self, v, "vector")
        return self._finish(self._line(v, "vector"), agg._finalize)

    def matrix(self, A):
        """Every entry of the Matrix ``A`` reduced: a Vector of size 1."""
        agg = self.parent
        if agg._monoid is not None:
            return _as_vector(A.reduce_scalar(agg._monoid[self.type]).new(), A.device)
        if agg._composite is not None:
            return self._compose([a[self.type].matrix(A) for a in agg._composite])
        if agg._custom is not None:
            return agg._custom(self, A, "matrix")
        step = self._line(A, "rows")
        typed = agg._semiring2[step.dtype]
        total = step.apply(typed.binaryop, right=agg._initval).new()
        return self._finish(_as_vector(total.reduce(typed.monoid).new(), A.device),
                            agg._finalize)

    def _line(self, x, how):
        """``mult(x, c)`` (``mult(c, x)`` when switched) for each entry, reduced along the
        rows (``how="rows"``) or the whole Vector with the semiring's monoid."""
        agg = self.parent
        if x.dtype._is_udt:
            # count, exists: the multiplier (pair) ignores the values, which a user-defined
            # type keeps as raw bytes; count the structure
            x = x.apply(unary.one).new()
            return TypedAggregator(agg, x.dtype)._line(x, how) if self.type._is_udt else \
                self._line(x, how)
        typed = find_typed_op(agg._semiring, self.type, agg._initdtype or BOOL)
        if agg._applybegin is not None:
            x = agg._applybegin(x).new()
        if agg._switch:
            products = x.apply(typed.binaryop, left=agg._initval).new()
        else:
            products = x.apply(typed.binaryop, right=agg._initval).new()
        if how == "rows":
            return products.reduce_rowwise(typed.monoid).new()
        return _as_vector(products.reduce(typed.monoid).new(), x.device)

    @staticmethod
    def _finish(w, finalize):
        if finalize is None:
            return w
        return finalize[w.dtype](w).new()

    def _compose(self, results):
        return self.parent._finalize(*results, {}).new()


def _as_vector(s, device):
    """A Scalar as a Vector of size 1 on ``device`` (empty when the Scalar is)."""
    from .core.vector import Vector

    w = Vector(s.dtype, 1, device=device)
    if not s.is_empty:
        w[0] = s
    return w


def _call(agg, val, rowwise, columnwise):
    """``agg(x)``: ``x.reduce(agg)``, ``x.reduce_rowwise(agg)`` (``rowwise=True``), ..."""
    from .core.expr import Expression, InfixExpr
    from .core.matrix import Matrix, TransposedMatrix
    from .core.vector import Vector

    if isinstance(val, (Expression, InfixExpr)) and val.output_type in (Matrix, Vector):
        val = val.new()
    if isinstance(val, Vector):
        if rowwise or columnwise:
            raise ValueError("rowwise and columnwise arguments should not be used with Vector "
                             "input")
        return val.reduce(agg)
    if isinstance(val, (Matrix, TransposedMatrix)):
        if rowwise and columnwise:
            raise ValueError("rowwise and columnwise arguments cannot both be True")
        if rowwise:
            return val.reduce_rowwise(agg)
        if columnwise:
            return val.reduce_columnwise(agg)
        return val.reduce_scalar(agg)
    raise TypeError(
        f"Bad type when calling {agg!r}.\n"
        "    - Expected type: Vector, Matrix, TransposedMatrix.\n"
        f"    - Got: {type(val)}.\n"
        "Calling an Aggregator is syntactic sugar for calling reduce methods.  "
        f"For example, `A.reduce_scalar({agg!r})` is the same as `{agg!r}(A)`.")


def compute(typed, x, method):
    """The result of reducing ``x`` with the typed aggregator by ``method``
    (``reduce_rowwise``, ``reduce_columnwise``, ``reduce_scalar`` or ``reduce``): a Vector,
    of size 1 for the last two."""
    if method == "reduce_rowwise":
        return typed.rows(x)
    if method == "reduce_columnwise":
        return typed.rows(x.T)
    if method == "reduce":
        return typed.vector(x)
    return typed.matrix(x)


# -- monoid-only ------------------------------------------------------------------------------

sum = Aggregator("sum", monoid=monoid.plus)  # noqa: A001 (python-graphblas's names)
prod = Aggregator("prod", monoid=monoid.times)
all = Aggregator("all", monoid=monoid.land)  # noqa: A001
any = Aggregator("any", monoid=monoid.lor)  # noqa: A001
min = Aggregator("min", monoid=monoid.min)  # noqa: A001
max = Aggregator("max", monoid=monoid.max)  # noqa: A001
any_value = Aggregator("any_value", monoid=monoid.any, any_dtype=True)
bitwise_all = Aggregator("bitwise_all", monoid=monoid.band)
bitwise_any = Aggregator("bitwise_any", monoid=monoid.bor)

# -- a semiring with a constant, maybe finished by a unary operator ---------------------------

count = Aggregator("count", semiring=semiring.plus_pair, semiring2=semiring.plus_first,
                   any_dtype=INT64)
count_nonzero = Aggregator("count_nonzero", semiring=semiring.plus_isne,
                           semiring2=semiring.plus_first)
count_zero = Aggregator("count_zero", semiring=semiring.plus_iseq,
                        semiring2=semiring.plus_first)
sum_of_squares = Aggregator("sum_of_squares", initval=2, semiring=semiring.plus_pow,
                            semiring2=semiring.plus_first)
sum_of_inverses = Aggregator("sum_of_inverses", initval=-1.0, semiring=semiring.plus_pow,
                             semiring2=semiring.plus_first)
exists = Aggregator("exists", semiring=semiring.any_pair, semiring2=semiring.any_pair,
                    any_dtype=INT64)
hypot = Aggregator("hypot", initval=2, semiring=semiring.plus_pow,
                   semiring2=semiring.plus_first, finalize=unary.sqrt)
logaddexp = Aggregator("logaddexp", initval=np.e, semiring=semiring.plus_pow, switch=True,
                       semiring2=semiring.plus_first, finalize=unary.log)
logaddexp2 = Aggregator("logaddexp2", initval=2, semiring=semiring.plus_pow, switch=True,
                        semiring2=semiring.plus_first, finalize=unary.log2)
L0norm = count_nonzero
L2norm = hypot
L1norm = Aggregator("L1norm", applybegin=unary.abs, semiring=semiring.plus_first,
                    semiring2=semiring.plus_first)
Linfnorm = Aggregator("Linfnorm", applybegin=unary.abs, semiring=semiring.max_first,
                      semiring2=semiring.max_first)


# -- composites -------------------------------------------------------------------------------

def _mean(c, x, opts):
    return binary.truediv(x & c)


def _peak_to_peak(hi, lo, opts):
    return binary.minus(hi & lo)


def _varp(c, x, x2, opts):
    # <x2> / n - (<x> / n) ** 2
    left = binary.truediv(x2 & c).new()
    right = binary.truediv(x & c).new()
    return binary.minus(left & binary.pow(right, 2).new())


def _vars(c, x, x2, opts):
    # <x2> / (n - 1) - <x> ** 2 / (n * (n - 1))
    right = binary.truediv(binary.pow(x, 2).new() & c).new()
    c1 = binary.minus(c, 1).new()
    right = binary.truediv(right & c1).new()
    left = binary.truediv(x2 & c1).new()
    return binary.minus(left & right)


def _stdp(c, x, x2, opts):
    return unary.sqrt(_varp(c, x, x2, opts).new())


def _stds(c, x, x2, opts):
    return unary.sqrt(_vars(c, x, x2, opts).new())


def _geometric_mean(c, x, opts):
    return binary.pow(x & unary.minv["FP64"](c).new())


def _harmonic_mean(c, x, opts):
    return binary.truediv(c & x)


def _root_mean_square(c, x2, opts):
    return unary.sqrt(binary.truediv(x2 & c).new())


mean = Aggregator("mean", composite=[count, sum], finalize=_mean, types=[binary.truediv])
peak_to_peak = Aggregator("peak_to_peak", composite=[max, min], finalize=_peak_to_peak,
                          types=[monoid.min])
varp = Aggregator("varp", composite=[count, sum, sum_of_squares], finalize=_varp,
                  types=[binary.truediv])
vars = Aggregator("vars", composite=[count, sum, sum_of_squares], finalize=_vars,  # noqa: A001
                  types=[binary.truediv])
stdp = Aggregator("stdp", composite=[count, sum, sum_of_squares], finalize=_stdp,
                  types=[binary.truediv, unary.sqrt])
stds = Aggregator("stds", composite=[count, sum, sum_of_squares], finalize=_stds,
                  types=[binary.truediv, unary.sqrt])
geometric_mean = Aggregator("geometric_mean", composite=[count, prod],
                            finalize=_geometric_mean, types=[binary.truediv])
harmonic_mean = Aggregator("harmonic_mean", composite=[count, sum_of_inverses],
                           finalize=_harmonic_mean, types=[sum_of_inverses, binary.truediv])
root_mean_square = Aggregator("root_mean_square", composite=[count, sum_of_squares],
                              finalize=_root_mean_square, types=[binary.truediv, unary.sqrt])


# -- positional -------------------------------------------------------------------------------

def _positions(x):
    """Each entry's column index (a Matrix) or index (a Vector), INT64."""
    op = indexunary.colindex if x.ndim == 2 else indexunary.rowindex
    return x.apply(op[INT64], 0).new()


def _at_positions(X, cols):
    """The entries of ``X`` at column ``cols[i]`` in each row i (a Matrix of X's shape)."""
    hits = semiring.any_eq[INT64](cols.diag() @ _positions(X)).new()
    hits = hits.select("==", True).new()
    out = X.dup()
    out(mask=hits.S, replace=True) << out
    return out


def _index_of(typed, x, how, which):
    """The first (``which="min"``) or last index of an entry in each row or the Vector."""
    m = getattr(monoid, which)[INT64]
    if how == "rows":
        return _positions(x).reduce_rowwise(m).new()
    return _as_vector(_positions(x).reduce(m).new(), x.device)


def _first_last(typed, x, how, which):
    if how == "vector":
        i = _positions(x).reduce(getattr(monoid, which)[INT64]).new()
        out = type(x)(x.dtype, 1, device=x.device)
        if not i.is_empty:
            out[0] = x[i.value].new()
        return out
    if how == "rows":
        cols = _index_of(typed, x, "rows", which)
        return _at_positions(x, cols).reduce_rowwise(monoid.any).new()
    # the first (last) entry of the Matrix in row-major order
    rows = x.reduce_rowwise(monoid.any).new()
    i = rows.apply(indexunary.rowindex[INT64], 0).new().reduce(getattr(monoid, which)).new()
    from .core.vector import Vector

    out = Vector(x.dtype, 1, device=x.device)
    if not i.is_empty:
        row = x[i.value, :].new()
        return _first_last(typed, row, "vector", which)
    return out


def _argminmax(typed, x, how, which):
    if how == "matrix":
        raise ValueError(f"Aggregator {typed.name} may not be used with Matrix.reduce_scalar.")
    best = getattr(monoid, which)
    if how == "rows":
        cols = x.reduce_rowwise(best).new()
        hits = semiring.any_eq(cols.diag() @ x).new()
        hits = hits.select("==", True).new()
        return _positions(hits).reduce_rowwise(monoid.min[INT64]).new()
    value = x.reduce(best).new()
    if value.is_empty:
        return _as_vector(value.dup(INT64), x.device)
    hits = x.apply(binary.eq, right=value).new().select("==", True).new()
    return _as_vector(_positions(hits).reduce(monoid.min[INT64]).new(), x.device)


def _index_recipe(which):
    def recipe(typed, x, how):
        if how == "matrix":
            raise ValueError(f"Aggregator {typed.name} may not be used with "
                             "Matrix.reduce_scalar.")
        return _index_of(typed, x, how, which)

    return recipe


def _custom(func, which):
    return lambda typed, x, how: func(typed, x, how, which)


_BY_MONOID = [sum, prod, all, any, min, max, any_value, bitwise_all, bitwise_any]

argmin = Aggregator("argmin", custom=_custom(_argminmax, "min"), types=[semiring.min_firsti])
argmax = Aggregator("argmax", custom=_custom(_argminmax, "max"), types=[semiring.min_firsti])
first = Aggregator("first", custom=_custom(_first_last, "min"), types=[binary.first],
                   any_dtype=True)
last = Aggregator("last", custom=_custom(_first_last, "max"), types=[binary.second],
                  any_dtype=True)
first_index = Aggregator("first_index", custom=_index_recipe("min"),
                         types=[semiring.min_secondi], any_dtype=INT64)
last_index = Aggregator("last_index", custom=_index_recipe("max"),
                        types=[semiring.min_secondi], any_dtype=INT64)

#: python-graphblas keeps the positional aggregators under ``agg.ss`` (SuiteSparse's recipes)
ss = SimpleNamespace(first=first, last=last, first_index=first_index, last_index=last_index,
                     argmin=argmin, argmax=argmax)


def from_string(string):
    """The aggregator named by ``string``: its name (``"count"``), or a monoid's name or
    symbol (``"|"`` is ``agg.any``, ``"+[int]"`` is ``agg.sum[int]``).

    Raises
    ------
    ValueError
        If no aggregator answers to the string.
    """
    if not isinstance(string, str):
        raise TypeError(f"Expected a str naming an aggregator, got {type(string).__name__}")
    base, bracket, rest = string.strip().partition("[")
    found = globals().get(base)
    if not isinstance(found, Aggregator):
        try:
            mon = monoid.from_string(base)
        except (ValueError, KeyError, TypeError):
            mon = None
        found = next((a for a in _BY_MONOID if a._monoid is mon), None) if mon else None
    if found is None:
        raise ValueError(f"Unknown agg string: {string!r}.  Example usage: 'sum[int]'")
    return found[lookup_dtype(rest.rstrip("]").strip())] if bracket else found


__all__ = ["Aggregator", "TypedAggregator", "from_string", "ss"] + sorted(
    name for name, obj in globals().items() if isinstance(obj, Aggregator))
