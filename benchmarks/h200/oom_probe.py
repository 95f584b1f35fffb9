"""Why does a 1 KiB pool limit not stop a 50,000-output mxv? (diagnostic, run once)"""
import cupy as cp
import numpy as np

import graphblast as gb

rng = np.random.default_rng(0)
n = 50_000
A = gb.Matrix.from_coo(rng.integers(0, n, 100_000), rng.integers(0, n, 100_000),
                       rng.random(100_000), nrows=n, ncols=n, dup_op=gb.binary.plus,
                       device="cuda")
v = gb.Vector.from_coo(np.arange(0, n, 7), 1.0, size=n, device="cuda")
w = A.mxv(v, gb.semiring.min_plus).new()
pool = cp.get_default_memory_pool()
cp.cuda.get_current_stream().synchronize()
pool.free_all_blocks()
print("used", pool.used_bytes(), "total", pool.total_bytes())
pool.set_limit(size=pool.used_bytes() + 1024)
print("limit", pool.get_limit())
try:
    x = cp.zeros(n, dtype=cp.uint8)
    print("cp.zeros(50000) did not raise; used now", pool.used_bytes())
    del x
except Exception as e:
    print("cp.zeros raised", type(e).__name__, e)
try:
    w << A.mxv(v, gb.semiring.min_plus)
    print("mxv did not raise")
except Exception as e:
    print("mxv raised", type(e).__name__, str(e)[:200])
