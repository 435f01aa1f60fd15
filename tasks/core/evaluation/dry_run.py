"""`--dry-run`: what a run will cost before it is played (games, LLM acts, tokens, price), measured on a pilot.
`estimate` is the arithmetic of one condition, shared with `./run_bot.sh reproduce` (reproduce.py)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from tasks.core import TaskSpec

from . import sweep
from .play import GameRecord, play_game
from .tables import format_table, llm_totals

if TYPE_CHECKING:
    from .condition import Condition


def prices_of(llm) -> tuple[Optional[float], Optional[float]]:
    """(price per million prompt tokens, per million completion tokens) of the LLM config (llm.price_prompt /
    price_completion, env LLM_PRICE_PROMPT / LLM_PRICE_COMPLETION); None where unknown."""
    cfg = getattr(llm, "config", None)
    return getattr(cfg, "price_prompt", None), getattr(cfg, "price_completion", None)


def price(prompt_tokens: float, completion_tokens: float, prices) -> Optional[float]:
    if any(p is None for p in prices):
        return None
    return prompt_tokens / 1e6 * prices[0] + completion_tokens / 1e6 * prices[1]


def play_pilot(spec: TaskSpec, plan: "Condition", games: int, seed: int, llm, folder: str,
               brain_options: dict) -> list[GameRecord]:
    """`games` games of one condition (seeds seed, seed+1, ...), logged under `folder`."""
    return [play_game(spec, seed + i, plan.agents, plan.options, llm=llm, index=i, brain_options=brain_options,
                      log_path=os.path.join(folder, f"game-{i:04d}.jsonl")) for i in range(games)]


def estimate(games: list[GameRecord], planned: int, prices) -> dict:
    """The planned run of one condition from games measured on it: tokens per game and the totals times `planned`
    (`price` None when a price is unknown)."""
    sums = llm_totals(games)
    per = max(1, len(games))
    t = {"games": planned, "LLM acts": round(sums["acts"] / per * planned),
         "prompt tokens": round(sums["prompt_tokens"] / per * planned),
         "completion tokens": round(sums["completion_tokens"] / per * planned)}
    t["tokens/game"] = round((sums["prompt_tokens"] + sums["completion_tokens"]) / per, 1)
    t["price"] = price(t["prompt tokens"], t["completion tokens"], prices)
    return t


def estimated_note(sums: dict) -> str:
    """A line saying how many calls' token counts are the client's estimates (`llm_totals`), or ""."""
    if not sums.get("estimated"):
        return ""
    return (f"token counts of {sums['estimated']} of {sums['calls']} calls are estimates: the server sent none "
            "(llama-cpp-python sends none with streamed answers)")


def dry_run(spec: TaskSpec, plans: list["Condition"], args, llm, out_dir: str, brain_options: dict) -> int:
    """Cost before the run: per condition, the planned games and, per game, LLM acts and tokens measured on a pilot
    (or on the games already recorded in `out_dir`), times the planned games; the price when the config has one."""
    recorded = {}
    if os.path.exists(os.path.join(out_dir, sweep.MANIFEST)):
        recorded = sweep.load_all([out_dir])[1]
    prices = prices_of(llm)
    rows, total = [], dict.fromkeys(("games", "LLM acts", "prompt tokens", "completion tokens"), 0)
    measured = []
    for c, plan in enumerate(plans):
        games = [GameRecord(**r) for (ci, _), r in sorted(recorded.items()) if ci == c]
        source = f"{len(games)} recorded"
        if not games:
            n = max(1, args.pilot)
            games = play_pilot(spec, plan, n, args.seed, llm, os.path.join(out_dir, "pilot", plan.sub),
                               brain_options)
            source = f"pilot of {n}"
        t = estimate(games, args.games, prices)
        measured += games
        total = {k: total[k] + t[k] for k in total}
        row = {**plan.columns, "agents": ",".join(plan.agents[s] for s in spec.seats), "from": source,
               **{k: t[k] for k in total}}
        if t["price"] is not None:
            row["price"] = round(t["price"], 2)
        rows.append(row)
    header: list = []
    for r in rows:
        header += [k for k in r if k not in header]
    print(format_table(header, [[r.get(k, "") for k in header] for r in rows]))
    line = (f"\nall conditions: {total['games']} games, {total['LLM acts']} LLM acts, {total['prompt tokens']} "
            f"prompt + {total['completion tokens']} completion tokens")
    cost = price(total["prompt tokens"], total["completion tokens"], prices)
    if cost is not None:
        line += f", {cost:.2f} at the configured prices"
    elif llm is not None:
        line += " (set llm.price_prompt and llm.price_completion, per million tokens, for a price)"
    note = estimated_note(llm_totals(measured))
    print(line + (f"\n{note}" if note else ""))
    return 0
