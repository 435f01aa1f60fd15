"""The local runtime: the same match as on Slurk, driven in-process with embedded brains and, optionally, a person
at the terminal. Used for the embedded default game, self-play evaluation (`--games N`) and `--play`.

Honest LLM figures: every table has, per LLM seat, its acts, valid %, fallback %, tokens per game and seconds per
act (`tasks.core.llm_acts`), a second table breaks them down by use, and an agent whose LLM acts fell back to its
symbolic policy is labelled `<agent>+fallback`. `--strict-llm` refuses fallbacks: a failed act ends the game as
"invalid".

`--population --agents X --games N` plays agent X against every partner type of the task's population
(`TaskSpec.population`: scripted partners that behave like different people) and prints one row per partner type.
"""
from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional

from tasks import available_tasks, get_task
from tasks.core import (
    Abort, Chat, ChatShown, Command, GameOver, Join, LogEvent, MatchDriver, Message, SeatInfo, TaskSpec,
    TimerConfig, build_match, input_from_json, parse_command_text,
)

from tasks.core import llm_acts as llm_figures
from tasks.core.discipline import audit_columns, audit_log

from .eventlog import JsonlRoomLog

# No join or inactivity timers locally: nobody is paid, and a person at a terminal may think as long as they like.
LOCAL_TIMERS = TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=None)


@dataclass
class GameRecord:
    index: int
    seed: int
    agents: dict
    results: dict
    log_path: Optional[str] = None
    usage: dict = field(default_factory=dict)
    llm_acts: list = field(default_factory=list)  # every LLM act of the game (the logged `llm_act` rows)


QUIT_WORDS = ("/quit", "/exit")  # the terminal's own: they never reach the game


def seat_names(spec: TaskSpec) -> dict[str, str]:
    named = getattr(spec.game_class, "seat_names", None) or {}  # a game may name its seats for people (gnomes)
    return {s: named.get(s) or s.replace("_", " ").title() for s in spec.seats}


def play_game(
    spec: TaskSpec,
    seed: int,
    agents: dict[str, str],
    options: Optional[dict] = None,
    person_seats: tuple[str, ...] = (),
    llm=None,
    log_path: Optional[str] = None,
    show: Optional[Callable[[str], None]] = None,
    ask: Callable[[str], str] = input,
    index: int = 0,
    instance: Optional[dict] = None,
    brain_options: Optional[dict] = None,
) -> GameRecord:
    """Play one game to the end and return its record. `show` receives transcript lines (None = silent).
    `instance`: play this logged instance instead of generating one from the seed."""
    options = {"index": index, **(options or {})}
    names = seat_names(spec)
    seats = {s: SeatInfo("person", names[s]) if s in person_seats else SeatInfo("agent", names[s], agents[s])
             for s in spec.seats}
    match, brains = build_match(spec, seed, seats, options=options, instance=instance, llm=llm,
                                timers=LOCAL_TIMERS, brain_options=brain_options)
    clock = time.time
    driver = MatchDriver(match, brains, clock=clock)
    log = JsonlRoomLog(log_path, room_id=f"local-{seed}") if log_path else None
    transcript = _Transcript(names, show, viewer=person_seats[0] if person_seats else None)

    def deliver(batch):
        for e in batch:
            if log and isinstance(e, LogEvent):
                log.write(e.event, e.data, receiver_id=e.to, t=clock())
            transcript.show(e)

    try:
        for batch in driver.open():
            deliver(batch)
        for seat in person_seats:
            for batch in driver.feed(Join(seat, t=clock())):
                deliver(batch)
        if person_seats:
            transcript.line("(type /help for the commands, /quit to leave)")
        while not match.over:
            if not person_seats:
                # Brains went quiet without finishing: the game cannot progress any more.
                for batch in driver.feed(Abort("stalled", "The agents stopped without finishing the game.", clock())):
                    deliver(batch)
                break
            line = ask(f"{names[person_seats[0]]}> ")
            if line.strip().lower() in QUIT_WORDS:
                transcript.line("(you left the game; it was not finished)")
                break
            inp = _parse_line(person_seats[0], line, clock(), spec.seats)
            if inp is None:
                continue
            for batch in driver.feed(inp):
                deliver(batch)
    except (EOFError, KeyboardInterrupt):
        transcript.line("(game abandoned)")
    finally:
        if log:
            log.close()
    usage = _sum_usage(brains.values())
    results = dict(match.results)
    if driver.llm_acts:
        results["llm"] = llm_figures.per_seat(driver.llm_acts)
    return GameRecord(index, seed, dict(agents), results, log_path, usage, list(driver.llm_acts))


