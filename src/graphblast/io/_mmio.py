"""Matrix Market reading and writing (coordinate and array formats).

The reader is strict where SciPy is lenient: every byte of the body is checked, every token
must be a complete number, entry counts must match, indices must be in range, symmetric files
must be square, and duplicate entries are an error unless ``dup_op`` combines them.  A
diagonal entry of a skew-symmetric file is kept as given, as SciPy (and python-graphblas) read it.  Line 1 must be the ``%%MatrixMarket`` banner (no
headerless files); the banner is parsed here, in Python, for both the compiled and the NumPy
body parser.  Problems raise
:class:`~graphblast.exceptions.InvalidValue` with the file name, the line and what is wrong.

Types follow python-graphblas's ``mmread`` (which reads through SciPy): ``real`` gives FP64,
``integer`` INT64 and ``pattern`` FP64 with every value 1.0.  LAGraph's structured comment
``%%GraphBLAS type <ctype>`` on line 2 selects the type instead (``bool``, ``int8_t`` ...
``uint64_t``, ``float``, ``double``), and ``mmwrite`` always writes that line, so a round trip
keeps the exact type and value of every entry.
"""

import collections
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._memory import check_rows
from ..dtypes import (
    BOOL,
    FP32,
    FP64,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    lookup_dtype,
)
from ..exceptions import GraphblasException, InvalidValue
from . import _text
from ._source import mapped_bytes, open_target

try:
    from . import _mmfast
except ImportError:  # installed without a C compiler: the NumPy parser reads everything
    _mmfast = None

__all__ = ["mminfo", "mmread", "mmwrite", "read_coo"]

MAX_DIM = 2**60  # GraphBLAS's largest dimension
_WRITE_CHUNK = 1 << 20  # entries formatted at a time by the writer
_WORKERS = 4  # threads parsing chunks of one file (at most the number of CPUs)
_FAST_CHUNK = 1 << 20  # the fast path gives each of its threads at least this many bytes
_FAST_THREADS = None  # threads of the fast path (None: one per CPU)

_FORMATS = ("coordinate", "array")
_FIELDS = ("real", "integer", "pattern", "complex")
_SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")

# %%GraphBLAS type names: LAGraph's C names (written), and the GrB_ and graphblast names.
_C_NAMES = {BOOL: "bool", INT8: "int8_t", INT16: "int16_t", INT32: "int32_t", INT64: "int64_t",
            UINT8: "uint8_t", UINT16: "uint16_t", UINT32: "uint32_t", UINT64: "uint64_t",
            FP32: "float", FP64: "double"}
_TYPE_NAMES = {}
for _t, _c in _C_NAMES.items():
    _TYPE_NAMES[_c] = _t
    _TYPE_NAMES[f"grb_{_t.name.lower()}"] = _t
    _TYPE_NAMES[_t.name.lower()] = _t
_COMPLEX_TYPE_NAMES = ("float complex", "double complex", "gxb_fc32", "gxb_fc64", "fc32", "fc64")


class Header:
    """What the lines before the data say about a Matrix Market file."""

    __slots__ = (
        "body_start",
        "dtype",
        "field",
        "format",
        "ncols",
        "nrows",
        "nvals",
        "size_line",
        "symmetry",
    )

    def __init__(self, fmt, field, symmetry, dtype, nrows, ncols, nvals, size_line,
                 body_start):
        self.format = fmt
        self.field = field
        self.symmetry = symmetry
        self.dtype = dtype
        self.nrows = nrows
        self.ncols = ncols
        self.nvals = nvals  # entries the file stores (declared or implied by the array size)
        self.size_line = size_line
        self.body_start = body_start


def _fail(name, line, message):
    where = f"{name}, line {line}" if line is not None else name
    return InvalidValue(f"{where}: {message}")


def _lines(buf):
    """(line number, start, end) of each line, lazily: the header is a handful of lines."""
    pos = 0
    number = 1
    n = len(buf)
    while pos < n:
        end = buf.find(b"\n", pos)
        if end < 0:
            end = n
        yield number, pos, end
        pos = end + 1
        number += 1


def _show(raw):
    """A header line for a message: at most 60 characters, non-printables escaped."""
    text = raw.strip()
    shown = "".join(chr(c) if 32 <= c < 127 else f"\\x{c:02x}" for c in text[:60])
    return shown + ("..." if len(text) > 60 else "")


