"""The assistant agent ("mediator", the default; no LLM).

It asks each user, once and briefly, about what it cannot see (private events, how important the shared ones are,
price, arriving together), reads the answers in plain English (typos and lower case are fine), proposes the best
pair under what it knows as soon as both users answered (or said "you choose"), and after a reject learns from the
reason and proposes the next best pair. It answers questions and new facts, never acknowledgements, so it never
spams, and it never stalls: without answers it proposes on its defaults once both users have spoken or been asked
twice. Under a word budget (prompted self-play) it keeps its lines short and proposes once the budget runs low.
"""
from __future__ import annotations

import random
import re
from typing import Optional

from tasks.core import Brain, Chat, ChatShown, Message, View

from ..game import USERS
from ..parse import _importance as importance, _level as level, read_message
from .model import DEFAULT_IMPORTANCE, UserModel, best_pairs

ASK = ("Hi! I'm booking your flight. I can see your shared work events, but not how important they are or your "
       "private ones. Which meetings should the flight avoid (day, time, importance 1-10)? How much do price and "
       "landing close to your friend matter to you?")
ASK_SHORT = "Hi! Which meetings must your flight avoid (day, time, importance)? Does price matter?"
PITCH = ("How about flight {n} for you ({what})? It fits what you told me and you'd land close to your friend. "
         "Please accept or reject it on your page.")
AGAIN = "Sorry about that! If a meeting, the price or the arrival time bothers you, tell me and I'll adjust."
EXPLAIN = ("It's the best pair I can find with what you both told me: it avoids the meetings that matter, keeps "
           "the price down and you land close to your friend. Please accept or reject it on your page.")
FOLLOW = "How important is your meeting {when}, on a scale of 1 to 10? A good flight for you would overlap it."
NUDGE = "Are you there? If any meetings matter to you, tell me; otherwise I'll pick a flight for you."
NOTED = ["Thanks, noted!", "Got it, thanks.", "Thanks, that helps."]


class MediatorBrain(Brain):
    name = "mediator"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.rng = random.Random(seed)
        self.view: Optional[dict] = None
        self.models: Optional[list[UserModel]] = None
        self.arrival: Optional[int] = None
        self.asked = {u: 0 for u in USERS}
        self.spoke = {u: False for u in USERS}
        self.news = {u: False for u in USERS}      # learned something since the last proposal
        self.questions = {u: False for u in USERS}
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
        self.deferred[seat] |= rd.defer
        self.news[seat] |= new or rd.defer
        self.questions[seat] |= rd.question and not new

    def _follow_up(self, v: dict, pair, say) -> bool:
        """Ask a user, once, how important a shared meeting is that the best pair's flight would overlap, when the
        user has not said how much their other meetings matter (that answer could change the pair)."""
        asked = False
        for k, u in enumerate(USERS):
            m = self.models[k]
            if self.followed[u] or self.deferred[u] or not self.spoke[u] or m.default_importance != DEFAULT_IMPORTANCE:
                continue
            s, e, _ = m.flights[pair[k]]
            hit = [eid for eid, (a, b, imp) in m.shared.items() if imp is None and a < e and s < b]
            if hit:
                ev = next(x for x in v["users"][k]["calendar"] if x["id"] == hit[0])
                self.followed[u] = True
                self.awaiting[u] = hit[0]
                say(u, FOLLOW.format(when=ev["when"]))
                asked = True
        return asked

    # --- acting -------------------------------------------------------------------------------------------------
    def act(self):
        v = self.view
        if v is None or self.models is None or v.get("result") is not None or v.get("core", {}).get("phase") != "playing":
            return []
        budget = v.get("words_left")
        tight = budget is not None and budget < 90
        moves: list = []

        def say(u, text):
            if v.get("final") or (budget is not None and len(text.split()) + 25 > budget - sum(
                    len(m.text.split()) for m in moves if isinstance(m, Chat))):
                return
            moves.append(Chat(self.seat, text, turn=not moves, to=(u,)))

        pending = v.get("pending")
        ready = all(m.heard or self.asked[u] >= 2 or (self.asked[u] and self.spoke[u])
                    for u, m in zip(USERS, self.models))
        if v.get("final") or (tight and budget is not None and budget < 40):
            ready = True
        if pending is None and self.reject_from is not None and not self.news[self.reject_from] and not tight:
            say(self.reject_from, AGAIN)  # a reject without a reason: ask, but propose the next best pair anyway
        for u, m in zip(USERS, self.models):
            if not self.asked[u] and not (m.heard and ready):
                say(u, ASK_SHORT if tight else ASK)  # counted in `asked` once the line is shown
        if not ready:
            for u, m in zip(USERS, self.models):
                if self.asked[u] == 1 and not self.spoke[u] and any(o.heard for o in self.models if o is not m):
                    say(u, NUDGE)  # a silent user: one reminder, then the pair is chosen on what is known
            for u in USERS:
                if self.questions[u] or self.news[u]:
                    say(u, self.rng.choice(NOTED))
                    self.questions[u] = self.news[u] = False
            return moves
        changed = any(self.news.values()) or self.reject_from is not None
        if pending is not None and not changed:
            for u in USERS:
                if self.questions[u]:  # a question about the open proposal: say why, once per question
                    say(u, EXPLAIN)
                    self.questions[u] = False
            return moves
        twice = (v.get("rules") or {}).get("arrival", "per_user") == "per_user"
        ranked = best_pairs(self.models, self.arrival, twice, exclude=self.rejected)
        if not ranked:
            ranked = best_pairs(self.models, self.arrival, twice)
        i, j, _ = ranked[0]
        if not tight and not v.get("final") and self._follow_up(v, (i, j), say):
            return moves  # one targeted question first; the proposal follows the answer (or the next wake-up)
        if pending is not None and (i, j) == self.last_pair:
            self.news = {u: False for u in USERS}
            return moves
        for k, u in enumerate(USERS):
            if not tight or self.proposed == 0:
                f = v["users"][k]["flights"][(i, j)[k]]
                say(u, PITCH.format(n=f["id"], what=f"{f['carrier']}, ${f['price']}, {f['when']}"))
        moves.append(self.command("propose", i + 1, j + 1, first=not moves))
        self.proposed += 1
        self.last_pair = (i, j)
        self.reject_from = None
        self.news = {u: False for u in USERS}
        self.questions = {u: False for u in USERS}
        return moves
