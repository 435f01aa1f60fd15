"""Scripted partners that behave like different people, for evaluating agents (`--population`, `--agents`).

Each partner plays like a person in the browser would: it writes plain English (no /share), reads the agent's chat
with the same rule-based reader, presses Agree / Reject (or just says yes and then submits), and judges tours by
what it knows: its own coins, the coins the agent told or showed it, and an even spread of the agent's budget
elsewhere (tasks.travel.brains.knowledge). The types differ in one trait each:

cooperative    person-terse     short lines, lower-case codes ("l-k 9, b-a 8"), buttons
               person-chatty    long friendly sentences, room names, numbers in words; agrees in chat
               person-typos     lower case with typos in room names and words ("kitchn livng 9"); agrees in chat
               person-quiet     shares nothing unless asked, then answers exactly
uncooperative  person-insisting proposes its own tour and rejects the agent's three times before it listens
               person-deferring rejects the first proposal without a reason, then says "you choose"
               person-liar      misreports one of its coins, every time it mentions it
               person-ignoring  shares its best coins once but never answers a question
Every choice is seeded (the brain's seed), so a population run is reproducible.
"""
from __future__ import annotations

from typing import Optional

from tasks.core import Brain, ChatShown, View

from ..board import ROOM_NAMES, normalize_tour
from ..solver import best_tour
from .knowledge import Knowledge, ekey, key_edge, value
from .reader import read
from .solver_brain import SolverBrain

COOPERATIVE = ("person-terse", "person-chatty", "person-typos", "person-quiet")
UNCOOPERATIVE = ("person-insisting", "person-deferring", "person-liar", "person-ignoring")
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
         10: "ten"}
SHORT_NAMES = {"E": "empty room", "C": "kids room", "L": "living room", "B": "bathroom", "K": "kitchen", "A": "attic",
               "G": "garden", "P": "playroom"}


