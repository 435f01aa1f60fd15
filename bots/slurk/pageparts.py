"""Pages in two parts on Slurk (TaskSpec.shared_element, Game.page_shared; tasks/core/pages.py), for one room.

Every Slurk request costs the server's single worker a database commit, so a move should cost one page update, not
one per seat. While the game plays, the part every seat shares goes to the whole room in one update when every
online person needs it (to each person otherwise: one who came back, one whose page missed it), and a seat's own
part only when it changed. A command's acknowledgement (the nonce the page put on it) rides on the shared part when
the command changed it (everyone sees the move anyway), else on the seat's own part, so a refused move stays the
seat's business.
"""
from __future__ import annotations

import json
import weakref
from typing import TYPE_CHECKING, Optional

from tasks.core.protocol import Effect, View

if TYPE_CHECKING:  # pragma: no cover
    from .delivery import Delivery


class PageParts:
    def __init__(self, delivery: "Delivery"):
        self.d = weakref.proxy(delivery)  # the delivery owns this (no cycle: see Delivery)
        self.shared_base: Optional[str] = None  # JSON of the newest shared part, without the acknowledgements
        self.shared_sent: dict[str, tuple] = {}  # seat -> (user, visit, JSON) of the newest shared part it got
        self.public_acks: dict[str, str] = {}
        self.private_acks: dict[str, str] = {}
        self.acks_seen: dict[str, str] = {}

    def split(self, effects: list[Effect]) -> Optional[dict]:
        """This batch's views as a shared part and own parts, or None (views go whole: the task has no shared part,
        the game is not playing yet, or no person's view is in the batch). Computed before any effect runs: the
        game's state is the one these effects came from (a GameOver may release the match)."""
        w = self.d.worker
        if not self.d.bot.spec.shared_element or not self.d.bot.spec.state_element or w.match is None:
            return None
        seats = [e.seat for e in effects if isinstance(e, View) and w.is_person(e.seat)]
        if not seats:
            return None
        first = w.match.page_parts(seats[0])
        if first is None:
            return None
        shared = first[0]
        core = shared["core"]
        core["bot"] = self.d.bot.user_id
        core["chat"] = self.d.bot.chat
        users = w.page_core(seats[0]).get("users")
        if users:
            core["users"] = users
        if self.d.thinking:
            core["thinking"] = list(self.d.thinking)
        new_acks = {seat: n for seat, n in w.acks.items() if self.acks_seen.get(seat) != n}
        self.acks_seen = dict(w.acks)
        base = json.dumps(shared, sort_keys=True)
        if base != self.shared_base:
            self.shared_base = base
            self.public_acks.update(new_acks)
        else:
            self.private_acks.update(new_acks)
        if self.public_acks:
            core["acks"] = dict(self.public_acks)
        own = {}
        for seat in dict.fromkeys(seats):
            part = first[1] if seat == seats[0] else w.match.page_parts(seat)[1]
            mine = w.page_core(seat)
            part["core"]["bot"] = self.d.bot.user_id
            if mine.get("key"):
                part["core"]["key"] = mine["key"]
            if seat in self.private_acks:
                part["core"]["ack"] = self.private_acks[seat]
            own[seat] = part
        return {"shared": shared, "own": own}

    def send_shared(self, shared: dict) -> None:
        """The shared part to every person seat whose page does not have it: one update for the whole room when
        that is every online person, else to each (a returning person, a seat whose page missed it)."""
        w = self.d.worker
        text = json.dumps(shared, sort_keys=True)
        need, online = [], []
        for seat in w.person_seats():
            uid = w.user_of(seat)
            if self.shared_sent.get(seat) == (uid, w.join_gen.get(uid, 0), text) and not self.d.pending.get(seat):
                continue
            need.append(seat)
            if uid is not None and uid in w.online and not self.d.pending.get(seat):
                online.append(seat)
        if not need:
            return
        everyone = [s for s in w.person_seats() if w.user_of(s) in w.online]
        if len(online) > 1 and online == everyone:
            for seat in online:
                uid = w.user_of(seat)
                self.shared_sent[seat] = (uid, w.join_gen.get(uid, 0), text)
            self.d.bot.pages.submit(self.d, None, None, ("shared", shared), self.d.turn)
            need = [s for s in need if s not in online]
        for seat in need:
            uid = w.user_of(seat)
            self.shared_sent[seat] = (uid, w.join_gen.get(uid, 0), text)
            self.d.to_seat(seat, ("shared", shared))
