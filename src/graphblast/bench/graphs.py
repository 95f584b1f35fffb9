"""The benchmark graphs of BENCHMARKS.md, at the default and the ``--smoke`` scales.

==============  ===============================================  =========  =======
name            what                                             default    smoke
==============  ===============================================  =========  =======
``kron``        GAP Kronecker, degree 16 (``generators.kron``)   scale 22   10
``g500``        Graph500 Kronecker, edge factor 48               scale 21   10
``urand``       GAP uniform random, degree 16                    scale 22   10
``rgg``         random geometric graph, DIMACS10 radius          n = 2^22   2^10
``grid``        2-D 4-neighbour grid                             2048^2     32^2
``karate``      Zachary's karate club (``lagraph/karate.mtx``)   real       real
``facebook``    SNAP ego-Facebook (``real/facebook_combined``)   real       -
``luxembourg``  DIMACS10 road graph (``real/luxembourg_osm``)    real       -
``delaunay``    DIMACS10 Delaunay mesh (``real/delaunay_n16``)   real       -
==============  ===============================================  =========  =======

Every graph is undirected: both directions of each edge are stored, without self-loops or
duplicates.  SSSP runs on a weighted copy with the same structure: GAP's integer weights
1..255 for ``kron`` and ``urand`` (gapbs's weighted builder), 1..100 for ``grid`` (the road
class), and for the others a hash of the edge's two endpoints mapped to 1..255, so that both
directions of an edge get one weight and every run gets the same weights.

The size of a synthetic graph is one integer: the scale (log2 of the vertex count) for
``kron``, ``g500``, ``urand`` and ``rgg``, the side for ``grid``.  ``--scale-offset N`` adds
``N`` to every scale and multiplies the grid's side by ``2^(N/2)``, so every graph grows by
about ``2^N`` vertices.
"""

import dataclasses
import os
import time

import numpy as np

from graphblast.exceptions import InvalidValue

__all__ = [
    "DEFAULT_SIZES",
    "REAL",
    "SMOKE_SIZES",
    "SYNTHETIC",
    "BenchGraph",
    "GraphSpec",
    "build",
    "find_data_dir",
    "hash_weights",
    "parse_graphs",
    "to_host_array",
]

SYNTHETIC = ("kron", "g500", "urand", "rgg", "grid")
#: Real graphs: the file under the data directory and how its lines are written.
REAL = {
    "karate": ("lagraph/karate.mtx", "mtx"),
    "facebook": ("real/facebook_combined.txt.gz", "edges0"),
    "luxembourg": ("real/luxembourg_osm.edges", "edges1"),
    "delaunay": ("real/delaunay_n16.edges", "edges1"),
}
DEFAULT_SIZES = {"kron": 22, "g500": 21, "urand": 22, "rgg": 22, "grid": 2048}
SMOKE_SIZES = {"kron": 10, "g500": 10, "urand": 10, "rgg": 10, "grid": 32}
#: What ``--graphs`` runs when it is not given (the real graphs are asked for by name).
DEFAULT_GRAPHS = SYNTHETIC
SMOKE_GRAPHS = SYNTHETIC + ("karate",)
#: The Graph500 edge factor of g500-21, the shape of SuiteSparse's kron_g500-logn21.
G500_EDGE_FACTOR = 48
#: Seed of the hash weights and of the choice of BFS/SSSP source vertices.
BENCH_SEED = 20240917


@dataclasses.dataclass(frozen=True)
class GraphSpec:
    """One benchmark graph: its family and size (``size`` is 0 for a real graph)."""

    family: str
    size: int = 0

    @property
    def name(self):
        """``kron-22``, ``g500-21``, ``rgg-22``, ``grid-2048``, ``karate``."""
        return self.family if self.family in REAL else f"{self.family}-{self.size}"

    @property
    def scalable(self):
        return self.family in SYNTHETIC

    def scaled(self, offset):
        """The same family with about ``2^offset`` times the vertices."""
        if not self.scalable:
            return self
        if self.family == "grid":
            return GraphSpec("grid", max(2, round(self.size * 2.0 ** (offset / 2))))
        return GraphSpec(self.family, self.size + offset)