def _parse_line(seat: str, line: str, t: float, seats: tuple[str, ...] = ()):
    """A terminal line: `/command args`, `@seat text` (a line to one seat, where the game relays chat), or chat."""
    line = line.strip()
    if not line:
        return None
    if line.startswith("/"):
        name, args = parse_command_text(line)
        return Command(seat, name, args, t=t)
    if line.startswith("@") and " " in line:
        target, text = line[1:].split(" ", 1)
        if target in seats:
            return Chat(seat, text.strip(), t=t, to=(target,))
    return Chat(seat, line, t=t)


def _sum_usage(brains) -> dict:
    total: dict = {}
    for b in brains:
        for k, v in getattr(b, "usage", {}).items():
            if isinstance(v, (int, float)):
                total[k] = total.get(k, 0) + v
    return total


class _Transcript:
    """Turns effects into readable lines. With a person at the terminal, only what their seat perceives."""

    def __init__(self, names: dict[str, str], show, viewer: Optional[str]):
        self.names = names
        self._show = show
        self.viewer = viewer

    def line(self, text: str) -> None:
        if self._show:
            self._show(text)

    def show(self, e) -> None:
        if not self._show:
            return
        if isinstance(e, Message):
            if e.to is None:
                self.line(f"[game] {e.text}")
            elif self.viewer in (None, e.to):
                self.line(f"[game to {self.names[e.to]}] {e.text}")
        elif isinstance(e, ChatShown):
            if e.seat == self.viewer or (self.viewer is not None and not e.seen_by(self.viewer)):
                return
            if e.to is None:
                self.line(f"{self.names[e.seat]}: {e.text}")
            else:  # addressed chat: say who saw it
                self.line(f"{self.names[e.seat]} -> {', '.join(self.names[s] for s in e.to)}: {e.text}")
        elif isinstance(e, LogEvent) and e.event == "game_input":
            inp = input_from_json(e.data["input"])
            # A person sees their own commands as they typed them; agents' commands are shown as moves.
            if isinstance(inp, Command) and inp.seat != self.viewer:
                self.line(f"{self.names[inp.seat]}: /{inp.name} {' '.join(inp.args)}".rstrip())
        elif isinstance(e, GameOver):
            self.line(f"[game over] status={e.status}")
            self.line("[result] " + json.dumps(_printable(e.results), sort_keys=True))


def _printable(results: dict) -> dict:
    return {k: v for k, v in results.items() if not isinstance(v, (dict, list)) or k in ("tour", "turns")}


# ----------------------------------------------------------------------------------------------------------------
# Many games


def play_many(spec: TaskSpec, n: int, seed: int, agents: dict[str, str], options: dict, llm, out_dir: str,
              progress: bool = True, brain_options: Optional[dict] = None) -> list[GameRecord]:
    records = []
    start = time.time()
    for i in range(n):
        log_path = os.path.join(out_dir, "logs", f"game-{i:04d}.jsonl")
        records.append(play_game(spec, seed + i, agents, options, llm=llm, log_path=log_path, index=i,
                                 brain_options=brain_options))
        if progress:
            _progress(i + 1, n, time.time() - start)
    if progress:
        sys.stderr.write("\n")
    return records


def _progress(done: int, total: int, elapsed: float) -> None:
    width = 30
    filled = int(width * done / total)
    eta = elapsed / done * (total - done)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games, {elapsed:5.1f}s, eta {eta:4.1f}s")
    sys.stderr.flush()


