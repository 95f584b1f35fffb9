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

    Peeling in batches (Batagelj and Zaversnik's bound, LAGraph's bulk form): each round
    the vertices of smallest remaining degree ``k`` leave together with core number ``k``;
    their neighbours lose their edges but never fall below ``k`` (so the smallest degree
    never falls: the level only rises).  A vertex that has left gets the degree ``GONE``,
    in place, so every round's vectors keep their storage and the rounds run in
    ``graphblast.repeat`` (on a GPU a loop on the device, no host read a round)::

        deg = B plus.pair 1                       # B = offdiag(A + A'), counted as above
        q = select(deg == min(deg))               # the first batch, valued with its level
        repeat while q:  core<q> = q;  deg<q> = GONE;  lost = q plus.second B
                         deg -= lost;  deg<lost> max= level(q)
                         q = select(deg <= min(deg)) below GONE

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
    Cost: every vertex leaves once, and the product that removes a batch reads only its
    edges: ``O(m)`` edge work in all, plus two passes over the ``n`` degrees a round (the
    minimum and the select); the rounds are the distinct core numbers plus the peeling
    rounds within each level (kron-16: 302, rgg-16: 173, grid-256: 255, a grid peeling
    inward from its corners one layer a round).  Batches of more than ``n / 16`` vertices
    run first, from Python (a device loop takes narrow rounds).
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
