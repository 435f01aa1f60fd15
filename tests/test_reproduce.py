"""`./run_bot.sh reproduce TASK` (bots/reproduce.py -> tasks/core/evaluation/reproduce.py): a toy paper table on
dond's LLM agent through the fake OpenAI server: the pilot (the run's first game) gives the estimate, its tokens
times the planned games (priced, or "price unknown"); nothing more is played without confirmation; a second run of
the same command measures on the recorded games and plays none again; the table sets the paper's columns beside
this run's with valid %, effective % and invalid games, under a heading naming the preset and the model."""
from __future__ import annotations

import dataclasses
import importlib
import json
import re

import pytest

from bots import reproduce as command
from tasks import get_task
from tasks.core.evaluation.reproduce import slug
from tasks.core.presets import Preset
from tasks.core.reproduction import ReproCondition, Reproduction
from tests.fake_openai import FakeOpenAI
from tests.test_sweep import llm_env

TOY = Reproduction(
    conditions=(
        ReproCondition("llm vs bayes", ("llm", "bayes"), brain_options={"strict_llm": False},
                       paper={"agreement": 0.7, "total": 9.1}),
        ReproCondition("llm self-play", ("llm", "llm"), paper={"agreement": 0.5}),
    ),
    columns=("agreement", "total"), source="Toy et al., Table 9")
HEADER = ["condition", "agreement (paper)", "agreement (this run)", "total (paper)", "total (this run)", "games",
          "valid %", "effective %", "invalid"]


def toy_spec():
    spec = get_task("dond")
    paper = Preset("paper", "toy: pins an instance", options={"instance": 3})
    return dataclasses.replace(spec, reproduction=TOY, presets={**spec.presets, "paper": paper})


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(command, "get_task", lambda name: toy_spec())


def _rows(block: str) -> list[dict]:
    lines = [ln for ln in block.splitlines() if ln.strip()]
    header = re.split(r"\s{2,}", lines[0].strip())
    return [dict(zip(header, re.split(r"\s{2,}", ln.strip()))) for ln in lines[2:]]


def _record(out, label: str, index: int) -> dict:
    path = out / slug(label) / "records" / f"game-{index:04d}.json"
    return json.loads(path.read_text())


def _tokens(record: dict, key: str) -> int:
    return sum(s[key] for s in (record["results"].get("llm") or {}).values())


