"""Louvain modularity communities with all vertices moving at once (a GPU-parallel Louvain)."""

from . import _modularity, _moves

__all__ = ["louvain"]


def louvain(A, *, resolution=1.0, threshold=1e-7, max_level=None, max_iter=100,
            weighted=True):
    """Communities of the undirected graph ``A`` by the Louvain method.

    Definition: the partition sought maximizes Newman's modularity with resolution ``g``,
    ``Q = 1/2m sum_ij (A[i, j] - g k_i k_j / 2m) [c_i == c_j]`` (``k`` the weighted degrees,
    ``2m`` their sum; NetworkX's ``louvain_communities``).  Each level moves vertices to
    the neighbouring community of best modularity gain until the gain stalls, then makes
    each community one vertex (``P' A P``) and starts again; it stops when a level gains
    less than ``threshold`` or after ``max_level`` levels.

    The moves are decided for all vertices at once, not one at a time: with
    ``P[i, comm[i]] = 1`` and ``K = offdiag(A) P`` (``K[i, c]``, the weight from ``i`` to
    community ``c``), every vertex takes the argmax over ``c`` of
    ``K[i, c] - g k_i tot_c / 2m`` when it beats staying, moving only to smaller labels on
    even steps and to larger ones on odd steps so that neighbours cannot swap forever; the
    best partition a level reaches is kept (see ``_modularity.move``).  No randomness: the
    same graph gives the same communities on every device.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix with a symmetric structure; its values are the edge weights
        (``weighted=False`` weighs every edge 1); a self-loop adds its weight once to its
        vertex's degree, as the matrix stores it.
    resolution : float, default 1.0
        ``g`` above; below 1 favours larger communities, above 1 smaller ones.
    threshold : float, default 1e-7
        Least modularity gain for a level (and a moving step) to count.
    max_level : int, optional
        Most levels; all until the gain stalls by default.
    max_iter : int, default 100
        Most moving steps in a level.
    weighted : bool, default True
        Read ``A``'s values as weights: finite and at least 0 (``InvalidValue`` for a
        negative, NaN or infinite one).

    Returns
    -------
    Vector
        INT64 community of every vertex (full), labelled by its smallest vertex id.

    Notes
    -----
    Cost per moving step: the product ``K = offdiag(A) P`` over the rows of the vertices
    whose neighbourhood changed and a one-pass argmax over its integer keys (``O(m)`` at
    most; the modularity comes from ``K`` and ``O(n)`` vector work); per level, the
    aggregation ``P' A P``.  The levels shrink the graph quickly; the steps per level are
    typically tens.
    """
    n, W, two_m, resolution, threshold, max_iter = _modularity.arguments(
        A, resolution, threshold, max_iter, weighted, "louvain")
    member = comm = _modularity.ids(n, A.device)
    if not two_m:
        return member
    last = _modularity.modularity(W, comm, resolution, two_m)
    for level in range(max_level or n):
        comm, q = _moves.move(W, _modularity.ids(W.nrows, A.device), resolution, threshold,
                              max_iter, two_m, later=level > 0)
        if q - last < threshold:
            break
        W, comm, _ = _modularity.contract(W, comm)
        member, last = comm[member].new(), q
    return _modularity.smallest_ids(member)

