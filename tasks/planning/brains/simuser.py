"""A simulated traveller ("simuser") for self-play: tells its private preferences in its own plain English (lower
case, varied phrasings, the odd typo; never the preference texts themselves), three at a time and more when asked.
It judges each full proposal by its scorecard: it accepts when the score beats the best of 100 random itineraries
(the yardstick the original showed users) and nothing big is fixable, otherwise rejects and says what hurts most;
after three rejections, or at the forced final proposal, it accepts.

It knows only what the original's users saw (reference §3.3, §3.5): the preference texts in the order shown (their
meaning: which features, sites, types, budget) and the scorecards (per-slot scores, the checklist). The weights
are hidden from it (stripped from its briefing), so it tells its wishes in the shown order, all in the same plain
words, and weighs a complaint by the score its scorecard shows.

`simuser-weights` (ours, not the paper's): the same traveller told its hidden weights; it tells the most important
first and says how much each matters ("a must", "really", "would be nice"). It is an upper bound for an assistant
that reads strength from wording, not a person."""
from __future__ import annotations

import random
from typing import Optional

from tasks.core import Brain, ChatShown, View

from ..scoring import feature_value

NOUNS = {"has parking": "parking", "has takeout": "takeout", "touristy": "touristy spots",
         "good for kids": "kid friendly places", "accepts reservations": "places that take reservations",
         "open late": "places open late", "good for groups": "places good for groups",
         "outdoor seating": "outdoor seating", "vegetarian options": "vegetarian options",
         "vegan options": "vegan options", "live music": "live music", "has wifi": "wifi",
         "viewpoint": "a nice view"}
OPENERS = ["hi!", "hey there", "hello :)", "hi, thanks for helping"]
TOPIC_WORDS = {"budget": ("budget", "spend", "price", "cost", "$"), "food": ("food", "eat", "diet", "cuisine"),
               "places": ("places", "see", "visit", "museum"), "distance": ("travel", "far", "distance")}


def level(w: int) -> str:
    w = abs(int(w))
    return "top" if w >= 9 else "high" if w >= 7 else "mid" if w >= 4 else "low" if w >= 2 else "lowest"


def typo(word: str, rng: random.Random) -> str:
    if len(word) < 6 or not word.isalpha() or rng.random() > 0.12:
        return word
    i = rng.randrange(1, len(word) - 3)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def phrase(p: dict, rng: random.Random, lv: Optional[str] = None) -> str:
    """One preference in plain words. With a strength level (`simuser-weights`) the wording says it; without one
    (the default user, who never saw a weight) every preference is said the same plain way, and a wish for a place
    says only what its text says (whether it is insisted on)."""
    if lv is None:
        if p["kind"] == "want_to_go":
            names = " or ".join(p["sites"])
            return f"i have to go to {names}" if p.get("penalize") else f"my friend recommended {names}"
        if p["kind"] == "at_least_one":
            return f"i need at least one {p['etype']}" if p.get("penalize") else f"i'd like at least one {p['etype']}"
        lv = "mid"
    kind = p["kind"]
    if kind == "feature":
        key = p["key"].replace("_", " ")
        if key == "rating":
            thr = min(p["good"]) if p["good"] else 3
            noun = f"places rated {thr:g}+ stars"
            pos = True
        elif key in ("cuisine", "ambience", "alcohol type"):
            what = {"cuisine": "{} food", "ambience": "{} places", "alcohol type": "{}"}[key]
            parts = []
            if p["good"]:
                parts.append({"top": "a must for me: ", "high": "i really love ", "mid": "i like ",
                              "low": "would be nice to have ", "lowest": "slightly prefer "}[lv]
                             + what.format(" or ".join(map(str, p["good"]))))
            if p["bad"]:
                parts.append({"top": "absolutely no ", "high": "i really hate ", "mid": "i'd rather avoid ",
                              "low": "would be nice to skip ", "lowest": "slightly prefer no "}[lv]
                             + what.format(" or ".join(map(str, p["bad"]))))
            return "; ".join(parts)
        else:
            noun = NOUNS.get(key, key)
            pos = bool(p["good"] and p["good"][0] is True) or (not p["good"] and p["bad"] and p["bad"][0] is False)
        soft = "" if p["bad"] else ", but places without it are fine too"
        if key == "touristy" and not pos:
            return {"top": "a must: only hidden spots and no tourist traps",
                    "high": "i really want hidden spots and not touristy ones",
                    "mid": "i'd rather avoid touristy spots", "low": "hidden spots would be nice",
                    "lowest": "slightly prefer hidden spots"}[lv]
        if pos:
            return {"top": f"{noun} is a must for me", "high": f"i really want {noun}", "mid": f"i'd like {noun}",
                    "low": f"{noun} would be nice", "lowest": f"slightly prefer {noun}, not a big deal"}[lv] + soft
        return {"top": f"absolutely no {noun}", "high": f"i really want to avoid {noun}",
                "mid": f"i'd rather not have {noun}", "low": f"would be nice to skip {noun}",
                "lowest": f"slightly prefer no {noun}, not a big deal"}[lv]
    if kind == "budget":
        return {"top": f"my budget is ${p['budget']} total, a must",
                "high": f"i really need to stay under ${p['budget']}",
                "mid": f"my budget is about ${p['budget']}", "low": f"would be nice to spend under ${p['budget']}",
                "lowest": f"slightly prefer under ${p['budget']}, not a big deal"}[lv]
    if kind == "want_to_go":
        names = " or ".join(p["sites"])
        return {"top": f"i must go to {names}", "high": f"i really want to go to {names}",
                "mid": f"my friend recommended {names}", "low": f"{names} would be nice to see",
                "lowest": f"slightly curious about {names}, not a big deal"}[lv]
    if kind == "at_least_one":
        t = p["etype"]
        return {"top": f"i must see at least one {t}", "high": f"i really want at least one {t}",
                "mid": f"i'd like at least one {t}", "low": f"one {t} would be nice",
                "lowest": f"slightly keen on one {t}, not a big deal"}[lv]
    return {"top": "i absolutely can't travel far between places", "high": "i really don't want to travel far",
            "mid": "i'd like the places close together", "low": "closer places would be nice, i don't mind travel much",
            "lowest": "i don't mind travel at all"}[lv]


