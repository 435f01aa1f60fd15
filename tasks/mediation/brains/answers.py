"""The mediator's words about a flight, grounded in what it knows: which of the user's meetings the flight overlaps
(with the importance the user gave), how far apart the two land, and what the cheapest flight would cost instead.
"""
from __future__ import annotations

from typing import Optional

from ..generator import iso, show_span
from .model import UserModel, _overlap

# a known meeting this important that a flight overlaps: the flight does not "fit what you told me"
MATTERS = 5


def clashes(m: UserModel, i: int) -> list[tuple[int, int, int, bool]]:
    """Known meetings (start, end, importance, whether the user said it) flight i overlaps, most important first
    (a shared meeting the user did not rate counts the model's default)."""
    s, e, _ = m.flights[i]
    out = [(a, b, imp if imp is not None else m.default_importance, imp is not None)
           for a, b, imp in m.shared.values()]
    out += [(a, b, imp, True) for a, b, imp in m.private + m.vague]
    return sorted((c for c in out if _overlap((s, e), c[:2])), key=lambda x: -x[2])


def _rated(imp: int, told: bool) -> str:
    return f"importance {imp}" if told else "you didn't say how important"


def fits(m: UserModel, i: int) -> bool:
    """The flight breaks no meeting the user said matters (nor a hard one)."""
    return not any(imp >= MATTERS for _, _, imp, _ in clashes(m, i)) and not m.breaks_hard(i)


def when(a: int, b: int) -> str:
    return show_span(iso(a), iso(b))


def gap_hours(models: list[UserModel], pair) -> int:
    return abs(models[0].flights[pair[0]][1] - models[1].flights[pair[1]][1]) // 60


def flight_facts(m: UserModel, i: int, view_flight: dict) -> str:
    """"flight 3 ($120, Thu 6/1 ...), which misses ... / overlaps your ... (importance n)"."""
    hit = clashes(m, i)
    what = f"flight {view_flight['id']} (${view_flight['price']}, {view_flight['when']}), which"
    if not hit:
        return f"{what} misses every meeting you told me about"
    a, b, imp, told = hit[0]
    if imp < MATTERS:
        return f"{what} misses the meetings that matter to you (it only overlaps {when(a, b)}, {_rated(imp, told)})"
    return f"{what} overlaps your {when(a, b)} ({_rated(imp, told)})"


def apart(hours: int) -> str:
    return "within the hour of your friend" if hours == 0 else f"{hours} h from your friend"


def pitch(m: UserModel, i: int, f: dict) -> str:
    """The proposal's line: "fits what you told me" only when it does; else the trade-off, said plainly."""
    head = f"How about flight {f['id']} for you ({f['carrier']}, ${f['price']}, {f['when']})?"
    if fits(m, i):
        return head + " It fits what you told me. Please accept or reject it on your page."
    a, b, imp, told = clashes(m, i)[0]
    return (head + f" It overlaps your {when(a, b)} ({_rated(imp, told)}): nothing better fits you both, sorry. "
            "Please accept or reject it on your page.")


def explain(models: list[UserModel], k: int, pair, flights: list[dict]) -> str:
    """Why this flight, and what a cheaper one would cost (for "why this one? is there anything cheaper?")."""
    m = models[k]
    i = pair[k]
    out = "It's " + flight_facts(m, i, flights[i])
    out += f"; you land {apart(gap_hours(models, pair))}."
    cheap = min(range(len(m.flights)), key=lambda j: m.flights[j][2])
    if m.flights[cheap][2] >= m.flights[i][2]:
        return out + " It is also your cheapest flight."
    friend = models[1 - k].flights[pair[1 - k]][1]
    gap = abs(m.flights[cheap][1] - friend) // 60
    return (out + f" The cheapest is {flight_facts(m, cheap, flights[cheap])} and lands {apart(gap)}; tell me if "
            "you'd rather have it.")


def instead(m: UserModel, old: int, new: int) -> str:
    """Why a new flight replaces the one a user asked about (their question answered by the new proposal)."""
    saved = m.flights[old][2] - m.flights[new][2]
    if saved > 0:
        return f"Yes: flight {new + 1} is ${saved} cheaper than flight {old + 1}."
    return f"Flight {new + 1} suits what you told me better than flight {old + 1}."


def before_proposal(question: str) -> Optional[str]:
    """An answer to a question asked before any flight was proposed."""
    return "Sure! Tell me which meetings your flight must avoid, and I'll propose one for you both right away."
