"""Game-theoretic negotiation (Hua et al.): two players, Alice and Bob, play a bimatrix game (simultaneous moves)
or a game tree (sequential moves), with k negotiation rounds before every move.

Per trial: negotiate (k rounds of chat, the first speaker then the other, strictly in turn; either may /halt and the
talk stops when both asked, or at once with halt=either, the paper's rule) -> move. Simultaneous moves go through
commit-reveal: each seat commits privately and nobody learns anything of the other's move but "committed" until both
are in. Sequential moves: the mover at the current node plays, both see it, then the next negotiation starts. A
deadline gives a silent seat its default move (and passes a silent speaker's turn), on Slurk.

Options: game (catalogue name, default prisoners-dilemma; "a,b" plays a sequence in one room) or game_file (YAML
files, any size or depth, comma-separated); negotiation k (0..10, default 0); first (alice|bob, who speaks first,
default alice); trials (rounds of each game per room, default 1); move_seconds / talk_seconds (deadlines, default
60 / 120; 0 = none); default_move (1-based index of the move given at the deadline, default 1); halt (both: the
talk stops when both asked, ours, so nobody is cut off mid-deal; either: one /halt stops it, the paper's); labels
(named | neutral, generator.py).
"""
from __future__ import annotations

from typing import Optional

from tasks.core import ChatTurns, CommitReveal, Context, Game, Phases, RuleError

from . import generator, solvers
from .parse import ActionError, parse_action

SEAT_NAMES = {"alice": "Alice", "bob": "Bob"}
MAX_ROUNDS = 10
HALT_RULES = ("both", "either")


