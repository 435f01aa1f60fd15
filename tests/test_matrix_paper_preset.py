"""matrix-games `--preset paper` (issue 31, item 3): the requests the paper's protocol sends to a fake
OpenAI-compatible server, with a fake release folder in tmp_path holding our own placeholder text: temperature 1.0
and 2,000 tokens, neutral action labels only, either side's halt ends the talk, the system prompt and the
anti-negotiation prompt read from the release path; the default preset shows our labelled variants; a missing
release stops with the files and the repository named; the tree workflow derives subtree rewards itself."""
from __future__ import annotations

import json
import os
import re

import pytest

from bots.llm import LLMClient, LLMConfig
from tasks import get_task
from tasks.core import Chat, Command, Join, PresetError, SeatInfo, build_match, resolve_preset
from tasks.core.evaluation import LOCAL_TIMERS, play_game
from tasks.matrix_games import release
from tests.fake_openai import FakeOpenAI
from tests.matrix_fake_release import fake_release

SPEC = get_task("matrix-games")
FAMOUS = re.compile(r"cooperat|defect|stag|hare|opera|football|split|steal|prisoner|dilemma|golden|wait|go\b|"
                    r"hunt|swerve|chicken", re.I)
def answers(req: dict) -> str:
    """Alice halts at once; every choice question is answered choice_2; the summary is a plan."""
    prompt = req["messages"][-1]["content"]
    ask = prompt.rsplit("### ", 1)[-1]
    if ask.startswith("Negotiation"):
        return "I stop here. <s>halt negotiation</s>"
    if ask.startswith("Summary"):
        return "<s>always choice_2</s>"
    return "<r>it pays more</r> <s>choice_2</s>"


def play(options, brain_options=None, agents=("llm", "llm"), log_path=None):
    with FakeOpenAI(default=answers) as fake:
        cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            rec = play_game(SPEC, 1, dict(zip(SPEC.seats, agents)), options, llm=llm, brain_options=brain_options,
                            log_path=log_path)
        return rec, [r["json"] for r in fake.requests]


def texts(reqs) -> str:
    return "\n".join(m["content"] for r in reqs for m in r["messages"])


def test_the_paper_preset_sends_the_papers_sampling_neutral_labels_and_its_system_prompt(tmp_path):
    root = fake_release(tmp_path)
    log = tmp_path / "game.jsonl"
    rec, reqs = play({"preset": "paper", "paper_prompts": root, "game": "prisoners-dilemma", "negotiation": 4},
                     {"personality": "witty"}, log_path=str(log))
    assert reqs and all(r["temperature"] == 1.0 and r["max_tokens"] == 2000 for r in reqs)
    assert all(r["messages"][0] == {"role": "system", "content": "PLACEHOLDER system: be witty here."} for r in reqs)
    assert not FAMOUS.findall(texts(reqs))  # no famous action or game name anywhere in the prompts
    assert "choice_1, choice_2" in reqs[0]["messages"][1]["content"]
    r = rec.results
    assert r["outcome"] == {"alice": "choice_2", "bob": "choice_2"} and r["is_ne"] and r["game"] == "prisoners-dilemma"
    # Alice halted in her first turn: the talk ended then, Bob was never asked to negotiate
    negotiations = [q for q in reqs if q["messages"][1]["content"].rsplit("### ", 1)[-1].startswith("Negotiation")]
    assert len(negotiations) == 1 and r["halts"] == 1 and r["messages"] == 0
    assert re.search(r'"preset": ?"paper"', log.read_text()) and root in log.read_text()  # the game's log has both


