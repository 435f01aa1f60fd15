"""AsymPuzl rules: instances (distinct shapes, B's pairs never in the truth's order, distractors outside the truth),
alternating turns (A first; moves and messages out of turn are refused and change nothing), `/replace` edits only
the mover's own row, the six feedback modes, the noisy channel (the partner gets a seeded damaged copy, the speaker
its own words), success within 2 rounds with full sharing, the 2N-round limit, results and the Wilson summary."""
from __future__ import annotations

import pickle

import pytest

from tasks.core.evaluation import LOCAL_TIMERS, play_game
from tasks import get_task
from tasks.asympuzl import generator
from tasks.asympuzl.game import NOISY_PREFIX
from tasks.asympuzl.metrics import summarize, wilson
from tasks.core import Chat, ChatShown, Command, Join, Message, SeatInfo, build_match
from tests.leaks import find_leaks

SPEC = get_task("asympuzl")


def _match(seed=1, **options):
    seats = {s: SeatInfo("person", s) for s in SPEC.seats}
    m, _ = build_match(SPEC, seed, seats, options=options, timers=LOCAL_TIMERS, with_brains=False)
    m.open(0.0)
    for s in SPEC.seats:
        m.handle(Join(s))
    return m


def _errors(effects, seat=None):
    return [e.text for e in effects if getattr(e, "kind", "") == "error" and (seat is None or e.to == seat)]


@pytest.mark.parametrize("seed,size,d", [(0, 2, 0), (1, 5, 0), (2, 10, 3), (3, 50, 5), (4, 72, 0)])
def test_instances_are_solvable_seeded_and_hide_the_truth_order(seed, size, d):
    inst = generator.generate(seed, size=size, distractors=d)
    assert generator.generate(seed, size=size, distractors=d) == inst
    shapes = [s for s, _ in inst["truth"]]
    assert len(set(shapes)) == size and len(inst["b_clues"]) == size + d
    assert inst["b_clues"][:size] != inst["truth"]
    assert all(s in c for s, c in zip(shapes, inst["a_clues"]))  # A's candidates hold the true shape
    a_extra = {s for c in inst["a_clues"] for s in c} - set(shapes)
    b_extra = {s for s, _ in inst["b_clues"]} - set(shapes)
    assert len(a_extra) == len(b_extra) == d and not a_extra & b_extra
    assert sorted(map(tuple, inst["truth"])) == sorted(tuple(p) for p in inst["b_clues"] if p[0] in shapes)


def test_sizes_beyond_the_vocabulary_are_refused_clearly():
    with pytest.raises(ValueError, match="needs"):
        generator.generate(0, size=10, distractors=3, shapes=12)
    with pytest.raises(ValueError):
        generator.generate(0, size=1)


def test_turns_alternate_and_moves_out_of_turn_change_nothing():
    m = _match()
    before = pickle.dumps(m.game)
    for inp in (Command("b", "replace", ("1", "circle", "red")), Chat("b", "hello"), Command("b", "done")):
        effects = m.handle(inp)
        assert _errors(effects, "b") and not any(isinstance(e, ChatShown) for e in effects)
        assert pickle.dumps(m.game) == before
    m.handle(Command("a", "replace", ("2", "red", "circle")))
    assert m.game.hyp["a"][1] == ["circle", "red"] and m.game.hyp["b"] == [list(p) for p in m.game.inst["b_clues"][:5]]
    effects = m.handle(Chat("a", "position 2 is the circle"))
    assert [e for e in effects if isinstance(e, ChatShown)][0].to is None  # a clean channel: both see the line
    assert m.game.current == "b" and m.game.moves == 1
    assert _errors(m.handle(Command("a", "replace", ("1", "circle", "red"))), "a")


def test_bad_replacements_get_a_clear_private_answer():
    m = _match()
    for args in (("9", "circle", "red"), ("1", "blob", "red"), ("circle", "red"), ("1", "circle", "mauve")):
        errs = _errors(m.handle(Command("a", "replace", args)), "a")
        assert errs and ("position" in errs[0] or "shape" in errs[0])
    assert m.game.counts["a"]["actions"] == 0


