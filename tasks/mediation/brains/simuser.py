"""A simulated traveller for self-play ("simuser"): answers from its own private calendar in plain English (varied
phrasings, lower case, short day names, the odd typo), and accepts a proposal by its own score.

It knows what its page shows, as the original's users did: its calendar with importance, its flights, and each
proposal's score breakdown; its price and arrival weights only when the page shows them (task option
`show_weights`, ours). It opens by telling the assistant its private events and its important shared ones (with
importance), and how much price and arriving together matter when it knows; it answers a question once more
("that's all on my side"); and it judges a proposal by its page's score breakdown: accept when the flight's score
is within a slack of the best its own flights allow (the slack grows with every reject, and the third reject is its
last), else reject and say why (the costliest meeting, the price, or the arrival gap). Without the weights it
estimates them from the page: the reference price as its flights' mean price, the price weight from the breakdown's
price score (the middle of the weights 1..20 that give it), the arrival weight as the generator's mean. Under a
word budget it keeps within what is left.
"""
from __future__ import annotations

import dataclasses
import random
from datetime import datetime
from typing import Optional

from tasks.core import Brain, ChatShown, Command, View

from .. import generator as gen
from ..parse import read_message

OPEN = ["hi!", "hey there", "hello :)", "hi, thanks for helping", "hey"]
PRIVATE = ["things you can't see: {list}", "my private stuff: {list}", "also busy (personal): {list}",
           "personal things you cant see on my calendar: {list}"]
SHARED = ["important work meetings: {list}", "on my shared calendar these matter: {list}",
          "work stuff i shouldn't miss: {list}"]
REST = ["the rest of my work meetings are not important", "other meetings are low importance, can skip them"]
PRICE = {0: "price doesn't really matter to me ({n}/20)", 1: "price matters a bit to me ({n}/20)",
         2: "price matters a fair bit to me ({n}/20)", 3: "price matters a lot, {n} out of 20"}
ARRIVE = "landing close to my friend matters {n}/10"
IMPORTANCE = ["that one is {n}/10", "importance {n}", "i'd say {n} out of 10", "that's a {n}"]
DONE = ["that's all on my side", "nothing else really", "i think that's everything", "that's it from me"]
# the paper's turn order gives every turn a line: with nothing to tell, a short one passes the turn
PASS = ["ok", "sounds good", "ok thanks", "sure", "alright"]
DAY_NAMES = (("wed", "wednesday", "5/31"), ("thu", "thursday", "6/1"), ("fri", "friday", "6/2"))
# the generator's means (price weight 1..20, arrival weight 1..10), for a user who never saw its weights
PRICE_PRIOR, ARRIVAL_PRIOR = 10, 5


