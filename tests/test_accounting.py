"""Honest accounting for every task (issue 31): an LLM act is `effective` only when its act() made a move the
rules accepted; symbolic agents get no LLM unless asked (`reader: llm`, labelled); a game strict mode ends is
`results["invalid"]`, left out of every summary's means and counted in an `invalid` column, and "+fallback" only
marks real fallbacks; with an LLM seat and a model the table adds the same seeds without the LLM (baseline row)."""
from __future__ import annotations

import dataclasses

import pytest

from bots import local
from bots.llm import LLMClient, LLMConfig
from tasks import get_task
from tasks.core import Brain, Chat, Join, LogEvent, MatchDriver, SeatInfo, View, build_match, evaluation
from tasks.core.evaluation import GameRecord
from tasks.core.llm_acts import per_seat
from tests.fake_openai import FakeOpenAI
from tests.toygame import SPEC as TOY

TRAVEL = get_task("travel")


class Scripted(Brain):
    """Each act() in play: one (valid) LLM act, marked a fallback when the script says so, then the script's lines."""

    name = "scripted"
    uses_llm = True

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.script = list(self.options.get("script", []))
        self.playing = False

    def observe(self, effect):
        if isinstance(effect, View):
            self.playing = effect.data.get("core", {}).get("phase") == "playing"

    def act(self):
        if not (self.playing and self.script):
            return []
        mode, lines = self.script.pop(0)
        with self.llm_act("turn") as act:
            pass
        if mode == "fallback":
            self.llm_fallback(act, error="scripted")
        return [self.command(*line[1:].split()) if line.startswith("/") else self.say(line) for line in lines]


def test_an_act_is_effective_only_when_its_moves_changed_the_game():
    script = [("valid", ["/propose 5"]),                    # accepted
              ("valid", ["/propose 12"]),                   # refused by the rules
              ("valid", ["Hello there."]),                  # chat only
              ("fallback", ["/propose 4"]),                 # accepted, but the symbolic policy played it
              ("valid", ["Hm.", "/nonsense", "/propose 3"])]  # one of its moves accepted
    spec = dataclasses.replace(TOY, brains={**TOY.brains, "scripted": Scripted})
    seats = {"a": SeatInfo("agent", "A", "scripted"), "b": SeatInfo("person", "B")}
    match, brains = build_match(spec, 1, seats, brain_options={"script": script})
    driver = MatchDriver(match, brains, clock=lambda: 0.0)
    logged = [e for batch in driver.open() for e in batch]
    logged += [e for batch in driver.feed(Join("b", t=0.0)) for e in batch]
    for _ in script[1:]:
        logged += [e for batch in driver.feed(Chat("b", "go on", t=0.0)) for e in batch]
    assert [a["effective"] for a in driver.llm_acts] == [True, False, False, False, True]
    rows = [e.data for e in logged if isinstance(e, LogEvent) and e.data.get("kind") == "llm_act"]
    assert [r["effective"] for r in rows] == [True, False, False, False, True]
    results = {"status": "completed", "llm": per_seat(driver.llm_acts)}
    figures = evaluation.summary_table(spec, [GameRecord(0, 1, {}, results)])
    assert figures["a valid %"] == 80.0 and figures["a effective %"] == 40.0 and figures["a fallback %"] == 20.0


# --- invalid games: one accounting for every task ---------------------------------------------------------------
def _mean_score(results):
    scores = [r["score"] for r in results]
    return {"games": len(results), "mean score": sum(scores) / max(1, len(scores))}


def test_invalid_games_are_left_out_of_every_tasks_means_and_counted():
    spec = dataclasses.replace(TOY, summarize=_mean_score)
    records = [GameRecord(0, 0, {}, {"status": "completed", "score": 10}),
               GameRecord(1, 1, {}, {"status": "invalid", "invalid": True, "score": 0}),
               GameRecord(2, 2, {}, {"status": "completed", "score": 6})]
    summary = evaluation.summary_table(spec, records)
    assert summary["mean score"] == 8.0 and summary["games"] == 2 and summary["invalid"] == 1
    assert evaluation.agent_label(spec, {"a": "llm", "b": "toy"}, records) == "llm,toy"