def test_the_anti_negotiation_prompt_comes_from_the_release_after_a_negotiation(tmp_path):
    root = fake_release(tmp_path)
    talk = iter(["<s>Let us both take choice_1.</s>", "<s>Fine by me.</s>"])

    def respond(req):
        ask = req["messages"][-1]["content"].rsplit("### ", 1)[-1]
        return next(talk, "<s>halt negotiation</s>") if ask.startswith("Negotiation") else answers(req)
    with FakeOpenAI(default=respond) as fake:
        cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            play_game(SPEC, 1, {"alice": "llm", "bob": "llm"}, {"preset": "paper", "paper_prompts": root,
                      "game": "stag-hunt", "negotiation": 2}, llm=llm, brain_options={"negotiation_prompt": 3})
        reqs = [r["json"] for r in fake.requests]
    moves = [q["messages"][1]["content"] for q in reqs if "### Your Action" in q["messages"][1]["content"]]
    # the paper's Prompt 3 is the code's key 6 (reference §3), addressed to the partner, as the release spaces it
    assert len(moves) == 2 and moves[0].endswith("\n\nPLACEHOLDER probe 6 about Bob.\n")
    assert moves[1].endswith("\n\nPLACEHOLDER probe 6 about Alice.\n")
    assert "A-FIRST 1: Let us both take choice_1." in moves[0]


def test_the_default_preset_is_our_labelled_variant(tmp_path):
    log = tmp_path / "game.jsonl"
    rec, reqs = play({"game": "prisoners-dilemma", "negotiation": 4}, log_path=str(log))
    assert all(r["temperature"] != 1.0 and r["max_tokens"] == 2000 for r in reqs)  # the client's temperature
    assert reqs[0]["messages"][0]["content"].startswith("Play the game below as a rational player")
    assert "Cooperate" in reqs[0]["messages"][1]["content"]  # named actions: ours
    # both must halt: Alice's halt was a request, Bob agreed to it (two LLM agents used to stall here)
    requests = [json.loads(line) for line in log.read_text().splitlines() if '"halt_request"' in line]
    assert len(requests) == 2 and rec.results["halts"] == 1 and rec.results["status"] == "completed"
    assert rec.results["outcome"] == {"alice": "Defect", "bob": "Defect"}


def test_every_use_of_a_paper_turn_gets_the_protocols_deadline_and_tokens(tmp_path):
    seats = {s: SeatInfo("agent", s.title(), "llm-workflow") for s in SPEC.seats}
    _, brains = build_match(SPEC, 1, seats, options={"preset": "paper", "paper_prompts": fake_release(tmp_path)},
                            timers=LOCAL_TIMERS)
    for use in ("negotiate", "move", "chain:choice_1|choice_2", "summary"):
        assert brains["alice"].sampling_of(use) == {"temperature": 1.0, "max_tokens": 2000, "deadline": 240}
    _, brains = build_match(SPEC, 1, seats, options={}, timers=LOCAL_TIMERS)
    assert brains["bob"].sampling_of("move") == {"max_tokens": 2000}  # ours: the client's deadline and temperature


def test_strict_mode_asks_nothing_after_the_first_failed_act(tmp_path):
    with FakeOpenAI(default=lambda req: "no tags") as fake:
        cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            rec = play_game(SPEC, 1, {"alice": "llm-workflow", "bob": "workflow"},
                            {"preset": "paper", "paper_prompts": fake_release(tmp_path), "game": "duopoly"},
                            llm=llm, brain_options={"strict_llm": True})
        assert len(fake.requests) == 3  # the first chain step's three tries, none of the other 12 steps
    assert rec.results["status"] == "invalid" and [a["failed"] for a in rec.llm_acts] == [True]


def test_either_sides_halt_ends_the_talk_under_the_paper_rule_and_not_under_ours():
    seats = {s: SeatInfo("person", s.title()) for s in SPEC.seats}
    for rule, stage in (("either", "move"), ("both", "negotiate")):
        m, _ = build_match(SPEC, 1, seats, options={"negotiation": 3, "halt": rule}, timers=LOCAL_TIMERS,
                           with_brains=False)
        m.open(0.0)
        for s in SPEC.seats:
            m.handle(Join(s, t=0.0))
        m.handle(Chat("alice", "hello", t=1.0))
        m.handle(Command("alice", "halt", t=1.0))  # out of turn: either side may stop it
        assert m.game.stage == stage, rule
    with pytest.raises(ValueError, match="halt must be one of both, either"):
        build_match(SPEC, 1, seats, options={"halt": "one"}, timers=LOCAL_TIMERS, with_brains=False)


