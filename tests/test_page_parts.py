"""Pages in two parts (Game.page_shared / page_private): the travel page gets one update per move for both seats.

- The parts put together (tasks/core/pages.py with the task's combine) are exactly the seat's view, at every step of
  whole games, under both rule sets; the page script's combine (plugins/travel.js, run in node) agrees.
- The shared part holds nothing private: no seat's unshared coins, whatever the seat.
- On the Slurk double: a move reaches both pages as one room-wide update of the shared part and no per-seat update;
  a refused move is acknowledged to its sender alone; a person who comes back gets both parts again; what each page
  shows is the seat's view.
"""
from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tasks import get_task
from tasks.core import Match, MatchDriver, SeatInfo
from tasks.core.pages import PageReader, combine_parts
from tasks.travel.brains import SolverBrain
from tasks.travel.game import TravelGame
from tests.leaks import find_leaks
from tests.page_views import page_views
from tests.test_privacy import _room_with_two
from tests.test_slurk_runtime import WAIT, _poll, finish

TRAVEL = get_task("travel")
ROOT = Path(__file__).resolve().parent.parent


def _states(seed: int, rules: str):
    """A whole self-played game: the match after every batch of effects."""
    game = TravelGame(seed, {"rules": rules})
    match = Match(game, {"light": SeatInfo("agent"), "ghost": SeatInfo("agent")})
    driver = MatchDriver(match, {s: SolverBrain(s, seed) for s in match.seats}, clock=lambda: 0.0)
    for _batch in driver.open():
        yield match


class Sample:
    """One seat at one step of a game: its parts, its view, the other seat's shared part, every private part."""

    def __init__(self, match, seat):
        other = next(s for s in match.seats if s != seat)
        self.seat, self.phase = seat, match.phase
        self.shared, self.own = copy.deepcopy(match.page_parts(seat))
        self.view = copy.deepcopy(match._view(seat))
        self.others_shared = copy.deepcopy(match.page_parts(other)[0])
        self.private = copy.deepcopy([p for s in match.seats for p in match.game.private_parts(s)])


def _samples():
    out = []
    for seed in range(4):
        for rules in ("ours", "paper"):
            for match in _states(seed, rules):
                out += [Sample(match, seat) for seat in match.seats if match.page_parts(seat) is not None]
    return out


SAMPLES = _samples()


def test_the_parts_put_together_are_the_seats_view_at_every_step():
    assert len(SAMPLES) > 100 and {x.phase for x in SAMPLES} == {"playing", "over"}
    for x in SAMPLES:
        assert combine_parts(x.shared, x.own, TRAVEL.combine_page) == x.view


def test_the_shared_part_is_the_same_for_every_seat_and_holds_nothing_private():
    for x in SAMPLES:
        assert x.others_shared == x.shared
        assert x.private and find_leaks([x.shared], x.private) == []
    # and the own part is the seat's: its coins are in it
    x = SAMPLES[0]
    assert x.own["my_coins"] and x.own["world"] == x.seat and x.own["core"] == {"seat": x.seat, "code": None}


def test_a_game_not_playing_yet_has_whole_views():
    game = TravelGame(0, {})
    match = Match(game, {"light": SeatInfo("person"), "ghost": SeatInfo("person")})
    match.open()
    assert match.page_parts("light") is None


def test_the_page_reader_waits_for_both_parts_and_reads_whole_views():
    reader = PageReader(TRAVEL)
    assert reader.feed("travel-state", json.dumps({"core": {"phase": "waiting", "seat": "light"}}))["core"][
        "phase"] == "waiting"  # a whole view while the game waits
    x = SAMPLES[3]
    assert reader.feed("travel-state", json.dumps(x.own)) is None  # an own part alone: the page waits
    assert reader.feed("travel-shared", json.dumps(x.shared)) == x.view
    assert reader.feed("other", "x") is None


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the page script's combine is "
                    "checked in the browser tests instead")
def test_the_page_scripts_combine_agrees_with_the_python_twin(tmp_path):
    source = (ROOT / "plugins" / "travel.js").read_text(encoding="utf-8")
    block = re.search(r"// BEGIN travel-combine\n(.*?)// END travel-combine", source, re.S)
    assert block, "plugins/travel.js marks its combine block"
    cases = []
    for x in SAMPLES[::3]:
        a = {k: v for k, v in x.shared.items() if k != "core"}
        b = {k: v for k, v in x.own.items() if k != "core"}
        cases.append([a, b, TRAVEL.combine_page(a, b)])
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    script = ("var window = {};\n" + block.group(1) + "\nvar fs = require('fs');\n"
              "var cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')); var bad = 0;\n"
              "function canon(x) { if (Array.isArray(x)) { return x.map(canon); }\n"
              "  if (x && typeof x === 'object') { var o = {}; Object.keys(x).sort().forEach(function (k) {\n"
              "    o[k] = canon(x[k]); }); return o; } return x; }\n"
              "cases.forEach(function (c) { var got = window.TravelPage.combine(c[0], c[1]);\n"
              "  if (JSON.stringify(canon(got)) !== JSON.stringify(canon(c[2]))) { bad += 1; } });\n"
              "console.log(JSON.stringify({n: cases.length, bad: bad}));\n")
    (tmp_path / "check.js").write_text(script)
    out = subprocess.run(["node", str(tmp_path / "check.js"), str(tmp_path / "cases.json")], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"n": len(cases), "bad": 0}


