"""Shared game mechanisms that tasks configure instead of re-writing: proposals, submissions, simultaneous moves,
turns, phases and budgets.

All of them hold plain data only, so a match can deep-copy them for rollback and rebuild them by replay: no locks,
no clocks (the caller passes the time as `t`, in seconds), and no callables except the canonical-form functions a
`SubmitGate` is given. Moves the rules refuse raise `RuleError`, which the match turns into a private message to the
sender; a mechanism checks everything before it changes anything, so a refused move leaves it as it was.

Overview (details in each class):
  ProposalCycle  propose / agree / reject / withdraw; binding or advisory proposals; who must answer.
  SubmitGate     the game completes when every seat submitted the same answer (per-seat canonical forms).
  CommitReveal   simultaneous moves: commit privately, reveal together, defaults after a deadline.
  TurnOrder      strict alternation of moves.       ChatTurns  strict alternation of talk, with halt by agreement.
  Phases         named phases repeated for a number of rounds ("negotiate", "move") x k.
  TurnBudget     turns per seat against a limit.
  WordBudget     chat words against a dialogue-wide limit, with a forced final proposal (DialOp PSP).
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


# ----------------------------------------------------------------------------------------------------------------
# Turns and phases


class TurnOrder:
    """Strict alternation over seats (e.g. one maze step each). `names`: optional seat -> display name."""

    def __init__(self, seats: Iterable[str], first: Optional[str] = None, names: Optional[Mapping[str, str]] = None):
        self.seats = tuple(seats)
        self.current = first if first is not None else self.seats[0]
        if self.current not in self.seats:
            raise ValueError(f"unknown first seat {first!r}")
        self.names = dict(names) if names else None

    def check(self, seat: str, what: str = "move") -> None:
        if seat != self.current:
            who = who_to_wait_for(seat, [self.current], self.seats, self.names)
            raise RuleError(f"It is not your turn to {what}; please wait for {who}.")

    def advance(self) -> str:
        i = self.seats.index(self.current)
        self.current = self.seats[(i + 1) % len(self.seats)]
        return self.current


class ChatTurns(TurnOrder):
    """Strict alternation of who may talk, with an optional number of rounds and a halt by agreement.

    rounds: how many times each seat may talk (None: no limit); a full round is one message from every seat.
    Halting: any seat may ask to stop talking at any time (`halt`, which does not use its turn); the talk halts
    when every seat has asked, so in a two-seat game one asks and the other agrees by asking too. A request
    lapses when the seat that made it talks again (it chose to go on). `over` is True once halted or out of
    rounds; `restart` begins the next conversation (e.g. the next negotiation phase).
    """

    def __init__(self, seats: Iterable[str], first: Optional[str] = None, names: Optional[Mapping[str, str]] = None,
                 rounds: Optional[int] = None):
        super().__init__(seats, first, names)
        if rounds is not None and rounds < 1:
            raise ValueError("rounds must be at least 1 or None")
        self.first = self.current
        self.rounds = rounds
        self.said = 0  # messages in this conversation
        self.halt_requests: list[str] = []
        self.halted = False

    @property
    def over(self) -> bool:
        return self.halted or (self.rounds is not None and self.said >= self.rounds * len(self.seats))

    def check(self, seat: str, what: str = "talk") -> None:
        if self.halted:
            raise RuleError("The talking is over: everyone agreed to stop.")
        if self.over:
            raise RuleError(f"The talking is over: all {self.rounds} rounds have been used.")
        if seat != self.current:
            raise RuleError(f"It is not your turn to {what}; wait for {name_of(self.current, self.names)}.")

    def spoke(self, seat: str) -> str:
        """Check that `seat` may talk now, count its message and pass the turn. Returns the next seat."""
        self.check(seat)
        if seat in self.halt_requests:
            self.halt_requests.remove(seat)
        self.said += 1
        return self.advance()

    def halt(self, seat: str) -> bool:
        """`seat` asks to stop talking. Returns True when this request halts the talk (everyone has asked)."""
        if seat not in self.seats:
            raise RuleError("You are not part of this conversation.")
        if self.over:
            raise RuleError("The talking is already over.")
        if seat in self.halt_requests:
            waiting = [s for s in self.seats if s not in self.halt_requests]
            who = who_to_wait_for(seat, waiting, self.seats, self.names)
            raise RuleError(f"You have already asked to stop; waiting for {who} to agree.")
        self.halt_requests.append(seat)
        self.halted = all(s in self.halt_requests for s in self.seats)
        return self.halted

    def cancel_halt(self, seat: str) -> None:
        if self.halted or seat not in self.halt_requests:
            raise RuleError("You have no request to stop that could be taken back.")
        self.halt_requests.remove(seat)

    def restart(self, first: Optional[str] = None) -> None:
        """A new conversation: turns from `first` (default: the original first seat), no messages, no halt."""
        if first is not None and first not in self.seats:
            raise ValueError(f"unknown first seat {first!r}")
        self.current = first if first is not None else self.first
        self.said = 0
        self.halt_requests = []
        self.halted = False


class Phases:
    """Named phases in a fixed cycle, repeated for a number of rounds: Phases(["negotiate", "move"], rounds=3)
    goes negotiate, move, negotiate, move, negotiate, move, then `done`. rounds None: repeat forever.

    `phase` is the current name (None when done), `round` the 0-based round, `index` the position in `names`.
    """

    def __init__(self, names: Sequence[str], rounds: Optional[int] = None):
        self.names = tuple(names)
        if not self.names:
            raise ValueError("at least one phase")
        if rounds is not None and rounds < 1:
            raise ValueError("rounds must be at least 1 or None")
        self.rounds = rounds
        self.round = 0
        self.index = 0
        self.done = False

    @property
    def phase(self) -> Optional[str]:
        return None if self.done else self.names[self.index]

    def rounds_left(self) -> Optional[int]:
        """Rounds not finished yet, counting the current one (None: no limit)."""
        return None if self.rounds is None else self.rounds - self.round

    def advance(self) -> Optional[str]:
        """Go to the next phase (the next round after the last name). Returns the new phase, None when done."""
        if self.done:
            raise RuleError("The game has no more rounds.")
        self.index += 1
        if self.index == len(self.names):
            self.index = 0
            self.round += 1
            self.done = self.rounds is not None and self.round >= self.rounds
        return self.phase

    def skip_to(self, name: str) -> Optional[str]:
        """Advance until the phase is `name` (no change if it already is), e.g. to the move phase when the talk
        halts. Returns the new phase (None if the game ended on the way)."""
        if name not in self.names:
            raise ValueError(f"unknown phase {name!r}")
        if self.done:
            raise RuleError("The game has no more rounds.")
        while not self.done and self.phase != name:
            self.advance()
        return self.phase

    def state(self) -> dict:
        return {"phase": self.phase, "round": self.round, "rounds": self.rounds, "done": self.done}


# ----------------------------------------------------------------------------------------------------------------
# Budgets


class TurnBudget:
    """Counts turns per seat against a limit (e.g. 15 messages each). `None` = unlimited.

    For AsymPuzl-style "2N turns in all, alternating", combine a TurnOrder with TurnBudget(seats, N).
    """

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


class WordBudget:
    """A dialogue-wide budget of chat words (DialOp's prompted self-play: the human dialogue's length), shared by
    every seat, with a forced final proposal.

    `spend(text)` counts a chat line's words (a line longer than what is left is refused) (whitespace-separated) against the budget; once fewer than
    `final_at` words are left the budget is `final`: further chat is refused ("make your best final proposal
    now"), and the game treats the next proposal as the final one (DialOp accepts it automatically). `limit`
    None: no budget (never final). Words spent before the budget was set (a replayed prefix) count too.
    """

    FINAL_TEXT = "You must make your best final proposal now."

    def __init__(self, limit: Optional[int], final_at: int = 25):
        if limit is not None and limit < 0:
            raise ValueError("limit must be >= 0 or None")
        self.limit = limit
        self.final_at = final_at
        self.used = 0

    @staticmethod
    def count(text: str) -> int:
        return len((text or "").split())

    def left(self) -> Optional[int]:
        return None if self.limit is None else self.limit - self.used

    @property
    def final(self) -> bool:
        return self.limit is not None and self.limit - self.used < self.final_at

    def spend(self, text: str) -> int:
        """Count `text`; refused (RuleError, nothing counted) when the budget is already final."""
        if self.final:
            raise RuleError(f"No words left for chat (words left: {self.left()}). {self.FINAL_TEXT}")
        n = self.count(text)
        if self.limit is not None and n > self.left():
            raise RuleError(f"That message has {n} words but only {self.left()} words are left.")
        self.used += n
        return n
