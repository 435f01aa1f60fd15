"""Deal or No Deal's metrics, defined as the paper's metric code defines them (reference §8):

score    Σ value·count of what each player takes (0 for both without a deal);
EF       the two shares form an exact split and neither player values the other's share more than their own;
PO       no split gives one player more and the other no less than these scores;
EF & PO  both; total = Alice + Bob.
"best"   the EF and PO split with the largest total (first enumerated on ties), averaged over the instances that
         have one: the paper's "Best" row.
"""
from __future__ import annotations

import math
import re
from typing import Optional, Sequence

from tasks.core import llm_acts

from .items import all_splits, best_split, ef_splits, envy_free, rest, utility

COLUMNS = ("agreement", "Alice", "Bob", "PO", "EF", "EF&PO", "total", "rounds")


def dominated(counts: Sequence[int], s1: int, s2: int, va: Sequence[int], vb: Sequence[int]) -> bool:
    """Some split gives one player more and the other no less than (s1, s2)."""
    for t in all_splits(tuple(counts)):
        t1, t2 = utility(t, va), utility(rest(counts, t), vb)
        if (t1 > s1 and t2 >= s2) or (t1 >= s1 and t2 > s2):
            return True
    return False


def outcome(counts, va, vb, alice_take: Optional[Sequence[int]], bob_take: Optional[Sequence[int]] = None) -> dict:
    """The metrics of one ending: what Alice and Bob each take (None: no deal). `bob_take` defaults to the rest;
    the released data gives both players' own selections."""
    counts = tuple(counts)
    if alice_take is None:
        return {"deal": False, "alice_score": 0, "bob_score": 0, "total": 0, "pareto_optimal": False,
                "envy_free": False, "ef_po": False}
    a = tuple(alice_take)
    b = tuple(bob_take) if bob_take is not None else rest(counts, a)
    s1, s2 = utility(a, va), utility(b, vb)
    exact = all(x + y == c for x, y, c in zip(a, b, counts))
    ef = exact and envy_free(counts, a, va, vb)
    po = not dominated(counts, s1, s2, va, vb)
    return {"deal": True, "alice_score": s1, "bob_score": s2, "total": s1 + s2, "pareto_optimal": po,
            "envy_free": ef, "ef_po": ef and po}


def reference(counts, va, vb) -> dict:
    """The instance's yardsticks: whether an EF split exists, the paper's "best" split and the largest total."""
    counts = tuple(counts)
    best = best_split(counts, va, vb)
    out = {"has_ef": bool(ef_splits(counts, va, vb)), "best_split": list(best) if best else None,
           "max_total": max(utility(s, va) + utility(rest(counts, s), vb) for s in all_splits(counts))}
    if best:
        out.update(best_alice=utility(best, va), best_bob=utility(rest(counts, best), vb))
        out["best_total"] = out["best_alice"] + out["best_bob"]
    else:
        out.update(best_alice=None, best_bob=None, best_total=None)
    return out


def _mean(xs) -> Optional[float]:
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def row(outcomes: list[dict]) -> dict:
    """One table row (the COLUMNS) over outcomes with deal / alice_score / bob_score / pareto_optimal / envy_free /
    ef_po / total / rounds; rates as fractions, scores and rounds as means."""
    n = len(outcomes)
    if not n:
        return {c: None for c in COLUMNS} | {"n": 0}
    rate = (lambda k: sum(bool(o.get(k)) for o in outcomes) / n)
    return {"n": n, "agreement": rate("deal"), "Alice": _mean(o.get("alice_score") for o in outcomes),
            "Bob": _mean(o.get("bob_score") for o in outcomes), "PO": rate("pareto_optimal"),
            "EF": rate("envy_free"), "EF&PO": rate("ef_po"), "total": _mean(o.get("total") for o in outcomes),
            "rounds": _mean(o.get("rounds") for o in outcomes)}


def best_row(references: list[dict]) -> dict:
    """The paper's "Best" row over the instances that have an EF and PO split."""
    refs = [r for r in references if r.get("best_total") is not None]
    out = row([{"deal": True, "alice_score": r["best_alice"], "bob_score": r["best_bob"], "pareto_optimal": True,
                "envy_free": True, "ef_po": True, "total": r["best_total"], "rounds": None} for r in refs])
    return out


