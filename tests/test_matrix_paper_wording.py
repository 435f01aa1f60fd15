"""matrix-games `llm` under `wording: paper` (the `paper` preset) sends the release agent's own prompts, read at run
time: every request a game sends to a fake OpenAI-compatible server is the fake release's text (tests/
matrix_fake_release.py: the release's code structure, our placeholder words) rendered with the game's names, neutral
labels, payoffs and messages, composed in the release's order; with PAPER_RELEASES set, the prompts a game sends
under the real release are byte for byte those the release's own Agent builds for the same game and messages."""
from __future__ import annotations

import importlib.util
import os
import re
import sys
import types
from pathlib import Path

import pytest

from tasks import get_task
from tasks.core import PresetError
from tasks.core.release_text import ReleaseError
from tasks.matrix_games import release
from tests.fake_openai import play_against
from tests.matrix_fake_release import fake_release

SPEC = get_task("matrix-games")
FAMOUS = re.compile(r"cooperat|defect|stag\b|\bhare\b|escalat|prisoner|dilemma", re.I)


def is_negotiation(prompt: str) -> bool:
    return prompt.rsplit("### ", 1)[-1].startswith("Negotiation")


def model(talk=(), move="choice_1"):
    """A model answering a prompt: negotiation lines from `talk` (then halt); anything else (a move, a workflow
    chain step or summary) `move` with a reason."""
    said = iter(talk)
    return lambda prompt: (f"<s>{next(said, 'halt negotiation')}</s>" if is_negotiation(prompt)
                           else f"<r>it pays more</r> <s>{move}</s>")


def play(root, options, brain_options=None, talk=(), move="choice_1", tmp=None, agent="llm"):
    """One game of two `agent`s under the paper preset against model(talk, move): the user prompts sent, in order,
    and the game's results."""
    answer = model(talk, move)
    tmp.mkdir(parents=True, exist_ok=True)
    rec, reqs = play_against(lambda req: answer(req["messages"][-1]["content"]), SPEC, 1,
                             {"alice": agent, "bob": agent}, {"preset": "paper", "paper_prompts": root, **options},
                             str(tmp / "game.jsonl"), brain_options)
    return [r["messages"][-1]["content"] for r in reqs], rec.results


def pd_setting(me: str, other: str) -> str:
    rules = (f"- SAME choice_1 with {other}: 3/3.\n- DIFF choice_1 vs {other} choice_2: 0/5.\n\n\n"
             f"- DIFF choice_2 vs {other} choice_1: 5/0.\n- SAME choice_2 with {other}: 1/1.\n\n")
    return f"\nSETTING {me} vs {other}: 2 options choice_1, choice_2\nRULES\n{rules}\n"


def test_a_simultaneous_game_sends_the_releases_setting_negotiation_history_action_and_probe(tmp_path):
    root = fake_release(tmp_path / "release")
    prompts, results = play(root, {"game": "prisoners-dilemma", "negotiation": 2}, {"negotiation_prompt": 3},
                               talk=["Let us both take choice_1.", "Agreed."], tmp=tmp_path)
    lines = ["A-FIRST 1: Let us both take choice_1.", "B-REPLY 1: Agreed."]
    talk = "\n### Negotiation\nTALK with {other}, 2 rounds\n"
    assert prompts == [
        pd_setting("Alice", "Bob") + talk.format(other="Bob"),
        pd_setting("Bob", "Alice") + talk.format(other="Alice") + "\nTALK-HISTORY:\n" + lines[0],
        pd_setting("Alice", "Bob") + talk.format(other="Bob") + "\nTALK-HISTORY:\n" + "\n".join(lines),  # halts
        # setting + '\n' + history + '\n' + action + '\n\n' + the paper's Prompt 3 (the code's key 6) to the partner
        pd_setting("Alice", "Bob") + "\n" + "\nACT-HISTORY:\n" + "\n".join(lines) + "\n"
        + "\n### Your Action\nACT among choice_1, choice_2\n" + "\n\n" + "PLACEHOLDER probe 6 about Bob.\n",
        pd_setting("Bob", "Alice") + "\n" + "\nACT-HISTORY:\n" + "\n".join(lines) + "\n"
        + "\n### Your Action\nACT among choice_1, choice_2\n" + "\n\n" + "PLACEHOLDER probe 6 about Alice.\n",
    ]
    assert results["outcome"] == {"alice": "choice_1", "bob": "choice_1"} and results["status"] == "completed"


def test_without_a_negotiation_the_action_prompt_is_the_setting_and_the_action_only(tmp_path):
    root = fake_release(tmp_path / "release")
    prompts, _ = play(root, {"game": "prisoners-dilemma", "negotiation": 0}, {"negotiation_prompt": 3},
                         tmp=tmp_path)
    assert prompts == [pd_setting(me, other) + "\n" + "\n### Your Action\nACT among choice_1, choice_2\n"
                       for me, other in (("Alice", "Bob"), ("Bob", "Alice"))]


