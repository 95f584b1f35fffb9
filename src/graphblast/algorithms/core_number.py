"""k-core decomposition by peeling the vertices of smallest degree (LAGraph's LAGraph_KCore)."""

from functools import partial

from graphblast import Vector, binary, monoid, select, semiring
from graphblast.dtypes import INT64

from . import _validate
from ._loops import repeat_narrow

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

    Peeling in batches (Batagelj and Zaversnik's order, LAGraph's bulk form): at each level
    ``k``, the smallest remaining degree, the vertices of degree at most ``k`` leave with
    core number ``k``; their neighbours lose their edges, and those now at ``k`` or below
    leave next, until none does.  A vertex that has left gets the degree ``GONE``, in place,
    so a level's rounds update the same vectors and run in ``graphblast.repeat`` (on a GPU a
    loop on the device); the host reads one minimum a level::

        deg = B plus.pair 1                       # B = offdiag(A + A'), counted as above
        while (k = min(deg)) < GONE:
            q = select(deg <= k)
            repeat while q:  core<q> = k;  deg<q> = GONE;  lost = q plus.second B
                             deg -= lost;  q = select(deg<lost> <= k)

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
    edges: ``O(m)`` edge work in all, a round's other work on the batch and its neighbours
    only, plus two passes over the ``n`` degrees a level (the minimum and the first
    select).  Levels and rounds: kron-16 96 and 302, rgg-16 13 and 173, grid-256 1 and 255
    (a grid peels inward from its corners, one layer a round).
    """
    n = _validate.square_matrix(A, "core_number")
    directed = _validate.flag(directed, "directed", "core_number")
    S = select.offdiag(A).new(INT64).apply(binary.second, 1).new()
    B = S.ewise_add(S.T, binary.plus).new() if directed else _validate.undirected(S)
    core = Vector.from_scalar(0, n, INT64, device=A.device)
    deg = Vector.from_scalar(GONE, n, INT64, device=A.device)    # no edge: core number 0
    counts = B.reduce_rowwise(monoid.plus[INT64]).new()
    deg(counts.S) << counts                      # written in place from here (a bitmap)
    level = deg.reduce(monoid.min).new().value if n else GONE
    while level < GONE // 2:                     # one host read a level
        repeat_narrow(partial(_peel, B=B, deg=deg, core=core, level=level),
               deg.select(select.valuele, level).new())
        level = deg.reduce(monoid.min).new().value
    return core


def _peel(q, B, deg, core, level):
    """One round at ``level``: the batch ``q`` leaves with that core number and its
    neighbours lose its edges; returns those of them now at ``level`` or below."""
    at = q.apply(binary.second, right=level).new()
    core(at.S) << at
    deg(q.S) << GONE
    lost = q.vxm(B, semiring.plus_second[INT64]).new()
    deg(binary.minus) << lost
    return lost.ewise_mult(deg, binary.second).new().select(select.valuele, level).new()
