"""Finding a seat's private data in what another seat received.

`find_leaks(received, parts)` walks everything a participant could read (socket event payloads, the log rows their
credentials can fetch, page texts — JSON inside strings is parsed too) and reports each private part found:
a dict part counts as found when a received dict holds all of its items, a list part when an equal list appears,
a string part when it occurs in a string. Private parts come from `Game.private_parts(seat)` of the game rebuilt
from the admin's full log (so the check also shows that the record is complete).
"""
from __future__ import annotations

import json
from typing import Any, Iterable

import requests

from tasks.core import SeatInfo, TimerConfig, build_match, input_from_json
from tasks.core.driver import MatchDriver


def _walk(value: Any, depth: int = 0):
    if depth > 40:
        return
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v, depth + 1)
    elif isinstance(value, str) and value[:1] in "{[":
        try:
            parsed = json.loads(value)
        except ValueError:
            return
        yield from _walk(parsed, depth + 1)


def _contains(found: Any, part: Any) -> bool:
    if isinstance(part, dict):
        return isinstance(found, dict) and all(k in found and found[k] == v for k, v in part.items())
    if isinstance(part, list):
        return isinstance(found, list) and found == part
    if isinstance(part, str):
        return isinstance(found, str) and part in found
    return False


def find_leaks(received: Iterable[Any], parts: list) -> list[str]:
    leaks = []
    items = list(received)
    for part in parts:
        for item in items:
            hit = next((v for v in _walk(item) if _contains(v, part)), None)
            if hit is not None:
                leaks.append(f"{json.dumps(part)[:120]} found in {json.dumps(item, default=str)[:300]}")
                break
    return leaks


def readable_logs(url: str, room: int, user_id: int, token: str) -> list[dict]:
    """The room's log rows as this participant's credentials fetch them (the page does this on every join)."""
    resp = requests.get(f"{url}/slurk/api/rooms/{room}/users/{user_id}/logs",
                        headers={"Authorization": f"Bearer {token}", "user": str(user_id)}, timeout=10)
    assert resp.status_code == 200, resp.text
    return resp.json()


def rebuild(spec, admin_logs: list[dict]):
    """The game as the admin's full log records it: game_start's instance plus every game_input, replayed."""
    start = [x for x in admin_logs if x["event"] == "game_start"][-1]["data"]
    inputs = sorted((x["data"] for x in admin_logs if x["event"] == "game_input"), key=lambda d: d["seq"])
    seats = {s: SeatInfo(**i) for s, i in start["seats"].items()}
    match, _ = build_match(spec, start["seed"], seats, options=start["options"], instance=start["instance"],
                           timers=TimerConfig(**start["timers"]), with_brains=False)
    MatchDriver(match, {}).replay([input_from_json(d["input"]) for d in inputs])
    return match
