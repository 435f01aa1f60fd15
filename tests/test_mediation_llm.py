"""The mediation `llm` brain: the prompt has the role's instructions, one released example (when the data is there)
and the seat's own information; the assistant chooses recipients; an invalid proposal goes back to the model with
the error; a failing LLM falls back visibly to the seat's symbolic agent; the CLI refuses llm agents without an
LLM."""
from __future__ import annotations

import os

import pytest

from bots.local import main
from tasks.core.evaluation import play_game
from tasks import get_task
from tasks.dialop.data import default_path

SPEC = get_task("mediation")


class ScriptedLLM:
    def __init__(self, answers):
        self.answers = list(answers)
        self.prompts = []

    def chat_json(self, messages, schema, usage=None, **kw):
        self.prompts.append(messages)
        if usage is not None:
            usage["calls"] += 1
            usage["prompt_tokens"] += 10
        if not self.answers:
            raise RuntimeError("script exhausted")
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a


def test_assistant_addresses_one_user_repairs_an_invalid_proposal_and_finishes():
    inst = SPEC.generate(4, {})
    i, j = (p + 1 for p in inst["best_pair"])
    llm = ScriptedLLM([{"act": "message", "to": "user2", "text": "Hi! Which meetings matter to you?"},
                       {"act": "propose", "flights": [999, 1]},
                       {"act": "propose", "flights": [i, j]}] + [{"act": "message", "to": "both", "text": "ok"}] * 5)
    rec = play_game(SPEC, 4, {"user1": "simuser", "user2": "simuser", "assistant": "llm"}, llm=llm)
    assert rec.results["status"] == "completed"
    system, user = llm.prompts[0]
    assert "User 1 Information" in user["content"] and "User 2 Information" in user["content"]
    live = user["content"].split("TRIP 2.")[-1]
    assert "Private calendar" not in live and "| (" not in live      # no user's importance or private events
    assert "travel agent" in system["content"]
    assert any("Error: Propose two flight numbers" in m["content"] for m in llm.prompts[2])
    if os.path.exists(default_path()):
        assert "TRIP 1." in user["content"] and "TRIP 2." in user["content"]
    assert not any(a.get("fallback") for a in rec.llm_acts[:3])


def test_user_prompt_shows_own_calendar_and_the_breakdown():
    llm = ScriptedLLM([{"act": "message", "text": "hi, my thursday afternoon meeting is important (8)"},
                       {"act": "accept"}] + [{"act": "accept"}] * 5)
    rec = play_game(SPEC, 6, {"user1": "llm", "user2": "simuser", "assistant": "mediator"}, llm=llm)
    assert rec.results["status"] == "completed"
    text = "\n".join(m["content"] for p in llm.prompts for m in p)
    assert "Private calendar:" in text and "Shared calendar (visible to assistant):" in text
    assert "your score: meetings" in text


def test_a_failing_llm_falls_back_visibly():
    llm = ScriptedLLM([RuntimeError("model down")] * 80)
    rec = play_game(SPEC, 5, {"user1": "llm", "user2": "simuser", "assistant": "llm"}, llm=llm)
    assert rec.results["status"] == "completed"
    assert rec.llm_acts and all(a.get("fallback") for a in rec.llm_acts)


def test_cli_refuses_llm_agents_without_an_llm(monkeypatch):
    for var in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit, match="needs an LLM"):
        main(["mediation", "--agents", "simuser,simuser,llm"])
