"""The results schema that every runtime, the replay, the tables and the plots read.

A game's `results()` may hold any task-specific metrics; these keys always exist once a game has ended (the match
fills in what a task does not provide), with these meanings:

    status            completed | timeout | partner_left | no_partner | error | stalled | ...
    score             the task's raw score (travel: coins of the tour; gnomes: summed reward), None if none
    normalized_score  score on the task's own 0..1 scale, higher is better (travel: score / optimum), None if none
    bonus             {seat: amount} owed to person seats (the match pays person seats only)
    turns             turns taken (the task's own notion of a turn), None if not counted
    tokens            LLM tokens of all agent seats (prompt + completion), from recorded `AgentUsage` inputs
    duration          seconds from the start of play to the end (None if play never started)
"""
from __future__ import annotations

from typing import Any

RESULT_KEYS: dict[str, Any] = {
    "status": str,
    "score": (int, float, type(None)),
    "normalized_score": (int, float, type(None)),
    "bonus": dict,
    "turns": (int, type(None)),
    "tokens": int,
    "duration": (int, float, type(None)),
}


def complete_results(results: dict) -> dict:
    """`results` with every schema key present (task values win; missing ones get neutral defaults)."""
    out = dict(results)
    out.setdefault("score", None)
    out.setdefault("normalized_score", None)
    if not isinstance(out.get("bonus"), dict):
        out["bonus"] = {}
    out.setdefault("turns", None)
    out.setdefault("tokens", 0)
    return out


def schema_problems(results: dict) -> list[str]:
    """What in `results` breaks the schema (empty when it conforms)."""
    problems = []
    for key, types in RESULT_KEYS.items():
        if key not in results:
            problems.append(f"missing {key!r}")
        elif isinstance(results[key], bool) or not isinstance(results[key], types):
            problems.append(f"{key!r} has type {type(results[key]).__name__}")
    return problems
