"""`python -m bots replay PATH... [--out DIR]`: rebuild logged games and check them; write transcripts, a table, plots.

Input: JSON-lines room logs, as files or folders (searched recursively for `*.jsonl`): Slurk downloads (one file per
room, Slurk's own rows interleaved, `receiver_id` = Slurk user ids, a `seat_map` row mapping seats to users) and
local runs (`runs/<task>-<time>/logs/game-*.jsonl`, `game.jsonl`; `receiver_id` = seat names).

Every `game_start` opens a game (a room may hold several). The game is rebuilt from the recorded instance inputs
(`game_input` rows, in `seq` order) with the task's own engine, and the recomputed results, status, completion
rewards, rejections and task events are compared with what the log says.

A log that cannot be trusted (not JSON, an unknown task, a malformed game row, an unknown input type, an unknown
event that claims to be ours) is reported with its file and line and skipped; everything else is still processed.
A log that stops early (no `game_end`, or missing `game_input` rows) is reported and kept as "incomplete".

Outputs in --out (default `replay-out/`): `<room-or-file>-<n>.html` transcripts, `summary.csv` (one row per game),
`by_agents.csv` (the task's own summary per agent pair), `problems.csv`, and `plots/*.png`.
The exit status is 0 when every game replayed and matched, 1 when something was skipped or did not match,
2 when no log was found.

The work is done in these modules, each importing only the ones before it:
  replay_model     the records (GameReplay, Entry, Problem, ReplayReport), known event names, comparison tolerances
  replay_reading   finding and reading logs, row helpers
  replay_compare   log against replay: results, status, instance, codes, task events
  replay_timeline  the transcript lines (Entry list) of a game, and what one seat saw
  replay_rebuild   rebuilding each game with the task's engine (tasks.core.build_match)
  replay_outputs   transcripts, summary.csv, by_agents.csv, problems.csv, plots, the printed report
This module is the command line, and names the public parts for callers.
"""
from __future__ import annotations

import argparse

from tasks import get_task

from .replay_compare import check_game, compare
from .replay_model import (
    CORE_EVENTS, OTHER_BOT_EVENTS, RUNTIME_EVENTS, SLURK_EVENTS, VOLATILE_KEYS, Entry, GameReplay, LogSkipped,
    Problem, ReplayReport, agent_groups,
)
from .replay_outputs import (
    BASE_COLUMNS, TAIL_COLUMNS, by_agents_table, file_stems, format_report, replay_paths, summary_columns, summary_row,
    write_summary,
)
from .replay_reading import find_logs, read_log
from .replay_rebuild import Resolver, replay_file, replay_game
from .replay_timeline import build_timeline, timeline_for

__all__ = [
    "BASE_COLUMNS", "CORE_EVENTS", "OTHER_BOT_EVENTS", "RUNTIME_EVENTS", "SLURK_EVENTS", "TAIL_COLUMNS",
    "VOLATILE_KEYS",
    "Entry", "GameReplay", "LogSkipped", "Problem", "ReplayReport", "Resolver",
    "agent_groups", "build_parser", "build_timeline", "by_agents_table", "check_game", "compare", "file_stems",
    "find_logs", "format_report", "get_task", "main", "read_log", "replay_file", "replay_game", "replay_paths",
    "summary_columns", "summary_row", "timeline_for", "write_summary",
]


def build_parser(prog: str = "run_bot.sh replay") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Rebuild logged games (Slurk downloads or local runs), check "
                                                       "their results, and write transcripts, a summary and plots.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log files or folders (searched recursively for *.jsonl)")
    p.add_argument("--out", default="replay-out", help="output folder (default: replay-out)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    # get_task is looked up here, at call time, so that a replaced `replay.get_task` (tests) is the one used.
    report = replay_paths(args.paths, args.out, get_task, plots=not args.no_plots)
    if not report.files:
        return 2
    return 0 if report.ok else 1
