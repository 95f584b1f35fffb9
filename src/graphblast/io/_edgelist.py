"""Edge lists: SNAP-style text files and pandas edge DataFrames, read into adjacency matrices.

Both readers end in :func:`build_graph`, which applies the same rules for vertex ids,
duplicates, self-loops and undirected edges:

- ``relabel=True`` numbers the distinct ids 0..n-1 in increasing order (the mapping from new
  to old ids can be returned); otherwise ids are the indices themselves.
- An undirected edge may be listed once, or once in each direction with the same weight
  (SNAP's convention for undirected graphs).  Any other repetition is a duplicate, handled by
  ``duplicates``: "error" (the default, naming both lines), "first", "last", "min", "max" or
  "sum".
- ``self_loops=False`` drops edges (u, u); they are kept by default.
"""

import numpy as np

from ..dtypes import BOOL, FP64, lookup_dtype
from ..exceptions import InvalidValue
from . import _text
from .._memory import check_rows
from ._mmio import parse_values
from ._source import read_bytes

__all__ = ["build_graph", "from_pandas_edgelist", "read_edgelist"]

_DUPLICATES = ("error", "first", "last", "min", "max", "sum")


def read_edgelist(source, *, directed=True, weighted=None, comments="#", delimiter=None,
                  relabel=True, return_mapping=False, skip_count_line="auto", one_based=False,
                  self_loops=True, duplicates="error", dtype=None, num_nodes=None, name=None,
                  device=None):
    """Read an edge list ("u v" or "u v weight" per line) into a square adjacency Matrix.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path (gzip, bzip2 and xz are recognized by their contents) or an open file.
    directed : bool, default True
        False gives the symmetric adjacency matrix of an undirected graph.
    weighted : bool or None, default None
        Whether each line has a third column holding the weight.  None decides from the
        file: every data line must then have the same number of columns, 2 or 3.
    comments : str or None, default "#"
        A comment runs from this character to the end of its line; None: no comments.
    delimiter : str or None, default None
        The character between columns ("," for CSV); None means runs of spaces and tabs.
        With a delimiter, blanks around it are allowed and an empty column is an error.
    relabel : bool, default True
        Number the distinct vertex ids 0..n-1 in increasing order (ids may have gaps and be
        negative).  False uses the ids as indices: they must be non-negative (positive with
        ``one_based``).
    return_mapping : bool, default False
        Also return ``mapping``, a NumPy array with the original id of each vertex.
    skip_count_line : bool or "auto", default "auto"
        Whether the first data line holds counts rather than an edge.  "auto" skips it when it
        has fewer columns than the other lines (e.g. just the vertex count), or when it is
        "n m" and m equals the number of lines after it.
    one_based : bool, default False
        With ``relabel=False``: ids start at 1 (vertex 1 becomes index 0).
    self_loops : bool, default True
        Keep edges from a vertex to itself; False drops them.
    duplicates : {"error", "first", "last", "min", "max", "sum"}, default "error"
        What a repeated edge does (see the module notes for undirected graphs).
    dtype : optional
        Type of the weights (default FP64), or of the value 1 given to every edge of an
        unweighted list (default BOOL).  Integer types need integer weights in range.
    num_nodes : int, optional
        With ``relabel=False``: the number of vertices (default: the largest index + 1).
    name : str, optional
        Name of the Matrix.
    device : str, optional
        Device of the Matrix.

    Returns
    -------
    Matrix, or (Matrix, numpy.ndarray) with ``return_mapping``

    Raises
    ------
    InvalidValue
        A malformed line (naming the file and line), a duplicate edge, or a bad option.
    """
    _check_options(directed, weighted, skip_count_line, duplicates, relabel, one_based,
                   num_nodes)
    comment_char = _one_char("comments", comments)
    delim = _one_char("delimiter", delimiter)
    if comment_char is not None and delim == comment_char:
        raise InvalidValue("comments and delimiter must be different characters")
    weight_type = None if dtype is None else lookup_dtype(dtype)
    buf, src = read_bytes(source)
    reader = _EdgeListText(comment_char, delim, weighted, weight_type or FP64, src)
    edges = reader.read(buf)
    src_ids, dst_ids, weights, lines = _resolve_layout(edges, reader, skip_count_line)
    if weights is None:
        value_type = weight_type or BOOL
        weights = np.ones(src_ids.shape[0], dtype=value_type.np_type)
    else:
        value_type = weight_type or FP64
    offset = 1 if one_based else 0
    if relabel:
        mapping, (src_ids, dst_ids) = _relabel((src_ids, dst_ids))
        n = mapping.shape[0]
    else:
        src_ids, dst_ids, n = _as_indices(src_ids, dst_ids, lines, offset, num_nodes,
                                          lambda line: f"{src}, line {line}")
        check_rows(n, src)
        mapping = None
    A = build_graph(src_ids, dst_ids, weights, n, value_type, directed=directed,
                    self_loops=self_loops, duplicates=duplicates, lines=lines, source=src,
                    labels=mapping, name=name, device=device)
    if not return_mapping:
        return A
    return A, (np.arange(n, dtype=np.int64) + offset if mapping is None else mapping)


