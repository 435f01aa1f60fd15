"""Drives a match together with the brains seated in it. Shared by every transport.

`feed` yields effect batches one input at a time, so a transport can deliver what a person should see before a
brain starts a slow decision. Brain moves go through the same match as everybody else's.

Two ways to let brains act:

- synchronous (`open`, `feed`, `resume`, `run`; the local runtime and the tests): after each input every woken brain
  acts at once, in seat order, and its moves are handled before the call returns;
- split (a transport that must keep serving people while an agent thinks, e.g. the Slurk runtime): `feed(inp,
  act=False)` only handles the input; `next_brain()` names a woken brain and marks it as thinking; `think(seat)`
  runs its `act()` (safe on another thread: it touches that brain only, never the match); `apply_moves(thought)`
  hands it what it observed meanwhile and feeds its moves through the match. While a brain thinks, effects addressed
  to it are buffered (brains are not thread-safe) and still wake it, so it acts again once it is done. Moves that
  became invalid meanwhile are refused by the match like anybody's.

LLM acts: after each `act()` the brain's LLM acts (`Brain.llm_act`) travel with the thought and are logged as
`agent_note` rows of kind `llm_act` (seat, brain, use, valid, effective, fallback, tokens, seconds) on every
transport, after the act()'s moves: an act is `effective` when it was valid, not a fallback, and one of the moves of
its act() was a command the rules accepted (no error message back to the seat). `llm_acts` keeps this game's.
An act that failed under `strict_llm` (no fallback allowed) ends the game with status "invalid" (an `Abort` input,
so the replay agrees).
"""
from __future__ import annotations

import contextlib
import dataclasses
import time
from typing import Callable, Iterable, Iterator, Optional

from .brain import Brain
from .match import Match
from .protocol import (
    Abort, Action, AgentUsage, ChatShown, Command, Effect, GameOver, Input, LogEvent, Message, View, addressed_to,
)

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "calls", "failures")

# A brain whose moves keep being rejected is not woken by its own rejections more than this many times in a row,
# so a confused agent cannot spin a room forever.
MAX_REJECTED_WAKEUPS = 2
# Nor may one brain act more than this many times in a row while nobody else does anything.
MAX_SOLO_ACTS = 20


@dataclasses.dataclass
class Thought:
    """What one `act()` of the brain in `seat` produced: its moves, its log notes and the LLM usage it spent.
    `error`: the act raised (a transport that runs act() elsewhere reports that here instead of raising)."""

    seat: str
    moves: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)
    usage: dict = dataclasses.field(default_factory=dict)
    error: Optional[str] = None
    acts: list = dataclasses.field(default_factory=list)  # LLM acts (`Brain.llm_act` records)


