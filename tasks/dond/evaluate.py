"""The evaluation table of Deal or No Deal, laid out as the paper's Tables 9-18:

    ./run_bot.sh dond --games N --agents A,B [--data PATH|default] [--hard L1<=4]

plays N seeded games (game i: seed S+i; generated instances, or the first N selected released instances, all of them
when --games is not given) and prints agreement / Alice / Bob / PO / EF / EF&PO / total / rounds for our agents, the
paper's "best" row (the EF and PO split with the largest total, over the instances that have one) on the same
instances, and, on released data, the people's own outcomes from the data file for the same instances, plus the
published rows for comparison: on the paper's own 50-instance file (`sampled_50_deal_no_deal.txt`, its 44 with an
envy-free split) they are on the same instances and stand in the same table. Every game writes a log whose game_start holds the seed and the full instance, so
any game replays; games.csv has one row per game (with the instance).
"""
from __future__ import annotations

import csv
import json
import os

from tasks.core.evaluation import agent_label, default_out, format_table, is_invalid, llm_use_table, play_game
from tasks.core.evaluation.baseline import baseline_label
from tasks.core.parallel import map_games

from . import metrics, published
from .parse import parse_hard

HEADER = ["row", "n", "agreement", "Alice", "Bob", "PO", "EF", "EF&PO", "total", "rounds", "invalid"]
RATES = ("agreement", "PO", "EF", "EF&PO")


def _cells(label: str, r: dict, invalid="-") -> list:
    return [label, r.get("n", "-")] + [metrics.fmt(r.get(c), c in RATES) for c in metrics.COLUMNS] + [invalid]


def _played(label: str, records) -> list:
    """A row of games played here: strict-mode invalid games are in no mean, and counted."""
    valid = [r.results for r in records if not is_invalid(r.results)]
    return _cells(label, metrics.row(valid), len(records) - len(valid))


def instances_for(spec, games: int, seed: int, options: dict) -> list[dict]:
    if options.get("data"):
        from .released import select
        chosen = select(options)
        return chosen[:games] if games > 1 else chosen
    return [spec.generate(seed + i, options) for i in range(games)]


def _published(name: str, n) -> list:
    r = published.row(name)
    rate = (lambda c: metrics.fmt(r[c], True))
    return [f"paper: {name}", n, rate("agreement"), metrics.fmt(r["Alice"]), metrics.fmt(r["Bob"]), rate("PO"),
            rate("EF"), metrics.fmt(1.0, True) if name.startswith("Best") else "-", metrics.fmt(r["total"]),
            metrics.fmt(r["rounds"]), "-"]


def released_rows(options: dict, bound, instances: list[dict]) -> tuple[str, list, list]:
    """(where the instances come from, the rows of people and the paper beside ours, notes under the table)."""
    from .released import describe, file_info, hard_cases, load
    info = file_info(options.get("data"), options.get("paper_prompts"))
    rows = [_cells("humans (data file)", metrics.row([i["human"] for i in instances]))]
    notes = []
    if bound is not None:
        every = hard_cases(load(options.get("data"), options.get("paper_prompts")), bound)
        if len(every) != len(instances):
            rows.append(_cells(f"humans, all {len(every)} hard cases", metrics.row([i["human"] for i in every])))
        if bound in published.TABLE_9 and not info["paper_sample"]:
            n, agree, ef, po, efpo = published.TABLE_9[bound]
            rows.append([f"paper T9: humans L1<={bound}", n, metrics.fmt(agree, True), "-", "-",
                         metrics.fmt(po, True), metrics.fmt(ef, True), metrics.fmt(efpo, True), "-", "-", "-"])
    source = describe(info) + (f"; hard L1<={bound}" if bound is not None else "")
    if info["paper_sample"]:
        every = info["with_ef"] == len(instances)
        rows += [_published(name, info["with_ef"]) for name in published.ROWS]
        notes.append(f"paper rows: Hua et al. Tables 10-18 on these {info['with_ef']} instances"
                     + ("" if every else f" (this run played {len(instances)} of them)")
                     + "; its human row was scored from other perspective lines than this file's (reference §6)")
    elif bound == 4:
        notes.append("published (Hua et al., its 44 sampled datapoints with L1<=4: pass --data "
                     f"sampled_50_deal_no_deal.txt to play them):\n"
                     + format_table(HEADER, [_published(name, 44) for name in published.ROWS]))
    return source, rows, notes


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
                      parallel=run.parallel, baseline=getattr(run, "baseline", True))


def main_table(spec, agents: dict, options: dict, llm, games: int, seed: int, out_dir: str | None,
               brain_options: dict | None = None, parallel: int = 1, baseline: bool = True) -> int:
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
    preset = options.get("preset") or "ours"
    table = [_played(f"this run: {label} (preset {preset})", records)]
    if baseline and llm is not None and any(spec.wants_llm(a, brain_options, s) for s, a in agents.items()):
        # the same seeds with every brain built without the LLM: what the LLM added beside its fallback policy
        def without_llm(i, inst):
            return play_game(spec, seed + i, agents, options, llm=None, index=i, instance=inst,
                             brain_options={**(brain_options or {}), "strict_llm": False})
        base = map_games(without_llm, instances, parallel, "baseline games")
        table.append(_played(f"{baseline_label(agents, spec.seats)} (preset {preset})", base))
    table.append(_cells("best (EF+PO, max total)", metrics.best_row(refs)))
    source, notes = "generated" + (f", hard L1<={bound}" if bound is not None else ""), []
    if options.get("data"):
        source, more, notes = released_rows(options, bound, instances)
        table += more
    with_ef = sum(1 for r in refs if r["has_ef"])
    with_best = sum(1 for r in refs if r["best_total"] is not None)
    print(f"Deal or No Deal: {label}, preset {preset}; {len(instances)} instances ({source}); {with_ef} with an "
          f"envy-free split, {with_best} with an EF and PO split; seeds {seed}..{seed + len(instances) - 1}")
    print(format_table(HEADER, table))
    for note in notes:
        print(note)
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
