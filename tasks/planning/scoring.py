"""Scoring of DialOp Planning itineraries (reference §3.5) and the exact, fast normaliser.

An itinerary is 3 ordered slots (site index or None); it expands to 5 slots [site, travel, site, travel, site]
where a travel slot exists only when both neighbours are sites. Score = sum over the user's preferences:

  feature       per site: -w if the site has the feature with a bad value, +w with a good value, 0 otherwise
  distance      per travel slot: int(w * miles) (w < 0; truncated toward zero), miles rounded to 0.1
  budget        w (< 0) if the sites' summed price is above the budget, else 0
  want_to_go    +w if any listed site is in the itinerary, else -w if `penalize`, else 0
  at_least_one  the same for "a site of this type"

Rules (`rules` in the instance; the fixes are the default, the original's behaviour is kept only to reproduce
the released games' stored scores):
  keys      "fixed": template keys are matched by `canonical_key` ("has_parking" scores on "has parking");
            "original": matched as spelled (the release's has_parking / has_takeout never scored).
  distance  "haversine": great-circle miles; "degrees": Euclidean degrees x 69, as the original.
Duplicate sites are refused (the original let [X, X, X] score above the best).

`extremes(...)`: best and worst over all ordered triples of distinct sites, exactly, with numpy: per-site
feature terms and per-pair travel terms are tabulated once, itinerary-level terms are masks over the triples.
"""
from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Optional, Sequence

import numpy as np

from .catalogue import canonical_key

FIXED_RULES = {"keys": "fixed", "distance": "haversine"}
ORIGINAL_RULES = {"keys": "original", "distance": "degrees"}
EARTH_MILES = 3958.8


def miles(a: Sequence[float], b: Sequence[float], how: str = "haversine") -> float:
    """Distance between two (lon, lat) points in miles, rounded to 0.1 as shown to players."""
    if how == "degrees":
        d = math.hypot(a[0] - b[0], a[1] - b[1]) * 69
    elif how == "haversine":
        lon1, lat1, lon2, lat2 = map(math.radians, (a[0], a[1], b[0], b[1]))
        h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
        d = 2 * EARTH_MILES * math.asin(math.sqrt(h))
    else:
        raise ValueError(f"distance rule must be 'haversine' or 'degrees', not {how!r}")
    return round(d, 1)


def _same(v, x) -> bool:
    # True == 1 in Python: a bool feature must never match a rating of 1 (or the other way round)
    return isinstance(v, bool) == isinstance(x, bool) and v == x


def feature_value(site: dict, pref: dict, rules: dict) -> int:
    """What one feature preference gives one site."""
    key = pref["key"] if rules.get("keys") == "original" else canonical_key(pref["key"])
    feats = site["features"]
    if key not in feats:
        return 0
    v = feats[key]
    if any(_same(v, x) for x in pref["bad"]):
        return -int(pref["weight"])
    if any(_same(v, x) for x in pref["good"]):
        return int(pref["weight"])
    return 0


def _wish(pref: dict, hit: bool) -> int:
    w = int(pref["weight"])
    return w if hit else (-w if pref.get("penalize") else 0)


def check_itinerary(slots: Sequence[Optional[int]], n: int) -> list:
    slots = list(slots)
    if len(slots) != 3:
        raise ValueError("an itinerary has 3 slots")
    used = [s for s in slots if s is not None]
    if any(not (0 <= s < n) for s in used):
        raise ValueError("unknown site")
    if len(set(used)) != len(used):
        raise ValueError("an itinerary cannot visit a site twice")
    return slots


def score(sites: list, prefs: list, rules: dict, slots: Sequence[Optional[int]]) -> dict:
    """The scorecard of an itinerary: total, 5 per-slot scores, the checklist of itinerary-level preferences
    ({desc, score, met}), the score of each preference (in order) and the travel legs' miles."""
    slots = check_itinerary(slots, len(sites))
    how = rules.get("distance", "haversine")
    legs = [None, None]
    for k in range(2):
        a, b = slots[k], slots[k + 1]
        if a is not None and b is not None:
            legs[k] = miles(sites[a]["loc"], sites[b]["loc"], how)
    by_slot = [0] * 5
    per_pref, checklist = [], []
    present = [s for s in slots if s is not None]
    for p in prefs:
        kind = p["kind"]
        if kind == "feature":
            total = 0
            for k, s in enumerate(slots):
                if s is not None:
                    v = feature_value(sites[s], p, rules)
                    by_slot[2 * k] += v
                    total += v
        elif kind == "distance":
            total = 0
            for k, d in enumerate(legs):
                if d is not None:
                    v = int(p["weight"] * d)
                    by_slot[2 * k + 1] += v
                    total += v
        else:
            # `met` says whether the itinerary does what the preference asks, not whether it scored: an unmet wish
            # ("friends liked these museums: X" without X) scores 0 and is still not met.
            if kind == "budget":
                met = sum(sites[s]["price"] for s in present) <= p["budget"]
                total = 0 if met else int(p["weight"])
            elif kind == "want_to_go":
                met = any(sites[s]["name"] in p["sites"] for s in present)
                total = _wish(p, met)
            elif kind == "at_least_one":
                met = any(sites[s]["etype"] == p["etype"] for s in present)
                total = _wish(p, met)
            else:
                raise ValueError(f"unknown preference kind {kind!r}")
            checklist.append({"desc": p["desc"], "score": total, "met": met})
        per_pref.append(total)
    return {"total": int(round(sum(per_pref))), "by_slot": by_slot, "checklist": checklist, "per_pref": per_pref,
            "legs": legs, "price": sum(sites[s]["price"] for s in present)}


