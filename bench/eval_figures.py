"""Figures of local evaluations for the docs: plays the cheap ones (each under a minute on 2 cores) and writes their
tables to docs/figures/eval_*.md from the CSV files the runs write, so the docs show what the runs print.
    python -m bench.eval_figures [--only NAME,...] [--list]
Dearer evaluations (hundreds of LLM-free games with a planner, released data) stay in their pages, marked with the
command that produced them."""
from __future__ import annotations

import argparse
import csv
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.figures import markdown_table, write_figure

MATRIX = ["matrix-games", "--trials", "10", "--negotiation", "0,4"]
TRAVEL = ["travel", "--agents", "solver,solver"]
DOND = ["dond", "--data", "default", "--hard", "L1<=4"]

# figure name -> (the CSV each run writes, [(row label or None, run_bot.sh arguments)], note)
FIGURES = {
    "eval_matrix_games_workflow": ("paper_table.csv", [(None, MATRIX + ["--agents", "workflow,workflow"])],
                                   "10 independent rooms per game and condition, seeds 0-9; the paper's columns are "
                                   "Claude-3.5 Sonnet / GPT-4o / Claude-3 Opus / o1 (Tables 7 and 8: workflow agents)."),
    "eval_matrix_games_workflow_bob_first": ("paper_table.csv",
                                             [(None, MATRIX + ["--agents", "workflow,workflow", "--first", "bob"])],
                                             "Bob speaks first."),
    "eval_matrix_games_random": ("paper_table.csv", [(None, MATRIX + ["--agents", "random,random"])],
                                 "The paper's columns: Tables 5 and 6 (LLMs without the workflow)."),
    "eval_matrix_games_always_first": ("paper_table.csv", [(None, MATRIX + ["--agents", "always-first,always-first"])],
                                       "The paper's columns: Tables 5 and 6."),
    "eval_matrix_games_workflow_random": ("paper_table.csv", [(None, MATRIX + ["--agents", "workflow,random"])],
                                          "Alice plays workflow, Bob random; the paper's columns: Tables 5 and 6."),
    "eval_travel_boards": ("conditions.csv", [
        ("preset (paper's 6)", TRAVEL + ["--games", "6", "--boards", "preset"]),
        ("generated, 6 rooms", TRAVEL + ["--games", "100", "--boards", "generated", "--rooms", "6"]),
        ("generated, 8 rooms", TRAVEL + ["--games", "50", "--boards", "generated", "--rooms", "8"]),
        ("generated, 10 rooms", TRAVEL + ["--games", "50", "--boards", "generated", "--rooms", "10"]),
        ("generated, 12 rooms", TRAVEL + ["--games", "50", "--boards", "generated", "--rooms", "12"])],
        "Solver vs solver; turns = mean turns of both players."),
    "eval_travel_paper_rules": ("conditions.csv", [
        ("ours, generated", TRAVEL + ["--games", "50", "--boards", "generated", "--rules", "ours"]),
        ("paper, generated", TRAVEL + ["--games", "50", "--boards", "generated", "--rules", "paper"]),
        ("paper, preset", TRAVEL + ["--games", "60", "--boards", "preset", "--rules", "paper"])],
        "Solver vs solver under our rules and the paper's; AMT = the ghost seat's turns, HMT = the light seat's."),
    "eval_travel_population": ("population.csv", [
        (None, ["travel", "--population", "--agents", "solver", "--games", "30", "--boards", "generated"])],
        "The solver (ghost seat) against each scripted person (light seat), 30 generated boards each."),
    "eval_dond_hard": ("summary.csv", [(None, DOND + ["--agents", pair]) for pair in (
        "bayes,bayes", "bayes,greedy", "greedy,bayes", "bayes,fair-split", "greedy,greedy", "fair-split,fair-split")],
        "The released test split's 51 hard cases (L1 <= 4) with an envy-free split; the rows that are not ours (the "
        "best split, the people of the data file, the paper's Table 9) are the same in every run and shown once."),
}
# DialOp: generated instances (CSV), the released ones and prompted self-play (the printed table: an agents' row and
# the humans' row, kept from the first run that prints it).
PRINTED = "(printed)"
DIALOP = {
    "assignment": ([("new (hard), optimizer, optimizer", ["--games", "100", "--turns", "alternate"]),
                    ("new, optimizer, simuser (plain English)", ["--games", "100", "--agents", "optimizer,simuser"])],
                   "optimizer,optimizer"),
    "planning": ([("generated, own catalogue", ["--games", "100"]),
                  ("generated, --turns alternate", ["--games", "100", "--turns", "alternate"]),
                  ("generated, --catalogue released", ["--games", "100", "--catalogue", "released"]),
                  ("generated, --prefs paper", ["--games", "100", "--prefs", "paper"]),
                  ("generated, simuser-weights (ours: told its weights)",
                   ["--games", "100", "--agents", "simuser-weights,planner"])],
                 "simuser,planner"),
    "mediation": ([("new instances, rules fixed", ["--games", "200"]),
                   ("new instances, rules original", ["--games", "200", "--rules", "original"]),
                   ("new instances, --turns round-robin (paper)", ["--games", "200", "--turns", "round-robin"]),
                   ("new instances, --show-weights yes (ours)", ["--games", "200", "--show-weights", "yes"])],
                  "simuser,simuser,mediator"),
}
for _task, (_generated, _agents) in DIALOP.items():
    FIGURES[f"eval_{_task}_generated"] = ("conditions.csv", [(label, [_task, *args]) for label, args in _generated],
                                          "Normalised reward; games without agreement count 0.")
    FIGURES[f"eval_{_task}_released"] = (PRINTED, [(None, [_task, "--human-instances", "default"])] + [
        (None, [_task, "--psp", mode]) for mode in ("50", "75", "proposal")],
        "The released instances (self-play from the start) and prompted self-play (PSP: the human dialogue replayed "
        "up to the cut, then the agents); the humans' row is the released file's own dialogues.")

