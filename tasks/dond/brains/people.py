"""Scripted people for `--population`: partners who write the way people do in the released Deal or No Deal
dialogues ("i need the ball", "you can have the hats", "no", "deal"), not in the agents' templates. Each one is
also the instrument that measures the agent it plays: `report` counts what a person would notice (metrics.py).

All of them want a share worth at least 6 of their 10 (5 after the third round: still envy-free for them) and
take any offer that gives them that. They differ in how they talk:
- `person-cooperative`: says what it wants in words ("i'd like the hats and the ball, you can have the books").
- `person-once`: says it once, then only clicks: accept, reject (no words), and after two rejections its own offer.
- `person-asker`: asks back: "what do you want?", "why?", "what are hats worth to you?", "which items matter most
  to you?", then wants what the cooperative person wants.
- `person-rejecter`: "no" / a bare reject click to the agent's first two offers, whatever they are.
- `person-deferrer`: "you pick", "whatever works for you"; a bad offer gets "hmm not enough for me, you choose".
- `person-terse`: lower case, few words, typos ("i need teh hatts").
- `person-agreeable`: "sounds good" to an offer it takes; "sounds good but can i have the hats too?" otherwise.
"""
from __future__ import annotations

import random
import re
from typing import Optional

from .. import items as I
from ..reader import read
from .base import DondBrain, share_text

WHY = ("why?", "why that?", "how come?", "why this one?")
WANT = ("what do you want?", "what do you need?", "what would you like?")
WORTH = ("what are {x} worth to you?", "do you care about the {x}?", "what is the value of {x} to you?")
WHICH = ("which items matter most to you?", "what has the least value for you?")
REJECT = ("no", "nope", "no .", "nah")
DEFER = ("you pick", "whatever works for you", "up to you", "i don't mind, you choose")
NOT_ENOUGH = ("hmm not enough for me, you choose", "that's too little for me. your call")
WANTS = ("i'd like {x}, you can have the rest", "i need {x}. you can have the rest", "can i have {x}? the rest is yours",
         "i want {x} and you get everything else")
ACCEPT_LINE = ("deal", "ok deal", "sounds good . deal", "cool , deal .")
AGREEABLE = ("sounds good", "sounds good to me", "ok sounds good!")
TYPOS = {"books": "bokos", "hats": "hatts", "ball": "bal", "balls": "bals", "need": "ned", "the": "teh"}
REASON = re.compile(r"\b(because|since|so |worse|better|fair|worth|value|matters?|leaves|more than|less than|"
                    r"need|envy|most|total|both)", re.I)


class DondPerson(DondBrain):
    name = "person-cooperative"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.report = {"agent_lines": [], "questions": 0, "unanswered": [], "stalls": 0, "contradictions": []}
        self._asked: Optional[str] = None
        self._zero: set = set()        # types the agent said are worth nothing to it
        self._offers_seen = 0
        self._phrase = 0
        self.turn = 0
        self.rejected = 0

    # --- what a person notices --------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        from tasks.core import ChatShown, View
        super().observe(effect)
        if isinstance(effect, ChatShown) and effect.seat != self.seat and effect.seen_by(self.seat) and self.view:
            text = effect.text
            self.report["agent_lines"].append(text)
            self._zero.update(k for kind, k, _j in read(text, self.counts).statements if kind == "zero")
            if self._asked and not self._answers(self._asked, text):
                self.report["unanswered"].append(self._asked)
            self._asked = None
        elif isinstance(effect, View) and effect.seat == self.seat:
            offers = effect.data.get("offers") or []
            for o in offers[self._offers_seen:]:
                if o["by"] == "partner":  # the agent's offer: what it takes is what I do not get
                    takes = I.rest(self.counts, o["mine"])
                    bad = [I.PLURALS[k] for k in self._zero if takes[k] > 0]
                    if bad:
                        self.report["contradictions"].append((share_text(takes), bad))
                    if self._asked in WANT:  # "what do you want?" answered with an offer
                        self._asked = None
            self._offers_seen = len(offers)

    def _answers(self, question: str, text: str) -> bool:
        low = text.lower()
        if question in WHY:
            return bool(REASON.search(low))
        if question in WANT:
            return bool(read(text, self.counts).has_offer)
        if question in WHICH:
            return bool(read(text, self.counts).statements)
        k = next(k for k in range(3) if I.PLURALS[k] in question)
        return I.PLURALS[k][:-1] in low

    # --- wanting ------------------------------------------------------------------------------------------------
    def need(self) -> int:
        return 6 if int(self.view.get("round", 1)) <= 3 else 5

    def wish(self) -> tuple:
        """My most valued items first until my share is worth `need()`."""
        take = [0, 0, 0]
        for k in sorted(range(3), key=lambda k: -self.values[k]):
            while self.u(take) < self.need() and take[k] < self.counts[k] and self.values[k] > 0:
                take[k] += 1
        return tuple(take)

    def wish_words(self, split) -> str:
        parts = [("the " + I.PLURALS[k] if self.counts[k] > 1 else "the " + I.ITEMS[k]) if n == self.counts[k]
                 else f"{n} {I.PLURALS[k] if n > 1 else I.ITEMS[k]}" for k, n in enumerate(split) if n]
        return " and ".join(parts)

    def good(self, offer) -> bool:
        return offer is not None and self.u(offer) >= self.need()

    def pick(self, options) -> str:
        self._phrase += 1
        return options[(self.seed + self._phrase) % len(options)]

    def ask(self, options, **fmt) -> str:
        text = self.pick(options).format(**fmt)
        self._asked = text
        self.report["questions"] += 1
        return text

    def state_wish(self) -> str:
        return self.pick(WANTS).format(x=self.wish_words(self.wish()))

    # --- acting -------------------------------------------------------------------------------------------------
    def decide(self):
        self.turn += 1
        offer = self.open_offer()
        if self.good(offer):
            return None, ("accept",)
        return self.talk_kind(offer)

    def talk_kind(self, offer):
        return self.state_wish(), None

    def move_inputs(self, move, first=True):
        if move[0] == "propose":  # a person clicks Propose; the agent's offer stays standing until answered
            return [self.command("propose", *(f"{p}={n}" for p, n in zip(I.PLURALS, move[1])), first=first)]
        if move[0] == "reject":
            return [self.command("reject", *self.open_id(), first=first)]
        return super().move_inputs(move, first)