def fmt(value, rate: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.4f}" if rate else f"{value:.2f}"


def summarize(results: list[dict]) -> dict:
    """The evaluation table's columns for the generic CLI path (and `replay`)."""
    done = [r for r in results if r.get("status") == "completed"]
    r = row(results)
    best = _mean(x.get("best_total") for x in results)
    return {"games": len(results), "completed %": round(100 * len(done) / max(1, len(results)), 1),
            **{c: (round(r[c], 4) if r[c] is not None else None) for c in COLUMNS},
            "best total": round(best, 2) if best is not None else None, **llm_acts.llm_columns(results)}


# --- the agents with scripted people (`people_table`) ---------------------------------------------------------------

def person_game(kind: str, seed: int, agent: str = "bayes", hard: str = "L1<=4") -> dict:
    """One seeded game of `agent` with the scripted person `kind` (brains/people.py) on a generated hard case, the
    person in Alice's seat (who moves first) on even seeds, in Bob's on odd ones. Returns what the person noticed and the outcome:
    completed, stalls, repeated agent lines, questions and unanswered ones, the agent's offers that took an item it
    had called worthless, agreement, EF and quality (total / the largest total)."""
    from tasks.core import MatchDriver, SeatInfo, TimerConfig, build_match
    from tasks.core.discipline import repeated

    from .generator import generate
    from .spec import SPEC
    inst = generate(seed, {"hard": hard})
    person = SPEC.seats[seed % 2]
    seats = {s: SeatInfo("agent", s.title(), kind if s == person else agent) for s in SPEC.seats}
    match, brains = build_match(SPEC, seed, seats, instance=inst,
                                timers=TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=None))
    list(MatchDriver(match, brains).open())
    report = brains[person].report
    lines = report["agent_lines"]
    repeats = repeated(lines)
    sentences = repeated([p for ln in lines for p in re.split(r"(?<=[.!?])\s+", ln) if len(p.split()) >= 3])
    r = match.results or {}
    return {"kind": kind, "seed": seed, "completed": r.get("status") == "completed",
            "stalls": report["stalls"] + (not match.over), "lines": lines, "repeats": repeats, "repeated_sentences": sentences,
            "questions": report["questions"], "unanswered": list(report["unanswered"]), "contradictions": list(report["contradictions"]),
            "deal": bool(r.get("deal")), "ef": bool(r.get("envy_free")), "quality": r.get("normalized_score") or 0.0}


def people_rows(games: list[dict]) -> list[dict]:
    """One row per kind of person: the issue's figures over its games."""
    rows = []
    for kind in dict.fromkeys(g["kind"] for g in games):
        gs = [g for g in games if g["kind"] == kind]
        n = len(gs)
        rows.append({"kind": kind, "games": n, "completed": sum(g["completed"] for g in gs),
                     "stalls": sum(g["stalls"] for g in gs), "repeated lines": sum(len(g["repeats"]) for g in gs),
                     "repeated sentences": sum(len(g["repeated_sentences"]) for g in gs),
                     "questions": sum(g["questions"] for g in gs),
                     "unanswered": sum(len(g["unanswered"]) for g in gs),
                     "contradictions": sum(len(g["contradictions"]) for g in gs),
                     "agreement": round(sum(g["deal"] for g in gs) / n, 2), "EF": round(sum(g["ef"] for g in gs) / n, 2),
                     "quality": round(sum(g["quality"] for g in gs) / n, 3)})
    return rows


def people_table(agent: str = "bayes", games: int = 20, seed: int = 0) -> list[dict]:
    """`python -m tasks.dond.metrics [agent] [games]`: the population table of the issue (hard cases L1<=4)."""
    from .brains.people import PEOPLE
    return people_rows([person_game(k, seed + i, agent) for k in PEOPLE for i in range(games)])


if __name__ == "__main__":
    import sys

    from tasks.core.discipline import pipe_table
    print(pipe_table(people_table(*(sys.argv[1:2] or ["bayes"]), *(int(a) for a in sys.argv[2:3]))))
