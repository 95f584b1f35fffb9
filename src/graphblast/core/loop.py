"""``graphblast.repeat``: a loop over a vector, which a GPU may run as a replayed graph."""

import operator

from ..exceptions import DeviceMismatch, DimensionMismatch, InvalidValue
from ..dtypes import INT64
from .scalar import DeviceValue, Scalar
from .vector import Vector


def repeat(body, x, *, max_rounds=None, counter=False):
    """``x = body(x)`` while ``x`` has entries; returns the last ``x``.

    The loop of a traversal written in GraphBLAS operations, such as Bellman-Ford's rounds::

        def relax(frontier):
            t = frontier.vxm(A, semiring.min_plus).new()
            better = ~t.ewise_mult(dist, binary.ge).new().V
            dist(binary.min) << t                  # dist, made before, updated in place
            return t.dup(mask=better)

        gb.repeat(relax, frontier)

    ``body`` takes the current vector and returns the next, a Vector of the same size (and,
    to be replayed, the same type).  It may update in place the objects it closes over
    (an assign into them, as ``dist`` above); it is run at least once per round the loop
    makes, so it should have no other effects.

    With ``counter=True`` the body gets a second argument, the round's number (0 for the
    first round) as an INT64 Scalar: a traversal stamps its vertices with it, BFS's levels::

        def level(frontier, depth):
            levels(frontier.S) << depth
            return frontier.vxm(A, semiring.any_pair).new(mask=~levels.S, replace=True)

        gb.repeat(level, frontier, counter=True)

    On a GPU the loop runs on the device.  Once two rounds issued from Python have launched
    the same kernels (the first two, or the second and third where the first built caches),
    the body is recorded once as a CUDA graph and becomes the body of a conditional WHILE
    node, whose condition the round's last kernel sets from the round's result: the whole
    loop is one graph launch and one wait.  The round counter is then a value on the device.
    A round that is one masked push of an ``any`` with a constant product (the BFS level
    above) runs, where the GPU launches cooperative kernels, as one kernel that makes every
    round: one launch and one wait, no graph.  Where the driver has no conditional nodes the
    recorded round is replayed instead, one launch and one count read per round (the rules,
    and what happens where they are broken, in ``backends/cuda/loops.py``).  A body whose
    round cannot be recorded - it reads a count or a value to the host, builds something
    cached, gives an object made before it new storage (``dist << t`` where ``dist`` must
    grow) or uses a Python value that changes from round to round - runs every round from
    Python, with the same result.
    ``gb.config.set(device_loops=...)`` forces a way: "persistent" (the one kernel where the
    round allows, as "auto"), "while" (never that kernel), "replay" or "never" (every round
    from Python); on the CPU every round runs from Python.

    Parameters
    ----------
    body : callable
        ``body(x) -> Vector``, or ``body(x, k) -> Vector`` with ``counter=True``.
    x : Vector
        The first vector; an empty one runs no round.
    max_rounds : int, optional
        Stop after this many rounds even if ``x`` still has entries (None: no limit).
    counter : bool, default False
        Pass the body the round's number, an INT64 Scalar (0, 1, 2, ...), as well.

    Returns
    -------
    Vector
        The vector of the last round: empty, unless ``max_rounds`` stopped the loop.

    Raises
    ------
    TypeError
        If ``body`` is not callable, ``x`` is not a Vector, or ``body`` returns something
        other than a Vector.
    DimensionMismatch
        If ``body`` returns a Vector of another size than ``x``.
    DeviceMismatch
        If ``body`` returns a Vector on another device than ``x``.
    InvalidValue
        If ``max_rounds`` is negative.
    """
    if not callable(body):
        raise TypeError(f"repeat: body must be callable, got {type(body).__name__}")
    if not isinstance(x, Vector):
        raise TypeError(f"repeat: x must be a graphblast Vector, got {type(x).__name__}")
    if max_rounds is not None:
        try:
            max_rounds = operator.index(max_rounds)
        except TypeError:
            raise TypeError(f"repeat: max_rounds must be an integer or None, got "
                            f"{type(max_rounds).__name__}") from None
        if max_rounds < 0:
            raise InvalidValue(f"repeat: max_rounds must be >= 0, got {max_rounds}")
    if not isinstance(counter, bool):
        raise TypeError(f"repeat: counter must be True or False, got {type(counter).__name__}")
    size, backend = x.size, x._backend

    def checked(v, k):
        out = body(v, _round(k, backend)) if counter else body(v)
        if not isinstance(out, Vector):
            raise TypeError(f"repeat: body must return a graphblast Vector, got "
                            f"{type(out).__name__}")
        if out.size != size:
            raise DimensionMismatch(f"repeat: body returned a Vector of size {out.size} "
                                    f"for one of size {size}; it must keep the size")
        if out.device != x.device:
            raise DeviceMismatch(f"repeat: body returned a Vector on {out.device} for one "
                                 f"on {x.device}; it must stay on the loop's device")
        return out

    return x._backend.repeat(checked, x, max_rounds)


def _round(k, backend):
    """The round number ``k`` as an INT64 Scalar: a Python int from a loop issued from
    Python, else the backend's one-element device array (read there, never on the host)."""
    if isinstance(k, int):
        return Scalar.from_value(k, INT64)
    s = Scalar(INT64)
    s._held = DeviceValue(k, INT64, backend)
    return s
