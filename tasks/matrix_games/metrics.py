"""Summary of finished rooms: the paper's NE and PO-NE rates over all trials, payoffs, talk, and the share of
simultaneous decisions for each player's first action (choice_1 %: split in Golden Balls, the paper's §6 probe)."""
from __future__ import annotations

from tasks.core import llm_acts


def summarize(results: list[dict]) -> dict:
    outs = [o for r in results for o in (r.get("outcomes") or [])]
    n = len(outs)
    done = [r for r in results if r.get("status") == "completed"]
    rate = (lambda key: round(sum(bool(o[key]) for o in outs) / n, 2) if n else None)
    firsts = [i == 0 for o in outs for i in (o.get("indices") or ())]
    return {
        "rooms": len(results), "completed %": round(100 * len(done) / max(1, len(results)), 1), "trials": n,
        "NE": rate("is_ne"), "PO-NE": rate("po_ne"), "Pareto": rate("pareto_optimal"),
        "payoff A": round(sum(o["payoffs"]["alice"] for o in outs) / n, 2) if n else None,
        "payoff B": round(sum(o["payoffs"]["bob"] for o in outs) / n, 2) if n else None,
        "messages": round(sum(r.get("messages") or 0 for r in results) / max(1, len(results)), 2),
        "halted": sum(r.get("halts") or 0 for r in results),
        "choice_1 %": round(100 * sum(firsts) / len(firsts), 1) if firsts else None,
        **llm_acts.llm_columns(results),
    }
