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
"""
from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import math
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from tasks import get_task
from tasks.core import (
    Abort, Action, Chat, Command, GameOver, Join, Leave, LogEvent, Match, MatchDriver, Message, SeatInfo,
    RESULT_KEYS, build_match,
    TimerConfig, TimerFired, View, input_from_json, parse_command_text,
)

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
RUNTIME_EVENTS = frozenset({"agent_note", "seat_map"})
# Slurk UI rows that the transcript does not show (they mirror what the boards already show).
_UI_EVENTS = SLURK_EVENTS - {"join", "leave", "text_message", "image_message", "command"}


# ----------------------------------------------------------------------------------------------------------------
# Data


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
    to: Optional[str] = None  # display name of the only receiver (private), None = everyone
    html: bool = False  # text is HTML written by the game (sanitised when drawn), never people's text
    data: Any = None
    views: list = field(default_factory=list)  # board entries: [(seat, display name, view dict)]
    source: str = "replay"  # "replay": recomputed; "log": only in the log (Slurk rows, codes)


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
            if _is_number(v):
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


class _Skip(Exception):
    def __init__(self, line: Optional[int], message: str):
        super().__init__(message)
        self.line = line
        self.message = message


# ----------------------------------------------------------------------------------------------------------------
# Reading


def find_logs(paths: Iterable[str]) -> tuple[list[str], list[Problem]]:
    files, problems, seen = [], [], set()
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(str(f) for f in path.rglob("*.jsonl") if f.is_file())
            if not found:
                problems.append(Problem(str(path), None, "no *.jsonl logs in this folder"))
        elif path.is_file():
            found = [str(path)]
        else:
            problems.append(Problem(str(path), None, "no such file or folder"))
            found = []
        for f in found:
            key = os.path.realpath(f)
            if key not in seen:
                seen.add(key)
                files.append(f)
    return files, problems


def read_log(path: str) -> tuple[list[tuple[int, dict]], list[Problem]]:
    """(line, row) pairs in log order (by id when every row has a distinct one, else file order). A broken line skips
    the file, except a broken *last* line (a write cut short), which is dropped with a warning so the game shows up
    as incomplete."""
    with open(path, "rb") as fh:
        lines = [(i, raw) for i, raw in enumerate(fh.read().split(b"\n"), 1) if raw.strip()]
    rows: list[tuple[int, dict]] = []
    problems: list[Problem] = []
    for k, (lineno, raw) in enumerate(lines):
        why = None
        try:
            row = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            why = "not UTF-8 text"
        except json.JSONDecodeError as exc:
            why = f"not valid JSON ({exc.msg})"
        else:
            if not isinstance(row, dict) or not isinstance(row.get("event"), str):
                why = "not a log row (no 'event')"
        if why:
            if k == len(lines) - 1 and rows:
                problems.append(Problem(path, lineno, f"{why}; the last line was cut short and is ignored", False))
                break
            raise _Skip(lineno, f"{why}; the whole log is skipped")
        rows.append((lineno, row))
    ids = [r.get("id") for _, r in rows]
    if ids and all(isinstance(i, int) and not isinstance(i, bool) for i in ids) and len(set(ids)) == len(ids):
        rows.sort(key=lambda lr: lr[1]["id"])  # Slurk ids give the true order (timestamps have whole seconds)
    return rows, problems


def _data(row: dict) -> dict:
    d = row.get("data")
    return d if isinstance(d, dict) else {}


def _payload(row: dict) -> dict:
    """A bot event's data as the match produced it (without what the Slurk runtime adds for routing)."""
    return {k: v for k, v in _data(row).items() if k != "receiver_seat"}


# ----------------------------------------------------------------------------------------------------------------
# Replaying


Resolver = Callable[[str], Any]


