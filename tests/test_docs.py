"""The documentation builds without a warning (Sphinx with -W), so broken references and
malformed docstrings fail CI."""

import os
import subprocess
import sys

import pytest

DOCS = os.path.join(os.path.dirname(__file__), "..", "docs")


def test_docs_build(tmp_path):
    # `make test` installs Sphinx (the `docs` extra); a machine running the suite without it
    # (a GPU machine with only the runtime's packages) has no docs to check
    pytest.importorskip("sphinx.cmd.build")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", DOCS,
         str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