def parse_header(buf, name, dtype=None):
    """Read the banner, the optional ``%%GraphBLAS type`` line, comments and the size line."""
    lines = _lines(buf)
    first = next(lines, None)
    banner = buf[first[1]:first[2]] if first is not None else b""
    if not banner.strip() and not bytes(buf).strip():  # the copy only for a blank line 1
        raise _fail(name, None, "the file is empty")
    # The banner is required on line 1 (as SciPy and NIST's mmio.c require it): without it a
    # misspelled banner would pass for a comment and a headerless file for a guessed format.
    fmt, field, symmetry = _parse_banner(banner, name)
    type_from_file = None
    for number, start, end in lines:
        raw = buf[start:end]
        text = raw.strip()
        if number == 2 and text.lower().startswith(b"%%graphblas"):
            type_from_file = _parse_type_line(raw, name, number)
            continue
        if not text or text.startswith(b"%"):
            continue
        size_line = number
        tokens = text.split()
        want = 3 if fmt == "coordinate" else 2
        layout = "'rows columns entries'" if want == 3 else "'rows columns'"
        if len(tokens) != want or not all(t.isdigit() for t in tokens):
            article = "an" if fmt == "array" else "a"
            raise _fail(name, number, f"the size line of {article} {fmt} file must be {layout} "
                                      f"(non-negative integers), got '{_show(raw)}'")
        nrows, ncols = int(tokens[0]), int(tokens[1])
        for what, value in (("rows", nrows), ("columns", ncols)):
            if value > MAX_DIM:
                raise _fail(name, number, f"{value} {what} is more than GraphBLAS's limit "
                                          f"of 2**60")
        if symmetry != "general" and nrows != ncols:
            raise _fail(name, number, f"a {symmetry} matrix must be square, but the size "
                                      f"line says {nrows} x {ncols}")
        result_type = _result_type(dtype, type_from_file, field, symmetry, name)
        if fmt == "coordinate":
            # Nothing is allocated from this count: the data must bear it out line by line.
            nvals = int(tokens[2])
        elif symmetry == "general":
            nvals = nrows * ncols
        elif symmetry == "skew-symmetric":
            nvals = nrows * (nrows - 1) // 2
        else:
            nvals = nrows * (nrows + 1) // 2
        return Header(fmt, field, symmetry, result_type, nrows, ncols, nvals, size_line,
                      min(end + 1, len(buf)))
    raise _fail(name, None, "the file ends before its size line")


BANNER = ("%%MatrixMarket matrix <coordinate|array> <real|integer|complex|pattern> "
          "<general|symmetric|skew-symmetric|hermitian>")


def _parse_banner(raw, name):
    """(format, field, symmetry) of line 1, which must be a banner.

    ``%%MatrixMarket`` must be spelled with that case, the four keywords after it may be in
    any case: the rule of NIST's reference reader (mmio.c compares the banner word exactly
    and lower-cases the others) and of SciPy's reader.
    """

    def refuse(problem):
        return _fail(name, 1, f"{problem}; expected '{BANNER}', got '{_show(raw)}'")

    words = raw.decode("latin-1").split()
    if not words or not words[0].startswith("%"):
        raise refuse("not a Matrix Market file: the first line must be its banner")
    if words[0] != "%%MatrixMarket":
        if words[0].lower() == "%%matrixmarket":
            raise refuse(f"the banner must begin with '%%MatrixMarket', spelled with this "
                         f"case, not '{words[0]}'")
        raise refuse("not a Matrix Market file: the first line is a comment, not the banner "
                     "('%%MatrixMarket' misspelled or missing)")
    if len(words) != 5:
        raise refuse(f"the banner has {len(words) - 1} keywords after '%%MatrixMarket', not 4")
    obj, fmt, field, symmetry = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise refuse(f"the object must be 'matrix' (the only one graphblast reads), "
                     f"not '{words[1]}'")
    if fmt not in _FORMATS:
        raise refuse(f"unknown format '{words[2]}'")
    if field not in _FIELDS:
        raise refuse(f"unknown field '{words[3]}'")
    if symmetry not in _SYMMETRIES:
        raise refuse(f"unknown symmetry '{words[4]}'")
    # A well-formed banner that graphblast cannot or the format does not allow:
    if field == "complex":
        raise _fail(name, 1, "complex matrices are not supported: graphblast has no complex "
                             "types (store the real and imaginary parts as two real matrices)")
    if field == "pattern" and fmt == "array":
        raise _fail(name, 1, "'array pattern' is not a valid combination: a pattern matrix "
                             "must use the coordinate format")
    if field == "pattern" and symmetry not in ("general", "symmetric"):
        raise _fail(name, 1, f"a pattern matrix cannot be {symmetry} (it has no values to "
                             "negate or conjugate); use general or symmetric")
    if symmetry == "hermitian":
        # For real values the conjugate transpose is the transpose: hermitian is symmetric.
        symmetry = "symmetric"
    return fmt, field, symmetry


def _parse_type_line(raw, name, number):
    text = raw.decode("latin-1").strip()
    rest = text[len("%%GraphBLAS"):].strip()
    if not rest.lower().startswith("type"):
        return None  # another %%GraphBLAS structured comment (LAGraph writes "comment" ones)
    type_name = rest[4:].strip().lower()
    if type_name in _COMPLEX_TYPE_NAMES:
        raise _fail(name, number, f"complex type '{rest[4:].strip()}' is not supported: "
                                  "graphblast has no complex types")
    if type_name not in _TYPE_NAMES:
        known = ", ".join(_C_NAMES.values())
        raise _fail(name, number, f"unknown %%GraphBLAS type '{rest[4:].strip()}'; "
                                  f"expected one of {known}")
    return _TYPE_NAMES[type_name]


def _result_type(dtype, type_from_file, field, symmetry, name):
    if dtype is not None:
        result = lookup_dtype(dtype)
    elif type_from_file is not None:
        result = type_from_file
    else:
        result = INT64 if field == "integer" else FP64
    if symmetry == "skew-symmetric" and not result.is_signed:
        raise _fail(name, None, f"a skew-symmetric matrix cannot have the unsigned type "
                                f"{result} (its upper triangle holds the negated values)")
    return result


# -- reading -------------------------------------------------------------------------------


