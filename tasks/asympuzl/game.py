"""AsymPuzl (Cadet, Koh, Chin): an asymmetric shape-colour puzzle for two seats.

A hidden truth of N positions, each a (shape, colour). Seat "a" sees positions and shapes, seat "b" the shape-colour
pairs in a random order (see generator.py, with distractors). Each seat keeps a working hypothesis that starts as its
clues and that only its own `/replace` edits; only messages reach the partner. Turns alternate, A first: on its turn
a seat makes any number of replacements and ends the turn with one message (or `/done`). A *turn* is a round (A's
move, then B's), as in the paper's "solvable in 2 turns"; the limit is 2N rounds. After every move each seat gets
the feedback its mode allows. Success: both hypotheses equal the truth.

Options (recorded in every log's game_start): size (N, default 5), distractors (0), shapes / colours (vocabulary
sizes), feedback (none | own | own-detailed | joint | both | both-detailed; default both), noise (rate of inserted
characters per character of a message, seeded; default 0), history (messages an LLM agent sees, default 1),
turn_limit (rounds, default 2N), instances (a set file: the game with seed s plays its puzzle s; instances.py),
single_agent (the paper's full-information control: seat a alone sees both views and fills its row; seat b never
gets a turn; every move of a is a round; default off).
"""
from __future__ import annotations

import random
from typing import Optional

from tasks.core import Context, Game, RuleError

from . import generator, instances
from .generator import FEEDBACK_MODES, HEX
from .channel import add_noise
from .parse import parse_replace

NAMES = {"a": "Player A", "b": "Player B"}
NOISY_PREFIX = "(through the noisy channel) "


def _opt_int(options: dict, key: str, default):
    v = options.get(key, default)
    return None if v is None else int(v)