TERSE = {"top": ("must", "must avoid"), "high": ("really want", "really avoid"), "mid": ("like", "avoid"),
         "low": ("would be nice", "would be nice to skip"), "lowest": ("slightly like", "slightly avoid")}


def terse(prefs: list, cues: bool = False) -> list[str]:
    """All preferences in few words (a word budget), wishes before dislikes: without weights "like: vegan options,
    one museum. avoid: live music. budget $40. short travel"; with them (`cues`) one sentence per strength, e.g.
    "must: vegan options, a museum. really avoid: live music. budget $40. short travel"."""
    wants: dict = {}
    for p in prefs:
        lv = level(p["weight"]) if cues else "mid"
        if p["kind"] == "feature":
            key = p["key"].replace("_", " ")
            if key == "rating":
                wants.setdefault((lv, 0), []).append(f"rated {min(p['good'] or [3]):g}+ stars")
            elif key in ("cuisine", "ambience", "alcohol type"):
                fmt = {"cuisine": "{} food", "ambience": "{} places", "alcohol type": "{}"}[key]
                for v in p["good"]:
                    wants.setdefault((lv, 0), []).append(fmt.format(v))
                for v in p["bad"]:
                    wants.setdefault((lv, 1), []).append(fmt.format(v))
            else:
                pos = bool(p["good"] and p["good"][0] is True) or (not p["good"] and p["bad"] and p["bad"][0] is False)
                noun = "touristy spots" if key == "touristy" else NOUNS.get(key, key)
                wants.setdefault((lv, 0 if pos else 1), []).append(noun)
        elif p["kind"] == "want_to_go":
            wants.setdefault((lv, 0), []).append(" or ".join(p["sites"]))
        elif p["kind"] == "at_least_one":
            wants.setdefault((lv, 0), []).append(f"one {p['etype']}")
    rank = ["top", "high", "mid", "low", "lowest"]
    out = [(rank.index(lv), neg, f"{TERSE[lv][neg]}: {', '.join(items)}") for (lv, neg), items in wants.items()]
    for p in prefs:  # budget and travel in their place by how much they matter
        lv = level(p["weight"]) if cues else "mid"
        if p["kind"] == "budget":
            b = p["budget"]
            out.append((rank.index(lv), 2, {"top": f"must: budget ${b}", "high": f"really: budget ${b}",
                                            "mid": f"budget ${b}", "low": f"budget ${b} would be nice",
                                            "lowest": f"slightly: budget ${b}"}[lv]))
        elif p["kind"] == "distance":
            out.append((rank.index(lv), 3, {"top": "must: short travel", "high": "really short travel",
                                            "mid": "short travel", "low": "don't mind travel much",
                                            "lowest": "don't mind travel"}[lv]))
    return [text for _, _, text in sorted(out)]