class PersonBrain(Brain):
    """A scripted person. Subclasses set the traits below and may restyle the lines (`_coins_line`, ...)."""

    name = "person"
    opening_coins = 4        # how many of its best coins it tells unasked at the start
    answers = True           # answers questions about its coins
    agree_in_chat = False    # says yes instead of pressing Agree (then submits what the agent submitted)
    insist = 0               # rejects the agent's tours this often while pushing its own
    reject_first = False     # rejects the first proposal without a reason
    lies = False             # misreports one coin
    slack = 1.0              # accepts a tour within this many coins of its own best estimate
    counters = 1             # suggests its own tour against a worse-looking one this often, then gives in

    def __init__(self, seat: str, seed: int = 0, llm=None, options: Optional[dict] = None):
        super().__init__(seat, seed, llm, options)
        self.k: Optional[Knowledge] = None
        self._dirty = False
        self._heard: list[str] = []
        self._opened = False
        self._told: set = set()
        self._lie: Optional[tuple] = None
        self._rejected = 0
        self._countered = 0
        self._deferred = False
        self._insisted = 0
        self._agreed_to: Optional[list] = None

    # -- observing -------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.seat == self.seat and "rooms" in effect.data:
            prev, self.view = self.view, effect.data
            if self.k is None:
                self.k = Knowledge(effect.data)
                if self.lies:
                    e = self.rng.choice(sorted(self.k.own, key=lambda x: -self.k.own[x])[:3])
                    self._lie = (e, self.k.wmin + self.k.wmax - self.k.own[e])
            self.k.update_view(effect.data)
            if prev is None:
                self._dirty = self.seat == "light"
            elif self._agent_moved(prev, effect.data):
                self._dirty = True
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            self._heard.append(effect.text)
            self._dirty = True

    @staticmethod
    def _agent_moved(prev: dict, cur: dict) -> bool:
        return SolverBrain._partner_moved(prev, cur)  # only the agent's moves wake me, never my own

    # -- deciding --------------------------------------------------------------------------------------------
    def act(self):
        v = self.view
        if not self._dirty or v is None or v.get("result") or (v.get("core") or {}).get("phase") != "playing":
            return []
        self._dirty = False
        if v["turns_left"]["me"] == 0 and not v.get("partner_submitted") and len(v["agreed"]) < self.k.n + 1:
            return []
        lines: list[str] = []
        cmds: list[tuple] = []
        asks, ask_all = self._listen()
        if not self._opened:
            self._opened = True
            lines.append(self._hello(self._best_coins(self.opening_coins)))
        if (asks or ask_all) and self.answers:
            keys = list(self.k.own) if ask_all else asks
            lines.append(self._coins_line([(e, self._says(e)) for e in keys]))
        self._decide(lines, cmds)
        out = [self.say(" ".join(lines))] if lines else []
        out += [self.command(c[0], *c[1:]) for c in cmds]
        return out

    def _listen(self) -> tuple[list, bool]:
        asks, ask_all = [], False
        heard, self._heard = self._heard, []
        for text in heard:
            r = read(text, self.k.rooms, self.k.wmin, self.k.wmax)
            for e, w in r.coins.items():
                self.k.learn(e, w)
            if r.cap is not None:
                self.k.apply_cap(r.cap, {e for e in self.k.edges if e not in self.k.partner})
            asks += [e for e in r.asks if e not in asks]
            ask_all = ask_all or r.ask_all
        return asks, ask_all

    def _decide(self, lines: list, cmds: list) -> None:
        v, k = self.view, self.k
        agreed, pending, theirs = v["agreed"], v.get("pending"), v.get("partner_submitted")
        mine_sub = v["submitted"]["me"]
        if len(agreed) == k.n + 1:
            if mine_sub is None:
                cmds.append(("submit",))
            return
        if theirs and mine_sub is None and self._agreed_to and self._same(theirs, self._agreed_to):
            cmds.append(("submit", *theirs))  # I said yes in chat, the agent submitted it: so do I
            return
        if theirs and mine_sub is None and self._acceptable(theirs):
            lines.append(self._yes())
            cmds.append(("submit", *theirs))
            return
        if pending and not pending["mine"]:
            self._answer(pending["path"], lines, cmds)
        elif not pending and not lines and self.insist and self._insisted <= self.insist:
            self._push_own(lines, cmds)
        elif not pending and not lines:
            own = self._own_best()
            lines.append(self._suggest(own) if self.rng.random() < 0.5 else self._ok())

    def _answer(self, path: list, lines: list, cmds: list) -> None:
        if self.reject_first and not self._rejected:
            self._rejected += 1
            cmds.append(("reject",))
            return
        if self.reject_first and not self._deferred:
            self._deferred = True
            lines.append(self._you_choose())
            return
        if self.insist and self._insisted <= self.insist and not self._persuaded():
            self._push_own(lines, cmds, against=path)
            return
        if self._acceptable(path) or self._countered >= self.counters or self.reject_first or self.insist:
            self._accept(path, lines, cmds)
            return
        self._countered += 1
        own = self._own_best()
        diff = sorted(self._edges(own) ^ self._edges(path))  # sorted: a set's order changes with PYTHONHASHSEED
        lines.append(self._suggest(own))
        told = [(e, self._says(e)) for e in diff if e not in self._told][:3]
        if told:
            lines.append(self._coins_line(told))
        cmds.append(("reject",))

    def _accept(self, path: list, lines: list, cmds: list) -> None:
        if self.agree_in_chat and len(path) == self.k.n + 1:
            self._agreed_to = list(path)  # says yes and clicks the tour and Submit, no Agree button
            lines.append(self._yes())
            cmds.append(("submit", *path))
        else:
            cmds.append(("agree",))

    def _push_own(self, lines: list, cmds: list, against: Optional[list] = None) -> None:
        self._insisted += 1
        own = self._own_best()
        if against is not None:
            cmds.append(("reject",))
        lines.append(self._insist_line(own))
        cmds.append(("propose", *own))

    def _persuaded(self) -> bool:
        """An insisting person gives in after insisting enough, once the agent explains with numbers."""
        return self._insisted > self.insist

    # -- judging ---------------------------------------------------------------------------------------------
    def _edges(self, t) -> set:
        return {key_edge(f"{a}-{b}") for a, b in zip(t, t[1:])}

    def _same(self, a, b) -> bool:
        return normalize_tour(a, self.k.start) == normalize_tour(b, self.k.start)

    def _own_best(self) -> list:
        tour, _ = best_tour(self.k.weights("est"), self.k.rooms, self.k.start)
        return list(tour)

    def _acceptable(self, path: list) -> bool:
        k = self.k
        w = k.weights("est")
        if len(path) != k.n + 1:
            tour, val = best_tour(w, k.rooms, k.start, prefix=tuple(path))
        else:
            val = value(w, path)
        _, best = best_tour(w, k.rooms, k.start)
        return val >= best - self.slack

    # -- what it says ----------------------------------------------------------------------------------------
    def _says(self, e) -> int:
        self._told.add(e)
        if self._lie and e == self._lie[0]:
            return self._lie[1]
        return self.k.own[e]

    def _best_coins(self, n: int) -> list:
        top = sorted(self.k.own, key=lambda e: (-self.k.own[e], e))[:n]
        return [(e, self._says(e)) for e in top]

    def _hello(self, coins: list) -> str:
        return "hi. " + (self._coins_line(coins) if coins else "")

    def _coins_line(self, coins: list) -> str:
        return ", ".join(f"{ekey(e).lower()} {w}" for e, w in coins)

    def _suggest(self, tour: list) -> str:
        return "what about " + " ".join(tour).lower() + "?"

    def _insist_line(self, tour: list) -> str:
        return "i want " + " ".join(tour).lower()

    def _yes(self) -> str:
        return "ok"

    def _ok(self) -> str:
        return "ok"

    def _you_choose(self) -> str:
        return "you choose"


