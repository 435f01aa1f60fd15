"""LLM acts: every use of the LLM by a brain is recorded (validity, fallback, tokens, time), logged as `llm_act` rows on
every transport, summed into honest tables (per LLM seat: acts, valid %, fallback %, tokens, seconds per act; the
agent label says when the symbolic policy stood in), and `strict_llm` turns a fallback into an invalid game.

All against the real LLM client and the fake OpenAI-compatible server (no model needed)."""
from __future__ import annotations

import contextlib
import csv
import json
import random

import pytest

from bots import local
from tasks.core import evaluation
from tasks.core.evaluation import read_rows
from bots.llm import LLMClient, LLMConfig
from bots.study.replay_outputs import by_agents_table, replay_paths
from tasks import get_task
from tasks.core import Brain, MatchDriver, SeatInfo, build_match
from tasks.core.llm_acts import acts_in, fell_back, llm_columns, per_seat, use_rows
from tests.fake_openai import FakeOpenAI, request_schema

TRAVEL = get_task("travel")
GNOMES = get_task("gnomes")


def client_for(fake, **kw):
    params = dict(model="test-model", base_url=fake.url, api_key="sk-test", timeout=5.0, max_retries=0)
    params.update(kw)
    return LLMClient(LLMConfig(**params), sleep=lambda s: None)


def rows(path, event):
    if event == "llm_act":
        return acts_in(r for _, r in read_rows(str(path)))
    return [r["data"] for _, r in read_rows(str(path)) if r["event"] == event]


# ---------------------------------------------------------------------------------------------------------------
# the act record
# ---------------------------------------------------------------------------------------------------------------
def test_an_act_records_validity_tokens_and_time():
    class U:
        prompt_tokens, completion_tokens, calls, model_seconds = 30, 4, 1, 0.01

    b = Brain("a")
    with b.llm_act("reader") as act:
        act.add(U())
    with pytest.raises(ValueError):
        with b.llm_act("reader") as bad:
            bad.add(U())
            raise ValueError("not a flag")
    assert b.llm_fallback(bad, error="rules instead") is True
    recs = b.drain_llm_acts()
    assert [(r["use"], r["valid"], r["fallback"], r["failed"]) for r in recs] == \
        [("reader", True, False, False), ("reader", False, True, False)]
    assert recs[1]["error"].startswith("ValueError: not a flag")
    assert all(r["seconds"] >= 0 and r["prompt_tokens"] == 30 for r in recs)
    assert b.usage == {"prompt_tokens": 60, "completion_tokens": 8, "calls": 2, "failures": 1}
    assert [n["kind"] for n in b.notes] == ["llm_fallback"] and b.drain_llm_acts() == []

    strict = Brain("a", options={"strict_llm": True})
    with contextlib.suppress(RuntimeError), strict.llm_act("flag") as act:
        raise RuntimeError("down")
    assert strict.llm_fallback(act, RuntimeError("down")) is False
    rec, = strict.drain_llm_acts()
    assert rec["failed"] and not rec["fallback"] and [n["kind"] for n in strict.notes] == ["llm_failed"]


def test_the_figures_add_up():
    acts = [{"seat": "g", "brain": "b", "use": "action", "valid": True, "effective": True, "seconds": 2.0,
             "prompt_tokens": 100, "completion_tokens": 10},
            {"seat": "g", "brain": "b", "use": "action", "valid": False, "fallback": True, "seconds": 4.0},
            {"seat": "g", "brain": "b", "use": "grounding", "valid": True, "seconds": 1.0, "prompt_tokens": 50,
             "completion_tokens": 5}]
    f = per_seat(acts)
    assert (f["g"]["acts"], f["g"]["valid"], f["g"]["fallback"], f["g"]["max_seconds"]) == (3, 2, 1, 4.0)
    assert f["g"]["by_use"]["action"]["acts"] == 2
    results = [{"llm": f, "status": "completed"}, {"status": "completed"}]
    cols = llm_columns(results)
    assert cols == {"g acts": 3, "g valid %": 66.7, "g effective %": 33.3, "g fallback %": 33.3,
                    "g tokens/game": 82.5, "g s/act": 2.333}
    assert fell_back(results) == {"g"} and fell_back([{"llm": per_seat(acts[:1])}]) == set()
    use = {r[2]: r for r in use_rows(results)}
    assert use["action"][3:7] == [2, 50.0, 50.0, 50.0] and use["grounding"][4:6] == [100.0, 0.0]


