"""The paper-free baselines: `random` (a uniformly random move, a short noncommittal line when it must talk) and
`always-first` (the first listed move, announced). Both ask to halt at once, so they never drag the talk out."""
from __future__ import annotations

from .base import SeatBrain

LINES = ("Let's see how it goes.", "I have not decided yet.", "Good luck!", "Hmm, hard to say.")


class RandomBrain(SeatBrain):
    name = "random"

    def talk(self):
        return self.rng.choice(LINES), True

    def choose(self) -> str:
        return self.rng.choice(self.view["moves"])


class AlwaysFirstBrain(SeatBrain):
    name = "always-first"

    def talk(self):
        if self.view["game"]["kind"] == "matrix":
            return f"I will play {self.view['my_actions'][0]}.", True
        return "I will take the first option whenever it is my move.", True

    def choose(self) -> str:
        return self.view["moves"][0]