def test_a_sequential_game_sends_the_releases_tree_prompts_with_moves_played_and_history(tmp_path):
    root = fake_release(tmp_path / "release")
    prompts, results = play(root, {"game": "escalation", "negotiation": 1, "first": "bob"},
                               talk=[f"note {n}" for n in range(6)], move="_choice_2", tmp=tmp_path)
    rules = ("WHEN Alice takes choice_1, THEN A=0 B=0.\n"  # shorter paths first, rewards as Alice's, Bob's
             "WHEN Alice takes choice_2, next Bob takes choice_1, THEN A=1 B=-2.\n"
             "WHEN Alice takes choice_2, next Bob takes choice_2, next Alice takes choice_1, THEN A=-2 B=1.\n"
             "WHEN Alice takes choice_2, next Bob takes choice_2, next Alice takes choice_2, THEN A=-1 B=-1.")

    def setting(me, other):
        return f"\nTREE {me} vs {other}\nRULES\n{rules}\n"
    ordinals = ("first", "second", "third")
    lines = [f"{'B-FIRST' if n % 2 == 0 else 'A-REPLY'} 1 before {ordinals[n // 2]}:\nnote {n}" for n in range(6)]
    played = ["", "PLAYED Alice took choice_2\n", "PLAYED Alice took choice_2; Bob took choice_2\n"]
    names = {"Alice": "Bob", "Bob": "Alice"}

    def negotiate(me, step, heard):
        history = "\nTALK-HISTORY:\n" + "\n".join(lines[:heard]) if heard else ""
        return setting(me, names[me]) + "\n" + played[step] + f"### Negotiation\nTALK with {names[me]}, 1 rounds\n" \
            + history

    def action(me, step):  # the release keeps the underscore of "Alice_choice_1": "_choice_1"
        return setting(me, names[me]) + "\n" + "\nACT-HISTORY:\n" + "\n".join(lines[:2 * step + 2]) + "\n" + "\n" \
            + played[step] + "### Your Action\nPICK _choice_1, _choice_2\n" + "\n\n"
    movers = ("Alice", "Bob", "Alice")
    assert prompts == [p for step in range(3) for p in (negotiate("Bob", step, 2 * step),
                                                        negotiate("Alice", step, 2 * step + 1),
                                                        action(movers[step], step))]
    assert results["outcome"] == ["choice_2", "choice_2", "choice_2"] and results["status"] == "completed"


def test_the_simultaneous_workflow_sends_the_releases_chains_summary_and_strategy(tmp_path):
    root = fake_release(tmp_path / "release")
    prompts, results = play(root, {"game": "prisoners-dilemma", "negotiation": 1}, talk=["Both choice_1?", "Yes."],
                            move="choice_2", tmp=tmp_path, agent="llm-workflow")
    rules = ("- WF-SAME choice_1: 3/3.\n- WF-DIFF choice_1 vs choice_2: 0/5.\n\n\n"
             "- WF-DIFF choice_2 vs choice_1: 5/0.\n- WF-SAME choice_2: 1/1.\n\n")
    names = {"Alice": "Bob", "Bob": "Alice"}

    def setting(me):
        return f"\nWF-SETTING {me} vs {names[me]}: 2 options choice_1, choice_2\n{rules}\n"

    def chains(me):
        """The chain questions and sentences in the release's order: Alice's perspective first."""
        theirs = [(f"### Their Reply\nI took {c}; {names[me]} picks from choice_1, choice_2\n",
                   f"\nAFTER my {c}: {names[me]} choice_2 as it pays more.\n") for c in ("choice_1", "choice_2")]
        mine = [(f"### My Reply\n{names[me]} took {c}; I pick from choice_1, choice_2\n",
                 f"\nAFTER {names[me]} {c}: I choice_2 as it pays more.\n") for c in ("choice_1", "choice_2")]
        steps = theirs + mine if me == "Alice" else mine + theirs
        return ([setting(me) + "\n\n" + ask for ask, _ in steps]
                + [setting(me) + "\n\n### Summary\nSUM " + "\n".join(said for _, said in steps) + "\n"])
    plan = "\n### Plan\nPLAN choice_2\n"
    lines = ["A-FIRST 1: Both choice_1?", "B-REPLY 1: Yes."]

    def talk(me, heard):  # the game setting, the strategy, then the negotiation prompt and the talk so far
        return setting(me) + "\n" + plan + "\n" + f"\n### Negotiation\nWF-TALK with {names[me]}, 1 rounds\n" \
            + ("\nWF-TALK-HISTORY:\n" + "\n".join(lines[:heard]) if heard else "")

    def act(me):
        return setting(me) + "\n" + plan + "\n" + "\nWF-ACT-HISTORY:\n" + "\n".join(lines) + "\n" \
            + "\n### Your Action\nWF-ACT among choice_1, choice_2\n" + "\n\n"
    # each seat builds its chains before its first prompt of the game (the release builds both before the talk)
    assert prompts == chains("Alice") + [talk("Alice", 0)] + chains("Bob") + [talk("Bob", 1), act("Alice"),
                                                                               act("Bob")]
    assert results["outcome"] == {"alice": "choice_2", "bob": "choice_2"}