def _feedback_after_one_move(mode):
    m = _match(feedback=mode)
    m.handle(Command("a", "done"))
    return m.game.view("a")["feedback"], m.game.view("b")["feedback"]


def test_the_six_feedback_modes():
    assert _feedback_after_one_move("none") == ({}, {})
    a, _ = _feedback_after_one_move("own")
    assert a == {"own_solved": False}
    a, _ = _feedback_after_one_move("own-detailed")
    assert a["own_wrong"] == [1, 2, 3, 4, 5]  # A's row has no colours yet
    a, b = _feedback_after_one_move("joint")
    assert a == b == {"all_solved": False}
    a, _ = _feedback_after_one_move("both")
    assert set(a) == {"own_solved", "partner_solved"}
    a, b = _feedback_after_one_move("both-detailed")
    assert a["partner_wrong"] == b["own_wrong"] and b["partner_wrong"] == a["own_wrong"]
    with pytest.raises(ValueError):
        _match(feedback="loud")


def test_the_noisy_channel_damages_only_the_partners_copy_and_is_seeded():
    text = "Shapes by position, 1 to 5: circle, square, triangle, star, heart."
    runs = []
    for _ in range(2):
        m = _match(seed=3, noise=0.2)
        effects = m.handle(Chat("a", text))
        runs.append(([e for e in effects if isinstance(e, ChatShown)],
                     [e for e in effects if isinstance(e, Message) and e.text.startswith(NOISY_PREFIX)]))
    [own], [copy] = runs[0]
    assert own.to == () and own.text == text  # the speaker alone sees what they wrote
    assert copy.to == "b" and copy.text.startswith(NOISY_PREFIX + "Player A: ")
    damaged = copy.text.split(": ", 1)[1]
    assert damaged != text and len(damaged) > len(text)
    it = iter(damaged)
    assert all(ch in it for ch in text)  # only insertions: the original is a subsequence
    assert runs[1][1][0].text == copy.text


def test_share_all_solves_within_two_rounds_and_the_limit_ends_a_silent_game():
    rec = play_game(SPEC, 5, {"a": "share-all", "b": "share-all"}, {"size": 8, "distractors": 2})
    r = rec.results
    assert r["status"] == "completed" and r["success"] and r["turns_to_success"] == 2 and r["moves"] == 3
    assert r["solved_by_round"] == [False, True] and r["actions_per_position"]["a"] == 1.0
    m = _match(size=3)
    for i in range(12):
        m.handle(Command("a" if i % 2 == 0 else "b", "done"))
    assert m.over and m.results["success"] is False and m.results["turns"] == 6 and m.results["moves"] == 12
    assert _errors(m.handle(Command("a", "done")), "a")


def test_views_show_each_seat_only_its_own_clues():
    m = _match(seed=2, size=6, distractors=2)
    va, vb = m.game.view("a"), m.game.view("b")
    assert "clue_shapes" in va and "clue_pairs" not in va and "clue_pairs" in vb and "clue_shapes" not in vb
    assert not find_leaks([va], m.game.private_parts("b")) and not find_leaks([vb], m.game.private_parts("a"))
    assert find_leaks([vb], m.game.private_parts("b"))  # the detector does see a seat's own clues


def test_summary_has_wilson_intervals_and_success_by_round():
    lo, hi = wilson(30, 30)
    assert hi == 1.0 and 0.88 < lo < 0.89
    lo, hi = wilson(15, 30)
    assert lo < 0.5 < hi
    res = [{"success": True, "turns_to_success": 2, "actions_per_position": {"a": 1, "b": 1}, "messages": 2},
           {"success": False, "turns_to_success": None, "actions_per_position": {"a": 0, "b": 0}, "messages": 20}]
    s = summarize(res)
    assert s["success %"] == 50.0 and s["success@2 %"] == 50.0 and s["success@1 %"] == 0.0
    assert s["95% CI"] == "9.5-90.5" and s["rounds (solved)"] == 2
