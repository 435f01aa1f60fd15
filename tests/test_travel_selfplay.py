"""Self-play of the solver agent (no LLM): it must reach the optimum on the paper's boards and on generated ones."""
from __future__ import annotations

import pytest

from tasks.core import Abort, Match, MatchDriver, SeatInfo
from tasks.travel.metrics import summarize
from tasks.travel.spec import SPEC


def play(seed, options, agents=("solver", "solver")):
    game = SPEC.game_class(seed, options)
    match = Match(game, {s: SeatInfo("agent", s, a) for s, a in zip(SPEC.seats, agents)})
    brains = {s: SPEC.make_brain(a, s, seed * 31 + i) for i, (s, a) in enumerate(zip(SPEC.seats, agents))}
    driver = MatchDriver(match, brains, clock=lambda: 0.0)
    for _ in driver.open():
        pass
    if not match.over:
        for _ in driver.feed(Abort("stalled", "the agents stopped")):
            pass
    return match.results


def check(results, limit=15):
    for r in results:
        assert r["status"] == "completed", r
        assert r["identical"] and r["correct"] and r["optimal"], r
        assert max(r["turns_by_seat"].values()) <= limit


def test_preset_boards_all_reach_the_optimum():
    results = [play(i, {"boards": "preset", "index": i}) for i in range(6)]
    check(results)
    row = summarize(results)
    assert row["games"] == 6 and row["optimal %"] == 100.0 and row["identical %"] == 100.0
    assert row["ratio"] == 1.0 and row["percentile"] == 100.0 and 0 < row["turns"] <= 30
    # the threshold policy reveals fewer coins than sharing everything (2 x 15 per game)
    assert row["shared"] < 30


def test_generated_boards_reach_the_optimum():
    results = [play(seed, {"boards": "generated", "rooms": 6}) for seed in range(10)]
    check(results)
    results = [play(seed, {"boards": "generated", "rooms": 8}) for seed in range(3)]
    check(results)


def test_human_study_board_and_tutorial():
    check([play(7, {"boards": "human"}), play(7, {"boards": "tutorial"})])


@pytest.mark.parametrize("agents", [("solver", "baseline"), ("problem-solving", "solver")])
def test_llm_variants_without_an_llm_play_the_solver_policy(agents):
    check([play(1, {"boards": "preset", "index": 0}, agents)])


def test_summarize_counts_failures():
    row = summarize([{"identical": True, "correct": True, "optimal": True, "status": "completed", "ratio": 1.0,
                      "percentile": 100.0, "turns": 6, "tokens": 10, "shared": {"light": 3, "ghost": 4}},
                     {"identical": False, "correct": False, "optimal": False, "status": "timeout", "ratio": 0.0,
                      "percentile": 0.0, "turns": 30, "tokens": 0}])
    assert row.items() >= {"games": 2, "identical %": 50.0, "correct %": 50.0, "optimal %": 50.0, "completed %": 50.0,
                           "ratio": 0.5, "percentile": 50.0, "turns": 18.0, "tokens": 5.0, "shared": 3.5}.items()
    assert summarize([])["games"] == 0
