"""Comparing a rebuilt game with its log: results and status, the instance, completion codes, rejections and task
events. Differences read "key: logged X, recomputed Y"."""
from __future__ import annotations

import json
import math
from typing import Callable, Optional

from tasks.core import RESULT_KEYS, LogEvent, Match

from .replay_model import (
    ABS_TOL, MAX_MISMATCHES, OTHER_BOT_EVENTS, REL_TOL, RUNTIME_EVENTS, SLURK_EVENTS, VOLATILE_KEYS, GameReplay,
    as_logged, is_number,
)
from .replay_reading import event_payload


def compare(logged, recomputed, path: str = "") -> list[str]:
    """Differences as "key: logged X, recomputed Y". Volatile keys are ignored; numbers compare with a tolerance."""
    out: list[str] = []
    if isinstance(logged, dict) and isinstance(recomputed, dict):
        for k in list(logged) + [k for k in recomputed if k not in logged]:
            if str(k) in VOLATILE_KEYS:
                continue
            key = f"{path}.{k}" if path else str(k)
            if k not in recomputed:
                out.append(f"{key}: logged {show_value(logged[k])}, recomputed (missing)")
            elif k not in logged:
                if not path and k in RESULT_KEYS and recomputed[k] in (None, 0, {}):
                    continue  # a schema key that logs from before the schema lack, at its neutral default
                out.append(f"{key}: logged (missing), recomputed {show_value(recomputed[k])}")
            else:
                out += compare(logged[k], recomputed[k], key)
        return out
    if isinstance(logged, (list, tuple)) and isinstance(recomputed, (list, tuple)):
        if len(logged) != len(recomputed):
            return [f"{path or 'value'}: logged {show_value(logged)}, recomputed {show_value(recomputed)}"]
        for i, (a, b) in enumerate(zip(logged, recomputed)):
            out += compare(a, b, f"{path}[{i}]")
        return out
    if is_number(logged) and is_number(recomputed):
        if math.isclose(float(logged), float(recomputed), rel_tol=REL_TOL, abs_tol=ABS_TOL):
            return []
    elif logged == recomputed and type(logged) is type(recomputed):
        return []
    return [f"{path or 'value'}: logged {show_value(logged)}, recomputed {show_value(recomputed)}"]


def check_game(g: GameReplay, rows, effects, match: Match, receiver_seat: Callable[[dict], Optional[str]],
               start: dict) -> list[str]:
    """Every difference between the log (`rows`, game_start data `start`) and the rebuilt `match` and its `effects`,
    at most MAX_MISMATCHES of them (the rest is counted)."""
    out: list[str] = []
    # The instance: a changed generator would replay a different board.
    try:
        out += compare(start.get("instance"), as_logged(match.game.instance()), "instance")
    except Exception as exc:
        out.append(f"instance: cannot recompute ({type(exc).__name__}: {exc})")
    out += _status_and_results(g, match)
    out += _completion_codes(rows, effects, receiver_seat)
    out += _task_events(rows, effects)
    if len(out) > MAX_MISMATCHES:
        out = out[:MAX_MISMATCHES] + [f"... and {len(out) - MAX_MISMATCHES} more differences"]
    return out


def _status_and_results(g: GameReplay, match: Match) -> list[str]:
    if g.logged_results is None:
        return []
    logged = {"status": g.status, **{k: v for k, v in g.logged_results.items() if k != "status"}}
    if not match.over:
        return [f"status: logged {show_value(g.status)}, recomputed (game not over: are inputs missing at the end "
                f"of the log?)"]
    recomputed = {"status": match.status, **{k: v for k, v in g.recomputed_results.items() if k != "status"}}
    return compare(logged, recomputed)


def _completion_codes(rows, effects, receiver_seat) -> list[str]:
    """Status text and reward per seat (the codes themselves are random)."""
    out: list[str] = []
    recomputed_conf = {e.to: e.data for e in effects if isinstance(e, LogEvent) and e.event == "confirmation_log"}
    logged_conf = {}
    for _, r in rows:
        if r["event"] == "confirmation_log":
            seat = receiver_seat(r)
            logged_conf[seat if seat is not None else f"receiver {r.get('receiver_id')}"] = event_payload(r)
    for seat in sorted(set(logged_conf) | set(recomputed_conf), key=str):
        a, b = logged_conf.get(seat), recomputed_conf.get(seat)
        if a is None or b is None:
            out.append(f"confirmation_log[{seat}]: logged {'(missing)' if a is None else 'a code'}, "
                       f"recomputed {'(missing)' if b is None else 'a code'}")
            continue
        for key in ("status_txt", "reward"):
            if key in a or key in b:
                out += compare({key: a.get(key)}, {key: b.get(key)}, f"confirmation_log[{seat}]")
    return out


def _task_events(rows, effects) -> list[str]:
    """Rejections and task events, in order per event name (errors by count: their traces are volatile)."""
    out: list[str] = []
    skip = {"game_start", "game_input", "game_end", "confirmation_log", "error"} | RUNTIME_EVENTS
    recomputed_events: dict[str, list] = {}
    for e in effects:
        if isinstance(e, LogEvent) and e.event not in skip:
            recomputed_events.setdefault(e.event, []).append(as_logged(e.data))
    logged_events: dict[str, list] = {}
    for _, r in rows:
        ev = r["event"]
        if ev in recomputed_events or (ev not in skip and ev not in SLURK_EVENTS and ev not in OTHER_BOT_EVENTS):
            logged_events.setdefault(ev, []).append(event_payload(r))
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
    return out


def show_value(v) -> str:
    """A value as a difference shows it: JSON, cut at 80 characters."""
    if v is None:
        return "null"
    s = v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)
    return s if len(s) <= 80 else s[:77] + "..."
