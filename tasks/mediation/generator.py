"""Instances of DialOp Mediation: two users' 3-day calendars and flight lists, the preferences, exact best and worst.

Generation follows the released game (reference §4.1): events on a 30-minute grid (9:00-20:30, last day until
18:30) start with p = 0.35 while walking through free slots, last 30/60/120/240 minutes, importance 1..10, and
floor(0.75 n) of them are shared with the assistant. Each user has 30 flights: a per-user duration of 1..10 hours
plus Exp(1) minutes, a uniform start minute in the window, a uniform carrier, price max(50, round(N(mu, mu))) with
mu = randrange(50, 1000); sorted by arrival and kept only when they overlap an event. price_pref 1..20 per user,
arrival_pref 1..10 shared by both users.

The original's quirks are recorded as `rules` in the instance (released games keep them, so their stored scores
come out exactly; new games default to the fixes):
    overlap     "strict" (original: s1 < s2 < e1 or s2 < s1 < e2, equal starts missed) | "inclusive" (fix)
    arrival     "per_user" (original: both users' totals hold the arrival term, so it counts twice) | "once"
    price_mean  "distribution" (original: mu of the distribution) | "shown" (fix: mean of the user's flights)
    dates       "percent" (original strftime artefact "6/02% 01:14 PM") | "plain"
Times are ISO strings ("2023-05-31T09:00") as in the released data; scores work on minutes since 5/31 00:00.
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta

import numpy as np

DAY0 = datetime(2023, 5, 31)
WINDOW = (9 * 60, 2 * 1440 + 19 * 60)  # 5/31 09:00 .. 6/2 19:00, minutes since DAY0
CARRIERS = ("JetBlue", "American", "Delta", "Southwest", "United", "Alaska")
DURATIONS = (30, 60, 120, 240)
P_EVENT, P_SHARED, N_FLIGHTS = 0.35, 0.75, 30
ORIGINAL = {"overlap": "strict", "arrival": "per_user", "price_mean": "distribution", "dates": "percent"}
FIXED = {"overlap": "inclusive", "arrival": "once", "price_mean": "shown", "dates": "plain"}
WEEKDAYS = ("Wed", "Thu", "Fri")


def minutes(iso: str) -> int:
    return int((datetime.fromisoformat(iso) - DAY0).total_seconds() // 60)


def iso(m: int) -> str:
    return (DAY0 + timedelta(minutes=int(m))).strftime("%Y-%m-%dT%H:%M")


def show_time(iso_text: str, dates: str = "plain") -> str:
    """'Wed 5/31 1:14 PM' (plain) or the original '5/31% 01:14 PM' (percent)."""
    d = datetime.fromisoformat(iso_text)
    if dates == "percent":
        return f"{d.month}/{d.day:02d}% {d.strftime('%I:%M %p')}"
    day = WEEKDAYS[(d - DAY0).days] + " " if 0 <= (d - DAY0).days < 3 else ""
    return f"{day}{d.month}/{d.day} {d.hour % 12 or 12}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"


def show_span(start: str, end: str, dates: str = "plain") -> str:
    """'Thu 6/1 9:00 AM - 1:00 PM' (the day once when both ends share it)."""
    a, b = show_time(start, dates), show_time(end, dates)
    if dates == "plain" and start[:10] == end[:10]:
        b = b.split(" ", 2)[2]
    return f"{a} - {b}"


def overlaps(a: tuple[int, int], b: tuple[int, int], rule: str) -> bool:
    (s1, e1), (s2, e2) = a, b
    if rule == "strict":
        return s1 < s2 < e1 or s2 < s1 < e2
    return s1 < e2 and s2 < e1


# --- generation ---------------------------------------------------------------------------------------------------
def _calendar(rng: random.Random) -> list[dict]:
    slots = [d * 1440 + m for d in range(3) for m in range(9 * 60, 21 * 60, 30) if d * 1440 + m < WINDOW[1]]
    events, free_from = [], 0
    for s in slots:
        if s < free_from or rng.random() >= P_EVENT:
            continue
        dur = rng.choice(DURATIONS)
        events.append({"start": s, "end": s + dur, "importance": rng.randint(1, 10)})
        free_from = s + dur
    shared = set(rng.sample(range(len(events)), int(P_SHARED * len(events))))
    return [{**e, "shared": i in shared} for i, e in enumerate(events)]


def _flights(rng: random.Random, events: list[dict], rule: str) -> tuple[list[dict], int]:
    mu = rng.randrange(50, 1000)
    base = 60 * rng.randint(1, 10)
    out = []
    for _ in range(N_FLIGHTS):
        start = rng.randrange(WINDOW[0], WINDOW[1])
        dur = base + int(rng.expovariate(1.0))
        price = max(50, round(rng.gauss(mu, mu)))
        out.append({"carrier": rng.choice(CARRIERS), "start": start, "end": start + dur, "price": price})
    out.sort(key=lambda f: f["end"])
    kept = [f for f in out if any(overlaps((f["start"], f["end"]), (e["start"], e["end"]), rule) for e in events)]
    return kept, mu


def generate(seed: int, rules: str = "fixed") -> dict:
    if rules not in ("fixed", "original"):
        raise ValueError("rules must be 'fixed' or 'original'")
    rule = dict(FIXED if rules == "fixed" else ORIGINAL)
    rng = random.Random(seed)
    users = []
    for _ in range(2):
        while True:  # a calendar that leaves a user without flights is drawn again (never seen in 1000 seeds)
            cal = _calendar(rng)
            flights, mu = _flights(rng, cal, rule["overlap"])
            if len(flights) >= 2:
                break
        users.append({
            "calendar": [{"start": iso(e["start"]), "end": iso(e["end"]), "importance": e["importance"],
                          "shared": e["shared"]} for e in cal],
            "flights": [{"carrier": f["carrier"], "start": iso(f["start"]), "end": iso(f["end"]),
                         "price": f["price"]} for f in flights],
            "price_pref": rng.randint(1, 20), "mean_price": mu})
    arrival = rng.randint(1, 10)
    return finish({"users": users, "arrival_pref": arrival, "rules": rule, "source": "generated", "seed": seed})


def from_released(record: dict, index: int) -> dict:
    """The instance of one released game (its stored calendars, flights and preferences, the original rules)."""
    users = []
    for pd in record["player_data"]:
        shared = {(e["start"], e["end"], e["importance"]) for e in pd["shared_calendar"]}
        users.append({
            "calendar": [{"start": e["start"], "end": e["end"], "importance": int(e["importance"]),
                          "shared": (e["start"], e["end"], e["importance"]) in shared} for e in pd["calendar"]],
            "flights": [{"carrier": f["carrier"], "start": f["start"], "end": f["end"], "price": int(f["price"])}
                        for f in pd["flights"]],
            "price_pref": int(pd["price_pref"]), "mean_price": int(pd["mean_price"])})
    arrival = int(record["player_data"][0]["arrival_time_pref"])
    # the original scoring rules; dates are shown plainly (the `%` artefact never touched a score)
    return finish({"users": users, "arrival_pref": arrival, "rules": {**ORIGINAL, "dates": "plain"},
                   "source": f"released:{index}", "seed": None})


# --- scoring ------------------------------------------------------------------------------------------------------
def price_mean(user: dict, rules: dict) -> float:
    if rules["price_mean"] == "shown":
        return round(sum(f["price"] for f in user["flights"]) / len(user["flights"]))
    return user["mean_price"]


def conflicts(user: dict, flight: dict, rules: dict) -> list[int]:
    """Indices of the user's events (shared or not) that the flight overlaps."""
    f = (minutes(flight["start"]), minutes(flight["end"]))
    return [i for i, e in enumerate(user["calendar"])
            if overlaps(f, (minutes(e["start"]), minutes(e["end"])), rules["overlap"])]


