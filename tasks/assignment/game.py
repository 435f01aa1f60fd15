"""DialOp ASSIGNMENT: two area chairs match 8 reviewers to 8 papers, each seeing part of the affinity table.

Seats "player1" (moves first when turns alternate) and "player2". Each sees only its own known cells, multiplied by
its own display scale (`int(value * scale)`). Either player proposes a full matching (one reviewer per paper); the
partner must /accept or /reject it before anything else; accept ends the game, reject clears the proposal. Score =
sum of the true affinities of the accepted matching; normalised = score / pooled-knowledge optimum.

Options (all optional):
    turns          "free" (people; default) or "alternate" (agents: chat and /propose pass the turn, an answer
                   does not; the player who must answer a proposal cannot chat). The released dialogues are free.
    word_budget    chat words for the whole dialogue (prompted self-play); below `final_at` (25) words left chat
                   is refused and the next proposal is accepted automatically (the forced final proposal).
    budget_after   (prompted self-play) inputs up to this time are the replayed human prefix: their words count,
                   but the budget never refuses them nor forces their proposals (the paper restored the prefix as
                   history, outside the word-limit wrapper).
    unknown_value  "50" (cells unknown to both count as 50, as the released data; default) or "paper".
    hard           only instances passing the 1.25x hardness test (default True).
    bonus_tiers    [[ratio, amount], ...] best first (default [[1.0, 2.0], [1/1.1, 1.0], [0.8, 0.5]]).
"""
from __future__ import annotations

from typing import Optional

from tasks.core import Context, RuleError, WordBudget
from tasks.core.offers import answer_id, check_answer
from tasks.dialop.game import DialopGame, bonus_for

from . import generator
from .names import N, PAPERS, REVIEWERS, TITLES
from .parse import ProposalError, format_proposal, parse_proposal

SEAT_NAMES = {"player1": "Player 1", "player2": "Player 2"}
BONUS_TIERS = ((1.0, 2.0), (1 / 1.1, 1.0), (0.8, 0.5))


