"""Devices and their backends.

A device is ``"cpu"`` or ``"cuda"``/``"cuda:N"``.  The default is cuda when CuPy imports and a
GPU is usable, else cpu; ``GRAPHBLAST_DEVICE`` or ``gb.config.set(device=...)`` override it.
CuPy is imported only when a cuda device is first asked for.
"""

import functools
import os

from ..exceptions import InvalidValue


def parse_device(device):
    """Normalize a device spec to ``"cpu"`` or ``"cuda:N"``."""
    if isinstance(device, str):
        d = device.strip().lower()
        if d == "cpu":
            return "cpu"
        if d in ("cuda", "gpu"):
            return "cuda:0"
        if d.startswith("cuda:") and d[5:].isdigit():
            return f"cuda:{int(d[5:])}"
    raise InvalidValue(f"Unknown device {device!r}; use 'cpu', 'cuda' or 'cuda:N'.")


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
    if not cuda_available():
        raise InvalidValue(f"Device {device!r} was asked for but no usable GPU with CuPy was "
                           "found; install graphblast[cuda13] (or [cuda12]) on a machine with "
                           "an NVIDIA GPU, or use device='cpu'.")
    from .cuda import get_cuda_backend

    return get_cuda_backend(int(device.split(":")[1]))
