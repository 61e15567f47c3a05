"""The packages' import structure: no import cycle, and no private name used across modules.

Every module under the project's packages is parsed (not imported) with :mod:`ast`.
An import anywhere in a module counts, at module level, inside a function or under
``if TYPE_CHECKING:``: a cycle that only a late import keeps from failing is still a
cycle.  A name with one leading underscore is its module's own; another module may
neither import it (``from m import _x``) nor reach it on a module (``m._x``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("protocol", "dealer", "solver", "precompute", "agent")


@dataclass
class Module:
    """One parsed module: what it imports and which private names of other modules it uses."""

    name: str
    path: Path
    imports: set[str] = field(default_factory=set)
    private: list[str] = field(default_factory=list)


def is_private(name: str) -> bool:
    """One leading underscore: ``_x``, not ``__x__`` (dunders are public protocol)."""
    return name.startswith("_") and not name.startswith("__")


def module_names(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file under ``packages`` (a package is its ``__init__``)."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    """The module a ``from ... import`` names, with relative imports resolved against ``here``."""
    if not node.level:
        return node.module or ""
    base = here.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _attribute_chain(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def parse_module(name: str, path: Path, known: dict[str, Path]) -> Module:
    """The project modules ``name`` imports and the private names of theirs it uses."""
    module = Module(name, path)
    tree = ast.parse(path.read_text(), str(path))
    bound: dict[str, str] = {}  # local name -> the project module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    module.imports.add(alias.name)
                    # ``import a.b`` binds ``a``; ``import a.b as m`` binds ``m`` to ``a.b``.
                    local = alias.asname or alias.name.split(".")[0]
                    bound[local] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, name, path.name == "__init__.py")
            for alias in node.names:
                submodule = f"{source}.{alias.name}" if source else alias.name
                if submodule in known:
                    module.imports.add(submodule)
                    bound[alias.asname or alias.name] = submodule
                elif source in known:
                    module.imports.add(source)
                    if is_private(alias.name):
                        module.private.append(f"line {node.lineno}: from {source} import {alias.name}")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not is_private(node.attr):
            continue
        chain = _attribute_chain(node.value)
        if chain is None or chain[0] not in bound:
            continue
        # Follow ``pkg.sub`` through submodules as far as they go; the private name is on that module.
        target = bound[chain[0]]
        for part in chain[1:]:
            if f"{target}.{part}" not in known:
                break
            target = f"{target}.{part}"
        else:
            if target != name:
                module.private.append(f"line {node.lineno}: {'.'.join(chain)}.{node.attr} (a private name of {target})")
    return module


def parse_modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Module]:
    known = module_names(root, packages)
    return {name: parse_module(name, path, known) for name, path in known.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as ``[a, b, ..., a]``, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path = [start]
        stack: list[Iterator[str]] = [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                return path[path.index(child) :] + [child]
            elif child not in state and child in graph:
                state[child] = 1
                path.append(child)
                stack.append(iter(sorted(graph[child])))
    return None


def import_graph(modules: dict[str, Module]) -> dict[str, set[str]]:
    """Module -> the other project modules it imports."""
    return {name: {m for m in module.imports if m != name} for name, module in modules.items()}


def test_the_packages_have_no_import_cycle() -> None:
    cycle = find_cycle(import_graph(parse_modules()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_module_uses_another_modules_private_names() -> None:
    found = [f"{m.path.relative_to(ROOT)}: {p}" for m in parse_modules().values() for p in m.private]
    assert not found, "private names used across modules:\n" + "\n".join(found)


# --- the checks catch what they are for ---------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A two-package project: ``a.low`` is imported by ``b.high``; ``a.low`` has a private helper."""
    for package in ("a", "b"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "a" / "low.py").write_text("def _helper():\n    pass\n\n\ndef api():\n    _helper()\n")
    (tmp_path / "b" / "high.py").write_text("from a.low import api\n")
    return tmp_path


def test_a_clean_tree_passes(tree: Path) -> None:
    modules = parse_modules(tree, ("a", "b"))
    assert find_cycle(import_graph(modules)) is None
    assert not [p for m in modules.values() for p in m.private]


@pytest.mark.parametrize(
    "late_import",
    ["from b.high import api\n", "def f():\n    import b.high\n", "from b import high\n", "from ..b import high\n"],
)
def test_a_cycle_is_found_however_it_is_imported(tree: Path, late_import: str) -> None:
    low = tree / "a" / "low.py"
    low.write_text(low.read_text() + late_import)
    assert find_cycle(import_graph(parse_modules(tree, ("a", "b")))) == ["a.low", "b.high", "a.low"]


@pytest.mark.parametrize(
    "use",
    [
        "from a.low import _helper\n",
        "from a.low import api, _helper as h\n",
        "import a.low\na.low._helper()\n",
        "import a.low as low\nlow._helper()\n",
        "from a import low\nlow._helper()\n",
        "def f():\n    from .. import a\n    a.low._helper()\n",
    ],
)
def test_a_private_name_used_across_modules_is_found(tree: Path, use: str) -> None:
    (tree / "b" / "high.py").write_text(use)
    found = parse_modules(tree, ("a", "b"))["b.high"].private
    assert len(found) == 1 and "_helper" in found[0]
