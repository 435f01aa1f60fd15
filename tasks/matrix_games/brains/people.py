"""Scripted people for `--population`: partners who talk the way people write in chat (lower case, short, typos,
questions back), not in the agents' templates. Every one of them is also the instrument that measures the agent it
plays: `report` counts what a person would notice (see `tasks/matrix_games/people_games.py`).

Kinds (all trust the agent: they play their best reply to the move it last said it would play, or their part of
an agreed pair, else their own wish; in game trees they play the subgame-perfect move):
- `person-cooperative`: says what it wants ("how about we both go football?") and agrees to any equilibrium.
- `person-once`: states its wish once, then only clicks Stop talking and its move.
- `person-asker`: asks back: "why?", "what will you play?", "what should i play then?", then agrees.
- `person-rejecter`: "no" / "nope" / "not that" to the first two proposals, no reason given, then agrees.
- `person-deferrer`: "you pick", "whatever works for you", "up to you", then "ok".
- `person-terse`: lower case, few words, typos ("lets both do footbal", "k").
- `person-agreeable`: "sounds good" to whatever the agent says.
"""
from __future__ import annotations

import random
import re
from typing import Optional

from .. import solvers
from ..parse import read_talk
from .base import SeatBrain

# Phrases, as people write them in the released Deal or No Deal dialogues (lower case, short, "ok", "deal", "?").
PROPOSE = ("how about we both go {mine}?", "lets both do {mine}", "i want us both on {mine}",
           "can we do {mine}? i play {mine}", "i'd like {mine}, you play {theirs}")
PROPOSE_ASYM = ("how about i play {mine} and you play {theirs}?", "i'll do {mine}, you do {theirs}",
                "i play {mine} and you {theirs}, ok?")
AGREE = ("ok sounds good", "deal", "ok, deal", "sure", "ok lets do that", "yes sounds perfect . deal")
AGREEABLE = ("sounds good", "sounds good to me", "ok sounds good!", "sounds good, thanks")
WHY = ("why?", "why that one?", "why this one?", "how come?")
WHAT_YOU = ("what will you play?", "so what are you playing?", "what's your move?")
WHAT_ME = ("what should i play then?", "and what do i play?")
REJECT = ("no", "nope", "not that", "no .", "nah")
DEFER = ("you pick", "whatever works for you", "up to you", "i don't mind, you choose")
OK = ("ok", "ok thanks", "alright", "fine by me")
TERSE_OK = ("k", "ok", "oki", "sure")
QUESTION_KINDS = {"why": WHY, "what_you": WHAT_YOU, "what_me": WHAT_ME}
REASON = re.compile(r"\b(because|since|so\b|equilibrium|gains?\b|gives?\b|best|better|stable|whatever you|"
                    r"neither|worse|credible|backwards|ends?\b|payoff|reward)", re.I)
PLAN = re.compile(r"\b(you play|i will play|i'll play|i play)\s+([a-z0-9_]+)", re.I)


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 5 or not word.isalpha() or rng.random() > 0.5:
        return word
    i = rng.randrange(1, len(word) - 1)
    return rng.choice([word[:i] + word[i + 1:], word[:i] + word[i + 1] + word[i] + word[i + 2:]])


def _label(label: str) -> str:
    return label.replace("_", " ").lower()


