"""The planner's answers to a traveller's questions, grounded in its belief: why a stop is in the plan (the wishes
it meets and misses, its price), what a cheaper plan would cost in what was asked for, and a hard budget's limit.
"""
from __future__ import annotations

import re
from typing import Optional

from ..parse import format_itinerary
from ..scoring import feature_value

CHEAPER = re.compile(r"\b(cheap\w*|less expensive|price|cost\w*|how much|pricey|expensive|afford\w*|budget|spend)\b",
                     re.I)
WHY = re.compile(r"\b(why|wh?y|how come|what makes|whats? (good|special|great)|good for|is it|is that|worth)\b", re.I)
# a budget said as a limit ("under $30 total", "can't go over", "no more", "still $85!"): it binds every plan
# ("i really need to stay under $40" alone weighs as the wish it is, until a plan over it is rejected for it)
HARD_BUDGET = re.compile(r"\b(max|maximum|limit|can'?t (go over|spend)|cannot|no more|at most|only have|"
                         r"must|strict|still|over my|tops|total)\b|!", re.I)


def _feature_name(p: dict, site: dict) -> str:
    key = p["key"]
    if key in ("cuisine", "ambience", "alcohol type"):
        val = site["features"].get(key)
        return {"cuisine": f"{val} food", "ambience": f"a {val} feel", "alcohol type": f"{val}"}[key]
    if key == "rating":
        return f"a {site['features'].get('rating')} star rating"
    has = site["features"].get(key)
    if key == "touristy":
        return "a touristy spot" if has else "off the tourist track"
    noun = NOUNS.get(key, key)
    return noun if has else f"no {noun}"


NOUNS = {"viewpoint": "a view", "has wifi": "wifi", "has parking": "parking", "has takeout": "takeout",
         "accepts reservations": "reservations", "open late": "late opening", "outdoor seating": "outdoor seating"}


def site_terms(belief, idx: int) -> tuple[list[str], list[str]]:
    """(what this stop does for the traveller's wishes, what it costs them), from the belief's preferences."""
    site = belief.sites[idx]
    pros, cons = [], []
    for p in belief.prefs.values():
        if p["kind"] == "feature":
            v = feature_value(site, p, belief.rules)
            if v > 0:
                pros.append(_feature_name(p, site))
            elif v < 0:
                cons.append(_feature_name(p, site))
        elif p["kind"] == "want_to_go" and site["name"] in p["sites"]:
            (pros if p["weight"] > 0 else cons).append("a place you named")
        elif p["kind"] == "at_least_one" and site["etype"] == p["etype"]:
            (pros if p["weight"] > 0 else cons).append(f"the {p['etype']} you wanted")
    return list(dict.fromkeys(pros)), list(dict.fromkeys(cons))


# words of site names that are everyday words too ("why this one? is there anything cheaper?" names no "Bean There")
COMMON = {"there", "where", "here", "this", "that", "good", "best", "place", "spot", "house", "park", "cafe", "bar",
          "street", "market", "hall", "center", "garden", "tower", "museum", "table", "grill", "kitchen", "point",
          "view", "hill", "trail", "bridge", "square", "corner", "room", "club", "shop", "store", "yard"}


def named_stop(text: str, belief, slots: list) -> Optional[int]:
    """The stop of `slots` a question names (a typo'd or partial name too); None when it names none."""
    low = text.lower()
    for s in slots:
        name = belief.sites[s]["name"].lower()
        short = name[4:] if name.startswith("the ") else name
        if short in low or any(len(w) >= 4 and w not in COMMON and w in re.findall(r"[a-z']+", low)
                               for w in short.split()):
            return s
    return None


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def price(belief, slots: list) -> int:
    return sum(belief.sites[s]["price"] for s in slots)


def why_stop(belief, idx: int, slots: list) -> str:
    site = belief.sites[idx]
    pros, cons = site_terms(belief, idx)
    cost = "free" if site["price"] == 0 else f"${site['price']}"
    out = f"{site['name']} ({site['etype']}, {cost}): "
    out += f"it gives you {_join(pros[:3])}" if pros else "nothing you asked for, it mostly keeps the trip short"
    if cons:
        out += f"; the trade-off is {_join(cons[:2])}"
    k = slots.index(idx) if idx in slots else -1
    legs = belief.explain(slots)["legs"]
    near = [d for j, d in enumerate(legs) if d is not None and j in (k - 1, k)]
    if near:
        out += f", {min(near):.1f} miles from the next stop"
    return out + "."


def cheaper(belief, slots: list, exclude: set) -> str:
    """What the best plan under the current one's price costs in what was asked for."""
    now = price(belief, slots)
    if now == 0:
        return "this plan is already all free."
    alt = belief.best(exclude | {tuple(slots)}, max_price=now - 1)
    if alt is None:
        return f"this plan is about ${now} in all, and nothing cheaper fits three stops."
    lost = belief.explain(slots)["total"] - belief.explain(alt)["total"]
    names = format_itinerary(alt, [s["name"] for s in belief.sites])
    what = "it does about as well for what you told me" if lost <= 1 else "it gives up some of what you asked for"
    return (f"this plan is about ${now} in all; the best cheaper one i see is {names} at ${price(belief, alt)}: "
            f"{what}. say the word and i'll propose it.")


def answer(text: str, belief, slots: Optional[list], exclude: set) -> str:
    """A grounded answer to one question about the plan on the table (or the plan the agent would make)."""
    if not slots:
        return "i'll put a plan together from what you told me, one moment."
    parts = []
    idx = named_stop(text, belief, slots)
    if idx is not None:
        parts.append(why_stop(belief, idx, slots))
    if CHEAPER.search(text):
        parts.append(cheaper(belief, slots, exclude))
    if idx is None and (WHY.search(text) or not parts):
        parts.insert(0, why_plan(belief, slots, priced=not parts))  # the cheaper answer says the price itself
    return " ".join(parts)


def why_plan(belief, slots: list, priced: bool = True) -> str:
    """The whole plan's case: what its stops give and cost against what the traveller said, its price and travel."""
    pros = list(dict.fromkeys(p for s in slots for p in site_terms(belief, s)[0]))
    cons = list(dict.fromkeys(c for s in slots for c in site_terms(belief, s)[1]))
    miles = sum(d for d in belief.explain(slots)["legs"] if d is not None)
    out = f"this plan gives you {_join(pros[:4])}" if pros else "this plan mostly keeps the trip short and simple"
    if cons:
        out += f"; the trade-off is {_join(cons[:2])}"
    return out + (f". about ${price(belief, slots)} in all and {miles:.1f} miles of travel." if priced else
                  f", with {miles:.1f} miles of travel.")



def cheapest_with(belief, name: str) -> int:
    """The price of the cheapest plan that visits the site called `name`."""
    prices = sorted(x["price"] for x in belief.sites if x["name"] != name)
    return next(x["price"] for x in belief.sites if x["name"] == name) + sum(prices[:2])


def out_of_reach(belief, cap: int) -> list[str]:
    """Places the traveller insists on that no plan within the budget can visit."""
    out = []
    for p in belief.prefs.values():
        if p["kind"] == "want_to_go" and p["weight"] >= 7 and p.get("penalize"):
            out += [n for n in p["sites"] if cheapest_with(belief, n) > cap]
    return out
