"""LLM agents through the real LLM client and a fake OpenAI-compatible HTTP server (no network).

A working endpoint drives the agent and its tokens are counted; an endpoint that errors or hangs makes the agent
fall back to its symbolic policy (noted in the log), so the game still ends instead of hanging the room.
"""
import json

from tasks.core import evaluation
from tasks.core.evaluation import read_rows
from bots.llm import LLMClient, LLMConfig
from tasks import get_task
from tasks.core.llm_acts import acts_in
from tests.fake_openai import FakeOpenAI, request_schema

TRAVEL = get_task("travel")


def client_for(fake, timeout=5.0, retries=0):
    cfg = LLMConfig(model="test-model", base_url=fake.url, api_key="sk-test", timeout=timeout, max_retries=retries)
    return LLMClient(cfg, sleep=lambda s: None)


def notes(path):
    return [r["data"] for _, r in read_rows(str(path)) if r["event"] == "agent_note"]


def test_llm_agent_plays_through_the_endpoint_and_counts_tokens(tmp_path):
    # A model that answers in the schema each request sends (structured output): nothing new for the coin
    # extractor, and for the agent itself an agreement with whatever is on the table.
    def answer(request):
        schema = request_schema(request) or {}
        props = schema.get("properties") or {}
        prompt = str(request["messages"][-1].get("content"))
        if "actions" in props:
            return json.dumps({"thought": "follow the plan", "actions": [{"type": "agree-inner", "args": []}],
                               "message": "Let us agree." if "propos" in prompt else "Hello!"})
        return json.dumps({"thought": "nothing new", "coins": []})  # grounding; the solver's reader fails

    with FakeOpenAI(default=answer) as fake, client_for(fake) as llm:
        rec = evaluation.play_game(TRAVEL, 1, {"light": "solver", "ghost": "problem-solving"}, llm=llm,
                              log_path=str(tmp_path / "g.jsonl"))
        assert fake.requests, "the agent never called the endpoint"
        assert fake.requests[0]["json"]["model"] == "test-model"
        assert {r["form"] for r in fake.requests} == {"json_schema"}  # the first form the fake honours
    # A canned model cannot negotiate; what matters here is that its answers drive the seat and the game ends.
    assert rec.results["status"] in ("completed", "timeout", "stalled")
    assert rec.results["tokens"] > 0 and rec.usage["calls"] == len(fake.requests)
    # (The solver seat is the solver alone: a symbolic agent reads chat through the LLM only with reader=llm.)
    assert not [n for n in notes(tmp_path / "g.jsonl") if n["kind"] == "llm_fallback" and n["seat"] == "ghost"]
    ghost_said = [r["data"]["input"]["text"] for _, r in read_rows(str(tmp_path / "g.jsonl"))
                  if r["event"] == "game_input" and r["data"]["input"]["type"] == "Chat"
                  and r["data"]["input"]["seat"] == "ghost"]
    assert "Hello!" in ghost_said or "Let us agree." in ghost_said
    # Every act is logged with its validity and time, and the figures say who fell back.
    acts = acts_in(r for _, r in read_rows(str(tmp_path / "g.jsonl")))
    ghost = [a for a in acts if a["seat"] == "ghost"]
    assert {a["use"] for a in ghost} == {"action", "grounding"} and all(a["valid"] for a in ghost)
    assert not [a for a in acts if a["seat"] == "light"] and "light" not in rec.results["llm"]
    assert all(a["seconds"] >= a["model_seconds"] > 0 for a in acts)
    assert rec.results["llm"]["ghost"]["acts"] == len(ghost) == rec.results["llm"]["ghost"]["valid"]
    assert evaluation.agent_label(TRAVEL, rec.agents, [rec]) == "solver,problem-solving"


def test_failing_endpoint_falls_back_and_the_game_still_ends(tmp_path):
    with FakeOpenAI(default=lambda req: {"status": 500, "error": "model overloaded"}) as fake, client_for(fake, retries=1) as llm:
        rec = evaluation.play_game(TRAVEL, 2, {"light": "baseline", "ghost": "grounding"}, llm=llm,
                              log_path=str(tmp_path / "g.jsonl"))
    assert rec.results["status"] == "completed" and rec.results["correct"]
    fallbacks = [n for n in notes(tmp_path / "g.jsonl") if n["kind"] == "llm_fallback"]
    assert fallbacks and {n["seat"] for n in fallbacks} == {"light", "ghost"}
    assert "sk-test" not in (tmp_path / "g.jsonl").read_text()


def test_hanging_endpoint_times_out_into_the_fallback(tmp_path):
    with FakeOpenAI(default=lambda req: {"hang": 2.0, "content": "too late"}) as fake, \
            client_for(fake, timeout=0.2, retries=0) as llm:
        rec = evaluation.play_game(TRAVEL, 3, {"light": "solver", "ghost": "state-tracking"}, llm=llm,
                              log_path=str(tmp_path / "g.jsonl"))
    assert rec.results["status"] == "completed"
    assert any(n["kind"] == "llm_fallback" for n in notes(tmp_path / "g.jsonl"))
