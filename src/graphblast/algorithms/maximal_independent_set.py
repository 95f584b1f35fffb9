"""A maximal independent set by Luby's randomized rounds (LAGraph's
LAGr_MaximalIndependentSet)."""

import numpy as np

from graphblast import Vector, binary, monoid, select, semiring
from graphblast.dtypes import BOOL, FP64
from graphblast.exceptions import InvalidValue

from . import _validate

__all__ = ["maximal_independent_set"]


def maximal_independent_set(A, *, seed=None, include=None):
    """A maximal independent set of the undirected graph ``A + A'``.

    Definition: a set of vertices no two of which are joined by an edge (independent), to
    which no other vertex can be added (maximal).  Self-loops are ignored (NetworkX too
    leaves them out of the test).  Isolated vertices are always in the set.

    Luby's algorithm as LAGraph writes it: each round, every candidate draws a random score,
    divided by its degree (so that low-degree vertices win more often and the set grows
    larger); the candidates whose score beats all their candidate neighbours' join the set,
    and they and their neighbours stop being candidates::

        nbr = S max.second score             (masked to the candidates)
        winners = select(score > nbr);  iset<winners> = true
        candidates<!(winners + S any.pair winners)> = candidates

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix; values are ignored.
    seed : int, optional
        Seed of the scores (NumPy's ``default_rng``): the same seed gives the same set.
    include : Vector, optional
        Vertices that must be in the set (its entries' positions); they must be independent.

    Returns
    -------
    Vector
        BOOL, ``True`` at the vertices of the set, no entry elsewhere.

    Raises
    ------
    InvalidValue
        If ``include`` holds two adjacent vertices.

    Notes
    -----
    Cost per round: two products over the candidates' edges and ``O(n)`` vector work (the
    scores are drawn on the host); ``O(log n)`` rounds with high probability.
    """
    n = _validate.square_matrix(A, "maximal_independent_set")
    S = select.offdiag(_validate.undirected(A)).new(BOOL)
    deg = S.reduce_rowwise(monoid.plus[FP64]).new()
    iset = Vector(BOOL, n, device=A.device)
    if include is not None:
        iset(_validate.start_vector(include, n, "maximal_independent_set", "include").S) << True
        if S.mxv(iset, semiring.any_pair[BOOL]).new(mask=iset.S).nvals:
            raise InvalidValue("maximal_independent_set: the vertices of include are not "
                               "independent (two of them are joined by an edge)")
    iset(~deg.S) << True
    candidates = deg.dup(mask=~S.mxv(iset, semiring.any_pair[BOOL]).new().S)
    candidates = candidates.dup(mask=~iset.S)
    rng = np.random.default_rng(seed)
    while candidates.nvals:
        draw = Vector.from_dense(rng.random(n) + 1e-300, device=A.device)
        score = draw.ewise_mult(candidates, binary.truediv).new()
        nbr = S.mxv(score, semiring.max_second[FP64]).new(mask=candidates.S)
        winners = score.ewise_union(nbr, binary.gt, 0.0, 0.0).new()
        winners = winners.select(select.valueeq, True).new()
        iset(winners.S) << True
        out = S.mxv(winners, semiring.any_pair[BOOL]).new(mask=candidates.S)
        candidates = candidates.dup(mask=~out.S).dup(mask=~winners.S)
    return iset
