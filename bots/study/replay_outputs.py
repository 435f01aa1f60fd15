"""What `replay` writes and prints: per game an HTML transcript, `summary.csv` (one row per game), `by_agents.csv`
(the task's own summary per agent pair), `problems.csv`, `plots/*.png`, and the report on the terminal.

The transcripts and summary.csv hold completion codes: every file is created with mode 0600, new folders 0700.

LLM seats: from a game's `llm_act` notes (agent_note rows), summary.csv and the printed table get per LLM seat its acts, valid %,
fallback %, tokens and seconds per act, by_agents.csv the same over each agent pair (through the task's summarize),
and an agent whose LLM acts fell back to its symbolic policy is shown as `<agent>+fallback`."""
from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path
from typing import Callable, Iterable, Optional

from tasks.core import llm_acts
from tasks.core.evaluation import summarize_results

from .provision import make_private_dir, private_file
from .replay_model import GameReplay, ReplayReport, agent_groups
from .replay_reading import find_logs, read_log
from .replay_rebuild import Resolver, replay_file
from .transcript import write_transcript

BASE_COLUMNS = ["file", "game", "room", "task", "seed", "seats", "agents", "status", "check"]
TAIL_COLUMNS = ["turns", "inputs", "duration", "codes", "bonus", "bonus_total", "mismatches", "transcript"]


def replay_paths(paths: Iterable[str], out: str = "replay-out", resolve: Optional[Resolver] = None, *,
                 plots: bool = True, html_out: bool = True, echo: Optional[Callable[[str], None]] = print) -> ReplayReport:
    """Replay every game in `paths` (files or folders) and write the outputs to `out`. `resolve` maps a task name to
    its TaskSpec (default: tasks.get_task; tests inject their own)."""
    files, problems = find_logs(paths)
    games: list[GameReplay] = []
    for f in files:
        gs, ps = replay_file(f, resolve)
        games += gs
        problems += ps
    report = ReplayReport(games, problems, out, files)
    if not files:
        if echo:
            echo(format_report(report))
        return report
    make_private_dir(out)
    stems = file_stems(sorted({g.file for g in games}))
    for g in games:
        g.name = f"{stems[g.file]}-{g.index}"
        if html_out:
            g.transcript = os.path.join(out, g.name + ".html")
            write_transcript(g, g.transcript)
    if games:
        report.summary_csv = os.path.join(out, "summary.csv")
        write_summary(games, report.summary_csv)
        header, rows = by_agents_table(games)
        _write_csv(os.path.join(out, "by_agents.csv"), header, [[_cell(c) for c in r] for r in rows])
    _write_csv(os.path.join(out, "problems.csv"), ["file", "line", "skipped", "problem"],
               [[p.file, p.line or "", "yes" if p.skipped else "no", p.message] for p in problems])
    if plots and games:
        from .plots import write_plots  # matplotlib is slow to import: only when plots are wanted

        report.plots = write_plots(games, os.path.join(out, "plots"))
    if echo:
        echo(format_report(report))
    return report


# ----------------------------------------------------------------------------------------------------------------
# Tables


def summary_columns(games: list[GameReplay]) -> list[str]:
    cols: list[str] = []
    for g in games:
        for c in list(g.columns) + list(llm_columns(g)):
            if c not in cols and c not in BASE_COLUMNS and c not in TAIL_COLUMNS and c != "status":
                cols.append(c)
    return BASE_COLUMNS + cols + TAIL_COLUMNS


_LLM_ROWS: dict = {}


