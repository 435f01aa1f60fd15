"""`./run_bot.sh benchmark`: every task's LLM agents with one configured model, one leaderboard.

    ./run_bot.sh benchmark [--games N] [--tasks a,b] [--board DIR] [--parallel N] [--config F]
    ./run_bot.sh benchmark --board DIR --only-board        (re-draw the board from the runs in it)

Each task declares its rows (`TaskSpec.benchmark`: agents, options, the main metric). Every row plays --games games
(default 2) through the same sweep as `--games` runs (in parallel, resumable: run the same command again after an
interruption), into `<board>/runs/<model>/<task>/<row>/`. The model's rows go to `<board>/models/<model>.csv`; the
board (`leaderboard.csv`, `index.html` with plots) is drawn from every model's CSV in the folder, so runs of
several models, on several machines, merge by copying their CSVs into one board folder.

Combined score of a model: each row's main metric mapped onto 0..1 (1 best: fractions as they are, percentages / 100,
ratios to an optimum as 1/ratio), averaged within a task, then averaged over tasks (every task weighs the same,
however many rows it has). By default a failed LLM act is not played by the symbolic policy: its game ends as
invalid and scores 0 (counted in the "invalid" column), so the board measures the model, not the fallback
(`--allow-fallback` for the other accounting, with its fallback % beside it). It is printed only over the tasks the model ran; a model that ran fewer tasks is marked.
"""
from __future__ import annotations

import argparse
import base64
import csv
import html
import io
import os
import sys
import time
from argparse import Namespace
from statistics import fmean
from typing import Optional

from tasks import available_tasks, get_task
from tasks.core.evaluation import Condition, llm_totals, summary_table, sweep_conditions
from tasks.core.evaluation.reproduce import slug

from .local import make_llm

COLUMNS = ["model", "task", "row", "agents", "games", "metric", "value", "score", "valid %", "fallback %", "invalid",
           "tokens/game", "seconds/game"]


def score_of(value, how: str) -> Optional[float]:
    """The main metric on 0..1, 1 best (see the module docstring)."""
    if value is None or value == "":
        return None
    v = float(value)
    if how == "fraction":
        return max(0.0, min(1.0, v))
    if how == "percent":
        return max(0.0, min(1.0, v / 100.0))
    if how == "inverse":
        return 0.0 if v <= 0 else max(0.0, min(1.0, 1.0 / v))
    raise ValueError(f"unknown score mapping {how!r}")


def llm_share(records) -> tuple[Optional[float], Optional[float]]:
    """Valid % and fallback % over every LLM act of the rows' games (all LLM seats together)."""
    sums = llm_totals(records)
    if not sums["acts"]:
        return None, None
    return round(100 * sums["valid"] / sums["acts"], 1), round(100 * sums["fallback"] / sums["acts"], 1)


def run_model(args, llm) -> list[dict]:
    model = llm.config.model
    tasks = args.tasks.split(",") if args.tasks else available_tasks()
    rows = []
    for name in tasks:
        spec = get_task(name)
        for bench in spec.benchmark:
            agents = dict(zip(spec.seats, bench.agents))
            options = dict(bench.options)
            out = os.path.join(args.board, "runs", slug(model), spec.name, slug(bench.label))
            print(f"{spec.name}: {bench.label} ({args.games} games)", file=sys.stderr)
            sweep_args = Namespace(games=args.games, seed=args.seed, agents=",".join(bench.agents),
                                   parallel=args.parallel, shard=None)
            t0 = time.time()
            _, by_condition = sweep_conditions(spec, [Condition(agents, options)], sweep_args, llm, out,
                                               {} if args.allow_fallback else {"strict_llm": True}, "conditions")
            records = by_condition[0]
            played = [r for r in records if r.results.get("status") != "invalid"]
            invalid = len(records) - len(played)
            value = summary_table(spec, played).get(bench.metric) if played else None
            score = score_of(value, bench.score)
            # An invalid game (an LLM act failed, nothing stood in) scores 0 whatever the task's metric does with it.
            score = 0.0 if not played else None if score is None else score * len(played) / len(records)
            valid, fallback = llm_share(records)
            tokens = [r.results.get("tokens") or 0 for r in records]
            rows.append({
                "model": model, "task": spec.name, "row": bench.label, "agents": ",".join(bench.agents),
                "games": len(records), "metric": bench.metric, "value": value,
                "score": _round(score), "valid %": valid, "fallback %": fallback,
                "invalid": invalid, "tokens/game": round(fmean(tokens), 1) if tokens else 0,
                "seconds/game": round((time.time() - t0) / max(1, len(records)), 1),
            })
    return rows


def _round(x: Optional[float]) -> Optional[float]:
    return None if x is None else round(x, 3)


def write_csv(path: str, rows: list[dict]) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: "" if r.get(k) is None else r.get(k) for k in COLUMNS})


def _keep_others(path: str, rows: list[dict]) -> list[dict]:
    """This run's rows plus the model's earlier rows of other tasks/rows (a run of some tasks adds to the board)."""
    ran = {(r["task"], r["row"]) for r in rows}
    try:
        with open(path, newline="") as fh:
            old = [r for r in csv.DictReader(fh) if (r["task"], r["row"]) not in ran]
    except FileNotFoundError:
        old = []
    return sorted(old + rows, key=lambda r: (r["task"], r["row"]))


def read_models(board: str) -> list[dict]:
    folder = os.path.join(board, "models")
    rows = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.endswith(".csv"):
            with open(os.path.join(folder, name), newline="") as fh:
                rows += list(csv.DictReader(fh))
    return rows