def topic_of(p: dict) -> str:
    if p["kind"] in ("budget", "distance"):
        return p["kind"]
    if p["kind"] in ("want_to_go", "at_least_one"):
        return "places"
    return "food" if p.get("key") in ("cuisine", "vegan options", "vegetarian options", "ambience") else "other"


class SimUserBrain(Brain):
    name = "simuser"
    cues = False  # True: it knows its hidden weights and says them (`simuser-weights`, ours)

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.inbox: list[str] = []
        self.told: set = set()
        self.opened = False
        self.rejections = 0
        self.answered: set = set()

    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.data.get("role") == "user":
            specs = self.briefing["pref_specs"]
            if not self.cues:  # the meaning of each shown text, never its weight
                specs = [{k: v for k, v in p.items() if k != "weight"} for p in specs]
            self.view = {**effect.data, "pref_specs": specs}
        elif isinstance(effect, ChatShown):
            if effect.seat != self.seat:
                self.inbox.append(effect.text.lower())
            else:
                self.opened = True  # a replayed dialogue where "we" already talked: no greeting

    def _say(self, parts: list[str], first: bool = True, typos: bool = True):
        # site names are never misspelt (the assistant must find them); repeated parts are said once
        keep = {w for p in self.view["pref_specs"] for n in p.get("sites", []) for w in n.split()}
        parts = list(dict.fromkeys(p.strip().rstrip(".") for p in parts if p and p.strip()))
        text = ". ".join(" ".join(w if w in keep or not typos else typo(w, self.rng) for w in p.split())
                         for p in parts)
        left = (self.view or {}).get("words_left")
        if left is not None:
            words = text.split()
            text = " ".join(words[:max(1, min(len(words), left - 25))])
        return self.say(text, first)

    def _rules(self) -> dict:
        return self.view.get("rules") or {"keys": "fixed", "distance": self.view.get("distance", "haversine")}

    def _counts(self, p: dict) -> bool:
        """Whether a preference can score under this game's rules (the scorecards show the original's
        misspelt keys always at 0, so a user learns not to push for them)."""
        return not (p["kind"] == "feature" and self._rules().get("keys") == "original" and "_" in p["key"])

    def _order(self) -> list[int]:
        """The preferences to tell: in the order the page shows them, or (`cues`) the most important first."""
        prefs = self.view["pref_specs"]
        order = [i for i in range(len(prefs)) if self._counts(prefs[i])]
        return sorted(order, key=lambda i: -abs(prefs[i]["weight"])) if self.cues else order

    def _level(self, p: dict) -> Optional[str]:
        return level(p["weight"]) if self.cues else None

    def _phrase(self, p: dict) -> str:
        return phrase(p, self.rng, self._level(p))

    def _terse(self, prefs: list) -> list[str]:
        return terse(prefs, self.cues)

    def _tell(self, n: int, topics: tuple = ()) -> list[str]:
        prefs = self.view["pref_specs"]
        order = [i for i in self._order() if i not in self.told]
        first = [i for i in order if topic_of(prefs[i]) in topics]
        pick = (first + [i for i in order if i not in first])[:max(n, len(first))]
        self.told |= set(pick)
        return [self._phrase(prefs[i]) for i in pick]

    def act(self):
        v = self.view
        if v is None or v.get("result") is not None:
            return []
        heard, self.inbox = self.inbox, []
        if v.get("turns_mode") == "alternate" and v.get("turn") != "me" and not v.get("must_respond"):
            return []
        pending = v.get("pending")
        if pending is not None and pending["id"] not in self.answered:
            self.answered.add(pending["id"])
            return self._judge(pending["id"])
        if pending is not None or v.get("final"):
            return []
        turn = v.get("turns_mode") == "alternate" and v.get("turn") == "me"
        budget = v.get("words_left") is not None
        untold = [i for i in self._order() if i not in self.told]
        if budget and untold:
            # few words: all the rest at once, most important first (without waiting to be asked)
            self.opened = True
            self.told |= set(untold)
            # (no typos here: with so few words every one must get through)
            return [self._say(self._terse([v["pref_specs"][i] for i in untold]), typos=False)]
        if self.opened and not heard and not turn:
            return []
        parts = []
        if not self.opened:
            self.opened = True
            parts.append(self.rng.choice(OPENERS))
            parts += self._tell(len(v["pref_specs"]) if budget else 3)
        else:
            asked = tuple(t for t, words in TOPIC_WORDS.items() if any(w in " ".join(heard) for w in words))
            parts += self._tell(len(v["pref_specs"]) if budget else 3, asked)
            if not parts:
                parts.append(self.rng.choice(["that's all i can think of, you choose!", "that's about it, up to you",
                                              "nothing else really, you pick"]))
        return [self._say(parts)]

    def _judge(self, pid: int) -> list:
        v = self.view
        prop = next(p for p in v["proposals"] if p["id"] == pid)
        card = prop["card"]
        if v.get("final") or self.rejections >= 3:
            return [self.command("accept")]
        complaints = self._complaints(prop)
        worst = max(complaints, default=(0, "", None), key=lambda x: x[0])
        yardstick = v.get("random_best")
        good_enough = yardstick is None or card["total"] >= yardstick
        if good_enough and worst[0] < 6:
            return [self.command("accept")]
        self.rejections += 1
        left = v.get("words_left")
        if left is not None:
            # few words: the reason in short (a truncated sentence would tell nothing)
            if left - 25 < 6:
                return [self.command("reject")]
            top = [p for _, _, p in sorted(((loss, i, p) for i, (loss, _, p) in enumerate(complaints)),
                                           key=lambda x: (-x[0], x[1]))[:2]]
            return [self.command("reject"), self._say(["no"] + self._terse(top), first=False, typos=False)]
        parts = [c for loss, c, _ in sorted(complaints, key=lambda x: -x[0])[:2] if loss >= 2]
        parts = parts or ["hmm, i think we can do better"]
        parts += self._tell(1)
        return [self.command("reject"), self._say(["no thanks"] + parts, first=False)]

    def _complaints(self, prop: dict) -> list[tuple[int, str, dict]]:
        """(points lost, what to say, the preference) for each fixable thing that costs points. The points are
        the scorecard's (a stop's score, the travel legs' score, a checklist line's score); `cues` counts each
        preference's own weight instead."""
        prefs = self.view["pref_specs"]
        rules = self._rules()
        card = prop["card"]
        out = []
        for k, site in enumerate(prop["sites"]):
            if site is None:
                continue
            for p in prefs:
                if p["kind"] == "feature":
                    if self.cues:
                        loss = -feature_value(site, p, rules)
                    else:  # the site has what this preference dislikes (its text says so); the stop's score shows
                        loss = -card["by_slot"][2 * k] if feature_value(site, dict(p, weight=1), rules) < 0 else 0
                    if loss > 0:
                        out.append((loss, f"{site['name']} is bad for me: {self._phrase(p)}", p))
        legs = [d for d in card["legs"] if d is not None]
        dist = next((p for p in prefs if p["kind"] == "distance"), None)
        if dist and legs and max(legs) > 0.8:
            loss = (-sum(int(dist["weight"] * d) for d in legs) if self.cues
                    else -(card["by_slot"][1] + card["by_slot"][3]))
            out.append((loss, f"that's {max(legs)} miles between two stops. " + self._phrase(dist), dist))
        for c, p in zip(card["checklist"], [p for p in prefs if p["kind"] in ("budget", "want_to_go",
                                                                             "at_least_one")]):
            if c["score"] < 0:
                out.append((-c["score"], self._phrase(p), p))
        return out


class WeightCueUser(SimUserBrain):
    """Ours, not the paper's: the simulated user told its hidden weights (see the module docstring)."""
    name = "simuser-weights"
    cues = True