def llm_figures(g: GameReplay) -> dict:
    """seat -> the game's LLM figures (tasks.core.llm_acts.per_seat) from its `llm_act` notes; {} without any."""
    cached = getattr(g, "_llm_figures", None)
    if cached is not None:
        return cached
    key = os.path.realpath(g.file)
    if key not in _LLM_ROWS:
        try:
            rows, _ = read_log(g.file)
        except Exception:  # unreadable logs are reported by the replay itself
            rows = []
        _LLM_ROWS.clear()  # one file at a time is enough: games are replayed file by file
        _LLM_ROWS[key] = rows
    rows = _LLM_ROWS[key]
    starts = [ln for ln, r in rows if r.get("event") == "game_start"]
    end = next((ln for ln in starts if ln > g.line), None)
    acts = llm_acts.acts_in(r for ln, r in rows if ln > g.line and (end is None or ln < end))
    figures = llm_acts.per_seat(acts) if acts else {}
    g._llm_figures = figures  # type: ignore[attr-defined]
    return figures


def llm_columns(g: GameReplay) -> dict:
    """Per LLM seat of this game: acts, valid %, fallback %, tokens, seconds per act."""
    figures = llm_figures(g)
    return llm_acts.llm_columns([{"llm": figures, "status": g.status}]) if figures else {}


def agent_label(g: GameReplay) -> str:
    """The game's agents (seat order), `+fallback` after an agent whose LLM acts fell back."""
    figures = llm_figures(g)
    if not figures:
        return g.agent_label
    marked = llm_acts.fell_back([{"llm": figures}])
    return "/".join(f"{g.agents.get(s, '?')}+fallback" if s in marked else str(g.agents.get(s, "?"))
                    for s in g.seat_order)


def summary_row(g: GameReplay) -> dict:
    row = {
        "file": g.file, "game": g.index, "room": g.room, "task": g.task, "seed": g.seed,
        "seats": " ".join(f"{s}={(g.seats.get(s) or {}).get('kind', '?')}" for s in g.seat_order),
        "agents": " ".join(f"{s}={g.agents.get(s, '?')}" for s in g.seat_order),
        "status": g.status, "check": g.check,
        "turns": g.turns, "inputs": g.inputs, "duration": g.duration,
        "codes": " ".join(f"{s}={c}" for s, c in g.codes.items()),
        "bonus": g.bonus or None, "bonus_total": g.bonus_total,
        "mismatches": "; ".join(g.mismatches + g.notes),
        "transcript": g.transcript or "",
    }
    for c in g.columns:
        if c not in row:
            row[c] = g.results.get(c)
    for c, v in llm_columns(g).items():
        row.setdefault(c, v)
    if llm_figures(g):
        row["agents"] = " ".join(f"{s}={a}" for s, a in zip(g.seat_order, agent_label(g).split("/")))
    return row


def write_summary(games: list[GameReplay], path: str) -> list[str]:
    cols = summary_columns(games)
    _write_csv(path, cols, [[_cell(summary_row(g).get(c)) for c in cols] for g in games])
    return cols


def by_agents_table(games: list[GameReplay]) -> tuple[list[str], list[list]]:
    """Per agent pair: games, completion, the task's own summary (TaskSpec.summarize) of the finished games, bonus."""
    header = ["agents", "games", "completed", "incomplete", "mismatches", "bonus_total"]
    extra: list[str] = []
    rows = []
    for label, gs in agent_groups(games).items():
        finished = [{**g.results, "llm": llm_figures(g)} if llm_figures(g) else g.results
                    for g in gs if not g.incomplete]
        if llm_acts.fell_back(finished):
            label += " (LLM fallback)"
        task_summary = {}
        spec = gs[0].spec
        if getattr(spec, "summarize", None) and finished:
            try:
                # the one summary every table uses: invalid games (strict LLM mode) in no mean, counted
                task_summary = summarize_results(spec, finished)
            except Exception as exc:
                task_summary = {"summarize error": f"{type(exc).__name__}: {exc}"}
        for k in task_summary:
            if k not in extra and k not in header:
                extra.append(k)
        rows.append(({
            "agents": label, "games": len(gs), "completed": sum(g.status == "completed" for g in gs),
            "incomplete": sum(g.incomplete for g in gs), "mismatches": sum(bool(g.mismatches) for g in gs),
            "bonus_total": round(sum(g.bonus_total for g in gs), 6),
        }, task_summary))
    header = header + extra
    return header, [[{**ts, **base}.get(c) for c in header] for base, ts in rows]


