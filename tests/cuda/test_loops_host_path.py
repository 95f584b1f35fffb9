"""graphblast.repeat's replay path on the CUDA backend, checked without a GPU (so in CI too):
loops_host_path.py drives it with CuPy and stream capture stood in for (see its docstring),
in a process of its own."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _paths():
    result = subprocess.run([sys.executable, os.path.join(HERE, "loops_host_path.py")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_which_bodies_replay():
    got = _paths()
    # a body of the engine's operations is captured and replayed until its count reads zero
    assert got["relax"]["said"] == ["repeat: the body replays as a CUDA graph"]
    assert got["relax"]["replays"] == 3
    # the captured round's nodes: one memset zeroing the counters made in the graph, SSSP's
    # four operations (the push with its fold's gather, which clears the push's claims too),
    # the marks of the list mask, and the copy into the state
    assert got["relax"]["captured"] == {
        "launches": ["gbk_push", "gbk_push_gather", "gbk_ewise_list_dense", "gbk_accum_list",
                     "gbk_list_to_bitmap", "gbk_select_list", "gbk_list_unmark",
                     "gbk_list_copy"],
        "memsets": 1}
    # a count read inside the body breaks the capture: every round from Python
    assert got["reads a count"]["replays"] == 0
    assert "D2H transfers are disallowed" in got["reads a count"]["said"][0]
    # a Python value that changes from round to round: the dry rounds differ, no capture
    assert got["a round counter"]["said"] == [
        "repeat: the body runs from Python (its rounds differ)"]
    assert got["a round counter"]["replays"] == 0
    # replay turned off
    assert got["never"]["replays"] == 0 and got["never"]["said"] == []
    # no memory for the loop's state: every round from Python, no error
    assert got["no room"]["replays"] == 0
    assert got["no room"]["said"] == [
        "repeat: the body runs from Python (no room for the loop's state: std::bad_alloc)"]
    assert all(run["lock_free"] for name, run in got.items() if name != "capture page")
    # the page a graph zeroes holds no count of anyone else's
    assert got["capture page"] == {"kept while free": True,
                                   "renewed while a slot is held": True}


def test_rounds_compared_by_their_launches():
    """Dry rounds compared: a launch's numbers by their bytes, its arrays by type (their
    addresses change from round to round); a captured round unlike the noted one is refused."""
    import numpy as np
    import pytest

    from graphblast.backends.cuda.recording import Recording, Refused

    loop = object()

    def dry(*args):
        rec = Recording("dry", loop)
        for a in args:
            rec.launch("kernel", 4, 256, a)
        return rec

    noted = dry((np.int64(3), None, 1.5, np.zeros(2), np.float64("nan")))
    assert dry((np.int64(3), None, 1.5, np.ones(5), np.float64("nan"))).same_as(noted)
    assert not dry((np.int64(4), None, 1.5, np.zeros(2), np.float64("nan"))).same_as(noted)
    assert not dry((np.int32(3), None, 1.5, np.zeros(2), np.float64("nan"))).same_as(noted)
    assert not dry().same_as(noted)
    captured = Recording("capture", loop, noted)
    with pytest.raises(Refused, match="unlike the dry rounds'"):
        captured.launch("kernel", 8, 256, (np.int64(3), None, 1.5, np.zeros(2)))
    fewer = Recording("capture", loop, noted)
    assert not fewer.complete()
