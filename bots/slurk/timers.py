"""One scheduler thread (a heap of deadlines) for every room's timers.

A timer is keyed by (room, name); setting it again replaces it, cancelling removes it. When it fires, the callback
gets (room, name, token) and puts a `TimerFired` into that room's queue, so timers are handled in order with the
room's other events. Stale firings are harmless anyway: the match ignores tokens it no longer expects.
"""
from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from typing import Callable

from tasks.core.protocol import CancelTimer, SetTimer

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self, fire: Callable[[int, str, int], None], clock: Callable[[], float] = time.monotonic):
        self._fire = fire
        self._clock = clock
        self._heap: list = []
        self._current: dict[tuple[int, str], int] = {}  # (room, name) -> entry id
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name="slurk-timers", daemon=True)
        self._thread.start()

    def set(self, room: int, name: str, token: int, seconds: float) -> None:
        with self._cond:
            entry = next(self._ids)
            self._current[(room, name)] = entry
            heapq.heappush(self._heap, (self._clock() + max(0.0, seconds), entry, room, name, token))
            self._compact()
            self._cond.notify()

    def cancel(self, room: int, name: str) -> None:
        with self._cond:
            self._current.pop((room, name), None)
            self._compact()

    def cancel_room(self, room: int) -> None:
        with self._cond:
            for key in [k for k in self._current if k[0] == room]:
                del self._current[key]
            self._compact()

    def _compact(self) -> None:  # holding the lock
        """Cancelled and replaced timers stay in the heap until their deadline (often the game's timeout, many
        minutes away); once they are most of it, drop them, so a bot that plays thousands of games stays flat."""
        if len(self._heap) > 64 and len(self._heap) > 2 * len(self._current):
            live = set(self._current.values())
            self._heap = [x for x in self._heap if x[1] in live]
            heapq.heapify(self._heap)

    def pending(self, room: int) -> dict[str, float]:
        """name -> seconds left, for tests and diagnostics."""
        now = self._clock()
        with self._cond:
            live = {e: (r, n) for (r, n), e in self._current.items() if r == room}
            return {n: round(due - now, 3) for due, e, r, n, _ in self._heap if e in live}

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        self._thread.join(timeout=2)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._stopped:
                    if self._heap:
                        due = self._heap[0][0]
                        wait = due - self._clock()
                        if wait <= 0:
                            break
                        self._cond.wait(wait)
                    else:
                        self._cond.wait()
                if self._stopped:
                    return
                due, entry, room, name, token = heapq.heappop(self._heap)
                if self._current.get((room, name)) != entry:
                    continue  # cancelled or replaced
                del self._current[(room, name)]
            try:
                self._fire(room, name, token)
            except Exception:  # pragma: no cover - the callback only enqueues
                log.exception("timer %s of room %s could not be delivered", name, room)


class RoomTimers:
    """One room's timers on the bot's scheduler, with the wall-clock deadline of each: a restarted bot replays the
    room's inputs (`note` learns each SetTimer's deadline on the way) and re-arms what is left of each (`rearm`)."""

    def __init__(self, scheduler: Scheduler, room: int):
        self.scheduler = scheduler
        self.room = room
        self.deadlines: dict[str, tuple[int, float]] = {}  # name -> (token, wall-clock deadline)

    def note(self, effects, t: float) -> None:
        """The deadlines the SetTimers among `effects` had, had they been set at `t` (a replay)."""
        for e in effects:
            if isinstance(e, SetTimer):
                self.deadlines[e.name] = (e.token, t + e.seconds)

    def apply(self, e) -> None:
        """A timer effect of the match: SetTimer or CancelTimer."""
        if isinstance(e, SetTimer):
            self.set(e)
        elif isinstance(e, CancelTimer):
            self.cancel(e.name)

    def set(self, e: SetTimer) -> None:
        self.deadlines[e.name] = (e.token, time.time() + e.seconds)
        self.scheduler.set(self.room, e.name, e.token, e.seconds)

    def cancel(self, name: str) -> None:
        self.scheduler.cancel(self.room, name)

    def cancel_all(self) -> None:
        self.scheduler.cancel_room(self.room)

    def forget(self) -> None:
        self.deadlines = {}

    def rearm(self, armed: dict[str, int]) -> None:
        """After a replay: arm each timer the match still waits for (name -> token) with the time it had left."""
        now = time.time()
        for name, token in armed.items():
            known = self.deadlines.get(name)
            if known and known[0] == token:
                left = max(0.0, known[1] - now)
            else:  # pragma: no cover - every armed timer comes from a replayed SetTimer
                log.warning("room %s: no deadline known for timer %s; firing it now", self.room, name)
                left = 0.0
            self.scheduler.set(self.room, name, token, left)
