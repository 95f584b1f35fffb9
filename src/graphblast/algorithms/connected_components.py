"""Connected components by FastSV with Afforest's sampling (LAGraph's LG_CC_FastSV6)."""

import numpy as np

from graphblast import Vector, binary, indexunary, select, semiring
from graphblast.dtypes import BOOL, INT64

from . import _validate

__all__ = ["connected_components"]

# Sampling (LAGraph's rule): on graphs of more than 1024 vertices and average degree above 8,
# FastSV runs SAMPLE_ROUNDS rounds, then skips the edges inside the component that
# KEY_PROBES random vertices say is the largest.  Past SAMPLE_MIN_EDGES edges those rounds
# read a sample, the edges into the first 1 / SAMPLE_SHARE of the vertex ids; below, every
# edge (on kron-16 and kron-18 the sample left a third more rounds to the later phase than
# two full rounds saved; on kron-27 a full round is 90 ms on the H200, a sampled one 6 ms).
SAMPLE_ROUNDS = 2
SAMPLE_SHARE = 8
SAMPLE_MIN_VERTICES = 1024
SAMPLE_MIN_DEGREE = 8
SAMPLE_MIN_EDGES = 1 << 24
KEY_PROBES = 864


def _fastsv(S, f, gp, rounds, rows=None, to_key=None):
    """Up to ``rounds`` FastSV rounds on the rows ``rows`` of S (all rows when None: the
    other rows' smallest grandparent is their own, which hooks nothing, so they are left out
    of ``mngp``); the entries of ``to_key`` (value: key) send their labels to key; returns
    (f, gp, converged)."""
    for _ in range(rounds):
        mngp = gp.dup(mask=rows)
        mngp(mask=rows, accum=binary.min) << S.mxv(gp, semiring.min_second[INT64])
        if to_key is not None:
            mngp(binary.min)[to_key] << gp                  # K's border hooks K through key
        f(binary.min)[f] << mngp                            # stochastic hooking
        f(binary.min) << mngp.ewise_add(gp, binary.min)     # aggressive hooking, shortcutting
        new_gp = f[f].new()
        if new_gp.isequal(gp):
            return f, gp, True
        gp = new_gp
    return f, gp, False


def _flatten(f):
    """Pointer jumping until every vertex points at its tree's root (a star forest)."""
    while not (ff := f[f].new()).isequal(f):
        f = ff
    return f


def _largest_label(f):
    """The most frequent label among KEY_PROBES vertices drawn at random (seeded by n)."""
    probes = np.random.default_rng(f.size).integers(0, f.size, KEY_PROBES)
    at = Vector.from_coo(np.arange(KEY_PROBES), probes, INT64, device=f.device)
    labels, counts = np.unique(f[at].new().to_coo()[1], return_counts=True)
    return int(labels[np.argmax(counts)])


def connected_components(A):
    """Label every vertex with the smallest vertex id of its connected component.

    Definition: ``u`` and ``v`` are in one component when a path joins them ignoring edge
    directions, so a directed ``A`` gives its weakly connected components (the components of
    ``A + A'``); values, explicit zeros and self-loops do not matter.

    FastSV (Zhang, Azad, Hu) keeps a forest ``f`` (``f[u]`` the parent of ``u``, first ``u``)
    and the grandparents ``gp = f[f]``, gathered with a Vector index.  Each round::

        mngp = min(gp, S min.second gp)      # smallest grandparent next to each vertex
        f(min)[f] << mngp                    # stochastic hooking: f[f[u]] min= mngp[u]
        f(min) << min(mngp, gp)              # aggressive hooking and shortcutting
        gp = f[f]                            # stop when gp no longer changes

    With sampling (LAGraph's ``LG_CC_FastSV6``, after Afforest), two rounds run on every
    edge, or past 2^24 edges on a sample, the edges into the vertices of the first eighth
    of the ids (``select.colle``; LAGraph takes each row's first four entries: any subset
    of the edges serves, the sample only decides which edges are skipped later).  Pointer
    jumping (``f = f[f]`` until it holds) then hangs every vertex from its tree's root, and
    the root carried by most of 864 random vertices, ``key``, names the largest component so
    far, K.  Later rounds never read K's inner edges: ``mngp`` holds only the rows outside K
    that have an edge (``mngp<rows>``: an isolated vertex or one of K has its own
    grandparent as its smallest, which hooks nothing), and the vertices outside K with a
    neighbour in K send their grandparents to ``key`` (``mngp(min)[to_key] << gp``).  This
    is exact: only roots are ever parents after the jumping, so K's other vertices keep
    following ``key`` and K stays connected without its inner edges; the shortcutting
    ``f(min) << min(mngp, gp)`` still runs over every vertex, so K follows ``key``'s root.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix; only its structure is read.

    Returns
    -------
    Vector
        INT64 label of every vertex (full).  The number of components is the number of
        vertices ``v`` with ``labels[v] == v``.

    Raises
    ------
    TypeError, DimensionMismatch
        For a non-Matrix or a non-square ``A``.

    Notes
    -----
    Cost: ``A + A'`` once (``O(m)``; none for a matrix known to be symmetric), then per
    round a product over the edges in play plus ``O(n)`` for a gather, a scatter,
    element-wise minima and the convergence test (on the GPU, one synchronization per round).
    FastSV needs few rounds, about the logarithm of the diameter.  With sampling the later
    rounds read only the edges of the vertices outside the largest component, which on
    scale-free graphs are few; past 2^24 edges one pass over the edges selects the sample and
    the first rounds read an eighth of them.  The sample is a random one where the vertex
    ids are in no particular order (GAP's and Graph500's generators permute them); on a
    graph numbered along its geometry it is one region, and the later rounds do most of
    the work.

    Examples
    --------
    >>> from graphblast import Matrix
    >>> A = Matrix.from_coo([0, 1, 3, 4], [1, 0, 4, 3], True, nrows=5, ncols=5)
    >>> connected_components(A).to_dict()
    {0: 0, 1: 0, 2: 2, 3: 3, 4: 3}
    """
    n = _validate.square_matrix(A, "connected_components")
    if n == 0:
        return Vector(INT64, 0, device=A.device)
    S = _validate.undirected(A)
    f = Vector.from_scalar(0, n, INT64, device=A.device).apply(indexunary.rowindex).new()
    sample = n > SAMPLE_MIN_VERTICES and S.nvals > SAMPLE_MIN_DEGREE * n
    sampled = sample and S.nvals > SAMPLE_MIN_EDGES  # (a converged sample proves nothing)
    f, gp, done = _fastsv(S.select(select.colle, n // SAMPLE_SHARE - 1).new() if sampled
                          else S, f, f.dup(), SAMPLE_ROUNDS if sample else n)
    if sampled or not done:  # K's inner edges are never read again: K hangs from its root
        f = _flatten(f)
        key = _largest_label(f)
        rows = S.mxv(Vector.from_scalar(True, n, BOOL, device=A.device), semiring.any_pair).new(
            mask=f.select(select.valuene, key).new().S)  # the rows in play: outside K, an edge
        border = S.mxv(f.select(select.valueeq, key).new(), semiring.any_pair).new(mask=rows.S)
        f, gp, done = _fastsv(S, f, gp, n, rows.S, border.apply(binary.second, key).new(INT64))
    return f
