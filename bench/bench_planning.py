"""DialOp Planning: the vectorised normaliser (best and worst over all 54,834 ordered triples) against the
straightforward brute force (the scorecard on every triple, as the original did at every reset), and the instance
generation (which includes the normaliser), in the same run; the released catalogue too when its files are there.
Usage: .venv/bin/python -m bench.bench_planning [instances] [brute-force instances]"""
from __future__ import annotations

import os
import statistics
import sys
import time

from bench.figures import command_line, markdown_table, write_figure
from tasks.planning import catalogue, generator, scoring


def _ms(fn, *args, **kw) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn(*args, **kw)
    return (time.perf_counter() - t) * 1000, out


def main(n: int = 50, n_brute: int = 5) -> None:
    cats = ["own"] + (["released"] if os.path.exists(os.path.join(catalogue.default_dir(), "planning.yaml")) else [])
    rows = []
    for cat in cats:
        gen, fast, brute, same = [], [], [], 0
        for seed in range(n):
            ms, inst = _ms(generator.generate, seed, catalogue=cat)
            gen.append(ms)
            ms, ext = _ms(scoring.extremes, inst["sites"], inst["prefs"], inst["rules"])
            fast.append(ms)
            if seed < n_brute:
                ms, bf = _ms(scoring.brute_force, inst["sites"], inst["prefs"], inst["rules"])
                brute.append(ms)
                same += (bf["best"], bf["worst"]) == (ext["best"], ext["worst"])
        rows.append((cat, n, statistics.median(gen), max(gen), statistics.median(fast), max(fast), len(brute),
                     statistics.median(brute), same))
    head = ("catalogue", "games", "generation median", "generation max", "normaliser median", "normaliser max",
            "brute force median", "same best/worst", "brute / fast")
    print(" | ".join(head))
    table = [(cat, k, f"{gm:.1f}", f"{gx:.1f}", f"{fm:.1f}", f"{fx:.1f}", f"{bm:.0f}", f"{same}/{bn}", f"{bm / fm:.0f}x")
             for cat, k, gm, gx, fm, fx, bn, bm, same in rows]
    for row in table:
        print(" | ".join(str(v) for v in row))
    note = ("Times in ms; generation includes the normaliser and the 100 random itineraries of the user's yardstick; "
            "brute force = the scorecard on every ordered triple, as the original did at every reset, on the first "
            f"{n_brute} games; target normaliser < 0.1 s.")
    print(note)
    write_figure("bench_planning", [markdown_table(head, table)], command_line(None, "bench.bench_planning"), [note])


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
