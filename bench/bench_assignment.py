"""DialOp Assignment instance generation: the vectorised generator (always meets the 1.25x hardness test) against a
straightforward implementation of the original rejection sampling (one candidate at a time, 10,000-try cap), in
the same run. Usage: .venv/bin/python bench/bench_assignment.py [games]"""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from bench.figures import command_line, markdown_table, write_figure
from tasks.assignment.generator import generate, original_rejection_sampling


def main(n: int = 100) -> None:
    t = time.perf_counter()
    tries = [generate(seed)["tries"] for seed in range(n)]
    ours = (time.perf_counter() - t) / n
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    orig = [original_rejection_sampling(rng) for _ in range(n)]
    theirs = (time.perf_counter() - t) / n
    rows = [("vectorised (this project)", n, f"{ours * 1000:.1f}", f"{statistics.fmean(tries):.0f}", "100.0"),
            ("original rejection sampling", n, f"{theirs * 1000:.1f}", f"{statistics.fmean(t for t, _ in orig):.0f}",
             f"{100.0 * sum(ok for _, ok in orig) / n:.1f}")]
    header = ("generator", "games", "ms/game", "tries (mean)", "met test %")
    print(f"{header[0]:<28} {header[1]:>5} {header[2]:>8} {header[3]:>12} {header[4]:>10}")
    for row in rows:
        print(f"{row[0]:<28} {row[1]:>5} {row[2]:>8} {row[3]:>12} {row[4]:>10}")
    write_figure("bench_assignment", [markdown_table(header, rows)], command_line(None, "bench.bench_assignment"))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
