"""The AsymPuzl `llm` agent: the paper's turn prompt (instructions, clues re-injected, hypothesis, recent
conversation cut to the history length, feedback, the JSON answer format), actions applied to its own row, an invalid
action returned once with the error, a failing model falling back visibly to share-all, the real client against the
fake OpenAI server, and the CLI refusing `llm` without a model."""
from __future__ import annotations

import json

import pytest

from bots import local
from tasks.core import evaluation
from bots.llm import LLMClient, LLMConfig
from tasks.core.evaluation import play_game
from tasks import get_task
from tests.fake_openai import FakeOpenAI, request_schema

SPEC = get_task("asympuzl")


class ScriptedLLM:
    def __init__(self, answers):
        self.answers = list(answers)
        self.prompts = []

    def chat_json(self, messages, schema, usage=None, **kw):
        self.prompts.append(messages)
        if usage is not None:
            usage["calls"] += 1
            usage["prompt_tokens"] += 10
            usage["completion_tokens"] += 5
        if not self.answers:
            raise RuntimeError("script exhausted")
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a(messages) if callable(a) else a


def test_the_turn_prompt_and_actions_with_one_repair():
    inst = SPEC.generate(3, {"size": 4})
    truth = inst["truth"]
    acts = [{"replace": i + 1, "by": {"shape": s, "color": c}} for i, (s, c) in enumerate(truth)]
    llm = ScriptedLLM([
        {"message": "Send me your colours please. " + " ".join(f"Position {i + 1} is the {s}." for i, (s, _)
                                                               in enumerate(truth)), "actions": []},
        {"message": "thanks", "actions": [{"replace": 9, "by": {"shape": "circle", "color": "red"}}]},  # repaired
        {"message": "Done, thanks!", "actions": acts},
    ])
    rec = play_game(SPEC, 3, {"a": "llm", "b": "share-all"}, {"size": 4, "feedback": "own-detailed"}, llm=llm)
    assert rec.results["success"] and rec.results["turns_to_success"] == 2
    system, user = llm.prompts[0]
    assert "Player A" in system["content"] and '"replace"' in system["content"] and '"message"' in system["content"]
    assert "Your clues (read-only): Position 1: the" in user["content"]
    assert "Your current working hypothesis: Position 1:" in user["content"]
    second = llm.prompts[1][1]["content"]
    assert "Partner: My shape-colour pairs:" in second and "You: Send me your colours please. Position 1" in second
    assert "Feedback from the previous turn: your row is not right yet; wrong positions in your row: 1, 2, 3, 4." \
        in second
    assert "Say which position" in llm.prompts[2][1]["content"]  # the error goes back once
    assert not any(a.get("fallback") for a in rec.llm_acts)


def test_history_length_cuts_the_conversation():
    seen = []

    def answer(messages):
        seen.append(messages[1]["content"])
        return {"message": f"note {len(seen)}", "actions": []}
    llm = ScriptedLLM([answer] * 6)
    play_game(SPEC, 1, {"a": "llm", "b": "incremental"}, {"size": 3, "history": 1}, llm=llm)
    convo = seen[3].split("Recent conversation:\n")[1].split("\n\n")[0].splitlines()
    assert len(convo) == 2 and convo[0].startswith("You: note 3") and convo[1].startswith("Partner:")


def test_a_failing_llm_falls_back_visibly():
    llm = ScriptedLLM([RuntimeError("model down")] * 20)
    rec = play_game(SPEC, 2, {"a": "llm", "b": "share-all"}, {"size": 5}, llm=llm)
    assert rec.results["success"]
    seat = rec.results["llm"]["a"]
    assert seat["acts"] > 0 and seat["fallback"] == seat["acts"]
    assert evaluation.agent_label(SPEC, {"a": "llm", "b": "share-all"}, [rec]) == "llm+fallback,share-all"


def test_the_real_client_against_the_fake_server_counts_tokens():
    inst = SPEC.generate(0, {"size": 3})

    def answer(request):
        schema = request_schema(request) or {}
        assert "actions" in schema.get("properties", {})
        prompt = request["messages"][-1]["content"]
        if "Partner: My shape-colour pairs" in prompt:
            acts = [{"replace": i + 1, "by": {"shape": s, "color": c}} for i, (s, c) in enumerate(inst["truth"])]
            return json.dumps({"message": "all set", "actions": acts})
        said = " ".join(f"Position {i + 1} is the {s}." for i, (s, _) in enumerate(inst["truth"]))
        return json.dumps({"message": said, "actions": []})

    cfg = LLMConfig(model="test-model", base_url=None, api_key="sk-test", timeout=5.0, max_retries=0)
    with FakeOpenAI(default=answer) as fake:
        cfg.base_url = fake.url
        with LLMClient(cfg, sleep=lambda s: None) as llm:
            rec = play_game(SPEC, 0, {"a": "llm", "b": "share-all"}, {"size": 3}, llm=llm)
        assert fake.requests and fake.requests[0]["json"]["model"] == "test-model"
    assert rec.results["success"] and rec.results["tokens"] > 0
    s = SPEC.summarize([rec.results])
    assert 0 < s["message share %"] <= 100


def test_cli_refuses_llm_agents_without_an_llm(monkeypatch):
    for var in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit, match="needs an LLM"):
        local.main(["asympuzl", "--agents", "llm,share-all"])
