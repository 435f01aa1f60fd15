"""The paper's Tables 5-8 layout: `./run_bot.sh matrix-games --trials 10 --negotiation 0,4 --agents A,B` plays
`trials` independent rooms (seeds S..S+trials-1, one trial each, as the paper's 10 samples) of every game in every
negotiation condition and prints one row per game: our NE and PO-NE rates per condition, then the paper's
published columns (Claude-3.5 Sonnet / GPT-4o / Claude-3 Opus / o1) for the matching table, and the averages."""
from __future__ import annotations

import csv
import os
import sys

from tasks.core.evaluation import agent_label, default_out, format_table, is_invalid, llm_use_table, play_game
from tasks.core.parallel import map_games

from .catalogue import TESTBED

MODELS = "Sonnet/GPT-4o/Opus/o1"
# reference §5: (NE, PO-NE) per model; one string when both columns are the same
PAPER = {
    "T5": {"prisoners-dilemma": "1.0 .9 .9 1.0", "stag-hunt": ("NE .6 .8 .9 .4", "PO .3 .4 .0 .1"),
           "battle-of-sexes": ".3 .2 .6 .5", "wait-go": ".4 .5 .7 .3",
           "duopoly": ("NE .3 .2 .1 .7", "PO .2 .2 .1 .7"), "escalation": ".0 .2 .2 1.0",
           "monopoly": "1.0 .4 1.0 1.0", "hot-cold": ".9 .1 .7 1.0", "draco": ".3 .0 .7 .9",
           "trigame": ".0 .0 .1 1.0", "average": ("NE .45 .32 .59 .78", "PO .44 .28 .50 .75")},
    "T6": {"prisoners-dilemma": "0.0 .1 0.0 .9", "stag-hunt": "1.0 .9 1.0 .9", "battle-of-sexes": ".7 .9 .7 .8",
           "wait-go": "1.0 .8 .4 .8", "duopoly": ".1 .1 .0 .5", "escalation": ".6 .4 .6 1.0",
           "monopoly": "1.0 .9 1.0 1.0", "hot-cold": ".7 .2 .7 .4", "draco": "1.0 .8 1.0 1.0",
           "trigame": ".2 .5 .6 1.0", "average": ".63 .56 .60 .83"},
    "T7": {"prisoners-dilemma": "1.0 1.0 1.0 1.0", "stag-hunt": "1.0 1.0 1.0 1.0", "battle-of-sexes": ".3 .3 .4 .5",
           "wait-go": ".2 .6 .1 .3", "duopoly": "1.0 .5 .6 .3", "escalation": ".5 .2 .3 1.0",
           "monopoly": "1.0 1.0 1.0 1.0", "hot-cold": "1.0 1.0 1.0 1.0", "draco": "1.0 1.0 1.0 1.0",
           "trigame": ".6 .9 .7 1.0", "average": ".76 .69 .71 .81"},
    "T8": {"prisoners-dilemma": "1.0 .9 .9 1.0", "stag-hunt": "1.0 1.0 1.0 1.0", "battle-of-sexes": ".7 .8 1.0 .8",
           "wait-go": ".9 .7 .6 .7", "duopoly": ".6 .7 .6 .3", "escalation": ".3 .2 .4 1.0",
           "monopoly": "1.0 1.0 1.0 1.0", "hot-cold": ".7 .8 1.0 1.0", "draco": ".8 1.0 .9 1.0",
           "trigame": ".3 .8 .9 1.0", "average": ".73 .78 .83 .88"},
}


def paper_table(agents: dict, k: int) -> str | None:
    """Which published table matches our condition: the workflow tables for workflow agents, else the CoT ones."""
    workflow = all(a in ("workflow", "llm-workflow") for a in agents.values())
    if k == 0:
        return "T7" if workflow else "T5"
    if k == 4:
        return "T8" if workflow else "T6"
    return None


def _paper_cell(table: str | None, game: str) -> str:
    if table is None:
        return "-"
    v = PAPER[table].get(game, "-")
    return " | ".join(v) if isinstance(v, tuple) else v


def equilibrium_payoffs(game: str, options: dict) -> str:
    """The PO-NE payoffs (matrix; several when there are several) or the SPE payoff (tree), as text."""
    from . import catalogue, solvers

    g = catalogue.load(path=options["game_file"]) if options.get("game_file") else catalogue.load(game)
    if g["kind"] == "tree":
        return str(tuple(solvers.backward_induction(g["tree"])[2]))
    cells = solvers.po_nash(g["payoffs"])
    return " or ".join(str(tuple(g["payoffs"][i][j])) for i, j in cells) or "no pure NE"