# ------------------------------------------------------------------------------------------------------------
# The normaliser

@lru_cache(maxsize=8)
def triples(n: int) -> np.ndarray:
    """All ordered triples of distinct indices < n (n(n-1)(n-2) rows)."""
    idx = np.arange(n)
    a, b, c = np.meshgrid(idx, idx, idx, indexing="ij")
    keep = (a != b) & (b != c) & (a != c)
    out = np.stack([a[keep], b[keep], c[keep]], axis=1)
    out.setflags(write=False)
    return out


def tables(sites: list, prefs: list, rules: dict):
    """Per-site feature scores (n), per-ordered-pair travel scores (n x n) and the itinerary-level terms as
    (kind, pref, per-site mask or price vector)."""
    n = len(sites)
    how = rules.get("distance", "haversine")
    site = np.zeros(n, dtype=np.int64)
    leg = np.zeros((n, n), dtype=np.int64)
    dist = None
    terms = []
    for p in prefs:
        if p["kind"] == "feature":
            site += np.array([feature_value(s, p, rules) for s in sites], dtype=np.int64)
        elif p["kind"] == "distance":
            if dist is None:
                dist = np.array([[miles(a["loc"], b["loc"], how) for b in sites] for a in sites])
            leg += np.trunc(float(p["weight"]) * dist).astype(np.int64)
        elif p["kind"] == "budget":
            terms.append(("budget", p, np.array([s["price"] for s in sites], dtype=np.float64)))
        elif p["kind"] == "want_to_go":
            terms.append(("wish", p, np.array([s["name"] in p["sites"] for s in sites])))
        elif p["kind"] == "at_least_one":
            terms.append(("wish", p, np.array([s["etype"] == p["etype"] for s in sites])))
        else:
            raise ValueError(f"unknown preference kind {p['kind']!r}")
    return site, leg, terms


def all_scores(sites: list, prefs: list, rules: dict) -> tuple[np.ndarray, np.ndarray]:
    """(triples, score of each) over every ordered triple of distinct sites."""
    t = triples(len(sites))
    site, leg, terms = tables(sites, prefs, rules)
    total = site[t].sum(axis=1) + leg[t[:, 0], t[:, 1]] + leg[t[:, 1], t[:, 2]]
    for kind, p, vec in terms:
        w = int(p["weight"])
        if kind == "budget":
            total += np.where(vec[t].sum(axis=1) > p["budget"], w, 0)
        else:
            total += np.where(vec[t].any(axis=1), w, -w if p.get("penalize") else 0)
    return t, total


def extremes(sites: list, prefs: list, rules: dict) -> dict:
    """Best and worst total over all full itineraries, and one best itinerary (the first in index order)."""
    t, total = all_scores(sites, prefs, rules)
    i = int(np.argmax(total))
    return {"best": int(total[i]), "worst": int(total.min()), "best_itinerary": [int(x) for x in t[i]]}


def brute_force(sites: list, prefs: list, rules: dict) -> dict:
    """The definition, for tests and the benchmark: `score` on every ordered triple."""
    best, worst, arg = None, None, None
    for tr in itertools.permutations(range(len(sites)), 3):
        s = score(sites, prefs, rules, tr)["total"]
        if best is None or s > best:
            best, arg = s, list(tr)
        if worst is None or s < worst:
            worst = s
    return {"best": best, "worst": worst, "best_itinerary": arg}


def normalise(total: float, best: float, worst: float) -> float:
    """(score - worst) / (best - worst), clamped to [0, 1]."""
    if best == worst:
        return 1.0
    return round(min(1.0, max(0.0, (total - worst) / (best - worst))), 4)
