"""When Slurk fails: every failed step is tried again after an exponential back-off with a seeded jitter, a limited
number of times in a row (after a server error the rooms-per-minute cap, room_cap.py, slows room creation too)."""
from __future__ import annotations

import logging
import random
import threading
from typing import Any

log = logging.getLogger("bots.concierge")

RETRY_BASE = 1.0     # seconds before the first retry of a failed step
RETRY_CAP = 30.0     # the longest wait between two tries
RETRY_JITTER = 0.2   # each wait is scaled by a factor in [1 - j, 1 + j] (then capped)
RETRY_LIMIT = 100    # failed tries of one step in a row before it is given up (until something new triggers it)


class Backoff:
    """Waits before retry number `attempt` (0-based): base * 2**attempt, capped at `cap`, scaled by a jitter factor
    in [1 - jitter, 1 + jitter] drawn from a random.Random seeded with `seed` (the same seed gives the same waits),
    then capped again."""

    def __init__(self, base: float = RETRY_BASE, cap: float = RETRY_CAP, jitter: float = RETRY_JITTER,
                 seed: Any = 0):
        if base <= 0 or cap < base:
            raise ValueError("back-off needs 0 < base <= cap")
        if not 0 <= jitter < 1:
            raise ValueError("jitter must be in [0, 1)")
        self.base, self.cap, self.jitter = float(base), float(cap), float(jitter)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def delay(self, attempt: int) -> float:
        raw = min(self.cap, self.base * 2.0 ** min(max(0, int(attempt)), 62))
        with self._lock:
            r = self._rng.random()
        return min(self.cap, raw * (1.0 - self.jitter + 2.0 * self.jitter * r))


class Retries:
    """The concierge's retry book-keeping (a part of Concierge: it uses the state Concierge.__init__ sets up, under
    its lock)."""

    # --- retries: every failed step waits (exponential back-off with jitter) and is tried a limited number of times
    def _retry(self, key: tuple, event: tuple, why: str) -> bool:
        """Schedule `event` after the back-off for the next try of `key`. False (nothing scheduled) once `key` has
        failed `retry_limit` times in a row; the count starts again from zero then."""
        with self._lock:
            n = self._tries.get(key, 0) + 1
            if n > self.retry_limit:
                self._tries.pop(key, None)
                give_up = True
            else:
                self._tries[key] = n
                give_up = False
        if give_up:
            log.error("%s; given up after %d tries", why, self.retry_limit)
            self._count("given_up")
            return False
        delay = self.backoff.delay(n - 1)
        with self._lock:
            self._retry_at[key] = self.clock() + delay
        self._count("retries")
        log.warning("%s; try %d of %d in %.1f s", why, n + 1, self.retry_limit + 1, delay)
        self.timers.set(key, delay, lambda e=event: self._events.put(e))
        return True

    def _count(self, what: str) -> None:
        with self._lock:
            self.stats[what] += 1

    def _succeeded(self, key: tuple) -> None:
        with self._lock:
            self._tries.pop(key, None)

    def _server_trouble(self) -> None:
        """A server error (not a person who is gone): counted, and the rooms-per-minute cap is in force."""
        self.cap.server_error()
        self._count("server_errors")
