"""Differential testing of graphblast's core against python-graphblas (SuiteSparse:GraphBLAS).

A test builds its inputs once as plain NumPy data (:class:`MatrixData`, :class:`VectorData`,
:class:`ScalarData`) from the seeded ``rng`` fixture, then hands a *body* to
:meth:`Differ.check`.  The body is an ordinary python-graphblas program written against a
library handle ``gb`` (``gb.Matrix``, ``gb.semiring.min_plus``, ...); ``check`` runs it once on
python-graphblas and once on the library under test, each with its own copy of the inputs, and
compares

- the returned objects: type, shape, ``dtype.name``, structure exactly, values exactly for
  BOOL and integers and to ``rtol`` for floats (NaN equals NaN);
- every input afterwards (bodies may update their inputs in place: aliasing, ``<<``);
- exceptions: where python-graphblas raises, the library under test must raise the same
  class (``graphblas.exceptions.X`` maps to ``graphblast.exceptions.X``, built-in classes to
  themselves) and leave its inputs as they were.

The library under test is ``graphblast`` unless the environment variable
``GRAPHBLAST_DIFF_TARGET`` names another module: ``GRAPHBLAST_DIFF_TARGET=graphblas`` runs the
whole suite with python-graphblas on both sides, which checks the harness itself.
"""

import builtins
import functools
import importlib
import inspect
import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np
import pytest

graphblas = pytest.importorskip("graphblas")

# The test modules of this folder import these helpers as ``diffharness``: a conftest.py has no
# stable module name of its own (pytest imports each folder's conftest as ``conftest`` and drops
# the previous one from sys.modules), and pytest always imports this file before them.
sys.modules.setdefault("diffharness", sys.modules[__name__])

TARGET_ENV = "GRAPHBLAST_DIFF_TARGET"

ALL_TYPES = ["BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
             "FP32", "FP64"]
FLOAT_TYPES = ["FP32", "FP64"]

MASK_KINDS = ["none", "S", "V", "~S", "~V"]

# Relative tolerance per float type; the same value serves as absolute tolerance so that a sum
# that cancels to zero in one summation order and to a few ulps in another still compares equal.
RTOL = {"FP32": 1e-5, "FP64": 1e-12}

OP_KINDS = ["unary", "binary", "monoid", "semiring", "indexunary", "select"]
# Names in python-graphblas's operator namespaces that are machinery, not operators.
NAMESPACE_MACHINERY = {"register_new", "register_anonymous", "numpy", "ss", "get_semiring"}


# ---------------------------------------------------------------------------------------------
# The library handles that bodies receive
# ---------------------------------------------------------------------------------------------


def target_module():
    """The module under test: graphblast, or the module named by GRAPHBLAST_DIFF_TARGET."""
    return importlib.import_module(os.environ.get(TARGET_ENV, "graphblast"))


@functools.lru_cache(maxsize=None)
def _accepts_device(func):
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    # Only an explicit ``device`` parameter: a ``**kwargs`` may mean something else
    # (python-graphblas's from_dense takes descriptor options there).
    return "device" in params


def _with_device(func, device):
    if device is None or not _accepts_device(func):
        return func
    return functools.partial(func, device=device)


class _Constructor:
    """``Matrix``/``Vector``/``Scalar`` of one library, passing ``device=`` to the calls that
    create an object (the class itself and its ``from_*`` methods) where they accept it."""

    def __init__(self, cls, device):
        self._cls = cls
        self._device = device

    def __call__(self, *args, **kwargs):
        return _with_device(self._cls, self._device)(*args, **kwargs)

    def __getattr__(self, name):
        attr = getattr(self._cls, name)
        if name.startswith("from_") and callable(attr):
            return _with_device(attr, self._device)
        return attr


