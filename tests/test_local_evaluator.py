"""A task's own evaluator (`TaskSpec.evaluator`) takes the local runs it lays out itself (a paper's table) and hands
every other run back to the ordinary local evaluation; the transport (bots/) names no task and tasks/ never
imports it."""
import ast
import dataclasses
import pathlib
import re
import sys

import pytest

import tasks
from bots import local
from tests import toygame

ROOT = pathlib.Path(__file__).resolve().parent.parent
CALLS = []


def evaluate(spec, run):
    """The toy task's evaluator: it lays out runs with task option `paper`, nothing else."""
    CALLS.append((spec.name, run))
    return 7 if run.options.get("paper") else None


SPEC = dataclasses.replace(toygame.SPEC, name="toy-eval", evaluator=f"{__name__}:evaluate")


@pytest.fixture
def toy_task(monkeypatch, tmp_path):
    """The toy game as a task folder of its own (tasks/toy_eval/ on the package path), declaring `evaluate`."""
    folder = tmp_path / "toy_eval"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "spec.py").write_text(f"from {__name__} import SPEC as _SPEC\n\nSPEC = _SPEC\n")
    monkeypatch.setattr(tasks, "__path__", [*tasks.__path__, str(tmp_path)])
    CALLS.clear()
    yield
    for name in ("tasks.toy_eval.spec", "tasks.toy_eval"):
        sys.modules.pop(name, None)


def test_the_tasks_evaluator_takes_the_runs_it_lays_out(toy_task, tmp_path):
    out = tmp_path / "run"
    assert local.main(["toy-eval", "--option", "paper=1", "--games", "3", "--seed", "5", "--out", str(out),
                       "--parallel", "2"]) == 7
    [(name, run)] = CALLS
    assert name == "toy-eval" and run.options == {"paper": 1} and run.agents == {"a": "toy", "b": "toy"}
    assert (run.games, run.seed, run.out, run.parallel, run.play, run.population) == (3, 5, str(out), 2, None, False)
    assert not out.exists()  # nothing else played


def test_a_run_the_evaluator_declines_is_an_ordinary_one(toy_task, tmp_path, capsys):
    out = tmp_path / "run"
    assert local.main(["toy-eval", "--quiet", "--out", str(out)]) == 0
    assert len(CALLS) == 1 and CALLS[0][1].options == {}
    assert (out / "game.jsonl").exists()
    assert f"log: {out / 'game.jsonl'}" in capsys.readouterr().out


def test_every_declared_evaluator_loads():
    declared = [tasks.get_task(name) for name in tasks.available_tasks()]
    assert any(spec.evaluator for spec in declared)
    for spec in declared:
        assert spec.evaluator == "" or callable(spec.load_evaluator()), spec.name


def _code_words(path: pathlib.Path) -> str:
    """Identifiers, imported modules and string constants of a module, docstrings left out (examples may name a task)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    words = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            words.append(n.value)
        elif isinstance(n, ast.Name):
            words.append(n.id)
        elif isinstance(n, ast.Attribute):
            words.append(n.attr)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            words += [getattr(n, "module", None) or ""] + [a.name for a in n.names]
    return "\n".join(words)


def test_the_transport_modules_name_no_task():
    folders = tasks.task_folders()
    names = sorted({*folders, *folders.values(), "dialop"}, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(n) for n in names), re.IGNORECASE)
    named = {p.name: sorted(set(pattern.findall(_code_words(p)))) for p in sorted((ROOT / "bots").glob("*.py"))}
    assert {k: v for k, v in named.items() if v} == {}


def test_tasks_never_import_the_transport():
    found = []
    for path in sorted((ROOT / "tasks").rglob("*.py")):
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = [a.name for a in n.names] if isinstance(n, ast.Import) else \
                [n.module or ""] if isinstance(n, ast.ImportFrom) and not n.level else []
            found += [f"{path.relative_to(ROOT)}: {m}" for m in modules if m == "bots" or m.startswith("bots.")]
    assert found == []
