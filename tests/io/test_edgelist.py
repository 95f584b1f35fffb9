"""graphblast.io.read_edgelist and from_pandas_edgelist: the real graphs of tests/data/README.md,
options and malformed lines."""

import gzip
import io
import os

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import graphblast as gb
from graphblast import dtypes
from graphblast.exceptions import InvalidValue, OutOfMemory

# file: (read_edgelist options, vertices, stored entries, weak components or None)
REAL = {
    "facebook_combined.txt.gz": ({"directed": False}, 4039, 2 * 88234, 1),
    "wiki-Vote.txt": ({}, 7115, 103689, 24),
    "CA-GrQc.txt": ({"directed": False, "self_loops": False}, 5242, 2 * 14484, 355),
    "p2p-Gnutella04.txt": ({}, 10876, 39994, None),
    "as20000102.txt": ({"directed": False, "self_loops": False}, 6474, 2 * 12572, None),
    "email-Eu-core.csv": ({}, 1005, 25571, 20),
    "luxembourg_osm.edges": ({"directed": False}, 114599, 2 * 119666, 1),
    "delaunay_n16.edges": ({"directed": False}, 65536, 2 * 196575, 1),
}


def _components(A):
    r, c, _ = A.to_coo()
    S = sp.coo_array((np.ones(r.shape[0]), (r.astype(np.int64), c.astype(np.int64))),
                     shape=A.shape)
    return csgraph.connected_components(S, directed=True, connection="weak")[0]


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_graphs(data_dir, device, name):
    options, nvertices, nvals, components = REAL[name]
    A, mapping = gb.io.read_edgelist(os.path.join(data_dir, "real", name),
                                     return_mapping=True, device=device, **options)
    assert A.shape == (nvertices, nvertices)
    assert A.nvals == nvals
    assert mapping.shape == (nvertices,) and (np.diff(mapping) > 0).all()
    if not options.get("directed", True):
        assert A.isequal(A.T.new())
    if components is not None:
        assert _components(A) == components
    assert A.dtype == (dtypes.FP64 if name.endswith(".csv") else dtypes.BOOL)


def test_largest_component_of_ca_grqc(data_dir):
    A = gb.io.read_edgelist(os.path.join(data_dir, "real", "CA-GrQc.txt"), directed=False)
    r, c, _ = A.to_coo()
    S = sp.coo_array((np.ones(r.shape[0]), (r.astype(int), c.astype(int))), shape=A.shape)
    _, labels = csgraph.connected_components(S, directed=False)
    assert np.bincount(labels).max() == 4158


def test_luxembourg_degrees(data_dir):
    A = gb.io.read_edgelist(os.path.join(data_dir, "real", "luxembourg_osm.edges"),
                            directed=False)
    indptr = A.to_csr()[0]
    assert np.diff(indptr).max() == 6


def test_gapbs_test_graph(data_dir, device):
    """GAP's 4.el: 14 nodes and 53 directed edges after removing duplicates and self-loops."""
    graphs = os.path.join(data_dir, "gapbs", "graphs")
    A = gb.io.read_edgelist(os.path.join(graphs, "4.el"), relabel=False, duplicates="first",
                            self_loops=False, device=device)
    assert A.shape == (14, 14) and A.nvals == 53
    W = gb.io.read_edgelist(os.path.join(graphs, "4.wel"), relabel=False, duplicates="min",
                            self_loops=False, dtype="INT32", device=device)
    assert W.nvals == 53 and W.dtype == dtypes.INT32
    M = gb.io.mmread(os.path.join(graphs, "4.mtx"), dup_op=gb.binary.first, device=device)
    assert M.select("offdiag").new().isequal(A)
    with pytest.raises(InvalidValue, match="line 2: edge 0 -> 13 is also given on line 1"):
        gb.io.read_edgelist(os.path.join(graphs, "4.el"))


def read(text, **kwargs):
    return gb.io.read_edgelist(io.BytesIO(text.encode() if isinstance(text, str) else text),
                               **kwargs)


def test_layouts_and_separators(device):
    A = read("# comment\n0 1\n1\t2\n2  0 # trailing comment\n\n", device=device)
    assert A.dtype == dtypes.BOOL and A.nvals == 3
    W = read("0,1,0.5\r\n1 , 2 , 1.5\r\n", delimiter=",", device=device)
    assert W.to_coo()[2].tolist() == [0.5, 1.5]
    I = read("0 1 7\n1 2 -3\n", dtype="INT8", device=device)
    assert I.dtype == dtypes.INT8 and I.to_coo()[2].tolist() == [7, -3]
    with pytest.raises(InvalidValue, match="line 1: expected 2 columns"):
        read("0 1 7\n1 2 3\n", weighted=False)
    gz = gzip.compress(b"5 6\n6 7\n")
    assert read(gz, device=device).shape == (3, 3)


