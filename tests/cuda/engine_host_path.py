"""Host-side decisions of the CUDA backend checked without a GPU: CuPy replaced by
benchmarks/hostpath's NumPy stand-in (its array operations run in NumPy, its kernels do
nothing), so what is checked is what the Python decides: the formats vectors come in and
what the direction planner keeps with a matrix.  Run by
test_engine_host_path.py in a process of its own (the stand-in replaces ``cupy``).

    python tests/cuda/engine_host_path.py      # prints one JSON line
"""

import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "hostpath", "stub"))
sys.path.insert(0, os.path.join(ROOT, "src"))
os.environ["GRAPHBLAST_KERNEL_LAUNCH"] = "cupy"

import numpy as np  # noqa: E402

import graphblast as gb  # noqa: E402
from graphblast import Vector, binary, semiring  # noqa: E402
from graphblast.dtypes import BOOL, FP64  # noqa: E402


def _format(v):
    return type(v._data).__name__


def main():
    out = {}
    n = 5000
    out["from_dense"] = _format(Vector.from_dense(np.arange(n, dtype=float), device="cuda"))
    out["from_dense missing"] = _format(Vector.from_dense(
        np.array([1.0, 0.0, 2.0]), missing_value=0.0, device="cuda"))
    out["from_coo subset"] = _format(Vector.from_coo([0, 3], [1.0, 2.0], size=n,
                                                    device="cuda"))
    full = Vector.from_scalar(0.0, n, FP64, device="cuda")
    full(binary.plus) << Vector.from_coo([0, 3], [1.0, 2.0], size=n, device="cuda")
    out["full accumulated"] = _format(full)
    # a square matrix that is not symmetric: a path 0 -> 1 -> ... -> n-1, row 7 longer
    rows = np.r_[np.arange(n - 1), [7, 7]]
    cols = np.r_[np.arange(1, n), [100, 200]]
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n, device="cpu").to_device("cuda")
    ones = Vector.from_scalar(1.0, n, FP64, device="cuda")
    # (the stand-in's matrix holds nothing: its building kernels do not run; the degrees'
    # values are checked on both devices by tests/core/test_degree_products.py)
    out["degrees"] = _format(A.mxv(ones, semiring.plus_pair[FP64]).new())
    q = Vector.from_coo([5], True, BOOL, size=n, device="cuda")
    any_pair = semiring.any_pair[BOOL]
    for _ in range(4):  # a transposed operand's product brings a new swapped semiring
        A.T.mxv(q, any_pair).new()
        q.vxm(A, any_pair).new()
    out["plans after vxm"] = len(A._data._plans)
    with gb.config.set(direction="pull"):  # builds the transpose that vxm's pull reads
        q.vxm(A, any_pair).new()
    A.mxv(q, any_pair).new()
    q.vxm(A, any_pair).new()
    keys = sorted((k[3], k[4]) for k in A._data._plans)
    out["plans by pull matrix"] = [list(k) for k in keys]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
