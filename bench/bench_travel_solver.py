"""Time the Traveling Adventurers solvers: python -m bench.bench_travel_solver [--boards 7] [--sizes 6,9,10,12,14]

Boards are seeded generated boards (coins 1..10 per seat, filters off) solved on joint coins from scratch, as the
game's first "intermediate best path". dp, ilp and brute (brute only where at most 8 rooms are free) run on the
same boards; every method must reach the same optimum. One solve per board and method, wall-clock time.
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

from bench.figures import command_line, markdown_table, write_figure
from tasks.travel.generator import generate_board
from tasks.travel.solver import BRUTE_MAX_FREE, solve

TARGET_ROOMS, TARGET_MS = 12, 50.0


def fmt(ms):
    if ms is None:
        return "-"
    return f"{ms:.1f}" if ms < 1000 else f"{ms / 1000:.2f}s"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    r = a / b
    return f"{r:.1f}x" if r < 10 else f"{r:,.0f}x"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=7, help="boards per size")
    ap.add_argument("--sizes", default="6,9,10,12,14")
    ap.add_argument("--time-limit", type=float, default=30.0, help="ILP time limit per solve (s)")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]

    print(f"Python {platform.python_version()} on {platform.machine()}; {args.boards} seeded boards per size")
    solve(generate_board(6, 0).joint_weights, generate_board(6, 0).rooms, "L", method="dp")  # warm imports
    t_all = time.perf_counter()
    rows, mismatches, non_optimal = [], 0, 0
    for n in sizes:
        times = {"dp": [], "ilp": [], "brute": []}
        for seed in range(args.boards):
            b = generate_board(n, 1000 + seed, require_distinct_optima=False)
            methods = ["dp", "ilp"] + (["brute"] if n - 1 <= BRUTE_MAX_FREE else [])
            values = {}
            for m in methods:
                info = solve(b.joint_weights, b.rooms, b.start, method=m, time_limit=args.time_limit)
                times[m].append(info.seconds * 1000)
                values[m] = info.value
                non_optimal += not info.optimal
            mismatches += len(set(values.values())) != 1
        stats = {m: (statistics.median(v), max(v)) if v else (None, None) for m, v in times.items()}
        rows.append((n, stats))

    head = (f"{'rooms':>5} | {'dp med':>8} {'dp max':>8} | {'ilp med':>8} {'ilp max':>8} | "
            f"{'brute med':>9} {'brute max':>9} | {'ilp/dp':>7} {'brute/dp':>8}")
    print("times in ms unless marked s")
    print(head)
    print("-" * len(head))
    for n, st in rows:
        (dm, dx), (im, ix), (bm, bx) = st["dp"], st["ilp"], st["brute"]
        print(f"{n:>5} | {fmt(dm):>8} {fmt(dx):>8} | {fmt(im):>8} {fmt(ix):>8} | {fmt(bm):>9} {fmt(bx):>9} | "
              f"{ratio(im, dm):>7} {ratio(bm, dm):>8}")
    print(f"(ratios are of medians; whole run {time.perf_counter() - t_all:.1f}s)")
    agree = (f"all methods agree on every optimum: {'yes' if mismatches == 0 else f'NO ({mismatches} boards differ)'}"
             f"; solves without proven optimum: {non_optimal}")
    print(agree)
    notes = [f"{args.boards} seeded boards per size, ms; ratios are of medians; {agree}."]
    at_target = [st["dp"][1] for n, st in rows if n == TARGET_ROOMS]
    if at_target:
        worst = at_target[0]
        verdict = "MET" if worst < TARGET_MS else "NOT MET"
        notes.append(f"Target DP under {TARGET_MS:.0f} ms at {TARGET_ROOMS} rooms: {verdict} (max {worst:.1f} ms).")
        print(notes[-1])
    table = markdown_table(
        ["rooms", "DP median", "DP max", "ILP median", "brute median", "ILP/DP", "brute/DP"],
        [(n, fmt(st["dp"][0]), fmt(st["dp"][1]), fmt(st["ilp"][0]), fmt(st["brute"][0]),
          ratio(st["ilp"][0], st["dp"][0]), ratio(st["brute"][0], st["dp"][0])) for n, st in rows])
    write_figure("bench_travel_solver", [table], command_line(argv, "bench.bench_travel_solver"), notes)
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
