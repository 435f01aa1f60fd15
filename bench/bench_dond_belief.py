"""How well `bayes` learns its partner's values in Deal or No Deal: the paper's valuation-estimation metrics
(reference game-theory-negotiation.md §8-9, Tables 14-15) on the released hard cases, plus the game outcome.

    python -m bench.bench_dond_belief                            bayes vs bayes, hard cases L1<=4 with an EF split
    python -m bench.bench_dond_belief --partner greedy           bayes (both seats in turn) vs greedy
    python -m bench.bench_dond_belief --brain-option care=0 --brain-option share=none   the paper-like variant

V_est = the valuations whose posterior is at least `rel` x the largest (--rel, several allowed); "precision" =
1[truth in V_est], "recall" = 1[truth in V_est] / |V_est|, reduction = 1 - |V_est| / |Omega| (the paper's inverted
names), averaged over every bayes seat of every game; "by decision" gives them after the agent's k-th decision (its
belief when it moves for the k-th time; a game that ended earlier keeps its last belief, as the paper's Table 15).
Without the data file it plays generated hard instances. Figures are printed, not asserted.
"""
from __future__ import annotations

import argparse
import json
import sys

from bench.figures import command_line, markdown_table, write_figure
from tasks.core.evaluation import LOCAL_TIMERS
from tasks import get_task
from tasks.core import MatchDriver, SeatInfo, build_match
from tasks.dond.belief import Belief, estimation_metrics
from tasks.dond.generator import generate

SPEC = get_task("dond")


def instances(args) -> tuple[str, list[dict]]:
    try:
        from tasks.dond.released import select
        chosen = select({"data": args.data, "hard": args.hard, "ef_only": args.ef_only})
        return f"released, hard {args.hard}, ef_only {args.ef_only}", chosen
    except FileNotFoundError:
        return f"generated, hard {args.hard}", [generate(s, {"hard": args.hard}) for s in range(args.games or 50)]


def play(inst: dict, agents: dict, options: dict, seed: int):
    seats = {s: SeatInfo("agent", s.title(), agents[s]) for s in SPEC.seats}
    match, brains = build_match(SPEC, seed, seats, instance=inst, timers=LOCAL_TIMERS, brain_options=options)
    list(MatchDriver(match, brains).open())
    return match.results, brains


def belief_at(brain, p) -> Belief:
    b = Belief(brain.belief.counts)
    b.p = list(p)
    return b


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="default")
    ap.add_argument("--hard", default="L1<=4")
    ap.add_argument("--ef-only", default="true")
    ap.add_argument("--games", type=int, default=0, help="only the first N instances (0: all)")
    ap.add_argument("--partner", default="bayes", help="the other agent (bayes plays both seats in turn)")
    ap.add_argument("--rel", type=float, action="append", help="V_est threshold(s) relative to the top (0.5)")
    ap.add_argument("--brain-option", action="append", default=[], help="KEY=VALUE for every agent")
    ap.add_argument("--rounds", type=int, default=7, help="decisions shown in the by-decision table")
    args = ap.parse_args(argv)
    rels = args.rel or [0.5, 0.2]
    options = {}
    for kv in args.brain_option:
        k, v = kv.split("=", 1)
        try:
            options[k] = json.loads(v)
        except ValueError:
            options[k] = v
    label, chosen = instances(args)
    chosen = chosen[: args.games or None]
    pairings = [("bayes", args.partner)] if args.partner == "bayes" else [("bayes", args.partner), (args.partner, "bayes")]
    outcome = {k: [] for k in ("deal", "alice_score", "bob_score", "pareto_optimal", "envy_free", "ef_po", "total",
                               "rounds")}
    final = {r: [] for r in rels}
    by_k = {r: {k: [] for k in range(1, args.rounds + 1)} for r in rels}
    for i, inst in enumerate(chosen):
        for a, b in pairings:
            res, brains = play(inst, {"alice": a, "bob": b}, options, i)
            for k in outcome:
                outcome[k].append(float(res[k]))
            for seat, brain in brains.items():
                if brain.name != "bayes":
                    continue
                truth = inst["values"]["bob" if seat == "alice" else "alice"]
                for r in rels:
                    final[r].append(estimation_metrics(brain.belief, truth, r))
                    trace = brain.trace or [(1, brain.belief.p)]
                    for k in range(1, args.rounds + 1):
                        p = trace[min(k, len(trace)) - 1][1]
                        by_k[r][k].append(estimation_metrics(belief_at(brain, p), truth, r))
    n = len(outcome["deal"])
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    title = f"Deal or No Deal, {label}: {len(chosen)} instances, {n} games, bayes vs {args.partner}, options {options}"
    tables = [markdown_table(
        ("agreement", "Alice", "Bob", "PO", "EF", "EF&PO", "total", "rounds"),
        [(f"{mean(outcome['deal']):.4f}", f"{mean(outcome['alice_score']):.2f}", f"{mean(outcome['bob_score']):.2f}",
          f"{mean(outcome['pareto_optimal']):.4f}", f"{mean(outcome['envy_free']):.4f}",
          f"{mean(outcome['ef_po']):.4f}", f"{mean(outcome['total']):.2f}", f"{mean(outcome['rounds']):.2f}")]),
        "Valuation estimation at the end of the game (paper Table 14: Sonnet .9545 / .3766 / .7033):",
        markdown_table(("rel", "seats", "precision", "recall", "reduction", "|V_est|"),
                       [(r, len(final[r]), f"{mean([x['precision'] for x in final[r]]):.4f}",
                         f"{mean([x['recall'] for x in final[r]]):.4f}",
                         f"{mean([x['reduction'] for x in final[r]]):.4f}",
                         f"{mean([x['size'] for x in final[r]]):.2f}") for r in rels])]
    for r in rels:
        tables += [f"By decision (rel {r}; the paper's Table 15 is by negotiation round):",
                   markdown_table(("k", "precision", "recall", "reduction"),
                                  [(k, f"{mean([x['precision'] for x in m]):.4f}", f"{mean([x['recall'] for x in m]):.4f}",
                                    f"{mean([x['reduction'] for x in m]):.4f}") for k, m in by_k[r].items()])]
    print(title)
    for t in tables:
        print("\n" + t)
    name = "bench_dond_belief" + ("" if not argv else "-" + "-".join(
        a.lstrip("-").replace("=", "-").replace("<", "") for a in argv)).replace("/", "_")
    write_figure(name, tables, command_line(argv, "bench.bench_dond_belief"), [title + "."])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
