"""Local evaluation: games played in-process (self-play, a person at a terminal, many seeded games in conditions),
their records, logs, tables and CSVs. Transports (the CLI in bots/) parse the command line and build the LLM client;
everything a run does from there lives here, so a task's own evaluator (`TaskSpec.evaluator`) uses it without
knowing any transport.

Honest LLM figures: every table has, per LLM seat, its acts, valid %, effective %, fallback %, tokens per game and
seconds per act (`tasks.core.llm_acts`), a second table breaks them down by use, and an agent whose LLM acts fell
back to its symbolic policy is labelled `<agent>+fallback`. Games strict LLM mode ended as invalid are in no mean
and counted in an `invalid` column (`summary_table`); with an LLM seat and a model, the same seeds are also played
without the LLM (`baseline.py`).
"""
from . import sweep
from .commands import default_out, play_at_terminal, play_conditions, play_one
from .conditions import (
    Condition, grid_conditions, list_conditions, population_agents, population_seats, print_tables,
    records_by_condition, run_conditions, run_population, sweep_conditions, threads_for,
)
from .dry_run import dry_run
from .eventlog import JsonlRoomLog, read_rows
from .play import LOCAL_TIMERS, GameRecord, play_game, play_many, seat_names
from .reproduce import reproduce
from .request import RunRequest
from .tables import (
    agent_label, format_table, is_invalid, llm_totals, llm_use_table, print_rows, summarize_results, summary_table,
    write_csvs,
)

__all__ = [name for name in dir() if not name.startswith("_")]
