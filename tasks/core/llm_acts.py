"""Honest LLM figures: what the brains' LLM acts (`Brain.llm_act`, logged by the driver as `agent_note` rows of kind
`llm_act`) add up to.

Per game, `per_seat(acts)` gives each LLM seat's figures (stored by the local runtime as `results["llm"]`, rebuilt
by the replay from the log rows); over games, `llm_columns(results)` gives the per-seat columns every evaluation
table carries (acts, valid %, effective %: the acts whose act() made a move the rules accepted, fallback %, tokens
per game, seconds per act) and `use_rows(results)` one row per seat
and use (the agent's turn, the grounding module, the text readers...). A seat any of whose acts fell back to its
symbolic policy is named by `fell_back`, so tables can mark the row and its agent label (a strict-mode failure is
no fallback: its game is invalid, counted apart).
"""
from __future__ import annotations

from typing import Iterable, Optional

COUNTS = ("acts", "valid", "effective", "fallback", "failed", "calls", "invalid", "repairs", "truncated", "prompt_tokens",
          "completion_tokens", "estimated")
TIMES = ("seconds", "model_seconds", "queue_seconds")


def acts_in(rows) -> list[dict]:
    """The LLM acts among log rows (Slurk's row shape: `event`, `data`)."""
    return [dict(r["data"]) for r in rows if r.get("event") == "agent_note" and isinstance(r.get("data"), dict)
            and r["data"].get("kind") == "llm_act"]


def _empty() -> dict:
    out = {k: 0 for k in COUNTS}
    out.update({k: 0.0 for k in TIMES})
    out["max_seconds"] = 0.0
    return out


def _add_act(into: dict, act: dict) -> None:
    into["acts"] += 1
    into["valid"] += int(bool(act.get("valid")))
    into["effective"] += int(bool(act.get("effective")))
    into["fallback"] += int(bool(act.get("fallback")))
    into["failed"] += int(bool(act.get("failed")))
    for k in ("calls", "invalid", "repairs", "truncated", "prompt_tokens", "completion_tokens", "estimated"):
        into[k] += int(act.get(k) or 0)
    for k in TIMES:
        into[k] += float(act.get(k) or 0.0)
    into["max_seconds"] = max(into["max_seconds"], float(act.get("seconds") or 0.0))


def _merge(into: dict, other: dict) -> None:
    for k in COUNTS:
        into[k] += int(other.get(k) or 0)
    for k in TIMES:
        into[k] += float(other.get(k) or 0.0)
    into["max_seconds"] = max(into["max_seconds"], float(other.get("max_seconds") or 0.0))


def per_seat(acts: Iterable[dict]) -> dict:
    """seat -> {"agent", acts, valid, fallback, failed, calls, invalid, repairs, truncated, prompt_tokens,
    completion_tokens, seconds, model_seconds, queue_seconds, max_seconds, "by_use": {use: same counts}}."""
    out: dict = {}
    for a in acts:
        seat = a.get("seat")
        s = out.get(seat)
        if s is None:
            s = out[seat] = {"agent": a.get("brain"), **_empty(), "by_use": {}}
        _add_act(s, a)
        use = s["by_use"].setdefault(a.get("use") or "?", _empty())
        _add_act(use, a)
    for s in out.values():
        _round(s)
        for u in s["by_use"].values():
            _round(u)
    return out


def _round(d: dict) -> None:
    for k in TIMES + ("max_seconds",):
        d[k] = round(d[k], 4)


def _pct(part: float, whole: float) -> Optional[float]:
    return round(100.0 * part / whole, 1) if whole else None


def fell_back(results: Iterable[dict]) -> set:
    """Seats with at least one act the symbolic policy played (a failure under strict mode is not one)."""
    seats = set()
    for r in results:
        for seat, s in (r.get("llm") or {}).items():
            if s.get("fallback"):
                seats.add(seat)
    return seats


def _totals(results: list[dict]) -> dict:
    """seat -> (summed figures, agent)"""
    out: dict = {}
    for r in results:
        for seat, s in (r.get("llm") or {}).items():
            t = out.setdefault(seat, {"agent": s.get("agent"), **_empty()})
            _merge(t, s)
    return out


def llm_columns(results: list[dict]) -> dict:
    """The per-LLM-seat columns of an evaluation table (empty when no game had an LLM act): for each seat
    `<seat> acts` (all games), `valid %`, `effective %`, `fallback %`, `tokens/game`, `s/act` (mean wall time of an
    act). Invalid games (strict LLM mode) are counted by the evaluation's `invalid` column."""
    n = len(results)
    cols: dict = {}
    for seat, t in sorted(_totals(results).items(), key=lambda kv: str(kv[0])):
        if not t["acts"]:
            continue
        cols[f"{seat} acts"] = t["acts"]
        cols[f"{seat} valid %"] = _pct(t["valid"], t["acts"])
        cols[f"{seat} effective %"] = _pct(t["effective"], t["acts"])
        cols[f"{seat} fallback %"] = _pct(t["fallback"], t["acts"])
        cols[f"{seat} tokens/game"] = round((t["prompt_tokens"] + t["completion_tokens"]) / max(1, n), 1)
        cols[f"{seat} s/act"] = round(t["seconds"] / t["acts"], 3)
    return cols


USE_HEADER = ["seat", "agent", "use", "acts", "valid %", "effective %", "fallback %", "failed", "repaired", "truncated",
              "prompt tok/act", "compl tok/act", "tokens/game", "s/act", "model s/act", "max s"]


def use_rows(results: list[dict]) -> list[list]:
    """One row per (seat, use) over `results` (columns: USE_HEADER)."""
    n = len(results)
    per: dict = {}
    for r in results:
        for seat, s in (r.get("llm") or {}).items():
            for use, u in (s.get("by_use") or {}).items():
                t = per.setdefault((str(seat), s.get("agent"), use), _empty())
                _merge(t, u)
    rows = []
    for (seat, agent, use), t in sorted(per.items(), key=lambda kv: (kv[0][0], kv[0][2])):
        k = t["acts"] or 1
        rows.append([seat, agent, use, t["acts"], _pct(t["valid"], t["acts"]), _pct(t["effective"], t["acts"]),
                     _pct(t["fallback"], t["acts"]),
                     t["failed"], t["repairs"], t["truncated"], round(t["prompt_tokens"] / k, 1),
                     round(t["completion_tokens"] / k, 1),
                     round((t["prompt_tokens"] + t["completion_tokens"]) / max(1, n), 1),
                     round(t["seconds"] / k, 3), round(t["model_seconds"] / k, 3), round(t["max_seconds"], 3)])
    return rows


def agent_label(agents: dict, seats: Iterable[str], results: list[dict]) -> str:
    """`a,b` with `+fallback` after each seat's agent whose LLM acts fell back in any of `results`."""
    marked = fell_back(results)
    return ",".join(f"{agents[s]}+fallback" if s in marked else str(agents[s]) for s in seats)
