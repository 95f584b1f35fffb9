"""Wall-time measurement of small GPU calls: the per-call overhead that graph algorithms on
small graphs (and the frontier-by-frontier steps of big ones) pay."""

import statistics
import time


def per_call_seconds(call, calls=1000, warmup=50, synchronize=None):
    """Wall time of ``call()`` (which must leave no work pending, or pass ``synchronize``).

    Returns ``{"median", "p10", "p90", "calls"}`` in seconds, over ``calls`` timed calls after
    ``warmup`` untimed ones (which compile the kernels and fill the memory pool).
    """
    for _ in range(warmup):
        call()
    if synchronize is not None:
        synchronize()
    times = []
    clock = time.perf_counter
    for _ in range(calls):
        start = clock()
        call()
        if synchronize is not None:
            synchronize()
        times.append(clock() - start)
    times.sort()
    return {"median": statistics.median(times), "p10": times[len(times) // 10],
            "p90": times[(9 * len(times)) // 10], "calls": calls}
