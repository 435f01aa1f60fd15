"""End-to-end play through tasks.core.MatchDriver: the agent, the mute agent and the simulated partner."""
import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tasks import get_task
from tasks.core import ChatShown, Join, LogEvent, Match, MatchDriver, SeatInfo, addressed_to
from tasks.gnomes import metrics

SPEC = get_task("gnomes")
ROOT = Path(__file__).resolve().parents[1]
FAST = {"iterations": 150}  # a fixed, small search keeps the tests quick and reproducible


def play(agents, seed=1, options=None, brain_options=None):
    game = SPEC.game_class(seed, {"index": seed, **(options or {})})
    match = Match(game, {s: SeatInfo("agent", s) for s in game.seats})
    brains = {s: SPEC.make_brain(a, s, seed * 10 + i, None, (brain_options or {}).get(a, FAST))
              for i, (s, a) in enumerate(zip(game.seats, agents))}
    clock = itertools.count(0.0, 0.5)
    driver = MatchDriver(match, brains, clock=lambda: next(clock), max_steps=100000)
    effects = [e for batch in driver.open() for e in batch]
    return match, effects


def test_spec():
    assert SPEC.name == "gnomes" and SPEC.title == "Gnomes at Night"
    assert {"aismcts", "mute", "partner"} <= set(SPEC.brains)  # plus the scripted people (partners.py)
    assert SPEC.default_brains == ("partner", "aismcts") and SPEC.seats == ("h", "e")
    assert SPEC.layout == "gnomes.json" and {"gnomes.js", "gnomes.css"} <= set(SPEC.plugins)  # from the layout
    assert SPEC.state_element == "gnomes-state"
    for col in SPEC.per_game_columns:
        assert col in {"turns_r1", "turns_r2", "turns_r3", "turns_r4", "turns_r5", "turns_total", "optimum_total",
                       "turn_ratio", "blocked_total", "found", "messages_h", "messages_e"}


def test_agent_and_simulated_partner_play_five_rounds_by_chat():
    match, effects = play(("partner", "aismcts"))
    assert match.status == "completed"
    res = match.results
    assert res["rounds_played"] == 5 and res["found"] == 5
    assert all(r["turns"] >= r["optimum"] for r in res["rounds"])
    chats = {s: [e.text for e in effects if isinstance(e, ChatShown) and e.seat == s] for s in ("h", "e")}
    # The two brains really talk: suggestions, rejections with the wall template, questions and answers.
    assert any(t.startswith("Can you move") for t in chats["e"]) and any(t.startswith("Can you") for t in chats["h"])
    assert any("a wall blocks that side" in t for t in chats["h"] + chats["e"])
    assert any(t == "Where is the treasure?" for t in chats["e"])
    assert any(t.startswith("The treasure is") for t in chats["h"])
    assert res["messages_e"] > 0 and res["messages_h"] > 0
    notes = [e.data for e in effects if isinstance(e, LogEvent) and e.event == "agent_note"]
    assert any(n["kind"] == "decision" for n in notes) and any(n["kind"] == "omega" for n in notes)
    summary = SPEC.summarize([res])
    assert summary["games"] == 1 and summary["turns_total"] == res["turns_total"]
    assert {f"turns_r{r}" for r in range(1, 6)} <= set(summary)


def test_self_play_is_reproducible_with_fixed_iterations():
    a, _ = play(("partner", "aismcts"), seed=4, options={"rounds": 2})
    b, _ = play(("partner", "aismcts"), seed=4, options={"rounds": 2})
    assert [r["turns"] for r in a.results["rounds"]] == [r["turns"] for r in b.results["rounds"]]


def test_mute_agent_sends_nothing_and_the_game_still_ends():
    match, effects = play(("partner", "mute"), options={"turn_cap": 30})
    assert match.status == "completed" and match.results["rounds_played"] == 5
    assert not [e for e in effects if isinstance(e, ChatShown) and e.seat == "e"]
    assert match.results["messages_e"] == 0


def test_simulated_partner_with_itself_and_the_agent_moving_first():
    match, _ = play(("partner", "partner"), options={"first": "e"})
    assert match.status == "completed" and match.results["found"] == 5
    match, _ = play(("aismcts", "partner"), seed=2, options={"rounds": 2})  # the agent on side 0 works too
    assert match.status == "completed"


def test_scripted_person_with_the_agent():
    """A person seat (joins, timers on) played by a script that types its moves and messages as inputs."""
    game = SPEC.game_class(3, {"rounds": 5})
    match = Match(game, {"h": SeatInfo("person", "Pat"), "e": SeatInfo("agent", "bot")})
    agent = SPEC.make_brain("aismcts", "e", 3, None, FAST)
    person = SPEC.make_brain("partner", "h", 4, None, {})   # its decisions, delivered as typed inputs
    clock = itertools.count(0.0, 1.0)
    driver = MatchDriver(match, {"e": agent}, clock=lambda: next(clock))
    pending = [e for batch in driver.open() for e in batch]
    pending += [e for batch in driver.feed(Join("h", t=next(clock))) for e in batch]
    for _ in range(2000):
        if match.over:
            break
        for e in pending:
            if addressed_to(e, "h") and not isinstance(e, LogEvent):
                person.observe(e)
        pending = []
        for inp in person.act():
            pending += [e for batch in driver.feed(inp) for e in batch]
    assert match.status == "completed" and match.results["found"] == 5
    assert "h" in match.codes  # the person got a completion code


def test_summarize_over_games():
    results = [play(("partner", "aismcts"), seed=s, options={"rounds": 1})[0].results for s in (1, 2)]
    s = metrics.summarize(results)
    assert s["games"] == 2 and s["opt_r1"] == 5 and s["turns_r1"] >= 5
    assert s["ratio_r1"] == round(s["turns_r1"] / 5, 3)
    assert metrics.summarize([]) == {"games": 0}


def test_page_files():
    js = (ROOT / "plugins" / "gnomes.js").read_text()
    assert js.startswith(";") and js.count("{") == js.count("}")
    assert ".innerHTML" not in js and "insertAdjacentHTML" not in js  # data reaches the page as text only
    # the shared page script reads the state and sends moves privately to the bot
    assert 'SlurkTask.watch("gnomes-state"' in js
    assert 'SlurkTask.send({command: "move", args: [dir]})' in js
    layout = json.loads((ROOT / "layouts" / "gnomes.json").read_text())
    ids = {node["id"] for node in layout["html"]}
    assert {"gnomes-board", "gnomes-state"} <= ids
    # chat lines are shown by the suite's own scripts (the game master's mark, look-alike names, the length cap)
    assert layout["scripts"] == {"incoming-text": "slurk-task-incoming.js", "submit-message": "slurk-task-submit.js",
                                 "print-history": "slurk-task-history.js", "plain": ["slurk-task.js", "gnomes.js"]}
    assert (ROOT / "plugins" / "gnomes.css").read_text().count("{") == \
        (ROOT / "plugins" / "gnomes.css").read_text().count("}")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_plugin_is_valid_javascript():
    subprocess.run(["node", "--check", str(ROOT / "plugins" / "gnomes.js")], check=True, timeout=30)
