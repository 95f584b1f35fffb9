"""graphblast.io.mmread / mmwrite: the LAGraph corpus, malformed input, exact round trips."""

import bz2
import gzip
import io
import os

import numpy as np
import pytest
import scipy.io
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphblast as gb
from graphblast import dtypes
from graphblast.exceptions import GraphblasException, InvalidValue, OutOfMemory
from graphblast.io import _mmio

LAGRAPH = ("lagraph",)

# Files of the corpus that must be refused (tests/data/README.md), and the line each error names
# (None: the error is about the whole file).
REJECTED = {
    "mangled1.mtx": 1, "mangled2.mtx": 1, "mangled3.mtx": 1, "mangled4.mtx": 1,
    "mangled5.mtx": 1, "mangled6.mtx": 5, "mangled7.mtx": 2, "mangled8.mtx": 4,
    "mangled9.mtx": 4, "mangled10.mtx": None, "mangled11.mtx": 5, "mangled12.mtx": 5,
    "mangled13.mtx": 7, "mangled14.mtx": 8, "mangled15.mtx": 2, "mangled16.mtx": 2,
    "mangled_bool.mtx": 10, "mangled_format.mtx": 1, "mangled_int8.mtx": 8,
    "mangled_int16.mtx": 8, "mangled_int32.mtx": 8, "mangled_uint8.mtx": 9,
    "mangled_uint16.mtx": 9, "mangled_uint32.mtx": 9, "mangled_skew.mtx": None,
    "garbage.lagraph": 1, "complex.mtx": 1,
    # no %%MatrixMarket banner (LAGraph guesses a format for these; graphblast and SciPy do not)
    "west0067_noheader.mtx": 1, "full_noheader.mtx": 1,
    # not Matrix Market files at all
    "LICENSE": 1, "comments.txt": 1, "pushpull.m": 1,
}

# Shapes and stored entries from tests/data/README.md (symmetric files count both triangles).
KNOWN = {
    "karate.mtx": (34, 34, 156), "A.mtx": (7, 7, None), "jagmesh7.mtx": (1138, 1138, None),
    "bcsstk13.mtx": (2003, 2003, None), "zenios.mtx": (2873, 2873, None),
    "LFAT5.mtx": (14, 14, None), "LFAT5_two.mtx": (28, 28, None),
    "LFAT5_hypersparse.mtx": (2000, 2000, None), "tree-example.mtx": (6, 6, None),
    "west0067.mtx": (67, 67, 294), "west0067_jumbled.mtx": (67, 67, 294),
}

# The type each file's %%GraphBLAS line (or field) gives.
TYPES = {
    "matrix_bool.mtx": "BOOL", "matrix_int8.mtx": "INT8", "matrix_int16.mtx": "INT16",
    "matrix_int32.mtx": "INT32", "matrix_int64.mtx": "INT64", "matrix_uint8.mtx": "UINT8",
    "matrix_uint16.mtx": "UINT16", "matrix_uint32.mtx": "UINT32",
    "matrix_uint64.mtx": "UINT64", "matrix_fp32.mtx": "FP32", "matrix_fp64.mtx": "FP64",
    "karate.mtx": "FP64", "west0067.mtx": "FP64", "cover.mtx": "INT32",
}


def corpus(data_dir):
    return sorted(os.listdir(os.path.join(data_dir, *LAGRAPH)))


def test_corpus_reads_or_refuses_every_file(data_dir, device):
    names = corpus(data_dir)
    assert len(names) > 90
    for name in names:
        path = os.path.join(data_dir, *LAGRAPH, name)
        if name in REJECTED:
            with pytest.raises(InvalidValue) as info:
                gb.io.mmread(path, device=device)
            message = str(info.value)
            assert message.startswith(path)
            line = REJECTED[name]
            if line is not None:
                assert f"line {line}:" in message, message
        else:
            A = gb.io.mmread(path, device=device)
            assert A.device.startswith(device)
            if name in KNOWN:
                nrows, ncols, nvals = KNOWN[name]
                assert A.shape == (nrows, ncols)
                if nvals is not None:
                    assert A.nvals == nvals
            if name in TYPES:
                assert A.dtype == dtypes.lookup_dtype(TYPES[name]), name


