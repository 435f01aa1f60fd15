"""The optimizer agent ("optimizer", no LLM; the default).

Its own cells are exact; the partner's are exact where told (converted to its own scale with the ratio of the two
scales, from cells both know or the partner's biggest number), 50 where the partner said it does not know them
(cells unknown to both count 50), and estimated elsewhere from what was said: graded words ("decent", "dark green",
"bad"), pairs put forward, "my best for X is Y", "everything else is lower", the partner's proposals (good to it)
and its rejections of mine (one of my guesses there was low; a rejected matching is never proposed again as it is).
A replayed prefix of a human dialogue (prompted self-play) is read the same way, proposals and "ok"s included.

Policy: open with its biggest number and its strong cells (the ones that can make a matching); answer every
question with its numbers; ask about the cells whose value could change the best matching (value of information,
`Knowledge.questions`); propose the best matching under what it knows, with its numbers for that matching, once no
question is worth asking and the partner has told it something (or when asked to: "you choose", "just propose"; or
after a few rounds; or when the word budget runs short); accept a proposal worth (almost) as much as its own best,
otherwise reject it, say which of its numbers make it worse, and propose its own. Every partner message gets a reply
(while its proposal is open too: revised when what was said changes its best matching), never the same line twice.
Under a word budget, once chat is spent, the final proposal is left to the player who heard more about the other's
table (on a tie, to the one who did not write the last line); both count the same lines alike, so exactly one of
two optimizers proposes. That proposal (or the answer to a proposal then) uses the posterior mean of the table given
what it knows and the hardness test every instance passed (`hardness.py`), since nothing said can correct it.
"""
from __future__ import annotations

import re
from typing import Optional

from tasks.core import Brain, ChatShown, View

from ..generator import best_matching
from ..names import N, PAPERS, REVIEWERS
from ..parse import format_proposal
from .english import last_reviewer, read_message
from .hardness import posterior_means
from .knowledge import STRONG, Knowledge


def cell_name(r: int, p: int) -> str:
    return f"{REVIEWERS[r].split()[0]}-{PAPERS[p]}"


AGAIN = ("Again:", "To repeat:", "Once more:", "Still:")
WAITING = ["My proposal stands: please /accept or /reject it (or tell me what to change).",
           "Take your time: you can /accept my proposal, or /reject it and tell me what you would change.",
           "If a pair in my proposal looks bad to you, tell me which one and your number for it.",
           "Still waiting for your answer to my proposal: /accept or /reject (the buttons work too)."]
YOUR_TURN = ["Your turn to propose: send the matching you think is best and I will consider it.",
             "We have tried several matchings: please propose the one you like best and I will judge it."]


