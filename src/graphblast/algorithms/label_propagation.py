"""Community detection by label propagation, LDBC Graphalytics' CDLP (synchronous)."""

from graphblast import Matrix, Vector, binary, indexunary, semiring
from graphblast.dtypes import INT64

from . import _rows, _validate

__all__ = ["label_propagation"]


def label_propagation(A, max_iter):
    """Community labels by LDBC Graphalytics' CDLP.

    Definition (LDBC Graphalytics, section 2.3.4): every vertex starts with its own id as
    label; in each of ``max_iter`` synchronous rounds every vertex takes the label that is
    most frequent among its in- and out-neighbours (a neighbour joined in both directions
    counts twice), the smallest such label on a tie; a vertex without neighbours keeps its
    label.  On a symmetric ``A`` (an undirected graph) every neighbour counts the same.  A
    self-loop makes a vertex its own neighbour (in both directions); values are not read.

    One round is a product with the label matrix ``L[j, label[j]] = 1``, built from the
    label Vector on its device (graphblast's ``from_coo`` of Vectors), and a row argmax::

        C = B plus.times L                 # C[i, c]: weight of label c around i, B = A + A'
        label<C has a row> = smallest column of the row maximum of C

    The rounds stop early when the labels no longer change (a fixpoint: the remaining
    rounds would repeat it).

    Parameters
    ----------
    A : Matrix
        Square adjacency matrix.
    max_iter : int
        Number of rounds, at least 1 (LDBC's parameter).

    Returns
    -------
    Vector
        INT64 label of every vertex (full): the id of a vertex of its community.

    Notes
    -----
    Cost per round: one product over the ``m`` edges that yields at most ``m`` (vertex,
    label) counts, and the argmax: one pass over them (integer keys); ``O(n)`` to build ``L``.
    """
    n = _validate.square_matrix(A, "label_propagation")
    max_iter = _validate.positive_int(max_iter, "max_iter", "label_propagation")
    S = A.apply(binary.second, 1).new(INT64)
    B = S.ewise_add(S.T, binary.plus).new()
    ids = Vector.from_scalar(0, n, INT64, device=A.device).apply(indexunary.rowindex).new()
    labels = ids
    for _ in range(max_iter):
        L = Matrix.from_coo(ids, labels, 1, INT64, nrows=n, ncols=n)
        best, _ = _rows.argmax(B.mxm(L, semiring.plus_times[INT64]).new(), bound=2 * B.nvals)
        new = labels.dup()
        new(best.S) << best
        if new.isequal(labels):
            break
        labels = new
    return labels
