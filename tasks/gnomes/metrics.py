"""Summaries of finished Gnomes at Night games for the metrics table (turns per round against the optimum)."""
from __future__ import annotations

from statistics import mean, median
from typing import Optional

import numpy as np

from tasks.core.llm_acts import llm_columns


def _avg(xs) -> Optional[float]:
    xs = [x for x in xs if x is not None]
    return round(mean(xs), 3) if xs else None


BOOTSTRAP = 10000  # resamples, as the paper's Fig. 5


def bootstrap_median(xs, resamples: int = BOOTSTRAP, level: float = 0.95, seed: int = 0):
    """(median, low, high): the median and its percentile bootstrap interval, seeded (the paper's Fig. 5 reports
    medians with 95% bootstrap intervals from 10,000 resamples)."""
    xs = np.asarray([x for x in xs if x is not None], dtype=float)
    if not len(xs):
        return None, None, None
    rng = np.random.default_rng(seed)
    meds = np.median(rng.choice(xs, size=(resamples, len(xs)), replace=True), axis=1)
    lo, hi = np.percentile(meds, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(median(xs)), round(float(lo), 2), round(float(hi), 2)


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
        med, lo, hi = bootstrap_median([r["turns"] for r in rs])
        out[n] = {
            "games": len(rs), "turns": turns, "optimum": opt, "median": med, "ci": (lo, hi),
            # Rounds that hit the turn cap: their turns are the cap, not a measurement of play.
            "capped": sum(r["status"] == "timeout" for r in rs),
            "ratio": round(turns / opt, 3) if turns is not None and opt else None,
            "blocked": _avg(r["blocked"] for r in rs),
            "found": round(sum(r["status"] == "found" for r in rs) / len(rs), 3),
            "time": _avg(r.get("time") for r in rs),
            **{f"messages_{s}": _avg(r["messages"].get(s, 0) for r in rs) for s in seats},
        }
    return out


def message_columns(results_list: list[dict]) -> dict:
    """The paper's Table 1 per seat: messages per round and words per message, over the finished rounds."""
    rounds = [r for res in results_list for r in res.get("rounds", []) if r.get("status") in ("found", "timeout")]
    out = {}
    for seat in ("h", "e"):
        msgs = sum(r.get("messages", {}).get(seat, 0) for r in rounds)
        words = sum(r.get("words", {}).get(seat, 0) for r in rounds)
        out[f"messages/round {seat}"] = round(msgs / len(rounds), 2) if rounds else None
        out[f"words/message {seat}"] = round(words / msgs, 2) if msgs else None
    return out


def summarize(results_list: list[dict]) -> dict:
    """Named columns over games: mean turns per round with the optimum, overall ratios, blocked moves, messages.

    `round_ratio` is the mean over rounds of (mean turns / optimum); `turn_ratio` is total turns / total optimum.
    `med_rN` is the median turns of round N with its 95% bootstrap interval `ci_rN` ("low-high"), as the paper
    reports them; `capped` counts rounds that hit the turn cap (their turns count as the cap). `messages/round S` and
    `words/message S` per seat are the paper's Table 1 (message_columns).
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
        out[f"med_r{n}"] = r["median"]
        out[f"ci_r{n}"] = None if r["ci"][0] is None else f"{r['ci'][0]:g}-{r['ci'][1]:g}"
    out["capped"] = sum(r["capped"] for r in rounds.values())
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
    out.update(message_columns(results_list))
    out.update(llm_columns(results_list))
    return out
