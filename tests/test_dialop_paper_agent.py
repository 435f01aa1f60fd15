"""The DialOp paper's LLM agent (`--preset paper`) of Assignment, Planning and Mediation, checked on the requests a
fake OpenAI-compatible server records: the release's few-shot file (a fake release folder with our placeholder
text, same relative paths) is sent first, then the seat's context; temperature 0.1, top_p 0.95, max_tokens <= 128
and the release's stop words; one line a turn becomes the right move; 3 samples of an unparseable answer, then the
act is invalid and (strict, the preset) the game too. Without the preset the same `llm` agents send our own JSON
acts. A test against the real checkout runs when PAPER_RELEASES is set (e.g. /work/paper-releases)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bots.llm import LLMClient, LLMConfig
from tasks import get_task
from tasks.core import SeatInfo, build_match
from tasks.core.evaluation import play_game, read_rows
from tasks.core.presets import PresetError
from tasks.core.tokens import count as count_tokens
from tasks.dialop import paper_agent, psp
from tasks.dialop.data import default_path
from tasks.dialop.runner import load_games, play_released
from tests.fake_openai import FakeOpenAI, request_schema

FILES = {"assignment": {"player1": "optimization.txt", "player2": "optimization.txt"},
         "planning": {"user": "planning_user.txt", "assistant": "planning_agent.txt"},
         "mediation": {"user1": "mediation_user0.txt", "user2": "mediation_user1.txt",
                       "assistant": "mediation_agent.txt"}}
STOPS = {"assignment": ["Partner", "You", "\n"], "planning": ["User", "Agent", "You", "\n"],
         "mediation": ["User", "Agent", "You", "\n"]}
PROPOSAL = "Proposal:" + "".join(f"<br/>&emsp; - {p}: {r}" for p, r in (
    ("BLEU", "Ava Li"), ("Electra", "Daniel Nguyen"), ("GloVe", "Sofia Patel"), ("GLUE", "Andrei Petrov"),
    ("LLaMA", "Morgan Reed"), ("RoBERTa", "Joseph Santos"), ("QuAC", "Ethan Smith"), ("SWAG", "Noah Wilson")))


def placeholder(name: str) -> str:
    return f"OUR PLACEHOLDER FOR {name}\nEXAMPLE 1.\nan example of ours\nEXAMPLE 2.\nanother one\nNEXT.\n"


@pytest.fixture
def release(tmp_path) -> str:
    """A fake release checkout: the six prompt files at the release's paths, with our own placeholder text."""
    root = tmp_path / "dialop-release"
    for name in {n for seats in FILES.values() for n in seats.values()}:
        path = root / paper_agent.PROMPTS_DIR / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(placeholder(name), encoding="utf-8")
    return str(root)


def seat_of(task: str, content: str) -> str:
    return next(s for s, name in FILES[task].items() if content.startswith(placeholder(name).split("\n")[0]))


def answer(task: str):
    """A model that plays each task to an agreement in the protocol's lines (each answer two lines: only the first
    may count)."""
    def respond(req: dict) -> str:
        text = req["messages"][0]["content"]
        seat, tail = seat_of(task, text), text[-400:]
        if task == "assignment":
            if "Answer with [accept] or [reject]" in tail:
                return "[accept]\n[message] ignored"
            return f"[propose] {PROPOSAL}" if "You: [message]" in text else "[message] Ava Li knows BLEU.\nIgnored"
        if task == "planning":
            if seat == "user":
                return "[accept]" if "[accept] or [reject]" in tail else "[message] I like parks.\n[message] x"
            if "Search Results" not in text:
                return "[tool] Search(fields=[name], filters=[category == park])"
            found = re.search(r"Search Results \(\d+\):\nname\n((?:.+\n){3})", text)
            return "[propose] [" + ", ".join(found.group(1).split("\n")[:3]) + "]"
        if seat == "assistant":
            return " all: [propose] user 0: id 0, user 1: id 1" if "You to 0: [message]" in text else \
                " 0: [message] Hello, which days suit you?"
        return "[accept]" if "Total score" in tail else "[message] Mornings are busy for me."
    return respond


