"""How fast do the generators build a graph on the GPU, how much memory do they take, and do
they agree with the CPU?  Time to a Matrix, peak pool memory, CPU/GPU agreement.

Run by ``benchmarks/gpu/run.sh gen`` (output: benchmarks/results/h200/generators.txt).
"""

import time

import cupy as cp
import numpy as np

from graphblast import generators


def same_as_cpu(make):
    a = make("cpu")._csr()
    b = make("cuda")._csr()
    return all(np.array_equal(np.asarray(x), cp.asnumpy(y))
               for x, y in ((a.indptr, b.indptr), (a.indices, b.indices), (a.values, b.values)))


def timed(label, make):
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    A = make("cuda")
    cp.cuda.Device().synchronize()
    seconds = time.perf_counter() - t
    peak = pool.total_bytes() / 2**30
    print(f"{label:<28} {A.nvals:>14,} entries  {seconds:7.2f} s  pool {peak:6.1f} GiB",
          flush=True)
    del A
    pool.free_all_blocks()


print("CPU and GPU give the same CSR arrays:")
for label, make in [
    ("kron(16)", lambda d: generators.kron(16, device=d)),
    ("urand(16, weighted)", lambda d: generators.urand(16, weighted=True, device=d)),
    ("graph500(16)", lambda d: generators.graph500(16, device=d)),
    ("rgg(2**16)", lambda d: generators.rgg(1 << 16, device=d)),
    ("grid2d(300, 200)", lambda d: generators.grid2d(300, 200, device=d)),
    ("erdos_renyi(5000, m=40000)", lambda d: generators.erdos_renyi(5000, m=40000, device=d)),
]:
    print(f"  {label:<28} {same_as_cpu(make)}", flush=True)

print("\nTime to a Matrix on the GPU (CSR on the device, int64 indices):")
timed("kron(10) (warm-up)", lambda d: generators.kron(10, device=d))
for scale in (20, 22, 24):
    timed(f"kron({scale})", lambda d, s=scale: generators.kron(s, device=d))
timed("urand(24)", lambda d: generators.urand(24, device=d))
timed("graph500(24)", lambda d: generators.graph500(24, device=d))
timed("rgg(2**24)", lambda d: generators.rgg(1 << 24, device=d))
timed("kron(27)", lambda d: generators.kron(27, device=d))
