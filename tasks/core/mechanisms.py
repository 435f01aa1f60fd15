"""Shared game mechanisms that tasks configure instead of re-writing: proposals, submissions and simultaneous moves
(turns, phases and budgets are in turns.py).

All of them hold plain data only, so a match can deep-copy them for rollback and rebuild them by replay: no locks,
no clocks (the caller passes the time as `t`, in seconds), and no callables except the canonical-form functions a
`SubmitGate` is given. Moves the rules refuse raise `RuleError`, which the match turns into a private message to the
sender; a mechanism checks everything before it changes anything, so a refused move leaves it as it was.

Overview (details in each class):
  ProposalCycle  propose / agree / reject / withdraw; binding or advisory proposals; who must answer.
  SubmitGate     the game completes when every seat submitted the same answer (per-seat canonical forms).
  CommitReveal   simultaneous moves: commit privately, reveal together, defaults after a deadline.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Mapping, Optional, Sequence, Union

from .wording import join_names, name_of, who_to_wait_for


class RuleError(Exception):
    """A move the rules do not allow. The message is shown to the player who made it."""


def _same(value: Any) -> Any:
    return value


# ----------------------------------------------------------------------------------------------------------------
# Proposal cycle

ADVISORY_NEEDS_NO_ANSWER = "That proposal is only a suggestion; it needs no answer."


@dataclass
class Proposal:
    id: int
    by: str
    value: Any
    kind: str = "proposal"
    accepted_by: list = field(default_factory=list)
    advisory: bool = False  # a suggestion: shown, never answered
    rejected_by: Optional[str] = None  # set on the proposal `reject` returns


class ProposalCycle:
    """propose / agree / reject / withdraw for any number of seats.

    proposers: seats allowed to propose (default: all).
    responders: who answers a proposal:
        "others"  every seat except the proposer must agree (the default);
        "any"     the first answer of another seat decides;
        a tuple/list of seats: all of them (except the proposer, if listed) must agree, e.g. DialOp Mediation's
                  ("user1", "user2") with proposers=("assistant",).
        In every mode one reject clears the proposal.
    names: optional seat -> display name, used in the messages of refusals.

    A binding proposal (`pending`) replaces the pending one: a counter-proposal implicitly declines the old one,
    which is how people negotiate in chat. An advisory proposal (`propose(..., advisory=True)`, e.g. DialOp
    Planning's partial itineraries) is kept apart in `advisory`: it replaces only the previous advisory one, leaves
    the pending binding proposal alone, and cannot be answered.
    Proposal ids are unique across both kinds, so a page can answer a specific one (`agree(seat, id=...)`).
    """

    def __init__(self, seats: Iterable[str], proposers: Optional[Iterable[str]] = None,
                 responders: Union[str, Sequence[str]] = "others", names: Optional[Mapping[str, str]] = None):
        self.seats = tuple(seats)
        self.proposers = tuple(proposers) if proposers is not None else self.seats
        if isinstance(responders, str):
            if responders not in ("others", "any"):
                raise ValueError("responders must be 'others', 'any' or a sequence of seats")
            self.responders: Union[str, tuple[str, ...]] = responders
        else:
            rs = tuple(responders)
            unknown = [r for r in rs if r not in self.seats]
            if not rs or unknown:
                raise ValueError(f"responders must be seats of this game (unknown: {unknown})")
            for p in self.proposers:
                if not [r for r in rs if r != p]:
                    raise ValueError(f"nobody would answer the proposals of {p!r}")
            self.responders = rs
        self.names = dict(names) if names else None
        self.pending: Optional[Proposal] = None
        self.advisory: Optional[Proposal] = None
        self._next_id = 1

    def needed(self, prop: Proposal) -> list[str]:
        """The seats that may answer `prop` (all of them must agree, unless responders is "any")."""
        pool = self.seats if isinstance(self.responders, str) else self.responders
        return [s for s in pool if s != prop.by]

    def propose(self, seat: str, value: Any, kind: str = "proposal",
                advisory: bool = False) -> tuple[Proposal, Optional[Proposal]]:
        """Returns (new proposal, the proposal it replaced or None). An advisory proposal replaces only the
        previous advisory one (returned as replaced); the pending binding proposal stays open."""
        if seat not in self.proposers:
            raise RuleError("You cannot make proposals in this game.")
        prop = Proposal(self._next_id, seat, value, kind, advisory=advisory)
        self._next_id += 1
        if advisory:
            replaced, self.advisory = self.advisory, prop
        else:
            replaced, self.pending = self.pending, prop
        return prop, replaced

    def _require_pending_for(self, seat: str, id: Optional[int] = None) -> Proposal:
        if self.advisory is not None and (id == self.advisory.id or (id is None and self.pending is None)):
            raise RuleError(ADVISORY_NEEDS_NO_ANSWER)
        if self.pending is None:
            raise RuleError("There is no open proposal to answer.")
        if id is not None and id != self.pending.id:
            raise RuleError("That proposal is no longer open.")
        prop = self.pending
        if prop.by == seat:
            who = who_to_wait_for(seat, self.waiting_for(), self.seats, self.names)
            raise RuleError(f"You cannot answer your own proposal; wait for {who}, or /withdraw it.")
        if seat not in self.needed(prop):
            raise RuleError("This proposal is not for you to answer.")
        return prop

    def agree(self, seat: str, id: Optional[int] = None) -> Optional[Proposal]:
        """Record an agreement. Returns the proposal when it is now accepted, else None (more answers needed).
        `id`, if given, must be the pending proposal's (a stale page button gets a refusal)."""
        prop = self._require_pending_for(seat, id)
        if seat in prop.accepted_by:
            raise RuleError("You have already agreed to this proposal.")
        prop.accepted_by.append(seat)
        if self.responders == "any" or all(s in prop.accepted_by for s in self.needed(prop)):
            self.pending = None
            return prop
        return None

    def reject(self, seat: str, id: Optional[int] = None) -> Proposal:
        """Decline the pending proposal: it is cleared, whoever else had agreed. Returns it (rejected_by = seat)."""
        prop = self._require_pending_for(seat, id)
        prop.rejected_by = seat
        self.pending = None
        return prop

    def withdraw(self, seat: str, advisory: bool = False) -> Proposal:
        """Take back one's own pending proposal (or, with advisory=True, one's own advisory one)."""
        current = self.advisory if advisory else self.pending
        if current is None or current.by != seat:
            raise RuleError("You have no open proposal to withdraw.")
        if advisory:
            self.advisory = None
        else:
            self.pending = None
        return current

    def waiting_for(self) -> list[str]:
        """Seats whose answer the pending proposal still needs (with responders "any": any one of these)."""
        if self.pending is None:
            return []
        return [s for s in self.needed(self.pending) if s not in self.pending.accepted_by]

    def clear(self) -> None:
        """Forget the pending and the advisory proposal (e.g. at the end of a phase)."""
        self.pending = None
        self.advisory = None


# ----------------------------------------------------------------------------------------------------------------
# Submission gate


class SubmitGate:
    """The game completes only when every seat has submitted the same answer (after canonicalisation).

    canon(value): the canonical form of an answer, the same for every seat (e.g. a tour up to direction).
    seat_canon(seat, value): instead, a canonical form that depends on who submits, e.g. Deal or No Deal's
        "what I get": seat A's {"books": 1} and seat B's {"books": 2} of 3 books are the same deal.
    Give at most one of them (neither: answers compare as they are).

    `submit` returns "complete", "waiting" (others have not submitted yet) or "mismatch" (another seat submitted a
    different answer; both stay submitted so either can re-submit).
    """

    def __init__(self, seats: Iterable[str], canon: Optional[Callable[[Any], Hashable]] = None,
                 seat_canon: Optional[Callable[[str, Any], Hashable]] = None):
        if canon is not None and seat_canon is not None:
            raise ValueError("give canon or seat_canon, not both")
        self.seats = tuple(seats)
        self.canon = canon if canon is not None else _same
        self.seat_canon = seat_canon
        self.submitted: dict[str, Any] = {}

    def key(self, seat: str, value: Any) -> Hashable:
        """The canonical form of `seat`'s answer `value` (what submissions are compared by)."""
        return self.seat_canon(seat, value) if self.seat_canon is not None else self.canon(value)

    def submit(self, seat: str, value: Any) -> str:
        if seat not in self.seats:
            raise RuleError("You do not submit an answer in this game.")
        mine = self.key(seat, value)  # before any change: a canonical form that raises leaves the gate as it was
        others = [self.key(s, v) for s, v in self.submitted.items() if s != seat]
        self.submitted[seat] = value
        if any(o != mine for o in others):
            return "mismatch"
        return "complete" if len(self.submitted) == len(self.seats) else "waiting"

    def withdraw(self, seat: str) -> bool:
        return self.submitted.pop(seat, None) is not None

    def reset(self) -> None:
        self.submitted.clear()

    def waiting_for(self) -> list[str]:
        return [s for s in self.seats if s not in self.submitted]


# ----------------------------------------------------------------------------------------------------------------
# Simultaneous moves


class CommitReveal:
    """Simultaneous moves: each seat commits a move privately; the moves are revealed together.

    A round is opened with `open(t)`; seats `commit` while it is open; `reveal()` closes it once every seat has a
    move and appends it to `history`. With a `deadline` (seconds after opening), `expire(t)` fills the missing
    moves with `default` once the time is up: either one value for every seat, or a dict with exactly the seats as
    keys (seat -> that seat's default). Commits at or after the deadline are refused (the default applies).
    recommit: allow changing one's committed move until the reveal (default: one commit per round).
    Nothing of another seat's move is visible before the reveal (`public_state`).
    """

    def __init__(self, seats: Iterable[str], deadline: Optional[float] = None, default: Any = None,
                 recommit: bool = False, names: Optional[Mapping[str, str]] = None):
        self.seats = tuple(seats)
        if deadline is not None and deadline <= 0:
            raise ValueError("deadline must be positive (seconds) or None")
        self.deadline = deadline
        self.default = default
        self.recommit = recommit
        self.names = dict(names) if names else None
        self.round = 0  # rounds opened so far; the current one while open
        self.is_open = False
        self.opened_at: Optional[float] = None
        self.moves: dict[str, Any] = {}  # this round's moves (secret until revealed)
        self.times: dict[str, float] = {}  # when each move was committed
        self.defaulted: list[str] = []  # seats whose move was filled by expire
        self.revealed: Optional[dict[str, Any]] = None  # this round's moves once revealed
        self.history: list[dict] = []  # revealed rounds: {"round", "opened_at", "moves", "defaulted", "times"}

    def open(self, t: float) -> int:
        """Start a new round at time t (an unrevealed round's moves are discarded). Returns the round number."""
        self.round += 1
        self.is_open = True
        self.opened_at = t
        self.moves, self.times, self.defaulted, self.revealed = {}, {}, [], None
        return self.round

    def closes_at(self) -> Optional[float]:
        """When the open round's time is up (None: no deadline or no open round)."""
        if not self.is_open or self.deadline is None:
            return None
        return self.opened_at + self.deadline

    def commit(self, seat: str, move: Any, t: float) -> None:
        if seat not in self.seats:
            raise RuleError("You do not make a move in this game.")
        if not self.is_open:
            raise RuleError("There is no move to make right now.")
        end = self.closes_at()
        if end is not None and t >= end:
            raise RuleError("Too late: the time for this move is up.")
        if seat in self.moves and not self.recommit:
            raise RuleError("You have already made your move for this round.")
        self.moves[seat] = move
        self.times[seat] = t

    def committed(self, seat: str) -> bool:
        return seat in self.moves

    def all_committed(self) -> bool:
        return all(s in self.moves for s in self.seats)

    def waiting_for(self) -> list[str]:
        """Seats that have not moved yet in the open round."""
        return [s for s in self.seats if s not in self.moves] if self.is_open else []

    def expire(self, t: float) -> list[str]:
        """Once t >= opened_at + deadline, give every seat without a move its default. Returns those seats
        (empty when there is no deadline, no open round, the time is not up, or everyone moved)."""
        end = self.closes_at()
        if end is None or t < end:
            return []
        per_seat = isinstance(self.default, dict) and set(self.default) == set(self.seats)
        filled = self.waiting_for()
        for s in filled:
            self.moves[s] = copy.deepcopy(self.default[s] if per_seat else self.default)
            self.times[s] = t
            self.defaulted.append(s)
        return filled

    def reveal(self) -> dict[str, Any]:
        """Close the round and return every seat's move ({seat: move}, in seat order)."""
        if not self.is_open:
            raise RuleError("There is no round to reveal." if self.revealed is None else
                            "This round has already been revealed.")
        if not self.all_committed():
            who = join_names(name_of(s, self.names) for s in self.waiting_for())
            raise RuleError(f"Not every move is in yet; waiting for {who}.")
        self.revealed = {s: self.moves[s] for s in self.seats}
        self.is_open = False
        self.history.append({"round": self.round, "opened_at": self.opened_at, "moves": dict(self.revealed),
                             "defaulted": list(self.defaulted), "times": dict(self.times)})
        return dict(self.revealed)

    def public_state(self, seat: Optional[str]) -> dict:
        """What `seat` may see: its own move, whether each seat has moved, and the moves only once revealed."""
        return {
            "round": self.round,
            "open": self.is_open,
            "closes_at": self.closes_at(),
            "committed": {s: s in self.moves for s in self.seats},
            "my_move": self.moves.get(seat) if seat is not None else None,
            "moves": dict(self.revealed) if self.revealed is not None else None,
            "defaulted": list(self.defaulted) if self.revealed is not None else [],
        }
