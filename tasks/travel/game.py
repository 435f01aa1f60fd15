"""TRAVELING ADVENTURERS: the rules of one game (two seats, one authoritative agreed path).

Seats: "light" (the person's world in the paper; either seat may start) and "ghost" (the bot's world). Each seat sees only its
own coins per hallway; the pair earns the joint coins of one closed tour from the start room through every room.

Options (all optional):
    boards        "preset" (PRESET_BOARDS[index % 6]; default), "generated" (generate_board(rooms, seed)),
                  "human" (the 6-room game of human_study_sequence(seed)), "tutorial" (its 4-room tutorial)
    board         a Board JSON dict: play exactly this board (replay, hand-made boards); overrides `boards`
    rooms         rooms of a generated board (default 6)
    index         game number in a batch (picks the preset board; default: seed)
    turn_limit    turns per player (default 15; None = unlimited)
    wmin, wmax    coin range of generated boards (default 1, 10)
    greedy_fails  generated boards must defeat greedy play on joint coins (default False)
    bonus_optimal bonus per person seat for an optimal tour (default 0.5)
    rules         "ours" (default) or "paper" (always recorded in the options, so every log's game_start says which):
                  paper = no /share (coins only through chat), independent submissions (each seat submits its own
                  tour; the game ends once both have submitted, "completed" only when the tours are the same cycle,
                  otherwise "mismatch"; agreements never withdraw a submission, and the partner learns only that a
                  tour was submitted); turns are counted as under ours: one model output (an agent's batch of
                  moves) is one turn, as in the paper's loop of 15 answers per player

Turns: chat, /propose, /agree, /reject and /undo cost one turn; /share, /submit, /withdraw (and /help) are free, so
a player who has used every turn can still reveal coins and finish an agreed tour. An input whose `turn` flag is
False (the 2nd..nth move of one agent turn) is charged to the turn it belongs to, so one agent turn costs at most
one turn, under both rules. When both players have used all their turns the game
ends as a timeout, unless the agreed path is already a complete tour: then only the free moves remain and the
players may still submit it.
"""
from __future__ import annotations

import functools
from typing import Optional, Sequence

from tasks.core import Context, Game, ProposalCycle, RuleError, SubmitGate, TurnBudget
from tasks.core.offers import answer_id, check_answer

from .board import ROOM_NAMES, Board, edge, edge_key, normalize_tour
from .generator import generate_instance
from .metrics import tour_outcome
from .parse import edges_arg, rooms_arg, tour_arg

SEAT_NAMES = {"light": "Light", "ghost": "Ghost"}
FREE_COMMANDS = ("share", "submit", "withdraw")
RULES = ("ours", "paper")


def fmt_path(path: Sequence[str]) -> str:
    return "-".join(path)


