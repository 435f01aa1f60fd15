"""The two halves of tests/test_replay_determinism.py, each run in its own process (with its own PYTHONHASHSEED):

    python -m tests.replay_determinism_play play OUT_DIR     seeded games of every task by its default agents, with
                                                             odd inputs slipped in (failed searches, refused commands,
                                                             rejected moves, stale answers); writes the logs and
                                                             OUT_DIR/said.json: everything each game said and showed
    python -m tests.replay_determinism_play replay LOG_DIR OUT.json [ORDER]   replays the logs with `replay`, their
                                                             JSON keys in ORDER (sorted, jsonb: as a real Slurk's
                                                             database returns them, reversed); writes its report and
                                                             what each replayed game said and showed

What a game "says" is every game-master message (with its addressee and whether it was a refusal) and every page view,
by the input that caused it, so the comparison covers text that the replay's own check does not (it compares events,
refusals and results).
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from tasks.core.evaluation import JsonlRoomLog
from tasks.core.evaluation import LOCAL_TIMERS
from tasks import available_tasks, get_task
from tasks.core import Abort, Action, Chat, Command, LogEvent, MatchDriver, Message, SeatInfo, View, build_match

SEEDS = (1, 2)
MAX_ACTS = 400
# Second games with options that reach other rules: sequential game trees (moves keyed by label) with talk first.
OPTIONS = {"matrix-games": {"game": "escalation,hot-cold", "negotiation": 1}}


def odd_inputs(task: str, seats: tuple) -> list:
    """Inputs a real game gets from confused or hurried people: unknown and malformed commands, answers to offers
    that do not exist (or no longer do), moves the rules refuse, and the task's own failing commands."""
    a, b = seats[0], seats[-1]
    out = [Command(a, "nonsense", ()), Command(b, "accept", ("#999",)), Command(a, "reject", ("7", "too", "late")),
           Action(b, {"command": 5}), Command(a, "propose", ("???",)), Command(b, "help", ())]
    out += {
        "planning": [Command("assistant", "search", ("colour == red",)),
                     Command("assistant", "search", ("has parkng == true, limit=2",)),
                     Command("assistant", "search", ("rating == 7",)),
                     Command("assistant", "search", ("type == zoo",)),
                     Command("assistant", "search", ("price <= cheap",)),
                     Command("assistant", "search", ("type == cafe, sort_by=distance_to(Nowhere), limit=2",)),
                     Command("assistant", "search", ("type == restaurant, sort_by=price, limit=3",)),
                     Command("user", "search", ("type == cafe",)), Command("user", "propose", ("A, B, C",))],
        "mediation": [Command("assistant", "propose", ("99", "1")), Command("user1", "propose", ("1", "1")),
                      Chat("user1", "hello user two", to=("user2",))],
        "assignment": [Command("player1", "propose", ("BLEU=Nobody",))],
        "dond": [Command("alice", "propose", ("books=99",)), Command("bob", "propose", ("b", "2"))],
        "travel": [Command("light", "propose", ("Z",)), Command("ghost", "share", ("X-Y",)),
                   Command("light", "submit", ("L", "L")), Command("ghost", "undo", ())],
        "gnomes": [Command(a, "move", ("fly",)), Command(b, "move", ("up",))],
        "matrix-games": [Command(a, "move", ("jump",)), Command(b, "halt", ()), Command(b, "halt", ())],
        "asympuzl": [Command(a, "replace", ("9", "hexagon", "purple")), Command(b, "done", ())],
    }.get(task, [])
    return out


class Recorder:
    """What one game said and showed, by the seq of the input that caused it (0: the opening)."""

    def __init__(self):
        self.step = 0
        self.messages: list = []
        self.views: list = []
        self._last: dict = {}

    def batch(self, effects) -> None:
        views = {}
        for e in effects:
            if isinstance(e, LogEvent) and e.event == "game_input":
                self.step = e.data["seq"]
            elif isinstance(e, Message):
                self.messages.append([self.step, "rejection" if e.kind == "error" else "gm", e.to, e.text])
            elif isinstance(e, View):
                views[e.seat] = e.data
        for seat in sorted(views):
            if views[seat] != self._last.get(seat):
                self._last[seat] = views[seat]
                self.views.append([self.step, seat, json.dumps(views[seat], sort_keys=True)])


