"""Fuzzing both text readers: random bytes and mutations of valid files.

Every case must end in a result or in an exception from ``graphblast.exceptions``: never
another exception, a crash or a hang.  Matrix Market cases whose header parses are also
checked against a slow line-by-line reference parser written here from the documented rules,
so that an accepted file is never misread.  The loop is seeded (the seed is printed on
failure); about 12,000 reader calls run in a few seconds.
"""

import io
import os
import re
import resource
import time

import numpy as np
import pytest

import graphblast as gb
from graphblast.exceptions import GraphblasException
from graphblast import _memory
from graphblast.io import _mmio

CASES = 4000  # inputs; each goes to mmread and to two read_edgelist variants
MAX_SECONDS_PER_CALL = 2.0
MAX_RSS_GROWTH = 512 * 2**20

_SPECIAL = np.frombuffer(b"0123456789 \t\n\r.-+eE%#,x\x00\xff", dtype=np.uint8)


def _seeds(data_dir):
    lagraph = os.path.join(data_dir, "lagraph")
    mm = []
    for name in sorted(os.listdir(lagraph)):
        path = os.path.join(lagraph, name)
        if os.path.getsize(path) < 4000:
            with open(path, "rb") as f:
                mm.append(f.read())
    edges = []
    for name in sorted(os.listdir(os.path.join(data_dir, "real"))):
        if name.endswith(".gz"):
            continue
        with open(os.path.join(data_dir, "real", name), "rb") as f:
            head = f.read(2000)
        edges.append(head[:head.rindex(b"\n") + 1])
    return mm, edges


def _mutate(rng, data):
    b = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        if not b:
            b = bytearray(b"1")
        p = int(rng.integers(0, len(b)))
        kind = int(rng.integers(0, 7))
        if kind == 0:
            b[p] = int(rng.integers(0, 256))
        elif kind == 1:
            b[p] = int(_SPECIAL[rng.integers(0, _SPECIAL.shape[0])])
        elif kind == 2:
            b[p:p] = bytes(_SPECIAL[rng.integers(0, _SPECIAL.shape[0], rng.integers(1, 5))])
        elif kind == 3:
            del b[p:p + int(rng.integers(1, 10))]
        elif kind == 4:
            del b[p:]
        elif kind == 5:
            b[p:p] = "".join(map(str, rng.integers(0, 10, rng.integers(1, 25)))).encode()
        else:
            q = int(rng.integers(0, len(b)))
            b[p:p] = b[q:q + int(rng.integers(1, 30))]
    return bytes(b)


def _case(rng, mm, edges):
    k = int(rng.integers(0, 10))
    if k == 0:
        return rng.integers(0, 256, int(rng.integers(0, 200))).astype(np.uint8).tobytes()
    if k == 1:
        noise = rng.integers(0, 256, int(rng.integers(0, 100))).astype(np.uint8).tobytes()
        return b"%%MatrixMarket matrix coordinate real general\n" + noise
    if k < 7:
        return _mutate(rng, mm[int(rng.integers(0, len(mm)))])
    return _mutate(rng, edges[int(rng.integers(0, len(edges)))])


# -- the reference Matrix Market body parser -------------------------------------------------

_INT = re.compile(rb"[+-]?[0-9]+")
_REAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                   rb"|[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_ALLOWED = set(b"0123456789+-.eEinfatyINFATY \t\r")


class Refused(Exception):
    pass


def _reference_value(token, dtype):
    if dtype.is_float:
        if not _REAL.fullmatch(token):
            raise Refused(token)
        return float(token)
    if not _INT.fullmatch(token):
        raise Refused(token)
    value = int(token)
    lo, hi = (0, 1) if dtype.is_bool else (int(dtype.min), int(dtype.max))
    if not lo <= value <= hi:
        raise Refused(token)
    return value


def _reference(data):
    """(rows, cols, values) of a coordinate file, line by line; Refused for a bad body.

    The header is read by graphblast's own parser (its rules are tested elsewhere); this
    checks the body: tokens, counts, indices, values, symmetric expansion.
    """
    header = _mmio.parse_header(data, "ref")
    if header.format != "coordinate":
        return None
    k = 2 if header.field == "pattern" else 3
    entries = []
    for line in data[header.body_start:].split(b"\n"):
        if line.startswith(b"%"):
            continue
        if not set(line) <= _ALLOWED:
            raise Refused(line)
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != k:
            raise Refused(line)
        i, j = (int(t) if re.fullmatch(rb"[0-9]+", t) else 0 for t in tokens[:2])
        if not (1 <= i <= header.nrows and 1 <= j <= header.ncols):
            raise Refused(line)
        value = 1 if k == 2 else _reference_value(tokens[2], header.dtype)
        entries.append((i - 1, j - 1, value))
    if len(entries) != header.nvals:
        raise Refused("count")
    out = list(entries)
    if header.symmetry != "general":
        for i, j, v in entries:
            if i == j:  # kept as given, skew-symmetric files included (SciPy's reading)
                continue
            if header.symmetry == "skew-symmetric":
                if header.dtype.is_int and v == int(header.dtype.min):
                    raise Refused("negation")
                v = -v
            out.append((j, i, v))
    np_type = header.dtype.np_type
    rows = np.array([e[0] for e in out], dtype=np.int64)
    cols = np.array([e[1] for e in out], dtype=np.int64)
    values = np.array([e[2] for e in out], dtype=np.float64 if header.dtype.is_float else object)
    with np.errstate(over="ignore"):  # a float64 beyond float32's range rounds to inf
        return rows, cols, values.astype(np_type)