def replay_file(path: str, resolve: Optional[Resolver] = None) -> tuple[list[GameReplay], list[Problem]]:
    resolve = resolve or get_task
    try:
        rows, problems = read_log(path)
    except _Skip as exc:
        return [], [Problem(path, exc.line, exc.message)]
    except OSError as exc:
        return [], [Problem(path, None, f"cannot read: {exc}")]
    starts = [k for k, (_, r) in enumerate(rows) if r["event"] == "game_start"]
    if not starts:
        first = next(((ln, r) for ln, r in rows if r["event"] in CORE_EVENTS - {"confirmation_log"}), None)
        if first:
            problems.append(Problem(path, first[0], f"'{first[1]['event']}' row without a game_start; the log is skipped"))
        else:
            problems.append(Problem(path, None, "no game in this log (no game_start); skipped"))
        return [], problems
    stray = {k for k, (_, r) in enumerate(rows[:starts[0]]) if r["event"] in CORE_EVENTS}
    for k in sorted(stray):
        problems.append(Problem(path, rows[k][0], f"{rows[k][1]['event']} before the first game_start is ignored",
                                False))
    rows = [lr for k, lr in enumerate(rows) if k not in stray]
    starts = [k for k, (_, r) in enumerate(rows) if r["event"] == "game_start"]
    seat_maps = [(k, _data(r)) for k, (_, r) in enumerate(rows) if r["event"] == "seat_map"]
    games = []
    bounds = [0] + starts[1:] + [len(rows)]
    for n, (a, b) in enumerate(zip(bounds, bounds[1:]), 1):
        segment = rows[a:b]
        end_pos = next((a + k for k, (_, r) in enumerate(segment) if r["event"] == "game_end"), b)
        seat_map = next((m for k, m in reversed(seat_maps) if k <= end_pos), {})
        start_line = rows[starts[n - 1]][0]
        try:
            game, warnings = replay_game(path, n, segment, seat_map, resolve)
        except _Skip as exc:
            problems.append(Problem(path, exc.line or start_line, exc.message))
            continue
        problems += warnings
        games.append(game)
    return games, problems


