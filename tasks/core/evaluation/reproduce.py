"""`./run_bot.sh reproduce TASK`: a paper's LLM table (`TaskSpec.reproduction`) played with the configured model.

A pilot game per condition (the run's first game, recorded as such) measures tokens per game; the planned run's
tokens and price are printed and confirmed before anything else is played. Then every condition plays its games with task option `preset: paper` under the
condition's options (each condition its own resumable sweep under the run folder), and one table compares the
paper's figures with this run's: per column of the reproduction "<column> (paper)" beside "<column> (this run)",
then games, valid %, effective % (acts whose moves the rules accepted) and invalid games. An LLM act that fails is
not played by the symbolic policy (strict mode) unless the condition's brain options say otherwise: the figures are
the model's. Beside every condition with an LLM seat, "<label> without LLM (baseline)": the same game on the same
seeds with no model at all (baseline.py: every brain built with llm=None, its symbolic policy, strict off; a
symbolic partner's `reader=llm` reads without a model too), this run's columns only; it costs no tokens, is not in
the pilot's estimate, and `--no-baseline` skips it.

A condition that declares batches (`ReproCondition.batches`, e.g. one API seed per batch as the paper ran it) plays
its games in consecutive batches, each in its own sub-folder `batch-K` of the condition's folder with its own brain
options (a batch's game i is the condition's game first+i, on the same seed as without batches); the pilot is the
first batch's first game, the row counts every batch's games, and a note under the table says which games each
batch played. The baseline plays the condition's seeds once (it has no model, so the batches do not matter to it).
"""
from __future__ import annotations

import concurrent.futures as cf
import csv
import os
import re
import sys
from argparse import Namespace
from dataclasses import asdict, dataclass, replace
from typing import Callable, Optional

from tasks.core import TaskSpec
from tasks.core.presets import PresetError, resolve_preset
from tasks.core.reproduction import ReproCondition, batch_sizes, merged

from .condition import Condition
from .conditions import sweep_conditions
from . import sweep
from .baseline import play_baseline
from .dry_run import estimate, estimated_note, price, prices_of
from .play import GameRecord, play_game
from .tables import format_table, is_invalid, llm_totals, summary_table


PRESET = "paper"
TABLE_FILES = ("reproduction.txt", "reproduction.csv")


def slug(text: str) -> str:
    """A label as a folder name (a condition's, a model's)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:80] or "x"


def paper_setup(spec: TaskSpec, cond: ReproCondition, paper_prompts: Optional[str]) -> tuple[Condition, dict]:
    """(the condition as a sweep plays it, its brain options): preset `paper` under the condition's options,
    strict LLM mode unless the condition says otherwise. Raises SystemExit with the preset's message when it
    cannot run (a release file missing)."""
    options = {**cond.options, "preset": PRESET}
    if paper_prompts:
        options["paper_prompts"] = paper_prompts
    brain_options = dict(cond.brain_options)
    try:
        options, brain_options = resolve_preset(spec, options, brain_options)
    except PresetError as exc:
        raise SystemExit(f"{spec.name}, {cond.label}: {exc}") from None
    brain_options.setdefault("strict_llm", True)
    return Condition(dict(zip(spec.seats, cond.agents)), options, slug(cond.label)), brain_options


@dataclass(frozen=True)
class Batch:
    """Consecutive games of a condition played with the same brain options."""
    sub: str                # sub-folder of the condition's folder ("" when the condition has no batches)
    first: int              # the condition's index of the batch's first game (its seed: the run's seed + first)
    games: int
    brain_options: dict     # the condition's, with the batch's override merged in
    override: dict          # what the batch changes ({} without batches)


def batches_of(cond: ReproCondition, brain_options: dict, games: int) -> list[Batch]:
    """The condition's games as batches: one batch of all of them unless the condition declares batches."""
    if not cond.batches:
        return [Batch("", 0, games, brain_options, {})]
    out, first = [], 0
    for k, (size, override) in enumerate(zip(batch_sizes(games, len(cond.batches)), cond.batches)):
        out.append(Batch(f"batch-{k + 1}", first, size, merged(brain_options, override), override))
        first += size
    return out


def batch_folder(folder: str, batch: Batch) -> str:
    return os.path.join(folder, batch.sub) if batch.sub else folder


