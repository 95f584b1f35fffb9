"""The CUDA backend's host-side decisions, checked without a GPU (so in CI too):
engine_host_path.py drives them with CuPy stood in for (see its docstring), in a process of
its own."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_formats_and_planner_terms():
    result = subprocess.run([sys.executable, os.path.join(HERE, "engine_host_path.py")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    got = json.loads(result.stdout.strip().splitlines()[-1])
    # a whole array is stored full; a part of one, or what misses a value, is a list
    assert got["from_dense"] == "FullVector"
    assert got["from_dense missing"] == "SparseVector"
    assert got["from_coo subset"] == "SparseVector"
    # accumulating into a full vector adds no position: it stays full
    assert got["full accumulated"] == "FullVector"
    # degrees by a constant product over a full vector: a bitmap (rows without entries absent)
    assert got["degrees"] == "BitmapVector"
    # a product over a transpose is given the same swapped semiring each call, so its
    # kernels are found by the call's arguments (a new one each call built the program's
    # key again: ops/swapped.py)
    assert got["kernel lookups added by repeated calls"] == 0
    # the planner's terms: one entry for vxm and A.T.mxv however many calls, and one for
    # each matrix pull reads
    assert got["plans after vxm"] == 1
    assert got["plans by pull matrix"] == [[False, False], [False, True], [True, False]]
    # the direction planner's paths, each with the reason it logs (plan.direction's rule)
    assert got["planner"] == {
        "bound settles push": [
            "push", "direction: push (push work at most 50 <= 0.1 x pull work 100000)"],
        "exact sum, pull": ["pull", "direction: pull (push work 9000 > 0.1 x pull work 60000)"],
        "exact sum, push": ["push", "direction: push (push work 5000 <= 0.1 x pull work 60000)"],
        "after a pull, 300 entries": [
            "pull", "direction: pull (after a pull, vector entries 300 >= 5000 / 18)"],
        "after a pull, 200 entries": [
            "push", "direction: push (after a pull, vector entries 200 < 5000 / 18)"],
        "mask bound, pull": ["pull", "direction: pull (push work 2500 > 0.1 x pull work 20000)"],
    }
    # a reduction of a full vector stays on the device, and apply binds it by pointer; so
    # PageRank's steps read nothing back (its sinks' mass is such a Scalar)
    scalar = got["device scalar"]
    assert scalar["kept"] and scalar["reads"] == 0 and scalar["bound as"] == ["right_device"]
    two, six = scalar["pagerank reads, 2 and 6 steps"]
    assert two == six, (two, six)
    assert scalar["pagerank's teleports, 6 steps"] == 6
    # Matrix.diag reads no entry of the matrix back: a count for each of its two column
    # selects (select.diag on a GPU), nothing else
    assert got["diag reads"] == {"0": [2, 16], "-3": [2, 16], "5": [2, 16]}, got["diag reads"]
    # a small product's result takes the buffers the result it replaced gave back (a warm
    # loop allocates none), never buffers something else still holds
    if got["small buffers"] != "no reuse here":
        assert got["small buffers"] == {"loop allocations": 0, "view": False, "array": False,
                                        "vector": False}
