"""The durable log outbox: every log event the bot posts waits in the state database until Slurk accepted it.

A room's log (`POST /logs`) is the study's record: `replay` rebuilds each game from it. Before this module a log
event was retried for about a second and then dropped, so a short Slurk outage (a restart, a proxy answering 503)
left holes in the record. Now:

- `LogShipper.post()` (on the room's thread) gives the event an id, hands it to the storing thread and returns:
  no network, no waiting for the disk. The storing thread writes the rows of the events of the last
  `STORE_WINDOW` (50 ms) in one statement through the `RoomStore`'s database thread (`RoomStore.write_later`), so
  they join that thread's group commits and the file keeps a single writer: the rooms' own writes (every input
  is stored before its effects go out) barely notice. The price: an event produced in the last 50 ms before a
  `kill -9` that Slurk had not accepted yet is lost (as it was before; the resumed room re-posts lost
  `game_start` / `game_input` rows, `rooms.RoomWorker._backfill_logs`).
- Shipping threads post each room's events in order, one at a time per room, without waiting for the row (an
  event lost with the process before its row is committed was lost either way, and a row written after Slurk
  accepted its event is recognised as shipped, see below). What is out is recorded as a
  watermark per room (`outbox_rooms`: the newest outbox id that is out and the newest log id Slurk gave us), in
  batches off the rooms' threads; the rows below it are deleted in bulk now and then.
- Transient failures (no connection, a timeout, 408, 429, 5xx) are retried for as long as it takes, with
  exponential back-off (`BASE_DELAY` doubling up to `MAX_DELAY`, with jitter); the room waits, other rooms go on.
  When Slurk answers another request again, rooms waiting after a failure are tried again at once (once per event,
  so an event that keeps failing on its own still backs off).
- Permanent failures (any other 4xx) drop the event with a warning naming the event and the status (never data or
  credentials).
- An event whose fate is unknown (the request may have reached Slurk: a read timeout, a dropped connection, a 500,
  502 or 504; or the event a killed process had in flight) is first looked for in Slurk's log (rows of that room
  and event newer than the last one Slurk accepted from us) before it is posted again, so it is not doubled.
- At start the events a previous process left in the outbox are queued first, in their order, as "in doubt" (the
  process may have died after Slurk accepted them but before they were marked as out): each is looked for, until
  one of a room's is not found (shipping is in order, so none after it was posted either). `drain_leftover()`
  waits until they are out (the runtime does that before it connects).

Without a store (`outbox=None`) the same shipper keeps its queue in memory only (tests, tools).
"""
from __future__ import annotations

import collections
import heapq
import json
import logging
import random
import threading
import time
from typing import TYPE_CHECKING, Optional

from .rest import SlurkAPIError

if TYPE_CHECKING:  # pragma: no cover
    from .store import RoomStore

log = logging.getLogger(__name__)

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

BASE_DELAY = 0.25  # seconds before the first retry; doubles per failed attempt
MAX_DELAY = 15.0  # the back-off's cap
STORE_WINDOW = 0.05  # seconds the storing thread lets events gather before it writes them (one statement for all)
COMMIT_WAIT = 30.0  # the longest wait for a commit of the state database (normally milliseconds)


def is_transient(exc: SlurkAPIError) -> bool:
    """No answer, a timeout (408), too many requests (429) or a server error (5xx): worth trying again."""
    return exc.status == 0 or exc.status in (408, 429) or exc.status >= 500