def measured(spec: TaskSpec, plan: Condition, batches: list[Batch], seed: int, llm,
             out_dir: str) -> tuple[list[GameRecord], str]:
    """The games a condition's estimate is measured on, and what they are: the condition's games recorded by an
    earlier run of the same command (resumed), else a pilot, which is the run's first game (the first batch's): it
    is recorded where the run keeps its games (the sweep then plays the others), so the pilot costs nothing extra."""
    def rundir_of(batch: Batch) -> sweep.RunDir:
        folder = batch_folder(os.path.join(out_dir, plan.sub), batch)
        return sweep.RunDir(folder, {}, [folder])

    recorded = []
    for batch in batches:
        rundir, jobs = rundir_of(batch), sweep.plan(1, batch.games, seed + batch.first)
        recorded += [GameRecord(**r) for job, r in zip(jobs, map(rundir.load, jobs))
                     if r and r.get("seed") == job.seed and r.get("agents") == plan.agents]
    if recorded:
        return recorded, f"{len(recorded)} recorded"
    rundir, first = rundir_of(batches[0]), sweep.Job(0, 0, seed + batches[0].first)
    record = play_game(spec, first.seed, plan.agents, plan.options, llm=llm, log_path=rundir.log_path(first),
                       index=first.index, brain_options=batches[0].brain_options)
    rundir.save(first, asdict(record))
    return [GameRecord(**sweep.round_trip(asdict(record)))], "pilot"


def pilot_table(spec: TaskSpec, setups, llm, games: int, seed: int, out_dir: str,
                parallel: int = 0) -> tuple[str, dict]:
    """Measures every condition (`measured`; pilots `parallel` at a time, default what the endpoint allows); (the
    estimate table with a warning under it for conditions whose LLM calls were never answered, the totals of the
    planned run)."""
    prices = prices_of(llm)
    rows, totals, unmeasured, seen = [], {"games": 0, "prompt tokens": 0, "completion tokens": 0}, [], []
    threads = parallel or sweep.default_parallel(llm, len(setups))
    with cf.ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="pilot") as pool:
        results = list(pool.map(lambda s: measured(spec, s[1], s[3], seed, llm, out_dir), setups))
    for (cond, *_), (games_seen, source) in zip(setups, results):
        seen += games_seen
        t, acts = estimate(games_seen, games, prices), llm_totals(games_seen)
        totals = {k: totals[k] + t[k] for k in totals}
        if acts["acts"] and not acts["prompt_tokens"]:
            unmeasured.append(cond.label)
        rows.append([cond.label, source, acts["acts"], acts["valid"], t["tokens/game"], t["games"],
                     t["prompt tokens"], t["completion tokens"], _money(t["price"])])
    rows.append(["all conditions", "-", "-", "-", "-", totals["games"], totals["prompt tokens"],
                 totals["completion tokens"], _money(price(totals["prompt tokens"], totals["completion tokens"],
                                                           prices))])
    header = ["condition", "measured on", "LLM acts", "valid", "tokens/game", "games", "prompt tokens",
              "completion tokens", "price"]
    text = format_table(header, rows)
    if unmeasured:
        text += (f"\nno LLM call was answered in: {'; '.join(unmeasured)} (failed or timed out): their tokens are "
                 "unknown and counted as 0")
    note = estimated_note(llm_totals(seen))
    return text + (f"\n{note}" if note else ""), totals


def _money(value: Optional[float]) -> str:
    return "price unknown" if value is None else f"{value:.2f}"


