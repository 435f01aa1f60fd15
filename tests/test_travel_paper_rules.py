"""The `paper` rules of TRAVELING ADVENTURERS (no /share, independent submissions, one agent answer one turn), the
metrics on one set of definitions for both presets (S90, AMT, HMT), and the worked example of the paper prompts."""
from __future__ import annotations

import pytest

from tasks.core import evaluation
from tasks import get_task
from tasks.core import GameOver, LogEvent
from tasks.travel.board import edge, normalize_tour
from tasks.travel.brains import paper_prompts as P
from tasks.travel.game import TravelGame
from tasks.travel.generator import PRESET_BOARDS
from tasks.travel.metrics import summarize
from tasks.travel.solver import best_tour, best_tours
from tests.test_travel_game import OPT, OTHER, Room, errors, public

TRAVEL = get_task("travel")


def game_start(room):
    return next(e.data for e in room.effects if isinstance(e, LogEvent) and e.event == "game_start")


def over(effects):
    return next((e for e in effects if isinstance(e, GameOver)), None)


@pytest.mark.parametrize("given,recorded", [({}, "ours"), ({"rules": "paper"}, "paper"), ({"rules": "PAPER"}, "paper")])
def test_the_rules_are_recorded_in_game_start(given, recorded):
    room = Room(**given)
    assert game_start(room)["options"]["rules"] == recorded
    assert room.view("light")["rules"] == recorded and room.view("ghost")["share"] is (recorded == "ours")


def test_unknown_rules_are_refused():
    with pytest.raises(ValueError, match="paper"):
        TravelGame(0, {"rules": "strict"})


def test_paper_rules_refuse_share_and_change_nothing():
    room = Room(rules="paper")
    before = room.view("ghost")
    out = room.cmd("light", "share", "all")
    assert any("chat" in t for t in errors(out, "light"))
    assert room.view("ghost") == before and room.view("ghost")["partner_coins"] == {}
    assert room.game_now.shared == {"light": [], "ghost": []}
    # under our rules the same command reveals the coins
    ours = Room()
    ours.cmd("light", "share", "all")
    assert len(ours.view("ghost")["partner_coins"]) == 15


def test_paper_welcome_names_no_share():
    welcome = public(Room(rules="paper").effects)[0]
    assert "/share" not in welcome and "your own tour" in welcome
    assert "/share" in public(Room().effects)[0]


def test_independent_submissions_end_the_game_with_different_tours():
    room = Room(rules="paper")
    room.cmd("light", "submit", *OPT)
    view = room.view("ghost")
    assert view["submitted"]["partner"] is True and view["partner_submitted"] is None  # which tour stays hidden
    out = room.cmd("ghost", "submit", *OTHER)
    end = over(out)
    assert end is not None and end.status == "mismatch"
    r = end.results
    assert not r["identical"] and not r["correct"] and not r["optimal"] and not r["s90"] and r["score"] == 0
    assert r["submitted"] == {"light": OPT, "ghost": OTHER} and r["rules"] == "paper"


def test_independent_submissions_measure_identical_correct_optimal():
    room = Room(rules="paper")
    room.cmd("light", "submit", *OTHER)
    room.cmd("light", "submit", *OPT)  # a seat may change its submission until both have one
    end = over(room.cmd("ghost", "submit", *OPT[::-1]))  # the same cycle, the other way round
    assert end.status == "completed"
    r = end.results
    assert r["identical"] and r["correct"] and r["optimal"] and r["s90"] and r["percentile"] == 100.0


def test_agreement_does_not_withdraw_a_paper_submission():
    room = Room(rules="paper")
    room.cmd("light", "submit", *OTHER)
    room.cmd("ghost", "propose", *OPT)
    room.cmd("light", "agree")
    assert room.game_now.gate.submitted["light"] == OTHER
    end = over(room.cmd("ghost", "submit"))  # the agreed tour
    assert end.status == "mismatch"


def test_our_rules_still_wait_for_identical_tours():
    room = Room()
    room.cmd("light", "submit", *OPT)
    out = room.cmd("ghost", "submit", *OTHER)
    assert over(out) is None and any("differ" in t for t in public(out))


@pytest.mark.parametrize("rules", ["ours", "paper"])
def test_an_agent_batch_costs_one_turn_under_both_rules(rules):
    """The paper's harness charges one of its 15 iterations per model output, whatever the output holds."""
    room = Room(rules=rules)
    room.chat("light", "hi")  # the first move of the batch
    room.cmd("light", "propose", "E", turn=False)
    room.cmd("light", "withdraw", turn=False)  # free in both presets
    room.cmd("light", "propose", "B", turn=False)
    assert room.game_now.budget.used["light"] == 1
    room.chat("light", "and then?")  # the next answer is the next turn
    assert room.game_now.budget.used["light"] == 2


def test_submit_stays_free_under_paper_rules():
    room = Room(rules="paper", turn_limit=1)
    room.chat("light", "hi")
    assert not errors(room.cmd("light", "submit", *OPT))
    assert errors(room.chat("light", "more")), "the turn limit holds"


def row(**kw):
    base = {"identical": False, "correct": False, "optimal": False, "status": "timeout", "ratio": 0.0,
            "percentile": 0.0, "turns": 0, "tokens": 0, "s90": False, "turns_by_seat": {"light": 0, "ghost": 0}}
    return {**base, **kw}


