"""Table-1-style summary of finished TRAVELING ADVENTURERS games."""
from __future__ import annotations

from typing import Iterable

from tasks.core.llm_acts import llm_columns


def _mean(xs: Iterable[float]) -> float:
    xs = [float(x) for x in xs]
    return round(sum(xs) / len(xs), 2) if xs else 0.0


def _pct(flags: Iterable[bool], n: int) -> float:
    return round(100.0 * sum(1 for f in flags if f) / n, 1) if n else 0.0


def summarize(results: list[dict]) -> dict:
    """One row: games, Identical / Correct / Optimal (% of all games; a timeout counts as a failure), completed %,
    mean optimality ratio and percentile (0 for games without an identical valid tour), mean turns per game (both
    players together), mean LLM tokens per game, and how many coins were revealed per game; then, per LLM seat, its
    acts, valid %, fallback %, tokens per game and seconds per act (tasks.core.llm_acts.llm_columns)."""
    n = len(results)
    out = {
        "games": n,
        "identical %": _pct((r.get("identical") for r in results), n),
        "correct %": _pct((r.get("correct") for r in results), n),
        "optimal %": _pct((r.get("optimal") for r in results), n),
        "completed %": _pct((r.get("status") == "completed" for r in results), n),
        "ratio": _mean(r.get("ratio") or 0.0 for r in results),
        "percentile": _mean(r.get("percentile") or 0.0 for r in results),
        "turns": _mean(r.get("turns") or 0 for r in results),
        "tokens": _mean(r.get("tokens") or 0 for r in results),
        "shared": _mean(sum((r.get("shared") or {}).values()) for r in results),
    }
    out.update(llm_columns(results))
    return out
