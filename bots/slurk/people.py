"""A room's seats and people: who sits where, who of them is online, how often each (re)joined, the newest command of
each seat that was handled (the page's acknowledgement), and the seats' display names.

The room's worker owns one `RoomPeople` and changes it (people join, leave, take seats); its delivery and page parts
read it to address updates. It refers to nothing else, so nothing here reaches back into the room.

Seat records (`seats[seat]`) are what the state database stores: `{kind, name, user_id, brain, key}`, `kind` being
"person" or "agent"; `key` is the secret only that seat's page receives (`senders.py`).
"""
from __future__ import annotations

import logging
from typing import Optional

from tasks.core.wording import plain_name

from .rest import SlurkAPIError
from .senders import new_seat_key
from .socket import user_id_of

log = logging.getLogger(__name__)


class RoomPeople:
    def __init__(self) -> None:
        self.seats: dict[str, dict] = {}  # seat -> {kind, name, user_id, brain, key}
        self.online: set[int] = set()
        self.join_gen: dict[int, int] = {}  # user -> how often they (re)joined; a bounce from before is stale
        self.acks: dict[str, str] = {}  # seat -> nonce of the newest envelope handled (the page's acknowledgement)

    def came_online(self, uid: int) -> None:
        self.online.add(uid)
        self.join_gen[uid] = self.join_gen.get(uid, 0) + 1

    def user_of(self, seat: str) -> Optional[int]:
        info = self.seats.get(seat)
        return None if info is None else info.get("user_id")

    def seat_of(self, user_id: Optional[int]) -> Optional[str]:
        """The person seat of this user (agent users hold no person seat)."""
        for seat, info in self.seats.items():
            if info.get("user_id") == user_id and info["kind"] == "person":
                return seat
        return None

    def is_person(self, seat: Optional[str]) -> bool:
        return seat in self.seats and self.seats[seat]["kind"] == "person"

    def person_seats(self) -> list[str]:
        return [s for s, i in self.seats.items() if i["kind"] == "person"]

    def display_name(self, seat: str) -> str:
        return (self.seats.get(seat) or {}).get("name") or seat

    def key_of(self, seat: str) -> Optional[str]:
        return (self.seats.get(seat) or {}).get("key")

    def page_core(self, seat: str) -> dict:
        """What only this seat's page gets in its view: its key, and the newest of its commands handled (`ack`)."""
        core = {}
        if self.key_of(seat):
            core["key"] = self.seats[seat]["key"]
        if seat in self.acks:
            core["ack"] = self.acks[seat]
        # who sits where (Slurk user ids; not private: every member sees the names), so a page can sort chat lines
        # by seat, e.g. one pane per user for a relaying assistant
        users = {s: int(i["user_id"]) for s, i in self.seats.items() if i.get("user_id") is not None}
        if users:
            core["users"] = users
        return core

    def sit(self, uid: int, name: str, order: list[str]) -> Optional[str]:
        """Seat `uid` in the first free seat of `order` (named, with a new key); None when every seat is taken."""
        for seat in order:
            if self.seats[seat]["user_id"] is None:
                self.seats[seat]["user_id"] = uid
                self.seats[seat]["name"] = plain_name(name, f"user {uid}")
                self.seats[seat]["key"] = new_seat_key()
                return seat
        return None

    def everyone_seated(self) -> bool:
        return all(i.get("user_id") is not None for i in self.seats.values() if i["kind"] == "person")

    def seat_map(self) -> dict[str, Optional[int]]:
        return {s: i["user_id"] for s, i in self.seats.items()}

    def give_keys(self) -> bool:
        """A record from before seat keys: every seated person gets a key; True if it was such a record."""
        if not any(i["kind"] == "person" and i.get("user_id") is not None and not i.get("key")
                   for i in self.seats.values()):
            return False
        for info in self.seats.values():
            if info["kind"] == "person" and info.get("user_id") is not None:
                info.setdefault("key", new_seat_key())
        return True


class SeatRules:
    """Who may take a person's seat in a room: not the bot, not an agent user (`not_people`), and only a person
    whose Slurk token was made for this task, not a person of another study who was put (or announced) into this
    room. A user's task is looked up once."""

    def __init__(self, rest, room_id: int, task_id: int, not_people: frozenset[int]):
        self.rest, self.room_id, self.task_id, self.not_people = rest, room_id, task_id, not_people
        self._allowed: dict[int, bool] = {}  # user -> may take a person's seat here (their token's task is ours)

    def may_sit(self, uid: int) -> bool:
        if uid in self.not_people:
            return False
        if uid not in self._allowed:
            try:
                task = self.rest.get_user_task(uid) or {}
            except SlurkAPIError as exc:
                log.warning("room %s: cannot read user %s's task: %s", self.room_id, uid, exc)
                return False  # asked again when they next appear
            self._allowed[uid] = task.get("id") == self.task_id
            if not self._allowed[uid]:
                log.warning("room %s: user %s's token is for task %s, not task %s; they get no seat", self.room_id,
                            uid, task.get("id"), self.task_id)
        return self._allowed[uid]

    def present(self) -> list[dict]:
        """The room's connected users who may hold a person's seat (Slurk's user records): not the bot, not an
        agent user."""
        users = self.rest.get_room_users(self.room_id)
        return [u for u in users if user_id_of(u) is not None and user_id_of(u) not in self.not_people]


def bind_agent_users(seats: dict, configured: dict[str, int], rest, room_id: int) -> None:
    """Give each agent seat its own Slurk user (if any are configured): the user configured for that seat, else
    the first configured user not yet used in this room. The user is made a member of the room (needed for
    `impersonate`; idempotent, the concierge may have done it) and lends the seat its name. A user that cannot
    be read or added leaves the seat as it would be without agent users."""
    if not configured:
        return
    used = {i["user_id"] for i in seats.values() if i["kind"] == "agent" and i.get("user_id") is not None}
    for seat, info in seats.items():
        if info["kind"] != "agent" or info.get("user_id") is not None:
            continue
        uid = configured.get(seat)
        if uid is None or uid in used:
            uid = next((u for u in configured.values() if u not in used), None)
        if uid is None:
            log.warning("room %s: no agent user left for seat %s; it speaks through the bot", room_id, seat)
            continue
        try:
            user = rest.get_user(uid)
            rest.join_room(uid, room_id)
        except SlurkAPIError as exc:
            log.error("room %s: cannot use agent user %s for seat %s: %s", room_id, uid, seat, exc)
            continue
        used.add(uid)
        info["user_id"] = uid
        info["name"] = str(user.get("name") or info["name"])


def ensure_agent_members(seats: dict, rest, room_id: int) -> None:
    """After a restart: make sure the bound agent users are still members of the room (idempotent)."""
    for seat, info in seats.items():
        if info["kind"] == "agent" and info.get("user_id") is not None:
            try:
                rest.join_room(info["user_id"], room_id)
            except SlurkAPIError as exc:
                log.warning("room %s: cannot re-add agent user %s (seat %s): %s", room_id, info["user_id"], seat, exc)
