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
from tasks.core.discipline import Discipline

from ..parse import format_itinerary
from . import answers, language
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
# variants so that no line is said twice in a game (the discipline refuses a repeat; then the planner proposes)
MORE = ("anything else i should know?", "is there anything else that matters to you?",
        "one last thing: anything else i should keep in mind?")
REASON = ("what should i change?", "what didn't work for you there?", "tell me what bothers you and i'll fix it.")
OPENERS = ("got it. ", "thanks! ", "ok, noted. ", "great. ", "")
ASK_AGAIN = "here's a first plan, and so i can pick better: what matters most to you: good food, sights, a low price " \
    "or short trips?"
HELLO = ("sure, happy to help!", "of course!", "sure!")
# a first message with this many wishes is all the person meant to say (people who paste their whole list and then
# wait): propose at once instead of asking on
RICH = 6
# "yes", "sounds great", "i do!": a short answer that takes up what was just asked or proposed
AFFIRM = re.compile(r"^\W*(yes|yeah|yep|yup|sure|ok|okay|i do|i would|i'?d love|definitely|absolutely|perfect|great|"
                    r"love (it|that)|i like (it|that)|(that|this|it)?'?s? ?(sounds|looks|would be|is) (good|great|"
                    r"perfect|lovely|nice|amazing|fine|wonderful))\b", re.I)