class MatrixGame(Game):
    task = "matrix-games"
    title = "Negotiation Games"
    seats = ("alice", "bob")
    seat_names = SEAT_NAMES
    chat = "relay"  # talk is strictly in turn: the rules must be able to refuse a line

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        super().__init__(seed, options, instance)
        o = self.options
        self.games = self.inst["games"]
        try:
            self.k = int(o.get("negotiation", 0))
        except (TypeError, ValueError):
            raise ValueError(f"negotiation takes one number of rounds per game (0..{MAX_ROUNDS}), got "
                             f"{o.get('negotiation')!r}; a list such as 0,4 needs --trials N (the paper's "
                             "table)") from None
        if not 0 <= self.k <= MAX_ROUNDS:
            raise ValueError(f"negotiation must be 0..{MAX_ROUNDS} rounds")
        self.first = str(o.get("first", "alice"))
        if self.first not in self.seats:
            raise ValueError("first must be alice or bob")
        self.per_game = max(1, int(o.get("trials", 1)))
        self.trials = self.per_game * len(self.games)  # every game of the sequence, `trials` times each
        self.move_seconds = float(o.get("move_seconds", 60) or 0)
        self.talk_seconds = float(o.get("talk_seconds", 120) or 0)
        self.default_index = int(o.get("default_move", 1)) - 1
        self.halt_rule = str(o.get("halt") or "both")
        if self.halt_rule not in HALT_RULES:
            raise ValueError(f"halt must be one of {', '.join(HALT_RULES)}, got {self.halt_rule!r}")
        self.talk = ChatTurns(self.seats, self.first, SEAT_NAMES, rounds=max(1, self.k))
        self.phases = Phases(["negotiate", "move"])
        self.reveal = CommitReveal(self.seats, deadline=self.move_seconds or None, names=SEAT_NAMES)
        self.trial = 0
        self.path: list[str] = []  # sequential: moves of this trial so far
        self.messages: list[dict] = []  # this trial's negotiation lines: {seat, text, step}
        self.sealed: list[dict] = []  # every committed simultaneous move: private to its seat forever
        self.outcomes: list[dict] = []
        self.counts = {"messages": 0, "halts": 0, "defaulted": 0}

    @property
    def g(self) -> dict:
        """The game being played now (rooms may play a sequence of games, `trials` times each)."""
        return self.games[min(self.trial // self.per_game, len(self.games) - 1)]

    @property
    def kind(self) -> str:
        return self.g["kind"]

    @property
    def spe_path(self) -> tuple:
        return solvers.backward_induction(self.g["tree"])[1] if self.kind == "tree" else ()

    # --- set-up -------------------------------------------------------------------------------------------------
    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        return generator.generate(seed, options)

    def idx(self, seat: str) -> int:
        return self.seats.index(seat)

    def partner(self, seat: str) -> str:
        return self.seats[1 - self.idx(seat)]

    def labels(self, seat: str) -> list[str]:
        """The moves `seat` may make now (matrix: its actions; tree: the moves at the node, if it is its turn)."""
        if self.kind == "matrix":
            return list(self.g["actions"][self.idx(seat)])
        node = solvers.subtree(self.g["tree"], self.path)
        return list(node["moves"]) if not solvers.is_leaf(node) and node["player"] == seat else []

    def mover(self) -> Optional[str]:
        if self.kind == "matrix":
            return None
        node = solvers.subtree(self.g["tree"], self.path)
        return None if solvers.is_leaf(node) else node["player"]

    def _default(self, seat: str, path) -> str:
        labels = (self.g["actions"][self.idx(seat)] if self.kind == "matrix"
                  else list(solvers.subtree(self.g["tree"], path)["moves"]))
        return labels[min(max(self.default_index, 0), len(labels) - 1)]

    def private_parts(self, seat: str) -> list:
        """Every simultaneous move this seat committed, in the sealed form only its own page and log hold."""
        return [dict(s) for s in self.sealed if s["seat"] == seat]

    @property
    def stage(self) -> str:
        return "done" if self.trial >= self.trials else (self.phases.phase or "done")

    # --- flow ---------------------------------------------------------------------------------------------------
    def start(self, ctx: Context) -> None:
        how = ("You both choose at the same time: each move stays sealed until both are in." if self.kind == "matrix"
               else f"{SEAT_NAMES[self.g['tree']['player']]} moves first, then you alternate; every move is seen by "
               "both.")
        stop = ("the Stop talking button (or /halt) stops the talking at once." if self.halt_rule == "either" else
                "the Stop talking button (or /halt) asks to stop talking, and it stops when both ask.")
        talk = (f"Before every move you may negotiate for up to {self.k} round(s): {SEAT_NAMES[self.first]} talks "
                f"first, then the other replies, strictly in turn; {stop}" if self.k
                else "There is no negotiation: just make your move.")
        ctx.say(f"Welcome to {self.g['title']}! You play as Alice and Bob (your page says which you are); each "
                f"wants the highest reward for themself. {how} {talk} Make your move with the buttons on your page "
                "(or /move NAME). "
                + (f"You play {self.trials} trials." if self.trials > 1 else ""))
        self._begin_step(ctx)

    def _begin_step(self, ctx: Context) -> None:
        """Open the negotiation before the next move (or the move itself when k = 0)."""
        self.talk.restart(self.first)
        if self.k == 0:
            self.phases.skip_to("move")
            self._open_move(ctx)
            return
        ctx.say(f"Negotiation{self._step_name()}: {SEAT_NAMES[self.first]}, you speak first.")
        if self.talk_seconds:
            ctx.set_timer("talk", self.talk_seconds)

    def _step_name(self) -> str:
        if self.kind == "matrix":
            return ""
        return f" before {SEAT_NAMES[self.mover()]}'s move"

    def _open_move(self, ctx: Context) -> None:
        ctx.cancel_timer("talk")
        if self.kind == "matrix":
            self.reveal.default = {s: self._default(s, ()) for s in self.seats}
            self.reveal.open(ctx.t)
            ctx.say("Make your move now (it stays sealed until both moves are in).")
        else:
            ctx.say(f"{SEAT_NAMES[self.mover()]}, make your move: {', '.join(self.labels(self.mover()))}.")
        if self.move_seconds:
            ctx.set_timer("move", self.move_seconds)

    def _talk_over(self, ctx: Context) -> None:
        self.phases.skip_to("move")
        self._open_move(ctx)

    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        if self.stage != "negotiate":
            raise RuleError("The talking is over for this move; make your move with the buttons (or /move NAME)."
                            if self.stage == "move" else "The game is over.")
        self.talk.spoke(seat)
        self.counts["messages"] += 1
        self.messages.append({"seat": seat, "text": text[:500], "step": len(self.path)})
        if self.talk.over:
            ctx.say("The negotiation rounds are used up.")
            self._talk_over(ctx)
        elif self.talk_seconds:
            ctx.set_timer("talk", self.talk_seconds)

    def cmd_halt(self, ctx: Context, seat: str, args) -> None:
        """/halt: stop negotiating (with halt=both, the talk stops when your partner asks too)"""
        if self.stage != "negotiate":
            raise RuleError("There is no negotiation going on.")
        halted = self.talk.halt(seat)
        if self.halt_rule == "either":
            self.talk.halted = halted = True
        ctx.log("halt_request", seat=seat, halted=halted)
        if halted:
            self.counts["halts"] += 1
            ctx.say(f"{SEAT_NAMES[seat]} stopped the negotiation." if self.halt_rule == "either"
                    else "Both agreed to stop negotiating.")
            self._talk_over(ctx)
        else:
            ctx.say(f"{SEAT_NAMES[seat]} asks to stop negotiating; {SEAT_NAMES[self.partner(seat)]}, click Stop talking "
                    "(or /halt) to agree.")

    def cmd_move(self, ctx: Context, seat: str, args) -> None:
        """/move NAME: make your move (a name like Defect, or its number)"""
        if self.stage != "move":
            raise RuleError("Negotiate first (or both click Stop talking)." if self.stage == "negotiate"
                            else "The game is over.")
        if self.kind == "tree" and self.mover() != seat:
            raise RuleError(f"It is {SEAT_NAMES[self.mover()]}'s move; please wait.")
        if not args:
            raise RuleError(f"Usage: /move NAME, one of: {', '.join(self.labels(seat))}.")
        try:
            label = parse_action(" ".join(args), self.labels(seat))
        except ActionError as exc:
            raise RuleError(str(exc)) from None
        if self.kind == "matrix":
            self.reveal.commit(seat, label, ctx.t)
            sealed = {"seat": seat, "trial": self.trial + 1, "sealed_move": label}
            self.sealed.append(sealed)
            ctx.log("commit", to=seat, **sealed)  # the seat's own record; the partner's log has only "committed"
            ctx.log("committed", seat=seat, trial=self.trial + 1)
            ctx.tell(f"Your move {label} is sealed.")
            if self.reveal.all_committed():
                self._reveal(ctx)
            else:
                ctx.say(f"{SEAT_NAMES[seat]} has moved; waiting for {SEAT_NAMES[self.partner(seat)]}.")
        else:
            self._play(ctx, seat, label, defaulted=False)

    def on_timer(self, ctx: Context, name: str) -> None:
        if name == "talk" and self.stage == "negotiate":
            seat = self.talk.current
            ctx.say(f"{SEAT_NAMES[seat]} did not speak in time; the turn passes.")
            self.talk.spoke(seat)
            if self.talk.over:
                self._talk_over(ctx)
            else:
                ctx.set_timer("talk", self.talk_seconds)
        elif name == "move" and self.stage == "move":
            if self.kind == "matrix":
                filled = self.reveal.expire(ctx.t)
                self.counts["defaulted"] += len(filled)
                for s in filled:
                    ctx.say(f"{SEAT_NAMES[s]} did not move in time and gets the default move.")
                if self.reveal.all_committed():
                    self._reveal(ctx)
            else:
                seat = self.mover()
                self.counts["defaulted"] += 1
                ctx.say(f"{SEAT_NAMES[seat]} did not move in time and gets the default move.")
                self._play(ctx, seat, self._default(seat, self.path), defaulted=True)

    def _reveal(self, ctx: Context) -> None:
        ctx.cancel_timer("move")
        moves = self.reveal.reveal()
        i = self.g["actions"][0].index(moves["alice"])
        j = self.g["actions"][1].index(moves["bob"])
        p = self.g["payoffs"]
        u = p[i][j]
        ctx.log("reveal", trial=self.trial + 1, moves=moves, defaulted=list(self.reveal.defaulted))
        ctx.say(f"Revealed: Alice {moves['alice']}, Bob {moves['bob']}. Rewards: Alice {u[0]}, Bob {u[1]}.")
        self._finish_trial(ctx, {"moves": moves, "payoffs": {"alice": u[0], "bob": u[1]}, "indices": [i, j],
                                 "is_ne": (i, j) in solvers.pure_nash(p), "po_ne": (i, j) in solvers.po_nash(p),
                                 "pareto_optimal": (i, j) in solvers.pareto_optimal(p),
                                 "defaulted": list(self.reveal.defaulted)})

    def _play(self, ctx: Context, seat: str, label: str, defaulted: bool) -> None:
        ctx.cancel_timer("move")
        self.path.append(label)
        ctx.log("move", seat=seat, move=label, path=list(self.path), defaulted=defaulted)
        ctx.say(f"{SEAT_NAMES[seat]} plays {label}.")
        node = solvers.subtree(self.g["tree"], self.path)
        if not solvers.is_leaf(node):
            self.phases.advance()  # move -> negotiate
            self._begin_step(ctx)
            return
        path = tuple(self.path)
        spe = path == tuple(self.spe_path)
        ctx.say(f"The game ends. Rewards: Alice {node[0]}, Bob {node[1]}.")
        self._finish_trial(ctx, {"path": list(path), "payoffs": {"alice": node[0], "bob": node[1]},
                                 "is_ne": spe, "po_ne": spe, "spe_path": list(self.spe_path),
                                 "pareto_optimal": path in solvers.pareto_leaves(self.g["tree"]),
                                 "defaulted": [seat] if defaulted else []})

    def _finish_trial(self, ctx: Context, outcome: dict) -> None:
        outcome["trial"] = self.trial + 1
        outcome["game"] = self.g["name"]
        self.outcomes.append(outcome)
        self.trial += 1
        self.path, self.messages = [], []
        self.phases = Phases(["negotiate", "move"])
        if self.trial >= self.trials:
            ctx.end("completed")
            return
        ctx.say(f"Trial {self.trial + 1} of {self.trials} begins: {self.g['title']}.")
        self._begin_step(ctx)

    # --- views and results --------------------------------------------------------------------------------------
    def view(self, seat: str) -> dict:
        from .render import seat_view  # the page state lives with the rendering (one place for the perspective)
        return seat_view(self, seat)

    def results(self) -> dict:
        outs = self.outcomes
        n = len(outs)
        last = outs[-1] if outs else {}
        joint = [o["payoffs"]["alice"] + o["payoffs"]["bob"] for o in outs]
        return {
            "game": ",".join(dict.fromkeys(g["name"] for g in self.games)), "kind": self.kind,
            "negotiation": self.k, "first": self.first,
            "trials": self.trials, "trials_played": n,
            "outcome": last.get("moves") or last.get("path"), "payoffs": last.get("payoffs"),
            "is_ne": last.get("is_ne"), "po_ne": last.get("po_ne"), "pareto_optimal": last.get("pareto_optimal"),
            "spe_path": last.get("spe_path"),
            "ne_rate": round(sum(o["is_ne"] for o in outs) / n, 4) if n else None,
            "po_ne_rate": round(sum(o["po_ne"] for o in outs) / n, 4) if n else None,
            "outcomes": outs, "messages": self.counts["messages"], "halts": self.counts["halts"],
            "defaulted": self.counts["defaulted"],
            "score": round(sum(joint) / n, 4) if n else None,
            "normalized_score": round(sum(o["po_ne"] for o in outs) / n, 4) if n else None,
            "turns": self.counts["messages"] + sum(len(o.get("path") or [1, 1]) for o in outs),
            "seed": self.seed, "tokens": 0, "bonus": {},
        }


__all__ = ["MatrixGame", "SEAT_NAMES"]