def play_one(task: str, seed: int, log_path: str, options: dict) -> dict:
    spec = get_task(task)
    seats = {s: SeatInfo("agent", s, b) for s, b in zip(spec.seats, spec.default_brains)}
    match, brains = build_match(spec, seed, seats, options=options, timers=LOCAL_TIMERS, code_source=lambda: "CODE")
    clock = iter(1000.0 + 0.5 * k for k in range(10 ** 6))
    driver = MatchDriver(match, brains, clock=lambda: next(clock))
    log = JsonlRoomLog(log_path, room_id=f"{task}-{seed}")
    rec = Recorder()

    def deliver(batches):
        for batch in batches:
            rec.batch(batch)
            for e in batch:
                if isinstance(e, LogEvent):
                    log.write(e.event, e.data, receiver_id=e.to, t=0.0)

    odd = odd_inputs(task, spec.seats)
    deliver(driver.open(act=False))
    acts = 0
    while not match.over and acts < MAX_ACTS:
        if odd and acts % 3 == 0:
            inp = odd.pop(0)
            deliver(driver.feed(dataclasses.replace(inp, t=next(clock)), act=False))
            continue
        seat = driver.next_brain()
        if seat is None:
            if odd:
                acts = 0
                continue
            break
        deliver([b for b in driver.apply_moves(driver.think(seat))])
        acts += 1
    if not match.over:
        deliver(driver.feed(Abort("stalled", "The agents stopped without finishing the game.", next(clock))))
    log.close()
    return {"task": task, "seed": seed, "status": match.status, "messages": rec.messages, "views": rec.views}


def play(out_dir: str) -> None:
    said = {}
    for task in available_tasks():
        for seed in SEEDS:
            path = os.path.join(out_dir, "logs", f"{task}-{seed}.jsonl")
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            options = OPTIONS.get(task, {}) if seed == SEEDS[-1] else {}
            said[Path(path).name] = play_one(task, seed, path, options)
    Path(out_dir, "said.json").write_text(json.dumps(said))


KEY_ORDERS = {
    "sorted": lambda k: k,                    # our own logs (json.dumps(sort_keys=True))
    "jsonb": lambda k: (len(k), k),           # PostgreSQL jsonb, where a real Slurk keeps its log rows
    "reversed": lambda k: [-ord(c) for c in k],
}


def reorder(value, key):
    """`value` with every object's keys in the order `key` gives: what another log store hands back."""
    if isinstance(value, dict):
        return {k: reorder(value[k], key) for k in sorted(value, key=key)}
    if isinstance(value, list):
        return [reorder(v, key) for v in value]
    return value


def relog(log_dir: str, out_dir: str, order: str) -> str:
    """A copy of the logs whose JSON objects have their keys in another order."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    for path in sorted(Path(log_dir).glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        Path(out_dir, path.name).write_text("".join(json.dumps(reorder(r, KEY_ORDERS[order])) + "\n" for r in rows))
    return out_dir


def replay(log_dir: str, out: str, order: str = "sorted") -> None:
    from bots.study.replay import replay_file, replay_paths
    log_dir = relog(log_dir, str(Path(out).parent / f"logs-{order}"), order)
    report = replay_paths([log_dir], str(Path(out).parent / f"replay-out-{order}"), get_task, plots=False)
    games = {}
    for path in sorted(Path(log_dir).glob("*.jsonl")):
        replayed, _ = replay_file(str(path))
        g = replayed[0]
        messages, views = [], []
        for e in g.timeline:
            if e.source != "replay":
                continue
            if e.kind in ("gm", "rejection"):
                messages.append([e.step, e.kind, e.seat, e.text])
            elif e.kind == "board":
                views += [[e.step, seat, json.dumps(v, sort_keys=True)] for seat, _, v in sorted(e.views)]
        games[path.name] = {"mismatches": list(g.mismatches), "replay_error": g.replay_error,
                            "messages": messages, "views": views}
    ok = sum(not (g["mismatches"] or g["replay_error"]) for g in games.values())
    Path(out).write_text(json.dumps({"report_ok": report.ok, "reproduced": ok,
                                     "with_differences": len(games) - ok, "games": games}))


if __name__ == "__main__":
    if sys.argv[1] == "play":
        play(sys.argv[2])
    else:
        replay(sys.argv[2], sys.argv[3], *sys.argv[4:5])