def combined(rows: list[dict]) -> list[dict]:
    """Per model: the combined score (mean over tasks of the mean row score), tasks run, and whether all were."""
    all_tasks = sorted({r["task"] for r in rows})
    out = []
    for model in sorted({r["model"] for r in rows}):
        per_task = {}
        for r in rows:
            if r["model"] == model and r.get("score") not in (None, ""):
                per_task.setdefault(r["task"], []).append(float(r["score"]))
        task_scores = {t: fmean(v) for t, v in per_task.items()}
        out.append({"model": model, "combined score": round(fmean(task_scores.values()), 3) if task_scores else None,
                    "tasks": len(task_scores), "of": len(all_tasks),
                    "per task": {t: round(s, 3) for t, s in sorted(task_scores.items())}})
    return sorted(out, key=lambda m: -(m["combined score"] or 0))


def draw_board(board: str) -> tuple[str, str]:
    rows = read_models(board)
    models = combined(rows)
    csv_path = os.path.join(board, "leaderboard.csv")
    with open(csv_path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["rank", "model", "combined score", "tasks run", "tasks on the board"])
        for i, m in enumerate(models, 1):
            w.writerow([i, m["model"], m["combined score"], m["tasks"], m["of"]])
    html_path = os.path.join(board, "index.html")
    with open(html_path, "w", encoding="utf-8") as fh:
        fh.write(_html(rows, models))
    return csv_path, html_path


def _plot(rows: list[dict], models: list[dict]) -> str:
    """One PNG (base64): the combined score per model, and every row's score per model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['task']}: {r['row']}" for r in rows]
    keys = list(dict.fromkeys(labels))
    names = [m["model"] for m in models]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, max(3.5, 0.35 * len(keys) + 1.5)),
                                   gridspec_kw={"width_ratios": [1, 2.2]})
    ax1.barh(names[::-1], [m["combined score"] or 0 for m in models][::-1], color="#4c72b0")
    ax1.set_xlim(0, 1)
    ax1.set_title("combined score (0..1)")
    height = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        vals = []
        for k in keys:
            hit = [r for r in rows if r["model"] == name and f"{r['task']}: {r['row']}" == k]
            vals.append(float(hit[0]["score"]) if hit and hit[0].get("score") not in ("", None) else 0.0)
        ax2.barh([j + i * height for j in range(len(keys))], vals, height=height, label=name)
    ax2.set_yticks([j + 0.4 - height / 2 for j in range(len(keys))])
    ax2.set_yticklabels(keys, fontsize=8)
    ax2.invert_yaxis()
    ax2.set_xlim(0, 1)
    ax2.set_title("score per task row (main metric on 0..1)")
    ax2.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _html(rows: list[dict], models: list[dict]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(c)}</th>" for c in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{e(str(r.get(c, '')))}</td>" for c in COLUMNS) + "</tr>" for r in rows)
    board = "".join(
        f"<tr><td>{i}</td><td>{e(m['model'])}</td><td>{e(str(m['combined score']))}</td>"
        f"<td>{m['tasks']} of {m['of']}{'' if m['tasks'] == m['of'] else ' (incomplete)'}</td></tr>"
        for i, m in enumerate(models, 1))
    img = f'<img alt="scores" src="data:image/png;base64,{_plot(rows, models)}">' if rows else ""
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Slurk bot suite: LLM benchmark</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1300px}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}}th{{background:#eee}}
img{{max-width:100%}}</style></head><body>
<h1>LLM benchmark</h1>
<p>Every task's LLM agents in the set-ups the task declares (<code>TaskSpec.benchmark</code>), played by
<code>./run_bot.sh benchmark</code>. Combined score: each row's main metric on 0..1 (1 best), averaged within a
task, then over tasks (every task weighs the same). Valid % and fallback % count every LLM act of the row's games;
"invalid" counts games that ended because an LLM act failed (the symbolic policy never stands in unless the run
said <code>--allow-fallback</code>); they score 0.</p>
<h2>Models</h2><table><tr><th>rank</th><th>model</th><th>combined score</th><th>tasks</th></tr>{board}</table>
{img}
<h2>Rows</h2><table><tr>{head}</tr>{body}</table>
</body></html>
"""


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="run_bot.sh benchmark", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2, help="games per row (default 2)")
    p.add_argument("--tasks", help="comma-separated tasks (default: every task with benchmark rows)")
    p.add_argument("--board", default=os.path.join("runs", "benchmark"), help="the board folder (default runs/benchmark)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--parallel", type=int, default=0, help="games in flight (default: the endpoint's llm.concurrency)")
    p.add_argument("--config", help="YAML config file with an llm section (secrets stay there or in the environment)")
    p.add_argument("--allow-fallback", action="store_true",
                   help="let the symbolic policy play a failed LLM act (default: the act fails and its game ends as "
                        "invalid, scoring 0, so a row measures the model and not the fallback)")
    p.add_argument("--only-board", action="store_true", help="only draw the board from the model CSVs in --board")
    args = p.parse_args(argv)
    if args.tasks:
        unknown = [t for t in args.tasks.split(",") if t not in available_tasks()]
        if unknown:
            raise SystemExit(f"unknown task(s): {', '.join(unknown)}; tasks: {', '.join(available_tasks())}")
    if not args.only_board:
        llm = make_llm(args.config)
        if llm is None:
            raise SystemExit("benchmark needs a model: set LLM_MODEL (and LLM_BASE_URL / LLM_API_KEY) or an llm "
                             "section in --config")
        rows = run_model(args, llm)
        path = os.path.join(args.board, "models", f"{slug(llm.config.model)}.csv")
        write_csv(path, _keep_others(path, rows))
        print(f"rows of {llm.config.model}: {path}")
    csv_path, html_path = draw_board(args.board)
    with open(csv_path, newline="") as fh:
        for line in fh:
            print(line.rstrip())
    print(f"board: {html_path}")
    return 0
