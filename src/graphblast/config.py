"""``gb.config``: the backend's knobs, set globally or for a block.

    gb.config.set(direction="push")            # globally
    with gb.config.set(direction="pull"):      # for a block, then restored
        ...
    gb.config["direction"]

Every planner decision reads these; ``"auto"`` lets the planner choose (see ``plan.py``).
"""

import contextlib
import os
import threading

_DEFAULTS = {
    # mxv/vxm traversal: "auto", "push" (SpMSpV over the frontier) or "pull" (SpMV); also
    # masked mxm's (push: SpGEMM over the frontier matrix; pull: gather per allowed output)
    "direction": "auto",
    # push is chosen when its work is below this fraction of pull's (Beamer's 1 / alpha)
    "direction_switch": 0.1,
    # after a pull, push again once the vector holds fewer than 1 / beta of the outputs
    "direction_beta": 18.0,
    # keep the transpose of a matrix once built (costs a second copy of the matrix)
    "transpose_cache": True,
    # default device for new objects; None means "cuda" when usable, else "cpu"
    "device": None,
    # the generators' graphs stored compact (32-bit column indices, no value array for a
    # pattern graph; see backends/base.py CSR): "auto" on GPUs, "always", or "never"
    "compact_graphs": "auto",
    # SSSP's path doubling (plan.sssp_squarings): "auto", or how many times sssp squares its
    # matrix (min(A, A min.+ A)) before delta-stepping on a long-diameter graph
    "sssp_squarings": "auto",
    # mxm without a mask on a GPU (plan.spgemm_method): "auto" folds rows of few products in
    # a hash table where the monoid allows, "sort" always expands, sorts and reduces
    "spgemm": "auto",
    # graphblast.repeat on a GPU (backends/cuda/loops.py): "auto" records the loop's body once
    # and runs a round that is one first-claim push (BFS's level) as one cooperative kernel
    # of every round ("persistent") where the device launches them, any other round under a
    # conditional WHILE node ("while") where the driver has them, else replays the recorded
    # round once per round ("replay"); "persistent" is "auto"; "while" never takes the
    # persistent kernel; "never" issues every round from Python; the environment variable
    # GRAPHBLAST_DEVICE_LOOPS sets it for a run
    "device_loops": os.environ.get("GRAPHBLAST_DEVICE_LOOPS", "auto"),
    # PageRank's pull (algorithms/pagerank.py): "auto" renumbers the graph in decreasing-degree
    # order on a GPU when its degrees are skewed and it is large enough to pay, "degree" does
    # wherever the backend can (any size or device), "stored" keeps the vertices' own order
    "pagerank_order": "auto",
    # GPU kernel launches: "auto" calls the driver directly through graphblast's compiled
    # launcher when it is built (a few microseconds less per launch), "cupy" through CuPy;
    # the environment variable GRAPHBLAST_KERNEL_LAUNCH sets it for a whole run
    "kernel_launch": os.environ.get("GRAPHBLAST_KERNEL_LAUNCH", "auto"),
    # python-graphblas's settings, with its defaults: an expression used where a value is
    # needed (``(u | v).nvals``, ``A.isequal(u @ v)``, ``s1 + s2 == 3``) is computed on the spot
    # when True, and raises saying to call ``.new()`` when False
    "autocompute": True,
    # python-graphblas maps the ``binary.numpy`` (...) names that have a built-in operator to
    # it when True (``binary.numpy.add`` is ``binary.plus``); graphblast's NumPy namespaces
    # always compute NumPy's functions (python-graphblas's behaviour when False), on every
    # device, so the value is accepted and changes nothing
    "mapnumpy": True,
}

_CHOICES = {
    "direction": {"auto", "push", "pull"},
    "compact_graphs": {"auto", "always", "never"},
    "kernel_launch": {"auto", "cupy"},
    "spgemm": {"auto", "sort"},
    "device_loops": {"auto", "persistent", "while", "replay", "never"},
    "pagerank_order": {"auto", "degree", "stored"},
}


class Config:
    """A set of named settings with validation; use :meth:`set` globally or as a context."""

    def __init__(self):
        self._values = dict(_DEFAULTS)
        # the per-call paths' read of a setting: the dict's own lookup, a C call (this
        # class's __getitem__ is a Python frame, about 0.15 us a read, and the direction
        # planner reads two settings a product); the dict is never replaced, so it stays valid
        self.lookup = self._values.__getitem__
        self._lock = threading.Lock()
        for key in ("kernel_launch", "device_loops"):  # the defaults the environment sets
            value = self._values[key]
            if value not in _CHOICES[key]:
                raise ValueError(f"GRAPHBLAST_{key.upper()} must be one of "
                                 f"{sorted(_CHOICES[key])}, got {value!r}")

    def __getitem__(self, key):
        try:
            return self._values[key]
        except KeyError:
            raise KeyError(f"Unknown graphblast setting {key!r}; known: "
                           f"{', '.join(sorted(self._values))}") from None

    def get(self, key, default=None):
        """The setting's value, or ``default`` for an unknown name (as ``dict.get``)."""
        return self._values.get(key, default)

    def __setitem__(self, key, value):
        self.set(**{key: value})

    def __repr__(self):
        items = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"graphblast.config({items})"

    def _check(self, key, value):
        if key not in self._values:
            raise KeyError(f"Unknown graphblast setting {key!r}; known: "
                           f"{', '.join(sorted(self._values))}")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise ValueError(f"{key} must be one of {sorted(_CHOICES[key])}, got {value!r}")
        if key in ("direction_switch", "direction_beta") and not (
                isinstance(value, (int, float)) and value > 0):
            raise ValueError(f"{key} must be a positive number, got {value!r}")
        if key == "sssp_squarings" and value != "auto" and not (
                isinstance(value, int) and not isinstance(value, bool) and value >= 0):
            raise ValueError(f"sssp_squarings must be 'auto' or an integer >= 0, got {value!r}")
        if key in ("transpose_cache", "autocompute", "mapnumpy") and not isinstance(value, bool):
            raise ValueError(f"{key} must be True or False, got {value!r}")
        if key == "device" and value is not None:
            from .backends import parse_device

            parse_device(value)

    def set(self, **settings):
        """Change settings; the returned object restores the old values when used in ``with``."""
        for key, value in settings.items():
            self._check(key, value)
        with self._lock:
            old = {k: self._values[k] for k in settings}
            self._values.update(settings)
        return _Restore(self, old)

    def reset(self):
        """Back to the defaults."""
        with self._lock:
            self._values.clear()
            self._values.update(_DEFAULTS)

    def to_dict(self):
        return dict(self._values)


class _Restore(contextlib.AbstractContextManager):
    def __init__(self, config, old):
        self._config = config
        self._old = old

    def __enter__(self):
        return self._config

    def __exit__(self, *exc):
        with self._config._lock:
            self._config._values.update(self._old)
        return False


config = Config()
