"""python-graphblas 2025.2.0's own test suite, run against graphblast (see run_suite.py).

Every test of the suite must pass on graphblast, be skipped by the suite itself (SuiteSparse's
extensions, complex types), or be listed with its reason in one of:

- ``internals.txt``: tests of python-graphblas's or SuiteSparse's internals (C handles,
  ``lib.GrB_*``, private ``core`` functions, the Recorder, descriptors, version checks);
- ``differences.txt``: deliberate differences, each documented in docs/user-guide.md
  ("Differences from python-graphblas");
- ``missing.txt``: public behaviour graphblast does not have yet, with what is missing.

A listed test that passes fails this harness too, so the lists stay honest.  The device is the
one graphblast's suite runs on (``--device``, ``GRAPHBLAST_TEST_DEVICE``).
"""

import importlib.util
import os
from collections import Counter

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("run_suite", os.path.join(HERE, "run_suite.py"))
run_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_suite)
LISTS = ("internals.txt", "differences.txt", "missing.txt")
_RESULTS = {}


def read_list(name):
    """``{test id: reason}`` from a list file: ``test_file.py::test_name | reason`` lines."""
    entries = {}
    with open(os.path.join(HERE, name)) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test, sep, reason = line.partition(" | ")
            if not sep or not reason.strip():
                raise ValueError(f"{name}:{number}: expected 'test id | reason', got {line!r}")
            if test in entries:
                raise ValueError(f"{name}:{number}: {test} is listed twice")
            entries[test] = reason.strip()
    return entries


def listed():
    """``{test id: list file}`` over the three lists (a test is in at most one)."""
    where = {}
    for name in LISTS:
        for test in read_list(name):
            if test in where:
                raise ValueError(f"{test} is in both {where[test]} and {name}")
            where[test] = name
    return where


def outcomes(device):
    if device not in _RESULTS:
        _RESULTS[device] = run_suite.run(device)
    return _RESULTS[device]


def test_lists_are_well_formed():
    where = listed()
    assert len(read_list("differences.txt")) <= 15, "at most 15 deliberate differences"
    guide = open(os.path.join(HERE, "..", "..", "docs", "user-guide.md")).read()
    for test in read_list("differences.txt"):
        name = test.split("::")[1].split("[")[0]
        assert name in guide, (f"{test} is a deliberate difference, so docs/user-guide.md's "
                               "'Differences from python-graphblas' must name it")
    assert where


def test_python_graphblas_suite(device):
    results, output = outcomes(device)
    where = listed()
    unexpected = sorted(t for t, state in results.items()
                        if state in ("failed", "error") and t not in where)
    now_passing = sorted(t for t, state in results.items()
                         if state == "passed" and t in where)
    unknown = sorted(t for t in where if t not in results)
    record = os.environ.get("GRAPHBLAST_COMPAT_OUTCOMES")
    if record:  # every test's outcome, for the record of a run (a GPU run's report)
        with open(record, "w") as f:
            f.writelines(f"{state} {t}\n" for t, state in sorted(results.items()))
    counts = Counter(results.values())
    summary = (f"python-graphblas suite on {device}: {counts['passed']} passed, "
               f"{counts['failed'] + counts['error']} failed (listed), "
               f"{counts['skipped']} skipped by the suite")
    print(summary)
    message = [summary]
    if unexpected:
        message.append("Failing, and in no list (fix graphblast, or list with a reason):\n  "
                       + "\n  ".join(unexpected))
    if now_passing:
        message.append("Listed but passing now (remove from the list):\n  "
                       + "\n  ".join(f"{t} ({where[t]})" for t in now_passing))
    if unknown:
        message.append("Listed but not in the suite:\n  " + "\n  ".join(unknown))
    if len(message) > 1:
        pytest.fail("\n\n".join(message) + "\n\n" + output[-4000:], pytrace=False)
