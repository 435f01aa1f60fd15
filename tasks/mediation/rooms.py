"""The paper's turn order for Mediation (task option `turns="round-robin"`; reference §4.3 and §5.2, the release's
text environment and its multi-agent runner).

Two virtual rooms, [user 1, assistant] and [user 2, assistant], each strictly alternating; each user holds the turn
of their room at the start. A line passes the turn of its room to the other member. A proposal (the assistant's, to
both) gives both rooms' turns to the users, who must answer before they write again; answering passes nothing. The
seats act one at a time in the cycle user 1, user 2, assistant, each time the next seat that can act: a user who
holds their room's turn (and has not already accepted the open proposal), the assistant when it holds either room's.
One move is one turn: the assistant writes to one user at a time (only a proposal goes to both).

Ours (`turns="free"`, the default): people and agents act whenever they like, as in the release's web app.
"""
from __future__ import annotations

from typing import Optional

from tasks.core import RuleError

USERS = ("user1", "user2")
CYCLE = ("user1", "user2", "assistant")
NAMES = {"user1": "User 1", "user2": "User 2", "assistant": "the assistant"}


class RoundRobin:
    def __init__(self) -> None:
        self.rooms = {u: u for u in USERS}  # who holds the turn of each user's room
        self.now = "user1"                  # the seat whose turn it is

    def can_act(self, seat: str, pending: bool, accepted: frozenset) -> bool:
        if seat == "assistant":
            return "assistant" in self.rooms.values()
        return self.rooms[seat] == seat and not (pending and seat in accepted)

    def check(self, seat: str, what: str, to: Optional[tuple] = None, pending: bool = False,
              answered: bool = True) -> None:
        """Refuses (RuleError) a move that is not this seat's to make now. `what`: chat | propose | answer; `to`:
        a chat's addressees; `answered`: whether a user already answered the open proposal."""
        if seat != self.now:
            raise RuleError(f"Turns go round (User 1, User 2, the assistant): it is {NAMES[self.now]}'s turn; "
                            "please wait for yours.")
        if seat in USERS and what == "chat" and pending and not answered:
            raise RuleError("Please accept or reject the proposal first.")
        if seat == "assistant" and what == "chat":
            if to is None or len(to) != 1:
                raise RuleError("Turns go round: write to one user at a time (@user1 or @user2); only a proposal "
                                "goes to both.")
            if self.rooms[to[0]] != "assistant":
                free = [NAMES[u] for u in USERS if self.rooms[u] == "assistant"]
                raise RuleError(f"It is {NAMES[to[0]]}'s turn to write to you; write to {' or '.join(free)}.")

    def moved(self, seat: str, what: str, to: Optional[tuple], pending: bool, accepted: frozenset) -> None:
        """Pass the turns after an accepted move, then the cycle moves on to the next seat that can act."""
        if what == "chat" and seat in USERS:
            self.rooms[seat] = "assistant"
        elif what == "chat":
            for u in to or ():
                self.rooms[u] = u
        elif what == "propose":
            self.rooms = {u: u for u in USERS}
        i = CYCLE.index(seat)
        for k in range(1, len(CYCLE) + 1):
            nxt = CYCLE[(i + k) % len(CYCLE)]
            if self.can_act(nxt, pending, accepted):
                self.now = nxt
                return

    def view(self, seat: str) -> dict:
        """What a seat's page and agent see of the turn order: whether it is theirs; the assistant also sees which
        users it may write to."""
        out = {"mode": "round-robin", "mine": self.now == seat, "now": NAMES[self.now]}
        if seat == "assistant":
            out["write_to"] = [u for u in USERS if self.rooms[u] == "assistant"]
        return out
