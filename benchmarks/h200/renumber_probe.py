"""PageRank's renumbering into degree order (extract.pull_in_degree_order) on a symmetric
graph: the whole primitive (wall time), then its kernel alone (gbk_renumber_rows, CUDA events)
on the same inputs, with the rows by length (the short rows a warp leaves lanes idle on) and
the kernel's output checked against the primitive's.  Then the kernel's variants (this file's
SOURCE, twenty-ninth session), each on the same rows:

- ``ilp{4,8,16}``: the library's loop with 4, 8 or 16 gathers in flight a lane;
- ``stream``: ilp 8, the columns read and the names written with the streaming cache hints
  (``__ldcs``/``__stcs``: evict first), so that the 34 GB streamed through on kron-27 do not
  evict the hubs' names from L2;
- ``hub_order{T}``: another order: the T hubs first by degree, then every other vertex by its
  id, so that an id's name comes from the tier alone (T + id - the hubs below it, or the hub's
  name), no full table gathered; the library's product over that matrix against its product
  over the degree-ordered B (does the order past the hubs matter to the product?);
- ``tier{T}``: the names of the T vertices of highest degree looked up in a table that fits
  L2: a sector per 224 ids (seven 32-bit words of "is a hub" bits and the hubs counted before
  the group), the hub's place among the hubs by id from one sector and then its name from a
  T-entry table (16 MB at T = 4M); the other vertices' names gathered from the full table as
  before.  Its output is checked against the primitive's.

    python3 benchmarks/h200/renumber_probe.py --graphs kron-22,kron-27 --out $OUT
"""

import json
import time

import cupy as cp
import numpy as np

from graphblast import Matrix, Vector, semiring
from graphblast.backends.base import CSR
from graphblast.backends.cuda import blocks, extract, jit, programs
from graphblast.backends.cuda.blocks import i64
from graphblast.backends.cuda.vectors import FullVector
from graphblast.dtypes import FP64
from graphblast.bench import graphs

import per_graph  # this folder's per_graph.py (run as a script)
from per_graph import gpu_ms


def wall_ms(fn, runs=3):
    fn()
    cp.cuda.get_current_stream().synchronize()
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        cp.cuda.get_current_stream().synchronize()
        out.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(out))


def measure(name):
    g = graphs.build(graphs.parse_graphs(name)[0], "cuda:0")
    A = g.A._data
    assert A.symmetric, "the probe times the symmetric path"
    n = A.nrows
    rec = {"graph": name, "n": n, "nvals": A.nvals,
           "pull_in_degree_order_ms": wall_ms(lambda: extract.pull_in_degree_order(A, 0.0,
                                                                                 False))}
    # the kernel's inputs, as the primitive makes them
    degrees = A.indptr[1:] - A.indptr[:-1]
    order = cp.argsort(-degrees)
    lengths = degrees[order]
    short = [int(x) for x in blocks.read_small(cp.stack(
        [(lengths == 0).sum(), ((lengths >= 1) & (lengths <= 4)).sum(),
         ((lengths >= 5) & (lengths <= 32)).sum()]))]
    rec["rows_by_length"] = {"0": short[0], "1-4": short[1], "5-32": short[2],
                             "33 or more": n - sum(short)}
    # the rows it keeps: those with an entry, and one empty row for all the others
    k = min(n, n - short[0] + 1)
    name_type = cp.int32 if n <= np.iinfo(np.int32).max else cp.int64
    rank = cp.empty(n, dtype=name_type)
    rank[order] = cp.minimum(cp.arange(n, dtype=name_type), k - 1)
    order, lengths = order[:k], lengths[:k]
    out_ptr = blocks.exclusive_scan(lengths)
    col = A.stored_indices
    (fn,) = jit.compiled(programs.renumber_rows, col.dtype == np.int32,
                         name_type == cp.int32, 1).fns
    out_col = cp.empty(A.nvals, dtype=name_type)
    rec["kernel_ms"] = gpu_ms(lambda: jit.launch_warps(
        fn, k, (i64(k), order, A.indptr, col, None, rank, out_ptr, out_col, None)))
    B = extract.pull_in_degree_order(A, 0.0, False)[0]
    rec["same_output"] = bool(cp.array_equal(B.stored_indices, out_col))
    del B
    print(json.dumps(rec), flush=True)
    if name_type == cp.int32 and col.dtype == cp.int32:
        variants(rec, k, order, A, rank, out_ptr, out_col, g.A)
    return rec