def _cell(v):
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True)
    return "" if v is None else v


def _write_csv(path: str, header: list, rows: list) -> None:
    with private_file(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


# ----------------------------------------------------------------------------------------------------------------
# Names and the printed report


def file_stems(files: list[str]) -> dict[str, str]:
    """A distinct output name per log file: the file stem (a Slurk download is named after its room, a local batch log
    after the game, game-0003), or for runs/<task>-<time>/game.jsonl its folder; parent folders are prefixed until the
    names are distinct."""
    def candidates(f: str):
        p = Path(f)
        parts = [x for x in p.parent.parts if x not in ("/", "")]
        stem = p.stem
        if stem == "game" and parts:
            stem = parts.pop()
        yield stem
        while parts:
            stem = f"{parts.pop()}-{stem}"
            yield stem

    gens = {f: candidates(f) for f in files}
    current = {f: _slug(next(gens[f])) for f in files}
    while True:
        counts: dict[str, int] = {}
        for name in current.values():
            counts[name] = counts.get(name, 0) + 1
        clashing = [f for f, name in current.items() if counts[name] > 1]
        if not clashing:
            break
        progressed = False
        for f in clashing:
            nxt = next(gens[f], None)
            if nxt is not None:
                current[f] = _slug(nxt)
                progressed = True
        if not progressed:  # identical paths after slugging: number them
            seen: dict[str, int] = {}
            for f in files:
                k = seen[current[f]] = seen.get(current[f], 0) + 1
                if k > 1:
                    current[f] = f"{current[f]}_{k}"
            break
    return current


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_.") or "game"


def format_report(report: ReplayReport) -> str:
    from tasks.core.evaluation import format_table

    lines: list[str] = []
    games = report.games
    tasks: dict[str, list[GameReplay]] = {}
    for g in games:
        tasks.setdefault(g.task, []).append(g)
    for task, gs in tasks.items():  # one table per task: tasks have different metric columns
        metric_cols = [c for c in summary_columns(gs) if c not in BASE_COLUMNS and c not in TAIL_COLUMNS]
        header = ["game", "agents", "status", *metric_cols, "turns", "duration", "codes", "bonus", "check"]
        rows = []
        for g in gs:
            r = summary_row(g)
            rows.append([f"{g.file}#{g.index}", agent_label(g), g.status, *[r.get(c) for c in metric_cols],
                         g.turns, g.duration, r["codes"], g.bonus_total, g.check])
        if lines:
            lines.append("")
        lines.append(f"== {task}: {len(gs)} game(s)")
        lines.append(format_table(header, rows))
        if len(agent_groups(gs)) > 1 or getattr(gs[0].spec, "summarize", None):
            h, rs = by_agents_table(gs)
            lines.append("")
            lines.append(format_table(h, rs))
    details = [(g, m) for g in games for m in g.mismatches + g.notes]
    if details:
        lines.append("")
        lines.append("Replay differences:")
        lines += [f"  {g.file}#{g.index}: {m}" for g, m in details]
    if report.problems:
        lines.append("")
        lines.append("Problems:")
        lines += [f"  {p}" for p in report.problems]
    n = len(games)
    ok = sum(g.check == "ok" for g in games)
    lines.append("")
    lines.append(f"{len(report.files)} log file(s), {n} game(s): {ok} reproduced, "
                 f"{sum(bool(g.mismatches) or bool(g.replay_error) for g in games)} with differences, "
                 f"{sum(g.incomplete or bool(g.missing_seqs) for g in games)} incomplete, "
                 f"{sum(p.skipped for p in report.problems)} skipped; "
                 f"bonus owed {round(sum(g.bonus_total for g in games), 6)}")
    if games:
        lines.append(f"transcripts: {report.out}/*.html  summary: {report.summary_csv}  plots: "
                     f"{os.path.join(report.out, 'plots') if report.plots else '(none)'}")
    return "\n".join(lines)
