"""The tables of local runs: a task's summary columns, agent labels (with `+fallback`), the LLM use table, and the
per-game and summary CSVs. Every table is printed in one plain layout (`format_table`).
"""
from __future__ import annotations

import csv
import json
import os
from typing import Callable, Optional

from tasks.core import TaskSpec
from tasks.core import llm_acts as llm_figures

from .play import GameRecord


def is_invalid(results: dict) -> bool:
    """A game strict LLM mode ended as invalid (`results["invalid"]`, set by the match; older logs: the status)."""
    return bool(results.get("invalid")) or results.get("status") == "invalid"


def summary_table(spec: TaskSpec, records: list[GameRecord]) -> dict:
    """The summary row of played games (`summarize_results`)."""
    return summarize_results(spec, [r.results for r in records])


def summarize_results(spec: TaskSpec, results: list[dict], summarize: Optional[Callable] = None) -> dict:
    """The task's summary columns (`summarize`, default the task's own) over the valid games (an invalid game is in
    no mean), the LLM columns over every game, and with LLM seats or invalid games an `invalid` column counting the
    games left out."""
    played = [r for r in results if not is_invalid(r)]
    summarize = summarize or spec.summarize
    if summarize:
        summary = dict(summarize(played))
    else:
        done = [r for r in played if r.get("status") == "completed"]
        summary = {"games": len(played), "completed %": round(100 * len(done) / max(1, len(played)), 1)}
    llm = llm_figures.llm_columns(results)  # acts of invalid games count too
    summary = {k: v for k, v in summary.items() if k not in llm}
    invalid = len(results) - len(played)
    if invalid or llm:
        summary["invalid"] = invalid
    return {**summary, **llm}


def agent_label(spec: TaskSpec, agents: dict, records: list[GameRecord], brain_options: Optional[dict] = None) -> str:
    """`a,b` (one agent per seat), with `+fallback` after an agent whose LLM acts fell back in any game and
    " (llm reader)" after a symbolic agent that reads chat through the LLM (brain option `reader`: "llm")."""
    reader = spec.llm_reader_seats(agents, brain_options or {})
    named = {s: f"{a} (llm reader)" if s in reader else a for s, a in agents.items()}
    return llm_figures.agent_label(named, spec.seats, [r.results for r in records])


def llm_use_table(rows: list[tuple[str, list[GameRecord]]]) -> Optional[str]:
    """Per (label, seat, use): acts, valid %, fallback %, tokens and time; None when no game had an LLM act."""
    out = []
    for label, records in rows:
        for r in llm_figures.use_rows([rec.results for rec in records]):
            out.append([label, *r])
    if not out:
        return None
    return format_table(["agents", *llm_figures.USE_HEADER], out)


def write_csvs(spec: TaskSpec, records: list[GameRecord], summary: dict, agents: dict, out_dir: str) -> tuple[str, str]:
    os.makedirs(out_dir, exist_ok=True)
    per_game = os.path.join(out_dir, "games.csv")
    cols = ["index", "seed", "agents", "status", *[c for c in spec.per_game_columns if c != "status"], "tokens",
            "llm"]
    with open(per_game, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for r in records:
            row = {"index": r.index, "seed": r.seed, **r.results, "agents": agent_label(spec, agents, [r])}
            row["llm"] = {seat: {k: v for k, v in f.items() if k != "by_use"}
                          for seat, f in (r.results.get("llm") or {}).items()} or None
            w.writerow([_cell(row.get(c)) for c in cols])
    summary_path = os.path.join(out_dir, "summary.csv")
    with open(summary_path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["agents", *summary.keys()])
        w.writerow([agent_label(spec, agents, records), *summary.values()])
    return per_game, summary_path


def _cell(v):
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True)
    return "" if v is None else v


def format_table(header: list[str], rows: list[list]) -> str:
    cells = [[str(h) for h in header]] + [[str(_cell(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def llm_totals(records: list[GameRecord]) -> dict:
    """Acts, valid, fallback, calls, tokens and calls with estimated tokens summed over every LLM seat of the games."""
    keys = ("acts", "valid", "fallback", "calls", "prompt_tokens", "completion_tokens", "estimated")
    out = dict.fromkeys(keys, 0)
    for r in records:
        for seat in (r.results.get("llm") or {}).values():
            for k in keys:
                out[k] += seat.get(k, 0)
    return out


def print_rows(rows: list[dict], by_label: list, path: str) -> str:
    """Print summary rows (one dict each; columns in order of appearance) and the LLM use table; write the rows
    to `path` as CSV. Returns the path."""
    header: list = []
    for r in rows:
        header += [k for k in r if k not in header]
    table = [[r.get(k) for k in header] for r in rows]
    print(format_table(header, table))
    uses = llm_use_table(by_label)
    if uses:
        print("\nLLM acts per seat and use:\n" + uses)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows([[_cell(c) for c in r] for r in table])
    return path