def parse_graphs(text, *, smoke=False, scale_offset=0):
    """The specs for a ``--graphs`` value (``None``: the default list).

    ``real`` stands for every real graph.  Names may carry a size, ``kron-18`` or
    ``grid-1024``, which ``scale_offset`` does not change.
    """
    sizes = SMOKE_SIZES if smoke else DEFAULT_SIZES
    if text is None:
        names = list(SMOKE_GRAPHS if smoke else DEFAULT_GRAPHS)
    else:
        names = [t.strip().lower() for t in text.split(",") if t.strip()]
        if not names:
            raise InvalidValue("--graphs is empty; name at least one of "
                               f"{', '.join(SYNTHETIC + tuple(REAL))} or 'real'")
    specs = []
    for name in names:
        if name == "real":
            specs.extend(GraphSpec(r) for r in REAL)
            continue
        if name in REAL:
            specs.append(GraphSpec(name))
            continue
        family, _, size = name.partition("-")
        if family not in SYNTHETIC:
            raise InvalidValue(f"unknown graph {name!r}; known: "
                               f"{', '.join(SYNTHETIC + tuple(REAL))}, 'real', or a family "
                               "with a size such as kron-18 or grid-1024")
        if size:
            if not size.isdigit() or int(size) < 1:
                raise InvalidValue(f"graph {name!r}: the size after '-' must be a positive "
                                   "integer (a scale, or the side of a grid)")
            specs.append(GraphSpec(family, int(size)))
        else:
            specs.append(GraphSpec(family, sizes[family]).scaled(scale_offset))
    for spec in specs:
        if spec.family != "grid" and spec.scalable and not 1 <= spec.size <= 30:
            raise InvalidValue(f"graph {spec.name}: the scale must be between 1 and 30; "
                               "lower --scale-offset")
    seen = set()
    return [s for s in specs if not (s in seen or seen.add(s))]


def find_data_dir(explicit=None):
    """The directory of the real graphs, or ``None`` if none is found.

    Looked for in order: ``explicit`` (it must exist), ``$GRAPHBLAST_DATA``, and the package
    data (``graphblast/data``), which holds karate (what ``--smoke`` reads) so that an
    installed package or a fresh clone needs nothing beside it.  The other real graphs
    (facebook, luxembourg, delaunay) are in the repository's ``tests/data``: pass that.
    """
    if explicit is not None:
        if not os.path.isfile(os.path.join(explicit, REAL["karate"][0])):
            raise InvalidValue(f"--data {explicit!r} does not hold the real graphs (no "
                               f"{REAL['karate'][0]} there); pass a folder such as the "
                               "repository's tests/data")
        return os.path.abspath(explicit)
    package = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    for c in (os.environ.get("GRAPHBLAST_DATA"), package):
        if c and os.path.isfile(os.path.join(c, REAL["karate"][0])):
            return os.path.abspath(c)
    return None


def to_host_array(a):
    """A NumPy view or copy of a NumPy or CuPy array."""
    get = getattr(a, "get", None)
    return np.asarray(get() if callable(get) and not isinstance(a, np.ndarray) else a)


def hash_weights(rows, cols, *, low=1, high=255, seed=BENCH_SEED):
    """Integer weights in ``low..high`` from the unordered pair ``{row, col}``.

    splitmix64 of ``min << 32 | max``: both directions of an edge get the same weight, and
    the weights depend on nothing but the edge, so every run and every peer sees the same.
    """
    r = np.asarray(rows, dtype=np.uint64)
    c = np.asarray(cols, dtype=np.uint64)
    z = (np.minimum(r, c) << np.uint64(32)) | np.maximum(r, c)
    z ^= np.uint64(seed)
    # uint64 arithmetic wraps modulo 2^64, which is what splitmix64 needs.
    z += np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return (z % np.uint64(high - low + 1)).astype(np.int32) + np.int32(low)


