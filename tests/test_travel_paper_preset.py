"""Preset `paper` of TRAVELING ADVENTURERS, on the requests a fake OpenAI-compatible server records: the paper's
sampling (temperature 1, the batch seed, max_tokens 1200 per answer and 600 per state-tracker reading), its own
prompts read at run time from a release checkout (here a fake one in tmp_path, our placeholder text in the release's
file layout and function shapes), its input blocks, free-text answers with its flags, one answer = one turn, no
agreed path for Baseline and Grounding; and the default preset beside it (our prompts, JSON answers, the client's
sampling). The real release is read only when PAPER_RELEASES names the folder holding the checkout."""
from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import pytest

from tasks import get_task
from tasks.core import PresetError
from tasks.core.evaluation import read_rows
from tasks.travel.brains import paper_release, release_text
from tests.fake_openai import play_against, request_schema
from tests.test_travel_paper_prompts import FLAGS  # the paper's input flags per agent, in order

TRAVEL = get_task("travel")
# The release's function shapes with our own placeholder words (3.12-style nested quotes included, as in the release)
AGENT_FN = '''
def {fn}(params: dict, N: int):
    """placeholder"""
    all_rooms = {{"L": "room L", "B": "room B", "E": "room E", "K": "room K", "C": "room C", "A": "room A"}}
    room_keys = list(all_rooms.keys())[:N]
    room_descriptions = [all_rooms[key] for key in room_keys]
    all_hallways = list(combinations(room_keys, 2))
    hallway_text = "\\n".join(
        f"* {{r1}}~{{r2}} = {{params.get(r1 + r2, params.get(r2 + r1, 0))}}"
        for r1, r2 in all_hallways
    )
    TEXT = f\'\'\'PLACEHOLDER {world} PROMPT of {variant}, {{N}} rooms: {{{{braces}}}}
{{"\\n".join(f"- {{desc}}" for desc in room_descriptions)}}
COINS
{{hallway_text}}\'\'\'
    return TEXT
'''
GSM_FN = '''
def get_current_ws(N: int):
    all_rooms = {"L": "room L", "B": "room B", "E": "room E", "K": "room K", "C": "room C", "A": "room A"}
    rooms = ", ".join(f"{all_rooms[abbrv]}" for abbrv in all_rooms.keys())
    WS = f"""PLACEHOLDER GSM PROMPT, {N} rooms: {rooms}."""
    return WS
'''
ANSWERS = itertools.count(1)


def fake_release(root: Path) -> Path:
    for variant, rel in release_text.PROMPT_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "from itertools import combinations\n"
        if variant != "baseline":
            text += GSM_FN
        for world, fn in (("GHOST", "GHOST_prompt"), ("LIGHT", "USER_LIGHT_prompt")):
            text += AGENT_FN.format(fn=fn, world=world, variant=variant)
        path.write_text(text, encoding="utf-8")
    return root


def paper_answer(req: dict) -> str:
    system = req["messages"][0]["content"]
    if request_schema(req) is not None:  # our JSON protocol (the default preset)
        p = request_schema(req)["properties"]
        if "coins" in p:
            return '{"thought": "none", "coins": []}'
        return ('{"thought": "L-B", "actions": [{"type": "suggest", "args": ["L", "B"]}], '
                f'"message": "Shall we start with the hallway L-B, answer {next(ANSWERS)}?"}}')
    if "GSM PROMPT" in system or "[NWS]" in system:
        return "[Thought]: one new coin value.\n[NWS]: [[\"L\", \"B\", 4]]"
    draft = "[Thought-DRAFT]: L-B-E-K-C-A-L\n[Thought-MISSING]: L-B\n" if "[History]" in req["messages"][-1][
        "content"] else "[Thought]: L-B first\n"
    return (f"{draft}[Action]: suggest([\"L\", \"B\"]), inform([\"L\", \"B\", 4]), agree-inner([\"L\", \"B\"])\n"
            f"[Message]: I have 4 coins on L-B, answer {next(ANSWERS)}. Shall we start there?")


