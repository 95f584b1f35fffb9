"""k-core decomposition by peeling the vertices of smallest degree (LAGraph's LAGraph_KCore)."""

from graphblast import Vector, binary, monoid, select, semiring
from graphblast.dtypes import INT64

from . import _validate

__all__ = ["core_number"]


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
    deg = B.reduce_rowwise(monoid.plus[INT64]).new()
    core = Vector.from_scalar(0, n, INT64, device=A.device)
    level = 0
    while deg.nvals:
        level = max(level, deg.reduce(monoid.min).new().value)
        q = deg.select(select.valuele, level).new()
        while q.nvals:
            core(q.S) << level
            deg(~q.S, replace=True) << deg
            deg(binary.minus, mask=deg.S) << q.vxm(B, semiring.plus_second[INT64])
            q = deg.select(select.valuele, level).new()
    return core
