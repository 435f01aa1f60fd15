"""The default Deal-or-No-Deal agent `bayes` (no LLM): an exact posterior over the partner's values (belief.py).

Evidence: the partner's offers (formal or in plain English; each distinct offer counts once), its rejections of my
offers (the paper's reasons R1 / R2; a reason it gave in words counts; a counter-offer without /reject rejects my
standing offer too), and what it says about its own values ("hats are worthless to me").
Options: care (1), lam (1), gamma (1), beta (1), share ("order"; "none" says nothing about its values).

Policy. Envy-free means each side's share is worth ≥ 5 of its 10, so a deal that the partner will take is one whose
share for it is worth ≥ 5 to it, and the posterior gives that probability a(s) exactly. A split s scores
  a(s) · (my value of s + care · E[partner's value of its share | it accepts]),
halved for every time the partner already rejected s. With care = 0 this is the paper's rule (own value, weighted
by the chance of an envy-free deal); the default care = 1 seeks the envy-free deal with the largest total, which is
what two players who both refuse envy can best agree on (own value breaks ties). It never proposes a share it
envies, and never accepts one, until the last rounds, when any deal worth something beats no deal.

Accepting: an offer I do not envy is taken when its value (mine + care · the partner's expected) is at least what
trying my best alternative promises (a(s) · its value + (1 − a(s)) · 0.9 · the offer's value), less a margin that
grows with the rounds (concession), so two such agents converge instead of trading counter-offers.

Talk: the first line states its preference order truthfully (which type it values most per item, which are worth
nothing to it); it answers "what do you want?" with its offer, "what are hats worth to you?" with the truthful
order and no numbers, reads "you choose" as a request to propose, puts a person's acceptable plain-English offer in
as a formal offer, and never repeats a line.
"""
from __future__ import annotations

import re
from typing import Optional

from .. import items as I
from ..belief import Belief
from ..reader import read, reason_of
from .base import DondBrain, share_text

WHY = re.compile(r"\b(why|how come|what for)\b", re.I)
DEFER = re.compile(r"\b(whatever works|whatever you (want|like|think)|either is fine|i'?m easy)\b", re.I)
RETRY = 0.5        # a split the partner rejected counts this much less each time
FALLBACK = 0.9     # what an offer I turn down is still worth if my alternative fails (the partner may re-offer it)
CONCEDE = 0.25     # accept margin added per round after the third


def order_text(values, counts) -> str:
    """A truthful preference order per item, without numbers, in the form the reader parses back: 'Hats are worth
    the most to me, then books and balls.' / '..., then books, then balls; hats are worth nothing to me.'"""
    positive = sorted((k for k in range(len(counts)) if values[k] > 0), key=lambda k: -values[k])
    zeros = [I.PLURALS[k] for k in range(len(counts)) if values[k] == 0]
    groups: list[list[int]] = []
    for k in positive:  # types of equal value form one group
        if groups and values[groups[-1][0]] == values[k]:
            groups[-1].append(k)
        else:
            groups.append([k])
    names = [" and ".join(I.PLURALS[k] for k in g) for g in groups]
    if len(groups) == 1 and len(groups[0]) > 1:
        text = f"{names[0]} are worth the same to me"
    else:
        text = f"{names[0]} are worth the most to me" + "".join(f", then {n}" for n in names[1:])
    if zeros:
        text += f"; {' and '.join(zeros)} are worth nothing to me"
    return text[0].upper() + text[1:] + "."


def asked_values(r) -> list:
    """The value questions in a reading (types, None = the order in general): what the reader found, else, for a
    question it could not place that is not "why?" nor "what do you want?", the order ("which items matter most
    to you?")."""
    if r.ask_value:
        return list(r.ask_value)
    if r.question and not (r.ask_want or r.has_offer or r.defer or WHY.search(r.text)):
        return [None]
    return []


