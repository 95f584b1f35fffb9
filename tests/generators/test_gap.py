"""GAP's kron and urand: the reference counts, bit-exact known answers, and their parts.

The known answers (sha256 prefixes of CSR arrays and permutations) were computed with g++ 12
(libstdc++ 12) running GAP's generator and builder logic on the same seeds.
"""

import hashlib
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from graphblast.dtypes import FP64, UINT8
from graphblast.exceptions import InvalidValue, OutOfMemory
from graphblast.generators import _device, _mt19937, kron, urand
from graphblast.generators import gap as gap_mod
from graphblast.generators._csr import build_csr
from graphblast.generators._mt19937 import MT19937Streams
from graphblast.generators._shuffle import apply_swaps, shuffled_ids, swap_targets


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def csr_of(A):
    """Host CSR arrays of a Matrix (python-graphblas gives uint64 offsets; use int64)."""
    indptr, indices, values = A.to_csr()
    return host(indptr).astype(np.int64), host(indices).astype(np.int64), host(values)


def digest(*arrays):
    h = hashlib.sha256()
    for a, dt in arrays:
        h.update(np.ascontiguousarray(a, dtype=dt).tobytes())
    return h.hexdigest()[:16]


def reference(data_dir, name):
    with open(os.path.join(data_dir, "gapbs", "reference", f"graph-{name}.out")) as f:
        m = re.search(r"Graph has (\d+) nodes and (\d+) (un)?directed edges", f.read())
    return int(m.group(1)), int(m.group(2))


# ---------------------------------------------------------------- GAP's reference outputs

@pytest.mark.parametrize("variant", ["uint32", "float"])
@pytest.mark.parametrize("kind, ref", [("kron", "g10"), ("urand", "u10")])
def test_reference_counts(data_dir, device, kind, ref, variant):
    nodes, edges = reference(data_dir, ref)
    A = (kron if kind == "kron" else urand)(10, variant=variant, device=device)
    assert (A.nrows, A.ncols) == (nodes, nodes)
    assert A.nvals == 2 * edges
    assert (nodes, 2 * edges) == ((1024, 20992) if kind == "kron" else (1024, 32250))


# ------------------------------------------------------- bit-exact known answers (g++ 12)

KNOWN = {
    # (kind, scale, degree, variant): (nrows, nnz, structure digest, weights digest)
    ("kron", 10, 16, "float"): (1024, 20992, "abac11ae6bd24009", "fae2fa1f5ce8b899"),
    ("kron", 10, 16, "uint32"): (1024, 20992, "abac11ae6bd24009", "fae2fa1f5ce8b899"),
    ("urand", 10, 16, "float"): (1024, 32250, "5dc5fe3c4f627316", "b7dcc57de724e94a"),
    ("kron", 12, 5, "float"): (4096, 35104, "f975fe2d914fc436", "4de8e750a9a3254e"),
    ("urand", 11, 200, "float"): (2048, 743192, "60291417d00e4bcb", "a308d9d2913fd5d2"),
    # Scale 16: 4 blocks, pair-free shuffle; the two R-MAT variants part here.
    ("kron", 16, 16, "float"): (65536, 1819290, "b2cd34051ad4372d", "a9ff4dba98dfc42d"),
    ("kron", 16, 16, "uint32"): (65536, 1819292, "4b729171e4255e1c", "bf4cd5d594f26b21"),
    ("urand", 16, 16, "uint32"): (65536, 2096552, "3368f2d03cdc644d", "323c9a2739b3469a"),
}


@pytest.mark.parametrize("key", list(KNOWN), ids=lambda k: "-".join(map(str, k)))
def test_known_answers(device, key):
    kind, scale, degree, variant = key
    nrows, nnz, structure, weights = KNOWN[key]
    gen = kron if kind == "kron" else urand
    A = gen(scale, degree, variant=variant, weighted=True, device=device)
    indptr, indices, values = csr_of(A)
    assert (A.nrows, A.nvals) == (nrows, nnz)
    assert digest((indptr, "<i8"), (indices, "<i4")) == structure
    assert digest((values, "<i4")) == weights
    assert str(A.dtype) == "UINT8"


def test_vertex_count_is_max_id_plus_one():
    # GAP's builder sizes the graph by FindMaxNodeID: kron scale 3 degree 1 never draws 6, 7.
    A = kron(3, 1, device="cpu")
    assert A.nrows == 6
    rows, cols, _ = A.to_coo()
    assert sorted(zip(host(rows).tolist(), host(cols).tolist())) == [
        (0, 5), (1, 5), (3, 5), (5, 0), (5, 1), (5, 3)]


@pytest.mark.parametrize("gen", [kron, urand])
def test_scale_zero_has_only_self_loops(gen):
    A = gen(0, device="cpu")
    assert (A.nrows, A.ncols, A.nvals) == (1, 1, 0)


# --------------------------------------------------------------------- graph properties