def read_coo(source, *, dtype=None, fast=True):
    """Parse a Matrix Market file into NumPy arrays, without building a Matrix.

    Parameters
    ----------
    source : str, os.PathLike or file object
        See :func:`mmread`.
    dtype : optional
        See :func:`mmread`.
    fast : bool, default True
        Use the compiled fast path where it is built (False: the NumPy parser alone).

    Returns
    -------
    rows, cols : numpy.ndarray of int64
        0-based coordinates, symmetric files already expanded to both triangles.
    values : numpy.ndarray
        Values of the result type (``header.dtype.np_type``); for a general pattern file a
        read-only broadcast of the value 1.
    header : Header
        Format, field, symmetry, type and shape.
    lines : numpy.ndarray of int64 or None
        The file line each entry came from (for messages about duplicates); None when the
        fast path read the file, as it does not record them.
    """
    with mapped_bytes(source) as (buf, name):
        return _read_coo(buf, name, dtype, fast)


def _read_coo(buf, name, dtype, fast=True):
    """Header and body of a file: (rows, cols, values, header, lines)."""
    return _read_entries(buf, name, dtype, fast)[:5]


def _read_entries(buf, name, dtype, fast=True):
    """Header and body of a file: (rows, cols, values, header, lines, order).

    The compiled fast path (``_mmfast``) reads the body of a valid file; it rejects anything
    else, and the NumPy parser then reads the file again to name the problem.  ``lines`` (the
    file line of each entry, for messages) is None after the fast path: a message that needs
    it is written by that second reading.  ``order`` is "row" or "column" when the fast path
    found the entries of a general coordinate file strictly increasing in that order (so
    free of duplicates: the Matrix is built without a sort), else None.
    """
    header = parse_header(buf, name, dtype)
    check_entries(header, name, len(buf) - header.body_start)
    if fast and _mmfast is not None:
        try:
            body = _fast_body(buf, header)
            if body is not None:
                rows, cols, values, order = body
                if header.format == "coordinate":
                    rows, cols, values, _ = _expand_symmetric(rows, cols, values, None, header,
                                                              name)
                else:
                    rows, cols, values, _ = _array_positions(values, None, header, name)
                general = header.format == "coordinate" and header.symmetry == "general"
                return rows, cols, values, header, None, order if general else None
        except _NeedsLines:
            pass
    buf = bytes(buf)  # the NumPy parser needs bytes methods (a mapped file is copied)
    start = header.body_start
    first_line = header.size_line + 1
    if header.format == "coordinate":
        rows, cols, values, lines = _read_coordinate(buf, start, first_line, header, name)
        rows, cols, values, lines = _expand_symmetric(rows, cols, values, lines, header, name)
    else:
        values, lines = _read_values(buf, start, first_line, header, name, per_line=1)
        rows, cols, values, lines = _array_positions(values, lines, header, name)
    return rows, cols, values, header, lines, None


def check_entries(header, name, body_bytes):
    """Refuse, before reading the body, a file whose Matrix cannot fit in host memory: the
    parsed rows, columns and values (both triangles of a symmetric file), then the CSR built
    from them, with the row pointers.  A body too short for the entries it declares (at
    least 4 bytes an entry, "1 1\n", or 2 a value of an array file, "1\n") is left to the
    parser, which names the truncation."""
    from .. import _memory
    from .._memory import check_fits

    check_rows(header.nrows, name)
    if (4 if header.format == "coordinate" else 2) * header.nvals > body_bytes:
        return
    stored = header.nvals * (1 if header.symmetry == "general" else 2)
    per_entry = 16 + header.dtype.np_type.itemsize
    needed = 2 * per_entry * stored + 8 * (header.nrows + 1)
    if needed >= _memory.ASK_ABOVE:
        check_fits(needed, _memory.available_bytes(), "host memory",
                   f"{name}: a {header.nrows:,} x {header.ncols:,} Matrix of {stored:,} entries",
                   "read it on a machine with more memory, or split the file")


class _NeedsLines(Exception):
    """An error whose message needs the entries' line numbers, which the fast path skips."""


def _fast_body(buf, header):
    """The body through ``_mmfast``: (rows, cols, values) of the stored entries, or None when
    the fast path rejects it (then the NumPy parser decides)."""
    workers = _FAST_THREADS or os.cpu_count() or 1
    start = header.body_start
    # Room for min(declared, lines present) entries: a header's claim allocates nothing the
    # data does not bear out.
    cap = min(header.nvals, _mmfast.count_lines(buf, start, workers, _FAST_CHUNK))
    coordinate = header.format == "coordinate"
    dtype = header.dtype
    pattern = header.field == "pattern"
    rows = np.empty(cap if coordinate else 0, dtype=np.int64)
    cols = np.empty(cap if coordinate else 0, dtype=np.int64)
    values = None if pattern else np.empty(cap, dtype=dtype.np_type)
    lo, hi = 0, 0
    if pattern:
        kind = _mmfast.V_NONE
    elif dtype.is_float:
        kind = _mmfast.V_F64 if dtype.np_type.itemsize == 8 else _mmfast.V_F32
    elif dtype is BOOL:
        kind, hi = _mmfast.V_UINT, 1
    else:
        info = np.iinfo(dtype.np_type)
        kind = _mmfast.V_INT if info.min < 0 else _mmfast.V_UINT
        lo, hi = int(info.min), int(info.max)
    result = _mmfast.parse(buf, start, header.nrows, header.ncols, 2 if coordinate else 0,
                           kind, dtype.np_type.itemsize, lo, hi,
                           header.symmetry == "skew-symmetric", rows, cols, values, workers,
                           _FAST_CHUNK)
    if result is None or result[0] != header.nvals:
        return None
    order = {1: "row", 2: "column", 3: "row"}.get(result[2])  # 3: at most one entry
    slow = np.frombuffer(result[1], dtype=np.int64).reshape(-1, 3)
    if slow.shape[0]:
        # inf, nan, long mantissas, huge exponents, float32 ties: the reference converter
        text = _text.Text(b" ".join(buf[s:e] for s, e in slow[:, 1:].tolist()))
        tokens = text.tokenize()
        try:
            values[slow[:, 0]] = parse_values(text, tokens.starts, tokens.ends, dtype, "value")
        except _text.TokenError:
            return None
    if pattern:
        values = np.broadcast_to(np.ones(1, dtype=dtype.np_type), rows.shape)
    return rows, cols, values, order


