"""`./run_bot.sh reproduce TASK`: the task's paper LLM table played with the configured model, the paper's figures
beside this run's (tasks/core/evaluation/reproduce.py does the run; this module parses and asks).

    ./run_bot.sh reproduce TASK [--games N] [--paper-prompts PATH] [--seed S] [--out DIR] [--yes] [--condition L]
                             [--no-baseline]

A pilot game per condition measures tokens per game; the planned run's tokens and price (llm.price_prompt /
price_completion or LLM_PRICE_PROMPT / LLM_PRICE_COMPLETION, per million tokens) are printed and confirmed before
the run starts (`--yes` confirms ahead, and is needed when stdin is not a terminal).
"""
from __future__ import annotations

import argparse
import sys

from tasks import available_tasks, get_task
from tasks.core.evaluation import default_out, reproduce

from .local import make_llm


def ask(yes: bool):
    """The confirmation: yes with --yes, a y/N question at a terminal, a refusal (with what to do) otherwise."""
    def confirm(question: str) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            print("stdin is not a terminal: pass --yes to play the run", file=sys.stderr)
            return False
        return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
    return confirm


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="run_bot.sh reproduce", description=__doc__.split("\n\n")[0])
    p.add_argument("task", choices=available_tasks())
    p.add_argument("--games", type=int, default=10, help="games per condition (default 10)")
    p.add_argument("--paper-prompts", metavar="PATH", help="a checkout of the paper's original release, for presets "
                   "that read its prompts")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game of every condition")
    p.add_argument("--out", help="run folder (default runs/<task>-<time>); the same command resumes it")
    p.add_argument("--yes", action="store_true", help="play without asking after the pilot's estimate")
    p.add_argument("--condition", metavar="LABEL", help="only this condition (a row label of the paper's table)")
    p.add_argument("--parallel", type=int, default=0, help="games in flight (default: the endpoint's llm.concurrency)")
    p.add_argument("--no-baseline", action="store_true",
                   help="do not play the LLM-free baseline: the same game on the same seeds with no model at all "
                        "(every agent its symbolic policy, strict off), the row '<condition> without LLM (baseline)'")
    p.add_argument("--config", help="YAML config file with an llm section (secrets stay there or in the environment)")
    args = p.parse_args(argv)
    spec = get_task(args.task)
    llm = make_llm(args.config)
    return reproduce(spec, llm, games=args.games, seed=args.seed, out_dir=args.out or default_out(spec),
                     paper_prompts=args.paper_prompts, only=args.condition, confirm=ask(args.yes),
                     parallel=args.parallel, baseline=not args.no_baseline)
