"""Shared turn-taking mechanisms: who may move or talk now, named phases, and budgets of turns and words. Plain data
only, like the other mechanisms (mechanisms.py): a refused move raises `RuleError` and changes nothing.

  TurnOrder      strict alternation of moves.       ChatTurns  strict alternation of talk, with halt by agreement.
  Phases         named phases repeated for a number of rounds ("negotiate", "move") x k.
  TurnBudget     turns per seat against a limit.
  WordBudget     chat words against a dialogue-wide limit, with a forced final proposal (DialOp PSP).
"""
from __future__ import annotations

from typing import Iterable, Mapping, Optional, Sequence

from .mechanisms import RuleError
from .wording import name_of, who_to_wait_for



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
