"""Mediation on the original's terms: each user's view, page and simulated user hold what the original's users saw
(calendar with importance, flights, each proposal's breakdown; never their price and arrival weights, which are
ours behind task option `show_weights`)."""
from __future__ import annotations

import json

import pytest

from tasks import get_task
from tasks.core import View
from tasks.core.evaluation import play_game
from tasks.mediation.game import USERS, MediationGame

SPEC = get_task("mediation")
AGENTS = {"user1": "simuser", "user2": "simuser", "assistant": "mediator"}
WEIGHT_KEYS = ("price_pref", "arrival_pref", "reference_price")


def _reweighted(seed: int, price: int, arrival: int) -> MediationGame:
    game = MediationGame(seed, {})
    for u in game.inst["users"]:
        u["price_pref"] = price
    game.inst["arrival_pref"] = arrival
    return game


@pytest.mark.parametrize("seat", USERS)
def test_a_users_view_has_no_weights_unless_the_option_shows_them(seat):
    game = MediationGame(4, {})
    text = json.dumps(game.view(seat))
    assert not any(k in text for k in WEIGHT_KEYS) and "prefs" not in game.view(seat)
    shown = MediationGame(4, {"show_weights": "yes"}).view(seat)
    assert shown["prefs"] == game.prefs(seat)
    other = USERS[1 - USERS.index(seat)]
    assert json.dumps(game.prefs(other)) not in json.dumps(shown)  # never the other user's
    assert not any(k in json.dumps(MediationGame(4, {"show_weights": "yes"}).view("assistant")) for k in WEIGHT_KEYS)


def _opening(brain: str, game: MediationGame, seat: str) -> list[str]:
    b = SPEC.make_brain(brain, seat, 3, None, {})
    b.observe(View(seat, {**game.view(seat), "core": {"phase": "playing", "seat": seat}}))
    return [m.text for m in b.act()]


@pytest.mark.parametrize("brain", ["simuser", *sorted(n for n in SPEC.brains if n.startswith("person-"))])
def test_the_users_first_words_do_not_depend_on_the_hidden_weights(brain):
    for seed in range(5):
        said = _opening(brain, _reweighted(seed, 3, 2), "user1")
        assert said == _opening(brain, _reweighted(seed, 19, 9), "user1"), said
        assert not any("/20" in line or "matters" in line for line in said), said


def test_with_the_option_the_simulated_user_says_its_weights():
    game = MediationGame(2, {"show_weights": "yes"})
    said = " ".join(_opening("simuser", game, "user1"))
    assert f"{game.prefs('user1')['price_pref']}/20" in said or f"{game.prefs('user1')['price_pref']} out of 20" in said
    assert f"{game.prefs('user1')['arrival_pref']}/10" in said


def test_self_play_users_never_state_a_weight_and_still_agree():
    for seed in range(4):
        shown = []
        rec = play_game(SPEC, seed, AGENTS, {}, show=shown.append)
        said = [line for line in shown if line.startswith("User")]
        assert said and not any("/20" in line or "matters" in line for line in said), said
        assert rec.results["status"] == "completed" and rec.results["normalized_score"] > 0.8
