"""The package's layers run one way (DESIGN.md section 1, docs/design.md "Layers"): no module
imports, at module level, a part of the package above its own.  From the bottom:

- the foundation: ``dtypes``, ``exceptions``, ``config``, ``_memory``;
- the operator algebra and the cost models (``ops/``, ``plan``): the vocabulary the backend
  interface speaks (a primitive is handed its semiring; the planner's models are functions of
  sizes), so a backend may read them;
- ``backends/``: the primitives, which receive everything else through the backend interface
  (backends/base.py), never importing ``core/``;
- ``core/``: Matrix, Vector, Scalar and GraphBLAS's semantics over the backends;
- ``algorithms/``: written in the public API only (``graphblast``'s own namespace, its
  ``dtypes``, ``exceptions`` and ``plan``), never ``core/`` or ``backends/`` directly;
- the users' doors (``nx/``, ``cli``, ``bench/``, ``io/``, ``generators/``, ``demo``), which may
  run the algorithms.

An import inside a function is not checked: it runs when called, after every module loaded
(the core's operator calls, ``binary.plus(u, v)``, are such).
"""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "src" / "graphblast"

LAYER = {
    "dtypes": 0, "exceptions": 0, "config": 0, "_memory": 0,
    "ops": 1, "plan": 1,
    "backends": 2,
    "core": 3,
    "algorithms": 4,
    "nx": 5, "cli": 5, "bench": 5, "io": 5, "generators": 5, "demo": 5,
}
PUBLIC_FOR_ALGORITHMS = {"graphblast", "graphblast.dtypes", "graphblast.exceptions",
                         "graphblast.plan"}


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name):
    rel = PACKAGE.parent.joinpath(*name.split("."))
    return rel.with_suffix(".py").is_file() or (rel / "__init__.py").is_file()


def _top_level_imports(tree):
    """Import statements that run when the module loads: the module's body and the bodies of
    its top-level if/try/with blocks (not functions or classes)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody"):
                todo.extend(getattr(node, field, []))
            todo.extend(s for h in getattr(node, "handlers", []) for s in h.body)


def imports_of(path, source=None):
    """(line, module) for each graphblast module ``path`` (its text ``source``, read where
    None) imports at module level; a name imported from a package resolves to its submodule
    where there is one."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text() if source is None else source, str(path))
    for node in _top_level_imports(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module
            targets = []
            for alias in node.names:
                sub = f"{origin}.{alias.name}"
                targets.append(sub if _is_module(sub) else origin)
        for target in targets:
            if target == "graphblast" or target.startswith("graphblast."):
                yield node.lineno, target


def _part(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def violations(path, source=None):
    """The module-level imports of ``path`` (its text ``source``, read where None) that break
    the layering, as messages."""
    me = _module_name(path)
    mine = _part(me)
    if mine is None:  # graphblast/__init__.py: the public namespace gathers every layer
        return []
    found = []
    for line, target in imports_of(path, source):
        theirs = _part(target)
        if theirs == mine:
            continue
        where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
        if mine == "algorithms":
            if target not in PUBLIC_FOR_ALGORITHMS and not target.startswith("graphblast.ops"):
                found.append(f"{where}: algorithms use the public API only")
        elif theirs is None:
            if LAYER[mine] < LAYER["algorithms"]:
                found.append(f"{where}: the public namespace is above {mine}/")
        elif LAYER[theirs] > LAYER[mine]:
            found.append(f"{where}: {theirs} is a layer above {mine}")
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_part_has_a_layer():
    parts = {_part(_module_name(p)) for p in MODULES} - {None}
    assert parts <= set(LAYER), f"parts without a layer: {sorted(parts - set(LAYER))}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_down(path):
    assert violations(path) == []


def test_the_check_sees_an_upward_import():
    """The rule catches a backend importing the core, relative or absolute, directly or from
    inside a top-level try, and lets a function-level import pass."""
    fake = PACKAGE / "backends" / "cuda" / "_layer_check_example.py"
    sources = {
        "from ...core import base\n": 1,
        "import graphblast.core.vector\n": 1,
        "try:\n    from ...core.matrix import Matrix\nexcept ImportError:\n    pass\n": 1,
        "def f():\n    from ...core.vector import Vector\n": 0,
        "from ...ops.swapped import swap_semiring\nfrom ... import plan\n": 0,
    }
    assert violations(PACKAGE / "algorithms" / "example.py",
                      "from graphblast.core.ordering import f\n") != []
    for source, expected in sources.items():
        assert len(violations(fake, source)) == expected, source