class Lib:
    """One library as a test body sees it: the module's names, with device-aware constructors.

    ``gb.op("semiring", "ss.any_firsti")`` resolves an operator by its python-graphblas path;
    the library under test may also offer it one namespace up or down (``semiring.any_firsti``),
    whether it offers both exact paths is :mod:`test_diff_misc`'s business.
    """

    def __init__(self, module, device=None):
        self.module = module
        self.name = module.__name__
        self.device = device
        self.Matrix = _Constructor(module.Matrix, device)
        self.Vector = _Constructor(module.Vector, device)
        self.Scalar = _Constructor(module.Scalar, device)

    def __getattr__(self, name):
        return getattr(self.module, name)

    def __repr__(self):
        return f"<Lib {self.name} device={self.device}>"

    def op(self, kind, path):
        return resolve_op(self.module, kind, path, strict=self.module is graphblas)


def resolve_op(module, kind, path, *, strict=True):
    """The operator ``module.<kind>.<path>`` (path like ``plus_times`` or ``ss.any_firsti``).

    With ``strict=False`` a name missing at its python-graphblas path is also looked for in the
    other place (top level or ``.ss``), so one missing alias does not fail every test using it.
    """
    namespace = getattr(module, kind)
    candidates = [path]
    if not strict:
        name = path.split(".")[-1]
        candidates += [name] if path.startswith("ss.") else [f"ss.{name}"]
    for candidate in candidates:
        obj = namespace
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                for part in candidate.split("."):
                    obj = getattr(obj, part)
        except AttributeError:
            continue
        return obj
    raise AttributeError(f"{module.__name__}.{kind} has no operator {path!r}")


# ---------------------------------------------------------------------------------------------
# python-graphblas's operator catalogue
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def catalogue(kind):
    """python-graphblas's built-in operators of ``kind`` that work on at least one real type.

    Returns a tuple of paths (``"plus_times"``, ``"ss.any_firsti"``), one per operator; an
    operator that python-graphblas offers both at the top level (deprecated) and in ``.ss`` is
    listed by its ``.ss`` path.  Parameterized operators (``binary.isclose``) and the select
    helpers (``select.value``) are not operators of this kind and are tested on their own.
    """
    namespace = getattr(graphblas, kind)
    ss_names = {n for n in dir(namespace.ss) if not n.startswith("_")}
    names = {n for n in dir(namespace) if not n.startswith("_")} | ss_names
    paths = []
    for name in sorted(names - NAMESPACE_MACHINERY - {"from_string"}):
        path = f"ss.{name}" if name in ss_names else name
        op = resolve_op(graphblas, kind, path)
        if isinstance(op, graphblas.core.operator.OpBase) and real_types(op):
            paths.append(path)
    return tuple(paths)


def namespace_names(kind):
    """(top-level names, ``.ss`` names) that python-graphblas's ``kind`` namespace offers."""
    namespace = getattr(graphblas, kind)
    top = {n for n in dir(namespace) if not n.startswith("_")} - NAMESPACE_MACHINERY
    ss = {n for n in dir(namespace.ss) if not n.startswith("_")} - NAMESPACE_MACHINERY
    return sorted(top), sorted(ss)


def real_types(op):
    """Input type names (of ALL_TYPES) for which python-graphblas defines ``op`` with a real
    result (``binary.cmplx`` makes complex numbers of reals: not graphblast's business)."""
    types = {dt.name: rt.name for dt, rt in op.types.items()}
    return [t for t in ALL_TYPES if t in types and not types[t].startswith("FC")]


def op_types(kind, path):
    """Input types on which to exercise the operator at ``kind.path``.

    Positional index-unary/select operators ignore the value, so python-graphblas applies them
    to a matrix of any type although it lists only BOOL/UINT64 (their thunk types).
    """
    op = resolve_op(graphblas, kind, path)
    name = path.split(".")[-1]
    if kind in ("indexunary", "select") and not name.startswith("value") and name != "diagindex":
        return list(ALL_TYPES)
    return real_types(op)


def semiring_parts(path):
    """(monoid name, binary op name) of a semiring path: ``ss.any_firsti`` is any, firsti."""
    name = path.split(".")[-1]
    monoid, _, binop = name.partition("_")
    return monoid, binop


# ---------------------------------------------------------------------------------------------
# Inputs as plain NumPy data, built identically in both libraries
# ---------------------------------------------------------------------------------------------



