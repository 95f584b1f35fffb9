"""Strongly connected components by forward coloring and backward search (Orzan's coloring,
as in LAGraph's experimental LAGraph_scc)."""

from graphblast import Matrix, Vector, binary, indexunary, select, semiring
from graphblast.dtypes import BOOL, INT64

from . import _validate

__all__ = ["strongly_connected_components"]


def strongly_connected_components(A):
    """The strongly connected component of every vertex of the directed graph ``A``.

    Definition: ``u`` and ``v`` are in one strongly connected component when each reaches
    the other along edges ``A[i, j]`` (``i -> j``, any stored value).  Label convention: a
    vertex is labelled with the smallest vertex id of its component (as
    ``connected_components``), so two vertices share a label exactly when they share a
    component.  Self-loops change nothing.

    Each round works on the vertices not yet labelled.  Trimming first gives every vertex
    without an in- or an out-neighbour among them its own component.  Coloring then
    propagates the smallest id reaching each vertex forward to a fixpoint; a vertex whose
    color is its own id is a root, and the component of a root ``r`` is the set of vertices
    of color ``r`` that reach ``r``, found by a backward search that follows only the edges
    inside a color (``E``, the edges whose ends have equal colors)::

        color<color> min= color min.first A                      # until no change
        E = select((diag(color) max.first A) == (A max.second diag(color)))
        found = roots;  while frontier:  frontier<!found> = E any.second frontier

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
    Cost per round: the coloring's steps (at most the longest shortest path among the
    remaining vertices) and the backward search's, each a product over the remaining edges,
    plus two products of ``O(m)`` for ``E``.  A round labels at least the component of the
    smallest remaining id, and usually many: graphs with long chains of components (a
    path ``0 -> 1 -> ... -> n-1``) take up to ``O(n)`` rounds.
    """
    n = _validate.square_matrix(A, "strongly_connected_components")
    ids = Vector.from_scalar(0, n, INT64, device=A.device).apply(indexunary.rowindex).new()
    label = Vector(INT64, n, device=A.device)
    color = ids
    while color.nvals:
        has_in = color.vxm(A, semiring.any_pair[BOOL]).new(mask=color.S)
        keep = A.mxv(color, semiring.any_pair[BOOL]).new(mask=has_in.S)
        trimmed = color.dup(mask=~keep.S)                # alone in a component
        label(trimmed.S) << ids
        color = ids.dup(mask=keep.S)
        while True:
            new = color.dup()
            new(binary.min, mask=color.S) << color.vxm(A, semiring.min_first[INT64])
            if new.isequal(color):
                break
            color = new
        D = Matrix.from_diag(color)
        E = D.mxm(A, semiring.max_first[INT64]).new().ewise_mult(
            A.mxm(D, semiring.max_second[INT64]).new(), binary.eq).new()
        E = E.select(select.valueeq, True).new()
        found = color.ewise_mult(ids, binary.eq).new().select(select.valueeq, True).new()
        frontier = found = color.dup(mask=found.S)
        while frontier.nvals:
            frontier = E.mxv(frontier, semiring.any_second[INT64]).new(mask=~found.S)
            found(frontier.S) << frontier
        label(found.S) << found
        color = color.dup(mask=~found.S)
    return label
