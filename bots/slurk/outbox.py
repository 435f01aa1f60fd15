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
  `game_start` / `game_input` rows, `resume.lost_log_events`).
- Shipping threads post each room's events in order, one request at a time per room, without waiting for the row
  (an event lost with the process before its row is committed was lost either way, and a row written after Slurk
  accepted its event is recognised as shipped, see below). A room's new events wait out `ship_delay` (counted from
  the oldest), then its first event and the ones after it with the same receiver go as ONE log row (a batch,
  `logbatch.py`: up to `batch_rows` events and `batch_bytes` of JSON; a single event goes as its own row, as
  before), so Slurk commits once per batch, not once per event. `hurry(room)` (a finished game) and `stop()` skip
  the delay. What is out is recorded as a watermark per room (`outbox_table.py`: the newest outbox id that is out
  and the newest log id Slurk gave us), in batches off the rooms' threads; the rows below it are deleted in bulk
  now and then.
- Transient failures (no connection, a timeout, 408, 429, 5xx) are retried for as long as it takes, with
  exponential back-off (`BASE_DELAY` doubling up to `MAX_DELAY`, with jitter); the room waits, other rooms go on.
  When Slurk answers another request again, rooms waiting after a failure are tried again at once (once per event,
  so an event that keeps failing on its own still backs off). A batch is retried as a unit (regrouped: it may
  take the room's newer events along).
- Permanent failures (any other 4xx) drop the event, or the batch, with a warning naming the events and the status
  (never data or credentials); a 413 (too large) sends the batch's events one by one instead.
- An event whose fate is unknown (the request may have reached Slurk: a read timeout, a dropped connection, a 500,
  502 or 504; or the event a killed process had in flight) is first looked for in Slurk's log (rows of that room
  newer than the last one Slurk accepted from us: its own row, same event, receiver and data, or a batch row
  holding its outbox id with that content) before it is posted again, so it is not doubled. If it is found in a
  batch, every queued event that batch holds is out with it (a batch is regrouped after a failure or a restart,
  so the one found may differ from the last one tried). Every request starts at the room's first waiting event,
  so if that one is not found, no request holding a later one reached Slurk either: they are no longer in doubt
  (except those a batch row in the log names; a previous process may have gone on after giving one up).
- At start the events a previous process left in the outbox are queued first, in their order, as "in doubt" (the
  process may have died after Slurk accepted them but before they were marked as out): each room's first one is
  looked for, and what it was found in is out, until one is not found (see above). `drain_leftover()` waits until
  they are out (the runtime does that before it connects).