def replay_game(path: str, index: int, rows: list[tuple[int, dict]], seat_map: dict,
                resolve: Optional[Resolver] = None) -> tuple[GameReplay, list[Problem]]:
    """Rebuild one game from its rows (game_start first, or after a prelude). Raises _Skip when it cannot be trusted."""
    warnings: list[Problem] = []
    start_line, start_row = next((ln, r) for ln, r in rows if r["event"] == "game_start")
    start = start_row.get("data")
    if not isinstance(start, dict) or not isinstance(start.get("task"), str) or not isinstance(start.get("seats"), dict):
        raise _Skip(start_line, "game_start without task and seats; the game is skipped")
    task = start["task"]
    try:
        spec = (resolve or get_task)(task)
    except Exception as exc:  # unknown name, or the task's package is missing or broken
        raise _Skip(start_line, f"game of another or unknown task {task!r} ({type(exc).__name__}: {exc}); skipped")
    options = start.get("options") if isinstance(start.get("options"), dict) else {}
    try:
        seats = {s: SeatInfo(**_known_fields(SeatInfo, info if isinstance(info, dict) else {}))
                 for s, info in start["seats"].items()}
        timers = TimerConfig(**_known_fields(TimerConfig, start.get("timers") or {}))
    except TypeError as exc:
        raise _Skip(start_line, f"game_start with malformed seats or timers ({exc}); skipped")

    g = GameReplay(file=path, index=index, line=start_line, room=start_row.get("room_id"), task=task,
                   seed=start.get("seed"), options=options, seats={s: _known_fields(SeatInfo, i) if isinstance(i, dict)
                                                                     else {} for s, i in start["seats"].items()},
                   seat_map={str(s): u for s, u in seat_map.items()}, spec=spec,
                   columns=tuple(getattr(spec, "per_game_columns", ()) or ()))
    user_seat = {str(u): s for s, u in g.seat_map.items() if u is not None}

    def seat_of(receiver) -> Optional[str]:
        """A seat from a receiver/user id: local logs use seat names, Slurk logs user ids (mapped by seat_map)."""
        if receiver is None:
            return None
        if str(receiver) in g.seats:
            return str(receiver)
        return user_seat.get(str(receiver))

    def receiver_seat(row: dict) -> Optional[str]:
        """The seat a private row was for. The Slurk runtime adds data["receiver_seat"] to private events."""
        named = _data(row).get("receiver_seat")
        return str(named) if named is not None and str(named) in g.seats else seat_of(row.get("receiver_id"))

    # --- the recorded inputs ---------------------------------------------------------------------------------
    by_seq: dict[int, tuple[int, Any, dict]] = {}
    for ln, r in rows:
        if r["event"] != "game_input":
            continue
        d = r.get("data")
        if not isinstance(d, dict) or not isinstance(d.get("seq"), int) or not isinstance(d.get("input"), dict):
            raise _Skip(ln, "game_input without an integer seq and an input object; the game is skipped")
        try:
            inp = input_from_json(d["input"])
        except (ValueError, TypeError) as exc:
            kind = d["input"].get("type")
            raise _Skip(ln, f"game_input of unknown input type {kind!r} ({exc}); the game is skipped")
        seq = d["seq"]
        if seq in by_seq:
            if by_seq[seq][2] == d["input"]:
                warnings.append(Problem(path, ln, f"game_input seq {seq} logged twice (identical; ignored)", False))
                continue
            raise _Skip(ln, f"two different game_input rows with seq {seq}; the game is skipped")
        by_seq[seq] = (ln, inp, d["input"])
    seqs = sorted(by_seq)
    expected = list(range(1, (seqs[-1] if seqs else 0) + 1))
    g.missing_seqs = sorted(set(expected) - set(seqs))
    usable = [s for s in seqs if not g.missing_seqs or s < g.missing_seqs[0]]
    if g.missing_seqs:
        shown = ", ".join(map(str, g.missing_seqs[:10])) + (" ..." if len(g.missing_seqs) > 10 else "")
        after = by_seq[seqs[-1]][0] if usable == seqs else by_seq[next(s for s in seqs if s > g.missing_seqs[0])][0]
        warnings.append(Problem(path, after, f"game {index}: missing game_input seq {shown}; the log is incomplete and "
                                             f"the game is replayed only up to seq {g.missing_seqs[0] - 1}", False))
    g.inputs = len(seqs)

    # --- what the log says happened ---------------------------------------------------------------------------
    end_rows = [(ln, r) for ln, r in rows if r["event"] == "game_end"]
    if end_rows:
        ln, r = end_rows[0]
        d = r.get("data")
        if not isinstance(d, dict) or not isinstance(d.get("results", {}), dict):
            raise _Skip(ln, "game_end without a results object; the game is skipped")
        g.logged_results = dict(d.get("results") or {})
        g.status = str(d.get("status") or g.logged_results.get("status") or "unknown")
        g.incomplete = False
        for ln2, _ in end_rows[1:]:
            warnings.append(Problem(path, ln2, "a second game_end for the same game is ignored", False))
    else:
        warnings.append(Problem(path, rows[-1][0], f"game {index}: no game_end; the game is incomplete", False))
    confirmations = [(ln, r) for ln, r in rows if r["event"] == "confirmation_log"]
    codes_in_order = []
    for ln, r in confirmations:
        d = _data(r)
        code = d.get("confirmation_token") or d.get("amt_token") or d.get("token")
        codes_in_order.append(str(code) if code is not None else "")
        seat = receiver_seat(r)
        if seat is not None:
            g.codes[seat] = str(code)
            if "reward" in d:
                g.rewards[seat] = d["reward"]
    g.agents = _agent_labels(g, options, rows)
    g.seat_order = tuple(getattr(spec, "seats", ()) or ()) or tuple(g.seats)

    # --- replay -----------------------------------------------------------------------------------------------
    codes = iter(codes_in_order)
    try:
        instance = start.get("instance") if isinstance(start.get("instance"), dict) else None
        match, _ = build_match(spec, start.get("seed"), seats, options=options, instance=instance, timers=timers,
                               code_source=lambda: next(codes, "--------"), with_brains=False)
    except Exception as exc:
        raise _Skip(start_line, f"cannot rebuild the {task} game ({type(exc).__name__}: {exc}); skipped")
    driver = MatchDriver(match)
    t0 = _open_time(start_row, [by_seq[s][1] for s in usable], g.logged_results, seats)
    batches: dict[Optional[int], list] = {}
    at = start_line
    try:
        batches[None] = driver.replay([], t0=t0)
        for s in usable:
            at, inp, _ = by_seq[s]
            batches[s] = driver.replay([inp])
    except Exception as exc:  # the engine changed in a way that breaks this log
        g.replay_error = f"{type(exc).__name__}: {exc}"
        warnings.append(Problem(path, at, f"game {index}: the replay failed here: {g.replay_error}", False))
    g.recomputed_status = match.status if match.over else None
    g.recomputed_results = _jsonable(match.results) if match.over else {}
    effects = [e for b in batches.values() for e in b]

    # --- checks -----------------------------------------------------------------------------------------------
    known = CORE_EVENTS | RUNTIME_EVENTS | SLURK_EVENTS | OTHER_BOT_EVENTS | {
        e.event for e in effects if isinstance(e, LogEvent)}
    for ln, r in rows:
        if r["event"] in known:
            continue
        if r.get("user_id") is None and not g.missing_seqs and not g.replay_error:
            raise _Skip(ln, f"unknown event {r['event']!r} (not Slurk's, not the match's, not the {task} task's); "
                            "the game is skipped")
        warnings.append(Problem(path, ln, f"unknown event {r['event']!r} ignored", False))

    if not g.replay_error and not g.missing_seqs:
        g.mismatches = _check(g, rows, effects, match, receiver_seat, start)
    elif g.logged_results is not None and g.missing_seqs:
        g.notes.append("results not compared: inputs are missing from the log")
    if g.incomplete and match.over:
        g.notes.append(f"the replay ended the game ({match.status}) but the log has no game_end")

    # --- table values -----------------------------------------------------------------------------------------
    if g.logged_results is not None:
        g.results = dict(g.logged_results)
    elif match.over:
        g.results = dict(g.recomputed_results)
    else:
        try:
            g.results = _jsonable(match.game.results()) if match.phase in ("playing", "over") else {}
        except Exception:
            g.results = {}
    g.turns = _turns(g.results, [by_seq[s][1] for s in seqs])
    g.duration = _duration(g, rows, [by_seq[s][1] for s in seqs], match)
    g.timeline = _timeline(g, rows, batches, by_seq, seat_of, receiver_seat)
    return g, warnings


