"""The four LLM agents with the paper's prompt structure in our wording (prompts="paper", the default under
rules=paper), checked on the requests a fake OpenAI-compatible server receives: the inputs and answer fields per
variant, the worked example, the full history, the sampling per use (brain option `sampling`, here the paper's from
preset `paper`), and `inform` that never becomes /share. The preset itself: test_travel_paper_preset.py."""
from __future__ import annotations

import itertools
import json
import re

import pytest

from tasks.core.evaluation import read_rows
from tasks import get_task
from tasks.travel.spec import PAPER_SAMPLING
from tests.fake_openai import play_against, request_schema

TRAVEL = get_task("travel")
FLAGS = {
    "baseline": ["World-state-own", "History", "Observation"],
    "grounding": ["World-state-own", "World-state-user", "History", "Observation"],
    "state-tracking": ["World-state-own", "World-state-user", "Visited", "Remaining", "Observation"],
    "problem-solving": ["World-state-own", "World-state-user", "Remaining", "Visited", "IBP", "Observation"],
}
ALL_FLAGS = {"World-state-own", "World-state-user", "History", "Visited", "Remaining", "IBP", "Observation",
             "Open-proposal", "Agreed-path", "Turns-left", "Submitted", "World-state-partner"}


def props(req: dict) -> dict:
    return (request_schema(req) or {}).get("properties") or {}


ANSWERS = itertools.count(1)


def answer(req: dict) -> str:
    """A valid answer; its message is numbered (the agents never send the same line twice)."""
    p = props(req)
    if "coins" in p:  # the grounding module
        return json.dumps({"thought": "nothing new", "coins": []})
    thoughts = {"thought_draft": "L-B first", "thought_missing": "your L-B"} if "thought_draft" in p else \
        {"thought": "L-B first"}
    return json.dumps({**thoughts, "actions": [{"type": "inform", "args": ["L", "B"]},
                                               {"type": "suggest", "args": ["L", "B"]}],
                       "message": f"I have some coins on L-B ({next(ANSWERS)}). Shall we start with L-B?"})


def play(tmp_path, agents, options=None, brain_options=None):
    brain_options = {"sampling": PAPER_SAMPLING, **(brain_options or {})}
    return play_against(answer, TRAVEL, 4, agents, {"rules": "paper", "turn_limit": 4, **(options or {})},
                        str(tmp_path / "g.jsonl"), brain_options)


def turns_of(reqs, world):
    return [r for r in reqs if "actions" in props(r) and f"You are in the {world} world" in r["messages"][0]["content"]]


def flags(text: str) -> list[str]:
    return re.findall(r"^\[([A-Za-z-]+)\]:", text, flags=re.M)


@pytest.mark.parametrize("light,ghost", [("baseline", "grounding"), ("state-tracking", "problem-solving")])
def test_each_variant_gets_the_papers_inputs_answer_fields_and_defaults(tmp_path, light, ghost):
    rec, reqs = play(tmp_path, {"light": light, "ghost": ghost})
    assert rec.results["rules"] == "paper"
    for world, variant in (("light", light), ("ghost", ghost)):
        turns = turns_of(reqs, world)
        assert len(turns) >= 2, f"{variant} made too few requests"
        system = turns[0]["messages"][0]["content"]
        # the paper's sections in order, with our own worked example (several turns) before the real house
        order = [system.index(s) for s in ("Each turn you get:", "The most important rules", "example setup",
                                           "example conversation", "---", "Are you ready?")]
        assert order == sorted(order) and system.count("\nOutput:\n") >= 3
        for req in turns:
            user = req["messages"][-1]["content"]
            assert flags(user) == FLAGS[variant], (variant, flags(user))
            assert req["temperature"] == 1.0 and req["max_tokens"] == 1200
        # the example's inputs have the same flags as the real turns
        example_inputs = re.findall(r"Input:\n(.*?)\nOutput:", system, flags=re.S)
        assert example_inputs and all(flags(x) == FLAGS[variant] for x in example_inputs)
        p = props(turns[0])
        enum = p["actions"]["items"]["properties"]["type"]["enum"]
        if variant in ("baseline", "grounding"):
            assert {"thought_draft", "thought_missing"} <= set(p) and "thought" not in p and "solve" in enum
            assert "[Thought-DRAFT]" in system and "[Thought-MISSING]" in system and "solve(x)" in system
            assert "Visited" not in system.split("---")[0].split("Here is an example")[0]  # no agreed path
        else:
            assert "thought" in p and "thought_draft" not in p and "solve" not in enum
        assert (variant == "problem-solving") == ("[IBP]" in system)