def test_corpus_agrees_with_python_graphblas(data_dir, device):
    """Where python-graphblas (through SciPy) reads a file, the entries are the same."""
    import graphblas as pgb
    compared = 0
    for name in corpus(data_dir):
        if name in REJECTED or not name.endswith(".mtx"):
            continue
        path = os.path.join(data_dir, *LAGRAPH, name)
        try:
            ref = pgb.io.mmread(path, engine="scipy")
        except (ValueError, OverflowError):
            continue  # SciPy refuses LAGraph's typed files (e.g. a float in an "integer" file)
        A = gb.io.mmread(path, device=device)
        r1, c1, v1 = A.to_coo()
        r2, c2, v2 = ref.to_coo()
        assert A.shape == ref.shape, name
        np.testing.assert_array_equal(r1, r2, err_msg=name)
        np.testing.assert_array_equal(c1, c2, err_msg=name)
        # python-graphblas ignores %%GraphBLAS type lines: compare in graphblast's type
        np.testing.assert_array_equal(v1, v2.astype(v1.dtype), err_msg=name)
        compared += 1
    assert compared > 50


def test_python_graphblas_types(data_dir, device):
    """Without a %%GraphBLAS line: real -> FP64, integer -> INT64, pattern -> FP64 ones."""
    files = {
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 2.5\n": ("FP64", 2.5),
        "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -7\n": ("INT64", -7),
        "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n": ("FP64", 1.0),
    }
    for text, (dtype, value) in files.items():
        A = gb.io.mmread(io.StringIO(text), device=device)
        assert A.dtype == dtypes.lookup_dtype(dtype)
        assert A.to_coo()[2].tolist() == [value]


def test_symmetric_expansion(data_dir, device):
    A = gb.io.mmread(os.path.join(data_dir, "lagraph", "karate.mtx"), device=device)
    assert A.isequal(A.T.new())
    S = gb.io.mmread(os.path.join(data_dir, "lagraph", "skew_int8.mtx"), device=device)
    r, c, v = S.to_coo()
    dense = np.zeros(S.shape, dtype=np.int64)
    dense[r.astype(int), c.astype(int)] = v
    np.testing.assert_array_equal(dense, -dense.T)


def test_array_formats(device):
    general = "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n"
    A = gb.io.mmread(io.StringIO(general), device=device)
    np.testing.assert_array_equal(A.to_dense(), [[1, 3, 5], [2, 4, 6]])
    sym = "%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n"
    A = gb.io.mmread(io.StringIO(sym), device=device)
    np.testing.assert_array_equal(A.to_dense(), [[1, 2, 3], [2, 4, 5], [3, 5, 6]])
    skew = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"
    A = gb.io.mmread(io.StringIO(skew), device=device)
    assert A.nvals == 9  # an array is dense: the zero diagonal is stored
    np.testing.assert_array_equal(A.to_dense(), [[0, -1, -2], [1, 0, -3], [2, 3, 0]])


@pytest.mark.parametrize("big", [False, True])
def test_skew_symmetric_diagonal_entry_is_kept(device, big):
    # SciPy (and python-graphblas, which reads through it) keep a diagonal entry of a
    # skew-symmetric file as given and mirror the others negated; both parsers do the same.
    n = 3000 if big else 2
    lines = [f"{i + 1} {i + 1} {i + 0.5}" for i in range(n)] + ["2 1 3"]
    text = (f"%%MatrixMarket matrix coordinate real skew-symmetric\n{n} {n} {len(lines)}\n"
            + "\n".join(lines) + "\n")
    A = gb.io.mmread(io.StringIO(text), device=device)
    expected = scipy.io.mmread(io.StringIO(text)).toarray()
    np.testing.assert_array_equal(A.to_dense(fill_value=0), expected)
    assert A[1, 0].new() == 3 and A[0, 1].new() == -3 and A[1, 1].new() == 1.5