def any_candidates(method, transpose):
    """What a reduction by ``any`` (``monoid.any``, ``agg.any_value``) may return: any entry of
    the row, column or whole object."""
    def candidates(gb, x, *rest):
        if method == "Vector.reduce":
            return [x.to_coo()[1]]
        rows, cols, values = (x.T.new() if transpose else x).to_coo()
        if method == "reduce_scalar":
            return [values]
        return [((rows if method == "reduce_rowwise" else cols,), values)]
    return candidates

def _np_dtype(dtype):
    return np.dtype(graphblas.dtypes.lookup_dtype(dtype).np_type)


@dataclass
class MatrixData:
    """A sparse matrix as COO arrays (sorted, no duplicates unless built to have them)."""

    dtype: str
    nrows: int
    ncols: int
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray

    def build(self, lib):
        M = lib.Matrix.from_coo(self.rows.copy(), self.cols.copy(), self.values.copy(),
                                dtype=self.dtype, nrows=self.nrows, ncols=self.ncols)
        if lib.__name__ == "graphblast" and self.compact:
            _make_compact(M)
        return M

    @property
    def compact(self):
        """Half of graphblast's matrices, chosen by shape and count (so a seed reproduces
        it), are stored compact: 32-bit column indices, and no value array when every value
        is the same (the generators' form on GPUs, docs/design.md)."""
        return (self.nrows * 31 + self.ncols * 17 + self.nvals) % 2 == 1

    @property
    def nvals(self):
        return len(self.values)

    def __repr__(self):
        form = ", compact" if self.compact else ""
        return f"MatrixData({self.dtype}, {self.nrows}x{self.ncols}, nvals={self.nvals}{form})"


def _make_compact(M):
    """Store graphblast's Matrix ``M`` compact, in place (its storage is replaced)."""
    from graphblast.backends.base import CSR

    d = M._data
    if type(d) is not CSR:  # a device group's storage stays as it is
        return
    values = d.values
    iso = None
    if values.shape[0] and bool((values == values[:1]).all()):
        iso = values[:1].tolist()[0]
    compact = CSR(d.nrows, d.ncols, d.dtype, d.indptr, d.indices.astype(np.int32),
                  None if iso is not None else values, iso_value=iso)
    compact.symmetric = d.symmetric
    M._set_data(compact)


@dataclass
class VectorData:
    dtype: str
    size: int
    indices: np.ndarray
    values: np.ndarray

    def build(self, lib):
        return lib.Vector.from_coo(self.indices.copy(), self.values.copy(), dtype=self.dtype,
                                   size=self.size)

    @property
    def nvals(self):
        return len(self.values)

    def __repr__(self):
        return f"VectorData({self.dtype}, size={self.size}, nvals={self.nvals})"


@dataclass
class ScalarData:
    dtype: str
    value: object  # None for an empty Scalar

    def build(self, lib):
        if self.value is None:
            return lib.Scalar(self.dtype)
        return lib.Scalar.from_value(self.value, dtype=self.dtype)

    def __repr__(self):
        return f"ScalarData({self.dtype}, {self.value!r})"


def random_values(rng, dtype, n, *, zeros=0.15, nonzero=False):
    """``n`` values of ``dtype``: small integers, quarter-integer floats (exact sums and
    products, yet a truncating cast shows), random booleans; about ``zeros`` of them 0, none
    with ``nonzero``."""
    dtype = str(dtype)
    npdt = _np_dtype(dtype)
    if dtype == "BOOL":
        return np.ones(n, dtype=bool) if nonzero else rng.random(n) < 0.5
    if dtype in FLOAT_TYPES:
        values = (rng.integers(-16, 17, n) / 4).astype(npdt)
    elif dtype.startswith("UINT"):
        values = rng.integers(0, 13, n).astype(npdt)
    else:
        values = rng.integers(-6, 7, n).astype(npdt)
    if nonzero:
        values[values == 0] = 1
    else:
        values[rng.random(n) < zeros] = 0
    return values


def needs_nonzero(path):
    """Must the operator's inputs avoid 0?  python-graphblas implements floordiv, rfloordiv and
    rpow as numba functions; their division by zero (``0 ** -1`` for rpow on integers) raises
    inside the kernel and leaves an undefined value: there is no reference to compare with."""
    return "floordiv" in path or path.endswith("rpow")


