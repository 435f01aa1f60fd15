"""The contract every registered task keeps (and the three-seat test game, which exercises relayed chat): an
instance that round-trips through JSON and rebuilds the same game, rejected moves that change nothing, a usage line
per command, default brains that finish a seeded game, a replay that reproduces it exactly, results in the shared
schema, and no seat that ever receives another seat's private data."""
from __future__ import annotations

import collections
import copy
import gc
import json
import pickle

import pytest

from tasks.core.evaluation import LOCAL_TIMERS, play_game
from bots.study.replay import replay_file
from tasks import available_tasks, get_task
from tasks.core import (
    Command, MatchDriver, SeatInfo, addressed_to, build_match, effect_to_json, schema_problems,
)
from tests.leaks import find_leaks
from tests.threeseat import SPEC as MEETING

SPECS = [get_task(name) for name in available_tasks()] + [MEETING]
SEEDS = (0, 7)


def _agents(spec):
    return dict(zip(spec.seats, spec.default_brains))


def _seats(spec):
    return {s: SeatInfo("agent", s.title(), a) for s, a in _agents(spec).items()}


@pytest.fixture(params=SPECS, ids=lambda s: s.name)
def spec(request):
    return request.param


def test_the_spec_declares_seats_brains_and_renderer(spec):
    assert spec.seats and len(spec.default_brains) == len(spec.seats)
    for seat, brain in _agents(spec).items():
        spec.check_brain(brain, seat)  # every default brain may sit in its seat
    assert spec.chat in ("open", "relay")
    if spec.renderer:
        assert callable(spec.load_renderer())
    for o in spec.cli_options:
        assert o.flag.startswith("--") and o.key


@pytest.mark.parametrize("seed", SEEDS)
def test_instance_round_trips_through_json_and_rebuilds_the_same_game(spec, seed):
    inst = spec.generate(seed, {})
    loaded = json.loads(json.dumps(inst))
    assert loaded == inst
    a, _ = build_match(spec, seed, _seats(spec), instance=loaded, with_brains=False)
    b, _ = build_match(spec, seed, _seats(spec), with_brains=False)
    assert a.game.instance() == b.game.instance() == inst
    # a different seed's instance, loaded, wins over the seed (replay never regenerates)
    other = spec.generate(seed + 1, {})
    c, _ = build_match(spec, seed, _seats(spec), instance=other, with_brains=False)
    assert c.game.instance() == other


def test_every_command_has_a_usage_line(spec):
    match, _ = build_match(spec, 1, _seats(spec), with_brains=False)
    commands = match.game.commands()
    assert commands
    for name, usage in commands.items():
        assert usage.startswith("/" + name) and len(usage) > len(name) + 3, (name, usage)


def test_rejected_moves_change_nothing(spec):
    match, _ = build_match(spec, 3, _seats(spec), timers=LOCAL_TIMERS, with_brains=False)
    match.open(0.0)
    assert match.phase == "playing"
    seat = spec.seats[0]
    bad = [Command(seat, "no-such-command"), *[Command(seat, name, ("%%", "@@", "999999"))
                                               for name in match.game.commands()]]
    for inp in bad:
        before = pickle.dumps(match.game)
        effects = match.handle(inp)
        errors = [e for e in effects if getattr(e, "kind", "") == "error"]
        if errors:
            assert pickle.dumps(match.game) == before, f"/{inp.name} was refused but changed the game"
            assert all(e.to == seat for e in errors)


@pytest.mark.parametrize("seed", SEEDS)
def test_default_brains_finish_and_the_replay_reproduces_the_game(spec, seed, tmp_path):
    log = tmp_path / "game.jsonl"
    rec = play_game(spec, seed, _agents(spec), log_path=str(log))
    assert rec.results["status"] == "completed", rec.results
    assert schema_problems(rec.results) == []
    games, problems = replay_file(str(log), resolve=lambda name: spec)
    assert [str(p) for p in problems if p.skipped] == []
    [g] = games
    assert g.check == "ok", g.mismatches
    assert g.recomputed_results["status"] == "completed"


@pytest.mark.parametrize("seed", SEEDS)
def test_no_seat_receives_another_seats_private_data(spec, seed):
    match, brains = build_match(spec, seed, _seats(spec), timers=LOCAL_TIMERS)
    driver = MatchDriver(match, brains)
    effects = [e for batch in driver.open() for e in batch]
    assert match.over
    parts = {s: match.game.private_parts(s) for s in spec.seats}
    assert any(parts.values()), "the task declares what is private"
    for seat in spec.seats:
        received = [effect_to_json(e) for e in effects if addressed_to(e, seat)]
        others = [p for s, ps in parts.items() if s != seat for p in ps]
        assert find_leaks(received, others) == [], seat
    # the record (logs addressed to nobody) does hold the instance: replay needs it
    start = next(e for e in effects if getattr(e, "event", "") == "game_start")
    assert start.to is None and start.data["instance"] == match.game.instance()


def test_the_leak_detector_finds_a_leak():
    """The detector itself: a partner's private dict inside a JSON page text, a list, a substring."""
    secret = {"A-B": 3, "B-C": 9}
    assert find_leaks([{"text": json.dumps({"x": {"A-B": 3, "B-C": 9, "C-D": 1}})}], [secret])
    assert not find_leaks([{"text": json.dumps({"x": {"A-B": 3, "B-C": 8}})}], [secret])
    assert find_leaks([[1, [[0, 1], [2, 3]]]], [[[0, 1], [2, 3]]])
    assert find_leaks(["walls: 0,1;2,3"], ["0,1;2,3"])


def test_copies_of_a_match_are_independent(spec):
    match, _ = build_match(spec, 5, _seats(spec), timers=LOCAL_TIMERS, with_brains=False)
    match.open(0.0)
    clone = copy.deepcopy(match)
    clone.game.inst["__marker"] = 1
    assert "__marker" not in match.game.instance()


def test_a_finished_game_leaves_no_reference_cycles(spec):
    """A game, its copies and its agents are freed by reference counting when a room lets go of them. Objects in a
    reference cycle wait for the garbage collector's full runs, which a busy bot makes rarely: finished games piled up
    in between and the heap fragmented (the soak bench's memory grew with the games played)."""
    agents = _agents(spec)
    play_game(spec, 0, agents)  # imports and caches first
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds stays in gc.garbage, to be named
    try:
        play_game(spec, 1, agents)
        gc.collect()
        left = collections.Counter(type(o).__qualname__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not left, left.most_common(8)
