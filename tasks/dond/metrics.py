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