def test_the_whole_history_is_kept_by_default_and_options_change_the_defaults(tmp_path):
    _, reqs = play(tmp_path, {"light": "baseline", "ghost": "baseline"}, {"turn_limit": 12})
    turns = turns_of(reqs, "light")
    assert len(turns) >= 4
    for k, req in enumerate(turns):  # system + k earlier exchanges + this turn's input
        assert len(req["messages"]) == 1 + 2 * k + 1
    assert turns[-1]["messages"][1]["content"] == turns[0]["messages"][-1]["content"]
    _, reqs = play(tmp_path, {"light": "baseline", "ghost": "baseline"}, {"turn_limit": 12},
                   {"history_turns": 1, "sampling": {"*": {"temperature": 0.3}, "turn": {"max_tokens": 500}}})
    turns = turns_of(reqs, "light")
    assert max(len(r["messages"]) for r in turns) <= 1 + 2 * 2 + 1  # trimmed in blocks of history_turns
    assert all(r["temperature"] == 0.3 and r["max_tokens"] == 500 for r in turns)


def test_grounding_module_reads_like_the_papers_gsm(tmp_path):
    _, reqs = play(tmp_path, {"light": "grounding", "ghost": "state-tracking"})
    reading = [r for r in reqs if "coins" in props(r)]
    assert reading and all(r["max_tokens"] == 600 and r["temperature"] == 1.0 for r in reading)
    assert props(reading[0])["coins"]["maxItems"] == 15  # every hallway of the house may be stated at once
    by_world = {w: [r for r in reading if f"[World]: {w}" in r["messages"][-1]["content"]] for w in ("LIGHT", "GHOST")}
    # grounding (light seat) reads the ghost's messages without [Loc]; state-tracking reads light's with [Loc]
    assert by_world["GHOST"] and all(flags(r["messages"][-1]["content"]) == ["Message", "OWS", "World"]
                                     for r in by_world["GHOST"])
    assert by_world["LIGHT"] and all(flags(r["messages"][-1]["content"]) == ["Message", "OWS", "Loc", "World"]
                                     for r in by_world["LIGHT"])


def test_inform_is_not_share_and_the_message_is_said(tmp_path):
    rec, _ = play(tmp_path, {"light": "grounding", "ghost": "baseline"})
    inputs = [r["data"]["input"] for _, r in read_rows(str(tmp_path / "g.jsonl")) if r["event"] == "game_input"]
    assert not [i for i in inputs if i.get("type") == "Command" and i.get("name") == "share"]
    assert any(i.get("type") == "Chat" and "L-B" in i.get("text", "") for i in inputs)
    assert any(i.get("type") == "Command" and i.get("name") == "propose" for i in inputs)
    notes = [r["data"] for _, r in read_rows(str(tmp_path / "g.jsonl")) if r["event"] == "agent_note"]
    assert not [n for n in notes if n.get("kind") in ("llm_fallback", "bad_action")]


def test_our_prompts_stay_available_under_paper_rules(tmp_path):
    _, reqs = play(tmp_path, {"light": "baseline", "ghost": "baseline"}, brain_options={"prompts": "ours"})
    turns = [r for r in reqs if "actions" in props(r)]
    user = turns[0]["messages"][-1]["content"]
    assert "[Open-proposal]" in user and "thought" in props(turns[0])
    assert "example conversation" not in turns[0]["messages"][0]["content"]


def test_a_paper_agent_repeating_an_agreed_step_does_not_propose_going_back():
    from tasks.core import View
    from tasks.travel.brains import BaselineBrain
    from tests.test_travel_game import Room

    room = Room(rules="paper")
    room.cmd("light", "propose", "B", "K")
    room.cmd("ghost", "agree")
    room.cmd("ghost", "propose", "E")
    brain = BaselineBrain("light", 0, None, {})
    brain.observe(View("light", room.view("light")))
    assert brain.paper_style and room.view("light")["agreed"] == ["L", "B", "K"]
    stale = brain._apply({"thought_draft": "", "thought_missing": "", "message": "L-B is good",
                          "actions": [{"type": "suggest", "args": ["L", "B"]}]})
    assert [m.name for m in stale if hasattr(m, "name")] == []
    fresh = brain._apply({"thought_draft": "", "thought_missing": "", "message": "then A",
                          "actions": [{"type": "suggest", "args": ["K", "A"]}]})
    assert [(m.name, m.args) for m in fresh if hasattr(m, "name")] == [("propose", ("L", "B", "K", "A"))]


def test_the_cli_refuses_the_paper_agents_without_an_llm(monkeypatch):
    """`--agents baseline,...` with no model configured stops with a message instead of printing the solver's
    figures under the LLM agent's name; the solver alone (its reader can use an LLM) plays on."""
    from bots.local import main as cli
    for var in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    for variant in ("baseline", "grounding", "state-tracking", "problem-solving"):
        with pytest.raises(SystemExit, match=f"the {variant!r} agent needs an LLM"):
            cli(["travel", "--agents", f"solver,{variant}", "--quiet"])