def _compare_with_reference(data):
    try:
        expected = _reference(data)
    except (Refused, GraphblasException):
        expected = "refused"
    if expected is None:
        return
    try:
        rows, cols, values, _, _ = _mmio._read_coo(data, "fuzz", None)
    except GraphblasException:
        assert expected == "refused", f"refused a valid file: {data[:300]!r}"
        return
    assert expected != "refused", f"accepted an invalid file: {data[:300]!r}"
    e_rows, e_cols, e_values = expected
    np.testing.assert_array_equal(rows, e_rows)
    np.testing.assert_array_equal(cols, e_cols)
    assert values.dtype == e_values.dtype
    assert np.array_equal(values, e_values, equal_nan=values.dtype.kind == "f"), data[:300]


def _readers():
    return (
        lambda d: gb.io.mmread(io.BytesIO(d)),
        lambda d: gb.io.read_edgelist(io.BytesIO(d)),
        lambda d: gb.io.read_edgelist(io.BytesIO(d), directed=False, duplicates="sum",
                                      comments=None, relabel=False, num_nodes=None),
    )


@pytest.mark.parametrize("seed", [int(s) for s in os.environ.get("GRAPHBLAST_FUZZ_SEEDS", "20240601,7").split(",")])
def test_fuzz_readers(data_dir, seed, monkeypatch):
    print(f"fuzz seed: {seed}")
    # Mutated ids and sizes declare matrices of up to 10**24 rows.  Pretend only 256 MiB are
    # free, so that the reader's guard refuses more than 16M rows instead of building them:
    # the fuzz then stays fast and small while exercising that guard.
    monkeypatch.setattr(_memory, "_available_bytes", lambda: 256 * 2**20)
    rng = np.random.default_rng(seed)
    mm, edges = _seeds(data_dir)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    calls = accepted = 0
    slowest = 0.0
    for _ in range(CASES // 2):
        data = _case(rng, mm, edges)
        for read in _readers():
            start = time.perf_counter()
            try:
                read(data)
                accepted += 1
            except GraphblasException:
                pass
            except Exception as exc:  # noqa: BLE001 - any other exception is the failure
                pytest.fail(f"seed {seed}: {type(exc).__name__}: {exc} for input {data[:300]!r}")
            slowest = max(slowest, time.perf_counter() - start)
            calls += 1
        _compare_with_reference(data)
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert calls >= 6000
    assert accepted > 0
    assert slowest < MAX_SECONDS_PER_CALL, f"a single call took {slowest:.2f} s"
    assert rss_after - rss_before < MAX_RSS_GROWTH


def test_fuzz_valid_numbers_roundtrip():
    """Random real tokens in every spelling Python accepts parse like Python's float()."""
    rng = np.random.default_rng(11)
    tokens = []
    for _ in range(3000):
        mantissa = "".join(map(str, rng.integers(0, 10, rng.integers(1, 20))))
        point = int(rng.integers(0, len(mantissa) + 1))
        text = mantissa[:point] + ("." if rng.random() < 0.8 else "") + mantissa[point:]
        if text.startswith(".") and len(text) == 1:
            text = "0"
        if rng.random() < 0.5:
            text += rng.choice(["e", "E"]) + rng.choice(["", "+", "-"]) + str(
                int(rng.integers(0, 330)))
        tokens.append(rng.choice(["", "+", "-"]) + text)
    tokens += ["inf", "-Infinity", "+NaN", "nan", "1.", ".5", "0e0", "-0.0"]
    body = "".join(f"1 {k + 1} {t}\n" for k, t in enumerate(tokens))
    data = (f"%%MatrixMarket matrix coordinate real general\n1 {len(tokens)} {len(tokens)}\n"
            + body).encode()
    _, _, values, _, _ = _mmio._read_coo(data, "numbers", None)
    expected = np.array([float(t) for t in tokens])
    assert np.array_equal(values, expected, equal_nan=True)
    assert np.array_equal(np.signbit(values), np.signbit(expected))
