"""Runs of many games in conditions: one row per condition (task options, `--grid`) or per partner type
(`--population`), played through the sweep (in parallel, resumable, sharded: `sweep.py`), tabulated from the
stored records so a fresh run, a resumed run and a merge of shards print the same table.
"""
from __future__ import annotations

import os
import sys
from dataclasses import asdict
from typing import Optional

from tasks import get_task
from tasks.core import TaskSpec
from tasks.core.discipline import audit_columns, audit_log

from . import sweep
from .baseline import baseline_label, play_baseline
from .condition import Condition
from .dry_run import dry_run
from .play import GameRecord, play_game
from .tables import agent_label, print_rows, summary_table, write_csvs


def grid_conditions(spec: TaskSpec, options: dict) -> list[dict]:
    """Every combination of the task's experiment grid (options given on the command line stay fixed)."""
    conditions = [dict(options)]
    for key, values in spec.grid.items():
        if key in options:
            continue
        conditions = [{**c, key: v} for c in conditions for v in values]
    return conditions


def list_conditions(spec: TaskSpec, options: dict) -> list[dict]:
    """Lists given for condition options (`--size 3,5 --feedback none,own`): one condition per combination."""
    conditions = [dict(options)]
    for key in spec.condition_keys or tuple(spec.grid):
        if isinstance(options.get(key), list):
            conditions = [{**c, key: v} for c in conditions for v in options[key]]
    return conditions


def run_conditions(spec: TaskSpec, plans: list["Condition"], args, llm, out_dir: str, brain_options: dict,
                   kind: str) -> int:
    """Play --games games of every condition (in parallel, resumable, sharded: sweep.py) and print the table."""
    if getattr(args, "dry_run", False):
        return dry_run(spec, plans, args, llm, out_dir, brain_options)
    manifest, by_condition = sweep_conditions(spec, plans, args, llm, out_dir, brain_options, kind)
    if by_condition is not None:
        baseline = play_baseline(spec, plans, args, llm, out_dir, brain_options, kind, sweep_conditions)
        print_tables(spec, manifest, by_condition, out_dir, baseline)
    return 0


def sweep_conditions(spec: TaskSpec, plans: list["Condition"], args, llm, out_dir: str, brain_options: dict,
                     kind: str) -> tuple[dict, Optional[list[list[GameRecord]]]]:
    """(the run's manifest, records per condition) after playing what the run directory lacks; records None for a
    shard (its table is printed by `merge`). `args`: games, seed, agents, parallel, shard."""
    manifest = {
        "task": spec.name, "kind": kind, "agents": args.agents, "seed": args.seed, "games": args.games,
        "conditions": [{"agents": c.agents, "options": c.options, "suffix": c.suffix,
                        "columns": [[k, v] for k, v in c.columns.items()]}  # in order: JSON objects are sorted
                       for c in plans],
        "subdirs": [c.sub for c in plans], "brain_options": brain_options,
        "model": getattr(getattr(llm, "config", None), "model", None), "population": kind == "population",
        "shard": getattr(args, "shard", None),
    }
    jobs = sweep.plan(len(plans), args.games, args.seed)
    part = sweep.parse_shard(getattr(args, "shard", None))
    mine = sweep.shard(jobs, part)
    rundir = sweep.RunDir.open(out_dir, manifest, [os.path.join(out_dir, c.sub) if c.sub else out_dir for c in plans])
    parallel = args.parallel or sweep.default_parallel(llm, len(mine))
    processes = llm is None and parallel > 1

    def play(job):
        c = plans[job.condition]
        return asdict(play_game(spec, job.seed, c.agents, c.options, llm=llm, log_path=rundir.log_path(job),
                                index=job.index, brain_options=brain_options))

    def worker_args(job):
        c = plans[job.condition]
        return (spec.name, job.seed, c.agents, c.options, rundir.log_path(job), job.index, brain_options)

    if len(plans) > 1 or part:
        print(f"{len(plans)} {'conditions' if kind == 'conditions' else 'partner types'} x {args.games} games"
              + (f", shard {part[0]}/{part[1]}: {len(mine)} of them" if part else "")
              + f", {parallel} at a time", file=sys.stderr)
    sweep.run(mine, play, rundir, parallel=parallel, processes=processes, progress=True,
              worker=_play_job, worker_args=worker_args)
    if part:
        print(f"shard {part[0]}/{part[1]}: {len(mine)} of {len(jobs)} games recorded in {out_dir}; when every shard "
              f"has run: ./run_bot.sh merge <the shard folders>")
        return manifest, None
    return manifest, records_by_condition(plans, sweep.load_all([out_dir])[1], args.games)