def typo(word: str, rng: random.Random) -> str:
    if len(word) < 6 or not word.isalpha() or rng.random() > 0.15:
        return word
    i = rng.randrange(1, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def _clock(d: datetime) -> str:
    h = d.hour % 12 or 12
    return f"{h}{'' if d.minute == 0 else f':{d.minute:02d}'}{'am' if d.hour < 12 else 'pm'}"


class SimUserBrain(Brain):
    name = "simuser"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.inbox: list[str] = []
        self.opened = False
        self.told_all = False
        self.answered: Optional[int] = None
        self.rejects = 0
        self.outbox: list = []  # the paper's turn order: the rest of an answer, one move a turn

    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.data.get("role") == "user":
            self.view = effect.data
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            self.inbox.append(effect.text)

    # --- words --------------------------------------------------------------------------------------------------
    def _event(self, e: dict) -> str:
        s, t = datetime.fromisoformat(e["start"]), datetime.fromisoformat(e["end"])
        day = self.rng.choice(DAY_NAMES[(s - gen.DAY0).days])
        imp = e["importance"]
        how = self.rng.choice([f"({imp})", f"importance {imp}", f"{imp}/10"])
        return f"{day} {_clock(s)}-{_clock(t)} {how}"

    def _info(self, limit: Optional[int]) -> str:
        v = self.view
        cal = sorted(v["calendar"], key=lambda e: -e["importance"])
        private = [e for e in cal if not e["shared"]]
        shared = [e for e in cal if e["shared"] and e["importance"] >= 5]
        p = v.get("prefs")
        parts = []
        if private:
            parts.append(self.rng.choice(PRIVATE).format(list=", ".join(self._event(e) for e in private)))
        if shared:
            parts.append(self.rng.choice(SHARED).format(list=", ".join(self._event(e) for e in shared)))
            parts.append(self.rng.choice(REST))
        if p is not None:  # the page shows the weights (show_weights): it says them
            parts.append(PRICE[min(3, (p["price_pref"] - 1) // 5)].format(n=p["price_pref"]))
            parts.append(ARRIVE.format(n=p["arrival_pref"]))
        text = self.rng.choice(OPEN) + " " + ". ".join(parts)
        if limit is not None:  # a word budget: the most important things first, within what is left
            words = text.split()
            text = " ".join(words[:max(0, limit)])
        return " ".join(typo(w, self.rng) for w in text.split(" "))

    # --- acting -------------------------------------------------------------------------------------------------
    def act(self):
        return self.paced(self.decide)

    def paced(self, decide) -> list:
        """Free turns: what `decide` says. The paper's round-robin (the view's `turn`): nothing until this seat's
        turn, then one move: the answer to an open proposal first, else the next of what it decided (the rest waits
        for its next turn), else a short line that passes the turn."""
        v = self.view or {}
        turn = v.get("turn")
        if turn is None:
            return decide()
        if not turn["mine"] or v.get("result") is not None:
            return []
        p = v.get("pending")
        must = p is not None and not p["mine_accepted"]
        if not self.outbox:
            self.outbox = list(decide())
        answers = [m for m in self.outbox if isinstance(m, Command) and m.name in ("accept", "reject")]
        if must and not answers:
            self.answered = p["id"]
            self.outbox = self._judge(p) + self.outbox
        elif not must:
            self.outbox = [m for m in self.outbox if m not in answers]
        if must:
            move = next(m for m in self.outbox if isinstance(m, Command) and m.name in ("accept", "reject"))
            self.outbox.remove(move)
        elif self.outbox:
            move = self.outbox.pop(0)
        else:
            move = self.say(self.rng.choice(PASS))
        return [dataclasses.replace(move, turn=True)]

    def decide(self):
        v = self.view
        if v is None or v.get("result") is not None or v.get("core", {}).get("phase") != "playing":
            return []
        inbox, self.inbox = self.inbox, []
        p = v.get("pending")
        if p is not None and p["id"] != self.answered and not p["mine_accepted"]:
            self.answered = p["id"]
            return self._judge(p)
        if v.get("final"):
            return []
        left = v.get("words_left")
        limit = None if left is None else left - 30  # leave the assistant room for its proposal
        if limit is not None and limit < 8:
            return []
        if not self.opened:
            self.opened = True
            return [self.say(self._info(limit))]
        for t in inbox:
            e = self._asked_about(t)
            if e is not None:
                return [self.say(self.rng.choice(IMPORTANCE).format(n=e["importance"]))]
        if inbox and any("?" in t for t in inbox) and not self.told_all:
            self.told_all = True
            return [self.say(self.rng.choice(DONE))]
        return []

    def _asked_about(self, text: str) -> Optional[dict]:
        """The own event a question like "how important is your meeting Thu 6/1 1:00 PM - 3:00 PM?" is about."""
        if "important" not in text.lower():
            return None
        for sp in read_message(text).busy:
            a, _ = sp.absolute()
            for e in self.view["calendar"]:
                if gen.minutes(e["start"]) == a:
                    return e
        return None

    def _judge(self, p: dict):
        v = self.view
        b = p["breakdown"]
        best = self._best_alternative(p)
        slack = 4 + 4 * self.rejects
        far = b["arrival"] <= -2 * self._weights(p)["arrival_pref"]  # six hours or more apart
        if (b["total"] >= best - slack and not far) or self.rejects >= 6 or v.get("final"):
            return [self.command("accept")]
        self.rejects += 1
        moves = [self.command("reject")]
        why = self._why(p, far)
        left = v.get("words_left")
        if left is not None and len(why.split()) + 30 > left:
            why = self._why(p, far, short=True)  # a tight budget: the reason in a few words
        if left is None or len(why.split()) + 25 <= left:
            moves.append(self.say(why, first=False))
        return moves

    def _best_alternative(self, p: dict) -> int:
        """The best total one of the own flights would give with the friend's flight as proposed. The friend's
        arrival is only known up to its side: the gap in hours follows from the arrival score; the kinder side
        counts (a user does not reject a pair for what the friend's flight might be)."""
        v = self.view
        rules = {**v["rules"], "price_mean": "distribution"}  # the reference price is the page's, or estimated
        ap = self._weights(p)["arrival_pref"]
        gap = round(-p["breakdown"]["arrival"] * 3 / ap) if ap else 0
        mine = gen.minutes(p["flight"]["end"])
        own = [(sum(gen.own_terms(self._me(p), f, rules).values()), gen.minutes(f["end"])) for f in v["flights"]]
        return min(max(c + gen.arrival_term(ap, abs(end - friend) // 60) for c, end in own)
                   for friend in (mine - 60 * gap, mine + 60 * gap))

    def _me(self, p: dict) -> dict:
        """The own instance data as the generator's scoring expects it (from the page only)."""
        v = self.view
        w = self._weights(p)
        return {"calendar": v["calendar"], "flights": v["flights"], "price_pref": w["price_pref"],
                "mean_price": w["reference_price"]}

    def _weights(self, p: dict) -> dict:
        """The weights the page shows (show_weights), else estimated from the page and proposal p's breakdown."""
        shown = self.view.get("prefs")
        if shown is not None:
            return shown
        flights = self.view["flights"]
        mu = round(sum(f["price"] for f in flights) / len(flights))
        price, said = p["flight"]["price"], p["breakdown"]["price"]
        fits = [w for w in range(1, 21) if int(-w * (price - mu) / mu) == said]
        return {"price_pref": fits[len(fits) // 2] if fits else PRICE_PRIOR, "reference_price": mu,
                "arrival_pref": ARRIVAL_PRIOR}

    def _why(self, p: dict, far: bool, short: bool = False) -> str:
        b = p["breakdown"]
        ids = set(b["conflicts"])
        hit = sorted((e for e in self.view["calendar"] if e["id"] in ids), key=lambda e: -e["importance"])
        if hit and -b["calendar"] >= max(3, -b["price"]):
            return f"clashes with {self._event(hit[0])}" if short else \
                f"no, that clashes with {self._event(hit[0])}, can't miss that"
        if far:
            return "too far apart" if short else "we'd land way too far apart, can we arrive closer together?"
        return "too pricey" if short else "hmm that's too pricey for me, something cheaper?"
