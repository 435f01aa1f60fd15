"""What the assistant believes about each user, and the best flight pair under that belief.

Known from the assistant's page: each user's flights and shared events (times only). Learned from chat: the
importance of shared events, private events (times and importance), days a user cannot or would rather fly, how
much price and arriving together matter. Unknowns get middling defaults, so a silent user still gets a sensible
pair: shared events count `default_importance`, price as if it mattered 10 of 20 against the mean shown price,
arriving together as 5 of 10.
"""
from __future__ import annotations

import re
from typing import Optional

import numpy as np

from ..generator import minutes
from ..parse import Reading, read_message

DEFAULT_IMPORTANCE = 5
DEFAULT_PRICE, DEFAULT_ARRIVAL = 10, 5
LIKED, REJECTED = 3, 8
HARD_COST = 100
HARD = re.compile(r"can'?t miss|cannot miss|must (keep|make|attend)|is a must|have to (be|make|attend)|no way")
UNSEEN_PRIVATE = 2  # the expected importance of an event nobody mentioned  # points for a flight the user accepted or rejected before


def _overlap(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]


DAYS = {"wed": 0, "wednesday": 0, "5/31": 0, "thu": 1, "thur": 1, "thurs": 1, "thursday": 1, "6/1": 1, "fri": 2,
        "friday": 2, "6/2": 2}
PARTS = {"morning": (540, 720), "midday": (660, 840), "noon": (690, 810), "lunch": (690, 810),
         "afternoon": (720, 1020), "evening": (1020, 1260)}
DAY_PART = re.compile(r"\b(wed(?:nesday)?|thu(?:rs?)?(?:day)?|fri(?:day)?|5/31|6/1|6/2)\b[^.;!]*?\b(morning|midday|noon|"
                      r"lunch|afternoon|evening)\b")
IMPORTANCE = re.compile(r"importance (10|[1-9])|\b(10|[1-9]) ?(?:/ ?10|out of 10)|\((10|[1-9])\)")


def day_parts(sentence: str) -> list[tuple[int, int, int]]:
    """(start, end, importance) of the parts of days a sentence names ("thursday 6/1 around midday (importance
    10)", "wednesday afternoon is important, 8 out of 10"); importance 6 when none is said."""
    low = sentence.lower()
    m = IMPORTANCE.search(low)
    imp = int(next(g for g in m.groups() if g)) if m else 6
    out = []
    for d in DAY_PART.finditer(low):
        day = DAYS.get(d.group(1), DAYS.get(d.group(1)[:3]))
        a, b = PARTS[d.group(2)]
        out.append((day * 1440 + a, day * 1440 + b, imp))
    return out


