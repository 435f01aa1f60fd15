"""The local CLI (`./run_bot.sh <task> ...`): parses the command line, builds the LLM client when one is configured,
and dispatches to the local evaluation (`tasks.core.evaluation`): one game, `--games N` (per condition, `--grid`),
`--population`, `--play`, or the task's own evaluator (`TaskSpec.evaluator`, e.g. a paper's table).

Honest LLM figures: every table has, per LLM seat, its acts, valid %, fallback %, tokens per game and seconds per
act, a second table breaks them down by use, and an agent whose LLM acts fell back to its symbolic policy is
labelled `<agent>+fallback`. `--strict-llm` refuses fallbacks: a failed act ends the game as "invalid".

`--population --agents X --games N` plays agent X against every partner type of the task's population
(`TaskSpec.population`: scripted partners that behave like different people) and prints one row per partner type.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional

from tasks import available_tasks, get_task
from tasks.core import PresetError, TaskSpec, resolve_preset
from tasks.core.evaluation import (
    RunRequest, default_out, play_at_terminal, play_conditions, play_one, run_population, threads_for,
)


def build_parser(prog: str = "run_bot.sh", task: Optional[str] = None) -> argparse.ArgumentParser:
    """The local CLI. A task's own options (`TaskSpec.cli_options`, e.g. a board size) are added when the task
    is known (the first argument)."""
    p = argparse.ArgumentParser(prog=prog, description="Play a task locally (no Slurk): one game, many games, or with you in a seat.")
    p.add_argument("task", choices=available_tasks())
    p.add_argument("--games", type=int, default=1, help="play N seeded games (per condition) and print the metrics table")
    p.add_argument("--agents", help="comma-separated agent per seat, e.g. solver,solver")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game (game i uses seed+i)")
    p.add_argument("--play", nargs="?", const="", metavar="SEAT", help="take a seat yourself (default: the first person seat)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="any task option (JSON values allowed)")
    p.add_argument("--grid", action="store_true", help="play --games games in every condition of the task's experiment grid")
    p.add_argument("--out", help="folder for logs and CSV (default runs/<task>-<time>)")
    p.add_argument("--config", help="YAML config file (llm section) — secrets stay in the environment or this file")
    p.add_argument("--brain-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option for every agent (JSON values allowed), e.g. stable_prefix=false; SEAT.KEY=VALUE "
                        "for one seat only, e.g. light.reader=llm (a symbolic agent reads chat through the LLM)")
    p.add_argument("--preset", metavar="NAME",
                   help="a named set of the task's options (e.g. paper: its paper's protocol; default ours); "
                        "explicit --option / --brain-option win")
    p.add_argument("--paper-prompts", metavar="PATH",
                   help="a checkout of the paper's original release, for presets that read its prompts")
    p.add_argument("--strict-llm", action="store_true",
                   help="research runs: an LLM act that fails is not played by the symbolic policy; the game ends "
                        "as invalid")
    p.add_argument("--no-baseline", action="store_true",
                   help="with an LLM agent and a model: do not play the same seeds with no model at all (every "
                        "agent its symbolic policy, an llm reader too: the table's 'without LLM (baseline)' row)")
    p.add_argument("--quiet", action="store_true", help="no transcript")
    p.add_argument("--parallel", type=int, default=0, metavar="N",
                   help="games in flight at once (default: what the LLM endpoint's llm.concurrency allows; without "
                        "an LLM, the CPU cores); results are the same as one game after another")
    p.add_argument("--shard", metavar="I/N", help="play the I-th of N shares of the games (a cluster job array); "
                   "`./run_bot.sh merge DIR...` prints the table of all shards")
    p.add_argument("--dry-run", action="store_true",
                   help="print what the run will cost (games, LLM acts, tokens, price) from a pilot of --pilot games "
                        "per condition, or from the games already recorded in --out; plays nothing else")
    p.add_argument("--pilot", type=int, default=1, metavar="N", help="games per condition in a --dry-run pilot")
    p.add_argument("--population", action="store_true",
                   help="play --agents (one agent, for the other seat) against every partner type of the task's "
                        "population (scripted people) and print one row per partner type")
    if task in available_tasks():
        spec = get_task(task)
        group = p.add_argument_group(f"{spec.name} options")
        for o in spec.cli_options:
            group.add_argument(o.flag, dest=f"task_{o.key}", type=o.type, choices=o.choices, help=o.help)
    return p


def parse_args(argv: list[str]):
    first = next((a for a in argv if not a.startswith("-")), None)
    return build_parser(task=first).parse_args(argv)


def parse_brain_options(args) -> dict:
    options = _key_values(getattr(args, "brain_option", []) or [], "--brain-option")
    if getattr(args, "strict_llm", False):
        options["strict_llm"] = True
    return options


def _key_values(items: list[str], flag: str) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"{flag} needs KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    return out


def parse_options(args) -> dict:
    options = {k[len("task_"):]: v for k, v in vars(args).items() if k.startswith("task_") and v is not None}
    options.update(_key_values(args.option, "--option"))
    for key in ("preset", "paper_prompts"):
        if getattr(args, key, None):
            options[key] = getattr(args, key)
    return options


def resolve_agents(spec: TaskSpec, text: Optional[str]) -> dict[str, str]:
    names = text.split(",") if text else list(spec.default_brains)
    if len(names) == 1:
        names = names * len(spec.seats)
    if len(names) != len(spec.seats):
        raise SystemExit(f"--agents needs one agent per seat ({', '.join(spec.seats)}), got {len(names)}")
    for n in names:
        if n not in spec.brains:
            raise SystemExit(f"unknown agent {n!r} for {spec.name}; choose from: {', '.join(spec.brains)}")
    return dict(zip(spec.seats, names))


def make_llm(config_path: Optional[str]):
    """An LLM client when one is configured (environment or config file), else None: brains then use symbolic policies."""
    from .llm import LLMClient, LLMConfig

    file_cfg = {}
    if config_path:
        import yaml

        with open(config_path, encoding="utf-8") as fh:
            file_cfg = (yaml.safe_load(fh) or {}).get("llm") or {}
    cfg = LLMConfig.from_env(os.environ, file_cfg)
    return LLMClient(cfg) if cfg else None


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    spec = get_task(args.task)
    agents = resolve_agents(spec, args.agents)
    options = parse_options(args)
    brain_options = parse_brain_options(args)
    try:
        spec.check_seat_options(brain_options)
        options, brain_options = resolve_preset(spec, options, brain_options)
    except ValueError as exc:  # a PresetError, a sampling option, a SEAT.KEY naming no seat
        print(f"{spec.name}: {exc}", file=sys.stderr)
        return 2
    llm = make_llm(args.config)
    needs = [a for a in agents.values() if getattr(spec.brains.get(a), "needs_llm", False)]
    if needs and llm is None:
        raise SystemExit(f"--agents {','.join(agents.values())}: the {needs[0]!r} agent needs an LLM, and none is "
                         "configured (set the llm section or its environment variables); refusing to report the "
                         "symbolic fallback's figures under the LLM's name")
    evaluate = spec.load_evaluator()  # the task's own layout of some runs (a paper's table), if it has one
    if evaluate:
        run = RunRequest(agents, options, llm, args.games, args.seed, args.out, brain_options,
                         parallel=args.parallel or threads_for(llm), play=args.play, population=args.population)
        code = evaluate(spec, run)
        if code is not None:
            return code
    out_dir = args.out or default_out(spec)
    if args.population:
        return run_population(spec, args, options, llm, out_dir, brain_options)
    if args.play is not None:
        return play_at_terminal(spec, args.play, args.seed, agents, options, llm, out_dir, brain_options)
    if args.games == 1:
        return play_one(spec, args.seed, agents, options, llm, out_dir, brain_options, quiet=args.quiet,
                        baseline=not args.no_baseline)
    return play_conditions(spec, args, agents, options, llm, out_dir, brain_options)
