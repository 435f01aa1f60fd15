"""What the three DialOp games (Assignment, Planning, Mediation) set up alike: the `turns` option (people chat
freely; agents may be held to strict alternation), the proposal cycle, the turn order, the word budget of prompted
self-play, its replayed human prefix (inputs up to a time count their words but are never refused or forced) and the
bonus by tiers of the normalised score."""
from __future__ import annotations

from typing import Mapping, Optional, Sequence

from tasks.core import Context, Game, ProposalCycle, TurnOrder, WordBudget


def bonus_for(norm: float, tiers: Sequence[Sequence[float]]) -> float:
    """The amount of the first tier ((ratio, amount), best first) that a normalised score reaches, else 0."""
    for ratio, amount in tiers:
        if norm >= ratio - 1e-9:
            return float(amount)
    return 0.0


class DialopGame(Game):
    """A DialOp game: call `set_up_dialogue` in `__init__`; `_check_turn` / `_pass_turn` keep alternation, `_prefix`
    says whether an input belongs to the replayed human prefix (`prefix_until`, a time, or None)."""

    turn_modes: tuple[str, ...] = ("free", "alternate")

    def set_up_dialogue(self, names: Mapping[str, str], proposers: Optional[Sequence[str]] = None,
                        responders="others", first: Optional[str] = None) -> None:
        o = self.options
        self.turns_mode = o.get("turns", "free")
        if self.turns_mode not in self.turn_modes:
            raise ValueError("turns must be " + " or ".join(f"'{m}'" for m in self.turn_modes))
        self.proposals = ProposalCycle(self.seats, proposers=proposers, responders=responders, names=names)
        self.order = TurnOrder(self.seats, first=first, names=names)
        self.words = WordBudget(o.get("word_budget"), int(o.get("final_at", 25)))
        self.prefix_until: Optional[float] = None
        self._passed_by: Optional[str] = None
        # the outcome: the accepted proposal, whether the game forced it (out of turns), the final results
        self.accepted: Optional[list] = None
        self.forced = False
        self._final: Optional[dict] = None

    def _prefix(self, ctx: Context) -> bool:
        return self.prefix_until is not None and ctx.t <= float(self.prefix_until)

    def _spend_words(self, ctx: Context, text: str) -> int:
        """The words of a chat line, spent from the budget (the prefix's are counted, never refused)."""
        if self._prefix(ctx):
            n = WordBudget.count(text)
            self.words.used += n
            return n
        return self.words.spend(text)

    def _check_turn(self, ctx: Context, seat: str, what: str) -> None:
        if self.turns_mode != "alternate" or (not ctx.turn and self._passed_by == seat):
            return  # free chat, or a later move of the same agent turn (e.g. a message, then its proposal)
        self.order.check(seat, what)

    def _bonus(self, agreed: bool, norm: float, tiers: Sequence[Sequence[float]]) -> dict[str, float]:
        """Every seat's bonus (`bonus_for`) when the game ended in an agreement; {} when there is none."""
        amount = bonus_for(norm, tiers) if agreed else 0.0
        return {s: amount for s in self.seats} if amount else {}

    def _pass_turn(self, ctx: Context, seat: str) -> None:
        if self.turns_mode == "alternate" and self.order.current == seat:
            self.order.advance()
            self._passed_by = seat
        elif ctx.turn:
            self._passed_by = None
