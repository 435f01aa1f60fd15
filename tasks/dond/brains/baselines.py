"""The paper-free baselines.

`greedy`: asks for everything it values (items worth nothing to it are given away), lowers its demand by one point
every few rounds down to a floor of 6 of its 10, accepts an offer at least as good as its current demand, and only
in the last round takes any deal worth something to it (a deal beats no deal).

`fair-split`: proposes the split closest to an equal division of its own values, never one it envies (a share
worth at least 5 of its 10), giving away what is worthless to it; after a rejection it moves to the next such split;
it accepts any offer it does not envy.
"""
from __future__ import annotations

from .. import items as I
from .base import DondBrain

GREEDY_FLOOR = 6      # the least of its 10 points greedy asks for before the last round
GREEDY_PATIENCE = 3   # rounds between its one-point concessions


class GreedyBrain(DondBrain):
    name = "greedy"

    def demand(self) -> int:
        top = self.u(self.counts)
        conceded = (int(self.view.get("round", 1)) - 1) // GREEDY_PATIENCE
        return max(min(GREEDY_FLOOR, top), top - conceded)

    def proposal(self) -> tuple:
        """The split worth at least the demand that leaves the partner the most items (then the most for me)."""
        need = self.demand()
        pool = [s for s in I.all_splits(self.counts) if self.u(s) >= need]
        return min(pool, key=lambda s: (sum(s), -self.u(s)))

    def decide(self):
        offer = self.open_offer()
        if offer is not None:
            if self.u(offer) >= self.demand() or (self.rounds_left() <= 0 and self.u(offer) > 0):
                return self.fresh("Deal.", "OK, deal.", "Fine, I accept."), ("accept",)
        split = self.proposal()
        if offer is None and self.my_open_offer() == split:
            return self.fresh("My offer stands.", "That is still my offer.", "I am waiting for your answer."), None
        line = self.fresh(f"{self.deal_text(split)}.", f"I need {I.describe(split)}; the rest is yours.",
                          f"My offer: {self.deal_text(split)}.")
        return line, ("propose", split)


class FairSplitBrain(DondBrain):
    name = "fair-split"

    def candidates(self) -> list:
        """Splits I do not envy, closest to equal first, then the fewest items for me."""
        pool = [s for s in I.all_splits(self.counts) if self.ef_for_me(s)]
        return sorted(pool, key=lambda s: (self.u(s) - self.u(I.rest(self.counts, s)), sum(s)))

    def proposal(self) -> tuple:
        tried, pool = self.offers_by("me"), self.candidates()
        for s in pool:
            if s not in tried:
                return s
        return pool[len(tried) % len(pool)]  # every one tried: go round again

    def decide(self):
        offer = self.open_offer()
        if offer is not None and self.ef_for_me(offer):
            return self.fresh("That is fair, deal.", "Fair enough, I accept.", "OK."), ("accept",)
        if offer is None and self.my_open_offer() is not None:
            return self.fresh("My offer stands.", "I think my offer is fair.", "Waiting for your answer."), None
        split = self.proposal()
        line = self.fresh(f"Let's split it fairly: {self.deal_text(split)}.", f"How about {self.deal_text(split)}?",
                          f"Another fair split: {self.deal_text(split)}.")
        return line, ("propose", split)
