"""The kinds of local run the CLI dispatches to: a person at the terminal, one game with its table, or many games
in conditions (`conditions.py`)."""
from __future__ import annotations

import datetime as _dt
import os

from tasks.core import TaskSpec

from .baseline import BASELINE_DIR, baseline_label, baseline_plans, without_llm
from .conditions import Condition, grid_conditions, list_conditions, run_conditions
from .play import play_game
from .tables import agent_label, format_table, llm_use_table, summary_table


def default_out(spec: TaskSpec) -> str:
    """The run folder when --out is not given: runs/<task>-<time>."""
    return os.path.join("runs", f"{spec.name}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}")


def play_at_terminal(spec: TaskSpec, seat: str, seed: int, agents: dict, options: dict, llm, out_dir: str,
                     brain_options: dict) -> int:
    """`--play [SEAT]`: a person takes `seat` (default: the game's first person seat) and types at the terminal."""
    seat = seat or (spec.game_class.person_seat_order or spec.seats)[0]
    if seat not in spec.seats:
        raise SystemExit(f"unknown seat {seat!r}; seats: {', '.join(spec.seats)}")
    print(f"You play seat '{seat}' of {spec.title}. Type chat, or commands like /help.")
    rec = play_game(spec, seed, agents, options, person_seats=(seat,), llm=llm,
                    log_path=os.path.join(out_dir, "game.jsonl"), show=print, brain_options=brain_options, live=True)
    print(f"log: {rec.log_path}")
    return 0


def play_one(spec: TaskSpec, seed: int, agents: dict, options: dict, llm, out_dir: str, brain_options: dict,
             quiet: bool = False, baseline: bool = True) -> int:
    """One game of agents: its transcript (unless quiet), then its table and LLM use table; with an LLM agent and a
    model (unless `baseline` is false) the same seed without the LLM as a second row (baseline.py)."""
    print(f"{spec.title}: {' vs '.join(f'{agents[s]} ({s})' for s in spec.seats)}, seed {seed}")
    rec = play_game(spec, seed, agents, options, llm=llm, log_path=os.path.join(out_dir, "game.jsonl"),
                    show=None if quiet else print, brain_options=brain_options)
    label = agent_label(spec, agents, [rec], brain_options)
    rows = [{"agents": label, **summary_table(spec, [rec])}]
    if baseline and baseline_plans(spec, [Condition(agents, options)], llm, brain_options):
        base = play_game(spec, seed, agents, options, log_path=os.path.join(out_dir, BASELINE_DIR, "game.jsonl"),
                         brain_options={**brain_options, "strict_llm": False})
        rows.append({"agents": baseline_label(agents, spec.seats), **summary_table(spec, [without_llm(base)])})
    header = list(dict.fromkeys(k for r in rows for k in r))
    print()
    print(format_table(header, [[r.get(k) for k in header] for r in rows]))
    uses = llm_use_table([(label, [rec])])
    if uses:
        print("\nLLM acts per seat and use:\n" + uses)
    print(f"\nlog: {rec.log_path}")
    return 0


def play_conditions(spec: TaskSpec, args, agents: dict, options: dict, llm, out_dir: str, brain_options: dict) -> int:
    """--games N: one condition, the conditions of listed option values, or every one of the grid (`--grid`).
    `args`: grid, games, seed, agents, parallel, shard, dry_run, pilot."""
    conditions = grid_conditions(spec, options) if args.grid else list_conditions(spec, options)
    keys = [k for k in (spec.condition_keys or tuple(spec.grid)) if args.grid or len(conditions) > 1] or []
    many = len(conditions) > 1
    plans = [Condition(agents, cond, f"condition-{n:02d}" if many else "",
                       "".join(f" {k}={cond.get(k)}" for k in keys), {k: cond.get(k) for k in keys})
             for n, cond in enumerate(conditions)]
    return run_conditions(spec, plans, args, llm, out_dir, brain_options, kind="conditions")
