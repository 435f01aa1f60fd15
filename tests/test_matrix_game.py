"""The negotiation-games rules: sealed simultaneous moves (nothing the partner receives depends on a move before
both are in), talk strictly in turn with a halt by agreement that really fires, sequential moves in order seen by
both, deadlines with default moves, trials, YAML games, and the paper-layout CLI table."""
from __future__ import annotations

import pytest

from bots.local import main
from tasks.core.evaluation import LOCAL_TIMERS, play_game
from tasks import get_task
from tasks.core import (
    Chat, Command, Join, LogEvent, SeatInfo, SetTimer, TimerFired, addressed_to, build_match, effect_to_json,
)
from tests.leaks import find_leaks

SPEC = get_task("matrix-games")


def _match(**options):
    seats = {s: SeatInfo("person", s.title()) for s in SPEC.seats}
    m, _ = build_match(SPEC, 1, seats, options=options, timers=LOCAL_TIMERS, with_brains=False)
    m.open(0.0)
    effects = []
    for s in SPEC.seats:
        effects += m.handle(Join(s, t=0.0))
    return m, effects


def _errors(effects, seat=None):
    return [e.text for e in effects if getattr(e, "kind", "") == "error" and (seat is None or e.to == seat)]


def _to(effects, seat):
    """What `seat` receives, as JSON: messages, views, log rows addressed to it (rows addressed to nobody are the
    record replay needs, which participants cannot read: tests/test_matrix_slurk.py checks that on the wire)."""
    return [effect_to_json(e) for e in effects
            if addressed_to(e, seat) and not (isinstance(e, LogEvent) and e.to is None)]


def _bob_before_commit(alice_move: str, k: int = 0):
    m, _ = _match(negotiation=k)
    if k:
        for seat in ("alice", "bob"):
            m.handle(Command(seat, "halt", t=1.0))
    effects = m.handle(Command("alice", "move", (alice_move,), t=2.0))
    return m, _to(effects, "bob")


@pytest.mark.parametrize("k", [0, 2])
def test_nothing_bob_receives_depends_on_alices_sealed_move(k):
    m1, seen1 = _bob_before_commit("Cooperate", k)
    m2, seen2 = _bob_before_commit("Defect", k)
    assert seen1 == seen2 and seen1  # he learns that Alice moved, and nothing else
    view = m1.game.view("bob")
    assert view["commit"] == {"open": True, "me": False, "partner": True, "sealed": None,
                              "closes_at": 61.0 if k else 60.0}  # the default move comes 60 s after opening
    assert find_leaks(seen1, m1.game.private_parts("alice")) == []
    assert m1.game.view("alice")["commit"]["sealed"] == m1.game.private_parts("alice")[0]
    effects = m1.handle(Command("bob", "move", ("defect",), t=3.0))
    assert m1.over and m1.results["outcome"] == {"alice": "Cooperate", "bob": "Defect"}
    assert m1.results["payoffs"] == {"alice": 0, "bob": 5} and m1.results["is_ne"] is False
    assert any("Revealed: Alice Cooperate, Bob Defect" in getattr(e, "text", "") for e in effects)


def test_talk_is_strictly_in_turn_and_halt_by_agreement_fires():
    m, _ = _match(game="battle-of-sexes", negotiation=4, first="bob")
    assert _errors(m.handle(Chat("alice", "hi", t=1.0)), "alice")  # Bob speaks first
    assert not _errors(m.handle(Chat("bob", "let's both go opera", t=1.0)))
    assert _errors(m.handle(Chat("bob", "again", t=1.0)), "bob")  # not twice in a row
    assert _errors(m.handle(Command("alice", "move", ("Opera",), t=1.0)), "alice")  # negotiate first
    m.handle(Command("alice", "halt", t=2.0))
    assert m.game.stage == "negotiate"
    m.handle(Command("bob", "halt", t=2.0))
    assert m.game.stage == "move" and m.game.counts["halts"] == 1 and m.game.counts["messages"] == 1
    assert _errors(m.handle(Chat("alice", "wait", t=3.0)), "alice")  # the talk is over
    m.handle(Command("alice", "move", ("1",), t=3.0))
    m.handle(Command("bob", "move", ("opera",), t=3.0))
    assert m.results["halts"] == 1 and m.results["messages"] == 1


def test_a_halt_request_lapses_when_its_seat_talks_on_and_rounds_run_out():
    m, _ = _match(negotiation=1)
    m.handle(Command("alice", "halt", t=1.0))
    m.handle(Chat("alice", "actually, one more thing", t=1.0))
    assert m.game.talk.halt_requests == []
    m.handle(Chat("bob", "ok", t=1.0))
    assert m.game.stage == "move" and m.game.counts["halts"] == 0


def test_workflow_agents_halt_early_instead_of_using_every_round():
    rec = play_game(SPEC, 0, {"alice": "workflow", "bob": "workflow"}, {"game": "stag-hunt", "negotiation": 10})
    assert rec.results["halts"] == 1 and rec.results["messages"] < 20
    assert rec.results["outcome"] == {"alice": "Stag", "bob": "Stag"}