def play(task, release_root=None, options=None, respond=None, seed=3, tmp=None, brain_options=None):
    spec = get_task(task)
    opts = dict(options or {})
    if release_root:
        opts.update(preset="paper", paper_prompts=release_root)
    with FakeOpenAI(default=respond or answer(task)) as fake:
        cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            log = str(tmp / "g.jsonl") if tmp else None
            rec = play_game(spec, seed, {s: "llm" for s in spec.seats}, opts, llm=llm, log_path=log,
                            brain_options=brain_options)
        return rec, [r["json"] for r in fake.requests]


def inputs(path) -> list[dict]:
    return [r["data"]["input"] for _, r in read_rows(str(path)) if r["event"] == "game_input"
            and r["data"]["input"]["type"] in ("Chat", "Command")]


@pytest.mark.parametrize("task", sorted(FILES))
def test_paper_preset_sends_the_release_prompt_with_the_paper_sampling(task, release, tmp_path):
    rec, reqs = play(task, release, tmp=tmp_path)
    assert rec.results["status"] == "completed", rec.results
    assert reqs
    for r in reqs:
        assert len(r["messages"]) == 1 and r["messages"][0]["role"] == "user"
        text = r["messages"][0]["content"]
        seat = seat_of(task, text)  # the seat's few-shot file comes first, read from --paper-prompts
        assert text[len(placeholder(FILES[task][seat])):].strip()  # then the context / history
        assert text.endswith("\nYou to" if seat == "assistant" and task == "mediation" else "\nYou:")
        assert r["temperature"] == 0.1 and r["top_p"] == 0.95 and 1 <= r["max_tokens"] <= 128
        assert "stop" not in r  # the release's stop words end the answer here (a chat model may open with one)
        assert "response_format" not in r  # free text, one line: no JSON act
        assert "\nError: " not in text  # every seat moved only when the game's turns let it
    files = {FILES[task][seat_of(task, r["messages"][0]["content"])] for r in reqs}
    assert files == set(FILES[task].values())  # every seat's own file (Assignment's players share one)
    moves = inputs(tmp_path / "g.jsonl")
    chats = [m["text"] for m in moves if m["type"] == "Chat"]
    assert "Ignored" not in chats and "ignored" not in chats and "x" not in chats  # only the first line counts
    first = {"assignment": "Ava Li knows BLEU.", "planning": "I like parks.",
             "mediation": "Mornings are busy for me."}[task]
    assert first in chats
    names = [m["name"] for m in moves if m["type"] == "Command"]
    assert "propose" in names and "accept" in names
    acts = rec.results["llm"]
    assert all(a["agent"] == "llm-paper" and a["valid"] == a["acts"] and not a["fallback"] for a in acts.values())


def test_the_mediation_assistant_names_a_recipient_and_proposes_from_zero(release, tmp_path):
    rec, _ = play("mediation", release, tmp=tmp_path)
    moves = inputs(tmp_path / "g.jsonl")
    hello = next(m for m in moves if m["type"] == "Chat" and m["seat"] == "assistant")
    assert hello["to"] == ["user1"]  # " 0: [message] ..." goes to the first user only
    prop = next(m for m in moves if m["type"] == "Command" and m["name"] == "propose")
    assert prop["args"] == ["1", "2"]  # the release's ids 0 and 1 are the game's flights 1 and 2
    assert rec.results["pair"] == [1, 2]


