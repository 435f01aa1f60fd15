"""Half of tests/test_people_determinism.py: plays one seeded game per scripted person of every task's population and
prints what each seat said and did, as JSON (run in processes with different PYTHONHASHSEED values)."""
from __future__ import annotations

import json
import os
import sys
import tempfile

import tasks
from tasks.core.evaluation.conditions import population_agents
from tasks.core.evaluation.play import play_game


def said(spec, agents: dict, seed: int, options: dict) -> list:
    """Every input of the game in order: who, and what (text or command with its arguments)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "game.jsonl")
        play_game(spec, seed, agents, dict(options), log_path=log)
        with open(log, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh]
    inputs = [r["data"]["input"] for r in rows if r.get("event") == "game_input"]
    return [[i.get("seat"), i.get("text") or [i.get("name"), *(i.get("args") or [])]] for i in inputs]


def main(names: list[str], seeds: list[int], options: dict) -> None:
    out = {}
    for name in names:
        spec = tasks.get_task(name)
        for partner, agents in population_agents(spec, None):
            for seed in seeds:
                out[f"{name}/{partner}/{seed}"] = said(spec, agents, seed, options)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1].split(","), [int(s) for s in sys.argv[2].split(",")], json.loads(sys.argv[3]) if len(sys.argv) > 3 else {})
