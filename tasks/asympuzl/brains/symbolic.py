"""Symbolic AsymPuzl agents (no LLM). They read plain English from people and partners alike (parse.py), answer
questions, apply exactly what they learn, and never repeat an unanswered question within a round.

- `share-all` (the reviewers' template baseline): states all its clues in its first message; on a noisy channel
  (the view says so) it reads with the channel model (only insertions: sent words are subsequences of what arrived).
- `incremental`: one fact per turn (A: the next position's shape; B: the colour of the shape A just named), reading
  with the plain-English reader only, so the noisy channel's effect on a fact-by-fact strategy shows.
- `noisy-reader`: the incremental strategy with the channel-model reader.
"""
from __future__ import annotations

from typing import Optional

from tasks.core import Brain, ChatShown, Message, View

from ..game import NOISY_PREFIX
from ..channel import read_list_noisy, read_noisy
from ..parse import Fact, read


def _the(shapes) -> str:
    return " or the ".join(shapes)


class PuzzleBrain(Brain):
    name = "share-all"
    noise_model = True    # decode with the insertion channel model when the channel is noisy

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.inbox: list[str] = []
        self.pos_shapes: dict[int, tuple] = {}   # position -> candidate shapes
        self.shape_colour: dict[str, str] = {}
        self.pos_colour: dict[int, str] = {}
        self.exists: set = set()                 # shapes among B's pairs
        self.own: set = set()                    # what our clues fix (never overridden by a partner's words)
        self.told: set = set()
        self.asked: set = set()
        self.turns = 0
        self.ready = False

    # --- perception ---------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.seat == self.seat and "size" in effect.data:
            self.view = effect.data
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            self.inbox.append(effect.text)
        elif isinstance(effect, Message) and effect.to == self.seat and effect.text.startswith(NOISY_PREFIX):
            self.inbox.append(effect.text.split(": ", 1)[1])  # the partner's line, damaged by the channel

    def _learn_clues(self) -> None:
        v = self.view
        if "clue_shapes" in v:
            for i, c in enumerate(v["clue_shapes"]):
                self.pos_shapes[i + 1] = tuple(c)
                self.own.add(("pos", i + 1))
        for s, c in v.get("clue_pairs") or []:
            self.shape_colour[s] = c
            self.exists.add(s)
            self.own.add(("shape", s))
        self.ready = True

    def _read(self, text: str):
        v = self.view
        args = (text, v["shapes"], v["colours"], v["size"])
        if self.noise_model and v.get("noise"):
            listed = read_list_noisy(*args, pairs=v["size"] + int(v.get("distractors") or 0))
            if listed is not None:
                return listed
            r, plain = read_noisy(*args), read(*args)
            return r if len(r.facts) + len(r.asks) >= len(plain.facts) + len(plain.asks) else plain
        return read(*args)

    def _apply(self, f: Fact) -> None:
        if f.pos is not None and f.shapes and ("pos", f.pos) not in self.own:
            if self.view["role"] == "B" and not set(f.shapes) & self.exists:
                return  # B holds every true pair: a shape it does not have was misheard (or a distractor)
            if len(f.shapes) == 1:  # shapes are distinct: a shape placed here is no longer anywhere else
                for p, c in list(self.pos_shapes.items()):
                    if c == tuple(f.shapes) and p != f.pos and ("pos", p) not in self.own:
                        del self.pos_shapes[p]
            self.pos_shapes[f.pos] = tuple(f.shapes)
        if len(f.shapes) == 1 and f.colour and ("shape", f.shapes[0]) not in self.own:
            self.shape_colour[f.shapes[0]] = f.colour
        if len(f.shapes) == 1 and f.colour:
            self.exists.add(f.shapes[0])
        if f.pos is not None and f.colour and not f.shapes:
            self.pos_colour[f.pos] = f.colour

    # --- beliefs ------------------------------------------------------------------------------------------------
    def shape_at(self, p: int) -> Optional[str]:
        cands = self.pos_shapes.get(p)
        if not cands:
            return None
        if len(cands) == 1:
            return cands[0]
        real = [c for c in cands if c in self.exists]
        return real[0] if len(real) == 1 else None

    def target(self, p: int) -> Optional[tuple]:
        s = self.shape_at(p)
        c = self.shape_colour.get(s) if s else None
        c = c or self.pos_colour.get(p)
        return (s, c) if s and c else None

    def unknown(self) -> list[int]:
        return [p for p in range(1, self.view["size"] + 1) if self.target(p) is None]

    # --- acting -------------------------------------------------------------------------------------------------
    def my_turn(self) -> bool:
        v = self.view
        return bool(v) and not v.get("result") and v.get("turn") == "me"

    def act(self):
        if not self.my_turn():
            return []
        return self.decide(*self.digest())

    def digest(self) -> tuple[list, list]:
        """Read what arrived since our last turn into beliefs: (questions asked, facts heard)."""
        v = self.view
        if not self.ready:
            self._learn_clues()
        self.turns += 1
        if v.get("noise") and self.turns % 3 == 0:
            self.asked = set()  # on a noisy channel a question may be lost: asked again every third turn
        asks, heard = [], []
        for text in self.inbox:
            r = self._read(text)
            for f in r.facts:
                self._apply(f)
            asks += r.asks
            heard += r.facts
        self.inbox = []
        self._forget_wrong(v.get("feedback") or {})
        return asks, heard

    def decide(self, asks: list, heard: list) -> list:
        v = self.view
        moves = []
        for p in range(1, v["size"] + 1):
            t = self.target(p)
            if t and tuple(v["hypothesis"][p - 1]) != t:
                moves.append(self.command("replace", str(p), t[0], t[1], first=not moves))
        text = self.compose(asks, heard)
        if text:
            moves.append(self.say(text, first=not moves))
        else:
            moves.append(self.command("done", first=not moves))
        return moves

    def _forget_wrong(self, fb: dict) -> None:
        """own-detailed feedback names wrong positions: drop what a partner told us about them, ask again."""
        hyp = self.view["hypothesis"]
        for p in fb.get("own_wrong") or []:
            if not 1 <= p <= len(hyp) or self.target(p) is None or tuple(hyp[p - 1]) != self.target(p):
                continue  # not yet applied (the feedback predates what we just heard): nothing to doubt
            if ("pos", p) not in self.own:
                self.pos_shapes.pop(p, None)
            s = self.shape_at(p)
            if s and ("shape", s) not in self.own:
                self.shape_colour.pop(s, None)
            self.pos_colour.pop(p, None)
            self.asked.discard(("pos", p))
            self.asked.discard(("shape", s))

    # --- talking ------------------------------------------------------------------------------------------------
    def answers(self, asks: list[Fact]) -> list[str]:
        out = []
        for q in asks:
            if q.pos is not None and not q.shapes:
                s = self.shape_at(q.pos)
                if s:
                    out.append(f"Position {q.pos} is the {s}.")
                continue
            for s in q.shapes:
                bits = []
                if s in self.shape_colour:
                    bits.append(f"The {s} is {self.shape_colour[s]}.")
                where = [p for p, c in self.pos_shapes.items() if s in c and ("pos", p) in self.own]
                if where:
                    bits.append(f"The {s} is at position {where[0]}.")
                if not bits and self.view["role"] == "B" and s not in self.exists:
                    bits.append(f"I have no {s}.")
                out += bits
        return out

    def all_clues(self) -> str:
        v = self.view
        if v["role"] == "A":
            items = ", ".join(" or ".join(c) for c in v["clue_shapes"])
            return f"Shapes by position, 1 to {v['size']}: {items}."
        return "My shape-colour pairs: " + ", ".join(f"{c} {s}" for s, c in v["clue_pairs"]) + "."

    def question(self) -> Optional[str]:
        """Ask once for what is still missing (A: colours of shapes; B: shapes of positions)."""
        missing = self.unknown()
        if not missing:
            return None
        if self.view["role"] == "A":
            shapes = [s for p in missing for s in [self.shape_at(p)] if s and ("shape", s) not in self.asked]
            amb = [p for p in missing if self.shape_at(p) is None and ("pos", p) not in self.asked]
            for s in shapes:
                self.asked.add(("shape", s))
            for p in amb:
                self.asked.add(("pos", p))
            parts = []
            if shapes:
                parts.append("What colour is the " + ", the ".join(shapes) + "?")
            if amb:
                parts.append("Which of my shapes do you have at positions " + ", ".join(map(str, amb)) + "? "
                             + " ".join(f"Position {p}: the {_the(self.pos_shapes[p])}?" for p in amb))
            return " ".join(parts) or None
        ps = [p for p in missing if ("pos", p) not in self.asked]
        for p in ps:
            self.asked.add(("pos", p))
        return ("Which shape is at position " + ", ".join(map(str, ps)) + "?") if ps else None

    def compose(self, asks: list[Fact], heard: list[Fact]) -> Optional[str]:
        if self.view.get("single_agent"):
            return None  # the full-information control: nobody to talk to
        said = self.answers(asks)
        if "all" not in self.told:
            self.told.add("all")
            return " ".join([*said, self.all_clues()])
        q = self.question()
        return " ".join([*said, *([q] if q else [])]) or None


