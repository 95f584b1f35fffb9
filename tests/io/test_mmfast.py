"""The compiled fast path of the Matrix Market reader against the NumPy parser.

The fast path (``graphblast.io._mmfast``) must give bit-identical results on every file the
NumPy parser reads, and reject every file it refuses (the NumPy parser then writes the
message), whatever the chunking and the number of threads.
"""

import os
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphblast.exceptions import GraphblasException
from graphblast.io import _mmio

fast_only = pytest.mark.skipif(_mmio._mmfast is None, reason="built without a C compiler")


def test_fast_path_is_built_where_a_compiler_is():
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler on this machine")
    assert _mmio._mmfast is not None, "the install did not build graphblast.io._mmfast"


def _outcome(buf, fast, dtype=None):
    try:
        rows, cols, values, header, _ = _mmio._read_coo(buf, "f", dtype, fast=fast)
    except GraphblasException as exc:
        return ("error", type(exc).__name__, str(exc))
    values = np.ascontiguousarray(values)
    return ("ok", header.dtype, rows.tolist(), cols.tolist(), values.view(np.uint8).tobytes())


def _same_both_ways(buf, dtype=None):
    slow = _outcome(buf, False, dtype)
    fast = _outcome(buf, True, dtype)
    assert fast == slow
    return fast


# Tokens a body is made of: valid ones of every kind and the malformed ones SciPy accepts.
_INDEX = st.sampled_from(["1", "2", "3", "01", "007", "0", "4", "+1", "-1", "1.0", "1e0",
                          "00000000000000000000001", "18446744073709551616", "2junk", ""])
_VALUE = st.one_of(
    st.sampled_from(["0", "1", "-1", "+1", "-0", "127", "-128", "255", "256", "65535",
                     "-2147483648", "9223372036854775807", "-9223372036854775808",
                     "18446744073709551615", "18446744073709551616", "1.5", "-2.25e3",
                     ".5", "5.", "1E+05", "1e-400", "1e400", "inf", "-Infinity", "nan", "-nan",
                     "NaN", "1.5junk", "1,5", "0x10", "1.5.3", "1e", "e5", ".", "-", "+",
                     "1e00005", "0.1000000000000000055511151231257827",
                     "3.4028235677973366e38", "1.00000005960464477550",
                     "123456789012345678901234567890", "\x00", "1\x00", "\xff", ""]),
    st.integers(-(2**64), 2**64).map(str),
    st.floats(allow_nan=False, width=32).map(repr),
    st.floats(allow_nan=False).map(repr),
    st.floats(allow_nan=False).map(lambda x: f"{x:.17e}"),
)
_REAL = st.one_of(st.floats(width=32).map(repr), st.floats().map(repr),
                  st.floats(allow_nan=False).map(lambda x: f"{x:.17e}"),
                  st.sampled_from(["inf", "-inf", "nan", "-0", "1e-400", "+.5", "5."]))


def _integer_value(type_line):
    bounds = {"bool": (0, 1), "int8_t": (-128, 127), "uint16_t": (0, 65535),
              "uint64_t": (0, 2**64 - 1)}
    lo, hi = next((b for t, b in bounds.items() if t in type_line), (-(2**63), 2**63 - 1))
    return st.integers(lo, hi).map(str)


_BLANK = st.sampled_from([" ", "\t", "  ", " \t ", "\r "])
_END = st.sampled_from(["\n", "\n", "\n", "\r\n", " \n", "\n\n", "\n%c\n", "\n \n"])


@st.composite
def _files(draw):
    fmt = draw(st.sampled_from(["coordinate", "coordinate", "array"]))
    fields = ["real", "integer"] + (["pattern"] if fmt == "coordinate" else [])
    field = draw(st.sampled_from(fields))
    symmetries = ["general", "symmetric"] + (["skew-symmetric"] if field != "pattern" else [])
    symmetry = draw(st.sampled_from(symmetries))
    type_line = draw(st.sampled_from(["", "%%GraphBLAS type bool\n", "%%GraphBLAS type int8_t\n",
                                      "%%GraphBLAS type uint16_t\n",
                                      "%%GraphBLAS type int64_t\n",
                                      "%%GraphBLAS type uint64_t\n",
                                      "%%GraphBLAS type float\n"]))
    if symmetry == "skew-symmetric" and ("uint" in type_line or "bool" in type_line):
        type_line = ""
    n = draw(st.integers(1, 4))
    m = n if symmetry != "general" else draw(st.integers(1, 4))
    per_line = {"coordinate": 3 if field != "pattern" else 2, "array": 1}[fmt]
    # Half the files are well formed (so the fast path's results are compared), half are
    # built from any tokens (so are its rejections).
    clean = draw(st.booleans())
    positions = [(i, j) for j in range(1, m + 1) for i in range(1, n + 1)
                 if symmetry == "general" or i > j or (i == j and symmetry == "symmetric")]
    if clean and fmt == "coordinate":
        positions = draw(st.permutations(positions))
        nlines = draw(st.integers(0, len(positions)))
    elif clean:
        nlines = len(positions) - (n if symmetry == "skew-symmetric" else 0)
    else:
        nlines = draw(st.integers(0, 8))
    if clean and field == "integer" or "type" in type_line and "float" not in type_line:
        value = _integer_value(type_line)
    else:
        value = _VALUE if not clean else _REAL
    lines = []
    for line in range(nlines):
        if clean:
            tokens = [f"{positions[line][0]:0{draw(st.integers(1, 3))}d}",
                      str(positions[line][1])] if fmt == "coordinate" else []
            if field != "pattern":
                tokens.append(draw(value))
        else:
            tokens = []
            for k in range(per_line + draw(st.sampled_from([0, 0, 0, 0, 0, 1, -1]))):
                is_index = fmt == "coordinate" and k < 2
                tokens.append(draw(_INDEX if is_index else _VALUE))
        seps = [draw(_BLANK) for _ in tokens]
        lines.append("".join(t + s for t, s in zip(tokens, seps[1:] + [""])) + draw(_END))
    count = len(lines) + (0 if clean else draw(st.sampled_from([0, 0, 0, 1, -1])))
    size = f"{n} {m} {max(count, 0)}" if fmt == "coordinate" else f"{n} {m}"
    text = (f"%%MatrixMarket matrix {fmt} {field} {symmetry}\n{type_line}{size}\n"
            + "".join(lines))
    if draw(st.booleans()) and text.endswith("\n"):
        text = text[:-1]
    return text.encode("latin-1")