def special_values(dtype):
    """The edge values of a type: limits, 0, +-1, and for floats NaN, +-inf and -0.0."""
    dtype = str(dtype)
    npdt = _np_dtype(dtype)
    if dtype == "BOOL":
        return np.array([False, True])
    if dtype in FLOAT_TYPES:
        info = np.finfo(npdt)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.nan, np.inf, -np.inf, info.max,
                info.min, info.tiny]
        return np.array(vals, dtype=npdt)
    info = np.iinfo(npdt)
    vals = [0, 1, 2, 3, 7, info.max, info.max - 1, info.min]
    if info.min < 0:
        vals += [-1, -2, -7, info.min + 1]
    return np.array(vals, dtype=npdt)


def _sample_positions(rng, total, density):
    if total == 0:
        return np.empty(0, dtype=np.int64)
    nnz = total if density >= 1 else int(rng.binomial(total, density))
    return np.sort(rng.choice(total, size=nnz, replace=False)).astype(np.int64)


def random_matrix(rng, dtype, nrows, ncols, density=0.3, *, zeros=0.15, nonzero=False,
                  iso=None):
    """A random sparse ``nrows x ncols`` MatrixData; ``iso`` gives every entry that value."""
    pos = _sample_positions(rng, nrows * ncols, density)
    rows, cols = np.divmod(pos, max(ncols, 1))
    if iso is None:
        values = random_values(rng, dtype, len(pos), zeros=zeros, nonzero=nonzero)
    else:
        values = np.full(len(pos), iso, dtype=_np_dtype(dtype))
    return MatrixData(str(dtype), nrows, ncols, rows.astype(np.int64), cols.astype(np.int64),
                      values)


def random_vector(rng, dtype, size, density=0.4, *, zeros=0.15, nonzero=False, iso=None):
    pos = _sample_positions(rng, size, density)
    if iso is None:
        values = random_values(rng, dtype, len(pos), zeros=zeros, nonzero=nonzero)
    else:
        values = np.full(len(pos), iso, dtype=_np_dtype(dtype))
    return VectorData(str(dtype), size, pos, values)


def random_scalar(rng, dtype, *, empty=False, nonzero=False):
    if empty:
        return ScalarData(str(dtype), None)
    value = random_values(rng, dtype, 1, zeros=0.0 if nonzero else 0.15)[0]
    if nonzero and value == 0:
        value = _np_dtype(dtype).type(1)
    return ScalarData(str(dtype), value.item())


# Matrix shape cases: (nrows, ncols, density), readable ids.  Explicit zeros are in every
# non-empty case through random_values.
MATRIX_CASES = {
    "empty": (5, 4, 0.0),
    "0x4": (0, 4, 0.3),
    "4x0": (4, 0, 0.3),
    "0x0": (0, 0, 0.3),
    "1x1": (1, 1, 1.0),
    "full": (5, 6, 1.0),
    "sparse": (8, 7, 0.25),
    "dense": (6, 6, 0.75),
}
VECTOR_CASES = {
    "empty": (6, 0.0),
    "size0": (0, 0.5),
    "size1": (1, 1.0),
    "full": (7, 1.0),
    "sparse": (9, 0.3),
    "dense": (8, 0.8),
}
# Shapes (m, k, n) for A (m x k) times B (k x n).
MXM_SHAPES = {
    "0xkxn": (0, 4, 3),
    "mx0xn": (4, 0, 3),
    "mxkx0": (3, 4, 0),
    "1x1x1": (1, 1, 1),
    "small": (5, 6, 4),
    "square": (7, 7, 7),
}


def mask_of(M, kind):
    """The mask ``M.S``, ``M.V``, ``~M.S``, ``~M.V`` or None (kind "none") in either library."""
    if kind == "none":
        return None
    mask = M.S if kind.endswith("S") else M.V
    return ~mask if kind.startswith("~") else mask


def output_args(mask, accum, replace):
    """Keyword arguments for ``C(...)``: python-graphblas rejects replace=True with no mask."""
    kwargs = {}
    if mask is not None:
        kwargs["mask"] = mask
        kwargs["replace"] = replace
    if accum is not None:
        kwargs["accum"] = accum
    return kwargs