def asked(text: str, counts) -> dict:
    """What a person's line asks of this agent, as it reads it: why, want (an offer), values (types, None = the
    order), and whether it refuses, defers or agrees (tests/data/people/dond measures it)."""
    r = read(text, counts)
    return {"why": bool(WHY.search(text)), "want": r.ask_want, "values": asked_values(r), "no": r.no,
            "defer": r.defer or bool(DEFER.search(text)), "yes": r.yes and not r.no}


class BayesBrain(DondBrain):
    name = "bayes"

    def new_game(self, view):
        o = self.options
        self.care = float(o.get("care", 1.0))
        self.belief = Belief(view["counts"], lam=float(o.get("lam", 1.0)), gamma=float(o.get("gamma", 1.0)),
                             beta=float(o.get("beta", 1.0)))
        self.share_order = str(o.get("share", "order")) != "none"
        self.seen_partner: set = set()     # partner offers used as evidence (by index)
        self.seen_reject: set = set()      # my rejected offers used as evidence
        self.rejections: dict = {}         # my share -> times rejected
        self.text_offer: Optional[tuple] = None  # the partner's latest plain-English offer (my share)
        self.said_offers: set = set()              # partner offers already used as evidence (my share)
        self.readings: list = []
        self.told_order = False
        self.partial: Optional[dict] = None        # a plain-English offer that settles only some types
        self.trace: list = []                      # (round, posterior) at each decision, for the estimation bench

    def heard_line(self, text):
        if not self.view:
            return
        r = read(text, self.counts)
        self.readings.append(r)
        for kind, k, j in r.statements:
            self.belief.stated(kind, k, j)
        if r.has_offer:
            theirs, open_types = r.complete(self.counts)
            if theirs is not None:
                mine = I.rest(self.counts, theirs)
                self.text_offer = mine
                self.countered(mine)
                if mine not in self.said_offers:
                    self.said_offers.add(mine)
                    self.belief.proposed(mine)
            else:  # a partial offer: the types it settles, as my share ({type: count I get})
                fixed = {k: self.counts[k] - n for k, n in r.give_speaker.items()}
                fixed.update({k: n for k, n in r.give_listener.items() if k not in fixed})
                self.partial = fixed
        elif r.no and self.my_open_offer() is not None:
            self.belief.rejected(self.my_open_offer(), None, r.reason)
            self.rejections[self.my_open_offer()] = self.rejections.get(self.my_open_offer(), 0) + 1

    # --- evidence from the offers ---------------------------------------------------------------------------------
    def absorb_offers(self):
        offers = self.view.get("offers") or []
        for i, o in enumerate(offers):
            mine = tuple(o["mine"])
            if o["by"] == "partner" and i not in self.seen_partner:
                self.seen_partner.add(i)
                self.countered(mine, before=i)
                if mine not in self.said_offers:  # an offer said in words first counts once
                    self.said_offers.add(mine)
                    self.belief.proposed(mine)
            elif o["by"] == "me" and o["status"] == "rejected" and i not in self.seen_reject:
                self.seen_reject.add(i)
                later = [tuple(x["mine"]) for x in offers[i + 1:] if x["by"] == "partner"]
                self.belief.rejected(mine, later[-1] if later else None, reason_of(o.get("reason")))
                self.rejections[mine] = self.rejections.get(mine, 0) + 1

    def countered(self, theirs_for_me: tuple, before: Optional[int] = None) -> None:
        """A partner offer that differs from my standing one turns mine down (the game keeps mine standing unless
        they /reject it): count it once as a rejection, with their offer as the counter-offer."""
        offers = (self.view.get("offers") or [])[:before]
        mine = next((i for i in range(len(offers) - 1, -1, -1) if offers[i]["by"] == "me"), None)
        if mine is None or offers[mine]["status"] not in ("open", "replaced") or mine in self.seen_reject:
            return
        split = tuple(offers[mine]["mine"])
        if split == tuple(theirs_for_me):
            return
        self.seen_reject.add(mine)
        self.belief.rejected(split, theirs_for_me, None)
        self.rejections[split] = self.rejections.get(split, 0) + 1

    # --- evaluating splits ----------------------------------------------------------------------------------------
    def worth(self, s, given_accept: bool = True) -> float:
        """My value of s plus care × the partner's expected value of its share (given it accepts)."""
        theirs = I.rest(self.counts, s)
        given = (lambda v: I.utility(theirs, v) >= 5) if given_accept else None
        return self.u(s) + self.care * self.belief.expect(lambda v: I.utility(theirs, v), given)

    def score(self, s) -> float:
        a = self.belief.p_ef(s)
        return a * self.worth(s) * RETRY ** self.rejections.get(s, 0) if a > 0 else 0.0

    def allowed(self, s) -> bool:
        return self.ef_for_me(s) or (self.rounds_left() <= 1 and self.u(s) > 0)

    def best(self, partial: Optional[dict] = None) -> tuple:
        """The split to propose; `partial` ({type: my count}) keeps what the partner just settled in words when
        that leaves a split I may propose."""
        pool = [s for s in I.all_splits(self.counts) if self.allowed(s)] or list(I.all_splits(self.counts))
        pool = [s for s in pool if self.tidy(s) == s] or pool  # never ask for what I call worthless
        if partial:
            pool = [s for s in pool if all(s[k] == n for k, n in partial.items())] or pool
        return max(pool, key=lambda s: (round(self.score(s), 9), self.u(s), -sum(s)))

    def acceptable(self, offer) -> bool:
        if self.u(offer) <= 0:
            return False
        if not self.ef_for_me(offer):
            return self.rounds_left() <= 1  # a deal worth something beats no deal
        if self.rounds_left() <= 1:
            return True
        value = self.worth(offer, given_accept=False)
        margin = CONCEDE * max(0, int(self.view.get("round", 1)) - 3)
        for s in I.all_splits(self.counts):
            if s == offer or not self.allowed(s):
                continue
            a = self.belief.p_ef(s) * RETRY ** self.rejections.get(s, 0)
            if a * self.worth(s) + (1 - a) * FALLBACK * value > value + margin + 1e-9:
                return False
        return True

    # --- talking --------------------------------------------------------------------------------------------------
    def answers(self, readings) -> list[tuple]:
        """Truthful answers to value questions, the preference order, never numbers: one slot (several wordings)
        per question (`compose` takes the first not said yet). A question the reader could not place ("which
        items matter most to you?") gets the order."""
        out = []
        for r in readings:
            for k in asked_values(r):
                if k is None:
                    out.append(self.order_wordings())
                elif self.values[k] == 0:
                    name = I.PLURALS[k]
                    out.append((f"{name.capitalize()} are worth nothing to me.", f"I don't need the {name} at all.",
                                f"None of the {name} matter to me."))
                else:
                    out.append((self.compare_text(k), order_text(self.values, self.counts)))
        return out

    def order_wordings(self) -> tuple:
        top = max(range(3), key=lambda k: self.values[k])
        low = [I.PLURALS[k] for k in range(3) if k != top]
        unique = sum(v == self.values[top] for v in self.values) == 1
        return (order_text(self.values, self.counts),
                *((f"{I.PLURALS[top].capitalize()} matter most to me; {' and '.join(low)} less.",) if unique else ()),
                self.compare_text(top))

    def compare_text(self, k: int) -> str:
        """How type k compares with the others for me, truthfully, without numbers, in sentences the reader
        (and a person) reads back as they are meant."""
        v, name = self.values, I.PLURALS[k]
        parts = [f"{name} and {I.PLURALS[j]} are worth the same to me" for j in range(3) if j != k and v[j] == v[k]]
        parts += [f"{name} matter to me more than {I.PLURALS[j]}" for j in range(3) if v[j] < v[k]]
        parts += [f"{I.PLURALS[j]} matter to me more than {name}" for j in range(3) if v[j] > v[k]]
        text = "; ".join(parts)
        return "I'd rather not give numbers. " + text[0].upper() + text[1:] + "."

    def why_text(self, split) -> tuple:
        """Why this split, from what is true: it leaves me no worse off than the partner, what matters most to me,
        and what the partner gets."""
        rest = share_text(I.rest(self.counts, split))
        top = max(self.values)
        most = " and ".join(I.PLURALS[k] for k in range(3) if self.values[k] == top)
        fair = self.ef_for_me(split)
        return ((f"Because with {share_text(split)} I am no worse off than you, and you get {rest}." if fair else
                 f"Because {share_text(split)} is the least I can take, and you get {rest}."),
                f"Because {most} matter most to me, and {rest} is what I can give up.",
                f"It is the fairest split I see for both of us: I keep {share_text(split)}, you get {rest}.")

    def tidy(self, split) -> tuple:
        """`split` without the items I said (or would say) are worth nothing to me: they go to the partner."""
        return tuple(0 if self.values[k] == 0 else n for k, n in enumerate(split))

    def last_resort(self, split) -> tuple:
        """Wordings that are new whatever was said (the round number differs every round)."""
        r = int(self.view.get("round", 1))
        return (f"Round {r}: my offer is {share_text(split)} for me, the rest for you. Accept it, or tell me what "
                "you need.", f"Still round {r}: {self.deal_text(split)}. What would you change?")

    def decide(self):
        self.absorb_offers()
        self.trace.append((int(self.view.get("round", 1)), tuple(self.belief.p)))
        readings, self.readings = self.readings, []
        why_asked = any(WHY.search(r.text) for r in readings)
        slots = self.answers(readings)
        offer, told, partial = self.open_offer(), self.text_offer, self.partial
        self.text_offer, self.partial = None, None
        if offer is not None and self.acceptable(offer):
            return "Deal, I accept.", ("accept",)  # accepting is a lone click (the line is not sent)
        if told is not None and self.acceptable(told) and self.my_open_offer() != self.tidy(told):
            mine = self.tidy(told)
            kept = [I.PLURALS[k] for k in range(3) if told[k] != mine[k]]
            keep = f" Keep the {' and '.join(kept)}, they are worth nothing to me." if kept else ""
            line = self.compose(*slots, (f"OK, let's do that: {self.deal_text(mine)}.{keep} I've put it in as an "
                                         "offer, please accept it.",
                                         f"Agreed: {self.deal_text(mine)}.{keep} It is my offer now; please accept "
                                         "it.")) or self.compose(self.last_resort(mine))
            return line, ("propose", mine)
        split = self.best(partial)
        if not self.told_order and self.share_order:
            self.told_order = True
            if not any(s == self.order_wordings() for s in slots):  # not when a question was answered with it
                slots.append((order_text(self.values, self.counts),))
        answered = offer if offer is not None else told  # the partner's offer I turn down, formal or in words
        if answered is not None and answered != self.my_open_offer():
            slots.append(("That leaves me worse off than you.", "That would not be fair to me.",
                          "I can't take that, I'd be worse off than you.") if not self.ef_for_me(answered)
                         else ("I think we can both do better.", "We can both do better than that.",
                               "There is a better split for both of us."))
        elif partial:
            slots.append(("Fine with me for " + " and ".join(I.PLURALS[k] for k in sorted(partial)) + ".",))
        if why_asked:
            slots.append(self.why_text(split))
        if offer is None and self.my_open_offer() == split:
            if told == split or any(r.yes for r in readings):
                slots.append(("Great, please accept my offer to close the deal.",
                              "Then please click accept on my offer."))
            elif not why_asked:  # the answer to "why?" names the offer already
                slots.append((f"My offer stands: {self.deal_text(split)}.",
                              "Please accept my offer, or tell me what you would change.",
                              f"I still think this is fair: {self.deal_text(split)}."))
            return self.compose(*slots) or self.compose(self.last_resort(split)), None
        slots.append((f"How about this: {self.deal_text(split)}?",
                      f"My offer: {share_text(split)} for me, the rest for you.",
                      f"What about this: {self.deal_text(split)}?"))
        return self.compose(*slots) or self.compose(self.last_resort(split)), ("propose", split)
