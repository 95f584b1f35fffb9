"""The packed bitmaps' kernels (kernels/mxm_packed.cuh) run on a machine without a GPU:
compiled as host C++ with g++ against packed_host/common.cuh, a stand-in for the kernels'
common.cuh whose warp is 32 std::threads meeting at every warp intrinsic (and
packed_host/mv_common.cuh, its block counters for that one warp), and checked by
packed_host/packed_host.cpp against plain loops (pull and push with their whole-warp rows
and heavy rows' chunks, the masked count, packing, unpacking, the scalar assign under a
packed mask; batches of 1, 63, 64, 65 and 130 rows).  A lane that skipped an intrinsic its
warp calls would leave the others waiting: the timeout reports it.  The GPU suite runs the
same kernels on the device (tests/core/test_diff_packed.py)."""

import os
import shutil
import subprocess

import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "packed_host")
KERNEL = os.path.join(os.path.dirname(HERE), "..", "..", "src", "graphblast", "backends",
                      "cuda", "kernels", "mxm_packed.cuh")

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not on PATH")


def _mask_value():
    """The text of common.cuh's mask_value (its braces balanced from its signature on)."""
    with open(os.path.join(os.path.dirname(KERNEL), "common.cuh")) as f:
        text = f.read()
    start = text.index("__device__ __forceinline__ bool mask_value(")
    depth, at = 0, text.index("{", start)
    for at in range(at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        if depth == 0:
            return text[start:at + 1] + "\n"
    raise AssertionError("common.cuh: mask_value's braces do not close")


def test_packed_kernels_on_the_host(tmp_path):
    for path in (KERNEL, os.path.join(HERE, "common.cuh"), os.path.join(HERE, "mv_common.cuh"),
                 os.path.join(HERE, "packed_host.cpp")):
        shutil.copy(path, tmp_path)  # the stand-in headers beside the kernel they serve
    (tmp_path / "mask_value.inc").write_text(_mask_value())
    exe = str(tmp_path / "packed_host")
    # warnings shown, not fatal: which ones -Wall gives depends on the compiler's version
    built = subprocess.run(["g++", "-std=c++20", "-O1", "-pthread", "-Wall", "-o", exe,
                            str(tmp_path / "packed_host.cpp")], capture_output=True, text=True)
    version = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout
    assert built.returncode == 0, version.splitlines()[0] + "\n" + built.stderr[-4000:]
    run = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith(", 0 failures"), run.stdout