def T_if(x, flag):
    return x.T if flag else x


# ---------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------


def _kind_of(obj, lib_module):
    for kind in ("Matrix", "Vector", "Scalar"):
        if isinstance(obj, getattr(lib_module, kind)):
            return kind
    return None


def _coo(obj, kind):
    """(positions as a tuple of int64 arrays, values) of a Matrix or Vector, sorted."""
    if kind == "Matrix":
        rows, cols, values = obj.to_coo()
        pos = (np.asarray(rows).astype(np.int64), np.asarray(cols).astype(np.int64))
    else:
        indices, values = obj.to_coo()
        pos = (np.asarray(indices).astype(np.int64),)
    values = np.asarray(values)
    order = np.lexsort(pos[::-1]) if len(values) else np.empty(0, dtype=np.intp)
    return tuple(p[order] for p in pos), values[order]


def assert_values_equal(got, exp, dtype, what):
    """Exact for BOOL/integers, allclose for floats with NaN == NaN."""
    got = np.asarray(got)
    exp = np.asarray(exp)
    assert got.shape == exp.shape, f"{what}: {got.shape} values, expected {exp.shape}"
    if dtype in RTOL:
        np.testing.assert_allclose(got.astype(np.float64), exp.astype(np.float64),
                                   rtol=RTOL[dtype], atol=RTOL[dtype], equal_nan=True,
                                   err_msg=what)
    elif not np.array_equal(got, exp):
        bad = np.flatnonzero(got != exp)[:10]
        raise AssertionError(f"{what}: values differ at positions {bad.tolist()}: "
                             f"got {got[bad].tolist()}, expected {exp[bad].tolist()}")