MALFORMED = [
    # (body after a "real general 3 3 2" header, line of the error, words in the message)
    ("1 1 1,5\n2 2 1\n", 4, "','"),
    ("1 1 0x10\n2 2 1\n", 4, "'x'"),
    ("1 1 1.5junk\n2 2 1\n", 4, "'j'"),
    ("1 1 1.5.3\n2 2 1\n", 4, "not a real number"),
    ("1 1 1e\n2 2 1\n", 4, "not a real number"),
    ("1 1 --1\n2 2 1\n", 4, "not a real number"),
    ("1 1 1-\n2 2 1\n", 4, "not a real number"),
    ("1 1 1 5\n2 2 1\n", 4, "found 4"),
    ("1 1\n2 2 1\n", 4, "found 2"),
    ("1 1 1\n2 2 1\n3 3 1\n", 6, "more entries"),
    ("1 1 1\n", None, "ends after 1 entries"),
    ("1.0 1 1\n2 2 1\n", 4, "not an integer"),
    ("1e0 1 1\n2 2 1\n", 4, "not an integer"),
    ("-1 1 1\n2 2 1\n", 4, "without a sign"),
    ("+1 1 1\n2 2 1\n", 4, "without a sign"),
    ("0 1 1\n2 2 1\n", 4, "out of range"),
    ("4 1 1\n2 2 1\n", 4, "out of range"),
    ("1 4 1\n2 2 1\n", 4, "out of range"),
    ("1 1 1\x002\n2 2 1\n", 4, "NUL"),
    ("1 1 1\n1 1 2\n", 5, "also given on line 4"),
    ("1 1 1 % comment\n2 2 1\n", 4, "'%'"),
]


@pytest.mark.parametrize("body, line, words", MALFORMED)
def test_malformed_real_files(body, line, words):
    text = "%%MatrixMarket matrix coordinate real general\n%\n3 3 2\n" + body
    with pytest.raises(InvalidValue) as info:
        gb.io.mmread(io.BytesIO(text.encode("latin-1")))
    message = str(info.value)
    if line is not None:
        assert f"line {line}:" in message, message
    assert words in message, message


@pytest.mark.parametrize("text, words", [
    ("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", "'.'"),
    ("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1e3\n", "'e'"),
    ("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 99999999999999999999\n",
     "too large"),
    ("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 9223372036854775808\n",
     "out of range for int64"),
    ("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", "found 3"),
    ("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", "must be square"),
    (("%%MatrixMarket matrix coordinate integer skew-symmetric\n%%GraphBLAS type int8_t\n"
      "2 2 1\n2 1 -128\n"), "negation"),
    ("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n1 2 1\n", "also given"),
    ("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n", "complex"),
    ("%%MatrixMarket matrix array pattern general\n2 2\n", "array pattern"),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", "holds 4"),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n5\n", "more values"),
    ("%%MatrixMarket vector coordinate real general\n2 1\n1 1\n", "must be 'matrix'"),
    ("%%MatrixMarket matrix coordinate real general\n2 2\n", "rows columns entries"),
    ("%%MatrixMarket matrix coordinate real general\n-2 2 1\n1 1 1\n", "non-negative"),
    ("%%MatrixMarket matrix coordinate real general\n", "ends before its size line"),
    ("", "empty"),
])
def test_malformed_headers_and_fields(text, words):
    with pytest.raises(InvalidValue) as info:
        gb.io.mmread(io.StringIO(text))
    assert words in str(info.value), str(info.value)


BODY = "% a comment\n3 3 2\n1 1 1.5\n2 2 2.5\n"

