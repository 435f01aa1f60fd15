"""Scripted people for `--population`: partners who write the way people do, not in the agents' templates.

All of them place what they learn exactly (a person who read the partner right) and answer questions; they differ
in how they talk:
- `person-plain`: whole sentences, all at once ("position 1 is the circle. position 2 is the square or the hexagon."
  / "the circle is red. the square is blue.").
- `person-typos`: the same, lower case, with a seeded typo in most longer words ("circel", "sqaure", "yelow").
- `person-terse`: bare lists ("1 circle, 2 square" / "red circle, blue square").
- `person-chunks`: two facts per turn, chatty ("ok so position 3 is the star and position 4 is the ring").
- `person-asker`: tells nothing unasked; asks for what it misses and answers what it is asked.
"""
from __future__ import annotations

import random
from typing import Optional

from .symbolic import PuzzleBrain


def _facts(v: dict) -> list[str]:
    if v["role"] == "A":
        return [f"position {i + 1} is the {' or the '.join(c)}" for i, c in enumerate(v["clue_shapes"])]
    return [f"the {s} is {c}" for s, c in v["clue_pairs"]]


class PersonBrain(PuzzleBrain):
    name = "person-plain"
    noise_model = False

    def talk(self, facts: list[str]) -> str:
        return ". ".join(facts) + "."

    def compose(self, asks, heard) -> Optional[str]:
        said = self.answers(asks)
        if "all" not in self.told:
            self.told.add("all")
            said.append(self.talk(_facts(self.view)))
        else:
            q = self.question()
            if q:
                said.append(q.lower())
        return " ".join(said) or None


class TyposBrain(PersonBrain):
    name = "person-typos"

    def talk(self, facts: list[str]) -> str:
        rng = random.Random(f"typos:{self.seed}")
        out = []
        for w in ". ".join(facts).split(" "):
            if len(w) >= 5 and w.isalpha() and rng.random() < 0.7:
                i = rng.randrange(1, len(w) - 1)
                w = rng.choice([w[:i] + w[i + 1:], w[:i] + w[i + 1] + w[i] + w[i + 2:], w[:i] + w[i] + w[i:]])
            out.append(w)
        return " ".join(out)


class TerseBrain(PersonBrain):
    name = "person-terse"

    def talk(self, facts: list[str]) -> str:
        v = self.view
        if v["role"] == "A":
            return ", ".join(f"{i + 1} {'/'.join(c) if len(c) > 1 else c[0]}" for i, c in enumerate(v["clue_shapes"]))
        return ", ".join(f"{c} {s}" for s, c in v["clue_pairs"])


class ChunksBrain(PersonBrain):
    name = "person-chunks"

    def compose(self, asks, heard) -> Optional[str]:
        said = self.answers(asks)
        todo = [f for f in _facts(self.view) if f not in self.told]
        if todo:
            self.told.update(todo[:2])
            said.append("ok so " + " and ".join(todo[:2]))
        return " ".join(said) or None


class AskerBrain(PersonBrain):
    name = "person-asker"

    def compose(self, asks, heard) -> Optional[str]:
        said = self.answers(asks)
        q = self.question()
        return " ".join(said + ([q.lower()] if q else [])) or None


PEOPLE = {b.name: b for b in (PersonBrain, TyposBrain, TerseBrain, ChunksBrain, AskerBrain)}
