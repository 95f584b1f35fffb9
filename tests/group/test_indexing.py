"""Extract, assign, and the gather and scatter with a Vector of positions, on N CPU
partitions against one CPU."""

import numpy as np
import pytest
from grouphelp import check, matrix, output_args, vector

import graphblast as gb
from graphblast import Vector, binary
from graphblast.exceptions import IndexOutOfBound, InvalidValue

VECTOR_INDICES = [slice(None), slice(2, 15), slice(None, None, 3), slice(16, 1, -2),
                  "perm", "repeats", "few"]


def _index(rng, name, size):
    if isinstance(name, slice):
        return name
    if name == "perm":
        return rng.permutation(size)
    if name == "repeats":
        return rng.integers(0, size, size + 5)
    return np.sort(rng.choice(size, 4, replace=False))


@pytest.mark.parametrize("name", VECTOR_INDICES, ids=str)
def test_vector_extract(rng, parts, name):
    u = vector(rng, 19, 0.5, "INT64")
    index = _index(rng, name, 19)
    out = vector(rng, len(range(19)[index]) if isinstance(index, slice) else len(index), 0.3,
                 "INT64")
    m = vector(rng, out.size, 0.5, "BOOL")

    def body(u, out, m):
        out(m.V, binary.plus) << u[index]
        return u[index].new(), out

    check(parts, body, u, out, m)


@pytest.mark.parametrize("rows", ["all", "range", "perm", "repeats"])
@pytest.mark.parametrize("cols", ["all", "range", "perm"])
def test_matrix_extract(rng, parts, rows, cols):
    A = matrix(rng, 13, 11, 0.4, "FP64")
    pick = {"all": lambda n: slice(None), "range": lambda n: slice(n - 2, 0, -3),
            "perm": lambda n: rng.permutation(n), "repeats": lambda n: rng.integers(0, n, n)}
    I, J = pick[rows](13), pick[cols](11)
    check(parts, lambda A: (A[I, J].new(), A[4, J].new(), A[I, 7].new(), A.T[J, I].new(),
                            A[I, J].new(mask=A[I, J].new().S)), A)


def test_permuted_graph(rng, parts):
    """A[p, p], the degree ordering of triangle counting."""
    A = matrix(rng, 40, 40, 0.1, "BOOL")
    p = rng.permutation(40)
    check(parts, lambda A: A[p, p].new(), A)


@pytest.mark.parametrize("name", VECTOR_INDICES, ids=str)
@pytest.mark.parametrize("form", ["assign", "subassign", "scalar", "accum"])
def test_vector_assign(rng, parts, name, form):
    w = vector(rng, 19, 0.5, "INT64")
    index = _index(rng, name, 19)
    count = len(range(19)[index]) if isinstance(index, slice) else len(index)
    u = vector(rng, count, 0.6, "INT64")
    m = vector(rng, 19, 0.5, "BOOL")
    sub = vector(rng, count, 0.5, "BOOL")

    def body(w, u, m, sub):
        if form == "assign":
            w(m.V)[index] << u
        elif form == "subassign":
            w[index](sub.S, replace=True) << u
        elif form == "scalar":
            w(~m.S)[index] << 11
        else:
            w(binary.plus)[index] << u
        return w

    check(parts, body, w, u, m, sub)


def test_bfs_style_assign(rng, parts):
    """levels(frontier.S) << depth and v(mask) << scalar on a whole vector."""
    levels = vector(rng, 25, 0.3, "INT64")
    frontier = vector(rng, 25, 0.2, "BOOL")

    def body(levels, frontier):
        levels(frontier.S) << 4
        levels(~frontier.V, binary.max) << 2
        return levels

    check(parts, body, levels, frontier)