class AssignmentGame(DialopGame):
    task = "assignment"
    title = "Reviewer Assignment"
    seats = ("player1", "player2")
    seat_names = SEAT_NAMES

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        super().__init__(seed, options, instance)
        o = self.options
        self.set_up_dialogue(SEAT_NAMES)
        self.prefix_until = o.get("budget_after")  # prompted self-play: the replayed human prefix
        self.table = [list(r) for r in self.inst["table"]]
        self.masks = [[[bool(v) for v in row] for row in m] for m in self.inst["masks"]]
        self.scales = [float(s) for s in self.inst["scales"]]
        self.best = int(self.inst["best"])
        self.tiers = tuple(tuple(t) for t in o.get("bonus_tiers", BONUS_TIERS))
        self.counts = {"messages": {s: 0 for s in self.seats}, "words": {s: 0 for s in self.seats},
                       "proposals": {s: 0 for s in self.seats}, "rejected": 0}

    # --- set-up -------------------------------------------------------------------------------------------------
    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        return generator.generate(seed, unknown_value=str(options.get("unknown_value", "50")),
                                  hard=bool(options.get("hard", True)))

    def k(self, seat: str) -> int:
        return self.seats.index(seat)

    def partner(self, seat: str) -> str:
        return self.seats[1 - self.k(seat)]

    def shown(self, seat: str) -> list[list[Optional[int]]]:
        """The seat's own table: known cells in its scale, None where it knows nothing."""
        k = self.k(seat)
        s = self.scales[k]
        return [[int(self.table[r][p] * s) if self.masks[k][r][p] else None for p in range(N)] for r in range(N)]

    def private_parts(self, seat: str) -> list:
        """The seat's rows of its own table (with at least two known cells) and its scale."""
        rows = [row for row in self.shown(seat) if sum(v is not None for v in row) >= 2]
        return rows + [{"scale": self.scales[self.k(seat)]}]

    def start(self, ctx: Context) -> None:
        turns = ("Take turns: a message or a proposal passes the turn." if self.turns_mode == "alternate"
                 else "Chat freely.")
        budget = "" if self.words.limit is None else f" You have {self.words.left()} words of chat in all."
        ctx.say(
            "Welcome! You are two area chairs assigning 8 reviewers to 8 papers, one reviewer per paper. Each of you "
            "sees some reviewer-paper affinity scores (blank = unknown), in your own private scale: the same "
            "affinity shows as different numbers to each of you. Together, find the matching with the highest total "
            f"affinity. {turns}{budget} Propose a full matching by clicking cells (one per row and column) or with "
            "/propose BLEU=Ava Li, Electra=Daniel, ...; your partner must accept or reject it (the buttons on the page, "
            "or /accept and /reject). Accepting ends the "
            "game.")

    # --- views and results --------------------------------------------------------------------------------------
    def view(self, seat: str) -> dict:
        p = self.proposals.pending
        pending = None if p is None else {"id": p.id, "mine": p.by == seat, "matching": list(p.value)}
        turn = None
        if self.turns_mode == "alternate":
            turn = "me" if self.order.current == seat else "partner"
        return {
            "reviewers": list(REVIEWERS), "papers": list(PAPERS), "titles": list(TITLES),
            "table": self.shown(seat),
            "pending": pending,
            "must_respond": bool(p is not None and p.by != seat),
            "turn": turn, "turns_mode": self.turns_mode,
            "words_left": self.words.left(), "final": self.words.final,
            "proposals": sum(self.counts["proposals"].values()),
            "result": self._result_view(seat),
        }

    def _result_view(self, seat: str) -> Optional[dict]:
        f = self._final
        if f is None:
            return None
        k = self.k(seat)
        s = self.scales[k]
        union = [[self.masks[0][r][p] or self.masks[1][r][p] for p in range(N)] for r in range(N)]
        return {
            "status": f["status"], "accepted": f["matching"] is not None,
            "matching": f["matching"], "best_matching": list(self.inst["best_matching"]),
            "score": int(f["score"] * s), "best": int(self.best * s),
            "normalized": f["normalized_score"],
            # the pooled table in this player's own scale (shown after the game, as the released game did)
            "pooled": [[int(self.table[r][p] * s) if union[r][p] else None for p in range(N)] for r in range(N)],
        }

    def _outcome(self, status: str) -> dict:
        m = self.accepted
        sc = generator.score(self.table, m) if m is not None else 0
        norm = round(min(1.0, sc / self.best), 4) if self.best else 0.0
        return {"status": status, "matching": list(m) if m is not None else None, "score": sc,
                "normalized_score": norm}

    def results(self) -> dict:
        if self._final is None:
            self._final = self._outcome("ended")
        f = self._final
        c = self.counts
        messages = sum(c["messages"].values())
        proposals = sum(c["proposals"].values())
        bonus = self._bonus(f["matching"] is not None, f["normalized_score"], self.tiers)
        return {
            "score": f["score"], "best": self.best, "normalized_score": f["normalized_score"],
            "matching": f["matching"], "accepted": f["matching"] is not None, "optimal": f["score"] == self.best,
            "proposals": proposals, "rejected": c["rejected"], "messages": messages,
            "words": sum(c["words"].values()), "turns": messages + proposals,
            "forced_final": self.forced, "turns_mode": self.turns_mode, "word_budget": self.words.limit,
            "tries": self.inst.get("tries"), "hard": self.inst.get("hard"), "source": self.inst.get("source"),
            "seed": self.seed, "tokens": 0, "bonus": bonus,
        }

    # --- rules --------------------------------------------------------------------------------------------------
    def _must_answer_first(self, seat: str) -> None:
        p = self.proposals.pending
        if p is not None and p.by != seat:
            raise RuleError("Please /accept or /reject your partner's proposal first.")

    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        if self.turns_mode == "alternate":
            self._must_answer_first(seat)
            self._check_turn(ctx, seat, "talk")
        prefix = self._prefix(ctx)
        n = self._spend_words(ctx, text)
        self.counts["messages"][seat] += 1
        self.counts["words"][seat] += n
        self._pass_turn(ctx, seat)
        if self.words.limit is not None and not prefix:
            if self.words.final:
                ctx.say(f"Words left: {max(0, self.words.left())}. {WordBudget.FINAL_TEXT}")

    def cmd_propose(self, ctx: Context, seat: str, args) -> None:
        """/propose BLEU=Ava Li, Electra=Daniel Nguyen, ...: propose a full matching (one reviewer per paper)"""
        if not args:
            raise RuleError("Usage: /propose BLEU=Ava Li, Electra=Daniel Nguyen, ... (all 8 papers).")
        try:
            matching = parse_proposal(" ".join(args))
        except ProposalError as exc:
            raise RuleError(str(exc)) from None
        self._must_answer_first(seat)  # a proposer may replace its own open proposal (the released game allowed it)
        self._check_turn(ctx, seat, "propose")
        prop, _ = self.proposals.propose(seat, matching)
        self.counts["proposals"][seat] += 1
        self._pass_turn(ctx, seat)
        ctx.log("proposal", seat=seat, matching=matching, id=prop.id)
        other = self.partner(seat)
        lines = self._matching_text(matching)
        if self.words.final and not self._prefix(ctx):
            self.forced = True
            ctx.say(f"{SEAT_NAMES[seat]} makes the final proposal: {lines}. It is accepted automatically.")
            self.proposals.agree(other)
            self._accept(ctx, matching)
            return
        ctx.say(f"{SEAT_NAMES[seat]} proposes: {lines}. {SEAT_NAMES[other]}: Accept or Reject it on your page "
                "(or /accept, /reject).")

    def cmd_accept(self, ctx: Context, seat: str, args) -> None:
        """/accept: accept your partner's proposal (this ends the game)"""
        prop = self.proposals.agree(seat, self._answered(args))
        ctx.log("response", seat=seat, answer="accept", id=prop.id if prop else None)
        ctx.say(f"{SEAT_NAMES[seat]} accepts {SEAT_NAMES[prop.by]}'s proposal #{prop.id}: "
                f"{self._matching_text(prop.value)}.")
        self._accept(ctx, list(prop.value))

    def cmd_reject(self, ctx: Context, seat: str, args) -> None:
        """/reject: reject your partner's proposal (it is cleared)"""
        prop = self.proposals.reject(seat, self._answered(args))
        self.counts["rejected"] += 1
        ctx.log("response", seat=seat, answer="reject", id=prop.id)
        ctx.say(f"{SEAT_NAMES[seat]} rejects {SEAT_NAMES[prop.by]}'s proposal #{prop.id}.")

    @staticmethod
    def _matching_text(matching) -> str:
        return "; ".join(f"{PAPERS[p]}: {REVIEWERS[r]}" for p, r in sorted((p, r) for r, p in enumerate(matching)))

    def _answered(self, args) -> Optional[int]:
        """The id of the open proposal an answer is for; a page's stale id is refused, naming the open proposal."""
        p = self.proposals.pending
        check_answer(answer_id(args), p.id if p else None,
                     f"{SEAT_NAMES[p.by]}'s {self._matching_text(p.value)}" if p else "")
        return p.id if p else None

    def _accept(self, ctx: Context, matching: list[int]) -> None:
        self.accepted = list(matching)
        self._final = self._outcome("completed")
        f = self._final
        ctx.log("score", score=f["score"], best=self.best, normalized=f["normalized_score"], matching=matching)
        for seat in self.seats:
            s = self.scales[self.k(seat)]
            ctx.say(f"The matching is agreed. In your scale it is worth {int(f['score'] * s)}; the best possible "
                    f"with what the two of you knew was {int(self.best * s)} ({f['normalized_score']:.0%} of it). "
                    "Your page can show the best matching.", to=seat)
        ctx.end("completed")


__all__ = ["AssignmentGame", "format_proposal", "bonus_for"]
