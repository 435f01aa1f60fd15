"""Turnaround metrics of the Slurk runtime (read by the benchmarks), in memory that does not grow with the run.

Times go into a histogram with logarithmic buckets (each 2% wider than the one before, from 10 µs to 1,000 s), so
a bot that runs for weeks holds at most a few hundred counters however many inputs it served, and a percentile is
off by at most 1% of its value (the bucket's geometric middle is reported; the maximum is kept exactly).
"""
from __future__ import annotations

import collections
import math
import threading
import time
from typing import Optional

LOWEST = 1e-5  # seconds; anything faster counts in the first bucket
GROWTH = 1.02  # each bucket this much wider than the previous one
BUCKETS = int(math.log(1e3 / LOWEST) / math.log(GROWTH)) + 1  # up to 1,000 s; slower counts in the last


class Histogram:
    """Counts of durations (seconds) per logarithmic bucket; `percentile(p)` within 1% of the exact sample's value
    for values inside the range."""

    __slots__ = ("counts", "n", "max")

    def __init__(self):
        self.counts: collections.Counter = collections.Counter()  # bucket -> count; at most BUCKETS keys
        self.n = 0
        self.max: Optional[float] = None

    def add(self, seconds: float) -> None:
        b = 0 if seconds <= LOWEST else min(BUCKETS - 1, int(math.log(seconds / LOWEST) / math.log(GROWTH)))
        self.counts[b] += 1
        self.n += 1
        if self.max is None or seconds > self.max:
            self.max = seconds

    def percentile(self, p: float) -> Optional[float]:
        """The value below which a fraction p of the samples lie (the sample of rank int(p * n), as the benchmarks
        read it from sorted samples), or None without samples."""
        if not self.n:
            return None
        rank = min(self.n - 1, int(p * self.n))
        seen = 0
        for b in sorted(self.counts):
            seen += self.counts[b]
            if seen > rank:
                if b == 0:
                    return min(LOWEST, self.max)
                if b == BUCKETS - 1:  # the open-ended last bucket
                    return self.max
                return min(LOWEST * GROWTH ** (b + 0.5), self.max)  # the bucket's geometric middle
        return self.max  # pragma: no cover - the counts add up to n


class Metrics:
    """Turnaround per input, from the moment its Slurk event reached the bot to its first effect:

    - `sent`: the first effect left the bot (a socket message handed to the connection, a REST request issued);
      this is the bot's own turnaround, the figure the benchmark reports;
    - `done`: the first effect was acknowledged by Slurk (socket ack, HTTP response), so it includes the server's
      time.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self.turnaround = Histogram()  # sent
        self.acknowledged = Histogram()  # done
        self.events = 0
        self.requests: collections.Counter = collections.Counter()  # "PATCH /rooms/{}/text/{}", "socket text", ...

    def record(self, seconds: float, done: bool = False) -> None:
        with self._lock:
            (self.acknowledged if done else self.turnaround).add(seconds)

    def count_event(self) -> None:
        with self._lock:
            self.events += 1

    def count_request(self, kind: str) -> None:
        with self._lock:
            self.requests[kind] += 1

    def reset(self) -> None:
        with self._lock:
            self.turnaround, self.acknowledged = Histogram(), Histogram()
            self.events = 0
            self.requests = collections.Counter()

    def to_dict(self) -> dict:
        """The event count, the requests by kind and `summary()`, JSON-serialisable (for BOT_METRICS_OUT)."""
        with self._lock:
            d = {"events": self.events, "requests": dict(self.requests)}
        d["summary"] = self.summary()
        return d

    def summary(self) -> dict:
        with self._lock:
            xs, ys = self.turnaround, self.acknowledged

            def ms(v):
                return None if v is None else round(1000 * v, 2)

            return {"n": xs.n, "p50_ms": ms(xs.percentile(0.50)), "p99_ms": ms(xs.percentile(0.99)),
                    "max_ms": ms(xs.max), "done_p50_ms": ms(ys.percentile(0.50)),
                    "done_p99_ms": ms(ys.percentile(0.99))}


class Turn:
    """One input's clock: the first of its effects to leave (from any thread) records `sent`, the first one Slurk
    acknowledges records `done`."""

    __slots__ = ("t0", "metrics", "_sent", "_done", "_lock")

    def __init__(self, t0: float, metrics: Metrics):
        self.t0 = t0
        self.metrics = metrics
        self._sent = self._done = False
        self._lock = threading.Lock()

    def sent(self) -> None:
        with self._lock:
            if self._sent:
                return
            self._sent = True
        self.metrics.record(time.perf_counter() - self.t0)

    def done(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        self.metrics.record(time.perf_counter() - self.t0, done=True)


def mark(turn: Optional[Turn]) -> None:
    if turn is not None:
        turn.sent()


def mark_done(turn: Optional[Turn]) -> None:
    if turn is not None:
        turn.done()