def backoff(attempts: int, base: float = BASE_DELAY, cap: float = MAX_DELAY) -> float:
    """The wait before attempt `attempts + 1`: base * 2^(attempts-1), capped, with jitter (50-100 %)."""
    return min(cap, base * 2 ** max(0, attempts - 1)) * random.uniform(0.5, 1.0)


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
        self.acked = {room: log_id for room, (_, log_id) in marks.items()}
        self._marks = dict(marks)  # room -> (shipped id, log id), as written
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
            "SELECT room_id, shipped, log_id FROM outbox_rooms WHERE server=? AND bot_user=?", self.key).fetchall()}
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
            shipped, newest = changed.get(room) or self._marks.get(room) or (0, 0)
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
            job = self.store.write_later("DELETE FROM outbox WHERE server=? AND bot_user=? AND room_id=? AND id <= ?",
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


class _Entry:
    __slots__ = ("oid", "room", "event", "data", "data_json", "receiver_id", "turn", "attempts", "in_doubt",
                 "leftover", "woken", "failed_at")

    def __init__(self, oid, room, event, data, data_json, receiver_id, turn=None, leftover=False):
        self.oid, self.room, self.event, self.data, self.data_json = oid, room, event, data, data_json
        self.receiver_id, self.turn, self.leftover = receiver_id, turn, leftover
        self.attempts = 0
        self.in_doubt = leftover  # a leftover may have reached Slurk before the crash (see _find_posted)
        self.woken = False
        self.failed_at = 0.0


class OutboxShipper:
    """Posts log events in order per room from a small pool of threads, with the retry policy above."""

    name = "logs"

    def __init__(self, rest, outbox: Optional[Outbox] = None, threads: int = 16,
                 base_delay: float = BASE_DELAY, max_delay: float = MAX_DELAY, ship_delay: float = 0.0):
        self.rest = rest
        self.outbox = outbox
        self.base_delay, self.max_delay = base_delay, max_delay
        # A room's new events wait this long before the first is posted, so the replies people wait for (sent at
        # the same moment) reach a busy Slurk worker first; a burst then goes out back to back.
        self.ship_delay = ship_delay
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)  # shipping threads and drain()
        self._store_cond = threading.Condition(self._lock)  # the storing thread
        self._unstored: list[_Entry] = []  # posted, row not yet queued for the database
        self._stopping = threading.Event()
        self._queues: dict[int, "collections.deque[_Entry]"] = {}
        self._ready: "collections.deque[int]" = collections.deque()  # rooms whose first event may go now
        self._sleeping: list = []  # heap of (due, room): rooms waiting after a transient failure
        self._due: dict[int, float] = {}  # room -> its current due time (entries in _sleeping that differ are stale)
        self._failing = 0  # rooms whose first event waits after a failure (not just out its ship delay)
        self._busy: set[int] = set()  # rooms that are ready, sleeping or being shipped
        self._count = 0
        self._leftover = 0
        self._acked: dict[int, int] = dict(outbox.acked) if outbox is not None else {}
        self._memory_ids = 0
        self._done: list[tuple] = []  # (id, room, log id) accepted or given up, not yet marked in the table
        self._stopped = False
        self.accepted = self.dropped = 0  # counters, for diagnostics and tests
        if outbox is not None:
            with self._cond:
                for oid, room, event, data_json, receiver_id in outbox.leftover():
                    # in doubt until one of the room's is found not to be in Slurk's log (the rest cannot be)
                    e = _Entry(oid, int(room), event, json.loads(data_json), data_json, receiver_id, leftover=True)
                    self._enqueue(e)
            if self._leftover:
                log.info("%d log events left in the outbox by the previous run go out first", self._leftover)
        self._threads = [threading.Thread(target=self._serve, name=f"slurk-{self.name}-{i}", daemon=True)
                         for i in range(threads)]
        self._storer = threading.Thread(target=self._store_loop, name=f"slurk-{self.name}-store", daemon=True)
        for t in [*self._threads, self._storer]:
            t.start()

    # --- the room's side ----------------------------------------------------------------------------------------
    def post(self, room: int, event: str, data: dict, receiver_id: Optional[int] = None, turn=None) -> None:
        """Queue one log event. Cheap, on the room's thread: serialise it and hand it over; the storing thread
        writes its row (batched with others) while a shipping thread posts it."""
        room = int(room)
        data = data or {}
        data_json = json.dumps(data)
        receiver_id = None if receiver_id is None else int(receiver_id)
        with self._lock:
            if self.outbox is not None:
                e = _Entry(self.outbox.new_id(), room, event, data, data_json, receiver_id, turn)
                self._unstored.append(e)
                self._store_cond.notify()
            else:
                self._memory_ids += 1
                e = _Entry(self._memory_ids, room, event, data, data_json, receiver_id, turn)
            self._enqueue(e)

    def _store_loop(self) -> None:
        """Keep the table up to date, off the rooms' threads: every `STORE_WINDOW` seconds at most, write the rows
        of the events posted meanwhile (one statement) and mark those that are out (one statement), both joining
        the RoomStore's next group commit, then wait for that commit. Ends once stopped and nothing is left.

        Shipping does not wait for the row: an event lost with the process before its row is committed was lost
        either way (as if it had never been produced), and one that Slurk accepted before its row was written is
        marked as out in the same commit, or found in Slurk's log at the next start (`_find_posted`)."""
        while True:
            with self._lock:
                while not (self._unstored or self._done) and not self._stopped:
                    self._store_cond.wait()
                if not (self._unstored or self._done):
                    return
                stopped = self._stopped
            if not stopped:
                self._stopping.wait(STORE_WINDOW)  # let a batch gather: one write for many events
            with self._lock:
                batch, self._unstored = self._unstored, []
                done, self._done = self._done, []
            error = None
            try:
                job = self.outbox.add(batch) if batch else None
                job = (self.outbox.mark(done) if done else None) or job
                if job is not None and not job.done.wait(COMMIT_WAIT):
                    error = TimeoutError("the state database did not commit in time")
                elif job is not None:
                    error = job.error
            except Exception as exc:  # pragma: no cover - the store is closed
                error = exc
            if error is not None:
                log.warning("the log outbox could not be written (%s); %d new events are only kept in memory",
                            type(error).__name__, len(batch))

    def _enqueue(self, e: _Entry) -> None:  # holding the lock
        self._queues.setdefault(e.room, collections.deque()).append(e)
        self._count += 1
        self._leftover += e.leftover
        if e.room not in self._busy:
            self._busy.add(e.room)
            if self.ship_delay > 0 and not e.leftover:
                due = time.monotonic() + self.ship_delay
                self._due[e.room] = due
                heapq.heappush(self._sleeping, (due, e.room))
            else:
                self._ready.append(e.room)
            self._cond.notify()

    def pending(self, room: Optional[int] = None) -> int:
        """Events not yet accepted (or given up), of one room or of all."""
        with self._cond:
            if room is None:
                return self._count
            return len(self._queues.get(int(room), ()))

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every queued event is accepted or given up; False if some are still waiting at the timeout."""
        return self._wait_for(lambda: self._count == 0, timeout)

    def drain_leftover(self, timeout: float = 30.0) -> bool:
        """Wait until the events left by the previous process are out (they go before anything newer)."""
        return self._wait_for(lambda: self._leftover == 0, timeout)

    def _wait_for(self, pred, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def wake(self) -> None:
        """Slurk is back (e.g. the socket reconnected): rooms waiting after a failure try again now (once per event)."""
        with self._cond:
            self._wake_sleepers(time.monotonic())

    def hurry(self, room: int) -> None:
        """The room's events waiting out `ship_delay` go now (a finished game: its record is wanted at once)."""
        with self._cond:
            room = int(room)
            q = self._queues.get(room)
            if room in self._due and q and q[0].attempts == 0:
                del self._due[room]
                self._sleeping = [(d, r) for d, r in self._sleeping if r != room]
                heapq.heapify(self._sleeping)
                self._ready.append(room)
                self._cond.notify()

    def stop(self, timeout: float = 10.0) -> None:
        """Ship what is queued (up to `timeout`), then stop. What is left stays in the outbox for the next start."""
        self._stopping.set()  # the storing thread writes what it has now, not after its window
        with self._cond:
            self._store_cond.notify_all()
        if not self.drain(timeout):
            with self._cond:
                left = self._count
            if self.outbox is not None:
                log.warning("%d log events wait in the outbox; they go out when the bot starts again", left)
            else:
                log.warning("%d log events were dropped at stop (no outbox)", left)
        with self._cond:
            self._stopped = True
            self._stopping.set()
            self._cond.notify_all()
            self._store_cond.notify_all()
        for t in self._threads:
            t.join(timeout=2)
        with self._cond:
            self._store_cond.notify_all()
        self._storer.join(timeout=COMMIT_WAIT)  # the table is up to date before the store closes
        if self.outbox is not None:
            self.outbox.prune()

    # --- shipping -----------------------------------------------------------------------------------------------
    def _wake_sleepers(self, now: float, before: Optional[float] = None) -> None:  # holding the lock
        """Make rooms waiting after a failure (that happened before `before`) ready now, once per event."""
        for room in list(self._due):
            e = self._queues[room][0]
            # never tried yet: waiting out `ship_delay`, not a failure
            if e.woken or e.attempts == 0 or (before is not None and e.failed_at > before):
                continue
            e.woken = True
            del self._due[room]
            self._ready.append(room)
        self._sleeping = [(d, r) for d, r in self._sleeping if self._due.get(r) == d]
        heapq.heapify(self._sleeping)
        self._cond.notify_all()

    def _next_room(self) -> Optional[int]:  # holding the lock
        while True:
            if self._stopped:
                return None
            now = time.monotonic()
            while self._sleeping and self._sleeping[0][0] <= now:
                due, room = heapq.heappop(self._sleeping)
                if self._due.get(room) == due:
                    del self._due[room]
                    self._ready.append(room)
            if self._ready:
                return self._ready.popleft()
            self._cond.wait(self._sleeping[0][0] - now if self._sleeping else None)

    def _serve(self) -> None:
        while True:
            with self._cond:
                room = self._next_room()
                if room is None:
                    return
                e = self._queues[room][0]
            started = time.monotonic()
            try:
                outcome, log_id = self._ship(e)
            except Exception:  # pragma: no cover - _ship handles Slurk's answers; this is a bug
                log.exception("room %s: log event %r could not be shipped; dropped", room, e.event)
                outcome, log_id = "dropped", None
            with self._cond:
                if outcome == "retry":
                    if e.attempts == 1:
                        self._failing += 1
                    due = time.monotonic() + backoff(e.attempts, self.base_delay, self.max_delay)
                    self._due[room] = due
                    heapq.heappush(self._sleeping, (due, room))
                    self._cond.notify()
                    continue
                if self.outbox is not None:
                    self._done.append((e.oid, room, log_id))  # marked in the table by the storing thread
                    self._store_cond.notify()
                if log_id is not None:
                    self._acked[room] = max(self._acked.get(room, 0), int(log_id))
                queue = self._queues[room]
                queue.popleft()
                if e.attempts:
                    self._failing -= 1
                self._count -= 1
                self._leftover -= e.leftover
                if outcome == "accepted":
                    self.accepted += 1
                    if self._failing:  # Slurk answers again: rooms that failed before this request try again now
                        self._wake_sleepers(time.monotonic(), before=started)
                else:
                    self.dropped += 1
                if queue:
                    self._ready.append(room)
                else:
                    del self._queues[room]
                    self._busy.discard(room)
                self._cond.notify_all()

    def _ship(self, e: _Entry) -> tuple[str, Optional[int]]:
        """One attempt: ("accepted", log id), ("dropped", None) or ("retry", None)."""
        try:
            if e.in_doubt:
                found = self._find_posted(e)
                if found is not None:
                    log.info("room %s: log event %r had reached Slurk already (log %s)", e.room, e.event, found)
                    self._recovered(e)
                    return "accepted", found
            if e.turn is not None:  # the input's turnaround clock (delivery.Turn): its first effect left
                e.turn.sent()
            row = self.rest.post_log(e.event, e.room, e.data, receiver_id=e.receiver_id)
            if e.turn is not None:
                e.turn.done()
        except SlurkAPIError as exc:
            if is_transient(exc):
                e.attempts += 1
                e.failed_at = time.monotonic()
                e.in_doubt = e.in_doubt or exc.in_doubt or exc.status in (500, 502, 504)
                if e.attempts in (1, 10) or e.attempts % 50 == 0:
                    log.warning("room %s: log event %r waits in the outbox: Slurk answered %s (%s); retrying with "
                                "back-off (attempt %d)", e.room, e.event, exc.status or "nothing", exc.message,
                                e.attempts)
                return "retry", None
            log.warning("room %s: log event %r dropped: Slurk refused it with %s (%s)", e.room, e.event, exc.status,
                        exc.message)
            return "dropped", None
        self._recovered(e)
        log_id = row.get("id") if isinstance(row, dict) else None
        return "accepted", (int(log_id) if isinstance(log_id, int) else None)

    def _recovered(self, e: _Entry) -> None:
        if e.attempts:
            log.info("room %s: Slurk accepts log events again (after %d failed attempts)", e.room, e.attempts)

    def _find_posted(self, e: _Entry) -> Optional[int]:
        """The id of this event's row if an earlier attempt reached Slurk (a row of the room and event, newer than
        the last one Slurk accepted from us, with the same receiver and data), else None. A 4xx answer to the check
        (e.g. a token that may not read logs) means posting it again."""
        try:
            rows = self.rest.get_logs(room_id=e.room, event=e.event)
        except SlurkAPIError as exc:
            if is_transient(exc):
                raise
            log.info("room %s: cannot check whether log event %r reached Slurk (%s); posting it again",
                     e.room, e.event, exc.status)
            e.in_doubt = False
            return None
        floor = self._acked.get(e.room, 0)
        data = json.loads(e.data_json)
        for row in sorted(rows, key=lambda r: r.get("id") or 0):  # the oldest match: each row matches one event
            rid = row.get("id")
            if (isinstance(rid, int) and rid > floor and row.get("user_id") is None
                    and row.get("receiver_id") == e.receiver_id and row.get("data") == data):
                return rid
        e.in_doubt = False
        if e.leftover:  # shipped in order: if this one never reached Slurk, none after it did
            with self._cond:
                for later in self._queues.get(e.room, ()):
                    if later is not e and later.leftover:
                        later.in_doubt = False
        return None