class TravelGame(Game):
    task = "travel"
    title = "Traveling Adventurers"
    seats = ("light", "ghost")
    seat_names = SEAT_NAMES

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        super().__init__(seed, options, instance)
        inst = self.inst
        self.board = Board.from_json(inst["board"])
        self.board_id = inst["board_id"]
        b = self.board
        self.turn_limit = inst.get("turn_limit", self.options.get("turn_limit", 15))
        self.bonus_optimal = float(self.options.get("bonus_optimal", 0.5))
        self.rules = str(self.options.get("rules") or "ours").strip().lower()
        if self.rules not in RULES:
            raise ValueError(f"unknown rules {self.rules!r}; use {' or '.join(RULES)}")
        self.options["rules"] = self.rules  # recorded in game_start, so a log always says which rules it played
        self.optimum = int(inst["optimum"])
        self.optimal_tours = [list(t) for t in inst["optimal_tours"]]
        self.agreed: list[str] = [b.start]
        self.proposals = ProposalCycle(self.seats)
        # a function of the start room, not a bound method: a game that held itself through its gate would wait
        # for the garbage collector instead of being freed when its room (or an agent's copy) lets go of it
        self.gate = SubmitGate(self.seats, canon=functools.partial(normalize_tour, start=b.start))
        self.budget = TurnBudget(self.seats, self.turn_limit)
        self.shared: dict[str, list[str]] = {s: [] for s in self.seats}  # edge keys, in the order shared
        self.messages = {s: 0 for s in self.seats}
        self.proposal_count = {s: 0 for s in self.seats}
        self._charged = {s: False for s in self.seats}  # has the seat's current turn been charged yet?
        self._final_call = False
        self._end_status: Optional[str] = None
        self._final: Optional[dict] = None

    # ------------------------------------------------------------------------------------------------------------
    # set-up

    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        return generate_instance(seed, options)

    def private_parts(self, seat: str) -> list:
        """The seat's coins on the hallways it never shared (its shared coins are the partner's to see)."""
        unshared = {edge_key(e): w for e, w in self.board.weights[seat].items()
                    if edge_key(e) not in self.shared[seat]}
        return [unshared] if len(unshared) >= 2 else []

    def _canon(self, tour) -> tuple:
        return normalize_tour(tour, self.board.start)

    def start(self, ctx: Context) -> None:
        b = self.board
        rooms = ", ".join(f"{r} ({ROOM_NAMES.get(r, r)})" for r in b.rooms)
        limit = "no turn limit" if self.turn_limit is None else f"{self.turn_limit} turns each"
        if self.rules == "paper":
            ctx.say(
                f"Welcome to Traveling Adventurers! The house has {b.n} rooms: {rooms}. Together, plan one round "
                f"trip that starts and ends in {b.start} and visits every room exactly once. Each of you sees only "
                f"your own coins on each hallway ({b.wmin} to {b.wmax}); you earn the coins of both worlds along the "
                f"tour, so tell each other your coins in the chat. Either of you may start; {limit} (every message, "
                "/propose, /agree, /reject and /undo costs one; /submit is free). Commands: /propose K or /propose "
                "L K B ..., /agree, /reject, /undo [K], /submit (the agreed tour) or /submit L K B ... L. Each of "
                "you submits your own tour; the game ends when both have submitted, and it is completed only if "
                "you submitted the same tour. Type /help for details.")
        else:
            ctx.say(
                f"Welcome to Traveling Adventurers! The house has {b.n} rooms: {rooms}. Together, plan one round "
                f"trip that starts and ends in {b.start} and visits every room exactly once. Each of you sees only "
                f"your own coins on each hallway ({b.wmin} to {b.wmax}); you earn the coins of both worlds along the "
                f"tour. Either of you may start; {limit} (chat, /propose, /agree, /reject, /undo; /share and /submit "
                "are free). Commands: /propose K or /propose L K B ..., /agree, /reject, /undo [K], /share L-K or "
                "/share all, /submit. Type /help for details.")
        for seat in self.seats:
            coins = ", ".join(f"{edge_key(e)} {w}" for e, w in b.weights[seat].items())
            ctx.say(f"You are in the {seat} world. Your coins per hallway: {coins}.", to=seat)

    # ------------------------------------------------------------------------------------------------------------
    # views and results

    def partner(self, seat: str) -> str:
        return self.seats[1] if seat == self.seats[0] else self.seats[0]

    def view(self, seat: str) -> dict:
        b = self.board
        other = self.partner(seat)
        pending = None
        p = self.proposals.pending
        if p is not None:
            pending = {"id": p.id, "by": p.by, "mine": p.by == seat, "path": list(p.value["path"]),
                       "kind": p.value["kind"]}
        mine = self.gate.submitted.get(seat)
        theirs = self.gate.submitted.get(other)
        return {
            "rooms": [{"id": r, "name": ROOM_NAMES.get(r, r)} for r in b.rooms],
            "start": b.start,
            "world": seat,
            "my_coins": {edge_key(e): w for e, w in b.weights[seat].items()},
            # Only what the partner revealed with /share: never their other coins.
            "partner_coins": {k: b.weights[other][edge(*k.split("-"))] for k in self.shared[other]},
            "agreed": list(self.agreed),
            "pending": pending,
            "submitted": {"me": list(mine) if mine else None, "partner": theirs is not None},
            "turns_left": {"me": self.budget.left(seat), "partner": self.budget.left(other)},
            "result": self._final_view(),
            # additions to the agreed schema (extra keys only)
            "my_shared": list(self.shared[seat]),
            # the partner's submitted tour (announced anyway; kept from the partner under independent submissions)
            "partner_submitted": list(theirs) if theirs and self.rules != "paper" else None,
            "coin_range": [b.wmin, b.wmax],
            "turn_limit": self.turn_limit,
            "rules": self.rules,
            "share": self.rules != "paper",  # is /share available (paper rules: coins only through chat)
        }

    # The page in two parts (Game.page_shared): one small update per move reaches both pages (what moves change);
    # the rest, the seat's own and what never changes, goes to each page when it changes (at the start, mostly).
    # tasks/travel/page.py and plugins/travel.js put view(seat) back together.
    def page_shared(self) -> dict:
        p = self.proposals.pending
        return {
            "agreed": list(self.agreed),
            "pending": None if p is None else {"id": p.id, "by": p.by, "path": list(p.value["path"]),
                                               "kind": p.value["kind"]},
            "submitted": {s: self.gate.submitted.get(s) is not None for s in self.seats},
            "turns_left": {s: self.budget.left(s) for s in self.seats},
            "result": self._final_view(),
        }

    def page_private(self, seat: str) -> dict:
        v = self.view(seat)
        own = {k: v[k] for k in ("world", "rooms", "start", "my_coins", "partner_coins", "my_shared",
                                 "partner_submitted", "coin_range", "turn_limit", "rules", "share")}
        own.update(seats=list(self.seats), my_tour=v["submitted"]["me"])
        return own

    def _final_view(self) -> Optional[dict]:
        f = self._final
        if f is None:
            return None
        keys = ("status", "score", "optimum", "percentile", "optimal_tour", "identical", "correct", "optimal", "tour",
                "s90")
        return {k: f[k] for k in keys}

    def _outcome(self, status: str) -> dict:
        return tour_outcome(self.board, {s: self.gate.submitted.get(s) for s in self.seats}, self.optimum,
                            self.optimal_tours[0], status)

    def results(self) -> dict:
        """Called by the match when the game ends (also on timeouts the match decides); the final view shows it."""
        if self._final is None:
            self._final = self._outcome(self._end_status or "ended")
        f = self._final
        turns = dict(self.budget.used)
        bonus = {s: self.bonus_optimal for s in self.seats} if f["optimal"] and self.bonus_optimal else {}
        return {
            **{k: v for k, v in f.items() if k != "status"},
            "agreed": list(self.agreed),
            "turns": sum(turns.values()), "turns_by_seat": turns,
            "messages": sum(self.messages.values()), "messages_by_seat": dict(self.messages),
            "proposals": sum(self.proposal_count.values()),
            "shared": {s: len(v) for s, v in self.shared.items()},
            "normalized_score": round(f["score"] / self.optimum, 4) if self.optimum else 0.0,
            "tokens": 0,  # the match fills in the agents' recorded usage
            "rules": self.rules,
            "rooms": self.board.n, "board_id": self.board_id, "board_seed": self.board.seed, "seed": self.seed,
            # The match pays it to person seats only.
            "bonus": bonus,
        }

    def _end(self, ctx: Context, status: str) -> None:
        self._end_status = status
        self._final = self._outcome(status)
        ctx.end(status)

    # ------------------------------------------------------------------------------------------------------------
    # turns

    def _begin(self, ctx: Context, seat: str) -> None:
        # The match gives no input object to the rules; a context flag (when the core provides it) marks the 2nd..nth
        # move of one agent turn. Without it every input starts a new turn. Both rules: one model output is one turn
        # (the paper's harness charges one of its 15 iterations per answer, whatever the answer holds).
        if ctx.turn:
            self._charged[seat] = False

    def _charge(self, ctx: Context, seat: str) -> None:
        self._begin(ctx, seat)
        if not self._charged[seat]:
            self.budget.spend(seat)  # RuleError when the seat has no turns left (rolled back by the match)
            self._charged[seat] = True

    def _check_turns(self, ctx: Context) -> None:
        if not self.budget.exhausted() or ctx.ended:
            return
        if self._agreed_complete():
            if not self._final_call:
                self._final_call = True
                ctx.say(f"You have both used all your turns. /submit the agreed tour {fmt_path(self.agreed)} to finish.")
            return
        ctx.say("You have both used all your turns without agreeing on a tour, so the game is over.")
        ctx.log("timeout", agreed=list(self.agreed))
        self._end(ctx, "timeout")

    # ------------------------------------------------------------------------------------------------------------
    # helpers

    def _agreed_complete(self) -> bool:
        return len(self.agreed) == self.board.n + 1 and self.agreed[-1] == self.board.start

    def _check_path(self, path: list[str], extension: bool) -> list[str]:
        """Validate a path from the start room; close it when it visits every room. Returns the path."""
        b = self.board
        seen: set[str] = set()
        for i, r in enumerate(path):
            if r == b.start and i > 0:
                if i != len(path) - 1:
                    raise RuleError(f"The path returns to {b.start} before its end.")
                skipped = [x for x in b.rooms if x not in seen]
                if skipped:
                    raise RuleError(f"That tour skips {', '.join(skipped)}: it must visit every room before "
                                    f"returning to {b.start}.")
                return path
            if r in seen:
                where = "already on the agreed path" if extension and r in self.agreed else "named twice"
                raise RuleError(f"Room {r} is {where}; every room is visited once.")
            seen.add(r)
        if len(seen) == b.n:
            path = path + [b.start]  # every room visited: the only way on is back to the start
        return path

    def _proposed_path(self, rooms: list[str]) -> tuple[list[str], str]:
        b = self.board
        closing = len(rooms) == 1 and rooms[0] == b.start and len(self.agreed) == b.n
        if rooms[0] == b.start and not closing:
            path = self._check_path(list(rooms), False)
        else:
            if self._agreed_complete():
                raise RuleError(f"The agreed path is already a complete tour; propose a new tour from {b.start} "
                                "or /undo.")
            path = self._check_path(self.agreed + list(rooms), True)
        if path == self.agreed:
            raise RuleError("That is already the agreed path.")
        if len(path) == b.n + 1:
            kind = "tour"
        elif path[:len(self.agreed)] == self.agreed:
            kind = "extend"
        else:
            kind = "revise"
        return path, kind

    def _after_agreement(self, ctx: Context) -> None:
        """A new agreed path makes submissions that contradict it stale: withdraw them (they can be re-submitted).
        Not under independent submissions (paper rules): there a submission stands until its seat changes it."""
        if self.rules == "paper":
            return
        for seat, tour in list(self.gate.submitted.items()):
            if not self._consistent(tour, self.agreed):
                self.gate.withdraw(seat)
                ctx.say(f"{SEAT_NAMES[seat]}'s submission {fmt_path(tour)} was withdrawn because the agreed path "
                        "changed.")

    def _consistent(self, tour: Sequence[str], path: Sequence[str]) -> bool:
        k = len(path)
        return list(tour[:k]) == list(path) or list(tour[::-1][:k]) == list(path)

    # ------------------------------------------------------------------------------------------------------------
    # chat and commands

    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        self._charge(ctx, seat)
        self.messages[seat] += 1
        self._check_turns(ctx)

    def cmd_propose(self, ctx: Context, seat: str, args) -> None:
        """/propose K or /propose L K B ...: propose the next room(s), or a path from the start (a revision or a full tour)"""
        if not args:
            raise RuleError("Usage: /propose K (the next room) or /propose L K B ... (a path or tour from the start).")
        path, kind = self._proposed_path(rooms_arg(args, self.board))
        self._charge(ctx, seat)
        prop, replaced = self.proposals.propose(seat, {"path": path, "kind": kind})
        self.proposal_count[seat] += 1
        what = {"tour": "the tour", "extend": "to continue with", "revise": "to change the path to"}[kind]
        other = SEAT_NAMES[self.partner(seat)]
        ctx.say(f"{SEAT_NAMES[seat]} proposes {what} {fmt_path(path)}. {other}: /agree or /reject?")
        ctx.log("proposal", seat=seat, path=path, kind=kind, id=prop.id,
                replaced=None if replaced is None else replaced.id)
        self._check_turns(ctx)

    def cmd_agree(self, ctx: Context, seat: str, args) -> None:
        """/agree: accept your partner's open proposal"""
        wanted = self._answered(args)
        self._charge(ctx, seat)
        prop = self.proposals.agree(seat, wanted)
        ctx.log("response", seat=seat, answer="agree", id=prop.id if prop else None)
        if prop is not None:
            self.agreed = list(prop.value["path"])
            ctx.log("agreed_path", path=list(self.agreed), kind=prop.value["kind"])
            if self._agreed_complete():
                ctx.say(f"{SEAT_NAMES[seat]} agrees. The agreed tour is {fmt_path(self.agreed)}: both /submit it "
                        "to finish.")
            else:
                ctx.say(f"{SEAT_NAMES[seat]} agrees. The agreed path is now {fmt_path(self.agreed)}.")
            self._after_agreement(ctx)
        self._check_turns(ctx)

    def cmd_reject(self, ctx: Context, seat: str, args) -> None:
        """/reject: decline your partner's open proposal"""
        wanted = self._answered(args)
        self._charge(ctx, seat)
        prop = self.proposals.reject(seat, wanted)
        ctx.say(f"{SEAT_NAMES[seat]} rejects the proposal {fmt_path(prop.value['path'])}. The agreed path stays "
                f"{fmt_path(self.agreed)}.")
        ctx.log("response", seat=seat, answer="reject", id=prop.id)
        self._check_turns(ctx)

    def _answered(self, args) -> Optional[int]:
        """The id an answer is for: the page's (a stale one is refused, naming the open proposal), else the open one."""
        p = self.proposals.pending
        check_answer(answer_id(args), p.id if p else None,
                     f"{SEAT_NAMES[p.by]}'s {fmt_path(p.value['path'])}" if p else "")
        return answer_id(args)

    def cmd_withdraw(self, ctx: Context, seat: str, args) -> None:
        """/withdraw: take back your open proposal (or, if you have none, your submission)"""
        self._begin(ctx, seat)
        p = self.proposals.pending
        if p is not None and p.by == seat:
            self.proposals.withdraw(seat)
            ctx.say(f"{SEAT_NAMES[seat]} withdrew the proposal {fmt_path(p.value['path'])}.")
            ctx.log("response", seat=seat, answer="withdraw", id=p.id)
        elif self.gate.withdraw(seat):
            ctx.say(f"{SEAT_NAMES[seat]} withdrew their submission.")
            ctx.log("submit", seat=seat, tour=None, outcome="withdrawn")
        else:
            raise RuleError("You have no open proposal or submission to withdraw.")

    def cmd_undo(self, ctx: Context, seat: str, args) -> None:
        """/undo [K]: propose going back to the agreed room K (default: one step back); your partner must agree"""
        if len(self.agreed) <= 1:
            raise RuleError(f"Nothing to undo: the agreed path is just {self.board.start}.")
        if args:
            rooms = rooms_arg(args, self.board)
            if len(rooms) != 1:
                raise RuleError("Usage: /undo K, with K a room on the agreed path.")
            k = rooms[0]
            if k not in self.agreed:
                raise RuleError(f"Room {k} is not on the agreed path {fmt_path(self.agreed)}.")
            path = self.agreed[:self.agreed.index(k) + 1]
            if path == self.agreed:
                raise RuleError(f"The agreed path already ends in {k}.")
        else:
            path = self.agreed[:-1]
        self._charge(ctx, seat)
        prop, replaced = self.proposals.propose(seat, {"path": path, "kind": "revise"})
        self.proposal_count[seat] += 1
        other = SEAT_NAMES[self.partner(seat)]
        ctx.say(f"{SEAT_NAMES[seat]} proposes to go back to {path[-1]}: the path would be {fmt_path(path)}. "
                f"{other}: /agree or /reject?")
        ctx.log("proposal", seat=seat, path=path, kind="revise", undo=True, id=prop.id,
                replaced=None if replaced is None else replaced.id)
        self._check_turns(ctx)

    def cmd_share(self, ctx: Context, seat: str, args) -> None:
        """/share L-K [B-A ...] or /share all: show your own coins on these hallways to your partner"""
        self._begin(ctx, seat)
        if self.rules == "paper":
            raise RuleError("There is no /share in this game: tell your partner your coins in the chat.")
        keys = [k for k in edges_arg(args, self.board) if k not in self.shared[seat]]
        if not keys:
            raise RuleError("You have already shared those coins.")
        self.shared[seat].extend(keys)
        w = self.board.weights[seat]
        coins = {k: w[edge(*k.split("-"))] for k in keys}
        ctx.say(f"{SEAT_NAMES[seat]} shares their coins: " + ", ".join(f"{k} {v}" for k, v in coins.items()) + ".")
        ctx.log("share", seat=seat, coins=coins)

    def cmd_submit(self, ctx: Context, seat: str, args) -> None:
        """/submit or /submit L K B ... L: submit the agreed tour (or that tour); the game ends when both submitted the same"""
        self._begin(ctx, seat)
        if args:
            tour = tour_arg(args, self.board)
        elif self._agreed_complete():
            tour = list(self.agreed)
        else:
            raise RuleError(f"The agreed path {fmt_path(self.agreed)} is not a complete tour yet: agree on a full "
                            f"tour first, or /submit {' '.join(self.board.rooms)} {self.board.start}.")
        mine = self.gate.submitted.get(seat)
        if mine is not None and self._canon(mine) == self._canon(tour):
            raise RuleError("You have already submitted this tour; waiting for your partner.")
        if self.rules == "paper":
            self._submit_independent(ctx, seat, tour)
            return
        outcome = self.gate.submit(seat, tour)
        ctx.log("submit", seat=seat, tour=tour, outcome=outcome)
        other = SEAT_NAMES[self.partner(seat)]
        if outcome == "complete":
            self._end(ctx, "completed")
            f = self._final
            ctx.log("score", **{k: f[k] for k in ("score", "optimum", "percentile", "ratio", "optimal", "tour")})
            ctx.say(f"Both submitted the tour {fmt_path(tour)}: {f['score']} coins together (the best possible is "
                    f"{f['optimum']}, e.g. {fmt_path(f['optimal_tour'])}). Your score: {f['percentile']:.0f} out "
                    "of 100.")
            return
        if outcome == "waiting":
            agreed_note = "" if self._agreed_complete() and self._canon(self.agreed) == self._canon(tour) else \
                " (this is not the agreed path yet)"
            ctx.say(f"{SEAT_NAMES[seat]} submitted the tour {fmt_path(tour)}{agreed_note}. {other}: submit the same "
                    "tour to finish (/submit), or keep talking.")
            return
        theirs = self.gate.submitted[self.partner(seat)]
        ctx.say(f"The submitted tours differ: {SEAT_NAMES[seat]} {fmt_path(tour)}, {other} {fmt_path(theirs)}. "
                "Agree on one tour and submit it again.")
        if self.budget.exhausted():
            self._end(ctx, "timeout")

    def _submit_independent(self, ctx: Context, seat: str, tour: list[str]) -> None:
        """Paper rules: every seat submits its own tour (re-submitting replaces it); the game ends as soon as all
        seats have one, and Identical / Correct / Optimal are measured on those independent submissions. The partner
        only learns that a tour was submitted, not which."""
        self.gate.submitted[seat] = list(tour)
        waiting = self.gate.waiting_for()
        ctx.log("submit", seat=seat, tour=tour, outcome="waiting" if waiting else "final")
        if waiting:
            ctx.say(f"{SEAT_NAMES[seat]} submitted a tour. {SEAT_NAMES[self.partner(seat)]}: submit your own tour "
                    "to finish (/submit), or keep talking.")
            return
        identical = len({self._canon(t) for t in self.gate.submitted.values()}) == 1
        self._end(ctx, "completed" if identical else "mismatch")
        f = self._final
        ctx.log("score", **{k: f[k] for k in ("score", "optimum", "percentile", "ratio", "optimal", "tour")})
        if identical:
            ctx.say(f"Both submitted the tour {fmt_path(tour)}: {f['score']} coins together (the best possible is "
                    f"{f['optimum']}, e.g. {fmt_path(f['optimal_tour'])}). Your score: {f['percentile']:.0f} out "
                    "of 100.")
        else:
            subs = ", ".join(f"{SEAT_NAMES[s]} {fmt_path(t)}" for s, t in self.gate.submitted.items())
            ctx.say(f"Both have submitted, but different tours ({subs}), so the game ends without a common tour. "
                    f"The best possible was {f['optimum']} coins, e.g. {fmt_path(f['optimal_tour'])}.")
