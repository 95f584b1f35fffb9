"""The spelling of device groups, and the device each member of a group computes on.

A group is written ``"<kind>:<ids>"``, the ids a comma-separated list of numbers and ranges
(``"cuda:0-3"``, ``"cuda:0,2"``, ``"cuda:0-1,4"``), or as a list of single devices
(``("cuda:0", "cuda:2")``).  ``kind`` is ``cuda`` (one GPU per member) or ``cpu``: ``"cpu:0-3"``
is four partitions of the CPU in one process, which run the same partitioned code as GPUs do
(the numbers only name the partitions).  The normalized name lists the ids in increasing order,
runs as ranges: ``("cuda:2", "cuda:0")`` is ``"cuda:0,2"``, ``"cuda:3,0-2"`` is ``"cuda:0-3"``.
A group of one is that device: ``"cuda:1-1"`` is ``"cuda:1"``, ``"cpu:0"`` is ``"cpu"``.
"""

import contextlib
import re

from ...exceptions import InvalidValue

KINDS = ("cpu", "cuda")

# Partitions of the CPU run one after the other in one process: more than this many is a
# mistake (a typo in a range), not a configuration.
MAX_CPU_PARTITIONS = 256

_ITEM = re.compile(r"^(\d+)(?:-(\d+))?$")


def _fail(device, why):
    raise InvalidValue(f"Bad device group {device!r}: {why}. Write a group as 'cuda:0-3', "
                       "'cuda:0,2' or ('cuda:0', 'cuda:2'), or 'cpu:0-3' for four CPU "
                       "partitions.")


def _ids_of(text, device):
    """The ids a comma-separated list of numbers and ranges names, each once."""
    ids = []
    for item in text.split(","):
        m = _ITEM.match(item)
        if m is None:
            _fail(device, f"{item!r} is neither a number nor a range a-b")
        lo = int(m.group(1))
        hi = lo if m.group(2) is None else int(m.group(2))
        if hi < lo:
            _fail(device, f"the range {item!r} runs backwards")
        ids.extend(range(lo, hi + 1))
    return ids


def _split(spec, device):
    """(kind, ids) of one string ``kind:ids``."""
    d = "".join(spec.split()).lower()
    kind, sep, rest = d.partition(":")
    if kind == "gpu":
        kind = "cuda"
    if kind == "cuda" and not sep:
        return kind, [0]  # "cuda" in a list is cuda:0, as on its own
    if kind == "cpu" and not sep:
        _fail(device, "a CPU partition in a list is named by its number ('cpu:0')")
    if kind not in KINDS or not sep or not rest:
        _fail(device, "it names no kind of device ('cuda:...' or 'cpu:...')")
    return kind, _ids_of(rest, device)


def parse_group(device):
    """The normalized name of the device group ``device`` names (a string or a list of single
    devices); a group of one gives that device's own name."""
    if isinstance(device, str):
        kind, ids = _split(device, device)
    else:
        if len(device) == 0:
            _fail(device, "the list is empty")
        kinds, ids = set(), []
        for member in device:
            if not isinstance(member, str):
                _fail(device, f"{member!r} is not a device string")
            kind, member_ids = _split(member, device)
            if len(member_ids) != 1:
                _fail(device, f"{member!r} is not a single device")
            kinds.add(kind)
            ids.extend(member_ids)
        if len(kinds) != 1:
            _fail(device, "it mixes CPU partitions and GPUs")
        (kind,) = kinds
    if len(set(ids)) != len(ids):
        _fail(device, "a device is listed twice")
    if kind == "cpu" and len(ids) > MAX_CPU_PARTITIONS:
        _fail(device, f"more than {MAX_CPU_PARTITIONS} CPU partitions")
    return group_name(kind, sorted(ids))


def group_name(kind, ids):
    """``kind:ids`` with runs of consecutive ids written as ranges; one id gives the single
    device (``"cpu"`` for a CPU partition)."""
    if len(ids) == 1:
        return "cpu" if kind == "cpu" else f"cuda:{ids[0]}"
    runs = []
    start = prev = ids[0]
    for cur in ids[1:]:
        if cur != prev + 1:
            runs.append(_run(start, prev))
            start = cur
        prev = cur
    runs.append(_run(start, prev))
    return f"{kind}:{','.join(runs)}"


def _run(start, stop):
    return str(start) if start == stop else f"{start}-{stop}"


def is_group_name(device):
    """Whether a normalized device name is a group's."""
    return ":" in device and ("-" in device or "," in device)


def members_of(name):
    """(kind, ids) of a normalized group name."""
    return _split(name, name)


def device_scope(member):
    """A context in which array work for the member backend ``member`` runs on its device:
    its GPU made current for a CUDA member, nothing to do for the CPU."""
    device_id = getattr(member, "device_id", None)
    if device_id is None:
        return contextlib.nullcontext()
    import cupy

    return cupy.cuda.Device(device_id)