@pytest.mark.parametrize("task", sorted(FILES))
def test_three_samples_of_an_unparseable_answer_then_the_act_and_game_are_invalid(task, release):
    rec, reqs = play(task, release, respond=lambda req: "Sure, let us talk about it.")
    assert len(reqs) == 3  # the first act: 3 samples in all (evaluate.py), then no move and no fallback
    assert rec.results["status"] == "invalid"
    acts = [a for a in rec.llm_acts]
    assert len(acts) == 1 and not acts[0]["valid"] and acts[0]["failed"] and not acts[0]["fallback"]
    assert acts[0]["calls"] == 3


def test_a_line_the_game_refuses_comes_back_as_an_error_line(release):
    seen = []

    def respond(req):
        text = req["messages"][0]["content"]
        seen.append(text)
        if "Answer with [accept] or [reject]" in text[-400:]:
            return "[accept]"
        if "Error:" in text:
            return f"[propose] {PROPOSAL}"
        return "[propose] Proposal:<br/>&emsp; - BLEU: Ava Li"  # 1 of 8 papers: the game refuses it
    rec, _ = play("assignment", release, respond=respond)
    assert rec.results["status"] == "completed"
    retry = next(t for t in seen if "Error:" in t)
    assert "You: [propose] Proposal:<br/>&emsp; - BLEU: Ava Li\nError: " in retry


def test_a_long_prompt_lowers_max_tokens_cuts_the_release_example_once_then_is_invalid(release):
    # a 215-token window: player 1's first prompt (counted with cl100k_base, as the release counted) overflows it,
    # so the release's optional span (EXAMPLE 1) is cut once and what is left of the window caps the answer;
    # player 2's longer prompt still overflows after the cut: its act is invalid, nothing is sent
    rec, reqs = play("assignment", release, brain_options={"context_tokens": 215})
    assert len(reqs) == 1
    first = reqs[0]["messages"][0]["content"]
    assert "EXAMPLE 1." not in first and "EXAMPLE 2." in first
    assert count_tokens(first.replace("EXAMPLE 2.", "EXAMPLE 1.\nan example of ours\nEXAMPLE 2.")) > 215
    assert reqs[0]["max_tokens"] == 215 - count_tokens(first) < 128
    assert rec.results["status"] == "invalid"
    bad = [a for a in rec.llm_acts if not a["valid"]]
    assert len(bad) == 1 and bad[0]["seat"] == "player2" and bad[0]["calls"] == 0 and "window" in bad[0]["error"]


@pytest.mark.parametrize("task", sorted(FILES))
def test_default_preset_keeps_our_json_agent(task, release):
    spec = get_task(task)
    asked = []

    def ours(req):  # two JSON acts, then the endpoint fails: our agents' symbolic stand-ins finish the game
        asked.append(req)
        if len(asked) > 2:
            return {"status": 500}
        return '{"act": "message", "text": "hello", "to": "user1"}'
    rec, reqs = play(task, respond=ours, options={"paper_prompts": release})
    assert reqs and all(request_schema(r) for r in reqs)  # our JSON acts (structured output), not a text line
    assert not any(placeholder(n) in m["content"] for r in reqs for m in r["messages"]
                   for n in set(FILES[task].values()))
    assert {a["agent"] for a in rec.results["llm"].values()} == {"llm"}
    assert spec.presets["paper"].brain_options["protocol"] == "paper"


@pytest.mark.parametrize("task", sorted(FILES))
def test_the_paper_preset_without_the_release_stops_naming_files_and_where_to_get_them(task, tmp_path):
    spec = get_task(task)
    seats = {s: SeatInfo("agent", s, "llm") for s in spec.seats}
    for options in ({"preset": "paper"}, {"preset": "paper", "paper_prompts": str(tmp_path)}):
        with pytest.raises(PresetError) as err:
            build_match(spec, 1, seats, options=options)
        msg = str(err.value)
        assert paper_agent.RELEASE in msg and all(f in msg for f in set(FILES[task].values()))


