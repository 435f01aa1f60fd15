"""One instance per bot user and state file: a lease in the state database.

Two processes serving the same Slurk bot user answer every event twice (two boards in one room, every private
message doubled), and when one of them exits Slurk drops the user's session, so the other silently stops receiving
events. The `leases` table holds one row per (server, bot user): the holder (a random id per start), its pid and
host, its socket.io session id (`sid`, for the successor: see guard.py) and when the lease expires. The holder
renews it every `ttl / 4` seconds from a thread of its own.

`acquire()` takes the lease when there is none, when it expired or was released, or when its holder was a process
on this host that no longer exists (a `kill -9`). Otherwise it watches the row for a moment: a holder that renews it
is alive, so the start is refused (`InstanceConflict`, naming the holder and what to do); one that lets it expire is
dead, and the lease is taken over. So a second instance is refused within `ttl / 4` seconds, and a crashed one on
another host is replaced within `ttl`.

A holder whose lease was taken over while it still ran (it stalled for longer than `ttl`) finds out at its next
renewal and calls `on_lost(message)`: the runtime then stops with a non-zero exit status.

Each operation uses a short-lived sqlite connection of its own (WAL, like the RoomStore), so the lease works before
and after the store and never waits for the rooms' writes.
"""
from __future__ import annotations

import logging
import os
import socket
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Callable, Optional

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS leases (
    server      TEXT NOT NULL,
    bot_user    INTEGER NOT NULL,
    holder      TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    host        TEXT NOT NULL,
    sid         TEXT,
    acquired_at REAL NOT NULL,
    expires     REAL NOT NULL,
    PRIMARY KEY (server, bot_user)
);
"""

DEFAULT_TTL = 20.0


class InstanceConflict(RuntimeError):
    """Another instance serves this bot user: the start was refused, or it took over while this one ran."""


@dataclass
class LeaseRow:
    holder: str
    pid: int
    host: str
    sid: Optional[str]
    acquired_at: float
    expires: float

    def describe(self) -> str:
        return f"process {self.pid} on host {self.host!r}"


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this host (a zombie counts as dead)."""
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _clock(t: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(t))