class MatchDriver:
    def __init__(
        self,
        match: Match,
        brains: Optional[dict[str, Brain]] = None,
        clock: Callable[[], float] = time.time,
        on_input: Optional[Callable[[Input], None]] = None,
        max_steps: int = 5000,
    ):
        self.match = match
        self.brains = dict(brains or {})
        self.clock = clock
        self.on_input = on_input  # persistence hook, called after each input is handled
        self.max_steps = max_steps
        self._woken: dict[str, bool] = {s: False for s in self.brains}
        self._rejections: dict[str, int] = {s: 0 for s in self.brains}
        self._solo: dict[str, int] = {s: 0 for s in self.brains}
        self._thinking: set[str] = set()  # brains whose act() is under way (split API)
        self._unseen: dict[str, list[Effect]] = {}  # effects for a thinking brain, given to it when it is done
        self._steps = 0  # brain moves since the last outside input
        self._step_limit_logged = False
        self.llm_acts: list[dict] = []  # every LLM act of this game, in order (as logged)

    def open(self, act: bool = True) -> Iterator[list[Effect]]:
        """Open the match. `act=False`: brains do not act here (the caller uses `next_brain`)."""
        self._new_round()
        effects = self.match.open(self.clock())
        self._observe(effects)
        yield effects
        if act:
            yield from self._brains_loop()

    def feed(self, inp: Input, act: bool = True) -> Iterator[list[Effect]]:
        """Handle one input, then (unless `act=False`) let every woken brain act."""
        if getattr(inp, "seat", None) not in self.brains:
            self._solo = {s: 0 for s in self.brains}  # someone else acted
        self._new_round()
        yield self._handle(inp)
        if act:
            yield from self._brains_loop()

    def resume(self) -> Iterator[list[Effect]]:
        """After `replay`: let brains answer what they had observed but not yet answered when the record ended."""
        yield from self._brains_loop()

    def wake(self) -> None:
        """Give every brain a look at the game (after `replay`, when agents take over a recorded dialogue: the record
        may end on a refused move that woke nobody)."""
        for seat in self.brains:
            self._woken[seat] = True
            hook = getattr(self.brains[seat], "take_over", None)  # optional: a brain told that it takes over
            if callable(hook):
                hook()

    def run(self, inputs: Iterable[Input] = ()) -> list[Effect]:
        """Convenience for local play and tests: handle inputs and all brain reactions, return every effect."""
        out: list[Effect] = []
        for inp in inputs:
            for batch in self.feed(inp):
                out += batch
        return out

    def replay(self, inputs: Iterable[Input], t0: float = 0.0) -> list[Effect]:
        """Rebuild state from recorded inputs (brain moves included) without asking brains to act."""
        out = self.match.open(t0) if self.match.phase == "new" else []
        self._observe(out)
        for inp in inputs:
            seat = getattr(inp, "seat", None)
            if seat in self.brains:
                self._woken[seat] = False  # the record shows this brain acted on what it had seen
            effects = self.match.handle(inp)
            self._observe(effects)
            out += effects
        return out

    # --- split API: brains act elsewhere --------------------------------------------------------------------------
    @property
    def thinking(self) -> frozenset[str]:
        """Seats whose brain was handed out by `next_brain` and whose moves have not been applied yet."""
        return frozenset(self._thinking)

    def next_brain(self) -> Optional[str]:
        """The seat of a woken brain that is not thinking already (first in seat order), now marked as thinking;
        None when no brain has anything to answer, the game is over, or the brains used up their moves since the
        last outside input."""
        if self.match.over or self._steps >= self.max_steps:
            return None
        for seat in self.match.game.seats:
            if not self._woken.get(seat) or seat in self._thinking:
                continue
            self._woken[seat] = False
            if self._solo[seat] >= MAX_SOLO_ACTS:
                continue
            self._thinking.add(seat)
            return seat
        return None

    def think(self, seat: str) -> Thought:
        """Run the brain's act() (any thread; it touches that brain only) inside one `llm.turn()` when its LLM client
        has one, so all LLM calls of the act share one deadline. Exceptions from act() propagate."""
        brain = self.brains[seat]
        before = _usage(brain)
        turn = getattr(getattr(brain, "llm", None), "turn", None)  # one LLM deadline for the whole act
        with (turn() if callable(turn) else contextlib.nullcontext()):
            moves = list(brain.act() or [])
        drain = getattr(brain, "drain_llm_acts", None)
        acts = drain() if callable(drain) else []
        notes, brain.notes = brain.notes, []
        after = _usage(brain)
        return Thought(seat, moves, notes, {k: after[k] - before[k] for k in USAGE_KEYS}, acts=acts)

    def apply_moves(self, thought: Thought) -> Iterator[list[Effect]]:
        """The brain is done thinking: it gets what it observed meanwhile (at once, on this call), then its usage,
        notes and moves go through the match (as the returned batches are consumed). A seat that is not thinking
        (a stale result) changes nothing."""
        seat = thought.seat
        if seat not in self._thinking:
            return iter(())
        self._thinking.discard(seat)
        brain = self.brains[seat]
        for e in self._unseen.pop(seat, []):
            brain.observe(e)
        return self._apply(thought)

    # ------------------------------------------------------------------------------------------------------------
    def _new_round(self) -> None:
        self._steps = 0
        self._step_limit_logged = False

    def _handle(self, inp: Input) -> list[Effect]:
        effects = self.match.handle(inp)
        if self.on_input:
            self.on_input(inp)
        self._observe(effects)
        return effects

    def _observe(self, effects: list[Effect]) -> None:
        for seat, brain in self.brains.items():
            for e in effects:
                if not addressed_to(e, seat) or isinstance(e, LogEvent):
                    continue
                if seat in self._thinking:
                    self._unseen.setdefault(seat, []).append(e)  # never concurrently with its act()
                else:
                    brain.observe(e)
                if isinstance(e, ChatShown) and e.seat == seat:
                    continue  # its own words are news to nobody
                if isinstance(e, Message) and e.to == seat and e.kind == "error":
                    self._rejections[seat] += 1
                    if self._rejections[seat] > MAX_REJECTED_WAKEUPS:
                        continue
                elif not isinstance(e, View):
                    self._rejections[seat] = 0
                self._woken[seat] = True

    def _brains_loop(self) -> Iterator[list[Effect]]:
        self._new_round()
        while True:
            seat = self.next_brain()
            if seat is None:
                return
            yield from self.apply_moves(self.think(seat))

    def _apply(self, thought: Thought) -> Iterator[list[Effect]]:
        seat, moves, notes = thought.seat, list(thought.moves), list(thought.notes)
        if thought.error is not None:
            notes.append({"seat": seat, "kind": "error", "error": thought.error[:300]})
        spent = {k: int(thought.usage.get(k, 0) or 0) for k in USAGE_KEYS}
        if any(spent.values()):
            # Recorded as an input, so Slurk games, local games and their replays count the same tokens.
            yield self._handle(AgentUsage(seat, **spent, t=self.clock()))
        if moves:
            self._solo = {s: (n + 1 if s == seat else 0) for s, n in self._solo.items()}
            if self._solo[seat] == MAX_SOLO_ACTS:
                notes.append({"seat": seat, "kind": "paused",
                              "reason": f"acted {MAX_SOLO_ACTS} times in a row with no reply; waiting for others"})
        if notes:
            yield [LogEvent("agent_note", n) for n in notes]
        acts = [dict(a) for a in thought.acts]
        failed = [a for a in acts if a.get("failed")]
        if failed and not self.match.over:
            yield from self._log_acts(acts, accepted=False)
            a = failed[0]
            yield self._handle(Abort("invalid", f"The {a.get('brain')} agent's LLM act ({a.get('use')}) failed and "
                                                "strict LLM mode allows no fallback; the game is invalid.",
                                     self.clock()))
            return
        accepted = False  # a command of this act() that the rules took (no error back to the seat)
        for i, move in enumerate(moves):
            if self.match.over:
                break
            self._steps += 1
            move = dataclasses.replace(move, t=self.clock(), **({"turn": i == 0} if hasattr(move, "turn") else {}))
            effects = self._handle(move)
            accepted = accepted or (isinstance(move, (Command, Action)) and not any(
                isinstance(e, Message) and e.to == seat and e.kind == "error" for e in effects))
            yield effects
        if acts:  # logged after the moves, whose fate decides `effective` (also when the game ended meanwhile)
            yield from self._log_acts(acts, accepted)
        if not self.match.over and self._steps >= self.max_steps and not self._step_limit_logged:
            self._step_limit_logged = True
            yield [LogEvent("error", {"error": f"brains made more than {self.max_steps} moves in one go; stopped"})]

    def _log_acts(self, acts: list[dict], accepted: bool) -> Iterator[list[Effect]]:
        """The act()'s LLM acts as `llm_act` rows; `effective`: valid, not a fallback, and the act() made a move
        the rules accepted."""
        for a in acts:
            a["effective"] = bool(accepted and a.get("valid") and not a.get("fallback"))
        self.llm_acts += acts
        yield [LogEvent("agent_note", {"kind": "llm_act", **a}) for a in acts]

    @property
    def game_over(self) -> Optional[GameOver]:
        return GameOver(self.match.status, self.match.results) if self.match.over else None



def _usage(brain: Brain) -> dict:
    u = getattr(brain, "usage", None) or {}
    return {k: int(u.get(k, 0) or 0) for k in USAGE_KEYS}