class BenchGraph:
    """A benchmark graph on the benchmark's device, and its host arrays for the peers.

    Only the pattern matrix is built up front.  The weighted copy (SSSP's), the host column
    indices and the weights are made on first use and can be dropped again
    (:meth:`drop_weighted`, :meth:`release`): at GAP's scale 27 (4.2 billion entries) a
    second matrix on the GPU or a host copy of the indices is tens of GiB that a run
    without peers never needs.

    Attributes
    ----------
    spec : GraphSpec
    name : str
    A : graphblast.Matrix
        BOOL pattern (every value True) on ``device``.
    Aw : graphblast.Matrix
        The same structure with integer weights, for SSSP (built on first use).
    n, nedges : int
        Vertices and stored entries (each undirected edge counts twice).
    indptr : numpy.ndarray
        Host row pointers.
    indices, weights : numpy.ndarray
        Host column indices and SSSP weights (fetched on first use).
    source : int
        The BFS/SSSP source: vertex 0 (a corner) on a grid, else a vertex with at least one
        edge chosen with a fixed seed (GAP and Graph500 pick non-isolated sources).
    build_seconds : float
        Time to generate or read the graph and build the pattern matrix (not benchmarked);
        ``weighted_build_seconds`` the same for the weighted copy, once built.
    """

    def __init__(self, spec, A, indptr, build_seconds, *, indices=None, weights=None,
                 Aw=None, make_weighted=None):
        self.spec = spec
        self.name = spec.name
        self.family = spec.family
        self.device = A.device
        self.A = A
        self._Aw = Aw
        self._make_weighted = make_weighted
        self.n = int(A.nrows)
        self.nedges = int(A.nvals)
        self.indptr = indptr
        self._indices = indices
        self._weights = weights
        self.build_seconds = build_seconds
        self.weighted_build_seconds = 0.0
        self.source = _pick_source(indptr, spec.family)
        self._cache = {}

    @property
    def indices(self):
        if self._indices is None:
            self._indices = _host_indices(self.A, self.nedges)
        return self._indices

    @property
    def weights(self):
        """int32 SSSP weight of every stored entry, in CSR order."""
        if self._weights is None:
            self._weights = self._make_weighted(self, host_only=True)
        return self._weights

    @property
    def Aw(self):
        if self._Aw is None:
            t0 = time.perf_counter()
            self._Aw = self._make_weighted(self, host_only=False)
            self._Aw.wait()
            self.weighted_build_seconds = time.perf_counter() - t0
        return self._Aw

    def drop_weighted(self):
        """Free the weighted matrix (it is built again if asked for)."""
        self._Aw = None

    @property
    def degrees(self):
        """Out-degree of every vertex (int64)."""
        return np.diff(self.indptr).astype(np.int64)

    def csr(self, weighted=False):
        """A ``scipy.sparse.csr_array`` (float64: ones, or the weights), built once."""
        key = ("csr", weighted)
        if key not in self._cache:
            import scipy.sparse as sp

            data = (self.weights.astype(np.float64) if weighted
                    else np.ones(self.nedges, dtype=np.float64))
            self._cache[key] = sp.csr_array((data, self.indices, self.indptr),
                                            shape=(self.n, self.n))
        return self._cache[key]

    def coo(self):
        """``(rows, cols)`` of every stored entry, int64."""
        if "coo" not in self._cache:
            rows = np.repeat(np.arange(self.n, dtype=np.int64), self.degrees)
            self._cache["coo"] = (rows, self.indices.astype(np.int64))
        return self._cache["coo"]

    def edges(self):
        """``(u, v, w)`` for each undirected edge once (``u < v``), for undirected peers."""
        if "edges" not in self._cache:
            rows, cols = self.coo()
            keep = rows < cols
            self._cache["edges"] = (rows[keep], cols[keep], self.weights[keep])
        return self._cache["edges"]

    def release(self):
        """Drop the host-side caches (the peers' copies are dropped by their owners)."""
        self._cache.clear()

    def describe(self):
        d = {
            "name": self.name, "family": self.family, "size": self.spec.size,
            "vertices": self.n, "stored_edges": self.nedges, "source": self.source,
            "build_s": round(self.build_seconds, 4),
            "device_bytes": matrix_nbytes(self.A),
        }
        if self.weighted_build_seconds:
            d["weighted_build_s"] = round(self.weighted_build_seconds, 4)
        return d


