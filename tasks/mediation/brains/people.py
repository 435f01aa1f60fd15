"""Scripted travellers for `--population` (both user seats take the same kind): people who write the way the released
Mediation dialogues do, each with the simulated user's private calendar and its judgement of a proposal (its own
score against the best its flights allow), differing in how they talk:

- `person-cooperative`: the simulated user (tells its meetings and what matters at once, says why it rejects).
- `person-all-at-once`: everything in its first message, then only clicks (a bare Reject, never a word more).
- `person-asker`: asks about each proposal before it answers ("why this one? is there anything cheaper?").
- `person-must`: names the meeting it must keep ("thursday 6/1 around midday (importance 10)") and rejects every
  flight that breaks it.
- `person-deferrer`: "you pick" to the first question, tells its calendar only when asked again.
- `person-rejecter`: rejects without a reason; says what is wrong only when asked.
- `person-terse`: lower case, few words, typos ("busy thu 9-11am (8)"; "price 5/20" only when its page shows
  the weights).

Every person notes a "stall" when it waited for the agent more than one of its turns with nothing to click.
"""
from __future__ import annotations

import random
from datetime import datetime

from tasks.core import Chat, Command
from tasks.core.discipline import Waiting

from .. import generator as gen
from .simuser import SimUserBrain, _clock, typo

WHY = ["why this one? is there anything cheaper?", "why this flight?", "y this one", "is there anything cheaper?",
       "hmm why that one, does it clash with anything"]
DEFER = ["you pick", "whatever works", "idk, you choose", "up to you"]
PLAIN = ["hi! can you book me a flight?", "hello, i need a flight to meet my friend", "hey, can you help me book?"]
MUST = ["{when} (importance 10), i really can't miss it", "i must keep {when}, that's a 10",
        "{when} is a must for me (importance 10)"]
CLASH = ["no, that breaks my {when}! i said i can't miss it", "that clashes with {when}, i can't do that"]


class Person(SimUserBrain):
    """The simulated user, counting its stalls; subclasses change how it talks."""
    name = "person-cooperative"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.rng = random.Random(f"{self.name}:{seed}:{seat}")
        self.waiting = Waiting()
        self.proposals = 0

    def act(self):
        heard = bool(self.inbox)
        v = self.view or {}
        moves = self.paced(self.turn) if v and v.get("result") is None else []
        v = self.view or {}
        # a proposal made since the last turn counts as something to click, even when the friend's reject cleared
        # it before this person's turn came (the agent did not keep this person waiting)
        made, self.proposals = v.get("proposals", 0) > self.proposals, v.get("proposals", 0)
        can_click = made or (v.get("pending") is not None and not v["pending"].get("mine_accepted")) or \
            v.get("result") is not None
        if self.waiting.after(bool(moves), heard, can_click):
            self.note("stall")
        return moves

    def turn(self):
        return SimUserBrain.decide(self)

    def playing(self) -> bool:
        v = self.view
        return v is not None and v.get("result") is None and v.get("core", {}).get("phase") == "playing"

    def new_proposal(self):
        p = self.view.get("pending")
        return p if p is not None and p["id"] != self.answered and not p["mine_accepted"] else None


class AllAtOnce(Person):
    name = "person-all-at-once"

    def turn(self):
        if not self.playing():
            return []
        self.inbox = []
        p = self.new_proposal()
        if p is not None:
            self.answered = p["id"]
            return [m for m in self._judge(p) if isinstance(m, Command)]  # clicks only
        if not self.opened:
            self.opened = True
            return [self.say(self._info(None))]
        return []


class Asker(Person):
    name = "person-asker"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.asked_about = None

    def turn(self):
        if not self.playing():
            return []
        p = self.new_proposal()
        if p is not None and p["id"] != self.asked_about:
            self.asked_about = p["id"]
            self.inbox = []
            return [self.say(self.rng.choice(WHY))]
        if p is not None and not self.inbox:
            return []  # the answer first, then the verdict
        return SimUserBrain.decide(self)


class Must(Person):
    name = "person-must"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.rejected_for_it = 0

    def must(self) -> dict:
        return max(self.view["calendar"], key=lambda e: (e["importance"], e["start"]))

    def when(self) -> str:
        e = self.must()
        s, t = datetime.fromisoformat(e["start"]), datetime.fromisoformat(e["end"])
        day = ("wednesday 5/31", "thursday 6/1", "friday 6/2")[(s - gen.DAY0).days]
        if s.hour <= 12 < t.hour and (t - s).seconds <= 4 * 3600:
            return f"{day} around midday ({_clock(s)}-{_clock(t)})"
        return f"{day} {_clock(s)}-{_clock(t)}"

    def turn(self):
        if not self.playing():
            return []
        if not self.opened:
            self.opened = True
            self.inbox = []
            return [self.say(self.rng.choice(MUST).format(when=self.when()) + ". " + self._info(None))]
        p = self.new_proposal()
        if p is not None and self.must()["id"] in p["breakdown"]["conflicts"] and self.rejected_for_it < 3:
            self.answered = p["id"]
            self.rejected_for_it += 1
            self.inbox = []
            return [self.command("reject"), self.say(self.rng.choice(CLASH).format(when=self.when()), first=False)]
        return SimUserBrain.decide(self)


class Deferrer(Person):
    name = "person-deferrer"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.deferred = False

    def turn(self):
        if not self.playing():
            return []
        if not self.opened:
            self.opened = True
            return [self.say(self.rng.choice(PLAIN))]
        if self.new_proposal() is None and self.inbox and not self.deferred:
            self.inbox = []
            self.deferred = True
            return [self.say(self.rng.choice(DEFER))]
        if self.new_proposal() is None and self.inbox and not self.told_all:
            self.inbox = []
            self.told_all = True
            return [self.say(self._info(None))]
        return SimUserBrain.decide(self)


class Rejecter(Person):
    name = "person-rejecter"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.reason = None

    def turn(self):
        if not self.playing():
            return []
        if self.reason and self.new_proposal() is None and any("?" in t for t in self.inbox):
            self.inbox = []
            reason, self.reason = self.reason, None
            return [self.say(reason)]
        p = self.new_proposal()
        if p is not None:
            self.inbox = []
            self.answered = p["id"]
            moves = self._judge(p)
            said = [m for m in moves if isinstance(m, Chat)]
            self.reason = said[0].text if said else None
            return [m for m in moves if isinstance(m, Command)]
        return SimUserBrain.decide(self)


class Terse(Person):
    name = "person-terse"

    def _info(self, limit):
        v = self.view
        cal = sorted((e for e in v["calendar"] if not e["shared"] or e["importance"] >= 5),
                     key=lambda e: -e["importance"])
        parts = [f"busy {self._event(e).replace('importance ', '(').replace('/10', '')}" for e in cal[:4]]
        if v.get("prefs"):  # only when the page shows the weights (show_weights)
            parts.append(f"price {v['prefs']['price_pref']}/20")
        text = ". ".join(parts)
        return " ".join(typo(w, self.rng) for w in text.lower().split(" "))


PEOPLE = {b.name: b for b in (Person, AllAtOnce, Asker, Must, Deferrer, Rejecter, Terse)}