# ---------------------------------------------------------------------------------------------------------------
# games: logged acts, tables, labels, strict mode, replay
# ---------------------------------------------------------------------------------------------------------------
def valid_answer(request):
    """A model that always answers in the schema the request sends (agreeing, reading nothing new)."""
    props = (request_schema(request) or {}).get("properties") or {}
    if "actions" in props:
        return json.dumps({"thought": "ok", "actions": [{"type": "agree-inner", "args": []}], "message": "Fine."})
    if "ask_all" in props:
        return json.dumps({"coins": [], "asks": [], "ask_all": False, "cap": None, "path": [], "yes": True,
                           "no": False, "question": False})
    if "flag" in props:
        return json.dumps({"flag": "right"})
    if "coins" in props:
        return json.dumps({"thought": "none", "coins": []})
    return "It is somewhere to the right, mind the walls."  # a free-text answer


def test_travel_tables_show_the_fallback_and_label_it(tmp_path):
    with FakeOpenAI(default=lambda req: {"status": 500, "error": "model overloaded"}) as fake, \
            client_for(fake) as llm:
        records = evaluation.play_many(TRAVEL, 2, 5, {"light": "solver", "ghost": "baseline"}, {}, llm,
                                  str(tmp_path), progress=False, brain_options={"reader": "llm"})
    summary = evaluation.summary_table(TRAVEL, records)
    assert summary["ghost acts"] == sum(len([a for a in r.llm_acts if a["seat"] == "ghost"]) for r in records) > 0
    assert summary["ghost valid %"] == 0.0 and summary["ghost fallback %"] == 100.0
    assert summary["light fallback %"] == 100.0  # the solver's reader fell back to the rules too
    # the games themselves were played by the solver policy: the label says so
    assert evaluation.agent_label(TRAVEL, records[0].agents, records, {"reader": "llm"}) == \
        "solver (llm reader)+fallback,baseline+fallback"
    table = evaluation.llm_use_table([("x", records)])
    assert "action" in table and "reader" in table
    acts = rows(records[0].log_path, "llm_act")
    assert acts and all(not a["valid"] and a["fallback"] and "seconds" in a for a in acts)
    assert "sk-test" not in (tmp_path / "logs" / "game-0000.jsonl").read_text()


def test_a_valid_model_is_not_marked(tmp_path):
    with FakeOpenAI(default=valid_answer) as fake, client_for(fake) as llm:
        rec = evaluation.play_game(TRAVEL, 3, {"light": "solver", "ghost": "state-tracking"}, llm=llm,
                              log_path=str(tmp_path / "g.jsonl"))
    assert evaluation.agent_label(TRAVEL, rec.agents, [rec]) == "solver,state-tracking"
    cols = evaluation.summary_table(TRAVEL, [rec])
    assert cols["ghost valid %"] == 100.0 and cols["ghost fallback %"] == 0.0 and cols["ghost s/act"] > 0
    assert {a["use"] for a in rec.llm_acts if a["seat"] == "ghost"} <= {"action", "grounding"}


def test_strict_llm_reports_the_game_invalid_and_the_replay_agrees(tmp_path):
    with FakeOpenAI(default=lambda req: "I'd rather chat than answer in JSON.") as fake, client_for(fake) as llm:
        rec = evaluation.play_game(TRAVEL, 4, {"light": "baseline", "ghost": "solver"}, llm=llm,
                              log_path=str(tmp_path / "g.jsonl"), brain_options={"strict_llm": True})
    assert rec.results["status"] == "invalid"
    acts = rows(tmp_path / "g.jsonl", "llm_act")
    assert acts[-1]["failed"] and not acts[-1]["fallback"] and acts[-1]["repairs"] == 1
    notes = rows(tmp_path / "g.jsonl", "agent_note")
    assert not [n for n in notes if n["kind"] == "llm_fallback"] and [n for n in notes if n["kind"] == "llm_failed"]
    # the light seat never moved: the failed act's moves were not played
    moves = [i["input"] for i in rows(tmp_path / "g.jsonl", "game_input") if i["input"].get("seat") == "light"
             and i["input"]["type"] in ("Chat", "Command")]
    assert moves == []
    assert rec.results["invalid"] is True and evaluation.summary_table(TRAVEL, [rec])["invalid"] == 1
    report = replay_paths([str(tmp_path / "g.jsonl")], out=str(tmp_path / "out"), plots=False, html_out=False,
                          echo=None)
    assert report.games[0].check == "ok" and report.games[0].status == "invalid"
    header, table = by_agents_table(report.games)
    assert table[0][header.index("invalid")] == 1  # the replay's table counts it as the local one does