def _alphabet(header, per_line):
    if header.field == "pattern" or per_line == 0:
        return _text.DIGITS, "a pattern file (only row and column indices)"
    if header.dtype.is_float:
        return _text.REAL_CHARS, "a file of real values"
    return _text.INTEGER_CHARS, f"a file of {header.dtype} values (integers only)"


def parse_values(text, starts, ends, dtype, what):
    """Tokens as values of ``dtype``: integer types and BOOL need integer tokens in range."""
    if dtype.is_float:
        values = text.parse_floats(starts, ends, what=what)
        return text.floats_as(starts, ends, values, dtype.np_type)
    magnitude, negative = text.parse_integers(starts, ends, signed=True, what=what)
    return text.integers_as(starts, magnitude, negative, dtype.np_type, what)


def _entries(tokens, first_line, per_line, layout):
    """Tokens grouped by line (``per_line`` each), and the file line of each group."""
    try:
        starts, ends, lines = tokens.entries(per_line)
    except _text.LineCountError as exc:
        noun = "number" if per_line == 1 else "numbers"
        raise _LineError(first_line + exc.line, f"expected {per_line} {noun} ({layout}), "
                                                f"found {exc.found}") from None
    return starts, ends, lines + first_line


class _LineError(Exception):
    """A problem on one line of the body (absolute line number), before the name is added."""

    def __init__(self, line, message):
        super().__init__(message)
        self.line = line
        self.message = message


def _read_pieces(buf, start, first_line, header, name, parse_piece):
    """Run ``parse_piece(piece, first_line, entries_before)`` over the chunks of the body.

    Chunks are parsed by a few threads (NumPy releases the GIL in its loops), with at most
    two chunks per thread in flight.  They run without the check against the declared entry
    count, which needs the entries before them; a chunk that fails or passes that count is
    parsed again in order, by :func:`_earliest`, for the exact error.
    """
    pieces = _text.chunks(buf, start, first_line)
    workers = min(_WORKERS, os.cpu_count() or 1)
    parts = []
    count = 0

    def attempt(item):
        try:
            return parse_piece(item[0], item[1], None)
        except (_text.TokenError, _LineError):
            return None

    def settle(item, part):
        nonlocal count
        if part is None or count + part[-1].shape[0] > header.nvals:
            try:
                part = _earliest(parse_piece, item[0], item[1], count)
            except _LineError as exc:
                raise _fail(name, exc.line, exc.message) from None
        parts.append(part)
        count += part[-1].shape[0]

    if workers < 2 or len(buf) - start <= _text.CHUNK:
        for item in pieces:
            settle(item, attempt(item))
        return parts, count
    with ThreadPoolExecutor(workers) as pool:
        pending = collections.deque()
        for item in pieces:
            pending.append((item, pool.submit(attempt, item)))
            if len(pending) >= 2 * workers:
                done, future = pending.popleft()
                settle(done, future.result())
        while pending:
            done, future = pending.popleft()
            settle(done, future.result())
    return parts, count


def _earliest(parse_piece, piece, line, count):
    try:
        return parse_piece(piece, line, count)
    except _text.TokenError as exc:
        error = _LineError(line + piece.count(b"\n", 0, exc.pos), exc.message)
    except _LineError as exc:
        error = exc
    relative = error.line - line
    if relative > 0:
        cut = 0
        for _ in range(relative):
            cut = piece.index(b"\n", cut) + 1
        _earliest(parse_piece, piece[:cut], line, count)
    raise error


def _read_coordinate(buf, start, first_line, header, name):
    pattern = header.field == "pattern"
    per_line = 2 if pattern else 3
    layout = "row column" if pattern else "row column value"
    allowed, what = _alphabet(header, per_line)

    def parse_piece(piece, line, count):
        text = _text.Text(_text.blank_comments(piece, "%", anywhere=False))
        text.check_alphabet(allowed, what)
        starts, ends, lines = _entries(text.tokenize(), line, per_line, layout)
        if count is not None and count + lines.shape[0] > header.nvals:
            raise _LineError(int(lines[header.nvals - count]),
                             f"more entries than the {header.nvals} declared on the size line "
                             f"(line {header.size_line})")
        rows = _parse_index(text, starts[:, 0], ends[:, 0], header.nrows, "row index")
        cols = _parse_index(text, starts[:, 1], ends[:, 1], header.ncols, "column index")
        values = None if pattern else parse_values(text, starts[:, 2], ends[:, 2],
                                                   header.dtype, "value")
        return rows, cols, values, lines

    parts, count = _read_pieces(buf, start, first_line, header, name, parse_piece)
    if count < header.nvals:
        raise _fail(name, None, f"the file ends after {count} entries, but its size line "
                                f"(line {header.size_line}) declares {header.nvals}")
    rows = _concat([p[0] for p in parts], np.int64)
    cols = _concat([p[1] for p in parts], np.int64)
    lines = _concat([p[3] for p in parts], np.int64)
    if pattern:
        # one 1 seen n times: read-only, and no memory until someone needs an array
        values = np.broadcast_to(np.ones(1, dtype=header.dtype.np_type), rows.shape)
    else:
        values = _concat([p[2] for p in parts], header.dtype.np_type)
    return rows, cols, values, lines