def _check_options(directed, weighted, skip_count_line, duplicates, relabel, one_based,
                   num_nodes):
    for opt, value in (("directed", directed), ("relabel", relabel), ("one_based", one_based)):
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidValue(f"{opt} must be True or False, not {value!r}")
    if weighted not in (None, True, False):
        raise InvalidValue(f"weighted must be None, True or False, not {weighted!r}")
    if skip_count_line not in (True, False, "auto"):
        raise InvalidValue(f"skip_count_line must be True, False or 'auto', not "
                           f"{skip_count_line!r}")
    if duplicates not in _DUPLICATES:
        raise InvalidValue(f"duplicates must be one of {', '.join(_DUPLICATES)}, not "
                           f"{duplicates!r}")
    if relabel and (one_based or num_nodes is not None):
        raise InvalidValue("one_based and num_nodes apply to relabel=False only; with "
                           "relabel=True vertices are numbered 0..n-1 by increasing id")


def _one_char(option, value):
    if value is None:
        return None
    if not isinstance(value, str) or len(value) != 1 or not value.isascii():
        raise InvalidValue(f"{option} must be a single ASCII character or None, not {value!r}")
    if value in "0123456789+-.eE\n" or (option == "comments" and value in " \t\r"):
        raise InvalidValue(f"{option}={value!r} cannot be told apart from the numbers of an "
                           "edge list")
    return value


class _Edges:
    """What the text reader found: per data line its width, ids and (maybe) weight."""

    def __init__(self):
        self.width = None  # columns of every data line after the first
        self.width_line = None  # the line that set it
        self.lines = []
        self.src = []
        self.dst = []
        self.weights = []  # weight arrays of the chunks whose lines have 3 columns
        self.first = None  # (line, tokens as bytes, width) of the first data line


