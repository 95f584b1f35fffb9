"""Out of host memory is graphblast's OutOfMemory, from the host's guard (_memory.host_guarded,
around every CPU primitive and the methods that copy an object to the host): it names the
operation, the bytes asked for and the bytes available; the objects involved are unchanged
and the next call works.  (The GPU's sources,
CuPy's pool, CUB/Thrust and cuSPARSE, are tested in tests/cuda/test_cuda_backend.py.)"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import graphblast as gb
from graphblast.exceptions import OutOfMemory

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the address-space limit is Linux's")

# A process limited to what it maps now plus 512 MiB: every allocation below asks for GiBs,
# so NumPy's malloc really fails (no overcommit can hide it).
_CHILD = textwrap.dedent("""
    import resource
    import numpy as np
    import graphblast as gb
    from graphblast.exceptions import OutOfMemory

    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=3, ncols=3,
                           device="cpu")
    v = gb.Vector.from_coo([0, 2], [1.0, 5.0], size=3, device="cpu")
    before_A, before_v = A.dup(), v.dup()
    expected = A.mxm(A, gb.semiring.plus_times).new()
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + (512 << 20), resource.RLIM_INFINITY))
    big = 1 << 31
    cases = {
        "vector_full": lambda: gb.Vector.from_scalar(1.0, big, gb.dtypes.FP64, device="cpu"),
        "matrix_full": lambda: gb.Matrix.from_scalar(1, 1 << 16, 1 << 16, gb.dtypes.INT64,
                                                     device="cpu"),
        "to_dense": lambda: gb.Vector(gb.dtypes.FP64, big, device="cpu").to_dense(0.0),
    }
    for name, call in cases.items():
        try:
            call()
            print(name, "no error")
        except OutOfMemory as e:
            print(name, "OutOfMemory", isinstance(e, MemoryError), str(e))
        except BaseException as e:
            print(name, "other", type(e).__name__, e)
    print("unchanged", A.isequal(before_A) and v.isequal(before_v))
    print("next call works", A.mxm(A, gb.semiring.plus_times).new().isequal(expected))
""")


def test_out_of_host_memory_is_out_of_memory():
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = {line.split()[0]: line for line in out.stdout.splitlines()}
    for name in ("vector_full", "matrix_full", "to_dense"):
        line = lines[name]
        assert "OutOfMemory True" in line, line
        assert f"in {name} on cpu" in line and "requested" in line and "available" in line
        assert any(ch.isdigit() for ch in line.split("requested")[1]), line
    assert lines["unchanged"].endswith("True")
    assert lines["next"].endswith("True")


def test_a_memory_error_inside_a_primitive_is_translated(monkeypatch):
    """Whatever library inside a primitive runs out (SciPy raises a bare MemoryError), the
    caller gets OutOfMemory, and the operands are unchanged."""
    from graphblast._memory import host_guarded
    from graphblast.backends import cpu

    u = gb.Vector.from_coo([0, 4], [1, 2], size=5, device="cpu")
    before = u.dup()

    def fail(*args, **kwargs):
        raise MemoryError()
    monkeypatch.setattr(cpu.CPUBackend, "ewise_add",
                        staticmethod(host_guarded(fail, "ewise_add")))
    with pytest.raises(OutOfMemory, match="ewise_add on cpu: requested an allocation"):
        u.ewise_add(u, gb.binary.plus).new()
    assert u.isequal(before)
    np.testing.assert_array_equal(u.to_dense(0), [1, 0, 0, 0, 2])