def _known_fields(cls, d: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


def _agent_labels(g: GameReplay, options: dict, rows) -> dict:
    """seat -> agent name: from options["agents"], the seat record, or agent_note rows; else the seat kind."""
    from_options = options.get("agents") if isinstance(options.get("agents"), dict) else {}
    from_notes = {}
    for _, r in rows:
        if r["event"] == "agent_note":
            d = _data(r)
            if d.get("seat") and d.get("brain"):
                from_notes.setdefault(str(d["seat"]), str(d["brain"]))
    out = {}
    for s, info in g.seats.items():
        out[s] = str(from_options.get(s) or info.get("agent") or from_notes.get(s) or info.get("kind") or "?")
    return out


def _open_time(start_row: dict, inputs: list, logged: Optional[dict], seats: dict) -> float:
    """When the match was opened. Not logged exactly (date_created has whole seconds), but games without people start
    at opening, so the last input's time minus the logged duration gives it; else the first input's time."""
    ts = [i.t for i in inputs if getattr(i, "t", 0)]
    duration = (logged or {}).get("duration")
    if ts and _is_number(duration) and not any(i.kind == "person" for i in seats.values()):
        return ts[-1] - float(duration)
    if ts:
        return min(ts)
    when = _parse_date(start_row.get("date_created"))
    return when if when is not None else 0.0


def _parse_date(value) -> Optional[float]:
    if not isinstance(value, str):
        return None
    try:
        d = _dt.datetime.fromisoformat(value.strip().replace("Z", ""))
    except ValueError:
        return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=_dt.timezone.utc)
    return d.timestamp()


def _turns(results: dict, inputs: list) -> int:
    t = results.get("turns")
    if _is_number(t):
        return int(t)
    if isinstance(t, dict) and t and all(_is_number(v) for v in t.values()):
        return int(sum(t.values()))
    return sum(1 for i in inputs if isinstance(i, (Chat, Command, Action)) and getattr(i, "turn", True))


def _duration(g: GameReplay, rows, inputs, match) -> Optional[float]:
    d = (g.logged_results or {}).get("duration")
    if _is_number(d):
        return round(float(d), 3)
    d = match.results.get("duration") if match.over else None
    if _is_number(d) and match.started_at:
        return round(float(d), 3)
    ts = [i.t for i in inputs if getattr(i, "t", 0)]
    if len(ts) >= 2:
        return round(max(ts) - min(ts), 3)
    dates = [x for x in (_parse_date(r.get("date_created")) for _, r in rows) if x is not None]
    return round(max(dates) - min(dates), 3) if len(dates) >= 2 else None


# ----------------------------------------------------------------------------------------------------------------
# Comparing


