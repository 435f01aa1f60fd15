"""Prompted self-play (DialOp §6.3): cut a human dialogue and let agents continue it under a word budget.

`cut_index(record, mode)`: how many action-log entries the agents inherit. "50" / "75": the entry count whose
cumulative chat words are nearest to 50% / 75% of the dialogue's words; "proposal": everything before the final
proposal. The prefix is replayed through the game (so proposal and turn state are rebuilt by the rules, not by
scanning for the last proposal), and the word budget equals the whole human dialogue's words: the prefix spends
its share, the agents get the rest, and below 25 words left the next proposal is final (`WordBudget`).
"""
from __future__ import annotations

from .data import message_words

MODES = ("50", "75", "proposal")


def cut_index(record: dict, mode: str) -> int:
    log = record.get("action_log") or []
    if mode == "proposal":
        last = max((i for i, a in enumerate(log) if a.get("type", "proposal" if "proposal" in a else "") == "proposal"
                    or ("proposal" in a and "type" not in a)), default=len(log))
        return last
    if mode not in ("50", "75"):
        raise ValueError(f"unknown PSP mode {mode!r}; choose from {', '.join(MODES)}")
    target = int(mode) / 100 * sum(message_words(record))
    best, best_gap, total = 0, float("inf"), 0
    for i, w in enumerate([0] + message_words(record)):
        total += w
        gap = abs(total - target)
        if gap < best_gap:
            best, best_gap = i, gap
    # never cut after the final proposal: the agents must still have something to decide
    return min(best, cut_index(record, "proposal"))


def prefix_words(record: dict, n: int) -> int:
    return sum(message_words(record)[:n])
