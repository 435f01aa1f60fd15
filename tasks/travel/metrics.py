"""Table-1/Table-3-style summary of finished TRAVELING ADVENTURERS games, on one set of definitions for both rule
presets (ours and the paper's), so rows of either preset can stand side by side.

Definitions (every percentage is over all games; a timeout counts as a failure):
    identical %   both seats submitted the same tour (the same cycle: a reversed tour counts as the same; the paper's
                  code compared lists, so it counted a reversed tour as different)
    correct %     identical and a valid tour: every room once, back to the start (the paper's definition; its code
                  only checked the length)
    optimal %     correct and the joint optimum
    completed %   the game ended with a common tour (paper human study: identical paths at submission)
    S90 %         correct and a percentile score over 90 (share of all tours scoring <= it), optimal tours included
                  (Table 3 has S90 >= Opt., so S90 includes them)
    AMT, HMT      mean turns per game of the ghost seat (the agent's seat in the paper's human study) and of the
                  light seat (the person's), over all games, each costly input counted as the preset counts it
Under rules=ours, identical and correct hold by construction when a game completes (its submit step only finishes
on identical tours); under rules=paper the submissions are independent, as in the paper's self-play.
"""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from tasks.core.llm_acts import llm_columns

from .board import Board, is_valid_tour, normalize_tour, percentile_rank

AGENT_SEAT, PERSON_SEAT = "ghost", "light"  # the paper's human study: BOT = ghost world, USER (person) = light world


S90_PERCENTILE = 90.0  # S90: a correct tour whose percentile score (0-100, "<=" rule) is over 90


def tour_outcome(b: Board, subs: dict[str, Optional[Sequence[str]]], optimum: int, optimal_tour: Sequence[str],
                 status: str) -> dict:
    """Metrics of the submitted tours (seat -> tour or None; identical / correct / optimal), for a game's results
    and its final view."""
    seats = list(subs)
    both = all(subs.values())
    identical = both and len({normalize_tour(t, b.start) for t in subs.values()}) == 1
    tour = list(subs[seats[0]]) if identical else None
    correct = bool(identical and is_valid_tour(b, tour)[0])
    score = b.score(tour) if correct else 0
    optimal = correct and score == optimum
    percentile = round(percentile_rank(b, tour), 2) if correct else 0.0
    return {
        "status": status,
        "identical": bool(identical), "correct": correct, "optimal": bool(optimal),
        "score": int(score), "optimum": optimum,
        "ratio": round(score / optimum, 4) if optimum else 0.0,
        "percentile": percentile,
        # S90 (the paper's human study): a correct tour whose percentile score is over 90, optimal or not
        "s90": bool(correct and percentile > S90_PERCENTILE),
        "tour": tour, "optimal_tour": list(optimal_tour),
        "submitted": {s: (list(t) if t else None) for s, t in subs.items()},
    }


def _mean(xs: Iterable[float]) -> float:
    xs = [float(x) for x in xs]
    return round(sum(xs) / len(xs), 2) if xs else 0.0


def _pct(flags: Iterable[bool], n: int) -> float:
    return round(100.0 * sum(1 for f in flags if f) / n, 1) if n else 0.0


def _rules(results: list[dict]) -> str:
    found = sorted({str(r.get("rules") or "ours") for r in results})
    return found[0] if len(found) == 1 else "mixed" if found else ""


def _seat_turns(r: dict, seat: str) -> int:
    return int((r.get("turns_by_seat") or {}).get(seat) or 0)


def summarize(results: list[dict]) -> dict:
    """One row: rules, games, Identical / Correct / Optimal, completed %, S90 %, mean optimality ratio and percentile
    (0 for games without an identical valid tour), mean turns per game (both players together), AMT and HMT, mean
    LLM tokens per game, and how many coins were revealed per game with /share; then, per LLM seat, its acts,
    valid %, fallback %, tokens per game and seconds per act (tasks.core.llm_acts.llm_columns)."""
    n = len(results)
    out = {
        "rules": _rules(results),
        "games": n,
        "identical %": _pct((r.get("identical") for r in results), n),
        "correct %": _pct((r.get("correct") for r in results), n),
        "optimal %": _pct((r.get("optimal") for r in results), n),
        "completed %": _pct((r.get("status") == "completed" for r in results), n),
        "S90 %": _pct((r.get("s90") for r in results), n),
        "ratio": _mean(r.get("ratio") or 0.0 for r in results),
        "percentile": _mean(r.get("percentile") or 0.0 for r in results),
        "turns": _mean(r.get("turns") or 0 for r in results),
        "AMT": _mean(_seat_turns(r, AGENT_SEAT) for r in results),
        "HMT": _mean(_seat_turns(r, PERSON_SEAT) for r in results),
        "tokens": _mean(r.get("tokens") or 0 for r in results),
        "shared": _mean(sum((r.get("shared") or {}).values()) for r in results),
    }
    out.update(llm_columns(results))
    return out