def compare(logged, recomputed, path: str = "") -> list[str]:
    """Differences as "key: logged X, recomputed Y". Volatile keys are ignored; numbers compare with a tolerance."""
    out: list[str] = []
    if isinstance(logged, dict) and isinstance(recomputed, dict):
        for k in list(logged) + [k for k in recomputed if k not in logged]:
            if str(k) in VOLATILE_KEYS:
                continue
            key = f"{path}.{k}" if path else str(k)
            if k not in recomputed:
                out.append(f"{key}: logged {_show(logged[k])}, recomputed (missing)")
            elif k not in logged:
                if not path and k in RESULT_KEYS and recomputed[k] in (None, 0, {}):
                    continue  # a schema key that logs from before the schema lack, at its neutral default
                out.append(f"{key}: logged (missing), recomputed {_show(recomputed[k])}")
            else:
                out += compare(logged[k], recomputed[k], key)
        return out
    if isinstance(logged, (list, tuple)) and isinstance(recomputed, (list, tuple)):
        if len(logged) != len(recomputed):
            return [f"{path or 'value'}: logged {_show(logged)}, recomputed {_show(recomputed)}"]
        for i, (a, b) in enumerate(zip(logged, recomputed)):
            out += compare(a, b, f"{path}[{i}]")
        return out
    if _is_number(logged) and _is_number(recomputed):
        if math.isclose(float(logged), float(recomputed), rel_tol=REL_TOL, abs_tol=ABS_TOL):
            return []
    elif logged == recomputed and type(logged) is type(recomputed):
        return []
    return [f"{path or 'value'}: logged {_show(logged)}, recomputed {_show(recomputed)}"]


def _check(g: GameReplay, rows, effects, match: Match, receiver_seat, start: dict) -> list[str]:
    out: list[str] = []
    # The instance: a changed generator would replay a different board.
    try:
        out += compare(start.get("instance"), _jsonable(match.game.instance()), "instance")
    except Exception as exc:
        out.append(f"instance: cannot recompute ({type(exc).__name__}: {exc})")
    # Status and results.
    if g.logged_results is not None:
        logged = {"status": g.status, **{k: v for k, v in g.logged_results.items() if k != "status"}}
        if not match.over:
            out.append(f"status: logged {_show(g.status)}, recomputed (game not over: are inputs missing at the end "
                       f"of the log?)")
        else:
            recomputed = {"status": match.status, **{k: v for k, v in g.recomputed_results.items() if k != "status"}}
            out += compare(logged, recomputed)
    # Completion codes: status text and reward per seat (the codes themselves are random).
    recomputed_conf = {e.to: e.data for e in effects if isinstance(e, LogEvent) and e.event == "confirmation_log"}
    logged_conf = {}
    for _, r in rows:
        if r["event"] == "confirmation_log":
            seat = receiver_seat(r)
            logged_conf[seat if seat is not None else f"receiver {r.get('receiver_id')}"] = _payload(r)
    for seat in sorted(set(logged_conf) | set(recomputed_conf), key=str):
        a, b = logged_conf.get(seat), recomputed_conf.get(seat)
        if a is None or b is None:
            out.append(f"confirmation_log[{seat}]: logged {'(missing)' if a is None else 'a code'}, "
                       f"recomputed {'(missing)' if b is None else 'a code'}")
            continue
        for key in ("status_txt", "reward"):
            if key in a or key in b:
                out += compare({key: a.get(key)}, {key: b.get(key)}, f"confirmation_log[{seat}]")
    # Rejections and task events, in order per event name (errors by count: their traces are volatile).
    skip = {"game_start", "game_input", "game_end", "confirmation_log", "error"} | RUNTIME_EVENTS
    recomputed_events: dict[str, list] = {}
    for e in effects:
        if isinstance(e, LogEvent) and e.event not in skip:
            recomputed_events.setdefault(e.event, []).append(_jsonable(e.data))
    logged_events: dict[str, list] = {}
    for _, r in rows:
        ev = r["event"]
        if ev in recomputed_events or (ev not in skip and ev not in SLURK_EVENTS and ev not in OTHER_BOT_EVENTS):
            logged_events.setdefault(ev, []).append(_payload(r))
    for ev in sorted(set(logged_events) | set(recomputed_events)):
        a, b = logged_events.get(ev, []), recomputed_events.get(ev, [])
        if len(a) != len(b):
            out.append(f"{ev} events: logged {len(a)}, recomputed {len(b)}")
        else:
            for i, (x, y) in enumerate(zip(a, b), 1):
                out += compare(x, y, f"{ev} #{i}")
    n_err_logged = sum(1 for _, r in rows if r["event"] == "error")
    n_err = sum(1 for e in effects if isinstance(e, LogEvent) and e.event == "error")
    if n_err_logged != n_err:
        out.append(f"error events: logged {n_err_logged}, recomputed {n_err}")
    if len(out) > MAX_MISMATCHES:
        out = out[:MAX_MISMATCHES] + [f"... and {len(out) - MAX_MISMATCHES} more differences"]
    return out


