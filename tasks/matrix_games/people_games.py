"""The agents of the negotiation games with the scripted people (brains/people.py): seeded games, one row per kind of person
(what a person would notice: stalls, repeated lines, unanswered questions, ...). `python -m tasks.matrix_games.people_games`
prints the table. Apart from metrics.py because it plays games through the task's spec (metrics.py is part of it).
"""
from __future__ import annotations

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
    """`python -m tasks.matrix_games.people_games [agent] [games]`: the population table of the issue."""
    from .brains.people import PEOPLE
    return people_rows([person_game(k, seed + i, agent) for k in PEOPLE for i in range(games)])


if __name__ == "__main__":
    import sys

    from tasks.core.discipline import pipe_table
    print(pipe_table(people_table(*(sys.argv[1:2] or ["workflow"]), *(int(a) for a in sys.argv[2:3]))))