def test_summary_has_s90_amt_hmt_and_the_rules():
    results = [row(identical=True, correct=True, optimal=True, s90=True, status="completed", percentile=100.0,
                   turns_by_seat={"light": 4, "ghost": 6}, rules="paper"),
               row(identical=True, correct=True, s90=True, status="completed", percentile=95.0,
                   turns_by_seat={"light": 2, "ghost": 8}, rules="paper"),
               row(status="mismatch", turns_by_seat={"light": 9, "ghost": 7}, rules="paper")]
    s = summarize(results)
    assert s["rules"] == "paper" and s["S90 %"] == 66.7 and s["optimal %"] == 33.3 and s["completed %"] == 66.7
    assert s["AMT"] == 7.0 and s["HMT"] == 5.0  # ghost = the agent's seat in the paper, light = the person's
    assert summarize(results + [row(rules="ours")])["rules"] == "mixed"


def test_s90_means_a_percentile_over_90_in_a_played_game():
    board = PRESET_BOARDS[0]
    for tour, s90 in ((OPT, True), (["L", "E", "A", "B", "C", "K", "L"], True), (OTHER, False)):
        room = Room(rules="paper")
        room.cmd("light", "submit", *tour)
        r = over(room.cmd("ghost", "submit", *tour)).results
        assert r["s90"] is s90 and (r["percentile"] > 90) is s90, (tour, r["percentile"], board.score(tour))


def test_solver_self_play_under_paper_rules_logs_the_rules(tmp_path):
    rec = evaluation.play_game(TRAVEL, 3, {"light": "solver", "ghost": "solver"}, {"rules": "paper"},
                          log_path=str(tmp_path / "g.jsonl"))
    assert rec.results["rules"] == "paper"
    assert '"rules": "paper"' in (tmp_path / "g.jsonl").read_text().splitlines()[0]
    assert rec.results["shared"] == {"light": 0, "ghost": 0}  # nothing revealed by the game


# ---------------------------------------------------------------------------------------------------------------
# the worked example of the paper prompts


def example_board() -> dict:
    coins = {s: {edge(*k.split("-")): w for k, w in P.EXAMPLE_COINS[s].items()} for s in ("light", "ghost")}
    return coins


def test_example_house_is_its_own_and_needs_both_worlds():
    coins = example_board()
    assert all(sum(c.values()) == 82 for c in coins.values())  # the paper's budget for 1..10 coins
    joint = {e: coins["light"][e] + coins["ghost"][e] for e in coins["light"]}
    tours, best = best_tours(joint, list(P.EXAMPLE_ROOMS), "L", distinct_cycles=True, limit=5)
    assert len(tours) == 1 and normalize_tour(tours[0], "L") == normalize_tour(P.TOUR, "L") and best == 76
    for seat in ("light", "ghost"):  # no world alone finds it
        own, _ = best_tour(coins[seat], list(P.EXAMPLE_ROOMS), "L")
        assert normalize_tour(own, "L") != normalize_tour(P.TOUR, "L")
    for b in PRESET_BOARDS:  # not a test board (the paper's example was its board 1)
        assert {edge(*k): w for k, w in b.weights["light"].items()} != coins["light"]


def test_example_ibps_are_the_solvers():
    coins = example_board()
    known = {"light": {}, "ghost": {}}
    for step in P.EXAMPLE_SCRIPT:
        seat = step["seat"]
        w = dict(coins[seat])
        for k, c in known[seat].items():
            w[edge(*k.split("-"))] += c
        _, value = best_tour(w, list(P.EXAMPLE_ROOMS), "L", prefix=tuple(step["visited"][:6]))
        ibp = step["ibp"]
        assert ibp[:len(step["visited"])] == step["visited"] or len(step["visited"]) == 1
        assert sum(w[edge(a, b)] for a, b in zip(ibp, ibp[1:])) == value
        other = "ghost" if seat == "light" else "light"
        known[other].update(step["states"])
        for k, c in step["states"].items():  # what a message states is true
            assert P.EXAMPLE_COINS[seat][k if k in P.EXAMPLE_COINS[seat] else "-".join(k.split("-")[::-1])] == c


def test_example_announcements_are_the_games_own_words():
    """Play the example conversation's moves on the example house: the game says exactly what the example shows."""
    board = {"rooms": list(P.EXAMPLE_ROOMS), "start": "L", "wmin": 1, "wmax": 10, "weights": P.EXAMPLE_COINS}
    room = Room(rules="paper", board=board)
    for step in P.EXAMPLE_SCRIPT:
        seat, said = step["seat"], []
        assert room.view(seat)["agreed"] == step["visited"]
        said += public(room.chat(seat, step["message"]))
        pending = room.view(seat)["pending"]
        for kind, args in step["actions"]:
            if kind == "agree-inner" and pending and not pending["mine"]:
                said += public(room.cmd(seat, "agree"))
            elif kind == "suggest":
                rooms = args[1:] if args[0] == room.view(seat)["agreed"][-1] and len(args) < 7 else args
                said += public(room.cmd(seat, "propose", *rooms))
            elif kind == "end":
                said += public(room.cmd(seat, "submit", *args))
        assert said == step["game"] or (step is P.EXAMPLE_SCRIPT[-1] and said[0].startswith("Both submitted")), said
    assert over(room.effects).results["optimal"]