def _show(v) -> str:
    if v is None:
        return "null"
    s = v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)
    return s if len(s) <= 80 else s[:77] + "..."


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))


def _jsonable(v):
    """What a value looks like after a trip through the log (tuples -> lists, keys -> strings)."""
    return json.loads(json.dumps(v, default=str))


# ----------------------------------------------------------------------------------------------------------------
# Transcript timeline


_TAG = re.compile(r"<[^>]*>")


def _plain(text) -> str:
    import html as _html

    return " ".join(_html.unescape(_TAG.sub(" ", str(text))).split())


def _timeline(g: GameReplay, rows, batches: dict, by_seq: dict, seat_of, receiver_seat) -> list[Entry]:
    out: list[Entry] = []
    last_view: dict[str, dict] = {}
    # Slurk rows that repeat a game input or a game-master message are shown once (from the replay).
    chat_pool: dict[tuple, int] = {}
    cmd_pool: dict[tuple, int] = {}
    gm_pool: dict[tuple, int] = {}
    for seq, (_, inp, _) in by_seq.items():
        if isinstance(inp, Chat):
            _bump(chat_pool, (inp.seat, inp.text))
        elif isinstance(inp, Command):
            _bump(cmd_pool, (inp.seat, json.dumps([inp.name, list(inp.args)])))
        elif isinstance(inp, Action):
            _bump(cmd_pool, (inp.seat, json.dumps(inp.payload, sort_keys=True)))
    for batch in batches.values():
        for e in batch:
            if isinstance(e, Message):
                _bump(gm_pool, (e.to, _plain(e.text)))
    seq_of_line = {ln: seq for seq, (ln, _, _) in by_seq.items()}

    def effects_entries(batch, line, step):
        views: dict[str, dict] = {}
        for e in batch:
            if isinstance(e, Message):
                kind = "rejection" if e.kind == "error" else "gm"
                out.append(Entry(kind, line, step, seat=e.to, who="game master", text=e.text,
                                 to=None if e.to is None else g.display(e.to), html=e.html))
            elif isinstance(e, View):
                views[e.seat] = e.data
            elif isinstance(e, LogEvent):
                if e.event == "error":
                    out.append(Entry("error", line, step, seat=e.data.get("seat"), text=str(e.data.get("error", "")),
                                     data=e.data.get("trace")))
                elif e.event not in ("game_input", "game_start", "game_end", "move_rejected", "confirmation_log"):
                    out.append(Entry("event", line, step, text=e.event, data=_jsonable(e.data),
                                     to=None if e.to is None else g.display(e.to)))
            elif isinstance(e, GameOver) and g.incomplete:
                out.append(Entry("end", line, step, text=e.status, data=_jsonable(e.results), source="replay"))
        changed = []
        for seat in g.seat_order:
            if seat in views and views[seat] != last_view.get(seat):
                last_view[seat] = views[seat]
                changed.append((seat, g.display(seat), views[seat]))
        if changed:
            out.append(Entry("board", line, step, views=changed))

    for ln, r in rows:
        ev = r["event"]
        d = _data(r)
        uid = r.get("user_id")
        if ev == "game_start":
            out.append(Entry("info", ln, text=f"game {g.index} starts: {g.task}, seed {g.seed}", source="log"))
            effects_entries(batches.get(None, []), ln, 0)
        elif ev == "game_input":
            seq = seq_of_line.get(ln)
            if seq is None or seq not in batches:
                inp = by_seq.get(d.get("seq"), (None, None, None))[1] if seq is not None else None
                out.append(Entry("input_lost", ln, seq, text=_describe_input(g, inp) if inp else "(duplicate)",
                                 source="log"))
                continue
            inp = by_seq[seq][1]
            out.append(_input_entry(g, inp, ln, seq))
            effects_entries(batches[seq], ln, seq)
        elif ev == "game_end":
            out.append(Entry("end", ln, text=str(d.get("status")), data=d.get("results"), source="log"))
        elif ev == "confirmation_log":
            seat = receiver_seat(r)
            who = g.display(seat) if seat else f"user {r.get('receiver_id')}"
            code = d.get("confirmation_token") or d.get("amt_token") or d.get("token")
            extra = f", reward {d['reward']}" if "reward" in d else ""
            out.append(Entry("code", ln, seat=seat, who=who, to=who, source="log",
                             text=f"completion code {code} ({d.get('status_txt', '?')}{extra})"))
        elif ev == "agent_note":
            seat = d.get("seat")
            out.append(Entry("note", ln, seat=seat, who=g.display(seat) if seat in g.seats else str(seat),
                             text=str(d.get("kind", "note")), data=d, source="log"))
        elif ev == "seat_map":
            text = ", ".join(f"{g.display(s)} = user {u}" for s, u in d.items())
            out.append(Entry("info", ln, text=f"seats: {text}", source="log"))
        elif ev in ("join", "leave"):
            seat = seat_of(uid)
            who = g.display(seat) if seat else f"user {uid}"
            out.append(Entry(ev, ln, seat=seat, who=who, text=f"{who} {'joined' if ev == 'join' else 'left'} the room",
                             source="log"))
        elif ev == "text_message":
            seat = seat_of(uid)
            text = d.get("message", "")
            text = text if isinstance(text, str) else json.dumps(text)
            receiver = seat_of(r.get("receiver_id"))
            to = None if r.get("receiver_id") is None else (
                g.display(receiver) if receiver else f"user {r.get('receiver_id')}")
            if seat is not None and _take(chat_pool, (seat, text)):
                continue
            if seat is None and (_take(gm_pool, (receiver, _plain(text))) or _take_relayed(g, chat_pool, text)):
                continue
            # A room member who holds no seat and posts is a bot (the task bot, or one that shares the room).
            who = g.display(seat) if seat else (f"bot (user {uid})" if uid is not None else "server")
            out.append(Entry("chat" if seat else "gm", ln, seat=seat, who=who, text=text, to=to,
                             html=bool(d.get("html")) and seat is None, source="log"))
        elif ev == "command":
            seat = seat_of(uid)
            cmd = d.get("command")
            if seat is not None:
                key = (json.dumps(list(_cmd_key(cmd))) if isinstance(cmd, str)
                       else json.dumps(cmd, sort_keys=True))
                if _take(cmd_pool, (seat, key)):
                    continue
            who = g.display(seat) if seat else f"user {uid}"
            text = "/" + cmd if isinstance(cmd, str) else json.dumps(cmd, sort_keys=True)
            out.append(Entry("command", ln, seat=seat, who=who, text=text, source="log",
                             to=None if r.get("receiver_id") is None else str(r.get("receiver_id"))))
        elif ev == "image_message":
            seat = seat_of(uid)
            out.append(Entry("chat", ln, seat=seat, who=g.display(seat) if seat else f"user {uid}",
                             text=f"[image] {d.get('url', '')}", source="log"))
    g.final_views = dict(last_view)
    return out