@pytest.mark.parametrize("gen", [kron, urand])
@pytest.mark.parametrize("weighted", [False, True])
def test_symmetric_no_loops_no_duplicates(device, gen, weighted):
    A = gen(11, 8, weighted=weighted, device=device)
    indptr, indices, values = csr_of(A)
    rows = np.repeat(np.arange(A.nrows), np.diff(indptr))
    assert not np.any(rows == indices)
    # Sorted, strictly increasing columns in every row: no duplicates.
    key = rows.astype(np.int64) * A.ncols + indices
    assert np.all(np.diff(key) > 0)
    assert A.isequal(A.T.new())
    if weighted:
        assert str(A.dtype) == "UINT8"
        assert values.min() >= 1 and values.max() <= 255
    else:
        assert str(A.dtype) == "BOOL"
        assert np.all(values)


def test_deterministic_and_seeded(device):
    a = csr_of(kron(9, seed=5, device=device))
    b = csr_of(kron(9, seed=5, device=device))
    c = csr_of(kron(9, seed=6, device=device))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not (a[1].shape == c[1].shape and np.array_equal(a[1], c[1]))
    assert digest((csr_of(kron(10, seed=gap_mod.GAP_SEED, device=device))[1], "<i4")) == \
        digest((csr_of(kron(10, device=device))[1], "<i4"))


def test_chunked_build_matches_one_shot():
    """A workspace far smaller than the graph (scatter + ranges) gives the same CSR."""
    for kind in ("kron", "urand"):
        args = (np, kind, 12, 8, gap_mod.GAP_SEED, "uint32", True)
        small = build_csr(np, gap_mod._edge_source(*args, 1 << 12), 1 << 12, weighted=True,
                          budget=1 << 10, nrows_from_max_id=True)
        big = build_csr(np, gap_mod._edge_source(*args, 1 << 22), 1 << 12, weighted=True,
                        budget=1 << 24, nrows_from_max_id=True)
        assert small.nrows == big.nrows
        for x, y in ((small.indptr, big.indptr), (small.indices, big.indices),
                     (small.values, big.values)):
            assert np.array_equal(x, y)


# ------------------------------------------------------------------------- the parts

def numpy_mt19937(seed):
    """NumPy's MT19937 in the state ``std::mt19937(seed)`` starts from (public API only)."""
    _, key, pos, _, _ = np.random.RandomState(seed).get_state()
    bg = np.random.MT19937()
    bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
    return bg


def test_mt19937_matches_reference_generator():
    # std::mt19937's default seed 5489: its 1st and 10000th outputs are standard values.
    out = MT19937Streams(np, [5489]).next(10000)[:, 0]
    assert out[0] == 3499211612 and out[-1] == 4123659995
    # Many streams in lockstep equal NumPy's MT19937 run on each seed's state.
    seeds = [0, 1, 27491095, 2**32 - 1]
    mt = MT19937Streams(np, seeds)
    got = np.concatenate([mt.next(700), mt.next(1)], axis=0)
    for j, seed in enumerate(seeds):
        expect = numpy_mt19937(seed).random_raw(701).astype(np.uint32)
        assert np.array_equal(got[:, j], expect)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on the PATH")
def test_mt19937_cuda_kernel_compiles(tmp_path):
    """The generators' GPU kernels (MT19937, R-MAT, the CSR build) build without a GPU (CI);
    the device run checks their outputs."""
    from graphblast.backends.cuda import jit, programs

    src = tmp_path / "mt19937.cu"
    src.write_text(jit.translation_unit(
        [programs.generator_kernel(name)[1]() for name in programs.GENERATOR_KERNELS] +
        [programs.grid_kernel(t)[1]() for t in (UINT8, FP64)],
        instantiate=True))
    subprocess.run(["nvcc", "-arch=sm_90", "--ptx", str(src), "-o", str(tmp_path / "mt.ptx")],
                   check=True, capture_output=True, timeout=120)


def test_mt19937_split_continues_the_stream():
    mt = MT19937Streams(np, [11, 12, 13])
    mt.next(1000)
    solo = mt.split(1)
    assert np.array_equal(solo.next(900)[:, 0], mt.next(900)[:, 1])


# Known answers for std::shuffle(0..n-1, std::mt19937(seed)) with libstdc++ 12.
PERMS = {
    (1000, 12345): ([716, 645, 859, 238, 467, 625], "90e80f949d5f6549"),
    (1024, 27491095): ([536, 270, 679, 1021, 162, 435], "33b2e7432c6a520f"),
    (65536, 27491095): ([20315, 12600, 2911, 2427, 54011, 42696], "6dc1ed628c4b6b64"),
    (65537, 27491095): ([20315, 12600, 2911, 2427, 54011, 42696], "165766558b7537c8"),
    (70000, 7): ([68737, 37819, 55518, 21721, 46481, 40530], "68cdcabba4d7a0b5"),
    (100000, 27491095): ([71009, 12600, 2911, 69611, 54011, 42696], "cf5fd513703410c2"),
}


@pytest.mark.parametrize("n, seed", list(PERMS))
def test_shuffle_known_answers(n, seed):
    head, sha = PERMS[(n, seed)]
    p = shuffled_ids(np, n, seed)
    assert p[:6].tolist() == head
    assert digest((p, "<i4")) == sha


