"""The planner's belief over the user's hidden preferences and weights, and the exact best itinerary under it.

Each thing the user talked about becomes an estimated preference in the scoring's own form (`scoring.score`),
with a weight read from the wording (`language.strength`): a feature with liked / disliked values, a budget, sites
or a type to visit, travel distance (every user minds distance: prior weight -5 until they say more). Reactions
to proposals ("too far", "over my budget") raise the weight of what they name. The best itinerary under the
belief is an exact argmax over all ordered triples (`scoring.all_scores`), skipping rejected ones.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..catalogue import OWN_TEMPLATES
from ..scoring import all_scores, score
from .language import Mention

DISTANCE_PRIOR = -5
# What was not said (with a word budget the user may never get to it): the generator's own distribution, not
# tuned. A feature template is drawn for about half the users; each of its wordings equally often, so an unsaid
# feature counts as the mean of its wordings at weight PRIOR_WEIGHT ("hidden spots" wins 2 of the 3 touristy
# wordings, live music's two wordings cancel out). A budget ($30..$90, uniform) and an "at least one <type>"
# wish (7 types, penalised half the time) are drawn for 9 users in 10: twice a feature's chance.
PRIOR_WEIGHT = 1.0
BUDGETS = tuple(range(30, 100, 10))
TYPES = ("restaurant", "bar", "cafe", "museum", "landmark", "park", "shop")
# A person sees the preference texts only, never the weights (the generator draws them uniformly from 1..10 and
# independently of the wording): how strongly a person words a wish tells nothing about its weight, so what people
# said in a replayed dialogue weighs the generator's mean. (Only `simuser-weights`, ours, knows its weights and words them.)
PRIOR_MEAN = 5.5
# Under the original rules the release's misspelt template keys (has_parking, has_takeout) never score: the game's
# rules are public (every seat's view), so the planner gives those features no weight there.
NEVER_SCORE_ORIGINAL = ("has parking", "has takeout")
SCALE = 10  # the argmax weighs fractional priors exactly: every weight x 10 (integers, as the scorer wants)


class Belief:
    def __init__(self, sites: list, rules: dict):
        self.sites = sites
        self.rules = rules
        self.prefs: dict = {("distance",): {"kind": "distance", "weight": DISTANCE_PRIOR, "desc": "travel"}}
        self.heard: set = set()   # keys the user talked about (distance only once they did)
        self.prior = False        # weigh in the preferences users usually have, for what was not said

    @staticmethod
    def _key(m: Mention) -> tuple:
        if m.kind == "feature":
            if m.key in ("cuisine", "ambience", "alcohol type"):
                return ("feature", m.key, (m.good or m.bad)[0])
            return ("feature", m.key)
        if m.kind == "want_to_go":
            return ("want_to_go", tuple(sorted(m.sites)), m.good == [False])
        if m.kind == "at_least_one":
            return ("at_least_one", m.etype, m.good == [False])
        return (m.kind,)

    def _never_scores(self, key: str) -> bool:
        return self.rules.get("keys") == "original" and key in NEVER_SCORE_ORIGINAL

    def learn(self, mentions: list[Mention], reaction: bool = False, person: bool = False) -> int:
        """Fold mentions in; `reaction`: said about a proposal, so what they name matters more; `person`: said by a
        person in a replayed dialogue (the wording carries no weight: see PRIOR_MEAN). Returns how many keys were
        new."""
        new = 0
        bumped: set = set()
        now: dict = {}  # key -> strongest wording in this message (a key said twice keeps the stronger)
        for m in mentions:
            k = self._key(m)
            if m.kind == "feature" and self._never_scores(m.key):
                self.heard.add(k)  # heard (no need to ask), but worth nothing under these rules
                continue
            # "i don't mind travel" and a short yes's weak hint keep their strength
            if person and not m.hint and not (m.kind == "distance" and m.strength < PRIOR_MEAN / 2):
                m.strength = PRIOR_MEAN
            if m.neutral:
                if k != ("distance",):
                    self.prefs.pop(k, None)
                self.heard.add(k)
                continue
            old = self.prefs.get(k)
            if m.describes and old is not None and old.get("good") != list(m.good):
                continue  # "that is a touristy location" after "i hate tourist traps": a complaint, not a wish
            w = max(int(round(m.strength)), now.get(k, 0))
            now[k] = w
            if reaction and old is not None and w >= 5 and k not in bumped:
                w = min(10, max(abs(int(old["weight"])), w) + 1)  # a complaint: it matters more than we thought
                bumped.add(k)
            if k not in self.heard:
                new += 1
            self.heard.add(k)
            if m.kind == "feature":
                p = {"kind": "feature", "key": m.key, "good": list(m.good), "bad": list(m.bad), "weight": w}
            elif m.kind == "budget":
                b = m.budget if m.budget is not None else (old or {}).get("budget")
                if b is None:
                    continue
                p = {"kind": "budget", "budget": b, "weight": -w}
            elif m.kind == "distance":
                p = {"kind": "distance", "weight": -w}
            elif m.kind == "want_to_go":
                against = m.good == [False]  # "X is bad for me": a site to avoid
                # whether missing it costs points too: from the wording ("definitely" does, "heard good things"
                # does not); unknown: half the time it does (1.5 w on average)
                if against:
                    p = {"kind": "want_to_go", "sites": list(m.sites), "weight": -w, "penalize": False}
                elif m.penalize is None:
                    p = {"kind": "want_to_go", "sites": list(m.sites), "weight": round(0.75 * w), "penalize": True}
                else:
                    p = {"kind": "want_to_go", "sites": list(m.sites), "weight": w, "penalize": m.penalize}
            else:
                p = ({"kind": "at_least_one", "etype": m.etype, "weight": -w, "penalize": False}
                     if m.good == [False] else  # a type to stay away from
                     {"kind": "at_least_one", "etype": m.etype, "weight": round(0.75 * w), "penalize": True})
            p["desc"] = k[0]
            self.prefs[k] = p
        return new

    def as_prefs(self) -> list:
        out = list(self.prefs.values())
        if self.prior:
            out += self.prior_prefs()
        return out

    def prior_prefs(self) -> list:
        """Expected preferences for what the user did not talk about (fractional weights; see PRIOR_WEIGHT)."""
        heard_features = {k[1] for k in self.heard if k[0] == "feature"}
        heard_kinds = {k[0] for k in self.heard}
        out = []
        for key, tmpl in OWN_TEMPLATES.items():
            if key in heard_features or tmpl["generate"] != "fixed" or self._never_scores(key):
                continue
            for t in tmpl["prefs"]:
                bad, good = t["value_sets"]
                out.append({"kind": "feature", "key": key, "good": list(good), "bad": list(bad),
                            "weight": PRIOR_WEIGHT / len(tmpl["prefs"]), "desc": "prior"})
        if "budget" not in heard_kinds:
            out += [{"kind": "budget", "budget": b, "weight": -2 * PRIOR_WEIGHT / len(BUDGETS), "desc": "prior"}
                    for b in BUDGETS]
        if "at_least_one" not in heard_kinds:
            # a type covered gains w, a type missed loses w half the time: 1.5 w on average, as a +-0.75 w wish
            out += [{"kind": "at_least_one", "etype": t, "weight": 0.75 * 2 * PRIOR_WEIGHT / len(TYPES),
                     "penalize": True, "desc": "prior"} for t in TYPES]
        return out

    def best(self, exclude: Optional[set] = None, max_price: Optional[int] = None) -> Optional[list[int]]:
        """The best itinerary under the belief, skipping `exclude`; with `max_price` only one that costs no more
        (None when none does)."""
        scaled = [dict(p, weight=int(round(SCALE * p["weight"]))) for p in self.as_prefs()]
        t, total = all_scores(self.sites, scaled, self.rules)
        bad = self._excluded(t, exclude)
        if max_price is not None:
            bad |= self._prices(t) > max_price
        if bad.all():
            return None if max_price is not None else [int(x) for x in t[int(np.argmax(total))]]
        total = np.where(bad, np.iinfo(np.int64).min, total)
        return [int(x) for x in t[int(np.argmax(total))]]

    def least_over(self, exclude: Optional[set] = None) -> list[int]:
        """When no itinerary fits a budget: the best of the cheapest ones (within $10 of the cheapest)."""
        scaled = [dict(p, weight=int(round(SCALE * p["weight"]))) for p in self.as_prefs()]
        t, total = all_scores(self.sites, scaled, self.rules)
        bad = self._excluded(t, exclude)
        prices = self._prices(t)
        low = prices[~bad].min() if (~bad).any() else prices.min()
        bad |= prices > low + 10
        total = np.where(bad, np.iinfo(np.int64).min, total)
        return [int(x) for x in t[int(np.argmax(total))]]

    def _prices(self, t) -> np.ndarray:
        return np.array([s["price"] for s in self.sites])[t].sum(axis=1)

    def _excluded(self, t, exclude: Optional[set]) -> np.ndarray:
        bad = np.zeros(len(t), dtype=bool)
        n = len(self.sites)
        codes = t[:, 0] * n * n + t[:, 1] * n + t[:, 2]
        for a, b, c in exclude or ():
            bad |= codes == a * n * n + b * n + c
        return bad

    def explain(self, slots: list) -> dict:
        return score(self.sites, self.as_prefs(), self.rules, slots)
