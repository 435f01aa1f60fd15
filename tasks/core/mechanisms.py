"""Shared game mechanisms that tasks configure instead of re-writing: proposals, submissions, turns, budgets.

All of them hold plain data only, so a match can deep-copy them for rollback and rebuild them by replay.
Violations raise `RuleError`, which the match turns into a private message to the sender with no state change.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Optional


class RuleError(Exception):
    """A move the rules do not allow. The message is shown to the player who made it."""


# ----------------------------------------------------------------------------------------------------------------
# Proposal cycle


@dataclass
class Proposal:
    id: int
    by: str
    value: Any
    kind: str = "proposal"
    accepted_by: list = field(default_factory=list)


class ProposalCycle:
    """propose / agree / reject / withdraw for any number of seats.

    proposers: seats allowed to propose (default: all).
    responders: "others" (every seat except the proposer must agree) or "any" (the first other seat's answer
        decides, for three-party games with a mediator-style partner).
    A new proposal replaces the pending one: a counter-proposal implicitly declines the old one, which is how
    people negotiate in chat.
    """

    def __init__(self, seats: Iterable[str], proposers: Optional[Iterable[str]] = None, responders: str = "others"):
        self.seats = tuple(seats)
        self.proposers = tuple(proposers) if proposers is not None else self.seats
        if responders not in ("others", "any"):
            raise ValueError("responders must be 'others' or 'any'")
        self.responders = responders
        self.pending: Optional[Proposal] = None
        self._next_id = 1

    def propose(self, seat: str, value: Any, kind: str = "proposal") -> tuple[Proposal, Optional[Proposal]]:
        """Returns (new proposal, the proposal it replaced or None)."""
        if seat not in self.proposers:
            raise RuleError("You cannot make proposals in this game.")
        replaced = self.pending
        self.pending = Proposal(self._next_id, seat, value, kind)
        self._next_id += 1
        return self.pending, replaced

    def _require_pending_for(self, seat: str) -> Proposal:
        if self.pending is None:
            raise RuleError("There is no open proposal to answer.")
        if self.pending.by == seat:
            raise RuleError("You cannot answer your own proposal; wait for your partner, or /withdraw it.")
        return self.pending

    def agree(self, seat: str) -> Optional[Proposal]:
        """Record an agreement. Returns the proposal when it is now accepted, else None (more answers needed)."""
        prop = self._require_pending_for(seat)
        if seat in prop.accepted_by:
            raise RuleError("You have already agreed to this proposal.")
        prop.accepted_by.append(seat)
        needed = [s for s in self.seats if s != prop.by]
        if self.responders == "any" or all(s in prop.accepted_by for s in needed):
            self.pending = None
            return prop
        return None

    def reject(self, seat: str) -> Proposal:
        prop = self._require_pending_for(seat)
        self.pending = None
        return prop

    def withdraw(self, seat: str) -> Proposal:
        if self.pending is None or self.pending.by != seat:
            raise RuleError("You have no open proposal to withdraw.")
        prop, self.pending = self.pending, None
        return prop

    def clear(self) -> None:
        self.pending = None


# ----------------------------------------------------------------------------------------------------------------
# Submission gate


class SubmitGate:
    """The game completes only when every seat has submitted the same answer (after canonicalisation).

    `submit` returns "complete", "waiting" (others have not submitted yet) or "mismatch" (another seat submitted a
    different answer; both stay submitted so either can re-submit).
    """

    def __init__(self, seats: Iterable[str], canon: Callable[[Any], Hashable] = lambda v: v):
        self.seats = tuple(seats)
        self.canon = canon
        self.submitted: dict[str, Any] = {}

    def submit(self, seat: str, value: Any) -> str:
        self.submitted[seat] = value
        if len(self.submitted) < len(self.seats):
            others = [self.canon(v) for s, v in self.submitted.items() if s != seat]
            return "mismatch" if any(o != self.canon(value) for o in others) else "waiting"
        keys = {self.canon(v) for v in self.submitted.values()}
        return "complete" if len(keys) == 1 else "mismatch"

    def withdraw(self, seat: str) -> bool:
        return self.submitted.pop(seat, None) is not None

    def reset(self) -> None:
        self.submitted.clear()

    def waiting_for(self) -> list[str]:
        return [s for s in self.seats if s not in self.submitted]


# ----------------------------------------------------------------------------------------------------------------
# Turns


class TurnOrder:
    """Strict alternation over seats (e.g. one maze step each)."""

    def __init__(self, seats: Iterable[str], first: Optional[str] = None):
        self.seats = tuple(seats)
        self.current = first if first is not None else self.seats[0]
        if self.current not in self.seats:
            raise ValueError(f"unknown first seat {first!r}")

    def check(self, seat: str, what: str = "move") -> None:
        if seat != self.current:
            raise RuleError(f"It is not your turn to {what}; please wait for your partner.")

    def advance(self) -> str:
        i = self.seats.index(self.current)
        self.current = self.seats[(i + 1) % len(self.seats)]
        return self.current


class TurnBudget:
    """Counts turns per seat against a limit (e.g. 15 messages each). `None` = unlimited."""

    def __init__(self, seats: Iterable[str], limit: Optional[int]):
        self.limit = limit
        self.used = {s: 0 for s in seats}

    def spend(self, seat: str) -> None:
        if self.limit is not None and self.used[seat] >= self.limit:
            raise RuleError(f"You have used all {self.limit} of your turns.")
        self.used[seat] += 1

    def left(self, seat: str) -> Optional[int]:
        return None if self.limit is None else self.limit - self.used[seat]

    def exhausted(self) -> bool:
        return self.limit is not None and all(u >= self.limit for u in self.used.values())