def test_pilot_estimate_then_the_papers_columns_beside_this_run(toy, tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    with FakeOpenAI() as fake:
        llm_env(fake, monkeypatch)
        monkeypatch.setenv("LLM_PRICE_PROMPT", "2.5")
        monkeypatch.setenv("LLM_PRICE_COMPLETION", "10")
        assert command.main(["dond", "--games", "3", "--out", str(out), "--yes", "--no-baseline"]) == 0
    text = capsys.readouterr().out
    pilot_block, _, rest = text.partition("\n\n")
    estimate = {r["condition"]: r for r in _rows(pilot_block.split(":\n", 1)[1])}
    total_prompt = total_completion = 0
    for cond in TOY.conditions:
        first = _record(out, cond.label, 0)  # the pilot: the run's first game
        prompt, completion = _tokens(first, "prompt_tokens"), _tokens(first, "completion_tokens")
        row = estimate[cond.label]
        assert row["measured on"] == "pilot" and float(row["tokens/game"]) == prompt + completion > 0
        assert int(row["games"]) == 3 and int(row["LLM acts"]) > 0
        assert int(row["prompt tokens"]) == prompt * 3 and int(row["completion tokens"]) == completion * 3
        assert row["price"] == f"{prompt * 3 / 1e6 * 2.5 + completion * 3 / 1e6 * 10:.2f}"
        total_prompt, total_completion = total_prompt + prompt * 3, total_completion + completion * 3
    assert int(estimate["all conditions"]["prompt tokens"]) == total_prompt
    table_text = (out / "reproduction.txt").read_text()
    assert table_text.strip() in text
    heading, table = table_text.split("\n", 1)
    assert "Toy et al., Table 9" in heading and "preset paper" in heading and "model fake-model" in heading
    header = re.split(r"\s{2,}", table.splitlines()[0].strip())
    assert header == HEADER
    rows = {r["condition"]: r for r in _rows(table)}
    assert rows["llm vs bayes"]["agreement (paper)"] == "0.7" and rows["llm vs bayes"]["total (paper)"] == "9.1"
    assert rows["llm self-play"]["agreement (paper)"] == "0.5"
    assert all(int(r["games"]) == 3 for r in rows.values())
    # "OK" is no act: strict mode (the default) ends every self-play game invalid; with fallback nothing is invalid
    assert rows["llm self-play"]["invalid"] == "3" and rows["llm vs bayes"]["invalid"] == "0"
    assert float(rows["llm vs bayes"]["valid %"]) == 0.0
    assert (out / "reproduction.csv").read_text().splitlines()[0].split(",") == HEADER
    logged = [json.loads(ln) for ln in
              (out / slug("llm self-play") / "logs" / "game-0000.jsonl").read_text().splitlines()]
    assert '"preset": "paper"' in json.dumps(logged)  # every game's log records the preset ...
    assert '"instance": 3' in json.dumps(logged)  # ... and the preset's options reached the game


def test_price_unknown_and_no_game_without_confirmation(toy, tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    monkeypatch.setattr("sys.stdin", open("/dev/null"))
    with FakeOpenAI() as fake:
        llm_env(fake, monkeypatch)
        assert command.main(["dond", "--out", str(out), "--condition", "llm self-play"]) == 1
    captured = capsys.readouterr()
    assert "price unknown" in captured.out and "nothing played" in captured.out
    assert "are estimates" not in captured.out  # the fake server sends every stream's usage
    assert "--yes" in captured.err
    assert "llm vs bayes" not in captured.out  # --condition: that row alone
    played = sorted(p.name for p in (out / slug("llm self-play") / "records").iterdir())
    assert played == ["game-0000.json"] and not (out / "reproduction.txt").exists()  # the pilot alone
    # the same command again: the recorded pilot is the measure, the run plays the other games only
    asked = len(fake.requests)
    with FakeOpenAI() as fake:
        llm_env(fake, monkeypatch)
        assert command.main(["dond", "--out", str(out), "--condition", "llm self-play", "--games", "3", "--yes",
                                    "--no-baseline"]) == 0
    assert "1 recorded" in capsys.readouterr().out
    played = sorted(p.name for p in (out / slug("llm self-play") / "records").iterdir())
    assert played == ["game-0000.json", "game-0001.json", "game-0002.json"]
    assert 0 < len(fake.requests) <= 2 * asked  # two games' worth (each is invalid at its first act), no pilot


def test_clear_messages_without_a_model_a_table_or_a_known_condition(toy, tmp_path, monkeypatch):
    for var in ("LLM_MODEL", "LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit, match="reproduce needs a model"):
        command.main(["dond", "--out", str(tmp_path), "--yes"])
    with FakeOpenAI() as fake:
        llm_env(fake, monkeypatch)
        with pytest.raises(SystemExit, match="no condition 'nope'"):
            command.main(["dond", "--out", str(tmp_path), "--yes", "--condition", "nope"])
        needs_release = Preset("paper", "reads prompts", release_files=("prompts/dond.txt",), release="toy/repo")
        monkeypatch.setattr(command, "get_task", lambda name: dataclasses.replace(toy_spec(), presets={
            "paper": needs_release}))
        with pytest.raises(SystemExit, match="--paper-prompts PATH.*prompts/dond.txt.*toy/repo"):
            command.main(["dond", "--out", str(tmp_path), "--yes"])
        assert not fake.requests  # stopped before the pilot
        monkeypatch.setattr(command, "get_task", lambda name: dataclasses.replace(get_task("dond"), reproduction=None))
        with pytest.raises(SystemExit, match="declares no paper table"):
            command.main(["dond", "--out", str(tmp_path), "--yes"])


def test_a_pilot_whose_calls_all_failed_says_its_tokens_are_unknown(toy, tmp_path, monkeypatch, capsys):
    with FakeOpenAI() as fake:
        fake.script([{"status": 400, "error": "no"}] * 100)
        llm_env(fake, monkeypatch)
        assert command.main(["dond", "--out", str(tmp_path), "--games", "1", "--condition", "llm self-play",
                             "--yes", "--no-baseline"]) == 0
    out = capsys.readouterr().out
    assert "no LLM call was answered in: llm self-play" in out


def test_baseline_row_beside_each_llm_condition_on_the_same_seeds_without_a_request(toy, tmp_path, monkeypatch,
                                                                                   capsys):
    run = importlib.import_module("tasks.core.evaluation.reproduce")  # the module (the package exports the function)
    asked_during_baseline = []

    def spy(*args, **kwargs):
        before = len(fake.requests)
        result = real(*args, **kwargs)
        asked_during_baseline.append(len(fake.requests) - before)
        return result

    real = run.play_baseline
    monkeypatch.setattr(run, "play_baseline", spy)
    out = tmp_path / "run"
    with FakeOpenAI() as fake:
        llm_env(fake, monkeypatch)
        # one game at a time: the baseline's games then run in this process, which knows the toy table
        assert command.main(["dond", "--games", "2", "--out", str(out), "--yes", "--parallel", "1"]) == 0
    text = capsys.readouterr().out
    pilot_block, table = text.partition("\n\n")[0], (out / "reproduction.txt").read_text().split("\n", 1)[1]
    assert "baseline" not in pilot_block  # the baseline costs nothing: not in the estimate
    rows = [r["condition"] for r in _rows(table)]
    assert rows == ["llm vs bayes", "llm vs bayes without LLM (baseline)", "llm self-play",
                    "llm self-play without LLM (baseline)"]
    assert asked_during_baseline == [0, 0]  # played with no model at all
    for cond in TOY.conditions:
        base = _rows(table)[rows.index(f"{cond.label} without LLM (baseline)")]
        assert base["agreement (paper)"] == "-" and base["games"] == "2" and base["invalid"] == "0"
        assert base["agreement (this run)"] != "-"
        for i in range(2):
            record = json.loads((out / slug(cond.label) / "baseline" / "records" / f"game-{i:04d}.json").read_text())
            assert record["seed"] == _record(out, cond.label, i)["seed"]
    with FakeOpenAI() as fake:
        llm_env(fake, monkeypatch)
        assert command.main(["dond", "--games", "2", "--out", str(tmp_path / "bare"), "--yes", "--no-baseline"]) == 0
    assert "without LLM" not in capsys.readouterr().out and not (tmp_path / "bare" / slug("llm self-play") /
                                                                "baseline").exists()
