"""mxv, vxm (push and pull), mxm and kronecker on N CPU partitions against one CPU."""

import pytest
from grouphelp import PARTS, check, group_of, mask_of, matrix, output_args, vector

import graphblast as gb
from graphblast import semiring

SEMIRINGS = [
    ("plus_times", "FP64"), ("plus_times", "INT64"), ("min_plus", "INT64"),
    ("max_second", "FP64"), ("min_first", "INT32"), ("plus_pair", "INT64"),
    ("lor_land", "BOOL"), ("any_pair", "BOOL"), ("min_firsti", "INT64"),
    ("max_secondj", "FP64"), ("plus_firstj", "INT64"), ("min_secondi", "FP32"),
]
MASKS = ["none", "S", "V", "~S", "~V"]


def _product(kind, A, u, semi, transpose):
    if kind == "mxv":
        return (A.T if transpose else A).mxv(u, semi)
    return u.vxm(A.T if transpose else A, semi)


@pytest.mark.parametrize("direction", ["push", "pull", "auto"])
@pytest.mark.parametrize("kind", ["mxv", "vxm"])
@pytest.mark.parametrize("name, dtype", SEMIRINGS)
def test_matrix_vector(rng, parts, kind, name, dtype, direction):
    """Every semiring (positional ones included) both ways, on a square and a wide matrix,
    each with a random mask kind, accumulator, replace and transpose."""
    semi = getattr(semiring, name)[dtype]
    for nrows, ncols in [(13, 13), (9, 14)]:
        transpose = bool(rng.integers(2))
        A = matrix(rng, nrows, ncols, 0.3, dtype)
        in_size = nrows if (kind == "vxm") != transpose else ncols
        out_size = ncols + nrows - in_size
        u = vector(rng, in_size, rng.choice([0.1, 0.5, 1.0]), dtype)
        w = vector(rng, out_size, 0.3, semi.return_type.name)
        m = vector(rng, out_size, 0.5, "INT64")
        mask_kind = MASKS[rng.integers(len(MASKS))]
        accum = [None, gb.binary.plus, gb.binary.min][rng.integers(3)]
        replace = bool(rng.integers(2))

        def body(A, u, w, m):
            with gb.config.set(direction=direction):
                w(**output_args(mask_of(m, mask_kind), accum, replace)) << _product(
                    kind, A, u, semi, transpose)
            return w

        check(parts, body, A, u, w, m)


@pytest.mark.parametrize("kind", ["mxv", "vxm"])
def test_matrix_vector_empty_and_full(rng, parts, kind):
    """An empty vector, a complete one (the pull gathers values only), an empty matrix."""
    n = 11
    semi = semiring.plus_times["INT64"]
    for A, u in [(matrix(rng, n, n, 0.3, "INT64"), vector(rng, n, 0.0, "INT64")),
                 (matrix(rng, n, n, 0.3, "INT64"), vector(rng, n, 1.0, "INT64")),
                 (matrix(rng, n, n, 0.0, "INT64"), vector(rng, n, 0.5, "INT64"))]:
        check(parts, lambda A, u: _product(kind, A, u, semi, False).new(), A, u)


def test_matrix_vector_with_placed_transpose(rng, parts):
    """mxv after A' is built (exact push work) and on a matrix known to be symmetric (its own
    transpose: no exchange of entries)."""
    A = matrix(rng, 12, 12, 0.3, "INT64")
    S = A.ewise_add(A.T, gb.binary.plus).new()
    S._data.symmetric = True
    u = vector(rng, 12, 0.2, "INT64")

    def body(A, S, u):
        A.T.new()  # builds and caches A's transpose
        with gb.config.set(direction="push"):
            return A.mxv(u, semiring.plus_times).new(), S.mxv(u, semiring.min_plus).new()

    check(parts, body, A, S, u)


@pytest.mark.parametrize("name, dtype", [("plus_times", "FP64"), ("plus_pair", "INT64"),
                                         ("min_plus", "INT64"), ("lor_land", "BOOL"),
                                         ("min_firsti", "INT64"), ("max_secondj", "INT64")])
@pytest.mark.parametrize("mask_kind", MASKS)
def test_mxm(rng, parts, name, dtype, mask_kind):
    """C(mask, accum, replace) << A @ B, with B or A transposed at random (the triangle
    counting form C<L> = L L' among them)."""
    semi = getattr(semiring, name)[dtype]
    for shape in [(10, 8, 12), (12, 12, 12)]:
        nrows, inner, ncols = shape
        ta, tb = (bool(x) for x in rng.integers(2, size=2))
        A = matrix(rng, *((inner, nrows) if ta else (nrows, inner)), 0.3, dtype)
        B = matrix(rng, *((ncols, inner) if tb else (inner, ncols)), 0.3, dtype)
        C = matrix(rng, nrows, ncols, 0.2, semi.return_type.name)
        M = matrix(rng, nrows, ncols, 0.4, "INT64")
        accum = [None, gb.binary.plus][rng.integers(2)]
        replace = bool(rng.integers(2))

        def body(A, B, C, M):
            C(**output_args(mask_of(M, mask_kind), accum, replace)) << (
                (A.T if ta else A).mxm(B.T if tb else B, semi))
            return C

        check(parts, body, A, B, C, M)


def test_mxm_triangle_form(rng, parts):
    """C<L> = L plus.pair L' on the strictly lower triangle of a symmetric graph."""
    A = matrix(rng, 30, 30, 0.2, "BOOL")
    A = A.ewise_add(A.T, gb.binary.lor).new()

    def body(A):
        L = gb.select.tril(A, -1).new()
        return L.mxm(L.T, semiring.plus_pair["INT64"]).new(mask=L.S)

    check(parts, body, A)


@pytest.mark.parametrize("op", ["times", "plus", "first", "firsti", "secondj"])
def test_kronecker_and_outer(rng, parts, op):
    binop = getattr(gb.binary, op)
    A, B = matrix(rng, 5, 4, 0.4, "INT64"), matrix(rng, 3, 2, 0.5, "INT64")
    u, v = vector(rng, 6, 0.6, "INT64"), vector(rng, 5, 0.6, "INT64")
    C = matrix(rng, 15, 8, 0.2, "INT64")
    M = matrix(rng, 15, 8, 0.5, "BOOL")

    def body(A, B, u, v, C, M):
        C(M.S, gb.binary.plus) << A.kronecker(B, binop)
        return C, u.outer(v, binop).new()

    check(parts, body, A, B, u, v, C, M)


def test_members_follow_the_group_direction(rng):
    """The group chooses push or pull for everyone; a member computing its block never
    chooses the other direction itself, which would build (and keep) its block's transpose."""
    from graphblast.algorithms import bfs
    from graphblast.generators import kron

    if max(PARTS) < 2:
        pytest.skip("no group among the chosen sizes")
    device = group_of(max(PARTS))
    A = kron(10, 16, seed=3, device="cpu")
    G = A.to_device(device)
    assert bfs(G, 0).to_device("cpu").isequal(bfs(A, 0))
    assert all(part._transpose is None for part in G._data.parts)
    u = vector(rng, A.nrows, 0.02, "INT64")
    for direction in ("push", "pull"):
        with gb.config.set(direction=direction):
            got = u.to_device(device).vxm(G, semiring.plus_times).new()
        assert got.to_device("cpu").isequal(u.vxm(A.apply(gb.unary.one["INT64"]).new()).new())
    assert all(part._transpose is None for part in G._data.parts)
