"""Instances of DialOp Planning (reference §3.2), seeded: sites shuffled over the map points with a price from
their type's range and 5 distinct applicable features each; the user's preferences sampled from the templates;
best and worst itinerary computed exactly (`scoring.extremes`).

Paper vs code (reference §7 item 8), option `prefs`:
  "code"  (default) as the released code: every template key is a candidate with probability 1/2, plus one
          budget, one want-to-go and one at-least-one candidate; shuffle, keep `num_prefs` (10), add distance. So
          the budget is missing in about 10 % of games and some users have fewer than 11 preferences.
  "paper" as the paper says: every user has a budget and a distance preference (the budget is always kept).
"""
from __future__ import annotations

import random
from typing import Optional

from . import catalogue as cat
from .scoring import FIXED_RULES, extremes, score

BUDGETS = tuple(range(30, 100, 10))
CATEGORY_NOUNS = {"cuisine": ("food", "{} food"), "alcohol type": ("drinks", "{}"), "ambience": ("", "{} places")}


def _site_features(rng: random.Random, etype: str, features: dict) -> dict:
    allowed = [f for f, spec in features.items() if etype in spec.get("event_types", cat.TYPES)]
    out = {}
    for f in sorted(rng.sample(allowed, min(5, len(allowed)))):
        spec = features[f]
        out[f] = rng.choice([True, False]) if spec["type"] == "bool" else rng.choice(list(spec["values"]))
    return out


def _feature_pref(rng: random.Random, key: str, tmpl: dict, features: dict) -> dict:
    w = rng.randint(1, 10)
    gen = tmpl["generate"]
    if gen == "fixed":
        opt = rng.choice(tmpl["prefs"])
        bad, good = (list(v) for v in opt["value_sets"])
        desc = opt["description"]
    else:
        values = list(features[cat.canonical_key(key)]["values"])
        noun, fmt = CATEGORY_NOUNS.get(cat.canonical_key(key), ("", "{}"))
        if gen == "any_1":
            v = rng.choice(values)
            if rng.random() < 0.5:
                bad, good, desc = [], [v], "really enjoy " + fmt.format(v)
            else:
                bad, good, desc = [v], [], "can't stand " + fmt.format(v)
        elif gen == "any_k":
            k = rng.randint(1, len(values))
            chosen = rng.sample(values, k)
            m = rng.randint(0, k - 1)
            bad, good = chosen[:m], chosen[m:]
            parts = (["not keen on " + ", ".join(bad)] if bad else []) + ["happy with " + ", ".join(good)]
            desc = f"{noun}: " + "; ".join(parts)
        else:
            raise ValueError(f"unknown template kind {gen!r}")
    return {"kind": "feature", "key": key, "bad": bad, "good": good, "weight": w, "desc": desc}


def _want_to_go(rng: random.Random, sites: list) -> dict:
    w, penalize = rng.randint(1, 10), rng.random() < 0.5
    if rng.random() < 0.25:
        names = [rng.choice(sites)["name"]]
        desc = f"must visit {names[0]}" if penalize else f"heard {names[0]} is lovely"
    else:
        etype = rng.choice(sorted({s["etype"] for s in sites}))
        pool = [s["name"] for s in sites if s["etype"] == etype]
        names = rng.sample(pool, min(len(pool), rng.randint(1, 2)))
        desc = (f"a friend insists we see one of these {etype}s: {', '.join(names)}" if penalize else
                f"friends liked these {etype}s: {', '.join(names)}")
    return {"kind": "want_to_go", "sites": names, "weight": w, "penalize": penalize, "desc": desc}


def _at_least_one(rng: random.Random, sites: list) -> dict:
    etype = rng.choice(sorted({s["etype"] for s in sites}))
    w, penalize = rng.randint(1, 10), rng.random() < 0.5
    desc = f"must include at least one {etype}" if penalize else f"a {etype} somewhere would be nice"
    return {"kind": "at_least_one", "etype": etype, "weight": w, "penalize": penalize, "desc": desc}


def _budget(rng: random.Random) -> dict:
    b = rng.choice(BUDGETS)
    return {"kind": "budget", "budget": b, "weight": -rng.randint(1, 10), "desc": f"keep the total spend under ${b}"}


def preferences(rng: random.Random, c: cat.Catalogue, sites: list, mode: str = "code", num_prefs: int = 10) -> list:
    if mode not in ("code", "paper"):
        raise ValueError("prefs must be 'code' or 'paper'")
    pool = [_feature_pref(rng, k, t, c.features) for k, t in c.templates.items() if rng.random() < 0.5]
    budget = _budget(rng)
    pool += [_want_to_go(rng, sites), _at_least_one(rng, sites)]
    if mode == "code":
        pool.append(budget)
        rng.shuffle(pool)
        chosen = pool[:num_prefs]
    else:
        rng.shuffle(pool)
        chosen = pool[:num_prefs - 1] + [budget]
    return chosen + [{"kind": "distance", "weight": -rng.randint(1, 10), "desc": "keep travel between places short"}]


def random_best(rng: random.Random, sites: list, prefs: list, rules: dict, tries: int = 100) -> int:
    """The best of 100 random itineraries (the original showed it to the user as a yardstick)."""
    return max(score(sites, prefs, rules, rng.sample(range(len(sites)), 3))["total"] for _ in range(tries))


def generate(seed: int, catalogue: str = "own", catalogue_dir: Optional[str] = None, prefs: str = "code",
             num_prefs: int = 10) -> dict:
    rng = random.Random(seed)
    c = cat.load(catalogue, catalogue_dir)
    points = list(c.points)
    rng.shuffle(points)
    order = list(c.sites)
    rng.shuffle(order)
    sites = []
    for i, (name, etype) in enumerate(order):
        lo, hi = c.price_ranges[etype]
        sites.append({"name": name, "etype": etype, "loc": [float(points[i][0]), float(points[i][1])],
                      "price": rng.choice(range(lo, hi, 10)), "features": _site_features(rng, etype, c.features)})
    ps = preferences(rng, c, sites, prefs, num_prefs)
    rules = dict(FIXED_RULES)
    ext = extremes(sites, ps, rules)
    return {"source": "generated", "seed": seed, "catalogue": c.source, "prefs_mode": prefs, "rules": rules,
            "sites": sites, "prefs": ps, "features": c.features, **ext,
            "random_best": random_best(rng, sites, ps, rules)}
