"""Preset `paper` of Gnomes at Night, on the requests a fake OpenAI-compatible server records: no temperature sent
(the API's default, as the paper called gpt-3.5-turbo), the release's flag and inquiry prompts read at run time (a
fake release in tmp_path: our placeholder words in the release's file layout and function shapes), free-text
answers read by their last line, the paper's planner; beside it our variant (JSON flags, the client's temperature);
and Table 1's message columns. The real release is read only when PAPER_RELEASES is set."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from bots.llm import LLMConfig
from tasks import get_task
from tasks.core import PresetError
from tasks.core.evaluation import read_rows
from tasks.gnomes import metrics
from tasks.gnomes.brains import paper_language
from tests.fake_openai import play_against, request_schema

GNOMES = get_task("gnomes")
FAKE_RELEASE = '''
import random


def chat_to_flag(chat):
    """placeholder"""
    if not chat:
        return None
    prompt = """PLACEHOLDER FLAG PROMPT. Message: {}  Flag:""".format(chat)
    completion = client.chat.completions.create(
        model="gpt-3.5-turbo",
        messages=[{"role": "system", "content": "PLACEHOLDER FLAG SYSTEM"}, {"role": "user", "content": prompt}],
    )
    return completion


def respond_inquiry(chat, info, action):
    treasure_msg = (
        f"at {info['treasure']['pos'].tolist()}"
        if info["treasure"]["onWhichSide"] == 1
        else "not seen"
    )
    prompt = f"""PLACEHOLDER INQUIRY token {info['token'].tolist()} move {action} treasure {treasure_msg} q "{chat}"
    """
    completion = client.chat.completions.create(
        model="gpt-3.5-turbo",
        messages=[{"role": "system", "content": "PLACEHOLDER INQUIRY SYSTEM"}, {"role": "user", "content": prompt}],
    )
    return completion
'''


def fake_release(root: Path) -> Path:
    path = root / paper_language.RELEASE_FILE
    path.parent.mkdir(parents=True)
    path.write_text(FAKE_RELEASE, encoding="utf-8")
    return root


def answer(req: dict) -> str:
    system = req["messages"][0]["content"]
    if request_schema(req) is not None:  # our JSON classifier
        return '{"flag": "Accept"}'
    if system == "PLACEHOLDER FLAG SYSTEM":
        asks = "where" in req["messages"][1]["content"].lower()
        return "The partner speaks.\nFlag: " + ("INQUIRY" if asks else "ACCEPT")
    return "Go down and to the right, mind the walls."


def play(tmp_path, agents, options, brain_options=None):
    return play_against(answer, GNOMES, 3, agents, {"rounds": 2, **options}, str(tmp_path / "g.jsonl"),
                        brain_options)


def notes(tmp_path):
    return [r["data"] for _, r in read_rows(str(tmp_path / "g.jsonl")) if r["event"] == "agent_note"]


def test_paper_preset_sends_the_releases_prompts_without_a_temperature(tmp_path):
    root = fake_release(tmp_path / "release")
    rec, reqs = play(tmp_path, {"h": "partner", "e": "aismcts"}, {"preset": "paper", "paper_prompts": str(root)})
    flags = [r for r in reqs if r["messages"][0]["content"] == "PLACEHOLDER FLAG SYSTEM"]
    inquiries = [r for r in reqs if r["messages"][0]["content"] == "PLACEHOLDER INQUIRY SYSTEM"]
    assert flags and inquiries and len(flags) + len(inquiries) == len(reqs)
    for req in reqs:
        assert "temperature" not in req and "response_format" not in req and "seed" not in req
        assert "max_tokens" not in req  # the release called the API without a token limit
    user = flags[0]["messages"][1]["content"]
    assert user.startswith("PLACEHOLDER FLAG PROMPT. Message: ") and user.endswith("  Flag:")
    for req in inquiries:  # the seat's own view: the token, and the treasure only in the rounds side e sees it
        text = req["messages"][1]["content"]
        assert text.startswith("PLACEHOLDER INQUIRY token [") and (" at [6, 2]" in text or "not seen" in text)
    acts = [n for n in notes(tmp_path) if n["kind"] == "llm_act"]
    assert acts and all(a["valid"] for a in acts) and {a["use"] for a in acts} <= {"flag", "answer"}
    decisions = [n for n in notes(tmp_path) if n["kind"] == "decision" and n["seat"] == "e"]
    assert decisions and all(d["iterations"] == 100 for d in decisions)  # the paper's planner
    assert rec.results["rounds_played"] == 2


def test_aismcts_calls_no_model_unless_asked_to_read_with_it(tmp_path):
    """Issue 31 item 9: with a model configured, the symbolic agent's results were the LLM's (2.93x the optimal
    turns against 1.54x without): now only brain option reader=llm (or preset paper) gives it the model."""
    rec, reqs = play(tmp_path, {"h": "partner", "e": "aismcts"}, {})
    assert reqs == [] and rec.results["rounds_played"] == 2
    assert not [n for n in notes(tmp_path) if n["kind"] == "llm_act"]


def test_our_variant_with_an_llm_reader_asks_for_json_at_the_clients_temperature(tmp_path):
    _, reqs = play(tmp_path, {"h": "partner", "e": "aismcts"}, {}, {"reader": "llm"})
    assert reqs and all("response_format" in r and r["temperature"] == LLMConfig.temperature and "max_tokens" in r
                        for r in reqs if "flag" in (request_schema(r) or {}).get("properties", {}))


def test_paper_preset_without_the_release_says_what_is_missing(tmp_path):
    with pytest.raises(PresetError, match="aismcts_language_utils.py.*shared_control_language"):
        play(tmp_path, {"h": "partner", "e": "aismcts"}, {"preset": "paper"})


def test_the_release_reading_of_a_flag_answer():
    rng = random.Random(0)
    assert paper_language.read_flag("I think so.\nFlag: STAY_PUT", rng) == "stay"
    assert paper_language.read_flag("LEFT\nnothing here", rng) is None  # only the last line counts
    assert paper_language.read_flag("RIGHT or UP", rng) in ("right", "up")


def test_table_1_columns_count_messages_per_round_and_words_per_message():
    rounds = [{"status": "found", "messages": {"h": 2, "e": 3}, "words": {"h": 10, "e": 30}},
              {"status": "timeout", "messages": {"h": 4, "e": 1}, "words": {"h": 2, "e": 10}},
              {"status": "unfinished", "messages": {"h": 9, "e": 9}, "words": {"h": 90, "e": 90}}]
    cols = metrics.message_columns([{"rounds": rounds}])
    assert cols == {"messages/round h": 3.0, "words/message h": 2.0, "messages/round e": 2.0,
                    "words/message e": 10.0}


RELEASES = os.environ.get("PAPER_RELEASES")


@pytest.mark.skipif(not RELEASES, reason="set PAPER_RELEASES to the folder holding shared_control_language")
def test_the_real_release_gives_both_prompts(tmp_path):
    root = str(Path(RELEASES) / "shared_control_language")
    system, user = paper_language.flag_messages(root, "Can you go left?")
    assert "STAY_PUT" in system["content"] and user["content"].rstrip().endswith("Flag:")
    assert "Can you go left?" in user["content"]
    _, seen = paper_language.inquiry_messages(root, "where?", (2, 3), 1, (4, 5))
    _, unseen = paper_language.inquiry_messages(root, "where?", (2, 3), 1, None)
    assert "[2, 3]" in seen["content"] and "[4, 5]" in seen["content"] and "[4, 5]" not in unseen["content"]
    _, reqs = play(tmp_path, {"h": "partner", "e": "aismcts"}, {"preset": "paper", "paper_prompts": root})
    assert reqs and all("temperature" not in r for r in reqs)
