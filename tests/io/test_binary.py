"""graphblast.io.save / load: exact round trips, and refusal of every corrupt file."""

import json
import os

import numpy as np
import pytest

import graphblast as gb
from graphblast import dtypes
from graphblast.exceptions import InvalidValue


def _random(dtype, rng, nrows=40, ncols=30, n=300, device=None):
    rows = rng.integers(0, nrows, n)
    cols = rng.integers(0, ncols, n)
    if dtype.is_bool:
        values = rng.integers(0, 2, n).astype(bool)
    elif dtype.is_int:
        info = np.iinfo(dtype.np_type)
        values = rng.integers(info.min, info.max, n, dtype=dtype.np_type, endpoint=True)
    else:
        values = rng.standard_normal(n).astype(dtype.np_type)
        values[:3] = [np.nan, -np.inf, -0.0]
    return gb.Matrix.from_coo(rows, cols, values, dtype, nrows=nrows, ncols=ncols,
                              dup_op=gb.binary.first, device=device)


def _identical(A, B):
    assert type(A) is type(B) and A.dtype == B.dtype and A.shape == B.shape
    assert A.name == B.name
    for x, y in zip(A.to_coo(), B.to_coo()):
        assert x.dtype == y.dtype
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f")


@pytest.mark.parametrize("dtype", dtypes.ALL_TYPES, ids=str)
def test_matrix_roundtrip(tmp_path, rng, device, dtype):
    A = _random(dtype, rng, device=device)
    gb.io.save(A, tmp_path / "a.gb")
    B = gb.io.load(tmp_path / "a.gb", device=device)
    _identical(A, B)
    assert B.device.startswith(device)


def test_vectors_and_empty_objects(tmp_path, device):
    cases = [gb.Vector.from_coo([0, 5, 9], [1.5, -2.0, 3.0], size=12, device=device),
             gb.Vector(dtypes.UINT16, 7, device=device),
             gb.Vector(dtypes.BOOL, 0, device=device),
             gb.Matrix(dtypes.INT8, 0, 0, device=device),
             gb.Matrix(dtypes.FP32, 5, 3, device=device),
             gb.Matrix.from_coo([4], [0], [7], dtypes.INT64, nrows=5, ncols=1, device=device)]
    for x in cases:
        path = tmp_path / "x.gb"
        gb.io.save(x, str(path))
        _identical(x, gb.io.load(str(path), device=device))


def test_save_is_atomic(tmp_path, rng):
    A = _random(dtypes.FP64, rng)
    gb.io.save(A, tmp_path / "a.gb")
    assert sorted(os.listdir(tmp_path)) == ["a.gb"]
    with pytest.raises(TypeError):
        gb.io.save("not a matrix", tmp_path / "b.gb")
    assert sorted(os.listdir(tmp_path)) == ["a.gb"]


def _saved(tmp_path, rng):
    A = _random(dtypes.INT32, rng)
    path = tmp_path / "a.gb"
    gb.io.save(A, path)
    return path, path.read_bytes()


def _header(data):
    n = int(np.frombuffer(data[8:16], dtype="<u8")[0])
    return json.loads(data[16:16 + n]), n


