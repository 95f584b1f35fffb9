"""The compiled kernel launcher (backends/cuda/_launch.c): its argument packing on any
machine, and on a GPU the same answers as CuPy's launches."""

import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import graphblast as gb
from graphblast.backends import cuda_available

_launch = pytest.importorskip("graphblast.backends.cuda._launch")


class _Pointer:
    ptr = 0x7F00DEADBEEF00


class _DeviceArray:
    """What the launcher reads of a CuPy array: ``data.ptr``."""

    data = _Pointer()


def test_every_argument_kind_packs_into_its_slot():
    args = (None, np.int64(-3), np.int32(7), np.int8(-1), np.uint8(200), np.float64(1.5),
            np.float32(2.5), _DeviceArray(), 5, -(2**62), 2.0, True, False,
            np.uint64(2**64 - 1), np.int16(-2), np.asarray(9, dtype=np.int32))
    got = _launch.pack(args)
    assert len(got) == 8 * len(args)
    slots = [got[8 * i:8 * i + 8] for i in range(len(args))]
    assert slots[0] == bytes(8)
    assert struct.unpack("<q", slots[1])[0] == -3
    assert struct.unpack("<i", slots[2][:4])[0] == 7
    assert struct.unpack("<b", slots[3][:1])[0] == -1
    assert slots[4][0] == 200
    assert struct.unpack("<d", slots[5])[0] == 1.5
    assert struct.unpack("<f", slots[6][:4])[0] == 2.5
    assert struct.unpack("<Q", slots[7])[0] == _Pointer.ptr
    assert struct.unpack("<q", slots[8])[0] == 5          # a Python int is an int64
    assert struct.unpack("<q", slots[9])[0] == -(2**62)
    assert struct.unpack("<d", slots[10])[0] == 2.0       # a Python float is a double
    assert slots[11][0] == 1 and slots[12][0] == 0        # a Python bool is a C bool
    assert struct.unpack("<Q", slots[13])[0] == 2**64 - 1
    assert struct.unpack("<h", slots[14][:2])[0] == -2
    assert struct.unpack("<i", slots[15][:4])[0] == 9


def test_a_cooperative_launch_passes_the_launchers_slots(monkeypatch):
    """jit.run_cooperative (the persistent loop's one launch) hands CuPy's
    cuLaunchCooperativeKernel a parameter array pointing at the compiled launcher's slots,
    with the kernel's handle, the grid, the block and the stream (a stand-in CuPy here)."""
    import ctypes
    from types import SimpleNamespace

    from graphblast.backends.cuda import jit

    seen = {}

    def launch_cooperative(f, gx, gy, gz, bx, by, bz, shared, stream, params):
        pointers = (ctypes.c_void_p * 3).from_address(params)
        seen["slots"] = [ctypes.string_at(p, 8) for p in pointers]
        seen["launch"] = (f, gx, gy, gz, bx, by, bz, shared, stream)

    cupy = SimpleNamespace(cuda=SimpleNamespace(driver=SimpleNamespace(
        launchCooperativeKernel=launch_cooperative)))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(jit, "_current_stream", lambda: None)  # the launcher started already
    fn = SimpleNamespace(kernel=SimpleNamespace(ptr=1234))
    with gb.config.set(kernel_launch="auto"):
        jit.run_cooperative(fn, 264, 256, (_DeviceArray(), np.int64(-5), None),
                            SimpleNamespace(ptr=77))
    assert seen["launch"] == (1234, 264, 1, 1, 256, 1, 1, 0, 77)
    assert struct.unpack("<Q", seen["slots"][0])[0] == _Pointer.ptr
    assert struct.unpack("<q", seen["slots"][1])[0] == -5
    assert seen["slots"][2] == bytes(8)


class _BufferedDeviceArray(np.ndarray):
    """An array class that also exports the buffer protocol, as CuPy 13.5 and later do (they
    raise when a device array's buffer is taken): registered, it passes its pointer."""

    @property
    def data(self):
        return _Pointer()


def test_a_registered_array_type_is_passed_by_pointer_before_its_buffer():
    arr = np.zeros(3, dtype=np.int64).view(_BufferedDeviceArray)
    try:
        _launch.set_array_type(_BufferedDeviceArray)
        assert struct.unpack("<Q", _launch.pack((arr,)))[0] == _Pointer.ptr
    finally:
        try:  # the backend's own registration, where CuPy is present
            import cupy

            _launch.set_array_type(getattr(cupy._core.core, "_ndarray_base", cupy.ndarray))
        except ImportError:
            _launch.set_array_type(type(None))
    with pytest.raises(TypeError, match="class"):
        _launch.set_array_type(3)


@pytest.mark.parametrize("bad, message", [
    ("text", "str is not a device array"),
    (np.complex128(1j), "16 bytes"),
    (2**70, "too big"),
])
def test_unsupported_arguments_raise(bad, message):
    with pytest.raises((TypeError, OverflowError), match=message):
        _launch.pack((np.int64(1), bad))


def test_arguments_must_be_a_tuple_of_at_most_64():
    with pytest.raises(TypeError, match="tuple"):
        _launch.pack([1, 2])
    with pytest.raises(ValueError, match="at most 64"):
        _launch.pack((1,) * 65)
    assert _launch.pack(()) == b""


@pytest.mark.skipif(not cuda_available(), reason="no usable GPU")
@pytest.mark.parametrize("algorithm", ["bfs", "sssp", "pagerank", "cc", "tc"])
def test_driver_launches_give_cupys_answers(algorithm):
    from graphblast import algorithms, generators

    A = generators.kron(12, device="cuda")
    run = {"bfs": lambda: algorithms.bfs(A, 1),
           "sssp": lambda: algorithms.sssp(A, 1),
           "pagerank": lambda: algorithms.pagerank(A, tol=None, max_iter=10),
           "cc": lambda: algorithms.connected_components(A),
           "tc": lambda: algorithms.triangle_count(A)}[algorithm]
    with gb.config.set(kernel_launch="cupy"):
        expected = run()
    assert gb.config["kernel_launch"] == "auto"
    got = run()
    if algorithm == "tc":
        assert got == expected
    elif algorithm == "pagerank":
        assert got.isclose(expected, rel_tol=1e-12)
    else:
        assert got.isequal(expected)


def test_the_environment_chooses_the_launcher():
    """GRAPHBLAST_KERNEL_LAUNCH=cupy sets the default for a whole run; a bad value says so."""
    code = "import graphblast as gb; print(gb.config['kernel_launch'])"
    for value, expected in (("cupy", "cupy"), ("auto", "auto")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "GRAPHBLAST_KERNEL_LAUNCH": value})
        assert out.stdout.strip() == expected, out.stderr
    bad = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "GRAPHBLAST_KERNEL_LAUNCH": "fast"})
    assert bad.returncode != 0 and "GRAPHBLAST_KERNEL_LAUNCH must be one of" in bad.stderr
