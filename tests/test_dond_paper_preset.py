"""Preset `paper` of Deal or No Deal (reference §7): the requests it sends, recorded by the fake OpenAI server, carry
the paper's sampling (temperature 1.0, 2,000 tokens), the release's system prompt and game text read at run time
from --paper-prompts (a fake release in tmp_path, with our own placeholder text and the release's layout: parsed,
never imported), a free-text turn followed by the paper's extraction calls (use "extract"), and the present-deal
ending; the game applies the halting rule and the claims. The default preset sends our labelled variant instead.
Without the release the preset stops with a message naming the files and where to get them."""
from __future__ import annotations

import json
import re

import pytest

from bots import local
from tests.dond_fake_release import ALICE, COUNTS, fake_release
from tests.fake_openai import FakeOpenAI

SPLIT = "Books to Bob, the hats and balls to Alice."


@pytest.fixture
def release(tmp_path):
    return fake_release(tmp_path / "game_theory")


def prompt_of(request) -> str:
    return request["messages"][-1]["content"]


def fake_model(request) -> str:
    """Answers by the placeholder that says which question it is; each side claims what the agreed split gives it."""
    prompt = prompt_of(request)
    alice = "I am Alice" in prompt
    deal = "<deal>book=0 hat=3 ball=2</deal>" if alice else "<deal>book=2 hat=0 ball=0</deal>"
    if "FAKE-NEGOTIATE" in prompt:
        return "Reasoning first. <s>halt negotiation</s>" if "B-LINE 1: " in prompt else f"Hm. <s>{SPLIT}</s>"
    if "FAKE-HAS-DEAL" in prompt:
        return "<answer>no</answer>" if "[halt negotiation]" in prompt else "Yes. <answer>yes</answer>"
    if "FAKE-SUMMARIZE" in prompt or "FAKE-PRESENT" in prompt:
        return f"So: {deal}"
    raise AssertionError(f"unexpected prompt {prompt[:200]!r}")


def run(monkeypatch, tmp_path, fake, argv):
    for var in ("LLM_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LLM_MODEL", "test-model")
    monkeypatch.setenv("LLM_BASE_URL", fake.url)
    out = tmp_path / "out"
    assert local.main(["dond", "--agents", "llm,llm", "--out", str(out), *argv]) == 0
    rows = [json.loads(g) for g in (out / "logs" / "game-0000.jsonl").read_text(encoding="utf-8").splitlines()]
    return [{"event": r["event"], **r["data"]} for r in rows]


def test_the_paper_preset_sends_the_releases_prompts_at_temperature_1_and_presents_deals(
        release, tmp_path, monkeypatch, capsys):
    with FakeOpenAI(default=fake_model) as fake:
        log = run(monkeypatch, tmp_path, fake, ["--preset", "paper", "--paper-prompts", str(release)])
        requests = [r["json"] for r in fake.requests]
    out = capsys.readouterr().out
    assert all(r["temperature"] == 1.0 and r["max_tokens"] == 2000 for r in requests)
    assert all(r["messages"][0] == {"role": "system", "content": "FAKE-SYSTEM"} for r in requests)
    assert not any("response_format" in r for r in requests)  # free text, tags parsed as the release does
    kinds = [re.search(r"FAKE-(NEGOTIATE|HAS-DEAL|SUMMARIZE|PRESENT)", r["messages"][-1]["content"]).group(1)
             for r in requests]
    # round 1: each side's message, then the extraction (is there a deal? which?); round 2: both halt (the
    # extraction finds none); then each side presents its deal
    assert kinds == ["NEGOTIATE", "HAS-DEAL", "SUMMARIZE"] * 2 + ["NEGOTIATE", "HAS-DEAL"] * 2 + ["PRESENT"] * 2
    first = requests[0]["messages"][-1]["content"]
    assert first == ("FAKE-GAME 2 books, 3 hats, 2 balls; I am Alice, the other is Bob.\n"
                     "FAKE-VALUES 2x1 3x2 2x1. FAKE-MAX 10\nFAKE-NEGOTIATE with Bob in 20 rounds")
    bob_first = requests[3]["messages"][-1]["content"]
    assert bob_first.endswith(f"FAKE-HISTORY:\nA-LINE 1: {SPLIT}") and "FAKE-VALUES 2x3 3x0 2x2." in bob_first
    assert "formal offer" not in first + bob_first and "Standing Offers" not in bob_first  # none of our own text
    assert requests[1]["messages"][-1]["content"].endswith(f"FAKE-HAS-DEAL [{SPLIT}] to Bob")
    assert f"FAKE-MESSAGE [{SPLIT}]FAKE-SUMMARIZE for Bob" in requests[2]["messages"][-1]["content"]
    present = requests[-2]["messages"][-1]["content"]
    assert "A-LINE 2: halt negotiation\nB-LINE 2: halt negotiation" in present and present.endswith("ball=z</deal>")

    start = next(r for r in log if r.get("event") == "game_start")
    assert start["options"]["preset"] == "paper" and start["options"]["paper_prompts"] == str(release)
    assert start["options"]["protocol"] == "paper" and start["instance"]["counts"] == list(COUNTS)
    result = next(r for r in log if r.get("event") == "game_result")
    assert result["deal"] and result["reason"] == "presented"
    assert result["split"] == {"alice": [0, 3, 2], "bob": [2, 0, 0]}
    ends = [r for r in log if r.get("event") == "negotiation_end"]
    assert [(e["reason"], e["rounds"]) for e in ends] == [("halted", 2)]
    acts = [r for r in log if r.get("event") == "agent_note" and r.get("kind") == "llm_act"]
    assert [(a["seat"], a["use"]) for a in acts] == [("alice", "turn"), ("alice", "extract"), ("bob", "turn"),
                                                     ("bob", "extract")] * 2 + [("alice", "present"),
                                                                                ("bob", "present")]
    assert all(a["valid"] and not a["fallback"] for a in acts)
    assert "this run: llm,llm (preset paper)" in out and "paper: T10 raw vs raw: GPT-4o" not in out  # not the 50