class AbsentBrain(Brain):
    """Nobody: the empty seat b of the single-agent control (option single_agent), where it never gets a turn. In
    a two-player game it ends every turn it gets with /done."""
    name = "absent"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.turn = False

    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.seat == self.seat and "size" in effect.data:
            self.turn = effect.data.get("turn") == "me" and not effect.data.get("result")

    def act(self):
        if not self.turn:
            return []
        self.turn = False
        return [self.command("done")]


class IncrementalBrain(PuzzleBrain):
    """One fact per turn (answers to questions count as the fact of that turn)."""
    name = "incremental"
    noise_model = False

    def compose(self, asks: list[Fact], heard: list[Fact]) -> Optional[str]:
        said = self.answers(asks)
        if said:
            return said[0]
        v = self.view
        if v["role"] == "A":
            for i, c in enumerate(v["clue_shapes"]):
                if ("pos", i + 1) not in self.told:
                    self.told.add(("pos", i + 1))
                    return f"Position {i + 1} is the {_the(c)}."
        else:
            named = [s for f in heard for s in f.shapes if s in self.exists and ("shape", s) not in self.told]
            rest = [s for s, _ in v["clue_pairs"] if ("shape", s) not in self.told]
            for s in named + rest:
                self.told.add(("shape", s))
                return f"The {s} is {self.shape_colour[s]}."
        return self.question()


