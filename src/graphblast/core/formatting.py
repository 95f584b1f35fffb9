"""Readable ``repr`` and notebook HTML for Matrix, Vector and Scalar."""

import html

import numpy as np

_MAX_ROWS = 10
_MAX_COLS = 10


def _header(obj, kind, fields):
    names = "  ".join(f"{k:>6}" for k, _ in fields)
    vals = "  ".join(f"{str(v):>6}" for _, v in fields)
    title = f'"{obj.name}"'
    width = max(len(title), len(kind) + 3)
    return f"{title:<{width}}  {names}\n{'gb.' + kind:<{width}}  {vals}"


def _fmt(v):
    if isinstance(v, (float, np.floating)):
        return f"{v:.6g}"
    return str(v)


def matrix_repr(A):
    fields = [("nvals", A.nvals), ("nrows", A.nrows), ("ncols", A.ncols), ("dtype", A.dtype),
              ("device", A.device)]
    kind = "TransposedMatrix" if hasattr(A, "_matrix") else "Matrix"
    out = _header(A, kind, fields)
    if A.nvals == 0 or A.nrows == 0 or A.ncols == 0:
        return out
    rmax, cmax = min(A.nrows, _MAX_ROWS), min(A.ncols, _MAX_COLS)
    sub = A[:rmax, :cmax].new()
    r, c, v = sub.to_coo()
    grid = [[""] * cmax for _ in range(rmax)]
    for i, j, x in zip(r.tolist(), c.tolist(), v.tolist()):
        grid[i][j] = _fmt(x)
    width = max([len(s) for row in grid for s in row] + [len(str(cmax - 1)), 1])
    lines = [" " * 6 + " ".join(f"{j:>{width}}" for j in range(cmax)) +
             (" ..." if A.ncols > cmax else "")]
    for i in range(rmax):
        lines.append(f"{i:>5} " + " ".join(f"{s:>{width}}" for s in grid[i]))
    if A.nrows > rmax:
        lines.append("  ...")
    return out + "\n" + "-" * 40 + "\n" + "\n".join(lines)


def vector_repr(v):
    fields = [("nvals", v.nvals), ("size", v.size), ("dtype", v.dtype), ("device", v.device)]
    out = _header(v, "Vector", fields)
    if v.nvals == 0:
        return out
    n = min(v.size, _MAX_COLS)
    sub = v[:n].new()
    idx, vals = sub.to_coo()
    cells = [""] * n
    for i, x in zip(idx.tolist(), vals.tolist()):
        cells[i] = _fmt(x)
    width = max([len(s) for s in cells] + [len(str(n - 1)), 1])
    head = " ".join(f"{i:>{width}}" for i in range(n)) + (" ..." if v.size > n else "")
    body = " ".join(f"{s:>{width}}" for s in cells)
    return out + "\n" + "-" * 40 + "\n" + head + "\n" + body


def scalar_repr(s):
    return _header(s, "Scalar", [("value", s.value), ("dtype", s.dtype)])


def html_repr(obj):
    return f"<pre>{html.escape(repr(obj))}</pre>"
