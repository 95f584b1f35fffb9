"""Does a user-defined semiring cost anything at run time?  A plus.times semiring built from
two Python functions (translated into the kernels' functors) against the built-in one: SpMV
on kron-22, FP32, iso and valued, medians of 30 runs each, results compared.  GPU only."""
import statistics, time
import numpy as np
import cupy as cp
import graphblast as gb
from graphblast import Vector, binary, generators, monoid, semiring
from graphblast.bench.primitives import _udf_plus, _udf_times
from graphblast.dtypes import FP32

plus = monoid.register_anonymous(binary.register_anonymous(_udf_plus), 0)
user = semiring.register_anonymous(plus, binary.register_anonymous(_udf_times))[FP32]
builtin = semiring.plus_times[FP32]
A = generators.kron(22, device="cuda")
for label in ("iso", "valued"):
    if label == "iso":
        M = A.dup(FP32)
    else:
        r, c, _ = A.to_coo()
        vals = np.random.default_rng(1).random(len(r)).astype(np.float32)
        M = gb.Matrix.from_coo(r, c, vals, nrows=A.nrows, ncols=A.ncols, device="cuda")
    x = Vector.from_dense(np.random.default_rng(2).random(A.nrows).astype(np.float32),
                          device="cuda")
    def run(sr):
        cp.cuda.Device().synchronize(); t0 = time.perf_counter()
        y = M.mxv(x, sr).new(); cp.cuda.Device().synchronize()
        return time.perf_counter() - t0, y
    t0 = time.perf_counter(); run(user); first = time.perf_counter() - t0
    run(builtin)
    tu, tb = [], []
    for _ in range(30):
        tu.append(run(user)[0]); tb.append(run(builtin)[0])
    yu, yb = run(user)[1], run(builtin)[1]
    same = np.allclose(yu.to_dense(fill_value=0), yb.to_dense(fill_value=0), rtol=1e-5)
    mu, mb = statistics.median(tu), statistics.median(tb)
    print(f"kron-22 {label} nvals={M.nvals}: udf {mu*1e3:.3f} ms, builtin {mb*1e3:.3f} ms, "
          f"udf/builtin {mu/mb:.3f}, agree {same}, udf first call (compile) {first:.2f} s")