Without a store (`outbox=None`) the same shipper keeps its queue in memory only (tests, tools).
"""
from __future__ import annotations

import collections
import heapq
import itertools
import json
import logging
import threading
import time
from typing import Optional

from . import logbatch
from .outbox_table import Outbox, OutboxEntry, describe
from .recent import RecentMap
from .rest import SlurkAPIError
from .retry import BASE_DELAY, MAX_DELAY, backoff, is_transient
from .roompool import RoomPool

log = logging.getLogger(__name__)

STORE_WINDOW = 0.05  # seconds the storing thread lets events gather before it writes them (one statement for all)
COMMIT_WAIT = 30.0  # the longest wait for a commit of the state database (normally milliseconds)


class OutboxShipper(RoomPool):
    """Posts log events in order per room from a small pool of threads (`RoomPool`), a room's queued events with one
    receiver as one batch row (`logbatch.py`), with the retry policy above. `accepted` / `dropped` count events,
    `posts` the requests Slurk accepted."""

    name = "logs"

    def __init__(self, rest, outbox: Optional[Outbox] = None, threads: int = 16,
                 base_delay: float = BASE_DELAY, max_delay: float = MAX_DELAY, ship_delay: float = 0.0,
                 batch_rows: int = logbatch.MAX_ROWS, batch_bytes: int = logbatch.MAX_BYTES):
        self.rest = rest
        self.outbox = outbox
        self.base_delay, self.max_delay = base_delay, max_delay
        # A room's new events wait this long before they go (one request for all of them), so the replies people
        # wait for (sent at the same moment) reach a busy Slurk worker first, and a game costs Slurk few commits.
        self.ship_delay = ship_delay
        self.batch_rows, self.batch_bytes = batch_rows, batch_bytes  # caps of one batch row (1: no batches)
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)  # shipping threads and drain()
        self._store_cond = threading.Condition(self._lock)  # the storing thread
        self._unstored: list[OutboxEntry] = []  # posted, row not yet queued for the database
        self._stopping = threading.Event()
        self._queues: dict[int, "collections.deque[OutboxEntry]"] = {}
        self._ready: "collections.deque[int]" = collections.deque()  # rooms whose first event may go now
        self._sleeping: list = []  # heap of (due, room): rooms waiting out the ship delay or after a failure
        self._due: dict[int, float] = {}  # room -> its current due time (entries in _sleeping that differ are stale)
        self._failing = 0  # rooms whose first event waits after a failure (not just out its ship delay)
        self._busy: set[int] = set()  # rooms that are ready, sleeping or being shipped
        self._hurried: set[int] = set()  # rooms whose events go without the ship delay until their queue is empty
        self._count = 0
        self._leftover = 0
        # room -> the newest log row Slurk made for it (the floor when looking for an event in doubt), recent rooms
        self._acked = RecentMap(outbox.acked if outbox is not None else {})
        self._memory_ids = 0
        self._done: list[tuple] = []  # (id, room, log id) accepted or given up, not yet marked in the table
        self._stopped = False
        self.accepted = self.dropped = self.posts = 0  # counters, for diagnostics and tests
        if outbox is not None:
            with self._cond:
                for oid, room, event, data_json, receiver_id in outbox.leftover():
                    # in doubt until one of the room's is found not to be in Slurk's log (the rest cannot be)
                    e = OutboxEntry(oid, int(room), event, json.loads(data_json), data_json, receiver_id, leftover=True)
                    self._enqueue(e)
            if self._leftover:
                log.info("%d log events left in the outbox by the previous run go out first", self._leftover)
        self._threads = self._serving_threads(threads)
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
                e = OutboxEntry(self.outbox.new_id(), room, event, data, data_json, receiver_id, turn)
                self._unstored.append(e)
                self._store_cond.notify()
            else:
                self._memory_ids += 1
                e = OutboxEntry(self._memory_ids, room, event, data, data_json, receiver_id, turn)
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

    def _enqueue(self, e: OutboxEntry) -> None:  # holding the lock
        self._queues.setdefault(e.room, collections.deque()).append(e)
        self._count += 1
        self._leftover += e.leftover
        if e.room not in self._busy:
            self._busy.add(e.room)
            self._schedule(e.room, e)

    def _schedule(self, room: int, head: OutboxEntry) -> None:  # holding the lock
        """The room's next request goes `ship_delay` after its oldest waiting event was queued (at once for a
        leftover or a hurried room): what the room produces meanwhile goes with it."""
        due = 0.0
        if self.ship_delay > 0 and not head.leftover and room not in self._hurried:
            due = head.queued_at + self.ship_delay
        if due > time.monotonic():
            self._due[room] = due
            heapq.heappush(self._sleeping, (due, room))
        else:
            self._ready.append(room)
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

    def wake(self) -> None:
        """Slurk is back (e.g. the socket reconnected): rooms waiting after a failure try again now (once per event)."""
        with self._cond:
            self._wake_sleepers(time.monotonic())

    def hurry(self, room: int) -> None:
        """The room's events go without waiting out `ship_delay`, now and until its queue is empty (a finished game:
        its record is wanted at once)."""
        with self._cond:
            self._hurry(int(room))

    def _hurry(self, room: int) -> None:  # holding the lock
        q = self._queues.get(room)
        if not q:
            return
        self._hurried.add(room)  # also what the room queues while a request of it is under way
        if room in self._due and q[0].attempts == 0:  # waiting out its delay, not after a failure
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
            for room in list(self._queues):  # nothing waits out its ship delay any more
                self._hurry(room)
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

    def _take(self, room: int) -> OutboxEntry:  # holding the lock: the first event (`_ship` forms its batch)
        return self._queues[room][0]

    def _serve_room(self, room: int, head: OutboxEntry) -> None:
        started = time.monotonic()
        try:
            outcome, log_id, group = self._ship(room, head)
        except Exception:  # pragma: no cover - _ship handles Slurk's answers; this is a bug
            log.exception("room %s: log event %r could not be shipped; dropped", room, head.event)
            outcome, log_id, group = "dropped", None, [head]
        with self._cond:
            if outcome == "retry":
                if head.attempts == 1:
                    self._failing += 1
                due = time.monotonic() + backoff(head.attempts, self.base_delay, self.max_delay)
                self._due[room] = due
                heapq.heappush(self._sleeping, (due, room))
                self._cond.notify()
                return
            queue = self._queues[room]
            for e in group:  # the front of the queue: only this thread takes from it
                queue.popleft()
                if self.outbox is not None:
                    self._done.append((e.oid, room, log_id))  # marked in the table by the storing thread
            if self.outbox is not None:
                self._store_cond.notify()
            if log_id is not None:
                self._acked[room] = max(self._acked.get(room, 0), int(log_id))
            if head.attempts:
                self._failing -= 1
            self._count -= len(group)
            self._leftover -= sum(e.leftover for e in group)
            if outcome == "dropped":
                self.dropped += len(group)
            else:
                self.accepted += len(group)
                self.posts += outcome == "accepted"
                if self._failing:  # Slurk answers again: rooms that failed before this request try again now
                    self._wake_sleepers(time.monotonic(), before=started)
            if queue:
                self._schedule(room, queue[0])
            else:
                del self._queues[room]
                self._busy.discard(room)
                self._hurried.discard(room)
            self._cond.notify_all()

    def _batch(self, room: int) -> list:  # holding the lock
        """The room's first event and the events after it that may go in one row with it: same receiver, none in
        doubt (each of those is looked for first), up to `batch_rows` events and `batch_bytes` of JSON."""
        queue = self._queues[room]
        head = queue[0]
        group = [head]
        if head.alone or not logbatch.batchable(head.event):
            return group
        total = logbatch.size(head.event, head.data_json)
        for e in itertools.islice(queue, 1, None):
            if len(group) >= self.batch_rows or e.in_doubt or e.alone or e.receiver_id != head.receiver_id \
                    or not logbatch.batchable(e.event):
                break
            total += logbatch.size(e.event, e.data_json)
            if total > self.batch_bytes:
                break
            group.append(e)
        return group

    def _ship(self, room: int, head: OutboxEntry) -> tuple[str, Optional[int], list]:
        """One attempt for the room's first event and those that go with it: ("accepted", log id, events),
        ("found", log id, events) (an earlier attempt had posted them), ("dropped", None, events) or
        ("retry", None, [])."""
        group = [head]
        posting = False
        try:
            if head.in_doubt:
                found = head.posted_in or self._find_posted(head)
                if found is not None:
                    log_id, members = found
                    with self._cond:
                        group = self._found(room, head, members)
                    log.info("room %s: %s had reached Slurk already (log %s)", room, describe(group), log_id)
                    self._recovered(head)
                    return "found", log_id, group
            with self._cond:
                group = self._batch(room)
            for e in group:
                if e.turn is not None:  # the input's turnaround clock (metrics.Turn): its first effect left
                    e.turn.sent()
            posting = True
            if len(group) == 1:
                row = self.rest.post_log(head.event, room, head.data, receiver_id=head.receiver_id)
            else:
                row = self.rest.post_log(logbatch.BATCH_EVENT, room,
                                         logbatch.pack((e.event, e.data, e.oid) for e in group),
                                         receiver_id=head.receiver_id)
            for e in group:
                if e.turn is not None:
                    e.turn.done()
        except SlurkAPIError as exc:
            what = describe(group)
            if is_transient(exc):
                head.attempts += 1
                head.failed_at = time.monotonic()
                if posting and (exc.in_doubt or exc.status in (500, 502, 504)):
                    for e in group:  # the row may be in Slurk's log: each is looked for before it goes again
                        e.in_doubt = True
                if head.attempts in (1, 10) or head.attempts % 50 == 0:
                    log.warning("room %s: %s waits in the outbox: Slurk answered %s (%s); retrying with back-off "
                                "(attempt %d)", room, what, exc.status or "nothing", exc.message, head.attempts)
                return "retry", None, []
            if exc.status == 413 and len(group) > 1:  # too large for Slurk (or a proxy): one request each
                log.warning("room %s: %s were too large for one request (%s); they go one by one", room, what,
                            exc.status)
                for e in group:
                    e.alone = True
                return "retry", None, []
            log.warning("room %s: %s dropped: Slurk refused %s with %s (%s)", room, what,
                        "it" if len(group) == 1 else "them", exc.status, exc.message)
            return "dropped", None, group
        self._recovered(head)
        log_id = row.get("id") if isinstance(row, dict) else None
        return "accepted", (int(log_id) if isinstance(log_id, int) else None), group

    def _recovered(self, e: OutboxEntry) -> None:
        if e.attempts:
            log.info("room %s: Slurk accepts log events again (after %d failed attempts)", e.room, e.attempts)

    def _found(self, room: int, head: OutboxEntry, members: dict) -> list:  # holding the lock
        """The queue's first events that the row found in Slurk's log holds (by outbox id and content; each in doubt:
        an event never tried, or found not posted, cannot be in it, whatever id an older process gave its rows)."""
        group = []
        for e in self._queues[room]:
            if not e.in_doubt or members.get(e.oid) != e.content():
                break
            group.append(e)
        return group or [head]

    def _find_posted(self, e: OutboxEntry) -> Optional[tuple[int, dict]]:
        """(log id, {outbox id: (event, data, receiver)} of the events that row holds) if an earlier attempt posted
        this event, on its own or in a batch (a row of the room, newer than the last one Slurk accepted from us,
        with the same event, receiver and data; in a batch also the same outbox id), else None. A 4xx answer to the
        check (e.g. a token that may not read logs) means posting it again.

        Not found: no request that held a later event of the room reached Slurk either (every request starts at the
        room's first waiting event, so each one since holds this one too), so the later ones are no longer in doubt,
        except those a batch row in the log names (a previous process may have gone on after giving this one up)."""
        try:
            rows = self.rest.get_logs(room_id=e.room, event=e.event, expand=False)
            inner = []
            if logbatch.batchable(e.event):
                inner = logbatch.expand(self.rest.get_logs(room_id=e.room, event=logbatch.BATCH_EVENT, expand=False))
        except SlurkAPIError as exc:
            if is_transient(exc):
                raise
            log.info("room %s: cannot check whether log event %r reached Slurk (%s); posting it again",
                     e.room, e.event, exc.status)
            e.in_doubt = False
            return None
        floor = self._acked.get(e.room, 0)

        def ours(row) -> bool:
            rid = row.get("id")
            return isinstance(rid, int) and rid > floor and row.get("user_id") is None

        inner = [r for r in inner if ours(r)]
        content = e.content()
        hits = [r for r in rows if ours(r) and r.get("event") == e.event and "batch" not in r
                and (r.get("event"), r.get("data"), r.get("receiver_id")) == content]
        hits += [r for r in inner if r.get("oid") == e.oid and (r["event"], r["data"], r.get("receiver_id")) == content]
        if hits:
            row = min(hits, key=lambda r: r["id"])  # the oldest match: each row matches one event
            if "batch" not in row:
                return row["id"], {e.oid: content}
            return row["id"], {r.get("oid"): (r["event"], r["data"], r.get("receiver_id"))
                               for r in inner if r["batch"] == row["id"]}
        named: dict = {}  # outbox id -> (content, batch row id), the oldest naming it
        for r in sorted(inner, key=lambda r: r["id"]):
            named.setdefault(r.get("oid"), ((r["event"], r["data"], r.get("receiver_id")), r["id"]))
        with self._cond:
            e.in_doubt = False
            for later in self._queues.get(e.room, ()):
                seen, rid = named.get(later.oid, (None, None))
                if not later.in_doubt or later.posted_in is not None:
                    continue
                if seen != later.content():
                    later.in_doubt = False
                else:  # out when it heads the queue (this one goes first, so the floor will pass that row)
                    later.posted_in = (rid, {r.get("oid"): (r["event"], r["data"], r.get("receiver_id"))
                                             for r in inner if r["id"] == rid})
        return None