def test_sequential_moves_in_order_seen_by_both_with_talk_before_each():
    m, _ = _match(game="monopoly", negotiation=1)
    m.handle(Chat("alice", "I enter", t=1.0))
    m.handle(Chat("bob", "then I share", t=1.0))
    assert _errors(m.handle(Command("bob", "move", ("1",), t=2.0)), "bob")  # Alice's move
    effects = m.handle(Command("alice", "move", ("choice_2",), t=2.0))
    for seat in SPEC.seats:
        assert any("Alice plays choice_2" in j.get("text", "") for j in _to(effects, seat))
        assert m.game.view(seat)["path"] == ["choice_2"]
    assert m.game.stage == "negotiate"  # a new negotiation before Bob's move
    m.handle(Command("alice", "halt", t=3.0))
    m.handle(Command("bob", "halt", t=3.0))
    assert m.game.view("bob")["moves"] == ["choice_1", "choice_2"] and m.game.view("alice")["moves"] == []
    m.handle(Command("bob", "move", ("1",), t=3.0))
    assert m.results["outcome"] == ["choice_2", "choice_1"] and m.results["is_ne"] is True
    assert m.results["spe_path"] == ["choice_2", "choice_1"] and m.results["payoffs"] == {"alice": 2, "bob": 1}


def _timer(effects, name):
    return next(e for e in reversed(effects) if isinstance(e, SetTimer) and e.name == name)


def test_the_deadline_gives_a_silent_seat_its_default_move():
    m, effects = _match(game="stag-hunt", default_move=2, move_seconds=30)
    timer = _timer(effects, "game:move")
    assert timer.seconds == 30
    m.handle(Command("alice", "move", ("stag",), t=5.0))
    effects = m.handle(TimerFired("game:move", timer.token, t=31.0))
    assert m.over and m.results["outcome"] == {"alice": "Stag", "bob": "Hare"} and m.results["defaulted"] == 1
    assert m.results["outcomes"][0]["defaulted"] == ["bob"]


def test_the_talk_deadline_passes_a_silent_speakers_turn():
    m, effects = _match(negotiation=1, talk_seconds=40)
    timer = _timer(effects, "game:talk")
    m.handle(TimerFired("game:talk", timer.token, t=41.0))
    assert m.game.talk.current == "bob"
    assert not _errors(m.handle(Chat("bob", "hello?", t=42.0)))
    assert m.game.stage == "move"


def test_a_sequential_deadline_plays_the_default_move():
    m, effects = _match(game="escalation")
    m.handle(TimerFired("game:move", _timer(effects, "game:move").token, t=61.0))
    assert m.over and m.results["outcome"] == ["choice_1"] and m.results["defaulted"] == 1


def test_several_trials_in_one_room():
    rec = play_game(SPEC, 3, {"alice": "workflow", "bob": "random"}, {"game": "battle-of-sexes", "trials": 5,
                                                                       "negotiation": 2})
    r = rec.results
    assert r["status"] == "completed" and r["trials_played"] == 5 and len(r["outcomes"]) == 5
    assert r["ne_rate"] == sum(o["is_ne"] for o in r["outcomes"]) / 5


def test_a_yaml_game_file_plays_locally(tmp_path):
    f = tmp_path / "g.yaml"
    f.write_text("name: three\ntitle: Three\nkind: matrix\nactions: [[Low, Mid, High], [Low, Mid, High]]\n"
                 "payoffs:\n  - [[1, 1], [0, 0], [0, 0]]\n  - [[0, 0], [2, 2], [0, 0]]\n"
                 "  - [[0, 0], [0, 0], [4, 4]]\n")
    rec = play_game(SPEC, 0, {"alice": "workflow", "bob": "workflow"}, {"game_file": str(f)})
    assert rec.results["outcome"] == {"alice": "High", "bob": "High"} and rec.results["po_ne"] is True
    m, _ = _match(game_file=str(f))
    assert _errors(m.handle(Command("alice", "move", ("Highest-ish",), t=1.0)), "alice")
    assert not _errors(m.handle(Command("alice", "move", ("hihg",), t=1.0)))  # a typo still names High


def test_an_unknown_game_is_refused_clearly():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        SPEC.generate(0, {"game": "chess"})


def test_the_cli_prints_the_papers_table_layout(tmp_path, capsys):
    assert main(["matrix-games", "--trials", "2", "--negotiation", "0,4", "--agents", "workflow,workflow",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    for game in ("prisoners-dilemma", "battle-of-sexes", "duopoly", "trigame", "average"):
        assert lines[game][1:5] == ["1.00"] * 4, lines[game]
    assert "paper T7 k=0" in out and "paper T8 k=4" in out and ".76 .69 .71 .81" in out
    assert (tmp_path / "paper_table.csv").exists()


def test_a_room_plays_a_sequence_of_games_of_both_kinds():
    rec = play_game(SPEC, 0, {"alice": "workflow", "bob": "workflow"},
                    {"game": "stag-hunt,trigame", "trials": 2, "negotiation": 1})
    r = rec.results
    assert [o["game"] for o in r["outcomes"]] == ["stag-hunt", "stag-hunt", "trigame", "trigame"]
    assert r["ne_rate"] == 1.0 and r["outcomes"][-1]["path"] == ["choice_2", "choice_1", "choice_2"]
    assert r["game"] == "stag-hunt,trigame" and r["trials"] == 4
