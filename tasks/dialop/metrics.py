"""Dialogue metrics shared by the DialOp tasks: normalised reward (mean, median, 95% interval), proposals, words,
turns, duration, completion, and the LLM columns."""
from __future__ import annotations

import math
import random
import statistics
from typing import Iterable, Optional

from tasks.core.llm_acts import llm_columns


def mean_ci(xs: list[float], level: float = 0.95, boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean and a percentile-bootstrap interval (seeded, so tables are reproducible)."""
    if not xs:
        return (0.0, 0.0, 0.0)
    m = statistics.fmean(xs)
    if len(xs) == 1:
        return (m, m, m)
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(xs, k=len(xs))) for _ in range(boot))
    lo = means[int((1 - level) / 2 * boot)]
    hi = means[min(boot - 1, int((1 + level) / 2 * boot))]
    return (m, lo, hi)


def _mean(xs: Iterable[Optional[float]]) -> float:
    xs = [float(x) for x in xs if x is not None]
    return round(statistics.fmean(xs), 2) if xs else 0.0


def summarize_dialogues(results: list[dict]) -> dict:
    """One row: games, completed %, normalised reward mean / median / 95% CI (games that ended without agreement
    count 0), proposals, words, turns and duration per game (means), then the LLM columns."""
    n = len(results)
    norms = [float(r.get("normalized_score") or 0.0) if r.get("status") == "completed" else 0.0 for r in results]
    m, lo, hi = mean_ci(norms)
    out = {
        "games": n,
        "completed %": round(100.0 * sum(r.get("status") == "completed" for r in results) / n, 1) if n else 0.0,
        "reward": round(m, 3),
        "median": round(statistics.median(norms), 3) if norms else 0.0,
        "95% CI": f"{lo:.3f}-{hi:.3f}",
        "proposals": _mean(r.get("proposals") for r in results),
        "words": _mean(r.get("words") for r in results),
        "turns": _mean(r.get("turns") for r in results),
        "duration": _mean(r.get("duration") for r in results),
    }
    out.update(llm_columns(results))
    return out
