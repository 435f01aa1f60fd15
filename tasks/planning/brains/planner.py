"""The planner assistant ("planner", no LLM; the default).

It reads every user line (`language.read`) into a belief over the hidden preferences and weights
(`belief.Belief`), asks about what it has not heard yet (budget, food, places, travel, the rest; two topics per
message), and proposes the best full itinerary under its belief (exact argmax over all ordered triples) once the
user says that is all, after three rounds of questions, or when the word budget runs short. A rejection's reason
raises the weight of what it names, and the next proposal skips every rejected itinerary; a Reject that comes
without its reason (a person clicks before typing) gets "what should i change?" first. A short "yes" takes up
what was just asked or proposed by someone else in this seat (a human assistant whose dialogue it continues in
prompted self-play): "do you like views?" "i do!" is a wish for views; the people's lines of a dialogue it takes
over weigh the generator's mean (a person never sees the weights). It answers every user
line (never stalls) and says nothing when nothing new arrived (never spams).
"""
from __future__ import annotations

import itertools
import re
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
REASON = "ok! what should i change?"
# "yes", "sounds great", "i do!": a short answer that takes up what was just asked or proposed
AFFIRM = re.compile(r"^\W*(yes|yeah|yep|yup|sure|ok|okay|i do|i would|i'?d love|definitely|absolutely|perfect|great|"
                    r"love (it|that)|i like (it|that)|(that|this|it)?'?s? ?(sounds|looks|would be|is) (good|great|"
                    r"perfect|lovely|nice|amazing|fine|wonderful))\b", re.I)


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
        self.answered: set = set()   # rejected proposals whose reason we have read
        self.proposed = 0
        self.errors = 0
        # what the user's next line answers: ("line", a question from this seat that was not ours, e.g. the human
        # assistant's in a replayed prefix) or ("proposal", slots of a proposal we did not make)
        self.context: Optional[tuple] = None
        self.said: set = set()
        self.mine: set = set()
        self.props_seen = 0
        self.revise = False  # we asked why a proposal was rejected: the answer brings the new plan

    # --- observing ----------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.data.get("sites") is not None:
            self.view = effect.data
            props = effect.data.get("proposals") or []
            if len(props) > self.props_seen:
                self.props_seen = len(props)
                if tuple(props[-1]["slots"]) not in self.mine:
                    self.context = ("proposal", list(props[-1]["slots"]))
            if self.belief is None:
                rules = effect.data.get("rules") or {}
                self.belief = Belief(effect.data["sites"], {"distance": effect.data.get("distance", "haversine"),
                                                            "keys": rules.get("keys", "fixed")})
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            # the first line after a rejection is its reason: what it names matters more than we thought
            last = ((self.view or {}).get("proposals") or [None])[-1]
            reaction = bool(last) and last["status"] == "rejected" and last["id"] not in self.answered
            if reaction:
                self.answered.add(last["id"])
            self.inbox.append((effect.text, self.context, reaction, False))
            self.context = None  # a line answers what came just before it, once
        elif isinstance(effect, ChatShown) and effect.text not in self.said:
            self.context = ("line", effect.text)
        elif isinstance(effect, Message) and effect.to == self.seat and effect.kind == "error":
            self.errors += 1

    def take_over(self) -> None:
        """Agents take over a replayed human dialogue (prompted self-play): every line not yet read was a
        person's."""
        self.inbox = [(text, context, reaction, True) for text, context, reaction, _ in self.inbox]

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
        self.said.add(text)
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
        new_keys = 0
        for text, context, reaction, person in lines:
            mentions = language.read(text, self.belief.sites) + self._taken_up(text, context)
            new_keys += self.belief.learn(mentions, reaction=reaction, person=person)
            self.enough = self.enough or language.enough(text)
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
        if fresh_reject and not lines and not short and v.get("turns_mode") != "alternate":
            # a person's Reject arrives before their reason (the simulated user sends both at once): ask for it
            # rather than guess a new plan the reason would overturn
            self.revise = True
            return [self.say(REASON)]
        if fresh_reject or self.revise or self.enough or short or self.rounds >= MAX_QUESTION_ROUNDS or \
                (self.rounds >= 1 and lines and new_keys == 0):
            self.revise = False
            return self._propose(rejected)
        question = self._questions()
        self.rounds += 1
        opener = "got it. " if lines else ""
        if left is not None:
            question = "what matters most to you?"
        return [self.say(opener + question)]

    def _taken_up(self, text: str, context: Optional[tuple]) -> list:
        """A short yes to a question or a proposal: what it named is wanted too ("do you like views?" "i do!"; "the
        Dive has live music, would you like to go?" "yes"). Never a budget (a price said about a place is not the
        user's budget), and never a change of mind about a wish already heard."""
        if context is None or len(text.split()) > 12 or not AFFIRM.search(text):
            return []
        if context[0] == "proposal":
            names = [self.belief.sites[s]["name"] for s in context[1] if s is not None]
            return [language.Mention("want_to_go", 3.0, sites=[n], good=[True], hint=True) for n in names]
        out = [m for m in language.read(context[1], self.belief.sites) if m.kind != "budget" and not m.neutral]
        for m in out:
            m.describes = m.hint = True
        return out

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
        cost = "all free" if price == 0 else f"about ${price} in all"
        pitch = f"how about {names[0]}, then {names[1]}, then {names[2]}? {cost} and {miles:.1f} miles of travel."
        if self.proposed > 1:
            pitch = "ok, a new plan: " + pitch
        self.mine.add(tuple(slots))
        moves = [self.command("propose", format_itinerary(slots, [s["name"] for s in sites]))]
        left = self.view.get("words_left")
        if not self.view.get("final") and (left is None or self.view.get("turns_mode") == "alternate"):
            moves.append(self.say(pitch, first=False))  # with a word budget the proposal speaks for itself
        return moves