def test_strict_llm_from_the_command_line(tmp_path, monkeypatch, capsys):
    with FakeOpenAI(default=lambda req: {"status": 503}) as fake:
        monkeypatch.setenv("LLM_MODEL", "test-model")
        monkeypatch.setenv("LLM_BASE_URL", fake.url)
        monkeypatch.setenv("LLM_MAX_RETRIES", "0")
        assert local.main(["travel", "--games", "2", "--agents", "solver,grounding", "--strict-llm",
                           "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("agents"))
    assert " invalid " in header and "+fallback" not in out  # nothing fell back: the games are invalid
    assert "LLM acts per seat and use" in out
    with open(tmp_path / "games.csv", newline="") as fh:
        games = list(csv.DictReader(fh))
    assert [g["status"] for g in games] == ["invalid", "invalid"]


def test_replay_summary_has_the_llm_seat_columns(tmp_path):
    with FakeOpenAI(default=lambda req: {"status": 500}) as fake, client_for(fake) as llm:
        evaluation.play_many(TRAVEL, 2, 7, {"light": "solver", "ghost": "problem-solving"}, {}, llm, str(tmp_path / "run"),
                        progress=False)
    lines: list[str] = []
    replay_paths([str(tmp_path / "run" / "logs")], out=str(tmp_path / "out"), plots=False, html_out=False,
                 echo=lines.append)
    with open(tmp_path / "out" / "summary.csv", newline="") as fh:
        summary = list(csv.DictReader(fh))
    assert float(summary[0]["ghost acts"]) > 0 and summary[0]["ghost fallback %"] == "100.0"
    assert "ghost=problem-solving+fallback" in summary[0]["agents"]
    with open(tmp_path / "out" / "by_agents.csv", newline="") as fh:
        by_agents = list(csv.DictReader(fh))
    assert by_agents[0]["agents"].endswith("(LLM fallback)") and by_agents[0]["ghost fallback %"] == "100.0"
    assert "problem-solving+fallback" in lines[0]


def test_the_split_api_used_by_the_slurk_runtime_logs_the_same_acts(tmp_path):
    """The Slurk runtime runs `think` on a pool thread and `apply_moves` on the room's worker: the acts travel with
    the thought and come out of `apply_moves` as the same `llm_act` notes (and an invalid game under strict mode)."""
    with FakeOpenAI(default=valid_answer) as fake, client_for(fake) as llm:
        seats = {s: SeatInfo("agent", s, "problem-solving" if s == "light" else "solver") for s in TRAVEL.seats}
        match, brains = build_match(TRAVEL, 2, seats, llm=llm)
        driver = MatchDriver(match, brains)
        effects = [e for batch in driver.open(act=False) for e in batch]
        seat = driver.next_brain()
        assert seat == "light"
        thought = driver.think(seat)
        assert thought.acts and thought.acts[0]["use"] == "action" and thought.acts[0]["valid"]
        effects = [e for batch in driver.apply_moves(thought) for e in batch]
    notes = [e.data for e in effects if getattr(e, "event", None) == "agent_note"]
    assert [n for n in notes if n.get("kind") == "llm_act"] == [{"kind": "llm_act", **a} for a in thought.acts]
    assert driver.llm_acts == thought.acts

    with FakeOpenAI(default=lambda req: "no JSON today") as fake, client_for(fake) as llm:
        match, brains = build_match(TRAVEL, 2, seats, llm=llm, brain_options={"strict_llm": True})
        driver = MatchDriver(match, brains)
        list(driver.open(act=False))
        thought = driver.think(driver.next_brain())
        list(driver.apply_moves(thought))
    assert thought.acts[0]["failed"] and match.over and match.status == "invalid"


def test_one_deadline_covers_the_whole_act():
    class Turns:
        entered = 0

        @contextlib.contextmanager
        def turn(self):
            Turns.entered += 1
            yield

    class Thinker(Brain):
        def act(self):
            assert Turns.entered == 1  # inside the turn
            return []

    match, _ = build_match(get_task("travel"), 1, {s: SeatInfo("agent", s, "solver") for s in TRAVEL.seats},
                           with_brains=False)
    driver = MatchDriver(match, {"light": Thinker("light", llm=Turns())})
    driver.think("light")
    assert Turns.entered == 1


# ---------------------------------------------------------------------------------------------------------------
# gnomes through the real client
# ---------------------------------------------------------------------------------------------------------------
def test_gnomes_flags_and_answers_through_the_client(tmp_path):
    with FakeOpenAI(default=valid_answer) as fake, client_for(fake) as llm:
        rec = evaluation.play_game(GNOMES, 1, {"h": "partner", "e": "aismcts"}, llm=llm,
                                   log_path=str(tmp_path / "g.jsonl"),
                                   brain_options={"iterations": 30, "reader": "llm"})
        forms = {r["form"] for r in fake.requests}
    acts = rows(tmp_path / "g.jsonl", "llm_act")
    flags = [a for a in acts if a["use"] == "flag"]
    assert flags and all(a["valid"] and not a["fallback"] for a in acts)
    assert "json_schema" in forms and forms <= {"json_schema", "off"}  # flags structured, answers free text
    assert rec.results["llm"]["e"]["acts"] == len(acts) and rec.usage["calls"] == len(acts)
    assert not [n for n in rows(tmp_path / "g.jsonl", "agent_note") if n["kind"] == "llm_fallback"]


# ---------------------------------------------------------------------------------------------------------------
# no answer, however malformed, crashes or blocks the room
# ---------------------------------------------------------------------------------------------------------------
def malformed(seed):
    rng = random.Random(seed)
    junk = ["", "null", "[]", "{", '{"thought": 5}', '{"actions": "all of them", "message": []}',
            '{"thought": "t", "actions": [{"type": "teleport", "args": [["Z", 9]]}], "message": "x"}',
            '{"flag": "sideways"}', '{"coins": [{"hallway": ["L"], "coins": "many"}]}', "\u0000\ud7ff" * 50,
            '```json\n{"thought": "' + "a" * 5000 + '"}\n```', "<think>" + "{" * 300, json.dumps({"x": [[[[[]]]]]})]

    def answer(request):
        pick = rng.random()
        if pick < 0.05:
            return {"status": 500, "error": "oops"}
        if pick < 0.1:
            return {"drop": True}
        return rng.choice(junk)
    return answer


@pytest.mark.parametrize("task, agents", [
    ("travel", {"light": "baseline", "ghost": "grounding"}),
    ("travel", {"light": "state-tracking", "ghost": "problem-solving"}),
    ("travel", {"light": "solver", "ghost": "solver"}),
    ("gnomes", {"h": "partner", "e": "aismcts"}),
])
def test_malformed_answers_never_crash_or_block_a_room(tmp_path, task, agents):
    spec = get_task(task)
    with FakeOpenAI(default=malformed(len(task))) as fake, client_for(fake) as llm:
        rec = evaluation.play_game(spec, 2, agents, llm=llm, log_path=str(tmp_path / "g.jsonl"),
                              brain_options={"iterations": 30, "reader": "llm"})
    assert rec.results["status"] in ("completed", "timeout")  # played to the end by the fallbacks
    acts = rows(tmp_path / "g.jsonl", "llm_act")
    json_acts = [a for a in acts if a["use"] != "answer"]  # a free-text answer is any non-empty line
    assert json_acts and all(not a["valid"] and a["fallback"] for a in json_acts)
    assert all(a["valid"] or a["fallback"] for a in acts)
    assert not [n for n in rows(tmp_path / "g.jsonl", "agent_note") if n["kind"] == "error"]


def test_large_length_bounds_stay_out_of_the_servers_grammar():
    """A 3,000-character bound compiled into a llama.cpp grammar crashed the local server; such bounds are kept for
    the client's own validation only, small ones (which shorten answers) still go to the server."""
    from bots.llm import _response_format, server_schema
    schema = {"type": "object", "properties": {
        "message": {"type": "string", "maxLength": 3000},
        "thought": {"type": "string", "maxLength": 300},
        "actions": {"type": "array", "maxItems": 120, "items": {"type": "integer", "minimum": 1}},
        "pair": {"type": "array", "maxItems": 2, "items": {"type": "string"}}}}
    sent = server_schema(schema)["properties"]
    assert "maxLength" not in sent["message"] and sent["thought"]["maxLength"] == 300
    assert "maxItems" not in sent["actions"] and sent["pair"]["maxItems"] == 2
    assert sent["actions"]["items"] == {"type": "integer", "minimum": 1}
    assert schema["properties"]["message"]["maxLength"] == 3000  # the caller's schema is untouched
    rf = _response_format("json_object_schema", schema, "x")
    assert "maxLength" not in rf["schema"]["properties"]["message"]
