"""Every task folder has the same shape (tasks/README.md), and a new task needs only its folder, a layout and a
plugin: a toy task written here into a temporary folder is discovered, builds its page and plays a local game."""
from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

import tasks
from tasks import available_tasks, get_task, task_folders

ROOT = Path(__file__).resolve().parents[1]
REQUIRED = ("__init__.py", "spec.py", "game.py", "generator.py", "parse.py", "render.py", "metrics.py",
            "brains/__init__.py")


def _brain_classes(path: Path) -> list[str]:
    """Classes in a module that subclass something named ...Brain (agents)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases]
            if any(b.endswith("Brain") for b in bases):
                out.append(node.name)
    return out


def shape_problems(folder: Path, package: str) -> list[str]:
    """What keeps tasks/<folder> from the shape: missing files, agents outside brains/, a spec that points
    elsewhere, scripted people outside brains/people.py."""
    problems = [f"{folder.name}/{f} is missing" for f in REQUIRED if not (folder / f).is_file()]
    for module in sorted(folder.glob("*.py")):
        agents = _brain_classes(module)
        if agents:
            problems.append(f"{folder.name}/{module.name} defines agents ({', '.join(agents)}): they belong in brains/")
    if problems:
        return problems
    spec = get_task(folder.name.replace("_", "-"))
    if spec.renderer and not spec.renderer.startswith(f"{package}.render:"):
        problems.append(f"{folder.name}: the renderer {spec.renderer} is not in its render.py")
    if (folder / "evaluate.py").is_file() and not spec.evaluator.startswith(f"{package}.evaluate:"):
        problems.append(f"{folder.name}/evaluate.py is not its TaskSpec.evaluator ({spec.evaluator or 'none'})")
    if spec.population:
        if not (folder / "brains" / "people.py").is_file():
            problems.append(f"{folder.name} has scripted people (population) but no brains/people.py")
        for name in spec.population[1]:
            factory = spec.brains[name]
            module = getattr(getattr(factory, "func", factory), "__module__", "")
            if module != f"{package}.brains.people":
                problems.append(f"{folder.name}: scripted person {name!r} lives in {module}, not brains/people.py")
    return problems


@pytest.mark.parametrize("task", available_tasks())
def test_every_task_folder_has_the_shape(task):
    package = task_folders()[task]
    assert shape_problems(ROOT / "tasks" / package, f"tasks.{package}") == []


def test_the_eight_tasks_are_discovered_from_their_folders():
    assert set(available_tasks()) >= {"travel", "gnomes", "assignment", "planning", "mediation", "matrix-games",
                                      "asympuzl", "dond"}
    assert "core" not in available_tasks() and "dialop" not in available_tasks()  # shared code, not tasks
    with pytest.raises(ValueError, match="unknown task"):
        get_task("no-such-task")


def test_a_folder_that_leaves_the_shape_fails(tmp_path):
    toy = _write_toy(tmp_path)
    (toy / "parse.py").unlink()
    (toy / "helpers.py").write_text("from tasks.core import Brain\n\n\nclass StrayBrain(Brain):\n    pass\n")
    problems = shape_problems(toy, "tasks.toy_pick")
    assert "toy_pick/parse.py is missing" in problems
    assert any("helpers.py defines agents (StrayBrain)" in p for p in problems)


# --- the toy task: its folder, a layout and a plugin, nothing else ------------------------------------------------

TOY = {
    "__init__.py": '"""Toy: agree on a number close to both private favourites."""\n',
    "generator.py": """
        import random

        SEATS = ("a", "b")


        def generate(seed, options):
            rng = random.Random(seed)
            return {"favourite": {s: rng.randint(1, 9) for s in SEATS}}
        """,
    "parse.py": """
        from tasks.core import RuleError


        def number(args):
            if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 9:
                raise RuleError("Usage: /pick N with N from 1 to 9.")
            return int(args[0])
        """,
    "game.py": """
        from tasks.core import Game, ProposalCycle

        from . import generator
        from .parse import number


        class ToyGame(Game):
            task = "toy-pick"
            title = "Toy pick"
            seats = generator.SEATS
            person_seat_order = generator.SEATS

            @classmethod
            def generate(cls, seed, options):
                return generator.generate(seed, options)

            def __init__(self, seed, options=None, instance=None):
                super().__init__(seed, options, instance)
                self.proposals = ProposalCycle(self.seats)
                self.agreed = None

            def start(self, ctx):
                ctx.say("Pick a number with /pick N; the partner /agree s.")

            def view(self, seat):
                p = self.proposals.pending
                return {"favourite": self.inst["favourite"][seat], "agreed": self.agreed,
                        "pending": None if p is None else {"value": p.value, "mine": p.by == seat}}

            def results(self):
                fav = self.inst["favourite"].values()
                return {"agreed": self.agreed, "score": None if self.agreed is None else
                        18 - sum(abs(self.agreed - f) for f in fav)}

            def cmd_pick(self, ctx, seat, args):
                \"\"\"/pick N: propose N\"\"\"
                self.proposals.propose(seat, number(args))

            def cmd_agree(self, ctx, seat, args):
                \"\"\"/agree: accept the partner's number\"\"\"
                prop = self.proposals.agree(seat)
                if prop:
                    self.agreed = prop.value
                    ctx.end("completed")
        """,
    "render.py": """
        import html


        def render_view(view):
            return "<p>" + html.escape(str(view.get("agreed"))) + "</p>"
        """,
    "metrics.py": """
        def summarize(results):
            done = [r for r in results if r.get("agreed") is not None]
            return {"games": len(results), "agreed %": round(100.0 * len(done) / len(results), 1) if results else 0}
        """,
    "brains/__init__.py": """
        from .people import PEOPLE
        from .picker import PickerBrain

        BRAINS = {"picker": PickerBrain, **PEOPLE}
        """,
    "brains/picker.py": """
        from tasks.core import Brain, View


        class PickerBrain(Brain):
            name = "picker"

            def __init__(self, seat, seed=0, llm=None, options=None):
                super().__init__(seat, seed, llm, options)
                self.view = {}

            def observe(self, effect):
                if isinstance(effect, View):
                    self.view = effect.data

            def act(self):
                v = self.view
                if not v or v.get("core", {}).get("phase") != "playing" or v["agreed"] is not None:
                    return []
                if v["pending"] and not v["pending"]["mine"]:
                    return [self.command("agree")]
                return [] if v["pending"] else [self.command("pick", str(v["favourite"]))]
        """,
    "brains/people.py": """
        from .picker import PickerBrain


        class ChattyPerson(PickerBrain):
            name = "chatty"

            def act(self):
                moves = super().act()
                return [self.say("hello!")] + moves if moves else []


        PEOPLE = {"chatty": ChattyPerson}
        """,
    "spec.py": """
        from tasks.core import TaskSpec

        from . import metrics
        from .brains import BRAINS
        from .game import ToyGame

        SPEC = TaskSpec(
            name="toy-pick", title="Toy pick", game_class=ToyGame, brains=dict(BRAINS),
            default_brains=("picker", "picker"), population=("a", ("chatty",)), summarize=metrics.summarize,
            per_game_columns=("agreed", "score"), renderer="tasks.toy_pick.render:render_view",
            layout="toy-pick.json", state_element="toy-pick-state",
        )
        """,
}


def _write_toy(root: Path) -> Path:
    folder = root / "extra_tasks" / "toy_pick"
    for name, text in TOY.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    (root / "layouts").mkdir(exist_ok=True)
    (root / "plugins").mkdir(exist_ok=True)
    layout = json.loads((ROOT / "layouts" / "dond.json").read_text(encoding="utf-8"))
    layout["scripts"]["plain"] = ["slurk-task.js", "toy-pick.js"]
    layout["plugins_css"] = []
    layout["html"] = [{"layout-type": "div", "id": "toy-pick-state", "style": "display: none", "layout-content": ""}]
    layout.pop("css", None)
    (root / "layouts" / "toy-pick.json").write_text(json.dumps(layout), encoding="utf-8")
    for shared in ROOT.joinpath("plugins").glob("slurk-task*.js"):  # the suite's own page scripts, as every task
        (root / "plugins" / shared.name).write_text(shared.read_text(encoding="utf-8"), encoding="utf-8")
    (root / "plugins" / "toy-pick.js").write_text(";window.toyPick = 1;\n", encoding="utf-8")
    return folder


@pytest.fixture
def toy_task(tmp_path, monkeypatch):
    import sys

    import tasks.core.spec as spec_module

    folder = _write_toy(tmp_path)
    monkeypatch.setattr(tasks, "__path__", [*tasks.__path__, str(folder.parent)])
    monkeypatch.setattr(spec_module, "LAYOUTS_DIR", tmp_path / "layouts")
    yield tmp_path
    for name in [m for m in sys.modules if m == "tasks.toy_pick" or m.startswith("tasks.toy_pick.")]:
        del sys.modules[name]


def test_a_toy_task_in_its_own_folder_is_discovered_and_plays_a_local_game(toy_task, capsys):
    from bots.layouts import build_layout
    from bots.local import main

    assert "toy-pick" in available_tasks()
    spec = get_task("toy-pick")
    assert shape_problems(toy_task / "extra_tasks" / "toy_pick", "tasks.toy_pick") == []
    assert spec.plugins == ("slurk-task-incoming.js", "slurk-task-submit.js", "slurk-task-history.js",
                            "slurk-task.js", "toy-pick.js")          # read from its layout, written nowhere else
    body = build_layout(spec, plugins_dir=toy_task / "plugins", layouts_dir=toy_task / "layouts")
    assert len(body["scripts"]["plain"]) >= 2                        # its plugin is embedded into its page

    out = toy_task / "runs"
    # one process: the worker processes of a parallel run would not see this temporary folder on tasks.__path__
    assert main(["toy-pick", "--games", "3", "--parallel", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "agreed %" in printed and "100.0" in printed               # its own metrics, every game agreed
    assert any(out.rglob("*.csv"))
