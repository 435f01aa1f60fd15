"""The assignment `llm` brain: prompt with two released examples (when the data is there), the table and the
history; an invalid proposal goes back to the model with the error; a failing LLM falls back visibly; and the CLI
refuses `--agents llm,llm` without an LLM instead of printing the symbolic agent's figures under the LLM's name."""
from __future__ import annotations

import os

import pytest

from tasks.core import evaluation
from bots.local import main
from tasks.core.evaluation import play_game
from tasks import get_task
from tasks.assignment.parse import format_proposal
from tasks.dialop.data import default_path

SPEC = get_task("assignment")


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


def test_invalid_proposal_is_returned_with_the_error_and_the_game_finishes():
    inst = SPEC.generate(4, {})
    best = format_proposal(inst["best_matching"])
    llm = ScriptedLLM([{"act": "message", "text": "Hi, Ava is great for GloVe, like 80."},
                       {"act": "propose", "proposal": "BLEU=Ava Li"},      # incomplete: repaired
                       {"act": "propose", "proposal": best}])
    rec = play_game(SPEC, 4, {"player1": "llm", "player2": "optimizer"}, {"turns": "alternate"}, llm=llm)
    assert rec.results["status"] == "completed"
    assert any("Error: A proposal assigns all 8 papers" in m["content"] for m in llm.prompts[2])
    system, user = llm.prompts[0]
    assert "Reviewer Paper Similarity Scores:" in user["content"] and "propose" in system["content"]
    if os.path.exists(default_path()):
        assert "EXAMPLE 1." in user["content"] and "EXAMPLE 2." in user["content"]
    assert not any(a.get("fallback") for a in rec.llm_acts)


def test_a_failing_llm_falls_back_visibly():
    llm = ScriptedLLM([RuntimeError("model down")] * 50)
    rec = play_game(SPEC, 5, {"player1": "llm", "player2": "optimizer"}, {"turns": "alternate"}, llm=llm)
    assert rec.results["status"] == "completed"
    assert any(a.get("fallback") for a in rec.llm_acts)
    seat = rec.results["llm"]["player1"]
    assert seat["acts"] > 0 and seat["fallback"] == seat["acts"] and seat["valid"] == 0
    assert evaluation.agent_label(SPEC, {"player1": "llm", "player2": "optimizer"}, [rec]) == "llm+fallback,optimizer"


def test_cli_refuses_llm_agents_without_an_llm(monkeypatch):
    for var in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit, match="needs an LLM"):
        main(["assignment", "--agents", "llm,llm"])
