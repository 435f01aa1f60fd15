"""DialOp Assignment instance generation: the vectorised generator (always meets the 1.25x hardness test) against a
straightforward implementation of the original rejection sampling (one candidate at a time, 10,000-try cap), in
the same run. Usage: .venv/bin/python bench/bench_assignment.py [games]"""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from tasks.assignment.generator import generate, original_rejection_sampling


def main(n: int = 100) -> None:
    t = time.perf_counter()
    tries = [generate(seed)["tries"] for seed in range(n)]
    ours = (time.perf_counter() - t) / n
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    orig = [original_rejection_sampling(rng) for _ in range(n)]
    theirs = (time.perf_counter() - t) / n
    print(f"{'generator':<28} {'games':>5} {'ms/game':>8} {'tries (mean)':>12} {'met test %':>10}")
    print(f"{'vectorised (this project)':<28} {n:>5} {ours * 1000:>8.1f} {statistics.fmean(tries):>12.0f} {100.0:>10.1f}")
    print(f"{'original rejection sampling':<28} {n:>5} {theirs * 1000:>8.1f} "
          f"{statistics.fmean(t for t, _ in orig):>12.0f} {100.0 * sum(ok for _, ok in orig) / n:>10.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
