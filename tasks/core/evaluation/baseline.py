"""The LLM-free baseline row: with an LLM seat and a model configured, the same seeds are played again with every
brain built without the LLM (its symbolic policy, strict mode off), so a table shows what the LLM added beside what
the agent's own policy does: the same game with no model at all (a symbolic agent's `reader=llm` reads without it
too). The row is labelled "<agents> without LLM (baseline)"; `--no-baseline` skips it."""
from __future__ import annotations

import dataclasses
import os
from typing import Callable

from tasks.core import TaskSpec

from .condition import Condition
from .play import GameRecord

BASELINE_DIR = "baseline"


def baseline_plans(spec: TaskSpec, plans: list[Condition], llm, brain_options: dict) -> list[int]:
    """Indexes of the conditions with a seat whose agent uses the LLM (none without a model)."""
    if llm is None:
        return []
    return [n for n, c in enumerate(plans) if any(spec.wants_llm(a, brain_options, s) for s, a in c.agents.items())]


def play_baseline(spec: TaskSpec, plans: list[Condition], args, llm, out_dir: str, brain_options: dict,
                  kind: str, sweep: Callable) -> list[tuple[int, list[GameRecord]]]:
    """(condition index, its baseline records) for every condition with an LLM seat; [] when skipped (no model,
    `--no-baseline`, a shard, a population run). `sweep`: conditions.sweep_conditions (passed in: it calls the
    tables that list the baseline rows)."""
    chosen = baseline_plans(spec, plans, llm, brain_options)
    if not chosen or getattr(args, "no_baseline", False) or getattr(args, "shard", None) or kind != "conditions":
        return []
    options = {**brain_options, "strict_llm": False}
    _, by_condition = sweep(spec, [plans[n] for n in chosen], args, None,
                                       os.path.join(out_dir, BASELINE_DIR), options, kind="baseline")
    return [(n, [without_llm(r) for r in records]) for n, records in zip(chosen, by_condition or [])]


def without_llm(record: GameRecord) -> GameRecord:
    """The record without LLM figures: the acts an LLM agent notes when it has no model are not the row's point."""
    results = {k: v for k, v in record.results.items() if k != "llm"}
    return dataclasses.replace(record, results=results, llm_acts=[])


def baseline_label(agents: dict, seats) -> str:
    return ",".join(str(agents[s]) for s in seats) + " without LLM (baseline)"
