"""Run python-graphblas's test suite against graphblast and collect each test's outcome.

    python tests/compat/run_suite.py [--device cpu|cuda] [--junit FILE] [pytest args...]

The suite ships in the python-graphblas wheel (``graphblas/tests``).  It is copied to a
temporary folder as the package ``pgb_tests`` and run in a subprocess whose ``graphblas`` is
the shim in ``shim/`` (graphblast under python-graphblas's name); python-graphblas itself
stays installed for graphblast's own differential tests.  ``--device`` sets
``GRAPHBLAST_DEVICE`` for the subprocess.
"""

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, "shim")
SRC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")


def suite_dir():
    """The installed python-graphblas's ``tests`` folder (found without importing it)."""
    spec = importlib.util.find_spec("graphblas")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("python-graphblas is not installed; install graphblast[test]")
    path = os.path.join(list(spec.submodule_search_locations)[0], "tests")
    if not os.path.isdir(path):
        raise RuntimeError(f"python-graphblas at {path} ships no tests")
    return path


def run(device="cpu", extra=(), timeout=1800, keep_junit=None, modules=()):
    """Run the suite (or only its ``modules``, ``("test_vector.py",)``); returns
    ({test id: outcome}, pytest's output).  Outcomes are ``passed``, ``failed``, ``error`` or
    ``skipped``; ids are ``test_matrix.py::test_new``."""
    with tempfile.TemporaryDirectory(prefix="pgb-compat-") as tmp:
        pkg = os.path.join(tmp, "pgb_tests")
        shutil.copytree(suite_dir(), pkg, ignore=shutil.ignore_patterns("__pycache__"))
        with open(os.path.join(tmp, "pytest.ini"), "w") as f:
            f.write("[pytest]\nmarkers =\n    slow: slow tests\n")
        junit = os.path.join(tmp, "junit.xml")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [SHIM, SRC] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        env["GRAPHBLAST_DEVICE"] = device
        env.pop("GRAPHBLAST_TEST_DEVICE", None)
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "pgb_options", "-c", os.path.join(tmp, "pytest.ini"), "--rootdir", tmp,
               "-W", "ignore", "--continue-on-collection-errors", f"--junitxml={junit}", "-o", "junit_family=xunit1",
               *([f"pgb_tests/{m}" for m in modules] or ["pgb_tests"]), *extra]
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True,
                              timeout=timeout)
        output = proc.stdout + proc.stderr
        if not os.path.exists(junit):
            raise RuntimeError(f"python-graphblas's suite did not run:\n{output[-5000:]}")
        if keep_junit:
            shutil.copy(junit, keep_junit)
        return _outcomes(junit), output


def _outcomes(junit):
    outcomes = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname").split(".")[-1]
        file = case.get("file") or f"{module}.py"
        name = f"{os.path.basename(file)}::{case.get('name')}"
        state = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                state = "failed" if child.tag == "failure" else child.tag
        if name in outcomes and outcomes[name] != "passed":
            continue  # an error in teardown after the call's outcome: keep the worse one
        outcomes[name] = state
    return outcomes


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", help="write 'outcome test-id' lines to this file")
    parser.add_argument("--junit", help="keep pytest's JUnit XML report here")
    parser.add_argument("--modules", nargs="*", default=(),
                        help="only these modules of the suite (test_vector.py ...)")
    args, extra = parser.parse_known_args()
    outcomes, output = run(args.device, extra, keep_junit=args.junit, modules=args.modules)
    print(output[-3000:])
    from collections import Counter

    print(Counter(outcomes.values()))
    if args.out:
        with open(args.out, "w") as f:
            for name, state in sorted(outcomes.items()):
                f.write(f"{state} {name}\n")
