"""Scripted travellers for `--population`: people who write the way the released Planning dialogues do, each with
the simulated user's knowledge (the preference texts and the scorecards, never the hidden weights) and its judgement
of a proposal (accept when it scores as well as a random plan's best and nothing costs much), differing in how they
talk:

- `person-cooperative`: the simulated user (tells three wishes a message, answers questions, says why it rejects).
- `person-all-at-once`: every wish in its first message, then only clicks (a bare Reject, never a word more).
- `person-asker`: asks about each proposal before it answers ("why Willow Park?", "anything cheaper?").
- `person-budget`: says its budget as a hard limit and rejects every plan above it ("still $85! my budget is $30").
- `person-deferrer`: "you pick" to the first question, tells what matters only when asked again.
- `person-rejecter`: rejects without a reason; says what to change only when asked.
- `person-terse`: lower case, few words, typos ("budget 30. vegan. no live music").

Every person notes a "stall" (an `agent_note`) when it waited for the agent for more than one of its turns with
nothing to click; the discipline audit counts them.
"""
from __future__ import annotations

import random
import re

from tasks.core.discipline import Waiting

from .simuser import OPENERS, SimUserBrain, typo

WHY = ["why {a}?", "is {a} good for us? why that one?", "hmm why {a} tho", "whats good about {a}?"]
CHEAPER = ["is there anything cheaper?", "how much is that all together?", "any cheaper option?"]
DEFER = ["you pick", "whatever works", "idk, you choose", "up to you really"]
STILL = ["still ${p}! my budget is ${b}", "thats ${p}, too much. i can't go over ${b}", "${p} is over my ${b} limit"]
HARD = ["my budget is ${b} total, i can't go over that", "we have ${b} for the whole day, no more"]
# a question about what matters ("what matters most to you?", "any food wishes?"), not a plan's "how about X?"
ASKS = re.compile(r"\b(what|which|any|anything|tell me)\b[^?]*\?")
PLAIN_OPENERS = ["hi, can you plan a day out for me?", "hello! i need a plan for tomorrow", "hey, help me plan a day?"]


class Person(SimUserBrain):
    """The simulated user, counting its stalls; subclasses change how it talks."""
    name = "person-cooperative"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.rng = random.Random(f"{self.name}:{seed}")
        self.waiting = Waiting()

    def act(self):
        heard = bool(self.inbox)
        moves = self.turn() if self.view is not None and self.view.get("result") is None else []
        v = self.view or {}
        if self.waiting.after(bool(moves), heard, v.get("pending") is not None or v.get("result") is not None):
            self.note("stall")
        return moves

    def turn(self):
        return SimUserBrain.act(self)

    def budget(self):
        return next((p for p in self.view["pref_specs"] if p["kind"] == "budget"), None)

    def price(self, prop) -> int:
        return sum(s["price"] for s in prop["sites"] if s is not None)


class AllAtOnce(Person):
    name = "person-all-at-once"

    def turn(self):
        v = self.view
        self.inbox = []
        p = v.get("pending")
        if p is not None and p["id"] not in self.answered:
            self.answered.add(p["id"])
            return [m for m in self._judge(p["id"]) if m.__class__.__name__ == "Command"]  # clicks only
        if not self.opened:
            self.opened = True
            return [self._say([self.rng.choice(OPENERS)] + self._tell(99))]
        return []


class Asker(Person):
    name = "person-asker"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.asked_about: set = set()

    def turn(self):
        v = self.view
        p = v.get("pending")
        if p is not None and p["id"] not in self.asked_about and p["id"] not in self.answered:
            self.asked_about.add(p["id"])
            self.inbox = []
            prop = next(x for x in v["proposals"] if x["id"] == p["id"])
            names = [s["name"] for s in prop["sites"] if s is not None]
            q = self.rng.choice(WHY).format(a=self.rng.choice(names))
            if self.rng.random() < 0.5:
                q += " " + self.rng.choice(CHEAPER)
            return [self.say(q)]
        if p is not None and not self.inbox:
            return []  # wait for the answer to the question before judging
        return SimUserBrain.act(self)


class BudgetStater(Person):
    name = "person-budget"

    def turn(self):
        b = self.budget()
        v = self.view
        if b is None:
            return SimUserBrain.act(self)
        if not self.opened:
            self.opened = True
            self.inbox = []
            self.told.add(v["pref_specs"].index(b))
            return [self._say([self.rng.choice(OPENERS), self.rng.choice(HARD).format(b=b["budget"])]
                              + self._tell(2), typos=False)]
        p = v.get("pending")
        if p is not None and p["id"] not in self.answered:
            prop = next(x for x in v["proposals"] if x["id"] == p["id"])
            price = self.price(prop)
            if price > b["budget"] and self.rejections < 3 and not v.get("final"):
                self.answered.add(p["id"])
                self.inbox = []
                self.rejections += 1
                return [self.command("reject"),
                        self.say(self.rng.choice(STILL).format(p=price, b=b["budget"]), first=False)]
        return SimUserBrain.act(self)


class Deferrer(Person):
    name = "person-deferrer"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.deferred = 0

    def turn(self):
        v = self.view
        if not self.opened:
            self.opened = True
            return [self.say(self.rng.choice(PLAIN_OPENERS))]
        if v.get("pending") is None and self.inbox and self.deferred == 0:
            self.inbox = []
            self.deferred += 1
            return [self.say(self.rng.choice(DEFER))]
        if self.deferred == 1 and any(ASKS.search(t) for t in self.inbox):
            # asked again, differently: now it says what matters (before it looks at any plan)
            self.deferred += 1
            self.inbox = []
            return [self._say(self._tell(3))]
        return SimUserBrain.act(self)


class Rejecter(Person):
    name = "person-rejecter"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.last_reason = None

    def turn(self):
        v = self.view
        p = v.get("pending")
        if p is not None and p["id"] not in self.answered:
            self.inbox = []
            moves = self._judge(p["id"])
            said = [m for m in moves if m.__class__.__name__ == "Chat"]
            self.last_reason = said[0].text.replace("no thanks. ", "") if said else None
            return [m for m in moves if m.__class__.__name__ == "Command"]  # a bare click
        if self.last_reason and any("?" in t for t in self.inbox):
            self.inbox = []
            reason, self.last_reason = self.last_reason, None
            return [self.say(reason)]
        return SimUserBrain.act(self)


class Terse(Person):
    name = "person-terse"

    def _say(self, parts, first=True, typos=True):
        short = []
        for part in parts:
            low = part.lower()
            for a, b in (("i really want ", ""), ("i'd like ", ""), ("my budget is ", "budget "), ("i must ", ""),
                         (" would be nice", " pls"), ("i really don't want to travel far", "not far"),
                         ("my friend recommended ", ""), ("i'd rather avoid ", "no "), ("is a must for me", "!!")):
                low = low.replace(a, b)
            short.append(low)
        text = ". ".join(" ".join(typo(w, self.rng) if self.rng.random() < 0.5 else w for w in s.split())
                         for s in short if s)
        return self.say(text, first)

    def turn(self):
        if not self.opened:
            self.opened = True
            first = self._order()[:4]
            self.told |= set(first)
            return [self._say(self._terse([self.view["pref_specs"][i] for i in first]))]
        return SimUserBrain.act(self)


PEOPLE = {b.name: b for b in (Person, AllAtOnce, Asker, BudgetStater, Deferrer, Rejecter, Terse)}
