"""The assistant agent ("mediator", the default; no LLM).

It asks each user, once and briefly, about what it cannot see (private events, how important the shared ones are,
price, arriving together), reads the answers in plain English (typos and lower case are fine), proposes the best
pair under what it knows as soon as both users answered (or said "you choose"), and after a reject learns from the
reason and proposes the next best pair. It answers questions and new facts, never acknowledgements, so it never
spams, and it never stalls: once one user has told what matters it proposes, on defaults for a user still silent
(whose words, when they come, revise the pair). Questions about a proposal get its reasons (tasks/core/discipline.py:
no line twice, every question answered, "fits what you told me" only when it does). Under a word budget (prompted
self-play) it keeps its lines short and proposes once the budget runs low.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Optional

from tasks.core import Brain, Chat, ChatShown, Command, Message, View
from tasks.core.discipline import Discipline, is_deferral

from ..game import USERS
from ..parse import _importance as importance, _level as level, read_message
from . import answers
from .model import DEFAULT_IMPORTANCE, UserModel, best_pairs

ASK = ("Hi! I'm booking your flight. I can see your shared work events, but not how important they are or your "
       "private ones. Which meetings should the flight avoid (day, time, importance 1-10)? How much do price and "
       "landing close to your friend matter to you?")
ASK_SHORT = "Hi! Which meetings must your flight avoid (day, time, importance)? Does price matter?"
# after a bare reject (each said at most once a game: the discipline refuses repeats, then nothing is said)
AGAIN = ("Sorry about that! If a meeting, the price or the arrival time bothers you, tell me and I'll adjust.",
         "Here's another option. Tell me what didn't work, if you like.", "Another try below.")
FOLLOW = (" By the way, how important is your meeting {when}, 1 to 10? If it matters, I'll change the flight.")
NOTED = ["Thanks, noted!", "Got it, thanks.", "Thanks, that helps.", "Noted."]
STILL = ("Thanks, noted: the flight on your page still looks best for you both.",
         "Noted; the flight on your page still looks best.", "Got it; that doesn't change the best flight for you.")


class MediatorBrain(Brain):
    name = "mediator"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.models: Optional[list[UserModel]] = None
        self.arrival: Optional[int] = None
        self.asked = {u: 0 for u in USERS}
        self.spoke = {u: False for u in USERS}
        self.news = {u: False for u in USERS}      # learned something since the last proposal
        self.rejected: list[tuple[int, int]] = []
        self.followed = {u: False for u in USERS}
        self.deferred = {u: False for u in USERS}     # "you choose": no more questions for this user
        self.awaiting: dict[str, str] = {}            # user -> shared event id we asked the importance of   # the one targeted question per user was asked
        self.history: list[tuple[int, int]] = []  # every proposal made in this game (a human's too)
        self.last_pair: Optional[tuple[int, int]] = None
        self.pending_id: Optional[int] = None
        self.reject_from: Optional[str] = None
        self.proposed = 0
        self.early: list[tuple[str, str]] = []     # lines heard before the page arrived
        self.d = {u: Discipline() for u in USERS}  # per user: no line twice, no waiting on a question, answers

    # --- observing ----------------------------------------------------------------------------------------------
    def observe(self, effect) -> None:
        if isinstance(effect, View) and effect.data.get("role") == "assistant":
            self.view = effect.data
            if self.models is None:
                self.models = [UserModel(u) for u in effect.data["users"]]
                for seat, text in self.early:
                    self._hear(seat, text)
            p = effect.data.get("pending")
            if p is not None and p["id"] != self.pending_id:
                self.pending_id = p["id"]
                self.last_pair = (p["pair"][0] - 1, p["pair"][1] - 1)
                self.history.append(self.last_pair)
        elif isinstance(effect, ChatShown):
            if effect.seat in USERS:
                if self.models is None:
                    self.early.append((effect.seat, effect.text))
                else:
                    self._hear(effect.seat, effect.text)
            elif effect.seat == self.seat:  # own lines (also a human assistant's, in prompted self-play)
                for u in (effect.to or USERS):
                    if u in self.asked:
                        self.asked[u] += 1
        elif isinstance(effect, Message) and effect.to == self.seat and "accepts; waiting" in effect.text:
            self._like("user1" if effect.text.startswith("User 1") else "user2", self.last_pair)
        elif isinstance(effect, Message) and effect.to is None and "rejected the proposal" in effect.text:
            who = "user1" if effect.text.startswith("User 1") else "user2"
            self.reject_from = who
            if self.last_pair is not None:
                self.rejected.append(self.last_pair)
                k = USERS.index(who)
                if self.models is not None:
                    m = self.models[k]
                    m.rejected_flights[self.last_pair[k]] = m.rejected_flights.get(self.last_pair[k], 0) + 1
            self.pending_id = None

    def _like(self, seat: str, pair) -> None:
        if pair is None or self.models is None:
            return
        k = USERS.index(seat)
        m = self.models[k]
        m.liked_flights[pair[k]] = m.liked_flights.get(pair[k], 0) + 1

    def _hear(self, seat: str, text: str) -> None:
        rd = read_message(text)
        k = USERS.index(seat)
        self.spoke[seat] = True
        new = self.models[k].learn(rd, text)
        if re.search(r"arriv|same time|together|land", text.lower()):
            lv = level(text.lower(), 10)
            if lv is not None:
                self.arrival = lv
        if rd.arrival is not None:
            self.arrival = rd.arrival
        low = text.lower()
        if self.history and re.search(r"first (one|option|proposal|flight)|go back|revert|previous|earlier one", low):
            self._like(seat, self.history[0] if "first" in low else self.history[-2 if len(self.history) > 1 else 0])
            new = True
        if re.search(r"too far apart|closer together|same time|land closer|arrive closer", low):
            self.arrival = min(10, (self.arrival or 5) + 3)  # a complaint about the gap: it matters more than we thought
            new = True
        if re.search(r"pricey|expensive|cheaper|costs? too much|over budget|too rich|save|reduce the cost|costly", low):
            m = self.models[k]
            m.price = min(20, (m.price or 10) + 5)
            new = True
        eid = self.awaiting.pop(seat, None)
        if eid is not None and not rd.busy:  # the answer to "how important is your meeting ...?"
            num = re.search(r"\b(10|[1-9])\b", low)
            imp = importance(low) or (int(num.group(1)) if num else None)
            if imp is not None:
                self.models[k].shared[eid][2] = imp
                new = True
        defer = rd.defer or is_deferral(text)
        self.models[k].heard |= defer
        self.deferred[seat] |= defer
        self.news[seat] |= new or defer
        self.d[seat].heard(text, told=new or defer)

    def _follow_up(self, v: dict, k: int, i: int) -> str:
        """A question, put beside the proposal, about a shared meeting the user's flight overlaps when the user has
        not said how much their other meetings matter (the answer could change the flight). Asked once per user."""
        u, m = USERS[k], self.models[k]
        if self.followed[u] or self.deferred[u] or not self.spoke[u] or m.default_importance != DEFAULT_IMPORTANCE:
            return ""
        s, e, _ = m.flights[i]
        hit = [eid for eid, (a, b, imp) in m.shared.items() if imp is None and a < e and s < b]
        if not hit:
            return ""
        ev = next(x for x in v["users"][k]["calendar"] if x["id"] == hit[0])
        self.followed[u] = True
        self.awaiting[u] = hit[0]
        return FOLLOW.format(when=ev["when"])

    # --- acting -------------------------------------------------------------------------------------------------
    def act(self):
        """Free turns: every move `decide` makes. The paper's round-robin (the view's `turn`): nothing until its
        turn, then one move: its proposal, else its first line to a user it may write to, else a short line to
        one of them (every turn has an output, as the paper's agent's)."""
        turn = (self.view or {}).get("turn")
        if turn is None:
            return self.decide()
        if not turn["mine"] or self.view.get("result") is not None:
            return []
        moves = self.decide()
        move = next((m for m in moves if isinstance(m, Command)), None) or next(
            (m for m in moves if isinstance(m, Chat) and m.to and set(m.to) <= set(turn["write_to"])), None)
        if move is None and turn["write_to"]:
            u = turn["write_to"][0]
            text = self.d[u].pick(*NOTED) or "Thanks!"
            self.d[u].said(text)
            move = Chat(self.seat, text, to=(u,))
        return [] if move is None else [dataclasses.replace(move, turn=True)]

    def decide(self):
        v = self.view
        if v is None or self.models is None or v.get("result") is not None or v.get("core", {}).get("phase") != "playing":
            return []
        budget = v.get("words_left")
        tight = budget is not None and budget < 90
        moves: list = []

        def say(u, text):
            if not text or not self.d[u].fresh(text) or v.get("final") or (budget is not None and len(text.split()) + 25 >
                                                                           budget - sum(len(m.text.split()) for m in moves if isinstance(m, Chat))):
                return
            self.d[u].said(text)
            moves.append(Chat(self.seat, text, turn=not moves, to=(u,)))

        pending = v.get("pending")
        # ready once each user told something or was asked; a user who is still silent while the other has told
        # what matters gets a flight on the defaults (their words, when they come, revise it): never "are you
        # there?" to someone who may be typing, never the other user kept waiting
        ready = all(m.heard or self.asked[u] >= 2 or (self.asked[u] and self.spoke[u])
                    for u, m in zip(USERS, self.models)) or \
            (any(m.heard for m in self.models) and all(self.asked.values()))
        if v.get("final") or (tight and budget is not None and budget < 40):
            ready = True
        if pending is None and self.reject_from is not None and not self.news[self.reject_from] and not tight:
            say(self.reject_from, self.d[self.reject_from].pick(*AGAIN))  # then the next best pair anyway
        for u, m in zip(USERS, self.models):
            if not self.asked[u] and not (m.heard and ready):
                say(u, ASK_SHORT if tight else ASK)  # counted in `asked` once the line is shown
        if not ready:
            for u in USERS:
                if self.d[u].owed():
                    say(u, answers.before_proposal(self.d[u].owed()[0]))
                    self.d[u].answered()
                elif self.news[u]:
                    say(u, self.d[u].pick(*self.rng.sample(NOTED, len(NOTED))))
                self.news[u] = False
            return moves
        changed = any(self.news.values()) or self.reject_from is not None
        if pending is not None and not changed:
            self._answer(v, say)
            return moves
        twice = (v.get("rules") or {}).get("arrival", "per_user") == "per_user"
        ranked = best_pairs(self.models, self.arrival, twice, exclude=self.rejected)
        if not ranked:
            ranked = best_pairs(self.models, self.arrival, twice)
        i, j, _ = ranked[0]
        if pending is not None and (i, j) == self.last_pair:
            self._answer(v, say)  # new facts that leave the pair as it is: still answer what was asked
            for u in USERS:  # and say so, so nobody who wrote is left without a word
                if self.news[u] and not moves:
                    say(u, self.d[u].pick(*STILL))
            self.news = {u: False for u in USERS}
            return moves
        owed = {u: bool(self.d[u].owed()) for u in USERS}
        for k, u in enumerate(USERS):
            self.d[u].answered()  # the new flight and its reasons answer what was asked about the old one
            if not tight or self.proposed == 0:
                f = v["users"][k]["flights"][(i, j)[k]]
                ask = "" if tight or v.get("final") else self._follow_up(v, k, (i, j)[k])
                text = answers.pitch(self.models[k], (i, j)[k], f) + ask
                if owed[u] and self.last_pair is not None and self.last_pair[k] != (i, j)[k]:
                    text = answers.instead(self.models[k], self.last_pair[k], (i, j)[k]) + " " + text
                if not self.d[u].fresh(text):  # the same flight again: say why, if they asked, else nothing new
                    text = answers.explain(self.models, k, (i, j), v["users"][k]["flights"]) if owed[u] else ""
                say(u, text)
        moves.append(self.command("propose", i + 1, j + 1, first=not moves))
        self.proposed += 1
        self.last_pair = (i, j)
        self.reject_from = None
        self.news = {u: False for u in USERS}
        return moves

    def _answer(self, v: dict, say) -> None:
        """Answer each user's questions about the open proposal: why this flight, what a cheaper one costs."""
        for k, u in enumerate(USERS):
            if self.d[u].owed() and self.last_pair is not None:
                text = answers.explain(self.models, k, self.last_pair, v["users"][k]["flights"])
                self.d[u].answered()
                say(u, text if self.d[u].fresh(text) else "As I said above: " + text)