# Rows every run of a figure repeats (the same instances' best split, the people): kept from the first run only.
OURS = ("ours:", "this run:")  # the first column of our own rows (dond: "this run: <agents> (preset P)")


def printed_table(text: str) -> tuple[list[str], list[list[str]]]:
    """The last table a run printed (format_table: a header, a line of dashes, rows), cut at the dashes' columns."""
    lines = text.splitlines()
    at = max(i for i, line in enumerate(lines) if line.strip() and set(line.strip()) <= {"-", " "} and i > 0)
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[at])]

    def cut(line: str) -> list[str]:
        return [line[a:(spans[k + 1][0] if k + 1 < len(spans) else None)].strip() for k, (a, _) in enumerate(spans)]

    rows = []
    for line in lines[at + 1:]:
        if not line.strip():
            break
        rows.append(cut(line))
    return cut(lines[at - 1]), rows


def play(args: list[str], out: Path, csv_name: str) -> tuple[list[str], list[list[str]]]:
    """Play one run; its table from the CSV it writes, or (csv_name PRINTED) from the table it prints."""
    run = subprocess.run([sys.executable, "-m", "bots", *args, "--out", str(out), "--quiet"], check=True,
                         stdout=subprocess.PIPE, text=True)
    if csv_name == PRINTED:
        return printed_table(run.stdout)
    with open(out / csv_name, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def make(name: str) -> Path:
    csv_name, runs, note = FIGURES[name]
    header, table, commands = None, [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, args) in enumerate(runs):
            head, rows = play(args, Path(tmp) / str(i), csv_name)
            header = (["run"] if label else []) + head
            if i and any(row[0].startswith(OURS) for row in rows):
                rows = [row for row in rows if row[0].startswith(OURS)]
            if i and csv_name == PRINTED:
                rows = [row for row in rows if row[0] != "humans"]
            table += [([label] if label else []) + row for row in rows]
            commands.append("./run_bot.sh " + " ".join(shlex.quote(a) for a in args))
    # ours first and the humans last, in run order otherwise (a stable sort)
    table.sort(key=lambda row: (row[0].startswith("humans"), not row[0].startswith(OURS) and csv_name != PRINTED))
    command = commands[0] if len(commands) == 1 else "python -m bench.eval_figures --only " + name
    runs_note = "" if len(commands) == 1 else "Runs: " + "; ".join(f"`{c}`" for c in commands) + "."
    return write_figure(name, [markdown_table(header, table)], command, [note, runs_note])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated figure names (default: all)")
    ap.add_argument("--list", action="store_true", help="list the figures and exit")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(FIGURES))
        return 0
    names = [n for n in args.only.split(",") if n] or list(FIGURES)
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        raise SystemExit(f"unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    for name in names:
        make(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