# A first line that is not a valid banner, and words of the error besides the line, the quoted
# line and the expected banner (which every one of these messages names).
BAD_BANNERS = [
    ("%%MatrixMarkt matrix coordinate real general", "misspelled or missing"),
    ("%%MatrixMarketmatrix coordinate real general", "misspelled or missing"),
    ("%MatrixMarket matrix coordinate real general", "misspelled or missing"),
    ("% a comment before the banner", "misspelled or missing"),
    ("%%MatrixMarket matrx coordinate real general", "object must be 'matrix'"),
    ("%%MatrixMarket matrix cordinate real general", "unknown format 'cordinate'"),
    ("%%MatrixMarket matrix coordinate reel general", "unknown field 'reel'"),
    ("%%MatrixMarket matrix coordinate real generl", "unknown symmetry 'generl'"),
    ("%%MatrixMarket matrix coordinate", "2 keywords"),
    ("%%MatrixMarket matrix coordinate real", "3 keywords"),
    ("%%MatrixMarket", "0 keywords"),
    ("%%MatrixMarket matrix coordinate real general general", "5 keywords"),
    ("%%matrixmarket matrix coordinate real general", "with this case"),
    ("%%MATRIXMARKET matrix coordinate real general", "with this case"),
    ("\ufeff%%MatrixMarket matrix coordinate real general", "must be its banner"),  # a BOM
    ("3 3 2", "must be its banner"),  # no banner: the size line first
    ("", "must be its banner"),  # a blank line before the banner
]


def _read_both_ways(text, monkeypatch):
    """mmread's outcome with the compiled fast path (where built) and with NumPy alone."""
    outcomes = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(_mmio, "_mmfast", None)  # as an install without a C compiler
            try:
                outcomes.append(gb.io.mmread(io.BytesIO(text.encode("utf-8")), device="cpu"))
            except GraphblasException as exc:
                outcomes.append(exc)
    return outcomes


@pytest.mark.parametrize("first, words", BAD_BANNERS)
def test_first_line_must_be_a_valid_banner(first, words, monkeypatch):
    text = first + "\n" + ("%%MatrixMarket matrix coordinate real general\n" if not first
                           else "") + BODY
    for exc in _read_both_ways(text, monkeypatch):
        assert isinstance(exc, InvalidValue), exc
        message = str(exc)
        assert message.startswith("<BytesIO>, line 1: "), message
        assert words in message, message
        assert f"got '{_mmio._show(first.encode())}'" in message, message
        assert ("expected '%%MatrixMarket matrix <coordinate|array> <real|integer|complex|"
                "pattern> <general|symmetric|skew-symmetric|hermitian>'") in message, message
    with pytest.raises(InvalidValue, match="line 1: "):
        gb.io.mminfo(io.BytesIO(text.encode("utf-8")))
    with pytest.raises(InvalidValue, match="line 1: "):
        _mmio.read_coo(io.BytesIO(text.encode("utf-8")), fast=False)


@pytest.mark.parametrize("first", [
    "%%MatrixMarket matrix coordinate real general",
    "%%MatrixMarket MATRIX Coordinate REAL General",
    "%%MatrixMarket Matrix COORDINATE real GENERAL",
    "  %%MatrixMarket\tmatrix  coordinate real general  \r",
])
def test_banner_keywords_in_any_case(first, monkeypatch):
    """The four keywords after %%MatrixMarket may be in any case (NIST's mmio.c lower-cases
    them, SciPy accepts them); blanks around the words are allowed as on every line."""
    for A in _read_both_ways(first + "\n" + BODY, monkeypatch):
        assert A.shape == (3, 3) and A.to_coo()[2].tolist() == [1.5, 2.5]


