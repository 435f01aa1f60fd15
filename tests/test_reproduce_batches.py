"""Reproductions played in the paper's batches (`ReproCondition.batches`, tasks/core/evaluation/reproduce.py): the
condition's games are split into consecutive batches, each with its brain-option override deep-merged into the
preset's (here one API `seed` per batch, as Traveling Adventurers ran 4 x 25 games); every game keeps its own game
seed, its log records the batch's sampling, a resumed run replays nothing, and travel declares the paper's four."""
from __future__ import annotations

import dataclasses
import json
import re

from bots import reproduce as command
from tasks import get_task
from tasks.core.evaluation.reproduce import batches_of, slug
from tasks.core.presets import Preset
from tasks.core.reproduction import ReproCondition, Reproduction, batch_sizes, merged
from tests.fake_openai import FakeOpenAI
from tests.test_sweep import llm_env

LABEL = "llm self-play"
SAMPLING = {"*": {"temperature": 0.7, "max_tokens": 321}}  # the toy preset's: every batch keeps it
SEEDS = (11, 22)


def toy_spec(batches=tuple({"sampling": {"*": {"seed": s}}} for s in SEEDS)):
    spec = get_task("dond")
    toy = Reproduction(conditions=(ReproCondition(LABEL, ("llm", "llm"), paper={"agreement": 0.5}, batches=batches),),
                       columns=("agreement",), source="Toy et al., Table 9")
    paper = Preset("paper", "toy: pins an instance, samples", options={"instance": 3},
                   brain_options={"sampling": SAMPLING})
    return dataclasses.replace(spec, reproduction=toy, presets={**spec.presets, "paper": paper})


def run(out, monkeypatch, *argv, spec=None) -> tuple[int, list[dict]]:
    """The reproduce command against a fresh fake server, one game at a time (requests in game order): (its exit
    code, the requests' JSON bodies)."""
    monkeypatch.setattr(command, "get_task", lambda name: spec or toy_spec())
    with FakeOpenAI() as fake:
        llm_env(fake, monkeypatch)
        code = command.main(["dond", "--out", str(out), "--parallel", "1", *argv])
    return code, [r["json"] for r in fake.requests]


def game(out, batch: int, index: int) -> dict:
    return json.loads((out / slug(LABEL) / f"batch-{batch}" / "records" / f"game-{index:04d}.json").read_text())


def calls(record: dict) -> int:
    return sum(s["calls"] for s in (record["results"].get("llm") or {}).values())


def logged_sampling(out, batch: int, index: int) -> dict:
    log = out / slug(LABEL) / f"batch-{batch}" / "logs" / f"game-{index:04d}.jsonl"
    start = next(r for r in map(json.loads, log.read_text().splitlines()) if r["event"] == "game_start")
    return start["data"]["brain_options"]["sampling"]


def test_split_into_consecutive_batches_as_evenly_as_possible():
    assert batch_sizes(100, 4) == [25, 25, 25, 25]
    assert batch_sizes(5, 4) == [2, 1, 1, 1]
    assert batch_sizes(2, 4) == [1, 1, 0, 0]
    cond = toy_spec(tuple({"sampling": {"*": {"seed": s}}} for s in (1, 2, 3, 4))).reproduction.conditions[0]
    batches = batches_of(cond, {"sampling": SAMPLING, "strict_llm": True}, 5)
    assert [(b.first, b.games) for b in batches] == [(0, 2), (2, 1), (3, 1), (4, 1)]
    assert [b.brain_options["sampling"]["*"] for b in batches] == [{**SAMPLING["*"], "seed": s} for s in (1, 2, 3, 4)]
    assert all(b.brain_options["strict_llm"] for b in batches)
    assert batches_of(dataclasses.replace(cond, batches=()), {"x": 1}, 5)[0].games == 5  # no batches: one of all
    assert merged({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 9}}) == {"a": {"b": 9, "c": 2}, "d": 3}