def test_a_strict_failure_is_no_fallback_in_the_label():
    failed = {"status": "invalid", "invalid": True, "llm": {"a": {"agent": "llm", "acts": 1, "failed": 1}}}
    fell = {"status": "completed", "llm": {"a": {"agent": "llm", "acts": 1, "fallback": 1}}}
    label = evaluation.agent_label
    assert label(TOY, {"a": "llm", "b": "toy"}, [GameRecord(0, 0, {}, failed)]) == "llm,toy"
    assert label(TOY, {"a": "llm", "b": "toy"}, [GameRecord(0, 0, {}, fell)]) == "llm+fallback,toy"


# --- symbolic agents never call a model unless asked ------------------------------------------------------------
def client_for(fake):
    return LLMClient(LLMConfig(model="m", base_url=fake.url, api_key="k", timeout=5.0, max_retries=0),
                     sleep=lambda s: None)


@pytest.mark.parametrize("task, agents", [("travel", {"light": "solver", "ghost": "solver"}),
                                          ("gnomes", {"h": "partner", "e": "aismcts"})])
def test_symbolic_agents_get_no_llm_unless_asked(task, agents):
    spec = get_task(task)
    seats = {s: SeatInfo("agent", s, a) for s, a in agents.items()}
    with FakeOpenAI() as fake, client_for(fake) as llm:
        _, plain = build_match(spec, 2, seats, llm=llm, brain_options={"iterations": 30})
        _, reading = build_match(spec, 2, seats, llm=llm, brain_options={"iterations": 30, "reader": "llm"})
        rec = evaluation.play_game(spec, 2, agents, llm=llm, brain_options={"iterations": 30})
        assert fake.requests == [] and rec.llm_acts == [] and "llm" not in rec.results
    assert all(b.llm is None for b in plain.values()) and all(b.llm is llm for b in reading.values())
    label = evaluation.agent_label(spec, agents, [rec], {"reader": "llm"})
    assert label == ",".join(f"{agents[s]} (llm reader)" for s in spec.seats)


def test_llm_agents_keep_their_llm():
    seats = {"light": SeatInfo("agent", "L", "solver"), "ghost": SeatInfo("agent", "G", "baseline")}
    llm = object()
    _, brains = build_match(TRAVEL, 1, seats, llm=llm)
    assert brains["ghost"].llm is llm and brains["light"].llm is None


def test_reader_llm_for_one_seat_only(tmp_path, monkeypatch, capsys):
    """`SEAT.reader=llm`: that seat's symbolic agent reads through the LLM, the other gets none, the label says
    which; the baseline row is the same game with no model at all; a SEAT that is no seat is refused."""
    agents = {"light": "solver", "ghost": "solver"}
    seats = {s: SeatInfo("agent", s, a) for s, a in agents.items()}
    llm = object()
    _, brains = build_match(TRAVEL, 2, seats, llm=llm, brain_options={"light.reader": "llm"})
    assert brains["light"].llm is llm and brains["ghost"].llm is None
    assert brains["light"].options.get("reader") == "llm" and "reader" not in brains["ghost"].options
    _, brains = build_match(TRAVEL, 2, seats, llm=llm, brain_options={"reader": "llm", "ghost.reader": "none"})
    assert brains["light"].llm is llm and brains["ghost"].llm is None  # the seat's own key wins
    label = evaluation.agent_label(TRAVEL, agents, [], {"light.reader": "llm"})
    assert label == "solver (llm reader),solver"
    with pytest.raises(ValueError, match="'lamp' is no seat of travel"):
        build_match(TRAVEL, 2, seats, llm=llm, brain_options={"lamp.reader": "llm"})
    assert local.main(["travel", "--agents", "solver,solver", "--brain-option", "lamp.reader=llm",
                       "--out", str(tmp_path / "x")]) == 2
    assert "'lamp' is no seat of travel" in capsys.readouterr().err
    with FakeOpenAI(default=lambda req: {"status": 500}) as fake:
        monkeypatch.setenv("LLM_MODEL", "test-model")
        monkeypatch.setenv("LLM_BASE_URL", fake.url)
        monkeypatch.setenv("LLM_MAX_RETRIES", "0")
        assert local.main(["travel", "--agents", "solver,solver", "--quiet", "--brain-option", "light.reader=llm",
                           "--seed", "2", "--out", str(tmp_path / "run")]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("agents"))
    assert lines[header + 2].startswith("solver (llm reader)")
    assert lines[header + 3].startswith("solver,solver without LLM (baseline) ")


