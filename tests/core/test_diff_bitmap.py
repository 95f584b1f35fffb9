"""A product under a complemented mask (a batched traversal's step) against python-graphblas,
then every kind of later operation on its result: the GPU returns such a product as a bitmap
matrix by column (backends/cuda/bitmap.py), which must behave as the sorted lists do in
reads, extracts, transposes, products (as an operand and as a mask), reductions, apply,
select, element-wise operations, masked write-backs, in-place updates, copies, casts and
resizes.  On the CPU the same bodies check the CSR path."""

import pytest


SEMIRINGS = {"FP64": "plus_times", "INT64": "min_plus", "BOOL": "any_pair"}
NS, N = 40, 50  # more sources than a warp's 32 lanes: a full tile and a partial one


def _product(gb, a, b, m, dtype, direction):
    """X = a (+.x) b under ~m.S; on a GPU, a bitmap by column (``direction`` forced)."""
    sr = getattr(gb.semiring, SEMIRINGS[dtype])[dtype]
    if gb.name != "graphblast":
        return a.mxm(b, sr).new(mask=~m.S)
    with gb.config.set(direction=direction):
        X = a.mxm(b, sr).new(mask=~m.S)
    if str(X.device).startswith("cuda"):
        assert X._data.format == "bitmapc", X._data  # what the test is about
    return X


def _reads(gb, X, b, c, v):
    got = [X, X.nvals, X.to_dense(fill_value=0), X.isequal(X.dup()), X.isequal(c)]
    got += [X[i, j].new() for i, j in ((0, 0), (1, 7), (NS - 1, N - 1), (33, 20))]
    got += [X[3:37, 5:45].new(), X[2, :].new(), X[:, 11].new(), X[[0, 35, 35, 4], [1, 9]].new()]
    got.append(X.reduce_scalar(gb.monoid.max).new())
    return got


def _transposes(gb, X, b, c, v):
    XT = X.T.new()
    return [XT, X.T.T.dup(), X.T.mxm(c, gb.semiring.max_first).new(),
            X.T.reduce_rowwise(gb.monoid.max).new(), XT.T.new(),
            c.ewise_add(X.T.T, gb.binary.max).new(), X.T[4:30, :].new()]


def _sum_semirings(gb, X):
    """(plus_times, min_plus) or, over BOOL, semirings of its own (lor_land, min_first)."""
    if X.dtype == "BOOL":
        return gb.semiring.lor_land, gb.semiring.min_first
    return gb.semiring.plus_times, gb.semiring.min_plus


def _products(gb, X, b, c, v):
    plus_times, min_plus = _sum_semirings(gb, X)
    return [X.mxm(b, plus_times).new(), X.mxv(v, min_plus).new(),
            X.mxm(b.T, gb.semiring.max_second).new(),
            c.T.mxm(X, plus_times).new(),
            X.mxm(b, gb.semiring.any_pair).new(mask=~X.S),  # the next step of a traversal
            c.mxm(b, plus_times).new(mask=X.S),
            c.mxm(b, plus_times).new(mask=~X.V),
            X.mxm(b, min_plus).new(mask=c.S),
            X.mxm(X.T, plus_times).new(),
            gb.Vector.from_coo([1, 3, 30], [2, 1, 5], size=NS).vxm(X, plus_times).new()]


def _reductions(gb, X, b, c, v):
    monoids = (gb.monoid.lor if X.dtype == "BOOL" else gb.monoid.plus, gb.monoid.min,
               gb.monoid.max)
    return ([X.reduce_rowwise(m).new() for m in monoids]
            + [X.reduce_columnwise(m).new() for m in monoids])


def _maps(gb, X, b, c, v):
    return [X.apply(gb.unary.one).new(), X.apply(gb.binary.plus, right=3).new(),
            X.apply(gb.binary.minus, left=2).new(), X.apply(gb.indexunary.rowindex).new(),
            X.apply(gb.unary.identity["FP32"]).new(), X.dup("INT8"),
            X.select(gb.select.tril).new(), X.select(gb.select.valuegt, 1).new(),
            X.select(gb.select.rowle, 20).new(), X.select(gb.select.colle, 4).new()]


