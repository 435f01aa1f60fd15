"""The house's layers, checked on the source (`ast`): the import graph of bots/ and tasks/ counts every import in a
file, function-level and TYPE_CHECKING ones included, and has no circles; tasks/ never imports bots/; the game core
(tasks/core) imports no task; no file in bots/ names a task; no Python file in bots/ or tasks/ is over 500 lines."""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("bots", "tasks")
MAX_LINES = 500


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=None)
def _files(root: Path = ROOT, layers: tuple[str, ...] = LAYERS) -> dict[str, Path]:
    return {_module_name(p, root): p for layer in layers for p in sorted((root / layer).rglob("*.py"))
            if "__pycache__" not in p.parts}


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, files: dict[str, Path]) -> set[str]:
    """Modules among `files` that `module` imports anywhere in its file (the module itself where a name is
    imported from a package, the submodule where `from package import submodule`)."""
    path = files[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path.name == "__init__.py", node)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in files:         # `import tasks.core.spec as s` or a name inside a module
                t = t.rpartition(".")[0]
            if t and t != module:
                out.add(t)
    return out


@lru_cache(maxsize=None)
def import_graph(root: Path = ROOT, layers: tuple[str, ...] = LAYERS) -> nx.DiGraph:
    files = _files(root, layers)
    g = nx.DiGraph()
    for module in files:
        g.add_node(module)
        g.add_edges_from((module, target) for target in imports_of(module, files))
    return g


def circles(g: nx.DiGraph) -> list[list[str]]:
    return [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]


def task_packages() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "tasks").glob("*/spec.py")
                  if re.search(r"^SPEC\s*(:[^=]*)?=", p.read_text(encoding="utf-8"), re.M))


def test_a_circle_through_function_level_and_type_checking_imports_is_found(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .b import B\n")
    (pkg / "b.py").write_text("def late():\n    from pkg import a\n    return a\n")
    (pkg / "c.py").write_text("import pkg.b as b\n")
    g = import_graph(tmp_path, ("pkg",))
    assert {("pkg.a", "pkg.b"), ("pkg.b", "pkg.a"), ("pkg.c", "pkg.b")} <= set(g.edges)
    assert circles(g) == [["pkg.a", "pkg.b"]]


def test_no_import_circles():
    cycles = circles(import_graph())
    assert cycles == [], "import circles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_tasks_never_import_bots():
    up = sorted((a, b) for a, b in import_graph().edges if a.startswith("tasks") and b.startswith("bots"))
    assert up == [], up


def test_the_game_core_imports_no_task():
    shared = {"tasks", "tasks.core"}
    bad = sorted((a, b) for a, b in import_graph().edges
                 if a.startswith("tasks.core") and b.startswith("tasks.") and not b.startswith("tasks.core")
                 and b not in shared)
    assert bad == [], bad


def _names_in_code(tree: ast.AST) -> list[str]:
    """Identifiers, attribute names and string constants of a module, docstrings left out."""
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, ast.Attribute):
            out.append(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings:
            out.append(n.value)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out += [getattr(n, "module", "") or ""] + [a.name for a in n.names]
    return out


def test_no_file_in_bots_names_a_task():
    words = {p for p in task_packages()} | {p.replace("_", "-") for p in task_packages()}
    pattern = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(map(re.escape, words))) + r")(?![A-Za-z])", re.I)
    found = []
    for module, path in _files(ROOT, LAYERS).items():
        if not module.startswith("bots"):
            continue
        for text in _names_in_code(ast.parse(path.read_text(encoding="utf-8"))):
            m = pattern.search(text)
            if m:
                found.append(f"{path.relative_to(ROOT)}: {m.group(1)!r} in {text[:60]!r}")
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("layer", LAYERS)
def test_no_python_file_over_500_lines(layer):
    long = sorted(f"{p.relative_to(ROOT)}: {n}" for m, p in _files(ROOT, LAYERS).items() if m.startswith(layer)
                  for n in [len(p.read_text(encoding="utf-8").splitlines())] if n > MAX_LINES)
    assert long == [], long
