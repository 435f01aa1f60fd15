"""A game's effects as readable lines for the terminal: with a person at the terminal, only what their seat perceives."""
from __future__ import annotations

import json
from typing import Optional

from tasks.core import ChatShown, Command, GameOver, LogEvent, Message, input_from_json


class Transcript:
    """Turns effects into readable lines. With a person at the terminal, only what their seat perceives."""

    def __init__(self, names: dict[str, str], show, viewer: Optional[str]):
        self.names = names
        self._show = show
        self.viewer = viewer

    def line(self, text: str) -> None:
        if self._show:
            self._show(text)

    def show(self, e) -> None:
        if not self._show:
            return
        if isinstance(e, Message):
            if e.to is None:
                self.line(f"[game] {e.text}")
            elif self.viewer in (None, e.to):
                self.line(f"[game to {self.names[e.to]}] {e.text}")
        elif isinstance(e, ChatShown):
            if e.seat == self.viewer or (self.viewer is not None and not e.seen_by(self.viewer)):
                return
            if e.to is None:
                self.line(f"{self.names[e.seat]}: {e.text}")
            else:  # addressed chat: say who saw it
                self.line(f"{self.names[e.seat]} -> {', '.join(self.names[s] for s in e.to)}: {e.text}")
        elif isinstance(e, LogEvent) and e.event == "game_input":
            inp = input_from_json(e.data["input"])
            # A person sees their own commands as they typed them; agents' commands are shown as moves.
            if isinstance(inp, Command) and inp.seat != self.viewer:
                self.line(f"{self.names[inp.seat]}: /{inp.name} {' '.join(inp.args)}".rstrip())
        elif isinstance(e, GameOver):
            self.line(f"[game over] status={e.status}")
            self.line("[result] " + json.dumps(_printable(e.results), sort_keys=True))


def _printable(results: dict) -> dict:
    return {k: v for k, v in results.items() if not isinstance(v, (dict, list)) or k in ("tour", "turns")}