def _with_header(data, header):
    """The file with another header (array offsets are relative to the header's end)."""
    _, n = _header(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text = text.ljust(-(-(16 + len(text)) // 64) * 64 - 16)
    return data[:8] + np.uint64(len(text)).astype("<u8").tobytes() + text + data[16 + n:]


def test_truncated_files_are_refused(tmp_path, rng):
    path, data = _saved(tmp_path, rng)
    for cut in sorted({0, 3, 7, 8, 15, 16, 40, len(data) // 2, len(data) - 64, len(data) - 1}):
        path.write_bytes(data[:cut])
        with pytest.raises(InvalidValue, match="not a valid graphblast binary file"):
            gb.io.load(path)
    path.write_bytes(data + b"\0" * 64)
    with pytest.raises(InvalidValue, match="appended"):
        gb.io.load(path)


def test_every_flipped_bit_region_is_caught(tmp_path, rng):
    path, data = _saved(tmp_path, rng)
    header, n = _header(data)
    start = 16 + n
    for key, entry in header["arrays"].items():
        for where in (0, entry["count"] // 2):
            bad = bytearray(data)
            bad[start + entry["offset"] + where * np.dtype(entry["dtype"]).itemsize] ^= 0x10
            path.write_bytes(bytes(bad))
            with pytest.raises(InvalidValue, match=f"array '{key}' fails its checksum"):
                gb.io.load(path)


@pytest.mark.parametrize("change, words", [
    (lambda h: h.update(kind="Graph"), "unknown kind"),
    (lambda h: h.update(dtype="FC64"), "unknown dtype"),
    (lambda h: h.update(shape=[-1, 3]), "bad shape"),
    (lambda h: h.update(shape=[2**61, 3]), "bad shape"),
    (lambda h: h.update(nvals="many"), "bad nvals"),
    (lambda h: h["arrays"].pop("values"), "the arrays must be"),
    (lambda h: h["arrays"]["indices"].update(dtype="<f8"), "dtype"),
    (lambda h: h["arrays"]["values"].update(dtype="<i8"), "dtype"),
    (lambda h: h["arrays"]["indptr"].update(count=3), "bad offset, count"),
    (lambda h: h["arrays"]["values"].update(offset=1), "bad offset, count"),
    (lambda h: h["arrays"]["values"].update(offset=2**40), "bad offset|bytes"),
])
def test_bad_headers_are_refused(tmp_path, rng, change, words):
    path, data = _saved(tmp_path, rng)
    header, _ = _header(data)
    change(header)
    path.write_bytes(_with_header(data, header))
    with pytest.raises(InvalidValue, match=words):
        gb.io.load(path)


def test_bad_magic_version_and_json(tmp_path, rng):
    path, data = _saved(tmp_path, rng)
    path.write_bytes(b"PK\x03\x04" + data[4:])
    with pytest.raises(InvalidValue, match="magic"):
        gb.io.load(path)
    path.write_bytes(data[:7] + b"\x02" + data[8:])
    with pytest.raises(InvalidValue, match="version 2"):
        gb.io.load(path)
    _, n = _header(data)
    path.write_bytes(data[:16] + b"{not json".ljust(n) + data[16 + n:])
    with pytest.raises(InvalidValue, match="JSON"):
        gb.io.load(path)


def test_invalid_structure_with_valid_checksums(tmp_path):
    """A file that passes every checksum but breaks the CSR rules is still refused."""
    from graphblast.io import _binary

    A = gb.Matrix.from_coo([0, 0, 1], [0, 2, 1], [1.0, 2.0, 3.0], nrows=2, ncols=3)
    path = tmp_path / "a.gb"
    gb.io.save(A, path)
    data = path.read_bytes()
    header, n = _header(data)
    start = 16 + n

    def rewrite(key, array):
        entry = header["arrays"][key]
        array = np.asarray(array, dtype=entry["dtype"])
        entry["crc32"] = _binary._crc32(array)
        offset = start + entry["offset"]
        body = bytearray(_with_header(data, header))
        offset += len(body) - len(data)
        body[offset:offset + array.nbytes] = array.tobytes()
        path.write_bytes(bytes(body))

    rewrite("indices", [2, 0, 1])  # row 0 not sorted
    with pytest.raises(InvalidValue, match="strictly increasing"):
        gb.io.load(path)
    rewrite("indices", [0, 3, 1])  # column out of range
    with pytest.raises(InvalidValue, match="out of range"):
        gb.io.load(path)
    rewrite("indices", [0, 2, 1])
    rewrite("indptr", [0, 3, 2])  # decreasing row pointers
    with pytest.raises(InvalidValue, match="row pointers"):
        gb.io.load(path)