class AsymPuzlGame(Game):
    task = "asympuzl"
    title = "AsymPuzl"
    seats = ("a", "b")
    seat_names = {"a": "Player A", "b": "Player B"}  # what people are called (pages, game master)
    chat = "relay"  # turns are enforced and the noisy channel damages what the partner receives

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        super().__init__(seed, options, instance)
        o, inst = self.options, self.inst
        self.size = int(inst["size"])
        self.mode = str(o.get("feedback", "both"))
        if self.mode not in FEEDBACK_MODES:
            raise ValueError(f"feedback must be one of {', '.join(FEEDBACK_MODES)}")
        self.noise = float(o.get("noise", 0.0))
        if not 0.0 <= self.noise <= 1.0:
            raise ValueError("noise is a rate between 0 and 1")
        self.history = int(o.get("history", 1))
        self.limit = int(o.get("turn_limit") or 2 * self.size)
        self.single = str(o.get("single_agent", False)).strip().lower() in ("1", "true", "yes", "on")
        self.per_round = 1 if self.single else 2  # moves per round: A then B, or A alone in the control
        self.truth = [tuple(p) for p in inst["truth"]]
        self.hyp = {"a": [[c[0], None] for c in inst["a_clues"]],
                    "b": [list(p) for p in inst["b_clues"][:self.size]]}
        self.current = "a"
        self.moves = 0
        self.solved_at: Optional[int] = None  # round
        self.counts = {s: {"messages": 0, "words": 0, "chars": 0, "actions": 0, "passes": 0} for s in self.seats}
        self.edits = {s: [0] * self.size for s in self.seats}  # replacements per position (over-correction)
        self.solved_by_round: list[bool] = []
        self.feedback = {s: {} for s in self.seats}
        self._final: Optional[dict] = None

    # --- set-up -------------------------------------------------------------------------------------------------
    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        if options.get("instances"):  # an evaluation set file: the game with seed s plays its puzzle s
            return instances.pick(str(options["instances"]), seed, options.get("size"))
        return generator.generate(seed, size=int(options.get("size", 5)),
                                  distractors=int(options.get("distractors", 0)),
                                  shapes=options.get("shapes"), colours=options.get("colours"))

    def partner(self, seat: str) -> str:
        return "b" if seat == "a" else "a"

    def clues(self, seat: str) -> list:
        return self.inst["a_clues"] if seat == "a" else self.inst["b_clues"]

    def private_parts(self, seat: str) -> list:
        """The seat's clue list (A: candidate shapes per position; B: its pairs, never in the truth's order)."""
        return [[list(c) for c in self.clues(seat)]]

    def clue_text(self, seat: str) -> str:
        if self.single and seat == "a":  # the control: one agent sees both views
            return f"{self._clue_text('a')} {self._clue_text('b')}"
        return self._clue_text(seat)

    def _clue_text(self, seat: str) -> str:
        if seat == "a":
            return " ".join(f"Position {i + 1}: the {' or the '.join(c)}." for i, c in enumerate(self.inst["a_clues"]))
        # B's pairs come in a random order: numbering them would read as positions
        return "In no particular order: " + "; ".join(f"the {s} is {c}" for s, c in self.inst["b_clues"]) + "."

    def start(self, ctx: Context) -> None:
        n = self.size
        if self.single:
            ctx.say(f"AsymPuzl, single-agent control: Player A sees both views (the shape at each of the {n} "
                    f"positions and every shape's colour) and fills the answer row alone with /replace, ending each "
                    f"turn with /done. {self.limit} turns.")
            ctx.say(f"Your clues: {self.clue_text('a')}", to="a")
            ctx.say("It is your turn.", to="a")
            return
        ctx.say(f"Welcome to AsymPuzl! Together you must work out a hidden row of {n} positions, each a shape in a "
                f"colour. Player A knows which shape is at each position; Player B knows which colour each shape has "
                f"(in a random order). Each of you keeps your own answer row (it starts as your clues) and only you "
                f"can change it: click a position on the page, or /replace 3 circle red. Your partner sees only your "
                f"messages. Take turns, A first: make your changes, then send one message (or /done) to end your "
                f"turn. You have {self.limit} rounds. You both win when both rows are right.")
        for seat in self.seats:
            ctx.say(f"Your clues: {self.clue_text(seat)}", to=seat)
        ctx.say("It is your turn.", to="a")

    # --- views and results --------------------------------------------------------------------------------------
    def round(self) -> int:
        return self.moves // self.per_round + 1

    def wrong(self, seat: str) -> list[int]:
        return [i + 1 for i, (h, t) in enumerate(zip(self.hyp[seat], self.truth)) if tuple(h) != t]

    def solved(self) -> bool:
        return not self.wrong("a") and (self.single or not self.wrong("b"))

    def view(self, seat: str) -> dict:
        clue_key = "clue_shapes" if seat == "a" else "clue_pairs"
        f = self._final
        both_views = {"clue_pairs": [list(c) for c in self.inst["b_clues"]], "single_agent": True} \
            if self.single and seat == "a" else {}
        return {
            "role": seat.upper(), "size": self.size, "shapes": list(self.inst["shapes"]),
            "colours": list(self.inst["colours"]), "palette": {c: HEX[c] for c in self.inst["colours"]},
            clue_key: [list(c) for c in self.clues(seat)], "clue_text": self.clue_text(seat),
            "hypothesis": [list(h) for h in self.hyp[seat]],
            "feedback_mode": self.mode, "feedback": dict(self.feedback[seat]),
            "turn": None if f is not None or (self.single and seat == "b") else
            ("me" if self.current == seat else "partner"),
            "round": min(self.round(), self.limit), "turn_limit": self.limit, "moves": self.moves,
            "noise": self.noise, "distractors": self.inst["distractors"], "history": self.history,
            "result": None if f is None else {"success": f["success"], "truth": [list(t) for t in self.truth],
                                              "rounds": f["rounds"]},
            **both_views,
        }

    def results(self) -> dict:
        if self._final is None:
            self._final = self._outcome()
        f, c = self._final, self.counts
        msgs = sum(x["messages"] for x in c.values())
        return {
            "success": f["success"], "score": int(f["success"]), "normalized_score": f["correct"],
            "turns": f["rounds"], "moves": self.moves, "turns_to_success": self.solved_at,
            "solved_by_round": list(self.solved_by_round), "size": self.size, "turn_limit": self.limit,
            "feedback": self.mode, "noise": self.noise, "single_agent": self.single,
            "preset": str(self.options.get("preset") or "ours"), "distractors": self.inst["distractors"],
            "vocabulary": {"shapes": len(self.inst["shapes"]), "colours": len(self.inst["colours"])},
            "history": self.history, "messages": msgs, "message_words": sum(x["words"] for x in c.values()),
            "message_chars": sum(x["chars"] for x in c.values()),
            "actions": {s: c[s]["actions"] for s in self.seats},
            "actions_per_position": {s: round(c[s]["actions"] / self.size, 3) for s in self.seats},
            "max_edits_per_position": {s: max(self.edits[s]) for s in self.seats},
            "seed": self.seed, "tokens": 0, "bonus": {},
        }

    def _outcome(self) -> dict:
        seats = ("a",) if self.single else self.seats
        ok = sum(tuple(h) == t for s in seats for h, t in zip(self.hyp[s], self.truth))
        success = self.solved()
        return {"success": success, "correct": round(ok / (len(seats) * self.size), 4),
                "rounds": self.solved_at if success else min(self.round(), self.limit)}

    # --- rules --------------------------------------------------------------------------------------------------
    def _my_turn(self, seat: str) -> None:
        if self.current != seat:
            raise RuleError("It is your partner's turn; please wait for their message.")

    def cmd_replace(self, ctx: Context, seat: str, args) -> None:
        """/replace 3 circle red: put a red circle at position 3 of your own answer row"""
        self._my_turn(seat)
        try:
            pos, shape, colour = parse_replace(args, self.inst["shapes"], self.inst["colours"], self.size)
        except ValueError as exc:
            raise RuleError(str(exc)) from None
        self.hyp[seat][pos - 1] = [shape, colour]
        self.counts[seat]["actions"] += 1
        self.edits[seat][pos - 1] += 1
        ctx.log("replace", seat=seat, position=pos, shape=shape, colour=colour)
        ctx.tell(f"Position {pos} of your row is now the {colour} {shape}.")

    def cmd_done(self, ctx: Context, seat: str, args) -> None:
        """/done: end your turn without a message"""
        self._my_turn(seat)
        self.counts[seat]["passes"] += 1
        self._end_move(ctx, seat)

    def chat_audience(self, seat: str, to):
        if self.current != seat or self._final is not None:
            raise RuleError("It is your partner's turn; your message was not sent. Please wait for theirs.")
        if self.single:
            return ()  # the control has no partner: a line stays with its writer and ends the turn
        if to is not None and tuple(to) != (self.partner(seat),):
            raise RuleError("In this game every message goes to your partner.")
        # On a noisy channel the line is the speaker's alone; the partner gets a damaged copy (on_chat).
        return () if self.noise > 0 else None

    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        c = self.counts[seat]
        c["messages"] += 1
        c["words"] += len(text.split())
        c["chars"] += len(text)
        if self.noise > 0 and not self.single:  # the partner gets the damaged copy from the game master (the speaker sees only theirs)
            rng = random.Random(f"asympuzl-noise:{self.seed}:{self.moves}")
            ctx.say(f"{NOISY_PREFIX}{NAMES[seat]}: {add_noise(text, self.noise, rng)}", to=self.partner(seat))
        self._end_move(ctx, seat)

    def _end_move(self, ctx: Context, seat: str) -> None:
        self.moves += 1
        self.current = seat if self.single else self.partner(seat)
        both = self.solved()
        r = -(-self.moves // self.per_round)  # the round this move belongs to
        if self.moves % self.per_round == 0 or both:
            while len(self.solved_by_round) < r:
                self.solved_by_round.append(both)
        self._give_feedback(ctx)
        if both:
            self.solved_at = r
            self._finish(ctx)
        elif self.moves >= self.per_round * self.limit:
            self._finish(ctx)
        else:
            ctx.say("It is your turn.", to=self.current)

    def _give_feedback(self, ctx: Context) -> None:
        for s in ("a",) if self.single else self.seats:
            own, other = self.wrong(s), self.wrong(self.partner(s))
            fb: dict = {}
            if self.mode in ("own", "own-detailed", "both", "both-detailed"):
                fb["own_solved"] = not own
            if self.mode in ("own-detailed", "both-detailed"):
                fb["own_wrong"] = own
            if self.mode in ("both", "both-detailed") and not self.single:
                fb["partner_solved"] = not other
            if self.mode == "both-detailed" and not self.single:
                fb["partner_wrong"] = other
            if self.mode == "joint":
                fb["all_solved"] = not own and (self.single or not other)
            self.feedback[s] = fb
            if fb and s == self.current:
                ctx.say("Feedback: " + feedback_text(fb), to=s)

    def _finish(self, ctx: Context) -> None:
        self._final = self._outcome()
        f = self._final
        ctx.log("outcome", success=f["success"], rounds=f["rounds"], correct=f["correct"])
        if f["success"]:
            rows = "The answer row is" if self.single else "Both answer rows are"
            ctx.say(f"Solved! {rows} right, after {f['rounds']} round(s).")
        else:
            ctx.say(f"The {self.limit} rounds are over; the puzzle was not solved ({f['correct']:.0%} of the "
                    "positions right over both rows).")
        ctx.end("completed")


def feedback_text(fb: dict) -> str:
    parts = []
    if "own_solved" in fb:
        parts.append("your row is right" if fb["own_solved"] else "your row is not right yet")
    if fb.get("own_wrong"):
        parts.append("wrong positions in your row: " + ", ".join(map(str, fb["own_wrong"])))
    if "partner_solved" in fb:
        parts.append("your partner's row is right" if fb["partner_solved"] else "your partner's row is not right yet")
    if fb.get("partner_wrong"):
        parts.append("wrong positions in your partner's row: " + ", ".join(map(str, fb["partner_wrong"])))
    if "all_solved" in fb:
        parts.append("the puzzle is solved" if fb["all_solved"] else "the puzzle is not solved yet")
    return "; ".join(parts) + "."


__all__ = ["AsymPuzlGame", "feedback_text", "NAMES", "NOISY_PREFIX"]
