"""A NumPy stand-in for CuPy, for timing the CUDA backend's host path on a machine without a
GPU (benchmarks/hostpath/hostpath.py): arrays are NumPy arrays, every kernel is a no-op and
every driver call returns at once.  What it times is graphblast's Python and the calls it
makes, not CuPy's own costs (an allocation, a launch: see benchmarks/profiling/call_overhead.py for
those on the H200).  Results are garbage; only the path is real."""

import ctypes
import os

import numpy as _np

# graphblast's kernel catalogue is not loaded through the stand-in: every kernel is its
# RawModule's (which checks each launch's argument count against the kernel's source)
os.environ.setdefault("GRAPHBLAST_CATALOGUE", "0")
from numpy import bool_, float32, float64, int8, int16, int32, int64, uint8, uint16  # noqa: F401
from numpy import uint32, uint64  # noqa: F401


class _Pointer:
    """What ``ndarray.data`` gives in CuPy: a device pointer (here the host address)."""

    __slots__ = ("ptr", "_array")

    def __init__(self, array):
        self._array = array
        self.ptr = array.ctypes.data if array.size else 0

    def memset_async(self, value, size, stream=None):
        ctypes.memset(self.ptr, value, size)

    def copy_from_device_async(self, src, size, stream=None):
        # src: a _Pointer, or (a NumPy scalar's .data, where CuPy gives a 0-d array) a buffer
        if size:
            at = src.ptr if hasattr(src, "ptr") else _np.frombuffer(src, _np.uint8).ctypes.data
            ctypes.memmove(self.ptr, at, size)


class ndarray(_np.ndarray):
    def __getitem__(self, key):
        out = super().__getitem__(key)
        # CuPy indexes down to a 0-d array (with .get()), never to a NumPy scalar
        return _np.asarray(out).view(ndarray) if isinstance(out, _np.generic) else out

    @property
    def data(self):
        return _Pointer(self)

    def get(self, out=None, stream=None):
        if out is None:
            return _np.asarray(self).copy()
        out[...] = self
        return out

    def set(self, array, stream=None):
        self[...] = array


def _wrap(f):
    def wrapped(*args, **kwargs):
        out = f(*args, **kwargs)
        return out.view(ndarray) if isinstance(out, _np.ndarray) else out
    wrapped.__name__ = f.__name__
    return wrapped


# Small arrays are zeroed, since no kernel writes the counts the host reads back; large ones
# are left uninitialized once CHEAP_EMPTY is set (after a warm-up has built the matrices'
# traversal views, which read sizes back), as CuPy's allocation does not grow with the size.
CHEAP_EMPTY = False


def empty(shape, dtype=float, order="C"):
    size = shape if isinstance(shape, int) else int(_np.prod(shape))
    make = _np.empty if CHEAP_EMPTY and size > 4096 else _np.zeros
    return make(shape, dtype, order).view(ndarray)


empty_like = _wrap(_np.zeros_like)
for _name in ("zeros", "ones", "full", "arange", "asarray", "array", "concatenate", "stack",
              "argsort", "cumsum", "searchsorted", "flatnonzero", "where", "minimum",
              "maximum", "diff", "isnan", "zeros_like", "unique", "sort", "nonzero", "repeat",
              "bincount", "count_nonzero", "all", "any"):
    globals()[_name] = _wrap(getattr(_np, _name))


def asnumpy(a, out=None, stream=None):
    return _np.asarray(a)


def may_share_memory(a, b):
    return _np.may_share_memory(a, b)


class _Pool:
    def free_all_blocks(self):
        pass

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def set_limit(self, **kwargs):
        pass

    def get_limit(self):
        return 0


_pool = _Pool()


def get_default_memory_pool():
    return _pool


def get_default_pinned_memory_pool():
    return _pool


def _parameter_count(code, name):
    """The number of parameters of kernel ``name`` (a template's name expression, such as
    ``gbk_pull<...>``) as its ``__global__`` definition in ``code`` declares them, or None
    when no definition is found."""
    import re

    base = name.split("<", 1)[0].strip()
    for m in re.finditer(r"\b" + re.escape(base) + r"\s*\(", code or ""):
        if "__global__" not in code[max(0, m.start() - 120):m.start()]:
            continue
        depth, angle, commas, i = 1, 0, 0, m.end()
        body = []
        while depth:
            c = code[i]
            depth += (c == "(") - (c == ")")
            angle += (c == "<") - (c == ">")
            if depth == 1 and angle == 0 and c == ",":
                commas += 1
            body.append(c)
            i += 1
        return commas + 1 if "".join(body[:-1]).strip() else 0
    return None


class _Function:
    """A compiled kernel: calling it does nothing but check that it gets as many arguments
    as its definition declares (a launch site not updated with a kernel's signature fails
    here, on a machine without a GPU, instead of reading garbage on one)."""

    def __init__(self, name, nparams=None):
        self.name = name
        self.nparams = nparams
        self.kernel = _Handle(self)

    def __call__(self, grid, block, args, **kwargs):
        if self.nparams is not None and len(args) != self.nparams:
            raise TypeError(f"kernel {self.name.split('<', 1)[0]} takes {self.nparams} "
                            f"arguments, launched with {len(args)}")


class _Handle:
    """A kernel's ``.kernel`` (CuPy's cupy.cuda.function.Function): its handle ``ptr``, and
    a launch as the Function makes it (a cooperative one too), checked as above."""

    def __init__(self, fn):
        self.fn = fn
        self.ptr = id(fn)

    def __call__(self, grid, block, args, shared_mem=0, stream=None,
                 enable_cooperative_groups=False):
        self.fn(grid, block, args)


class RawModule:
    def __init__(self, code=None, options=(), name_expressions=(), **kwargs):
        self.code = code

    def get_function(self, name):
        return _Function(name, _parameter_count(self.code, name))


class RawKernel(_Function):
    def __init__(self, code, name, **kwargs):
        super().__init__(name, _parameter_count(code, name))


from . import _core, cuda  # noqa: E402,F401