def test_each_batch_sends_its_seed_over_the_presets_sampling_and_the_games_keep_their_seeds(tmp_path, monkeypatch):
    out = tmp_path / "run"
    code, requests = run(out, monkeypatch, "--games", "4", "--yes")
    assert code == 0
    games = [game(out, 1, 0), game(out, 1, 1), game(out, 2, 0), game(out, 2, 1)]  # 4 games, 2 batches: 2 + 2
    assert [g["seed"] for g in games] == [0, 1, 2, 3]  # the seeds of a run without batches
    sent, at = [], 0
    for g in games:  # one game at a time: each game's requests follow the previous game's
        sent.append({r["seed"] for r in requests[at:at + calls(g)]})
        at += calls(g)
    assert at == len(requests) and all(calls(g) for g in games)
    assert sent == [{11}, {11}, {22}, {22}]
    assert {(r["temperature"], r["max_tokens"]) for r in requests} == {(0.7, 321)}  # the rest of the preset's
    assert [logged_sampling(out, b, i)["*"]["seed"] for b in (1, 2) for i in (0, 1)] == [11, 11, 22, 22]
    baseline = sorted((out / slug(LABEL) / "baseline" / "records").iterdir())
    assert [json.loads(p.read_text())["seed"] for p in baseline] == [0, 1, 2, 3]  # the same seeds, once
    text = (out / "reproduction.txt").read_text()
    header, _, row = (re.split(r"\s{2,}", ln.strip()) for ln in text.splitlines()[1:4])
    assert row[0] == LABEL and row[header.index("games")] == "4"  # the row counts every batch's games
    assert f"{LABEL}: 2 batches, sampling.*.seed=11: games 1-2; sampling.*.seed=22: games 3-4" in text


def test_fewer_games_than_batches_leaves_the_last_batches_empty_and_says_so(tmp_path, monkeypatch):
    out = tmp_path / "run"
    spec = toy_spec(tuple({"sampling": {"*": {"seed": s}}} for s in (1, 2, 3, 4)))
    code, requests = run(out, monkeypatch, "--games", "2", "--yes", "--no-baseline", spec=spec)
    assert code == 0
    assert {r["seed"] for r in requests} == {1, 2}
    assert game(out, 1, 0)["seed"] == 0 and game(out, 2, 0)["seed"] == 1
    assert not (out / slug(LABEL) / "batch-3" / "records").exists()
    assert ("4 batches, sampling.*.seed=1: game 1; sampling.*.seed=2: game 2; sampling.*.seed=3: no game; "
            "sampling.*.seed=4: no game (2 games for 4 batches)") in (out / "reproduction.txt").read_text()


def test_the_same_command_resumes_without_replaying_a_finished_game(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    monkeypatch.setattr("sys.stdin", open("/dev/null"))
    code, pilot = run(out, monkeypatch, "--games", "4", "--no-baseline")  # not confirmed: the pilot alone
    assert code == 1 and {r["seed"] for r in pilot} == {11} and len(pilot) == calls(game(out, 1, 0))
    code, rest = run(out, monkeypatch, "--games", "4", "--no-baseline", "--yes")
    assert code == 0 and "1 recorded" in capsys.readouterr().out
    later = [game(out, 1, 1), game(out, 2, 0), game(out, 2, 1)]
    assert len(rest) == sum(map(calls, later))  # the pilot was not played again
    assert [r["seed"] for r in rest] == [11] * calls(later[0]) + [22] * (calls(later[1]) + calls(later[2]))
    code, again = run(out, monkeypatch, "--games", "4", "--no-baseline", "--yes")
    assert code == 0 and again == [] and "4 recorded" in capsys.readouterr().out


def test_travel_reproduces_in_the_papers_four_seed_batches_over_its_preset():
    spec = get_task("travel")
    preset = spec.presets["paper"].brain_options
    assert preset["sampling"]["*"]["seed"] == 1011  # an ordinary run with the preset: one batch
    for cond in spec.reproduction.conditions:
        batches = batches_of(cond, preset, 100)
        assert [b.games for b in batches] == [25] * 4
        assert [b.brain_options["sampling"] for b in batches] == [
            {**preset["sampling"], "*": {**preset["sampling"]["*"], "seed": s}} for s in (1011, 143, 9999, 8060)]
        assert all(b.brain_options["sampling"]["*"]["temperature"] == 1.0 for b in batches)


def test_games_of_a_run_from_before_the_batches_are_named_and_not_counted(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    code, _ = run(out, monkeypatch, "--games", "1", "--yes", "--no-baseline", spec=toy_spec(batches=()))
    assert code == 0 and (out / slug(LABEL) / "records" / "game-0000.json").exists()  # no batches: the old layout
    capsys.readouterr()
    code, requests = run(out, monkeypatch, "--games", "1", "--yes", "--no-baseline")
    assert code == 0 and requests and game(out, 1, 0)["seed"] == 0  # played again, in its batch
    assert f"{LABEL}: the games in {out / slug(LABEL) / 'records'} were played without batches" in \
        capsys.readouterr().err