def _concat(arrays, dtype):
    if not arrays:
        return np.zeros(0, dtype=dtype)
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _parse_index(text, starts, ends, bound, what):
    magnitude, _ = text.parse_integers(starts, ends, signed=False, what=what)
    bad = (magnitude == 0) | (magnitude > np.uint64(bound))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _text.TokenError(starts[i], f"{what} {int(magnitude[i])} is out of range: "
                                          f"indices are 1-based, from 1 to {bound}")
    return magnitude.astype(np.int64) - 1


def _read_values(buf, start, first_line, header, name, per_line):
    allowed, what = _alphabet(header, per_line)

    def parse_piece(piece, line, count):
        text = _text.Text(_text.blank_comments(piece, "%", anywhere=False))
        text.check_alphabet(allowed, what)
        starts, ends, lines = _entries(text.tokenize(), line, per_line, "one value per line")
        if count is not None and count + lines.shape[0] > header.nvals:
            raise _LineError(int(lines[header.nvals - count]),
                             f"more values than the {header.nvals} a {header.nrows} x "
                             f"{header.ncols} {header.symmetry} array holds")
        values = parse_values(text, starts[:, 0], ends[:, 0], header.dtype, "value")
        return values, lines

    parts, count = _read_pieces(buf, start, first_line, header, name, parse_piece)
    if count < header.nvals:
        raise _fail(name, None, f"the file ends after {count} values, but a {header.nrows} x "
                                f"{header.ncols} {header.symmetry} array holds {header.nvals}")
    return (_concat([p[0] for p in parts], header.dtype.np_type),
            _concat([p[1] for p in parts], np.int64))


def _array_positions(values, lines, header, name):
    """Coordinates of an array file's values (column-major; a triangle when symmetric)."""
    n = header.nrows
    k = np.arange(values.shape[0], dtype=np.int64)
    if header.symmetry == "general":
        return k % n if n else k, k // n if n else k, values, lines
    # Column j of the stored triangle holds rows j..n-1 (j+1..n-1 when skew-symmetric).
    skew = header.symmetry == "skew-symmetric"
    lengths = np.arange(n, 0, -1, dtype=np.int64) - (1 if skew else 0)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    cols = np.searchsorted(offsets, k, side="right") - 1
    rows = k - offsets[cols] + cols + (1 if skew else 0)
    rows, cols, values, lines = _expand_symmetric(rows, cols, values, lines, header, name)
    if skew:
        # An array is dense: its (implicit) zero diagonal is stored too, as from_dense would.
        diag = np.arange(n, dtype=np.int64)
        rows = np.concatenate((rows, diag))
        cols = np.concatenate((cols, diag))
        values = np.concatenate((values, np.zeros(n, dtype=values.dtype)))
        if lines is not None:
            lines = np.concatenate((lines, np.full(n, header.size_line, dtype=np.int64)))
    return rows, cols, values, lines


def _expand_symmetric(rows, cols, values, lines, header, name):
    if header.symmetry == "general":
        return rows, cols, values, lines
    off = rows != cols
    if header.symmetry == "skew-symmetric":
        # a diagonal entry is kept as given (SciPy's reading); the others are mirrored negated
        mirrored = values[off]
        if header.dtype.is_int:
            lowest = header.dtype.np_type.type(np.iinfo(header.dtype.np_type).min)
            if (mirrored == lowest).any():
                if lines is None:
                    raise _NeedsLines
                i = int(np.flatnonzero(off & (values == lowest))[0])
                where = f"entry ({int(rows[i]) + 1}, {int(cols[i]) + 1})"
                raise _fail(name, int(lines[i]), f"{where} is {lowest}, whose negation "
                                                       f"does not fit in {header.dtype}")
        mirrored = -mirrored
    else:
        mirrored = values[off]
    return (np.concatenate((rows, cols[off])), np.concatenate((cols, rows[off])),
            np.concatenate((values, mirrored)),
            None if lines is None else np.concatenate((lines, lines[off])))


def mmread(source, engine="auto", *, dup_op=None, dtype=None, name=None, device=None, **kwargs):
    """Read a Matrix Market file into a Matrix.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path (gzip, bzip2 and xz files are recognized by their contents) or an open file,
        binary or text.
    engine : str, default "auto"
        Accepted for python-graphblas compatibility ("auto", "scipy", "fmm",
        "fast_matrix_market"); every engine is graphblast's validating NumPy parser.
    dup_op : BinaryOp, optional
        Combines duplicate entries.  Without it a duplicate is an error naming both lines.
    dtype : optional
        Type of the result.  Values must be exactly representable: integer types need
        integer tokens in range, BOOL needs 0 or 1.  Default: the file's
        ``%%GraphBLAS type`` line, else FP64 for real and pattern files, INT64 for integer.
    name : str, optional
        Name of the Matrix.
    device : str, optional
        Device of the Matrix (default: graphblast's default device).

    Returns
    -------
    Matrix
        Pattern files give every stored entry the value 1; symmetric and skew-symmetric files
        are expanded to both triangles (a diagonal entry of a skew-symmetric file is kept as
        given, as SciPy reads it); array files give a full Matrix.

    Raises
    ------
    InvalidValue
        Malformed input, naming the file, the line and the problem.
    """
    _check_engine(engine, kwargs)
    with mapped_bytes(source) as (buf, src_name):
        rows, cols, values, header, lines, order = _read_entries(buf, src_name, dtype)
        if order is not None:
            A = _matrix_in_order(rows, cols, values, header, order, name, device)
        else:
            if values.shape[0] and values.strides == (0,):
                values = values[0]  # a pattern file: let the core repeat the scalar
            A = build_matrix(rows, cols, values, header.dtype, header.nrows, header.ncols,
                             dup_op, name, device, lines, src_name, buf)
    if header.symmetry == "symmetric" and (dup_op is None or _commutative(dup_op)):
        # both triangles were stored from one: the Matrix is its own transpose
        A._data.symmetric = True
        A._data._transpose = None
    return A


