"""Strongly connected components by forward coloring and backward search (Orzan's coloring,
as in LAGraph's experimental LAGraph_scc)."""

from functools import partial

from graphblast import Vector, binary, indexunary, select, semiring
from graphblast.dtypes import INT64

from . import _validate
from ._loops import repeat_narrow

__all__ = ["strongly_connected_components"]


def strongly_connected_components(A):
    """The strongly connected component of every vertex of the directed graph ``A``.

    Definition: ``u`` and ``v`` are in one strongly connected component when each reaches
    the other along edges ``A[i, j]`` (``i -> j``, any stored value).  Label convention: a
    vertex is labelled with the smallest vertex id of its component (as
    ``connected_components``), so two vertices share a label exactly when they share a
    component.  Self-loops change nothing.

    Each round works on the live vertices (not yet placed).  Trimming, repeated to a
    fixpoint, places every vertex without an in- or an out-neighbour among them alone (its
    label is its id); the counts of live in- and out-neighbours are decremented in place by
    the vertices leaving, so a DAG is placed entirely here.  Coloring then propagates the
    smallest id reaching each live vertex, pushed from the vertices whose color fell (as
    Bellman-Ford's rounds); a vertex whose color is its own id is a root, and the component
    of a root ``r`` is the set of vertices of color ``r`` that reach ``r``, found by a
    backward search inside the colors.  Along an edge ``u -> v`` ``color(v) <= color(u)``,
    so the largest color among ``u``'s out-neighbours in the frontier equals ``color(u)``
    exactly when one of them shares it::

        repeat while q:  live<q> = 0;  ins -= q plus.pair A;  outs -= A plus.pair q
                         q = the vertices just touched whose count is 0
        repeat while f:  t<live> = f min.first A;  f = t<t < color>;  color min= t
        repeat while f:  live<f> = 0;  label<f> = f
                         t<live> = A max.second f;  f = t<t == color>

    Every loop is a ``graphblast.repeat`` updating its vectors in place (on a GPU a loop on
    the device; ``live`` is 1, or 0 once placed); the host reads one count a round of the
    outer loop.

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix; values are ignored.

    Returns
    -------
    Vector
        INT64 label of every vertex (full).

    Notes
    -----
    Cost: the trimming's rounds (the longest chain of vertices trimmed one after another:
    on a DAG about half its longest path) each cost the edges of the vertices leaving;
    the coloring's and the search's rounds (at most the longest shortest path among the
    live vertices) each a push from the vertices that changed; ``O(m)`` a round for the
    counts.  A round places at least the component of the smallest live id, and usually
    many: graphs with long chains of non-trivial components take many rounds.
    """
    n = _validate.square_matrix(A, "strongly_connected_components")
    ids = Vector.from_scalar(0, n, INT64, device=A.device).apply(indexunary.rowindex).new()
    label = ids.dup()
    live = Vector.from_scalar(1, n, INT64, device=A.device)   # 0 once placed
    while n:
        _trim(A, live)
        color = ids.dup(mask=live.V)
        if not color.nvals:
            return label
        repeat_narrow(partial(_spread, A=A, color=color, live=live), color.dup())
        roots = color.ewise_mult(ids, binary.eq).new()
        repeat_narrow(partial(_search, A=A, color=color, live=live, label=label),
               color.dup(mask=roots.V))
    return label


def _trim(A, live):
    """Place (in ``live``, in place), round after round, the live vertices without an in-
    or an out-neighbour among the live ones (each its own component)."""
    left = live.apply(binary.times, right=0).new(mask=live.V)
    ins = left.vxm(A, semiring.plus_pair[INT64]).new(mask=live.V)
    outs = A.mxv(left, semiring.plus_pair[INT64]).new(mask=live.V)

    def peel(q):  # q: the vertices placed now, valued 0
        live(q.S) << q
        t_in = q.vxm(A, semiring.plus_pair[INT64]).new(mask=live.V)
        t_out = A.mxv(q, semiring.plus_pair[INT64]).new(mask=live.V)
        ins(binary.minus) << t_in
        outs(binary.minus) << t_out
        z_in = t_in.ewise_mult(ins, binary.second).new().select(select.valueeq, 0).new()
        z_out = t_out.ewise_mult(outs, binary.second).new().select(select.valueeq, 0).new()
        return z_in.ewise_add(z_out, binary.first).new()
    repeat_narrow(peel, left.dup(mask=~ins.ewise_mult(outs, binary.first).new().S))


def _spread(frontier, A, color, live):
    """One coloring round: the smallest color reaching each live vertex, pushed from the
    vertices whose color just fell; returns those whose color falls now."""
    t = frontier.vxm(A, semiring.min_first[INT64]).new(mask=live.V)
    lower = t.ewise_mult(color, binary.lt).new()
    color(binary.min) << t
    return t.dup(mask=lower.V)


def _search(frontier, A, color, live, label):
    """One backward step inside the colors: the frontier is placed (labelled with its color,
    the root's id) and its live in-neighbours of the same color are the next frontier."""
    placed = frontier.apply(binary.times, right=0).new()
    live(placed.S) << placed
    label(frontier.S) << frontier
    t = A.mxv(frontier, semiring.max_second[INT64]).new(mask=live.V)
    return t.dup(mask=t.ewise_mult(color, binary.eq).new().V)
