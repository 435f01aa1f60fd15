"""The evaluation table of Deal or No Deal, laid out as the paper's Tables 9-18:

    ./run_bot.sh dond --games N --agents A,B [--data PATH|default] [--hard L1<=4]

plays N seeded games (game i: seed S+i; generated instances, or the first N selected released instances, all of them
when --games is not given) and prints agreement / Alice / Bob / PO / EF / EF&PO / total / rounds for our agents, the
paper's "best" row (the EF and PO split with the largest total, over the instances that have one) on the same
instances, and, on released data, the people's own outcomes from the data file for the same instances, plus the
published rows for comparison. Every game writes a log whose game_start holds the seed and the full instance, so
any game replays; games.csv has one row per game (with the instance).
"""
from __future__ import annotations

import csv
import json
import os

from tasks.core.evaluation import agent_label, default_out, format_table, llm_use_table, play_game
from tasks.core.parallel import map_games

from . import metrics
from .parse import parse_hard

# Reference §6/§9 (Hua et al.): Table 9, humans on all filtered data, cumulative by L1 bound:
# N, agreement, EF, PO, EF&PO.
PAPER_T9 = {2: (13, .5385, .3077, .5384, .3077), 3: (27, .5556, .4074, .4444, .3333),
            4: (57, .5614, .4035, .4385, .3333), 5: (85, .6235, .4824, .4823, .3882),
            6: (108, .6574, .5463, .5277, .4537), 7: (133, .6917, .6015, .5413, .4812),
            8: (177, .7119, .6441, .5310, .4858), 9: (189, .7249, .6614, .5396, .4973),
            10: (210, .7381, .6810, .5523, .5142), 11: (217, .7373, .6820, .5529, .5161)}
# The 44 sampled datapoints with an EF split (L1 <= 4): rounds, agreement, Alice, Bob, PO, EF, total.
PAPER_ROWS = [("paper: Best (44)", None, 1.0, 5.82, 6.66, 1.0, 1.0, 12.48),
              ("paper: Human T10 (44)", 2.86, .6817, 3.32, 3.39, .4317, .4545, 6.64),
              ("paper: Sonnet raw vs raw T10", 7.07, .9545, 5.55, 5.57, .7045, .7045, 11.11),
              ("paper: GPT-4o wf vs wf T12", 4.91, 1.0, 5.93, 6.25, .8636, 1.0, 12.18)]
HEADER = ["row", "n", "agreement", "Alice", "Bob", "PO", "EF", "EF&PO", "total", "rounds"]
RATES = ("agreement", "PO", "EF", "EF&PO")


def _cells(label: str, r: dict) -> list:
    return [label, r.get("n", "-")] + [metrics.fmt(r.get(c), c in RATES) for c in metrics.COLUMNS]


def instances_for(spec, games: int, seed: int, options: dict) -> list[dict]:
    if options.get("data"):
        from .released import select
        chosen = select(options)
        return chosen[:games] if games > 1 else chosen
    return [spec.generate(seed + i, options) for i in range(games)]


def game_rows(records, instances) -> list[list]:
    rows = []
    for rec, inst in zip(records, instances):
        r, h = rec.results, inst.get("human") or {}
        rows.append([rec.index, rec.seed, inst.get("line") or "-", "/".join(map(str, inst["counts"])), inst["l1"],
                     "yes" if r.get("deal") else "no", r.get("alice_score"), r.get("bob_score"),
                     int(bool(r.get("pareto_optimal"))), int(bool(r.get("envy_free"))), r.get("total"),
                     r.get("rounds"), r.get("best_total") if r.get("best_total") is not None else "-",
                     h.get("total", "-")])
    return rows


def evaluate(spec, run) -> int | None:
    """`TaskSpec.evaluator`: `--games N` (N > 1) or `--data` runs of agents print the paper's Tables 9-18 layout
    (ours, "best", humans); None leaves --play, --population and single games to the ordinary local evaluation."""
    if run.play or run.population or not (run.games > 1 or run.options.get("data")):
        return None
    return main_table(spec, run.agents, run.options, run.llm, run.games, run.seed, run.out, run.brain_options,
                      parallel=run.parallel)


