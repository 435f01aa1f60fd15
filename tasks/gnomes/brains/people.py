"""Simulated partners: the cooperative "partner" that speaks the agent's templates, and scripted people who play
like it but talk like different people, for evaluating an agent beyond its own templates.

Each person is the cooperative simulated partner (same moves: it knows its walls and, in its
rounds, the treasure) with its own way of talking, in plain English the agent has to read:

- "terse":   one or two words: "down", "down twice", "col 4 row 0", "wall", "where?"
- "chatty":  long friendly sentences, names the treasure's column and row, small talk now and then
- "typos":   ordinary wording, all lower case, with typos ("can u go dwon", "tresure is at colum 4 rwo 0")
- "pointer": suggests moves but never explains anything: no walls, no treasure place ("just go left")
- "ignorer": explains walls and suggests moves, but ignores every question
- "quiet":   answers questions with the treasure's place, but never mentions a wall

Every random choice is seeded from the brain's seed.
"""
from __future__ import annotations

import random
from typing import Optional

from . import language as lang
from ..maze import ACTIONS, OPPOSITE, STAY, xy
from ..maze import cell as cell_of
from .planner import greedy_action
from .seat import FLAG_ACTION, GnomeBrain


class PartnerBrain(GnomeBrain):
    """A simulated partner that plays like a cooperative, truthful person who takes suggestions literally.

    With the treasure it plans the shortest joint path it can imagine: its own walls exactly, the other side's
    walls as far as it was told (everything else assumed open), and asks for the other player's next step on it.
    Without the treasure it follows requests, heads for a cell the other player named ("column 6, row 2"), waits
    for guidance, or (if nobody guides it) wanders toward a stated direction. Options: ask (True: ask where the treasure is in rounds it does not see it),
    explain_walls (True).
    """

    name = "partner"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.request: Optional[int] = None
        self.hint: Optional[set] = None
        self.pending: Optional[tuple[int, int]] = None
        self.last_move: Optional[int] = None
        self.guided = False  # the other player suggested moves this round
        self.target: Optional[int] = None  # the treasure's cell when the other player named it
        self.ask = bool(self.options.get("ask", True))

    def new_round(self, data: dict) -> None:
        self.request = None
        self.hint = None
        self.pending = None
        self.last_move = None
        self.guided = False
        self.target = None

    def read_message(self, text: str, context: str = "") -> lang.Reading:
        return lang.read(text)  # the simulated partner always reads with the rules

    def _read_inbox(self) -> None:
        inbox, self.inbox = self.inbox, []
        for text, at, rnd in inbox:
            reading = self.read_message(text)
            flags = reading.flags or [reading.flag]
            if lang.REJECT in flags:
                self.learn_rejection(reading, at, self.pending)
                self.pending = None
            if reading.line is not None:
                self.learn_line(at, reading.line)
            if rnd != self.round:
                continue
            if lang.INQUIRY in flags:
                t = self.view.get("treasure")
                self.replies += self.text_answer(xy(self.cell), tuple(t) if t else None, reading)
            if reading.hint:
                self.hint = reading.hint
            if reading.location is not None and None not in reading.location:
                self.target = cell_of(*reading.location)
            if reading.flag in FLAG_ACTION:
                self.request = FLAG_ACTION[reading.flag]
                self.guided = True

    # What it says; the scripted people below say it in their own ways.
    def text_answer(self, token, treasure, reading: lang.Reading) -> list[str]:
        return [lang.template_answer(token, treasure)]

    def text_suggest(self, action: int, then: Optional[int] = None) -> list[str]:
        return [lang.suggest(action)]

    def text_wall(self, c: int, action: int) -> list[str]:
        return self.explain_wall(c, action)

    def text_ask(self) -> list[str]:
        return [lang.ASK_TREASURE]

    def act(self):
        if self.model is None:
            return []
        self._read_inbox()
        out = [self.say(text) for text in self.replies]
        self.replies = []
        if not self.my_turn():
            return out
        c = self.cell
        mine = self.model.my_moves
        t = self.treasure()
        action = None
        if self.request is not None:
            if mine[c * 5 + self.request] < 0:
                out += [self.say(text) for text in self.text_wall(c, self.request)]
                # Knowing the treasure it plays its own move instead; otherwise it waits for new guidance.
                action = None if t is not None else STAY
            else:
                action = self.request
        self.request = None
        goal = t if t is not None else self.target
        if action is None:
            action = greedy_action(self.model, c, 0, goal, self.rng) if goal is not None else self._explore(c)
        nxt = mine[c * 5 + action]
        self.pending = None
        if t is not None and nxt != t:
            b = greedy_action(self.model, nxt, 1, t, self.rng)
            if b is not None:
                after = None  # the other player's move after that, for people who ask for two at once
                n2 = self.model.tables()[1][nxt * 5 + b]
                if n2 >= 0 and n2 != t:
                    mine_next = greedy_action(self.model, n2, 0, t, self.rng)
                    n3 = mine[n2 * 5 + mine_next] if mine_next is not None else -1
                    after = greedy_action(self.model, n3, 1, t, self.rng) if n3 >= 0 and n3 != t else None
                out += [self.say(text) for text in self.text_suggest(b, after)]
                self.pending = (nxt, b)
        if t is None and self.ask and self.asked_round != self.round:
            self.asked_round = self.round
            out += [self.say(text) for text in self.text_ask()]
        self.last_move = action
        return out + [self.move(action)]

    def _explore(self, c: int) -> int:
        """No treasure and no request. Like a person: wait for guidance at the start of a round and while the
        other player is guiding; otherwise step toward a stated direction if possible, else take a random step
        that does not undo the previous one."""
        if self.guided or self.view.get("turns", 0) == 0:
            return STAY
        mine = self.model.my_moves
        legal = [a for a in range(1, 5) if mine[c * 5 + a] >= 0]
        if not legal:
            return STAY
        toward = [a for a in legal if self.hint and a in self.hint]
        if toward:
            return self.rng.choice(toward)
        fresh = [a for a in legal if self.last_move is None or a != OPPOSITE[self.last_move]] or legal
        return self.rng.choice(fresh)


