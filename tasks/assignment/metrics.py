"""Summary of finished DialOp Assignment games (the shared DialOp dialogue metrics)."""
from __future__ import annotations

from tasks.dialop.metrics import summarize_dialogues


def summarize(results: list[dict]) -> dict:
    return summarize_dialogues(results)