class PlannerBrain(Brain):
    name = "planner"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
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
        self.d = Discipline()  # no line twice, no waiting on an unanswered question, every question answered
        self.cap: Optional[int] = None  # a budget the user said as a limit: every plan keeps to it where one can
        self.reasked = False  # a user who deferred ("you pick") was asked once more, differently
        self.told_out: set = set()  # places we said the budget leaves out

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
        self.d.said(text)
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
        new_keys, deferred = 0, False
        for text, context, reaction, person in lines:
            mentions = language.read(text, self.belief.sites) + self._taken_up(text, context)
            told = self.belief.learn(mentions, reaction=reaction, person=person)
            new_keys += told
            self._limit(text, mentions, reaction)
            defer = language.enough(text)
            deferred |= defer and not mentions  # a bare "you pick" (not "that's all" after some wishes)
            self.enough = self.enough or defer
            self.d.heard(text, told=told > 0 or defer or bool(mentions))
        pending = v.get("pending")
        if pending is not None:
            # the user's answer to our full proposal is theirs to give; their questions about it are ours. A reason
            # typed after a bare Reject (its plan already replaced) brings a plan that heeds it.
            said = self._answers(pending["slots"], rejected)
            if new_keys and not said:
                if self._itinerary(rejected) != list(pending["slots"]):
                    return self._propose(rejected)
                card = self.belief.explain(list(pending["slots"]))
                line = self.d.pick(f"got it: the plan above already heeds that ({sum(d for d in card['legs'] if d):.1f} "
                                   f"miles of travel, ${card['price']}).", "noted: the plan above still looks best.")
                return [self.say(line)] if line else []
            return said
        if v.get("final"):  # no words left: the final proposal, whoever's turn it is
            return [self.command("propose", self._itinerary_text(rejected))]
        if v.get("turns_mode") == "alternate" and v.get("turn") != "me":
            return []
        my_turn = v.get("turns_mode") == "alternate" and v.get("turn") == "me"
        if not lines and not fresh_reject and not my_turn:
            return []
        left = v.get("words_left")
        short = left is not None and left < 60
        last = (rejected[-1]["slots"] if rejected else None)
        said = self._answers(last, rejected) if lines else []
        if fresh_reject and not lines and not short and v.get("turns_mode") != "alternate":
            # a bare Reject: the next plan now (the person may never type a reason), asking what to change beside it
            return self._propose(rejected, ask=self.d.pick(*REASON))
        if deferred and not self.reasked and len(self.belief.heard) < 3 and not short and left is None:
            # "you pick" with little known: a plan to click (the person may say no more) and one more question, put
            # differently; what comes back revises the plan
            self.reasked, self.enough = True, False
            return said + self._propose(rejected, ask=self.d.pick(ASK_AGAIN), first=not said)
        rich = self.rounds == 0 and new_keys >= RICH
        if fresh_reject or self.revise or self.enough or short or rich or self.rounds >= MAX_QUESTION_ROUNDS or \
                (self.rounds >= 1 and lines and new_keys == 0) or not self.d.may_ask():
            self.revise = False
            return said + self._propose(rejected, first=not said)
        question = self._questions()
        if question is None:
            return said + self._propose(rejected, first=not said)
        self.rounds += 1
        opener = self.d.pick(*[o + question for o in OPENERS]) if lines else question
        if left is not None:
            opener = self.d.pick("what matters most to you?", "anything else that matters?")
        if opener is None:
            return said + self._propose(rejected, first=not said)
        return said + [self.say(opener, first=not said)]

    def _limit(self, text: str, mentions: list, reaction: bool) -> None:
        """A budget said as a limit ("under $30 total", "still $85! my budget is $30") binds the next plans; a
        place we said the budget leaves out, asked for again, wins over the budget (the person chose)."""
        if self.cap is not None and any(m.kind == "want_to_go" and m.good == [True] and set(m.sites) & self.told_out
                                        for m in mentions):
            self.cap = None
            return
        for m in mentions:
            if m.kind != "budget" or m.budget is None or m.neutral:
                continue
            # the sentence that says it ("we have $40 for the whole day, no more"), not the whole message (a
            # "would be nice" elsewhere in it says nothing about the budget)
            said = next((c for c in re.split(r"(?<!\d)[.!?;\n]+|[.!?;\n]+(?!\d)", text.lower()) if str(m.budget) in c),
                        text.lower())
            if not language.LOW.search(said) and (reaction or answers.HARD_BUDGET.search(said) or self.cap == m.budget):
                self.cap = m.budget

    def _answers(self, slots, rejected: list) -> list:
        """Answer the user's open questions, grounded in the plan they are about (each answer said once)."""
        owed = self.d.owed()
        if not owed:
            return []
        self.d.answered()
        exclude = self._excluded(rejected)
        texts = [answers.answer(q, self.belief, slots, exclude) if slots else self.d.pick(*HELLO) for q in owed]
        text = " ".join(dict.fromkeys(t for t in texts if t))
        if not text or not self.d.fresh(text):
            text = self.d.pick(text + " (as i said)", "i answered that just above; tell me what to change.")
        return [self.say(text)] if text else []

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

    def _questions(self) -> Optional[str]:
        heard = {":".join(str(x) for x in k[:2]) for k in self.belief.heard} | {k[0] for k in self.belief.heard}
        open_topics = [(name, q) for name, keys, q in TOPICS
                       if name not in self.asked and not any(k in heard for k in keys)]
        pick = open_topics[:2]
        for name, _ in pick:
            self.asked.add(name)
        return " and ".join(q for _, q in pick) or self.d.pick(*MORE)

    def _itinerary(self, rejected: list) -> list[int]:
        # with a word budget the user may never get to tell everything: guess the rest from the usual preferences
        self.belief.prior = self.view.get("words_left") is not None and not self.enough
        # a rejected itinerary in another order is no better: skip every order of its sites
        exclude = self._excluded(rejected)
        if self.cap is not None:
            fit = self.belief.best(exclude, max_price=self.cap)
            return fit if fit is not None else self.belief.least_over(exclude)
        return self.belief.best(exclude)

    @staticmethod
    def _excluded(rejected: list) -> set:
        return {perm for p in rejected for perm in itertools.permutations(p["slots"])}

    def _itinerary_text(self, rejected: list) -> str:
        return format_itinerary(self._itinerary(rejected), [s["name"] for s in self.belief.sites])

    def _propose(self, rejected: list, ask: Optional[str] = None, first: bool = True) -> list:
        slots = self._itinerary(rejected)
        self.proposed += 1
        sites = self.belief.sites
        names = [sites[s]["name"] for s in slots]
        price = sum(sites[s]["price"] for s in slots)
        card = self.belief.explain(slots)
        miles = sum(d for d in card["legs"] if d is not None)
        cost = "all free" if price == 0 else f"about ${price} in all"
        pitch = f"how about {names[0]}, then {names[1]}, then {names[2]}? {cost} and {miles:.1f} miles of travel."
        if self.cap is not None:
            pitch += (f" that keeps within your ${self.cap}." if price <= self.cap else
                      f" nothing fits under ${self.cap}, sorry: this is the least over it i can find.")
            left_out = [n for n in answers.out_of_reach(self.belief, self.cap) if n not in self.told_out]
            if left_out:  # said once per place: the budget leaves it out, and the person may choose it anyway
                self.told_out.add(left_out[0])
                pitch += (f" {left_out[0]} can't fit your ${self.cap} (at least "
                          f"${answers.cheapest_with(self.belief, left_out[0])} with it); say so if it's worth it.")
        if self.proposed > 1:
            pitch = "ok, a new plan: " + pitch
        if ask:
            pitch += " " + ask
        self.mine.add(tuple(slots))
        moves = [self.command("propose", format_itinerary(slots, [s["name"] for s in sites]), first=first)]
        left = self.view.get("words_left")
        if not self.view.get("final") and (left is None or self.view.get("turns_mode") == "alternate") and \
                self.d.fresh(pitch):
            moves.append(self.say(pitch, first=False))  # with a word budget the proposal speaks for itself
        return moves