def test_relabel_and_ids(device):
    A, mapping = read("10 -5\n-5 1000\n", return_mapping=True, device=device)
    assert mapping.tolist() == [-5, 10, 1000]
    assert sorted(zip(*[x.tolist() for x in A.to_coo()[:2]])) == [(0, 2), (1, 0)]
    B, mapping = read("1 2\n2 4\n", relabel=False, one_based=True, return_mapping=True,
                      device=device)
    assert B.shape == (4, 4) and mapping.tolist() == [1, 2, 3, 4]
    C = read("0 2\n", relabel=False, num_nodes=10, device=device)
    assert C.shape == (10, 10)
    with pytest.raises(InvalidValue, match="line 2: vertex id 0 is below 1"):
        read("1 2\n0 4\n", relabel=False, one_based=True)
    with pytest.raises(InvalidValue, match="line 1: vertex id -1 is below 0"):
        read("-1 2\n", relabel=False)
    with pytest.raises(InvalidValue, match="num_nodes=3"):
        read("0 5\n", relabel=False, num_nodes=3)
    with pytest.raises(OutOfMemory, match="row pointers"):
        read(f"0 {2**59}\n", relabel=False)
    with pytest.raises(InvalidValue, match="relabel=False only"):
        read("0 1\n", one_based=True)


def test_count_lines(device):
    # A lone vertex count (p2p-Gnutella04) and "n m" with m the number of edges (CA-GrQc).
    assert read("3\n0 1\n1 2\n", device=device).nvals == 2
    A = read("3 2\n0 1\n1 2\n", device=device)
    assert A.nvals == 2 and A.shape == (3, 3)
    # "n m" that does not count the lines is an edge
    assert read("3 5\n0 1\n1 2\n", device=device).nvals == 3
    assert read("3 2\n0 1\n1 2\n", skip_count_line=False, device=device).nvals == 3
    assert read("0 1\n1 2\n2 0\n", skip_count_line=True, device=device).nvals == 2
    # a count line before weighted edges
    assert read("3 2\n0 1 0.5\n1 2 0.5\n", device=device).nvals == 2


def test_duplicates_and_self_loops(device):
    text = "0 1 1\n0 1 5\n1 1 2\n1 0 4\n"
    with pytest.raises(InvalidValue, match="line 2: edge 0 -> 1 is also given on line 1"):
        read(text)
    for policy, value in (("first", 1), ("last", 5), ("min", 1), ("max", 5), ("sum", 6)):
        A = read(text, duplicates=policy, dtype="INT64", device=device)
        d = A.to_dense(0)
        assert d[0, 1] == value and d[1, 0] == 4 and d[1, 1] == 2, policy
    assert read(text, duplicates="first", self_loops=False, device=device).nvals == 2


def test_undirected_rules(device):
    # each edge in both directions with equal weights (SNAP's convention) is one edge
    A = read("0 1 2\n1 0 2\n1 2 3\n", directed=False, device=device)
    assert A.nvals == 4 and A.to_dense(0)[1, 0] == 2
    # different weights in the two directions are a conflict
    with pytest.raises(InvalidValue, match="line 2: undirected edge \\{0, 1\\} has weight 5.0"):
        read("0 1 2\n1 0 5\n", directed=False)
    for policy, value in (("first", 2), ("last", 5), ("min", 2), ("max", 5), ("sum", 7)):
        B = read("0 1 2\n1 0 5\n", directed=False, duplicates=policy, device=device)
        assert B.to_dense(0).tolist() == [[0, value], [value, 0]], policy
    # the same direction twice is a duplicate even for undirected graphs
    with pytest.raises(InvalidValue, match="also given"):
        read("0 1\n0 1\n", directed=False)
    loops = read("0 0\n0 1\n", directed=False, device=device)
    assert loops.nvals == 3


