"""Summary of finished rooms: the paper's NE and PO-NE rates over all trials, payoffs, talk."""
from __future__ import annotations

from tasks.core import llm_acts


def summarize(results: list[dict]) -> dict:
    outs = [o for r in results for o in (r.get("outcomes") or [])]
    n = len(outs)
    done = [r for r in results if r.get("status") == "completed"]
    rate = (lambda key: round(sum(bool(o[key]) for o in outs) / n, 2) if n else None)
    return {
        "rooms": len(results), "completed %": round(100 * len(done) / max(1, len(results)), 1), "trials": n,
        "NE": rate("is_ne"), "PO-NE": rate("po_ne"), "Pareto": rate("pareto_optimal"),
        "payoff A": round(sum(o["payoffs"]["alice"] for o in outs) / n, 2) if n else None,
        "payoff B": round(sum(o["payoffs"]["bob"] for o in outs) / n, 2) if n else None,
        "messages": round(sum(r.get("messages") or 0 for r in results) / max(1, len(results)), 2),
        "halted": sum(r.get("halts") or 0 for r in results),
        **llm_acts.llm_columns(results),
    }


# --- the agents with scripted people (`people_table`) ---------------------------------------------------------------

PEOPLE_GAMES = ("prisoners-dilemma", "stag-hunt", "battle-of-sexes", "wait-go", "duopoly", "escalation", "monopoly",
                "hot-cold", "draco", "trigame")


def person_game(kind: str, seed: int, agent: str = "workflow", negotiation: int = 4, trials: int = 1) -> dict:
    """One seeded game of `agent` with the scripted person `kind` (brains/people.py): the game of the seed's turn
    in the testbed, the person in Alice's seat, who talks first on even seeds. Returns what the person noticed
    and the outcome: completed, stalls, repeated agent lines, questions and unanswered ones, the agent's moves
    checked against its last statement and the ones that differed, and quality (the PO-NE rate)."""
    from tasks.core import MatchDriver, SeatInfo, TimerConfig, build_match
    from tasks.core.discipline import repeated

    from .spec import SPEC
    options = {"game": PEOPLE_GAMES[seed % len(PEOPLE_GAMES)], "negotiation": negotiation,
               "first": "alice" if seed % 2 == 0 else "bob", "trials": trials}
    seats = {"alice": SeatInfo("agent", "Alice", kind), "bob": SeatInfo("agent", "Bob", agent)}
    match, brains = build_match(SPEC, seed, seats, options=options,
                                timers=TimerConfig(join_timeout=None, inactivity=None, partner_left_grace=None))
    list(MatchDriver(match, brains).open())
    report = brains["alice"].report
    lines = report["agent_lines"]
    repeats = repeated(lines)
    results = match.results or {}
    return {"kind": kind, "seed": seed, "game": options["game"], "completed": results.get("status") == "completed",
            "stalls": report["stalls"] + (not match.over), "repeats": repeats, "questions": report["questions"],
            "unanswered": list(report["unanswered"]), "statements": report["statements"],
            "broken": list(report["broken"]), "quality": results.get("normalized_score") or 0.0}


def people_rows(games: list[dict]) -> list[dict]:
    """One row per kind of person: the issue's figures over its games."""
    rows = []
    for kind in dict.fromkeys(g["kind"] for g in games):
        gs = [g for g in games if g["kind"] == kind]
        said = sum(g["statements"] for g in gs)
        rows.append({"kind": kind, "games": len(gs), "completed": sum(g["completed"] for g in gs),
                     "stalls": sum(g["stalls"] for g in gs), "repeated lines": sum(len(g["repeats"]) for g in gs),
                     "questions": sum(g["questions"] for g in gs),
                     "unanswered": sum(len(g["unanswered"]) for g in gs),
                     "move = statement": f"{said - sum(len(g['broken']) for g in gs)}/{said}",
                     "quality": round(sum(g["quality"] for g in gs) / len(gs), 3)})
    return rows


def people_table(agent: str = "workflow", games: int = 20, seed: int = 0) -> list[dict]:
    """`python -m tasks.matrix_games.metrics [agent] [games]`: the population table of the issue."""
    from .brains.people import PEOPLE
    return people_rows([person_game(k, seed + i, agent) for k in PEOPLE for i in range(games)])


if __name__ == "__main__":
    import sys

    from tasks.core.discipline import pipe_table
    print(pipe_table(people_table(*(sys.argv[1:2] or ["workflow"]), *(int(a) for a in sys.argv[2:3]))))
