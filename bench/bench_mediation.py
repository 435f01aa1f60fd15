"""DialOp Mediation: instance generation and the exact best/worst pair search (vectorised over all pairs) against
a plain double loop over the pairs scored one by one, in the same run; and the replay of the 162 released games
when the data is there. Usage: .venv/bin/python bench/bench_mediation.py [games]"""
from __future__ import annotations

import os
import statistics
import sys
import time

from bench.figures import command_line, markdown_table, write_figure
from tasks.mediation import generator as gen


def _loop_best_worst(inst: dict) -> tuple[int, int]:
    n0, n1 = (len(u["flights"]) for u in inst["users"])
    scores = [gen.breakdown(inst, (i, j))["group"] for i in range(n0) for j in range(n1)]
    return max(scores), min(scores)


def main(n: int = 100) -> None:
    insts, gen_s = [], []
    for seed in range(n):
        t = time.perf_counter()
        insts.append(gen.generate(seed))
        gen_s.append(time.perf_counter() - t)
    vec, loop = [], []
    for inst in insts:
        t = time.perf_counter()
        gen.finish(dict(inst))
        vec.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert _loop_best_worst(inst) == (inst["best"], inst["worst"])
        loop.append(time.perf_counter() - t)
    pairs = statistics.fmean(len(i["users"][0]["flights"]) * len(i["users"][1]["flights"]) for i in insts)
    print(f"{'step':<36} {'games':>5} {'ms median':>9} {'ms max':>7}")
    rows = []
    for name, xs in (("generate (incl. best/worst)", gen_s), ("best/worst, vectorised", vec),
                     ("best/worst, pair by pair", loop)):
        rows.append((name, n, f"{1000 * statistics.median(xs):.2f}", f"{1000 * max(xs):.2f}"))
        print(f"{name:<36} {n:>5} {rows[-1][2]:>9} {rows[-1][3]:>7}")
    notes = [f"Flight pairs per instance (mean): {pairs:.0f}."]
    print(notes[0])
    from tasks import get_task
    from tasks.dialop.data import default_path
    from tasks.mediation import released
    if os.path.exists(default_path()):
        t = time.perf_counter()
        ok, problems = released.check_scores(default_path(), get_task("mediation"))
        notes.append(f"Released replay: {ok} of 162 reproduced, {len(problems)} problems, "
                     f"{time.perf_counter() - t:.1f} s.")
        print(notes[-1])
    write_figure("bench_mediation", [markdown_table(("step", "games", "ms median", "ms max"), rows)],
                 command_line(None, "bench.bench_mediation"), notes)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