# --- the LLM-free baseline row ----------------------------------------------------------------------------------
def test_an_llm_run_prints_the_same_seeds_without_the_llm(tmp_path, monkeypatch, capsys):
    with FakeOpenAI(default=lambda req: {"status": 500}) as fake:
        monkeypatch.setenv("LLM_MODEL", "test-model")
        monkeypatch.setenv("LLM_BASE_URL", fake.url)
        monkeypatch.setenv("LLM_MAX_RETRIES", "0")
        argv = ["travel", "--games", "2", "--agents", "solver,baseline", "--parallel", "1"]
        assert local.main([*argv, "--out", str(tmp_path / "with")]) == 0
        out = capsys.readouterr().out
        assert local.main([*argv, "--out", str(tmp_path / "without"), "--no-baseline"]) == 0
        skipped = capsys.readouterr().out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("agents"))
    llm_row, base_row = lines[header + 2], lines[header + 3]
    assert llm_row.startswith("solver,baseline+fallback ")
    assert base_row.startswith("solver,baseline without LLM (baseline) ")
    assert len(list((tmp_path / "with" / "baseline" / "records").glob("*.json"))) == 2
    assert "without LLM" not in skipped and not (tmp_path / "without" / "baseline").exists()


def test_one_llm_game_prints_its_baseline_too(tmp_path, monkeypatch, capsys):
    with FakeOpenAI(default=lambda req: {"status": 500}) as fake:
        monkeypatch.setenv("LLM_MODEL", "test-model")
        monkeypatch.setenv("LLM_BASE_URL", fake.url)
        monkeypatch.setenv("LLM_MAX_RETRIES", "0")
        assert local.main(["travel", "--agents", "solver,grounding", "--quiet", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("agents"))
    assert lines[header + 2].startswith("solver,grounding+fallback ")
    assert lines[header + 3].startswith("solver,grounding without LLM (baseline) ")
    assert (tmp_path / "baseline" / "game.jsonl").exists()


def test_no_baseline_without_a_model(tmp_path, capsys):
    assert local.main(["travel", "--games", "2", "--agents", "solver,solver", "--parallel", "1",
                       "--out", str(tmp_path)]) == 0
    assert "without LLM" not in capsys.readouterr().out and not (tmp_path / "baseline").exists()


def second_game_invalid(monkeypatch, evaluator, **results) -> None:
    """A task evaluator's second game (index 1) ends as strict mode's invalid games do, with these results."""
    real = evaluator.play_game

    def play(spec, seed, *args, **kw):
        rec = real(spec, seed, *args, **kw)
        if kw.get("index") == 1:
            rec = dataclasses.replace(rec, results={**rec.results, "status": "invalid", "invalid": True, **results})
        return rec

    monkeypatch.setattr(evaluator, "play_game", play)


def test_dond_table_leaves_invalid_games_out_of_its_row(tmp_path, monkeypatch, capsys):
    """dond prints the paper's layout with its own evaluator: an invalid game is in no figure of the row either."""
    from tasks.dond import evaluate as dond_evaluate

    second_game_invalid(monkeypatch, dond_evaluate, deal=False)
    spec = get_task("dond")
    assert dond_evaluate.main_table(spec, {"alice": "bayes", "bob": "bayes"}, {}, None, 3, 0, str(tmp_path)) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("this run"))
    assert row.split()[-1] == "1" and row.split(")")[1].split()[0] == "2"  # invalid column 1; n: the two valid games


def test_matrix_games_rates_leave_invalid_trials_out(tmp_path, monkeypatch, capsys):
    """matrix-games prints the paper's layout with its own evaluator: an invalid trial is in no NE rate."""
    from tasks.matrix_games import evaluate as matrix_evaluate

    second_game_invalid(monkeypatch, matrix_evaluate, outcomes=[])
    spec = get_task("matrix-games")
    options = {"trials": 2, "negotiation": "0", "game": "prisoners-dilemma"}
    assert matrix_evaluate.main_paper_table(spec, {"alice": "workflow", "bob": "workflow"}, options, None, 0,
                                            str(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "1 invalid (strict LLM mode)" in out
    row = next(line for line in out.splitlines() if line.startswith("prisoners-dilemma"))
    assert row.split()[1] == "1.00"  # the valid trial reached the NE: 1 of 1, not 1 of 2
