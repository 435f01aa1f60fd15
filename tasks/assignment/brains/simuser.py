"""A simulated person for self-play ("simuser"): talks plain English (varied phrasings, first names, lower case,
the odd typo), not the optimizer's templates. It shares a few of its best cells, answers questions about cells,
rows and papers, judges proposals on what it knows and proposes its own best matching when the talk goes on."""
from __future__ import annotations

import random
from typing import Optional

from tasks.core import Brain, ChatShown, View

from ..names import N, PAPERS, REVIEWERS
from ..parse import format_proposal
from .english import read_message
from .knowledge import Knowledge

OPENERS = ["hey!", "hi there", "hello :)", "hey, ready when you are", "hi"]
GOOD = ["{r} is great for {p}, like {v}", "{r} looks really strong on {p} ({v})", "{p}: {r} has {v} for me",
        "i see {v} for {r} on {p}", "{r} would be good at {p}, around {v}"]
BEST = ["my best for {p} is {r}", "for {p} the top one i have is {r}"]
HAVE = ["{r} on {p}? i'd say {v}", "{r} / {p} is {v}", "i have {v} for {r} and {p}", "{p} with {r}: {v}"]
NONE = ["no idea about {r} and {p}", "i can't see {r} for {p}", "{r} {p} is blank for me",
        "don't know {r} on {p}"]
ACK = ["ok got it", "makes sense", "cool, thanks", "alright", "good to know"]


def typo(word: str, rng: random.Random) -> str:
    if len(word) < 5 or rng.random() > 0.2:
        return word
    i = rng.randrange(1, len(word) - 2)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


class SimUserBrain(Brain):
    name = "simuser"
    accept_ratio = 0.95

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.k: Optional[Knowledge] = None
        self.inbox: list[str] = []
        self.opened = False
        self.said = 0
        self.shared: set = set()
        self.answered: Optional[int] = None
        self.rejected = 0

    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.data.get("table") is not None:
            if self.k is None:
                self.k = Knowledge(effect.data["table"])
            self.view = effect.data
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            self.inbox.append(effect.text)

    def _r(self, r: int) -> str:
        return typo(REVIEWERS[r].split()[0], self.rng) if self.rng.random() < 0.8 else REVIEWERS[r]

    def _p(self, p: int) -> str:
        name = PAPERS[p].lower() if self.rng.random() < 0.5 else PAPERS[p]
        return typo(name, self.rng)

    def act(self):
        v = self.view
        if v is None or self.k is None or v.get("result") is not None:
            return []
        readings = [read_message(t) for t in self.inbox]
        self.inbox = []
        for rd in readings:
            self.k.learn(rd)
        if v.get("turns_mode") == "alternate" and v.get("turn") != "me" and not v.get("must_respond"):
            return []
        pending = v.get("pending")
        if pending and not pending["mine"]:
            if self.answered == pending["id"]:
                return []
            self.answered = pending["id"]
            _, best = self.k.best()
            ratio = self.accept_ratio - 0.05 * self.rejected
            if self.k.value(pending["matching"]) >= ratio * best or v.get("final") or self.rejected >= 3:
                return [self.command("accept")]
            self.rejected += 1
            return [self.command("reject"), self.say(self._why(pending["matching"]), first=False)]
        if pending:
            return []
        if v.get("final"):
            return [self.command("propose", format_proposal(self.k.best()[0]))]
        if self.opened and not readings:
            return []
        parts = []
        if not self.opened:
            self.opened = True
            parts.append(self.rng.choice(OPENERS))
            if self.rng.random() < 0.7:
                parts.append(f"my highest number is {int(self.k.top)}")
            parts += self._strong(self.rng.randint(2, 4))
        for rd in readings:
            parts += self._answer(rd)
        if not parts:
            parts.append(self.rng.choice(ACK))
            parts += self._strong(1)
        self.said += 1
        moves = [self.say(". ".join(parts))]
        if self.said >= 6 and self.rng.random() < 0.5:
            moves.append(self.command("propose", format_proposal(self.k.best()[0]), first=False))
        return moves

    def _strong(self, n: int) -> list[str]:
        k = self.k
        cells = sorted(((v, r, p) for r, row in enumerate(k.own) for p, v in enumerate(row)
                        if v is not None and (r, p) not in self.shared), reverse=True)[:n]
        out = []
        for v, r, p in cells:
            self.shared.add((r, p))
            if self.rng.random() < 0.2:
                out.append(self.rng.choice(BEST).format(r=self._r(r), p=self._p(p)))
            else:
                out.append(self.rng.choice(GOOD).format(r=self._r(r), p=self._p(p), v=int(v)))
        return out

    def _answer(self, rd) -> list[str]:
        cells = list(rd.asked_cells) + [(r, p) for r in rd.asked_rows for p in range(N)] + \
            [(r, p) for p in rd.asked_cols for r in range(N)]
        out = []
        unknown = []
        for r, p in sorted(set(cells)):
            v = self.k.own[r][p]
            if v is None:
                unknown.append((r, p))
            else:
                out.append(self.rng.choice(HAVE).format(r=self._r(r), p=self._p(p), v=int(v)))
        if len(unknown) > 3:
            out.append("the rest of those i don't know")
        else:
            out += [self.rng.choice(NONE).format(r=self._r(r), p=self._p(p)) for r, p in unknown]
        return out

    def _why(self, matching) -> str:
        k = self.k
        best_m, _ = k.best()
        bad = [(r, p) for r, p in enumerate(matching) if best_m[r] != p and k.own[r][p] is not None]
        if bad:
            r, p = min(bad, key=lambda c: k.own[c[0]][c[1]])
            return f"hmm no, {self._r(r)} is not great for {self._p(p)} on my side ({int(k.own[r][p])})"
        return "hmm, i think we can do better than that"
