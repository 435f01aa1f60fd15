"""Summaries of finished Gnomes at Night games for the metrics table (turns per round against the optimum)."""
from __future__ import annotations

from statistics import mean
from typing import Optional

from tasks.core.llm_acts import llm_columns


def _avg(xs) -> Optional[float]:
    xs = [x for x in xs if x is not None]
    return round(mean(xs), 3) if xs else None


def per_round(results_list: list[dict]) -> dict[int, dict]:
    """round -> mean turns, optimum, ratio, blocked moves, found share, messages per seat, time."""
    by_round: dict[int, list[dict]] = {}
    for res in results_list:
        for r in res.get("rounds", []):
            if r.get("status") in ("found", "timeout"):
                by_round.setdefault(r["round"], []).append(r)
    out = {}
    for n, rs in sorted(by_round.items()):
        turns = _avg(r["turns"] for r in rs)
        opt = _avg(r["optimum"] for r in rs)
        seats = sorted({s for r in rs for s in r.get("messages", {})})
        out[n] = {
            "games": len(rs), "turns": turns, "optimum": opt,
            "ratio": round(turns / opt, 3) if turns is not None and opt else None,
            "blocked": _avg(r["blocked"] for r in rs),
            "found": round(sum(r["status"] == "found" for r in rs) / len(rs), 3),
            "time": _avg(r.get("time") for r in rs),
            **{f"messages_{s}": _avg(r["messages"].get(s, 0) for r in rs) for s in seats},
        }
    return out


def summarize(results_list: list[dict]) -> dict:
    """Named columns over games: mean turns per round with the optimum, overall ratios, blocked moves, messages.

    `round_ratio` is the mean over rounds of (mean turns / optimum); `turn_ratio` is total turns / total optimum.
    Then, per LLM seat, its acts, valid %, fallback %, tokens per game and seconds per act
    (tasks.core.llm_acts.llm_columns).
    """
    if not results_list:
        return {"games": 0}
    rounds = per_round(results_list)
    out: dict = {"games": len(results_list),
                 "completed": round(sum(r.get("status") == "completed" for r in results_list) / len(results_list), 3)}
    for n, r in rounds.items():
        out[f"turns_r{n}"] = r["turns"]
        out[f"opt_r{n}"] = r["optimum"]
        out[f"ratio_r{n}"] = r["ratio"]
    ratios = [r["ratio"] for r in rounds.values() if r["ratio"] is not None]
    out["round_ratio"] = round(mean(ratios), 3) if ratios else None
    turns = _avg(r.get("turns_total") for r in results_list)
    opt = _avg(r.get("optimum_total") for r in results_list)
    out["turns_total"] = turns
    out["optimum_total"] = opt
    out["turn_ratio"] = round(turns / opt, 3) if turns is not None and opt else None
    out["blocked"] = _avg(r.get("blocked_total") for r in results_list)
    out["found"] = _avg(r.get("found") for r in results_list)
    out["reward"] = _avg(r.get("reward_total") for r in results_list)
    for seat in ("h", "e"):
        out[f"messages_{seat}"] = _avg(r.get(f"messages_{seat}") for r in results_list)
    out.update(llm_columns(results_list))
    return out