class TersePerson(PersonBrain):
    name = "person-terse"


class ChattyPerson(PersonBrain):
    name = "person-chatty"
    agree_in_chat = True

    def _name(self, r: str) -> str:
        return "the " + ROOM_NAMES.get(r, r).replace("empty room with no windows", "empty room")

    def _hello(self, coins: list) -> str:
        return "Hello there, nice to meet you! " + (self._coins_line(coins) if coins else "Let's find a nice tour.")

    def _coins_line(self, coins: list) -> str:
        parts = []
        for (u, v), w in coins:
            form = self.rng.choice(("between {u} and {v} I have {w} coins", "the hallway from {u} to {v} has {w} "
                                    "coins for me", "for {u} to {v} I've got {w}"))
            parts.append(form.format(u=self._name(u), v=self._name(v), w=WORDS.get(w, w)))
        return "So, " + ", and ".join(parts) + "."

    def _suggest(self, tour: list) -> str:
        return "Hmm, what about " + ", ".join(self._name(r)[4:] for r in tour) + "? I think that could be better."

    def _yes(self) -> str:
        return self.rng.choice(("Yes, that sounds great, let's do it!", "Perfect, that works for me.",
                                "Sounds good to me!"))

    def _ok(self) -> str:
        return "Alright, I'm listening, what do you suggest?"


class TypoPerson(PersonBrain):
    name = "person-typos"
    agree_in_chat = True

    def _typo(self, word: str) -> str:
        if len(word) < 5 or self.rng.random() < 0.3:
            return word
        i = self.rng.randrange(1, len(word) - 2)
        kind = self.rng.choice(("drop", "swap", "double"))
        if kind == "drop":
            return word[:i] + word[i + 1:]
        if kind == "swap":
            return word[:i] + word[i + 1] + word[i] + word[i + 2:]
        return word[:i] + word[i] + word[i:]

    def _room(self, r: str) -> str:
        return r.lower() if self.rng.random() < 0.5 else self._typo(SHORT_NAMES.get(r, r).split()[0])

    def _coins_line(self, coins: list) -> str:
        parts = []
        for (u, v), w in coins:
            form = self.rng.choice(("{u} {v} {w}", "{u}-{v} {w}", "for {u}-{v} ive got {w}", "{u} to {v} is {w}"))
            parts.append(form.format(u=self._room(u), v=self._room(v), w=w if self.rng.random() < 0.7 else WORDS[w]))
        return ", ".join(parts)

    def _hello(self, coins: list) -> str:
        return "hii " + self._coins_line(coins)

    def _suggest(self, tour: list) -> str:
        return "wat about " + " ".join(tour).lower()

    def _yes(self) -> str:
        return self.rng.choice(("ok lets do it", "sounds god", "yep lets do that", "okey"))

    def _ok(self) -> str:
        return "hmm ok, wat do u think"


class QuietPerson(PersonBrain):
    name = "person-quiet"
    opening_coins = 0
    agree_in_chat = True

    def _hello(self, coins: list) -> str:
        return "hi"


class InsistingPerson(PersonBrain):
    name = "person-insisting"
    opening_coins = 3
    insist = 3

    def _own_best(self) -> list:
        """Its own tour: the best on its own coins alone, whatever the agent says."""
        own = {e: float(w) for e, w in self.k.own.items()}
        tour, _ = best_tour(own, self.k.rooms, self.k.start)
        return list(tour)

    def _insist_line(self, tour: list) -> str:
        return self.rng.choice(("no, we should do {t}", "i really want {t}", "{t} is better, trust me")).format(
            t=" ".join(tour).lower())


class DeferringPerson(PersonBrain):
    name = "person-deferring"
    reject_first = True

    def _you_choose(self) -> str:
        return self.rng.choice(("you choose", "up to you", "whatever you think", "you decide"))


class LyingPerson(PersonBrain):
    name = "person-liar"
    lies = True


class IgnoringPerson(PersonBrain):
    name = "person-ignoring"
    answers = False


PARTNERS = {b.name: b for b in (TersePerson, ChattyPerson, TypoPerson, QuietPerson, InsistingPerson,
                                DeferringPerson, LyingPerson, IgnoringPerson)}
