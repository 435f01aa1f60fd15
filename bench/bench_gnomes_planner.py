"""Speed of the Gnomes at Night AISMCTS-F planner at its default budget.

    python -m bench.bench_gnomes_planner [--budget-ms 100] [--decisions 40]

Reports iterations per decision and per second, and the decision latency, over positions spread across the board
(the agent's side, a few rejections in Omega), for a visible treasure and for a hidden one (where the latency also
includes the belief updates a brain makes before searching). The paper's planner ran a fixed n = 100 iterations
per move; the last column compares against that. Figures depend on machine load; run it on an idle machine.
"""
from __future__ import annotations

import argparse
import statistics
import time

from bench.figures import command_line, markdown_table, write_figure
from tasks.gnomes import maze
from tasks.gnomes.brains.planner import Belief, Model, Planner

PAPER_ITERATIONS = 100


def positions(n: int) -> list[tuple[int, int]]:
    """(cell, round) pairs spread over the board, the agent to move."""
    cells = [maze.cell(x, y) for y in range(0, 9, 2) for x in range(0, 9, 2)]
    return [(cells[i % len(cells)], 1 + i % 5) for i in range(n)]


def run(budget_ms: float, decisions: int) -> dict:
    out = {}
    for label, hidden in (("visible treasure", False), ("hidden treasure", True)):
        iters, lat = [], []
        for i, (root, rnd) in enumerate(positions(decisions)):
            model = Model(maze.MOVES[1])
            # A few rejections, as a game accumulates them, so Omega is not empty.
            for c, a in ((maze.cell(1, 0), maze.RIGHT), (maze.cell(5, 1), maze.DOWN)):
                model.add_rejection(c, a)
            planner = Planner(model, seed=i)
            treasure = maze.cell(*maze.TREASURES[rnd - 1])
            t0 = time.perf_counter()
            if hidden:
                belief = Belief(exclude=(root,))
                belief.hint(root, {maze.RIGHT, maze.DOWN})
                belief.rational(model, root, 0, maze.RIGHT)
                d = planner.search(root, belief=belief, budget=budget_ms / 1000.0)
            else:
                d = planner.search(root, treasure=treasure if treasure != root else 0, budget=budget_ms / 1000.0)
            lat.append((time.perf_counter() - t0) * 1000.0)
            iters.append(d.iterations)
        total_s = sum(lat) / 1000.0
        out[label] = {
            "iterations_median": statistics.median(iters), "iterations_min": min(iters),
            "iterations_per_s": sum(iters) / total_s,
            "latency_ms_median": statistics.median(lat), "latency_ms_max": max(lat),
            "vs_paper_n100": statistics.median(iters) / PAPER_ITERATIONS,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget-ms", type=float, default=100.0)
    ap.add_argument("--decisions", type=int, default=40)
    args = ap.parse_args()
    res = run(args.budget_ms, args.decisions)
    print(f"AISMCTS-F, budget {args.budget_ms:g} ms, {args.decisions} decisions per case")
    print(f"{'case':18} {'iter/decision':>13} {'min':>7} {'iter/s':>9} {'latency ms':>11} {'max ms':>7} "
          f"{'x paper n=100':>13}")
    for label, r in res.items():
        print(f"{label:18} {r['iterations_median']:>13.0f} {r['iterations_min']:>7} {r['iterations_per_s']:>9.0f} "
              f"{r['latency_ms_median']:>11.1f} {r['latency_ms_max']:>7.1f} {r['vs_paper_n100']:>12.1f}x")
    table = markdown_table(
        ["case", "iterations / decision", "min", "iterations / s", "latency ms (median)", "max ms", "× paper's n = 100"],
        [(label, f"{r['iterations_median']:.0f}", r["iterations_min"], f"{r['iterations_per_s']:.0f}",
          f"{r['latency_ms_median']:.1f}", f"{r['latency_ms_max']:.1f}", f"{r['vs_paper_n100']:.1f}×")
         for label, r in res.items()])
    write_figure("bench_gnomes_planner", [table], command_line(None, "bench.bench_gnomes_planner"),
                 [f"AISMCTS-F, budget {args.budget_ms:g} ms, {args.decisions} decisions per case."])


if __name__ == "__main__":
    main()