class MatrixPerson(SeatBrain):
    """The cooperative person, and the base of the others (`talk_kind` is what differs)."""

    name = "person-cooperative"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.report = {"agent_lines": [], "questions": 0, "unanswered": [], "stalls": 0, "statements": 0,
                       "kept": 0, "broken": []}
        self._asked: Optional[str] = None   # my question waiting for the agent's next line
        self._expects_reply = False         # I said something the agent should answer
        self._path: list = []               # the moves of this trial seen so far (trees)
        self._outcomes = 0
        self._plan: Optional[tuple] = None  # (node the agent's last plan was said at, [(who, label)])
        self._stated: Optional[str] = None  # the agent's own move as it last said it (matrix)
        self._phrase = 0

    def new_step(self, view) -> None:
        self.turn = 0
        self.agreed: Optional[tuple[str, str]] = None  # (my move, theirs)
        self.rejections = 0
        self._stated = None

    # --- what a person notices --------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        from tasks.core import ChatShown, View
        before_view = self.view
        if isinstance(effect, View) and effect.seat == self.seat and before_view:
            self._moves_seen(before_view, effect.data)
        if isinstance(effect, View) and effect.seat == self.seat and effect.data.get("stage") == "move":
            if self._expects_reply:  # the talk ended on my line and the agent never answered it
                self.report["stalls"] += 1
                self.note("stall")  # for the discipline audit of the logs (--population)
                if self._asked:
                    self.report["unanswered"].append(self._asked)
                self._asked, self._expects_reply = None, False
        super().observe(effect)
        if isinstance(effect, ChatShown) and effect.seat != self.seat:
            self._agent_line(effect.text)

    def _agent_line(self, text: str) -> None:
        self.report["agent_lines"].append(text)
        self._expects_reply = False
        v = self.view
        if v.get("game", {}).get("kind") == "matrix":
            said = read_talk(text, v["my_actions"], v["their_actions"]).theirs
            if said is not None:
                self._stated = said
        else:
            plan = [("me" if w.lower() == "you play" else "agent", lab) for w, lab in PLAN.findall(text)]
            if plan:
                self._plan = (tuple(self.view.get("path") or ()), plan)
        if self._asked:
            if not self._answers(self._asked, text):
                self.report["unanswered"].append(self._asked)
            self._asked = None

    def _answers(self, question: str, text: str) -> bool:
        v = self.view
        if question in WHY:
            return bool(REASON.search(text))
        if v.get("game", {}).get("kind") != "matrix":
            return bool(PLAN.search(text))
        talk = read_talk(text, v["my_actions"], v["their_actions"])
        return (talk.theirs if question in WHAT_YOU else talk.mine) is not None

    def _moves_seen(self, old: dict, new: dict) -> None:
        """Compare each move the agent made with what it last said it would play."""
        if new.get("game", {}).get("kind") == "matrix":
            outs = new.get("outcomes") or []
            if len(outs) > self._outcomes:
                self._outcomes = len(outs)
                played = outs[-1].get("their_move")
                if self._stated is not None and played is not None:
                    self._check(self._stated, played)
            return
        outs = new.get("outcomes") or []
        path = list(outs[-1]["path"]) if len(outs) > self._outcomes else list(new.get("path") or [])
        self._outcomes = len(outs)
        tree = old.get("tree")
        for n in range(len(self._path), len(path)):
            node = tree
            for lab in path[:n]:
                node = node["moves"][lab]
            if node.get("mover") == "partner" and self._plan is not None:
                said_at, plan = self._plan
                i = n - len(said_at)
                if (0 <= i < len(plan) and list(said_at) == path[:len(said_at)]
                        and [lab for _w, lab in plan[:i]] == [_label(x).replace(" ", "_") for x in path[len(said_at):n]]
                        and plan[i][0] == "agent"):
                    self._check(plan[i][1], path[n])
        self._path = [] if len(outs) and path == list(outs[-1]["path"]) else path

    def _check(self, said: str, played: str) -> None:
        self.report["statements"] += 1
        if _label(said).replace(" ", "_") == _label(played).replace(" ", "_"):
            self.report["kept"] += 1
        else:
            self.report["broken"].append((said, played))

    # --- talking ------------------------------------------------------------------------------------------------
    def pick(self, options) -> str:
        self._phrase += 1
        return options[(self.seed + self._phrase) % len(options)]

    def wish(self) -> Optional[tuple[int, int]]:
        """My favourite pure equilibrium (mine, theirs), else None."""
        p = self.bimatrix()
        ne = solvers.pure_nash(p)
        return max(ne, key=lambda c: (p[c[0]][c[1]][0], sum(p[c[0]][c[1]]))) if ne else None

    def propose_text(self) -> Optional[str]:
        v = self.view
        if v["game"]["kind"] != "matrix":
            strategy, _path, _value = self.spe()
            here = tuple(v["path"])
            if v.get("mover") == "me":
                return f"i'll take {_label(strategy[here])}"
            return f"you should play {_label(strategy[here])}"
        w = self.wish()
        if w is None:
            return None
        mine, theirs = _label(v["my_actions"][w[0]]), _label(v["their_actions"][w[1]])
        return self.pick(PROPOSE if mine == theirs else PROPOSE_ASYM).format(mine=mine, theirs=theirs)

    def last_turn(self) -> bool:
        neg = self.view["negotiation"]
        return neg["rounds"] and neg["round"] is not None and neg["round"] >= neg["rounds"]

    def agree_to_halt(self) -> bool:
        return not (self._asked or self._expects_reply)  # not while I wait for an answer

    def heard_talk(self):
        v = self.view
        if not self.heard or v["game"]["kind"] != "matrix":
            return None
        return read_talk(self.heard[-1], v["my_actions"], v["their_actions"])

    def talk(self):
        self.turn += 1
        text, halt = self.talk_kind()
        if text:
            self._expects_reply = not halt
            for options in QUESTION_KINDS.values():
                if text in options:
                    self._asked = text
                    self.report["questions"] += 1
        return text, halt

    def talk_kind(self) -> tuple[Optional[str], bool]:
        if self.turn == 1 and not self.heard:
            return self.propose_text() or self.pick(WHAT_YOU), False
        return self.pick(AGREE), True

    # --- moving -------------------------------------------------------------------------------------------------
    def choose(self) -> str:
        v = self.view
        if v["game"]["kind"] != "matrix":
            strategy, _p, _v = self.spe()
            return strategy[tuple(v["path"])]
        p = self.bimatrix()
        if self._stated is not None:  # trust: my best reply to what the agent said it plays
            j = v["their_actions"].index(self._stated)
            return v["my_actions"][solvers.best_responses(p, 0)[j][0]]
        w = self.wish()
        return v["my_actions"][w[0]] if w else v["my_actions"][0]


