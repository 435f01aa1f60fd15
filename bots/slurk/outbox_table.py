"""The outbox's tables in the state database (see `outbox.py` for the policy): one row per log event waiting to be
posted, and per room a watermark of what is out; and `OutboxEntry`, such an event as the shipper holds it."""
from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Optional

from .recent import RecentMap

if TYPE_CHECKING:  # pragma: no cover
    from .store import RoomStore

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    server      TEXT NOT NULL,
    bot_user    INTEGER NOT NULL,
    id          INTEGER NOT NULL,
    room_id     INTEGER NOT NULL,
    event       TEXT NOT NULL,
    data        TEXT NOT NULL,
    receiver_id INTEGER,
    created_at  REAL NOT NULL,
    PRIMARY KEY (server, bot_user, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outbox_rooms (
    server   TEXT NOT NULL,
    bot_user INTEGER NOT NULL,
    room_id  INTEGER NOT NULL,
    shipped  INTEGER NOT NULL,  -- every event of the room up to this outbox id is out (accepted or given up)
    log_id   INTEGER NOT NULL,  -- the newest log row Slurk created for one of them (0: none yet)
    PRIMARY KEY (server, bot_user, room_id)
) WITHOUT ROWID;
"""


class Outbox:
    """The outbox tables of one (server, bot user) in the state database, written through the RoomStore's thread.

    An event's row is written before it is posted. Shipping is in order per room, so what is out is recorded as a
    watermark per room (`outbox_rooms.shipped`, with the newest log id Slurk gave us), one small row per batch
    instead of a delete per event; rows at or below it are deleted now and then in bulk (`PRUNE_EVERY`), and at
    open."""

    PRUNE_EVERY = 500  # shipped rows between two bulk deletes

    def __init__(self, store: "RoomStore", server: str, bot_user: int):
        self.store = store
        self.key = (str(server), int(bot_user))
        store.run(lambda db: db.executescript(SCHEMA))
        self._rows, marks, last = store.run(self._load)
        # room -> (shipped id, log id) as written, for the rooms used most recently (read oldest first): a room
        # forgotten here starts again from (0, 0), which its next batch raises to its own ids (in order per room)
        self._marks = RecentMap(marks)
        self.acked = {room: log_id for room, (_, log_id) in self._marks.items()}
        self._next = last + 1
        self._lock = threading.Lock()
        self._unpruned = 0
        self._prune_rooms: set[int] = set()

    def _load(self, db) -> tuple[list, dict, int]:
        with db:
            db.execute("DELETE FROM outbox WHERE server=? AND bot_user=? AND id <= (SELECT shipped FROM outbox_rooms "
                       "r WHERE r.server=outbox.server AND r.bot_user=outbox.bot_user AND r.room_id=outbox.room_id)",
                       self.key)
        rows = db.execute("SELECT id, room_id, event, data, receiver_id FROM outbox WHERE server=? AND bot_user=? "
                          "ORDER BY id", self.key).fetchall()
        marks = {r: (s, l) for r, s, l in db.execute(
            "SELECT room_id, shipped, log_id FROM outbox_rooms WHERE server=? AND bot_user=? ORDER BY shipped",
            self.key).fetchall()}
        last = max([r[0] for r in rows] + [s for s, _ in marks.values()] + [0])
        return rows, marks, last

    def leftover(self) -> list[tuple]:
        """(id, room, event, data_json, receiver_id) left by the previous process, oldest first (read at open)."""
        rows, self._rows = self._rows, []
        return rows

    def new_id(self) -> int:
        with self._lock:
            oid = self._next
            self._next += 1
        return oid

    def add(self, entries: list) -> Optional[object]:
        """Queue the rows of these events for the next commit (multi-row inserts); returns the last job (its `done`
        is set after that commit, its `error` says if it failed)."""
        job = None
        now = time.time()
        for i in range(0, len(entries), 100):
            chunk = entries[i:i + 100]
            job = self.store.write_later(
                "INSERT INTO outbox VALUES " + ",".join(["(?,?,?,?,?,?,?,?)"] * len(chunk)),
                tuple(v for e in chunk for v in (*self.key, e.oid, e.room, e.event, e.data_json, e.receiver_id, now)))
        return job

    def mark(self, done: list[tuple]) -> Optional[object]:
        """Events that are out (accepted, with the id of the log row Slurk created, or given up): [(id, room, log_id
        or None)], each room's in order. Moves the rooms' watermarks in one statement; returns its job."""
        changed: dict[int, tuple[int, int]] = {}
        for oid, room, log_id in done:
            shipped, newest = changed.pop(room, None) or self._marks.get(room) or (0, 0)  # now the newest
            changed[room] = (max(shipped, oid), max(newest, log_id or 0))
        self._marks.update(changed)
        self._unpruned += len(done)
        self._prune_rooms.update(changed)
        rows = list(changed.items())
        job = None
        for i in range(0, len(rows), 100):
            chunk = rows[i:i + 100]
            job = self.store.write_later(
                "INSERT OR REPLACE INTO outbox_rooms VALUES " + ",".join(["(?,?,?,?,?)"] * len(chunk)),
                tuple(v for room, (shipped, log_id) in chunk for v in (*self.key, room, shipped, log_id)))
        if self._unpruned >= self.PRUNE_EVERY:
            job = self.prune() or job
        return job

    def prune(self) -> Optional[object]:
        """Delete the rows of events that are out (in bulk, per room)."""
        job = None
        for room in self._prune_rooms:
            if room in self._marks:
                job = self.store.write_later(
                    "DELETE FROM outbox WHERE server=? AND bot_user=? AND room_id=? AND id <= ?",
                    (*self.key, room, self._marks[room][0]))
        self._prune_rooms = set()
        self._unpruned = 0
        return job

    def count(self) -> int:
        """Events waiting in the table now (committed ones), for diagnostics and tests."""
        return self.store.run(lambda db: db.execute(
            "SELECT COUNT(*) FROM outbox o WHERE server=? AND bot_user=? AND id > COALESCE((SELECT shipped FROM "
            "outbox_rooms r WHERE r.server=o.server AND r.bot_user=o.bot_user AND r.room_id=o.room_id), 0)",
            self.key).fetchone()[0])


class OutboxEntry:
    """A log event waiting in the outbox, as the shipper holds it."""

    __slots__ = ("oid", "room", "event", "data", "data_json", "receiver_id", "turn", "attempts", "in_doubt",
                 "leftover", "woken", "failed_at", "queued_at", "alone", "posted_in")

    def __init__(self, oid, room, event, data, data_json, receiver_id, turn=None, leftover=False):
        self.oid, self.room, self.event, self.data, self.data_json = oid, room, event, data, data_json
        self.receiver_id, self.turn, self.leftover = receiver_id, turn, leftover
        self.attempts = 0  # failed attempts while this event headed its room's queue
        self.in_doubt = leftover  # a leftover may have reached Slurk before the crash (see _find_posted)
        self.woken = False
        self.failed_at = 0.0
        self.queued_at = time.monotonic()
        self.alone = False  # a batch holding it was too large for Slurk (413): it goes on its own
        self.posted_in: Optional[tuple] = None  # (log id, members) of a batch row seen holding it (_find_posted)

    def content(self) -> tuple:
        """(event, data, receiver) as Slurk's log returns them."""
        return self.event, json.loads(self.data_json), self.receiver_id


def describe(group: list) -> str:
    """A group of entries as a log line names them."""
    if len(group) == 1:
        return f"log event {group[0].event!r}"
    names = list(dict.fromkeys(e.event for e in group))
    return f"{len(group)} log events ({', '.join(map(repr, names[:5]))}{', ...' if len(names) > 5 else ''})"