def summary_table(spec: TaskSpec, records: list[GameRecord]) -> dict:
    results = [r.results for r in records]
    if spec.summarize:
        return spec.summarize(results)
    done = [r for r in results if r.get("status") == "completed"]
    return {"games": len(results), "completed %": round(100 * len(done) / max(1, len(results)), 1),
            **llm_figures.llm_columns(results)}


def agent_label(spec: TaskSpec, agents: dict, records: list[GameRecord]) -> str:
    """`a,b` (one agent per seat), with `+fallback` after an agent whose LLM acts fell back in any game."""
    return llm_figures.agent_label(agents, spec.seats, [r.results for r in records])


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


# ----------------------------------------------------------------------------------------------------------------
# CLI


def build_parser(prog: str = "run_bot.sh", task: Optional[str] = None) -> argparse.ArgumentParser:
    """The local CLI. A task's own options (`TaskSpec.cli_options`, e.g. travel's --rooms) are added when the task
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
                   help="an option for every agent (JSON values allowed), e.g. stable_prefix=false")
    p.add_argument("--strict-llm", action="store_true",
                   help="research runs: an LLM act that fails is not played by the symbolic policy; the game ends "
                        "as invalid")
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
    for item in args.option:
        if "=" not in item:
            raise SystemExit(f"--option needs KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        try:
            options[k] = json.loads(v)
        except json.JSONDecodeError:
            options[k] = v
    return options


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
    llm = make_llm(args.config)
    needs = [a for a in agents.values() if getattr(spec.brains.get(a), "needs_llm", False)]
    if needs and llm is None:
        raise SystemExit(f"--agents {','.join(agents.values())}: the {needs[0]!r} agent needs an LLM, and none is "
                         "configured (set the llm section or its environment variables); refusing to report the "
                         "symbolic fallback's figures under the LLM's name")
    if options.get("psp") or options.get("human_instances"):
        # DialOp tasks: prompted self-play / self-play on the released instances (tasks/dialop/runner.py)
        from tasks.dialop.runner import main_released

        return main_released(spec, agents, options, llm, args.games if args.games > 1 else None, brain_options,
                             parallel=args.parallel or _threads_for(llm))
    if spec.name == "matrix-games" and options.get("trials") and not args.play:  # the paper's Tables 5-8 layout
        from tasks.matrix_games.evaluate import default_out, main_paper_table
        return main_paper_table(spec, agents, options, llm, args.seed, args.out or default_out(spec), brain_options,
                                parallel=args.parallel or _threads_for(llm))
    if spec.name == "dond" and not args.play and not args.population and (args.games > 1 or options.get("data")):
        from tasks.dond.evaluate import main_table  # the paper's Tables 9-18 layout: ours, "best", humans
        return main_table(spec, agents, options, llm, args.games, args.seed, args.out, brain_options,
                          parallel=args.parallel or _threads_for(llm))
    out_dir = args.out or os.path.join("runs", f"{spec.name}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}")

    if args.population:
        return run_population(spec, args, options, llm, out_dir, brain_options)

    if args.play is not None:
        seat = args.play or (spec.game_class.person_seat_order or spec.seats)[0]
        if seat not in spec.seats:
            raise SystemExit(f"unknown seat {seat!r}; seats: {', '.join(spec.seats)}")
        print(f"You play seat '{seat}' of {spec.title}. Type chat, or commands like /help.")
        rec = play_game(spec, args.seed, agents, options, person_seats=(seat,), llm=llm,
                        log_path=os.path.join(out_dir, "game.jsonl"), show=print, brain_options=brain_options)
        print(f"log: {rec.log_path}")
        return 0

    if args.games == 1:
        print(f"{spec.title}: {' vs '.join(f'{agents[s]} ({s})' for s in spec.seats)}, seed {args.seed}")
        rec = play_game(spec, args.seed, agents, options, llm=llm, log_path=os.path.join(out_dir, "game.jsonl"),
                        show=None if args.quiet else print, brain_options=brain_options)
        summary = summary_table(spec, [rec])
        print()
        print(format_table(["agents", *summary.keys()], [[agent_label(spec, agents, [rec]), *summary.values()]]))
        uses = llm_use_table([(agent_label(spec, agents, [rec]), [rec])])
        if uses:
            print("\nLLM acts per seat and use:\n" + uses)
        print(f"\nlog: {rec.log_path}")
        return 0

    conditions = grid_conditions(spec, options) if args.grid else list_conditions(spec, options)
    keys = [k for k in (spec.condition_keys or tuple(spec.grid)) if args.grid or len(conditions) > 1] or []
    many = len(conditions) > 1
    plans = [Condition(agents, cond, f"condition-{n:02d}" if many else "",
                       "".join(f" {k}={cond.get(k)}" for k in keys), {k: cond.get(k) for k in keys})
             for n, cond in enumerate(conditions)]
    return run_conditions(spec, plans, args, llm, out_dir, brain_options, kind="conditions")


@dataclass
class Condition:
    """One row of a sweep's table: the agents and task options its games use, and where they go."""
    agents: dict
    options: dict
    sub: str = ""              # sub-folder of the run directory ("" = the run directory itself)
    suffix: str = ""           # what the LLM use table adds to the agents' label
    columns: dict = field(default_factory=dict)  # columns before the summary (condition keys, partner)