SOURCE = r"""
// gbk_renumber_rows of structure.cuh with ILP gathers in flight a lane, a column's name given
// by NAME, and the streaming hints on the columns read and the names written (STREAM);
// int32 columns and names, no values
template <int ILP, bool STREAM, class NAME>
__device__ void renumber_rows(long long n, const long long* order, const long long* indptr,
                              const int* col, const long long* out_ptr, int* out_col,
                              NAME name_of) {
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    for (long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < n;
         r += warps) {
        const long long s = order[r];
        const long long p = indptr[s], len = indptr[s + 1] - p, dst = out_ptr[r];
        for (long long base = lane; base < len; base += 32 * ILP) {
            int c[ILP], name[ILP];
#pragma unroll
            for (int u = 0; u < ILP; ++u) {
                const long long k = base + 32 * u;
                c[u] = k < len ? (STREAM ? __ldcs(col + p + k) : col[p + k]) : 0;
            }
#pragma unroll
            for (int u = 0; u < ILP; ++u)
                if (base + 32 * u < len) name[u] = name_of(c[u]);
#pragma unroll
            for (int u = 0; u < ILP; ++u) {
                const long long k = base + 32 * u;
                if (k < len) {
                    if (STREAM) __stcs(out_col + dst + k, name[u]);
                    else out_col[dst + k] = name[u];
                }
            }
        }
    }
}

// The hubs' tier: group g of 224 ids is one 32-byte sector, words 0-6 the "is a hub" bits of
// ids 224g + 32w + b, word 7 the hubs among ids below 224g.  Gives whether c is a hub and the
// hubs below c.
__device__ __forceinline__ bool tier_lookup(const uint4* tier, int c, unsigned& below) {
    const int g = c / 224, off = c - g * 224, w = off >> 5, b = off & 31;
    const uint4 lo = __ldg(tier + 2 * g), hi = __ldg(tier + 2 * g + 1);
    const unsigned words[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    unsigned mine = 0;
    below = words[7];
#pragma unroll
    for (int i = 0; i < 7; ++i) {
        if (i < w) below += __popc(words[i]);
        if (i == w) mine = words[i];
    }
    below += __popc(mine & ((1u << b) - 1u));
    return (mine >> b) & 1u;
}

// a name gathered from the full table (the library's way)
struct Table {
    const int* rank;
    __device__ int operator()(int c) const { return rank[c]; }
};
// a hub's name from the tier and a T-entry table (hub_name[j]: the j-th hub by id), any other
// id's from the full table
struct Tier {
    const uint4* tier; const int* hub_name; const int* rank;
    __device__ int operator()(int c) const {
        unsigned below;
        return tier_lookup(tier, c, below) ? hub_name[below] : rank[c];
    }
};
// the hub order (hubs first by degree, then every other vertex by its id): a hub's name as
// above, any other id's T + id - (the hubs below it); no full table at all
struct TierIds {
    const uint4* tier; const int* hub_name; int T;
    __device__ int operator()(int c) const {
        unsigned below;
        return tier_lookup(tier, c, below) ? hub_name[below] : T + c - (int)below;
    }
};

template <int ILP, bool STREAM>
__global__ void renumber(long long n, const long long* order, const long long* indptr,
                         const int* col, const int* rank, const long long* out_ptr,
                         int* out_col) {
    renumber_rows<ILP, STREAM>(n, order, indptr, col, out_ptr, out_col, Table{rank});
}

template <int ILP>
__global__ void renumber_tier(long long n, const long long* order, const long long* indptr,
                              const int* col, const uint4* tier, const int* hub_name,
                              const int* rank, const long long* out_ptr, int* out_col) {
    renumber_rows<ILP, true>(n, order, indptr, col, out_ptr, out_col,
                             Tier{tier, hub_name, rank});
}

template <int ILP>
__global__ void renumber_tier_ids(long long n, const long long* order,
                                  const long long* indptr, const int* col, const uint4* tier,
                                  const int* hub_name, int T, const long long* out_ptr,
                                  int* out_col) {
    renumber_rows<ILP, true>(n, order, indptr, col, out_ptr, out_col,
                             TierIds{tier, hub_name, T});
}
"""
_NAMES = ["renumber<4, false>", "renumber<8, false>", "renumber<16, false>",
          "renumber<8, true>", "renumber_tier<8>", "renumber_tier_ids<8>"]


def build_tier(order, rank, hubs):
    """The tier's sectors for the ``hubs`` first vertices of ``order`` (as 32-bit words, eight
    a group of 224 ids), their names by id (hub_name[j]: the name of the j-th hub by id) and
    the hubs as a mask of the n vertices."""
    n = rank.size
    groups = (n + 223) // 224
    is_hub = cp.zeros(groups * 224, dtype=cp.uint8)
    is_hub[order[:hubs]] = 1
    bits = is_hub.reshape(groups, 7, 32).astype(cp.uint32) << cp.arange(32, dtype=cp.uint32)
    words = cp.empty((groups, 8), dtype=cp.uint32)
    words[:, :7] = bits.sum(axis=2, dtype=cp.uint32)
    counts = is_hub.reshape(groups, 224).sum(axis=1, dtype=cp.int64)
    words[:, 7] = (cp.cumsum(counts) - counts).astype(cp.uint32)
    return words.reshape(-1), rank[cp.sort(order[:hubs])], is_hub[:n].view(cp.bool_)


