"""Sweeps (tasks/core/evaluation/sweep.py): games in parallel give the same results as one after another, a killed sweep resumes and
plays every game exactly once, shards merge into the table of one run, and --dry-run prints the cost."""
from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from bots import local
from tasks.core import evaluation
from tasks.core.evaluation import sweep
from tasks import available_tasks, get_task
from tests.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent
TRAVEL_LLM = ["travel", "--boards", "generated", "--agents", "solver,problem-solving", "--quiet"]


def slow_ok(seconds: float):
    def answer(_request):
        time.sleep(seconds)
        return "OK"
    return answer


def llm_env(fake, monkeypatch=None) -> dict:
    env = {"LLM_BASE_URL": fake.url, "LLM_MODEL": "fake-model", "LLM_API_KEY": "sk-test", "LLM_CONCURRENCY": "0",
           "LLM_DEADLINE": "60"}
    if monkeypatch:
        for k, v in env.items():
            monkeypatch.setenv(k, v)
    return env


def per_game(out: Path) -> dict[int, dict]:
    """games.csv without wall-clock figures (seconds per act differ between runs)."""
    with open(out / "games.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    table = {}
    for r in rows:
        llm = json.loads(r["llm"]) if r.get("llm") else {}
        r["llm"] = {s: {k: v for k, v in f.items() if "seconds" not in k} for s, f in llm.items()}
        r.pop("duration", None)
        table[int(r["index"])] = r
    return table


def summary(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return [{k: v for k, v in r.items() if "s/act" not in k and "seconds" not in k} for r in csv.DictReader(fh)]


def test_llm_games_in_parallel_give_the_serial_results(tmp_path, monkeypatch):
    with FakeOpenAI(default=slow_ok(0.02)) as fake:
        llm_env(fake, monkeypatch)
        assert local.main([*TRAVEL_LLM, "--games", "4", "--out", str(tmp_path / "serial"), "--parallel", "1"]) == 0
        n_serial = len(fake.requests)
        assert local.main([*TRAVEL_LLM, "--games", "4", "--out", str(tmp_path / "par"), "--parallel", "4"]) == 0
        assert len(fake.requests) == 2 * n_serial  # the same calls, only overlapped
    serial, par = per_game(tmp_path / "serial"), per_game(tmp_path / "par")
    assert serial.keys() == par.keys() == {0, 1, 2, 3}
    assert serial == par
    assert summary(tmp_path / "serial" / "conditions.csv") == summary(tmp_path / "par" / "conditions.csv")


def test_symbolic_games_in_processes_give_the_serial_results(tmp_path):
    args = ["asympuzl", "--games", "4", "--quiet"]
    assert local.main([*args, "--out", str(tmp_path / "serial"), "--parallel", "1"]) == 0
    assert local.main([*args, "--out", str(tmp_path / "par"), "--parallel", "2"]) == 0
    assert per_game(tmp_path / "serial") == per_game(tmp_path / "par")


def test_the_same_command_resumes_and_plays_nothing_twice(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["asympuzl", "--games", "3", "--quiet", "--out", str(out), "--parallel", "1"]
    assert local.main(args) == 0
    first = {p.name: p.stat().st_mtime_ns for p in (out / "records").iterdir()}
    (out / "records" / "game-0001.json").unlink()  # as if the run had been cut off before game 1 ended
    capsys.readouterr()
    assert local.main(args) == 0
    err = capsys.readouterr().err
    assert "2 of 3 games recorded, playing 1" in err
    after = {p.name: p.stat().st_mtime_ns for p in (out / "records").iterdir()}
    assert sorted(after) == sorted(first)
    assert after["game-0000.json"] == first["game-0000.json"] and after["game-0002.json"] == first["game-0002.json"]


def test_another_run_into_the_same_folder_is_refused(tmp_path):
    out = str(tmp_path / "run")
    assert local.main(["asympuzl", "--games", "2", "--quiet", "--out", out, "--parallel", "1"]) == 0
    with pytest.raises(SystemExit) as exc:
        local.main(["asympuzl", "--games", "3", "--quiet", "--out", out, "--parallel", "1"])
    assert "holds a different run" in str(exc.value) and "games" in str(exc.value)


def test_a_sweep_killed_at_a_random_point_finishes_with_every_game_played_once(tmp_path):
    """SIGKILL (no chance to clean up) in the middle of a parallel LLM sweep, then the same command again."""
    out = tmp_path / "run"
    rng = random.Random(32)
    with FakeOpenAI(default=slow_ok(0.05)) as fake:
        env = {**os.environ, **llm_env(fake), "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "bots", *TRAVEL_LLM, "--games", "6", "--parallel", "2", "--out", str(out)]
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 120
        while time.time() < deadline and not (out / "records").is_dir():
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 1.5))  # somewhere in the middle of the next games
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        recorded = {p.name: p.stat().st_mtime_ns for p in (out / "records").glob("game-*.json")}
        assert 0 < len(recorded) < 6, "the kill should land in the middle of the sweep"
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    assert f"{len(recorded)} of 6 games recorded, playing {6 - len(recorded)}" in done.stderr
    records = sorted(p.name for p in (out / "records").glob("game-*.json"))
    assert records == [f"game-{i:04d}.json" for i in range(6)]
    for name, mtime in recorded.items():  # games recorded before the kill were not played again
        assert (out / "records" / name).stat().st_mtime_ns == mtime
    for i in range(6):  # each log holds one game, from its start to its end
        rows = [json.loads(line) for line in (out / "logs" / f"game-{i:04d}.jsonl").read_text().splitlines()]
        events = [r.get("event") for r in rows]
        assert events.count("game_start") == 1 and events.count("game_end") == 1
    assert sorted(per_game(out)) == list(range(6))


def test_two_shards_merged_print_the_table_of_one_run(tmp_path, capsys):
    base = ["asympuzl", "--games", "3", "--option", "size=[3,4]", "--quiet", "--parallel", "1"]
    assert local.main([*base, "--out", str(tmp_path / "one")]) == 0
    one = capsys.readouterr().out
    for i in (1, 2):
        assert local.main([*base, "--out", str(tmp_path / f"s{i}"), "--shard", f"{i}/2"]) == 0
    capsys.readouterr()
    from bots import merge

    assert merge.main([str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "merged")]) == 0
    merged = capsys.readouterr().out
    table = lambda text: text.split("\nsummary CSV")[0]  # noqa: E731  (the paths differ)
    assert table(merged) == table(one) and "size" in table(one)
    assert summary(tmp_path / "merged" / "conditions.csv") == summary(tmp_path / "one" / "conditions.csv")
    # the shards split the games: together all of them, each once
    s1 = set((tmp_path / "s1").rglob("game-*.json"))
    s2 = set((tmp_path / "s2").rglob("game-*.json"))
    assert len(s1) + len(s2) == 6 and len(s1) == 3


def test_merge_refuses_shards_of_different_runs(tmp_path):
    assert local.main(["asympuzl", "--games", "2", "--quiet", "--out", str(tmp_path / "a"), "--shard", "1/2"]) == 0
    assert local.main(["asympuzl", "--games", "2", "--quiet", "--out", str(tmp_path / "b"), "--shard", "2/2",
                       "--seed", "9"]) == 0
    from bots import merge

    with pytest.raises(SystemExit) as exc:
        merge.main([str(tmp_path / "a"), str(tmp_path / "b")])
    assert "not a shard of the same run" in str(exc.value) and "seed" in str(exc.value)


@pytest.mark.parametrize("text", ["3", "0/2", "3/2", "a/b"])
def test_a_bad_shard_is_refused_clearly(text):
    with pytest.raises(SystemExit) as exc:
        sweep.parse_shard(text)
    assert "--shard" in str(exc.value)


def _table(text: str) -> list[dict]:
    import re

    lines = [ln for ln in text.splitlines() if ln.strip()]
    header = re.split(r"\s{2,}", lines[0].strip())
    return [dict(zip(header, re.split(r"\s{2,}", ln.strip()))) for ln in lines[2:] if not ln.startswith("all ")]


def test_dry_run_prints_tokens_and_price_from_a_pilot_or_recorded_games(tmp_path, monkeypatch, capsys):
    with FakeOpenAI(default=slow_ok(0.0)) as fake:
        llm_env(fake, monkeypatch)
        monkeypatch.setenv("LLM_PRICE_PROMPT", "2.5")
        monkeypatch.setenv("LLM_PRICE_COMPLETION", "10")
        assert local.main([*TRAVEL_LLM, "--games", "50", "--dry-run", "--out", str(tmp_path / "new")]) == 0
        assert len(fake.requests) > 0  # the pilot game asked the model
        pilot = _table(capsys.readouterr().out)[0]
        assert not (tmp_path / "new" / "records").exists()  # nothing but the pilot was played
        # a recorded game is used instead of a pilot: its figures times the planned games
        assert local.main([*TRAVEL_LLM, "--games", "2", "--out", str(tmp_path / "old"), "--parallel", "1"]) == 0
        capsys.readouterr()
        n = len(fake.requests)
        assert local.main([*TRAVEL_LLM, "--games", "50", "--dry-run", "--out", str(tmp_path / "old")]) == 0
        assert len(fake.requests) == n  # no pilot
    out = capsys.readouterr().out
    row = _table(out)[0]
    seats = [s for i in (0, 1) for s in json.loads((tmp_path / "old" / "records" / f"game-{i:04d}.json")
                                                     .read_text())["results"]["llm"].values()]
    prompt, completion = (round(sum(s[k] for s in seats) / 2 * 50) for k in ("prompt_tokens", "completion_tokens"))
    assert pilot["from"] == "pilot of 1" and row["from"] == "2 recorded"
    assert int(row["games"]) == 50 and int(row["prompt tokens"]) == prompt > 0
    assert int(row["completion tokens"]) == completion
    assert float(row["price"]) == round(prompt / 1e6 * 2.5 + completion / 1e6 * 10, 2)
    assert "at the configured prices" in out


@pytest.mark.parametrize("task", available_tasks())
def test_tables_from_stored_records_equal_tables_from_played_games(task, tmp_path):
    spec = get_task(task)
    records = [evaluation.play_game(spec, s, local.resolve_agents(spec, None), {}, index=i)
               for i, s in enumerate((3, 4))]
    stored = [evaluation.GameRecord(**sweep.round_trip(asdict(r))) for r in records]
    assert evaluation.summary_table(spec, stored) == evaluation.summary_table(spec, records)


def test_benchmark_writes_a_board_and_merges_models(tmp_path, monkeypatch, capsys):
    from bots import benchmark

    board = tmp_path / "board"
    with FakeOpenAI(default=slow_ok(0.0)) as fake:
        llm_env(fake, monkeypatch)
        for model in ("model-a", "model-b"):
            monkeypatch.setenv("LLM_MODEL", model)
            assert benchmark.main(["--games", "1", "--tasks", "asympuzl,matrix-games", "--board", str(board)]) == 0
    rows = benchmark.read_models(str(board))
    assert {r["model"] for r in rows} == {"model-a", "model-b"}
    spec_rows = len(get_task("asympuzl").benchmark) + len(get_task("matrix-games").benchmark)
    assert len(rows) == 2 * spec_rows
    for r in rows:  # a model that answers "OK" makes no valid act: its games end as invalid and score 0
        assert r["valid %"] == "0.0" and r["games"] == "1" and r["invalid"] == "1"
        assert float(r["score"]) == 0.0
    board_rows = list(csv.DictReader(open(board / "leaderboard.csv")))
    assert [b["model"] for b in board_rows] and {b["model"] for b in board_rows} == {"model-a", "model-b"}
    page = (board / "index.html").read_text()
    assert "model-a" in page and "data:image/png;base64," in page and "combined score" in page
    # the combined score is the mean over tasks of each task's mean row score
    a = [r for r in rows if r["model"] == "model-a"]
    per_task = {t: sum(float(r["score"]) for r in a if r["task"] == t) / len([r for r in a if r["task"] == t])
                for t in {r["task"] for r in a}}
    assert float(next(b for b in board_rows if b["model"] == "model-a")["combined score"]) == \
        round(sum(per_task.values()) / len(per_task), 3)


def test_benchmark_with_fallback_says_the_symbolic_policy_played(tmp_path, monkeypatch):
    from bots import benchmark

    with FakeOpenAI(default=slow_ok(0.0)) as fake:
        llm_env(fake, monkeypatch)
        assert benchmark.main(["--games", "1", "--tasks", "matrix-games", "--board", str(tmp_path),
                               "--allow-fallback"]) == 0
    for r in benchmark.read_models(str(tmp_path)):
        assert r["fallback %"] == "100.0" and r["invalid"] == "0" and r["score"] != ""


def test_benchmark_needs_a_model(monkeypatch, tmp_path):
    from bots import benchmark

    for var in ("LLM_MODEL", "LLM_BASE_URL", "OPENAI_BASE_URL", "LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(SystemExit) as exc:
        benchmark.main(["--board", str(tmp_path)])
    assert "needs a model" in str(exc.value)


@pytest.mark.parametrize("args", [
    ["dond", "--games", "6", "--agents", "bayes,greedy"],
    ["matrix-games", "--option", "trials=3", "--option", "game=stag-hunt", "--option", "negotiation=0,4"],
    ["asympuzl", "--games", "3"],
])
def test_the_task_evaluators_give_the_same_table_in_parallel(args, tmp_path, capsys):
    tables = []
    for n in ("1", "4"):
        assert local.main([*args, "--quiet", "--parallel", n, "--out", str(tmp_path / n)]) == 0
        out = capsys.readouterr().out
        tables.append("\n".join(ln for ln in out.splitlines() if str(tmp_path) not in ln))
    assert tables[0] == tables[1] and tables[0].strip()
