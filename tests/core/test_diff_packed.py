"""Structural products of a batch (a pair product under any or lor with a BOOL result: a
multi-source BFS's step) against python-graphblas.  The GPU computes them over packed
bitmaps (a bit a position, 64 rows a word: backends/cuda/packed.py), the CPU over packed
words in NumPy (backends/cpu/packed.py): batch sizes about a word (1, 63, 64, 65, 130),
every kind of mask, frontiers and graphs with empty rows and columns, a directed graph, both
directions, a packed result as the next frontier and as its mask, a scalar assigned under
its structure (the levels' update) and the reads of a packed result."""

import numpy as np
import pytest

from .conftest import MatrixData

NSS = [1, 63, 64, 65, 130]
N = 70
MASKS = {"~S": lambda m: ~m.S, "~V": lambda m: ~m.V, "S": lambda m: m.S, "V": lambda m: m.V}


def _without(M, rows=(), cols=()):
    """M less the entries of some rows and columns (empty rows and columns)."""
    keep = ~np.isin(M.rows, rows) & ~np.isin(M.cols, cols)
    return MatrixData(M.dtype, M.nrows, M.ncols, M.rows[keep], M.cols[keep], M.values[keep])


def _structural(gb, a, b, mask, direction, packed=None):
    """``a any.pair b`` under ``mask``; on a GPU a packed bitmap where ``packed`` (by default
    under a complemented mask)."""
    sr = gb.semiring.any_pair["BOOL"]
    if gb.name != "graphblast":
        return a.mxm(b, sr).new(mask=mask)
    with gb.config.set(direction=direction):
        X = a.mxm(b, sr).new(mask=mask)
    if str(X.device).startswith("cuda") and (mask.complement if packed is None else packed):
        from graphblast.backends.cuda.packed import PackedBitmap

        assert isinstance(X._data, PackedBitmap), X._data  # what the test is about
    return X


@pytest.mark.parametrize("direction", ["push", "pull", "auto"])
@pytest.mark.parametrize("mask", list(MASKS))
@pytest.mark.parametrize("ns", NSS)
def test_structural_product(diff, ns, mask, direction):
    # a directed graph of INT64 values (pair reads none) with empty rows and columns, a
    # frontier of BOOL values, False among them (pair counts them), with empty rows
    a = _without(diff.matrix("BOOL", ns, N, 0.08), rows=[0] if ns > 2 else [], cols=[3, 4])
    b = _without(diff.matrix("INT64", N, N, 0.06), rows=[3, 10, 11], cols=[12, 13])
    m = diff.matrix("INT64", ns, N, 0.3)  # zeros among its values: .V differs from .S

    def body(gb, a, b, m):
        X = _structural(gb, a, b, MASKS[mask](m), direction)
        visited = X.ewise_add(a, gb.binary.lor).new()
        Y = _structural(gb, X, b, ~visited.S, direction)  # the next step
        Z = _structural(gb, Y, b.T, ~Y.V, direction)  # a packed mask and frontier
        L = m.dup()
        L(X.S) << 5  # the levels' update under a packed structure
        L(Y.V) << 6
        W = gb.Matrix("FP64", ns, N)
        W(Z.S) << 1.5
        # plain masks over a packed frontier: packed too
        U = _structural(gb, Y, b, Z.S, direction, packed=True)
        T = _structural(gb, Y, b, L.V, direction, packed=True)
        # a visited set as a BFS keeps it: packed once as a mask, then kept up to date by
        # the assigns under packed frontiers, dropped when it changes otherwise
        V = m.dup()
        V(X.S) << 1
        P = _structural(gb, X, b, ~V.S, direction)
        V(P.S) << 2
        Q = _structural(gb, P, b, ~V.S, direction)
        V(Q.S) << 3
        R = _structural(gb, Q, b, ~V.S, direction)
        V(gb.binary.plus) << R.apply(gb.unary.one["INT64"])
        V(a.S) << 4
        S = _structural(gb, R, b, ~V.S, direction)
        return [X, Y, Z, L, W, X.nvals, Y.T.new(), Z.reduce_rowwise(gb.monoid.lor).new(),
                X[ns - 1, :].new(), Y.ewise_mult(m, gb.binary.second).new(),
                m.mxm(b, gb.semiring.min_plus).new(mask=~Y.S), V, P, Q, R, S, U, T]

    diff.check(body, a, b, m)