def _commutative(op):
    parent = getattr(op, "parent", op)
    return bool(getattr(parent, "is_commutative", False))


def _check_engine(engine, kwargs):
    if kwargs:
        raise TypeError(f"unexpected keyword arguments {sorted(kwargs)}; graphblast's Matrix "
                        "Market reader has no engine-specific options")
    if not isinstance(engine, str) or engine.lower() not in (
            "auto", "scipy", "fmm", "fast_matrix_market"):
        raise ValueError(f'Bad engine value: {engine!r}. Must be "auto", "scipy", "fmm", or '
                         '"fast_matrix_market"')


def _matrix_in_order(rows, cols, values, header, order, name, device):
    """A Matrix from entries the fast path found strictly increasing in row- or column-major
    order: already range-checked and free of duplicates, so the CSR is built without a sort.
    Column-major entries are the CSR of the transpose, turned around by the backend's
    transpose (SciPy's linear-time one on the CPU, a radix sort on a GPU), which keeps it as
    the Matrix's cached transpose where ``gb.config["transpose_cache"]`` says so."""
    from ..backends.cpu.storage import indptr_from_rows
    from ..core.base import resolve_device
    from ..core.matrix import Matrix
    from ._convert import matrix_from_valid_csr

    dtype = header.dtype
    if values.strides == (0,):  # a pattern file: every value 1
        values = np.ones(rows.shape[0], dtype=dtype.np_type)
    if order == "row":
        return matrix_from_valid_csr(header.nrows, header.ncols, dtype,
                                     indptr_from_rows(rows, header.nrows), cols, values, name,
                                     device)
    dev, backend = resolve_device(device)
    T = matrix_from_valid_csr(header.ncols, header.nrows, dtype,
                              indptr_from_rows(cols, header.ncols), rows, values, None, dev)
    return Matrix._from_data(backend.transpose(T._csr()), backend, dev, name)


def build_matrix(rows, cols, values, dtype, nrows, ncols, dup_op, name, device, lines,
                 src_name, buf=None):
    """Matrix.from_coo, with duplicates reported by the file lines they came from.

    ``lines`` may be None (the fast path does not record them); the message then reads the
    file ``buf`` once more with the NumPy parser to find them.
    """
    from ..core.matrix import Matrix

    kwargs = {} if device is None else {"device": device}
    if np.ndim(values) == 0:
        # a pattern file's one value, as an array: duplicate entries of a file are reported,
        # not dropped as an iso Matrix.from_coo(rows, cols, 1) drops them
        values = np.broadcast_to(values, rows.shape)
    try:
        return Matrix.from_coo(rows, cols, values, dtype, nrows=nrows, ncols=ncols,
                               dup_op=dup_op, name=name, **kwargs)
    except GraphblasException:
        if dup_op is None:
            pair = find_duplicate(rows, cols, ncols)
            if pair is not None:
                i, j = pair
                if lines is None:
                    lines = _read_coo(buf, src_name, dtype, fast=False)[4]
                raise _fail(src_name, int(lines[j]), "Duplicate indices found: entry "
                            f"({int(rows[j]) + 1}, "
                            f"{int(cols[j]) + 1}) is also given on line {int(lines[i])}; "
                            "pass dup_op=binary.plus (or another operator) to combine "
                            "duplicates") from None
        raise


def find_duplicate(rows, cols, ncols):
    """Positions (earlier, later) of the first repeated coordinate in the input, or None."""
    if rows.shape[0] < 2:
        return None
    if ncols and rows.max() < (2**63 - 1) // ncols:
        order = np.argsort(rows * ncols + cols, kind="stable")
    else:
        order = np.lexsort((cols, rows))
    r, c = rows[order], cols[order]
    same = np.flatnonzero((r[1:] == r[:-1]) & (c[1:] == c[:-1]))
    if same.shape[0] == 0:
        return None
    # the repeat that comes first in the input (the stable sort keeps each group in order)
    k = int(same[np.argmin(order[same + 1])])
    return int(order[k]), int(order[k + 1])


def mminfo(source):
    """The header of a Matrix Market file, without reading its data.

    Returns
    -------
    (nrows, ncols, entries, format, field, symmetry, dtype)
        ``entries`` is what the file stores (for symmetric files, one triangle); ``dtype``
        is the type :func:`mmread` would give.
    """
    with mapped_bytes(source) as (buf, name):
        h = parse_header(buf, name)
    return (h.nrows, h.ncols, h.nvals, h.format, h.field, h.symmetry, h.dtype)


# -- writing -------------------------------------------------------------------------------