@pytest.mark.parametrize("first", [
    "%%MatrixMarket matrix coordinate real general",
    "%%MatrixMarket MATRIX Coordinate REAL General",
    "%%matrixmarket matrix coordinate real general",
    "%%MATRIXMARKET MATRIX COORDINATE REAL GENERAL",
    "%%MatrixMarkt matrix coordinate real general",
    "%%MatrixMarket matrx coordinate real general",
    "%%MatrixMarket matrix coordinate real",
    "3 3 2",
])
def test_banner_case_rule_is_scipys(first):
    """Where a banner differs only in case or spelling, graphblast accepts it exactly when
    SciPy does (SciPy is more lenient elsewhere: extra words, '%MatrixMarket')."""
    import scipy.io

    text = first + "\n" + BODY
    try:
        scipy.io.mmread(io.StringIO(text))
        scipy_reads = True
    except ValueError:
        scipy_reads = False
    try:
        gb.io.mmread(io.StringIO(text), device="cpu")
        we_read = True
    except InvalidValue:
        we_read = False
    assert we_read == scipy_reads


def test_huge_declared_sizes_allocate_nothing():
    # 10**15 entries declared, 1 present: refused after reading the one line.
    text = "%%MatrixMarket matrix coordinate real general\n10 10 1000000000000000\n1 1 1\n"
    with pytest.raises(InvalidValue, match="declares 1000000000000000"):
        gb.io.mmread(io.StringIO(text))
    text = "%%MatrixMarket matrix array real general\n1000000000 1000000000\n1\n"
    with pytest.raises(InvalidValue, match="holds 1000000000000000000"):
        gb.io.mmread(io.StringIO(text))
    text = f"%%MatrixMarket matrix coordinate real general\n{2**61} 2 1\n1 1 1\n"
    with pytest.raises(InvalidValue, match="2\\*\\*60"):
        gb.io.mmread(io.StringIO(text))
    # A valid hypersparse file whose row pointers could not fit in memory.
    text = f"%%MatrixMarket matrix coordinate real general\n{2**59} 2 1\n1 1 1\n"
    with pytest.raises(OutOfMemory, match="row pointers"):
        gb.io.mmread(io.StringIO(text))


def test_dup_op_combines_duplicates(device):
    text = "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 1\n1 1 5\n2 2 3\n"
    A = gb.io.mmread(io.StringIO(text), dup_op=gb.binary.plus, device=device)
    assert A.to_coo()[2].tolist() == [6, 3]


def test_dtype_option(device):
    text = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 100\n2 2 -3\n"
    A = gb.io.mmread(io.StringIO(text), dtype="INT8", device=device)
    assert A.dtype == dtypes.INT8 and A.to_coo()[2].tolist() == [100, -3]
    A = gb.io.mmread(io.StringIO(text), dtype=np.float32, device=device)
    assert A.dtype == dtypes.FP32
    with pytest.raises(InvalidValue, match="out of range for uint8"):
        gb.io.mmread(io.StringIO(text), dtype="UINT8")


def test_body_comments_blank_lines_tabs_and_crlf(device):
    text = ("%%MatrixMarket matrix coordinate real general\r\n% c\r\n3 3 3\r\n\r\n"
            "1\t1   1.5\r\n% a comment between entries\r\n  2 2 2.5  \r\n3 3 -inf")
    A = gb.io.mmread(io.BytesIO(text.encode()), device=device)
    assert A.to_coo()[2].tolist() == [1.5, 2.5, -np.inf]


def test_sources(tmp_path, device):
    text = b"%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 0.25\n"
    for name, data in (("a.mtx", text), ("a.mtx.gz", gzip.compress(text)),
                       ("a.mtx.bz2", bz2.compress(text)), ("disguised.mtx", gzip.compress(text))):
        path = tmp_path / name
        path.write_bytes(data)
        for source in (path, str(path)):
            A = gb.io.mmread(source, device=device)
            assert A.to_coo()[2].tolist() == [0.25]
    with open(tmp_path / "a.mtx", "rb") as f:
        assert gb.io.mmread(f, device=device).nvals == 1
    with open(tmp_path / "a.mtx") as f:
        assert gb.io.mmread(f, device=device).nvals == 1
    (tmp_path / "broken.gz").write_bytes(gzip.compress(text)[:-5])
    with pytest.raises(InvalidValue, match="corrupt or truncated"):
        gb.io.mmread(tmp_path / "broken.gz")