WORD = {a: ACTIONS[a] for a in range(1, 5)}
WORD[STAY] = "stay"


def _where(token, treasure) -> str:
    return f"column {treasure[0]}, row {treasure[1]}"


class PersonBrain(PartnerBrain):
    """A scripted person: the simulated partner's moves with a style of talking (see the module docstring)."""

    name = "person"
    small_talk = 0.0     # chance per turn of a line that carries nothing for the game
    SMALL_TALK = ("this is fun", "hmm", "haha ok", "tricky maze!", "let me think")

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.prng = random.Random(seed * 7919 + 17)

    def read_message(self, text: str, context: str = "") -> lang.Reading:
        if text.startswith("Sorry, I did not understand"):
            return lang.Reading()  # a request to rephrase: the next message will be clearer anyway
        return lang.read(text)

    def act(self):
        out = super().act()
        if out and self.small_talk and self.prng.random() < self.small_talk:
            out.insert(0, self.say(self.prng.choice(self.SMALL_TALK)))
        return out

    def text_suggest(self, action: int, then: Optional[int] = None) -> list[str]:
        if then == action:
            return [f"can you go {WORD[action]} twice?"]
        return [self.prng.choice((f"can you go {WORD[action]}?", f"please move {WORD[action]}",
                                  f"go {WORD[action]}", f"could you move {WORD[action]}?"))]

    def text_answer(self, token, treasure, reading) -> list[str]:
        if treasure is None:
            return ["I can't see it this round, only you can."]
        return [f"The treasure is at {_where(token, treasure)}."]

    def text_ask(self) -> list[str]:
        return [self.prng.choice(("where is the treasure?", "Can you see the treasure? Where do we go?"))]


class TersePerson(PersonBrain):
    name = "terse"

    def text_suggest(self, action, then=None):
        return [f"{WORD[action]} twice" if then == action else WORD[action]]

    def text_answer(self, token, treasure, reading):
        return [f"col {treasure[0]} row {treasure[1]}"] if treasure else ["dunno"]

    def text_wall(self, c, action):
        return ["wall"]

    def text_ask(self):
        return ["where?"]


class ChattyPerson(PersonBrain):
    name = "chatty"
    small_talk = 0.15

    def text_suggest(self, action, then=None):
        if then is not None and then != STAY:
            return [f"OK so I think the best thing is if you go {WORD[action]} now, and then {WORD[then]} after "
                    f"my move, does that work for you?"]
        return [self.prng.choice((f"Hmm, could you please go {WORD[action]} this time?",
                                  f"I think you should move {WORD[action]} now, that would help a lot!"))]

    def text_answer(self, token, treasure, reading):
        if treasure is None:
            return ["Oh, I can't see the treasure this round, it must be on your side. Where should we go?"]
        return [f"Yes! I can see it, the treasure is at {_where(token, treasure)}. "
                f"{lang.treasure_direction(token, treasure).replace('The treasure is', 'So it is')}"]

    def text_wall(self, c, action):
        return [f"Oh no, there's a wall on my side, I can't go {WORD[action]} from here, sorry!"]

    def text_ask(self):
        return ["Hi! I can't see the treasure this round, can you? Which way should we go?"]


class TypoPerson(PersonBrain):
    name = "typos"

    def say_text(self, text: str) -> str:
        words = text.lower().replace("?", "").replace(",", "").split()
        for i, w in enumerate(words):
            if len(w) >= 4 and w.isalpha() and self.prng.random() < 0.45:
                j = self.prng.randrange(len(w) - 1)
                words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]  # two letters swapped, the commonest typo
        return " ".join(words)

    def text_suggest(self, action, then=None):
        return [self.say_text(t) for t in super().text_suggest(action, then)]

    def text_answer(self, token, treasure, reading):
        return [self.say_text(t) for t in super().text_answer(token, treasure, reading)]

    def text_wall(self, c, action):
        return [self.say_text(f"cant go {WORD[action]}, theres a wall")]

    def text_ask(self):
        return [self.say_text("where is the treasure")]


class PointerPerson(PersonBrain):
    """Suggests moves, explains nothing: a blocked suggestion is met with a different move in silence."""

    name = "pointer"

    def text_suggest(self, action, then=None):
        return [f"just go {WORD[action]}"]

    def text_answer(self, token, treasure, reading):
        return []

    def text_wall(self, c, action):
        return []

    def text_ask(self):
        return []


class IgnoringPerson(PersonBrain):
    name = "ignorer"

    def text_answer(self, token, treasure, reading):
        return []


class QuietPerson(PersonBrain):
    """Never describes a wall (a blocked suggestion is met with silence), but answers questions."""

    name = "quiet"

    def text_wall(self, c, action):
        return []


PEOPLE = {b.name: b for b in (TersePerson, ChattyPerson, TypoPerson, PointerPerson, IgnoringPerson, QuietPerson)}
