"""DialOp MEDIATION: an assistant books one flight for each of two users, who each have a private 3-day calendar.

Seats "user1", "user2" and "assistant". Chat is relayed: a user's line reaches the assistant alone; the assistant
addresses one user or both (`to`). Each user sees their own calendar (importance, which events are shared), their
own flights and their own preferences; the assistant sees each user's shared events (no importance) and flights.
Only the assistant proposes (`/propose 3 7`: user 1's flight 3, user 2's flight 7); each user sees their own flight
with their own score breakdown and must /accept or /reject; both accepts end the game, any reject clears the
proposal. Score = the group score of the pair; normalised by the best and worst pairs (exact, all pairs).

What a user sees is what the original's users saw (reference §4.2, §6.2): their calendar with importance, their
flights, and on a proposal their own score breakdown. Their price and arrival weights stay hidden unless task option
`show_weights` (ours, off by default) shows them on the page and in the view.

Options: `rules` "fixed" (default) | "original" (the released game's quirks; see generator), `word_budget` (chat
words for the whole dialogue, prompted self-play: below `final_at` words left chat is refused and the assistant's
next proposal is accepted automatically), `turns` "free" (ours, the default: everyone acts when they like, as in the
release's web app) | "round-robin" (the paper's: two alternating virtual rooms, one move a turn in the cycle user 1,
user 2, assistant; see rooms.py), `show_weights`.
"""
from __future__ import annotations

from typing import Optional

from tasks.core import Context, RuleError
from tasks.core.offers import answer_id, check_answer
from tasks.dialop.game import DialopGame

from . import generator as gen
from .parse import ProposalError, parse_proposal
from .rooms import RoundRobin

USERS = ("user1", "user2")
SEAT_NAMES = {"user1": "User 1", "user2": "User 2", "assistant": "The assistant"}
EVENT_PREFIX = {"user1": "A", "user2": "B"}