class OptimizerBrain(Brain):
    name = "optimizer"
    max_rounds = 4        # messages before it proposes whatever it knows
    tolerance = 0.01      # accept proposals within 1% of its own best

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.k: Optional[Knowledge] = None
        self.inbox: list[str] = []
        self.opened = False
        self.sent = 0
        self.asked: set = set()
        self.rejections = 0
        self.answered_pending: Optional[int] = None
        self._waiting_note = False
        self.last_speaker: Optional[str] = None   # who wrote the last chat line (both players see the same)
        self.deferred = False
        self._my_pairs: set = set()                # pairs my last line put forward, for the partner's "ok"
        self._last_rev: Optional[int] = None        # the reviewer named last in chat ("she" in the next line)
        self._prev: dict = {}                       # inbox index -> the reviewer named last before that line
        self.heard = False                          # the partner has told me something about the table
        self._said: set = set()                     # every line said (never the same twice)
        self._asked_top = False
        self._was_rejected = False
        self._facts = {"mine": 0, "theirs": 0}     # facts about the table each player has heard (both can count)
        self._final_cache = None                    # (knowledge version, estimates for the final proposal)

    # --- observing ----------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View):
            v = effect.data
            if v.get("table") is not None:
                if self.k is None:
                    self.k = Knowledge(v["table"])
                self._track_proposals(v)
                self.view = v
        elif isinstance(effect, ChatShown):
            self.last_speaker = effect.seat
            prev, self._last_rev = self._last_rev, last_reviewer(effect.text) or self._last_rev
            rd = read_message(effect.text, prev)
            heard_by = "mine" if effect.seat != self.seat else "theirs"
            self._facts[heard_by] += (len(rd.values) + len(rd.rated) + len(rd.suggested) + len(rd.best_in_paper)
                                      + len(rd.unknown) // 4)
            if effect.seat != self.seat:
                self.inbox.append(effect.text)
                self._prev[len(self.inbox) - 1] = prev
                self._answer_to_mine(effect.text)
            elif self.k is not None:  # pairs my seat put forward (a person's lines in a replayed prefix)
                self._my_pairs = (set(rd.suggested) | set(rd.good) | set(rd.asked_cells)
                                  | {(r, p) for p, r in rd.best_in_paper.items()})

    def _answer_to_mine(self, text: str) -> None:
        """ "ok" / "sounds good" right after my seat put pairs forward: the partner sees nothing against them;
        "no, bad" without names: they are low for the partner."""
        pairs, self._my_pairs = self._my_pairs, set()
        if self.k is None or not pairs:
            return
        rd = read_message(text)
        if any(m for m in (rd.values, rd.rated, rd.suggested, rd.unknown, rd.asked_cells)):
            return
        fresh = {c for c in pairs if self.k.own[c[0]][c[1]] is None and c not in self.k.told}
        low = text.lower()
        if rd.yes or re.search(r"\b(agree|concur|sounds good|works|same|perfect|fine|k|kk|yes|yep|sure)\b", low):
            self.k.p_suggested |= fresh
        elif re.search(r"\b(no|nope|bad|not (good|great)|terrible|low)\b", low):
            self.k.p_rated.update({c: 38.0 for c in fresh})

    def _track_proposals(self, v: dict) -> None:
        """Proposals as evidence, also while a recorded prefix is replayed: the partner's own matching looks good to
        it; a matching of mine that disappears unanswered by me was rejected by the partner."""
        before = (self.view or {}).get("pending")
        now = v.get("pending")
        if now and (not before or before["id"] != now["id"]) and not now["mine"]:
            self.k.partner_proposed(now["matching"])
        if before and before["mine"] and not now and v.get("result") is None:
            self.k.partner_rejected(before["matching"])
            self._was_rejected = True

    def _over(self) -> bool:
        v = self.view
        return v is None or v.get("result") is not None or (v.get("core") or {}).get("phase") == "over"

    # --- acting -------------------------------------------------------------------------------------------------
    def act(self):
        if self._over() or self.k is None:
            return []
        v = self.view
        readings = [read_message(t, self._prev.get(i)) for i, t in enumerate(self.inbox)]
        self.inbox, self._prev = [], {}
        learned = False
        if readings:
            self._was_rejected = False  # (only a rejection without a word gets a question of its own)
        for rd in readings:
            learned = self.k.learn(rd) or learned
            if rd.cap_rest:
                self.k.p_cap = STRONG
        self.heard = self.heard or any(rd.values or rd.unknown or rd.rated or rd.good or rd.bad or rd.suggested
                                       or rd.best_in_paper or rd.cap_rest or rd.matching for rd in readings)
        pending = v.get("pending")
        if v.get("turns_mode") == "alternate" and v.get("turn") != "me" and not v.get("must_respond"):
            return []
        if pending and not pending["mine"]:
            if self.answered_pending == pending["id"]:
                return []
            self.answered_pending = pending["id"]
            return self._answer_proposal(pending["matching"], readings)
        if pending and pending["mine"]:
            # waiting for the answer; in free chat every message still gets a reply
            if readings and v.get("turns_mode") != "alternate" and not v.get("final"):
                return self._while_waiting(pending["matching"], readings, learned)
            return []
        if v.get("final"):
            # The word budget is spent: the final proposal is for the player who heard more about the partner's
            # table (on a tie, the one who did not write the last line: it has heard everything both said). Both
            # players count the same lines with the same reader, so exactly one of two optimizers waits. Once only:
            # woken again, it proposes itself.
            if self._leave_final_to_partner() and not self.deferred and v.get("turns_mode") != "alternate":
                self.deferred = True
                return []
            return [self.command("propose", format_proposal(self._final_best()[0]))]
        if not readings and self.opened:
            if self._was_rejected and v.get("words_left") is None and v.get("turns_mode") != "alternate":
                self._was_rejected = False  # a person rejected my proposal without a word: ask what to change
                return self._talk([])
            return []
        return self._talk(readings)

    def _leave_final_to_partner(self) -> bool:
        """Whether the partner, not me, should make the final proposal (decided from public data only)."""
        mine, theirs = self._facts["mine"], self._facts["theirs"]
        return theirs > mine or (theirs == mine and self.last_speaker == self.seat)

    def _final_table(self):
        """My estimates for the final proposal (no talk can correct it): the posterior mean given what I know and
        the hardness test every instance passed (`hardness.py`); the plain estimates when that finds nothing."""
        if self._final_cache is None or self._final_cache[0] != self.k.version:
            want = int((self.options or {}).get("final_tables", 100))  # 0: the plain estimates (fast, for tests)
            table = posterior_means(self.k, seed=self.seed, want=want) if want > 0 else None
            self._final_cache = (self.k.version, self.k.estimates() if table is None else table)
        return self._final_cache[1]

    def _final_best(self, matching=None) -> tuple[list[int], float, float]:
        """(best matching, its value, the value of `matching`) on the final estimates."""
        est = self._final_table()
        m = best_matching(est)
        value = lambda mm: float(sum(est[r, p] for r, p in enumerate(mm)))  # noqa: E731
        return m, value(m), value(matching) if matching is not None else 0.0

    def say(self, text: str, first: bool = True):
        """A chat line cut to the words left (a word budget refuses longer lines)."""
        left = (self.view or {}).get("words_left")
        if left is not None:
            words = text.split()
            if len(words) > left:
                text = " ".join(words[:max(1, left)])
        if text in self._said and left is None:
            # never the same line twice (people read a repeat as a stuck bot): say that it is a repeat
            text = next((f"{lead} {text}" for lead in AGAIN if f"{lead} {text}" not in self._said),
                        f"({len(self._said)}) {text}")
        self._said.add(text)
        return super().say(text, first)

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
        if any(rd.request for rd in readings):  # "you choose", "just propose"
            return self._propose(self.k.best()[0], "Sure, here is my proposal.", parts)
        limit = 6 if self.view.get("words_left") is None else 3
        qs = [c for c in self.k.questions(limit) if c not in self.asked]
        people = self.view.get("words_left") is None and self.view.get("turns_mode") != "alternate"
        if people and not self.heard and not qs and self.sent < self.max_rounds:
            # nothing learnt yet: ask again (in other words) before proposing on my own numbers alone
            qs = [c for c in self.k.questions(limit) if not self.k.exact(*c)][:4]
            if qs:
                cells = ", ".join(cell_name(r, p) for r, p in qs)
                parts.append(self._vary([f"Could you tell me your numbers for {cells}? Or just tell me which pairs "
                                         "look strong to you.",
                                         f"Which reviewer-paper pairs are high in your table? Numbers help, e.g. "
                                         f"for {cells}.",
                                         f"I know nothing of your table yet: what do you see for {cells}?"]))
                self.sent += 1
                return [self.say(" ".join(parts))]
        ask_top = (people and self.k.told and self.k.p_top is None and not self._asked_top
                   and not any(self.k.own[r][p] is not None for r, p in self.k.told))
        if ask_top:  # a told number means little until the two scales can be compared
            self._asked_top = True
            parts.append("What is the biggest number in your table?")
        text = " ".join(parts)
        if self.view.get("proposals", 0) >= 6 and self.sent >= 1:
            # a long negotiation: let the partner decide between what is on the table
            if not self._waiting_note or (people and readings):
                self._waiting_note = True
                self.sent += 1
                return [self.say(" ".join(parts + [self._vary(YOUR_TURN)]))]
            return []
        ready = (not qs and (self.heard or not people)) or self.sent >= self.max_rounds
        if (ready or self._budget_short(len(text.split()))) and self.sent >= 1 and not ask_top:
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

    def _while_waiting(self, matching, readings, learned: bool) -> list:
        """My proposal is open and the partner writes: answer, revise the proposal when what it said changes my
        best matching, otherwise say that the proposal stands (under a word budget: answers only)."""
        parts = [a] if (a := self._answers(readings)) else []
        if self.view.get("words_left") is not None:
            return [self.say(" ".join(parts))] if parts else []
        best_m, best_v = self.k.best()
        if learned and best_m != list(matching) and self.k.value(matching) < best_v * (1 - self.tolerance):
            return self._propose(best_m, "Thanks, that changes things: here is a better matching.", parts)
        if not parts and any(rd.request for rd in readings):
            parts.append(self._vary(["My proposal is already on the table: please /accept or /reject it.",
                                     "It is already proposed: you can /accept it or /reject it."]))
        elif not parts and any(rd.yes for rd in readings):
            parts.append(self._vary(["Great: please /accept my proposal to finish (or click Accept).",
                                     "Then just /accept it (the Accept button works too)."]))
        if not parts:
            parts.append(self._vary([("Thanks, noted. " if learned else "") + w for w in WAITING]))
        return [self.say(" ".join(parts))]

    def _vary(self, options: list) -> str:
        """The first wording not said yet (people read a repeated line as a stuck bot)."""
        return next((o for o in options if o not in self._said), options[0])

    def _answers(self, readings) -> str:
        cells: list = []
        for rd in readings:
            cells += sorted(c for c in rd.asked_cells if c not in rd.values)  # "Ethan on glove? i'd say 237"
            for r in sorted(rd.asked_rows):
                cells += [(r, p) for p in range(N)]
            for p in sorted(rd.asked_cols):
                cells += [(r, p) for r in range(N)]
        cells = list(dict.fromkeys(cells))
        extra = []
        if any(rd.asked_top for rd in readings):
            extra.append(f"My biggest number is {int(self.k.top)}.")
        if any(rd.asked_any for rd in readings) and not cells:
            strong = sorted(((v, r, p) for r, row in enumerate(self.k.own) for p, v in enumerate(row)
                             if v is not None), reverse=True)[:4]
            extra.append("My strongest: " + ", ".join(f"{cell_name(r, p)} {int(v)}" for v, r, p in strong) + ".")
        if not cells:
            return " ".join(extra)
        known = [(r, p) for r, p in cells if self.k.own[r][p] is not None]
        unknown = [(r, p) for r, p in cells if self.k.own[r][p] is None]
        out = []
        if known:
            out.append("I have " + ", ".join(f"{cell_name(r, p)} {int(self.k.own[r][p])}" for r, p in known) + ".")
        if unknown and len(unknown) <= 8:
            out.append("I don't know " + ", ".join(cell_name(r, p) for r, p in unknown) + ".")
        elif unknown:
            out.append("I don't know the others.")
        return " ".join(extra + out)

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
        if self.view.get("final"):  # my answer decides the game: the final estimates
            best_m, best_v, val = self._final_best(matching)
        else:
            (best_m, best_v), val = k.best(), k.value(matching)
        tol = self.tolerance if self.rejections < 2 else 0.08 * self.rejections
        # (when the budget is spent too: a rejection is followed by my own final proposal, accepted automatically)
        if val >= best_v * (1 - tol) or self.rejections >= 4:
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
