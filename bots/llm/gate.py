"""The per-endpoint request gate: at most ``LLMConfig.concurrency`` requests in flight per endpoint."""
from __future__ import annotations

import threading
import time
from collections import deque


class _Gate:
    """At most `limit` holders at once; waiters are served first come, first served."""

    def __init__(self, limit: int):
        self.limit = max(1, int(limit))
        self._cond = threading.Condition()
        self._queue: deque = deque()
        self._busy = 0

    def acquire(self, timeout: float | None) -> bool:
        me = object()
        with self._cond:
            self._queue.append(me)
            end = None if timeout is None else time.monotonic() + timeout
            while self._queue[0] is not me or self._busy >= self.limit:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    self._queue.remove(me)
                    self._cond.notify_all()
                    return False
                self._cond.wait(left)
            self._queue.popleft()
            self._busy += 1
            self._cond.notify_all()  # the next in line may go too when the limit allows it
            return True

    def release(self) -> None:
        with self._cond:
            self._busy -= 1
            self._cond.notify_all()

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._queue)


_GATES: dict[tuple, _Gate] = {}
_GATES_LOCK = threading.Lock()


def _gate_for(endpoint: str, limit: int) -> _Gate | None:
    """The gate shared by every client of this process that calls `endpoint` with this limit (None: no limit)."""
    if limit <= 0:
        return None
    with _GATES_LOCK:
        return _GATES.setdefault((endpoint, int(limit)), _Gate(limit))
