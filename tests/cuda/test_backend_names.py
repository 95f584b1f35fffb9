"""The CUDA backend's modules name only functions that exist, checked without importing them
(CI has no CuPy): every ``_module.name`` that ``backends/cuda/*.py`` reads from a sibling
module imported as ``from . import module as _module`` must be defined there.  A primitive
table pointing at a removed function would otherwise break the backend only on a GPU."""

import ast
import pathlib

import pytest

CUDA = pathlib.Path(__file__).resolve().parents[2] / "src" / "graphblast" / "backends" / "cuda"


def _top_level_names(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("path", sorted(CUDA.glob("*.py")), ids=lambda p: p.name)
def test_sibling_attributes_exist(path):
    tree = ast.parse(path.read_text())
    aliases = {}  # local alias -> sibling module file
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None:
            for a in node.names:
                aliases[a.asname or a.name] = CUDA / f"{a.name}.py"
    missing = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and aliases[node.value.id].exists()):
            if node.attr not in _top_level_names(aliases[node.value.id]):
                missing.append(f"{node.value.id}.{node.attr} (line {node.lineno})")
    assert not missing, f"{path.name} reads names its sibling modules lack: {missing}"