def own_terms(user: dict, flight: dict, rules: dict) -> dict:
    mu = price_mean(user, rules)
    cal = -sum(user["calendar"][i]["importance"] for i in conflicts(user, flight, rules))
    return {"calendar": cal, "price": int(-user["price_pref"] * (flight["price"] - mu) / mu)}


def arrival_hours(f0: dict, f1: dict) -> int:
    return abs(minutes(f0["end"]) - minutes(f1["end"])) // 60


def arrival_term(pref: int, hours: int) -> int:
    return int(-pref * hours / 3)


def breakdown(inst: dict, pair: tuple[int, int]) -> dict:
    """Each user's score breakdown (calendar, price, arrival, total, conflicting events) and the group score."""
    rules = inst["rules"]
    fl = [inst["users"][u]["flights"][pair[u]] for u in range(2)]
    arr = arrival_term(inst["arrival_pref"], arrival_hours(*fl))
    users = []
    for u in range(2):
        t = own_terms(inst["users"][u], fl[u], rules)
        users.append({**t, "arrival": arr, "total": t["calendar"] + t["price"] + arr,
                      "conflicts": conflicts(inst["users"][u], fl[u], rules)})
    group = users[0]["total"] + users[1]["total"] - (arr if rules["arrival"] == "once" else 0)
    return {"users": users, "group": group}


def pair_scores(inst: dict) -> np.ndarray:
    """The group score of every flight pair (rows: user 1's flights, columns: user 2's)."""
    rules = inst["rules"]
    own = [np.array([sum(own_terms(u, f, rules).values()) for f in u["flights"]]) for u in inst["users"]]
    ends = [np.array([minutes(f["end"]) for f in u["flights"]]) for u in inst["users"]]
    hours = np.abs(ends[0][:, None] - ends[1][None, :]) // 60
    arr = np.trunc(-inst["arrival_pref"] * hours / 3).astype(int)  # int() truncates toward zero, as the original
    twice = 2 if rules["arrival"] == "per_user" else 1
    return own[0][:, None] + own[1][None, :] + twice * arr


def finish(inst: dict) -> dict:
    s = pair_scores(inst)
    b = np.unravel_index(int(np.argmax(s)), s.shape)
    w = np.unravel_index(int(np.argmin(s)), s.shape)
    inst.update(best=int(s[b]), worst=int(s[w]), best_pair=[int(b[0]), int(b[1])], worst_pair=[int(w[0]), int(w[1])])
    return inst


def normalized(inst: dict, score: int) -> float:
    span = inst["best"] - inst["worst"]
    return 1.0 if span == 0 else (score - inst["worst"]) / span


__all__ = ["generate", "from_released", "breakdown", "pair_scores", "normalized", "show_time"]
