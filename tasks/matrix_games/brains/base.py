"""What every matrix-games agent shares: it keeps its seat's view and the partner's lines, and turns `talk()` and
`choose()` into moves at the right time (its turn to talk, its move not yet made). Subclasses decide."""
from __future__ import annotations

from typing import Optional

from tasks.core import Brain, ChatShown, View

from .. import solvers


class SeatBrain(Brain):
    name = "seat"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.view: dict = {}
        self.heard: list[str] = []  # the partner's lines not answered yet
        self.log: list[tuple[str, str]] = []  # (who, text) of this step's talk, who = "me" | "partner"
        self._step = None
        self._asked_halt = False

    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.seat == self.seat:
            v = effect.data
            step = (v.get("trial"), len(v.get("path") or []), len(v.get("outcomes") or []))
            if step != self._step:  # a new negotiation: forget the last one's talk
                self._step, self.heard, self.log, self._asked_halt = step, [], [], False
                self.new_step(v)
            self.view = v
        elif isinstance(effect, ChatShown):
            who = "me" if effect.seat == self.seat else "partner"
            self.log.append((who, effect.text))
            if who == "partner":
                self.heard.append(effect.text)

    # --- perspective helpers --------------------------------------------------------------------------------------
    def bimatrix(self) -> list:
        """My perspective as a bimatrix: rows my actions, cells (mine, theirs)."""
        return [[(c["me"], c["them"]) for c in row] for row in self.view["matrix"]]

    def tree(self):
        """The view's tree as solver data with me as player 0."""
        def conv(node):
            if "mover" not in node:
                return [node["me"], node["them"]]
            return {"player": 0 if node["mover"] == "me" else 1,
                    "moves": {k: conv(c) for k, c in node["moves"].items()}}
        return conv(self.view["tree"])

    def spe(self):
        return solvers.backward_induction(self.tree())

    # --- to decide ----------------------------------------------------------------------------------------------
    def new_step(self, view: dict) -> None:
        """A new negotiation (or move) begins."""

    def talk(self) -> tuple[Optional[str], bool]:
        """(line to say or None, ask to halt)."""
        return None, True

    def agree_to_halt(self) -> bool:
        """The partner asked to stop talking: agree now? (Yes by default: an agent never keeps a person talking;
        without an agreement it moves on what it knows.)"""
        return True

    def choose(self) -> str:
        return self.view["moves"][0]

    # --- acting -------------------------------------------------------------------------------------------------
    def act(self):
        v = self.view
        if not v or v.get("done"):
            return []
        if v["stage"] == "negotiate":
            neg = v["negotiation"]
            if neg["turn"] == "me":
                text, halt = self.talk()
                self.heard = []
                out = [self.say(text)] if text else []
                if halt and (text or not neg["halt_asked"]["me"]):  # talking takes back an earlier request
                    out.append(self.command("halt", first=not out))
                return out
            if neg["halt_asked"]["partner"] and not neg["halt_asked"]["me"] and self.agree_to_halt():
                return [self.command("halt")]
            return []
        if v["stage"] == "move" and v.get("moves"):
            return [self.command("move", self.choose())]
        return []
