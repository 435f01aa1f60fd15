"""A room across a restart of the bot: what its agents remember, and the record Slurk's log must hold.

A room's match is rebuilt by replaying its stored inputs (`rooms.RoomWorker._restore`). An agent's memory is saved
after each of its acts (`save_memory`) and loaded again when the replay reaches the point where it was saved
(`recall`). Log events that a crash kept from reaching Slurk are found (`lost_log_events`) and posted again, so
that Slurk's log alone still rebuilds the game; `log_floor` marks where a room's own log starts, so that a
catch-up never handles what came before its game.
"""
from __future__ import annotations

import logging
from typing import Optional

from tasks.core.protocol import LogEvent

from .rest import SlurkAPIError

log = logging.getLogger(__name__)


def save_memory(driver, match, store, room_id: int, seat: str, unsaveable: set[str]) -> None:
    """Keep the agent's memory after its act (with the number of inputs handled so far), so that a restarted
    bot's agent goes on where it was (`recall`) instead of greeting again or undoing what was agreed. An agent
    whose memory cannot be saved (warned once: `unsaveable`) resumes from what it observed only."""
    brain = driver.brains.get(seat) if driver is not None else None
    if brain is None or match is None or match.over or seat in driver.thinking:
        return
    try:
        state = brain.snapshot()
    except Exception as exc:  # the brain holds something unsaveable: it resumes from its observations only
        if seat not in unsaveable:
            unsaveable.add(seat)
            log.warning("room %s: the %s agent's memory cannot be saved (%s: %s); after a restart it resumes "
                        "from what it observed only", room_id, seat, type(exc).__name__, exc)
        return
    store.save_brain(room_id, seat, match.seq, state)


def recall(driver, match, memories: dict, room_id: int) -> None:
    """Load each agent's saved memory (`memories`: seat -> (seq, state)) once the replay reached the point where it
    was saved (what the agent observed after that point then reaches it by the rest of the replay, as it did
    live). A memory loaded, or never to be loaded, leaves `memories`."""
    for seat, (seq, state) in list(memories.items()):
        if match.seq < seq:
            continue
        del memories[seat]
        brain = driver.brains.get(seat)
        if brain is None or match.seq > seq:
            continue  # not an agent seat now, or the record ends before the memory (it was never stored)
        try:
            brain.restore(state)
        except Exception as exc:
            log.warning("room %s: the %s agent's saved memory could not be loaded (%s: %s); it resumes from "
                        "what it observed", room_id, seat, type(exc).__name__, exc)


def lost_log_events(rest, room_id: int, seed: int, replayed: list) -> list[LogEvent]:
    """The game_start / game_input log events among the `replayed` effects that Slurk's log of the room lacks."""
    try:
        logs = rest.get_logs(room_id=room_id)
    except SlurkAPIError as exc:
        log.warning("room %s: cannot check Slurk's logs after the restart: %s", room_id, exc)
        return []
    starts = [i for i, x in enumerate(logs)
              if x.get("event") == "game_start" and (x.get("data") or {}).get("seed") == seed]
    ours = logs[starts[-1]:] if starts else []
    logged = {(x.get("data") or {}).get("seq") for x in ours if x.get("event") == "game_input"}
    return [e for e in replayed if isinstance(e, LogEvent) and (
        (e.event == "game_start" and not starts) or (e.event == "game_input" and e.data.get("seq") not in logged))]


def log_floor(rest, room_id: int) -> Optional[int]:
    """The newest log row of the room before the game: a catch-up never handles what came before it."""
    try:
        return max((int(r.get("id") or 0) for r in rest.get_logs(room_id=room_id)), default=0)
    except SlurkAPIError as exc:
        log.warning("room %s: cannot read Slurk's log; no catch-up after a restart: %s", room_id, exc)
        return None
