"""What the generators need to know about a device: its array module and its free memory.

Every generator computes with an array module ``xp`` (NumPy on the CPU, CuPy on a GPU; the
same code for both) and checks its memory estimate before allocating anything large.
"""

import contextlib
from collections import namedtuple

import numpy as np

from .. import _memory
from ..backends import default_device, parse_device
from ..exceptions import InvalidValue

#: CSR arrays as the generators build them, on the device's array module.  ``values`` is
#: ``None`` for a pattern-only (unweighted) graph.
CSR = namedtuple("CSR", ["indptr", "indices", "values", "nrows", "ncols"])

_GIB = float(1 << 30)


def resolve(device):
    """The normalized device string for a spec; ``None`` is the default device."""
    return default_device() if device is None else parse_device(device)


@contextlib.contextmanager
def on(device):
    """``(device, xp)`` for a device spec, with that GPU current inside the block.

    Generators allocate inside this block, so ``"cuda:1"`` builds on GPU 1 without changing
    the caller's current device.
    """
    dev = resolve(device)
    if dev == "cpu":
        yield dev, np
        return
    try:
        import cupy
    except ImportError:
        raise InvalidValue(f"device={device!r} needs CuPy; install graphblast[cuda13] (or "
                           "[cuda12]) on a machine with an NVIDIA GPU, or use "
                           "device='cpu'.") from None
    with cupy.cuda.Device(int(dev.split(":")[1])):
        yield dev, cupy


def available_bytes(xp):
    """Bytes that new arrays of ``xp`` can take now (see ``_memory.available_bytes``); no
    limit where the platform does not tell."""
    have = _memory.available_bytes(xp)
    return 1 << 62 if have is None else have


def check_memory(xp, needed, what):
    """Refuse, before allocating, a graph whose estimated footprint exceeds free memory:
    OutOfMemory with the estimate (see ``_memory.check_fits``).

    Parameters
    ----------
    xp : module
        The array module of the target device.
    needed : int
        Estimated peak bytes of the generator.
    what : str
        The call, for the message (for example ``"kron(scale=30)"``).
    """
    _memory.check_fits(needed, available_bytes(xp), "host memory" if xp is np else
                       "GPU memory", what, "ask for a smaller graph (or free memory, or use a "
                       "device with more)")


def to_host(xp, a):
    """A NumPy copy (or the array itself) of a small array of ``xp``."""
    return a if xp is np else xp.asnumpy(a)


def to_matrix(csr, dtype, device, name=None, symmetric=False):
    """A graphblast Matrix wrapping the generator's CSR arrays, where they are; ``symmetric``:
    the generator made A equal to A' (values too), so the Matrix is its own transpose.

    The generators build canonical CSR (rows sorted, no duplicates, indices in range), so the
    arrays are handed to the Matrix without the validation (and, on a GPU, the round trip
    through host memory) that ``Matrix.from_csr`` gives untrusted input.  A compact graph
    (``gb.config["compact_graphs"]``: on GPUs by default) keeps 32-bit column indices and,
    for a pattern graph, no value array (every entry is 1 in ``dtype``: ``True`` for BOOL);
    otherwise the indices are widened to the backends' int64 and a pattern graph gets its
    values here.  The memory for what is made is checked first.
    """
    from ..backends.base import INT32_MAX
    from ..config import config
    from ..io._convert import matrix_from_valid_csr

    if isinstance(csr.indices, np.ndarray):
        xp = np
    else:
        import cupy as xp
    policy = config["compact_graphs"]
    compact = policy == "always" or (policy == "auto" and xp is not np)
    narrow = compact and csr.ncols <= INT32_MAX
    iso = compact and csr.values is None
    nvals = int(csr.indices.shape[0])
    index_type = xp.int32 if narrow else xp.int64
    needed = (nvals * np.dtype(index_type).itemsize if csr.indices.dtype != index_type else 0) \
        + (8 * (csr.nrows + 1) if csr.indptr.dtype != np.int64 else 0)
    if not iso and (csr.values is None or csr.values.dtype != dtype.np_type):
        needed += nvals * dtype.np_type.itemsize
    check_memory(xp, needed, f"a {csr.nrows}-vertex graph with {nvals} entries as a Matrix")
    indptr = csr.indptr.astype(xp.int64, copy=False)
    indices = csr.indices.astype(index_type, copy=False)
    if iso:
        values = None
    else:
        values = xp.ones(nvals, dtype=dtype.np_type) if csr.values is None else csr.values
    A = matrix_from_valid_csr(csr.nrows, csr.ncols, dtype, indptr, indices, values, name,
                              device, iso_value=dtype.np_type.type(1) if iso else None)
    A._data.symmetric = symmetric
    return A


def launch(name, n, args):
    """Run ``gbk_<name>`` of the CUDA backend's ``kernels/generators.cuh`` over ``n`` items
    on the current GPU: a kernel of the catalogue, where CuPy's element-wise steps would each
    be compiled on first use."""
    from ..backends.cuda import jit, programs

    if n:
        jit.launch(jit.compiled(programs.generator_kernel, name).fns[0], n, args)
