"""Deal or No Deal (Lewis et al. 2017, as played in Hua et al.'s "Game-theoretic LLM"): Alice and Bob divide books,
hats and balls. Each sees only their own values (integers 0-10, all items worth 10 to each); no deal scores 0.

Moves (the contract in tasks/dond and /work/notes/dond-contract.md): free chat, plus
  /propose books=1 hats=2 balls=0   what the proposer takes; it replaces the proposer's own standing offer. When it
                                    gives the proposer exactly what the partner's standing offer gives them, it is
                                    taken as accepting that offer (both asked for the same split);
  /accept [id]                      accept the partner's standing offer: deal, game over;
  /reject [id] [reason]             the partner's standing offer stops standing;
  /nodeal                           walk away: the game ends without a deal.
Rounds: a turn is a run of moves (chat lines or commands) by one seat; a round is one turn of each seat. After
`max_rounds` (20) rounds the only move that still counts is /accept of the standing offer; any other move ends the
game without a deal. Options: max_rounds; `data` + `hard` play released instances (see released.py); `instance`
fixes the instance (its seed, or its number in the released selection) whatever the room's seed.

`protocol: paper` (preset `paper`) plays the paper's ending instead (paper_rules.py): no offer makes a deal by
itself; the negotiation stops on "halt negotiation" (`halt`: both | either), on settled proposals, on an /accept or
after the last round, and then each side presents the deal it believes was made (/present books=1 hats=2 balls=0);
the deal stands when the two claims fit.
"""
from __future__ import annotations

from typing import Optional

from tasks.core import Context, Game, RuleError
from tasks.core.offers import answer_id, answer_words

from . import metrics, paper_rules
from .items import ITEMS, describe, rest, utility, valid_values
from .parse import USAGE, SplitError, parse_split

SEAT_NAMES = {"alice": "Alice", "bob": "Bob"}
MAX_ROUNDS = 20


def values_text(values) -> str:
    return ", ".join(f"{name} {v}" for name, v in zip(ITEMS, values))


