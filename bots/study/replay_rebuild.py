"""Rebuilding logged games: every `game_start` opens a game, which is rebuilt from its recorded inputs
(`game_input` rows, in `seq` order) with the task's own engine (`tasks.core.build_match`), checked against the log
(replay_compare) and turned into a transcript (replay_timeline)."""
from __future__ import annotations

import datetime as _dt
from dataclasses import fields
from typing import Any, Callable, Optional

from tasks import get_task
from tasks.core import (
    Action, Chat, Command, LogEvent, MatchDriver, SeatInfo, TimerConfig, build_match, input_from_json,
)

from .replay_compare import check_game
from .replay_model import (
    CORE_EVENTS, OTHER_BOT_EVENTS, RUNTIME_EVENTS, SLURK_EVENTS, GameReplay, LogSkipped, Problem, as_logged, is_number,
)
from .replay_reading import completion_code, read_log, row_data
from .replay_timeline import build_timeline

Resolver = Callable[[str], Any]


def replay_file(path: str, resolve: Optional[Resolver] = None) -> tuple[list[GameReplay], list[Problem]]:
    """Every game in one log file, and the problems found. `resolve` maps a task name to its TaskSpec."""
    resolve = resolve or get_task
    try:
        rows, problems = read_log(path)
    except LogSkipped as exc:
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
    seat_maps = [(k, row_data(r)) for k, (_, r) in enumerate(rows) if r["event"] == "seat_map"]
    games = []
    bounds = [0] + starts[1:] + [len(rows)]
    for n, (a, b) in enumerate(zip(bounds, bounds[1:]), 1):
        segment = rows[a:b]
        end_pos = next((a + k for k, (_, r) in enumerate(segment) if r["event"] == "game_end"), b)
        seat_map = next((m for k, m in reversed(seat_maps) if k <= end_pos), {})
        start_line = rows[starts[n - 1]][0]
        try:
            game, warnings = replay_game(path, n, segment, seat_map, resolve)
        except LogSkipped as exc:
            problems.append(Problem(path, exc.line or start_line, exc.message))
            continue
        problems += warnings
        games.append(game)
    return games, problems


def replay_game(path: str, index: int, rows: list[tuple[int, dict]], seat_map: dict,
                resolve: Optional[Resolver] = None) -> tuple[GameReplay, list[Problem]]:
    """Rebuild one game from its rows (game_start first, or after a prelude). Raises LogSkipped when it cannot be
    trusted."""
    warnings: list[Problem] = []
    start_line, start_row = next((ln, r) for ln, r in rows if r["event"] == "game_start")
    start = start_row.get("data")
    if not isinstance(start, dict) or not isinstance(start.get("task"), str) or not isinstance(start.get("seats"), dict):
        raise LogSkipped(start_line, "game_start without task and seats; the game is skipped")
    task = start["task"]
    try:
        spec = (resolve or get_task)(task)
    except Exception as exc:  # unknown name, or the task's package is missing or broken
        raise LogSkipped(start_line, f"game of another or unknown task {task!r} ({type(exc).__name__}: {exc}); skipped")
    options = start.get("options") if isinstance(start.get("options"), dict) else {}
    try:
        seats = {s: SeatInfo(**_known_fields(SeatInfo, info if isinstance(info, dict) else {}))
                 for s, info in start["seats"].items()}
        timers = TimerConfig(**_known_fields(TimerConfig, start.get("timers") or {}))
    except TypeError as exc:
        raise LogSkipped(start_line, f"game_start with malformed seats or timers ({exc}); skipped")

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
        named = row_data(row).get("receiver_seat")
        return str(named) if named is not None and str(named) in g.seats else seat_of(row.get("receiver_id"))

    by_seq = _recorded_inputs(g, path, rows, warnings)
    seqs = sorted(by_seq)
    usable = [s for s in seqs if not g.missing_seqs or s < g.missing_seqs[0]]
    _read_outcome(g, path, rows, warnings, receiver_seat)
    g.agents = _agent_labels(g, options, rows)
    g.seat_order = tuple(getattr(spec, "seats", ()) or ()) or tuple(g.seats)

    # --- replay -----------------------------------------------------------------------------------------------
    codes = iter([str(c) if c is not None else "" for c in
                  (completion_code(row_data(r)) for _, r in rows if r["event"] == "confirmation_log")])
    try:
        instance = start.get("instance") if isinstance(start.get("instance"), dict) else None
        match, _ = build_match(spec, start.get("seed"), seats, options=options, instance=instance, timers=timers,
                               code_source=lambda: next(codes, "--------"), with_brains=False)
    except Exception as exc:
        raise LogSkipped(start_line, f"cannot rebuild the {task} game ({type(exc).__name__}: {exc}); skipped")
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
    g.recomputed_results = as_logged(match.results) if match.over else {}
    effects = [e for b in batches.values() for e in b]

    # --- checks -----------------------------------------------------------------------------------------------
    known = CORE_EVENTS | RUNTIME_EVENTS | SLURK_EVENTS | OTHER_BOT_EVENTS | {
        e.event for e in effects if isinstance(e, LogEvent)}
    for ln, r in rows:
        if r["event"] in known:
            continue
        if r.get("user_id") is None and not g.missing_seqs and not g.replay_error:
            raise LogSkipped(ln, f"unknown event {r['event']!r} (not Slurk's, not the match's, not the {task} task's); "
                                 "the game is skipped")
        warnings.append(Problem(path, ln, f"unknown event {r['event']!r} ignored", False))

    if not g.replay_error and not g.missing_seqs:
        g.mismatches = check_game(g, rows, effects, match, receiver_seat, start)
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
            g.results = as_logged(match.game.results()) if match.phase in ("playing", "over") else {}
        except Exception:
            g.results = {}
    g.turns = _turns(g.results, [by_seq[s][1] for s in seqs])
    g.duration = _duration(g, rows, [by_seq[s][1] for s in seqs], match)
    g.timeline = build_timeline(g, rows, batches, by_seq, seat_of, receiver_seat)
    return g, warnings