class UserModel:
    def __init__(self, user_view: dict):
        self.flights = [(minutes(f["start"]), minutes(f["end"]), f["price"]) for f in user_view["flights"]]
        self.shared = {e["id"]: [minutes(e["start"]), minutes(e["end"]), None] for e in user_view["calendar"]}
        self.private: list[list] = []  # [start, end, importance]
        self.vague: list[list] = []
        self.blocked: set[int] = set()
        self.wished: set[int] = set()
        self.price: Optional[int] = None
        self.default_importance = DEFAULT_IMPORTANCE
        self.heard = False
        self.rejected_flights: dict[int, int] = {}
        self.liked_flights: dict[int, int] = {}     # accepted, or asked for again ("the first option was good")
        self.wished_spans: list[list] = []
        self.hard: list[tuple[int, int]] = []  # meetings the user must keep ("importance 10", "can't miss it")

    def learn(self, rd: Reading, text: str = "") -> bool:
        """Take in one reading; True when it told something new."""
        new = False
        for sentence in re.split(r"[.;!]\s+|\n", text):
            # "thursday 6/1 around midday (importance 10)": a part of a day, read here too (with its own day)
            parts = day_parts(sentence)
            for a, b, imp in parts:
                if not any(v[0] == a and v[1] == b for v in self.vague):
                    self.vague.append([a, b, imp])
                    new = True
            if HARD.search(sentence.lower()):  # "..., i can't miss it"
                self.hard += [sp.absolute() for sp in read_message(sentence).busy] or [(a, b) for a, b, _ in parts]
        for sp in rd.busy:
            a, b = sp.absolute()
            imp = sp.importance
            if sp.vague:
                self.vague.append([a, b, imp or 3])
                new = True
                continue
            match = [k for k, (s, e, _) in self.shared.items() if s == a and e == b] or \
                [k for k, (s, e, _) in self.shared.items() if s == a]
            if match:
                self.shared[match[0]][2] = imp if imp is not None else max(self.shared[match[0]][2] or 0, 6)
            elif not any(p[0] == a and p[1] == b for p in self.private):
                self.private.append([a, b, imp if imp is not None else 6])
            new = True
        for sp in rd.free_spans:
            self.wished_spans.append(list(sp.absolute()))
            new = True
        for d in rd.blocked_days:
            new |= d not in self.blocked
            self.blocked.add(d)
        for d in rd.free_days:
            new |= d not in self.wished
            self.wished.add(d)
        if rd.price is not None:
            new |= rd.price != self.price
            self.price = rd.price
        low = text.lower()
        if any(w in low for w in ("rest", "other", "everything else", "all else")) and \
                any(w in low for w in ("not important", "low", "unimportant", "can skip", "don't matter", "dont matter",
                                     "doesn't matter", "doesnt matter", "not that important", "unimportant", "under")):
            self.default_importance = 2
            new = True
        self.heard = self.heard or new or rd.defer
        return new

    def breaks_hard(self, i: int) -> bool:
        s, e, _ = self.flights[i]
        return any(_overlap((s, e), span) for span in self.hard)

    def costs(self) -> np.ndarray:
        """The estimated calendar + price score of each flight (higher is better)."""
        prices = [p for _, _, p in self.flights]
        mu = max(1.0, sum(prices) / len(prices))
        pp = self.price if self.price is not None else DEFAULT_PRICE
        out = []
        for i, (s, e, price) in enumerate(self.flights):
            c = 0.0
            for a, b, imp in self.shared.values():
                if _overlap((s, e), (a, b)):
                    c -= imp if imp is not None else self.default_importance
            for a, b, imp in self.private:
                if _overlap((s, e), (a, b)):
                    c -= imp
            if c == 0:
                # every listed flight overlaps some event of its user (that is how flights are kept), so one that
                # meets no event we know of meets a private one we were not told about
                c -= UNSEEN_PRIVATE
            for a, b, imp in self.vague:
                if _overlap((s, e), (a, b)):
                    c -= imp
            days = {s // 1440, e // 1440}
            if days & self.blocked:
                c -= 8
            if self.wished and not days & self.wished:
                c -= 3
            if self.wished_spans and any(_overlap((s, e), (a, b)) for a, b in self.wished_spans):
                c += 3
            if self.breaks_hard(i):
                c -= HARD_COST  # a meeting the user must keep: only when every flight breaks one
            c -= REJECTED * self.rejected_flights.get(i, 0)
            c += LIKED * self.liked_flights.get(i, 0)
            c += int(-pp * (price - mu) / mu)
            out.append(c)
        return np.array(out, dtype=float)


def best_pairs(models: list[UserModel], arrival: Optional[int], twice: bool, exclude=()) -> list[tuple]:
    """Pairs (i, j) from best to worst estimate, excluding `exclude`; with their estimated group score."""
    a = arrival if arrival is not None else DEFAULT_ARRIVAL
    c0, c1 = models[0].costs(), models[1].costs()
    e0 = np.array([e for _, e, _ in models[0].flights])
    e1 = np.array([e for _, e, _ in models[1].flights])
    hours = np.abs(e0[:, None] - e1[None, :]) // 60
    arr = np.trunc(-a * hours / 3) * (2 if twice else 1)
    total = c0[:, None] + c1[None, :] + arr
    for i, j in exclude:
        total[i, j] = -np.inf
    order = np.argsort(-total, axis=None, kind="stable")[:20]
    return [(int(k // total.shape[1]), int(k % total.shape[1]), float(total.flat[k])) for k in order
            if np.isfinite(total.flat[k])]