class _EdgeListText:
    """The chunked text pass of :func:`read_edgelist`."""

    def __init__(self, comment_char, delim, weighted, weight_type, src):
        self.comment_char = comment_char
        self.delim = delim
        self.weighted = weighted
        self.weight_type = weight_type
        self.src = src
        if weighted is False:
            self.allowed = _text.INTEGER_CHARS
        elif weight_type.is_float:
            self.allowed = _text.REAL_CHARS
        else:
            self.allowed = _text.INTEGER_CHARS
        self.what = "an edge list"
        self.want = {None: "2 or 3 columns (source target [weight])",
                     True: "3 columns (source target weight)",
                     False: "2 columns (source target)"}[weighted]
        self.max_width = 2 if weighted is False else 3

    def read(self, buf):
        edges = _Edges()
        for piece, line in _text.chunks(buf, 0, 1):
            try:
                self._piece(piece, line, edges)
            except _text.TokenError as exc:
                at = line + piece.count(b"\n", 0, exc.pos)
                raise InvalidValue(f"{self.src}, line {at}: {exc.message}") from None
        return edges

    def _piece(self, piece, first_line, edges):
        if self.comment_char is not None:
            piece = _text.blank_comments(piece, self.comment_char, anywhere=True)
        delimiters = None
        if self.delim is not None:
            b = np.frombuffer(piece, dtype=np.uint8)
            delimiters = np.flatnonzero(b == ord(self.delim))
            piece = piece.replace(self.delim.encode("ascii"), b" ")
        text = _text.Text(piece)
        text.check_alphabet(self.allowed, self.what)
        tokens = text.tokenize()
        if edges.width is not None and delimiters is None:
            try:
                starts, ends, lines = tokens.entries(edges.width)
            except _text.LineCountError as exc:
                self._wrong_width(first_line + exc.line, exc.found, edges)
            weights = slice(2, 3) if edges.width == 3 else slice(0, 0)
            self._parse(text, starts[:, :2], ends[:, :2], starts[:, weights].reshape(-1),
                        ends[:, weights].reshape(-1), lines + first_line, edges)
            return
        per = tokens.per_line()
        if delimiters is not None:
            self._check_delimiters(tokens, per, delimiters, first_line)
        data = np.flatnonzero(per)
        if data.shape[0] == 0:
            return
        widths = per[data]
        first_token = np.concatenate(([0], np.cumsum(widths)[:-1]))
        keep = np.ones(data.shape[0], dtype=bool)
        if edges.first is None:
            # The first data line may be a count line, decided at the end: its width is not
            # checked against the others, and a lone count is not parsed as an edge.
            width = int(widths[0])
            if width > self.max_width:
                raise InvalidValue(f"{self.src}, line {first_line + int(data[0])}: expected "
                                   f"{self.want}, found {width}")
            edges.first = (first_line + int(data[0]),
                           [text.buf[int(s):int(e)] for s, e in
                            zip(tokens.starts[:width], tokens.ends[:width])], width)
            keep[0] = width >= 2
            others = widths[1:]
        else:
            others = widths
        if others.shape[0]:
            if edges.width is None:
                line = first_line + int(data[data.shape[0] - others.shape[0]])
                if self.weighted is None and not 2 <= others[0] <= 3:
                    raise InvalidValue(f"{self.src}, line {line}: expected {self.want}, found "
                                       f"{int(others[0])}")
                edges.width = self.max_width if self.weighted is not None else int(others[0])
                edges.width_line = line
            wrong = np.flatnonzero(others != edges.width)
            if wrong.shape[0]:
                i = int(wrong[0]) + data.shape[0] - others.shape[0]
                self._wrong_width(first_line + int(data[i]), int(widths[i]), edges)
        rows = first_token[keep]
        id_starts = np.stack((tokens.starts[rows], tokens.starts[rows + 1]), axis=1)
        id_ends = np.stack((tokens.ends[rows], tokens.ends[rows + 1]), axis=1)
        weight_tokens = rows[widths[keep] == 3] + 2
        self._parse(text, id_starts, id_ends, tokens.starts[weight_tokens],
                    tokens.ends[weight_tokens], data[keep] + first_line, edges)

    def _wrong_width(self, line, found, edges):
        if self.weighted is None and found in (2, 3):
            raise InvalidValue(f"{self.src}, line {line}: {found} columns, but line "
                               f"{edges.width_line} has {edges.width}; pass weighted=True or "
                               "weighted=False to say which layout is right")
        raise InvalidValue(f"{self.src}, line {line}: expected {self.want}, found {found}")

    def _parse(self, text, id_starts, id_ends, weight_starts, weight_ends, lines, edges):
        """Vertex ids from (n, 2) token bounds, and the weights of the lines that have one."""
        ids = []
        for col in (0, 1):
            s, e = id_starts[:, col], id_ends[:, col]
            mag, neg = text.parse_integers(s, e, signed=True, what="vertex id")
            ids.append(text.integers_as(s, mag, neg, np.int64, "vertex id"))
        if weight_starts.shape[0]:
            edges.weights.append(parse_values(text, weight_starts, weight_ends,
                                              self.weight_type, "weight"))
        edges.lines.append(lines)
        edges.src.append(ids[0])
        edges.dst.append(ids[1])

    def _check_delimiters(self, tokens, per, delimiters, first_line):
        # Each line needs exactly one delimiter between consecutive columns: then no column
        # is empty and none holds blanks.
        counts = np.bincount(np.searchsorted(tokens.newlines, delimiters),
                             minlength=tokens.nlines)
        bad = (per > 0) & (counts != per - 1) | (per == 0) & (counts > 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidValue(f"{self.src}, line {first_line + i}: {int(counts[i])} "
                               f"delimiters {self.delim!r} for {int(per[i])} columns; columns "
                               "must be separated by exactly one delimiter and not be empty")


def _resolve_layout(edges, reader, skip_count_line):
    """Decide about the first data line and the weight column; flat arrays of the edges."""
    weighted = reader.weighted
    empty = np.zeros(0, dtype=np.int64)
    if edges.first is None:
        return empty, empty, (np.zeros(0) if weighted else None), empty
    first_line, first_tokens, first_width = edges.first
    lines = np.concatenate(edges.lines) if edges.lines else empty
    src_ids = np.concatenate(edges.src) if edges.src else empty
    dst_ids = np.concatenate(edges.dst) if edges.dst else empty
    first_parsed = first_width >= 2
    after = slice(1, None) if first_parsed else slice(None)
    if edges.width is not None:
        width = edges.width
    elif weighted is None:
        width = max(first_width, 2)
    else:
        width = 3 if weighted else 2
    if skip_count_line == "auto":
        skip = _is_count_line(first_tokens, width, src_ids[after], dst_ids[after])
    else:
        skip = bool(skip_count_line)
    weights = None
    if width == 3:
        weights = (np.concatenate(edges.weights) if edges.weights
                   else np.zeros(0, reader.weight_type.np_type))
    if skip:
        if first_parsed:
            src_ids, dst_ids, lines = src_ids[1:], dst_ids[1:], lines[1:]
            if weights is not None and first_width == 3:
                weights = weights[1:]
    elif first_width != width:
        raise InvalidValue(f"{reader.src}, line {first_line}: expected {width} columns like "
                           f"the other lines, found {first_width}")
    return src_ids, dst_ids, weights, lines


def _is_count_line(tokens, width, src_ids, dst_ids):
    """Whether the first data line reads as "n" or "n m": n at least the number of distinct
    vertices after it and m, if given, the number of lines after it."""
    if not 1 <= len(tokens) <= 2 or len(tokens) > width or not all(t.isdigit() for t in tokens):
        return False
    if len(tokens) == 2 and int(tokens[1]) != src_ids.shape[0]:
        return False
    distinct = np.unique(np.concatenate((src_ids, dst_ids))).shape[0]
    return int(tokens[0]) >= distinct


def _relabel(columns):
    """Number the distinct ids 0..n-1 in increasing order; the ids, and the new columns."""
    both = np.concatenate(columns)
    mapping, inverse = np.unique(both, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64, copy=False)
    n = columns[0].shape[0]
    return mapping, (inverse[:n], inverse[n:])


def _as_indices(src_ids, dst_ids, lines, offset, num_nodes, where):
    if offset:
        src_ids = src_ids - offset
        dst_ids = dst_ids - offset
    for ids in (src_ids, dst_ids):
        if ids.shape[0] and ids.min() < 0:
            i = int(np.flatnonzero(ids < 0)[0])
            lowest = "1 (one_based=True)" if offset else "0"
            raise InvalidValue(f"{where(int(lines[i]))}: vertex id {int(ids[i]) + offset} is "
                               f"below {lowest}; pass relabel=True for arbitrary ids")
    largest = max(int(src_ids.max()), int(dst_ids.max())) if src_ids.shape[0] else -1
    if num_nodes is None:
        return src_ids, dst_ids, largest + 1
    n = int(num_nodes)
    if largest >= n:
        ids = src_ids if int(src_ids.max()) == largest else dst_ids
        i = int(np.flatnonzero(ids == largest)[0])
        raise InvalidValue(f"{where(int(lines[i]))}: vertex id {largest + offset} does not fit "
                           f"in num_nodes={n}")
    return src_ids, dst_ids, n


def build_graph(src, dst, weights, n, dtype, *, directed, self_loops, duplicates, lines,
                source, unit="line", labels=None, name=None, device=None):
    """The n x n adjacency Matrix of edges ``src -> dst`` (0-based indices) with ``weights``.

    For messages: ``lines`` says on which ``unit`` ("line" or "row") of ``source`` each edge
    was given, and ``labels[i]`` what vertex i is called there.  See the module notes for the
    rules.
    """
    from ..core.matrix import Matrix

    dtype = lookup_dtype(dtype)
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    name_of = (lambda i: int(i)) if labels is None else (lambda i: _label(labels[i]))
    if not self_loops:
        keep = src != dst
        src, dst, weights, lines = src[keep], dst[keep], weights[keep], lines[keep]
    def where(line):
        return f"{source}, {unit} {line}"

    src, dst, weights, lines = _combine(src, dst, weights, lines, n, duplicates, where, unit,
                                        name_of)
    if not directed:
        src, dst, weights, lines = _merge_directions(np.minimum(src, dst),
                                                     np.maximum(src, dst), weights, lines, n,
                                                     duplicates, where, unit, name_of)
        off = src != dst
        src, dst = np.concatenate((src, dst[off])), np.concatenate((dst, src[off]))
        weights = np.concatenate((weights, weights[off]))
    kwargs = {} if device is None else {"device": device}
    return Matrix.from_coo(src, dst, weights, dtype, nrows=n, ncols=n, name=name, **kwargs)


def _label(x):
    return x.item() if isinstance(x, np.generic) else x


def _groups(src, dst, n):
    """Stable sort order by (src, dst) and the start of each group of equal pairs."""
    if n <= 2**31:
        order = np.argsort(src * n + dst, kind="stable")
    else:
        order = np.lexsort((dst, src))
    s, d = src[order], dst[order]
    new = np.ones(order.shape[0], dtype=bool)
    new[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    return order, np.flatnonzero(new)


_HOW = "pass duplicates='first', 'last', 'min', 'max' or 'sum' to combine repeated edges"


def _combine(src, dst, weights, lines, n, duplicates, where, unit, name_of):
    """One entry per (src, dst): repeated pairs combined by the ``duplicates`` policy."""
    if src.shape[0] < 2:
        return src, dst, weights, lines
    order, starts = _groups(src, dst, n)
    if starts.shape[0] == order.shape[0]:
        return src, dst, weights, lines
    if duplicates == "error":
        # Report the repeat that comes first in the input.
        sizes = np.diff(np.append(starts, order.shape[0]))
        groups = starts[sizes > 1]
        g = int(np.argmin(lines[order[groups + 1]]))
        i, j = order[groups[g]], order[groups[g] + 1]
        raise InvalidValue(f"{where(int(lines[j]))}: edge {name_of(src[j])} -> "
                           f"{name_of(dst[j])} is also given on {unit} {int(lines[i])}; {_HOW}")
    w = weights[order]
    ends = np.append(starts[1:], order.shape[0])
    if duplicates == "first":
        combined = w[starts]
    elif duplicates == "last":
        combined = w[ends - 1]
    elif duplicates == "min":
        combined = np.minimum.reduceat(w, starts)
    elif duplicates == "max":
        combined = np.maximum.reduceat(w, starts)
    elif w.dtype == np.bool_:
        combined = np.logical_or.reduceat(w, starts)
    else:
        combined = np.add.reduceat(w, starts, dtype=w.dtype)
    pick = order[starts]
    return src[pick], dst[pick], combined, lines[pick]


def _merge_directions(a, b, weights, lines, n, duplicates, where, unit, name_of):
    """Undirected edges {a, b} (a <= b): the same edge in both directions with equal weights
    is one edge; with different weights it is a duplicate."""
    if a.shape[0] < 2:
        return a, b, weights, lines
    order, starts = _groups(a, b, n)
    if starts.shape[0] == order.shape[0]:
        return a, b, weights, lines
    # After _combine each direction appears once, so a group has one or two entries; make
    # ``first`` the one from the earlier line.
    sizes = np.diff(np.append(starts, order.shape[0]))
    pairs = starts[sizes == 2]
    first, second = order[pairs], order[pairs + 1]
    swap = lines[second] < lines[first]
    first, second = np.where(swap, second, first), np.where(swap, first, second)
    differ = weights[first] != weights[second]
    if weights.dtype.kind == "f":
        differ &= ~(np.isnan(weights[first]) & np.isnan(weights[second]))
    w = weights.copy()
    if differ.any():
        f, s = first[differ], second[differ]
        if duplicates == "error":
            k = int(np.argmin(lines[s]))
            i, j = int(f[k]), int(s[k])
            raise InvalidValue(f"{where(int(lines[j]))}: undirected edge "
                               f"{{{name_of(a[j])}, {name_of(b[j])}}} has weight "
                               f"{weights[j].item()!r} here but {weights[i].item()!r} on "
                               f"{unit} {int(lines[i])}; {_HOW}")
        if duplicates == "last":
            w[f] = weights[s]
        elif duplicates == "min":
            w[f] = np.minimum(weights[f], weights[s])
        elif duplicates == "max":
            w[f] = np.maximum(weights[f], weights[s])
        elif duplicates == "sum":
            w[f] = weights[f] | weights[s] if w.dtype == np.bool_ else weights[f] + weights[s]
    keep = np.ones(a.shape[0], dtype=bool)
    keep[second] = False
    return a[keep], b[keep], w[keep], lines[keep]


def from_pandas_edgelist(df, source="source", target="target", edge_attr=None, *,
                         directed=True, nodelist=None, relabel=True, return_mapping=False,
                         self_loops=True, duplicates="error", dtype=None, num_nodes=None,
                         name=None, device=None):
    """A square adjacency Matrix from an edge table (a pandas DataFrame or a dict of columns).

    Parameters
    ----------
    df : pandas.DataFrame or mapping of column name -> array
        The edge table; only ``df[column]`` is used.
    source, target : str, default "source", "target"
        Columns holding the vertex labels (any values NumPy can sort, e.g. ints or strings).
    edge_attr : str, optional
        Column holding the weights.  None: every edge gets the value 1 (BOOL by default).
    directed : bool, default True
        False gives the symmetric adjacency matrix of an undirected graph.
    nodelist : sequence, optional
        The vertices in order (vertex i is ``nodelist[i]``), including isolated ones; every
        label must be in it.  Default: the distinct labels in increasing order.
    relabel : bool, default True
        With ``relabel=False`` (and no ``nodelist``) the labels must be non-negative integers
        and are the indices.
    return_mapping : bool, default False
        Also return the label of each vertex as a NumPy array.
    self_loops, duplicates : see :func:`read_edgelist`
    dtype : optional
        Type of the values (default: the weight column's type, or BOOL without one).
    num_nodes : int, optional
        With ``relabel=False``: the number of vertices.
    name, device : optional
        Name and device of the Matrix.
    """
    _check_options(directed, None, False, duplicates, relabel, False,
                   None if relabel else num_nodes)
    if num_nodes is not None and relabel:
        raise InvalidValue("num_nodes applies to relabel=False only")
    src = np.asarray(df[source])
    dst = np.asarray(df[target])
    if src.ndim != 1 or dst.shape != src.shape:
        raise InvalidValue(f"columns {source!r} and {target!r} must be 1-D and of equal length")
    lines = np.arange(src.shape[0], dtype=np.int64)
    if edge_attr is None:
        value_type = lookup_dtype(dtype) if dtype is not None else BOOL
        weights = np.ones(src.shape[0], dtype=value_type.np_type)
    else:
        weights = np.asarray(df[edge_attr])
        if weights.shape != src.shape:
            raise InvalidValue(f"column {edge_attr!r} must have one weight per edge")
        value_type = lookup_dtype(dtype) if dtype is not None else _weight_type(weights)
        weights = _cast_exact(weights, value_type, edge_attr)
    if nodelist is not None:
        mapping = np.asarray(nodelist)
        src, dst = _positions(mapping, src, source), _positions(mapping, dst, target)
        n = mapping.shape[0]
    elif relabel:
        try:
            mapping, (src, dst) = _relabel((src, dst))
        except TypeError as exc:
            raise InvalidValue(f"vertex labels must be mutually comparable to be numbered: "
                               f"{exc}") from None
        n = mapping.shape[0]
    else:
        if src.dtype.kind not in "iu" or dst.dtype.kind not in "iu":
            raise InvalidValue("with relabel=False the vertex labels must be integers")
        src, dst, n = _as_indices(src.astype(np.int64), dst.astype(np.int64), lines, 0,
                                  num_nodes, lambda row: f"edge table, row {row}")
        mapping = np.arange(n, dtype=np.int64)
    A = build_graph(src, dst, weights, n, value_type, directed=directed,
                    self_loops=self_loops, duplicates=duplicates, lines=lines,
                    source="edge table", unit="row", labels=mapping, name=name, device=device)
    return (A, mapping) if return_mapping else A


def _weight_type(weights):
    if weights.dtype.kind in "biuf":
        return lookup_dtype(weights.dtype)
    raise InvalidValue(f"weights of dtype {weights.dtype} are not numbers; pass dtype= or "
                       "convert the column")


def _cast_exact(weights, dtype, column):
    target = dtype.np_type
    if weights.dtype == target:
        return weights
    if weights.dtype.kind not in "biuf":
        try:
            converted = weights.astype(target)
        except (TypeError, ValueError):
            raise InvalidValue(f"column {column!r} holds values that are not {dtype}") from None
        return converted
    with np.errstate(invalid="ignore", over="ignore"):
        converted = weights.astype(target)
        back = converted.astype(weights.dtype)
    lossy = back != weights
    if weights.dtype.kind == "f":
        lossy &= ~np.isnan(weights)
    if target.kind == "f":
        lossy[:] = False  # rounding to a float type is the requested conversion
    if lossy.any():
        i = int(np.flatnonzero(lossy)[0])
        raise InvalidValue(f"row {i}: weight {weights[i]!r} in column {column!r} does not fit "
                           f"in {dtype}")
    return converted


def _positions(nodelist, labels, column):
    """Index of each label in ``nodelist``."""
    order = np.argsort(nodelist, kind="stable")
    sorted_nodes = nodelist[order]
    if sorted_nodes.shape[0] > 1 and (sorted_nodes[1:] == sorted_nodes[:-1]).any():
        raise InvalidValue("nodelist holds the same vertex twice")
    if sorted_nodes.shape[0] == 0:
        if labels.shape[0]:
            raise InvalidValue(f"row 0: vertex {labels[0]!r} in column {column!r} is not in "
                               "nodelist (which is empty)")
        return np.zeros(0, dtype=np.int64)
    k = np.minimum(np.searchsorted(sorted_nodes, labels), sorted_nodes.shape[0] - 1)
    missing = sorted_nodes[k] != labels
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise InvalidValue(f"row {i}: vertex {labels[i]!r} in column {column!r} is not in "
                           "nodelist")
    return order[k].astype(np.int64)