def variants(rec, k, order, A, rank, out_ptr, out_col, matrix):
    """The kernel's variants (the docstring) on the primitive's rows; int32 only."""
    mod = cp.RawModule(code=SOURCE, options=("-std=c++17",), name_expressions=_NAMES)
    fns = {name: mod.get_function(name) for name in _NAMES}
    sm = cp.cuda.Device().attributes["MultiProcessorCount"]
    grid, block = (sm * 8,), (256,)
    col = A.stored_indices
    want = out_col.copy()
    args = (np.int64(k), order, A.indptr, col, rank, out_ptr, out_col)
    for label, name in (("ilp4", "renumber<4, false>"), ("ilp8", "renumber<8, false>"),
                        ("ilp16", "renumber<16, false>"), ("stream", "renumber<8, true>")):
        out_col.fill(-1)
        rec[f"{label}_ms"] = gpu_ms(lambda: fns[name](grid, block, args))
        rec[f"{label}_same"] = bool(cp.array_equal(out_col, want))
    for hubs in (1 << 20, 1 << 22):
        hubs = min(hubs, k)
        tier, hub_name, _ = build_tier(order, rank, hubs)
        out_col.fill(-1)
        rec[f"tier{hubs}_ms"] = gpu_ms(lambda: fns["renumber_tier<8>"](grid, block, (
            np.int64(k), order, A.indptr, col, tier, hub_name, rank, out_ptr, out_col)))
        rec[f"tier{hubs}_same"] = bool(cp.array_equal(out_col, want))
        del tier, hub_name
    del want
    print(json.dumps(rec), flush=True)
    if A.symmetric:
        x, y_degree = degree_order_product(rec, A, matrix)
        for hubs in (1 << 20, 1 << 22):
            hub_order(rec, fns["renumber_tier_ids<8>"], grid, block, min(hubs, k), order, A,
                      rank, out_col, matrix, x, y_degree)
            print(json.dumps(rec), flush=True)


def _vector(values, matrix):
    return Vector._from_data(FullVector(values.size, FP64, values), matrix._backend,
                             matrix.device)


def _product(B, c):
    """B's product with c (PageRank's pull), on the device, in B's own order"""
    return B.mxv(c, semiring.plus_second[FP64]).new()


def degree_order_product(rec, A, matrix):
    """The library's product over the degree-ordered B (the primitive's), timed once, with
    the random values x it gathers and its result in the vertices' own order (the hub
    orders are checked against it)."""
    made = extract.pull_in_degree_order(A, 0.0, False)
    B = Matrix._from_data(made[0], matrix._backend, matrix.device)
    P = made[1].vals.astype(cp.int64)
    cp.random.seed(3)
    x = cp.random.random(A.nrows)
    c = _vector(x[P], matrix)
    rec["degree_order_product_ms"] = gpu_ms(lambda: _product(B, c).wait())
    y = cp.zeros(A.nrows)
    y[P] = cp.asarray(_product(B, c).to_dense(fill_value=0.0))  # B keeps P.size of them
    return x, y


def hub_order(rec, fn, grid, block, hubs, order, A, rank, out_col, matrix, x, y_degree):
    """The hubs first in degree order, then the other vertices in the order of their ids
    (none left out): named through the tier alone (``renumber_tier_ids``), and the library's
    product over that matrix, checked against the degree order's (``y_degree``, in the
    vertices' own order, of the values ``x``).  ``out_col`` is reused for its columns."""
    n = A.nrows
    tier, hub_name, is_hub = build_tier(order, rank, hubs)
    order2 = cp.concatenate([order[:hubs], cp.flatnonzero(~is_hub)])
    del is_hub
    degrees = A.indptr[1:] - A.indptr[:-1]
    out_ptr2 = blocks.exclusive_scan(degrees[order2])
    label = f"hub_order{hubs}"
    rec[f"{label}_renumber_ms"] = gpu_ms(lambda: fn(grid, block, (
        np.int64(n), order2, A.indptr, A.stored_indices, tier, hub_name, np.int32(hubs),
        out_ptr2, out_col)))
    del tier, hub_name
    B2 = Matrix._from_data(CSR(n, n, A.dtype, out_ptr2, out_col, None,
                               iso_value=A.dtype.np_type.type(1)), matrix._backend,
                           matrix.device)
    c = _vector(x[order2], matrix)
    rec[f"{label}_product_ms"] = gpu_ms(lambda: _product(B2, c).wait())
    y = cp.zeros(n)
    y[order2] = cp.asarray(_product(B2, c).to_dense(fill_value=0.0))
    rec[f"{label}_same_product"] = bool(cp.allclose(y, y_degree, rtol=1e-12, atol=0))


def main():
    per_graph.run(measure, "renumber_probe.json", cp.get_default_memory_pool().free_all_blocks)


if __name__ == "__main__":
    main()