def _libstdcxx_shuffle(n, seed):
    """libstdc++'s std::shuffle written out sequentially, as an independent reference."""
    raw = iter(numpy_mt19937(seed).random_raw(4 * n + 64).tolist())

    def uniform(r):  # uniform_int_distribution(0, r - 1): Lemire's method
        product = next(raw) * r
        if product & 0xFFFFFFFF < r:
            threshold = (1 << 32) % r
            while product & 0xFFFFFFFF < threshold:
                product = next(raw) * r
        return product >> 32

    p = list(range(n))
    if (2**32 - 1) // n >= n:
        i = 1
        if n % 2 == 0:
            j = uniform(2)
            p[1], p[j] = p[j], p[1]
            i = 2
        while i < n:
            x = uniform((i + 1) * (i + 2))
            a, b = divmod(x, i + 2)
            p[i], p[a] = p[a], p[i]
            p[i + 1], p[b] = p[b], p[i + 1]
            i += 2
    else:
        for i in range(1, n):
            j = uniform(i + 1)
            p[i], p[j] = p[j], p[i]
    return p


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 999, 65535, 65536, 90001])
def test_shuffle_matches_sequential_reference(n):
    assert shuffled_ids(np, n, 1234).tolist() == _libstdcxx_shuffle(n, 1234)


def test_parallel_swaps_equal_sequential(rng):
    n = 5000
    targets = np.array([0] + [int(rng.integers(0, i + 1)) for i in range(1, n)])
    p = list(range(n))
    for i in range(1, n):
        p[i], p[targets[i]] = p[targets[i]], p[i]
    assert apply_swaps(np, targets).tolist() == p
    assert swap_targets(1, 0).tolist() == [0]


@pytest.mark.parametrize("variant", ["uint32", "float"])
def test_weight_rejections_follow_each_stream(monkeypatch, variant):
    """Force frequent UniDist rejections: each block must still read its own stream."""
    cutoff = 3 << 30  # a quarter of the outputs rejected
    monkeypatch.setattr(gap_mod, "_weight_cutoff", lambda v: cutoff)
    seeds = np.arange(5, dtype=np.uint64) + np.uint64(99)
    w = gap_mod._GapWeights(np, seeds, variant)
    got = np.concatenate([w.next(300), w.next(1), w.next(700)], axis=0)
    for j, seed in enumerate(seeds.tolist()):
        raw = MT19937Streams(np, [seed]).next(3000)[:, 0]
        expect = raw[raw < cutoff][:1001] % 255 + 1
        assert np.array_equal(got[:, j], expect)


def test_weight_cutoffs():
    # UniDist(254): current gapbs rejects only 2^32 - 1; the older code also 2^32 - 2.
    assert gap_mod._weight_cutoff("uint32") == 2**32 - 1
    assert gap_mod._weight_cutoff("float") == 2**32 - 2


def test_rmat_thresholds():
    t_lo, t_src, t_hi = gap_mod.rmat_thresholds("uint32")
    assert (t_lo, t_src, t_hi) == (2448131359, 3264175144, 4080218931)
    f_lo, f_src, f_hi = gap_mod.rmat_thresholds("float")
    canon = gap_mod._canonical_float
    a, ab = np.float32(0.57), np.float32(0.57) + np.float32(0.19)
    assert canon(f_lo) > a >= canon(f_lo - 1)
    assert canon(f_src) >= ab > canon(f_src - 1)
    assert abs(f_hi - t_hi) < 2**9


# ------------------------------------------------------------------------ bad arguments

@pytest.mark.parametrize("kwargs, match", [
    ({"scale": -1}, "scale must be between 0 and 30"),
    ({"scale": 31}, "scale must be between 0 and 30"),
    ({"scale": 2.5}, "scale must be an integer"),
    ({"scale": True}, "scale must be an integer"),
    ({"scale": 4, "degree": 0}, "degree must be a positive integer"),
    ({"scale": 4, "seed": -1}, "seed must be None"),
    ({"scale": 4, "seed": 2**32}, "seed must be None"),
    ({"scale": 4, "variant": "double"}, "variant must be one of"),
])
@pytest.mark.parametrize("gen", [kron, urand])
def test_bad_arguments(gen, kwargs, match):
    with pytest.raises(InvalidValue, match=match):
        gen(**kwargs, device="cpu")


def test_too_large_is_refused_before_allocating():
    # Terabytes: refused by the estimate, not by an allocation failing.
    with pytest.raises(OutOfMemory, match=r"needs about .* GiB"):
        kron(30, 1000, device="cpu")
    with pytest.raises(OutOfMemory, match="smaller"):
        urand(30, 1000, weighted=True, device="cpu")


def test_memory_check_uses_available_memory(monkeypatch):
    monkeypatch.setattr(_device, "available_bytes", lambda xp: 1 << 20)
    with pytest.raises(OutOfMemory, match="only 0.0 GiB of host memory"):
        urand(16, device="cpu")