# --- on the Slurk double --------------------------------------------------------------------------------------


def _updates(person, after: int) -> list[str]:
    """The elements of the page updates received after event index `after`."""
    return [d["id"] for e, d in list(person.rec.events)[after:] if e == "text_update"]


def _patches(bot) -> int:
    return sum(n for k, n in bot.metrics.requests.items() if k.startswith("PATCH"))


def _neighbour(v: dict) -> str:
    return next(b if a == v["start"] else a for a, b in (k.split("-") for k in sorted(v["my_coins"]))
                if v["start"] in (a, b))


def test_a_move_reaches_both_pages_as_one_shared_update(slurk_server, tmp_path):
    srv = slurk_server
    bot, room, people = _room_with_two(srv, TRAVEL, tmp_path, task_options={"boards": "preset"})
    try:
        light, ghost = people["light"], people["ghost"]
        v = light.view()
        neighbour = _neighbour(v)
        assert bot.pages.drain(WAIT)
        n_light, n_ghost, before = len(light.rec.events), len(ghost.rec.events), _patches(bot)
        assert light.send({"key": v["core"]["key"], "n": "n-propose", "typed": f"propose {neighbour}"}) is True
        seen = ghost.view(lambda x: x["pending"] is not None and not x["pending"]["mine"])
        mine = light.view(lambda x: x["pending"] is not None and x["pending"]["mine"])
        assert seen["pending"]["path"] == mine["pending"]["path"] == [v["start"], neighbour]
        assert seen["turns_left"]["partner"] == mine["turns_left"]["me"]
        assert bot.pages.drain(WAIT)
        # one PATCH for the room, seen by both pages; no per-seat update (neither seat's own part changed)
        assert _patches(bot) - before == 1
        assert _updates(light, n_light) == _updates(ghost, n_ghost) == ["travel-shared"]
        assert mine["core"]["acks"] == {"light": "n-propose"}  # the move is acknowledged with it

        # a refused move: its sender alone gets the acknowledgement (in their own part), the partner nothing
        n_light, n_ghost, before = len(light.rec.events), len(ghost.rec.events), _patches(bot)
        # one cannot agree to one's own proposal; sent as the page does, in the seat's envelope with a nonce
        assert light.send({"key": mine["core"]["key"], "n": "n-agree", "typed": "agree"}) is True
        _poll(lambda: _updates(light, n_light))
        assert bot.pages.drain(WAIT)
        assert _updates(light, n_light) == ["travel-state"] and _patches(bot) - before == 1
        own = json.loads([d for e, d in list(light.rec.events)[n_light:] if e == "text_update"][0]["text"])
        assert own["core"]["ack"] == "n-agree" and "pending" not in own  # the own part only
        time.sleep(0.3)
        assert _updates(ghost, n_ghost) == []

        # each page shows its seat's view
        match = bot.room(room).match
        for seat, person in people.items():
            shown = page_views(person.rec, TRAVEL)[-1]
            assert {k: x for k, x in shown.items() if k != "core"} == {
                k: x for k, x in match._view(seat).items() if k != "core"}
            assert shown["core"]["seat"] == seat and shown["core"]["phase"] == "playing"
            assert shown["core"]["acks"] == {"light": "n-propose"} and shown["core"]["bot"] == bot.user_id
    finally:
        finish(bot)


def test_a_person_who_comes_back_gets_both_parts(slurk_server, tmp_path):
    from tests.slurk_double.recorder import SocketRecorder

    srv = slurk_server
    bot, room, people = _room_with_two(srv, TRAVEL, tmp_path, task_options={"boards": "preset"})
    again = None
    try:
        light, ghost = people["light"], people["ghost"]
        v = light.view()
        ghost.disconnect()
        _poll(lambda: bot.room(room).people.user_of("ghost") not in bot.room(room).people.online)
        n_light = len(light.rec.events)
        assert light.send(f"propose {_neighbour(v)}") is True
        light.view(lambda x: x["pending"] is not None)
        assert bot.pages.drain(WAIT)
        # the ghost's page was closed: the update went to the one page open (no room-wide update for one person)
        assert _updates(light, n_light) == ["travel-shared"]
        n_light = len(light.rec.events)
        again = SocketRecorder("Ben-again").connect(srv.url, ghost.id, ghost.token)
        again.wait_for("joined_room", lambda d: d["room"] == room, timeout=WAIT)

        def shown():
            views = [x for x in page_views(again, TRAVEL) if x["core"].get("phase") == "playing"]
            return views[-1] if views else None
        _poll(lambda: shown() is not None and shown()["pending"] is not None)
        got = shown()
        assert got["pending"]["by"] == "light" and not got["pending"]["mine"] and got["world"] == "ghost"
        assert bot.pages.drain(WAIT)
        assert "travel-shared" not in _updates(light, n_light)  # sent to the returning page alone
    finally:
        if again is not None:
            again.disconnect()
        finish(bot)
