"""The planner assistant ("planner", no LLM; the default).

It reads every user line (`language.read`) into a belief over the hidden preferences and weights
(`belief.Belief`), asks about what it has not heard yet (budget, food, places, travel, the rest; two topics per
message), and proposes the best full itinerary under its belief (exact argmax over all ordered triples) once the
user says that is all, after three rounds of questions, or when the word budget runs short. A rejection's reason
raises the weight of what it names, and the next proposal skips every rejected itinerary. It answers every user
line (never stalls) and says nothing when nothing new arrived (never spams).
"""
from __future__ import annotations

import itertools
from typing import Optional

from tasks.core import Brain, ChatShown, Message, View

from ..parse import format_itinerary
from . import language
from .belief import Belief

TOPICS = [
    ("budget", ("budget",), "what's your budget for the day?"),
    ("food", ("feature:cuisine", "feature:vegan options", "feature:vegetarian options", "feature:ambience"),
     "any food wishes (diet, cuisine, vibe)?"),
    ("places", ("want_to_go", "at_least_one"), "any places or kinds of places you want to see?"),
    ("distance", ("distance",), "do you mind travelling between stops?"),
    ("other", (), "anything else: kids, a group, parking, reservations, live music, views, wifi, "
                            "ratings, touristy or not?"),
]
MAX_QUESTION_ROUNDS = 5
MORE = "anything else i should know?"


class PlannerBrain(Brain):
    name = "planner"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.view: Optional[dict] = None
        self.belief: Optional[Belief] = None
        self.inbox: list[str] = []
        self.asked: set = set()
        self.rounds = 0
        self.enough = False
        self.seen_rejections: set = set()
        self.reacting = False      # the next user line is about the last proposal
        self.proposed = 0
        self.errors = 0

    # --- observing ----------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.data.get("sites") is not None:
            self.view = effect.data
            if self.belief is None:
                self.belief = Belief(effect.data["sites"], {"distance": effect.data.get("distance", "haversine")})
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            self.inbox.append(effect.text)
        elif isinstance(effect, Message) and effect.to == self.seat and effect.kind == "error":
            self.errors += 1

    def _over(self) -> bool:
        v = self.view
        return v is None or v.get("result") is not None or (v.get("core") or {}).get("phase") == "over"

    def say(self, text: str, first: bool = True):
        """A chat line cut to the words left (a word budget refuses longer lines)."""
        left = (self.view or {}).get("words_left")
        if left is not None:
            words = text.split()
            if len(words) > max(0, left - 25):
                text = " ".join(words[:max(1, left - 25)])
        return super().say(text, first)

    # --- acting -------------------------------------------------------------------------------------------------
    def act(self):
        if self._over() or self.belief is None:
            return []
        v = self.view
        lines, self.inbox = self.inbox, []
        rejected = [p for p in v.get("proposals", []) if p["status"] == "rejected" and p["full"]]
        fresh_reject = [p for p in rejected if p["id"] not in self.seen_rejections]
        self.seen_rejections |= {p["id"] for p in rejected}
        if fresh_reject:
            self.reacting = True
        new_keys = 0
        for text in lines:
            new_keys += self.belief.learn(language.read(text, self.belief.sites), reaction=self.reacting)
            self.enough = self.enough or language.enough(text)
        if lines:
            self.reacting = False
        if v.get("pending") is not None:
            return []  # waiting for the user's answer to our full proposal
        if v.get("final"):  # no words left: the final proposal, whoever's turn it is
            return [self.command("propose", self._itinerary_text(rejected))]
        if v.get("turns_mode") == "alternate" and v.get("turn") != "me":
            return []
        my_turn = v.get("turns_mode") == "alternate" and v.get("turn") == "me"
        if not lines and not fresh_reject and not my_turn:
            return []
        left = v.get("words_left")
        short = left is not None and left < 60
        if fresh_reject or self.enough or short or self.rounds >= MAX_QUESTION_ROUNDS or \
                (self.rounds >= 1 and lines and new_keys == 0):
            return self._propose(rejected)
        question = self._questions()
        self.rounds += 1
        opener = "got it. " if lines else ""
        if left is not None:
            question = "what matters most to you?"
        return [self.say(opener + question)]

    def _questions(self) -> str:
        heard = {":".join(str(x) for x in k[:2]) for k in self.belief.heard} | {k[0] for k in self.belief.heard}
        open_topics = [(name, q) for name, keys, q in TOPICS
                       if name not in self.asked and not any(k in heard for k in keys)]
        pick = open_topics[:2]
        for name, _ in pick:
            self.asked.add(name)
        return " and ".join(q for _, q in pick) or MORE

    def _itinerary(self, rejected: list) -> list[int]:
        # with a word budget the user may never get to tell everything: guess the rest from the usual preferences
        self.belief.prior = self.view.get("words_left") is not None and not self.enough
        # a rejected itinerary in another order is no better: skip every order of its sites
        exclude = {perm for p in rejected for perm in itertools.permutations(p["slots"])}
        return self.belief.best(exclude)

    def _itinerary_text(self, rejected: list) -> str:
        return format_itinerary(self._itinerary(rejected), [s["name"] for s in self.belief.sites])

    def _propose(self, rejected: list) -> list:
        slots = self._itinerary(rejected)
        self.proposed += 1
        sites = self.belief.sites
        names = [sites[s]["name"] for s in slots]
        price = sum(sites[s]["price"] for s in slots)
        card = self.belief.explain(slots)
        miles = sum(d for d in card["legs"] if d is not None)
        pitch = (f"how about {names[0]}, then {names[1]}, then {names[2]}? about ${price} in all and "
                 f"{miles:.1f} miles of travel.")
        if self.proposed > 1:
            pitch = "ok, a new plan: " + pitch
        moves = [self.command("propose", format_itinerary(slots, [s["name"] for s in sites]))]
        left = self.view.get("words_left")
        if not self.view.get("final") and (left is None or self.view.get("turns_mode") == "alternate"):
            moves.append(self.say(pitch, first=False))  # with a word budget the proposal speaks for itself
        return moves
