"""Replay reproduces every game of every task, to the letter (issue 27, item 3).

Seeded games of every task by its default agents, with odd inputs slipped in (failed searches, refused commands,
rejected moves, answers to offers that do not exist), are played in one process and replayed from their logs in
others, each with its own PYTHONHASHSEED, so set and dict orders differ between the live run and the replay. The logs
are also replayed with their JSON keys in other orders (as a real Slurk's database returns them). Each replay must
report every game "reproduced" (the researcher's check), and every message the game said (refusals included) and
every page view must be the same as live. The two halves are in tests/replay_determinism_play.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tasks import available_tasks

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str], hash_seed: int) -> None:
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    done = subprocess.run([sys.executable, "-m", "tests.replay_determinism_play", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("played")
    _run(["play", str(out)], hash_seed=1)
    return out, json.loads((out / "said.json").read_text())


def test_the_games_hold_what_replays_get_wrong(played):
    """The logs are worth replaying: every task is there, with refusals, failed searches and finished games."""
    _, said = played
    assert {g["task"] for g in said.values()} == set(available_tasks())
    for name, g in said.items():
        assert g["status"] == "completed", (name, g["status"])
        assert sum(m[1] == "rejection" for m in g["messages"]) >= 5, name
    searches = [m[3] for g in said.values() for m in g["messages"] if "Search not understood" in m[3]]
    assert any("Fields:" in s for s in searches) and any("Did you mean" in s for s in searches)


@pytest.mark.parametrize("order,hash_seed", [("sorted", 2), ("jsonb", 3), ("reversed", 4)])
def test_replay_reproduces_every_game_word_for_word(played, tmp_path, order, hash_seed):
    out, said = played
    _run(["replay", str(out / "logs"), str(tmp_path / "replay.json"), order], hash_seed=hash_seed)
    replay = json.loads((tmp_path / "replay.json").read_text())
    problems = {n: g["mismatches"] or g["replay_error"] for n, g in replay["games"].items()
                if g["mismatches"] or g["replay_error"]}
    assert not problems
    assert replay["reproduced"] == len(said) and replay["with_differences"] == 0 and replay["report_ok"]
    for name, live in said.items():
        again = replay["games"][name]
        for what in ("messages", "views"):
            diff = [(a, b) for a, b in zip(live[what], again[what]) if a != b]
            assert not diff and len(live[what]) == len(again[what]), (name, what, diff[:1])