def _ewise(gb, X, b, c, v):
    return [X.ewise_add(c, gb.binary.plus).new(), X.ewise_mult(c, gb.binary.times).new(),
            c.ewise_mult(X, gb.binary.first).new(), c.ewise_add(X, gb.binary.second).new(),
            X.ewise_union(c, gb.binary.minus, 1, 2).new(), X.ewise_add(X, gb.binary.max).new(),
            X.ewise_mult(X.apply(gb.unary.one).new(), gb.binary.plus).new(),
            X.ewise_add(c, gb.binary.plus).new(mask=c.S),
            X.ewise_mult(c, gb.binary.times).new(mask=~c.S)]


def _as_mask_or_input(gb, X, b, c, v):
    outs = []
    for mask, accum, replace in ((X.S, None, False), (~X.S, None, True), (X.V, "plus", False),
                                 (~X.V, "max", True), (None, "plus", False), (None, None, False)):
        C = c.dup()
        kw = {"accum": getattr(gb.binary, accum)} if accum else {}
        if mask is not None:
            kw.update(mask=mask, replace=replace)
        C(**kw) << X.apply(gb.binary.plus, right=1)
        outs.append(C)
    C = c.dup()
    C(X.S) << 9
    outs.append(C)
    C = c.dup()
    C(~X.S, replace=True) << 4
    outs.append(C)
    return outs


def _copy(gb, X):
    """A computed copy of X (a dup would share X's storage, and keep X from changing in
    place)."""
    return X.apply(gb.unary.identity).new()


def _updated_in_place(gb, X, b, c, v):
    snaps = [X.dup(), X.T.new()]  # held while X changes: X's storage is copied first
    TT = X.T.new().T.new()  # shares X's arrays twice removed: must not change with it
    X(c.S) << 7  # a scalar under a mask: the levels' update
    snaps.append(_copy(gb, X))
    X(gb.binary.plus) << c  # accumulate a matrix: the path counts' update
    snaps.append(_copy(gb, X))
    X(c.S) << 2  # X is its own storage now: in place
    X(gb.binary.max) << X  # aliased
    snaps.append(_copy(gb, X))
    X(gb.binary.plus) << X.apply(gb.binary.plus, right=1)
    X(X.S) << X.apply(gb.binary.plus, right=1)
    snaps.append(_copy(gb, X))
    X[1, 2] = 5
    X[0, 0] = 3
    del X[33, 20]
    snaps.append(_copy(gb, X))
    X[4:9, 10:20] << 2
    X(c.S) << 1
    snaps.append(_copy(gb, X))
    X(~c.S, replace=True) << X
    snaps.append(_copy(gb, X))
    X(c.V) << 1
    X(gb.binary.min) << c.apply(gb.binary.plus, right=1)
    TT(c.S) << 6
    TT(gb.binary.plus) << c
    return snaps + [X, TT]


def _reshaped(gb, X, b, c, v):
    Y = X.dup()
    Y.resize(NS - 5, N + 7)
    Z = X.dup()
    Z.clear()
    Z(c.S) << 1
    small = gb.Matrix.from_coo([0, 1], [1, 0], [2, 3], nrows=2, ncols=2)
    return [Y, Z, X.kronecker(small, gb.binary.times).new(), X[:, :].new(), X.dup("FP64")]


BODIES = {"reads": _reads, "transposes": _transposes, "products": _products,
          "reductions": _reductions, "maps": _maps, "ewise": _ewise,
          "as_mask_or_input": _as_mask_or_input, "updated_in_place": _updated_in_place,
          "reshaped": _reshaped}


@pytest.mark.parametrize("direction", ["push", "pull"])
@pytest.mark.parametrize("dtype", list(SEMIRINGS))
@pytest.mark.parametrize("follow", list(BODIES))
def test_bitmap_product_then(diff, dtype, direction, follow):
    a = diff.matrix(dtype, NS, N, 0.1, nonzero=True)
    b = diff.matrix(dtype, N, N, 0.1, nonzero=True)
    m = diff.matrix(dtype, NS, N, 0.3)
    c = diff.matrix(dtype, NS, N, 0.3, nonzero=True)
    v = diff.vector(dtype, N, 0.5, nonzero=True)

    def body(gb, a, b, m, c, v):
        X = _product(gb, a, b, m, dtype, direction)
        return BODIES[follow](gb, X, b, c, v)

    diff.check(body, a, b, m, c, v)