def test_a_missing_release_stops_with_the_files_and_the_repository_named(tmp_path):
    fake_release(tmp_path, files=(release.SYSTEM_FILE,))
    with pytest.raises(PresetError) as exc:
        resolve_preset(SPEC, {"preset": "paper", "paper_prompts": str(tmp_path)}, {})
    assert release.PROMPTS_FILE in str(exc.value) and release.RELEASE in str(exc.value)
    with pytest.raises(release.ReleaseError) as exc:  # a probe asked for under our preset needs the release too
        play({"game": "stag-hunt"}, {"negotiation_prompt": 2})
    assert release.PROMPTS_FILE in str(exc.value) and release.RELEASE in str(exc.value)


def test_the_paper_tree_workflow_derives_subtree_rewards_itself(tmp_path):
    root = fake_release(tmp_path)
    _, reqs = play({"preset": "paper", "paper_prompts": root, "game": "trigame"}, agents=("llm-workflow", "llm"))
    asks = [q["messages"][1]["content"].rsplit("### Decide", 1)[-1] for q in reqs
            if "### Decide" in q["messages"][1]["content"]]
    assert len(asks) == 7  # the release's workflow: 4 deepest nodes, 2 of Bob, the root
    assert not any("THEN A=" in a for a in asks)  # below the game's rules: choices derived below, no reward
    assert "NOTE your choice_1: Bob then choice_2 (it pays more).\nyou then choice_2 (it pays more).\n" in asks[-1]
    for notes_kind, payoffs in (("choices", False), ("payoffs", True)):  # our wording, either note
        _, reqs = play({"paper_prompts": root, "game": "trigame"}, {"subtree_notes": notes_kind},
                       agents=("llm-workflow", "llm"))
        chains = [q["messages"][1]["content"].rsplit("### ", 1)[-1] for q in reqs
                  if "### A Decision Along the Way" in q["messages"][1]["content"]]
        assert len(chains) == 7  # 4 deepest nodes, 2 of Bob, the root
        notes = " ".join(c.split(" among: ", 1)[1] for c in chains)
        assert bool(re.search(r"ends with -?\d+ for you", notes)) is payoffs, notes_kind
        if not payoffs:  # the choices derived below, with their reasons, and no reward
            root_ask = chains[-1]
            assert "Nothing has been played yet" in root_ask
            assert "Notice that if you choose choice_1, Bob will choose choice_2 because it pays more, then you will " \
                   "choose choice_2 because it pays more." in root_ask


@pytest.mark.skipif(not os.environ.get("PAPER_RELEASES"), reason="set PAPER_RELEASES to a folder holding the "
                    "papers' original releases (game_theory = Wenyueh/game_theory)")
def test_the_real_release_parses():
    root = os.path.join(os.environ["PAPER_RELEASES"], "game_theory")
    assert release.missing(root) == []
    template = release.system_template(root)
    assert template.count("{personality}") == 1 and "assistant" in template
    probes = release.negotiation_prompts(root)
    assert sorted(k for k in probes if k) == [1, 2, 3, 4, 5, 6]
    assert release.negotiation_prompt(root, 5, "Bob") != release.negotiation_prompt(root, 4, "Bob")
    assert "Bob" in release.negotiation_prompt(root, 3, "Bob")
    rec, reqs = play({"preset": "paper", "paper_prompts": root, "game": "stag-hunt", "negotiation": 1})
    assert reqs[0]["messages"][0]["content"] == template.format(personality="rational")
    assert rec.results["status"] == "completed"