def test_the_sequential_workflow_sends_the_releases_backward_induction_prompts(tmp_path):
    root = fake_release(tmp_path / "release")
    prompts, results = play(root, {"game": "escalation", "negotiation": 0}, move="choice_2", tmp=tmp_path,
                            agent="llm-workflow")
    rules = ("WF-WHEN Alice takes choice_1, THEN A=0 B=0.\n"
             "WF-WHEN Alice takes choice_2, next Bob takes choice_1, THEN A=1 B=-2.\n"
             "WF-WHEN Alice takes choice_2, next Bob takes choice_2, next Alice takes choice_1, THEN A=-2 B=1.\n"
             "WF-WHEN Alice takes choice_2, next Bob takes choice_2, next Alice takes choice_2, THEN A=-1 B=-1.")
    alice = f"\nWF-TREE Alice vs Bob\n{rules}\n\n"
    thoughts = ("First: I take choice_2 as it pays more.\nSecond: Bob takes choice_2 as it pays more.\n"
                "Third: I take choice_2 as it pays more.")
    assert prompts[:5] == [
        # the deepest decision first, asked plainly: nothing below it is decided
        alice + "\n### Decide Mine\nAFTER START Alice took choice_2. NEXT Bob took choice_2. I pick from "
                "choice_1, choice_2\n",
        # then Bob's, noted with what was decided below each move; the release rewrites I/my in the whole prompt
        alice + "\n### Decide Theirs Noted\nAFTER START Alice took choice_2. Bob picks from choice_1, choice_2\n"
                "NOTE Bob choice_1: END. NOTE Bob choice_2: you then choice_2 (it pays more).\n\n",
        alice + "\n### Decide Mine Noted\nAFTER  you pick from choice_1, choice_2\nNOTE your choice_1: END. "
                "NOTE your choice_2: Bob then choice_2 (it pays more).\nyou then choice_2 (it pays more).\n\n",
        alice + "\n### Summary\nSUM " + thoughts + "\n",
        # the strategy text and the thinking chains after the game setting
        alice + "\n### Plan\nPLAN choice_2\n" + "\n" + thoughts + "\n"
        + "\n### Your Action\nWF-PICK _choice_1, _choice_2\n",
    ]
    assert len(prompts) == 11 and "\nWF-PLAYED Alice took _choice_2\n### Your Action" in prompts[9]  # Bob's move
    assert "Second: I take choice_2 as it pays more." in prompts[9]  # Bob's own chains: he is "I"
    assert results["outcome"] == ["choice_2", "choice_2", "choice_2"]


def test_the_default_wording_sends_none_of_the_release_text(tmp_path):
    root = fake_release(tmp_path / "release")
    prompts, _ = play(root, {"game": "prisoners-dilemma", "preset": "ours"}, tmp=tmp_path)
    assert prompts and not any("SETTING" in p or "ACT among" in p for p in prompts)
    prompts, _ = play(root, {"game": "prisoners-dilemma", "preset": "ours"}, tmp=tmp_path / "workflow",
                      agent="llm-workflow")
    assert prompts and not any("SETTING" in p or "PLAN " in p or "AFTER my" in p for p in prompts)


def test_a_release_without_the_sequential_agent_stops_before_the_game(tmp_path):
    root = fake_release(tmp_path / "release", files=(release.SYSTEM_FILE, release.PROMPTS_FILE))
    with pytest.raises((PresetError, ReleaseError)) as exc:
        play(root, {"game": "prisoners-dilemma"}, tmp=tmp_path)
    assert release.SEQUENTIAL_FILE in str(exc.value) and release.RELEASE in str(exc.value)