def play(tmp_path, agents, options, brain_options=None):
    return play_against(paper_answer, TRAVEL, 2, agents, {"turn_limit": 4, **options}, str(tmp_path / "g.jsonl"),
                        brain_options)


def flags(text: str) -> list[str]:
    return re.findall(r"^\[([A-Za-z-]+)\]", text, flags=re.M)


def turn_requests(reqs, world):
    return [r for r in reqs if f"PLACEHOLDER {world.upper()} PROMPT" in r["messages"][0]["content"]]


@pytest.mark.parametrize("light,ghost", [("baseline", "grounding"), ("state-tracking", "problem-solving")])
def test_paper_preset_sends_the_papers_prompts_sampling_and_inputs(tmp_path, light, ghost):
    root = fake_release(tmp_path / "release")
    rec, reqs = play(tmp_path, {"light": light, "ghost": ghost}, {"preset": "paper", "paper_prompts": str(root)})
    assert rec.results["rules"] == "paper"
    start = next(r["data"] for _, r in read_rows(str(tmp_path / "g.jsonl")) if r["event"] == "game_start")
    assert start["options"]["preset"] == "paper" and start["options"]["paper_prompts"] == str(root)
    for world, variant in (("light", light), ("ghost", ghost)):
        turns = turn_requests(reqs, world)
        assert turns, variant
        system = turns[0]["messages"][0]["content"]
        # the release's text rendered for this seat: its rooms and its own coins, never the partner's
        assert system.startswith(f"PLACEHOLDER {world.upper()} PROMPT of {variant}, 6 rooms: {{braces}}\n- room L")
        mine = re.findall(r"^\* (\w)~(\w) = (\d+)$", system, flags=re.M)
        assert len(mine) == 15 and all(int(w) > 0 for _, _, w in mine)
        for k, req in enumerate(turns):
            assert (req["temperature"], req["seed"], req["max_tokens"]) == (1.0, 1011, 1200)
            assert "response_format" not in req  # free text with the paper's flags
            assert len(req["messages"]) == 2 + 2 * k  # the whole conversation so far
            user = req["messages"][-1]["content"]
            assert flags(user) == FLAGS[variant]
            assert (":" in user.split("]")[1][:1]) == (variant != "baseline")  # the release: no colons for baseline
            if variant in ("baseline", "grounding"):  # the paper's ablation: no agreed path in any form
                assert "Visited" not in user and "agreed" not in user.lower()
        assert turns[0]["messages"][-1]["content"].endswith("<START>") == (world == "light")
        # one model answer (three actions and a message) is one turn
        assert rec.results["turns_by_seat"][world] == len(turns)
    readings = [r for r in reqs if r["messages"][0]["content"].startswith("PLACEHOLDER GSM PROMPT")]
    assert readings and all((r["temperature"], r["seed"], r["max_tokens"]) == (1.0, 1011, 600) for r in readings)
    assert all(flags(r["messages"][-1]["content"])[:2] == ["Message", "OWS"] for r in readings)
    notes = [r["data"] for _, r in read_rows(str(tmp_path / "g.jsonl")) if r["event"] == "agent_note"]
    assert not [n for n in notes if n["kind"] in ("llm_fallback", "llm_failed")]
    acts = [n for n in notes if n["kind"] == "llm_act"]
    assert acts and all(a["valid"] and not a["fallback"] for a in acts)


def test_explicit_options_win_over_the_preset(tmp_path):
    root = fake_release(tmp_path / "release")
    _, reqs = play(tmp_path, {"light": "baseline", "ghost": "baseline"},
                   {"preset": "paper", "paper_prompts": str(root)},
                   {"sampling": {"*": {"temperature": 0.5, "seed": 7}, "turn": {"max_tokens": 300}}})
    assert {(r["temperature"], r["seed"], r["max_tokens"]) for r in reqs} == {(0.5, 7, 300)}