def _canonical_bits(values):
    """Values as uint64 keys for exact set membership: floats via float64 with one NaN and
    -0.0 == 0.0, integers and booleans as themselves."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        v = values.astype(np.float64) + 0.0  # -0.0 + 0.0 is +0.0
        v[np.isnan(v)] = np.nan
        return v.view(np.uint64)
    return values.astype(np.int64).view(np.uint64) if values.dtype.kind != "u" else \
        values.astype(np.uint64)


def _membership(pos, values, cand_pos, cand_values):
    """Boolean array: is (pos[k], values[k]) among the candidate (position, value) pairs?"""
    fields = [(f"p{i}", "<u8") for i in range(len(pos))] + [("v", "<u8")]
    dt = np.dtype(fields)
    keys = np.empty(len(values), dtype=dt)
    ckeys = np.empty(len(cand_values), dtype=dt)
    for i, (p, cp) in enumerate(zip(pos, cand_pos)):
        keys[f"p{i}"] = p
        ckeys[f"p{i}"] = cp
    keys["v"] = _canonical_bits(values)
    ckeys["v"] = _canonical_bits(cand_values)
    return np.isin(keys, ckeys)


class Comparer:
    """Compares a result of the library under test with python-graphblas's."""

    def __init__(self, target):
        self.target = target

    def __call__(self, got, exp, what="result", candidates=None):
        kind = _kind_of(exp, graphblas)
        if kind is not None:
            return self._compare_object(got, exp, kind, what, candidates)
        if isinstance(exp, (tuple, list)):
            assert isinstance(got, (tuple, list)), f"{what}: got {type(got).__name__}, " \
                                                   f"expected a {type(exp).__name__}"
            assert len(got) == len(exp), f"{what}: got {len(got)} items, expected {len(exp)}"
            for i, (g, e) in enumerate(zip(got, exp)):
                self(g, e, f"{what}[{i}]")
            return
        if isinstance(exp, dict):
            assert isinstance(got, dict) and got.keys() == exp.keys(), \
                f"{what}: got {got!r}, expected {exp!r}"
            for key in exp:
                self(got[key], exp[key], f"{what}[{key!r}]")
            return
        if isinstance(exp, np.ndarray):
            got_arr = np.asarray(got)
            assert got_arr.dtype == exp.dtype, \
                f"{what}: array dtype {got_arr.dtype}, expected {exp.dtype}"
            name = {"float32": "FP32", "float64": "FP64"}.get(exp.dtype.name, "exact")
            assert_values_equal(got_arr, exp, name, what)
            return
        if exp is None or isinstance(exp, (bool, np.bool_, str)):
            assert type(got) is type(exp) or (isinstance(exp, (bool, np.bool_)) and isinstance(
                got, (bool, np.bool_))), f"{what}: got {got!r}, expected {exp!r}"
            assert got == exp, f"{what}: got {got!r}, expected {exp!r}"
            return
        if isinstance(exp, (int, float, np.number)):
            assert isinstance(got, (int, float, np.number)) and not isinstance(
                got, (bool, np.bool_)), f"{what}: got {got!r}, expected {exp!r}"
            assert_values_equal(got, exp, "FP64" if isinstance(exp, (float, np.floating))
                                else "exact", what)
            return
        raise TypeError(f"{what}: cannot compare a {type(exp).__name__} (test bug)")

    def _compare_object(self, got, exp, kind, what, candidates):
        got_kind = _kind_of(got, self.target)
        assert got_kind == kind, f"{what}: got {type(got).__module__}.{type(got).__name__}, " \
                                 f"expected a {kind}"
        dtype = exp.dtype.name
        assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}, expected {dtype}"
        if kind == "Scalar":
            assert got.is_empty == exp.is_empty, \
                f"{what}: Scalar is_empty={got.is_empty}, expected {exp.is_empty}"
            if exp.is_empty:
                return
            gval = np.asarray(got.value)
            if candidates is not None and not self._equal(gval, np.asarray(exp.value), dtype):
                cands = np.array([c for c in candidates], dtype=_np_dtype(dtype))
                ok = _membership((np.zeros(1, np.uint64),), np.atleast_1d(gval),
                                 (np.zeros(len(cands), np.uint64),), cands)
                assert ok.all(), f"{what}: value {gval} is not one of {cands.tolist()}"
                return
            assert_values_equal(gval, np.asarray(exp.value), dtype, f"{what} value")
            return
        assert got.shape == exp.shape, f"{what}: shape {got.shape}, expected {exp.shape}"
        assert got.nvals == exp.nvals, f"{what}: nvals {got.nvals}, expected {exp.nvals}"
        gpos, gvals = _coo(got, kind)
        epos, evals = _coo(exp, kind)
        for axis, (g, e) in enumerate(zip(gpos, epos)):
            if not np.array_equal(g, e):
                raise AssertionError(f"{what}: structure differs (axis {axis}): got "
                                     f"{list(zip(*[p.tolist() for p in gpos]))[:20]}, expected "
                                     f"{list(zip(*[p.tolist() for p in epos]))[:20]}")
        assert gvals.dtype == _np_dtype(dtype), \
            f"{what}: to_coo values dtype {gvals.dtype}, expected {_np_dtype(dtype)}"
        if candidates is None:
            assert_values_equal(gvals, evals, dtype, f"{what} values")
            return
        # Nondeterministic ("any") result: each value equals the reference's or is another
        # value the operation could have picked at that position.
        differs = ~self._equal(gvals, evals, dtype)
        if differs.any():
            cpos, cvals = candidates
            ok = _membership(tuple(p[differs] for p in gpos), gvals[differs],
                             tuple(np.asarray(p).astype(np.int64) for p in cpos),
                             np.asarray(cvals).astype(gvals.dtype))
            bad = np.flatnonzero(differs)[~ok][:10]
            assert ok.all(), (f"{what}: values at {[tuple(p[b] for p in gpos) for b in bad]} "
                              f"= {gvals[bad].tolist()} are not among the candidates "
                              f"(reference picked {evals[bad].tolist()})")

    @staticmethod
    def _equal(a, b, dtype):
        if dtype in RTOL:
            a = a.astype(np.float64)
            b = b.astype(np.float64)
            return np.isclose(a, b, rtol=RTOL[dtype], atol=RTOL[dtype]) | (
                np.isnan(a) & np.isnan(b))
        return a == b


# ---------------------------------------------------------------------------------------------
# The harness
# ---------------------------------------------------------------------------------------------

_DATA_TYPES = (MatrixData, VectorData, ScalarData)


