"""k-core decomposition by peeling the vertices of smallest degree (LAGraph's LAGraph_KCore)."""

from functools import partial

from graphblast import Vector, binary, monoid, repeat, select, semiring
from graphblast.dtypes import INT64

from . import _validate

__all__ = ["core_number"]

#: The degree of a vertex that has left (far above any degree).
GONE = 1 << 62


def core_number(A, *, directed=False):
    """Core number of every vertex.

    Definition: the k-core of a graph is its largest subgraph in which every vertex has degree
    at least ``k``; the core number of a vertex is the largest ``k`` whose k-core holds it
    (an isolated vertex has core number 0).  The graph is the structure of ``A + A'``, each
    neighbour counted once; with ``directed=True`` it is NetworkX's directed convention
    instead: a vertex's degree is its in-degree plus its out-degree, so a neighbour joined in
    both directions counts twice.  Self-loops are ignored (NetworkX rejects them).

    Peeling, one level ``k`` at a time (Batagelj and Zaversnik, as LAGraph writes it)::

        deg = B plus.pair 1                       # B = offdiag(A + A'), counted as above
        repeat:  k = max(k, min(deg))             # the smallest remaining degree
                 q = select(deg <= k)             # vertices that leave at this level
                 while q:  core<q> = k;  deg<!q, replace> = deg
                           deg<deg> -= q plus.second B;  q = select(deg <= k)

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix; values are ignored.
    directed : bool, default False
        Count in- and out-degree separately (NetworkX's convention for a DiGraph).

    Returns
    -------
    Vector
        INT64 core number of every vertex (full).

    Notes
    -----
    Cost: every vertex leaves once, and the product that removes a batch ``q`` reads only the
    edges of ``q``: ``O(m)`` edge work in all, plus ``O(n)`` vector work (select, the host's
    test for an empty ``q``) per batch; the number of batches is at most the number of
    distinct core numbers plus the peeling rounds inside each level.
    """
    n = _validate.square_matrix(A, "core_number")
    directed = _validate.flag(directed, "directed", "core_number")
    S = select.offdiag(A).new(INT64).apply(binary.second, 1).new()
    B = S.ewise_add(S.T, binary.plus).new() if directed else _validate.undirected(S)
    core = Vector.from_scalar(0, n, INT64, device=A.device)
    deg = Vector.from_scalar(GONE, n, INT64, device=A.device)    # no edge: core number 0
    counts = B.reduce_rowwise(monoid.plus[INT64]).new()
    deg(counts.S) << counts
    peel = partial(_peel, B=B, deg=deg, core=core)
    q = _lowest(deg) if n else deg
    while q.nvals > n // 16:  # wide batches from here (a device loop takes narrow ones)
        q = peel(q)
    repeat(peel, q)
    return core


def _lowest(deg):
    """The vertices of smallest degree (none once every vertex has left)."""
    low = deg.reduce(monoid.min).new()
    return deg.select(select.valuele, low).new().select(select.valuelt, GONE // 2).new()


def _peel(q, B, deg, core):
    """One round: the batch ``q`` (valued with its level) leaves with that core number; its
    neighbours lose its edges, down to the level at most; returns the next batch."""
    core(q.S) << q
    deg(q.S) << GONE
    lost = q.vxm(B, semiring.plus_second[INT64]).new()
    deg(binary.minus) << lost
    deg(binary.max) << lost.apply(binary.second, right=q.reduce(monoid.max).new()).new()
    return _lowest(deg)