def test_python_graphblas_compatible_signature():
    text = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n"
    assert gb.io.mmread(io.StringIO(text), "scipy").nvals == 1
    with pytest.raises(ValueError, match="engine"):
        gb.io.mmread(io.StringIO(text), "nope")
    with pytest.raises(TypeError, match="parallelism"):
        gb.io.mmread(io.StringIO(text), parallelism=8)


def test_mminfo(data_dir):
    info = gb.io.mminfo(os.path.join(data_dir, "lagraph", "karate.mtx"))
    assert info[:6] == (34, 34, 78, "coordinate", "pattern", "symmetric")


# -- writing -------------------------------------------------------------------------------


def _roundtrip(A, **kwargs):
    out = io.BytesIO()
    gb.io.mmwrite(out, A, **kwargs)
    return gb.io.mmread(io.BytesIO(out.getvalue()), device=A.device), out.getvalue()


def _same(A, B):
    assert A.dtype == B.dtype and A.shape == B.shape
    r1, c1, v1 = A.to_coo()
    r2, c2, v2 = B.to_coo()
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(c1, c2)
    # bit for bit: -0.0, NaN and every float survive
    assert np.array_equal(v1, v2, equal_nan=True)
    if A.dtype.is_float:
        assert np.array_equal(np.signbit(v1), np.signbit(v2))


def _values(draw, dtype, n):
    np_type = dtype.np_type
    if dtype.is_bool:
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if dtype.is_int:
        info = np.iinfo(np_type)
        ints = st.integers(int(info.min), int(info.max))
        return np.array(draw(st.lists(ints, min_size=n, max_size=n)), dtype=np_type)
    width = 32 if np_type == np.float32 else 64
    floats = st.floats(width=width, allow_nan=True, allow_infinity=True)
    return np.array(draw(st.lists(floats, min_size=n, max_size=n)), dtype=np_type)


@st.composite
def matrices(draw):
    dtype = draw(st.sampled_from(dtypes.ALL_TYPES))
    nrows = draw(st.integers(0, 6))
    ncols = draw(st.integers(0, 6))
    cells = [(i, j) for i in range(nrows) for j in range(ncols)]
    chosen = draw(st.lists(st.sampled_from(cells), unique=True, max_size=len(cells))) \
        if cells else []
    rows = np.array([i for i, _ in chosen], dtype=np.int64)
    cols = np.array([j for _, j in chosen], dtype=np.int64)
    values = _values(draw, dtype, len(chosen))
    return gb.Matrix.from_coo(rows, cols, values, dtype, nrows=nrows, ncols=ncols)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices())
def test_roundtrip_every_type(A):
    B, _ = _roundtrip(A)
    _same(A, B)


@st.composite
def symmetric_matrices(draw):
    dtype = draw(st.sampled_from(dtypes.ALL_TYPES))
    skew = draw(st.booleans()) and dtype.is_signed
    n = draw(st.integers(0, 6))
    lower = [(i, j) for i in range(n) for j in range(i if skew else i + 1)]
    chosen = draw(st.lists(st.sampled_from(lower), unique=True, max_size=len(lower))) \
        if lower else []
    values = _values(draw, dtype, len(chosen))
    if skew and dtype.is_int:
        values[values == np.iinfo(dtype.np_type).min] = 0
    rows = np.array([i for i, _ in chosen], dtype=np.int64)
    cols = np.array([j for _, j in chosen], dtype=np.int64)
    off = rows != cols
    mirrored = -values[off] if skew else values[off]
    A = gb.Matrix.from_coo(np.concatenate((rows, cols[off])), np.concatenate((cols, rows[off])),
                           np.concatenate((values, mirrored)), dtype, nrows=n, ncols=n)
    return A, "skew-symmetric" if skew else "symmetric"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(symmetric_matrices())