class OncePerson(MatrixPerson):
    name = "person-once"

    def talk_kind(self):
        if self.turn == 1:
            return self.propose_text(), True
        return None, True


class AskerPerson(MatrixPerson):
    name = "person-asker"

    def talk_kind(self):
        if self.turn == 1:
            self.todo = ([] if self.heard else [WHAT_YOU]) + [WHY, WHAT_YOU, WHAT_ME]
            self.todo = list(dict.fromkeys(self.todo))
        if self.last_turn() or not self.todo:
            return self.pick(AGREE), True
        return self.pick(self.todo.pop(0)), False


class RejecterPerson(MatrixPerson):
    name = "person-rejecter"

    def talk_kind(self):
        if self.turn == 1 and not self.heard:
            return self.propose_text() or self.pick(WHAT_YOU), False
        self.rejections += 1
        if self.rejections <= 2 and not self.last_turn():
            return self.pick(REJECT), False
        return self.pick(OK), True


class DeferrerPerson(MatrixPerson):
    name = "person-deferrer"

    def talk_kind(self):
        if self.turn <= 2 and not self.last_turn():
            return self.pick(DEFER), False
        return self.pick(OK), True


class TersePerson(MatrixPerson):
    name = "person-terse"

    def talk_kind(self):
        rng = random.Random(f"{self.seed}:{self.turn}")
        if self.turn == 1 and not self.heard:
            text = (self.propose_text() or "wat u playing").replace("?", "").replace("'", "")
            return " ".join(_typo(w, rng) for w in text.split()), False
        return self.pick(TERSE_OK), True


class AgreeablePerson(MatrixPerson):
    name = "person-agreeable"

    def talk_kind(self):
        if self.turn == 1 and not self.heard:
            return "hi! i'm easy, tell me what you want to do", False
        return self.pick(AGREEABLE), True


PEOPLE = {b.name: b for b in (MatrixPerson, OncePerson, AskerPerson, RejecterPerson, DeferrerPerson, TersePerson,
                              AgreeablePerson)}