def test_the_default_preset_sends_our_labelled_variant(release, tmp_path, monkeypatch, capsys):
    def ours(request):
        if request.get("response_format"):
            return json.dumps({"proposal": True, "accepts": False, "books": 0, "hats": 3, "balls": 2})
        return "<s>halt negotiation</s>" if "standing offer: you get" in prompt_of(request) else f"<s>{SPLIT}</s>"
    with FakeOpenAI(default=ours) as fake:
        run(monkeypatch, tmp_path, fake, ["--games", "2"])
        requests = [r["json"] for r in fake.requests]
    assert requests and all(r.get("temperature") != 1.0 for r in requests)
    assert not any("FAKE-" in m["content"] for r in requests for m in r["messages"])
    assert any("formal offer" in prompt_of(r) for r in requests)  # our game's offer lines
    assert "(preset ours)" in capsys.readouterr().out


def test_without_the_release_the_preset_says_what_is_missing_and_stops(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LLM_MODEL", "test-model")
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
    assert local.main(["dond", "--agents", "llm,llm", "--preset", "paper", "--paper-prompts",
                       str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "src/deal_no_deal/deal_no_deal.py" in err and "https://github.com/Wenyueh/game_theory" in err
    assert not (tmp_path / "out").exists()


def test_reproduce_plays_a_papers_condition_with_the_preset_and_prints_the_papers_row(
        release, tmp_path, monkeypatch, capsys):
    from bots import reproduce as command
    from tests.test_sweep import llm_env
    label = "raw vs raw, temperature 0 (T11 GPT-4o)"
    with FakeOpenAI(default=fake_model) as fake:
        llm_env(fake, monkeypatch)
        assert command.main(["dond", "--games", "1", "--paper-prompts", str(release), "--yes", "--condition", label,
                             "--out", str(tmp_path / "run")]) == 0
        requests = [r["json"] for r in fake.requests]
    assert requests and all(r["temperature"] == 0.0 and r["max_tokens"] == 2000 for r in requests)
    out = capsys.readouterr().out
    assert "Planned run (1 games per condition)" in out and "preset paper, model fake-model" in out
    row = [ln for ln in out.splitlines() if ln.startswith(label) and "(baseline)" not in ln][-1].split()  # pilot first
    # rounds 19.36 (paper) vs 2 (this run), agreement .5681 vs 1, ..., 1 game, every act valid, no invalid game
    cells = row[len(label.split()):]
    assert cells[:16] + cells[-1:] == ["19.36", "2.0", "0.5681", "1.0", "2.98", "8.0", "3.47", "6.0", "0.4091",
                                       "1.0", "0.326", "1.0", "6.44", "14.0", "1", "100.0", "0"]


def test_the_real_release_is_read_and_every_piece_fills():
    """With PAPER_RELEASES set (e.g. /work/paper-releases), the original checkout parses and every placeholder of
    its prompts fills for a seat; skipped otherwise."""
    import os
    from pathlib import Path

    from tasks.dond.brains.llm_paper import PaperSession
    from tasks.dond.paper_prompt import read_release
    root = Path(os.environ.get("PAPER_RELEASES", "")) / "game_theory"
    if not os.environ.get("PAPER_RELEASES") or not root.is_dir():
        pytest.skip("set PAPER_RELEASES to a folder holding the game_theory checkout to read the real release")
    prompts = read_release(str(root))
    assert prompts.max_rounds == 20 and prompts.system and "{}" in prompts.said and "{}" in prompts.replied

    class Seat:  # what PaperSession reads of its brain
        options = {"paper_prompts": str(root)}
        view = {"counts": list(COUNTS), "values": list(ALICE), "me_name": "Alice", "partner_name": "Bob",
                "max_rounds": 20}
        counts = COUNTS
    session = PaperSession(Seat())
    game = session.game()
    assert "2 books" in game and "3 hats" in game and "Bob" in game and "{" not in game
    for piece in (prompts.negotiate, prompts.history, prompts.has_deal, prompts.message, prompts.summarize,
                  prompts.present):
        text = piece.render(session.fields("my message"))
        assert text and "{self" not in text
    assert "my message" in prompts.has_deal.render(session.fields("my message"))
