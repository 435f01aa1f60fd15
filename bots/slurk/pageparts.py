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
from typing import Callable, Optional

from tasks.core.protocol import Effect, View

from .people import RoomPeople


class PageParts:
    def __init__(self, people: RoomPeople, parts_of: Callable[[str], Optional[tuple]], bot_user: int, chat: str):
        self.people = people
        self.parts_of = parts_of  # seat -> (shared part, own part) of the room's match, or None (no match, no parts)
        self.bot_user = bot_user
        self.chat = chat
        self.shared_base: Optional[str] = None  # JSON of the newest shared part, without the acknowledgements
        self.shared_sent: dict[str, tuple] = {}  # seat -> (user, visit, JSON) of the newest shared part it got
        self.public_acks: dict[str, str] = {}
        self.private_acks: dict[str, str] = {}
        self.acks_seen: dict[str, str] = {}

    def split(self, effects: list[Effect], thinking: tuple[str, ...]) -> Optional[dict]:
        """This batch's views as a shared part and own parts, or None (views go whole: the game is not playing yet,
        or no person's view is in the batch). Computed before any effect runs: the game's state is the one these
        effects came from (a GameOver may release the match). `thinking`: the seats whose agent is thinking now."""
        p = self.people
        seats = [e.seat for e in effects if isinstance(e, View) and p.is_person(e.seat)]
        if not seats:
            return None
        first = self.parts_of(seats[0])
        if first is None:
            return None
        shared = first[0]
        core = shared["core"]
        core["bot"] = self.bot_user
        core["chat"] = self.chat
        users = p.page_core(seats[0]).get("users")
        if users:
            core["users"] = users
        if thinking:
            core["thinking"] = list(thinking)
        new_acks = {seat: n for seat, n in p.acks.items() if self.acks_seen.get(seat) != n}
        self.acks_seen = dict(p.acks)
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
            part = first[1] if seat == seats[0] else self.parts_of(seat)[1]
            part["core"]["bot"] = self.bot_user
            key = p.key_of(seat)
            if key:
                part["core"]["key"] = key
            if seat in self.private_acks:
                part["core"]["ack"] = self.private_acks[seat]
            own[seat] = part
        return {"shared": shared, "own": own}

    def shared_addressees(self, shared: dict, pending: dict) -> tuple[list[str], list[str]]:
        """Who needs the shared part, as (seats that get it in one update for the whole room, seats that get it each
        on their own): every person seat whose page does not have it; one update when that is every online person
        (more than one), else each (a returning person, a seat whose page missed it). `pending`: seat -> updates
        kept for its absent person (a seat with some gets it in order with them)."""
        p = self.people
        text = json.dumps(shared, sort_keys=True)
        need, online = [], []
        for seat in p.person_seats():
            uid = p.user_of(seat)
            if self.shared_sent.get(seat) == (uid, p.join_gen.get(uid, 0), text) and not pending.get(seat):
                continue
            need.append(seat)
            if uid is not None and uid in p.online and not pending.get(seat):
                online.append(seat)
        if not need:
            return [], []
        together: list[str] = []
        everyone = [s for s in p.person_seats() if p.user_of(s) in p.online]
        if len(online) > 1 and online == everyone:
            together = online
            need = [s for s in need if s not in online]
        for seat in together + need:
            uid = p.user_of(seat)
            self.shared_sent[seat] = (uid, p.join_gen.get(uid, 0), text)
        return together, need
