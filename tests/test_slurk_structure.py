"""The live runtime's house rules (bots/slurk): no import circle among its modules, counting every import (module
level, inside functions, under `if TYPE_CHECKING:`); the room worker's collaborators never import it; every file
under 500 lines; no file names a task."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import tasks

SLURK = Path(__file__).resolve().parent.parent / "bots" / "slurk"
PACKAGE = "bots.slurk"
# What the room worker hands its work to: they call it back through callables, never through an import.
COLLABORATORS = ("delivery", "pageparts", "people", "intake", "emitter", "shipping", "timers", "resume", "thinking")


def _imports() -> dict[str, set[str]]:
    """module -> the bots.slurk modules it imports anywhere in its file."""
    modules = {p.stem for p in SLURK.glob("*.py")}
    graph = {}
    for name in modules:
        deps = set()
        for node in ast.walk(ast.parse((SLURK / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom):
                target = (PACKAGE if node.level == 1 else "bots" if node.level == 2 else "") if node.level else ""
                target = ".".join(x for x in (target, node.module or "") if x)
                if target == PACKAGE:
                    deps |= {a.name if a.name in modules else "__init__" for a in node.names}
                elif target.startswith(PACKAGE + "."):
                    deps.add(target.split(".")[2])
            elif isinstance(node, ast.Import):
                deps |= {a.name.split(".")[2] for a in node.names if a.name.startswith(PACKAGE + ".")}
        graph[name] = deps - {name}
    return graph


def _circle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle (its modules in order), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node, path):
        state[node] = 1
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep, path + [dep])
                if found:
                    return found
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return []


def test_the_checks_find_a_circle():
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_and_the_collaborators_do_not_import_the_worker():
    graph = _imports()
    assert _circle(graph) == []
    for name in COLLABORATORS:
        assert not graph[name] & {"rooms", "runtime"}, name


def test_every_file_is_under_500_lines_and_names_no_task():
    names = re.compile("|".join(re.escape(t).replace("\\-", "[-_ ]?") for t in tasks.available_tasks())
                       + "|dialop|matrix", re.IGNORECASE)
    for path in sorted(SLURK.glob("*.py")):
        text = path.read_text()
        assert text.count("\n") < 500, f"{path.name}: {text.count(chr(10))} lines"
        assert not names.search(text), f"{path.name} names a task: {names.search(text).group(0)!r}"
