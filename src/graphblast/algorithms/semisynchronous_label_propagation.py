"""Communities by semi-synchronous label propagation (NetworkX's
``label_propagation_communities``)."""

from graphblast import Matrix, Vector, binary, indexunary, monoid, select, semiring, unary
from graphblast.dtypes import BOOL, INT64

from . import _rows, _validate
from .greedy_coloring import greedy_coloring

__all__ = ["semisynchronous_label_propagation"]


def semisynchronous_label_propagation(A):
    """Community labels by semi-synchronous label propagation with Prec-Max ties.

    Definition (Cordasco and Gargano 2010; NetworkX's ``label_propagation_communities``):
    every vertex starts with its own id as label.  The vertices are coloured greedily,
    largest degree first (NetworkX's ``greedy_color``: a self-loop counts twice in the
    degree, equal degrees in id order), so that no two neighbours share a colour.  A sweep
    updates the colour classes one after another, each class at once: a vertex whose label
    is not among the most frequent labels of its neighbours (each neighbour counted once, a
    self-loop making the vertex its own neighbour) takes the largest of them.  Sweeps repeat
    until every vertex with neighbours holds one of its most frequent labels.

    One class's update is a product with the label matrix ``L[j, label[j]] = 1`` over the
    class's rows and a row argmax of integer keys that order by count, then the own label,
    then the larger label::

        C = (diag(class) any.second S) plus.pair L        # C[i, c]: neighbours labelled c
        key = C * 2n + c;   key<L> = C * 2n + 2n - 1      # the own label wins a tie
        label<class> = column of the row maximum of key

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix of an undirected graph (the structure of ``A + A'`` is
        used); values are ignored.

    Returns
    -------
    Vector
        INT64 label of every vertex (full): the id of a vertex of its community.

    Notes
    -----
    Cost per sweep: one product over the ``m`` edges per colour class plus one for the
    stopping test, each ``O(m)``; the colouring's rounds come first (:func:`greedy_coloring`).
    Sweeps are few in practice: Cordasco and Gargano prove that the labels stop changing.
    """
    n = _validate.square_matrix(A, "semisynchronous_label_propagation")
    S = _validate.undirected(A).apply(unary.one[BOOL]).new()
    loops = S.diag()
    ids = Vector.from_scalar(0, n, INT64, device=A.device).apply(indexunary.rowindex).new()
    degree = ids.apply(binary.times, 0).new()
    degree(binary.plus) << S.apply(unary.one[INT64]).reduce_rowwise(monoid.plus)
    degree(binary.plus) << loops.apply(unary.one[INT64])
    top = degree.reduce(monoid.max).new().value or 0
    priority = ids.dup()
    priority(binary.plus) << degree.apply(binary.rminus, top).new().apply(binary.times, n)
    colors = greedy_coloring(A, priority)
    classes = [Matrix.from_diag(colors.select(select.valueeq, color).new())
               for color in range((colors.reduce(monoid.max).new().value or 0) + 1)]
    labels, wide = ids, 2 * n
    while True:
        L = Matrix.from_coo(ids, labels, 1, INT64, nrows=n, ncols=n)
        C = S.mxm(L, semiring.plus_pair[INT64]).new()
        most = C.reduce_rowwise(monoid.max).new()
        own = C.ewise_mult(L, binary.first).new().reduce_rowwise(monoid.plus).new()
        if most.ewise_union(own, binary.eq, 0, 0).new().reduce(monoid.land).new().value \
                in (True, None):
            return labels
        for rows in classes:
            L = Matrix.from_coo(ids, labels, 1, INT64, nrows=n, ncols=n)
            C = rows.mxm(S, semiring.any_second[INT64]).new().mxm(
                L, semiring.plus_pair[INT64]).new()
            scaled = C.apply(binary.times, wide).new()
            key = scaled.ewise_add(C.apply(indexunary.colindex).new(INT64), binary.plus).new()
            key(L.S) << scaled.apply(binary.plus, wide - 1)
            best, _ = _rows.argmax(key, top=False)
            labels = labels.dup()
            labels(best.S) << best
