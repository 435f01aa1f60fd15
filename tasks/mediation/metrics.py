"""Summary of finished DialOp Mediation games: the shared DialOp dialogue metrics plus words per party."""
from __future__ import annotations

import statistics

from tasks.dialop.metrics import summarize_dialogues

PARTIES = ("user1", "user2", "assistant")


def summarize(results: list[dict]) -> dict:
    out = summarize_dialogues(results)
    for s in PARTIES:
        xs = [r.get(f"words_{s}") for r in results if r.get(f"words_{s}") is not None]
        out[f"words {s}"] = round(statistics.fmean(xs), 1) if xs else 0.0
    return out
