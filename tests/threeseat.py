"""A three-seat test game with relayed chat: two users with private free slots and an assistant who finds a slot
that suits both (a miniature of DialOp Mediation, written for the tests of the core and the runtimes).

Each user talks only with the assistant (a user's line reaches the assistant alone); the assistant addresses one
user or both. Only the assistant proposes (`/propose N`); both users must accept; any reject clears the proposal.
"""
from __future__ import annotations

import random
import re

from tasks.core import Brain, Chat, ChatShown, Context, Game, Message, ProposalCycle, RuleError, TaskSpec, View

USERS = ("user1", "user2")
SLOTS = tuple(range(1, 10))


class MeetingGame(Game):
    task = "meeting"
    title = "Find a meeting slot"
    seats = ("user1", "user2", "assistant")
    person_seat_order = ("user1", "user2", "assistant")
    chat = "relay"

    @classmethod
    def generate(cls, seed, options):
        rng = random.Random(seed)
        common = rng.choice(SLOTS)
        while True:  # distinct sets: the leak test looks for one user's slots in what the other received
            free = {u: sorted({common, *rng.sample(SLOTS, 3)}) for u in USERS}
            if len({tuple(v) for v in free.values()}) == len(USERS):
                return {"free": free}

    def __init__(self, seed, options=None, instance=None):
        super().__init__(seed, options, instance)
        self.free = {u: list(v) for u, v in self.inst["free"].items()}
        self.proposals = ProposalCycle(self.seats, proposers=("assistant",), responders=USERS)
        self.agreed = None
        self.lines = {s: 0 for s in self.seats}

    def chat_audience(self, seat, to):
        if seat in USERS:
            if to is not None and tuple(to) != ("assistant",):
                raise RuleError("You can only write to the assistant.")
            return ("assistant",)
        return super().chat_audience(seat, to)

    def private_parts(self, seat):
        return [{"free_slots": self.free[seat]}] if seat in USERS else []

    def start(self, ctx: Context):
        ctx.say("Find one slot that suits both users. The assistant proposes with /propose N.")

    def view(self, seat):
        p = self.proposals.pending
        out = {"pending": None if p is None else p.value, "agreed": self.agreed}
        if seat in USERS:
            out["free_slots"] = list(self.free[seat])
        return out

    def results(self):
        ok = self.agreed is not None and all(self.agreed in self.free[u] for u in USERS)
        return {"agreed": self.agreed, "score": int(ok), "normalized_score": float(ok), "lines": dict(self.lines)}

    def on_chat(self, ctx, seat, text):
        self.lines[seat] += 1

    def cmd_propose(self, ctx, seat, args):
        """/propose N: (assistant) propose slot N"""
        if len(args) != 1 or not args[0].isdigit() or int(args[0]) not in SLOTS:
            raise RuleError("Usage: /propose N with N from 1 to 9.")
        prop, _ = self.proposals.propose(seat, int(args[0]))
        ctx.say(f"The assistant proposes slot {prop.value}. /accept or /reject?")

    def cmd_accept(self, ctx, seat, args):
        """/accept: accept the proposed slot"""
        prop = self.proposals.agree(seat)
        if prop is not None:
            self.agreed = prop.value
            ctx.say(f"Both accepted slot {prop.value}.")
            ctx.end("completed")
        else:
            ctx.say(f"{seat} accepted; waiting for the other user.")

    def cmd_reject(self, ctx, seat, args):
        """/reject: reject the proposed slot"""
        self.proposals.reject(seat)
        ctx.say(f"{seat} rejected the proposal.")


class UserBrain(Brain):
    """Tells the assistant its free slots once, then accepts a proposal of one of them and rejects any other."""

    name = "user"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.view, self.told, self.answered = {}, False, None

    def observe(self, effect):
        if isinstance(effect, View):
            self.view = effect.data

    def act(self):
        v = self.view
        if v.get("core", {}).get("phase") != "playing":
            return []
        if not self.told:
            self.told = True
            return [self.say("I am free in slots " + ", ".join(map(str, v["free_slots"])) + ".")]
        if v["pending"] is not None and self.answered != v["pending"]:
            self.answered = v["pending"]
            return [self.command("accept" if v["pending"] in v["free_slots"] else "reject")]
        return []


class AssistantBrain(Brain):
    """Asks each user privately for their slots, and proposes the first slot both named."""

    name = "assistant"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.heard: dict[str, set] = {}
        self.asked = self.proposed = False
        self.playing = False

    def observe(self, effect):
        if isinstance(effect, View):
            self.playing = effect.data.get("core", {}).get("phase") == "playing"
        elif isinstance(effect, ChatShown) and effect.seat in USERS:
            self.heard[effect.seat] = {int(x) for x in re.findall(r"\d", effect.text)}

    def act(self):
        if not self.playing:
            return []
        moves = []
        if not self.asked:
            self.asked = True
            moves += [Chat(self.seat, f"{u}, when are you free?", turn=not moves, to=(u,)) for u in USERS]
        if not self.proposed and all(u in self.heard for u in USERS):
            both = sorted(self.heard["user1"] & self.heard["user2"])
            if both:
                self.proposed = True
                moves.append(self.command("propose", both[0], first=not moves))
        return moves


SPEC = TaskSpec(
    name="meeting", title="Find a meeting slot", game_class=MeetingGame,
    brains={"user": UserBrain, "assistant": AssistantBrain}, default_brains=("user", "user", "assistant"),
    seat_brains={"user1": ("user",), "user2": ("user",), "assistant": ("assistant",)},
    roles={"user1": "a user with private free slots", "user2": "a user with private free slots",
           "assistant": "relays between the users and proposes a slot"},
    per_game_columns=("agreed", "score"), layout="", state_element="meeting-state",
)