def reproduce(spec: TaskSpec, llm, *, games: int, seed: int, out_dir: str, paper_prompts: Optional[str] = None,
              only: Optional[str] = None, confirm: Callable[[str], bool] = lambda _q: True,
              parallel: int = 0, baseline: bool = True) -> int:
    """The pilot and its cost, `confirm(question)`, then every condition; prints and writes the table."""
    repro = spec.reproduction
    if repro is None:
        raise SystemExit(f"{spec.name} declares no paper table to reproduce (TaskSpec.reproduction)")
    if llm is None:
        raise SystemExit("reproduce needs a model: set LLM_MODEL (and LLM_BASE_URL / LLM_API_KEY) or an llm section "
                         "in --config")
    if games < 1:
        raise SystemExit("--games must be at least 1")
    try:
        conditions = [repro.condition(only)] if only else list(repro.conditions)
    except KeyError as exc:
        raise SystemExit(f"{spec.name}: {exc.args[0]}") from None
    setups = [(c, plan, brain_options, batches_of(c, brain_options, games))
              for c in conditions for plan, brain_options in [paper_setup(spec, c, paper_prompts)]]
    for cond, plan, _, batches in setups:
        unbatched = os.path.join(out_dir, plan.sub, sweep.RECORDS)
        if batches[0].sub and os.path.isdir(unbatched):  # a folder of a run from before the condition had batches
            print(f"{cond.label}: the games in {unbatched} were played without batches; they are not counted (the "
                  "batches' games go to batch-1 ...)", file=sys.stderr)
    model = getattr(llm.config, "model", "?")
    print(f"{spec.title}: {repro.source}, preset {PRESET}, model {model}; a pilot game per condition (the run's "
          "first)", file=sys.stderr)
    table, totals = pilot_table(spec, setups, llm, games, seed, out_dir, parallel)
    print(f"Planned run ({games} games per condition), tokens measured on the pilot:\n{table}")
    if not confirm(f"Play the run ({totals['games']} games in all, the pilot's among them; "
                   f"{totals['prompt tokens'] + totals['completion tokens']} tokens estimated)?"):
        print("nothing played")
        return 1
    rows = []
    for cond, plan, brain_options, batches in setups:
        # each condition its own sweep (its brain options differ), each batch its own in its sub-folder
        folder, plans = os.path.join(out_dir, plan.sub), [replace(plan, sub="")]
        records = []
        for batch in (b for b in batches if b.games):
            args = Namespace(games=batch.games, seed=seed + batch.first, agents=",".join(cond.agents),
                             parallel=parallel, shard=None)
            records += sweep_conditions(spec, plans, args, llm, batch_folder(folder, batch), batch.brain_options,
                                        "conditions")[1][0]
        rows.append(row_of(spec, cond, records))
        args = Namespace(games=games, seed=seed, agents=",".join(cond.agents), parallel=parallel, shard=None,
                         no_baseline=not baseline)
        for _, base in play_baseline(spec, plans, args, llm, folder, brain_options, "conditions", sweep_conditions):
            rows.append(row_of(spec, replace(cond, label=baseline_row(cond.label), paper={}), base))
    text = comparison(spec, rows, model, [batch_note(cond.label, batches) for cond, *_, batches in setups
                                          if batches[0].override])
    print("\n" + text)
    write_table(out_dir, text, rows)
    print(f"\ntable: {os.path.join(out_dir, TABLE_FILES[0])}; games: {out_dir}")
    return 0


def baseline_row(label: str) -> str:
    return f"{label} without LLM (baseline)"


def row_of(spec: TaskSpec, cond: ReproCondition, records: list[GameRecord]) -> dict:
    """One condition: the paper's and this run's figures per column, games, valid %, effective %, invalid."""
    summary = summary_table(spec, records) if records else {}
    row = {"condition": cond.label}
    for col in spec.reproduction.columns:
        row[f"{col} (paper)"] = cond.paper.get(col, "")
        row[f"{col} (this run)"] = summary.get(col, "")
    sums = llm_totals(records)
    effective = [s.get("effective") for r in records for s in (r.results.get("llm") or {}).values()]
    row["games"] = len(records)
    row["valid %"] = round(100 * sums["valid"] / sums["acts"], 1) if sums["acts"] else ""
    row["effective %"] = (round(100 * sum(e or 0 for e in effective) / sums["acts"], 1)
                          if sums["acts"] and any(e is not None for e in effective) else "")
    row["invalid"] = sum(is_invalid(r.results) for r in records)
    return row


def batch_note(label: str, batches: list[Batch]) -> str:
    """What each batch of a condition changed and which of its games it played ("no game" when there were fewer
    games than batches)."""
    def played(b: Batch) -> str:
        if not b.games:
            return "no game"
        return f"game {b.first + 1}" if b.games == 1 else f"games {b.first + 1}-{b.first + b.games}"
    games = sum(b.games for b in batches)
    parts = [f"{flat(b.override)}: {played(b)}" for b in batches]
    short = f" ({games} games for {len(batches)} batches)" if games < len(batches) else ""
    return f"{label}: {len(batches)} batches, {'; '.join(parts)}{short}"


def flat(options: dict, prefix: str = "") -> str:
    """Nested options as one line: {"sampling": {"*": {"seed": 143}}} -> "sampling.*.seed=143"."""
    return ", ".join(flat(v, f"{prefix}{k}.") if isinstance(v, dict) else f"{prefix}{k}={v}"
                     for k, v in options.items())


def comparison(spec: TaskSpec, rows: list[dict], model: str, notes: tuple[str, ...] = ()) -> str:
    """The table with its heading (the paper's source, the preset and the model), the batches' notes and the
    reproduction's note."""
    repro = spec.reproduction
    header = list(rows[0])
    head = f"{spec.title}: {repro.source} beside this run (preset {PRESET}, model {model})"
    note = "".join(f"\n{line}" for line in [*notes, repro.note] if line)
    cells = [["-" if r[k] in ("", None) else r[k] for k in header] for r in rows]  # a blank reads as missing
    return f"{head}\n{format_table(header, cells)}{note}"


def write_table(out_dir: str, text: str, rows: list[dict]) -> None:
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, TABLE_FILES[0]), "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    with open(os.path.join(out_dir, TABLE_FILES[1]), "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