def threads_for(llm) -> int:
    """Games in flight for the task evaluators that run in threads: the endpoint's limit, 1 without an LLM."""
    if llm is None:
        return 1
    return sweep.default_parallel(llm, 64)


def _play_job(task: str, seed: int, agents: dict, options: dict, log_path: str, index: int,
              brain_options: dict) -> dict:
    """One game in a worker process (symbolic runs): the record as a dict."""
    return asdict(play_game(get_task(task), seed, agents, options, log_path=log_path, index=index,
                            brain_options=brain_options))


def records_by_condition(plans, records: dict, games: int) -> list[list[GameRecord]]:
    return [[GameRecord(**records[(c, i)]) for i in range(games) if (c, i) in records] for c in range(len(plans))]


def print_tables(spec: TaskSpec, manifest: dict, by_condition: list[list[GameRecord]], out_dir: str,
                 baseline: Optional[list] = None) -> str:
    """The run's table (one row per condition or partner type, then the LLM-free baseline rows: baseline.py), its
    CSVs and the LLM use table, from records."""
    rows, by_label = [], []
    brain_options = manifest.get("brain_options") or {}
    for cond, records in zip(manifest["conditions"], by_condition):
        sub = os.path.join(out_dir, cond_sub(manifest, cond))
        agents = cond["agents"]
        summary = summary_table(spec, records)
        if manifest.get("kind") == "population" and not any(k.startswith("completed") for k in summary):
            done = sum(1 for r in records if r.results.get("status") == "completed")
            summary["completed %"] = round(100 * done / max(1, len(records)), 1)
        label = agent_label(spec, agents, records, brain_options)
        columns = dict(cond.get("columns") or [])
        if manifest.get("kind") == "population":
            summary.update(_discipline(spec, records))
            rows.append({**columns, "agents": label, **summary})
        else:
            rows.append({"agents": label, **columns, **summary})
        by_label.append((label + cond.get("suffix", ""), records))
        write_csvs(spec, records, summary, agents, sub)
    for n, records in baseline or []:
        cond = manifest["conditions"][n]
        rows.append({"agents": baseline_label(cond["agents"], spec.seats), **dict(cond.get("columns") or []),
                     **summary_table(spec, records)})
    name = "population.csv" if manifest.get("kind") == "population" else "conditions.csv"
    path = print_rows(rows, by_label, os.path.join(out_dir, name))
    what = "partner type" if manifest.get("kind") == "population" else "condition"
    print(f"\nsummary CSV (one row per {what}): {path}\nlogs and per-game CSVs: {out_dir}")
    return path


def cond_sub(manifest: dict, cond: dict) -> str:
    return manifest["subdirs"][manifest["conditions"].index(cond)]


# ----------------------------------------------------------------------------------------------------------------
# Population: one agent against every partner type


def population_agents(spec: TaskSpec, agent: Optional[str]) -> list[tuple[str, dict[str, str]]]:
    """(partner type, agent per seat) for every partner of `spec.population` = (partner seat, brain names); the
    evaluated agent (default: the task's default brain for that seat) takes every other seat."""
    if not spec.population:
        raise SystemExit(f"{spec.name} has no partner population (TaskSpec.population)")
    seats, partners = population_seats(spec), tuple(spec.population[1])
    others = [s for s in spec.seats if s not in seats]
    if agent and "," in agent:
        raise SystemExit("--population takes one agent (for the seat the partners do not take), e.g. --agents solver")
    name = agent or spec.default_brains[spec.seats.index(others[0])]
    for s in others:
        try:
            spec.check_brain(name, s)
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
    return [(p, {s: (p if s in seats else name) for s in spec.seats}) for p in partners]


def population_seats(spec: TaskSpec) -> tuple[str, ...]:
    """The seats the population's people take (one seat, or several: e.g. both parties an agent mediates between)."""
    seat = spec.population[0]
    return (seat,) if isinstance(seat, str) else tuple(seat)


def _discipline(spec: TaskSpec, records: list[GameRecord]) -> dict:
    """The dialogue discipline's audit over a partner type's games (stalls, repeated agent lines, unanswered
    questions of the people), from the games' logs."""
    logs = [r.log_path for r in records if r.log_path and os.path.exists(r.log_path)]
    return audit_columns([audit_log(path, population_seats(spec)) for path in logs]) if logs else {}


def run_population(spec: TaskSpec, args, options: dict, llm, out_dir: str, brain_options: dict) -> int:
    """`--population`: one row per partner type (the task's summary columns, completion included), CSV too."""
    plans = [Condition(agents, dict(options), partner, "", {"partner": partner})
             for partner, agents in population_agents(spec, args.agents)]
    return run_conditions(spec, plans, args, llm, out_dir, brain_options, kind="population")