class DondGame(Game):
    task = "dond"
    title = "Deal or No Deal"
    seats = ("alice", "bob")
    seat_names = SEAT_NAMES
    chat = "open"

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        super().__init__(seed, options, instance)
        self.counts = tuple(int(c) for c in self.inst["counts"])
        self.values = {s: tuple(int(v) for v in self.inst["values"][s]) for s in self.seats}
        for s in self.seats:
            if not valid_values(self.counts, self.values[s]):
                raise ValueError(f"{s}'s values {self.values[s]} do not add up to 10 over counts {self.counts}")
        self.max_rounds = int(self.options.get("max_rounds") or MAX_ROUNDS)
        if not 1 <= self.max_rounds <= 100:
            raise ValueError("max_rounds must be 1..100")
        self.offers: list[dict] = []  # {"id", "by", "split" (what the proposer takes), "status", "reason", "round"}
        self.runs = 0  # turns so far (runs of moves by one seat)
        self.last_mover: Optional[str] = None
        self.deal: Optional[dict] = None  # {"alice": split, "bob": split}
        self.end_reason: Optional[str] = None  # accepted | matched | rounds | walked_away
        self.tally = {"messages": 0, "proposals": 0, "rejections": 0}
        self.protocol = str(self.options.get("protocol") or "ours")
        self.halt_rule = str(self.options.get("halt") or "both")
        if self.protocol not in paper_rules.PROTOCOLS or self.halt_rule not in paper_rules.HALT_RULES:
            raise ValueError(f"protocol must be one of {paper_rules.PROTOCOLS}, halt one of {paper_rules.HALT_RULES}")
        self.negotiation_end: Optional[str] = None  # paper: why the talk stopped (then each side presents)
        self.presented: dict = {}                   # paper: seat -> the split it claims
        self.round_lines: dict = {}                 # paper: seat -> its message of this round
        self.checked_round = 0

    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        """Option `instance` (a number) fixes the instance whatever the room's seed: every room of a study then
        plays the same one (generated from that seed, or that released instance of the selection)."""
        if options.get("instance") not in (None, ""):
            seed = int(options["instance"])
        if options.get("data"):
            from .released import instance_for_seed
            return instance_for_seed(seed, options)
        from .generator import generate
        return generate(seed, options)

    # --- helpers ------------------------------------------------------------------------------------------------
    def partner(self, seat: str) -> str:
        return self.seats[1 - self.seats.index(seat)]

    @property
    def over(self) -> bool:
        return self.end_reason is not None

    @property
    def phase(self) -> str:
        return "over" if self.over else "presenting" if self.negotiation_end else "negotiating"

    @property
    def round(self) -> int:
        return min(self.max_rounds, max(1, (self.runs + 1) // 2))

    def standing(self, seat: str) -> Optional[dict]:
        return next((o for o in reversed(self.offers) if o["by"] == seat and o["status"] == "open"), None)

    def take_of(self, seat: str, offer: dict) -> tuple:
        """What `seat` gets under `offer`."""
        return tuple(offer["split"]) if offer["by"] == seat else rest(self.counts, offer["split"])

    def private_parts(self, seat: str) -> list:
        """The seat's values, tagged with the seat as its own page holds them (identical valuations are no leak)."""
        return [{"seat": seat, "values": list(self.values[seat])}]

    def _worth(self, seat: str, take) -> str:
        return f"worth {utility(take, self.values[seat])} to you"

    # --- flow ---------------------------------------------------------------------------------------------------
    def start(self, ctx: Context) -> None:
        if self.protocol == "paper":
            ctx.say(f"Welcome to Deal or No Deal! There are {describe(self.counts)} to divide between Alice and Bob. "
                    "Each of you has private values for the items (0 to 10 per item; all items together are worth "
                    "10 to each of you); you see only your own. Take turns writing one message each, Alice first, "
                    f"for at most {self.max_rounds} rounds; say 'halt negotiation' once you agree. Then each of you "
                    "presents the deal you believe was made (/present books=1 hats=2 balls=0, what YOU get): if the "
                    "two claims fit, that is the deal; otherwise you both score 0.")
            self._tell_values(ctx)
            return
        ctx.say(f"Welcome to Deal or No Deal! There are {describe(self.counts)} to divide between Alice and Bob. "
                "Each of you has private values for the items (0 to 10 per item; all items together are worth 10 "
                "to each of you); you see only your own. Chat freely and make offers: /propose books=1 hats=2 "
                "balls=0 (what YOU get), /accept or /reject your partner's offer, or use the buttons. A deal is "
                f"made when one of you accepts the other's offer; without a deal within {self.max_rounds} rounds "
                "you both score 0. Alice starts.")
        self._tell_values(ctx)

    def _tell_values(self, ctx: Context) -> None:
        for s in self.seats:
            ctx.say(f"You are {SEAT_NAMES[s]}. Your values (only you see them): {values_text(self.values[s])}. "
                    f"Everything together is worth 10 to you.", to=s)

    def _turn(self, ctx: Context, seat: str, closing: bool = False) -> bool:
        """Count a move of `seat` into the rounds. False when the rounds were already over and this move (which is
        no closing /accept) ended the game without a deal, or (paper protocol) the talk ended before it."""
        if self.over:
            raise RuleError("The game is over.")
        if self.negotiation_end:
            raise RuleError("The negotiation is over: present the deal you believe was made with /present "
                            "books=1 hats=2 balls=0 (what YOU get).")
        if seat == self.last_mover:
            return True
        if self.protocol == "paper" and seat == self.seats[0] and self.runs and not self._check_round(ctx):
            return False  # Bob's round ended without a message of his and that ended the talk: this move is late
        if self.runs >= 2 * self.max_rounds:
            if closing:
                return True
            ctx.say(f"The {self.max_rounds} rounds are over and no offer was accepted.")
            self._finish(ctx, None, "rounds")
            return False
        self.runs += 1
        self.last_mover = seat
        if seat == self.seats[0]:
            self.round_lines = {}
        if self.protocol == "paper":
            return True  # the round check after Bob's message stops the talk (no closing /accept)
        if self.runs == 2 * self.max_rounds:
            other = self.partner(seat)
            ctx.say(f"This is the last turn of round {self.max_rounds}: after it, {SEAT_NAMES[other]} can only "
                    f"/accept {SEAT_NAMES[seat]}'s standing offer; any other move ends the game without a deal.")
        elif self.runs == 2 * self.max_rounds - 1:
            ctx.say(f"Round {self.max_rounds} of {self.max_rounds} begins: the last round.")
        return True

    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        if self.over or self.negotiation_end:
            return
        if self._turn(ctx, seat):
            self.tally["messages"] += 1
            if self.protocol == "paper":
                self.round_lines[seat] = text
                if seat == self.seats[0] and paper_rules.alice_halts_alone(text, self.halt_rule):
                    self._end_negotiation(ctx, "halted")
                elif seat == self.seats[1]:
                    self._check_round(ctx)

    # --- the paper's protocol (paper_rules.py) ----------------------------------------------------------------------
    def proposals_of(self, seat: str) -> list[tuple]:
        """Every proposal `seat` made, as what Alice gets."""
        return [self.take_of(self.seats[0], o) for o in self.offers if o["by"] == seat]

    def _check_round(self, ctx: Context) -> bool:
        """After Bob's message (or before Alice's next one, if he sent none): does the negotiation stop? False when
        it stopped."""
        if self.checked_round >= self.round:
            return not self.negotiation_end
        self.checked_round = self.round
        why = paper_rules.stop_reason(self.round_lines.get(self.seats[0], ""), self.round_lines.get(self.seats[1], ""),
                                      self.halt_rule, self.proposals_of(self.seats[0]),
                                      self.proposals_of(self.seats[1]), self.round, self.max_rounds)
        if why:
            self._end_negotiation(ctx, why)
        return not why

    def _end_negotiation(self, ctx: Context, why: str) -> None:
        self.negotiation_end = why
        ctx.log("negotiation_end", reason=why, rounds=self.round)
        ctx.say(f"The negotiation is over ({why}). Each of you now presents the deal you believe was made: /present "
                "books=1 hats=2 balls=0 (what YOU get). A deal is made when the two claims fit together.")

    def cmd_present(self, ctx: Context, seat: str, args) -> None:
        """/present books=1 hats=2 balls=0: once the negotiation is over (paper protocol), the deal you believe was
        made (what YOU get)"""
        if self.over:
            raise RuleError("The game is over.")
        if not self.negotiation_end:
            raise RuleError("/present comes after the negotiation (paper protocol); now /propose, /accept or chat.")
        if seat in self.presented:
            raise RuleError("You already presented your deal.")
        try:
            take = parse_split(args, self.counts) if args else None
        except SplitError as exc:
            raise RuleError(str(exc)) from None
        if take is None:
            raise RuleError("Present what you get: /present books=1 hats=2 balls=0.")
        self.presented[seat] = list(take)
        ctx.log("present", by=seat, split=list(take))
        ctx.say(f"You presented: you get {describe(take)} ({self._worth(seat, take)}).", to=seat)
        if len(self.presented) < len(self.seats):
            return
        a, b = (self.presented[s] for s in self.seats)
        if paper_rules.claims_fit(self.counts, a, b):
            ctx.say(f"The claims fit: Alice gets {describe(a)}; Bob gets {describe(b)}.")
            self._finish(ctx, {"alice": a, "bob": b}, "presented")
        else:
            ctx.say(f"The claims do not fit (Alice claims {describe(a)}, Bob {describe(b)}): no deal.")
            self._finish(ctx, None, "claims_differ")

    def cmd_propose(self, ctx: Context, seat: str, args) -> None:
        """/propose books=1 hats=2 balls=0: offer a split (what YOU get; your partner gets the rest)"""
        if self.over:
            raise RuleError("The game is over.")
        if not args:
            raise RuleError(USAGE + ".")
        try:
            take = parse_split(args, self.counts)
        except SplitError as exc:
            raise RuleError(str(exc)) from None
        other = self.partner(seat)
        theirs = self.standing(other)
        if self.protocol != "paper" and theirs is not None and self.take_of(seat, theirs) == take:
            if self._turn(ctx, seat, closing=True):
                ctx.say(f"{SEAT_NAMES[seat]} proposed exactly what {SEAT_NAMES[other]} offered: that is a deal.")
                self._accept(ctx, seat, theirs, "matched")
            return
        if not self._turn(ctx, seat):
            return
        mine = self.standing(seat)
        if mine is not None:
            mine["status"] = "replaced"
        offer = {"id": len(self.offers) + 1, "by": seat, "split": list(take), "status": "open", "reason": None,
                 "round": self.round}
        self.offers.append(offer)
        self.tally["proposals"] += 1
        left = rest(self.counts, take)
        ctx.log("offer", id=offer["id"], by=seat, split=list(take))
        ctx.say(f"Your offer #{offer['id']}: you get {describe(take)} ({self._worth(seat, take)}); "
                f"{SEAT_NAMES[other]} gets {describe(left)}.", to=seat)
        ctx.say(f"{SEAT_NAMES[seat]} offers (#{offer['id']}): you get {describe(left)} ({self._worth(other, left)}); "
                f"{SEAT_NAMES[seat]} gets {describe(take)}. Accept or Reject it with the buttons (or /accept, /reject), "
                "or make your own offer.", to=other)

    def _partner_offer(self, seat: str, args) -> dict:
        other = self.partner(seat)
        offer = self.standing(other)
        if offer is None:
            raise RuleError(f"{SEAT_NAMES[other]} has no standing offer. Make your own: {USAGE[7:]}.")
        wanted = answer_id(args)
        if wanted is not None and wanted != offer["id"]:
            raise RuleError(f"Offer #{wanted} is no longer standing; {SEAT_NAMES[other]}'s standing offer is "
                            f"#{offer['id']}: you get {describe(self.take_of(seat, offer))}.")
        return offer

    def cmd_accept(self, ctx: Context, seat: str, args) -> None:
        """/accept: accept your partner's standing offer (the game ends with that deal)"""
        if self.over:
            raise RuleError("The game is over.")
        offer = self._partner_offer(seat, args)
        if self._turn(ctx, seat, closing=True):
            ctx.say(f"{SEAT_NAMES[seat]} accepts {SEAT_NAMES[offer['by']]}'s offer #{offer['id']}.")
            if self.protocol == "paper":
                offer["status"] = "accepted"
                self._end_negotiation(ctx, "accepted")
                return
            self._accept(ctx, seat, offer, "accepted")

    def cmd_reject(self, ctx: Context, seat: str, args) -> None:
        """/reject [reason]: reject your partner's standing offer, optionally saying why"""
        if self.over:
            raise RuleError("The game is over.")
        offer = self._partner_offer(seat, args)
        if not self._turn(ctx, seat):
            return
        words = answer_words(args)
        reason = " ".join(words).strip()[:300] or None
        offer["status"] = "rejected"
        offer["reason"] = reason
        self.tally["rejections"] += 1
        ctx.log("reject", id=offer["id"], by=seat, reason=reason)
        ctx.say(f"You rejected {SEAT_NAMES[offer['by']]}'s offer #{offer['id']}.", to=seat)
        why = f": {reason}" + ("" if reason[-1] in ".!?" else ".") if reason else "."
        ctx.say(f"{SEAT_NAMES[seat]} rejected your offer #{offer['id']}{why} Make another offer, or wait for "
                "theirs.", to=offer["by"])

    def cmd_nodeal(self, ctx: Context, seat: str, args) -> None:
        """/nodeal: walk away; the game ends without a deal (both of you score 0)"""
        if self.over:
            raise RuleError("The game is over.")
        if args:
            raise RuleError("/nodeal takes no arguments: it ends the game without a deal.")
        ctx.say(f"{SEAT_NAMES[seat]} walked away: no deal.")
        self._finish(ctx, None, "walked_away")

    def _accept(self, ctx: Context, seat: str, offer: dict, how: str) -> None:
        offer["status"] = "accepted"
        split = {s: list(self.take_of(s, offer)) for s in self.seats}
        ctx.say(f"Deal! Alice gets {describe(split['alice'])}; Bob gets {describe(split['bob'])}.")
        self._finish(ctx, split, how)

    def _finish(self, ctx: Context, split: Optional[dict], reason: str) -> None:
        self.deal = split
        self.end_reason = reason
        for s in self.seats:
            if split:
                ctx.say(f"Your score: {utility(split[s], self.values[s])} of 10.", to=s)
            else:
                ctx.say("No deal: you both score 0.", to=s)
        ctx.log("game_result", deal=split is not None, split=split, reason=reason, rounds=self.round)
        ctx.end("completed")

    # --- views and results --------------------------------------------------------------------------------------
    def view(self, seat: str) -> dict:
        from .render import seat_view  # the page state lives with the rendering (one place for the perspective)
        return seat_view(self, seat)

    def results(self) -> dict:
        va, vb = self.values["alice"], self.values["bob"]
        out = metrics.outcome(self.counts, va, vb, *((self.deal["alice"], self.deal["bob"]) if self.deal else (None,)))
        ref = metrics.reference(self.counts, va, vb)
        return {
            **out, "split": self.deal, "end": self.end_reason or "unfinished", "rounds": self.round,
            "offers": len(self.offers), "proposals": self.tally["proposals"],
            "rejections": self.tally["rejections"], "messages": self.tally["messages"],
            "best_alice": ref["best_alice"], "best_bob": ref["best_bob"], "best_total": ref["best_total"],
            "has_ef": ref["has_ef"], "max_total": ref["max_total"], "l1": self.inst.get("l1"),
            "source": self.inst.get("source"), "line": self.inst.get("line"),
            "score": out["total"], "normalized_score": round(out["total"] / ref["max_total"], 4),
            "turns": self.runs, "seed": self.seed, "tokens": 0, "bonus": {}, "protocol": self.protocol,
            **({"negotiation_end": self.negotiation_end, "presented": dict(self.presented)}
               if self.protocol == "paper" else {}),
        }


__all__ = ["DondGame", "SEAT_NAMES", "values_text"]
