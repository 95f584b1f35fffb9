"""The repository describes the system as it is (DESIGN.md section 11): no tracked file under
src/, docs/, tests/ or benchmarks/ names a run of work as a "session" (history belongs to the
commit messages), and every script under benchmarks/ is listed in benchmarks/README.md."""

import os
import re
import subprocess

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CHECKED = ("src", "docs", "tests", "benchmarks")
SCRIPT_SUFFIXES = (".py", ".sh", ".cu")

_S = "session"  # spelled once, so that this file's own examples do not match the rule
_SIT = "sitting"
_ORDINAL = (r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
            r"twelfth|\w+teenth|twentieth|thirtieth|fortieth|(?:twenty|thirty|forty)-\w+|"
            r"\d+(?:st|nd|rd|th))")
# A run of work named as a session: by its number ("<s> 3", "<s>s 17-30", "<s>12/"), by
# its ordinal ("tenth <s>", "eighteenth to twenty-first <s>s"), or as this or another
# one of a series ("this <s>", "the last <s>").  Ordinary English ("a Python <s>") and
# pytest's scope="<s>" do not match.
RUN_NAMED_AS_SESSION = re.compile(
    rf"\b{_S}s?[ _-]?\d"
    rf"|\b{_ORDINAL}(?:\s+(?:to|and|or|through)\s+{_ORDINAL})?[ -]{_S}s?\b"
    rf"|\b(?:this|last|previous|next|earlier|later|same)\s+{_S}(?:s|'s)?\b"
    rf"|\b{_ORDINAL}[ -]{_SIT}s?\b",
    re.IGNORECASE)


def tracked_files():
    """The files under CHECKED that git tracks (every file there outside a git checkout)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", *CHECKED], cwd=ROOT,
                             capture_output=True, check=True, timeout=60).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not files:
        files = [os.path.relpath(os.path.join(d, f), ROOT)
                 for top in CHECKED for d, _, names in os.walk(os.path.join(ROOT, top))
                 for f in names]
    return sorted(f for f in files if os.path.isfile(os.path.join(ROOT, f)))


def _text(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        data = f.read()
    if b"\0" in data[:8192]:
        return None  # binary (a plot)
    return data.decode("utf-8", errors="replace")


@pytest.mark.parametrize("example", [
    f"the tenth {_S}", f"Tenth {_S}:", f"twenty-first {_S}", f"the 3rd {_S}",
    f"eighteenth to twenty-first {_S}s", f"{_S}s 17-30", f"profiles/{_S}12/",
    f"{_S} 3", f"{_S}_4", f"in this {_S}", f"the last {_S}'s record", f"second {_SIT}",
])
def test_the_rule_sees_runs_named_as_sessions(example):
    assert RUN_NAMED_AS_SESSION.search(example)


@pytest.mark.parametrize("example", [
    f'@pytest.fixture(scope="{_S}")', f"made once per {_S} for all tests",
    f"a Python {_S}", f"an interactive {_S} of IPython", f"requests.{_S}()",
    f"the {_S}'s fixtures", f"{_S}start", f"a {_S} object",
])
def test_the_rule_lets_ordinary_words_pass(example):
    assert not RUN_NAMED_AS_SESSION.search(example)


def test_no_file_names_a_run_as_a_session():
    found = []
    for path in tracked_files():
        if RUN_NAMED_AS_SESSION.search(path):
            found.append(f"{path}: its name")
        text = _text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = RUN_NAMED_AS_SESSION.search(line)
            if match:
                found.append(f"{path}:{number}: {match.group(0)!r}")
    assert not found, ("runs of work named as sessions (state the reasoning and the "
                       "measurement; history goes in commit messages):\n" + "\n".join(found))


def _listed(readme):
    """The paths benchmarks/README.md names in backticks, relative to benchmarks/."""
    return {m.strip() for m in re.findall(r"`([^`\s]+)`", readme)}


def test_every_benchmark_script_is_listed():
    with open(os.path.join(ROOT, "benchmarks", "README.md"), encoding="utf-8") as f:
        listed = _listed(f.read())
    folders = {p for p in listed if p.endswith("/")}
    missing = []
    for path in tracked_files():
        if not path.startswith("benchmarks/") or not path.endswith(SCRIPT_SUFFIXES):
            continue
        rel = path[len("benchmarks/"):]
        if rel not in listed and not any(rel.startswith(folder) for folder in folders):
            missing.append(rel)
    assert not missing, f"scripts that benchmarks/README.md does not list: {missing}"
    here = set(os.listdir(os.path.join(ROOT, "benchmarks")))
    stale = [p for p in listed if p.endswith(SCRIPT_SUFFIXES) and p.split("/")[0] in here
             and not os.path.exists(os.path.join(ROOT, "benchmarks", p))]
    assert not stale, f"benchmarks/README.md lists scripts that do not exist: {stale}"