def test_roundtrip_symmetric(case):
    A, symmetry = case
    B, text = _roundtrip(A, symmetry=symmetry)
    _same(A, B)
    assert symmetry.encode() in text.splitlines()[0]


def test_roundtrip_on_device_and_to_paths(tmp_path, device, rng):
    values = rng.standard_normal(200)
    A = gb.Matrix.from_coo(rng.integers(0, 30, 200), rng.integers(0, 40, 200), values,
                           nrows=30, ncols=40, dup_op=gb.binary.first, device=device)
    for name in ("a.mtx", "a.mtx.gz", "a.mtx.bz2"):
        gb.io.mmwrite(tmp_path / name, A, comment="two\nlines")
        B = gb.io.mmread(tmp_path / name, device=device)
        _same(A, B)
    text = (tmp_path / "a.mtx").read_text().splitlines()
    assert text[:4] == ["%%MatrixMarket matrix coordinate real general",
                        "%%GraphBLAS type double", "%two", "%lines"]
    with open(tmp_path / "t.mtx", "w") as f:
        gb.io.mmwrite(f, A)
    _same(A, gb.io.mmread(tmp_path / "t.mtx", device=device))


def test_write_options(device):
    A = gb.Matrix.from_coo([0, 1, 1], [1, 0, 1], [2.0, 2.0, -1.0], device=device)
    B, text = _roundtrip(A, field="pattern")
    assert b"pattern" in text and B.dtype == dtypes.FP64
    assert B.to_coo()[2].tolist() == [1.0, 1.0, 1.0]
    B, text = _roundtrip(A, field="integer")
    assert b"1 2 2\n" in text
    _same(A, B)
    B, text = _roundtrip(A, symmetry="symmetric")
    assert text.count(b"\n") == 3 + 2  # banner, type line, size line, lower triangle
    _same(A, B)
    B, text = _roundtrip(A, precision=2)
    assert b"-1\n" in text or b"-1.0\n" in text
    F = gb.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], [1, 2, 3, 4], dtypes.INT16,
                           device=device)
    B, text = _roundtrip(F, format="array")
    assert text.splitlines()[0] == b"%%MatrixMarket matrix array integer general"
    assert text.splitlines()[3:] == [b"1", b"3", b"2", b"4"]
    _same(F, B)


@pytest.mark.parametrize("kwargs, words", [
    ({"symmetry": "symmetric"}, "not symmetric"),
    ({"symmetry": "skew-symmetric"}, "diagonal"),
    ({"field": "integer"}, "integral"),
    ({"field": "complex"}, "complex"),
    ({"format": "array"}, "every entry"),
    ({"symmetry": "upper"}, "symmetry must be"),
    ({"precision": 0}, "precision"),
])
def test_write_refuses(kwargs, words):
    A = gb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.5, 2.0, 3.0], nrows=2, ncols=2)
    with pytest.raises(InvalidValue, match=words):
        gb.io.mmwrite(io.BytesIO(), A, **kwargs)


def test_write_refuses_unsigned_skew_and_vectors():
    A = gb.Matrix.from_coo([1], [0], [3], dtypes.UINT8, nrows=2, ncols=2)
    with pytest.raises(InvalidValue, match="signed"):
        gb.io.mmwrite(io.BytesIO(), A, symmetry="skew-symmetric")
    with pytest.raises(TypeError, match="Matrix"):
        gb.io.mmwrite(io.BytesIO(), gb.Vector.from_coo([0], [1.0], size=3))


