"""A small two-seat game written for the tests of the core and the runtimes.

"Pick a number": each seat privately knows a favourite number; the pair earns points for agreeing on a number
close to both. It uses the shared mechanisms the real tasks use: the proposal cycle, the submit gate and a turn
budget, plus a strict-turn command (/poke) for turn-taking tests.
"""
from __future__ import annotations

import random

from tasks.core import Brain, ChatShown, Context, Game, Message, ProposalCycle, RuleError, SubmitGate, TaskSpec, \
    TurnBudget, TurnOrder, View


class PickNumber(Game):
    task = "toy"
    title = "Pick a number"
    seats = ("a", "b")
    person_seat_order = ("a", "b")

    @classmethod
    def generate(cls, seed, options):
        rng = random.Random(seed)
        return {"favourite": {s: rng.randint(1, 9) for s in cls.seats}}

    def __init__(self, seed: int, options=None, instance=None):
        super().__init__(seed, options, instance)
        self.favourite = dict(self.inst["favourite"])
        self.proposals = ProposalCycle(self.seats)
        self.gate = SubmitGate(self.seats)
        self.budget = TurnBudget(self.seats, self.options.get("turn_limit", 6))
        self.turns = TurnOrder(self.seats)
        self.agreed = None
        self.pokes = 0
        self.chats = 0

    def start(self, ctx: Context):
        ctx.say("Agree on a number from 1 to 9 with /propose N, /agree, /reject, then /submit.")

    def view(self, seat):
        return {"favourite": self.favourite[seat], "agreed": self.agreed,
                "pending": None if self.proposals.pending is None else self.proposals.pending.value,
                "turn": self.turns.current, "left": self.budget.left(seat)}

    def results(self):
        score = None if self.agreed is None else 18 - sum(abs(self.agreed - f) for f in self.favourite.values())
        return {"agreed": self.agreed, "score": score, "chats": self.chats}

    def on_chat(self, ctx, seat, text):
        self.chats += 1

    def cmd_propose(self, ctx, seat, args):
        """/propose N: propose the number N (1-9)"""
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 9:
            raise RuleError("Usage: /propose N with N from 1 to 9.")
        self.budget.spend(seat)
        prop, _ = self.proposals.propose(seat, int(args[0]))
        ctx.say(f"{seat} proposes {prop.value}. /agree or /reject?")
        ctx.log("proposal", seat=seat, value=prop.value)
        self._check_budget(ctx)

    def cmd_agree(self, ctx, seat, args):
        """/agree: accept the open proposal"""
        self.budget.spend(seat)
        prop = self.proposals.agree(seat)
        if prop:
            self.agreed = prop.value
            ctx.say(f"Agreed on {prop.value}.")
        self._check_budget(ctx)

    def cmd_reject(self, ctx, seat, args):
        """/reject: decline the open proposal"""
        self.budget.spend(seat)
        self.proposals.reject(seat)
        ctx.say(f"{seat} rejected the proposal.")
        self._check_budget(ctx)

    def cmd_submit(self, ctx, seat, args):
        """/submit: submit the agreed number"""
        if self.agreed is None:
            raise RuleError("Agree on a number before you submit.")
        outcome = self.gate.submit(seat, self.agreed)
        if outcome == "complete":
            ctx.end("completed")
        else:
            ctx.say(f"{seat} submitted {self.agreed}; waiting for the partner.")

    def cmd_poke(self, ctx, seat, args):
        """/poke: a strictly alternating move"""
        self.turns.check(seat, "poke")
        self.turns.advance()
        self.pokes += 1

    def cmd_crash(self, ctx, seat, args):
        """/crash: a rule with a bug (for tests)"""
        self.agreed = -1  # must be rolled back
        raise ZeroDivisionError("boom")

    def _check_budget(self, ctx):
        if self.budget.exhausted():
            ctx.end("timeout")


class ToyBrain(Brain):
    """Proposes its favourite number, agrees to anything within 2 of it, then submits."""

    name = "toy"

    def __init__(self, seat, seed=0, llm=None, options=None):
        super().__init__(seat, seed, llm, options)
        self.view = {}
        self.heard = []

    def observe(self, effect):
        if isinstance(effect, View):
            self.view = effect.data
        elif isinstance(effect, (Message, ChatShown)):
            self.heard.append(effect)

    def act(self):
        v = self.view
        if not v or v.get("core", {}).get("phase") != "playing":
            return []
        if v["agreed"] is not None:
            if getattr(self, "_submitted", None) == v["agreed"]:
                return []
            self._submitted = v["agreed"]
            return [self.command("submit")]
        pending = v["pending"]
        if pending is not None and getattr(self, "_mine", None) != pending:
            if abs(pending - v["favourite"]) <= 2:
                return [self.say("ok"), self.command("agree")]
            return [self.command("reject")]
        if pending is None:
            self._mine = v["favourite"]
            return [self.command("propose", v["favourite"])]
        return []


SPEC = TaskSpec(
    name="toy", title="Pick a number", game_class=PickNumber,
    brains={"toy": ToyBrain}, default_brains=("toy", "toy"),
    per_game_columns=("agreed", "score"), layout="", state_element="toy-state",
)
