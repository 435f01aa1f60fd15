"""A match records the brain options its agents were built with in game_start (a preset's under the explicit
ones), for every runtime that builds it with `build_match`: local runs, the Slurk bot, replay."""
from __future__ import annotations

from tasks import get_task
from tasks.core import SeatInfo, build_match
from tasks.core.protocol import LogEvent


def _start(spec, seats, **kw):
    match, brains = build_match(spec, 3, seats, **kw)
    starts = [e.data for e in match.open() if isinstance(e, LogEvent) and e.event == "game_start"]
    assert len(starts) == 1
    return starts[0], brains


def test_game_start_holds_the_explicit_and_the_presets_brain_options():
    spec = get_task("asympuzl")
    seats = {"a": SeatInfo("agent", "A", "share-all"), "b": SeatInfo("agent", "B", "incremental")}
    start, brains = _start(spec, seats, options={"preset": "paper", "feedback": "own"},
                          brain_options={"retries": 2})
    preset = spec.presets["paper"].brain_options
    assert start["brain_options"]["sampling"] == preset["sampling"]
    assert start["brain_options"]["retries"] == 2
    assert all(b.options["sampling"] == preset["sampling"] for b in brains.values())


def test_without_brain_options_game_start_says_so_and_holds_only_json():
    spec = get_task("dond")
    seats = {"alice": SeatInfo("agent", "Alice", "bayes"), "bob": SeatInfo("person", "Bob")}
    start, _ = _start(spec, seats)
    assert start["brain_options"] == {}
    start, _ = _start(spec, seats, brain_options={"path": __import__("pathlib").Path("/x")})
    assert start["brain_options"] == {"path": "/x"}  # a path object as its text: the log is JSON