def _build(arg, lib):
    if isinstance(arg, _DATA_TYPES):
        return arg.build(lib)
    if isinstance(arg, np.ndarray):
        return arg.copy()
    return arg


def exception_matches(got, exp, target, accept=()):
    """Does ``got`` (from the library under test) correspond to ``exp`` (python-graphblas)?

    ``accept`` names further classes (in ``target.exceptions`` or built-in) that are as good,
    where python-graphblas's class is an accident of its implementation (OverflowError for a
    negative size, where the C API says GrB_INVALID_VALUE).
    """
    if type(exp).__module__ == "graphblas.exceptions":
        expected = [getattr(target.exceptions, type(exp).__name__, None)]
    else:
        expected = [type(exp)]
    for name in accept:
        expected.append(getattr(target.exceptions, name, None) or getattr(builtins, name))
    return any(cls is not None and isinstance(got, cls) for cls in expected)


class Differ:
    """Builds inputs from the test's ``rng`` and runs bodies on both libraries (see module
    docstring)."""

    def __init__(self, rng, device, target):
        self.rng = rng
        self.device = device
        self.target = target
        self.ref = Lib(graphblas)
        self.tgt = Lib(target, None if target is graphblas else device)
        self.compare = Comparer(target)

    # -- inputs ---------------------------------------------------------------------------
    def matrix(self, dtype, nrows, ncols, density=0.3, **kwargs):
        return random_matrix(self.rng, dtype, nrows, ncols, density, **kwargs)

    def vector(self, dtype, size, density=0.4, **kwargs):
        return random_vector(self.rng, dtype, size, density, **kwargs)

    def scalar(self, dtype, **kwargs):
        return random_scalar(self.rng, dtype, **kwargs)

    def choice(self, options):
        """One of ``options``, drawn from the seeded generator."""
        options = list(options)
        return options[int(self.rng.integers(len(options)))]

    # -- running --------------------------------------------------------------------------
    def check(self, body, *args, raises=None, candidates=None, accept=()):
        """Run ``body(gb, *objects)`` on python-graphblas and on the library under test.

        ``raises``: None (python-graphblas must succeed) or the name of the exception class it
        must raise; then the library under test must raise the same class and leave every
        input as it was.
        ``candidates``: for nondeterministic results, ``candidates(gb, *objects)`` run on
        python-graphblas returns a list of alternative results (objects, or ``(positions,
        values)`` tuples) whose values are also acceptable at their positions.
        ``accept``: further exception classes the library under test may raise instead of
        python-graphblas's (see :func:`exception_matches`).
        Returns python-graphblas's result, or the exception the library under test raised.
        """
        ref_args = [_build(a, self.ref) for a in args]
        tgt_args = [_build(a, self.tgt) for a in args]
        try:
            expected = body(self.ref, *ref_args)
            ref_exc = None
        except Exception as exc:  # compared with the target's exception below
            ref_exc = exc
        if ref_exc is None and raises is not None:
            pytest.fail(f"python-graphblas did not raise {raises}; the test is wrong")
        if ref_exc is not None:
            if raises is None:
                raise AssertionError("python-graphblas raised: the test is wrong, or the case "
                                     "needs raises=") from ref_exc
            if type(ref_exc).__name__ != raises:
                raise AssertionError(f"python-graphblas raised {type(ref_exc).__name__}, "
                                     f"the test expects {raises}") from ref_exc
            try:
                body(self.tgt, *tgt_args)
            except Exception as exc:
                if not exception_matches(exc, ref_exc, self.target, accept):
                    raise AssertionError(
                        f"{self.target.__name__} raised {type(exc).__module__}."
                        f"{type(exc).__name__}: {exc}; python-graphblas raises "
                        f"{type(ref_exc).__name__}: {ref_exc}") from exc
                tgt_exc = exc
            else:
                pytest.fail(f"{self.target.__name__} did not raise; python-graphblas raises "
                            f"{type(ref_exc).__name__}: {ref_exc}")
            for i, (arg, t) in enumerate(zip(args, tgt_args)):
                if isinstance(arg, _DATA_TYPES):
                    self.compare(t, _build(arg, self.ref),
                                 f"argument {i} after the failed call (must be unchanged)")
            return tgt_exc
        got = body(self.tgt, *tgt_args)
        cands = None
        if candidates is not None:
            fresh = [_build(a, self.ref) for a in args]
            cands = _merge_candidates(candidates(self.ref, *fresh))
        self.compare(got, expected, "result", cands)
        for i, (r, t) in enumerate(zip(ref_args, tgt_args)):
            if isinstance(args[i], _DATA_TYPES):
                self.compare(t, r, f"argument {i} after the call", cands if r is expected
                             else None)
        return expected


