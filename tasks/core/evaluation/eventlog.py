"""JSON-lines room logs in the shape of Slurk's log API rows, written by local games.

A Slurk room's log (downloaded from `GET /slurk/api/logs?room_id=`) and a local game's file look alike, so every
later tool (replay, transcripts, summaries) reads both: one JSON object per line with
`id, event, room_id, user_id, receiver_id, data, date_created`.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
from typing import IO, Iterator, Optional


class JsonlRoomLog:
    def __init__(self, path: str, room_id: int | str = 1):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        self.room_id = room_id
        self._next_id = 1
        self._fh: Optional[IO[str]] = open(path, "w", encoding="utf-8")

    def write(self, event: str, data: dict, user_id=None, receiver_id=None, t: Optional[float] = None) -> dict:
        when = _dt.datetime.fromtimestamp(t, _dt.timezone.utc) if t else _dt.datetime.now(_dt.timezone.utc)
        row = {
            "id": self._next_id, "event": event, "room_id": self.room_id, "user_id": user_id,
            "receiver_id": receiver_id, "data": data,
            "date_created": when.replace(tzinfo=None).isoformat(timespec="seconds"), "date_modified": None,
        }
        self._next_id += 1
        assert self._fh is not None, "log already closed"
        self._fh.write(json.dumps(row, sort_keys=True) + "\n")
        return row

    def close(self) -> None:
        if self._fh:
            self._fh.close()
            self._fh = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_rows(path: str) -> Iterator[tuple[int, dict]]:
    """Yield (line number, row) from a JSON-lines log; raises ValueError naming the line on a broken row."""
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict) or "event" not in row:
                raise ValueError(f"{path}:{lineno}: not a log row (no 'event')")
            yield lineno, row
