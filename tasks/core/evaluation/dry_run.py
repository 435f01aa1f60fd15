"""`--dry-run`: what a run will cost before it is played (games, LLM acts, tokens, price), measured on a pilot."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from tasks.core import TaskSpec

from . import sweep
from .play import GameRecord, play_game
from .tables import format_table, llm_totals

if TYPE_CHECKING:
    from .condition import Condition


def dry_run(spec: TaskSpec, plans: list["Condition"], args, llm, out_dir: str, brain_options: dict) -> int:
    """Cost before the run: per condition, the planned games and, per game, LLM acts and tokens measured on a pilot
    (or on the games already recorded in `out_dir`), times the planned games; the price when the config has one."""
    recorded = {}
    if os.path.exists(os.path.join(out_dir, sweep.MANIFEST)):
        recorded = sweep.load_all([out_dir])[1]
    pilot_dir = os.path.join(out_dir, "pilot")
    cfg = getattr(llm, "config", None)
    prices = (getattr(cfg, "price_prompt", None), getattr(cfg, "price_completion", None))
    rows, total = [], [0, 0, 0, 0]
    for c, plan in enumerate(plans):
        games = [GameRecord(**r) for (ci, _), r in sorted(recorded.items()) if ci == c]
        source = f"{len(games)} recorded"
        if not games:
            n = max(1, args.pilot)
            for i in range(n):
                log = os.path.join(pilot_dir, plan.sub, f"game-{i:04d}.jsonl")
                games.append(play_game(spec, args.seed + i, plan.agents, plan.options, llm=llm, log_path=log,
                                       index=i, brain_options=brain_options))
            source = f"pilot of {n}"
        sums = llm_totals(games)
        acts, prompt, completion = sums["acts"], sums["prompt_tokens"], sums["completion_tokens"]
        per = max(1, len(games))
        planned = args.games
        t = [planned, round(acts / per * planned), round(prompt / per * planned), round(completion / per * planned)]
        total = [a + b for a, b in zip(total, t)]
        row = {**plan.columns, "agents": ",".join(plan.agents[s] for s in spec.seats), "from": source,
               "games": t[0], "LLM acts": t[1], "prompt tokens": t[2], "completion tokens": t[3]}
        if all(p is not None for p in prices):
            row["price"] = round(t[2] / 1e6 * prices[0] + t[3] / 1e6 * prices[1], 2)
        rows.append(row)
    header: list = []
    for r in rows:
        header += [k for k in r if k not in header]
    print(format_table(header, [[r.get(k, "") for k in header] for r in rows]))
    line = f"\nall conditions: {total[0]} games, {total[1]} LLM acts, {total[2]} prompt + {total[3]} completion tokens"
    if all(p is not None for p in prices):
        line += f", {total[2] / 1e6 * prices[0] + total[3] / 1e6 * prices[1]:.2f} at the configured prices"
    elif llm is not None:
        line += " (set llm.price_prompt and llm.price_completion, per million tokens, for a price)"
    print(line)
    return 0
