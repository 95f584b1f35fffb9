"""The cost of recording.current()'s thread-local lookup on the CUDA backend's host path, in
one process (the development machine's noise between processes is larger than the effect):
the masked vxm and the SSSP light round of hostpath.py with the lookup as getattr(local,
"rec", None) (an AttributeError each time the thread records nothing), as a class default
(the code), and replaced by a constant None.  Best of five rounds of three repeats.

    python benchmarks/hostpath/lookup_ab.py
"""

import os
import sys
import threading
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hostpath  # noqa: E402

hostpath._setup(os.path.join(HERE, "..", "..", "src"))

from graphblast.backends.cuda import recording  # noqa: E402

_slow = threading.local()


def _getattr_current():
    return getattr(_slow, "rec", None)


def _getattr_capturing():
    rec = getattr(_slow, "rec", None)
    return rec is not None and rec.capturing


SIDES = {
    "getattr": (_getattr_current, _getattr_capturing),
    "class default": (recording.current, recording.capturing),
    "no lookup": (lambda: None, lambda: False),
}


def main():
    table = hostpath.cases()
    best = {side: {} for side in SIDES}
    for _ in range(5):
        for side, (current, capturing) in SIDES.items():
            recording.current, recording.capturing = current, capturing
            for case in ("vxm", "sssp"):
                _, fn, _ = table[case][0]
                t = min(timeit.repeat(fn, number=2000, repeat=3)) / 2000 * 1e6
                best[side][case] = min(t, best[side].get(case, t))
    for side, times in best.items():
        print(f"{side:14s} " + ", ".join(f"{case} {t:.2f} us" for case, t in times.items()))


if __name__ == "__main__":
    main()