def _cmd_key(text: str) -> tuple:
    name, args = parse_command_text(text)
    return name, list(args)


def _bump(pool: dict, key) -> None:
    pool[key] = pool.get(key, 0) + 1


def _take(pool: dict, key) -> bool:
    if pool.get(key, 0) > 0:
        pool[key] -= 1
        return True
    return False


def _take_relayed(g: GameReplay, pool: dict, text: str) -> bool:
    """A chat line the bot posted for a seat: an agent's line shown as "Name: text", or an impersonated message
    (Slurk logs the real sender, the bot)."""
    for (seat, said), n in pool.items():
        if n <= 0:
            continue
        name = (g.seats.get(seat) or {}).get("name") or seat
        if text in (said, f"{name}: {said}", f"{seat}: {said}"):
            pool[(seat, said)] -= 1
            return True
    return False


def _describe_input(g: GameReplay, inp) -> str:
    return _input_entry(g, inp, None, None).text


def _input_entry(g: GameReplay, inp, line, seq) -> Entry:
    seat = getattr(inp, "seat", None)
    who = g.display(seat) if seat else ""
    if isinstance(inp, Chat):
        return Entry("chat", line, seq, seat, who, inp.text)
    if isinstance(inp, Command):
        return Entry("command", line, seq, seat, who, ("/" + " ".join((inp.name, *inp.args))).rstrip())
    if isinstance(inp, Action):
        return Entry("action", line, seq, seat, who, json.dumps(inp.payload, sort_keys=True))
    if isinstance(inp, Join):
        return Entry("join", line, seq, seat, who, f"{who} joined the game")
    if isinstance(inp, Leave):
        return Entry("leave", line, seq, seat, who, f"{who} left the game")
    if isinstance(inp, TimerFired):
        return Entry("timer", line, seq, text=f"timer {inp.name} fired")
    if isinstance(inp, Abort):
        return Entry("abort", line, seq, text=f"game aborted ({inp.status})" + (f": {inp.reason}" if inp.reason else ""))
    return Entry("info", line, seq, text=repr(inp))