def run_conditions(spec: TaskSpec, plans: list["Condition"], args, llm, out_dir: str, brain_options: dict,
                   kind: str) -> int:
    """Play --games games of every condition (in parallel, resumable, sharded: bots/sweep.py) and print the table."""
    if getattr(args, "dry_run", False):
        return dry_run(spec, plans, args, llm, out_dir, brain_options)
    manifest, by_condition = sweep_conditions(spec, plans, args, llm, out_dir, brain_options, kind)
    if by_condition is not None:
        print_tables(spec, manifest, by_condition, out_dir)
    return 0


def sweep_conditions(spec: TaskSpec, plans: list["Condition"], args, llm, out_dir: str, brain_options: dict,
                     kind: str) -> tuple[dict, Optional[list[list[GameRecord]]]]:
    """(the run's manifest, records per condition) after playing what the run directory lacks; records None for a
    shard (its table is printed by `merge`). `args`: games, seed, agents, parallel, shard."""
    from . import sweep

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
    return manifest, _records_by_condition(plans, sweep.load_all([out_dir])[1], args.games)


def _threads_for(llm) -> int:
    """Games in flight for the task evaluators that run in threads: the endpoint's limit, 1 without an LLM."""
    if llm is None:
        return 1
    from .sweep import default_parallel

    return default_parallel(llm, 64)


def llm_totals(records: list[GameRecord]) -> dict:
    """Acts, valid, fallback and tokens summed over every LLM seat of the games."""
    keys = ("acts", "valid", "fallback", "prompt_tokens", "completion_tokens")
    out = dict.fromkeys(keys, 0)
    for r in records:
        for seat in (r.results.get("llm") or {}).values():
            for k in keys:
                out[k] += seat.get(k, 0)
    return out


