"""Devices and their backends.

A device is ``"cpu"`` or ``"cuda"``/``"cuda:N"``, or a device group (docs/distributed.md):
``"cuda:0-3"``, ``"cuda:0,2"`` or ``("cuda:0", "cuda:2")`` for GPUs, ``"cpu:0-3"`` for that many
partitions of the CPU in one process; a group of one is that device.  The default is cuda when
CuPy imports and a GPU is usable, else cpu; ``GRAPHBLAST_DEVICE`` or
``gb.config.set(device=...)`` override it.  CuPy is imported only when a cuda device is first
asked for.
"""

import functools
import os

from ..exceptions import InvalidValue


def parse_device(device):
    """Normalize a device spec to ``"cpu"``, ``"cuda:N"`` or a group's name (``"cuda:0-3"``)."""
    if isinstance(device, str):
        d = device.strip().lower()
        if d == "cpu":
            return "cpu"
        if d in ("cuda", "gpu"):
            return "cuda:0"
        if d.startswith("cuda:") and d[5:].isdigit():
            return f"cuda:{int(d[5:])}"
    if isinstance(device, (list, tuple)) or (isinstance(device, str) and ":" in device):
        from .group.devices import parse_group

        return parse_group(device)
    raise InvalidValue(f"Unknown device {device!r}; use 'cpu', 'cuda', 'cuda:N' or a group "
                       "such as 'cuda:0-3' or 'cpu:0-3'.")


@functools.lru_cache(maxsize=None)
def cuda_available():
    """Whether CuPy imports and at least one GPU is usable."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - any failure means "no usable GPU"
        return False


def default_device():
    from ..config import config

    dev = config["device"] or os.environ.get("GRAPHBLAST_DEVICE")
    if dev:
        return parse_device(dev)
    return "cuda:0" if cuda_available() else "cpu"


def get_backend(device):
    """The backend object for a normalized device string."""
    if device == "cpu":
        from .cpu import backend

        return backend
    from .group.devices import is_group_name

    if is_group_name(device):
        from .group import group_backend

        return group_backend(device)
    if not cuda_available():
        raise InvalidValue(f"Device {device!r} was asked for but no usable GPU with CuPy was "
                           "found; install graphblast[cuda13] (or [cuda12]) on a machine with "
                           "an NVIDIA GPU, or use device='cpu'.")
    from .cuda import get_cuda_backend

    return get_cuda_backend(int(device.split(":")[1]))