# --- the real release (PAPER_RELEASES) ---------------------------------------------------------------------------
def _release_agents(monkeypatch, src: Path):
    """The release's agent modules, loaded with stand-ins for what they import but never use here (its model
    wrapper, tqdm, inflect: the ordinal words of the moves)."""
    inflect = types.SimpleNamespace(engine=lambda: types.SimpleNamespace(
        ordinal=lambda n: n, number_to_words=lambda n: ("first", "second", "third", "fourth")[n - 1]))
    stand_ins = {"model": types.SimpleNamespace(call_api=None), "tqdm": types.SimpleNamespace(tqdm=lambda x: x),
                 "inflect": inflect}
    for name, module in stand_ins.items():
        monkeypatch.setitem(sys.modules, name, module)
    loaded = {}
    for name in ("configuration", "simultaneous_game_agent", "sequential_game_agent", "workflow_design"):
        spec = importlib.util.spec_from_file_location(name, src / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        loaded[name] = module
    return loaded["simultaneous_game_agent"], loaded["sequential_game_agent"], loaded["workflow_design"]


def _release_prompts(module, game: str, answer, k: int, probe: int, game_class: str = "Game",
                     game_type: str = "simultaneous") -> list[str]:
    """The prompts the release's own game class sends, answered by `answer` (the agents' halt never fires: k full
    rounds)."""
    sent = []

    def call_api(model, prompt, system_prompt):
        sent.append(prompt)
        return answer(prompt)
    module.call_api = call_api
    args = types.SimpleNamespace(game=game, max_negotiation_round=k, who_first="Alice", prompt_for_negotiate=probe,
                                 model="m", system_prompt="s", game_type=game_type)
    getattr(module, game_class)(args).play()
    return sent


@pytest.mark.skipif(not os.environ.get("PAPER_RELEASES"), reason="set PAPER_RELEASES to a folder holding the "
                    "papers' original releases (game_theory = Wenyueh/game_theory)")
def test_the_real_release_prompts_are_those_its_own_agent_sends(tmp_path, monkeypatch):
    root = Path(os.environ["PAPER_RELEASES"]) / "game_theory"
    simultaneous, sequential, workflow = _release_agents(monkeypatch, root / "src")
    talk = ["Shall we both take choice_1?", "Yes, choice_1."]
    prompts, results = play(str(root), {"game": "prisoners-dilemma", "negotiation": 1}, {"negotiation_prompt": 3},
                            talk=talk, tmp=tmp_path)
    assert prompts == _release_prompts(simultaneous, "prisoner_dilemma", model(talk), 1, release.PAPER_TO_CODE[3])
    headings = ("### Game Introduction", "### Game Rules", "### Negotiation Messages", "### Your Action")
    assert all(h in prompts[-1] for h in headings) and not FAMOUS.search("\n".join(prompts))
    for cells in ((3, 3), (0, 5), (5, 0), (1, 1)):  # one rule sentence per outcome, the seat's reward first
        assert sum(bool(re.search(rf"^- .*choice_\d.*\b{cells[0]}\b.*\b{cells[1]}\.$", line))
                   for line in prompts[-2].splitlines()) >= 1
    assert "choice_1" in results["outcome"]["alice"]

    notes = [f"note {n}" for n in range(6)]
    tree, tree_results = play(str(root), {"game": "escalation", "negotiation": 1}, talk=notes, move="choice_2",
                              tmp=tmp_path / "tree")
    assert tree == _release_prompts(sequential, "escalation_game", model(notes, "choice_2"), 1, 0)
    assert sum(line.startswith("If Alice") for line in tree[0].splitlines()) == 4  # every terminal path
    assert "_choice_1, _choice_2" in tree[2] and not FAMOUS.search("\n".join(tree))
    assert tree_results["outcome"] == ["choice_2", "choice_2", "choice_2"]

    flow, _ = play(str(root), {"game": "stag-hunt", "negotiation": 1}, {"negotiation_prompt": 1}, talk=talk,
                   tmp=tmp_path / "workflow", agent="llm-workflow")
    theirs = _release_prompts(workflow, "stag_hunt", model(talk), 1, release.PAPER_TO_CODE[1], "Simultaneous_Game")

    def by_seat(sent, name):  # the release builds both seats' chains first, each seat's requests keep their order
        return [p for p in sent if f"You are playing as {name}." in p]
    assert len(flow) == len(theirs) == 14 and all(by_seat(flow, n) == by_seat(theirs, n) for n in ("Alice", "Bob"))
    assert "### Strategy You Have Derived" in flow[-1] and not FAMOUS.search("\n".join(flow))

    tree_flow, _ = play(str(root), {"game": "trigame", "negotiation": 1}, talk=notes, move="choice_2",
                        tmp=tmp_path / "tree-workflow", agent="llm-workflow")
    theirs = _release_prompts(workflow, "trigame", model(notes, "choice_2"), 1, 0, "Sequential_Game", "sequential")
    # the release takes the decisions of one depth in a set's (hash seed's) order: compare each seat's requests
    assert len(tree_flow) == len(theirs) == 25
    assert all(sorted(by_seat(tree_flow, n)) == sorted(by_seat(theirs, n)) for n in ("Alice", "Bob"))
