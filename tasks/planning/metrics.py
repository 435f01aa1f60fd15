"""Summary of finished DialOp Planning games: the shared DialOp dialogue metrics plus searches per game."""
from __future__ import annotations

import statistics

from tasks.dialop.metrics import summarize_dialogues


def summarize(results: list[dict]) -> dict:
    out = summarize_dialogues(results)
    searches = [r.get("searches") for r in results if r.get("searches") is not None]
    out["searches"] = round(statistics.fmean(searches), 2) if searches else 0.0
    return out
