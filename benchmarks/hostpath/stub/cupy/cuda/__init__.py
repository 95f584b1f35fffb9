"""The stand-in's cupy.cuda: one device, one stream, nothing to wait for."""

from . import cub, driver, memory, runtime, thrust  # noqa: F401


class Stream:
    ptr = 0

    def synchronize(self):
        pass


_stream = Stream()


def get_current_stream():
    return _stream


def alloc_pinned_memory(nbytes):
    """Page-locked memory: ordinary host bytes, zeroed."""
    return bytearray(nbytes)


class Device:
    def __init__(self, device_id=0):
        self.id = device_id

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        pass

    def synchronize(self):
        pass

    @property
    def compute_capability(self):
        return "90"
