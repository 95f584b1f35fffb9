"""How a graph's entries fall around its hubs in decreasing-degree order (no GPU needed):
for each tier T (the first T vertices of that order), the share of the stored entries whose
column is a hub, whose row is a hub and column is not, whose row and column both are not,
and whose row and column both are; what pr_hubsplit.py's layout keeps (every entry but a
hub row's non-hub columns) and what its product still gathers from L2 or memory (the
entries with neither end a hub) against the degree-ordered pull's (every entry whose column
is not a hub).

    GRAPHBLAST_DATA=tests/data python3 benchmarks/h200/hub_shares.py kron-22 g500-21
"""

import sys
import time

import numpy as np

from graphblast.bench import graphs

TIERS = (2048, 4096, 8192, 14336, 28672, 65536)


def shares(name):
    family, size = name.split("-")
    t0 = time.perf_counter()
    A = graphs.build(graphs.GraphSpec(family, int(size)), "cpu").A._data
    indptr, indices = np.asarray(A.indptr), np.asarray(A.stored_indices)
    n, degree = len(indptr) - 1, np.diff(indptr)
    rank = np.empty(n, np.int64)
    rank[np.argsort(-degree, kind="stable")] = np.arange(n)
    rows, cols = np.repeat(rank, degree), rank[indices]
    print(f"{name}: {n:,} vertices, {len(indices):,} entries (built in "
          f"{time.perf_counter() - t0:.0f} s)")
    for T in TIERS:
        hub_col, hub_row = cols < T, rows < T
        neither = (~hub_row & ~hub_col).mean()
        print(f"  T={T:6d}: column a hub {hub_col.mean():.3f}, row a hub and column not "
              f"{(hub_row & ~hub_col).mean():.3f}, neither {neither:.3f}, both "
              f"{(hub_row & hub_col).mean():.3f}; split keeps "
              f"{1 - (hub_row & ~hub_col).mean():.3f}, gathers outside the tier "
              f"{neither:.3f} (degree-ordered pull {1 - hub_col.mean():.3f})", flush=True)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        shares(name)
