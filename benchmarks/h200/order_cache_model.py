"""A model, on the CPU, of what the vertices' order does to PageRank's gathers and to the
renumbering's lookups (twenty-ninth session
no GPU started, so a model instead of the
measurement renumber_probe.py makes): each stream of 32-byte sectors run through an LRU cache
of 2.5 % or 5 % of the rank vector's sectors (the H200's 50 MB L2 is 4.7 % of kron-27's 1.07
GB of ranks), its misses counted per gather.  Rows with an entry in the order's row order,
each row's entries in their stored order (one warp at a time: the GPU's thousands of warps in
flight interleave them, which this leaves out).

- the product's gathers (8-byte ranks) in the degree order; the **hub order** (the first T
  vertices by degree, then the others by id
  T = 1, 3, 10 % of n)
  the tier by id (the T hubs
  by id, then the others)
  the first 0.1 % by degree, then the tier by id
  the stored order;
- the renumbering's lookups (rows in degree order): the full table of 4-byte names; the hub
  order's tier (a sector per 224 ids, then a hub's entry in a T-entry name table)
  the degree
  order with the tier (a non-hub's name still from the full table).

    python3 benchmarks/h200/order_cache_model.py 20      # kron-20 (generated here)
"""
import sys
import time
from collections import OrderedDict

import numpy as np

import graphblast as gb

scale = int(sys.argv[1]) if len(sys.argv) > 1 else 20
A = gb.generators.kron(scale)
indptr = np.asarray(A._data.indptr)
col = np.asarray(A._data.indices)
n = A.nrows
deg = np.diff(indptr)
order = np.argsort(-deg, kind="stable")
active = int(np.count_nonzero(deg))

def gathered(rows):
    """the columns of ``rows``' entries, row after row (rows without an entry add none)"""
    lens = deg[rows]
    idx = np.repeat(indptr[rows] - np.r_[0, np.cumsum(lens)[:-1]], lens) + np.arange(lens.sum())
    return col[idx]


def named(order_):
    """the product's gathers' sectors with the vertices named by their place in ``order_``
    (8-byte values, 32-byte sectors)"""
    name = np.empty(n, np.int64)
    name[order_] = np.arange(order_.size)
    return name[gathered(order_)] // 4


def hubs(share):
    """the first ``share`` of the vertices by degree, as a mask"""
    mask = np.zeros(n, bool)
    mask[order[:int(share * n)]] = True
    return mask


def lru_misses(sectors, capacity):
    cache = OrderedDict()
    misses = 0
    move = cache.move_to_end
    for s in sectors.tolist():
        if s in cache:
            move(s)
        else:
            misses += 1
            cache[s] = None
            if len(cache) > capacity:
                cache.popitem(last=False)
    return misses

out = {"scale": scale, "n": n, "nnz": int(indptr[-1]), "active": active}
others = deg > 0  # rows with an entry: the model's vertices past the hubs
streams = {"degree": named(order)}
for share in (0.01, 0.03, 0.1):
    hub = hubs(share)
    streams[f"hub_order_{share}"] = named(np.concatenate(
        [order[:int(share * n)], np.flatnonzero(~hub & others)]))
for share in (0.03, 0.1):  # the tier's hubs by id (a name is a count, no table)
    hub = hubs(share)
    streams[f"tier_by_id_{share}"] = named(np.concatenate(
        [np.flatnonzero(hub), np.flatnonzero(~hub & others)]))
    top = int(0.001 * n)  # and the first 0.1 % by degree before them
    first = hubs(0.001)
    streams[f"top_then_tier_by_id_{share}"] = named(np.concatenate(
        [order[:top], np.flatnonzero(hub & ~first), np.flatnonzero(~hub & others)]))
streams["stored"] = named(np.flatnonzero(others))
for cap_share in (0.025, 0.05):
    capacity = int(cap_share * n / 4)
    for label, s in streams.items():
        t0 = time.time()
        m = lru_misses(s, capacity)
        out[f"{label}@{cap_share}"] = round(m / s.size, 4)
        print(label, cap_share, round(m / s.size, 4), f"{time.time()-t0:.0f}s", flush=True)
print(out)

# The renumbering's lookups, rows in degree order: the name table (4-byte names, 8 a sector)
# against the tier (a sector per 224 ids, then a hub's entry in a T-entry name table)
cols = gathered(order)
ren = {"table": cols // 8}
for share in (0.01, 0.03, 0.1):
    hub = hubs(share)
    hub_idx = np.cumsum(hub) - 1  # a hub's place among the hubs by id
    tier = cols // 224
    is_h = hub[cols]
    # each entry: its tier sector, then (a hub) its name table sector, ids kept apart
    seq = np.empty(2 * cols.size, np.int64)
    seq[0::2] = tier
    seq[1::2] = np.where(is_h, (1 << 40) + hub_idx[cols] // 8, -1)
    ren[f"hub_order_tier_{share}"] = seq[seq >= 0]
    # the degree order kept: a non-hub's name still gathered from the full table
    seq[1::2] = np.where(is_h, (1 << 40) + hub_idx[cols] // 8, (2 << 40) + cols // 8)
    ren[f"degree_order_tier_{share}"] = seq.copy()
for cap_share in (0.025, 0.05):
    capacity = int(cap_share * n / 4)
    for label, s in ren.items():
        m = lru_misses(s, capacity)
        print("renumber", label, cap_share, "misses per entry", round(m / cols.size, 4),
              "lookups per entry", round(s.size / cols.size, 3), flush=True)