@pytest.mark.parametrize("form", ["region", "row", "column", "line mask", "accum"])
def test_matrix_assign(rng, parts, form):
    C = matrix(rng, 12, 10, 0.3, "INT64")
    I, J = rng.permutation(12)[:5], np.sort(rng.choice(10, 4, replace=False))
    B = matrix(rng, 5, 4, 0.5, "INT64")
    r = vector(rng, 10, 0.5, "INT64")
    c = vector(rng, 12, 0.5, "INT64")
    M = matrix(rng, 12, 10, 0.5, "BOOL")

    def body(C, B, r, c, M):
        if form == "region":
            C(M.V)[I, J] << B
        elif form == "row":
            C[3, :] << r
        elif form == "column":
            C[:, 6] << c
        elif form == "line mask":
            C(r.S)[2, :] << r
        else:
            C(binary.plus)[I, J] << B
            C[1:9:3, 2:] << 5
        return C

    check(parts, body, C, B, r, c, M)


@pytest.mark.parametrize("size_of_index", [9, 30])
def test_gather(rng, parts, size_of_index):
    """u[I] with a Vector of positions: a longer or shorter index than u."""
    u = vector(rng, 17, 0.6, "FP64")
    I = Vector.from_coo(np.sort(rng.choice(size_of_index, size_of_index // 2, replace=False)),
                        rng.integers(0, 17, size_of_index // 2), "INT64", size=size_of_index)
    out = vector(rng, size_of_index, 0.3, "FP64")
    m = vector(rng, size_of_index, 0.5, "BOOL")

    def body(u, I, out, m):
        out(m.S, binary.plus) << u[I]
        return u[I].new(), out

    check(parts, body, u, I, out, m)


@pytest.mark.parametrize("accum", [None, "min", "plus", "first", "second", "minus"])
@pytest.mark.parametrize("repeats", [False, True])
def test_scatter(rng, parts, accum, repeats):
    """w(accum)[I] << u: repeated targets fold in the order of i (or raise without an
    accumulator), whichever member the targets and the sources are on."""
    size = 21
    n = 16
    targets = rng.integers(0, size, n) if repeats else rng.permutation(size)[:n]
    I = Vector.from_coo(np.arange(n), targets, "INT64", size=n)
    u = vector(rng, n, 0.8, "FP64")
    w = vector(rng, size, 0.4, "FP64")
    m = vector(rng, size, 0.6, "BOOL")
    acc = None if accum is None else getattr(binary, accum)

    def body(I, u, w, m):
        w(**output_args(m.V, acc, False))[I] << u
        w2 = w.dup()
        w2[I] << 3.5  # a scalar: repeats are harmless
        return w, w2

    check(parts, body, I, u, w, m)


def test_connected_components_steps(rng, parts):
    """FastSV's hooking and shortcutting: f(min)[f] << mngp, f[f]."""
    n = 23
    f = Vector.from_coo(np.arange(n), rng.integers(0, n, n), "INT64", size=n)
    mngp = Vector.from_coo(np.arange(n), rng.integers(0, n, n), "INT64", size=n)

    def body(f, mngp):
        f(binary.min)[f] << mngp
        return f, f[f].new()

    check(parts, body, f, mngp)


def test_index_errors(rng, parts):
    u = vector(rng, 10, 0.5, "INT64")
    bad = Vector.from_coo([0, 1], [3, 12], "INT64", size=2)
    dup = Vector.from_coo([0, 1], [3, 3], "INT64", size=2)
    A = matrix(rng, 6, 6, 0.5, "INT64")
    for body, error in [(lambda u, bad, dup, A: u[bad].new(), IndexOutOfBound),
                        (lambda u, bad, dup, A: u.__setitem__(dup, u[[1, 2]].new()),
                         InvalidValue),
                        (lambda u, bad, dup, A: A[[0, 9], :].new(), IndexOutOfBound)]:
        assert isinstance(check(parts, body, u, bad, dup, A), error)


def test_delete_and_empty(rng, parts):
    w = vector(rng, 12, 0.6, "INT64")

    def body(w):
        w[[1, 3, 5]] << gb.Scalar("INT64")  # an empty scalar deletes the region
        w.clear()
        return w

    check(parts, body, w)
