"""A matrix's pull in decreasing-degree order, for algorithms that run many products over one
graph (PageRank): the engine's choice of whether the order pays, and its renumbered copy.

On a GPU a pull's product is bound by the cache sectors its gathers move, not by the bytes of
the graph (docs/design.md, "Pull"); with the vertices numbered by decreasing degree the hubs'
values share cache lines and stay in L1 and L2.  Measured phase by phase
(benchmarks/profiling/pagerank_phases.py; benchmarks/results/h200/evidence/
pagerank-kron27-phases-h100.json): on kron-27 (134 million vertices, H100) the product
111.6 -> 50.7 ms, for a renumbering of 140.6 ms and 6 ms of gathers once, so 20 steps take
61.4 ms a step against 116 in the stored order; past the L2 the product halves and four steps
repay the renumbering.  Where the ranks fit the L2 the order still pays, as the hubs' ranks
share L1 lines: 20 steps on an H100 took 1.34-1.37 ms a step in degree order against 1.61
stored on kron-22, 1.56-1.58 against 1.74-1.75 on g500-21 (2 million vertices), 0.51 against
0.57 on kron-20 (1 million), and lost below that (kron-18 and g500-18, 262,144 vertices: 0.33
and 0.38 against 0.28 and 0.36), where fixed costs outweigh a product of a few hundred
microseconds.  Under 2^23 vertices the renumbering costs about two steps and saves about a
fifth of each, so it needs more steps there (ORDER_MIN_PRODUCTS_SMALL).  It pays on skewed
degrees only: on graphs whose ids follow their geometry (rgg, grids) the order would scatter
neighbours, and even degrees lose (urand-20, forced: 0.55 ms a step against 0.47); the
most-connected 1 % of the vertices hold 33-37 % of the entries of kron and Graph500 graphs
and 1-2 % of those of urand, rgg and grids (scale 16).
``gb.config["pagerank_order"]``: "auto" (this module's rule), "degree" (wherever the backend
can, any size or device), "stored" (never).
"""

from .. import config
from .._memory import available_bytes
from ..dtypes import FP64
from ..exceptions import OutOfMemory
from ..ops import binary

ORDER_MIN_HUB_SHARE = 0.1  # of the entries, held by the most-connected 1 % of the vertices
ORDER_MIN_VERTICES = 1 << 20  # below, the renumbering's fixed costs outweigh the products'
ORDER_LARGE_VERTICES = 1 << 23  # 64 MiB of ranks: past the H200's 50 MB L2
ORDER_MIN_PRODUCTS = 4  # past ORDER_LARGE_VERTICES: the renumbering costs about two steps
ORDER_MIN_PRODUCTS_SMALL = 12  # below it: two steps' cost, a fifth of each step saved


def pull_in_degree_order(A, products, values=True):
    """(B, P, R, W) for ``products`` pulls over A' in decreasing-degree order, or None where
    the vertices keep their order.  P (UINT64, full) lists the vertices by decreasing
    out-degree, the vertices without an edge last, R gives each vertex its place in P, and
    B = P A' P': ``B.mxv(c[P])`` is ``(c A)[P]`` (with ``values`` False, B is a pattern).
    Only one vertex without an edge is kept, to stand for them all: where some vertices have
    none, P lists the k = (vertices with an edge) + 1 first, B is k x k, R maps every vertex
    without an edge to k - 1, so ``y[R]`` gives each of them the stand-in's value, and W (FP64,
    full, size k) is how many vertices each place stands for (1, and at k - 1 the vertices
    without an edge).  Such vertices are alike in a pull: their rows and columns are empty
    (kron-27 has 71 million of its 134).  **B is for mxv with a full vector and nothing
    else**: on a GPU its rows are not sorted (a pull does not need them to be).

    "auto" orders on a GPU, for a graph of at least ORDER_MIN_VERTICES vertices, at least
    ORDER_MIN_PRODUCTS products (ORDER_MIN_PRODUCTS_SMALL below ORDER_LARGE_VERTICES
    vertices), skewed degrees (ORDER_MIN_HUB_SHARE) and room for the
    copy (a second graph while the caller runs; without the room, or when the copy runs out
    of memory, the vertices keep their order)."""
    from .matrix import Matrix
    from .vector import Vector

    setting = config["pagerank_order"]
    backend = A._backend
    make = getattr(backend, "pull_in_degree_order", None)
    if setting == "stored" or make is None:
        return None
    n = A.nrows
    if setting == "auto":
        least = ORDER_MIN_PRODUCTS if n >= ORDER_LARGE_VERTICES else ORDER_MIN_PRODUCTS_SMALL
        if not str(A.device).startswith("cuda") or n < ORDER_MIN_VERTICES or products < least:
            return None
        data = A._data
        need = data.indptr.nbytes + data.stored_indices.nbytes + 48 * n
        if values and data.has_values:
            need += data.values.nbytes
        if not data.symmetric and data._transpose is None:
            need *= 2  # the transpose is made first
        free = available_bytes(backend.xp)
        if free is not None and need > free:
            return None
    try:
        made = make(A._data, ORDER_MIN_HUB_SHARE if setting == "auto" else 0.0, values)
    except OutOfMemory:
        return None
    if made is None:
        return None
    B, P, R = made
    k = B.nrows
    weight = Vector.from_scalar(1.0, k, FP64, device=A.device)
    if k < n:  # the stand-in counts for itself and the n - k vertices it stands for
        # (added as a one-entry vector: an element write, weight[k - 1] = n - k + 1, takes
        # the general region write, whose steps a GPU compiles on a first call)
        weight(binary.plus) << Vector.from_coo([k - 1], [float(n - k)], FP64, size=k,
                                               device=A.device)
    return (Matrix._from_data(B, backend, A.device), Vector._from_data(P, backend, A.device),
            Vector._from_data(R, backend, A.device), weight)