def mmwrite(target, matrix, engine="auto", *, comment="", field=None, precision=None,
            symmetry=None, format=None, **kwargs):
    """Write a Matrix to a Matrix Market file.

    Parameters
    ----------
    target : str, os.PathLike or file object
        A path (``.gz``, ``.bz2`` and ``.xz`` compress) or a file open for writing.
    matrix : Matrix
        The matrix to write.
    engine : str, default "auto"
        Accepted for python-graphblas compatibility.
    comment : str, optional
        Text written as ``%`` comment lines after the header.
    field : {"real", "integer", "pattern"}, optional
        Default: "integer" for BOOL and integer types, "real" for floats.  "pattern" writes
        the structure only; "integer" for a float matrix needs integral values.
    precision : int, optional
        Significant digits for real values.  Default: the shortest text that reads back to
        the exact same value.
    symmetry : {"general", "symmetric", "skew-symmetric", "hermitian"}, optional
        Default "general".  Anything else is checked against the matrix and only the lower
        triangle is written.
    format : {"coordinate", "array"}, optional
        Default "coordinate"; "array" needs a full matrix.

    Notes
    -----
    The second line is LAGraph's ``%%GraphBLAS type <ctype>`` so that :func:`mmread` gives
    back the same type; other readers take it for a comment.
    """
    _check_engine(engine, kwargs)
    from ..core.vector import Vector

    if isinstance(matrix, Vector):
        raise TypeError("mmwrite writes a Matrix; build an n x 1 (or 1 x n) Matrix from the "
                        "Vector first")
    dtype = matrix.dtype
    nrows, ncols = matrix.nrows, matrix.ncols
    fmt = "coordinate" if format is None else str(format).lower()
    if fmt not in _FORMATS:
        raise InvalidValue(f"format must be 'coordinate' or 'array', not {format!r}")
    field = _writer_field(field, dtype, fmt)
    symmetry = "general" if symmetry is None else str(symmetry).lower()
    if symmetry == "hermetian":  # python-graphblas's docstring spells it so
        symmetry = "hermitian"
    if symmetry not in _SYMMETRIES:
        raise InvalidValue(f"symmetry must be one of {', '.join(_SYMMETRIES)}, not "
                           f"{symmetry!r}")
    if precision is not None and (not isinstance(precision, (int, np.integer)) or precision < 1):
        raise InvalidValue(f"precision must be a positive number of digits, not {precision!r}")
    rows, cols, values = matrix._coo_host()  # not copied (storage is immutable)
    # the writer reads 64-bit indices; a compact graph's columns are stored in 32 bits
    cols = cols.astype(np.int64, copy=False)
    rows, cols, values = _writer_triangle(rows, cols, values, dtype, nrows, ncols, symmetry,
                                          field, fmt)
    if field == "integer" and dtype.is_float:
        values = _integral(values)
    if fmt == "array":
        values = _array_order(rows, cols, values, nrows, ncols, symmetry, matrix.nvals)
    header = [f"%%MatrixMarket matrix {fmt} {field} {symmetry}",
              f"%%GraphBLAS type {_C_NAMES[dtype]}"]
    for text in str(comment).splitlines():
        header.append("%" + text)
    if fmt == "coordinate":
        header.append(f"{nrows} {ncols} {rows.shape[0]}")
    else:
        header.append(f"{nrows} {ncols}")
    fast_kind = _fast_writer_kind(dtype, field, precision)
    with open_target(target) as f:
        f.write(("\n".join(header) + "\n").encode("utf-8"))
        for lo in range(0, values.shape[0], _WRITE_CHUNK):
            hi = lo + _WRITE_CHUNK
            if fast_kind is not None:
                chunk = values[lo:hi]
                f.write(_mmfast.format_lines(
                    np.ascontiguousarray(rows[lo:hi]) if fmt == "coordinate" else None,
                    np.ascontiguousarray(cols[lo:hi]) if fmt == "coordinate" else None,
                    None if field == "pattern" else np.ascontiguousarray(chunk), fast_kind,
                    chunk.dtype.itemsize))
                continue
            columns = []
            if fmt == "coordinate":
                columns += [_format_ints(rows[lo:hi] + 1), _SPACE,
                            _format_ints(cols[lo:hi] + 1)]
                if field != "pattern":
                    columns.append(_SPACE)
            if field != "pattern":
                columns.append(_format_values(values[lo:hi], dtype, field, precision))
            columns.append(_NEWLINE)
            f.write(_join_columns(columns))


_SPACE = object()
_NEWLINE = object()


def _fast_writer_kind(dtype, field, precision):
    """The compiled writer's value kind for this call, or None where NumPy formats (no
    extension, a chosen precision, FP32's shortest text)."""
    if _mmfast is None or precision is not None:
        return None
    if field == "pattern":
        return _mmfast.V_NONE
    if field == "integer" and dtype.is_float:
        return _mmfast.V_INT  # the values were checked integral and made int64
    if dtype.is_bool or (dtype.is_int and not dtype.is_signed):
        return _mmfast.V_UINT
    if dtype.is_int:
        return _mmfast.V_INT
    return _mmfast.V_F64 if dtype is FP64 else None


def _writer_field(field, dtype, fmt):
    if field is None:
        return "real" if dtype.is_float else "integer"
    field = str(field).lower()
    if field == "complex":
        raise InvalidValue("graphblast has no complex types; write field='real'")
    if field not in _FIELDS:
        raise InvalidValue(f"field must be real, integer or pattern, not {field!r}")
    if field == "pattern" and fmt == "array":
        raise InvalidValue("the array format cannot be a pattern; use format='coordinate'")
    return field