def matrix_nbytes(M):
    """Bytes of memory the matrix's storage occupies on its device.

    ``M.memory_usage()`` where the Matrix has it (an int, or a dict with ``total``),
    else the sum of its storage arrays' ``nbytes`` (row pointers, indices, values and any
    other array the backend keeps).
    """
    usage = getattr(M, "memory_usage", None)
    if callable(usage):
        try:
            got = usage()
            if isinstance(got, dict):
                got = got.get("total", sum(v for v in got.values()
                                           if isinstance(v, (int, float))))
            return int(got)
        except Exception:  # noqa: BLE001 - fall back to the arrays
            pass
    data = getattr(M, "_data", None)
    if data is None:
        return None
    seen, total = set(), 0
    names = set(getattr(data, "__dict__", {}) or ()) | set(getattr(type(data), "__slots__", ()))
    for name in names | {"indptr", "indices", "values"}:
        arr = getattr(data, name, None)
        nbytes = getattr(arr, "nbytes", None)
        if isinstance(nbytes, int) and id(arr) not in seen:
            seen.add(id(arr))
            total += nbytes
    return total


def _pick_source(indptr, family):
    if family == "grid":
        return 0
    candidates = np.flatnonzero(np.diff(indptr) > 0)
    if candidates.size == 0:
        return 0
    rng = np.random.default_rng(BENCH_SEED)
    return int(candidates[rng.integers(candidates.size)])


def _storage(M):
    """The backend's CSR storage of ``M`` and its backend (arrays stay where they are)."""
    return M._csr(), M._backend


def _itype(count):
    return np.int32 if count < 2**31 - 1 else np.int64


def _host_indptr(M):
    """Host row pointers, int32 where the entries fit (SciPy wants one signed type)."""
    d, b = _storage(M)
    return np.asarray(b.to_host(d.indptr)).astype(_itype(max(int(M.nvals), M.ncols)))


def _host_indices(M, nedges):
    d, b = _storage(M)
    stored = d.stored_indices  # a compact graph's 32-bit indices, never widened for this
    host = b.to_host(stored)
    # A CPU matrix hands out its own array: copy it, so that no peer can change the matrix.
    return np.asarray(host).astype(_itype(max(nedges, M.ncols)),
                                   copy=host is stored or isinstance(stored, np.ndarray))


def _host_values(M):
    d, b = _storage(M)
    return np.asarray(b.to_host(d.values))


def _same_structure(A, B):
    """Whether two matrices on one device store the same entries (compared where they
    live, without a host copy of the indices)."""
    da, b = _storage(A)
    db, _ = _storage(B)
    if int(A.nvals) != int(B.nvals):
        return False
    if str(A.device).startswith("cuda"):  # by a catalogue kernel (CuPy's would compile)
        from ..backends.cuda import arrays

        return all(a.shape == b.shape and not arrays.count_unequal(None, None, a, b, a.dtype)
                   for a, b in ((da.indptr, db.indptr),
                                (da.stored_indices, db.stored_indices)))
    return bool(np.array_equal(da.indptr, db.indptr)) and bool(
        np.array_equal(da.stored_indices, db.stored_indices))


def _generate(spec, device, weighted=False):
    """The pattern Matrix of a synthetic family, or its weighted copy (None where the
    generator has no weighted form: the hash weights are used then)."""
    from graphblast import generators

    s = spec.size
    if spec.family == "kron":
        return generators.kron(s, weighted=weighted, device=device)
    if spec.family == "urand":
        return generators.urand(s, weighted=weighted, device=device)
    if spec.family == "g500":
        return None if weighted else generators.graph500(s, G500_EDGE_FACTOR, device=device)
    if spec.family == "rgg":
        return None if weighted else generators.rgg(1 << s, device=device)
    if spec.family == "grid":
        return generators.grid2d(s, s, weights="random" if weighted else None, device=device)
    raise InvalidValue(f"unknown graph family {spec.family!r}")