@fast_only
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=_files(), chunk=st.sampled_from([1 << 20, 1, 7, 40]),
       threads=st.sampled_from([1, 2, 5]))
def test_fast_path_agrees_with_the_numpy_parser(monkeypatch, data, chunk, threads):
    monkeypatch.setattr(_mmio, "_FAST_CHUNK", chunk)
    monkeypatch.setattr(_mmio, "_FAST_THREADS", threads)
    _same_both_ways(data)


@st.composite
def _decimal(draw):
    digits = draw(st.text("0123456789", min_size=1, max_size=26))
    dot = draw(st.integers(0, len(digits)))
    mantissa = digits[:dot] + ("." + digits[dot:] if draw(st.booleans()) else digits[dot:])
    exponent = draw(st.one_of(st.integers(-30, 30), st.integers(-340, 310)))
    sign = draw(st.sampled_from(["", "-", "+"]))
    return f"{sign}{mantissa}e{exponent}" if draw(st.booleans()) else f"{sign}{mantissa}"


@fast_only
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_decimal(), min_size=20, max_size=20))
def test_reals_are_correctly_rounded(tokens):
    body = "".join(f"{i + 1} 1 {t}\n" for i, t in enumerate(tokens))
    text = f"%%MatrixMarket matrix coordinate real general\n20 1 20\n{body}".encode()
    _, _, values, _, _ = _mmio._read_coo(text, "f", None, fast=True)
    expected = np.array([float(t) for t in tokens])
    assert values.view(np.uint64).tolist() == expected.view(np.uint64).tolist()
    # float32: the fast path's guard against double rounding, against the NumPy parser's
    # exact decision of ties
    _same_both_ways(text, "FP32")


@fast_only
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_large_bodies_in_many_chunks(monkeypatch, threads):
    """Chunk regions, compaction, and a body whose blank and comment lines make the regions
    tighter than the lines (the one-piece retry)."""
    rng = np.random.default_rng(7)
    n = 3000
    r = rng.integers(1, 500, n)
    c = rng.integers(1, 500, n)
    keep = np.unique(r * 1000 + c, return_index=True)[1]
    r, c = r[np.sort(keep)], c[np.sort(keep)]
    v = rng.standard_normal(r.shape[0])
    lines = [f"{a} {b} {x!r}\n" for a, b, x in zip(r.tolist(), c.tolist(), v.tolist())]
    for k in range(0, len(lines), 97):
        lines[k] = "%comment\n\n" + lines[k]
    header = f"%%MatrixMarket matrix coordinate real general\n500 500 {r.shape[0]}\n"
    monkeypatch.setattr(_mmio, "_FAST_CHUNK", 512)
    monkeypatch.setattr(_mmio, "_FAST_THREADS", threads)
    got = _same_both_ways((header + "".join(lines)).encode())
    assert got[0] == "ok" and got[2] == (r - 1).tolist()
    too_many = (header + "".join(lines) + "1 1 1.0\n").encode()
    assert _same_both_ways(too_many)[0] == "error"


@fast_only
def test_mapped_file_reads_like_bytes(tmp_path, data_dir):
    path = os.path.join(data_dir, "lagraph", "west0067.mtx")
    with open(path, "rb") as f:
        data = f.read()
    copy = tmp_path / "west.mtx"
    copy.write_bytes(data)
    a = _mmio.read_coo(str(copy))
    b = _mmio.read_coo(data, fast=False)
    for x, y in zip(a[:3], b[:3]):
        assert np.array_equal(x, y)