class MediationGame(DialopGame):
    task = "mediation"
    title = "Flight Mediation"
    seats = ("user1", "user2", "assistant")
    seat_names = {"user1": "User 1", "user2": "User 2", "assistant": "Assistant"}  # as pages name the seats
    chat = "relay"
    turn_modes = ("free", "round-robin")

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        super().__init__(seed, options, instance)
        self.rules = dict(self.inst["rules"])
        self.users = self.inst["users"]
        self.set_up_dialogue(SEAT_NAMES, proposers=("assistant",), responders=USERS)
        self.rr = RoundRobin() if self.turns_mode == "round-robin" else None
        self._audience: tuple = ()
        # prompted self-play: inputs up to this time are the replayed human prefix (counted, never cut short)
        self.prefix_until = self.options.get("budget_after")
        self.show_weights = str(self.options.get("show_weights", "no")).strip().lower() in ("1", "true", "yes", "on")
        self.counts = {"messages": {s: 0 for s in self.seats}, "words": {s: 0 for s in self.seats},
                       "proposals": 0, "rejected": 0}
        self.history: list[dict] = []  # proposals made: pair and each user's answer (for views)

    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        return gen.generate(seed, rules=str(options.get("rules", "fixed")))

    # --- helpers ------------------------------------------------------------------------------------------------
    def u(self, seat: str) -> int:
        return USERS.index(seat)

    def when(self, e: dict) -> str:
        return gen.show_span(e["start"], e["end"], self.rules.get("dates", "plain"))

    def event_view(self, seat: str, i: int, private: bool) -> dict:
        e = self.users[self.u(seat)]["calendar"][i]
        out = {"id": f"{EVENT_PREFIX[seat]}{i + 1}", "start": e["start"], "end": e["end"], "when": self.when(e)}
        if private:
            out.update(importance=e["importance"], shared=e["shared"])
        return out

    def flight_view(self, seat: str, i: int) -> dict:
        f = self.users[self.u(seat)]["flights"][i]
        return {"id": i + 1, "carrier": f["carrier"], "price": f["price"], "start": f["start"], "end": f["end"],
                "when": self.when(f)}

    def flight_text(self, seat: str, i: int) -> str:
        f = self.flight_view(seat, i)
        return f"flight {f['id']} ({f['carrier']}, ${f['price']}, {f['when']})"

    def prefs(self, seat: str) -> dict:
        user = self.users[self.u(seat)]
        return {"user": seat, "price_pref": user["price_pref"], "arrival_pref": self.inst["arrival_pref"],
                "reference_price": gen.price_mean(user, self.rules)}

    def private_parts(self, seat: str) -> list:
        """A user's events with their importance (the assistant sees only shared ones, without importance; the other
        user none) and their preferences. Flights are the assistant's to see, never the other user's (the
        mediation leak test checks those)."""
        if seat not in USERS:
            return []
        cal = self.users[self.u(seat)]["calendar"]
        return [{k: v for k, v in self.event_view(seat, i, True).items() if k != "when"} for i in range(len(cal))] + \
            [self.prefs(seat)]

    # --- views --------------------------------------------------------------------------------------------------
    def _user_breakdown(self, seat: str, pair) -> dict:
        b = gen.breakdown(self.inst, tuple(pair))["users"][self.u(seat)]
        return {"calendar": b["calendar"], "price": b["price"], "arrival": b["arrival"], "total": b["total"],
                "conflicts": [self.event_view(seat, i, True)["id"] for i in b["conflicts"]]}

    def view(self, seat: str) -> dict:
        p = self.proposals.pending
        base = {"words_left": self.words.left(), "final": self.words.final, "rules": dict(self.rules),
                "proposals": self.counts["proposals"], "result": self._result_view(seat)}
        if self.rr is not None:
            base["turn"] = self.rr.view(seat)
        if seat == "assistant":
            pending = None if p is None else {"id": p.id, "pair": [i + 1 for i in p.value],
                                              "accepted": list(p.accepted_by)}
            return {"role": "assistant", **base, "pending": pending,
                    "users": [{"seat": s, "calendar": [self.event_view(s, i, False) for i, e in
                                                       enumerate(self.users[self.u(s)]["calendar"]) if e["shared"]],
                               "flights": [self.flight_view(s, i) for i in range(len(self.users[self.u(s)]["flights"]))]}
                              for s in USERS]}
        k = self.u(seat)
        pending = None
        if p is not None:
            pending = {"id": p.id, "flight": self.flight_view(seat, p.value[k]),
                       "breakdown": self._user_breakdown(seat, p.value), "mine_accepted": seat in p.accepted_by}
        shown = {"prefs": self.prefs(seat)} if self.show_weights else {}
        return {"role": "user", "me": seat, **base, "pending": pending, "must_respond": bool(
                    p is not None and seat not in p.accepted_by), **shown,
                "calendar": [self.event_view(seat, i, True) for i in range(len(self.users[k]["calendar"]))],
                "flights": [self.flight_view(seat, i) for i in range(len(self.users[k]["flights"]))]}

    def _result_view(self, seat: str) -> Optional[dict]:
        if self.accepted is None:
            return None
        b = gen.breakdown(self.inst, tuple(self.accepted))
        out = {"group": b["group"], "best": self.inst["best"], "worst": self.inst["worst"],
               "normalized": round(gen.normalized(self.inst, b["group"]), 4), "forced": self.forced}
        if seat in USERS:
            k = self.u(seat)
            out.update(mine=b["users"][k]["total"], partner=b["users"][1 - k]["total"],
                       flight=self.flight_view(seat, self.accepted[k]))
        else:
            out["pair"] = [i + 1 for i in self.accepted]
        return out

    def results(self) -> dict:
        c = self.counts
        done = self.accepted is not None
        score = gen.breakdown(self.inst, tuple(self.accepted))["group"] if done else None
        norm = round(gen.normalized(self.inst, score), 4) if done else 0.0
        messages = sum(c["messages"].values())
        return {
            "score": score, "best": self.inst["best"], "worst": self.inst["worst"], "normalized_score": norm,
            "pair": [i + 1 for i in self.accepted] if done else None, "accepted": done,
            "optimal": done and score == self.inst["best"], "proposals": c["proposals"], "rejected": c["rejected"],
            "messages": messages, "words": sum(c["words"].values()),
            **{f"words_{s}": c["words"][s] for s in self.seats}, "turns": messages + c["proposals"],
            "forced_final": self.forced, "word_budget": self.words.limit, "rules": self.rules,
            "source": self.inst.get("source"), "seed": self.seed, "tokens": 0, "bonus": {},
        }

    # --- rules --------------------------------------------------------------------------------------------------
    def chat_audience(self, seat: str, to):
        if seat in USERS:
            if to is not None and tuple(to) != ("assistant",):
                raise RuleError("You can only write to the assistant.")
            self._audience = ("assistant",)
        elif to is None:
            self._audience = USERS  # the assistant's unaddressed line goes to both users
        else:
            self._audience = tuple(super().chat_audience(seat, to))
        return self._audience

    # --- the paper's turn order (turns="round-robin"; rooms.py) ---------------------------------------------------
    def _open(self) -> tuple[bool, frozenset]:
        p = self.proposals.pending
        return p is not None, frozenset(p.accepted_by) if p is not None else frozenset()

    def _turn_check(self, ctx: Context, seat: str, what: str, to=None) -> None:
        if self.rr is None or self._prefix(ctx) or (what == "propose" and self.words.final):
            return  # free turns, the replayed human prefix, or the forced final proposal
        pending, accepted = self._open()
        self.rr.check(seat, what, to if seat == "assistant" else None, pending, seat in accepted)

    def _turn_taken(self, seat: str, what: str, to=None) -> None:
        if self.rr is not None:
            self.rr.moved(seat, what, to, *self._open())

    def start(self, ctx: Context) -> None:
        budget = "" if self.words.limit is None else f" You have {self.words.left()} words of chat in all."
        for s in USERS:
            ctx.say("Welcome! You and a friend are flying to the same place; an assistant books one flight for each "
                    "of you. Your page shows your 3-day calendar (importance 1-10; the assistant sees only the events "
                    "marked shared, and not their importance) and your flights. Tell the assistant what matters to "
                    "you. When it proposes a flight, your page shows its score for you: Accept or Reject it there (or "
                    "/accept, /reject). Missing "
                    "important meetings, paying more and arriving far apart from your friend all cost points; the "
                    f"group score is what counts.{budget}", to=s)
        ctx.say("Welcome! You are the assistant: book one flight for each of two users. Your page shows each user's "
                "flights and the calendar events they share with you (not their importance; they have private events "
                "too). Chat with each user (your page has a pane per user; at the terminal: @user1 text), then "
                "/propose N M (user 1's flight N, user 2's flight M). Both must accept; a reject clears the proposal. "
                f"The group score counts missed meetings, prices and how far apart they arrive.{budget}",
                to="assistant")

    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        self._turn_check(ctx, seat, "chat", self._audience)
        n = self._spend_words(ctx, text)
        self.counts["messages"][seat] += 1
        self.counts["words"][seat] += n
        self._turn_taken(seat, "chat", self._audience)
        if self.words.limit is not None and self.words.final and not self._prefix(ctx):
            ctx.say(f"Words left: {max(0, self.words.left())}. The assistant must make the final proposal now.")

    def cmd_propose(self, ctx: Context, seat: str, args) -> None:
        """/propose N M: (assistant) propose user 1's flight N and user 2's flight M"""
        if seat != "assistant":
            raise RuleError("Only the assistant proposes flights.")
        counts = tuple(len(u["flights"]) for u in self.users)
        try:
            pair = parse_proposal(" ".join(args), counts)
        except ProposalError as exc:
            raise RuleError(str(exc)) from None
        value = [pair[0] - 1, pair[1] - 1]
        self._turn_check(ctx, seat, "propose")
        prop, _ = self.proposals.propose(seat, value)
        self._turn_taken(seat, "propose")
        self.counts["proposals"] += 1
        ctx.log("proposal", seat=seat, pair=list(pair), id=prop.id)
        ctx.say(f"You proposed {self.flight_text('user1', value[0])} for User 1 and "
                f"{self.flight_text('user2', value[1])} for User 2.", to="assistant")
        for s in USERS:
            b = self._user_breakdown(s, value)
            ctx.say(f"The assistant proposes {self.flight_text(s, value[self.u(s)])} for you. Your score: "
                    f"meetings {b['calendar']}, price {b['price']}, arrival {b['arrival']}, total {b['total']}."
                    + ("" if self.words.final and not self._prefix(ctx) else
                       " Accept or Reject it on your page (or /accept, /reject)."), to=s)
        if self.words.final and not self._prefix(ctx):  # the forced final proposal (PSP): accepted for both users
            self.forced = True
            for s in USERS:
                self.proposals.agree(s)
            self._accept(ctx, value)

    def cmd_accept(self, ctx: Context, seat: str, args) -> None:
        """/accept: (user) accept the proposed flight (both users must accept)"""
        self._user_only(seat)
        p = self._answered(seat, args)
        self._turn_check(ctx, seat, "answer")
        prop = self.proposals.agree(seat, p.id)
        self._turn_taken(seat, "answer")
        ctx.log("response", seat=seat, answer="accept")
        if prop is None:
            ctx.say(f"{SEAT_NAMES[seat]} accepts; waiting for the other user (proposal #{p.id}).", to="assistant")
            ctx.tell(f"You accepted proposal #{p.id} ({self._offer_text(seat, p)}); waiting for the other user.")
            return
        ctx.tell(f"You accepted proposal #{p.id} ({self._offer_text(seat, p)}).")
        self._accept(ctx, list(prop.value))

    def cmd_reject(self, ctx: Context, seat: str, args) -> None:
        """/reject: (user) reject the proposal (it is cleared for everyone)"""
        self._user_only(seat)
        p = self._answered(seat, args)
        self._turn_check(ctx, seat, "answer")
        self.proposals.reject(seat, p.id)
        self._turn_taken(seat, "answer")
        self.counts["rejected"] += 1
        ctx.log("response", seat=seat, answer="reject")
        ctx.say(f"{SEAT_NAMES[seat]} rejected the proposal (#{p.id}); the assistant will propose again.")

    def _user_only(self, seat: str) -> None:
        if seat not in USERS:
            raise RuleError("Only the users accept or reject proposals.")

    def _offer_text(self, seat: str, p) -> str:
        return self.flight_text(seat, p.value[self.u(seat)])

    def _answered(self, seat: str, args):
        """The open proposal a user's answer is for: the one whose id the page sent (a stale id is refused, naming
        the open one), or the open one when a typed answer gives no id."""
        p = self.proposals.pending
        check_answer(answer_id(args), p.id if p else None, self._offer_text(seat, p) if p else "")
        if p is None:
            raise RuleError("There is no open proposal to answer.")
        return p

    def _accept(self, ctx: Context, value: list[int]) -> None:
        self.accepted = list(value)
        b = gen.breakdown(self.inst, tuple(value))
        norm = gen.normalized(self.inst, b["group"])
        ctx.log("score", score=b["group"], best=self.inst["best"], worst=self.inst["worst"], normalized=norm)
        for s in USERS:
            k = self.u(s)
            ctx.say(f"Booked! Your group scored {b['group']} ({norm:.0%} of the way from the worst to the best "
                    f"pair). You got {b['users'][k]['total']} point{'' if abs(b['users'][k]['total']) == 1 else 's'} "
                    f"and your friend {b['users'][1 - k]['total']}.",
                    to=s)
        ctx.say(f"Booked! The group scored {b['group']}; the best pair scored {self.inst['best']} "
                f"({norm:.0%} of the way from the worst to the best).", to="assistant")
        ctx.end("completed")


__all__ = ["MediationGame", "USERS", "SEAT_NAMES"]
