"""`python -m bots` (and `./run_bot.sh`): one entry point for every job.

    <task> [options]            play locally (no Slurk): one game, --games N, or --play
    serve <task> [--config F]   serve the task on a Slurk server
    setup <task> ...            provision a study on a Slurk server
    concierge ...               run the waiting-room (pairing) bot
    logs download ...           download a task's room logs from Slurk
    replay PATH...              rebuild games from logs: check scores, write transcripts, tables and plots
    merge DIR...                the table of a sweep played in shards (<task> --games N --shard i/N)
    benchmark [--games N]       every task's LLM agents with the configured model: a leaderboard (CSV + HTML)
    reproduce <task> [--yes]    a paper's LLM table with the configured model: pilot cost, then the paper beside this run
"""
from __future__ import annotations

import importlib
import logging
import sys

# Sub-commands live in their own modules, imported only when used, so a local game never loads socket code.
SUBCOMMANDS = {
    "serve": "bots.slurk.serve",
    "setup": "bots.study.setup",
    "concierge": "bots.concierge.command",
    "logs": "bots.study.logs",
    "replay": "bots.study.replay",
    "merge": "bots.merge",
    "benchmark": "bots.benchmark",
    "reproduce": "bots.reproduce",
}


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__)
        from tasks import available_tasks

        print("tasks: " + ", ".join(available_tasks()))
        return 0
    if argv[0] in SUBCOMMANDS:
        try:
            module = importlib.import_module(SUBCOMMANDS[argv[0]])
        except ModuleNotFoundError as exc:
            print(f"'{argv[0]}' is not available in this build ({exc.name} missing)", file=sys.stderr)
            return 2
        return module.main(argv[1:]) or 0
    from .local import main as local_main

    return local_main(argv)