def _merge_candidates(alternatives):
    """Concatenate alternative results into one ``(positions, values)`` candidate set, or a
    flat list of values where the alternatives are Scalars."""
    positions, values, scalars = [], [], []
    for alt in alternatives:
        kind = _kind_of(alt, graphblas)
        if kind == "Scalar":
            if not alt.is_empty:
                scalars.append(alt.value)
        elif kind is not None:
            pos, vals = _coo(alt, kind)
            positions.append(pos)
            values.append(vals)
        elif isinstance(alt, tuple):
            pos, vals = alt
            positions.append(tuple(np.asarray(p).astype(np.int64) for p in pos))
            values.append(np.asarray(vals))
        else:
            scalars.extend(np.atleast_1d(alt).tolist())
    if not positions:
        return scalars
    ndim = len(positions[0])
    return (tuple(np.concatenate([p[d] for p in positions]) for d in range(ndim)),
            np.concatenate(values))


def semiring_candidates(ref, semiring, A, B):
    """Every product ``mult(A[i, k], B[k, j])`` as ``((i, j), values)``: what an ``any_*``
    semiring may pick for ``C[i, j]``.  ``A``/``B`` are python-graphblas matrices (transpose
    applied already); ``semiring`` is python-graphblas's typed semiring."""
    ai, ak, av = A.to_coo()
    bk, bj, bv = B.to_coo()
    ai, ak, bk, bj = (np.asarray(x).astype(np.int64) for x in (ai, ak, bk, bj))
    order = np.argsort(bk, kind="stable")
    bk, bj, bv = bk[order], bj[order], bv[order]
    starts = np.searchsorted(bk, ak, side="left")
    stops = np.searchsorted(bk, ak, side="right")
    counts = stops - starts
    left = np.repeat(np.arange(len(ak)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    right = np.repeat(starts, counts) + offsets
    i, k, j = ai[left], ak[left], bj[right]
    binop = semiring.binaryop
    name = binop.name.split(".")[-1]
    positional = {"firsti": i, "firsti1": i + 1, "firstj": k, "firstj1": k + 1,
                  "secondi": k, "secondi1": k + 1, "secondj": j, "secondj1": j + 1}
    if name in positional:
        values = positional[name].astype(binop.return_type.np_type)
    else:
        n = len(left)
        x = ref.Vector.from_coo(np.arange(n), av[left], dtype=A.dtype, size=n)
        y = ref.Vector.from_coo(np.arange(n), bv[right], dtype=B.dtype, size=n)
        values = x.ewise_mult(y, binop).new().to_coo()[1]
    return (i, j), values


def vector_as_matrix(ref, v, *, column):
    """A python-graphblas Vector as an n x 1 (column) or 1 x n matrix, for the candidates of
    ``mxv``/``vxm``."""
    idx, vals = v.to_coo()
    zeros = np.zeros(len(idx), dtype=np.int64)
    if column:
        return ref.Matrix.from_coo(idx, zeros, vals, dtype=v.dtype, nrows=v.size, ncols=1)
    return ref.Matrix.from_coo(zeros, idx, vals, dtype=v.dtype, nrows=1, ncols=v.size)


def keep_axis(candidates, axis):
    """Drop one axis of a matrix-shaped candidate set (``mxv`` results are column 0)."""
    (i, j), values = candidates
    return ((i,) if axis == 0 else (j,)), values


@pytest.fixture(scope="session")
def target():
    """The module under test (graphblast unless GRAPHBLAST_DIFF_TARGET says otherwise)."""
    return target_module()


@pytest.fixture
def diff(rng, device, target):
    """The differential harness for one test (seeded by the test's ``rng``)."""
    return Differ(rng, device, target)
