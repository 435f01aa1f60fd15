"""The optimizer agent ("optimizer", no LLM; the default).

Its own cells are exact; the partner's are exact where told (converted to its own scale with the ratio of the two
scales, from cells both know or the partner's biggest number), 50 where the partner said it does not know them
(cells unknown to both count 50), and estimated elsewhere from what was said ("good", "bad", "my best for X is Y",
"everything else is lower").

Policy: open with its biggest number and its strong cells (the ones that can make a matching); answer every
question with its numbers; ask about the cells whose value could change the best matching (value of information,
`Knowledge.questions`); propose the best matching under what it knows, with its numbers for that matching, once no
question is worth asking (or after a few rounds, or when the word budget runs short); accept a proposal worth
(almost) as much as its own best, otherwise reject it, say which of its numbers make it worse, and propose its own.
Every partner message gets an answer or a move, so it never stalls.
"""
from __future__ import annotations

from typing import Optional

from tasks.core import Brain, ChatShown, Message, View

from ..names import N, PAPERS, REVIEWERS
from ..parse import format_proposal, read_message
from .knowledge import STRONG, Knowledge


def cell_name(r: int, p: int) -> str:
    return f"{REVIEWERS[r].split()[0]}-{PAPERS[p]}"


class OptimizerBrain(Brain):
    name = "optimizer"
    max_rounds = 4        # messages before it proposes whatever it knows
    tolerance = 0.01      # accept proposals within 1% of its own best

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.view: Optional[dict] = None
        self.k: Optional[Knowledge] = None
        self.inbox: list[str] = []
        self.opened = False
        self.sent = 0
        self.asked: set = set()
        self.rejections = 0
        self.last_pending: Optional[int] = None
        self.answered_pending: Optional[int] = None
        self.proposed_after: int = -1
        self.last_error = False
        self._waiting_note = False

    # --- observing ----------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View):
            v = effect.data
            if v.get("table") is not None:
                if self.k is None:
                    self.k = Knowledge(v["table"])
                self.view = v
        elif isinstance(effect, ChatShown) and effect.seat != self.seat:
            self.inbox.append(effect.text)
        elif isinstance(effect, Message) and effect.to == self.seat and effect.kind == "error":
            self.last_error = True

    def _over(self) -> bool:
        v = self.view
        return v is None or v.get("result") is not None or (v.get("core") or {}).get("phase") == "over"

    # --- acting -------------------------------------------------------------------------------------------------
    def act(self):
        if self._over() or self.k is None:
            return []
        v = self.view
        readings = [read_message(t) for t in self.inbox]
        self.inbox = []
        for rd in readings:
            self.k.learn(rd)
            if rd.cap_rest:
                self.k.p_cap = STRONG
        pending = v.get("pending")
        if v.get("turns_mode") == "alternate" and v.get("turn") != "me" and not v.get("must_respond"):
            return []
        if pending and not pending["mine"]:
            self.k.p_suggested |= {(r, p) for r, p in enumerate(pending["matching"])
                                   if self.k.own[r][p] is None and (r, p) not in self.k.told}
            if self.answered_pending == pending["id"]:
                return []
            self.answered_pending = pending["id"]
            return self._answer_proposal(pending["matching"], readings)
        if pending and pending["mine"]:
            # waiting for the answer; still answer questions in free chat
            if readings and v.get("turns_mode") != "alternate" and not v.get("final"):
                text = self._answers(readings)
                return [self.say(text)] if text else []
            return []
        if v.get("final"):
            return [self.command("propose", format_proposal(self.k.best()[0]))]
        if not readings and self.opened and not self._first_turn_pending():
            return []
        return self._talk(readings)

    def say(self, text: str, first: bool = True):
        """A chat line cut to the words left (a word budget refuses longer lines)."""
        left = (self.view or {}).get("words_left")
        if left is not None:
            words = text.split()
            if len(words) > left:
                text = " ".join(words[:max(1, left)])
        return super().say(text, first)

    def _first_turn_pending(self) -> bool:
        return False

    def _budget_short(self, extra: int = 0) -> bool:
        left = self.view.get("words_left")
        return left is not None and left - extra < 45

    def _talk(self, readings) -> list:
        parts = []
        answers = self._answers(readings)
        if answers:
            parts.append(answers)
        if not self.opened:
            self.opened = True
            parts.insert(0, self._opening())
        else:
            # a partner's full matching in chat is treated like a proposal to consider
            for rd in readings:
                if rd.matching is not None:
                    mine, best = self.k.best()
                    if self.k.value(rd.matching) >= best * (1 - self.tolerance):
                        return self._propose(rd.matching, "Sounds good, proposing that.", parts)
        limit = 6 if self.view.get("words_left") is None else 3
        qs = [c for c in self.k.questions(limit) if c not in self.asked]
        text = " ".join(parts)
        if self.view.get("proposals", 0) >= 6 and self.sent >= 1:
            # a long negotiation: let the partner decide between what is on the table
            if not self._waiting_note:
                self._waiting_note = True
                self.sent += 1
                return [self.say("Your turn to propose: send the matching you think is best and I will consider it.")]
            return []
        if (not qs or self.sent >= self.max_rounds or self._budget_short(len(text.split()))) and self.sent >= 1:
            return self._propose(self.k.best()[0], "", parts)
        if qs:
            self.asked.update(qs)
            parts.append("What do you have for " + ", ".join(cell_name(r, p) for r, p in qs) + "?")
        elif not parts:
            parts.append("Let me know your strongest reviewer-paper pairs with their numbers.")
        self.sent += 1
        return [self.say(" ".join(parts))]

    def _opening(self) -> str:
        k = self.k
        strong = sorted(((v, r, p) for r, row in enumerate(k.own) for p, v in enumerate(row)
                         if v is not None and v >= STRONG * k.scale), reverse=True)
        lines = [f"Hi! My biggest number is {int(k.top)}."]
        if self.view.get("words_left") is not None:
            # a word budget: only the strong cells of the best matching as far as known, and the very best others
            best_m, _ = k.best()
            keep = [c for c in strong if best_m[c[1]] == c[2]] + [c for c in strong if best_m[c[1]] != c[2]][:2]
            strong = sorted(keep, reverse=True)
            lines = [f"My top is {int(k.top)}."]
        if strong:
            lines.append("My strong ones: " + ", ".join(f"{cell_name(r, p)} {int(v)}" for v, r, p in strong) + ".")
            lines.append("Everything else I see is lower.")
        else:
            lines.append("I have no strong numbers at all.")
        return " ".join(lines)

    def _answers(self, readings) -> str:
        cells: list = []
        for rd in readings:
            cells += sorted(rd.asked_cells)
            for r in sorted(rd.asked_rows):
                cells += [(r, p) for p in range(N)]
            for p in sorted(rd.asked_cols):
                cells += [(r, p) for r in range(N)]
        cells = list(dict.fromkeys(cells))
        if not cells:
            return ""
        known = [(r, p) for r, p in cells if self.k.own[r][p] is not None]
        unknown = [(r, p) for r, p in cells if self.k.own[r][p] is None]
        out = []
        if known:
            out.append("I have " + ", ".join(f"{cell_name(r, p)} {int(self.k.own[r][p])}" for r, p in known) + ".")
        if unknown and len(unknown) <= 8:
            out.append("I don't know " + ", ".join(cell_name(r, p) for r, p in unknown) + ".")
        elif unknown:
            out.append("I don't know the others.")
        return " ".join(out)

    def _numbers_for(self, matching) -> str:
        mine = [(r, p) for r, p in enumerate(matching) if self.k.own[r][p] is not None]
        if not mine:
            return ""
        return "My numbers there: " + ", ".join(f"{cell_name(r, p)} {int(self.k.own[r][p])}" for r, p in mine) + "."

    def _propose(self, matching, lead: str, parts: list) -> list:
        moves = []
        text = " ".join([p for p in [lead, *parts, self._numbers_for(matching)] if p])
        if text and not self.view.get("final") and not self._budget_short(len(text.split()) - 44):
            moves.append(self.say(text))
        moves.append(self.command("propose", format_proposal(matching), first=not moves))
        self.sent += 1
        return moves

    def _answer_proposal(self, matching, readings) -> list:
        k = self.k
        best_m, best_v = k.best()
        val = k.value(matching)
        tol = self.tolerance if self.rejections < 2 else 0.08 * self.rejections
        if val >= best_v * (1 - tol) or self.view.get("final") or self.rejections >= 4:
            return [self.command("accept")]
        self.rejections += 1
        moves = [self.command("reject")]
        worse = [(r, p) for r, p in enumerate(matching) if best_m[r] != p and k.own[r][p] is not None]
        text = "That one looks worse to me."
        if worse:
            text += " I have " + ", ".join(f"{cell_name(r, p)} {int(k.own[r][p])}" for r, p in worse) + "."
        answers = self._answers(readings)
        if answers:
            text += " " + answers
        if not self.view.get("final"):
            text += " " + self._numbers_for(best_m)
            moves.append(self.say(text.strip(), first=False))
        moves.append(self.command("propose", format_proposal(best_m), first=False))
        self.sent += 1
        return moves