class Lease:
    def __init__(self, path: str, server: str, bot_user: int, ttl: float = DEFAULT_TTL,
                 on_lost: Optional[Callable[[str], None]] = None):
        self.path = path
        self.key = (str(server), int(bot_user))
        self.ttl = float(ttl)
        self.renew_every = self.ttl / 4
        self.on_lost = on_lost
        self.holder = uuid.uuid4().hex
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.held = False
        self.lost: Optional[str] = None  # why the lease was lost while running
        self.expires = 0.0
        self._sid: Optional[str] = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        with self._db() as db:
            db.executescript(SCHEMA)

    def __repr__(self) -> str:
        return f"Lease({self.key!r}, holder={self.holder[:8]}, held={self.held})"

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        return _Closing(db)

    def _read(self, db) -> Optional[LeaseRow]:
        row = db.execute("SELECT holder, pid, host, sid, acquired_at, expires FROM leases WHERE server=? AND bot_user=?",
                         self.key).fetchone()
        return LeaseRow(*row) if row else None

    # ------------------------------------------------------------------------------------------------------------
    def acquire(self, wait: Optional[float] = None) -> Optional[LeaseRow]:
        """Take the lease; returns the previous holder's row (released, expired or dead), or None if there was none.
        Raises InstanceConflict when a live holder keeps it (it renewed it while we watched, or it did not expire
        within `wait`, default ttl + a renewal)."""
        deadline = time.monotonic() + (self.ttl + self.renew_every if wait is None else wait)
        watched: Optional[LeaseRow] = None
        while True:
            with self._db() as db:
                db.execute("BEGIN IMMEDIATE")
                try:
                    row = self._read(db)
                    now = time.time()
                    why = self._free(row, now)
                    if why is not None:
                        self.expires = now + self.ttl
                        db.execute("INSERT OR REPLACE INTO leases VALUES (?,?,?,?,?,?,?,?)",
                                   (*self.key, self.holder, self.pid, self.host, None, now, self.expires))
                        db.execute("COMMIT")
                    else:
                        db.execute("ROLLBACK")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            if why is not None:
                self.held = True
                if row is not None and why != "released":
                    log.warning("took over the lease of %s for Slurk user %s on %s (%s)", row.describe(),
                                self.key[1], self.key[0], why)
                self._thread = threading.Thread(target=self._renew_loop, name="slurk-lease", daemon=True)
                self._thread.start()
                return row
            if watched is not None and (row.holder != watched.holder or row.expires != watched.expires):
                raise InstanceConflict(self._conflict(row, "it renewed its lease just now"))
            watched = row
            if time.monotonic() >= deadline:
                raise InstanceConflict(self._conflict(row, f"its lease is valid until {_clock(row.expires)}"))
            time.sleep(min(0.25, self.renew_every / 2))

    def _free(self, row: Optional[LeaseRow], now: float) -> Optional[str]:
        """Why the lease may be taken now, or None when a holder that may be alive keeps it."""
        if row is None:
            return "free"
        if row.holder == self.holder:
            return "ours"
        if row.expires <= 0:
            return "released"
        if row.expires <= now:
            return f"it expired at {_clock(row.expires)}"
        if row.host == self.host and row.pid != self.pid and not pid_alive(row.pid):
            return "that process no longer exists"
        return None

    def _conflict(self, row: LeaseRow, why: str) -> str:
        server, user = self.key
        here = row.host == self.host
        return (f"Another instance is serving Slurk user {user} on {server} from this state file ({self.path}): "
                f"{row.describe()}, running since {_clock(row.acquired_at)} ({why}). Two instances would answer "
                f"every event twice, and when one exits Slurk drops the other's connection. Stop that instance first"
                f"{f' (kill {row.pid})' if here else f' (on {row.host!r})'}, or give this one another bot user. "
                f"If it is dead, its lease expires by {_clock(row.expires)}; starting again after that takes over.")

    # ------------------------------------------------------------------------------------------------------------
    def set_sid(self, sid: Optional[str]) -> None:
        """Record our socket.io session id (written at the next renewal; `renew()` writes it now)."""
        self._sid = sid

    def renew(self) -> bool:
        """Extend the lease (and record our sid); False when another holder has it now."""
        now = time.time()
        with self._db() as db:
            cur = db.execute("UPDATE leases SET expires=?, sid=? WHERE server=? AND bot_user=? AND holder=?",
                             (now + self.ttl, self._sid, *self.key, self.holder))
            if cur.rowcount == 1:
                self.expires = now + self.ttl
                return True
            row = self._read(db)
        self._lose(f"the lease for Slurk user {self.key[1]} on {self.key[0]} in {self.path} was taken over by "
                   f"{row.describe() if row else 'nobody (the row is gone)'} while this instance ran (it could not "
                   f"renew it for more than {self.ttl:g} s); another instance is serving this bot user now")
        return False

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.renew_every):
            try:
                if not self.renew():
                    return
            except sqlite3.Error as exc:
                if time.time() < self.expires:
                    log.warning("cannot renew the lease (%s); trying again", exc)
                    continue
                self._lose(f"cannot renew the lease in {self.path} ({exc}) and it has expired")
                return

    def _lose(self, why: str) -> None:
        self.held = False
        if self.lost is None:
            self.lost = why
            log.error("%s", why)
            if self.on_lost is not None:
                self.on_lost(why)

    def release(self) -> None:
        """Give the lease up (the row stays, expired, with our sid, for the successor)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if not self.held:
            return
        self.held = False
        try:
            with self._db() as db:
                db.execute("UPDATE leases SET expires=0, sid=? WHERE server=? AND bot_user=? AND holder=?",
                           (self._sid, *self.key, self.holder))
        except sqlite3.Error as exc:  # pragma: no cover - it expires by itself
            log.warning("cannot release the lease (%s); it expires in %g s", exc, self.ttl)

    def row(self) -> Optional[LeaseRow]:
        with self._db() as db:
            return self._read(db)


class _Closing:
    """`with` for a connection that closes it (sqlite3's own context manager only ends a transaction)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, *exc) -> None:
        self.db.close()
