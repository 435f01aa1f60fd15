"""One game played in-process to its end: the same match as on Slurk, driven with embedded brains and, optionally,
a person at a terminal (`ask`). Each game returns a `GameRecord` and can write its JSON-lines log; `play_many`
plays seeded games one after another.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from tasks.core import (
    Abort, Chat, Command, Join, LogEvent, MatchDriver, SeatInfo, TaskSpec, TimerConfig, build_match,
    parse_command_text,
)
from tasks.core import llm_acts as llm_figures

from .eventlog import JsonlRoomLog
from .terminal import QUIT_WORDS, LiveTerminal, PromptLine
from .transcript import Transcript

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


def seat_names(spec: TaskSpec) -> dict[str, str]:
    named = getattr(spec.game_class, "seat_names", None) or {}  # a game may name its seats for people
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
    live: bool = False,
) -> GameRecord:
    """Play one game to the end and return its record. `show` receives transcript lines (None = silent).
    `instance`: play this logged instance instead of generating one from the seed. `live` (a person at a real
    terminal): agents act in threads while the person's lines are read and answered (terminal.py); otherwise each
    agent acts before the next line is asked for, so a scripted `ask` sees the same game every time."""
    options = {"index": index, **(options or {})}
    names = seat_names(spec)
    seats = {s: SeatInfo("person", names[s]) if s in person_seats else SeatInfo("agent", names[s], agents[s])
             for s in spec.seats}
    match, brains = build_match(spec, seed, seats, options=options, instance=instance, llm=llm,
                                timers=LOCAL_TIMERS, brain_options=brain_options)
    clock = time.time
    driver = MatchDriver(match, brains, clock=clock)
    log = JsonlRoomLog(log_path, room_id=f"local-{seed}") if log_path else None
    live = live and bool(person_seats)
    screen = PromptLine(show, _write_out) if live and show is not None and ask is input else None
    transcript = Transcript(names, screen.line if screen else show, viewer=person_seats[0] if person_seats else None)

    def deliver(batch):
        for e in batch:
            if log and isinstance(e, LogEvent):
                log.write(e.event, e.data, receiver_id=e.to, t=clock())
            transcript.show(e)

    try:
        for batch in driver.open(act=not live):
            deliver(batch)
        for seat in person_seats:
            for batch in driver.feed(Join(seat, t=clock()), act=not live):
                deliver(batch)
        if person_seats:
            transcript.line("(type /help for the commands, /quit to leave)")
        if live:
            LiveTerminal(driver, person_seats[0], names, ask, deliver, transcript.line,
                         lambda line: _parse_line(person_seats[0], line, clock(), spec.seats), screen).run()
        while not match.over and not live:
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


def _write_out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


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
