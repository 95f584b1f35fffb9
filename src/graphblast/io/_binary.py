"""A binary cache for matrices and vectors: ``save`` writes, ``load`` reads and validates.

Layout (all numbers little-endian)::

    bytes 0-7     b"GBLAST" 0x00 <format version: 1>
    bytes 8-15    uint64: length of the header
    header        UTF-8 JSON: kind, dtype, shape, nvals, name, and for each array its
                  NumPy dtype, byte offset, element count and CRC-32
    arrays        raw, each starting at a multiple of 64 bytes
                  Matrix: indptr (nrows + 1), indices (nvals), values (nvals)  - CSR
                  Vector: indices (nvals), values (nvals)

``load`` reads each array with one ``readinto`` and checks everything before building the
object: magic and version, header fields and their types, offsets and sizes against the file
size, CRC-32 of every array (so a flipped bit in the values is caught, not just a truncation),
and the CSR invariants (row pointers start at 0, never decrease and end at nvals; column
indices in range and strictly increasing within each row).  Any failure raises
:class:`~graphblast.exceptions.InvalidValue`; nothing is ever misread.
"""

import json
import os
import zlib

import numpy as np

from ..dtypes import ALL_TYPES, lookup_dtype
from ..exceptions import InvalidValue

__all__ = ["load", "save"]

_MAGIC = b"GBLAST\x00"
_VERSION = 1
_ALIGN = 64
_MAX_HEADER = 1 << 20
_INDEX_TYPES = ("<i4", "<i8")
_TYPE_NAMES = {t.name: t for t in ALL_TYPES}
_MAX_DIM = 2**60
_CRC_BLOCK = 1 << 26  # bytes per zlib.crc32 call (it takes at most 4 GiB at once)


def _crc32(array):
    view = memoryview(np.ascontiguousarray(array)).cast("B")
    crc = 0
    for lo in range(0, len(view), _CRC_BLOCK):
        crc = zlib.crc32(view[lo:lo + _CRC_BLOCK], crc)
    return crc


def _little_endian(array):
    array = np.ascontiguousarray(array)
    return array.astype(array.dtype.newbyteorder("<"), copy=False)