# ----------------------------------------------------------------------------------------------------------------
# Outputs


BASE_COLUMNS = ["file", "game", "room", "task", "seed", "seats", "agents", "status", "check"]
TAIL_COLUMNS = ["turns", "inputs", "duration", "codes", "bonus", "bonus_total", "mismatches", "transcript"]


def summary_columns(games: list[GameReplay]) -> list[str]:
    cols: list[str] = []
    for g in games:
        for c in g.columns:
            if c not in cols and c not in BASE_COLUMNS and c not in TAIL_COLUMNS and c != "status":
                cols.append(c)
    return BASE_COLUMNS + cols + TAIL_COLUMNS


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
    return row


def _cell(v):
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True)
    return "" if v is None else v


def write_summary(games: list[GameReplay], path: str) -> list[str]:
    cols = summary_columns(games)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for g in games:
            row = summary_row(g)
            w.writerow([_cell(row.get(c)) for c in cols])
    return cols


def agent_groups(games: list[GameReplay]) -> dict[str, list[GameReplay]]:
    """Games grouped by agent pair (per task when there are several tasks)."""
    tasks = {g.task for g in games}
    groups: dict[str, list[GameReplay]] = {}
    for g in games:
        label = g.agent_label if len(tasks) == 1 else f"{g.task}: {g.agent_label}"
        groups.setdefault(label, []).append(g)
    return groups


def by_agents_table(games: list[GameReplay]) -> tuple[list[str], list[list]]:
    """Per agent pair: games, completion, the task's own summary (TaskSpec.summarize) of the finished games, bonus."""
    header = ["agents", "games", "completed", "incomplete", "mismatches", "bonus_total"]
    extra: list[str] = []
    rows = []
    for label, gs in agent_groups(games).items():
        finished = [g.results for g in gs if not g.incomplete]
        task_summary = {}
        spec = gs[0].spec
        if getattr(spec, "summarize", None) and finished:
            try:
                task_summary = dict(spec.summarize(finished))
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

    out: dict[str, str] = {}
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
    out.update(current)
    return out


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_.") or "game"


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
    os.makedirs(out, exist_ok=True)
    stems = file_stems(sorted({g.file for g in games}))
    for g in games:
        g.name = f"{stems[g.file]}-{g.index}"
        if html_out:
            from .transcript import write_transcript

            g.transcript = os.path.join(out, g.name + ".html")
            write_transcript(g, g.transcript)
    if games:
        report.summary_csv = os.path.join(out, "summary.csv")
        write_summary(games, report.summary_csv)
        header, rows = by_agents_table(games)
        with open(os.path.join(out, "by_agents.csv"), "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            w.writerows([[_cell(c) for c in r] for r in rows])
    with open(os.path.join(out, "problems.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "line", "skipped", "problem"])
        w.writerows([[p.file, p.line or "", "yes" if p.skipped else "no", p.message] for p in problems])
    if plots and games:
        from .plots import write_plots

        report.plots = write_plots(games, os.path.join(out, "plots"))
    if echo:
        echo(format_report(report))
    return report


def format_report(report: ReplayReport) -> str:
    from bots.local import format_table

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
            rows.append([f"{g.file}#{g.index}", g.agent_label, g.status, *[r.get(c) for c in metric_cols],
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


def build_parser(prog: str = "run_bot.sh replay") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Rebuild logged games (Slurk downloads or local runs), check "
                                                       "their results, and write transcripts, a summary and plots.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="log files or folders (searched recursively for *.jsonl)")
    p.add_argument("--out", default="replay-out", help="output folder (default: replay-out)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    report = replay_paths(args.paths, args.out, plots=not args.no_plots)
    if not report.files:
        return 2
    return 0 if report.ok else 1