@fast_only
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 6), m=st.integers(1, 6), data=st.data(),
       order=st.sampled_from(["row", "column", "shuffled", "duplicate"]),
       field=st.sampled_from(["real", "integer", "pattern"]),
       chunk=st.sampled_from([1 << 20, 1, 9]), threads=st.sampled_from([1, 3]))
def test_entries_in_order_build_the_same_matrix(monkeypatch, n, m, data, order, field, chunk,
                                                threads):
    """Entries found strictly increasing (row- or column-major, across chunk boundaries too)
    build the CSR without a sort; anything else goes through Matrix.from_coo."""
    monkeypatch.setattr(_mmio, "_FAST_CHUNK", chunk)
    monkeypatch.setattr(_mmio, "_FAST_THREADS", threads)
    cells = [(i, j) for i in range(1, n + 1) for j in range(1, m + 1)]
    chosen = data.draw(st.lists(st.sampled_from(cells), unique=True, min_size=1))
    if order == "row":
        chosen.sort()
    elif order == "column":
        chosen.sort(key=lambda ij: (ij[1], ij[0]))
    elif order == "duplicate":
        chosen.append(chosen[0])
    values = [data.draw(st.integers(-9, 9)) for _ in chosen]
    body = "".join(f"{i} {j}" + ("" if field == "pattern" else f" {v}") + "\n"
                   for (i, j), v in zip(chosen, values))
    text = f"%%MatrixMarket matrix coordinate {field} general\n{n} {m} {len(chosen)}\n{body}"
    found = _mmio._read_entries(text.encode(), "f", None)[5]
    by_column = [(j, i) for i, j in chosen]
    increasing = {"row": all(a < b for a, b in zip(chosen, chosen[1:])),
                  "column": all(a < b for a, b in zip(by_column, by_column[1:]))}
    assert found == ("row" if increasing["row"] else "column" if increasing["column"] else
                     None)
    import graphblast as gb

    rows, cols, vals, header, _ = _mmio._read_coo(text.encode(), "f", None, fast=False)
    try:
        want = gb.Matrix.from_coo(rows, cols, vals, header.dtype, nrows=n, ncols=m,
                                  device="cpu")
    except GraphblasException:
        with pytest.raises(GraphblasException, match="also given on line"):
            gb.io.mmread(text.encode(), device="cpu")
        return
    got = gb.io.mmread(text.encode(), device="cpu")
    assert got.isequal(want, check_dtype=True)
    csr = got._csr()
    assert csr.indptr.dtype == np.int64 and csr.indices.dtype == np.int64


def test_files_the_fast_path_rejects_still_read(monkeypatch, data_dir):
    """Should the fast path ever refuse a valid file, the NumPy parser reads it: mmread gives
    the same Matrix either way (and without the extension everything goes that way)."""
    import graphblast as gb

    paths = [os.path.join(data_dir, "lagraph", name)
             for name in ("west0067.mtx", "karate.mtx", "skew_fp32.mtx", "full_symmetric.mtx")]
    want = [gb.io.mmread(p, device="cpu") for p in paths]
    monkeypatch.setattr(_mmio, "_fast_body", lambda buf, header: None)
    for path, expected in zip(paths, want):
        assert gb.io.mmread(path, device="cpu").isequal(expected, check_dtype=True), path


@fast_only
@pytest.mark.parametrize("dtype", ["BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8",
                                   "UINT16", "UINT32", "UINT64", "FP64"])
@pytest.mark.parametrize("how", [{}, {"field": "pattern"}, {"symmetry": "symmetric"},
                                 {"format": "array"}, {"field": "integer"}])
def test_compiled_writer_writes_the_numpy_writers_bytes(monkeypatch, dtype, how):
    import io

    import graphblast as gb

    rng = np.random.default_rng(5)
    np_type = gb.dtypes.lookup_dtype(dtype).np_type
    if np_type.kind == "f":
        pool = np.array([0.0, -0.0, 1.0, -2.5, 0.1, 1e-300, 1.7976931348623157e308, np.inf,
                         -np.inf, np.nan, -np.nan, 5e-324, 123456789.125])
        if how.get("field") == "integer":
            pool = np.array([0.0, -0.0, 1.0, -3.0, 2.0**62, -(2.0**63) + 1024])
    elif np_type.kind == "b":
        pool = np.array([True, False])
    else:
        info = np.iinfo(np_type)
        pool = np.array([info.min, info.max, 0, 1, 7], dtype=np_type)
    n = 6
    full = how.get("format") == "array"
    dense = rng.choice(pool, (n, n)).astype(np_type)
    if how.get("symmetry"):
        dense = np.tril(dense) + np.tril(dense, -1).T
    A = gb.Matrix.from_dense(dense, None if full else dense.flat[0], dtype=dtype,
                             device="cpu")

    def written():
        out = io.BytesIO()
        gb.io.mmwrite(out, A, **how)
        return out.getvalue()

    fast = written()
    monkeypatch.setattr(_mmio, "_fast_writer_kind", lambda *args: None)
    assert fast == written()