def _make_weighted(graph, host_only):
    """SSSP's weights: the generator's weighted graph (kron, urand, grid) or the hash weights;
    the host weights when ``host_only``, else the weighted Matrix on the graph's device."""
    from graphblast import Matrix
    from graphblast.dtypes import INT32

    spec = graph.spec
    Aw = _generate(spec, graph.device, weighted=True) if spec.scalable else None
    if Aw is not None:
        if not _same_structure(graph.A, Aw):
            raise InvalidValue(f"graph {spec.name}: the weighted and unweighted graphs "
                               "differ in structure; the generators must agree")
        if host_only:
            return _host_values(Aw).astype(np.int32)
        if graph._weights is None:
            graph._weights = _host_values(Aw).astype(np.int32)
        return Aw
    rows = np.repeat(np.arange(graph.n), np.diff(graph.indptr))
    weights = hash_weights(rows, graph.indices)
    del rows
    if host_only:
        return weights
    graph._weights = weights
    return Matrix.from_csr(graph.indptr, graph.indices, weights, INT32, nrows=graph.n,
                           ncols=graph.n, name=f"{spec.name}_w", device=graph.device)


def _read_real(spec, data_dir):
    """Host CSR ``(indptr, indices, n)`` of a real graph, undirected and cleaned."""
    import scipy.sparse as sp

    if data_dir is None:
        raise InvalidValue(f"graph {spec.name} needs the real-graph data; pass --data DIR "
                           "(the repository's tests/data) or set GRAPHBLAST_DATA")
    relpath, kind = REAL[spec.family]
    path = os.path.join(data_dir, relpath)
    if not os.path.isfile(path):
        raise InvalidValue(f"graph {spec.name}: {path} is missing from the data directory")
    if kind == "mtx":
        import scipy.io

        m = sp.coo_array(scipy.io.mmread(path))
        rows, cols, n = m.row.astype(np.int64), m.col.astype(np.int64), max(m.shape)
    else:
        pairs = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2, usecols=(0, 1))
        if kind == "edges1":
            pairs = pairs - 1
        if pairs.size == 0 or pairs.min() < 0:
            raise InvalidValue(f"{path}: expected non-negative vertex ids "
                               f"({'1' if kind == 'edges1' else '0'}-based)")
        rows, cols = pairs[:, 0], pairs[:, 1]
        n = int(pairs.max()) + 1
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    sym = sp.coo_array((np.ones(2 * rows.size, dtype=np.int8),
                        (np.concatenate([rows, cols]), np.concatenate([cols, rows]))),
                       shape=(n, n)).tocsr()
    sym.sum_duplicates()
    sym.sort_indices()
    itype = np.int32 if sym.nnz < 2**31 - 1 else np.int64
    return sym.indptr.astype(itype), sym.indices.astype(itype), n


def build(spec, device, data_dir=None):
    """Generate or read ``spec`` on ``device``.

    Parameters
    ----------
    spec : GraphSpec
    device : str
        ``"cpu"`` or ``"cuda:N"``: where graphblast's matrices live (generated there).
    data_dir : str, optional
        The real graphs' directory (:func:`find_data_dir`).

    Returns
    -------
    BenchGraph
        With the pattern matrix built; the weighted one and the host indices come on first
        use.
    """
    from graphblast import Matrix
    from graphblast.dtypes import BOOL

    t0 = time.perf_counter()
    if spec.scalable:
        A = _generate(spec, device)
        A.wait()
        graph = BenchGraph(spec, A, _host_indptr(A), 0.0, make_weighted=_make_weighted)
    else:
        indptr, indices, n = _read_real(spec, data_dir)
        A = Matrix.from_csr(indptr, indices, True, BOOL, nrows=n, ncols=n, name=spec.name,
                            device=device)
        # undirected by construction (_read_real adds every edge both ways), as the generated
        # graphs and graphblast.io.mmread's symmetric files are flagged: its own transpose, so
        # the algorithms build no second copy a user reading the same file would not
        A._data.symmetric = True
        A.wait()
        graph = BenchGraph(spec, A, indptr, 0.0, indices=indices, make_weighted=_make_weighted)
    graph.build_seconds = time.perf_counter() - t0
    return graph