@pytest.mark.parametrize("task", sorted(FILES))
def test_the_release_stop_words_end_an_answer_after_its_opening_break_or_echo(task, release):
    spec = get_task(task)
    seat = spec.seats[0]
    brain = spec.make_brain("llm", seat, 1, None, {"protocol": "paper", "paper_prompts": release})
    label = brain.prefix.strip()
    assert brain.cut(f"\n\n{label} [message] hi there\nmore") == " [message] hi there"
    assert brain.cut("[message] I see. You said 5") == "[message] I see. "  # the release stopped at "You" too
    assert all(brain.cut(f"[message] a{w}b") == "[message] a" for w in STOPS[task])


def test_parse_line_takes_one_protocol_line():
    line = paper_agent.parse_line("  [message] hi there\n[propose] no", ("message", "propose"))
    assert line == paper_agent.Line("message", "hi there", None)
    assert paper_agent.parse_line(" 1: [message] hi", ("message",), recipient=True).to == "1"
    for bad, kinds, rec in (("hello", ("message",), False), ("[think] x", ("message",), False),
                            ("[message]", ("message",), False), ("[message] hi", ("message",), True),
                            ("all: [message] hi", ("message",), True), ("0: [propose] x", ("propose",), True)):
        with pytest.raises(paper_agent.LineError):
            paper_agent.parse_line(bad, kinds, rec)


@pytest.mark.skipif(not os.environ.get("PAPER_RELEASES"), reason="set PAPER_RELEASES to a folder holding the "
                    "dialop checkout (e.g. /work/paper-releases) to test against the real release")
@pytest.mark.parametrize("task", sorted(FILES))
def test_real_release_prompts_are_read_and_sent_first(task):
    root = Path(os.environ["PAPER_RELEASES"]) / "dialop"
    texts = {s: (root / paper_agent.PROMPTS_DIR / n).read_text(encoding="utf-8") for s, n in FILES[task].items()}
    seen = set()

    def respond(req):
        text = req["messages"][0]["content"]
        seen.update(s for s, t in texts.items() if text.startswith(t))
        return "Sure."  # no protocol line: the game ends invalid after the first act's 3 samples
    rec, reqs = play(task, str(root), respond=respond)
    assert len(reqs) == 3 and seen and rec.results["status"] == "invalid"


def test_our_planning_assistant_is_shown_the_sites_it_is_told_it_sees(release):
    # ours (the default): the prompt claims the assistant sees every site's name, type and price: it lists them
    def ours(req):
        return {"status": 500} if len(asked) > 1 else (asked.append(req) or '{"act": "message", "text": "hi"}')
    asked: list = []
    rec, reqs = play("planning", respond=ours, options={"turns": "alternate"}, seed=5)
    sites = get_task("planning").generate(5, {})["sites"]
    prompt = next(r for r in reqs if "ASSISTANT" in r["messages"][0]["content"])["messages"][-1]["content"]
    assert all(f"{s['name']} | {s['etype']} | ${s['price']}" in prompt for s in sites)


@pytest.mark.skipif(not os.path.exists(default_path()), reason="the released DialOp data is not at "
                    "../shared/data/dialop/data.zip")
def test_prompted_self_play_hands_the_paper_agent_the_human_prefix_as_history(release):
    spec = get_task("assignment")
    game = load_games(spec, None)[0]
    with FakeOpenAI(default=lambda r: "[message] ok") as fake:
        cfg = LLMConfig(model="m", base_url=fake.url, api_key="k", timeout=5.0, max_retries=0)
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            play_released(spec, game, {"player1": "llm", "player2": "llm"}, "50", llm,
                          options={"preset": "paper", "paper_prompts": release})
        first = fake.requests[0]["json"]["messages"][0]["content"]
    said = [a["message"]["data"].strip() for a in game.record["action_log"] if a.get("type") == "message"]
    n = psp.cut_index(game.record, "50")
    assert n and all(f"[message] {t}" in first for t in said[:2])  # the humans' lines, as the release's players
    assert first.startswith(placeholder("optimization.txt")) and len(fake.requests) <= 30  # 15 lines a seat