def parse_rounds(value) -> list[int]:
    ks = [int(x) for x in str(value).split(",") if str(x).strip()]
    if not ks or any(not 0 <= k <= 10 for k in ks):
        raise SystemExit("--negotiation takes rounds 0..10, e.g. 0,4")
    return ks


def evaluate(spec, run) -> int | None:
    """`TaskSpec.evaluator`: a `--trials N` run (unless a person takes a seat) prints the paper's Tables 5-8 layout;
    None leaves every other run to the ordinary local evaluation."""
    if not run.options.get("trials") or run.play:
        return None
    return main_paper_table(spec, run.agents, run.options, run.llm, run.seed, run.out or default_out(spec),
                            run.brain_options, parallel=run.parallel)


def main_paper_table(spec, agents: dict, options: dict, llm, seed: int, out_dir: str,
                     brain_options: dict | None = None, parallel: int = 1) -> int:
    options = dict(options)
    trials = int(options.pop("trials"))
    ks = parse_rounds(options.pop("negotiation", "0,4"))
    games = [options.pop("game")] if options.get("game") else list(TESTBED)
    if options.get("game_file"):
        games = [options["game_file"]]
    header = ["game"] + [f"{m} k={k}" for k in ks for m in ("NE", "PO-NE")]
    tables = [paper_table(agents, k) for k in ks]
    header += [f"paper {t} k={k} ({MODELS})" for k, t in zip(ks, tables) if t]
    rows, sums, all_records, pay_rows = [], {k: [0.0, 0.0] for k in ks}, [], []
    total = len(games) * len(ks) * trials
    done = 0
    for game in games:
        row = [game]
        for k in ks:
            def one(i, _):
                opts = {**options, "negotiation": k, "trials": 1}
                if not options.get("game_file"):
                    opts["game"] = game
                log = os.path.join(out_dir, f"{os.path.basename(game)}-k{k}", f"trial-{i:02d}.jsonl")
                return play_game(spec, seed + i, agents, opts, llm=llm, log_path=log, index=i,
                                 brain_options=brain_options)

            records = map_games(one, range(trials), parallel)
            done += trials
            if sys.stderr.isatty():
                sys.stderr.write(f"\r{done}/{total} rooms")
            all_records += records
            played = [r for r in records if not is_invalid(r.results)]  # strict LLM mode: in no rate, counted
            outs = [o for r in played for o in (r.results.get("outcomes") or [])]
            pay_rows.append([game, k, *[round(sum(o["payoffs"][s] for o in outs) / max(1, len(outs)), 2)
                                        for s in spec.seats], equilibrium_payoffs(game, options)])
            ne = sum(o["is_ne"] for o in outs) / max(1, len(played))
            po = sum(o["po_ne"] for o in outs) / max(1, len(played))
            sums[k][0] += ne
            sums[k][1] += po
            row += [f"{ne:.2f}", f"{po:.2f}"]
        row += [_paper_cell(t, game) for t in tables if t]
        rows.append(row)
    sys.stderr.write("\n")
    avg = ["average"] + [f"{sums[k][j] / len(games):.2f}" for k in ks for j in (0, 1)]
    avg += [_paper_cell(t, "average") for t in tables if t]
    rows.append(avg)
    invalid = sum(is_invalid(r.results) for r in all_records)
    print(f"agents {agent_label(spec, agents, all_records)}, {trials} trials per game and condition"
          + (f"; {invalid} invalid (strict LLM mode), left out of the rates" if invalid else ""))
    print(format_table(header, rows))
    uses = llm_use_table([(agent_label(spec, agents, all_records), all_records)])
    if uses:  # honest LLM figures: acts, valid %, fallback % per seat and use
        print("\nLLM acts per seat and use:\n" + uses)
    if len(set(agents.values())) > 1:  # mixed pairs: what each seat earned against the equilibrium payoffs
        print("\nmean payoff per seat (Alice = " + agents[spec.seats[0]] + ", Bob = " + agents[spec.seats[1]] + ")")
        print(format_table(["game", "k", "Alice", "Bob", "equilibrium (Alice, Bob)"], pay_rows))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "paper_table.csv")
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([header, *rows])
    print(f"\nCSV: {path}\nlogs: {out_dir}")
    return 0
