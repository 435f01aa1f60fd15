"""`TaskSpec.evaluator`: a `--preset paper` run of several games (no person seated) prints which evaluation set it
plays (generated seeds or a set file, with its counts), plays every feedback condition and, after them, the
single-agent full-information control (seat a's agent alone, seat b `absent`) as one more row, then the tokens per
turn counted with the common tokenizer (tokens.py). Every other run is the ordinary local run."""
from __future__ import annotations

import os
from argparse import Namespace

from tasks.core import TaskSpec
from tasks.core.evaluation import RunRequest, default_out
from tasks.core.evaluation.condition import Condition
from tasks.core.evaluation.conditions import list_conditions, run_conditions
from tasks.core.evaluation.tables import format_table

from . import instances, tokens
from .paper import CONTROL

PAPER = "paper"


def set_line(run: RunRequest) -> str:
    """Which puzzles the run plays, with the counts (ValueError for a malformed set file)."""
    last = run.seed + run.games - 1
    path = run.options.get("instances")
    if path:
        puzzles = instances.load(str(path))
        if last >= len(puzzles):
            raise ValueError(f"{path} holds {len(puzzles)} puzzles; seeds {run.seed}-{last} ask for more")
        return (f"evaluation set {path}: {instances.describe(puzzles)}; this run plays puzzles {run.seed}-{last} "
                "in every condition")
    return (f"evaluation set: generated puzzles, seeds {run.seed}-{last} ({run.games} per condition; the paper "
            f"played {instances.PAPER_SEEDS} seeds: --games {instances.PAPER_SEEDS})")


def plans(spec: TaskSpec, run: RunRequest) -> list[Condition]:
    """The feedback (and size) conditions of the options, then the single-agent control per size."""
    conds = list_conditions(spec, run.options)
    keys = ("size", "feedback", "single_agent")
    out = [Condition(dict(run.agents), c, f"condition-{n:02d}", "".join(f" {k}={c.get(k)}" for k in keys[:2]),
                     {k: c.get(k, False) for k in keys}) for n, c in enumerate(conds)]
    sizes = list(dict.fromkeys(c.get("size") for c in conds))
    for size in sizes:
        c = {**conds[0], "size": size, **CONTROL}
        agents = {"a": run.agents["a"], "b": "absent"}
        out.append(Condition(agents, c, f"condition-{len(out):02d}", f" size={size} single agent",
                             {k: c.get(k) for k in keys}))
    return out


def evaluate(spec: TaskSpec, run: RunRequest):
    if run.options.get("preset") != PAPER or run.play is not None or run.population:
        return None
    try:
        print(f"{spec.title}, preset {PAPER}: {set_line(run)}")
    except ValueError as exc:
        raise SystemExit(f"{spec.name}: {exc}") from None
    if run.games == 1:
        return None  # one game: the ordinary run shows it
    out_dir = run.out or default_out(spec)
    args = Namespace(grid=False, games=run.games, seed=run.seed, agents=",".join(run.agents.values()),
                     parallel=run.parallel, shard=None, dry_run=False)
    conditions = plans(spec, run)
    code = run_conditions(spec, conditions, args, run.llm, out_dir, run.brain_options, kind="conditions")
    rows, n = [], 0
    for c in conditions:
        games = tokens.read_logs([os.path.join(out_dir, c.sub)])
        n += len(games)
        rows += [[c.suffix.strip(), *("-" if x is None else x for x in r)] for r in tokens.turn_table(games)]
    if rows:
        print(f"\nTokens per turn ({tokens.TOKENIZER}, one tokenizer for every model; {n} games with an LLM seat):\n"
              f"{format_table(['condition', *tokens.HEADER], rows)}")
    return code
