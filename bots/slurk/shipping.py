"""What leaves the rooms' threads for Slurk's REST API: shared pools of threads that keep each room's order, so a slow
server does not hold up a room's next event, nor one room another.

- `PageUpdates` (on `RoomLanes`): per-user page updates; a newer view of a seat replaces one still waiting.
- `LogShipper`: log events, through the durable outbox (`outbox.py`).
"""
from __future__ import annotations

import collections
import json
import logging
import threading
import time
from typing import Optional, Protocol

from .metrics import Turn, mark, mark_done
from .outbox import OutboxShipper
from .rest import SlurkAPIError
from .roompool import RoomPool

log = logging.getLogger(__name__)


class PageOwner(Protocol):
    """The room a page update belongs to (`delivery.Delivery`): its id, and where an update goes that its person's
    page did not get (a 422: not online)."""

    room: int

    def bounced(self, seat: str, item: tuple, gen: int) -> None: ...


class RoomLanes(RoomPool):
    """Jobs run on a shared pool of threads (`RoomPool`), in order per room: one room's jobs never run concurrently,
    and a slow room occupies at most one thread. A job submitted with a `key` that is still waiting replaces the
    waiting one (`_merge`), e.g. a newer view of the same seat."""

    name = "lanes"

    def __init__(self, threads: int = 16):
        self._cond = threading.Condition()
        self._jobs: dict[int, "collections.OrderedDict"] = {}
        self._ready: "collections.deque[int]" = collections.deque()
        self._busy: set[int] = set()  # rooms that are ready, held or being served
        self._pending: "collections.Counter[int]" = collections.Counter()
        self._held: dict[int, float] = {}  # room -> until when its next jobs wait (`hold`)
        self._stopped = False
        self._threads = self._serving_threads(threads)
        for t in self._threads:
            t.start()

    def _submit(self, room: int, job, key=None) -> None:
        with self._cond:
            jobs = self._jobs.setdefault(room, collections.OrderedDict())
            if key is not None and key in jobs:
                jobs[key] = self._merge(jobs[key], job)
                return
            jobs[object() if key is None else key] = job
            self._pending[room] += 1
            if room not in self._busy:
                self._busy.add(room)
                self._ready.append(room)
                self._cond.notify()

    def _merge(self, old, new):  # pragma: no cover - overridden where keys are used
        return new

    def _run(self, room: int, job) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def pending(self, room: int) -> int:
        with self._cond:
            return self._pending.get(room, 0)

    def drain(self, timeout: float = 10.0) -> bool:
        return self._wait_for(lambda: not self._pending, timeout)

    def stop(self, timeout: float = 10.0) -> None:
        if not self.drain(timeout):
            with self._cond:
                left = sum(self._pending.values())
            log.warning("%d %s jobs were dropped at stop", left, self.name)
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        for t in self._threads:
            t.join(timeout=2)

    def hold(self, room: int, seconds: float) -> None:
        """The room's jobs not yet started wait until `release(room)` or for at most `seconds`."""
        with self._cond:
            now = time.monotonic()
            for r in [r for r, until in self._held.items() if until <= now]:
                del self._held[r]  # lapsed holds of rooms with nothing queued (a finished room leaves nothing)
            self._held[room] = now + seconds

    def release(self, room: int) -> None:
        with self._cond:
            if self._held.pop(room, None) is not None:
                self._cond.notify_all()

    def _next_room(self) -> Optional[int]:  # holding the lock: a ready room that is not held, or None at stop
        while True:
            if self._stopped:
                return None
            now = time.monotonic()
            for _ in range(len(self._ready)):
                room = self._ready.popleft()
                until = self._held.get(room)
                if until is None or until <= now:
                    self._held.pop(room, None)
                    return room
                self._ready.append(room)
            waits = [u - now for r, u in self._held.items() if r in self._ready]
            self._cond.wait(min(waits) if waits else None)

    def _take(self, room: int):  # holding the lock
        _key, job = self._jobs[room].popitem(last=False)
        return job

    def _serve_room(self, room: int, job) -> None:
        try:
            self._run(room, job)
        except Exception:  # pragma: no cover - _run handles its own errors
            log.exception("room %s: %s job failed", room, self.name)
        finally:
            with self._cond:
                self._pending[room] -= 1
                if self._pending[room] <= 0:
                    del self._pending[room]
                if self._jobs[room]:
                    self._ready.append(room)
                    self._cond.notify()
                else:
                    del self._jobs[room]
                    self._busy.discard(room)
                if not self._pending:
                    self._cond.notify_all()  # drain() waits for this; waking every thread per job is costly


class LogShipper(OutboxShipper):
    """`POST /logs` off the rooms' critical path, in order per room, through the durable outbox (`outbox.py`), a
    room's queued events going as one batch row (`logbatch.py`; readers expand it): an event waits in the state
    database until Slurk accepted it; transient failures (no connection, 408, 429, 5xx)
    are retried with capped exponential back-off for as long as it takes, other 4xx drop the event with a warning.
    `drain()` waits for the queue, `stop()` drains it (what is left goes out at the next start)."""

    name = "logs"


class PageUpdates(RoomLanes):
    """Per-user page updates (`PATCH /rooms/{r}/text|attribute/...` with `receiver_id`) off the rooms' critical
    path, in order per room. A newer view of a seat replaces one that is still waiting, so a busy server gets fewer,
    fresher updates. A 422 (the receiver is not online) goes back to the room, which keeps the update until the
    person's `status: join`."""

    name = "pages"

    def __init__(self, rest, state_element: str, threads: int = 16, shared_element: str = ""):
        self.rest = rest
        self.state_element = state_element
        self.shared_element = shared_element
        super().__init__(threads)

    def submit(self, delivery: PageOwner, seat: Optional[str], uid: Optional[int], item: tuple,
               turn: Optional[Turn], gen: int = 0) -> None:
        """One page update for `uid`, or (seat and uid None) for everyone in the room (a shared page part)."""
        key = (seat, item[0]) if item[0] in ("view", "shared") else None
        self._submit(delivery.room, (delivery, seat, uid, item, [turn], gen), key)

    def _merge(self, old, new):
        return new[:4] + (old[4] + new[4], new[5])

    def _run(self, room: int, job) -> None:
        delivery, seat, uid, item, turns, gen = job
        try:
            for t in turns:
                mark(t)
            self._send(room, uid, item)
            for t in turns:
                mark_done(t)
        except SlurkAPIError as exc:
            if exc.status == 422 and seat is not None:  # not online (yet): the room keeps it for their return
                delivery.bounced(seat, item, gen)
            else:
                log.warning("room %s: page update for %s failed: %s", room, seat, exc)

    def _send(self, room: int, uid: Optional[int], item: tuple) -> None:
        kind = item[0]
        if kind == "view":
            self.rest.set_text(room, self.state_element, json.dumps(item[1], sort_keys=True), receiver_id=uid)
        elif kind == "shared":
            self.rest.set_text(room, self.shared_element, json.dumps(item[1], sort_keys=True), receiver_id=uid)
        elif kind == "text":
            self.rest.set_text(room, item[1], item[2], receiver_id=uid)
        elif kind == "attr":
            self.rest.set_attribute(room, item[1], item[2], item[3], receiver_id=uid)
        else:  # pragma: no cover
            raise ValueError(kind)
