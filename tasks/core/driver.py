"""Drives a match together with the brains seated in it. Shared by every transport.

`feed` yields effect batches one input at a time, so a transport can deliver what a person should see before a
brain starts a slow decision. Brain moves go through the same match as everybody else's.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Callable, Iterable, Iterator, Optional

from .brain import Brain
from .match import Match
from .protocol import AgentUsage, ChatShown, Effect, GameOver, Input, LogEvent, Message, View, addressed_to

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "calls", "failures")

# A brain whose moves keep being rejected is not woken by its own rejections more than this many times in a row,
# so a confused agent cannot spin a room forever.
MAX_REJECTED_WAKEUPS = 2
# Nor may one brain act more than this many times in a row while nobody else does anything.
MAX_SOLO_ACTS = 20


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

    def open(self) -> Iterator[list[Effect]]:
        effects = self.match.open(self.clock())
        self._observe(effects)
        yield effects
        yield from self._brains_loop()

    def feed(self, inp: Input) -> Iterator[list[Effect]]:
        if getattr(inp, "seat", None) not in self.brains:
            self._solo = {s: 0 for s in self.brains}  # someone else acted
        yield self._handle(inp)
        yield from self._brains_loop()

    def resume(self) -> Iterator[list[Effect]]:
        """After `replay`: let brains answer what they had observed but not yet answered when the record ended."""
        yield from self._brains_loop()

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

    # ------------------------------------------------------------------------------------------------------------
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
        steps = 0
        while not self.match.over and steps < self.max_steps:
            seat = next((s for s in self.match.game.seats if self._woken.get(s)), None)
            if seat is None:
                return
            self._woken[seat] = False
            if self._solo[seat] >= MAX_SOLO_ACTS:
                continue
            brain = self.brains[seat]
            before = _usage(brain)
            moves = brain.act()
            notes, brain.notes = brain.notes, []
            spent = {k: _usage(brain)[k] - before[k] for k in USAGE_KEYS}
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
            for i, move in enumerate(moves):
                steps += 1
                move = dataclasses.replace(move, t=self.clock(), **({"turn": i == 0} if hasattr(move, "turn") else {}))
                yield self._handle(move)
                if self.match.over:
                    return
        if not self.match.over and steps >= self.max_steps:
            yield [LogEvent("error", {"error": f"brains made more than {self.max_steps} moves in one go; stopped"})]

    @property
    def game_over(self) -> Optional[GameOver]:
        return GameOver(self.match.status, self.match.results) if self.match.over else None



def _usage(brain: Brain) -> dict:
    u = getattr(brain, "usage", None) or {}
    return {k: int(u.get(k, 0) or 0) for k in USAGE_KEYS}
