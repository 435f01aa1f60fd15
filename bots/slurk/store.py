"""Per-room persistence in an embedded sqlite3 database (WAL), so a restarted bot resumes every open room.

Three tables: `rooms` holds one header per room (task, seed, options, seats with their Slurk users, status),
`inputs` holds every handled input in order, and `seen` names every person input the bot has dealt with (by the page's
nonce `n:<nonce>` or Slurk's log row `log:<id>`), so that after a restart or a lost connection the inputs Slurk
accepted meanwhile are found in its log and handled exactly once (`intake.PersonInputs.catch_up`). A match is rebuilt
by replaying its inputs (`MatchDriver.replay`). The file holds seat keys and game state: it is created 0600 (SQLite
gives its -wal and -shm files the same mode).
Rooms are keyed by (server url, bot user id, room id), so several bots may share one file without mixing rooms.
"""
from __future__ import annotations

import json
import os
import queue
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

from tasks.core.protocol import Input, input_from_json, input_to_json

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    server   TEXT NOT NULL,
    bot_user INTEGER NOT NULL,
    room_id  INTEGER NOT NULL,
    task     TEXT NOT NULL,
    seed     INTEGER NOT NULL,
    options  TEXT NOT NULL,
    seats    TEXT NOT NULL,
    status   TEXT NOT NULL,
    opened_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    result   TEXT,
    meta     TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (server, bot_user, room_id)
);
CREATE TABLE IF NOT EXISTS inputs (
    server   TEXT NOT NULL,
    bot_user INTEGER NOT NULL,
    room_id  INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    input    TEXT NOT NULL,
    PRIMARY KEY (server, bot_user, room_id, seq)
);
CREATE TABLE IF NOT EXISTS brains (
    server   TEXT NOT NULL,
    bot_user INTEGER NOT NULL,
    room_id  INTEGER NOT NULL,
    seat     TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    state    BLOB NOT NULL,
    PRIMARY KEY (server, bot_user, room_id, seat)
);
CREATE TABLE IF NOT EXISTS seen (
    server   TEXT NOT NULL,
    bot_user INTEGER NOT NULL,
    room_id  INTEGER NOT NULL,
    ref      TEXT NOT NULL,
    PRIMARY KEY (server, bot_user, room_id, ref)
);
"""


def private_file(path: str) -> None:
    """Create `path` readable by its owner only, unless it exists (then it is left as the operator made it)."""
    if path in ("", ":memory:") or path.startswith("file:") or os.path.exists(path):
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


@dataclass
class RoomRecord:
    room_id: int
    task: str
    seed: int
    options: dict
    # seat -> {"kind": "person"|"agent", "name": str, "user_id": int|None, "brain": str|None}
    seats: dict
    status: str = "open"
    opened_at: float = 0.0
    inputs: list = field(default_factory=list)
    result: Optional[dict] = None
    meta: dict = field(default_factory=dict)  # timers and completion settings the match was created with


class _Job:
    __slots__ = ("fn", "args", "done", "result", "error", "sql")

    def __init__(self, fn, args, sql: Optional[str] = None):
        self.fn, self.args, self.sql = fn, args, sql
        self.done = threading.Event()
        self.result = self.error = None


class RoomStore:
    """Thread-safe: every database operation runs on one database thread (an actor), which keeps working through
    its queue instead of handing a lock from room to room; callers wait for their own operation only.
    Checkpoints (writing the WAL back, with fsync) run on another thread and connection, never inside a commit:
    on a slow disk an automatic checkpoint stalled every room for hundreds of milliseconds."""

    def __init__(self, path: str, server: str = "", bot_user: int = 0):
        self.path = path
        self.server = server
        self.bot_user = int(bot_user)
        self._jobs: "queue.Queue[Optional[_Job]]" = queue.Queue()
        self._db: Optional[sqlite3.Connection] = None
        self._thread = threading.Thread(target=self._serve, name="store", daemon=True)
        self._thread.start()
        self._call(self._open)
        self._closing = threading.Event()
        self._checkpointer = threading.Thread(target=self._checkpoint_loop, name="store-checkpoint", daemon=True)
        self._checkpointer.start()

    def _open(self) -> None:
        private_file(self.path)
        self._db = sqlite3.connect(self.path, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA wal_autocheckpoint=0")
        self._db.executescript(SCHEMA)

    def _serve(self) -> None:
        """Take every job that is waiting and run them in order; consecutive single-statement writes share one
        transaction (group commit), and each of their callers is released only after that commit. Under load (many
        rooms, a busy interpreter) this keeps the store from falling behind: one commit, and one pass through the
        GIL, for a whole batch instead of one per input."""
        while True:
            batch = [self._jobs.get()]
            while True:
                try:
                    batch.append(self._jobs.get_nowait())
                except queue.Empty:
                    break
            writes: list[_Job] = []
            for job in batch:
                if job is not None and job.sql is not None:
                    writes.append(job)
                    continue
                self._commit(writes)
                writes = []
                if job is None:
                    if self._db is not None:
                        self._db.close()
                    return
                try:
                    job.result = job.fn(*job.args)
                except BaseException as exc:  # handed to the caller
                    job.error = exc
                job.done.set()
            self._commit(writes)

    def _commit(self, writes: "list[_Job]") -> None:
        """Run queued writes in one transaction; a statement that fails fails its own caller only."""
        if not writes:
            return
        try:
            with self._db:
                for job in writes:
                    try:
                        self._db.execute(job.sql, job.args)
                    except sqlite3.Error as exc:
                        job.error = exc
        except BaseException as exc:  # the commit itself failed: nothing of the batch is stored
            for job in writes:
                if job.error is None:
                    job.error = exc
        for job in writes:
            job.done.set()

    def _call(self, fn, *args):
        if threading.current_thread() is self._thread:
            return fn(*args)
        return self._wait(_Job(fn, args))

    def _call_write(self, sql: str, args: tuple) -> None:
        """One write statement, committed (possibly together with other rooms' writes) before this returns."""
        if threading.current_thread() is self._thread:
            return self._write(sql, args)
        self._wait(_Job(None, args, sql))

    def _wait(self, job: "_Job"):
        self._jobs.put(job)
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def _checkpoint_loop(self, every: float = 2.0) -> None:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            while not self._closing.wait(every):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:  # pragma: no cover - busy; try again next time
                    pass
        finally:
            db.close()

    def close(self) -> None:
        self._closing.set()
        self._checkpointer.join(timeout=10)
        try:
            self._call(lambda: self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
        except sqlite3.Error:  # pragma: no cover
            pass
        self._jobs.put(None)
        self._thread.join(timeout=10)

    def _key(self, room_id: int) -> tuple:
        return (self.server, self.bot_user, int(room_id))

    # ------------------------------------------------------------------------------------------------------------
    def open_room(self, rec: RoomRecord) -> None:
        """Create (or replace) a room's header and forget any inputs stored for an earlier game in it."""
        self._call(self._open_room, rec)

    def _open_room(self, rec: RoomRecord) -> None:
        now = time.time()
        with self._db:
            self._db.execute("DELETE FROM inputs WHERE server=? AND bot_user=? AND room_id=?", self._key(rec.room_id))
            self._db.execute("DELETE FROM seen WHERE server=? AND bot_user=? AND room_id=?", self._key(rec.room_id))
            self._db.execute("DELETE FROM brains WHERE server=? AND bot_user=? AND room_id=?", self._key(rec.room_id))
            self._db.execute(
                "INSERT OR REPLACE INTO rooms VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (*self._key(rec.room_id), rec.task, int(rec.seed), json.dumps(rec.options), json.dumps(rec.seats),
                 rec.status, rec.opened_at or now, now, None, json.dumps(rec.meta)))

    def _write(self, sql: str, args: tuple) -> None:
        with self._db:
            self._db.execute(sql, args)

    def update_seats(self, room_id: int, seats: dict) -> None:
        self._call_write("UPDATE rooms SET seats=?, updated_at=? WHERE server=? AND bot_user=? AND room_id=?",
                         (json.dumps(seats), time.time(), *self._key(room_id)))

    def add_input(self, room_id: int, seq: int, inp: Input, ref: Optional[str] = None) -> None:
        """Store one handled input (one small transaction; WAL, so no fsync per commit), and with it the reference
        of the Slurk event it came from (in the same transaction: never handled twice, never lost)."""
        row = (*self._key(room_id), int(seq), json.dumps(input_to_json(inp)))
        if ref is None:
            self._call_write("INSERT OR REPLACE INTO inputs VALUES (?,?,?,?,?)", row)
            return

        def run():
            with self._db:
                self._db.execute("INSERT OR REPLACE INTO inputs VALUES (?,?,?,?,?)", row)
                self._db.execute("INSERT OR IGNORE INTO seen VALUES (?,?,?,?)", (*self._key(room_id), str(ref)))
        self._call(run)

    def add_seen(self, room_id: int, ref: str) -> None:
        """A person's event that was dealt with without becoming an input (refused, forged, too long)."""
        self._call_write("INSERT OR IGNORE INTO seen VALUES (?,?,?,?)", (*self._key(room_id), str(ref)))

    def save_brain(self, room_id: int, seat: str, seq: int, state: bytes) -> None:
        """An agent's memory after its act, when the match had handled `seq` inputs (the latest one per seat)."""
        self._call_write("INSERT OR REPLACE INTO brains VALUES (?,?,?,?,?,?)",
                         (*self._key(room_id), str(seat), int(seq), sqlite3.Binary(state)))

    def brain_states(self, room_id: int) -> dict:
        """seat -> (seq, state) of the room's agents' latest saved memories."""
        return self._call(lambda: {r[0]: (int(r[1]), bytes(r[2])) for r in self._db.execute(
            "SELECT seat, seq, state FROM brains WHERE server=? AND bot_user=? AND room_id=?",
            self._key(room_id)).fetchall()})

    def seen_refs(self, room_id: int) -> set:
        return self._call(lambda: {r[0] for r in self._db.execute(
            "SELECT ref FROM seen WHERE server=? AND bot_user=? AND room_id=?", self._key(room_id)).fetchall()})

    def close_room(self, room_id: int, status: str = "closed", result: Optional[dict] = None) -> None:
        self._call(self._write,
                   "UPDATE rooms SET status=?, result=?, updated_at=? WHERE server=? AND bot_user=? AND room_id=?",
                   (status, json.dumps(result) if result is not None else None, time.time(), *self._key(room_id)))

    # ------------------------------------------------------------------------------------------------------------
    def _record(self, row) -> RoomRecord:
        room_id, task, seed, options, seats, status, opened_at, result, meta = row
        rec = RoomRecord(room_id, task, seed, json.loads(options), json.loads(seats), status, opened_at,
                         result=json.loads(result) if result else None, meta=json.loads(meta or "{}"))
        cur = self._db.execute("SELECT input FROM inputs WHERE server=? AND bot_user=? AND room_id=? ORDER BY seq",
                               self._key(room_id))
        rec.inputs = [input_from_json(json.loads(r[0])) for r in cur.fetchall()]
        return rec

    _COLS = "room_id, task, seed, options, seats, status, opened_at, result, meta"

    def get(self, room_id: int) -> Optional[RoomRecord]:
        def run():
            row = self._db.execute(f"SELECT {self._COLS} FROM rooms WHERE server=? AND bot_user=? AND room_id=?",
                                   self._key(room_id)).fetchone()
            return self._record(row) if row else None
        return self._call(run)

    def status(self, room_id: int) -> Optional[str]:
        def run():
            row = self._db.execute("SELECT status FROM rooms WHERE server=? AND bot_user=? AND room_id=?",
                                   self._key(room_id)).fetchone()
            return row[0] if row else None
        return self._call(run)

    def open_rooms(self, task: Optional[str] = None) -> list[RoomRecord]:
        def run():
            sql = f"SELECT {self._COLS} FROM rooms WHERE server=? AND bot_user=? AND status='open'"
            args: tuple = (self.server, self.bot_user)
            if task is not None:
                sql += " AND task=?"
                args += (task,)
            rows = self._db.execute(sql + " ORDER BY room_id", args).fetchall()
            return [self._record(r) for r in rows]
        return self._call(run)

    def journal_mode(self) -> str:
        return self._call(lambda: self._db.execute("PRAGMA journal_mode").fetchone()[0])

    # --- for other tables in the same file (outbox.py) ----------------------------------------------------------
    def run(self, fn):
        """Run `fn(db)` on the database thread and return its result; `fn` commits its own writes."""
        return self._call(lambda: fn(self._db))

    def write_later(self, sql: str, args: tuple) -> "_Job":
        """Queue one write statement without waiting for it: it joins the next group commit. The returned job's
        `done` event is set after that commit; `error` holds the exception if it failed."""
        job = _Job(None, args, sql)
        self._jobs.put(job)
        return job
