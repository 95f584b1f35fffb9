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

    Attributes
    ----------
    spec : GraphSpec
    name : str
    A : graphblast.Matrix
        BOOL pattern (every value True) on ``device``.
    Aw : graphblast.Matrix
        The same structure with integer weights, for SSSP.
    n, nedges : int
        Vertices and stored entries (each undirected edge counts twice).
    source : int
        The BFS/SSSP source: vertex 0 (a corner) on a grid, else a vertex with at least one
        edge chosen with a fixed seed (GAP and Graph500 pick non-isolated sources).
    build_seconds : float
        Time to generate or read the graph and build both matrices (not benchmarked).
    """

    def __init__(self, spec, A, Aw, indptr, indices, weights, build_seconds):
        self.spec = spec
        self.name = spec.name
        self.family = spec.family
        self.A = A
        self.Aw = Aw
        self.n = int(A.nrows)
        self.nedges = int(A.nvals)
        self.indptr = indptr
        self.indices = indices
        self.weights = weights
        self.build_seconds = build_seconds
        self.source = _pick_source(indptr, spec.family)
        self._cache = {}

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
        return {
            "name": self.name, "family": self.family, "size": self.spec.size,
            "vertices": self.n, "stored_edges": self.nedges, "source": self.source,
            "build_s": round(self.build_seconds, 4),
        }


def _pick_source(indptr, family):
    if family == "grid":
        return 0
    candidates = np.flatnonzero(np.diff(indptr) > 0)
    if candidates.size == 0:
        return 0
    rng = np.random.default_rng(BENCH_SEED)
    return int(candidates[rng.integers(candidates.size)])


def _host_csr(M):
    """``(indptr, indices, values)`` on the host with compact index types (see below)."""
    indptr, indices, values = M.to_csr()
    # graphblast hands out uint64 indices (python-graphblas's convention); SciPy wants one
    # signed type for both arrays, int32 where it fits (no copy on its side then).
    itype = np.int32 if max(len(indices), M.ncols) < 2**31 - 1 else np.int64
    return (to_host_array(indptr).astype(itype), to_host_array(indices).astype(itype),
            to_host_array(values))


def _generate(spec, device):
    """(pattern Matrix, weighted Matrix or None) of a synthetic family."""
    from graphblast import generators

    s = spec.size
    if spec.family == "kron":
        return (generators.kron(s, device=device),
                generators.kron(s, weighted=True, device=device))
    if spec.family == "urand":
        return (generators.urand(s, device=device),
                generators.urand(s, weighted=True, device=device))
    if spec.family == "g500":
        return generators.graph500(s, G500_EDGE_FACTOR, device=device), None
    if spec.family == "rgg":
        return generators.rgg(1 << s, device=device), None
    if spec.family == "grid":
        return (generators.grid2d(s, s, device=device),
                generators.grid2d(s, s, weights="random", device=device))
    raise InvalidValue(f"unknown graph family {spec.family!r}")


def _read_real(spec, data_dir):
    """Host CSR ``(indptr, indices, n)`` of a real graph, undirected and cleaned."""
    import scipy.sparse as sp

    if data_dir is None:
        raise InvalidValue(f"graph {spec.name} needs the real-graph data (shared/data); pass "
                           "--data DIR or set GRAPHBLAST_DATA")
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
    """Generate or read ``spec`` on ``device``; the returned graph holds both matrices.

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
    """
    from graphblast import Matrix
    from graphblast.dtypes import BOOL, INT32

    t0 = time.perf_counter()
    if spec.scalable:
        A, Aw = _generate(spec, device)
        indptr, indices, _ = _host_csr(A)
        if Aw is None:
            weights = hash_weights(np.repeat(np.arange(A.nrows), np.diff(indptr)), indices)
            Aw = Matrix.from_csr(indptr, indices, weights, INT32, nrows=A.nrows,
                                 ncols=A.ncols, name=f"{spec.name}_w", device=device)
        else:
            wptr, windices, weights = _host_csr(Aw)
            if not (np.array_equal(wptr, indptr) and np.array_equal(windices, indices)):
                raise InvalidValue(f"graph {spec.name}: the weighted and unweighted graphs "
                                   "differ in structure; the generators must agree")
            weights = weights.astype(np.int32)
    else:
        indptr, indices, n = _read_real(spec, data_dir)
        A = Matrix.from_csr(indptr, indices, True, BOOL, nrows=n, ncols=n, name=spec.name,
                            device=device)
        weights = hash_weights(np.repeat(np.arange(n), np.diff(indptr)), indices)
        Aw = Matrix.from_csr(indptr, indices, weights, INT32, nrows=n, ncols=n,
                             name=f"{spec.name}_w", device=device)
    A.wait()
    Aw.wait()
    return BenchGraph(spec, A, Aw, indptr, indices, weights, time.perf_counter() - t0)
