"""The agents of Deal or No Deal with the scripted people (brains/people.py): seeded games, one row per kind of person
(what a person would notice: stalls, repeated lines, unanswered questions, ...). `python -m tasks.dond.people_games`
prints the table. Apart from metrics.py because it plays games through the task's spec (metrics.py is part of it).
"""
from __future__ import annotations

import re


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
    """`python -m tasks.dond.people_games [agent] [games]`: the population table of the issue (hard cases L1<=4)."""
    from .brains.people import PEOPLE
    return people_rows([person_game(k, seed + i, agent) for k in PEOPLE for i in range(games)])


if __name__ == "__main__":
    import sys

    from tasks.core.discipline import pipe_table
    print(pipe_table(people_table(*(sys.argv[1:2] or ["bayes"]), *(int(a) for a in sys.argv[2:3]))))