def test_default_preset_is_our_labelled_variant(tmp_path):
    rec, reqs = play(tmp_path, {"light": "baseline", "ghost": "grounding"}, {})
    assert rec.results["rules"] == "ours"
    start = next(r["data"] for _, r in read_rows(str(tmp_path / "g.jsonl")) if r["event"] == "game_start")
    assert start["options"].get("preset") in (None, "ours")
    turns = [r for r in reqs if "actions" in (request_schema(r) or {}).get("properties", {})]
    assert turns and all("response_format" in r and "seed" not in r for r in turns)
    assert all(r["temperature"] != 1.0 and r["max_tokens"] != 1200 for r in turns)  # the client's settings
    assert "[Open-proposal]" in turns[0]["messages"][-1]["content"]  # our agents see the game's state


def test_paper_preset_without_the_release_says_what_is_missing(tmp_path):
    with pytest.raises(PresetError, match=r"prompts_baseline\.py.*collaborative-problem-solving"):
        play(tmp_path, {"light": "baseline", "ghost": "baseline"}, {"preset": "paper"})
    (tmp_path / "partial" / "GAME" / "AGENTS").mkdir(parents=True)
    with pytest.raises(PresetError, match="lacks GAME/AGENTS/prompts_baseline.py"):
        play(tmp_path, {"light": "baseline", "ghost": "baseline"},
             {"preset": "paper", "paper_prompts": str(tmp_path / "partial")})


def test_answers_are_read_with_the_papers_flags():
    out = paper_release.parse_answer('[Thought-DRAFT]: LBEKCAL, see [IBP]\n[Thought-MISSING]: E-K\n[Action]: '
                                     'suggest(["L", "B"]), visit("B"), end([\'L\',\'B\',\'E\',\'K\',\'C\',\'A\','
                                     '\'L\'])\n[Message]: ok, B then.')
    assert out["actions"] == [{"type": "suggest", "args": ["L", "B"]}, {"type": "visit", "args": ["B"]},
                              {"type": "end", "args": list("LBEKCAL")}]
    assert out["message"] == "ok, B then." and out["thought_missing"] == "E-K" and "[IBP]" in out["thought_draft"]
    with pytest.raises(ValueError):
        paper_release.parse_answer("I think we should go to B.")
    assert paper_release.parse_coins('[Thought]: x\n[NWS]: [["B", "E", 4], ["K","L",2]]') == [
        {"hallway": ["B", "E"], "coins": 4}, {"hallway": ["K", "L"], "coins": 2}]


RELEASES = os.environ.get("PAPER_RELEASES")


@pytest.mark.skipif(not RELEASES, reason="set PAPER_RELEASES to the folder holding collaborative-problem-solving")
def test_the_real_release_renders_for_every_variant_and_seat(tmp_path):
    root = Path(RELEASES) / "collaborative-problem-solving"
    view = {"rooms": [{"id": r} for r in "LEBKCA"], "world": "ghost",
            "my_coins": {"L-E": 6, "L-B": 4, "L-K": 2, "L-C": 1, "L-A": 5, "E-B": 3, "E-K": 1, "E-C": 2, "E-A": 6,
                         "B-K": 5, "B-C": 4, "B-A": 3, "K-C": 6, "K-A": 2, "C-A": 1}}
    for variant in release_text.PROMPT_FILES:
        for world in ("ghost", "light"):
            text = paper_release.system_prompt(str(root), variant, {**view, "world": world})
            assert 14_000 < len(text) < 17_500 and "[Message]" in text
            assert f"hallway between K and C: 6 {world} coins" in text
        if variant != "baseline":
            assert 7_000 < len(paper_release.grounding_prompt(str(root), variant, view)) < 8_000
    _, reqs = play(tmp_path, {"light": "state-tracking", "ghost": "problem-solving"},
                   {"preset": "paper", "paper_prompts": str(root)})
    assert reqs and all(r["temperature"] == 1.0 and r["seed"] == 1011 for r in reqs)