def save(x, path):
    """Write a Matrix or Vector to ``path`` in graphblast's binary format.

    Parameters
    ----------
    x : Matrix or Vector
        The object to save (from any device; the file holds host arrays).
    path : str or os.PathLike
        Destination.  The file is written under a temporary name and renamed at the end, so
        an interrupted save never leaves a truncated file behind under ``path``.
    """
    from ..core.matrix import Matrix
    from ..core.vector import Vector

    if isinstance(x, Matrix):
        indptr, indices, values = x.to_csr()
        kind, shape = "Matrix", [x.nrows, x.ncols]
        arrays = {"indptr": indptr.astype("<i8"), "indices": indices.astype("<i8"),
                  "values": _little_endian(values)}
    elif isinstance(x, Vector):
        indices, values = x.to_coo()
        kind, shape = "Vector", [x.size]
        arrays = {"indices": indices.astype("<i8"), "values": _little_endian(values)}
    else:
        raise TypeError(f"save writes a Matrix or a Vector, not {type(x).__name__}")
    header = {"kind": kind, "dtype": x.dtype.name, "shape": shape, "nvals": int(x.nvals),
              "name": x.name, "arrays": {}}
    offset = 0
    for key, arr in arrays.items():
        header["arrays"][key] = {"dtype": arr.dtype.str, "offset": offset,
                                 "count": int(arr.shape[0]), "crc32": _crc32(arr)}
        offset += -(-arr.nbytes // _ALIGN) * _ALIGN
    # Offsets are relative to the end of the (padded) header, whose length is not known yet.
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    start = -(-(16 + len(text)) // _ALIGN) * _ALIGN
    text = text.ljust(start - 16)
    path = os.fspath(path)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(_MAGIC + bytes([_VERSION]))
            f.write(np.uint64(len(text)).astype("<u8").tobytes())
            f.write(text)
            for key, arr in arrays.items():
                f.write(memoryview(arr).cast("B"))
                pad = -arr.nbytes % _ALIGN
                if pad:
                    f.write(b"\0" * pad)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _bad(path, problem):
    return InvalidValue(f"{path}: not a valid graphblast binary file: {problem}")


def load(path, *, device=None):
    """Read a Matrix or Vector written by :func:`save`.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    device : str, optional
        Device of the result (default: graphblast's default device).

    Returns
    -------
    Matrix or Vector

    Raises
    ------
    InvalidValue
        The file is not one of graphblast's, is of an unknown version, is truncated or corrupt.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(16)
        if len(head) < 16 or head[:7] != _MAGIC:
            raise _bad(path, "it does not start with the graphblast magic bytes")
        if head[7] != _VERSION:
            raise _bad(path, f"format version {head[7]} is not supported (this graphblast "
                             f"reads version {_VERSION}); save the object again")
        header_len = int(np.frombuffer(head[8:16], dtype="<u8")[0])
        if header_len > min(_MAX_HEADER, size - 16):
            raise _bad(path, "the header length runs past the end of the file (truncated?)")
        header = _parse_header(f.read(header_len), path)
        start = 16 + header_len
        end = start + max(offset + -(-count * dtype.itemsize // _ALIGN) * _ALIGN
                          for dtype, offset, count, _ in header["arrays"].values())
        if size != end:
            raise _bad(path, f"it has {size} bytes but its header describes {end} "
                             "(truncated or appended to)")
        arrays = {}
        for key, (dtype, offset, count, crc) in header["arrays"].items():
            nbytes = count * dtype.itemsize
            if start + offset + nbytes > size:
                raise _bad(path, f"array {key!r} runs past the end of the file (truncated?)")
            arr = np.empty(count, dtype=dtype)
            f.seek(start + offset)
            if f.readinto(memoryview(arr).cast("B")) != nbytes:
                raise _bad(path, f"array {key!r} is truncated")
            if _crc32(arr) != crc:
                raise _bad(path, f"array {key!r} fails its checksum (the file is corrupt)")
            arrays[key] = arr.astype(arr.dtype.newbyteorder("="), copy=False)
    return _build(header, arrays, path, device)


def _parse_header(raw, path):
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _bad(path, f"the header is not valid JSON ({exc})") from None
    if not isinstance(header, dict):
        raise _bad(path, "the header is not a JSON object")
    kind = header.get("kind")
    dtype_name = header.get("dtype")
    shape = header.get("shape")
    nvals = header.get("nvals")
    name = header.get("name")
    if kind not in ("Matrix", "Vector"):
        raise _bad(path, f"unknown kind {kind!r}")
    if dtype_name not in _TYPE_NAMES:
        raise _bad(path, f"unknown dtype {dtype_name!r}")
    dtype = _TYPE_NAMES[dtype_name]
    ndim = 2 if kind == "Matrix" else 1
    if (not isinstance(shape, list) or len(shape) != ndim
            or not all(_is_count(d) and d <= _MAX_DIM for d in shape)):
        raise _bad(path, f"bad shape {shape!r}")
    if not _is_count(nvals):
        raise _bad(path, f"bad nvals {nvals!r}")
    if name is not None and not isinstance(name, str):
        raise _bad(path, "bad name")
    expected = {"indices": ("index", nvals), "values": (dtype.np_type.newbyteorder("<").str,
                                                        nvals)}
    if kind == "Matrix":
        expected = {"indptr": ("index", shape[0] + 1), **expected}
    arrays = header.get("arrays")
    if not isinstance(arrays, dict) or set(arrays) != set(expected):
        raise _bad(path, f"the arrays must be {sorted(expected)}")
    checked = {}
    for key, (want_dtype, want_count) in expected.items():
        entry = arrays[key]
        if not isinstance(entry, dict):
            raise _bad(path, f"bad description of array {key!r}")
        dt, offset, count, crc = (entry.get(k) for k in ("dtype", "offset", "count", "crc32"))
        allowed = _INDEX_TYPES if want_dtype == "index" else (want_dtype,)
        if dt not in allowed:
            raise _bad(path, f"array {key!r} has dtype {dt!r}, expected {' or '.join(allowed)}")
        if not (_is_count(offset) and offset % _ALIGN == 0 and count == want_count
                and _is_count(crc) and crc < 2**32):
            raise _bad(path, f"bad offset, count or checksum for array {key!r}")
        checked[key] = (np.dtype(dt), offset, count, crc)
    return {"kind": kind, "dtype": dtype, "shape": shape, "nvals": nvals, "name": name,
            "arrays": checked}


def _is_count(x):
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _build(header, arrays, path, device):
    from ._convert import matrix_from_valid_csr, vector_from_valid_coo

    dtype = lookup_dtype(header["dtype"])
    indices = arrays["indices"].astype(np.int64, copy=False)
    values = arrays["values"]
    if header["kind"] == "Vector":
        (size,) = header["shape"]
        if indices.shape[0] and (indices[0] < 0 or indices[-1] >= size
                                 or not (indices[1:] > indices[:-1]).all()):
            raise _bad(path, "vector indices must be strictly increasing and in range")
        return vector_from_valid_coo(size, dtype, indices, values, header["name"], device)
    nrows, ncols = header["shape"]
    indptr = arrays["indptr"].astype(np.int64, copy=False)
    if indptr[0] != 0 or indptr[-1] != indices.shape[0] or (np.diff(indptr) < 0).any():
        raise _bad(path, "row pointers must start at 0, never decrease and end at nvals")
    if indices.shape[0]:
        if indices.min() < 0 or indices.max() >= ncols:
            raise _bad(path, "a column index is out of range")
        increasing = indices[1:] > indices[:-1]
        # a row's first entry need not be larger than the previous row's last one
        row_start = np.zeros(indices.shape[0], dtype=bool)
        row_start[indptr[1:-1][indptr[1:-1] < indices.shape[0]]] = True
        if not (increasing | row_start[1:]).all():
            raise _bad(path, "column indices must be strictly increasing within each row")
    return matrix_from_valid_csr(nrows, ncols, dtype, indptr, indices, values, header["name"],
                                 device)
