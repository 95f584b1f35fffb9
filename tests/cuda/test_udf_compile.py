"""User-defined operators compile into graphblast's kernels, on a machine without a GPU (CI):
functions covering every construct of the translated subset (ops/udf.py), registered for
every type, are built into the same programs the CUDA backend runs (apply, select,
element-wise, mxv pull and push, the dot and hash SpGEMM, the reductions and the atomic
scatter) by ``backends/cuda/programs.py``, and compiled with nvcc."""

import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")


def every_construct(x, y):
    """Arithmetic, floor division and modulo, powers, comparisons, logic, a conditional,
    casts, math functions, min/max/abs and a local assignment."""
    t = x * y - x // (y + 1) + x % 3
    if t > 10 and not (x == y):
        t = t - abs(x)
    return min(t, max(x, y)) + (x ** 2 if x < y else y) + float(x) / 2 + math.sqrt(abs(x))


def bits(x, y):
    return (x & y) | (x ^ 3) | (x << 2) | (y >> 1) | ~x


def ints_and_math(x):
    return int(x) + round(x) + math.floor(x) + bool(x) + np.float32(x) + math.exp(x) \
        - math.log1p(abs(x)) + (math.pi if math.isnan(x) else 0.5)


def numpy_ufuncs(x, y):
    """NumPy's ufuncs, each on the loop numba chooses for the operands' types."""
    t = np.add(x, y) - np.multiply(x, 2) + np.square(np.negative(y)) + np.floor_divide(x, 3) \
        + np.remainder(y, 5) + np.fmod(x, 4) + np.power(x, 2) + np.sign(x)
    return np.maximum(t, np.logaddexp(x, y)) + np.true_divide(x, 2) + np.hypot(x, y) \
        + np.logical_and(x, y) + np.greater(x, y) + np.reciprocal(x) + np.rint(x)


def index_fn(x, row, col, thunk):
    return x * 2 + row - col >= thunk


def plus(x, y):
    return x + y


def times(x, y):
    return x * y


def _programs():
    from graphblast.backends.cuda import programs
    from graphblast.dtypes import ALL_TYPES, BOOL
    from graphblast.ops import binary, indexunary, monoid, select, semiring, unary

    every = binary.register_anonymous(every_construct)
    bit = binary.register_anonymous(bits)
    ufuncs = binary.register_anonymous(numpy_ufuncs)
    unary_op = unary.register_anonymous(ints_and_math)
    iu = indexunary.register_anonymous(index_fn)
    sel = select.register_anonymous(index_fn)
    m_plus = monoid.register_anonymous(binary.register_anonymous(plus), 0)
    sr = semiring.register_anonymous(m_plus, binary.register_anonymous(times))
    progs = []
    for t in ALL_TYPES:
        for op in (every, bit, ufuncs):
            if t not in op:
                continue
            typed = op[t]
            z = typed.return_type
            progs += [programs.ewise(kind, typed, t, t, z, False)[1]()
                      for kind in ("mult", "add", "union")]
            progs.append(programs.map_op(typed, t, "right", True)[1]())
        if t in unary_op:
            progs.append(programs.map_op(unary_op[t], t, None, False)[1]())
        progs.append(programs.map_op(iu[t], t, "thunk", False)[1]())
        progs.append(programs.select_list(sel[t], t, "thunk")[1]())
        if t in sr and t is not BOOL:
            s = sr[t]
            m = s.monoid
            progs += [programs.pull(s, t, t, False, True)[1](),
                      programs.push(s, t, t, False, False, programs.PUSH_FOLD)[1](),
                      programs.dot(s, t, t, True)[1](),
                      programs.spgemm_hash(s, t, t)[1](),
                      programs.reduce_segments(m, t, True)[1](),
                      programs.reduce_all(m, t)[1](),
                      programs.scatter_atomic(m)[1]()]
    return progs


def test_user_operators_compile_into_the_kernels(tmp_path):
    from graphblast.backends.cuda import jit

    had_cupy = "cupy" in sys.modules
    progs = _programs()
    assert had_cupy or "cupy" not in sys.modules, "building the sources imported CuPy"
    path = os.path.join(tmp_path, "udf.cu")
    with open(path, "w", encoding="utf-8") as f:
        f.write(jit.translation_unit(progs, instantiate=True))
    cmd = [NVCC, "-arch=sm_90", "-std=c++17", "--ptx", "-diag-suppress", "177", "-o",
           path[:-3] + ".ptx", path]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-6000:]
    with open(path[:-3] + ".ptx", encoding="utf-8") as f:
        ptx = f.read()
    assert ".entry" in ptx
    # the user's functors are template arguments of the product kernels themselves (their
    # names are in the kernels' mangled names), not separate passes
    entries = [line for line in ptx.splitlines() if ".entry" in line]
    assert any("udf_times" in e and "pull" in e for e in entries)
    assert any("udf_times" in e and "spgemm" in e for e in entries)


def _kernel_compile_helpers():
    """tests/cuda/test_kernel_compile.py, for its NVRTC loader (the tests import by path)."""
    import importlib.util

    path = os.path.join(os.path.dirname(__file__), "test_kernel_compile.py")
    spec = importlib.util.spec_from_file_location("_kernel_compile_helpers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_user_operators_compile_with_nvrtc():
    """The same programs through NVRTC, the compiler CuPy uses at run time (no host headers:
    every function a translation emits must be one CUDA offers on the device)."""
    from graphblast.backends.cuda import jit

    helpers = _kernel_compile_helpers()
    lib = helpers._libnvrtc()
    if lib is None:
        if os.environ.get("CI"):
            pytest.fail("NVRTC is not installed: the test extra's nvidia-cuda-nvrtc is missing")
        pytest.skip("NVRTC is not installed (pip install nvidia-cuda-nvrtc)")
    progs = _programs()
    kernels = sorted({name for program in progs for name in program.kernels})
    status, log = helpers._nvrtc_compile(lib, "udf", jit.translation_unit(progs), kernels)
    assert status == 0, log[-6000:]


def test_untranslatable_function_names_the_construct():
    """Outside the subset the CPU has numba; the GPU's functor raises, naming the construct."""
    from graphblast.backends.cuda import codegen
    from graphblast.exceptions import UdfParseError
    from graphblast.ops import unary

    def with_loop(x):
        total = 0
        for k in range(3):
            total += x
        return total

    op = unary.register_anonymous(with_loop)
    assert op["INT32"].np_func(np.array([1, 2], np.int32)).tolist() == [3, 6]
    with pytest.raises(UdfParseError, match="the statement For"):
        codegen.functor_source(op["INT32"])


def test_user_plus_times_is_the_builtin_program():
    """A user-defined plus.times semiring (the benchmark's ``udf_mxv_vs_builtin``) compiles to
    the built-in one's SpMV program but for its names: same kernels, same functor bodies."""
    import re

    from graphblast.backends.cuda import programs
    from graphblast.bench.primitives import _udf_plus, _udf_times
    from graphblast.dtypes import FP32
    from graphblast.ops import binary, monoid, semiring

    plus = monoid.register_anonymous(binary.register_anonymous(_udf_plus), 0)
    user = semiring.register_anonymous(plus, binary.register_anonymous(_udf_times))[FP32]

    def source(s):
        text = programs.pull(s, FP32, FP32, False, True)[1]().source()
        text = re.sub(r"udf__udf_(plus|times)_[0-9a-f]+", r"\1", text)
        return re.sub(r"\(\((x [+*] y)\)\)", r"(\1)", text)

    assert source(user) == source(semiring.plus_times[FP32])
