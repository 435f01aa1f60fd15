"""Several log events of a room as ONE Slurk log row (a batch), and back.

Every `POST /logs` costs a database commit in Slurk's single worker, so the outbox (`outbox.py`) posts a room's
queued events that share a receiver as one row: event `log_batch`, data `{"rows": [{"event", "data", "oid"}...]}`
(`oid`: the event's outbox id, so a lookup after an unclear failure can tell which events a batch held). Readers
never see it: `expand()` replaces every batch row by the rows it holds, in order, each shaped like a Slurk row of
its own (the batch row's id, room, user, receiver and dates, its own event and data) plus `batch` (the batch row's
id) and `oid`. Sorting by id keeps that order (Python's sort is stable). `SlurkREST.get_logs`, the test double's
client, `logs download` and `replay` expand; Slurk's own events (`SLURK_EVENTS`) are never batched, so a reader
filtering on one of them needs no second look.
"""
from __future__ import annotations

import logging
from typing import Iterable

log = logging.getLogger(__name__)

BATCH_EVENT = "log_batch"
MAX_ROWS = 200  # events in one batch row
MAX_BYTES = 64_000  # JSON size of one batch row's data (Slurk stores it as one JSON value)
ROW_OVERHEAD = 48  # JSON bytes a batch adds per event besides its event name and data: {"event": , "data": , "oid": }

# Events Slurk writes itself (as bots/study/replay_model.SLURK_EVENTS): a bot event of such a name goes alone.
SLURK_EVENTS = frozenset({
    "connect", "disconnect", "join", "leave", "text_message", "image_message", "command", "set_attribute",
    "delete_attribute", "remove_attribute", "set_text", "class_add", "class_remove", "mouse", "keystroke",
    "bounding_box", "typing", "start_typing", "stop_typing", "typed_message", "status", "openvidu",
})


def batchable(event: str) -> bool:
    """May an event of this name go inside a batch? (Slurk's own event names and the batch's own go alone.)"""
    return event not in SLURK_EVENTS and event != BATCH_EVENT


def size(event: str, data_json: str) -> int:
    """The JSON bytes one event adds to a batch row's data (an estimate that errs on the large side)."""
    return len(data_json) + len(event) + ROW_OVERHEAD


def pack(entries: Iterable[tuple]) -> dict:
    """The data of a batch row holding these (event, data, oid) triples, in order."""
    return {"rows": [{"event": event, "data": data, "oid": oid} for event, data, oid in entries]}


def inner_rows(row: dict) -> list[dict]:
    """The rows a batch row holds, each shaped as a Slurk row; [] (with a warning) when its data is malformed."""
    data = row.get("data")
    inner = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(inner, list):
        log.warning("log row %s: a %s row without a list of rows is skipped", row.get("id"), BATCH_EVENT)
        return []
    base = {k: v for k, v in row.items() if k not in ("event", "data")}
    out = []
    for x in inner:
        if not isinstance(x, dict) or not isinstance(x.get("event"), str) or x["event"] == BATCH_EVENT:
            log.warning("log row %s: a malformed row inside a %s row is skipped", row.get("id"), BATCH_EVENT)
            continue
        data = x.get("data")
        out.append({**base, "event": x["event"], "data": {} if data is None else data, "batch": row.get("id"),
                    "oid": x.get("oid")})
    return out


def is_batch(row) -> bool:
    return isinstance(row, dict) and row.get("event") == BATCH_EVENT


def expand(rows: Iterable[dict]) -> list[dict]:
    """The rows with every batch row replaced by the rows it holds (in their order); other rows untouched."""
    out: list[dict] = []
    for row in rows:
        if is_batch(row):
            out.extend(inner_rows(row))
        else:
            out.append(row)
    return out