@pytest.mark.parametrize("text, kwargs, words", [
    ("0 1\n1 2 3\n", {}, "line 1: expected 3 columns like the other lines, found 2"),
    ("0 1\n1 2\n1 2 3\n", {}, "line 3: 3 columns, but line 2 has 2"),
    ("0 1\n1 2 3 4\n", {}, "line 2: expected 2 or 3 columns"),
    ("0 1\n1\n", {}, "line 2: expected 2 or 3 columns"),
    ("0 1\n1 2.5\n", {}, "line 2: vertex id '2.5' is not an integer"),
    ("0 1\n1 x\n", {}, "line 2: 'x' is not valid"),
    ("0 1\n1 0x10\n", {}, "line 2: '0x10' is not valid"),
    ("0 1 1\n1 2 1.5junk\n", {}, "line 2: '1.5junk' is not valid"),
    ("0 1 1\n1 2 1.5.2\n", {}, "line 2: weight '1.5.2' is not a real number"),
    ("0 1 1\n1 2 1.5\n", {"dtype": "INT32"}, "line 2: '1.5' is not valid"),
    ("0 1\n1 2\x00\n", {}, "line 2: NUL byte"),
    ("0,1\n1,,2\n", {"delimiter": ","}, "line 2: 2 delimiters"),
    ("0,1\n1 2\n", {"delimiter": ","}, "line 2: 0 delimiters"),
    ("0 1\n99999999999999999999999 2\n", {}, "too large"),
    ("0 1\n", {"duplicates": "mean"}, "duplicates must be"),
    ("0 1\n", {"comments": "12"}, "single ASCII character"),
    ("0 1\n", {"delimiter": "-"}, "cannot be told apart"),
    ("0 1\n", {"weighted": "yes"}, "weighted must be"),
    ("0 1\n", {"skip_count_line": "maybe"}, "skip_count_line must be"),
])
def test_malformed(text, kwargs, words):
    with pytest.raises(InvalidValue) as info:
        read(text, **kwargs)
    assert words in str(info.value), str(info.value)


def test_empty_and_comment_only_files(device):
    A = read("# nothing here\n\n", device=device)
    assert A.shape == (0, 0) and A.nvals == 0


# -- pandas-style edge tables ----------------------------------------------------------------


class Table:
    """The one thing from_pandas_edgelist uses of a DataFrame: columns by name."""

    def __init__(self, **columns):
        self._columns = {k: np.asarray(v) for k, v in columns.items()}

    def __getitem__(self, key):
        return self._columns[key]


def test_from_pandas_edgelist(device):
    df = Table(source=["b", "a", "c"], target=["a", "c", "c"], w=[1.5, 2.5, 3.5])
    A, mapping = gb.io.from_pandas_edgelist(df, edge_attr="w", return_mapping=True,
                                            device=device)
    assert mapping.tolist() == ["a", "b", "c"]
    assert A.dtype == dtypes.FP64
    assert A.to_dense(0).tolist() == [[0, 0, 2.5], [1.5, 0, 0], [0, 0, 3.5]]
    U = gb.io.from_pandas_edgelist(df, directed=False, self_loops=False, device=device)
    assert U.dtype == dtypes.BOOL and U.nvals == 4
    N = gb.io.from_pandas_edgelist(df, nodelist=["c", "b", "a", "z"], device=device)
    assert N.shape == (4, 4) and N.to_dense(False)[1, 2]
    ints = Table(source=[0, 2], target=[2, 3], weight=[1, 2])
    I = gb.io.from_pandas_edgelist(ints, edge_attr="weight", relabel=False, device=device)
    assert I.shape == (4, 4) and I.dtype == dtypes.lookup_dtype(np.asarray([1]).dtype)
    with pytest.raises(InvalidValue, match="row 1: edge a -> c is also given on row 0"):
        gb.io.from_pandas_edgelist(Table(source=["a", "a"], target=["c", "c"]))
    with pytest.raises(InvalidValue, match="not in nodelist"):
        gb.io.from_pandas_edgelist(df, nodelist=["a", "b"])
    with pytest.raises(InvalidValue, match="does not fit"):
        gb.io.from_pandas_edgelist(Table(source=[0], target=[1], w=[300]), edge_attr="w",
                                   dtype="INT8")


def test_small_chunks(data_dir, monkeypatch):
    from graphblast.io import _text

    path = os.path.join(data_dir, "real", "wiki-Vote.txt")
    with open(path, "rb") as f:
        head = f.read(3000)
    head = head[:head.rindex(b"\n") + 1]
    expected = read(head)
    monkeypatch.setattr(_text, "CHUNK", 40)
    assert read(head).isequal(expected)
    assert read("5242 3\n1 2\n2 3\n3 1\n").nvals == 3
    with pytest.raises(InvalidValue, match="line 4: expected 2 or 3 columns"):
        read("0 1\n1 2\n2 3\n3 4 5 6\n")