def _writer_triangle(rows, cols, values, dtype, nrows, ncols, symmetry, field, fmt):
    """The entries to write: all of them, or the checked lower triangle."""
    if symmetry == "general":
        return rows, cols, values
    if nrows != ncols:
        raise InvalidValue(f"a {symmetry} matrix must be square, this one is {nrows} x {ncols}")
    skew = symmetry == "skew-symmetric"
    if skew:
        if field == "pattern" or not dtype.is_signed:
            raise InvalidValue(f"a skew-symmetric matrix needs signed values, not {dtype}"
                               + (" and a pattern field" if field == "pattern" else ""))
        diagonal = rows == cols
        if fmt == "array" and diagonal.any() and not (values[diagonal] == 0).all():
            raise InvalidValue("a skew-symmetric matrix has a zero diagonal; this one has "
                               "nonzero diagonal entries")
        if fmt == "coordinate" and diagonal.any():
            raise InvalidValue("a skew-symmetric matrix must have an empty diagonal in the "
                               "coordinate format")
        if dtype.is_int and (values == np.iinfo(dtype.np_type).min).any():
            raise InvalidValue(f"a skew-symmetric {dtype} matrix cannot hold "
                               f"{np.iinfo(dtype.np_type).min}: its negation does not fit")
    # A' as sorted coordinates: compare with A entry by entry.
    order = np.lexsort((rows, cols))
    t_rows, t_cols, t_values = cols[order], rows[order], values[order]
    if skew:
        with np.errstate(over="ignore"):
            t_values = -t_values
    same = np.array_equal(rows, t_rows) and np.array_equal(cols, t_cols)
    if same and field != "pattern":
        same = np.array_equal(values, t_values, equal_nan=dtype.is_float)
    if not same:
        what = "-A'" if skew else "A'"
        raise InvalidValue(f"the matrix is not {symmetry} (A differs from {what}); write it "
                           "with symmetry='general'")
    keep = rows > cols if skew else rows >= cols
    return rows[keep], cols[keep], values[keep]


def _integral(values):
    finite = np.isfinite(values)
    if not finite.all() or not np.array_equal(values, np.trunc(values)) or (
            values.shape[0] and np.abs(values).max() >= 2.0**63):
        raise InvalidValue("field='integer' needs integral values below 2**63 in magnitude; "
                           "this matrix has others (write field='real')")
    return values.astype(np.int64)


def _array_order(rows, cols, values, nrows, ncols, symmetry, nvals):
    """Values in column-major order of the stored part, for the array format."""
    if nvals != nrows * ncols:
        raise InvalidValue(f"the array format stores every entry, but the matrix has {nvals} "
                           f"of {nrows * ncols}; use format='coordinate'")
    order = np.lexsort((rows, cols))
    return values[order]


def _format_ints(v):
    """Decimal text of integers as an (n, width) uint8 array, right-aligned, NUL-padded."""
    v = np.asarray(v)
    n = v.shape[0]
    if n == 0:
        return np.zeros((0, 1), dtype=np.uint8)
    negative = v < 0 if v.dtype.kind == "i" else np.zeros(n, dtype=bool)
    magnitude = v.astype(np.int64).astype(np.uint64) if v.dtype.kind == "i" else v.astype(
        np.uint64)
    magnitude = np.where(negative, (~magnitude) + np.uint64(1), magnitude)  # two's complement
    width = len(str(int(magnitude.max()))) + (1 if negative.any() else 0)
    out = np.zeros((n, width), dtype=np.uint8)
    rest = magnitude.copy()
    ndigits = np.zeros(n, dtype=np.int64)
    for k in range(width - 1, -1, -1):
        live = (rest > 0) | (k == width - 1)
        out[:, k] = np.where(live, (rest % np.uint64(10)).astype(np.uint8) + np.uint8(48), 0)
        ndigits += live
        rest //= np.uint64(10)
    if negative.any():
        idx = np.flatnonzero(negative)
        out[idx, width - 1 - ndigits[idx]] = ord("-")
    return out


def _format_values(values, dtype, field, precision):
    if dtype.is_bool:
        return (values.astype(np.uint8) + np.uint8(48)).reshape(-1, 1)
    if not dtype.is_float or field == "integer":
        return _format_ints(values)
    if precision is not None:
        text = list(map(f"%.{int(precision)}g".__mod__, values.tolist()))
    elif dtype is FP32:
        # str() of a NumPy float32 is its shortest round-trip text (Dragon4, unique digits).
        text = list(map(str, values))
    else:
        text = list(map(repr, values.tolist()))  # the shortest text that reads back exactly
    for i in np.flatnonzero(np.isnan(values) & np.signbit(values)).tolist():
        text[i] = "-nan"  # repr drops a NaN's sign; float("-nan") restores it
    return np.array(text, dtype="S").view(np.uint8).reshape(len(text), -1)


def _join_columns(columns):
    n = next(c.shape[0] for c in columns if isinstance(c, np.ndarray))
    parts = []
    for c in columns:
        if c is _SPACE:
            parts.append(np.full((n, 1), ord(" "), dtype=np.uint8))
        elif c is _NEWLINE:
            parts.append(np.full((n, 1), ord("\n"), dtype=np.uint8))
        else:
            parts.append(c)
    flat = np.concatenate(parts, axis=1).reshape(-1)
    return flat[flat != 0].tobytes()