def _recorded_inputs(g: GameReplay, path: str, rows, warnings: list) -> dict[int, tuple[int, Any, dict]]:
    """seq -> (line, input, input JSON) of the game_input rows; sets g.missing_seqs and g.inputs."""
    by_seq: dict[int, tuple[int, Any, dict]] = {}
    for ln, r in rows:
        if r["event"] != "game_input":
            continue
        d = r.get("data")
        if not isinstance(d, dict) or not isinstance(d.get("seq"), int) or not isinstance(d.get("input"), dict):
            raise LogSkipped(ln, "game_input without an integer seq and an input object; the game is skipped")
        try:
            inp = input_from_json(d["input"])
        except (ValueError, TypeError) as exc:
            kind = d["input"].get("type")
            raise LogSkipped(ln, f"game_input of unknown input type {kind!r} ({exc}); the game is skipped")
        seq = d["seq"]
        if seq in by_seq:
            if by_seq[seq][2] == d["input"]:
                warnings.append(Problem(path, ln, f"game_input seq {seq} logged twice (identical; ignored)", False))
                continue
            raise LogSkipped(ln, f"two different game_input rows with seq {seq}; the game is skipped")
        by_seq[seq] = (ln, inp, d["input"])
    seqs = sorted(by_seq)
    expected = list(range(1, (seqs[-1] if seqs else 0) + 1))
    g.missing_seqs = sorted(set(expected) - set(seqs))
    if g.missing_seqs:
        usable = [s for s in seqs if s < g.missing_seqs[0]]
        shown = ", ".join(map(str, g.missing_seqs[:10])) + (" ..." if len(g.missing_seqs) > 10 else "")
        after = by_seq[seqs[-1]][0] if usable == seqs else by_seq[next(s for s in seqs if s > g.missing_seqs[0])][0]
        warnings.append(Problem(path, after, f"game {g.index}: missing game_input seq {shown}; the log is incomplete "
                                             f"and the game is replayed only up to seq {g.missing_seqs[0] - 1}", False))
    g.inputs = len(seqs)
    return by_seq


def _read_outcome(g: GameReplay, path: str, rows, warnings: list, receiver_seat) -> None:
    """What the log says happened: status and results (game_end), completion codes and rewards (confirmation_log)."""
    end_rows = [(ln, r) for ln, r in rows if r["event"] == "game_end"]
    if end_rows:
        ln, r = end_rows[0]
        d = r.get("data")
        if not isinstance(d, dict) or not isinstance(d.get("results", {}), dict):
            raise LogSkipped(ln, "game_end without a results object; the game is skipped")
        g.logged_results = dict(d.get("results") or {})
        g.status = str(d.get("status") or g.logged_results.get("status") or "unknown")
        g.incomplete = False
        for ln2, _ in end_rows[1:]:
            warnings.append(Problem(path, ln2, "a second game_end for the same game is ignored", False))
    else:
        warnings.append(Problem(path, rows[-1][0], f"game {g.index}: no game_end; the game is incomplete", False))
    forged = [row_data(r) for _, r in rows if r["event"] == "input_refused"
              and row_data(r).get("reason") == "impersonation"]
    if forged:
        by = sorted({f"{d.get('sender_seat')} as {d.get('claimed_seat')}" for d in forged})
        g.notes.append(f"{len(forged)} input(s) sent in another participant's name were refused ({', '.join(by)})")
    for ln, r in rows:
        if r["event"] != "confirmation_log":
            continue
        d = row_data(r)
        seat = receiver_seat(r)
        if seat is not None:
            if completion_code(d):  # a person who left may get no code (completion.left_policy no_code)
                g.codes[seat] = str(completion_code(d))
            if "reward" in d:
                g.rewards[seat] = d["reward"]


def _known_fields(cls, d: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


def _agent_labels(g: GameReplay, options: dict, rows) -> dict:
    """seat -> agent name: from options["agents"], the seat record, or agent_note rows; else the seat kind."""
    from_options = options.get("agents") if isinstance(options.get("agents"), dict) else {}
    from_notes = {}
    for _, r in rows:
        if r["event"] == "agent_note":
            d = row_data(r)
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
    if ts and is_number(duration) and not any(i.kind == "person" for i in seats.values()):
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
    if is_number(t):
        return int(t)
    if isinstance(t, dict) and t and all(is_number(v) for v in t.values()):
        return int(sum(t.values()))
    return sum(1 for i in inputs if isinstance(i, (Chat, Command, Action)) and getattr(i, "turn", True))


def _duration(g: GameReplay, rows, inputs, match) -> Optional[float]:
    d = (g.logged_results or {}).get("duration")
    if is_number(d):
        return round(float(d), 3)
    d = match.results.get("duration") if match.over else None
    if is_number(d) and match.started_at:
        return round(float(d), 3)
    ts = [i.t for i in inputs if getattr(i, "t", 0)]
    if len(ts) >= 2:
        return round(max(ts) - min(ts), 3)
    dates = [x for x in (_parse_date(r.get("date_created")) for _, r in rows) if x is not None]
    return round(max(dates) - min(dates), 3) if len(dates) >= 2 else None
