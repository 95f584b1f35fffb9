"""How fast does graphblast.io.mmread read Matrix Market files, against scipy.io.mmread?
Files of 90-180 MB.

    python benchmarks/files/mmread_speed.py DIR [--write]

``--write`` first makes the files in DIR with ``scipy.io.mmwrite`` (random matrices, seed 1):
a pattern file of 12M entries, an integer and a real file of 5M entries (row-major), and the
integer one in column-major order.  Each time is the best of 5 runs.  "parser" is the reader
alone (``graphblast.io._mmio.read_coo``), "mmread" includes building the CSR Matrix, which
scipy.io.mmread (a COO result) does not do.
"""

import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import graphblast as gb
from graphblast.io import _mmio


def write(folder):
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(1)

    def rand(n, nnz):
        r, c = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
        return sp.coo_matrix((np.ones(nnz), (r, c)), shape=(n, n)).tocsr().tocoo()

    A = rand(2_000_000, 12_000_000)
    scipy.io.mmwrite(os.path.join(folder, "pattern.mtx"), A.astype(bool), field="pattern")
    B = rand(1_000_000, 5_000_000)
    B.data = rng.integers(-1000, 1000, B.nnz).astype(np.int64)
    scipy.io.mmwrite(os.path.join(folder, "integer.mtx"), B, field="integer")
    scipy.io.mmwrite(os.path.join(folder, "integer_colmajor.mtx"), B.tocsc().tocoo(),
                     field="integer")
    B.data = rng.standard_normal(B.nnz)
    scipy.io.mmwrite(os.path.join(folder, "real.mtx"), B)


def best(f, k=5):
    times = []
    for _ in range(k):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    folder = sys.argv[1]
    if "--write" in sys.argv:
        write(folder)
    print(f"{os.cpu_count()} CPUs, NumPy {np.__version__}, SciPy {scipy.__version__}")
    print("| file | size | scipy.io.mmread | graphblast parser | graphblast mmread | "
          "mmread / scipy |")
    print("|---|---|---|---|---|---|")
    for name in ("pattern.mtx", "integer.mtx", "integer_colmajor.mtx", "real.mtx"):
        path = os.path.join(folder, name)
        s = best(lambda p=path: scipy.io.mmread(p))
        p = best(lambda p=path: _mmio.read_coo(p))
        m = best(lambda p=path: gb.io.mmread(p, device="cpu"))
        size = os.path.getsize(path) / 1e6
        print(f"| {name} | {size:.0f} MB | {s:.3f} s | {p:.3f} s | {m:.3f} s | {m / s:.2f}x |",
              flush=True)


if __name__ == "__main__":
    main()