class OncePerson(DondPerson):
    name = "person-once"

    def talk_kind(self, offer):
        if self.turn == 1:
            return self.state_wish(), None
        if offer is not None:
            self.rejected += 1
            if self.rejected >= 3 and self.wish() not in self.offers_by("me"):
                return None, ("propose", self.wish())
            return None, ("reject", "")
        return None, None


class AskerPerson(DondPerson):
    name = "person-asker"

    def talk_kind(self, offer):
        if self.turn == 1 and offer is None:
            return self.ask(WANT), None
        if self.turn <= 2 and offer is not None:
            return self.ask(WHY), None
        if self.turn == 3:
            k = max(range(3), key=lambda k: self.values[k])
            return self.ask(WORTH, x=I.PLURALS[k]), None
        if self.turn == 4:
            return self.ask(WHICH), None
        return self.state_wish(), None


class RejecterPerson(DondPerson):
    name = "person-rejecter"

    def decide(self):
        self.turn += 1
        offer = self.open_offer()
        if offer is not None and self.rejected < 2:
            self.rejected += 1
            return (self.pick(REJECT), None) if self.rejected == 1 else (None, ("reject", ""))
        if self.good(offer):
            return None, ("accept",)
        return self.state_wish(), None


class DeferrerPerson(DondPerson):
    name = "person-deferrer"

    def talk_kind(self, offer):
        if offer is None:
            return self.pick(DEFER), None
        if self.turn <= 4:
            return self.pick(NOT_ENOUGH), None
        return self.state_wish(), None


class TersePerson(DondPerson):
    name = "person-terse"

    def state_wish(self) -> str:
        text = "i need " + self.wish_words(self.wish())
        rng = random.Random(f"{self.seed}:{self.turn}")
        return " ".join(TYPOS[w] if w in TYPOS and rng.random() < 0.6 else w for w in text.split())

    def decide(self):
        line, move = super().decide()
        if move and move[0] == "accept":
            return None, move  # "k" and a click: accepting is a lone click
        return line, move


class AgreeablePerson(DondPerson):
    name = "person-agreeable"

    def talk_kind(self, offer):
        if offer is None:
            return (self.ask(WANT) if self.turn == 1 else None), None
        k = next((k for k in sorted(range(3), key=lambda k: -self.values[k]) if offer[k] < self.counts[k]
                  and self.values[k] > 0), None)
        if k is None:
            return self.state_wish(), None
        return f"sounds good but can i have the {I.PLURALS[k]} too?", None


PEOPLE = {b.name: b for b in (DondPerson, OncePerson, AskerPerson, RejecterPerson, DeferrerPerson, TersePerson,
                              AgreeablePerson)}
