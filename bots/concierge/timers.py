"""Timers of the concierge (a person's waiting time, retries, queue-place refreshes): threads by default; tests use
ManualTimers and fire them when they choose."""
from __future__ import annotations

import threading
from typing import Any, Callable


class ThreadTimers:
    def __init__(self):
        self._timers: dict[Any, threading.Timer] = {}
        self._lock = threading.Lock()

    def set(self, key: Any, seconds: float, fn: Callable[[], None]) -> None:
        t = threading.Timer(max(0.0, seconds), fn)
        t.daemon = True
        with self._lock:
            old = self._timers.pop(key, None)
            self._timers[key] = t
        if old:
            old.cancel()
        t.start()

    def cancel(self, key: Any) -> None:
        with self._lock:
            t = self._timers.pop(key, None)
        if t:
            t.cancel()

    def cancel_all(self) -> None:
        with self._lock:
            timers, self._timers = list(self._timers.values()), {}
        for t in timers:
            t.cancel()


class ManualTimers:
    """Timers that fire only when a test says so (`fire(key)` / `fire_all()`); `pending` shows what is armed."""

    def __init__(self):
        self.pending: dict[Any, tuple[float, Callable[[], None]]] = {}
        self._lock = threading.Lock()

    def set(self, key, seconds, fn) -> None:
        with self._lock:
            self.pending[key] = (seconds, fn)

    def cancel(self, key) -> None:
        with self._lock:
            self.pending.pop(key, None)

    def cancel_all(self) -> None:
        with self._lock:
            self.pending.clear()

    def fire(self, key) -> bool:
        with self._lock:
            entry = self.pending.pop(key, None)
        if entry is None:
            return False
        entry[1]()
        return True

    def fire_all(self) -> int:
        with self._lock:
            keys = list(self.pending)
        return sum(self.fire(k) for k in keys)
