"""Summary of AsymPuzl games (the paper's tables): the preset that produced them ("ours" or "paper"), success with
a Wilson 95% interval, success by round k (cumulative), rounds to success, actions per position (over-correction),
messages, words, tokens and the share of LLM output tokens that went into messages (message characters / 4 against
completion tokens; tokens.py counts every turn with one common tokenizer)."""
from __future__ import annotations

import math


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials, as fractions."""
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def success_by(results: list[dict], k: int) -> float:
    """Share of games solved within k rounds."""
    ok = sum(1 for r in results if r.get("success") and (r.get("turns_to_success") or 0) <= k)
    return ok / len(results) if results else 0.0


def _mean(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 2) if xs else None


def summarize(results: list[dict]) -> dict:
    n = len(results)
    if not n:
        return {"games": 0}
    k = sum(1 for r in results if r.get("success"))
    lo, hi = wilson(k, n)
    solved = [r for r in results if r.get("success")]
    app = {s: _mean((r.get("actions_per_position") or {}).get(s) for r in results) for s in ("a", "b")}
    completion = sum(s.get("completion_tokens", 0) for r in results for s in (r.get("llm") or {}).values())
    msg_tokens = sum(r.get("message_chars", 0) for r in results) / 4
    out = {
        "games": n, "preset": "/".join(sorted({str(r.get("preset") or "ours") for r in results})),
        "success %": round(100 * k / n, 1), "95% CI": f"{100 * lo:.1f}-{100 * hi:.1f}",
        "success@1 %": round(100 * success_by(results, 1), 1), "success@2 %": round(100 * success_by(results, 2), 1),
        "rounds (solved)": _mean(r.get("turns_to_success") for r in solved),
        "max rounds (solved)": max((r.get("turns_to_success") or 0) for r in solved) if solved else None,
        "actions/pos A": app["a"], "actions/pos B": app["b"],
        "messages": _mean(r.get("messages") for r in results),
        "words": _mean(r.get("message_words") for r in results),
        "tokens": _mean(r.get("tokens") for r in results),
    }
    if completion:
        out["message share %"] = round(100 * min(1.0, msg_tokens / completion), 1)
    return out