def test_float32_parsing_is_correctly_rounded():
    # 1 + 2**-24 is exactly halfway between two float32 values: the text decides.  A decimal
    # just above that midpoint rounds to float64 *at* the midpoint, then float64 -> float32
    # would round to even (down): the exact decision must round up.
    above = "1.00000005960464477550"  # > 1 + 2**-24 by less than a float64 ulp
    below = "1.00000005960464477530"
    text = ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type float\n1 2 2\n"
            f"1 1 {above}\n1 2 {below}\n")
    values = gb.io.mmread(io.StringIO(text)).to_coo()[2]
    assert values[0] == np.nextafter(np.float32(1), np.float32(2))
    assert values[1] == np.float32(1)


def test_read_coo_needs_no_core():
    text = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 5\n3 3 7\n"
    rows, cols, values, header, lines = _mmio.read_coo(io.StringIO(text), fast=False)
    assert rows.tolist() == [1, 2, 0] and cols.tolist() == [0, 2, 1]
    assert values.tolist() == [5, 7, 5] and lines.tolist() == [3, 4, 3]
    assert (header.nrows, header.symmetry, header.dtype) == (3, "symmetric", dtypes.INT64)


def test_errors_are_graphblast_exceptions():
    with pytest.raises(GraphblasException):
        gb.io.mmread(io.BytesIO(b"\x00\x01\x02"))


@pytest.mark.parametrize("chunk", [23, 64, 500])
def test_many_small_chunks_give_the_same_result(data_dir, monkeypatch, chunk):
    """Files are parsed in pieces, several at a time: tiny pieces must change nothing."""
    from graphblast.io import _text

    names = ("west0067.mtx", "skew_fp32.mtx", "full_symmetric.mtx", "karate.mtx",
             "matrix_uint64.mtx")
    paths = [os.path.join(data_dir, "lagraph", name) for name in names]
    expected = [_mmio.read_coo(p)[:3] for p in paths]
    monkeypatch.setattr(_text, "CHUNK", chunk)
    for path, want in zip(paths, expected):
        got = _mmio.read_coo(path)[:3]
        for x, y in zip(got, want):
            assert np.array_equal(x, y, equal_nan=True), path
    body = "".join(f"{i} {i} {i}.5\n" for i in range(1, 200))
    text = f"%%MatrixMarket matrix coordinate real general\n300 300 199\n{body}"
    bad = text.replace("150 150 150.5", "150 150 150.5.5").replace("170 170", "170 1700")
    with pytest.raises(InvalidValue, match="line 152: value '150.5.5'"):
        gb.io.mmread(io.StringIO(bad))
    extra = text.replace("300 300 199", "300 300 120")
    with pytest.raises(InvalidValue, match="line 123: more entries than the 120"):
        gb.io.mmread(io.StringIO(extra))
    short = text.replace("300 300 199", "300 300 250")
    with pytest.raises(InvalidValue, match="ends after 199 entries"):
        gb.io.mmread(io.StringIO(short))


def test_a_file_that_cannot_fit_is_refused_before_its_body_is_read(monkeypatch):
    """The header's entry count gives the estimate; the body is not parsed."""
    from graphblast import _memory
    from graphblast.io import _mmio

    text = ("%%MatrixMarket matrix coordinate real symmetric\n1000 1000 3\n"
            "1 1 1.5\n2 1 2.5\n3 2 -1\n")
    monkeypatch.setattr(_memory, "ASK_ABOVE", 0)
    monkeypatch.setattr(_memory, "available_bytes", lambda xp=None: 1000)
    parsed = []
    real = _mmio._read_coordinate
    monkeypatch.setattr(_mmio, "_read_coordinate", lambda *a: parsed.append(1) or real(*a))
    with pytest.raises(OutOfMemory, match=r"1,000 x 1,000 Matrix of 6 entries needs about "
                                          r"0\.0 GiB but only 0\.0 GiB of host memory"):
        gb.io.mmread(io.StringIO(text))
    assert not parsed
    monkeypatch.setattr(_memory, "available_bytes", lambda xp=None: 1 << 40)
    assert gb.io.mmread(io.StringIO(text)).nvals == 5