class NoisyReaderBrain(IncrementalBrain):
    """Incremental, reading with the channel model, and grounding each fact: B names the position it placed a
    shape at ("The star is red (position 4)."), A corrects a position that came out wrong."""
    name = "noisy-reader"
    noise_model = True

    def compose(self, asks: list[Fact], heard: list[Fact]) -> Optional[str]:
        v = self.view
        if v["role"] == "A":
            where = {s: i + 1 for i, c in enumerate(v["clue_shapes"]) for s in c}
            for f in heard:
                if f.pos is not None and len(f.shapes) == 1 and f.shapes[0] in where and where[f.shapes[0]] != f.pos:
                    p = where[f.shapes[0]]
                    return f"No: position {p} is the {_the(v['clue_shapes'][p - 1])}."
            return super().compose(asks, heard)
        said = self.answers(asks)
        if said:
            return said[0]
        named = [s for f in heard if f.pos is not None for s in f.shapes if s in self.exists]
        rest = [s for s, _ in v["clue_pairs"] if ("shape", s) not in self.told]
        for s in named + rest:
            self.told.add(("shape", s))
            at = [p for p, c in self.pos_shapes.items() if c == (s,)]
            return f"The {s} is {self.shape_colour[s]}" + (f" (position {at[0]})." if at else ".")
        return self.question()
