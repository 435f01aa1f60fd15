"""Task packages: pure-Python games, solvers and agent brains. `get_task(name)` returns a task's TaskSpec."""
from __future__ import annotations

import importlib

# name -> module that defines SPEC. Imported lazily so one task's optional needs never slow another.
TASKS = {
    "travel": "tasks.travel.spec",
    "gnomes": "tasks.gnomes.spec",
    "assignment": "tasks.assignment.spec",
    "planning": "tasks.planning.spec",
    "mediation": "tasks.mediation.spec",
    "matrix-games": "tasks.matrix_games.spec",
    "asympuzl": "tasks.asympuzl.spec",
    "dond": "tasks.dond.spec",
}


def get_task(name: str):
    try:
        module = TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; available: {', '.join(sorted(TASKS))}") from None
    return importlib.import_module(module).SPEC


def available_tasks() -> list[str]:
    return sorted(TASKS)
