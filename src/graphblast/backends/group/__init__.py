"""Device groups: one Matrix or Vector partitioned over several devices (docs/distributed.md).

``device="cuda:0-3"`` (or ``("cuda:0", "cuda:2")``) places an object on several GPUs of one
host, driven by one process and exchanging through NCCL; ``device="cpu:0-3"`` places it on four
partitions of the CPU in one process, exchanging by NumPy concatenation - the same partitioned
code, which is how CI tests it.  Rows (and vector positions) are split in contiguous blocks,
each computed on by its member's own backend; see ``backend.py``.

:func:`group_backend` gives the one backend object of a group; its ``comm.traffic()`` says what
each primitive has moved (``comm.reset()`` starts the count again).
"""

import functools

from ...exceptions import InvalidValue
from .devices import members_of

__all__ = ["group_backend", "place"]


@functools.lru_cache(maxsize=None)
def group_backend(name):
    """The backend of the device group ``name`` (a normalized group name)."""
    from .backend import GroupBackend
    from .comm import NumpyCommunicator

    kind, ids = members_of(name)
    if kind == "cpu":
        from ..cpu import backend as cpu

        return GroupBackend(name, [cpu] * len(ids), NumpyCommunicator(name, len(ids)))
    from .. import cuda_available

    if not cuda_available():
        raise InvalidValue(f"Device group {name!r} was asked for but no usable GPU with CuPy "
                           "was found; use 'cpu:0-3' (CPU partitions) to run the partitioned "
                           "code without GPUs.")
    import cupy

    count = cupy.cuda.runtime.getDeviceCount()
    missing = [i for i in ids if i >= count]
    if missing:
        raise InvalidValue(f"Device group {name!r} names GPU {missing[0]}, but this machine "
                           f"has {count} (cuda:0 to cuda:{count - 1}).")
    from ..cuda import get_cuda_backend
    from .nccl import NcclCommunicator

    return GroupBackend(name, [get_cuda_backend(i) for i in ids], NcclCommunicator(name, ids))


def place(matrix, device):
    """``matrix`` on the device group ``device``, its name and symmetry kept: what
    ``matrix.to_device(device)`` gives, but a matrix on a GPU placed on GPUs is copied GPU to
    GPU, and a compact one stays compact (``to_device`` goes through host memory, which a
    graph of billions of entries makes slow).  Any other pair of devices is ``to_device``."""
    from .. import get_backend, parse_device
    from .devices import is_group_name
    from .storage import PartitionedCSR

    dev = parse_device(device)
    if dev == matrix.device or not is_group_name(dev) or isinstance(matrix._data,
                                                                     PartitionedCSR):
        return matrix.to_device(dev)
    return type(matrix)._from_data(matrix._data, get_backend(dev), dev, matrix.name)
