"""The rules of Gnomes at Night (Chen, Fried & Topcu, IJCAI-24) as a `Game`.

Two seats move one shared token in turn on a 9x9 maze. Each seat sees only the walls of its own side; a move is
checked against the mover's walls, and a blocked move wastes the turn. Five rounds with the paper's fixed
treasures, each visible to one side only.

Seats: "h" is side 0 (the paper's human side H, `zero_walls`, sees rounds 1, 3, 5); "e" is side 1 (the paper's
ego/agent side E, `one_walls`, sees rounds 2 and 4). A person takes "h" first; two people can play ("h" and "e").

Options:
    first     seat (or side number) that moves first in every round; default "h" (side 0). Recorded in instance().
    rounds    number of rounds, 1..5 (default 5), played in the paper's order.
    turn_cap  turns per round before the round ends as a timeout (default 60; None for no cap).
"""
from __future__ import annotations

from typing import Any, Optional

from tasks.core import Context, Game, RuleError, TurnOrder

from . import generator, maze
from .generator import SEATS, SIDE
from .parse import parse_direction

# What people read for a seat (terminal prompt, an agent without a Slurk user of its own): the ids stay h / e.
SEAT_NAMES = {"h": "Side 0", "e": "Side 1"}

REWARD_TREASURE = 20.0
REWARD_TURN = -0.1
REWARD_BLOCKED = -0.5

WHERE = {maze.RIGHT: "to the right of", maze.UP: "above", maze.LEFT: "to the left of", maze.DOWN: "below"}


def other(seat: str) -> str:
    return SEATS[1 - SEATS.index(seat)]