def dry_run(spec: TaskSpec, plans: list["Condition"], args, llm, out_dir: str, brain_options: dict) -> int:
    """Cost before the run: per condition, the planned games and, per game, LLM acts and tokens measured on a pilot
    (or on the games already recorded in `out_dir`), times the planned games; the price when the config has one."""
    from . import sweep

    recorded = {}
    if os.path.exists(os.path.join(out_dir, sweep.MANIFEST)):
        recorded = sweep.load_all([out_dir])[1]
    pilot_dir = os.path.join(out_dir, "pilot")
    cfg = getattr(llm, "config", None)
    prices = (getattr(cfg, "price_prompt", None), getattr(cfg, "price_completion", None))
    rows, total = [], [0, 0, 0, 0]
    for c, plan in enumerate(plans):
        games = [GameRecord(**r) for (ci, _), r in sorted(recorded.items()) if ci == c]
        source = f"{len(games)} recorded"
        if not games:
            n = max(1, args.pilot)
            for i in range(n):
                log = os.path.join(pilot_dir, plan.sub, f"game-{i:04d}.jsonl")
                games.append(play_game(spec, args.seed + i, plan.agents, plan.options, llm=llm, log_path=log,
                                       index=i, brain_options=brain_options))
            source = f"pilot of {n}"
        sums = llm_totals(games)
        acts, prompt, completion = sums["acts"], sums["prompt_tokens"], sums["completion_tokens"]
        per = max(1, len(games))
        planned = args.games
        t = [planned, round(acts / per * planned), round(prompt / per * planned), round(completion / per * planned)]
        total = [a + b for a, b in zip(total, t)]
        row = {**plan.columns, "agents": ",".join(plan.agents[s] for s in spec.seats), "from": source,
               "games": t[0], "LLM acts": t[1], "prompt tokens": t[2], "completion tokens": t[3]}
        if all(p is not None for p in prices):
            row["price"] = round(t[2] / 1e6 * prices[0] + t[3] / 1e6 * prices[1], 2)
        rows.append(row)
    header: list = []
    for r in rows:
        header += [k for k in r if k not in header]
    print(format_table(header, [[r.get(k, "") for k in header] for r in rows]))
    line = f"\nall conditions: {total[0]} games, {total[1]} LLM acts, {total[2]} prompt + {total[3]} completion tokens"
    if all(p is not None for p in prices):
        line += f", {total[2] / 1e6 * prices[0] + total[3] / 1e6 * prices[1]:.2f} at the configured prices"
    elif llm is not None:
        line += " (set llm.price_prompt and llm.price_completion, per million tokens, for a price)"
    print(line)
    return 0


def _play_job(task: str, seed: int, agents: dict, options: dict, log_path: str, index: int,
              brain_options: dict) -> dict:
    """One game in a worker process (symbolic runs): the record as a dict."""
    return asdict(play_game(get_task(task), seed, agents, options, log_path=log_path, index=index,
                            brain_options=brain_options))


def _records_by_condition(plans, records: dict, games: int) -> list[list[GameRecord]]:
    return [[GameRecord(**records[(c, i)]) for i in range(games) if (c, i) in records] for c in range(len(plans))]


def print_tables(spec: TaskSpec, manifest: dict, by_condition: list[list[GameRecord]], out_dir: str) -> str:
    """The run's table (one row per condition or partner type), its CSVs and the LLM use table, from records."""
    rows, by_label = [], []
    for cond, records in zip(manifest["conditions"], by_condition):
        sub = os.path.join(out_dir, cond_sub(manifest, cond))
        agents = cond["agents"]
        summary = summary_table(spec, records)
        if manifest.get("kind") == "population" and not any(k.startswith("completed") for k in summary):
            done = sum(1 for r in records if r.results.get("status") == "completed")
            summary["completed %"] = round(100 * done / max(1, len(records)), 1)
        label = agent_label(spec, agents, records)
        columns = dict(cond.get("columns") or [])
        if manifest.get("kind") == "population":
            summary.update(_discipline(spec, records))
            rows.append({**columns, "agents": label, **summary})
        else:
            rows.append({"agents": label, **columns, **summary})
        by_label.append((label + cond.get("suffix", ""), records))
        write_csvs(spec, records, summary, agents, sub)
    name = "population.csv" if manifest.get("kind") == "population" else "conditions.csv"
    path = print_rows(rows, by_label, os.path.join(out_dir, name))
    what = "partner type" if manifest.get("kind") == "population" else "condition"
    print(f"\nsummary CSV (one row per {what}): {path}\nlogs and per-game CSVs: {out_dir}")
    return path


def cond_sub(manifest: dict, cond: dict) -> str:
    return manifest["subdirs"][manifest["conditions"].index(cond)]


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
    """The seats the population's people take (one seat, or several: e.g. both travellers of a mediation)."""
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
