"""Task packages: pure-Python games, solvers and agent brains. `get_task(name)` returns a task's TaskSpec.

Every package under tasks/ whose `spec.py` defines `SPEC` is a task (tasks/README.md): its name is the folder's with "-" for "_"
(matrix_games -> "matrix-games"), and its `spec.py` defines `SPEC`, whose name must say the same. Specs are
imported lazily, so one task's optional needs never slow another; a new task touches only its folder, a layout
and its plugins.
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path

# A task's spec.py assigns SPEC at module level (tasks/core/spec.py, which defines TaskSpec, does not): read, not
# imported, so listing the tasks imports none of them.
_DEFINES_SPEC = re.compile(r"^SPEC\s*(:[^=]*)?=", re.M)


def task_folders() -> dict[str, str]:
    """Task name -> package name under tasks/, for every package (on the package's path) whose spec.py defines SPEC."""
    out: dict[str, str] = {}
    for root in __path__:
        for child in sorted(Path(root).iterdir()):
            spec = child / "spec.py"
            if (child / "__init__.py").is_file() and spec.is_file() and \
                    _DEFINES_SPEC.search(spec.read_text(encoding="utf-8")):
                out.setdefault(child.name.replace("_", "-"), child.name)
    return out


def get_task(name: str):
    folders = task_folders()
    try:
        package = folders[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; available: {', '.join(sorted(folders))}") from None
    spec = importlib.import_module(f"{__name__}.{package}.spec").SPEC
    if spec.name != name:
        raise ValueError(f"tasks/{package}/spec.py names its task {spec.name!r}; the folder says {name!r}")
    return spec


def available_tasks() -> list[str]:
    return sorted(task_folders())
