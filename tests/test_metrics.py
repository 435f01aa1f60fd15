"""The runtime's turnaround metrics: percentiles close to the exact ones, in memory that does not grow with the run."""
from __future__ import annotations

import random

from bots.slurk.metrics import BUCKETS, LOWEST, Histogram, Metrics, Turn


def _exact(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def test_percentiles_are_within_one_percent_of_the_exact_samples():
    rng = random.Random(7)
    xs = [rng.lognormvariate(-5, 1.5) for _ in range(20_000)]  # ~7 ms median, a long tail
    h = Histogram()
    for x in xs:
        h.add(x)
    for p in (0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999):
        assert abs(h.percentile(p) - _exact(xs, p)) <= 0.0101 * _exact(xs, p), p
    assert h.max == max(xs) and h.n == len(xs)


def test_memory_is_bounded_by_the_bucket_count_not_the_number_of_samples():
    rng = random.Random(3)
    h = Histogram()
    for _ in range(200_000):
        h.add(10 ** rng.uniform(-7, 4))  # beyond both ends of the range too
    assert len(h.counts) <= BUCKETS < 1000
    assert h.percentile(0.0) <= LOWEST and h.percentile(1.0) == h.max


def test_summary_reports_milliseconds_and_reset_empties_it():
    m = Metrics()
    assert m.summary()["n"] == 0 and m.summary()["p50_ms"] is None
    for ms in (1, 2, 3, 4, 100):
        m.record(ms / 1000)
        m.record(ms / 500, done=True)
    s = m.summary()
    assert s["n"] == 5 and abs(s["p50_ms"] - 3) <= 0.03 and s["max_ms"] == 100.0
    assert abs(s["done_p50_ms"] - 6) <= 0.06 and abs(s["done_p99_ms"] - 200) <= 2
    m.reset()
    assert m.summary()["n"] == 0 and m.to_dict()["events"] == 0


def test_a_turn_records_its_first_effect_once():
    m = Metrics()
    import time

    t = Turn(time.perf_counter(), m)
    t.sent()
    t.sent()
    t.done()
    t.done()
    assert m.turnaround.n == 1 and m.acknowledged.n == 1
