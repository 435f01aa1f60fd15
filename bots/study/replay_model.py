"""What `replay` works with: the records of a replayed game (`GameReplay`, its transcript `Entry` lines), problems
found in logs, the report, the event names it knows, and the keys and tolerances of the comparison.

This module imports nothing from the other replay modules, so every one of them (and transcript.py, plots.py) can
import it.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Optional

# Keys (at any depth of results and events) that legitimately differ between the original run and a replay: wall-clock
# times, which depend on when the match was opened (not logged exactly), and LLM usage, filled in by the runtime.
VOLATILE_KEYS = frozenset({"duration", "time", "t", "t_start", "elapsed", "wall_time", "tokens", "usage", "cost"})
REL_TOL = 1e-6
ABS_TOL = 1e-9
MAX_MISMATCHES = 30  # per game; the rest is counted

# Rows that Slurk itself writes (see the protocol reference, section 5). Known, used for the transcript.
SLURK_EVENTS = frozenset({
    "connect", "disconnect", "join", "leave", "text_message", "image_message", "command", "set_attribute",
    "delete_attribute", "remove_attribute", "set_text", "class_add", "class_remove", "mouse", "keystroke",
    "bounding_box", "typing", "start_typing", "stop_typing", "typed_message", "status", "openvidu",
})
# Events that other slurk-bots post into rooms. Known (not ours), ignored.
OTHER_BOT_EVENTS = frozenset({
    "round", "turn", "clue", "guess", "correct guess", "false guess", "invalid clue", "player", "target grid",
    "grid type", "players", "target word", "difficulty level", "invalid format", "max turns reached", "survey_result",
})
# What the match core logs, and what our runtimes add around it.
CORE_EVENTS = frozenset({"game_start", "game_input", "game_end", "move_rejected", "error", "confirmation_log"})
RUNTIME_EVENTS = frozenset({"agent_note", "seat_map", "input_refused"})


@dataclass
class Problem:
    """Something wrong with a log. `skipped`: the file or game was left out; otherwise it was kept with a caveat."""

    file: str
    line: Optional[int]
    message: str
    skipped: bool = True

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {'skipped: ' if self.skipped else ''}{self.message}"


class LogSkipped(Exception):
    """A log or game that cannot be trusted: it is reported at `line` and left out."""

    def __init__(self, line: Optional[int], message: str):
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass
class Entry:
    """One line of a transcript, in log order. `kind` decides how it is drawn (see transcript.py)."""

    kind: str  # chat, command, action, gm, rejection, event, board, join, leave, timer, abort, note, code, end,
    #            error, info, input_lost
    line: Optional[int] = None
    step: Optional[int] = None  # the game_input seq this entry belongs to
    seat: Optional[str] = None  # who acted / who the entry is about
    who: str = ""  # display name of the actor
    text: str = ""
    to: Optional[str] = None  # display name(s) of the receivers of a private or addressed line, None = everyone
    html: bool = False  # text is HTML written by the game (sanitised when drawn), never people's text
    data: Any = None
    views: list = field(default_factory=list)  # board entries: [(seat, display name, view dict)]
    source: str = "replay"  # "replay": recomputed; "log": only in the log (Slurk rows, codes)
    seen_by: Optional[tuple] = None  # the seats that saw a private or addressed line; None = not restricted

    def seen_by_seat(self, seat: str) -> bool:
        return self.seen_by is None or seat in self.seen_by


@dataclass
class GameReplay:
    file: str
    index: int  # 1-based, per file
    line: int  # line of game_start
    name: str = ""  # output stem: <room-or-file>-<n>
    room: Any = None
    task: str = ""
    seed: Any = None
    options: dict = field(default_factory=dict)
    seats: dict = field(default_factory=dict)  # seat -> {kind, name, agent}
    seat_order: tuple = ()
    seat_map: dict = field(default_factory=dict)  # seat -> Slurk user id
    agents: dict = field(default_factory=dict)  # seat -> agent name, or the seat kind
    columns: tuple = ()  # the task's per_game_columns
    status: str = "incomplete"  # logged status, or "incomplete"
    logged_results: Optional[dict] = None
    recomputed_status: Optional[str] = None
    recomputed_results: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)  # what the table shows: logged, else recomputed so far
    mismatches: list = field(default_factory=list)
    notes: list = field(default_factory=list)  # caveats shown with the check
    incomplete: bool = True
    missing_seqs: list = field(default_factory=list)
    replay_error: Optional[str] = None
    codes: dict = field(default_factory=dict)  # seat -> completion code (from confirmation_log)
    rewards: dict = field(default_factory=dict)  # seat -> reward from confirmation_log
    turns: Optional[int] = None
    inputs: int = 0
    duration: Optional[float] = None
    timeline: list = field(default_factory=list)
    final_views: dict = field(default_factory=dict)  # seat -> last view
    transcript: Optional[str] = None
    spec: Any = None

    @property
    def check(self) -> str:
        if self.replay_error:
            return "replay error"
        if self.mismatches:
            return f"mismatch ({len(self.mismatches)})"
        if self.missing_seqs:
            return "incomplete (missing inputs)"
        if self.incomplete:
            return "incomplete"
        return "ok"

    @property
    def bonus(self) -> dict:
        """Bonus owed per person seat (the task's payment rule: results["bonus"]; the reward promised in the seat's
        confirmation_log wins when both exist). Agent seats are never paid."""
        b = self.results.get("bonus") if isinstance(self.results.get("bonus"), dict) else {}
        out = {}
        for s, info in self.seats.items():
            if info.get("kind") != "person":
                continue
            v = self.rewards.get(s, b.get(s))
            if is_number(v):
                out[s] = v
        return out

    @property
    def bonus_total(self) -> float:
        return round(sum(float(v) for v in self.bonus.values()), 6)

    @property
    def agent_label(self) -> str:
        return "/".join(str(self.agents.get(s, "?")) for s in self.seat_order)

    def display(self, seat: Optional[str]) -> str:
        if seat is None:
            return "everyone"
        info = self.seats.get(seat) or {}
        name = info.get("name") or seat
        return name if name.lower() == str(seat).lower().replace("_", " ") else f"{name} ({seat})"

    def is_person(self, seat: Optional[str]) -> bool:
        return (self.seats.get(seat) or {}).get("kind") == "person"


@dataclass
class ReplayReport:
    games: list[GameReplay]
    problems: list[Problem]
    out: str
    files: list[str] = field(default_factory=list)
    summary_csv: Optional[str] = None
    plots: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.files) and not any(p.skipped for p in self.problems) and all(
            g.check in ("ok", "incomplete") for g in self.games)


def agent_groups(games: list[GameReplay]) -> dict[str, list[GameReplay]]:
    """Games grouped by agent pair (per task when there are several tasks)."""
    tasks = {g.task for g in games}
    groups: dict[str, list[GameReplay]] = {}
    for g in games:
        label = g.agent_label if len(tasks) == 1 else f"{g.task}: {g.agent_label}"
        groups.setdefault(label, []).append(g)
    return groups


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))


def as_logged(v):
    """What a value looks like after a trip through the log (tuples -> lists, keys -> strings)."""
    return json.loads(json.dumps(v, default=str))
