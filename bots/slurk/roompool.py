"""A shared pool of threads that serves rooms in order: a thread takes a room whose work may go now, does it outside
the lock and then puts the room back (or lets it go), so a room is served by one thread at a time and a slow room
occupies at most one thread. Page updates (`shipping.RoomLanes`) and log events (`outbox.OutboxShipper`) each keep
their own queues and say which room goes next."""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional


class RoomPool:
    """A subclass sets `_cond` (the condition over its queues) and `_stopped`, starts `_serving_threads(n)`, and
    implements `_next_room()` (holding the lock: a room that may go now, waiting for one; None once stopped),
    `_take(room)` (holding the lock: the room's next work) and `_serve_room(room, work)` (without the lock: do it,
    then, holding the lock, put the room back or let it go)."""

    name = "rooms"
    _cond: threading.Condition
    _stopped: bool

    def _serving_threads(self, threads: int) -> list[threading.Thread]:
        return [threading.Thread(target=self._serve, name=f"slurk-{self.name}-{i}", daemon=True)
                for i in range(threads)]

    def _serve(self) -> None:
        while True:
            with self._cond:
                room = self._next_room()
                if room is None:
                    return
                work = self._take(room)
            self._serve_room(room, work)
            work = None  # an idle thread must not keep its last work (and through it a finished room) alive

    def _wait_for(self, pred: Callable[[], bool], timeout: float) -> bool:
        """Wait until `pred()` (checked holding the lock, after each notify); False if it is still false at the
        timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def _next_room(self) -> Optional[int]:  # pragma: no cover - implemented by each pool
        raise NotImplementedError

    def _take(self, room: int) -> Any:  # pragma: no cover - implemented by each pool
        raise NotImplementedError

    def _serve_room(self, room: int, work: Any) -> None:  # pragma: no cover - implemented by each pool
        raise NotImplementedError
