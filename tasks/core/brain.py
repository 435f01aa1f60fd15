"""Embedded agents ("brains") that take a seat. A brain sees only what its seat sees.

The driver hands every effect addressed to the brain's seat to `observe`, then calls `act` when something new
arrived. `act` returns the seat's moves (chat lines and commands). Keeping observation and action apart lets a
restored match rebuild a brain's beliefs by replaying observations without re-running its (possibly slow or
random) decisions.
"""
from __future__ import annotations

from typing import Optional

from .protocol import Chat, Command, Effect, Input


class Brain:
    name = "brain"

    def __init__(self, seat: str, seed: int = 0, llm=None, options: Optional[dict] = None):
        self.seat = seat
        self.seed = seed
        self.llm = llm
        self.options = dict(options or {})
        self.notes: list[dict] = []  # structured notes for the log (e.g. an LLM fallback), drained by the driver
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0, "failures": 0}

    def observe(self, effect: Effect) -> None:
        """Update beliefs from one effect the seat perceives."""

    def act(self) -> list[Input]:
        """Moves to make now; [] to wait."""
        return []

    # helpers for subclasses
    def say(self, text: str, first: bool = True) -> Chat:
        return Chat(self.seat, text, turn=first)

    def command(self, name: str, *args: str, first: bool = True) -> Command:
        return Command(self.seat, name, tuple(str(a) for a in args), turn=first)

    def note(self, kind: str, **data) -> None:
        self.notes.append({"seat": self.seat, "brain": self.name, "kind": kind, **data})
