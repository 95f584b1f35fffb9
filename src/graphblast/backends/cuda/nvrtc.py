"""NVRTC through ctypes, without CuPy or a GPU: the kernel catalogue's compiler.

The catalogue (``catalogue_build``) compiles with the library CuPy compiles with at run time,
so a shipped kernel and one compiled on a miss come from the same front end with the same
options, and NVRTC's *lowered names* (``nvrtcGetLoweredName``: the mangled symbol of each
name expression such as ``gbk_pull<...>``) say exactly which symbol of a cubin is which
kernel.  NVRTC needs no driver: it runs on a machine without a GPU (CI).

The library is looked for where CuPy's ``cuda.pathfinder`` finds it, in the NVIDIA wheels on
``sys.path`` (``nvidia-cuda-nvrtc``), beside ``nvcc`` and under ``CUDA_PATH``/``CUDA_HOME``,
then by the system's loader; ``GRAPHBLAST_NVRTC`` names the library file outright.
"""

import ctypes
import ctypes.util
import glob
import os
import shutil
import sys

__all__ = ["find", "Compiler", "CompileError"]


class CompileError(RuntimeError):
    """NVRTC refused a translation unit; the message carries the end of its log."""


def _candidates():
    explicit = os.environ.get("GRAPHBLAST_NVRTC")
    if explicit:
        yield explicit
        return
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        yield load_nvidia_dynamic_lib("nvrtc").abs_path
    except Exception:  # noqa: BLE001 - not installed, or it found nothing
        pass
    for base in sys.path:
        for sub in ("nvidia/cu13/lib", "nvidia/cu12/lib", "nvidia/cuda_nvrtc/lib"):
            yield from sorted(glob.glob(os.path.join(base, sub, "libnvrtc.so*")))
    roots = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    for root in filter(None, roots):
        for sub in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
            yield from sorted(glob.glob(os.path.join(root, sub, "libnvrtc.so*")))
    for name in ("libnvrtc.so.13", "libnvrtc.so.12", ctypes.util.find_library("nvrtc")):
        if name:
            yield name


def _load(path):
    folder = os.path.dirname(path)
    if folder:  # the builtins library beside it, loaded first so that NVRTC finds it
        for builtins in sorted(glob.glob(os.path.join(folder, "libnvrtc-builtins.so*"))):
            ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(path)
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return lib


_found = []


def find():
    """A :class:`Compiler` over the first NVRTC library that loads, or None."""
    if _found:
        return _found[0]
    compiler = None
    for path in _candidates():
        if path.endswith((".alt.so", ".so.debug")):
            continue
        try:
            compiler = Compiler(_load(path), path)
            break
        except (OSError, AttributeError):
            continue
    _found.append(compiler)
    return compiler


class Compiler:
    """One loaded NVRTC library; :meth:`compile` is safe to call from several threads (each
    call is its own program, and ctypes releases the GIL while NVRTC works)."""

    def __init__(self, lib, path):
        self.lib = lib
        self.path = path
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        self.version = (major.value, minor.value)

    def _check(self, status, what):
        if status:
            message = self.lib.nvrtcGetErrorString(status)
            raise CompileError(f"{what} failed: {message.decode() if message else status}")

    def compile(self, source, name, options, name_expressions, target):
        """Compile ``source`` for ``target`` ("sm_90": a cubin, "compute_100": PTX);
        ``(binary bytes, {name expression: lowered name})``."""
        lib = self.lib
        prog = ctypes.c_void_p()
        self._check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(),
                                           f"{name}.cu".encode(), 0, None, None),
                    "nvrtcCreateProgram")
        try:
            for expr in name_expressions:
                self._check(lib.nvrtcAddNameExpression(prog, expr.encode()),
                            "nvrtcAddNameExpression")
            opts = [o.encode() for o in (*options, f"-arch={target}")]
            status = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(
                *opts))
            if status:
                size = ctypes.c_size_t()
                lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
                log = ctypes.create_string_buffer(size.value)
                lib.nvrtcGetProgramLog(prog, log)
                raise CompileError(f"NVRTC could not compile {name} for {target}:\n"
                                   f"{log.value.decode(errors='replace')[-4000:]}")
            kind = "CUBIN" if target.startswith("sm_") else "PTX"
            size = ctypes.c_size_t()
            self._check(getattr(lib, f"nvrtcGet{kind}Size")(prog, ctypes.byref(size)),
                        f"nvrtcGet{kind}Size")
            buf = ctypes.create_string_buffer(size.value)
            self._check(getattr(lib, f"nvrtcGet{kind}")(prog, buf), f"nvrtcGet{kind}")
            lowered = {}
            for expr in name_expressions:
                out = ctypes.c_char_p()
                self._check(lib.nvrtcGetLoweredName(prog, expr.encode(), ctypes.byref(out)),
                            "nvrtcGetLoweredName")
                lowered[expr] = out.value.decode()
            data = buf.raw[:size.value]
            return (data.rstrip(b"\0") if kind == "PTX" else data), lowered
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))
