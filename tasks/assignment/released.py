"""The released DialOp Assignment dialogues (`optimization.jsonl`) as games of this task: each record becomes an
instance plus its logged inputs, which replay through the rules and must reproduce the stored score."""
from __future__ import annotations

from typing import Iterator, Optional

from tasks.core import Chat, Command
from tasks.dialop.data import read_records
from tasks.dialop.released import ReleasedGame, action_kind
from tasks.dialop.replaying import replay_people

from .generator import from_released
from .parse import format_proposal

SEATS = ("player1", "player2")


def inputs_of(record: dict) -> list:
    out = []
    for i, a in enumerate(record.get("action_log") or []):
        seat = SEATS[int(a.get("player", 0))]
        t = float(a.get("time") or 0.0)
        kind = action_kind(a)
        if kind == "message":
            out.append(Chat(seat, (a.get("message") or {}).get("data", ""), t=t))
        elif kind == "proposal":
            matching = [0] * 8
            for r, p in a["proposal_ids"]:
                matching[int(r)] = int(p)
            out.append(Command(seat, "propose", (format_proposal(matching),), t=t))
        elif kind == "proposal_response":
            accept = bool((a.get("response") or {}).get("accept"))
            out.append(Command(seat, "accept" if accept else "reject", (), t=t))
    return out


def load(path: str) -> Iterator[ReleasedGame]:
    for i, rec in enumerate(read_records(path, "assignment")):
        yield ReleasedGame(i, rec, from_released(rec, i), inputs_of(rec))


def replay(game: ReleasedGame, spec, options: Optional[dict] = None):
    """Replay the human dialogue through the rules; returns the finished (or unfinished) match."""
    return replay_people(spec, game.index, game.instance, game.inputs, SEATS, {"turns": "free", **(options or {})})


def check_scores(path: str, spec) -> tuple[int, list[str]]:
    """(games reproduced, problems): every stored score and best must come out of the replay exactly."""
    ok, problems = 0, []
    for g in load(path):
        match = replay(g, spec)
        res = match.results if match.over else {}
        want = g.result
        if g.instance["best"] != want.get("best"):
            problems.append(f"game {g.index}: pooled optimum {g.instance['best']} != stored best {want.get('best')}")
            continue
        if not match.over or res.get("score") != want.get("score"):
            problems.append(f"game {g.index}: replay {'score ' + str(res.get('score')) if match.over else 'did not end'}"
                            f" != stored score {want.get('score')}")
            continue
        ok += 1
    return ok, problems