class GnomesGame(Game):
    task = "gnomes"
    title = "Gnomes at Night"
    seats = SEATS
    seat_names = SEAT_NAMES

    def __init__(self, seed: int, options: Optional[dict] = None, instance: Optional[dict] = None):
        super().__init__(seed, options, instance)
        first = self.inst["first"]
        self.first = first
        self.n_rounds = int(self.inst["rounds"])
        self.turn_cap = self.inst["turn_cap"]
        self.turns = TurnOrder(SEATS, first)
        self.round = 0
        self.token = maze.START
        self.finished = False
        self.history: list[dict] = []   # finished rounds' metrics
        self.cur: dict = {}             # metrics of the round being played
        self.last: Optional[dict] = None

    # --- setup ---------------------------------------------------------------------------------------------------
    @classmethod
    def generate(cls, seed: int, options: dict) -> dict:
        return generator.generate(seed, options)

    def private_parts(self, seat: str) -> list:
        """The seat's walls where they differ from the partner's (walls both sides have are no secret)."""
        mine, theirs = self.inst["walls"][seat], self.inst["walls"][other(seat)]
        return [v for k, v in mine.items() if v and v != theirs.get(k)]

    def optimum(self, round_no: int) -> Optional[int]:
        return maze.optimum_turns(maze.TREASURES[round_no - 1], SIDE[self.first])

    def start(self, ctx: Context) -> None:
        cap = f" A round ends after {self.turn_cap} turns if the treasure is not found." if self.turn_cap else ""
        ctx.say(
            f"Welcome to Gnomes at Night! You and your partner move one token together through a maze, one step "
            f"each in turn. You see only the walls on your side; your partner's walls differ, so talk to each "
            f"other. Each round, only one of you sees the treasure. Move with the arrow buttons, the arrow keys or "
            f"/move right|up|left|down|stay. {self.n_rounds} rounds.{cap}"
        )
        self._start_round(ctx, 1)

    def _start_round(self, ctx: Context, round_no: int) -> None:
        self.round = round_no
        self.token = maze.START
        self.turns.current = self.first
        self.last = None
        self.cur = {
            "round": round_no, "treasure_seat": SEATS[maze.treasure_side(round_no)],
            "optimum": self.optimum(round_no), "turns": 0, "blocked": 0, "stays": 0,
            "blocked_by": {s: 0 for s in SEATS}, "messages": {s: 0 for s in SEATS},
            "chars": {s: 0 for s in SEATS}, "words": {s: 0 for s in SEATS}, "reward": 0.0, "t_start": ctx.t,
        }
        seer = self.cur["treasure_seat"]
        for seat in SEATS:
            who = "You go" if seat == self.first else "Your partner goes"
            task = ("You can see the treasure this round: guide your partner to it." if seat == seer
                    else "Your partner sees the treasure this round: ask them where to go.")
            ctx.say(f"Round {round_no} of {self.n_rounds}: the token is at the start. {who} first. {task}", to=seat)
        ctx.log("round_start", round=round_no, first=self.first, treasure_seat=seer)

    # --- moves ---------------------------------------------------------------------------------------------------
    def cmd_move(self, ctx: Context, seat: str, args: tuple[str, ...]) -> None:
        """/move right|up|left|down|stay: move the token one step (or stay) on your turn"""
        if self.finished:
            raise RuleError("The game is over.")
        if len(args) != 1 or parse_direction(args[0]) is None:
            raise RuleError("Usage: /move right|up|left|down|stay (or r/u/l/d/s).")
        self.turns.check(seat, "move")
        action = parse_direction(args[0])
        side = SIDE[seat]
        # The wall check is made at the position the move starts from (the peer code checked after the move).
        new_pos, was_blocked = maze.step(side, self.token, action)
        cur = self.cur
        cur["turns"] += 1
        cur["reward"] += REWARD_TURN
        if was_blocked:
            cur["blocked"] += 1
            cur["blocked_by"][seat] += 1
            cur["reward"] += REWARD_BLOCKED
        elif action == maze.STAY:
            cur["stays"] += 1
        self.token = new_pos
        self.last = {"seat": seat, "action": maze.ACTIONS[action], "blocked": was_blocked, "turn": cur["turns"]}
        ctx.log("move", round=self.round, seat=seat, action=maze.ACTIONS[action], blocked=was_blocked,
                token=list(new_pos), turn=cur["turns"])
        if was_blocked:
            ctx.tell(f"There is a wall {WHERE[action]} the token on your side, so it did not move "
                     f"(your turn is used).")
        if new_pos == maze.TREASURES[self.round - 1]:
            cur["reward"] += REWARD_TREASURE
            self._end_round(ctx, "found")
        elif self.turn_cap and cur["turns"] >= self.turn_cap:
            self._end_round(ctx, "timeout")
        else:
            self.turns.advance()

    def _end_round(self, ctx: Context, status: str) -> None:
        cur = self.cur
        record = {k: v for k, v in cur.items() if k != "t_start"}
        record["status"] = status
        record["reward"] = round(cur["reward"], 2)
        record["time"] = round(ctx.t - cur["t_start"], 3)
        record["treasure"] = list(maze.TREASURES[self.round - 1])
        self.history.append(record)
        ctx.log("round_end", **record)
        if status == "found":
            ctx.say(f"Round {self.round}: treasure found in {record['turns']} turns "
                    f"(best possible {record['optimum']}; reward {record['reward']:.1f}).")
        else:
            ctx.say(f"Round {self.round} ended: the turn limit of {self.turn_cap} was reached "
                    f"(reward {record['reward']:.1f}).")
        if self.round < self.n_rounds:
            self._start_round(ctx, self.round + 1)
        else:
            self.finished = True
            total = sum(r["turns"] for r in self.history)
            ctx.say(f"All {self.n_rounds} rounds are done: {total} turns in total. Thank you for playing!")
            ctx.end("completed")

    def on_chat(self, ctx: Context, seat: str, text: str) -> None:
        if self.cur and not self.finished:
            self.cur["messages"][seat] += 1
            self.cur["chars"][seat] += len(text)
            self.cur["words"][seat] += len(text.split())

    # --- what each seat sees --------------------------------------------------------------------------------------
    def view(self, seat: str) -> dict:
        seer = SEATS[maze.treasure_side(self.round)] if self.round else None
        sees = seer == seat and not self.finished
        last = None
        if self.last is not None:
            # The partner's direction is not shown: whether it was blocked would reveal the partner's walls.
            last = dict(self.last) if self.last["seat"] == seat else \
                {"seat": self.last["seat"], "turn": self.last["turn"]}
        return {
            "seat": seat, "partner": other(seat), "side": SIDE[seat], "size": maze.SIZE,
            "start": list(maze.START),
            "walls": {k: [list(p) for p in v] for k, v in maze.WALLS[SIDE[seat]].items()},
            "round": self.round, "rounds": self.n_rounds, "token": list(self.token),
            "turn": None if self.finished else self.turns.current,
            "your_turn": not self.finished and self.turns.current == seat,
            "sees_treasure": sees,
            "treasure": list(maze.TREASURES[self.round - 1]) if sees else None,
            "turns": self.cur.get("turns", 0), "turn_cap": self.turn_cap,
            "last": last,
            "results": [{"round": r["round"], "status": r["status"], "turns": r["turns"],
                         "optimum": r["optimum"], "reward": r["reward"]} for r in self.history],
            "finished": self.finished,
        }

    # --- metrics -----------------------------------------------------------------------------------------------
    def results(self) -> dict:
        rounds = list(self.history)
        if self.cur and not self.finished and (not rounds or rounds[-1]["round"] != self.cur["round"]):
            partial = {k: v for k, v in self.cur.items() if k != "t_start"}
            partial["status"] = "unfinished"
            partial["reward"] = round(partial["reward"], 2)
            rounds.append(partial)
        out: dict[str, Any] = {"first": self.first, "rounds": rounds, "rounds_played": len(self.history)}
        done = [r for r in rounds if r["status"] != "unfinished"]
        out["found"] = sum(r["status"] == "found" for r in done)
        out["turns_total"] = sum(r["turns"] for r in done)
        out["optimum_total"] = sum(r["optimum"] or 0 for r in done)
        out["turn_ratio"] = round(out["turns_total"] / out["optimum_total"], 3) if out["optimum_total"] else None
        out["blocked_total"] = sum(r["blocked"] for r in done)
        out["reward_total"] = round(sum(r["reward"] for r in done), 2)
        out["score"] = out["reward_total"]
        out["normalized_score"] = (round(out["optimum_total"] / out["turns_total"], 4)
                                   if out["turns_total"] else None)
        out["turns"] = out["turns_total"]
        for s in SEATS:
            out[f"messages_{s}"] = sum(r["messages"][s] for r in rounds)
        for r in done:
            out[f"turns_r{r['round']}"] = r["turns"]
        return out