def main_table(spec, agents: dict, options: dict, llm, games: int, seed: int, out_dir: str | None,
               brain_options: dict | None = None, parallel: int = 1) -> int:
    out_dir = out_dir or default_out(spec)
    bound = parse_hard(options.get("hard"))
    try:
        instances = instances_for(spec, games, seed, options)
    except (FileNotFoundError, ValueError) as exc:
        raise SystemExit(str(exc)) from None
    def one(i, inst):
        log = os.path.join(out_dir, "logs", f"game-{i:04d}.jsonl")
        return play_game(spec, seed + i, agents, options, llm=llm, log_path=log, index=i, instance=inst,
                         brain_options=brain_options)

    records = map_games(one, instances, parallel, "games")
    label = agent_label(spec, agents, records)
    refs = [metrics.reference(i["counts"], i["values"]["alice"], i["values"]["bob"]) for i in instances]
    released = bool(options.get("data"))
    source = (f"released DND test split, hard L1<={bound}" if released and bound is not None
              else "released (DND test split)" if released else
              "generated" + (f", hard L1<={bound}" if bound is not None else ""))
    table = [_cells(f"ours: {label}", metrics.row([r.results for r in records])),
             _cells("best (EF+PO, max total)", metrics.best_row(refs))]
    if released:
        table.append(_cells("humans (data file)", metrics.row([i["human"] for i in instances])))
        if bound is not None:
            from .released import hard_cases, load
            every = hard_cases(load(options.get("data")), bound)
            if len(every) != len(instances):
                table.append(_cells(f"humans, all {len(every)} hard cases", metrics.row([i["human"] for i in every])))
            if bound in PAPER_T9:
                n, agree, ef, po, efpo = PAPER_T9[bound]
                table.append([f"paper T9: humans L1<={bound}", n, metrics.fmt(agree, True), "-", "-",
                              metrics.fmt(po, True), metrics.fmt(ef, True), metrics.fmt(efpo, True), "-", "-"])
    with_ef = sum(1 for r in refs if r["has_ef"])
    with_best = sum(1 for r in refs if r["best_total"] is not None)
    print(f"Deal or No Deal: {label}, {len(instances)} instances ({source}); {with_ef} with an envy-free split, "
          f"{with_best} with an EF and PO split; seeds {seed}..{seed + len(instances) - 1}")
    print(format_table(HEADER, table))
    if released and bound == 4:
        print("\npublished (Hua et al., 44 sampled datapoints with L1<=4; not the same set as ours):")
        print(format_table(["row", "rounds", "agreement", "Alice", "Bob", "PO", "EF", "total"],
                           [[name, "-" if r is None else r, metrics.fmt(vals[0], True), *map(metrics.fmt, vals[1:3]),
                             *(metrics.fmt(x, True) for x in vals[3:5]), metrics.fmt(vals[5])]
                            for name, r, *vals in PAPER_ROWS]))
    per_game = game_rows(records, instances)
    game_header = ["game", "seed", "line", "counts", "L1", "deal", "Alice", "Bob", "PO", "EF", "total", "rounds",
                   "best", "humans"]
    if len(per_game) <= 30:
        print("\nper game:\n" + format_table(game_header, per_game))
    uses = llm_use_table([(label, records)])
    if uses:
        print("\nLLM acts per seat and use:\n" + uses)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as fh:
        csv.writer(fh).writerows([HEADER, *table])
    with open(os.path.join(out_dir, "games.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(game_header + ["instance", "log"])
        for row, inst, rec in zip(per_game, instances, records):
            w.writerow(row + [json.dumps({k: inst[k] for k in ("counts", "values", "source", "line")}), rec.log_path])
    print(f"\nCSV: {os.path.join(out_dir, 'summary.csv')}, {os.path.join(out_dir, 'games.csv')}\nlogs: {out_dir}/logs "
          "(each game_start holds the seed and the instance)")
    return 0
