"""The released DialOp Mediation dialogues (`mediation.jsonl`, 162 games) as games of this task: each record becomes
an instance (its calendars, flights and preferences under the original rules) plus its logged inputs, which
replay through the rules and must reproduce the stored score, best and worst.

Mapping: a user's message -> their Chat (it reaches the assistant); the assistant's message in virtual room v ->
Chat to user v+1; a proposal -> `/propose` with the stored flight ids (+1: this game numbers flights from 1); a
response -> /accept or /reject. The web app let a user answer a proposal the other had already rejected; the rules
refuse such late answers (a reject clears the proposal), which changes no outcome: every stored game ends on the
same accepted pair.
"""
from __future__ import annotations

from typing import Iterator, Optional

from tasks.core import Chat, Command
from tasks.dialop.data import message_words, read_records
from tasks.dialop.released import ReleasedGame
from tasks.dialop.replaying import replay_people

from .game import USERS
from .generator import from_released

SEATS = ("user1", "user2", "assistant")


class ReleasedMediation(ReleasedGame):
    def human_results(self) -> dict:
        """With each party's words (a message's player is its seat; the assistant's is player 2)."""
        words = {s: 0 for s in SEATS}
        for a, w in zip(self.record.get("action_log") or [], message_words(self.record)):
            if a.get("type") == "message":
                words[SEATS[int(a.get("player", 2))]] += w
        return {**super().human_results(), "words": sum(words.values()), **{f"words_{s}": n for s, n in words.items()}}


def inputs_of(record: dict) -> list:
    out, t = [], 0.0
    for a in record.get("action_log") or []:
        t = float(a.get("time") or t)  # messages carry no time: the last known one
        kind = a.get("type")
        if kind == "message":
            text = (a.get("message") or {}).get("data", "")
            player = int(a.get("player", 0))
            if player == 2:
                out.append(Chat("assistant", text, t=t, to=(USERS[int(a.get("vroom") or 0)],)))
            else:
                out.append(Chat(USERS[player], text, t=t))
        elif kind == "proposal":
            ids = [int(p["flight_id"]) + 1 for p in a["proposals"]]
            out.append(Command("assistant", "propose", (str(ids[0]), str(ids[1])), t=t))
        elif kind == "proposal_response":
            accept = bool((a.get("response") or {}).get("accept"))
            out.append(Command(USERS[int(a["player"])], "accept" if accept else "reject", (), t=t))
    return out


def load(path: str) -> Iterator[ReleasedMediation]:
    for i, rec in enumerate(read_records(path, "mediation")):
        yield ReleasedMediation(i, rec, from_released(rec, i), inputs_of(rec))


def replay(game: ReleasedGame, spec, options: Optional[dict] = None):
    return replay_people(spec, game.index, game.instance, game.inputs, SEATS, options)


def check_scores(path: str, spec) -> tuple[int, list[str]]:
    """(games reproduced, problems): stored score, best, worst and norm must come out of the replay exactly."""
    ok, problems = 0, []
    for g in load(path):
        want = g.result
        if (g.instance["best"], g.instance["worst"]) != (want.get("best"), want.get("worst")):
            problems.append(f"game {g.index}: best/worst {g.instance['best']}/{g.instance['worst']} != stored "
                            f"{want.get('best')}/{want.get('worst')}")
            continue
        match = replay(g, spec)
        res = match.results if match.over else {}
        if not match.over or res.get("score") != want.get("score") or \
                abs(res.get("normalized_score", -1) - round(want.get("norm", 0), 4)) > 1e-9:
            problems.append(f"game {g.index}: replay {res.get('score') if match.over else 'did not end'} != stored "
                            f"{want.get('score')}")
            continue
        ok += 1
    return ok, problems
